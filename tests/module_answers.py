"""Issue 36's bar, as a helper: the lesson's own function, pasted in as a task's answer, must fail
at least one of that task's graders (else the task asks the learner to retype the reading).

`failures_of_pasted(lesson, task, source, folder, monkeypatch)` writes the reference solution
with `source` appended (a later def of the task's name replaces the reference's), points the
grader at it, runs that task's graders in this process and returns their failure messages.
"""

from __future__ import annotations

import _lab
from helpers import ROOT


def failures_of_pasted(lesson: str, task: int, source: str, folder, monkeypatch) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    (folder / f"{lesson}.py").write_text(text + "\n\n" + source, encoding="utf-8")
    monkeypatch.setenv("LAB_TARGET", str(folder))
    grader = _lab.grader_module(lesson)
    failures = []
    for test in _lab.tests_of(grader):
        if _lab.task_number(test.__name__) == task:
            try:
                test()
            except _lab.LabFailure as failure:
                failures.append(f"{test.__name__}: {failure}")
    return failures
