"""Issue 36's bar, as helpers: the lesson's own function, pasted in as a task's answer, must fail
at least one of that task's graders (else the task asks the learner to retype the reading).

`failures_of_pasted(lesson, task, source, folder, monkeypatch)` writes the reference solution
with `source` appended (a later def of the task's name replaces the reference's), points the
grader at it, runs that task's graders in this process and returns their failure messages.

`graded_with_module_functions(lesson, functions, helpers, folder)` writes the reference
solution with each named task's answer replaced by the source of the module's function (the
one of the same name, or the one the task obviously copies, renamed to the task's name), plus
an import line for the helpers it calls, grades that folder once, and returns
{task name: passed}.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from helpers import ROOT
from labtools.grading import harness


def failures_of_pasted(lesson: str, task: int, source: str, folder, monkeypatch) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    text = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    (folder / f"{lesson}.py").write_text(text + "\n\n" + source, encoding="utf-8")
    monkeypatch.setenv("LAB_TARGET", str(folder))
    grader = harness.grader_module(lesson)
    failures = []
    for test in harness.tests_of(grader):
        if harness.task_number(test.__name__) == task:
            try:
                test()
            except harness.LabFailure as failure:
                failures.append(f"{test.__name__}: {failure}")
    return failures


def graded_with_module_functions(lesson: str, functions: dict, helpers: str, folder: Path) -> dict[str, bool]:
    """functions: {task name: the module's function pasted as its answer}; helpers: the import
    line those functions need; folder: an empty scratch folder. Grades once, in one worker."""
    from labtools import grading
    text = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    for name, found in sorted(functions.items()):
        start = text.index(f"def {name}(")
        end = text.index("\n\n\n", start)
        source = inspect.getsource(found).rstrip().replace(f"def {found.__name__}(", f"def {name}(", 1)
        text = text[:start] + source + text[end:]
    (folder / f"{lesson}.py").write_text(helpers + "\n" + text, encoding="utf-8")
    result = grading.grade(lesson, folder)
    return {task["name"]: task["passed"] for task in result["tasks"]}


def assert_pasted_fails(lesson: str, task: int, source: str, tmp_path, monkeypatch) -> None:
    """The reference solution passes the task's graders (the control), and the same file with
    `source` pasted in fails at least one of them."""
    assert not failures_of_pasted(lesson, task, "", tmp_path / "reference", monkeypatch)
    assert failures_of_pasted(lesson, task, source, tmp_path / "pasted", monkeypatch), (
        f"{lesson} task {task}: the lesson's own function, pasted in, passes every grader")

