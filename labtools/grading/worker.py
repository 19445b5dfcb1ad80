"""Grade lessons in processes of their own.

    python3 -B labtools/grading/worker.py LESSON [--target DIR]

grades one lesson in this process and prints one JSON line (for a person at a terminal:
nothing here guards against the graded code; `methods.py check` and `grade` use --serve).

    python3 -I -S -B -X pycache_prefix=EMPTY labtools/grading/worker.py --serve [--no-fork]

is the warm grading worker that pool.py starts, one per core. Its first line on
stdin is the harness as pool.py read it ({path: text}: modules/**, the graders, the
hints) and the lessons the run grades; it imports the lab modules and those lessons'
graders from that, never from disk, answers {"ready": true}, then grades each job (one
JSON line: a lesson, the learner's source text read by pool.py, and a random id it
echoes) in a fresh child process:

- the child runs in its own process group (and, where the probe at start found them, in
  namespaces of its own: isolate.py), with its working directory in the job's scratch
  folder, stdin from /dev/null, its prints (and anything its own children print) in a
  bounded file, and limits on memory, CPU time and file size; the whole group is killed
  when the job ends, and the worker, a subreaper (PR_SET_CHILD_SUBREAPER), then kills
  everything reparented to it: nothing the learner's code started (setsid or not) outlives
  the job;
- results travel back on a pipe, one line per test, each signed (HMAC-SHA256) with a key
  made for that child alone before any learner code is imported: a printed or forged line,
  or an exit status, never counts; a task passes only when every one of its tests sent a
  signed pass;
- each task has a time limit inside the child (an alarm names the call that did not
  return) and a watchdog outside it, on the worker's clock, for the task's tests together
  (for a loop that ignores or blocks the alarm); a child that dies
  or is stopped in a test costs that task only: the other tasks' tests run in a new child,
  and the message names the last call, which the child notes in memory shared with the worker.

A job with "sandbox" (grade --sandbox) runs no learner code here at all: the grader runs in
this process against a remote.Remote, the pipe to a bubblewrap child (sandboxed.py) that holds
the learner's code and exchanges plain data only (wire.py); one child per submission.

With --no-fork (and where os.fork is missing) each child is a fresh interpreter instead
(`--child`), which reads its key from stdin before importing anything else.
The worker answers each job with one JSON line on stdout: the lesson's result.

    python3 -B labtools/grading/worker.py LESSON --batch [--seconds S]

grades many versions of the lesson's file in this one process (the maintainer check's
wrong answers, the mutation pass's mutants): stdin holds one JSON object per line,
{"path": where the file would live, "source": its text, and optionally "first_failure":
true to stop at the first failing test, "tasks": [numbers] to run only those tasks' tests};
stdout gets one JSON result per line, in order, as soon as each is graded. Each version has
S seconds (a mutant may loop forever); the caller also watches from outside, for a loop
that a signal cannot interrupt.
"""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import sys
import sysconfig

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if __name__ == "__main__":  # run as a script: the package is imported from the lab's root (under
    # -I nothing else is on sys.path; without -I this file's own folder is, and is taken off)
    sys.path[:] = [ROOT] + [entry for entry in sys.path if os.path.abspath(entry or ".") not in (HERE, ROOT)]

from labtools.grading import harness, isolate, reaper, remote, snapshot  # noqa: E402  (after dont_write_bytecode: no cache is written)
from labtools.grading.reaper import kill_orphans  # noqa: E402
from labtools.grading.signed import Reader, signer  # noqa: E402

SLACK = 2.0           # seconds the watchdog adds to a time limit before it stops a child
POLL = 0.05           # how often a silent child is checked for having ended
OUTPUT_BYTES = 64_000  # of a child's own stdout/stderr file kept for the report
KEY_BYTES = 32
CALL_BYTES = 4096     # shared memory for the running test and its last call
# What isolate.enter() could not do in this worker's probe ([] all held), or None where no
# namespace can be made (not Linux, or user namespaces refused): set once by serve().
ISOLATION: list[str] | None = None


