"""Grading that holds (issue 38), the quick half: one small case per attack, cheap enough for
every run of the suite. The slow, whole-class versions run beside the older attacks in
`python3 -B methods.py dev probe --grading` (devtools/attacks.py)."""

from __future__ import annotations

import os
import stat

import pytest

from helpers import ROOT
from labtools import grading

SANDBOX = grading.sandbox_problem() is None


def _class(tmp_path, lesson: str, sources: dict) -> list:
    found = []
    for student, text in sources.items():
        folder = tmp_path / "class" / student
        folder.mkdir(parents=True)
        (folder / f"{lesson}.py").write_text(text, encoding="utf-8")
        found.append(grading.Submission(student, folder, student))
    return found


def _tasks_passed(result: dict) -> list:
    return [task["passed"] for task in result["tasks"]]


# ------------------------------------------------------------------ nothing crosses between jobs

CLEARS_SUPERSEDES = '''
_answer = resolve_or_abstain


def resolve_or_abstain(records, supersedes):
    answer = _answer(records, supersedes)
    supersedes.clear()  # the grader's SUPERSEDES, mirrored back to the trusted worker
    return answer
'''


@pytest.mark.skipif(not SANDBOX, reason="bwrap cannot make a sandbox here")
def test_an_attacker_graded_first_on_one_worker_leaves_the_next_classmate_whole(tmp_path):
    solution = (ROOT / "solutions" / "versions.py").read_text(encoding="utf-8")
    submissions = _class(tmp_path, "versions", {"mallory": solution + CLEARS_SUPERSEDES, "zoe": solution})
    results = grading.grade_submissions(submissions, ["versions"], workers=1, sandbox=True)
    assert all(_tasks_passed(results["zoe"][0])), results["zoe"][0]


# ------------------------------------------------------------------ nothing the learner writes runs later

def _lab_copy(where):
    import shutil
    for name in ("methods.py", "course.json", "labtools", "modules", "solutions", "exercises", "tests/graders"):
        source, target = ROOT / name, where / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return where


def test_bytecode_planted_for_the_deciding_process_is_never_read(tmp_path):
    # What a submission graded without the sandbox can write as the instructor's user: an
    # unchecked-hash .pyc of a module the next `check` or `grade` imports, which Python would
    # run without looking at the source. Here it makes every lesson "passed".
    import importlib._bootstrap_external as bootstrap
    import importlib.util
    import json
    import subprocess
    import sys
    lab = _lab_copy(tmp_path / "lab")
    source = lab / "labtools" / "grading" / "records.py"
    forged = source.read_text(encoding="utf-8") + (
        "\n_summarize = summarize\n\ndef summarize(result, folder):\n    record = _summarize(result, folder)\n"
        "    record.update(status='passed', done=record['total'])\n    return record\n")
    code = compile(forged, str(source), "exec")
    digest = importlib.util.source_hash(source.read_bytes())
    cache = source.parent / "__pycache__"
    cache.mkdir()
    (cache / f"records.{sys.implementation.cache_tag}.pyc").write_bytes(
        bytes(bootstrap._code_to_hash_pyc(code, digest, checked=False)))
    done = subprocess.run([sys.executable, "-B", "methods.py", "check", "context", "--json"], cwd=lab,
                          capture_output=True, text=True, timeout=120)
    record = json.loads(done.stdout)
    assert record["tasks_passed"] == 0 and not record["passed"], record["tasks_passed"]


# ------------------------------------------------------------------ only the learner's own code passes

ATTACKS_ON_OWNERSHIP = {
    # (what is appended to the reference answer, the task it must fail)
    "partial": ('import functools\n_own = packet_coverage\nglobals()["packet_coverage"] = functools.partial(_own)\n', 1),
    "rebuilt": ("packet_coverage.__code__ = packet_coverage.__code__.replace(co_filename=__file__)\n", 1),
    "callable": ("class _Call:\n    def __call__(self, *args):\n        return _own(*args)\n\n\n"
                 "_own = packet_coverage\npacket_coverage = _Call()\n", 1),
    "builtin": ("packet_coverage = len\n", 1),
    "str-equal-to-all": ("class _Any(str):\n    def __eq__(self, other):\n        return True\n\n"
                         "    __hash__ = str.__hash__\n\n\nLABELS_QUIZ = _Any('z')\n", 4),
    "patched-fraction": ("import fractions\nfractions.Fraction.__eq__ = lambda self, other: True\n"
                         "fractions.Fraction.__ne__ = lambda self, other: False\n\n\n"
                         "def recall_at_k(ranked_ids, relevant_ids, k):\n    return fractions.Fraction(0)\n", 2),
}


def test_answers_that_are_not_the_learners_own_code_fail_by_name(tmp_path):
    solution = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8")
    sources = {name: solution + "\n\n" + extra for name, (extra, _task) in ATTACKS_ON_OWNERSHIP.items()}
    results = grading.grade_submissions(_class(tmp_path, "context", dict(sources, honest=solution)), ["context"])
    assert all(_tasks_passed(results["honest"][0]))
    for name, (_extra, task) in ATTACKS_ON_OWNERSHIP.items():
        passed = _tasks_passed(results[name][0])
        assert passed[task - 1] is False, (name, results[name][0]["tests"])
        assert sum(passed) == len(passed) - 1, (name, passed)  # the other tasks are the honest answers


