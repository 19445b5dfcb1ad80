"""`methods.py dev bench`: how fast the lab is, side by side with what it is measured against.

    python3 -B methods.py dev bench [--runs N] [--full] [--notebooks] [--tests] [--audit] [--index]
    python3 -B methods.py dev bench --grading [--submissions N] [--loops N]

1. Start-up: every built lesson command (`methods.py NAME --plain`, start to exit) against
   the standard-library floor `python3 -c "import argparse, dataclasses, json"`, median of
   N interleaved runs, as a ratio (target: at most 4x after `methods.py setup`, 5x cold), in
   a fresh copy of the lab before and after `methods.py setup`; and against
   importing the framework component a user might reach for instead (Haystack's
   LostInTheMiddleRanker, LlamaIndex's LongContextReorder), measured only where installed:
   they are not dependencies.
2. Reorder at 10^4 items: the lab's slices against those frameworks' reorders where
   installed, and against the insert-in-a-loop pattern they use (written here, so the
   quadratic shape shows on any machine).
3. Scaling of the main mechanisms at 10^3 ... 10^5 candidates (10^6 with --full): time per
   candidate, and the growth for each tenfold step (10.0 is linear).
4. Optional: executing every notebook (--notebooks, needs nbclient) and the whole test
   suite (--tests, needs pytest), each timed once.
5. Optional (--audit): `methods.py audit` at TREC depth (10^6 passages, 1,000 candidates a
   query, k = 10, 10^2 to 10^4 queries) beside ir-measures on the same files (time and CPU
   per query, peak memory, recall@10 compared); over 10^5 synthetic passages with 10^2 to
   10^5 queries of 100 candidates: total time, peak memory, cost per further query; and one
   run over a 10^4-passage corpus against a 10^6-passage corpus holding the same passages.
6. Optional (--index): lesson 12's approximate index at 10^3, 10^4 and 10^5 vectors: build
   time, and each search's recall@10 and cost (vectors compared, time) against exact search.
7. Alone, with --grading: `methods.py grade` on a generated class (reference answers, stubs,
   syntax errors and a few submissions with a task that never returns), start to exit, with
   and without --sandbox; then the pytest route on one submission of each kind, and how many
   times cheaper per submission `grade` is, in time and in CPU, weighted by the class's mix.

This is a benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import os
import statistics
import subprocess
import sys
import time

from labtools import course

FLOOR = "import argparse, dataclasses, json"
# Every lesson command may cost twice the floor after setup, three times in a fresh clone (issue
# 25): readability wins every trade below that; a lesson over it shortens its default trace.
TARGET = {"setup": 4.0, "cold": 5.0}
FRAMEWORK_RUNS = 5
# Building a dict of n objects is as linear as Python gets; its own cost per item still grows
# once n objects outgrow the CPU caches. A mechanism whose ratio to it stays flat is linear.
BASELINE = "baseline: {p.id: p for p in candidates}"
FRAMEWORKS = (
    # (label, package to look for, import statement)
    ("Haystack LostInTheMiddleRanker", "haystack",
     "from haystack.components.rankers import LostInTheMiddleRanker"),
    ("LlamaIndex LongContextReorder", "llama_index.core",
     "from llama_index.core.postprocessor import LongContextReorder"),
)


def _installed(package: str) -> bool:
    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def _built_lessons() -> list[str]:
    from labtools.registry import built_lessons
    return built_lessons()


def _run_once(command: list[str], cwd=None) -> float:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("NO_COLOR", None)
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd or course.ROOT, env=env,
                   check=False)
    return time.perf_counter() - started


def _timed(command: list[str], env: dict, cwd=None):
    """(the finished process, its seconds start to exit, the CPU seconds it and its children used)."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=cwd or course.ROOT, env=env)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return done, seconds, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _lab_copies(folder) -> dict:
    """Two copies of the lab's code under `folder`: "cold" (no bytecode: a fresh clone under -B
    compiles every module on every run) and "setup" (after `methods.py setup`, as the README
    asks once). Copies, so the checkout's own caches neither help nor suffer."""
    import shutil
    copies = {}
    for state in ("cold", "setup"):
        root = os.path.join(folder, state)
        os.makedirs(root)
        shutil.copy2(course.ROOT / "methods.py", root)
        shutil.copy2(course.ROOT / "course.json", root)
        for part in ("modules", "labtools"):
            shutil.copytree(course.ROOT / part, os.path.join(root, part), ignore=shutil.ignore_patterns("__pycache__"))
        copies[state] = root
    subprocess.run([sys.executable, "-B", "methods.py", "setup"], cwd=copies["setup"], check=True,
                   stdout=subprocess.DEVNULL)
    return copies


def startup_commands() -> list[str]:
    """The commands the start-up table times: every built lesson, and the audit."""
    return _built_lessons() + (["audit"] if (course.ROOT / "modules" / "audit").is_dir() else [])


