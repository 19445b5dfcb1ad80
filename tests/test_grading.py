"""Grading an instructor can trust: forged results, stale bytecode, links, loops, exits,
children and side effects; the class gradebook and its exports; native pytest collection.

Every submission here is made in a temporary folder from the first lesson's reference
answers (`solutions/`), with one change each.
"""

from __future__ import annotations

import csv
import importlib._bootstrap_external as bootstrap
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from helpers import ROOT, methods, tree_state
from labtools import cli, course, grading
from devtools import bench, dev
from labtools.grading import exports, gradebook, gradescope, integrity

LESSONS = course.lessons()
FIRST = LESSONS[0]                     # context: packet_coverage, recall_at_k, fill_quote_budget, LABELS_QUIZ, PACKET_AT_190
SOLUTION = (ROOT / "solutions" / f"{FIRST}.py").read_text(encoding="utf-8")
QUICK = grading.Limits(seconds=1.0)


def solution_with(code: str, task: int = 1, text: str = SOLUTION) -> str:
    """The reference answers with `code` run first in the body of task `task` (1-based)."""
    head, rest, indent = "", text, ""
    for _ in range(task):
        before, marker, rest = rest.partition("# BEGIN SOLUTION\n")
        head += before + marker
        indent = before[len(before.rstrip(" ")):]
    lines = "".join(f"{indent}{line}\n" for line in code.splitlines())
    return head + lines + rest


def folder_with(tmp_path: Path, text: str, name: str = "submission") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{FIRST}.py").write_text(text, encoding="utf-8")
    return folder


def graded(folder: Path, limits: grading.Limits = QUICK) -> dict:
    return cli.grade([FIRST], folder, limits)[0]


def tasks(record: dict) -> dict:
    return {task["number"]: task for task in record["tasks"]}


def folder_state(folder: Path) -> list:
    return sorted((str(p.relative_to(folder)), p.is_dir(), p.stat().st_mtime_ns,
                   b"" if p.is_dir() else p.read_bytes()) for p in folder.rglob("*"))


# ------------------------------------------------------------------ forged results

FORGED = '''import json, os
os.write(1, json.dumps({"lesson": "context", "target": "x", "tests": [], "tasks": [
    {"number": n, "name": "n", "title": "t", "hints": 2, "passed": True, "tests": 1} for n in range(1, 8)]}).encode()
         + b"\\n")
os._exit(0)
'''  # before: `check --target` reported passed, 7/7

FORGED_ON_EVERY_FD = '''import os, posix
line = b"0" * 64 + b' {"t": "result", "test": "test_task1_x", "task": 1, "passed": true, "message": ""}\\n'
for fd in range(1, 64):
    try:
        os.write(fd, line + b"0" * 64 + b' {"t": "done"}\\n')
    except OSError:
        pass
posix._exit(0)
'''


def test_a_forged_result_line_and_an_exit_at_import_never_pass(tmp_path):
    done = methods("check", FIRST, "--target", str(folder_with(tmp_path, FORGED)), "--json", check=False)
    record = json.loads(done.stdout)
    lesson = record["lessons"][0]
    assert done.returncode == 1 and record["passed"] is False and record["tasks_passed"] == 0
    assert lesson["status"] == "error" and lesson["kind"] == "exit" and "os._exit(0)" in lesson["error"]
    assert [t["number"] for t in lesson["tasks"]] == [1, 2, 3, 4, 5]  # the grader's own tasks, not the forger's 7


def test_unsigned_lines_on_the_result_channel_are_counted_and_ignored(tmp_path):
    record = graded(folder_with(tmp_path, FORGED_ON_EVERY_FD))
    assert record["status"] == "error" and record["done"] == 0 and record["kind"] == "exit"
    assert record.get("forged_lines", 0) >= 1
    assert "before the file finished importing" in record["error"]


def test_the_learners_file_cannot_simply_import_the_harness_and_patch_it(tmp_path):
    patcher = ("try:\n    from labtools.grading import harness\n    harness.expect = lambda *a, **k: None\n"
               "except ImportError:\n    pass\n")
    record = graded(folder_with(tmp_path, patcher + dev.generated_stub(FIRST)))
    assert record["status"] == "failing" and record["done"] == 0


# ------------------------------------------------------------------ bytecode and links

def _pyc_for(source: Path, code_text: str) -> bytes:
    """Bytecode of `code_text` stamped with `source`'s mtime and size: what Python would accept."""
    stat = source.stat()
    code = compile(code_text, str(source), "exec", dont_inherit=True)
    return bytes(bootstrap._code_to_timestamp_pyc(code, int(stat.st_mtime), stat.st_size))


