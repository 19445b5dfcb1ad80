"""The student release (`dev release`): a week's lessons without solutions/, where every learner
command works, `check` sees no tampering, no answer ships, and next week's release adds a
lesson without touching the learner's files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT
from labtools import stubgen

WEEK_1, WEEK_2 = ["context"], ["context", "budget"]


def run(copy: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", NO_COLOR="1")
    done = subprocess.run([sys.executable, "-B", str(copy / "methods.py"), *args], capture_output=True, text=True,
                          cwd=copy, env=env, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"methods.py {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


def release(out: Path, lessons: list[str]) -> subprocess.CompletedProcess:
    arguments = [a for lesson in lessons for a in ("--lesson", lesson)] + ["--classroom"]
    return subprocess.run([sys.executable, "-B", str(ROOT / "methods.py"), "dev", "release", *arguments,
                           "--out", str(out)], capture_output=True, text=True, timeout=180, check=True)


@pytest.fixture(scope="module")
def week1(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "class"
    release(out, WEEK_1)
    return out


def test_a_release_ships_no_solutions_and_only_the_released_lessons(week1):
    assert not (week1 / "solutions").exists()
    assert not (week1 / "tests" / "golden").exists() and not (week1 / "tests" / "wrong_answers").exists()
    assert sorted(p.name for p in (week1 / "exercises").glob("*.py")) == ["context.py"]
    assert sorted(p.name for p in (week1 / "tests" / "graders").glob("grade_*.py")) == ["grade_context.py"]
    assert sorted(p.name for p in (week1 / "exercises" / "hints").iterdir()) == ["context.md"]
    assert sorted(p.name for p in (week1 / "notebooks").iterdir()) == ["01_context.ipynb"]
    assert not (week1 / "labtools" / "mutate.py").exists()


def _regions(text: str) -> list[str]:
    lines = text.splitlines()
    return ["\n".join(line.strip() for line in lines[begin + 1:end] if line.strip())
            for begin, end in stubgen.answer_regions(text)]


def test_no_answer_ships_in_any_form(week1):
    """Every answer region of every lesson (released or not), normalised, is absent from every
    shipped file, except an answer that the reading itself already holds (modules/)."""
    reading = "\n".join("\n".join(line.strip() for line in path.read_text(encoding="utf-8").splitlines())
                        for path in (ROOT / "modules").rglob("*.py"))
    answers = [region for path in sorted((ROOT / "solutions").glob("*.py"))
               for region in _regions(path.read_text(encoding="utf-8"))
               if region and region not in reading and len(region) > 12]
    assert len(answers) > 50
    for path in week1.rglob("*"):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        text = "\n".join(line.strip() for line in path.read_text(encoding="utf-8", errors="replace").splitlines())
        leaked = [answer for answer in answers if answer in text]
        assert not leaked, f"{path.relative_to(week1)} holds an answer: {leaked[0][:80]!r}"


def test_every_learner_command_works_without_solutions(week1):
    graded = json.loads(run(week1, "check", "--json").stdout)
    assert graded["graders_changed"] == []  # the manifest covers exactly what shipped
    assert [r["lesson"] for r in graded["lessons"]] == ["context"]
    assert graded["tasks_passed"] == 0 and graded["tasks_total"] > 0  # the stub fails every task
    assert "Warning" not in run(week1, "check", "01", "--plain").stdout
    assert "hint 1/" in run(week1, "hint", "context", "1", check=True).stdout
    assert "solutions/" not in run(week1, "hint", "1", "1", "--level", "3", check=True).stdout
    assert run(week1, "watch", "context", "--once", "--plain").returncode == 1  # graded, not passing
    exercise = week1 / "exercises" / "context.py"
    stub = exercise.read_text(encoding="utf-8")
    exercise.write_text((ROOT / "solutions" / "context.py").read_text(encoding="utf-8"), encoding="utf-8")
    assert run(week1, "check", "context", "--plain").returncode == 0  # the graders need no solutions/
    assert "Restored" in run(week1, "reset", "context", "--yes", check=True).stdout
    assert exercise.read_text(encoding="utf-8") == stub
    assert "maintainer command" in run(week1, "dev", "sync").stderr


def test_next_weeks_release_adds_a_lesson_without_touching_the_learners_files(tmp_path):
    out = tmp_path / "class"
    release(out, WEEK_1)
    mine = out / "exercises" / "context.py"
    mine.write_text(mine.read_text(encoding="utf-8") + "\n# my notes\n", encoding="utf-8")
    before = mine.read_bytes()
    release(out, WEEK_2)
    assert mine.read_bytes() == before
    assert (out / "exercises" / "budget.py").is_file() and (out / "tests" / "graders" / "grade_budget.py").is_file()
    graded = json.loads(run(out, "check", "--json").stdout)
    assert [r["lesson"] for r in graded["lessons"]] == WEEK_2 and graded["graders_changed"] == []


def test_a_release_refuses_a_folder_that_is_not_one(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    done = subprocess.run([sys.executable, "-B", str(ROOT / "methods.py"), "dev", "release", "--lesson", "context",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "is not a release" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_update_from_a_newer_release_keeps_the_learners_answers(tmp_path):
    mine_copy, week2 = tmp_path / "mine", tmp_path / "week2"
    release(mine_copy, WEEK_1)
    release(week2, WEEK_2)
    stub = week2 / ".lab" / "stubs" / "context.py"
    text = stub.read_text(encoding="utf-8")
    marker = 'raise NotImplementedError("recall_at_k'
    assert marker in text
    stub.write_text(text.replace(marker, "# a clearer stub for task 2\n    " + marker), encoding="utf-8")
    exercise = mine_copy / "exercises" / "context.py"
    solved = exercise.read_text(encoding="utf-8").replace(
        'raise NotImplementedError("packet_coverage', 'return "my answer"  # ("packet_coverage', 1)
    exercise.write_text(solved, encoding="utf-8")
    done = run(mine_copy, "update", "--from", str(week2), check=True)
    now = exercise.read_text(encoding="utf-8")
    assert 'return "my answer"' in now and "a clearer stub for task 2" in now, done.stdout
    assert (mine_copy / "exercises" / "budget.py").is_file()
    assert "kept your" in done.stdout
    again = run(mine_copy, "update", check=True)  # nothing changed since: nothing to do
    assert exercise.read_text(encoding="utf-8") == now and "Nothing to update" in again.stdout


def test_the_classroom_autograding_runs_each_task(week1):
    """GitHub Classroom's autograding.json: one test per task, its command exits 0 exactly when
    that task passes (a test with no expected output passes on exit 0)."""
    spec = json.loads((week1 / ".github" / "classroom" / "autograding.json").read_text(encoding="utf-8"))
    tests = spec["tests"]
    from labtools import manifest
    assert len(tests) == len(manifest.tasks("context")) and all(set(test) == {"name", "setup", "run", "input", "output", "comparison",
                                                 "timeout", "points"} for test in tests)
    assert tests[0]["run"] == "python3 -B methods.py check --target . context 1" and tests[0]["points"] == 1
    exercise = week1 / "exercises" / "context.py"
    stub = exercise.read_text(encoding="utf-8")

    def outcome(test) -> int:
        command = test["run"].replace("python3", sys.executable, 1)
        return subprocess.run(command, shell=True, cwd=week1, capture_output=True, timeout=60 * test["timeout"]).returncode

    assert outcome(tests[0]) == 1  # the stub fails
    exercise.write_text((ROOT / "solutions" / "context.py").read_text(encoding="utf-8"), encoding="utf-8")
    try:
        assert [outcome(test) for test in tests] == [0] * len(tests)
    finally:
        exercise.write_text(stub, encoding="utf-8")
