"""Grading learners' files: one lesson, one learner's folder, or a whole class.

`check` (labtools/cli.py) and `grade` (gradebook.py) both grade through here.

Both modes:

- Before any learner code runs, every submission's lesson files are read into memory
  (sources.py: a link out of its folder, a FIFO, a device, a folder, a file of more than
  MAX_SOURCE_BYTES, or one that cannot be read is refused by name, as that student's error,
  and is never opened for reading). Nothing is copied; the graders run the text held in
  memory, so a write into any folder afterwards changes no one's grade.
- The harness (the lab modules, the graders, this package and the hints) is read into memory
  too, and each worker gets it from there, never from the checkout.
- Warm workers (worker.py --serve, one per core, `-I -S -B`, no bytecode read) import the
  grader of every lesson the run grades before any job, and say so before any job is given
  to any of them. Each is the subreaper of what the graded code starts: every descendant,
  setsid() or not, is killed before the worker answers (reaper.py); this process is a
  subreaper too, for the descendants of a worker that had to be killed. A stopped worker
  (SIGSTOP) is killed at once.

Without the sandbox the learner's code runs in a child forked from a worker (limits on time
per task, memory, CPU and file size; results signed with a key made for that child). Where
Linux allows it, that child is in namespaces of its own (isolate.py: no other process, no
network, every file system read-only but its work folder, the checkout and the class folder
hidden; as root also a user of its own, LEARNER_UID + i); where it does not, it runs as the
same user as `grade` and can write wherever that user may. Either way, code written to attack
the grading process can forge its own grade (find the key in memory, write to the result
pipe); it cannot change another submission's grade, the gradebook, or outlive the run.

With `sandbox=True` the process that decides pass or fail never runs the learner's code: it
runs in a bubblewrap sandbox (sandbox.py; no network, no view of the checkout, solutions/,
the graders or any key: only the lab modules, its runner and a scratch folder), and values
cross as plain data (wire.py), compared on the trusted side. See the README's threat model.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from labtools import course
from labtools.grading import integrity, reaper, sources
from labtools.grading.limits import Limits
from labtools.grading.sandbox import sandbox_command, sandbox_problem

READY_SECONDS = 120.0  # for a worker to read the harness and import its graders
# Where grade runs as root, worker i's learner code runs as user LEARNER_UID + i (worker.py):
# ids no account uses, one per worker, so no two students' code ever shares a user.
LEARNER_UID = 2_000_000_000
# The worker, and the files of the package the sandboxed learner process runs (as the
# snapshot names them): the sandbox sees these and the lab modules, nothing else.
WORKER = "labtools/grading/worker.py"
SANDBOXED = ("labtools/__init__.py", "labtools/grading/__init__.py", "labtools/grading/wire.py",
             "labtools/grading/sandboxed.py")


class HarnessError(RuntimeError):
    """The grading machinery itself cannot run (bwrap missing, a worker that cannot start)."""


# ------------------------------------------------------------------ the harness, read once

def harness_snapshot() -> dict[str, bytes]:
    """Every file a grade reads, by path in the project: modules/** (whatever its folders),
    the graders, this package and the hints (exercises/hints/*.md): integrity.grade_inputs()."""
    return {name: path.read_bytes() for name, path in integrity.grade_inputs().items()}


class _Lab:
    """The private copy the workers run from: the runner files, checked against memory before
    each worker starts; for the sandbox, the lab modules compiled, as the sandbox sees them."""

    def __init__(self, root: Path, snapshot: dict[str, bytes], sandbox: bool, lessons: list[str]):
        self.root, self.snapshot, self.lessons = root / "lab", snapshot, sorted(set(lessons))
        self.runner = self.root / WORKER
        self.sandbox = sandbox
        # The reference answers, for the workers' "copied" marks only (never written anywhere).
        self.solutions = {f"solutions/{path.name}": path.read_text(encoding="utf-8", errors="replace")
                          for path in sorted(course.SOLUTIONS.glob("*.py"))} if course.SOLUTIONS.is_dir() else {}
        self.write()
        if sandbox:
            self._sandbox_view()

    def write(self) -> None:
        # All of it, though the workers import the lab modules and read the hints from memory:
        # a lab module that reads a data file beside it finds the one read at the start.
        for name, data in self.snapshot.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.is_file() or path.is_symlink() or path.read_bytes() != data:
                if path.is_dir() and not path.is_symlink():
                    shutil.rmtree(path, ignore_errors=True)
                elif path.is_symlink() or path.exists():
                    path.unlink()
                path.write_bytes(data)

    def _sandbox_view(self) -> None:
        import py_compile
        view = self.root / "sandbox"
        for name, data in self.snapshot.items():
            if name.startswith("modules/"):
                target = view / name
            elif name in SANDBOXED:
                target = view / name
            else:
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if target.suffix == ".py" and name != SANDBOXED[-1]:
                inside = "/lab/" + target.relative_to(view).as_posix()
                cache = target.parent / "__pycache__" / f"{target.stem}.{sys.implementation.cache_tag}.pyc"
                try:
                    py_compile.compile(str(target), cfile=str(cache), dfile=inside, doraise=True)
                except py_compile.PyCompileError:
                    pass  # it compiles from source in the sandbox (and fails there, as the learner's problem)


# ------------------------------------------------------------------ workers

_children_lock = threading.Lock()
_live_workers: set[int] = set()


def _kill_orphans() -> None:
    """Kill every child of this process that is not a live worker: what a killed worker's
    learner code left behind (reparented here, the subreaper)."""
    reaper.kill_orphans(keep=_live_workers)


class Worker:
    """One warm grading process: it imports graders once and forks a child per lesson graded."""

    def __init__(self, scratch: Path, lab: _Lab, fork: bool = True, uid: int | None = None):
        self.scratch, self.lab, self.fork, self.uid = scratch, lab, fork, uid
        self.process: subprocess.Popen | None = None
        self.log = None
        self.buffer = b""
        self.isolation: list[str] | None = None  # what isolate.enter() could not do; None: no namespaces

    def start(self) -> None:
        no_bytecode = self.scratch / "no-bytecode"  # never created: with -B, no bytecode is read or written
        command = [sys.executable, "-I", "-S", "-B", "-X", f"pycache_prefix={no_bytecode}", str(self.lab.runner),
                   "--serve"]
        if not self.fork:
            command.append("--no-fork")
        self.log = tempfile.TemporaryFile(dir=self.scratch)
        with _children_lock:
            _kill_orphans()   # whatever an earlier worker's graded code left, before the copy is checked
            self.lab.write()  # the runner files as read at the start, whatever was written there since
            try:
                self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                stderr=self.log, cwd=self.scratch)
            except OSError as error:
                raise HarnessError(f"the grading worker could not start: {error}") from None
            _live_workers.add(self.process.pid)
        self.buffer = b""
        snapshot = {name: data.decode("utf-8", "surrogateescape") for name, data in self.lab.snapshot.items()}
        # The graders of this run's lessons only: a worker imports each before any job (with no
        # bytecode read, every import compiles, and a check of one lesson need not pay for all).
        given = {"files": snapshot, "solutions": self.lab.solutions, "lessons": self.lab.lessons}
        try:
            self.process.stdin.write(json.dumps(given, ensure_ascii=True).encode("ascii") + b"\n")
            self.process.stdin.flush()
        except OSError:
            pass
        line = self._line(time.monotonic() + READY_SECONDS)
        said = json.loads(line or b"{}")
        self.isolation = said.get("isolation")
        if line is None or said.get("ready") is not True:
            detail = self._last_words()
            self.kill()
            raise HarnessError("the grading worker could not start" + (f": {detail}" if detail else ""))

    def _last_words(self) -> str:
        try:
            self.log.seek(0)
            lines = self.log.read().decode("utf-8", errors="replace").strip().splitlines()
        except (OSError, AttributeError):
            return ""
        return lines[-1] if lines else ""

    def _line(self, deadline: float) -> bytes | None:
        """The worker's next line; None when it ends, is stopped, or the deadline passes (then it is killed)."""
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or reaper.process_state(self.process.pid) in ("T", "t"):
                self.kill()
                return None
            ready, _, _ = select.select([fd], [], [], min(left, 0.25))
            if ready:
                data = os.read(fd, 1 << 20)
                if not data:
                    self.kill()
                    return None
                self.buffer += data
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def grade(self, job: dict, timeout: float) -> dict:
        if self.process is None or self.process.poll() is not None:
            self.start()
        job = dict(job, id=secrets.token_hex(16))  # an answer for another job, or a forged one, is skipped
        if self.uid is not None:
            job["uid"] = self.uid
        try:
            self.process.stdin.write(json.dumps(job).encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except OSError:
            pass
        deadline = time.monotonic() + timeout
        stopped = ""
        while True:
            line = self._line(deadline)
            if line is None:
                stopped = "it was stopped (SIGSTOP?) or ran out of time, and was killed" \
                    if time.monotonic() < deadline else "it ran out of time and was killed"
                break
            try:
                answer = json.loads(line)
            except ValueError:
                continue
            if isinstance(answer, dict) and answer.get("id") == job["id"]:
                answer.pop("id", None)
                return answer
        detail = self._last_words()
        self.kill()
        return _harness_failure(job, detail or stopped or "was it stopped by the graded code?")

    def kill(self) -> None:
        import signal
        process, self.process = self.process, None
        if process is None:
            return
        try:
            os.kill(process.pid, signal.SIGKILL)  # a stopped process dies of SIGKILL too
        except OSError:
            pass
        process.wait()
        with _children_lock:
            _live_workers.discard(process.pid)
            _kill_orphans()
        for stream in (process.stdin, process.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def close(self) -> None:
        if self.process is not None:
            try:
                self.process.stdin.close()
            except OSError:
                pass
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            self.kill()


def _harness_failure(job: dict, detail: str) -> dict:
    return {"lesson": job["lesson"], "target": job["shown"], "kind": "harness", "tasks": [], "tests": [],
            "error": f"the grading worker stopped while grading this lesson ({detail})"}


def _job_timeout(limits: Limits) -> float:
    # A lesson's worst case: every task runs out of time, each in a child of its own.
    return 20 * (limits.seconds + 3.0) + 60.0


# ------------------------------------------------------------------ reading submissions

@dataclass(frozen=True)
class Submission:
    """A folder to grade: `folder` holds the lesson files; `shown` names it in messages.
    `files`: (lesson, path) for a lesson file not named FOLDER/LESSON.py (an LMS's flat
    download, a resubmission's name; labtools/grading/lms.py)."""

    student: str
    folder: Path
    shown: str
    files: tuple = ()


def read_lesson(folder: Path, lesson: str, shown: str, path: Path | None = None) -> dict:
    """One lesson file of a submission, read into memory: {"source": text}, or {"refused":
    {"kind", "message"}} for a file that is missing, a link out of the folder, not a regular
    file, larger than MAX_SOURCE_BYTES (checked by stat, never read), unreadable or binary.
    `path`: the file, when it is not FOLDER/LESSON.py (it must still be inside `folder`)."""
    name = f"{lesson}.py" if path is None else Path(path).name
    path = Path(folder) / name
    where = f"{shown.rstrip('/')}/{name}"

    def refused(kind: str, message: str) -> dict:
        return {"refused": {"kind": kind, "message": message}}

    try:
        inside = Path(folder).resolve()
        if path.is_symlink():
            real = path.resolve()
            if inside not in real.parents:
                return refused("link", f"{where} is a link to {real}, outside the folder: only files inside the "
                                       f"folder are graded")
            if not real.exists():
                return refused("link", f"{where} is a link to nothing (it points to {os.readlink(path)})")
        elif not os.path.lexists(path):
            return refused("missing", f"{where} is missing")
    except (OSError, RuntimeError) as error:
        return refused("file", f"{where} cannot be read ({getattr(error, 'strerror', None) or error}): not graded")
    try:
        return {"source": sources.decode_text(sources.read_limited(path, where), where)}
    except sources.Unreadable as problem:
        return refused(problem.kind, str(problem))


def isolation(sandbox: bool, fork: bool, missing: list[str] | None) -> str:
    """One line on how the learner's code was kept apart, for the gradebook and the terminal."""
    if sandbox:
        return "sandbox: bubblewrap, the learner's code apart from every grading process"
    if not fork or missing is None:
        return ("none: the learner's code runs as the same user as grade, with no namespaces (this system "
                "allows none); see docs/grading.md")
    held = "own PID, network and mount namespaces; every file system read-only but its work folder"
    return held + (f"; not done: {', '.join(missing)}" if missing else "; the checkout and the class hidden")


def hidden_folders(submissions: list[Submission]) -> list[str]:
    """What the learner's code may not see where its worker can make namespaces (isolate.py):
    the checkout (solutions/, .git, the graders), each submission's folder and, in a class, the
    folders that hold them (the classmates' files). Their sources are already in memory."""
    folders = {str(course.ROOT.resolve())}
    for submission in submissions:
        folder = Path(submission.folder).resolve()
        folders.add(str(folder))
        if len(submissions) > 1:
            folders.add(str(folder.parent))
        folders.update(str(Path(path).resolve().parent) for _, path in submission.files)
    return sorted(folders)


def lessons_with_graders() -> list[str]:
    """Lessons that can be graded: the course's lessons whose grader exists (a Gradescope
    autograder ships the graders without the solutions)."""
    from labtools.registry import LESSONS
    return [name for name in LESSONS if (course.GRADERS / f"grade_{name}.py").is_file()]


# ------------------------------------------------------------------ grading many

def grade_submissions(submissions: list[Submission], lessons: list[str], limits: Limits = Limits(),
                      workers: int | None = None, sandbox: bool = False, fork: bool = True,
                      progress=None, about: dict | None = None) -> dict[str, list[dict]]:
    """Grade every lesson of every submission; {student: [result per lesson, in `lessons` order]}.

    `workers` processes (default: one per core) grade side by side. `progress(done, total)` is
    called as each submission is finished. With `sandbox`, every submission's code runs under
    bwrap (see sandbox_problem()). When this returns, every process it started is dead.
    `about`, if given, gets "isolation": how the learner's code was kept apart (isolation()),
    and "namespaces": whether, without the sandbox, it ran in namespaces of its own.
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
    reaper.become_subreaper()
    reaper.become_undumpable()  # learner code of this user cannot read this process's fds or memory
    root = Path(tempfile.mkdtemp(prefix="lab-grade-"))
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0 and fork and hasattr(os, "setresuid")
    if as_root:
        root.chmod(0o711)  # the learners' users pass through to their own work folders, list nothing
    pool: list[Worker] = []
    try:
        snapshot = harness_snapshot()
        lab = _Lab(root, snapshot, sandbox, lessons)
        units_count = len(submissions) if sandbox else len(submissions) * len(lessons)
        pool = [Worker(root, lab, fork=fork, uid=LEARNER_UID + index if as_root else None)
                for index in range(min(workers, units_count) or 1)]
        # The workers read the harness and import the graders of the run's lessons while the
        # submissions are read; no job is given to any of them before both are done, so no
        # learner code runs before every submission is in memory and every worker is ready.
        errors: list[BaseException] = []

        def start(worker: Worker) -> None:
            try:
                worker.start()
            except BaseException as error:  # noqa: B902 - reported below
                errors.append(error)
        starting = [threading.Thread(target=start, args=(worker,), daemon=True) for worker in pool]
        for thread in starting:
            thread.start()
        bases, sources = {}, {}
        hidden = hidden_folders(submissions)
        for index, submission in enumerate(submissions):
            scratch = root / "submissions" / str(index)
            (scratch / "code").mkdir(parents=True)
            (scratch / "work").mkdir()
            bases[submission.student] = {"folder": str(scratch / "code"), "shown": submission.shown,
                                         "work": str(scratch / "work"), "scratch": str(scratch),
                                         "hidden": hidden}
            if sandbox:
                bases[submission.student]["sandbox_command"] = sandbox_command(root / "lab", scratch / "work",
                                                                                limits)
            for lesson in lessons:
                sources[(submission.student, lesson)] = read_lesson(submission.folder, lesson, submission.shown,
                                                                    dict(submission.files).get(lesson))
        for thread in starting:
            thread.join()
        if errors:
            raise errors[0] if isinstance(errors[0], HarnessError) else HarnessError(str(errors[0]))
        if about is not None:
            about["isolation"] = isolation(sandbox, fork, pool[0].isolation)
            about["namespaces"] = not sandbox and fork and pool[0].isolation is not None
        if sandbox:  # one sandboxed learner process per submission, all its lessons in it
            units = [[(s, i, lesson) for i, lesson in enumerate(lessons)] for s in submissions]
        else:        # any warm worker takes the next lesson of any submission
            units = [[(s, i, lesson)] for s in submissions for i, lesson in enumerate(lessons)]
        queue = list(reversed(units))
        again: list = []

        def run_worker(worker: Worker) -> None:
            while True:
                with lock:
                    if not queue:
                        return
                    unit = queue.pop()
                for position, (submission, index, lesson) in enumerate(unit):
                    job = dict(bases[submission.student], lesson=lesson, **limit_fields)
                    command = job.pop("sandbox_command", None)
                    job.update(sources[(submission.student, lesson)])
                    if command is not None:
                        job["sandbox"] = {"command": command, "session": submission.student,
                                          "cwd": job["work"]}
                        job["last"] = position == len(unit) - 1
                    try:
                        outcome = worker.grade(job, timeout)
                    except Exception as error:  # the machinery failed: an error, never a pass
                        outcome = _harness_failure(job, f"{type(error).__name__}: {error}")
                    if outcome.get("kind") == "harness":
                        with lock:
                            again.append((submission, index, job))
                    with lock:
                        results[submission.student][index] = outcome
                        remaining[submission.student] -= 1
                        if remaining[submission.student] == 0:
                            finished[0] += 1
                            if progress is not None:
                                progress(finished[0], len(submissions))

        threads = [threading.Thread(target=run_worker, args=(worker,), daemon=True) for worker in pool]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # A job whose worker was stopped or killed (by another submission's code, perhaps: a
        # worker is that user's process) is graded again, alone, once everything else is done.
        for submission, index, job in again:
            for worker in pool[1:]:
                worker.close()
            job = dict(job, last=True)
            try:
                outcome = pool[0].grade(job, timeout)
            except Exception as error:
                outcome = _harness_failure(job, f"{type(error).__name__}: {error}")
            results[submission.student][index] = outcome
    finally:
        for worker in pool:
            worker.close()
        with _children_lock:
            _kill_orphans()
        _remove(root)
    return results


def _unlock(function, path, _info) -> None:
    """rmtree's second try at a learner's read-only file or folder: made writable, never through
    a link (a read-only folder holding a link to a host file must not change the host file)."""
    try:
        for place in (os.path.dirname(path), path):
            if not os.path.islink(place):
                os.chmod(place, 0o700)
        function(path)
    except OSError:
        pass


def _remove(root: Path) -> None:
    shutil.rmtree(root, onerror=_unlock)  # rmtree itself never follows a link


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
