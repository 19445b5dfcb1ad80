"""`methods.py audit` against what a user's code or files can do to it (issue 39): a tokenizer that
exits, crashes, prints or hangs, and a run one query deep by hundreds of thousands of lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT
from modules.audit import run_audit
from test_audit import folder, passage

FINE = "a passage the tokenizer counts"
FATAL = "the passage that upsets the tokenizer"


def audit_with(tmp_path, body: str, *extra: str) -> subprocess.CompletedProcess:
    data = folder(tmp_path / "data", [passage("a", FINE), passage("b", FATAL)], {"q": ["a", "b"]}, {"q": ["a", "b"]})
    (tmp_path / "usertok.py").write_text(body)
    return subprocess.run([sys.executable, "-B", str(ROOT / "methods.py"), "audit", str(data), "--tokenizer",
                           "usertok:count", *extra], cwd=tmp_path, capture_output=True, timeout=120)


@pytest.mark.parametrize("body, found", [
    ("import os\ndef count(text):\n    os._exit(0)\n", "ended its process (exit code 0) on the text 'a passage"),
    ("import os\ndef count(text):\n    if 'upsets' in text:\n        os.kill(os.getpid(), 9)\n    return 1\n",
     "crashed (killed by signal 9, SIGKILL) on the text 'the passage that upsets"),
    ("def count(text):\n    if 'upsets' in text:\n        raise KeyError('no')\n    return 1\n",
     "failed on the text 'the passage that upsets the tokenizer': KeyError: 'no'"),
    ("def count(text):\n    return 'many'\n", "expected a count or a list of tokens, found str for the text 'a pass"),
    ("import os\nos._exit(3)\n", "ended its process (exit code 3) while importing usertok"),
])
def test_a_tokenizer_that_exits_crashes_or_fails_is_one_clean_line(tmp_path, body, found):
    done = audit_with(tmp_path, body, "--json")
    assert done.returncode == 2 and done.stdout == b"", done.stderr
    line = done.stderr.decode()
    assert line.count("\n") == 1 and line.startswith("methods.py audit: error: --tokenizer usertok:count: ")
    assert found in line and "Traceback" not in line, line


def test_a_tokenizer_printing_on_its_standard_output_leaves_the_json_whole(tmp_path):
    # print() and a write to file descriptor 1 (as C code writes) both go to standard error.
    body = ("import os\nprint('loading')\nos.write(1, b'raw noise\\n')\n"
            "def count(text):\n    print('counting', text)\n    os.write(1, b'more noise\\n')\n"
            "    return len(text.split())\n")
    done = audit_with(tmp_path, body, "--json", "--budget", "6")
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)
    assert record["settings"]["unit"] == "usertok:count"
    assert [b["coverage"] for b in record["budgets"]] == [0.5]    # 5 words fit in 6, then 6 more do not
    assert b"loading" in done.stderr and b"raw noise" in done.stderr and b"more noise" in done.stderr


def test_a_tokenizer_that_hangs_is_stopped_at_the_deadline_and_the_text_named(tmp_path, monkeypatch):
    from modules.audit import tokenizer_process
    monkeypatch.setattr(tokenizer_process, "DEADLINE", 1.0)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "slowtok.py").write_text("import time\ndef count(text):\n    if 'upsets' in text:\n"
                                         "        time.sleep(60)\n    return 1\n")
    data = folder(tmp_path / "data", [passage("a", FINE), passage("b", FATAL)], {"q": ["a", "b"]}, {"q": ["a", "b"]})
    with pytest.raises(ValueError, match="--tokenizer slowtok:count: gave no answer within 1 s on the text "
                                         "'the passage that upsets"):
        run_audit(str(data), tokenizer="slowtok:count")


# ---------------------------------------------------------------- a query a million lines deep

PEAK_PROBE = """
import sys
sys.path.insert(0, {root!r})
from modules.audit import run_audit
report = run_audit({data!r}, budgets=[200, 800])
print(next(loss.detail for loss in report.results[0].lost[0] if loss.id == {last!r}))
print(int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1]) / 1024)
"""


def deep_run(tmp_path, depth: int):
    """One query ranking `depth` doc ids, scores falling by thirds (ties written in ascending doc id
    order, the reverse of trec_eval's), judged passages at the top, in the middle and at the end."""
    rows = [passage(f"p{i}", f"passage {i} " + "word " * (i % 50)) for i in range(1000)]
    data = folder(tmp_path, rows, "", {"q": ["p3", "p7", f"p{depth // 2}", f"p{depth - 1}"]})
    with open(data / "run.trec", "w", encoding="utf-8") as out:
        out.writelines(f"q Q0 p{i} {i + 1} {depth - i // 3}.0 deep\n" for i in range(depth))
    return data


def peak(data, depth: int) -> tuple[str, float]:
    probe = PEAK_PROBE.format(root=str(ROOT), data=str(data), last=f"p{depth - 1}")
    done = subprocess.run([sys.executable, "-B", "-c", probe],
                          capture_output=True, text=True, check=True, timeout=300)
    detail, megabytes = done.stdout.splitlines()
    return detail, float(megabytes)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc/self/status (VmHWM)")
def test_memory_follows_the_top_k_not_the_depth_of_a_query(tmp_path):
    shallow, deep = deep_run(tmp_path / "shallow", 1000), deep_run(tmp_path / "deep", 200_000)
    (_, small), (detail, large) = peak(shallow, 1000), peak(deep, 200_000)
    # p199999 shares its score with p199998 only, and goes first: trec_eval's order
    assert detail == "ranked 199999 of 200000, beyond k = 10"
    assert large - small < 15, f"peak {large:.1f} MB at 2*10^5 lines against {small:.1f} MB at 10^3"


def test_a_query_reduced_as_its_lines_go_by_ranks_as_the_query_held_whole(tmp_path):
    # The reference: every query's lines gathered whole, then ranked (runs._ungrouped), on runs
    # whose scores tie, rise or fall, that repeat doc ids or ranks, grouped or interleaved.
    import random
    from modules.audit import runs
    from modules.audit.readers import Findings
    rng = random.Random(39)
    for trial in range(80):
        lines, relevant = [], {}
        for q in range(3):
            depth = rng.randrange(1, 40)
            ids = [f"d{rng.randrange(60 if trial % 3 else 10 ** 6)}" for _ in range(depth)]
            scores = [float(rng.randrange(8)) for _ in ids]
            if trial % 4:
                scores.sort(reverse=True)
            ranks = range(1, depth + 1) if trial % 5 else [rng.randrange(depth) for _ in ids]
            lines += [f"q{q} Q0 {d} {r} {s} t\n" for d, r, s in zip(ids, ranks, scores)]
            relevant[f"q{q}"] = set(rng.sample(ids, min(3, depth))) | {"absent"}
        if trial % 7 == 0:
            rng.shuffle(lines)
        run = tmp_path / f"run{trial}.trec"
        run.write_text("".join(lines))
        k = rng.randrange(1, 12)
        streamed, whole = Findings(), Findings()
        found = runs.rank_run(str(run), "run", relevant, k, streamed).queries
        expected = runs._ungrouped(str(run), "run", runs.TREC_RUN, relevant, k, whole, frozenset()).queries
        assert found == expected, (trial, k)
        for kind in ("duplicate_rank", "repeated_doc"):
            assert streamed.counts.get(kind) == whole.counts.get(kind), (trial, kind)
            assert streamed.examples.get(kind) == whole.examples.get(kind), (trial, kind)


# ---------------------------------------------------------------- skimming a large corpus

def python_lines_run(function, *files: str) -> int:
    """How many lines of Python in these files `function()` runs (sys.settrace's line events)."""
    counted = [0]

    def trace(frame, event, _arg):
        if frame.f_code.co_filename.endswith(files):
            if event == "line":
                counted[0] += 1
            return trace
        return None

    sys.settrace(trace)
    try:
        function()
    finally:
        sys.settrace(None)
    return counted[0]


def test_a_skimmed_corpus_line_costs_no_line_of_python(tmp_path):
    # Twice the lines (of about 330 bytes; 6, then 8 held): no more Python. The engine finds every _id and
    # counts the lines; Python works per block and per held line, never per skimmed line (10^6
    # passages, 311 MB, took 2.1 s of CPU when it did, about 1 s now).
    from modules.audit.readers import read_corpus
    from modules.common.units import chars
    keep = {"p5", "p2500", "p4000", "p7777", "p9000", "p11999", "p15000", "p23999"}

    def lines_of_python(count: int) -> int:
        path = tmp_path / f"corpus{count}.jsonl"
        path.write_text("".join(json.dumps(passage(f"p{i}", f"passage {i} " + "x" * 300)) + "\n"
                                for i in range(count)))

        def read():
            held = sorted(p.id for p in read_corpus(str(path), chars, "corpus.jsonl", keep))
            assert held == sorted(pid for pid in keep if int(pid[1:]) < count)

        return python_lines_run(read, "readers.py", "lines.py")

    assert lines_of_python(24_000) - lines_of_python(12_000) < 1000     # 4 blocks and 2 held lines more


def test_a_querys_lines_cost_no_line_of_python_in_their_reduction(tmp_path):
    # The checks of each run line are Python; keeping the k best, the judged ranks and the hashes
    # of 60,000 lines of one query (ties included) works a batch at a time. (Past topk.SMALL lines
    # the final check of the hashes sorts them into slices, in Python: 0.2 s a million.)
    from modules.audit import runs, topk
    from modules.audit.readers import Findings
    depth = 60_000
    assert depth < topk.SMALL
    run = tmp_path / "run.trec"
    run.write_text("".join(f"q Q0 p{i} {i + 1} {depth - i // 3}.0 t\n" for i in range(depth)))
    summary = []
    events = python_lines_run(lambda: summary.append(runs.rank_run(str(run), "run.trec", {"q": {"p5", "p47777"}}, 10,
                                                                     Findings())), "topk.py")
    # p47777 ties with p47775 and p47776, and goes first: trec_eval's order
    assert summary[0].queries["q"].below == {"p47777": 47776} and events < 3000


def test_the_deep_query_benchmark_runs_on_small_inputs():
    # `dev bench --audit` measures one query of 10^3 and of 10^6 lines; this proves it runs.
    from devtools import bench
    rows = bench.audit_one_deep_query(depths=(50, 400), passages=100)
    assert [r["depth"] for r in rows] == [50, 400] and all(r["peak_mb"] > 0 and r["held"] > 0 for r in rows)


# ------------------------------------------------------------------ plain TREC blocks, read by C loops

PLAIN_CASES = [
    "q1 Q0 d1 1 9.5 run\nq1 Q0 d2 2 9 run\nq2 Q0 d1 1 3e-2 run\n",       # plain
    "q1\tQ0\td1\t1\t9.5\trun\r\nq1 Q0 d2 2 8 run  \n  q2 Q0 d3 1 1 run",    # tabs, CRLF, spaces, no last break
    "q1 Q0 d1 1 9.5 run\n\nq1 Q0 d2 2 9 run\n",                              # a blank line: line by line
    "q1 Q0 d1 1 nan run\n", "q1 Q0 d1 1 1_0 run\n", "q1 Q0 d1 1 1e999 run\n",  # scores the reader refuses
    "q1 Q0 d1 x 1 run\n", "q1 Q0 d1 1234567890123 1 run\n",                  # ranks it refuses
    "q1 Q0 d1 1 1 run extra\n", "q1 Q0 d1 1 run\n",                          # seven and five columns
    "q1 Q0 dé 1 1 run\n", "q1 Q0 d\x1f1 1 1 run\n", "\ufeffq1 Q0 d1 1 1 run\n",  # not plain ASCII
]


@pytest.mark.parametrize("text", PLAIN_CASES)
def test_a_plain_block_reads_as_the_line_by_line_reader_reads_it(tmp_path, text, monkeypatch):
    # The C-loop reading of a block of plain lines must give what the line-by-line reader gives,
    # value for value, or refuse the block (None) so that reader names the line at fault.
    from modules.audit import runlines
    path = tmp_path / "run.trec"
    path.write_bytes(text.encode("utf-8"))

    def read() -> list | str:
        try:
            return list(runlines._trec_batches(str(path), "run.trec"))
        except runlines.InputError as error:
            return f"refused: {error}"
    fast = read()
    monkeypatch.setattr(runlines, "_plain_block", lambda block, first: None)
    assert fast == read()


def test_plain_blocks_are_taken_by_the_c_loops():
    from modules.audit.runlines import _plain_block
    got = _plain_block(b"q1 Q0 d1 1 9.5 run\nq1\tQ0\td2\t2\t9\trun\r\n", 7)
    assert got == (["q1", "q1"], ["d1", "d2"], [1, 2], [9.5, 9.0], [7, 8])
    assert _plain_block(b"q1 Q0 d1 1 nan run\n", 1) is None and _plain_block(b"q1 Q0 d1 1 9 run\n\n", 1) is None
