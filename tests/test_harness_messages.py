"""The grading harness as an instructor and a learner read it (issue 28, the harness items).

Each test hands a folder to the command a person would run (check --target, pytest with
LAB_TARGET, grade) and reads what comes back: a shown call names where its argument lives, a
wrong type is called/got/expected (never a grader's traceback), every command finds a nested
exercises/ the same way, no instructor is told to reset, and grade's files say what ran.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from helpers import ROOT, methods

FIRST = "context"


def _edited(folder, lesson: str, old: str, new: str):
    solution = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    assert solution.count(old) == 1, f"solutions/{lesson}.py no longer holds {old!r} once"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{lesson}.py").write_text(solution.replace(old, new), encoding="utf-8")
    return folder


def _failing(folder, lesson: str) -> list[dict]:
    done = methods("check", lesson, "--target", str(folder), "--json", check=False)
    record = json.loads(done.stdout)["lessons"][0]
    return [t for t in record["tasks"] if not t["passed"]]


# ------------------------------------------------------------------ 1. where a shown argument lives

def test_a_shown_lesson_value_names_the_constant_it_comes_from(tmp_path):
    folder = _edited(tmp_path / "sub", FIRST, "            if len(first_k) == k:", "            if len(first_k) == k + 1:")
    failing = _failing(folder, FIRST)
    assert [t["number"] for t in failing] == [2], failing
    message = failing[0]["message"]
    assert "called recall_at_k([p.id for p in CANDIDATES] from modules.context, " in message, message
    assert "<the lesson's" not in message


# ------------------------------------------------------------------ 2. a wrong type, in any grader

_TEXT_KEPT = "    return TextDedupe(kept=kept, "  # lesson 03's task 2: the kept chunks, as chunks
_VALID = "    return [r for r in records"     # lesson 04's task 2: the valid records, as records
WRONG_TYPES = [
    # (lesson, task, old, new, what came back)
    ("dedupe", 2, _TEXT_KEPT, _TEXT_KEPT.replace("kept=kept", "kept=tuple(c.id for c in kept)"), "(a TextDedupe)"),
    ("versions", 2, _VALID, "    return [r.id for r in records", "(a list of str)"),
    ("versions", 2, _VALID, "    return [None for r in records", "(a list of NoneType)"),
]


@pytest.mark.parametrize("lesson, task, old, new, kind", WRONG_TYPES,
                         ids=["dedupe-ids-for-chunks", "versions-ids-for-records", "versions-nones"])
def test_a_wrong_type_is_called_got_expected_never_a_grader_traceback(tmp_path, lesson, task, old, new, kind):
    folder = _edited(tmp_path / "sub", lesson, old, new)
    failing = _failing(folder, lesson)
    assert task in [t["number"] for t in failing], failing
    message = next(t for t in failing if t["number"] == task)["message"]
    assert "Traceback" not in message and "tests/graders/grade_" not in message, message
    assert message.startswith("called ") and "\n  got:" in message and "\n  expected:" in message, message
    assert kind in message, message


def test_a_wrong_type_reads_the_same_under_pytest(tmp_path):
    folder = _edited(tmp_path / "sub", "versions", _VALID, "    return [r.id for r in records")
    done = subprocess.run([sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/graders/grade_versions.py", "-k", "task2_a_period"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, LAB_TARGET=str(folder)))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "got:      ['late-fee-2025', 'late-fee-2026'] (a list of str)" in done.stdout, done.stdout
    assert not re.search(r"grade_versions\.py:[0-9]", done.stdout), done.stdout


# ------------------------------------------------------------------ 3. one rule for finding lesson files

def _checkout(tmp_path):
    """A whole checkout handed in: the answers are in frank/exercises/."""
    _edited(tmp_path / "frank" / "exercises", FIRST, "            if len(first_k) == k:", "            if len(first_k) == k + 1:")
    (tmp_path / "frank" / "README.md").write_text("my lab\n", encoding="utf-8")
    return tmp_path / "frank"


def test_check_target_finds_a_nested_exercises_folder_as_grade_does(tmp_path):
    frank = _checkout(tmp_path)
    failing = _failing(frank, FIRST)
    assert [t["number"] for t in failing] == [2], failing
    done = methods("check", FIRST, "--target", str(frank), check=False)
    assert "frank/exercises" in done.stderr.decode(), done.stderr


def test_pytest_with_lab_target_finds_a_nested_exercises_folder(tmp_path):
    frank = _checkout(tmp_path)
    done = subprocess.run([sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/graders/grade_context.py"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, LAB_TARGET=str(frank)))
    assert "does not exist" not in done.stdout, done.stdout
    failed = re.findall(r"FAILED tests/graders/grade_context.py::(test_task[0-9]+)_", done.stdout)
    assert set(failed) == {"test_task2"}, done.stdout


def test_grade_names_a_near_miss_when_no_lesson_file_is_found(tmp_path):
    student = tmp_path / "class" / "gina"
    student.mkdir(parents=True)
    shutil.copy(ROOT / "solutions" / f"{FIRST}.py", student / "Context.py")
    done = methods("grade", str(tmp_path / "class"), "--out", str(tmp_path / "book"), "--lesson", FIRST,
                   "--plain", check=False)
    assert done.returncode == 0, done.stderr.decode()
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text(encoding="utf-8"))
    errors = book["students"][0]["errors"]
    assert any("found Context.py: the name must be context.py" in error for error in errors), errors


# ------------------------------------------------------------------ 4. no reset advice for a submission

def test_an_instructor_is_never_told_to_reset(tmp_path):
    folder = tmp_path / "sub"
    folder.mkdir()
    (folder / "budget.py").write_text("x = 1\n", encoding="utf-8")  # a lesson file, but not context's
    (folder / f"{FIRST}.py").write_text("\n", encoding="utf-8")     # context's, without its functions
    for args in (("check", FIRST, "--target", str(folder)), ("check", FIRST, "--target", str(folder), "--json")):
        done = methods(*args, check=False)
        assert "methods.py reset" not in done.stdout.decode() + done.stderr.decode(), done.stdout
    done = subprocess.run([sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=line",
                           "tests/graders/grade_context.py", "tests/graders/grade_dedupe.py"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, env=dict(os.environ, LAB_TARGET=str(folder)))
    assert "does not exist" in done.stdout and "should define" in done.stdout, done.stdout
    assert "methods.py reset context" not in done.stdout, done.stdout
    assert "restores the stub" not in done.stdout, done.stdout


# ------------------------------------------------------------------ 5. grade's files

@pytest.fixture
def slow_class(tmp_path):
    """bob's recall_at_k loops forever (a 1 s limit stops it); alice's answers are right."""
    for student in ("alice", "bob"):
        (tmp_path / "class" / student).mkdir(parents=True)
        shutil.copy(ROOT / "solutions" / f"{FIRST}.py", tmp_path / "class" / student / f"{FIRST}.py")
    _edited(tmp_path / "class" / "bob", FIRST, "return Fraction(len(relevant & set(first_k)), len(relevant))",
            "while True:\n        pass")
    return tmp_path / "class"


def test_junit_and_gradescope_carry_each_students_own_time(slow_class, tmp_path):
    out, junit = tmp_path / "book", tmp_path / "junit.xml"
    methods("grade", str(slow_class), "--out", str(out), "--lesson", FIRST, "--seconds", "1", "--junit", str(junit),
            "--plain")
    suites = ET.parse(junit).getroot()
    by_name = {suite.get("name"): suite for suite in suites}
    slow = next(case for case in by_name["bob"] if case.get("name").startswith("task 2"))
    assert 0.9 <= float(slow.get("time")) <= 5, slow.get("time")
    for suite in suites:
        assert float(suite.get("time")) == pytest.approx(sum(float(c.get("time")) for c in suite), abs=0.01)
    assert float(suites.get("time")) == pytest.approx(sum(float(s.get("time")) for s in suites), abs=0.01)
    alice = json.loads((out / "gradescope" / "alice" / "results.json").read_text(encoding="utf-8"))
    bob = json.loads((out / "gradescope" / "bob" / "results.json").read_text(encoding="utf-8"))
    assert bob["execution_time"] >= 0.9 and alice["execution_time"] < bob["execution_time"], (alice, bob)


def test_a_regrade_without_junit_moves_the_old_report_aside(slow_class, tmp_path):
    out, junit = tmp_path / "book", tmp_path / "book" / "junit.xml"
    methods("grade", str(slow_class), "--out", str(out), "--lesson", FIRST, "--seconds", "1", "--junit", str(junit),
            "--plain")
    assert junit.is_file()
    done = methods("grade", str(slow_class), "--out", str(out), "--lesson", FIRST, "--seconds", "1", "--overwrite",
                   "--plain")
    assert not junit.exists()
    assert list(out.glob("junit.xml.*.bak")), sorted(p.name for p in out.iterdir())
    assert "wrote no JUnit report" in " ".join(done.stdout.decode().split())


def test_grade_on_one_students_folder_suggests_single(tmp_path):
    alice = tmp_path / "alice"
    alice.mkdir()
    shutil.copy(ROOT / "solutions" / f"{FIRST}.py", alice / f"{FIRST}.py")
    done = methods("grade", str(alice), "--out", str(tmp_path / "book"), check=False)
    assert done.returncode == 2 and b"add --single" in done.stderr, done.stderr
    methods("grade", str(alice), "--out", str(tmp_path / "book"), "--single", "--lesson", FIRST, "--plain")
    assert (tmp_path / "book" / "results.json").is_file()


def test_grade_help_lists_every_file_it_writes():
    text = methods("grade", "--help").stdout.decode()
    for name in ("gradebook.csv", "gradebook.json", "gradescope/ID/results.json", "--junit FILE", ".bak",
                 "DIR/results.json"):
        assert name in text, name
