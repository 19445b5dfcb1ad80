"""`update`: a learner's copy brought to a new course version keeps every answer the course did
not change, receives the changed and new tasks, and backs up and names what it cannot merge."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT
from labtools import update

BASE = '''"""Exercises."""

from modules.x import a


def one(x):
    """Task 1."""
    raise NotImplementedError("one")


def two(x):
    """Task 2."""
    raise NotImplementedError("two")


QUIZ = None  # TODO: your answer
'''


def test_a_task_the_course_did_not_change_keeps_the_learners_code():
    mine = BASE.replace('raise NotImplementedError("one")', "return x + 1").replace(
        'raise NotImplementedError("two")', "return helper(x)") + "\n\ndef helper(x):\n    return 2 * x\n"
    new = BASE.replace('"""Task 2."""', '"""Task 2, now with a case."""').replace(
        "from modules.x import a", "from modules.x import a\nfrom modules.y import b") + \
        '\n\ndef three(x):\n    raise NotImplementedError("three")\n'
    merged = update.merge(BASE, mine, new)
    assert "return x + 1" in merged.text and "def helper(x):" in merged.text  # task 1 and the helper kept
    assert "return helper(x)" not in merged.text and "now with a case" in merged.text
    assert merged.conflicts == ["two"] and "three" in merged.arrived and "one" in merged.kept
    assert "from modules.y import b" in merged.text
    compile(merged.text, "merged", "exec")


def test_an_untouched_unit_takes_the_course_change_and_nothing_is_a_conflict():
    mine = BASE.replace('raise NotImplementedError("one")', "return x + 1")
    new = BASE.replace('raise NotImplementedError("two")', 'raise NotImplementedError("two, v2")')
    merged = update.merge(BASE, mine, new)
    assert merged.conflicts == [] and "return x + 1" in merged.text and "two, v2" in merged.text


def test_a_file_that_does_not_parse_is_replaced_whole_and_named():
    merged = update.merge(BASE, BASE + "\ndef broken(:\n", BASE.replace("Task 1.", "Task 1!"))
    assert merged.whole_file and merged.conflicts == ["the whole file"]


# The real change this replays: dedupe's task 1 became id_conflicts (410f46a); tasks 2 to 7 did
# not change. A learner on the commit before, with every task solved, updates.
OLD, NEW = "410f46a^", "410f46a"


def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True,
                          timeout=120).stdout


def test_a_learner_on_an_older_commit_keeps_every_task_still_graded_the_same_way(tmp_path):
    if subprocess.run(["git", "cat-file", "-e", f"{NEW}^{{commit}}"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("this clone's history does not hold the replayed commit (a shallow clone)")
    clone = tmp_path / "learner"
    git(tmp_path, "clone", "--quiet", "--no-checkout", str(ROOT), str(clone))
    git(clone, "-c", "advice.detachedHead=false", "checkout", "--quiet", OLD)
    solved = (clone / "solutions" / "dedupe.py").read_text(encoding="utf-8")
    (clone / "exercises" / "dedupe.py").write_text(solved, encoding="utf-8")  # every task solved
    lines = update.update_git(clone, NEW)
    assert git(clone, "rev-parse", "HEAD").strip() == git(ROOT, "rev-parse", NEW).strip()
    now = (clone / "exercises" / "dedupe.py").read_text(encoding="utf-8")
    for name in ("dedupe_text", "same_passage", "dedupe_canonical", "lines_overlap", "select_non_overlapping",
                 "CANONICAL_QUIZ"):  # the learner's code of every unchanged task, byte for byte
        start = solved.index(f"def {name}(" if name.islower() else f"{name} =")
        assert solved[start:solved.index("\n\n\n", start)] in now, name
    assert "def id_conflicts(" in now and "def dedupe_ids(" in now  # the new task arrives; the old is kept
    assert list((clone / ".backups").iterdir()), "the learner's file is backed up before it is rewritten"
    graded = subprocess.run([sys.executable, "-B", "methods.py", "check", "dedupe", "--json"], cwd=clone,
                            capture_output=True, text=True, timeout=120)
    tasks = {t["number"]: t["passed"] for t in json.loads(graded.stdout)["lessons"][0]["tasks"]}
    assert tasks == {1: False, 2: True, 3: True, 4: True, 5: True, 6: True, 7: True}, lines
