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


def assert_pasted_fails(lesson: str, task: int, source: str, tmp_path, monkeypatch) -> None:
    """The reference solution passes the task's graders (the control), and the same file with
    `source` pasted in fails at least one of them."""
    assert not failures_of_pasted(lesson, task, "", tmp_path / "reference", monkeypatch)
    assert failures_of_pasted(lesson, task, source, tmp_path / "pasted", monkeypatch), (
        f"{lesson} task {task}: the lesson's own function, pasted in, passes every grader")


def missing_from_default_trace(lesson: str, figures: list) -> list:
    """The figures (as they print; whitespace normalised, so a table row or a wrapped sentence
    reads as one line) that `methods.py LESSON --plain`, with no option, does not show."""
    from helpers import methods
    shown = " ".join(methods(lesson, "--plain").stdout.decode().split())
    return [figure for figure in figures if figure not in shown]