def startup(runs: int, only: list[str] | None = None) -> list[dict]:
    """Median start-to-exit time of each command, all of them interleaved round by round.

    Each lesson command runs in two copies of the lab, cold and after setup (see _lab_copies),
    and each of those twice: as a user runs it, and with -S (no site module) against the floor
    with -S. Whatever `site` loads on a machine (a .pth file can import packages into every
    interpreter) is added to the floor and to every command alike, which flatters the ratio;
    the -S pair shows what the lab itself costs. The frameworks need site-packages.
    """
    import tempfile
    python = sys.executable
    commands = {"floor": ([python, "-c", FLOOR], None), "floor -S": ([python, "-S", "-c", FLOOR], None)}
    names = [name for name in startup_commands() if not only or name in only]
    with tempfile.TemporaryDirectory(prefix="context-lab-bench-") as folder:
        copies = _lab_copies(folder)
        for name in names:
            for state, root in copies.items():
                script = ["methods.py", name, "--plain"]
                commands[f"{name} {state}"] = ([python, "-B", *script], root)
                commands[f"{name} {state} -S"] = ([python, "-S", "-B", *script], root)
        for label, package, statement in FRAMEWORKS:
            if _installed(package):
                commands[label] = ([python, "-c", statement], None)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for command, cwd in commands.values():  # warm the file cache once
            _run_once(command, cwd)
        slow = {label for label, _, _ in FRAMEWORKS}
        for round_number in range(runs):
            for name, (command, cwd) in commands.items():
                # A framework import takes seconds; five interleaved runs give a stable median.
                if name in slow and round_number >= FRAMEWORK_RUNS:
                    continue
                times[name].append(_run_once(command, cwd))
    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    rows = [{"command": "floor", "median_ms": median["floor"], "no_site_ms": median["floor -S"]}]
    for name in names:
        row = {"command": name, "target": dict(TARGET)}
        for state in ("cold", "setup"):
            row[f"{state}_ms"] = median[f"{name} {state}"]
            row[state] = median[f"{name} {state}"] / median["floor"]
            row[f"{state}_no_site"] = median[f"{name} {state} -S"] / median["floor -S"]
        rows.append(row)
    rows += [{"command": label, "median_ms": median[label], "framework": True}
             for label, _, _ in FRAMEWORKS if label in median]
    return rows


# ------------------------------------------------------------------ reorder

def insert_loop_reorder(items: list) -> list:
    """The lab's order (best first, second best last, inward), built the way the frameworks
    build theirs: one list.insert() per item, into the middle of what is already placed
    (Haystack inserts into the middle; LangChain and LlamaIndex insert at the front, which
    gives lesson 05's parity variant, the same work).

    Each insert shifts everything after it, so n items cost on the order of n^2 moves.
    Written here only to show that shape next to the lab's two slices.
    """
    placed: list = []
    middle = 0
    for rank, item in enumerate(items):
        placed.insert(middle, item)  # odd ranks stack up, reversed, behind the front half
        if rank % 2 == 0:
            middle += 1
    return placed


def _best_time(function, argument, repeat: int = 3) -> float:
    """Best of `repeat` runs with the cyclic garbage collector paused, as timeit does: its passes
    over every live object would bill the mechanism for the size of the whole heap."""
    import gc
    best = float("inf")
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            started = time.perf_counter()
            function(argument)
            best = min(best, time.perf_counter() - started)
    finally:
        if enabled:
            gc.enable()
    return best


def reorders(size: int = 10_000) -> list[dict]:
    items = list(range(size))
    rows = []
    order_path = course.ROOT / "modules" / "order"
    if order_path.is_dir():
        from modules.order import reorder_lost_in_middle
        rows.append({"reorder": "lab: modules.order.reorder_lost_in_middle (slices)",
                     "ms": _best_time(reorder_lost_in_middle, items) * 1000})
    else:
        rows.append({"reorder": "lab: modules.order.reorder_lost_in_middle", "ms": None,
                     "note": "modules/order/mechanism.py does not exist yet"})
    rows.append({"reorder": "insert-in-a-loop pattern (written here)", "ms": _best_time(insert_loop_reorder, items) * 1000})
    if _installed("haystack"):
        try:
            from haystack import Document
            from haystack.components.rankers import LostInTheMiddleRanker
            ranker = LostInTheMiddleRanker()
            documents = [Document(content=f"document {i}", score=1.0 - i / size) for i in items]
            rows.append({"reorder": "Haystack LostInTheMiddleRanker.run (the lab's order)",
                         "ms": _best_time(lambda docs: ranker.run(documents=docs), documents, repeat=1) * 1000})
        except Exception as error:  # an installed but incompatible version: say so, do not fail the bench
            rows.append({"reorder": "Haystack LostInTheMiddleRanker.run", "ms": None, "note": f"failed: {error}"})
    else:
        rows.append({"reorder": "Haystack LostInTheMiddleRanker.run", "ms": None, "note": "not installed"})
    if _installed("llama_index.core"):
        try:
            from llama_index.core.postprocessor import LongContextReorder
            from llama_index.core.schema import NodeWithScore, TextNode
            reorder = LongContextReorder()
            nodes = [NodeWithScore(node=TextNode(text=f"node {i}"), score=1.0 - i / size) for i in items]
            rows.append({"reorder": "LlamaIndex LongContextReorder.postprocess_nodes (parity variant)",
                         "ms": _best_time(lambda ns: reorder.postprocess_nodes(ns), nodes, repeat=1) * 1000})
        except Exception as error:
            rows.append({"reorder": "LlamaIndex LongContextReorder.postprocess_nodes", "ms": None,
                         "note": f"failed: {error}"})
    else:
        rows.append({"reorder": "LlamaIndex LongContextReorder.postprocess_nodes", "ms": None, "note": "not installed"})
    return rows


# ------------------------------------------------------------------ scaling

def _context_case(n: int):
    from modules.context import Passage, select_context
    # Distinct ids and texts, one version per source: every candidate goes through the budget walk.
    candidates = [Passage(f"p{i}", f"s{i % 97}", "1", "t", f"passage {i} " + "x" * (i % 40)) for i in range(n)]
    budget = 20 * n  # about half of them fit
    return [(BASELINE, lambda: {p.id: p for p in candidates}),
            ("select_context (lesson 01)", lambda: select_context(candidates, budget))]


