"""Grading learners' files: one lesson, one learner's folder, or a whole class.

`check` (labtools/cli.py) and `grade` (labtools/gradebook.py) both grade through here:

- Each submission is first copied: only its lesson files (`NAME.py`), as regular files, into
  a private scratch folder. Its bytecode is never copied or read, and a link that points out
  of the folder is kept as a link, which the graders then refuse to follow.
- Warm workers (`tests/graders/run.py --serve`, one per core, started with `-I -S -B` and an
  empty bytecode cache prefix, so no `__pycache__` in the checkout or the submission is
  ever read) import each lesson's grader once and fork a child per lesson graded. The child
  runs the learner's code with its working directory in the scratch folder, limits on time
  per task, memory, CPU and file size, and its own process group, killed when it is done.
  Results come back signed with a key made for that child (see run.py): prints, forged
  lines and exit statuses never count.
- `sandbox=True` runs each submission's worker under bubblewrap (`bwrap`): no network, and
  the whole file system read-only except that submission's scratch folder.

What this defends against: prints, bytecode, endless loops, crashes, exits, child processes,
and writes into the submission or the checkout by a careless program. What it does not: a
determined attacker's code running in the grading process can find the key in memory, or
write anywhere the user running `grade` may write. For high stakes, grade with the sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from labtools import course

RUNNER = course.GRADERS / "run.py"
TASK_SECONDS = 3.0     # per task, for its tests together (and for importing the file)
MEMORY_MB = 2048       # address space of the process running the learner's code
OUTPUT_CHARS = 2000    # of the learner's prints kept per test


@dataclass(frozen=True)
class Limits:
    """What one graded lesson may use: seconds per task, megabytes of memory, characters of prints kept."""

    seconds: float = TASK_SECONDS
    memory_mb: int = MEMORY_MB
    output_chars: int = OUTPUT_CHARS

    def __post_init__(self):
        if isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float)) or not 0.1 <= self.seconds <= 600:
            raise ValueError(f"seconds must be a number from 0.1 to 600, got {self.seconds!r}")
        if isinstance(self.memory_mb, bool) or not isinstance(self.memory_mb, int) or not 64 <= self.memory_mb <= 1 << 20:
            raise ValueError(f"memory_mb must be a whole number from 64 to 1048576, got {self.memory_mb!r}")
        if isinstance(self.output_chars, bool) or not isinstance(self.output_chars, int) or self.output_chars < 0:
            raise ValueError(f"output_chars must be a whole number >= 0, got {self.output_chars!r}")


class HarnessError(RuntimeError):
    """The grading machinery itself cannot run (bwrap missing, a worker that cannot start)."""


# ------------------------------------------------------------------ the sandbox

def sandbox_problem() -> str | None:
    """Why `--sandbox` cannot be used here (None when it can)."""
    if sys.platform != "linux":
        return "--sandbox needs Linux (it runs each submission under bubblewrap)"
    if shutil.which("bwrap") is None:
        return ("--sandbox needs bubblewrap (the `bwrap` command), which is not installed; on Debian or "
                "Ubuntu: sudo apt-get install bubblewrap. Nothing was graded.")
    try:
        done = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--cap-drop", "ALL", "--", "true"],
                              capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"--sandbox: bwrap could not run: {error}. Nothing was graded."
    if done.returncode != 0:
        detail = done.stderr.decode(errors="replace").strip() or f"exit status {done.returncode}"
        return f"--sandbox: bwrap is installed but cannot make a sandbox here: {detail}. Nothing was graded."
    return None


def _bwrap(command: list[str], writable: Path, hidden: Path) -> list[str]:
    return ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", str(hidden),              # hides the other submissions' scratch folders
            "--bind", str(writable), str(writable),
            "--ro-bind", str(writable / "code"), str(writable / "code"),  # the private copy stays as copied
            "--remount-ro", str(hidden),
            "--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
            "--chdir", str(writable), "--", *command]


# ------------------------------------------------------------------ workers

class Worker:
    """One warm grading process: it imports graders once and forks a child per lesson graded."""

    def __init__(self, scratch: Path, sandbox: Path | None = None, fork: bool = True):
        self.scratch, self.sandbox, self.fork = scratch, sandbox, fork
        self.process: subprocess.Popen | None = None
        self.log = None

    def _start(self) -> None:
        no_bytecode = self.scratch / "no-bytecode"  # never created: with -B, no bytecode is read or written
        command = [sys.executable, "-I", "-S", "-B", "-X", f"pycache_prefix={no_bytecode}", str(RUNNER), "--serve"]
        if not self.fork:
            command.append("--no-fork")
        if self.sandbox is not None:
            command = _bwrap(command, self.sandbox, self.scratch)
        self.log = tempfile.TemporaryFile(dir=self.scratch)
        try:
            self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=self.log, cwd=self.sandbox or self.scratch)
        except OSError as error:
            raise HarnessError(f"the grading worker could not start: {error}") from None

    def _last_words(self) -> str:
        try:
            self.log.seek(0)
            lines = self.log.read().decode("utf-8", errors="replace").strip().splitlines()
        except (OSError, AttributeError):
            return ""
        return lines[-1] if lines else ""

    def grade(self, job: dict, timeout: float) -> dict:
        if self.process is None or self.process.poll() is not None:
            self._start()
        process = self.process
        timer = threading.Timer(timeout, process.terminate)
        timer.start()
        try:
            process.stdin.write(json.dumps(job).encode("utf-8") + b"\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except OSError:
            line = b""
        finally:
            timer.cancel()
        if line:
            return json.loads(line)
        self.close()
        detail = self._last_words()
        return _harness_failure(job, detail or "was it stopped by the graded code?")

    def close(self) -> None:
        if self.process is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                self.process.wait()
            self.process.stdout.close()
            self.process = None


def _harness_failure(job: dict, detail: str) -> dict:
    return {"lesson": job["lesson"], "target": job["shown"], "kind": "harness", "tasks": [], "tests": [],
            "error": f"the grading worker stopped while grading this lesson ({detail})"}


def _job_timeout(limits: Limits) -> float:
    # A lesson's worst case: every task runs out of time, each in a child of its own.
    return 20 * (limits.seconds + 3.0) + 60.0


# ------------------------------------------------------------------ private copies

@dataclass(frozen=True)
class Submission:
    """A folder to grade: `folder` holds the lesson files; `shown` names it in messages."""

    student: str
    folder: Path
    shown: str


def _copy(submission: Submission, lessons: list[str], scratch: Path) -> dict:
    """Copy the lesson files into scratch/code (regular files only), make scratch/work; return the job base."""
    code, work = scratch / "code", scratch / "work"
    code.mkdir(parents=True)
    work.mkdir()
    inside = submission.folder.resolve()
    for lesson in lessons:
        name = f"{lesson}.py"
        source = submission.folder / name
        if source.is_symlink():
            real = source.resolve()
            if inside not in real.parents:
                os.symlink(real, code / name)  # kept as a link out: the graders refuse it, and say so
                continue
            source = real
        if source.is_file():
            shutil.copyfile(source, code / name)
    return {"folder": str(code), "shown": submission.shown, "work": str(work), "scratch": str(scratch)}


def lessons_with_graders() -> list[str]:
    """Lessons that can be graded: the course's lessons whose grader exists (a Gradescope
    autograder ships the graders without the solutions)."""
    from labtools.registry import LESSONS
    return [name for name in LESSONS if (course.GRADERS / f"grade_{name}.py").is_file()]


# ------------------------------------------------------------------ grading many

def grade_submissions(submissions: list[Submission], lessons: list[str], limits: Limits = Limits(),
                      workers: int | None = None, sandbox: bool = False, fork: bool = True,
                      progress=None) -> dict[str, list[dict]]:
    """Grade every lesson of every submission; {student: [result per lesson, in `lessons` order]}.

    `workers` processes (default: one per core) grade side by side. `progress(done, total)` is
    called as each submission is finished. With `sandbox`, every submission's worker runs under
    bwrap (see sandbox_problem()).
    """
    if sandbox:
        problem = sandbox_problem()
        if problem:
            raise HarnessError(problem)
    workers = max(1, workers or os.cpu_count() or 1)
    results: dict[str, list] = {s.student: [None] * len(lessons) for s in submissions}
    remaining = {s.student: len(lessons) for s in submissions}
    finished = [0]
    lock = threading.Lock()
    timeout = _job_timeout(limits)
    limit_fields = {"seconds": limits.seconds, "memory_mb": limits.memory_mb, "output_chars": limits.output_chars}
    root = Path(tempfile.mkdtemp(prefix="lab-grade-"))
    try:
        bases = {}
        for index, submission in enumerate(submissions):
            bases[submission.student] = _copy(submission, lessons, root / "submissions" / str(index))
        if sandbox:  # one sandboxed worker per submission, all its lessons in it
            units = [[(s, i, lesson) for i, lesson in enumerate(lessons)] for s in submissions]
        else:        # any warm worker takes the next lesson of any submission
            units = [[(s, i, lesson)] for s in submissions for i, lesson in enumerate(lessons)]
        queue = list(reversed(units))

        def run_worker() -> None:
            worker = None if sandbox else Worker(root, fork=fork)
            try:
                while True:
                    with lock:
                        if not queue:
                            return
                        unit = queue.pop()
                    if sandbox:
                        worker = Worker(root, sandbox=Path(bases[unit[0][0].student]["scratch"]), fork=fork)
                    for submission, index, lesson in unit:
                        job = dict(bases[submission.student], lesson=lesson, **limit_fields)
                        try:
                            outcome = worker.grade(job, timeout)
                        except Exception as error:  # the machinery failed: an error, never a pass
                            outcome = _harness_failure(job, f"{type(error).__name__}: {error}")
                        with lock:
                            results[submission.student][index] = outcome
                            remaining[submission.student] -= 1
                            if remaining[submission.student] == 0:
                                finished[0] += 1
                                if progress is not None:
                                    progress(finished[0], len(submissions))
                    if sandbox:
                        worker.close()
            finally:
                if worker is not None:
                    worker.close()

        threads = [threading.Thread(target=run_worker, daemon=True) for _ in range(min(workers, len(units)) or 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        _remove(root)
    return results


def _remove(root: Path) -> None:
    def unlock(function, path, _info):  # a learner's read-only file or folder
        try:
            os.chmod(os.path.dirname(path), 0o700)
            os.chmod(path, 0o700)
            function(path)
        except OSError:
            pass
    shutil.rmtree(root, onerror=unlock)


def grade_many(lessons: list[str], target: Path | None = None, workers: int | None = None,
               limits: Limits = Limits(), sandbox: bool = False) -> list[dict]:
    """Grade several lessons of one folder (exercises/ by default); results in the order given."""
    folder = course.EXERCISES if target is None else Path(target)
    submission = Submission("learner", folder, course.shown(folder).rstrip("/"))
    workers = workers or min(len(lessons), os.cpu_count() or 1)
    return grade_submissions([submission], lessons, limits, workers=workers, sandbox=sandbox)["learner"]


def grade(lesson: str, target: Path | None = None, limits: Limits = Limits()) -> dict:
    """Grade one lesson of one folder (exercises/ by default)."""
    return grade_many([lesson], target, workers=1, limits=limits)[0]


# ------------------------------------------------------------------ records

def _catalogue() -> dict:
    from labtools.registry import LESSONS
    return LESSONS


def summarize(result: dict, folder: Path) -> dict:
    """One lesson's grading result as a gradebook record: status (passed, failing, missing,
    error), counts, and per task whether it passed and the first failing test's message."""
    lesson = result["lesson"]
    path = Path(folder) / f"{lesson}.py"
    record = {"lesson": lesson, "number": _catalogue()[lesson][0], "file": course.shown(path)}
    if not path.is_file() and not path.is_symlink():
        record["status"] = "missing"
        record["error"] = f"{course.shown(path)} is missing"
    elif "error" in result:
        record["status"] = "error"
        record["error"] = result["error"]
        record["kind"] = result.get("kind", "error")
    tests = result.get("tests", [])
    tasks = []
    for task in result.get("tasks", []):
        failing = [t for t in tests if t["task"] == task["number"] and not t["passed"]]
        message = failing[0]["message"] if failing else ""
        if "error" in record:
            message = record["error"]
        tasks.append({"number": task["number"], "name": task["name"], "title": task["title"],
                      "passed": task["passed"] and "error" not in record, "message": message,
                      "test": failing[0]["test"] if failing else ""})
    record["done"] = sum(t["passed"] for t in tasks)
    record["total"] = len(tasks)
    if "status" not in record and not tasks:
        record["status"] = "error"
        record["kind"] = "grader"
        record["error"] = f"the grader for '{lesson}' declares no tasks"
    elif "status" not in record:
        record["status"] = "passed" if record["done"] == record["total"] else "failing"
    for key in ("output", "process_output", "forged_lines"):
        if result.get(key):
            record[key] = result[key]
    record["tasks"] = tasks
    record["tests"] = tests
    return record