def test_bytecode_beside_a_submission_is_never_graded(tmp_path):
    folder = folder_with(tmp_path, dev.generated_stub(FIRST))
    cache = folder / "__pycache__"
    cache.mkdir()
    (cache / f"{FIRST}.{sys.implementation.cache_tag}.pyc").write_bytes(_pyc_for(folder / f"{FIRST}.py", SOLUTION))
    record = graded(folder)
    assert record["status"] == "failing" and record["done"] == 0, "the stub's own source is what is graded"
    assert "not written yet" in record["tasks"][0]["message"]


def test_planted_bytecode_of_the_grading_harness_is_never_read(tmp_path):
    lab = ROOT / "labtools" / "grading" / "harness.py"
    lenient = lab.read_text(encoding="utf-8").replace(
        "def expect(actual, expected, shown: str, why: str = \"\") -> None:\n",
        "def expect(actual, expected, shown: str, why: str = \"\") -> None:\n    return\n").replace(
        "    except NotImplementedError:\n        name = getattr(fn, \"__name__\", None) or shown.split(\"(\", 1)[0]\n"
        "        raise LabFailure(f\"{name} is not written yet: it still raises "
        "NotImplementedError \"\n                         f\"(called {shown}). Replace the raise with your code.\") "
        "from None", "    except NotImplementedError:\n        return None")
    assert lenient.count("return None") > lab.read_text(encoding="utf-8").count("return None")
    cache = lab.parent / "__pycache__"
    existed = cache.exists()
    planted = cache / f"harness.{sys.implementation.cache_tag}.pyc"
    kept = planted.read_bytes() if planted.exists() else None  # setup's own bytecode, put back after
    cache.mkdir(exist_ok=True)
    try:
        planted.write_bytes(_pyc_for(lab, lenient))
        record = graded(folder_with(tmp_path, dev.generated_stub(FIRST)))
    finally:
        planted.unlink(missing_ok=True)
        if kept is not None:
            planted.write_bytes(kept)
        if not existed:
            shutil.rmtree(cache, ignore_errors=True)
    assert record["done"] == 0 and record["status"] == "failing"


def test_a_link_out_of_the_folder_is_not_followed_and_one_inside_is(tmp_path):
    outside = folder_with(tmp_path, "", "submission")
    (outside / f"{FIRST}.py").unlink()
    (outside / f"{FIRST}.py").symlink_to(ROOT / "solutions" / f"{FIRST}.py")
    record = graded(outside)
    assert record["status"] == "error" and record["kind"] == "link" and record["done"] == 0
    assert "outside the folder" in record["error"]
    inside = tmp_path / "inside"
    (inside / "work").mkdir(parents=True)
    (inside / "work" / "mine.py").write_text(SOLUTION, encoding="utf-8")
    (inside / f"{FIRST}.py").symlink_to(inside / "work" / "mine.py")
    assert graded(inside)["status"] == "passed"


# ------------------------------------------------------------------ side effects and children

SIDE_EFFECTS = '''import os
for name in os.listdir(os.path.dirname(__file__)):
    if name != os.path.basename(__file__):
        os.remove(os.path.join(os.path.dirname(__file__), name))
with open("written-by-the-submission.txt", "w") as handle:
    handle.write("x")
'''


def test_the_graded_code_runs_in_a_scratch_folder_and_writes_nothing_we_keep(tmp_path):
    folder = folder_with(tmp_path, SIDE_EFFECTS + SOLUTION)
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    before, checkout = folder_state(folder), tree_state()
    outside_before = sorted(p.name for p in tmp_path.iterdir())
    record = graded(folder)
    assert record["status"] == "passed"
    assert folder_state(folder) == before and tree_state() == checkout
    assert sorted(p.name for p in tmp_path.iterdir()) == outside_before
    assert not list(ROOT.glob("written-by-the-submission.txt"))