# ------------------------------------------------------------------ limits on the trusted side

def test_a_set_of_colliding_hashes_is_refused_before_it_is_built():
    import time
    from labtools.grading import wire
    colliding = [n * (2 ** 61 - 1) for n in range(20_000)]  # every one hashes to 0
    started = time.perf_counter()
    for data in ({"S": colliding}, {"D": [[n, 1] for n in colliding]}):
        with pytest.raises(wire.WireError, match="one hash"):
            wire.decode(data, lambda number, name: None)
    assert time.perf_counter() - started < 2.0
    assert wire.decode({"S": list(range(20_000))}, lambda number, name: None) == set(range(20_000))


def test_a_deep_or_endless_line_on_the_result_pipe_is_dropped_not_kept():
    from labtools.grading import signed
    reader = signed.Reader(b"k" * 32)
    for _ in range(300):
        assert reader.feed(b"x" * (1 << 16)) == []
    assert len(reader.buffer) <= signed.LINE_BYTES and reader.forged == 1


def test_clean_up_never_changes_a_file_through_a_link(tmp_path):
    from labtools.grading import pool
    host = tmp_path / "host-file"
    host.write_text("the instructor's\n", encoding="utf-8")
    host.chmod(0o600)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "link").symlink_to(host)
    pool._unlock(os.unlink, str(scratch / "link"), None)  # what rmtree does after a refusal
    assert not (scratch / "link").exists() and host.exists()
    assert stat.S_IMODE(host.stat().st_mode) == 0o600


@pytest.mark.skipif(not SANDBOX, reason="bwrap cannot make a sandbox here")
def test_the_sandboxs_tmp_is_bounded(tmp_path):
    from labtools.grading import sandbox
    (tmp_path / "work").mkdir()
    command = sandbox.sandbox_command(tmp_path / "lab", tmp_path / "work", grading.Limits())
    at = command.index("/tmp")
    assert command[at - 1] == "--tmpfs" and command[at - 3:at - 1] == ["--size", str(sandbox.TMP_BYTES)] \
        or command[at - 2] == "--bind"


# ------------------------------------------------------------------ no user, /proc view or pipe shared

PROBES_THE_WORKER = '''
import os as _os
print("uid", _os.getuid())
_parent = _os.getppid() or GRADER  # 0 in a PID namespace of its own: then the grading process's id
for _what, _try in (("fd", lambda: open(f"/proc/{_parent}/fd/0", "rb")),
                    ("mem", lambda: open(f"/proc/{_parent}/mem", "rb")),
                    ("kill", lambda: _os.kill(_parent, 0))):
    try:
        _try()
        print(_what, "allowed")
    except OSError:
        print(_what, "refused")
'''


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs Linux /proc")
def test_without_the_sandbox_the_learners_code_cannot_reach_its_worker(tmp_path):
    # Its worker (the parent) holds the job lines of other students on fd 0 and their answers
    # on its pipes: the learner's code may not open them, read its memory, or (as root, where
    # it runs as a user of its own) signal it.
    solution = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8")
    results = grading.grade_submissions(_class(tmp_path, "context", {"eve": solution + f"GRADER = {os.getpid()}\n"
                                                                      + PROBES_THE_WORKER}),
                                        ["context"], workers=1)
    output = results["eve"][0].get("output", "")
    assert "fd refused" in output and "mem refused" in output, output
    if os.geteuid() == 0:
        assert "uid 0\n" not in output and "kill refused" in output, output
    assert all(_tasks_passed(results["eve"][0]))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="grading switches users only as root")
def test_as_another_user_the_learners_code_still_imports_the_standard_library(tmp_path):
    # Found in review: as root with a Python under /root (mode 0700), the learner's user could
    # import no module the worker had not imported (tomllib failed); the workers preload them.
    solution = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8")
    results = grading.grade_submissions(_class(tmp_path, "context", {"ann": "import statistics, fractions\ntry:\n    import tomllib\nexcept ImportError:\n    pass\n" + solution}),
                                        ["context"], workers=1)
    assert all(_tasks_passed(results["ann"][0])), results["ann"][0]


# ------------------------------------------------------------------ an honest student, sandboxed

@pytest.mark.skipif(not SANDBOX, reason="bwrap cannot make a sandbox here")
def test_every_lessons_reference_answers_pass_under_the_sandbox(tmp_path):
    # Found by `dev probe --grading`'s agreement pass: lesson 05's grader hands reorder_for_edges
    # a range ("any sequence"), which the sandbox's wire did not carry, so the reference answer
    # failed task 1 under --sandbox only. Every lesson, one sandboxed submission.
    from labtools import course
    folder = tmp_path / "class" / "ann"
    folder.mkdir(parents=True)
    for lesson in course.lessons():
        (folder / f"{lesson}.py").write_text((ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    results = grading.grade_submissions([grading.Submission("ann", folder, "ann")], course.lessons(), workers=1,
                                        sandbox=True)
    failed = {result["lesson"]: [task["number"] for task in result["tasks"] if not task["passed"]]
              for result in results["ann"]}
    assert not {lesson: numbers for lesson, numbers in failed.items() if numbers}, results["ann"]