# ------------------------------------------------------------------ batch (maintainers)

class _Overtime(BaseException):
    # A BaseException, so neither the graded code nor harness.call() can swallow it.
    pass


def _on_alarm(signum, frame):
    raise _Overtime()


def _limit_memory(limit: int = 4 << 30) -> None:
    # A mutant such as `[x] * (n + 1) ** 9` must fail with MemoryError, not swap the machine.
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
    except (ImportError, ValueError, OSError):
        pass


def batch(lesson: str, seconds: float) -> None:
    import signal
    from pathlib import Path

    items = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
    # The results go to a private copy of stdout; whatever the graded code prints goes to stderr.
    results = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    timed = hasattr(signal, "setitimer")
    if timed:
        signal.signal(signal.SIGALRM, _on_alarm)
    _limit_memory()
    for item in items:
        harness._sources[lesson] = (Path(item["path"]), item["source"])
        harness._loaded.clear()
        try:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                outcome = harness.run(lesson, first_failure=bool(item.get("first_failure")), only_tasks=item.get("tasks"))
            finally:
                if timed:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _Overtime:
            outcome = {"lesson": lesson, "error": f"grading took over {seconds:g} s: is there a loop that never ends?",
                       "overtime": True}
        except harness.LabFailure as failure:
            outcome = {"lesson": lesson, "error": str(failure)}
        except (Exception, SystemExit) as error:  # a grader crash, or graded code calling sys.exit()
            outcome = {"lesson": lesson, "error": f"the grader could not run: {type(error).__name__}: {error}"}
        results.write(json.dumps(outcome) + "\n")
        results.flush()
    harness._sources.pop(lesson, None)


# ------------------------------------------------------------------ the child (learner code runs here)

def _limit(job: dict, tests: int) -> None:
    """Memory, CPU time, file size and core dumps of the child (soft limits; hard ones kept)."""
    import resource
    import signal
    cpu = int((tests + 2) * job["seconds"] + 5)
    for name, value in (("RLIMIT_AS", job["memory_mb"] << 20), ("RLIMIT_CPU", cpu),
                        ("RLIMIT_FSIZE", job.get("file_bytes", 64 << 20)), ("RLIMIT_CORE", 0)):
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            hard = resource.getrlimit(which)[1]
            resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))
        except (ValueError, OSError):
            pass
    if hasattr(signal, "SIGXFSZ"):
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing


def _child_setup(job: dict, tests: list, output_fd: int) -> None:
    """Shared by both kinds of child, before any learner code: where it runs and what it may use."""
    import io
    from pathlib import Path
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    sys.stdin = open(os.devnull, encoding="utf-8")
    for number, name in ((1, "stdout"), (2, "stderr")):
        setattr(sys, name, io.TextIOWrapper(io.FileIO(number, "w", closefd=False), encoding="utf-8",
                                            errors="backslashreplace", line_buffering=True))
    os.chdir(job["work"])
    os.environ["LAB_TARGET"] = job["folder"]
    os.environ["HOME"] = os.environ["TMPDIR"] = job["work"]
    harness._display[Path(job["folder"]).resolve()] = job["shown"]
    harness._display[Path(job["folder"])] = job["shown"]
    if "source" in job:  # read by pool.py before any learner code ran; never read from disk here
        harness._sources[job["lesson"]] = (Path(job["folder"]) / f"{job['lesson']}.py", job["source"])
    _limit(job, len(tests))


def _child_grade(job: dict, grader, tests: list, send) -> None:
    real_exit = harness.trap_exits()
    # A speed bump, not a wall: importing the harness from the learner's file finds a fresh
    # copy, not the one grading it.
    for name in [name for name in sys.modules if name == "labtools" or name.startswith("labtools.")]:
        sys.modules.pop(name, None)
    try:
        harness.run(job["lesson"], seconds=job["seconds"], report=send, grader=grader, tests=tests,
                 output_chars=job.get("output_chars", harness.OUTPUT_CHARS))
        send({"t": "done"})
    except BaseException as error:  # the harness itself failed: say so, never as a pass
        try:
            send({"t": "broken", "message": f"{type(error).__name__}: {error}"})
        except BaseException:
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        real_exit(0)