def test_check_target_leaves_the_graded_folder_unchanged(tmp_path):
    submission = tmp_path / "submission"
    submission.mkdir()
    for lesson in LESSONS:
        shutil.copy(ROOT / "solutions" / f"{lesson}.py", submission / f"{lesson}.py")
    (submission / "notes").mkdir()
    (submission / "notes" / "readme.txt").write_text("mine\n", encoding="utf-8")
    before = folder_state(submission)
    # Also without -B or PYTHONDONTWRITEBYTECODE: the grader itself must not cache bytecode.
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for extra in ([], ["--json"]):
        done = subprocess.run([sys.executable, str(ROOT / "methods.py"), "check", "--target", str(submission),
                               *extra], capture_output=True, env=env, cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    assert folder_state(submission) == before
    assert not list(submission.rglob("__pycache__"))


def _running(marker: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                found.append(entry.name)
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc to look for processes")
def test_a_process_the_code_starts_is_killed_with_the_grading(tmp_path):
    marker = "97.4561"
    starts_a_child = f"import subprocess\nsubprocess.Popen(['sleep', '{marker}'])\n" + SOLUTION
    started = time.perf_counter()
    record = graded(folder_with(tmp_path, starts_a_child), grading.Limits())
    assert record["status"] == "passed", "correct code is graded as correct, however long its child would sleep"
    assert time.perf_counter() - started < 20
    time.sleep(0.2)
    assert _running(marker) == []


# ------------------------------------------------------------------ loops, exits, crashes

def test_an_endless_loop_in_one_task_fails_that_task_alone_and_names_the_call(tmp_path):
    started = time.perf_counter()
    record = graded(folder_with(tmp_path, solution_with("while True:\n    pass", task=2)))
    by_number = tasks(record)
    assert record["status"] == "failing" and [n for n, t in by_number.items() if t["passed"]] == [1, 3, 4, 5]
    message = by_number[2]["message"]
    assert "recall_at_k" in message and "time limit of 1 s" in message and "last call: recall_at_k(" in message
    assert time.perf_counter() - started < 15


def test_a_loop_that_swallows_the_alarm_is_stopped_from_outside_and_the_rest_still_runs(tmp_path):
    stubborn = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
    record = graded(folder_with(tmp_path, solution_with(stubborn, task=1)))
    by_number = tasks(record)
    assert not by_number[1]["passed"] and all(by_number[n]["passed"] for n in (2, 3, 4))
    assert "had to be stopped" in by_number[1]["message"] and "last call: packet_coverage(" in by_number[1]["message"]


def test_an_endless_loop_at_import_is_an_error_with_every_task_listed(tmp_path):
    record = graded(folder_with(tmp_path, "while True:\n    pass\n"))
    assert record["status"] == "error" and record["kind"] == "timeout" and "top level" in record["error"]
    assert [t["number"] for t in record["tasks"]] == [1, 2, 3, 4, 5] and not any(t["passed"] for t in record["tasks"])
    assert "could not be graded" in "\n".join(cli.next_steps([record]))


@pytest.mark.parametrize("call, words", [("import sys; sys.exit(3)", "sys.exit(3)"),
                                          ("import os; os._exit(0)", "os._exit(0)")])
def test_an_exit_inside_a_task_names_the_task_and_the_call(tmp_path, call, words):
    record = graded(folder_with(tmp_path, solution_with(call, task=3)))
    by_number = tasks(record)
    assert [n for n, t in by_number.items() if not t["passed"]] == [3]
    assert words in by_number[3]["message"] and "called fill_quote_budget(" in by_number[3]["message"]


def test_an_exit_that_gets_past_the_trap_still_names_the_task_and_the_call(tmp_path):
    record = graded(folder_with(tmp_path, solution_with("import posix; posix._exit(7)", task=2)))
    by_number = tasks(record)
    assert [n for n, t in by_number.items() if not t["passed"]] == [2]
    message = by_number[2]["message"]
    assert "task 2 (recall_at_k)" in message and "exit status 7" in message and "last call: recall_at_k(" in message


def test_a_memory_hog_fails_its_task_with_memory_error(tmp_path):
    record = graded(folder_with(tmp_path, solution_with("bytearray(1 << 40)", task=1)),
                    grading.Limits(seconds=2.0, memory_mb=512))
    by_number = tasks(record)
    assert "MemoryError" in by_number[1]["message"] and all(by_number[n]["passed"] for n in (2, 3, 4))


def test_a_syntax_error_is_an_error_with_file_line_column_and_the_line(tmp_path):
    folder = folder_with(tmp_path, SOLUTION.replace("def recall_at_k(", "def recall_at_k((", 1))
    record = graded(folder)
    line = next(i for i, text in enumerate(SOLUTION.splitlines(), 1) if text.startswith("def recall_at_k("))
    assert record["status"] == "error" and record["kind"] == "syntax"
    first, shown, caret = record["error"].splitlines()[:3]
    assert first.startswith(f"{folder}/{FIRST}.py has a syntax error at line {line}, column ")
    assert shown.strip().startswith("def recall_at_k((") and caret.strip() == "^"
    done = methods("check", FIRST, "--target", str(folder), check=False)
    assert done.returncode == 1 and f"syntax error at line {line}" in done.stdout.decode()


def test_check_verbose_shows_the_learners_prints_bounded(tmp_path, capsys):
    noisy = solution_with("print('checking', relevant_ids)\nfor n in range(5000):\n    print('line', n)", task=1)
    folder = folder_with(tmp_path, "print('hello from import')\n" + noisy)
    assert cli.check([FIRST, "--target", str(folder), "--verbose", "--seconds", "2"]) == 0
    text = capsys.readouterr().out
    assert "What your code printed" in text and "hello from import" in text and "checking [" in text
    section = text.split("What your code printed", 1)[1].split("\nWarning", 1)[0].strip("\n")
    # A line indented 6 or more spaces continues a header (2) or a print (4) wrapped to fit 88
    # columns; this test's prints have no leading spaces of their own.
    printed = [line for line in section.splitlines() if not line.startswith(" " * 6)]
    assert "... (" in section and len(printed) <= grading.PRINT_LINES + 2
    cli.check([FIRST, "--target", str(folder)])
    assert "What your code printed" not in capsys.readouterr().out


def test_a_grader_that_cannot_run_is_never_the_learners_fault():
    record = cli.summarize({"lesson": FIRST, "target": "exercises", "kind": "grader", "tasks": [], "tests": [],
                            "error": "the grader for 'context' could not run on Python 3.9.18: TypeError: x. "
                                     "This is not a problem in your file, which was not graded."})
    assert record["status"] == "error"
    steps = "\n".join(cli.next_steps([record]))
    assert "Nothing needs fixing in" in steps and "reset" not in steps and "Fix " not in steps


def _python39() -> str | None:
    for candidate in [shutil.which("python3.9"), *sorted(Path("/root/.pyenv/versions").glob("3.9*/bin/python3"))]:
        if candidate and Path(candidate).exists():
            done = subprocess.run([str(candidate), "-c", "import sys; print(sys.version_info[:2] == (3, 9))"],
                                  capture_output=True, text=True)
            if done.stdout.strip() == "True":
                return str(candidate)
    return None


@pytest.mark.skipif(_python39() is None, reason="no Python 3.9 on this machine")
def test_on_python_39_the_grader_is_blamed_not_the_learners_file(tmp_path):
    folder = folder_with(tmp_path, SOLUTION)
    (tmp_path / "work").mkdir()
    job = {"lesson": FIRST, "folder": str(folder), "shown": "exercises", "work": str(tmp_path / "work"),
           "scratch": str(tmp_path), "seconds": 3.0, "memory_mb": 2048}
    worker = ROOT / "labtools" / "grading" / "worker.py"
    done = subprocess.run([_python39(), "-I", "-S", "-B", str(worker), "--serve"],
                          input="\n" + json.dumps(job) + "\n", capture_output=True, text=True, timeout=120)
    outcome = json.loads(done.stdout.splitlines()[-1])  # after {"ready": true}
    assert outcome["kind"] == "grader" and "Python 3.9" in outcome["error"]
    assert "not a problem in your file" in outcome["error"]


# ------------------------------------------------------------------ the engine

def test_lessons_are_graded_side_by_side_in_course_order():
    names = LESSONS[:3]
    started = time.perf_counter()
    results = grading.grade_many(names, ROOT / "solutions", workers=3)
    assert [r["lesson"] for r in results] == names and all("error" not in r for r in results)
    assert all(t["passed"] for r in results for t in r["tasks"])
    assert time.perf_counter() - started < 60


@pytest.mark.parametrize("fork", [True, False])
def test_a_fresh_interpreter_per_lesson_grades_the_same(tmp_path, fork):
    # Where os.fork is missing, each child is a fresh interpreter; both kinds must agree.
    looping = grading.Submission("a", folder_with(tmp_path, solution_with("while True:\n    pass", 2), "a"), "a")
    forged = grading.Submission("b", folder_with(tmp_path, FORGED, "b"), "b")
    results = grading.grade_submissions([looping, forged], [FIRST], QUICK, workers=2, fork=fork)
    assert [t["passed"] for t in results["a"][0]["tasks"]] == [True, False, True, True, True]
    assert results["b"][0]["kind"] == "exit" and not any(t["passed"] for t in results["b"][0]["tasks"])


def test_limits_reject_nonsense():
    for fields in ({"seconds": 0}, {"seconds": True}, {"memory_mb": 10}, {"output_chars": -1}):
        with pytest.raises(ValueError):
            grading.Limits(**fields)


# ------------------------------------------------------------------ the class gradebook

@pytest.fixture
def a_class(tmp_path) -> Path:
    """Four students: a whole checkout handed in, stubs, a forger, and nothing at all."""
    root = tmp_path / "class"
    nested = root / "alice" / "context-lab" / "exercises"
    nested.mkdir(parents=True)
    for lesson in LESSONS:
        shutil.copy(ROOT / "solutions" / f"{lesson}.py", nested / f"{lesson}.py")
    (root / "bob").mkdir()
    for lesson in LESSONS:
        (root / "bob" / f"{lesson}.py").write_text(dev.generated_stub(lesson), encoding="utf-8")
    folder_with(root, FORGED, "carol")
    (root / "dan").mkdir()
    (root / "dan" / "README.txt").write_text("forgot\n", encoding="utf-8")
    (root / "notes.txt").write_text("not a student\n", encoding="utf-8")
    return root


def test_grade_a_class_writes_csv_json_gradescope_and_junit(a_class, tmp_path):
    out, junit = tmp_path / "out", tmp_path / "out" / "junit.xml"
    done = methods("grade", str(a_class), "--out", str(out), "--junit", str(junit), "--plain", check=False)
    text = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()
    assert "1 complete, 1 incomplete, 1 error, 1 missing" in text and "notes.txt: not a folder" in text
    assert "graded 4/4 submission(s)" in done.stderr.decode()  # plain counts off a terminal
    total = sum(len(grading.grade(lesson, ROOT / "solutions")["tasks"]) for lesson in LESSONS[:1])
    rows = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    assert [row["student"] for row in rows] == ["alice", "bob", "carol", "dan"]
    assert rows[0]["status"] == "complete" and rows[0]["total"] == rows[0]["max"] and rows[0][FIRST] == str(total)
    assert rows[1]["status"] == "incomplete" and rows[1]["total"] == "0"
    assert rows[2]["status"] == "error" and "os._exit(0)" in rows[2]["errors"]
    assert rows[3]["status"] == "missing" and "no lesson file" in rows[3]["errors"]
    assert len({row["max"] for row in rows}) == 1
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    assert set(book) >= {"timestamp", "lab_commit", "grader_manifest_sha256", "python", "limits", "students"}
    assert book["grader_manifest_sha256"] == integrity.manifest_sha256()
    assert book["python"] == ".".join(map(str, sys.version_info[:3]))
    alice = book["students"][0]
    assert alice["folder"] == "alice/context-lab/exercises"
    assert all(task["passed"] for lesson in alice["lessons"] for task in lesson["tasks"])
    for student in book["students"]:
        results = json.loads((out / "gradescope" / student["student"] / "results.json").read_text(encoding="utf-8"))
        assert gradescope.validate(results) == []
        assert results["score"] == student["score"] and len(results["tests"]) == student["max_score"]
    suites = ElementTree.parse(junit).getroot()
    assert suites.get("tests") == str(4 * int(rows[0]["max"]))
    assert int(suites.get("failures")) == int(rows[0]["max"]) and suites.find("testsuite").get("name") == "alice"
    assert not list(a_class.rglob("__pycache__"))


def test_grade_never_overwrites_without_the_flag_and_backs_up_with_it(a_class, tmp_path):
    out = tmp_path / "out"
    methods("grade", str(a_class), "--out", str(out), "--lesson", FIRST)
    first = (out / "gradebook.csv").read_bytes()
    again = methods("grade", str(a_class), "--out", str(out), "--lesson", FIRST, check=False)
    assert again.returncode == 2 and b"exist already" in again.stderr and b"--overwrite" in again.stderr
    assert (out / "gradebook.csv").read_bytes() == first
    methods("grade", str(a_class), "--out", str(out), "--lesson", FIRST, "--overwrite")
    backups = list(out.glob("gradebook.csv.*.bak"))
    assert len(backups) == 1 and backups[0].read_bytes() == first
    inside = methods("grade", str(a_class), "--out", str(a_class / "out"), check=False)
    assert inside.returncode == 2 and b"inside the submissions folder" in inside.stderr
    unknown = methods("grade", str(a_class), "--out", str(out), "--lesson", "nope", check=False)
    assert unknown.returncode == 2 and b"no grader for nope" in unknown.stderr


def test_a_nested_exercises_folder_is_found_and_an_ambiguous_one_is_reported(tmp_path):
    lessons = LESSONS[:2]
    for name in ("exercises", "old/exercises"):
        (tmp_path / "one" / name).mkdir(parents=True)
        (tmp_path / "one" / name / f"{FIRST}.py").write_text("x = 1\n", encoding="utf-8")
    assert gradebook.find_exercises(tmp_path / "one", lessons) == (tmp_path / "one" / "exercises", "")
    (tmp_path / "two" / "a" / "exercises").mkdir(parents=True)
    (tmp_path / "two" / "b" / "exercises").mkdir(parents=True)
    for side in "ab":
        (tmp_path / "two" / side / "exercises" / f"{FIRST}.py").write_text("x = 1\n", encoding="utf-8")
    folder, why = gradebook.find_exercises(tmp_path / "two", lessons)
    assert folder is None and "a/exercises" in why and "b/exercises" in why


def test_csv_cells_never_start_a_spreadsheet_formula():
    assert exports._cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and exports._cell("alice") == "alice"


# ------------------------------------------------------------------ Gradescope

DOCUMENTED = {  # the example in Gradescope's autograder specification, field for field
    "score": 44.0, "execution_time": 136, "output": "Text relevant to the entire submission",
    "output_format": "simple_format", "test_output_format": "text", "test_name_format": "text",
    "visibility": "after_due_date", "stdout_visibility": "visible", "extra_data": {},
    "tests": [{"score": 2.0, "max_score": 2.0, "status": "passed", "name": "Your name here", "name_format": "text",
               "number": "1.1", "output": "Giant multiline string", "output_format": "text",
               "tags": ["tag1", "tag2", "tag3"], "visibility": "visible", "extra_data": {}}],
    "leaderboard": [{"name": "Accuracy", "value": 0.926}],
}


def test_the_results_validator_follows_gradescopes_documented_fields():
    assert gradescope.validate(DOCUMENTED) == []
    bad = dict(DOCUMENTED, visibility="public", grade=3,
               tests=[{"score": 3.0, "max_score": 2.0, "status": "ok", "tags": [1]}])
    problems = "\n".join(gradescope.validate(bad))
    for words in ("visibility is 'public'", "'grade' is not a documented field", "status is 'ok'",
                  "score 3.0 is not between 0 and max_score 2.0", "tags must be strings"):
        assert words in problems
    assert gradescope.validate({"tests": [{"max_score": 1.0}]}) == [
        "results: a top-level score is required unless every test has one"]


def test_dev_gradescope_builds_the_documented_zip_and_its_run_autograder_grades(tmp_path):
    archive = tmp_path / "autograder.zip"
    methods("dev", "gradescope", "--out", str(archive))
    assert methods("dev", "gradescope", "--out", str(archive), check=False).returncode == 2
    with zipfile.ZipFile(archive) as bundle:
        names = bundle.namelist()
        assert {"setup.sh", "run_autograder"} <= set(names)  # at the root, not in a folder
        for name in ("setup.sh", "run_autograder"):
            assert (bundle.getinfo(name).external_attr >> 16) & 0o111, f"{name} must be executable"
        assert "methods.py" in names and "labtools/grading/worker.py" in names and integrity.MANIFEST_NAME in names
        assert not any(name.startswith(("solutions/", "exercises/", "notebooks/")) for name in names
                       if not name.startswith("exercises/hints/"))  # the graders read the hints
        bundle.extractall(tmp_path / "autograder" / "source")
    assert gradescope.autograder_zip() == archive.read_bytes()  # the same bytes every time
    submission = tmp_path / "autograder" / "submission" / "exercises"
    submission.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / f"{FIRST}.py", submission / f"{FIRST}.py")
    (tmp_path / "autograder" / "results").mkdir()
    source = tmp_path / "autograder" / "source"
    for name in ("run_autograder", "setup.sh"):
        (source / name).chmod(0o755)
    done = subprocess.run(["bash", str(source / "run_autograder")], capture_output=True, timeout=300,
                          env=dict(os.environ, AUTOGRADER_ROOT=str(tmp_path / "autograder")))
    assert done.returncode == 0, done.stderr.decode()
    results = json.loads((tmp_path / "autograder" / "results" / "results.json").read_text(encoding="utf-8"))
    assert gradescope.validate(results) == []
    first = [test for test in results["tests"] if test["tags"] == [FIRST]]
    assert first and all(test["status"] == "passed" and test["score"] == 1.0 for test in first)
    assert results["score"] == len(first)


# ------------------------------------------------------------------ the sandbox

def test_sandbox_is_refused_clearly_where_bwrap_is_missing(a_class, tmp_path):
    done = methods("grade", str(a_class), "--out", str(tmp_path / "out"), "--sandbox", check=False,
                   env={"PATH": str(tmp_path / "no-such-bin")})
    assert done.returncode == 2 and b"Nothing was graded" in done.stderr or b"needs Linux" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(grading.sandbox_problem() is not None, reason="bwrap cannot make a sandbox here")
def test_sandbox_allows_no_network_and_no_writes_outside_scratch(tmp_path):
    marker = tmp_path / "written-from-the-sandbox"
    probe = (f"import socket\ntry:\n    open({str(marker)!r}, 'w').write('x')\nexcept OSError as error:\n"
             f"    print('read-only:', error.errno)\ntry:\n    socket.create_connection(('192.0.2.1', 80), timeout=1)\n"
             f"except OSError as error:\n    print('no network:', error.errno)\nopen('scratch.txt', 'w').write('ok')\n")
    root = tmp_path / "class"
    folder_with(root, probe + SOLUTION, "eve")
    out = tmp_path / "out"
    methods("grade", str(root), "--out", str(out), "--sandbox", "--lesson", FIRST, "--plain")
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    lesson = book["students"][0]["lessons"][0]
    assert book["limits"]["sandbox"] is True and lesson["status"] == "passed"
    # The sandbox does not even see the folder (ENOENT); read-only (EROFS) or denied would do too.
    assert any(f"read-only: {errno}\n" in lesson["output"] for errno in (2, 13, 30)), lesson["output"]
    assert "no network:" in lesson["output"]
    assert not marker.exists()


# ------------------------------------------------------------------ the tamper manifest

@pytest.fixture
def built_copy(tmp_path, monkeypatch):
    """The grading files copied as a release ships them, with the manifest write_manifest()
    writes there; integrity then looks at that copy instead of the checkout."""
    copy = tmp_path / "lab"
    names = list(integrity.grade_inputs())
    for name in names:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, copy / name)
    integrity.write_manifest(copy, names + ["methods.py", "solutions/context.py"])  # only grading files count
    monkeypatch.setattr(integrity, "ROOT", copy)
    monkeypatch.setattr(integrity, "GRADERS", copy / "tests" / "graders")
    monkeypatch.setattr(integrity, "MANIFEST", copy / integrity.MANIFEST_NAME)
    return copy


