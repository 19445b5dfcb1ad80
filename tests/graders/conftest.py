"""The graders under pytest: `python3 -m pytest tests/graders` runs every grade_*.py against
LAB_TARGET (exercises/ by default, or `solutions`, or a folder path).

- Collected only when this folder (or a grader file) is named on the command line, so the
  project's own suite (`pytest` alone) never grades whatever is in exercises/.
- Each task's tests together get LAB_TASK_SECONDS seconds (default 3); a task that runs out
  fails with the last call it made, and the other tasks still run. The whole run gets a memory
  limit (LAB_MEMORY_MB, default 2048) and a CPU-time limit (that time per test, plus a minute).
- The graders and the learner's file are compiled from source: no bytecode is read or written.

`methods.py check` and `methods.py grade` are the routes to trust for a grade: they also run
the learner's code in a separate process with its own working directory (see tests/graders/run.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE.parents[1], HERE):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

_state = {"asked": None, "spent": {}}


def _number(name: str, default: float) -> float:
    try:
        return float(os.environ.get(name, "") or default)
    except ValueError:
        raise pytest.UsageError(f"{name} must be a number, got {os.environ[name]!r}") from None


def _asked(session) -> bool:
    if _state["asked"] is None:
        _state["asked"] = bool(session.isinitpath(HERE))
        if _state["asked"]:
            import tempfile
            sys.dont_write_bytecode = True
            sys.pycache_prefix = tempfile.mkdtemp(prefix="lab-no-bytecode-")  # empty: nothing planted is read
    return _state["asked"]


def pytest_collect_file(file_path, parent):
    # A grader named on the command line is collected by pytest itself; the folder needs this.
    if (file_path.parent == HERE and file_path.name.startswith("grade_") and file_path.suffix == ".py"
            and not parent.session.isinitpath(file_path) and _asked(parent.session)):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def _grader_item(item) -> bool:
    return Path(str(item.fspath)).parent == HERE and item.name.startswith("test_task")


def pytest_collection_modifyitems(session, config, items):
    graded = [item for item in items if _grader_item(item)]
    if not graded:
        return
    seconds = _number("LAB_TASK_SECONDS", 3.0)
    memory = int(_number("LAB_MEMORY_MB", 2048))
    try:
        import resource
    except ImportError:
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    cpu = int(used.ru_utime + used.ru_stime + len(graded) * seconds + 60)
    for which, value in ((resource.RLIMIT_AS, memory << 20), (resource.RLIMIT_CPU, cpu)):
        try:
            soft, hard = resource.getrlimit(which)
            if soft == resource.RLIM_INFINITY or soft > value:
                resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))
        except (ValueError, OSError):
            pass


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    if not _grader_item(pyfuncitem):
        return None
    import _lab
    seconds = _number("LAB_TASK_SECONDS", 3.0)
    number = _lab.task_number(pyfuncitem.name)
    key = (str(pyfuncitem.fspath), number)
    spent = _state["spent"].get(key, 0.0)
    if spent >= seconds:
        pytest.fail(f"not run: task {number} already ran out of its {seconds:g} s", pytrace=False)
    import time
    started = time.perf_counter()
    _lab._current.update(test=pyfuncitem.name, call="")
    try:
        with _lab.time_limit(seconds - spent):
            pyfuncitem.obj()
    except _lab.Overtime:
        last = _lab._current["call"]
        pytest.fail(f"task {number} did not finish within its time limit of {seconds:g} s"
                    + (f"\n  last call: {last}" if last else "") + "\n  Is there a loop that never ends?",
                    pytrace=False)
    finally:
        _state["spent"][key] = spent + time.perf_counter() - started
    return True