PRINT_LINES = 40  # of the learner's prints shown by `check --verbose`


def learner_prints(records: list[dict], max_lines: int = PRINT_LINES) -> list[str]:
    """What the learner's own code printed while graded, lesson by lesson and test by test,
    at most `max_lines` lines in all (each test's prints were already cut to a bounded size)."""
    pieces = []
    for record in records:
        if record.get("output"):
            pieces.append((f"{record['lesson']}, while importing {record['file']}", record["output"]))
        for test in record.get("tests", []):
            if test.get("output"):
                pieces.append((f"{record['lesson']}, {test['test']}", test["output"]))
        if record.get("process_output"):
            pieces.append((f"{record['lesson']}, written straight to the terminal", record["process_output"]))
    if not pieces:
        return ["", "Your code printed nothing while it was graded."]
    lines = ["", "What your code printed while it was graded:"]
    shown = 0
    for where, text in pieces:
        body = text.rstrip("\n").splitlines() or [""]
        room = max_lines - shown - 1
        if room < 1:
            lines.append(f"  ... (more not shown: at most {max_lines} lines)")
            break
        lines.append(f"  {where}:")
        lines += [f"    {line}" for line in body[:room]]
        shown += 1 + min(len(body), room)
        if len(body) > room:
            lines.append(f"    ... ({len(body) - room} more lines not shown: at most {max_lines} lines in all)")
            break
    return lines


def _seconds(text: str) -> float:
    import argparse
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0.1 <= value <= 600:
        raise argparse.ArgumentTypeError(f"expected between 0.1 and 600 seconds, got {text!r}")
    return value


def _megabytes(text: str) -> int:
    import argparse
    if not text.isascii() or not text.isdigit() or not 64 <= int(text) <= 1 << 20:
        raise argparse.ArgumentTypeError(f"expected a whole number of megabytes from 64 to 1048576, got {text!r}")
    return int(text)


def add_limit_options(parser) -> None:
    """--seconds and --memory, shared by `check` and `grade`."""
    parser.add_argument("--seconds", type=_seconds, default=TASK_SECONDS, metavar="S",
                        help=f"time limit per task, for its tests together (default {TASK_SECONDS:g})")
    parser.add_argument("--memory", type=_megabytes, default=MEMORY_MB, metavar="MB",
                        help=f"memory limit of the process running the graded code (default {MEMORY_MB})")


def limits_from(parser, args) -> Limits:
    return Limits(seconds=args.seconds, memory_mb=args.memory)