def test_the_manifest_covers_the_whole_grading_harness():
    names = set(integrity.current())
    package = {f"labtools/grading/{path.name}" for path in (ROOT / "labtools" / "grading").glob("*.py")}
    assert {"labtools/grading/worker.py", "labtools/grading/harness.py", "labtools/grading/gradebook.py",
            "labtools/grading/gradescope.py", "labtools/grading/integrity.py"} <= package
    assert package | {"tests/graders/conftest.py", f"tests/graders/grade_{FIRST}.py", "course.json"} <= names


def test_tamper_warning_names_the_file_and_both_hashes(built_copy, capsys):
    assert integrity.reference() == "built"
    assert integrity.warnings() == [] and integrity.changed() == []
    grader = built_copy / "tests" / "graders" / f"grade_{FIRST}.py"
    name = f"tests/graders/{grader.name}"
    real = (course.GRADERS / grader.name).read_bytes()
    shipped = integrity.current()[name]
    grader.write_text(grader.read_text(encoding="utf-8") + "\n# made easier\n", encoding="utf-8")
    now = integrity.current()[name]
    assert integrity.changed() == [name]
    text = "\n".join(integrity.warnings())
    assert name in text and shipped[:12] in text and now[:12] in text and "release" in text
    assert cli.check([FIRST, "--target", str(ROOT / "solutions")]) == 0
    out = capsys.readouterr().out
    assert "Warning: these grading files differ" in out and shipped[:12] in out
    cli.check([FIRST, "--target", str(ROOT / "solutions"), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert record["graders_changed"] == [{"file": name, "shipped": shipped, "now": now}]
    assert (course.GRADERS / grader.name).read_bytes() == real  # the real grader was never touched


def test_tamper_warning_for_added_and_deleted_graders(built_copy):
    graders = built_copy / "tests" / "graders"
    (graders / "grade_extra.py").write_text("TASKS = ()\n", encoding="utf-8")
    (graders / "conftest.py").unlink()
    text = "\n".join(integrity.warnings())
    assert "tests/graders/grade_extra.py" in text and "not shipped" in text
    assert "tests/graders/conftest.py" in text and "now missing" in text
    (built_copy / integrity.MANIFEST_NAME).unlink()  # neither a built copy nor a git checkout now
    assert integrity.reference() == "none" and integrity.changed() == []
    assert "cannot be compared" in "\n".join(integrity.warnings())


def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false",
                    *args], cwd=repo, check=True, capture_output=True, timeout=60)