def _note_call(shared, shown: str) -> None:
    """The running test and the last call, in memory shared with the worker (read only if the
    child has to be stopped or dies): cheaper than a record on the pipe for every call."""
    data = f"{harness._current['test']}\0{shown}".encode("utf-8", "replace")[:CALL_BYTES - 4]
    shared[0:4] = len(data).to_bytes(4, "little")
    shared[4:4 + len(data)] = data


def _read_call(shared) -> dict:
    size = min(int.from_bytes(shared[0:4], "little"), CALL_BYTES - 4)
    test, _, call = shared[4:4 + size].decode("utf-8", "replace").partition("\0")
    return {"test": test, "call": call}


def _own_work(job: dict) -> dict:
    """Where grading runs as root and the pool gave this worker a user id (job["uid"]): the job
    with a work folder of that user's own (no one else may enter it), made before it drops to
    that user (see _drop_to)."""
    uid = job.get("uid")
    if uid is None or os.geteuid() != 0:
        return job
    work = os.path.join(job["work"], job["lesson"])
    os.makedirs(work, mode=0o700, exist_ok=True)
    os.lchown(work, uid, uid)
    os.chmod(work, 0o700)
    return dict(job, work=work)


# The standard-library modules a learner's answer may import. Where grading runs as root and
# the interpreter lives where other users cannot read (a Python under /root, mode 0700), the
# learner's user could import only what its worker had imported before the fork; a worker
# then imports these first, so `import fractions` or `import tomllib` works as in `check`.
PRELOADED = ("abc", "array", "ast", "base64", "bisect", "calendar", "cmath", "collections", "collections.abc",
             "contextlib", "copy", "csv", "dataclasses", "datetime", "decimal", "difflib", "enum", "fnmatch",
             "fractions", "functools", "gzip", "hashlib", "heapq", "hmac", "html", "inspect", "io", "itertools",
             "json", "keyword", "math", "numbers", "operator", "pathlib", "pprint", "random", "re", "secrets",
             "shlex", "statistics", "string", "struct", "textwrap", "time", "tomllib", "types", "typing",
             "unicodedata", "uuid", "zlib")


def others_can_import_the_standard_library() -> bool:
    """Whether a user other than the owner may read this interpreter's standard library: every
    folder on its path searchable by others and the library itself readable. Where it is not
    (a Python installed under /root, whose mode is 0700), learner code run as another user
    could import no module the worker had not already imported: the workers then import the
    modules a learner's answer may use before any job (preload_standard_library)."""
    folder = pathlib.Path(sysconfig.get_paths()["stdlib"]).resolve()
    try:
        if not folder.stat().st_mode & 0o004:
            return False
        return all(part.stat().st_mode & 0o001 for part in (folder, *folder.parents))
    except OSError:
        return False


def preload_standard_library() -> None:
    """Import PRELOADED where the learner's user could not read the standard library itself."""
    if os.geteuid() != 0 or others_can_import_the_standard_library():
        return
    for name in PRELOADED:
        try:
            importlib.import_module(name)
        except ImportError:  # tomllib before Python 3.11
            pass


def _drop_to(job: dict) -> None:
    """Become job["uid"], with no supplementary groups, for good: the learner's code then runs
    as a user of its own (one per worker, never root), so it cannot signal, trace or read the
    files of the workers, of `grade`, or of another worker's learner code, nor write the
    checkout or the output folder."""
    uid = job.get("uid")
    if uid is None or os.geteuid() != 0:
        return
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise SystemExit("could not drop to the learner's user")


