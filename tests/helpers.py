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
    for folder, subfolders, files in os.walk(ROOT):
        # .git and .venv are pruned, not walked and filtered: the venv alone holds ~37,000 files
        subfolders[:] = [name for name in subfolders if name not in (".git", ".venv")]
        for name in files:
            path = Path(folder, name)
            if path.is_file():
                stat = path.stat()
                rows.append(f"{path.relative_to(ROOT)} {stat.st_size} {stat.st_mtime_ns}")
    return "\n".join(sorted(rows))


def pasted_text(lesson: str, pasted=(), preamble: str = "", edits=(), in_place: bool = False) -> str:
    """solutions/LESSON.py with answers pasted in from the reading, as a learner who copies it
    would: each (function, task name) in `pasted` is written out from the function's source under
    the task's name, over the reference answer's own def where `in_place`, else at the end of
    the file after `preamble` (a later def of a name wins). `preamble` is source text (the imports
    the pasted functions need, or a whole answer); `edits`, pairs (old, new), adapt a call to the
    file's own helpers."""
    import inspect
    import textwrap
    text = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    tail = []
    for function, name in pasted:
        source = textwrap.dedent(inspect.getsource(function)).rstrip()
        source = source.replace(f"def {function.__name__}(", f"def {name}(", 1)
        if in_place:
            start = text.index(f"def {name}(")
            text = text[:start] + source + text[text.index("\n\n\n", start):]
        else:
            tail.append(source)
    text = (preamble + "\n" + text) if in_place and preamble else text
    if not in_place:
        text += "\n\n" + preamble + "\n" + "".join(f"\n\n{source}\n" for source in tail)
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def graded_text(lesson: str, text: str, seconds: float = 20.0) -> dict:
    """`text` graded as LESSON.py the way `check` grades it (in a worker, from a scratch folder):
    the lesson's record, with "tasks" ({"number", "name", "passed", ...}) and "tests"."""
    import tempfile
    sys.path.insert(0, str(ROOT)) if str(ROOT) not in sys.path else None
    from labtools import grading
    with tempfile.TemporaryDirectory(prefix=f"lab-{lesson}-") as folder:
        (Path(folder) / f"{lesson}.py").write_text(text, encoding="utf-8")
        return grading.grade(lesson, Path(folder), grading.Limits(seconds=seconds))


def passed_tests(lesson: str, text: str) -> dict[str, bool]:
    """{test name: passed} for `text` graded as LESSON.py."""
    return {test["test"]: test["passed"] for test in graded_text(lesson, text)["tests"]}


def passed_tasks(lesson: str, text: str) -> dict[str, bool]:
    """{task name: passed} for `text` graded as LESSON.py."""
    return {task["name"]: task["passed"] for task in graded_text(lesson, text)["tasks"]}


def figures_missing(lesson: str, figures) -> list[str]:
    """The figures (numbers, ids, table cells, as they print) that `methods.py LESSON --plain`
    does not print; whitespace is compared loosely, so a wrapped line or a padded cell still counts."""
    text = " ".join(methods(lesson, "--plain").stdout.decode().split())
    return [figure for figure in figures if " ".join(figure.split()) not in text]


def failed_tasks(lesson: str, solution_text: str) -> set[int]:
    """The task numbers a submission (the whole text of LESSON.py) fails under the lesson's graders."""
    return {task["number"] for task in graded_text(lesson, solution_text)["tasks"] if not task["passed"]}