def test_a_git_checkout_compares_its_grading_files_with_its_commit(tmp_path, monkeypatch):
    # No hash file to refresh by hand: in a clone, the reference is the commit checked out.
    repo = tmp_path / "lab"
    grader = repo / "tests" / "graders" / f"grade_{FIRST}.py"
    grader.parent.mkdir(parents=True)
    shutil.copyfile(course.GRADERS / grader.name, grader)
    shutil.copyfile(ROOT / "course.json", repo / "course.json")
    (repo / "notes.txt").write_text("not a grading file\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "lab")
    monkeypatch.setattr(integrity, "ROOT", repo)
    monkeypatch.setattr(integrity, "GRADERS", grader.parent)
    monkeypatch.setattr(integrity, "MANIFEST", repo / integrity.MANIFEST_NAME)
    assert integrity.reference() == "git" and integrity.changed() == []
    committed = integrity.current()[f"tests/graders/{grader.name}"]
    grader.write_text(grader.read_text(encoding="utf-8") + "\n# made easier\n", encoding="utf-8")
    (repo / "notes.txt").write_text("edited\n", encoding="utf-8")
    (repo / "course.json").unlink()
    (grader.parent / "grade_extra.py").write_text("TASKS = ()\n", encoding="utf-8")
    rows = {row["file"]: row for row in integrity.differences()}
    assert sorted(rows) == sorted(["course.json", "tests/graders/grade_extra.py", f"tests/graders/{grader.name}"])
    assert rows[f"tests/graders/{grader.name}"]["shipped"] == committed and rows["course.json"]["now"] is None
    assert rows["tests/graders/grade_extra.py"]["shipped"] is None
    text = "\n".join(integrity.warnings())
    assert "last commit" in text and "git checkout" in text
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "the edit, committed: in the history, not a tamper warning")
    assert integrity.changed() == []