def _forked_child(job, grader, tests, key, write_fd, output_fd, shared) -> None:
    os.setpgid(0, 0)
    job = _own_work(job)
    _child_setup(job, tests, output_fd)
    keep = sorted({0, 1, 2, write_fd})
    low = 3
    for fd in keep:
        if fd >= low:
            os.closerange(low, fd)
            low = fd + 1
    os.closerange(low, 1 << 16)
    send = signer(key, write_fd)
    if ISOLATION is not None:  # this worker's probe entered the namespaces: every child must
        try:
            isolate.enter(job["work"], job.get("hidden", []))
        except OSError as error:
            send({"t": "broken", "message": f"could not isolate the learner's code: {error}"})
            os._exit(70)
    _drop_to(job)
    harness._on_call = lambda shown: _note_call(shared, shown)
    _child_grade(job, grader, tests, send)


def child_main() -> None:
    """`run.py --child`: one job in a fresh interpreter. Reads the key and the job from stdin
    before importing anything of the learner's, then answers on a private copy of stdout."""
    line = sys.stdin.buffer.readline()
    message = json.loads(line)
    key, job, tests = bytes.fromhex(message["key"]), message["job"], message["tests"]
    if message.get("snapshot"):
        harness.install_snapshot(message["snapshot"])
    del line, message
    results_fd = os.dup(1)
    output_fd = os.open(os.path.join(job["scratch"], f".output-{os.getpid()}"),
                        os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    _child_setup(job, tests, output_fd)
    os.close(output_fd)
    grader = harness.grader_module(job["lesson"])
    send = signer(key, results_fd)
    harness._on_call = lambda shown: send({"t": "call", "test": harness._current["test"], "call": shown[:500]})
    _child_grade(job, grader, tests, send)


# ------------------------------------------------------------------ the worker (no learner code here)

class _Attempt:
    """What one child said and how it ended."""

    def __init__(self):
        self.records, self.forged, self.ended, self.output = [], 0, "", ""
        self.last = {"test": "", "call": ""}


def _ended(code: int) -> str:
    """How a child ended, from its exit code (negative: the signal that stopped it)."""
    if code < 0:
        import signal
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was stopped by {name}" + (" (its CPU time limit)" if name == "SIGXCPU" else "")
    return f"ended with exit status {code}"


def _collect(attempt: _Attempt, read_fd: int, key: bytes, limit: float, alive, tests=()) -> None:
    """Read signed records until "done", the end of the child, or the watchdog's deadline.
    `alive()` tells whether the child still runs (without reaping it).

    The watchdog keeps its own clock per task (this process's, which the learner's code cannot
    mask or stop): a task's tests together get `limit` seconds, however the child's alarm fared."""
    import select
    import time
    reader = Reader(key)
    deadline = time.monotonic() + limit
    order = list(tests)
    spent: dict = {}
    reported: set = set()
    started = [None]

    def next_deadline(now: float) -> float:
        following = next((name for name in order if name not in reported), None)
        if following is None:
            return now + limit
        task = harness.task_number(following)
        return now + max(POLL * 2, limit - spent.get(task, 0.0))

    def note(record: dict) -> float | None:
        now = time.monotonic()
        kind = record.get("t")
        if kind == "imported":
            started[0] = now
            return next_deadline(now)
        if kind == "result":
            test = record.get("test")
            if started[0] is not None and isinstance(test, str) and test.startswith("test_task"):
                try:
                    task = harness.task_number(test)
                except ValueError:
                    task = None
                spent[task] = spent.get(task, 0.0) + now - started[0]
            reported.add(test)
            started[0] = now
            return next_deadline(now)
        return None

    open_ = True
    while True:
        now = time.monotonic()
        if now >= deadline:
            attempt.ended = "overtime"
            break
        if open_:
            ready, _, _ = select.select([read_fd], [], [], min(POLL * 4, deadline - now))
            if ready:
                data = os.read(read_fd, 1 << 16)
                if not data:
                    open_ = False
                    continue
                for record in reader.feed(data):
                    kind = record.get("t")
                    if kind == "call":
                        attempt.last = {"test": record.get("test", ""), "call": record.get("call", "")}
                        continue
                    attempt.records.append(record)
                    moved = note(record)
                    if moved is not None:
                        deadline = moved
                    if kind in ("done", "error", "broken"):
                        attempt.ended = kind
                if attempt.ended:
                    break
                continue
        else:
            time.sleep(POLL)
        if not alive():
            # Drain what is left, then stop.
            while open_:
                ready, _, _ = select.select([read_fd], [], [], 0)
                data = os.read(read_fd, 1 << 16) if ready else b""
                if not data:
                    break
                for record in reader.feed(data):
                    if record.get("t") != "call":
                        attempt.records.append(record)
                        if record.get("t") in ("done", "error", "broken"):
                            attempt.ended = record["t"]
                    else:
                        attempt.last = {"test": record.get("test", ""), "call": record.get("call", "")}
            if not attempt.ended:
                attempt.ended = "died"
            break
    attempt.forged = reader.forged



def _read_output(fd: int) -> str:
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, OUTPUT_BYTES, 0) if hasattr(os, "pread") else b""
    except OSError:
        return ""
    text = data.decode("utf-8", errors="replace")
    return text + (f"\n... ({size - OUTPUT_BYTES:,} more bytes not kept)" if size > OUTPUT_BYTES else "")