def _dedupe_cases(n: int):
    if not (course.ROOT / "modules" / "dedupe").is_dir():
        return []
    dedupe = importlib.import_module("modules.dedupe")
    chunks = [dedupe.RetrievedChunk(f"c{i}", f"file{i % 50}.md", f"text {i % (n // 2 or 1)}",
                                    score=(i % 1000) / 1000, canonical_id=f"doc-{i % 300}",
                                    start_line=1 + 10 * (i // 50), end_line=5 + 10 * (i // 50))
              for i in range(n)]
    # Overlapping ranges reaching line 10**9: the selection's cost must follow the chunks, not the lines.
    wide = [dataclasses.replace(c, start_line=1 + i * 7919 % 10 ** 9, end_line=1 + i * 7919 % 10 ** 9 + i % 97 * 10 ** 5)
            for i, c in enumerate(chunks)]
    cases = []
    for name in ("dedupe_ids", "dedupe_text", "dedupe_canonical", "select_non_overlapping"):
        function = getattr(dedupe, name, None)
        given = wide if name == "select_non_overlapping" else chunks
        if function is not None:
            cases.append((f"dedupe.{name} (lesson 03)", lambda function=function, given=given: function(given)))
    return cases


def _fusion_case(n: int):
    if not (course.ROOT / "modules" / "hybrid").is_dir():
        return []
    hybrid = importlib.import_module("modules.hybrid")
    function = getattr(hybrid, "reciprocal_rank_fusion", None)
    if function is None:
        return []
    ids = [f"d{i}" for i in range(n)]
    rankings = [ids, ids[::-1], ids[n // 2:] + ids[:n // 2]]
    return [("hybrid.reciprocal_rank_fusion, 3 rankings (lesson 07)", lambda: function(rankings))]


def scaling(top: int) -> list[dict]:
    sizes = [10 ** e for e in range(3, len(str(top)))]
    series: dict[str, list[float]] = {}
    for n in sizes:
        cases = _context_case(n) + _dedupe_cases(n) + _fusion_case(n)
        for label, run in cases:
            repeat = min(30, max(1, 300_000 // n))  # small sizes: more runs, so load spikes drop out
            series.setdefault(label, []).append(_best_time(lambda _: run(), None, repeat=repeat))
    rows = []
    for label, times in series.items():
        for index, (n, seconds) in enumerate(zip(sizes, times)):
            step = times[index] / times[index - 1] if index else None
            rows.append({"mechanism": label, "n": n, "ms": seconds * 1000, "us_per_item": seconds / n * 1e6,
                         "tenfold_step": step, "vs_baseline": seconds / series[BASELINE][index]})
    return rows


# ------------------------------------------------------------------ optional: notebooks and tests

def notebooks_time() -> dict:
    if not _installed("nbclient"):
        return {"note": "nbclient is not installed for this Python; run with .venv/bin/python"}
    from devtools import notebooks
    paths = notebooks.sources()
    started = time.perf_counter()
    notebooks.executed_texts(paths)
    return {"notebooks": len(paths), "seconds": time.perf_counter() - started}


def tests_time() -> dict:
    if not _installed("pytest"):
        return {"note": "pytest is not installed for this Python; run with .venv/bin/python"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=course.ROOT,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    tail = (done.stdout.strip().splitlines() or ["no output"])[-1]
    return {"seconds": time.perf_counter() - started, "summary": tail.strip("= ")}


# ------------------------------------------------------------------ audit at scale (issues 19, 29)

AUDIT_PROBE = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from labtools.render import render_plain
from modules.audit.trace import trace, view
marks, started = [], time.perf_counter()
record = trace({folder!r}, run={run!r}, qrels={qrels!r}, k={k}, as_of="2026-07-01",
               progress=lambda done, total: marks.append(time.perf_counter()))
json.dumps(record), render_plain(view(record))
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"seconds": time.perf_counter() - started, "first_query": marks[0] - started,
                  "cpu": usage.ru_utime + usage.ru_stime,
                  "per_query": (marks[-1] - marks[0]) / max(1, len(marks) - 1),
                  "peak_mb": {peak},
                  "recall": [r["recall_at_k"] for r in record["budgets"]][0],
                  "held": record["counts"]["held"], "passages": record["counts"]["passages"]}}))
"""
WORDS = "desk hours return books drop box north entrance weekday saturday closed policy".split()


def _passage(i: int) -> dict:
    """Synthetic passage p<i>: every 10th versioned (two labels per source), every 25th a declared
    copy, every 20th a line window, every 40th expired, every 30th a repeated text, every 50th a
    pair of declared neighbours (positions)."""
    meta = {}
    if i % 10 == 0:
        meta.update(source=f"doc{i // 20}", version=str(i // 10 % 2 + 1))
    if i % 25 == 1:
        meta.update(canonical_id=f"c{i // 50}", copy="primary" if i % 50 == 1 else "mirror")
    if i % 20 == 3:
        meta.update(source=f"file{i // 400}.md", start_line=i % 400 + 1, end_line=i % 400 + 30)
    if i % 40 == 7:
        meta.update(valid_from="2025-01-01", valid_until="2025-12-31")
    if i % 50 in (5, 6):
        meta.update(source=f"unit{i // 50}", position=i % 50)
    body = i - 1 if i % 30 == 29 else i
    text = f"passage {body} " + " ".join(WORDS[(body + j) % len(WORDS)] for j in range(5 + body % 60))
    return {"_id": f"p{i}", "title": "", "text": text, "metadata": meta}


def _write_queries(folder: str, pool: list[int], query_counts, candidates: int, seed: int) -> None:
    """queries.jsonl for the largest count, and per count a run and qrels of its first queries:
    each query ranks `candidates` ids drawn from a stretch of 3 x `candidates` neighbours in
    `pool`, and judges up to three relevant. Written query by query: memory stays flat."""
    import json
    import random
    rng = random.Random(seed)
    os.makedirs(os.path.join(folder, "qrels"), exist_ok=True)
    runs = {c: open(os.path.join(folder, f"run-{c}.trec"), "w", encoding="utf-8") for c in query_counts}
    qrels = {c: open(os.path.join(folder, "qrels", f"test-{c}.tsv"), "w", encoding="utf-8") for c in query_counts}
    try:
        for out in qrels.values():
            out.write("query-id\tcorpus-id\tscore\n")
        with open(os.path.join(folder, "queries.jsonl"), "w", encoding="utf-8") as out:
            for q in range(max(query_counts)):
                out.write(json.dumps({"_id": f"q{q}", "text": f"query {q}"}) + "\n")
                base = rng.randrange(max(1, len(pool) - 3 * candidates))
                ranking = [pool[i] for i in rng.sample(range(base, min(len(pool), base + 3 * candidates)), candidates)]
                extra = pool[rng.randrange(len(pool))]   # mostly outside the run: a retrieval loss
                judged = [ranking[rng.randrange(candidates)], ranking[rng.randrange(10)]]
                judged += [extra] if extra not in ranking else []
                lines = "".join(f"q{q} Q0 p{pid} {rank} {1000 - rank:.1f} bench\n"
                                for rank, pid in enumerate(ranking, start=1))
                judgements = "".join(f"q{q}\tp{pid}\t1\n" for pid in dict.fromkeys(judged))
                for count in query_counts:
                    if q < count:
                        runs[count].write(lines)
                        qrels[count].write(judgements)
    finally:
        for out in [*runs.values(), *qrels.values()]:
            out.close()


def write_audit_data(folder: str, passages: int, query_counts, candidates: int = 100, seed: int = 19,
                     touched: int | None = None) -> None:
    """A synthetic BEIR folder of `passages` passages; the queries draw from `touched` of them
    (every passages/touched-th; all when None)."""
    step = 1 if touched is None else max(1, passages // touched)
    os.makedirs(folder, exist_ok=True)
    _write_corpus(folder, range(passages))
    _write_queries(folder, list(range(0, passages, step)), query_counts, candidates, seed)


def _write_corpus(folder: str, numbers) -> None:
    """corpus.jsonl of the synthetic passages p<i> for each i of `numbers` (_passage)."""
    import json
    with open(os.path.join(folder, "corpus.jsonl"), "w", encoding="utf-8") as out:
        out.writelines(json.dumps(_passage(i)) + "\n" for i in numbers)


def _probe(folder: str, count: int, k: int) -> dict:
    import json
    probe = AUDIT_PROBE.format(root=str(course.ROOT), folder=folder, run=os.path.join(folder, f"run-{count}.trec"),
                               k=k, qrels=os.path.join(folder, "qrels", f"test-{count}.tsv"), peak=PEAK)
    done = subprocess.run([sys.executable, "-B", "-c", probe], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def audit_scale(passages: int = 10 ** 5, query_counts=(10 ** 2, 10 ** 3, 10 ** 4, 10 ** 5),
                candidates: int = 100) -> list[dict]:
    """Audit runs of 10^2 to 10^5 queries over one synthetic corpus, each in a fresh interpreter:
    total seconds, peak memory, and the cost per query once the corpus is read."""
    import tempfile
    rows = []
    with tempfile.TemporaryDirectory(prefix="lab-audit-bench-") as folder:
        write_audit_data(folder, passages, query_counts, candidates)
        for count in query_counts:
            rows.append(dict(_probe(folder, count, candidates), queries=count, candidates=candidates))
    return rows


# The peak resident memory of the probe itself: /proc's VmHWM starts anew at exec, while
# ru_maxrss keeps the parent's size at fork (the bench that wrote the files) on Linux.
PEAK = ("(int(next(l for l in open('/proc/self/status') if l.startswith('VmHWM')).split()[1]) / 1024 "
        "if sys.platform.startswith('linux') else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)")
IR_MEASURES_PROBE = """
import sys
import json, resource, time
started = time.perf_counter()
import ir_measures
from ir_measures import R
qrels = list(ir_measures.read_trec_qrels({qrels!r}))
run = ir_measures.read_trec_run({run!r})
value = ir_measures.calc_aggregate([R @ {k}], qrels, run)[R @ {k}]
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"seconds": time.perf_counter() - started, "recall": value, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_mb": {peak}}}))
"""


def audit_depth(passages: int = 10 ** 6, query_counts=(10 ** 2, 10 ** 3, 10 ** 4), depth: int = 1000,
                k: int = 10) -> list[dict]:
    """The audit at TREC depth beside ir-measures on the same files: runs of `depth` candidates a
    query over `passages` passages, the audit's default k, each tool in a fresh interpreter. Per
    query: the whole time over the queries (files read included, as both tools read them)."""
    import json
    import tempfile
    rows = []
    with tempfile.TemporaryDirectory(prefix="lab-audit-depth-") as folder:
        write_audit_data(folder, passages, query_counts, depth)
        for count in query_counts:
            trec_qrels = os.path.join(folder, f"qrels-{count}.trec")
            with open(os.path.join(folder, "qrels", f"test-{count}.tsv"), encoding="utf-8") as beir, \
                    open(trec_qrels, "w", encoding="utf-8") as out:
                next(beir)
                out.writelines(f"{q} 0 {d} {s}" for q, d, s in (line.split("\t") for line in beir))
            run = os.path.join(folder, f"run-{count}.trec")
            audit = _probe(folder, count, k)
            probe = IR_MEASURES_PROBE.format(qrels=trec_qrels, run=run, k=k, peak=PEAK)
            done = subprocess.run([sys.executable, "-B", "-c", probe], capture_output=True, text=True, check=True)
            measured = json.loads(done.stdout)
            rows.append({"queries": count, "depth": depth, "k": k, "audit_seconds": audit["seconds"],
                         "audit_cpu": audit["cpu"], "audit_mb": audit["peak_mb"], "held": audit["held"],
                         "audit_per_further_query": audit["per_query"],
                         "audit_recall": audit["recall"], "ir_seconds": measured["seconds"],
                         "ir_cpu": measured["cpu"], "ir_mb": measured["peak_mb"], "ir_recall": measured["recall"]})
    return rows


def audit_corpus_scale(touched: int = 10 ** 4, large: int = 10 ** 6, queries: int = 10 ** 4,
                       candidates: int = 100) -> list[dict]:
    """The same run (its queries draw from `touched` passages) over a corpus of exactly those
    passages and over one of `large` passages that holds them: what the untouched rest costs."""
    import shutil
    import tempfile
    rows = []
    with tempfile.TemporaryDirectory(prefix="lab-audit-corpus-") as root:
        big, small = os.path.join(root, "big"), os.path.join(root, "small")
        write_audit_data(big, large, (queries,), candidates, touched=touched)
        step = max(1, large // touched)
        os.makedirs(small)
        _write_corpus(small, range(0, large, step))
        for name in ("queries.jsonl", f"run-{queries}.trec"):
            shutil.copy(os.path.join(big, name), os.path.join(small, name))
        shutil.copytree(os.path.join(big, "qrels"), os.path.join(small, "qrels"))
        for folder in (small, big):
            rows.append(_probe(folder, queries, candidates))
    return rows


def audit_one_deep_query(depths=(10 ** 3, 10 ** 6), passages: int = 1000) -> list[dict]:
    """One query ranking `depth` doc ids (scores falling by thirds, ties in ascending doc id order,
    the reverse of trec_eval's), four judged passages from the top to the last line: the audit's
    peak memory, which should not follow the depth (issue 39)."""
    import json
    import tempfile
    rows = []
    with tempfile.TemporaryDirectory(prefix="lab-audit-deep-") as root:
        for depth in depths:
            folder = os.path.join(root, str(depth))
            os.makedirs(os.path.join(folder, "qrels"))
            _write_corpus(folder, range(passages))
            with open(os.path.join(folder, "queries.jsonl"), "w", encoding="utf-8") as out:
                out.write(json.dumps({"_id": "q0", "text": "query 0"}) + "\n")
            with open(os.path.join(folder, "qrels", "test-1.tsv"), "w", encoding="utf-8") as out:
                out.write("query-id\tcorpus-id\tscore\n" + "".join(f"q0\tp{i}\t1\n" for i in (3, 7, depth // 2, depth - 1)))
            with open(os.path.join(folder, "run-1.trec"), "w", encoding="utf-8") as out:
                out.writelines(f"q0 Q0 p{i} {i + 1} {depth - i // 3}.0 deep\n" for i in range(depth))
            rows.append(dict(_probe(folder, 1, 10), depth=depth))
    return rows


# ------------------------------------------------------------------ grading a class

def make_class(folder, count: int, loops: int, syntax_every: int = 5, stub_every: int = 3) -> dict:
    """Write `count` generated submissions into `folder` (one subfolder each, every lesson's
    file): `loops` of them with one task that never returns, every `syntax_every`-th with a
    syntax error in one lesson, every `stub_every`-th all stubs, the rest the reference answers.
    Returns how many of each kind."""
    lessons = course.lessons()
    kinds = {"correct": 0, "stubs": 0, "syntax error": 0, "looping task": 0}
    for index in range(count):
        kind = ("looping task" if index < loops else "syntax error" if index % syntax_every == 1
                else "stubs" if index % stub_every == 2 else "correct")
        kinds[kind] += 1
        _write_submission(os.path.join(folder, f"student{index:04d}"), kind, broken=lessons[index % len(lessons)])
    return kinds


def _write_submission(folder, kind: str, broken: str | None = None) -> None:
    """One generated submission in `folder`, every lesson's file: "correct" (the reference
    answers), "stubs", "syntax error" (lesson `broken` ends in a def that does not parse) or
    "looping task" (the first lesson's first task never returns)."""
    from pathlib import Path
    folder = Path(folder)
    folder.mkdir(parents=True)
    lessons = course.lessons()
    for lesson in lessons:
        if kind == "stubs":
            text = course.generated_stub(lesson)
        else:
            text = (course.SOLUTIONS / f"{lesson}.py").read_text(encoding="utf-8")
        if kind == "syntax error" and lesson == broken:
            text += "\ndef broken(:\n"
        if kind == "looping task" and lesson == lessons[0]:
            head, marker, rest = text.partition("# BEGIN SOLUTION\n")
            indent = head[len(head.rstrip(" ")):]
            text = head + marker + f"{indent}while True:\n{indent}    pass\n" + rest
        (folder / f"{lesson}.py").write_text(text, encoding="utf-8")


def grading_time(count: int = 200, loops: int = 2, seconds: float | None = None, jobs: int | None = None,
                 sandbox: bool = False) -> dict:
    """`methods.py grade` on `count` generated submissions, start to exit (isolation included;
    with `sandbox`, `grade --sandbox`)."""
    import json
    import shutil
    import tempfile
    from pathlib import Path
    folder = Path(tempfile.mkdtemp(prefix="lab-bench-class-"))
    try:
        kinds = make_class(folder / "class", count, loops)
        command = [sys.executable, "-B", str(course.ROOT / "methods.py"), "grade", str(folder / "class"),
                   "--out", str(folder / "out"), "--plain"]
        command += ["--seconds", str(seconds)] if seconds is not None else []
        command += ["--jobs", str(jobs)] if jobs is not None else []
        command += ["--sandbox"] if sandbox else []
        done, elapsed, cpu = _timed(command, dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        if done.returncode != 0:
            return {"note": f"grade failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}"}
        book = json.loads((folder / "out" / "gradebook.json").read_text(encoding="utf-8"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    statuses = {}
    for student in book["students"]:
        statuses[student["status"]] = statuses.get(student["status"], 0) + 1
    return {"submissions": count, "kinds": kinds, "seconds": elapsed, "cpu": cpu, "statuses": statuses,
            "isolation": book["limits"].get("isolation", ""),
            "lessons": len(book["lessons"]), "seconds_per_task": book["limits"]["seconds_per_task"],
            "jobs": jobs or os.cpu_count(), "sandbox": sandbox}


def pytest_route_time(kinds: dict) -> dict:
    """The pytest route (`LAB_TARGET=DIR python3 -m pytest tests/graders`, one process, as
    docs/instructors.md gives it) on one submission of each kind `grade` was timed on:
    seconds and CPU seconds each, and their mean weighted by the class's mix (a submission
    whose task never returns counted as a correct one: pytest's own limit would stop it)."""
    import shutil
    import tempfile
    if not _installed("pytest"):
        return {"note": "pytest is not installed for this Python; run with .venv/bin/python"}
    folder = tempfile.mkdtemp(prefix="lab-bench-pytest-")
    measured = {}
    try:
        for kind in ("correct", "stubs", "syntax error"):
            _write_submission(os.path.join(folder, kind), kind, broken=course.lessons()[1])
            _done, seconds, cpu = _timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                          "no:xdist", "tests/graders"],
                                         dict(os.environ, LAB_TARGET=os.path.join(folder, kind),
                                              PYTHONDONTWRITEBYTECODE="1"))
            measured[kind] = {"seconds": seconds, "cpu": cpu}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    weights = dict(kinds)
    weights["correct"] = weights.get("correct", 0) + weights.pop("looping task", 0)
    total = sum(weights.values()) or 1
    mean = {field: sum(measured[kind][field] * weights.get(kind, 0) for kind in measured) / total
            for field in ("seconds", "cpu")}
    return {"kinds": measured, "per_submission": mean}


def grading_report(result: dict) -> list[str]:
    if "note" in result:
        return ["Grading a class: " + result["note"]]
    kinds = ", ".join(f"{count} {kind}" for kind, count in result["kinds"].items())
    command = "grade --sandbox" if result.get("sandbox") else "grade"
    return [f"Grading a class: `methods.py {command}` on {result['submissions']} generated submissions "
            f"({kinds}; {result['lessons']} lessons each), {result['jobs']} worker(s), "
            f"{result['seconds_per_task']:g} s per task: {result['seconds']:.1f} s start to exit "
            f"({result['seconds'] / max(1, result['submissions']) * 1000:.0f} ms per submission, "
            f"{result['cpu']:.0f} CPU-s in all); statuses: "
            + ", ".join(f"{n} {status}" for status, n in sorted(result["statuses"].items()))
            + (f"; learner code: {result['isolation']}" if result.get("isolation") else ""), ""]


def pytest_route_report(route: dict, graded: list[dict]) -> list[str]:
    """The pytest route per submission beside each `grade` run: how many times cheaper `grade` is."""
    if "note" in route:
        return ["The pytest route: " + route["note"], ""]
    each = ", ".join(f"{kind} {figures['seconds']:.1f} s ({figures['cpu']:.1f} CPU-s)"
                     for kind, figures in route["kinds"].items())
    mean = route["per_submission"]
    lines = [f"The pytest route, one submission at a time: {each}; weighted by the class's mix "
             f"{mean['seconds']:.2f} s ({mean['cpu']:.2f} CPU-s) per submission."]
    for result in graded:
        if "note" in result:
            continue
        count = max(1, result["submissions"])
        command = "grade --sandbox" if result.get("sandbox") else "grade"
        lines.append(f"  `{command}` is {mean['seconds'] / (result['seconds'] / count):.1f}x cheaper per submission "
                     f"in time ({result['jobs']} workers) and {mean['cpu'] / (result['cpu'] / count):.1f}x in CPU.")
    return lines + [""]


# ------------------------------------------------------------------ printing

def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f} ms" if value < 1 else f"{value:,.1f} ms"


def index_scaling(sizes=(10 ** 3, 10 ** 4, 10 ** 5), nprobes=(1, 2, 4, 8)) -> list[dict]:
    """Lesson 12's inverted-file index on seeded synthetic photos (n_lists about the square root
    of the size): modules.channels.scaling with a clock, so the recall and cost figures are the
    lesson's own (its trace shows the rows up to 10^4)."""
    import gc
    from modules.channels import scaling
    gc.disable()
    try:
        return scaling(sizes, nprobes, clock=time.perf_counter)
    finally:
        gc.enable()


def report(runs: int, top: int, with_notebooks: bool, with_tests: bool, with_audit: bool = False,
           with_index: bool = False, only: list[str] | None = None) -> str:
    lines = [f"Context Lab benchmark ({sys.implementation.name} {sys.version.split()[0]}, {os.cpu_count()} cores)", ""]
    rows = startup(runs, only)
    floor = rows[0]
    lessons = [row for row in rows[1:] if not row.get("framework")]
    frameworks = [row for row in rows if row.get("framework")]
    lines.append(f"1. Start to exit, median of {runs} interleaved runs, as a ratio to the floor")
    lines.append(f"   python3 -c \"{FLOOR}\" ({floor['median_ms']:.1f} ms; -S: {floor['no_site_ms']:.1f} ms).")
    lines.append("   cold: a fresh clone, where -B compiles every lab module on every run. setup:")
    lines.append("   after `methods.py setup`, which compiles them once, as an install does (the floor's")
    lines.append("   standard library was compiled when Python was installed). -S: without the site")
    lines.append("   module, which on some machines imports packages into every interpreter.")
    lines.append(f"   verdict: ok when setup <= {TARGET['setup']:g}x and cold <= {TARGET['cold']:g}x the floor.")
    table = [[f"methods.py {row['command']}", f"{row['cold']:.2f}x", f"{row['cold_no_site']:.2f}x",
              f"{row['setup']:.2f}x", f"{row['setup_no_site']:.2f}x",
              "ok" if row["setup"] <= row["target"]["setup"] and row["cold"] <= row["target"]["cold"] else "TOO SLOW"]
             for row in lessons]
    lines += _table(["command", "cold", "cold -S", "setup", "setup -S", "verdict"], table)
    if frameworks:
        lines += ["", "   Importing a framework component a user might reach for instead (5 runs):"]
        slowest = max(row["setup_ms"] for row in lessons)
        lines += _table(["import", "median", "vs floor", "slowest lesson, setup, vs it"],
                        [[row["command"], _ms(row["median_ms"]), f"{row['median_ms'] / floor['median_ms']:.1f}x",
                          f"{slowest / row['median_ms']:.2f}x"] for row in frameworks])
    if only:   # --startup: the start-up table alone, for the named commands
        return "\n".join(lines) + "\n"

    lines += ["", "2. Reorder 10,000 items (best of 3; frameworks once)"]
    reorder_rows = reorders()
    lab = next((r["ms"] for r in reorder_rows if r["reorder"].startswith("lab:")), None)
    lines += _table(["reorder", "time", "vs lab"],
                    [[r["reorder"], _ms(r["ms"]) if r["ms"] is not None else r.get("note", "-"),
                      f"{r['ms'] / lab:.0f}x" if (r["ms"] is not None and lab) else ""] for r in reorder_rows])

    lines += ["", f"3. Scaling, 10^3 to 10^{len(str(top)) - 1} candidates (best of 30 runs up to 10^4, of 3 at "
                  f"10^5, one at 10^6; garbage collector paused)",
              "   Linear growth: a tenfold step near 10x, or a flat ratio to the baseline (a plain dict build,",
              "   whose own cost per item grows once the objects outgrow the CPU caches)."]
    lines += _table(["mechanism", "n", "time", "per item", "tenfold step", "x baseline"],
                    [[r["mechanism"], f"{r['n']:,}", _ms(r["ms"]), f"{r['us_per_item']:.2f} us",
                      "" if r["tenfold_step"] is None else f"{r['tenfold_step']:.1f}x",
                      f"{r['vs_baseline']:.1f}"] for r in scaling(top)])

    if with_notebooks:
        result = notebooks_time()
        lines += ["", "4. Executing every notebook (concurrently): "
                  + (f"{result['notebooks']} notebooks in {result['seconds']:.1f} s" if "seconds" in result
                     else result["note"])]
    if with_tests:
        result = tests_time()
        lines += ["", "5. The whole test suite: "
                  + (f"{result['seconds']:.1f} s ({result['summary']})" if "seconds" in result else result["note"])]
    if with_audit:
        lines += ["", "6. methods.py audit at TREC depth beside ir-measures on the same files: 10^6 passages, 1,000",
                  "   candidates a query, k = 10, each tool in a fresh interpreter, files read included; goal: the",
                  "   audit within 2x of ir-measures per query, flat from 10^2 to 10^4 queries, memory following k"]
        lines += _table(["queries", "audit / query", "CPU", "ir-measures / query", "CPU", "ratio (CPU)",
                         "audit memory", "ir-measures memory", "held", "recall@10 equal"],
                        [[f"{r['queries']:,}", f"{r['audit_seconds'] / r['queries'] * 1000:.1f} ms",
                          f"{r['audit_cpu'] / r['queries'] * 1000:.1f} ms",
                          f"{r['ir_seconds'] / r['queries'] * 1000:.1f} ms",
                          f"{r['ir_cpu'] / r['queries'] * 1000:.1f} ms", f"{r['audit_cpu'] / r['ir_cpu']:.2f}x",
                          f"{r['audit_mb']:.0f} MB", f"{r['ir_mb']:.0f} MB", f"{r['held']:,}",
                          "yes" if abs(r["audit_recall"] - r["ir_recall"]) < 1e-6 else "NO"] for r in audit_depth()])
        lines += ["", "   methods.py audit over 10^5 synthetic passages, 100 candidates a query (k = 100), "
                      "each run in a fresh interpreter; goal: the cost per further query flat"]
        lines += _table(["queries", "total", "peak memory", "corpus read + first query", "per further query"],
                        [[f"{r['queries']:,}", f"{r['seconds']:.1f} s", f"{r['peak_mb']:.0f} MB",
                          f"{r['first_query']:.1f} s", f"{r['per_query'] * 1000:.2f} ms"] for r in audit_scale()])
        lines += ["", "   One query of 10^3 and of 10^6 run lines (k = 10); goal: the peak memory does not follow the depth"]
        lines += _table(["lines", "total", "peak memory"],
                        [[f"{r['depth']:,}", f"{r['seconds']:.1f} s", f"{r['peak_mb']:.0f} MB"]
                         for r in audit_one_deep_query()])
        small, big = audit_corpus_scale()
        lines += ["", "   The same run of 10^4 queries (touching 10^4 passages) over a corpus of those 10^4 and over",
                  "   one of 10^6 that holds them; goal: at most 2x the time and memory"]
        lines += _table(["corpus", "held", "total", "peak memory"],
                        [[f"{r['passages']:,}", f"{r['held']:,}", f"{r['seconds']:.1f} s", f"{r['peak_mb']:.0f} MB"]
                         for r in (small, big)]
                        + [["ratio", "", f"{big['seconds'] / small['seconds']:.2f}x",
                            f"{big['peak_mb'] / small['peak_mb']:.2f}x"]])
    if with_index:
        rows = index_scaling()
        lines += ["", "7. Lesson 12's approximate index (IVF, lists = sqrt(n), 12 queries, top 10; garbage collector "
                      "paused)",
                  "   Build: one k-means over a sample of at most 64 vectors a list, then every vector filed: linear",
                  "   in n for a given number of lists (per vector x list below). Search: lists + the vectors of",
                  "   the nprobe opened lists, against exact search's n."]
        builds = {r["size"]: r for r in rows}
        lines += _table(["n", "lists", "build", "per vector x list"],
                        [[f"{n:,}", r["lists"], _ms(r["build_seconds"] * 1000),
                          f"{r['build_seconds'] / (n * r['lists']) * 1e9:.0f} ns"] for n, r in builds.items()])
        lines += [""] + _table(["n", "nprobe", "recall@10", "compared", "of n", "search", "exact search", "speed-up"],
                               [[f"{r['size']:,}", r["nprobe"], f"{r['recall']:.3f}", f"{r['compared']:,.1f}",
                                 f"{r['compared'] / r['size']:.1%}", _ms(r["search_seconds"] * 1000),
                                 _ms(r["exact_seconds"] * 1000), f"{r['exact_seconds'] / r['search_seconds']:.1f}x"]
                                for r in rows])
    if not (with_notebooks and with_tests):
        lines += ["", "(--notebooks and --tests add the notebook execution and test suite times)"]
    return "\n".join(lines) + "\n"


def _table(heads: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(cell)) for cell in column) for column in zip(heads, *rows)]
    out = ["  " + "  ".join(str(h).ljust(w) for h, w in zip(heads, widths)).rstrip()]
    out.append("  " + "  ".join("-" * w for w in widths))
    for row in rows:
        out.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="methods.py dev bench", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="start-up runs per command (default 20)")
    parser.add_argument("--startup", nargs="+", metavar="NAME",
                        help="only the start-up table, for these commands (lesson names or audit)")
    parser.add_argument("--full", action="store_true", help="scale up to 10^6 candidates (default 10^5)")
    parser.add_argument("--notebooks", action="store_true", help="also time executing every notebook")
    parser.add_argument("--tests", action="store_true", help="also time the whole test suite")
    parser.add_argument("--audit", action="store_true", help="also audit 10^2 to 10^4 queries at depth 1,000 "
                                                             "over 10^6 passages beside ir-measures, 10^2 to 10^5 "
                                                             "queries x 100 candidates over 10^5 passages, one "
                                                             "query of 10^3 and of 10^6 lines, and one run over "
                                                             "10^4 against 10^6 passages")
    parser.add_argument("--index", action="store_true", help="also time lesson 12's approximate index against "
                                                             "exact search at 10^3 to 10^5 vectors (about a minute)")
    parser.add_argument("--grading", action="store_true",
                        help="only time `grade` on generated submissions (a class of --submissions)")
    parser.add_argument("--submissions", type=int, default=200, metavar="N",
                        help="class size for --grading (default 200)")
    parser.add_argument("--loops", type=int, default=2, metavar="N",
                        help="submissions with a task that never returns, for --grading (default 2)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if args.grading:
        if args.submissions < 1 or not 0 <= args.loops <= args.submissions:
            parser.error("--submissions must be at least 1 and --loops between 0 and --submissions")
        from labtools import grading
        graded = [grading_time(args.submissions, args.loops)]
        sys.stdout.write("\n".join(grading_report(graded[0])) + "\n")
        if grading.sandbox_problem() is None:  # and under the sandbox, where bwrap can run
            graded.append(grading_time(args.submissions, args.loops, sandbox=True))
            sys.stdout.write("\n".join(grading_report(graded[-1])) + "\n")
        if "kinds" in graded[0]:
            sys.stdout.write("\n".join(pytest_route_report(pytest_route_time(graded[0]["kinds"]), graded)) + "\n")
        return 0
    unknown = [name for name in args.startup or [] if name not in startup_commands()]
    if unknown:
        parser.error(f"--startup: no command {', '.join(map(repr, unknown))} (known: {', '.join(startup_commands())})")
    sys.stdout.write(report(args.runs, 10 ** 6 if args.full else 10 ** 5, args.notebooks, args.tests, args.audit,
                            args.index, args.startup))
    return 0