def test_a_grader_without_tasks_is_an_error_not_a_pass():
    record = cli.summarize({"lesson": FIRST, "tasks": [], "tests": []}, ROOT / "solutions")
    assert record["status"] == "error" and "declares no tasks" in record["error"]
    assert "could not be graded" in "\n".join(cli.next_steps([record]))


# ------------------------------------------------------------------ pytest, natively

def _pytest(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **env))


@pytest.mark.probe   # pytest collecting every grader of every lesson: 35 s of one core
def test_pytest_collects_the_graders_natively():
    done = _pytest("tests/graders", env={"LAB_TARGET": "solutions"})
    count = sum(len(grading.grade(lesson, ROOT / "solutions")["tests"]) for lesson in LESSONS)
    assert done.returncode == 0 and f"{count} passed" in done.stdout, done.stdout[-2000:]
    listed = _pytest("--collect-only", "tests", env={})
    assert "tests/graders/grade_" not in listed.stdout  # the project's own suite never grades exercises/


def test_pytest_route_has_a_time_limit_per_task(tmp_path):
    folder = folder_with(tmp_path, solution_with("while True:\n    pass", task=2))
    started = time.perf_counter()
    done = _pytest(f"tests/graders/grade_{FIRST}.py", env={"LAB_TARGET": str(folder), "LAB_TASK_SECONDS": "1"})
    assert done.returncode == 1 and "did not finish within its time limit of 1 s" in done.stdout
    assert "already ran out" in done.stdout and "test_task3_" not in done.stdout.split("short test summary")[1]
    assert time.perf_counter() - started < 60


# ------------------------------------------------------------------ speed

def test_the_grading_benchmark_runs_on_a_small_class():
    result = bench.grading_time(count=6, loops=1, seconds=1.0)
    assert result["kinds"]["looping task"] == 1 and sum(result["kinds"].values()) == 6
    assert sum(result["statuses"].values()) == 6 and result["statuses"].get("complete", 0) >= 1
    assert "Grading a class:" in bench.grading_report(result)[0]
