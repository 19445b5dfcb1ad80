"""Shared test helpers: run methods.py the way a person would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"


def methods(*args: str, python: str = sys.executable, flags=("-B",), env: dict | None = None,
            cwd: Path = ROOT, check: bool = True) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    environment.pop("NO_COLOR", None)
    environment.update(env or {})
    done = subprocess.run([python, *flags, str(ROOT / "methods.py"), *args], capture_output=True,
                          cwd=cwd, env=environment, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"methods.py {' '.join(args)} exited {done.returncode}:\n"
                             f"{done.stderr.decode(errors='replace')}")
    return done


def built_lessons() -> list[str]:
    sys.path.insert(0, str(ROOT)) if str(ROOT) not in sys.path else None
    from labtools.registry import built_lessons as built
    return built()


def tree_state() -> str:
    """Every file under the project (ignored ones too), with size and mtime: what a run may not change."""
    rows = []
    for path in sorted(ROOT.rglob("*")):
        if ".git" in path.parts or ".venv" in path.parts or not path.is_file():
            continue
        stat = path.stat()
        rows.append(f"{path.relative_to(ROOT)} {stat.st_size} {stat.st_mtime_ns}")
    return "\n".join(rows)


def graded_with_pasted(lesson: str, folder: Path, pasted: list, preamble: str = "", edits: tuple = ()) -> dict:
    """Grade solutions/LESSON.py with functions from modules/ pasted over some answers, as a learner
    who copies the reading would: each (function, task name) is written out from its source under
    the task's name at the end of the file, after `preamble` (the imports it needs); `edits`, pairs
    (old, new), adapt a call to the file's own helpers. Returns {test name: passed} of every test.
    Issue 36: the module's own function must fail at least one test of its task."""
    import inspect
    import textwrap
    sys.path.insert(0, str(ROOT)) if str(ROOT) not in sys.path else None
    from labtools import cli, grading
    text = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8") + "\n\n" + preamble + "\n"
    for function, name in pasted:
        source = textwrap.dedent(inspect.getsource(function))
        text += "\n\n" + source.replace(f"def {function.__name__}(", f"def {name}(", 1)
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{lesson}.py").write_text(text, encoding="utf-8")
    record = cli.grade([lesson], folder, grading.Limits(seconds=20.0))[0]
    return {test["test"]: test["passed"] for test in record["tests"]}


def figures_missing(lesson: str, figures) -> list[str]:
    """The figures (numbers, ids, table cells, as they print) that `methods.py LESSON --plain`
    does not print; whitespace is compared loosely, so a wrapped line or a padded cell still counts."""
    text = " ".join(methods(lesson, "--plain").stdout.decode().split())
    return [figure for figure in figures if " ".join(figure.split()) not in text]


def failed_tasks(lesson: str, solution_text: str) -> set[int]:
    """The task numbers a submission (the whole text of LESSON.py) fails under the lesson's graders."""
    sys.path.insert(0, str(ROOT)) if str(ROOT) not in sys.path else None
    from devtools import dev
    return {task["number"] for task in dev._grade_text(lesson, solution_text)["tasks"] if not task["passed"]}
