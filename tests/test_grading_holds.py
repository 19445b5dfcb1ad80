"""Grading that holds (issue 38), the quick half: one small case per attack, cheap enough for
every run of the suite. The slow, whole-class versions run beside the older attacks in
`python3 -B methods.py dev probe --grading` (devtools/attacks.py)."""

from __future__ import annotations

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
