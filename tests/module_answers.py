"""Grade a lesson with the module's own functions pasted in as the answers (issue 36).

A task whose graders the function of the same name in modules/ passes asks the learner to
retype the reading. `graded_with_module_functions` writes the reference solution with each
named task's answer replaced by the source of the module's function (the one of the same
name, or the one the task obviously copies, renamed to the task's name), plus an import line
for the helpers it calls, grades that folder once, and returns {task name: passed}.
"""

from __future__ import annotations

import inspect
from pathlib import Path

from helpers import ROOT


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
