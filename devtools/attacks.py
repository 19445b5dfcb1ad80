"""Attacks on `grade`, as a student who wants a grade they did not earn would write them.

Each attack is a lesson file (lesson 01, context) handed in by "mallory" in a class with two
honest classmates (the reference answers). `run(attack, sandbox)` grades that class with
`methods.py grade --lesson context` in a scratch copy of the project (so an attack that writes
into the checkout writes into the copy), then checks, after the command has ended and a pause:

- mallory's score is what the attack must get in that mode (`plain` / `sandbox`: a number of
  tasks, or None where forging her own grade is the documented gap of grading without the
  sandbox);
- both classmates still have every task, and nothing the attack wrote changed the gradebook
  (gradebook.csv agrees with gradebook.json, and neither changed after `grade` ended);
- no process the attack started outlives the run (each carries a marker in its command line);
- the run ended in time, and the attack's own check (a message, a warning) holds.

tests/test_attacks.py runs a few of these in CI; `methods.py dev probe --grading` runs them
all in both modes and prints the figures.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from labtools import course
from labtools.grading import integrity

LESSON = "context"
TASKS = 5
SECONDS = 1.0          # --seconds for every run: attacks that loop must not make the suite slow
RUN_LIMIT = 120.0      # a `grade` run that takes longer has been stalled by the attack
PAUSE = 1.5            # after `grade` ends: time for a surviving process to do harm
COPIED = ("methods.py", "course.json", "pyproject.toml", "labtools", "modules", "exercises", "solutions", "tests/graders")


@dataclass(frozen=True)
class Attack:
    """One attack: what mallory hands in, and what each mode must give her.

    `source(marker, stub, solution)` is her lesson file's text (None: `prepare` makes the
    file); `plain` and `sandbox`: her expected number of passed tasks (None: any, the
    documented self-forgery gap); `isolated`: the number without the sandbox where the
    learner's code ran in namespaces of its own (isolate.py), when it differs from `plain`;
    `check(result)` returns a problem or "" for anything else."""

    name: str
    source: object
    plain: int | None
    sandbox: int | None
    prepare: object = None
    check: object = None
    writes_checkout: bool = False
    fast: bool = False
    isolated: object = "as plain"


# ------------------------------------------------------------------ the attacks' code

_WALK = '''
import sys as _sys, os as _os, signal as _signal
def _forge():
    frame = _sys._getframe()
    while frame is not None:
        report, grader = frame.f_locals.get("report"), frame.f_locals.get("grader")
        if callable(report) and grader is not None:
            for name, test in list(vars(grader).items()):
                if name.startswith("test_task"):
                    report({"t": "result", "test": name, "task": int(name[9:].split("_")[0]), "passed": True,
                            "message": ""})
            report({"t": "done"})
            _os.kill(_os.getpid(), _signal.SIGKILL)
        frame = frame.f_back
_forge()
'''

_GC = '''
import gc as _gc, os as _os, signal as _signal
def _forge():
    for obj in _gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "send" and getattr(obj, "__closure__", None):
            grader = next((m for m in _gc.get_objects() if type(m).__name__ == "module"
                           and hasattr(m, "TASKS") and hasattr(m, "LESSON")), None)
            if grader is None:
                continue
            for name in list(vars(grader)):
                if name.startswith("test_task"):
                    obj({"t": "result", "test": name, "task": int(name[9:].split("_")[0]), "passed": True,
                         "message": ""})
            obj({"t": "done"})
            _os.kill(_os.getpid(), _signal.SIGKILL)
_forge()
'''

_KEY_PIPE = '''
import gc as _gc, os as _os, json as _json, hmac as _hmac, hashlib as _hashlib, signal as _signal
def _forge():
    keys = []
    for obj in _gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") == "send":
            for cell in obj.__closure__ or ():
                try:
                    value = cell.cell_contents
                except ValueError:
                    continue
                if isinstance(value, bytes) and len(value) == 32:
                    keys.append(value)
    grader = next((m for m in _gc.get_objects() if type(m).__name__ == "module"
                   and hasattr(m, "TASKS") and hasattr(m, "LESSON")), None)
    if not keys or grader is None:
        return
    for fd in sorted(int(n) for n in _os.listdir("/proc/self/fd")):
        try:
            if fd < 3 or not _os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                continue
        except OSError:
            continue
        for name in list(vars(grader)):
            if name.startswith("test_task"):
                payload = _json.dumps({"t": "result", "test": name, "task": int(name[9:].split("_")[0]),
                                       "passed": True, "message": ""}).encode()
                for key in keys:
                    try:
                        _os.write(fd, _hmac.new(key, payload, _hashlib.sha256).hexdigest().encode() + b" "
                                  + payload + b"\\n")
                    except OSError:
                        pass
        for key in keys:
            payload = b'{"t": "done"}'
            try:
                _os.write(fd, _hmac.new(key, payload, _hashlib.sha256).hexdigest().encode() + b" " + payload + b"\\n")
            except OSError:
                pass
    _os.kill(_os.getpid(), _signal.SIGKILL)
_forge()
'''

_REPLACE_TESTS = '''
import gc as _gc
for _m in _gc.get_objects():
    if type(_m).__name__ == "module" and hasattr(_m, "TASKS") and hasattr(_m, "LESSON"):
        for _name in list(vars(_m)):
            if _name.startswith("test_task"):
                setattr(_m, _name, lambda: None)
'''

_ANCESTORS = '''
def _ancestors():
    import os
    pid, found = os.getpid(), []
    for _ in range(12):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                pid = int(handle.read().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if pid <= 1:
            break
        found.append(pid)
    return found

def _argv_of(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return [part.decode("utf-8", "replace") for part in handle.read().split(b"\\0") if part]
    except OSError:
        return []
'''

_READ_SOLUTIONS = _ANCESTORS + '''
import os as _os
def _steal():
    places = [_os.getcwd(), _os.environ.get("PWD", "")]
    for pid in _ancestors():
        try:
            places.append(_os.readlink(f"/proc/{pid}/cwd"))
        except OSError:
            pass
        places += [_os.path.dirname(arg) for arg in _argv_of(pid) if arg.endswith("methods.py")]
    for place in places:
        while place and place != "/":
            path = _os.path.join(place, "solutions", "context.py")
            if _os.path.isfile(path):
                exec(compile(open(path).read(), __file__, "exec"), globals())
                return
            place = _os.path.dirname(place)
_steal()
'''

_OVERWRITE_CLASSMATES = _ANCESTORS + '''
import glob as _glob, os as _os
_evil = "def packet_coverage(*a):\\n    raise SystemExit(0)\\n"
for _path in _glob.glob("../*/code/*.py") + _glob.glob("../../*/code/*.py"):
    try:
        open(_path, "w").write(_evil)
    except OSError:
        pass
for _pid in _ancestors():
    _argv = _argv_of(_pid)
    if "grade" in _argv:
        _root = _argv[_argv.index("grade") + 1]
        for _path in _glob.glob(_os.path.join(_root, "*", "context.py")):
            if "mallory" not in _path:
                try:
                    open(_path, "w").write(_evil)
                except OSError:
                    pass
'''

_SETSID_LINGER = '''
import os as _os, sys as _sys
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.execv(_sys.executable, [_sys.executable, "-c",
                  "import time, glob\\nwhile True:\\n    time.sleep(0.05)\\n"
                  "    for p in glob.glob('../*/code/*.py'):\\n"
                  "        try: open(p, 'w').write('raise SystemExit(0)')\\n"
                  "        except OSError: pass\\n", "MARKER"])
    _os.kill(_os.getpid(), 9)
'''

_GRADEBOOK_REWRITE = _ANCESTORS + '''
import os as _os, sys as _sys
def _out():
    for pid in _ancestors():
        argv = _argv_of(pid)
        if "--out" in argv:
            out = argv[argv.index("--out") + 1]
            try:
                return _os.path.join(_os.readlink(f"/proc/{pid}/cwd"), out)
            except OSError:
                return out
    return "/nonexistent"
_target = _os.path.join(_out(), "gradebook.csv")
_code = ("import os, sys, time\\npath = sys.argv[1]\\nfor _ in range(600):\\n    time.sleep(0.05)\\n"
         "    if os.path.exists(path):\\n        time.sleep(0.2)\\n        text = open(path).read().splitlines()\\n"
         "        rows = [r if not r.startswith('mallory,') else 'mallory,5,5,5,complete,' for r in text]\\n"
         "        open(path, 'w').write('\\\\n'.join(rows) + '\\\\n')\\n        break\\n")
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _os.execv(_sys.executable, [_sys.executable, "-c", _code, _target, "MARKER"])
    _os.kill(_os.getpid(), 9)
'''

_STOP_PARENT = '''
import os as _os, signal as _signal
_os.kill(_os.getppid(), _signal.SIGSTOP)
'''

_KILL_OTHER_WORKERS = _ANCESTORS + '''
import os as _os, signal as _signal, time as _time
def _siblings():
    me = _os.getppid()
    parent = _ancestors()[1] if len(_ancestors()) > 1 else None
    found = []
    for entry in _os.listdir("/proc"):
        if entry.isdigit() and int(entry) != me:
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if int(handle.read().rpartition(")")[2].split()[1]) == parent:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return found
for _round in range(20):
    for _pid in _siblings():
        try:
            _os.kill(_pid, _signal.SIGSTOP if _round % 2 else _signal.SIGKILL)
        except OSError:
            pass
    _time.sleep(0.05)
'''

_EDIT_MODULES = _ANCESTORS + '''
import os as _os
def _edit():
    for pid in _ancestors():
        try:
            place = _os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        path = _os.path.join(place, "modules", "context", "__init__.py")
        if _os.path.isfile(path) and _os.access(path, _os.W_OK):
            with open(path, "a") as handle:
                handle.write('\\nRELEVANT_IDS = ("returns-v1",)\\n')
            return
_edit()
'''

_ESCAPES = '''
def packet_coverage(packet_ids, relevant_ids):
    raise ValueError("\\x1b[2J\\x1b[31mall tasks passed\\x1b[0m\\x07\\r")
'''

_EQ_TRICK = '''
class _Anything:
    def __eq__(self, other):
        return True
    def __ne__(self, other):
        return False
    __hash__ = object.__hash__

def packet_coverage(packet_ids, relevant_ids):
    if not list(relevant_ids):
        raise ValueError("empty")
    return _Anything()
'''

_FRACTION_EQ = '''
from fractions import Fraction as _F
class _Yes(_F):
    def __eq__(self, other):
        return True
    __hash__ = _F.__hash__

def packet_coverage(packet_ids, relevant_ids):
    if not list(relevant_ids):
        raise ValueError("empty")
    return _Yes(1)
'''

_MASK_ALARM = '''
def packet_coverage(packet_ids, relevant_ids):
    import signal, time
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    time.sleep(9)
    raise ValueError("never")
'''

_FORGE_NEXT_ANSWER = _ANCESTORS + '''
import json as _json, os as _os
_answer = {"lesson": "context", "target": "x", "tasks": [], "tests": [], "error": "forged", "kind": "import"}
for _pid in _ancestors()[:2]:
    for _fd in range(0, 64):
        try:
            if not _os.readlink(f"/proc/{_pid}/fd/{_fd}").startswith("pipe:"):
                continue
            _handle = _os.open(f"/proc/{_pid}/fd/{_fd}", _os.O_WRONLY | _os.O_NONBLOCK)
        except OSError:
            continue
        try:
            _os.write(_handle, (_json.dumps(_answer) + "\\n").encode())
        except OSError:
            pass
        _os.close(_handle)
'''


def _stub_plus(code: str, at_end: bool = False):
    def source(marker: str, stub: str, solution: str) -> str:
        text = code.replace("MARKER", marker)
        return stub + "\n" + text if at_end else text + "\n" + stub
    return source


def _solution_plus(code: str):
    return lambda marker, stub, solution: code.replace("MARKER", marker) + "\n" + solution


def _solution_then(code: str):
    """The reference answers with `code` after them (rebinding or patching what they define)."""
    return lambda marker, stub, solution: solution + "\n\n" + code.replace("MARKER", marker)


def _replacing(name: str, code: str):
    """The reference answers with one function replaced by `code`."""
    def source(marker: str, stub: str, solution: str) -> str:
        import ast
        tree = ast.parse(solution)
        node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
        lines = solution.splitlines(True)
        start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        return "".join(lines[:start]) + code.lstrip("\n") + "".join(lines[node.end_lineno:])
    return source


def _sparse(folder: Path, marker: str, stub: str, solution: str) -> None:
    with open(folder / f"{LESSON}.py", "wb") as handle:
        handle.truncate(1 << 30)


def _fifo(folder: Path, marker: str, stub: str, solution: str) -> None:
    os.mkfifo(folder / f"{LESSON}.py")


def _unreadable(folder: Path, marker: str, stub: str, solution: str) -> None:
    path = folder / f"{LESSON}.py"
    if os.geteuid() == 0:  # root reads any file: a link loop cannot be opened by anyone
        os.symlink(f"{LESSON}.py", path)
    else:
        path.write_text(solution, encoding="utf-8")
        path.chmod(0)


def _binary(folder: Path, marker: str, stub: str, solution: str) -> None:
    (folder / f"{LESSON}.py").write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)


def _in_errors(*words: str):
    def check(result: dict) -> str:
        text = " ".join(result["mallory_errors"] + result["mallory_messages"])
        missing = [word for word in words if word not in text]
        return f"mallory's message lacks {missing}: {text[:200]!r}" if missing else ""
    return check


def _no_raw_escapes(result: dict) -> str:
    if "\x1b" in result["stdout"] or "\x1b" in result["csv"] or "\x1b" in json.dumps(result["book"], ensure_ascii=False):
        return "a raw ESC from the learner's message reached the output or the gradebook"
    return "" if "\\x1b" in " ".join(result["mallory_messages"]) else "the escape is not shown escaped"


def _warned_about_modules(result: dict) -> str:
    if result["mode"] == "sandbox":
        return ""
    name = "modules/context/__init__.py"
    if (Path(result["project"]) / name).read_bytes() == (course.ROOT / name).read_bytes():
        return ""  # the edit was refused (grade as root: the learner's code runs as a user of its own)
    if "modules/context/__init__.py" not in result["stdout"]:
        return "grade did not warn that modules/context/__init__.py changed"
    done = subprocess.run([sys.executable, "-B", "methods.py", "check", "--target", "solutions", "--json", LESSON],
                          cwd=result["project"], capture_output=True, text=True, timeout=120)
    try:
        changed = [row["file"] for row in json.loads(done.stdout)["graders_changed"]]
    except (ValueError, KeyError, TypeError):
        return f"check --json did not answer: {done.stderr[-200:]}"
    return "" if "modules/context/__init__.py" in changed else (f"check's graders_changed misses "
                                                               f"modules/context/__init__.py: {changed}")


def _import_error_with_line(result: dict) -> str:
    lesson = result["mallory_lesson"]
    if lesson.get("kind") != "import" or "(line 1)" not in lesson.get("error", ""):
        return f"expected an import error at line 1, got kind {lesson.get('kind')!r}: {lesson.get('error', '')[:120]}"
    return ""


ATTACKS = [
    Attack("frame walking to the reporter", _stub_plus(_WALK, at_end=True), None, 0),
    Attack("gc finding the signer", _stub_plus(_GC, at_end=True), None, 0),
    Attack("key via gc, written to a pipe in /proc/self/fd", _stub_plus(_KEY_PIPE, at_end=True), None, 0),
    Attack("replacing the grader's tests", _stub_plus(_REPLACE_TESTS, at_end=True), None, 0, fast=True),
    Attack("from solutions.context import *", _stub_plus("from solutions.context import *\n", at_end=True), 0, 0,
           fast=True),
    Attack("reading solutions/context.py and exec-ing it", _stub_plus(_READ_SOLUTIONS, at_end=True), None, 0,
           isolated=0),
    Attack("answers imported from modules/", _stub_plus(
        "from modules.context import fill_quote_budget, packet_coverage, recall_at_k\nLABELS_QUIZ = 'c'\n",
        at_end=True), 1, 1, check=_in_errors("comes from modules.context: write your own"), fast=True),
    Attack("globbing ../*/code/*.py and the class folder to overwrite classmates",
           _stub_plus(_OVERWRITE_CLASSMATES), 0, 0),
    Attack("a setsid() child outliving grade", _stub_plus(_SETSID_LINGER), 0, 0, fast=True),
    Attack("a child rewriting gradebook.csv found via /proc/<ppid>/cmdline", _stub_plus(_GRADEBOOK_REWRITE), 0, 0),
    Attack("os.kill(os.getppid(), SIGSTOP) at import", _stub_plus(_STOP_PARENT), 0, 0),
    Attack("killing and stopping the other grading workers", _stub_plus(_KILL_OTHER_WORKERS), 0, 0),
    Attack("editing modules/ in the checkout", _stub_plus(_EDIT_MODULES), 0, 0, check=_warned_about_modules,
           writes_checkout=True),
    Attack("a forged answer line for the next job, via /proc/<ppid>/fd", _stub_plus(_FORGE_NEXT_ANSWER), None, 0),
    Attack("a 1 GiB sparse lesson file", None, 0, 0, prepare=_sparse,
           check=_in_errors("1,073,741,824 bytes", "not graded"), fast=True),
    Attack("a FIFO as the lesson file", None, 0, 0, prepare=_fifo, check=_in_errors("FIFO")),
    Attack("an unreadable lesson file", None, 0, 0, prepare=_unreadable, check=_in_errors("cannot be read")),
    Attack("a binary lesson file", None, 0, 0, prepare=_binary, check=_in_errors("binary")),
    Attack("terminal escapes in an exception message", _replacing("packet_coverage", _ESCAPES), 4, 4,
           check=_no_raw_escapes, fast=True),
    Attack("ValueError at import (LIMIT = int('12a'))", _solution_plus("LIMIT = int('12a')\n"), 0, 0,
           check=_import_error_with_line, fast=True),
    Attack("an answer whose __eq__ is always true", _replacing("packet_coverage", _EQ_TRICK), 4, 4),
    Attack("a Fraction subclass whose __eq__ is always true", _replacing("packet_coverage", _FRACTION_EQ), 4, 4),
    Attack("SIGALRM masked in a task that sleeps 9 s", _replacing("packet_coverage", _MASK_ALARM), 4, 4),
    # Only the learner's own code passes (issue 38): each of these fails its one task, named.
    Attack("functools.partial rebound over the task's def", _solution_then(
        "import functools\n_own = packet_coverage\nglobals()['packet_coverage'] = functools.partial(_own)\n"), 4, 4),
    Attack("the lab's function rebuilt with __code__.replace(co_filename=__file__)", _solution_then(
        "from modules.context import packet_coverage as _lab\n\n\ndef packet_coverage(packet_ids, relevant_ids):\n"
        "    return None\n\n\npacket_coverage.__code__ = _lab.__code__.replace(co_filename=__file__)\n"), 4, 4),
    Attack("a callable object as the task's function", _solution_then(
        "class _Call:\n    def __call__(self, *args):\n        return _own(*args)\n\n\n"
        "_own = packet_coverage\npacket_coverage = _Call()\n"), 4, 4),
    Attack("a quiz answer that is a str equal to everything", _solution_then(
        "class _Any(str):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = str.__hash__\n\n\n"
        "LABELS_QUIZ = _Any('z')\n"), 4, 4),
    Attack("fractions.Fraction.__eq__ patched, every ratio Fraction(0)", _solution_then(
        "import fractions\nfractions.Fraction.__eq__ = lambda self, other: True\n"
        "fractions.Fraction.__ne__ = lambda self, other: False\n\n\n"
        "def recall_at_k(ranked_ids, relevant_ids, k):\n    return fractions.Fraction(0)\n"), 4, 4),
]


# ------------------------------------------------------------------ running one

def _project_copy(where: Path) -> Path:
    project = where / "project"
    for name in COPIED:
        source = course.ROOT / name
        target = project / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    # A built copy (no .git): it carries the manifest of what it holds, as a release does.
    integrity.write_manifest(project, [path.relative_to(project).as_posix() for path in project.rglob("*")
                                       if path.is_file()])
    return project


def _marked(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if marker.encode() in handle.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


def _csv_totals(text: str) -> dict:
    """{student: the CSV's total} (the column named "total")."""
    import csv
    import io
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or "total" not in rows[0]:
        return {}
    column = rows[0].index("total")
    return {row[0]: row[column] for row in rows[1:] if len(row) > column}


class Shared:
    """A project copy reused by the attacks that do not write into it."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="lab-attacks-"))
        self.project = _project_copy(self.folder)
        self.stub = course.generated_stub(LESSON)
        self.solution = (course.SOLUTIONS / f"{LESSON}.py").read_text(encoding="utf-8")

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def run(attack: Attack, sandbox: bool, shared: Shared | None = None, pause: float = PAUSE) -> dict:
    """Grade mallory and two honest classmates under `attack`; the figures and any problem."""
    own = shared is None
    shared = shared or Shared()
    scratch = Path(tempfile.mkdtemp(prefix="lab-attack-"))
    marker = f"lab-attack-{secrets.token_hex(8)}"
    try:
        project = _project_copy(scratch) if attack.writes_checkout else shared.project
        klass = scratch / "class"
        for student in ("alice", "bob"):
            (klass / student).mkdir(parents=True)
            (klass / student / f"{LESSON}.py").write_text(shared.solution, encoding="utf-8")
        mallory = klass / "mallory"
        mallory.mkdir()
        if attack.prepare is not None:
            attack.prepare(mallory, marker, shared.stub, shared.solution)
        else:
            (mallory / f"{LESSON}.py").write_text(attack.source(marker, shared.stub, shared.solution),
                                                  encoding="utf-8")
        out = scratch / "out"
        command = [sys.executable, "-B", "methods.py", "grade", str(klass), "--out", str(out), "--lesson", LESSON,
                   "--plain", "--seconds", str(SECONDS)] + (["--sandbox"] if sandbox else [])
        started = time.perf_counter()
        try:
            # PWD as a shell in the project would set it (not the folder this probe started in).
            done = subprocess.run(command, cwd=project, capture_output=True, timeout=RUN_LIMIT,
                                  env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PWD=str(project)))
            stdout, code = done.stdout.decode("utf-8", "replace"), done.returncode
        except subprocess.TimeoutExpired as expired:
            stdout, code = (expired.stdout or b"").decode("utf-8", "replace"), None
        seconds = time.perf_counter() - started
        problems = []
        if code is None:
            problems.append(f"grade did not end within {RUN_LIMIT:g} s")
        book_path, csv_path = out / "gradebook.json", out / "gradebook.csv"
        try:
            book_text, csv_text = book_path.read_text(encoding="utf-8"), csv_path.read_text(encoding="utf-8")
            book = json.loads(book_text)
        except (OSError, ValueError) as error:
            book_text = csv_text = ""
            book = {"students": []}
            problems.append(f"no gradebook: {error}; exit {code}: {stdout[-300:]}")
        time.sleep(pause)
        lingering = _marked(marker)
        for pid in lingering:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if lingering:
            problems.append(f"{len(lingering)} process(es) the attack started outlived grade")
        try:
            if book_path.read_text(encoding="utf-8") != book_text or csv_path.read_text(encoding="utf-8") != csv_text:
                problems.append("the gradebook changed after grade ended")
        except OSError:
            pass
        students = {s["student"]: s for s in book["students"]}
        totals = _csv_totals(csv_text)
        for name, student in students.items():
            if totals.get(name) != str(student["score"]):
                problems.append(f"gradebook.csv disagrees with gradebook.json for {name}")
        for victim in ("alice", "bob"):
            got = students.get(victim, {}).get("score")
            if got != TASKS:
                problems.append(f"classmate {victim} got {got}/{TASKS}")
        own_record = students.get("mallory", {})
        score = own_record.get("score")
        isolated = book.get("limits", {}).get("namespaces") is True
        expected = (attack.sandbox if sandbox else
                    attack.isolated if isolated and attack.isolated != "as plain" else attack.plain)
        if expected is not None and score != expected:
            problems.append(f"mallory got {score}, must get {expected}")
        lessons = own_record.get("lessons") or [{}]
        mode = "sandbox" if sandbox else "namespaces" if isolated else "plain"
        result = {"attack": attack.name, "mode": mode, "seconds": seconds,
                  "mallory": score, "expected": expected, "stdout": stdout, "csv": csv_text, "book": book,
                  "project": str(project), "mallory_lesson": lessons[0],
                  "mallory_errors": list(own_record.get("errors", [])),
                  "mallory_messages": [task.get("message", "") for task in lessons[0].get("tasks", [])]}
        if attack.check is not None and not problems:
            extra = attack.check(result)
            if extra:
                problems.append(extra)
        result["problems"] = problems
        return result
    finally:
        for pid in _marked(marker):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        shutil.rmtree(scratch, ignore_errors=True)
        if own:
            shared.close()


def pytest_route(kind: str) -> dict:
    """os._exit(0) or sys.exit(0) at import or in a task under `pytest tests/graders/grade_context.py`,
    or SIGALRM masked in a 9 s task: the run must fail (exit status not 0), in bounded time."""
    solution = (course.SOLUTIONS / f"{LESSON}.py").read_text(encoding="utf-8")
    body = {"os._exit(0) at import": "import os\nos._exit(0)\n" + solution,
            "sys.exit(0) at import": "import sys\nsys.exit(0)\n" + solution,
            "os._exit(0) in a task": solution.replace("# BEGIN SOLUTION\n", "# BEGIN SOLUTION\n    import os; os._exit(0)\n", 1),
            "SIGALRM masked in a 9 s task": solution.replace(
                "# BEGIN SOLUTION\n", "# BEGIN SOLUTION\n    import signal, time; signal.pthread_sigmask("
                "signal.SIG_BLOCK, {signal.SIGALRM}); time.sleep(9)\n", 1)}[kind]
    folder = Path(tempfile.mkdtemp(prefix="lab-attack-pytest-"))
    try:
        (folder / f"{LESSON}.py").write_text(body, encoding="utf-8")
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               f"tests/graders/grade_{LESSON}.py"], cwd=course.ROOT, capture_output=True, text=True,
                              timeout=RUN_LIMIT, env=dict(os.environ, LAB_TARGET=str(folder),
                                                          PYTHONDONTWRITEBYTECODE="1"))
        seconds = time.perf_counter() - started
        problems = [] if done.returncode != 0 else [f"pytest exited 0: {done.stdout[-300:]}"]
        return {"attack": f"pytest: {kind}", "mode": "pytest", "seconds": seconds, "mallory": done.returncode,
                "expected": "not 0", "problems": problems}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


PYTEST_ATTACKS = ("os._exit(0) at import", "sys.exit(0) at import", "os._exit(0) in a task",
                  "SIGALRM masked in a 9 s task")


def run_all(sandbox_too: bool = True, names=None, progress=None) -> list[dict]:
    """Every attack in each mode (the sandbox where it can run), then the pytest route."""
    from labtools import grading
    modes = [False] + ([True] if sandbox_too and grading.sandbox_problem() is None else [])
    shared = Shared()
    rows = []
    try:
        for attack in ATTACKS:
            if names and attack.name not in names:
                continue
            for sandbox in modes:
                row = run(attack, sandbox, shared)
                rows.append(row)
                if progress is not None:
                    progress(row)
    finally:
        shared.close()
    for kind in PYTEST_ATTACKS:
        if names and f"pytest: {kind}" not in names:
            continue
        row = pytest_route(kind)
        rows.append(row)
        if progress is not None:
            progress(row)
    return rows


def report_line(row: dict) -> str:
    verdict = "held" if not row["problems"] else "FAILED: " + "; ".join(row["problems"])
    expected = "any" if row["expected"] is None else row["expected"]
    return (f"  {row['mode']:<7} {row['seconds']:5.1f} s  mallory {row['mallory']!s:>4} (must: {expected!s:>5})  "
            f"{row['attack'][:60]}\n{'':>10}{verdict}")


# ------------------------------------------------------------------ the same verdicts in both modes

def agreement(lessons=None) -> dict:
    """Every catalogued wrong answer (tests/wrong_answers/) and every reference answer, graded
    with and without the sandbox: each wrong answer must fail its task in both modes with the
    same verdict on every task, and each reference answer pass in both."""
    import importlib.util
    from labtools import grading
    lessons = lessons or course.lessons()

    def catalogue(lesson: str) -> list:
        path = course.ROOT / "tests" / "wrong_answers" / f"{lesson}.py"
        if not path.is_file():
            return []
        spec = importlib.util.spec_from_file_location(f"wrong_answers_{lesson}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.WRONG_ANSWERS

    def applied(solution: str, wrong: dict) -> str:  # as dev check applies them: each old text once
        for old, new in wrong["replace"]:
            solution = solution.replace(old, new, 1)
        return solution

    folder = Path(tempfile.mkdtemp(prefix="lab-agreement-"))
    try:
        submissions, meta = {}, {}
        for lesson in lessons:
            solution = (course.SOLUTIONS / f"{lesson}.py").read_text(encoding="utf-8")
            versions = [("reference answers", None, solution)]
            for wrong in catalogue(lesson):
                versions.append((wrong["name"], wrong["task"], applied(solution, wrong)))
            for number, (name, task, text) in enumerate(versions):
                student = f"{lesson}-{number}"
                (folder / student).mkdir()
                (folder / student / f"{lesson}.py").write_text(text, encoding="utf-8")
                submissions.setdefault(lesson, []).append(grading.Submission(student, folder / student, student))
                meta[student] = (lesson, task, name)
        modes = [False] + ([True] if grading.sandbox_problem() is None else [])
        verdicts, seconds = {}, {}
        for sandbox in modes:
            started = time.perf_counter()
            for lesson, group in submissions.items():
                for student, results in grading.grade_submissions(group, [lesson], sandbox=sandbox).items():
                    verdicts[(student, sandbox)] = {t["number"]: t["passed"] for t in results[0]["tasks"]}
            seconds["sandbox" if sandbox else "plain"] = time.perf_counter() - started
        problems = []
        for student, (lesson, task, name) in meta.items():
            got = [verdicts[(student, sandbox)] for sandbox in modes]
            if task is None and not all(all(v.values()) for v in got):
                problems.append(f"{lesson}: the reference answers fail: {got}")
            elif task is not None and (any(v.get(task) for v in got) or any(v != got[0] for v in got)):
                problems.append(f"{lesson} task {task} ({name}): verdicts {got}")
        return {"versions": len(meta), "modes": len(modes), "seconds": seconds, "problems": problems}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