def _attempt_forked(job, grader, tests) -> _Attempt:
    import mmap
    import signal
    import tempfile
    key = os.urandom(KEY_BYTES)
    attempt = _Attempt()
    read_fd, write_fd = os.pipe()
    output = tempfile.TemporaryFile(dir=job["scratch"])
    shared = mmap.mmap(-1, CALL_BYTES)
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(read_fd)
            _forked_child(job, grader, tests, key, write_fd, output.fileno(), shared)
        finally:
            os._exit(70)
    try:
        os.setpgid(pid, pid)  # also here, so the group exists before anything can be killed
    except OSError:
        pass
    os.close(write_fd)
    status = [None]

    def alive() -> bool:
        if hasattr(os, "waitid"):  # look without reaping: the group id stays ours until killed
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            return info is None
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            status[0] = code
        return not done

    try:
        _collect(attempt, read_fd, key, job["seconds"] + SLACK, alive, tests)
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)  # the child and everything it started
        except OSError:
            pass
        if status[0] is None:
            status[0] = os.waitpid(pid, 0)[1]
        os.close(read_fd)
        kill_orphans()  # and whatever left its group (setsid): reparented here, the subreaper
    if attempt.ended == "died":
        code = os.waitstatus_to_exitcode(status[0]) if hasattr(os, "waitstatus_to_exitcode") else status[0] >> 8
        attempt.ended = _ended(code)
    if attempt.ended != "done":
        attempt.last = _read_call(shared)
    shared.close()
    attempt.output = _read_output(output.fileno())
    output.close()
    return attempt


