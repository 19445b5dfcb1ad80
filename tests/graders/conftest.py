"""The graders under pytest: `python3 -m pytest tests/graders` runs every grade_*.py against
LAB_TARGET (exercises/ by default, or `solutions`, or a folder path).

- Collected only when this folder (or a grader file) is named on the command line, so the
  project's own suite (`pytest` alone) never grades whatever is in exercises/.
- Each task's tests together get LAB_TASK_SECONDS seconds (default 3); a task that runs out
  fails with the last call it made, and the other tasks still run. The whole run gets a memory
  limit (LAB_MEMORY_MB, default 2048) and a CPU-time limit (that time per test, plus a minute).
- The graders and the learner's file are compiled from source: no bytecode is read or written.

- The tests run in a child pytest that this one supervises (its output is the child's): a
  child that ends before its session finished (os._exit or sys.exit at import or in a test, a
  crash) is a failure, never a pass, and a task that runs past its limit is stopped from
  here, by a clock the learner's code cannot mask (SIGALRM blocked or ignored changes nothing).

`methods.py check` and `methods.py grade` are the routes to trust for a grade: they also run
the learner's code in a separate process with its own working directory (see labtools/grading/worker.py).
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



def _find_lesson_files() -> None:
    """LAB_TARGET=DIR finds DIR's lesson files as grade and check --target do (labtools/files.py,
    lesson_folder): DIR itself, or the nested exercises/ of a whole checkout handed in."""
    value = os.environ.get("LAB_TARGET", "")
    if value in ("", "exercises", "solutions") or not Path(value).expanduser().is_dir():
        return
    from labtools import course, files
    folder = Path(value).expanduser().resolve()
    found, _why = files.lesson_folder(folder, course.lessons())
    if found is not None and found != folder:
        os.environ["LAB_TARGET"] = str(found)


_find_lesson_files()
_state = {"asked": None, "spent": {}}
SLACK = 2.0  # seconds the supervisor adds to a task's limit before it stops the child
CHILD = "LAB_PYTEST_CHILD"      # set in the supervised child: the fd its progress goes to


# ------------------------------------------------------------------ the supervisor

def _asks_for_graders(config) -> bool:
    for arg in config.args:
        path = Path(str(arg).split("::", 1)[0])
        path = path if path.is_absolute() else Path(config.invocation_params.dir) / path
        try:
            path = path.resolve()
        except OSError:
            continue
        if path == HERE or HERE in path.parents:
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    if os.environ.get(CHILD) or not hasattr(os, "fork") or not _asks_for_graders(config):
        return None
    if config.option.collectonly:
        return None
    return _supervise(config)


def _task_key(nodeid: str):
    name = nodeid.rsplit("::", 1)[-1].split("[", 1)[0]
    digits = name[len("test_task"):].split("_", 1)[0]
    if name.startswith("test_task") and digits.isdigit():
        return (nodeid.split("::", 1)[0], int(digits))
    return None


def _supervise(config) -> int:
    """Run the same pytest command in a child and watch it: its progress comes on a pipe."""
    import select
    import signal
    import subprocess
    import time
    seconds = _number("LAB_TASK_SECONDS", 3.0)
    read_fd, write_fd = os.pipe()
    command = [sys.executable, "-m", "pytest", *config.invocation_params.args]
    child = subprocess.Popen(command, cwd=str(config.invocation_params.dir), pass_fds=(write_fd,),
                             env=dict(os.environ, **{CHILD: str(write_fd)}), start_new_session=True)
    os.close(write_fd)
    spent: dict = {}
    running = None   # (nodeid, task key, started)
    finished, collected, reported = None, None, 0
    stopped = ""
    buffer = b""
    open_ = True
    try:
        while True:
            now = time.monotonic()
            timeout = 0.2
            if running is not None and running[1] is not None:
                left = seconds + SLACK - spent.get(running[1], 0.0) - (now - running[2])
                if left <= 0:
                    stopped = (f"{running[0]}: task {running[1][1]} did not finish within its time limit of "
                               f"{seconds:g} s and was stopped from outside the test process (is there a loop "
                               f"that never ends, or code that blocks the time limit's signal?)")
                    break
                timeout = min(timeout, left)
            if open_:
                ready, _, _ = select.select([read_fd], [], [], timeout)
                if ready:
                    data = os.read(read_fd, 1 << 16)
                    if not data:
                        open_ = False
                    buffer += data
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        kind, _, rest = line.decode("utf-8", "replace").partition(" ")
                        if kind == "start":
                            running = (rest, _task_key(rest), time.monotonic())
                        elif kind == "end" and running is not None:
                            if running[1] is not None:
                                spent[running[1]] = spent.get(running[1], 0.0) + time.monotonic() - running[2]
                            running = None
                            reported += 1
                        elif kind == "collected" and rest.isdigit():
                            collected = int(rest)
                        elif kind == "finish" and rest.lstrip("-").isdigit():
                            finished = int(rest)
            else:
                time.sleep(timeout)
            if child.poll() is not None and not open_:
                break
    finally:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        child.wait()
        os.close(read_fd)
    code = child.returncode
    if stopped:
        sys.stdout.write(f"\nFAILED (the grading was stopped) {stopped}\n")
        return 1
    if finished is None:
        sys.stdout.write(f"\nFAILED: the test process ended before its session finished (exit status {code}), "
                         f"after {reported} of {collected if collected is not None else 'the'} tests: did the "
                         f"graded code call os._exit() or sys.exit(), or crash the interpreter? Nothing here "
                         f"passed.\n")
        return 1
    if finished == 0 and collected is not None and reported < collected:
        sys.stdout.write(f"\nFAILED: only {reported} of {collected} tests reported a result.\n")
        return 1
    return finished if finished != 0 or code == 0 else 1


def _progress(text: str) -> None:
    fd = os.environ.get(CHILD, "")
    if fd.isdigit():
        try:
            os.write(int(fd), (text + "\n").encode("utf-8", "replace"))
        except OSError:
            pass


def pytest_collection_finish(session):
    if os.environ.get(CHILD):
        _progress(f"collected {len(session.items)}")


def pytest_runtest_logstart(nodeid, location):
    if os.environ.get(CHILD):
        _progress(f"start {nodeid}")


def pytest_runtest_logfinish(nodeid, location):
    if os.environ.get(CHILD):
        _progress(f"end {nodeid}")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    if os.environ.get(CHILD):
        _progress(f"finish {int(exitstatus)}")


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
    from labtools.grading import harness as _lab
    seconds = _number("LAB_TASK_SECONDS", 3.0)
    number = _lab.task_number(pyfuncitem.name)
    key = (str(pyfuncitem.fspath), number)
    spent = _state["spent"].get(key, 0.0)
    if spent >= seconds:
        pytest.fail(f"not run: task {number} already ran out of its {seconds:g} s", pytrace=False)
    import time
    started = time.perf_counter()
    _lab._current.update(test=pyfuncitem.name, call="", result=_lab._NOTHING)
    failure = None
    try:
        with _lab.time_limit(seconds - spent):
            pyfuncitem.obj()
    except _lab.READING_ERRORS as error:  # the grader could not read what the learner returned
        failure = _lab.wrong_type_failure(error)
        if failure is None:
            raise
    except _lab.Overtime:
        last = _lab._current["call"]
        pytest.fail(f"task {number} did not finish within its time limit of {seconds:g} s"
                    + (f"\n  last call: {last}" if last else "") + "\n  Is there a loop that never ends?",
                    pytrace=False)
    finally:
        _state["spent"][key] = spent + time.perf_counter() - started
    if failure is not None:  # outside the except clause: no "during handling" traceback above it
        pytest.fail(str(failure), pytrace=False)
    return True