def _attempt_exec(job, grader, tests) -> _Attempt:
    import subprocess
    import tempfile
    key = os.urandom(KEY_BYTES)
    attempt = _Attempt()
    flags = ["-I", "-S", "-B"] + [option for name, value in sys._xoptions.items()
                                  for option in ("-X", f"{name}={value}" if value is not True else name)]
    process = subprocess.Popen([sys.executable, *flags, os.path.abspath(__file__), "--child"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               cwd=job["work"], start_new_session=hasattr(os, "setsid"))
    held = ({name: data.decode("utf-8", "surrogateescape") for name, data in snapshot._snapshot.items()}
            if snapshot._snapshot is not None else None)
    process.stdin.write(json.dumps({"key": key.hex(), "job": job, "tests": tests, "snapshot": held}).encode()
                        + b"\n")
    process.stdin.close()
    try:
        _collect(attempt, process.stdout.fileno(), key, job["seconds"] + SLACK + 5.0,
                 lambda: process.poll() is None, tests)
    finally:
        try:
            if hasattr(os, "killpg"):
                import signal
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        except OSError:
            pass
        process.wait()
        process.stdout.close()
        kill_orphans()
    if attempt.ended == "died":
        attempt.ended = _ended(process.returncode)
    try:
        with open(os.path.join(job["scratch"], f".output-{process.pid}"), "rb") as handle:
            attempt.output = _read_output(handle.fileno())
    except OSError:
        pass
    return attempt


def _refused(job: dict, grader) -> dict:
    """A lesson file that pool.py would not read (missing, a link out, too large, not a
    regular file, unreadable): its error, with every task listed, and no learner code run."""
    refused = job["refused"]
    return {"lesson": job["lesson"], "target": job["shown"], "error": refused["message"], "kind": refused["kind"],
            "tasks": [{"number": t.number, "name": t.name, "title": t.title, "hints": len(t.hints), "passed": False,
                       "tests": 0} for t in grader.TASKS], "tests": []}


def grade_job(job: dict, grader, fork: bool = True) -> dict:
    """Grade one lesson of one private copy; every test of the grader gets a result."""
    if job.get("refused"):
        return _refused(job, grader)
    lesson = job["lesson"]
    names = [test.__name__ for test in harness.tests_of(grader)]
    tasks = {t.number: t for t in grader.TASKS}
    outcome = {"lesson": lesson, "target": job["shown"]}
    results: dict = {}
    outputs, forged = [], 0
    remaining = list(names)
    for _ in range(len(tasks) + 2):  # each new child is owed to a task that stopped the one before
        if not remaining:
            break
        attempt = (_attempt_forked if fork else _attempt_exec)(job, grader, remaining)
        forged += attempt.forged
        if attempt.output.strip():
            outputs.append(attempt.output)
        failure = None
        for record in attempt.records:
            kind = record.get("t")
            if kind == "result" and record.get("test") in remaining and record["test"] not in results:
                results[record["test"]] = {key: record[key] for key in ("test", "task", "passed", "message",
                                                                         "output", "grader_error", "seconds")
                                           if key in record}
            elif kind == "imported" and record.get("output"):
                outcome["output"] = record["output"]
            elif kind in ("error", "broken"):
                failure = record
        if failure is not None:
            if failure["t"] == "error":
                outcome.update(error=failure["message"], kind=failure["kind"])
                if failure.get("output"):
                    outcome["output"] = failure["output"]
            else:
                outcome.update(error=f"the grading harness failed: {failure['message']}", kind="harness")
            break
        if attempt.ended == "done":
            break
        imported = any(record.get("t") == "imported" for record in attempt.records)
        if not imported:
            how = ("did not finish within its time limit and had to be stopped" if attempt.ended == "overtime"
                   else attempt.ended)
            outcome.update(error=f"importing {job['shown'].rstrip('/')}/{lesson}.py: the grading process {how} "
                                 f"before the file finished importing (a loop, or an exit, at its top level?)",
                           kind="timeout" if attempt.ended == "overtime" else "exit")
            break
        stopped = next((name for name in remaining if name not in results), None)
        if stopped is None:
            break
        number = harness.task_number(stopped)
        label = f"task {number} ({tasks[number].name})" if number in tasks else f"task {number}"
        last = attempt.last["call"] if attempt.last["test"] == stopped else ""
        if attempt.ended == "overtime":
            message = (f"{label} did not finish within its time limit of {job['seconds']:g} s and had to be "
                       f"stopped" + (f"\n  last call: {last}" if last else "") + "\n  Is there a loop that never ends?")
        else:
            message = (f"{label}: the grading process {attempt.ended} while {stopped} ran"
                       + (f"\n  last call: {last}" if last else "")
                       + "\n  (did the code call os._exit, or crash the interpreter?)")
        results[stopped] = {"test": stopped, "task": number, "passed": False, "message": message,
                            "seconds": float(job["seconds"]) if attempt.ended == "overtime" and job.get("seconds")
                            else 0.0}
        for name in remaining:
            if name not in results and harness.task_number(name) == number:
                results[name] = {"test": name, "task": number, "passed": False,
                                 "message": f"not run: {label} stopped the grading in {stopped}"}
        remaining = [name for name in remaining if name not in results]
    for name in names:
        results.setdefault(name, {"test": name, "task": harness.task_number(name), "passed": False,
                                  "message": "not run: the grading stopped before this test"})
    ordered = [results[name] for name in names]
    outcome["tasks"] = [{"number": t.number, "name": t.name, "title": t.title, "hints": len(t.hints),
                         "passed": "error" not in outcome and all(r["passed"] for r in ordered if r["task"] == t.number),
                         "tests": sum(1 for r in ordered if r["task"] == t.number)} for t in grader.TASKS]
    outcome["tests"] = [] if "error" in outcome else ordered
    if "error" not in outcome and any(r.get("grader_error") for r in ordered):
        first = next(r for r in ordered if r.get("grader_error"))
        outcome.update(error=first["message"], kind="grader")
    if outputs:
        outcome["process_output"] = "\n".join(outputs)[:OUTPUT_BYTES]
    if forged:
        outcome["forged_lines"] = forged
    return outcome


# ------------------------------------------------------------------ the sandbox (no learner code here either)

class _Sessions:
    """The sandboxed learner process of the submission being graded, kept across its lessons."""

    def __init__(self):
        self.key, self.remote = None, None

    def get(self, job: dict):
        box = job["sandbox"]
        if self.key != box["session"] or self.remote is None:
            self.close()
            self.key = box["session"]
            self.remote = remote.Remote(box["command"], cwd=box.get("cwd"), backstop=job["seconds"] + SLACK + 30)
        return self.remote

    def close(self) -> None:
        if self.remote is not None:
            self.remote.kill()
        self.key, self.remote = None, None
        kill_orphans()


def grade_sandboxed(job: dict, sessions: _Sessions) -> dict:
    """Grade one lesson with the learner's code in the sandboxed process: the grader runs here,
    sends plain arguments there and compares the plain results here (see remote.py)."""
    from pathlib import Path
    lesson = job["lesson"]
    grader = harness.grader_module(lesson)
    if job.get("refused"):
        return _refused(job, grader)
    session = sessions.get(job)
    folder = Path(job["folder"])
    harness._display[folder] = job["shown"]
    harness._sources[lesson] = (folder / f"{lesson}.py", job["source"])
    harness._loaded.clear()
    harness._remote = session
    os.environ["LAB_TARGET"] = str(folder)
    try:
        outcome = harness.run(lesson, seconds=job["seconds"], grader=grader,
                           output_chars=job.get("output_chars", harness.OUTPUT_CHARS))
    except harness.LabFailure as failure:
        outcome = {"lesson": lesson, "error": str(failure), "kind": "error", "tasks": [], "tests": []}
    finally:
        harness._remote = None
        harness._sources.pop(lesson, None)
        harness._loaded.clear()
        remote.undo_mirrors()  # the grader's objects as they were: nothing reaches the next job
    outcome["target"] = job["shown"]
    if session.restarts:
        outcome["sandbox_restarts"] = session.restarts
    return outcome


def serve(fork: bool) -> None:
    """The warm worker: one job per line on stdin, one result per line on stdout.

    Before its first job it reads the harness into memory (harness.install_snapshot) and
    imports the grader of each lesson the run grades, then says {"ready": true}: no learner
    code has run by then, and nothing written to disk later changes what it grades. It is the subreaper of everything
    the graded code starts, and kills all of it before it answers a job."""
    jobs = sys.stdin.buffer
    answers = os.fdopen(os.dup(1), "wb")
    # Nothing printed by accident (a grader's import, say) may reach the answers.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    sys.stdout = sys.stderr
    import signal

    def _stop(signum, frame):  # so the current child's group is killed on the way out (finally)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _stop)
    reaper.become_subreaper()
    reaper.become_undumpable()  # no learner code of this user may open /proc/<this>/fd or mem
    preload_standard_library()
    first = jobs.readline()  # the harness as pool.py read it, before any learner code ran
    given = json.loads(first) if first.strip() else {}
    harness.install_snapshot(given.get("files"))
    references = {name: data.decode("utf-8", "replace") for name, data in snapshot._snapshot.items()
                  if name.startswith("modules/") and name.endswith(".py")}
    references.update(given.get("solutions") or {})
    harness.set_references(references)
    # Imported once here, not in every child: with no bytecode cache, each import there would
    # compile the module again (what the children use, and what lesson files often import).
    import importlib
    for name in ("hashlib", "hmac", "io", "select", "tempfile", "resource", "typing", "string", "collections",
                 "fractions", "dataclasses", "json", "math", "re", "itertools", "functools", "subprocess",
                 "mmap", "ast", "linecache"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    graders: dict = {}
    failures: dict = {}
    wanted = given.get("lessons")   # the lessons this run grades (None: every grader)
    for relative in sorted(snapshot._snapshot):
        name = relative.rpartition("/")[2]
        if relative.startswith("tests/graders/grade_") and name.endswith(".py"):
            lesson = name[len("grade_"):-3]
            if wanted is not None and lesson not in wanted:
                continue
            try:
                graders[lesson] = harness.grader_module(lesson)
            except Exception as error:  # the grader cannot even be imported (on an old Python, say)
                failures[lesson] = error
    fork = fork and hasattr(os, "fork")
    global ISOLATION
    ISOLATION = isolate.probe() if fork else None
    answers.write(json.dumps({"ready": True, "isolation": ISOLATION}).encode("ascii") + b"\n")
    answers.flush()
    sessions = _Sessions()
    try:
        while True:
            line = jobs.readline()
            if not line:
                return
            job = json.loads(line)
            lesson = job["lesson"]
            copied = harness.analyse(job["source"]) if isinstance(job.get("source"), str) else {}
            try:
                if lesson in failures:
                    raise failures[lesson]
                if lesson not in graders:
                    raise FileNotFoundError(f"no grader grade_{lesson}.py")
                if job.get("sandbox"):
                    outcome = grade_sandboxed(job, sessions)
                else:
                    outcome = grade_job(job, graders[lesson], fork=fork)
            except Exception as error:
                outcome = {"lesson": lesson, "target": job.get("shown", ""), "kind": "grader",
                           "error": harness.grader_cannot_run(lesson, error), "tasks": [], "tests": []}
            if not job.get("sandbox") or job.get("last"):
                sessions.close()
            # Everything the graded code started is gone before the answer (the sandbox of a
            # submission whose next lesson comes next excepted: it is that submission's own).
            live = sessions.remote.process if sessions.remote is not None else None
            kill_orphans(keep=(live.pid,) if live is not None else ())
            if copied:
                outcome["copied"] = copied
            outcome["id"] = job.get("id")
            answers.write(json.dumps(outcome).encode("utf-8") + b"\n")
            answers.flush()
    finally:
        sessions.close()


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        serve(fork="--no-fork" not in sys.argv[2:])
        return
    if sys.argv[1:2] == ["--child"]:
        child_main()
        return
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lesson")
    parser.add_argument("--target", help="folder holding the exercise files (default: LAB_TARGET or exercises)")
    parser.add_argument("--batch", action="store_true", help="grade many versions given as JSON lines on stdin")
    parser.add_argument("--seconds", type=float, default=10.0, help="time limit per version in --batch mode")
    args = parser.parse_args()
    if args.batch:
        batch(args.lesson, args.seconds)
        sys.exit(0)
    if args.target:
        os.environ["LAB_TARGET"] = args.target
    try:
        outcome = harness.run(args.lesson)
    except harness.LabFailure as failure:
        outcome = {"lesson": args.lesson, "error": str(failure)}
    sys.stdout.write(json.dumps(outcome) + "\n")


if __name__ == "__main__":
    main()
