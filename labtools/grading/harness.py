"""What every grader shares: find the code under test, call it, explain failures.

Graders (tests/graders/grade_NAME.py) are plain functions named `test_task<N>_...` that use
plain `assert`-free checks from here, so they run the same under pytest and under
`methods.py check` (which needs nothing but Python). The code under test comes from LAB_TARGET:

    exercises   the learner's files (the default)
    solutions   the reference answers
    a path      any folder holding the same file names (a submission to grade)

worker.py runs the graders in processes of their own (see its docstring); pool.py drives it.
The learner's file is always compiled from its source text (never from bytecode), and a link
in the folder that points outside it is not followed. `run()` can give every task a time
limit, and reports each test's result as it finishes.

A task's answer must be the learner's own: `function()` and `constant()` accept a name only
when the file's syntax tree binds it at the top level by a def or an assignment (not an
import), and a function only when its code was compiled from that file.

Under `grade --sandbox`, worker.py sets `_remote` (a remote.Remote): load() then returns a
RemoteModule whose functions run in the sandboxed process, and patched() applies there too;
the graders read the same either way.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import io
import os
import re
import signal
import sys
import threading
import time
import traceback
import types
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from labtools.grading import hints, sources
from labtools.grading.wire import code_objects
from labtools.grading.snapshot import GRADERS, ROOT, grader_module, harness_bytes, install_snapshot  # noqa: F401

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# Grading must never leave files in the graded folder (no __pycache__).
sys.dont_write_bytecode = True


@dataclass(frozen=True)
class Task:
    """One graded task: what to write, and hints from a nudge to nearly the answer."""

    number: int
    name: str   # the function or constant the learner writes
    title: str
    hints: tuple[str, ...] = ()  # from exercises/hints/LESSON.md, by hinted()


class LabFailure(AssertionError):
    """A failed check, worded for the learner."""


class LoadFailure(LabFailure):
    """The learner's file could not be imported at all. `kind` says why: missing, link, syntax,
    import (it raised), exit (it ended the program) or timeout."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


class Overtime(BaseException):
    """Raised by the time limit. A BaseException, so neither `except Exception` in the graded
    code nor call() below swallows it."""


class ExitCalled(SystemExit):
    """What os._exit() raises while a grading child runs (see trap_exits): a function that
    ends the program is named in its task's message instead of silently ending the grading."""


def target_dir() -> Path:
    value = os.environ.get("LAB_TARGET", "exercises") or "exercises"
    path = ROOT / value if value in ("exercises", "solutions") else Path(value).expanduser().resolve()
    if not path.is_dir():
        raise LabFailure(f"LAB_TARGET={value!r} is not a folder; use exercises, solutions or a folder path")
    return path


# A private copy of a submission is shown under the name of the folder it was copied from:
# copy folder -> the folder as the reader knows it.
_display: dict[Path, str] = {}


def shown_path(path: Path) -> str:
    shown = _display.get(Path(path).parent)
    if shown is not None:
        return f"{shown.rstrip('/')}/{Path(path).name}"
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


_loaded: dict[tuple[str, Path], object] = {}
# Internal hook for batch grading (run.py --batch): lesson -> (path to show, source text).
# While set, load() executes that text instead of reading <target>/<lesson>.py, so one
# process can grade many versions of a file (wrong answers, mutants) without writing any.
_sources: dict[str, tuple[Path, str]] = {}


def _exec_source(name: str, path: Path, text: str, compiled=None):
    import linecache
    import types
    module = types.ModuleType(name)
    module.__file__ = str(path)
    # Tracebacks and inspect.getsource() read the text from linecache, as for a real file.
    linecache.cache[str(path)] = (len(text), None, text.splitlines(True), str(path))
    sys.modules[name] = module  # while it runs, as for a file: @dataclass looks its module up there
    try:
        exec(compiled if compiled is not None else compile(text, str(path), "exec", dont_inherit=True),
             module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def _read_source(lesson: str, path: Path) -> str:
    """The text of `<target>/<lesson>.py`: a regular file inside the folder (or a link to one
    inside it), decoded as Python decodes source. Never its bytecode."""
    folder = path.parent.resolve()
    if path.is_symlink():
        real = path.resolve()
        if folder != real.parent and folder not in real.parents:
            raise LoadFailure(f"{shown_path(path)} is a link to {real}, outside the folder: only files inside "
                              f"the folder are graded", "link")
    if not os.path.lexists(path) or (path.is_symlink() and not path.exists()):
        raise LoadFailure(f"{shown_path(path)} does not exist: the exercises for '{lesson}' live in that file "
                          f"{_restore_advice(lesson, path)}", "missing")
    try:
        return sources.decode_text(sources.read_limited(path, shown_path(path)), shown_path(path))
    except sources.Unreadable as problem:
        raise LoadFailure(str(problem), problem.kind) from None


def _learners_own(path: Path) -> bool:
    """Whether `path` is in the learner's own exercises/ (check without --target), where `reset`
    is the advice; anywhere else (check --target, grade, pytest with LAB_TARGET) it is a
    submission, and `reset` would replace the reader's own file, not the submission's."""
    try:
        return Path(path).parent.resolve() == (ROOT / "exercises").resolve() and lesson_target_is_default()
    except OSError:
        return False


def lesson_target_is_default() -> bool:
    return (os.environ.get("LAB_TARGET", "exercises") or "exercises") == "exercises"


def _restore_advice(lesson: str, path: Path) -> str:
    if _learners_own(path):
        return f"(restore it with: python3 -B methods.py reset {lesson})"
    return f"(the submission has no {lesson}.py there, so the lesson was not graded)"


def syntax_message(path: Path, error: SyntaxError) -> str:
    """Where the parser stopped: file, line, column and the line itself with a caret."""
    where = f"line {error.lineno}" + (f", column {error.offset}" if error.offset else "")
    lines = [f"{shown_path(path)} has a syntax error at {where}: {error.msg}"]
    if error.text:
        text = error.text.rstrip("\n")
        stripped = text.lstrip()
        lines.append(f"    {stripped}")
        if error.offset:
            column = max(0, min(len(stripped), error.offset - 1 - (len(text) - len(stripped))))
            lines.append("    " + " " * column + "^")
    return "\n".join(lines)


def _learner_line(traceback_, path: Path) -> int | None:
    """The last line of the learner's file in a traceback (None when it never passed through it)."""
    lines = [frame.lineno for frame in traceback.extract_tb(traceback_) if frame.filename == str(path)]
    return lines[-1] if lines else None


def import_failure(path: Path, error: BaseException, line) -> LoadFailure:
    where = f" (line {line})" if line else ""
    if isinstance(error, SystemExit):
        return LoadFailure(f"{shown_path(path)} ends the program when imported ({exit_words(error)}){where}: a "
                           f"lesson file should only define functions and constants", "exit")
    return LoadFailure(f"{shown_path(path)} fails when imported{where}: {type(error).__name__}: "
                       f"{_text_of(error)}", "import")


def _text_of(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:
        return f"<{type(error).__name__}: str() failed>"


def load(lesson: str, fresh: bool = False):
    """Import `<target>/<lesson>.py`; a broken or missing file fails every check with one clear message.

    Under the sandbox (`_remote` set by worker.py) the file runs in the sandboxed process and this
    returns a RemoteModule: its functions are called there, with plain data both ways."""
    given = _sources.get(lesson)
    path = given[0] if given else target_dir() / f"{lesson}.py"
    key = (lesson, path)
    if not fresh and key in _loaded:
        return _loaded[key]
    text = given[1] if given is not None else _read_source(lesson, path)
    if _remote is not None:
        module = _remote.load_module(lesson, path, text)
        _bindings_of[id(module)] = (module, _bindings(text))
        if not fresh:
            _loaded[key] = module
        return module
    name = f"lab_target_{lesson}_{len(_loaded)}"
    try:
        compiled = compile(text, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:
        raise LoadFailure(syntax_message(path, error), "syntax") from None
    except ValueError as error:  # a null byte in the source
        raise LoadFailure(f"{shown_path(path)} cannot be compiled: {error}", "syntax") from None
    try:
        module = _exec_source(name, path, text, compiled)
    except (SystemExit, Exception) as error:  # the learner's module failed while importing
        raise import_failure(path, error, _learner_line(error.__traceback__, path)) from None
    _bindings_of[id(module)] = (module, _bindings(text))
    _codes_of[id(module)] = (module, code_objects(compiled))
    if not fresh:
        _loaded[key] = module
    return module


# id(module) -> (module, code_objects(...)) for every learner module this process compiled.
_codes_of: dict[int, tuple] = {}


# ------------------------------------------------------------------ answers written in the file itself

# id(module) -> (module, {name: (how, where)}) for every learner module loaded: how a top-level
# name is bound in the file's syntax tree ("own": def, class or assignment; "import": from `where`).
_bindings_of: dict[int, tuple] = {}


# Parsed once per source text by the worker before it forks (see analyse()), then reused.
_analysed: dict[str, tuple] = {}
# {function name: {normalised syntax tree: where}} of the lab modules and solutions/ (run.py sets it).
_references: dict[str, dict[str, str]] = {}


def _normalised(node) -> str:
    """A function's syntax tree without its docstring, as text (positions left out), with its
    local names (parameters, assigned names, loop and comprehension variables) renamed in order
    of first appearance: renaming a variable does not make copied code the learner's own."""
    import ast
    import copy
    clone = copy.deepcopy(node)
    body = list(clone.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    clone.body = body
    local = [a.arg for a in ast.walk(clone.args) if isinstance(a, ast.arg)]
    local += [n.id for n in ast.walk(clone) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))]
    renamed: dict[str, str] = {}
    for name in local:
        renamed.setdefault(name, f"_v{len(renamed)}")
    for item in ast.walk(clone):
        if isinstance(item, ast.Name) and item.id in renamed:
            item.id = renamed[item.id]
        elif isinstance(item, ast.arg) and item.arg in renamed:
            item.arg = renamed[item.arg]
    return ast.dump(clone, annotate_fields=False)


def _parse(text: str):
    import ast
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def functions_of(text: str) -> dict[str, str]:
    """{name: normalised tree} of a file's top-level functions."""
    import ast
    tree = _parse(text)
    return {} if tree is None else {node.name: _normalised(node) for node in tree.body
                                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}


_DEF = re.compile(r"^(?:async\s+)?def\s+(\w+)\s*\(", re.M)
# {function name: [where, ...]} of the reference files that define it at the top level, and their
# texts: the trees are normalised only for the names a learner's file defines (all of them at
# once cost a worker about a second at every start).
_reference_files: dict[str, list[str]] = {}
_reference_texts: dict[str, str] = {}


def set_references(sources: dict[str, str]) -> None:
    """The functions a learner's may not simply copy: {where: text} of lab modules and solutions."""
    _references.clear()
    _reference_files.clear()
    _reference_texts.clear()
    for where, text in sorted(sources.items()):
        _reference_texts[where] = text
        for name in dict.fromkeys(_DEF.findall(text)):
            _reference_files.setdefault(name, []).append(where)


def _references_named(name: str) -> dict[str, str]:
    """{normalised tree: where} of the reference functions called `name` (computed on first use)."""
    if name not in _references:
        found: dict[str, str] = {}
        for where in _reference_files.get(name, ()):
            tree = functions_of(_reference_texts[where]).get(name)
            if tree is not None:
                found.setdefault(tree, where[:-3] if where.endswith(".py") else where)
        _references[name] = found
    return _references[name]


def analyse(text: str) -> dict:
    """One parse of a learner's file: how its names are bound (for function()/constant()) and
    which of its functions equal a reference one ({name: where}, marked "copied", not scored)."""
    import ast
    if text in _analysed:
        return _analysed[text][1]
    tree = _parse(text)
    copied = {}
    if tree is not None:
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in _reference_files:
                where = _references_named(node.name).get(_normalised(node))
                if where is not None:
                    copied[node.name] = where
    _analysed.clear()  # one file at a time: a worker grades thousands
    _analysed[text] = (_bindings(text, tree), copied)
    return copied


def _bindings(text: str, tree=False) -> dict:
    import ast
    if tree is False and text in _analysed:
        return _analysed[text][0]
    if tree is False:
        tree = _parse(text)
    if tree is None:
        return {}
    found: dict = {}

    def bind_target(target) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                found[node.id] = ("own", "")

    def walk(statements) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[node.name] = ("own", "def")
            elif isinstance(node, ast.ClassDef):
                found[node.name] = ("own", "")
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    bind_target(target)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    found[alias.asname or alias.name.split(".")[0]] = ("import", alias.name)
            elif isinstance(node, ast.ImportFrom):
                source = "." * node.level + (node.module or "")
                for alias in node.names:
                    if alias.name == "*":
                        found.setdefault("*", ("import", source))
                    else:
                        found[alias.asname or alias.name] = ("import", source)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
                if isinstance(node, (ast.For, ast.AsyncFor)):
                    bind_target(node.target)
                walk(node.body)
                walk(getattr(node, "orelse", []))
            elif isinstance(node, ast.If) or isinstance(node, ast.While):
                walk(node.body)
                walk(node.orelse)
            elif isinstance(node, ast.Try):
                walk(node.body)
                for handler in node.handlers:
                    walk(handler.body)
                walk(node.orelse)
                walk(node.finalbody)
    walk(tree.body)
    return found


def _require_own(module, name: str, found, file: str | None) -> str | None:
    """A task's answer must be written in the learner's file: a top-level def or assignment of
    `name` (not an import), and for a function, code compiled from that file."""
    entry = _bindings_of.get(id(module))
    if entry is None or entry[0] is not module:
        return None  # not a learner module (a grader's own helper module, say)
    bindings = entry[1]
    shown = shown_path(Path(module.__file__))
    how, where = bindings.get(name, (None, ""))
    if how is None and "*" in bindings:
        how, where = bindings["*"]
    if how == "import":
        raise LabFailure(f"{name} comes from {where}: write your own in {shown} (an answer imported from "
                         f"another file is not graded as yours)")
    if how is None:
        raise LabFailure(f"{shown} does not define {name} itself (no top-level def or assignment of {name} was "
                         f"found): write your own")
    if file is not None and file != str(module.__file__):
        source = file
        for part in ("/modules/", "/solutions/"):
            if part in file:
                source = part.strip("/") + "/" + file.split(part, 1)[1]
        raise LabFailure(f"{name} comes from {source}: write your own in {shown}")
    return where


def _require_plain(module, name: str, found, how: str, shown: str) -> None:
    """A task's function is a plain function, written with `def` at the top of the file, whose
    code object compiling the file made: not a functools.partial, a callable object, a builtin,
    a rebinding of the name, or code rebuilt with __code__.replace(co_filename=...)."""
    if how != "def":
        raise LabFailure(f"{name} in {shown} is not bound by a `def {name}(...)` at the top of the file (it is "
                         f"assigned): write the function itself there")
    if _remote is not None:
        plain = _remote.is_plain(found)  # the sandboxed process compiled the file and says so
    else:
        entry = _codes_of.get(id(module))
        code = getattr(found, "__code__", None)
        plain = (type(found) is types.FunctionType and entry is not None and entry[0] is module
                 and entry[1].get(id(code)) is code)
    if not plain:
        raise LabFailure(f"{name} in {shown} is not a plain function compiled from that file (got "
                         f"{_kind_of(found)}): write it with def, and return the answer from its body")


def function(module, name: str):
    found = getattr(module, name, None)
    if not callable(found):
        advice = (f"(python3 -B methods.py reset {_lesson(module)} restores the stub)"
                  if _learners_own(Path(module.__file__))
                  else "(the submission's file does not define it, so the task was not graded)")
        raise LabFailure(f"{shown_path(Path(module.__file__))} should define {name}(...), but it was not found. "
                         f"Was it renamed or deleted? {advice}")
    file = _remote.file_of(found) if _remote is not None else None  # where the sandbox compiled it
    if file is None:
        code = getattr(found, "__code__", None)
        file = str(code.co_filename) if code is not None else None
    how = _require_own(module, name, found, file)
    if how is not None:
        _require_plain(module, name, found, how, shown_path(Path(module.__file__)))
    return found


def constant(module, name: str):
    if not hasattr(module, name):
        raise LabFailure(f"{shown_path(Path(module.__file__))} should define the constant {name}, but it was not found.")
    value = getattr(module, name)
    _require_own(module, name, value, None)
    return value


def _lesson(module) -> str:
    return Path(module.__file__).stem


# What is running now, for a message about a loop or an exit: the test, and the last call
# into the learner's code. `_on_call`, when set (by run.py), hears about every call first.
_current = {"test": "", "call": ""}
_on_call = None
_NOTHING = object()  # _current["result"] before the test's first call returned


def _calling(shown: str) -> None:
    _current["call"] = shown
    _current["result"] = _NOTHING
    if _on_call is not None:
        _on_call(shown)


_COST = re.compile(r"\b(linear|quadratic|constant|logarithmic) time\b|\bO\([^)]*\)|\bone pass\b", re.IGNORECASE)


def _cost_of(name: str) -> str:
    """The sentence of the learner's docstring of `name` that names a cost ("Run in linear time:
    no `list.insert` in a loop ..."), or "": what a time-out repeats."""
    for module, _names in list(_bindings_of.values()):
        doc = getattr(getattr(module, name, None), "__doc__", None)
        if isinstance(doc, str):
            for sentence in re.split(r"(?<=[.!?])\s+", " ".join(doc.split())):
                if _COST.search(sentence):
                    return sentence[:240]
    return ""


def exit_words(stop: SystemExit) -> str:
    if isinstance(stop, ChildDied):
        return f"nothing: {stop.code}" if stop.code else "nothing: the sandboxed process ended"
    if isinstance(stop, ExitCalled):
        return f"os._exit({stop.code!r})"
    return f"sys.exit({stop.code!r})" if stop.code is not None else "sys.exit()"


def _exit_failure(stop: SystemExit, shown: str) -> LabFailure:
    return LabFailure(f"called {shown}\n  it tried to end the program with {exit_words(stop)}\n"
                      f"  (a function should return its answer; nothing here may exit)")


def _learner_files() -> set[str]:
    return {str(module.__file__) for module, _names in _bindings_of.values()}


def where_it_raised(error: BaseException) -> str:
    """"  at exercises/context.py, line 14: <the line>" for the last frame of the learner's own
    file in the error's traceback (whatever wrapped the function: functools.partial, a
    decorator), or "" when it never ran there."""
    learners = _learner_files()
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename in learners]
    if not frames:
        return ""
    frame = frames[-1]
    text = (frame.line or "").strip()
    return f"\n  at {shown_path(Path(frame.filename))}, line {frame.lineno}" + (f": {text[:100]}" if text else "")


def _text_safely(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # noqa: BLE001 - a learner's exception may fail to print
        return f"<a {type(error).__name__} that cannot be printed>"


def call(fn, *args, shown: str, **kwargs):
    """Call the learner's function; turn a stub or a crash into a readable failure that names
    the learner's file and line."""
    _calling(shown)
    try:
        result = fn(*args, **kwargs)
    except NotImplementedError:
        name = getattr(fn, "__name__", None) or shown.split("(", 1)[0]
        raise LabFailure(f"{name} is not written yet: it still raises NotImplementedError "
                         f"(called {shown}). Replace the raise with your code.") from None
    except SystemExit as stop:
        raise _exit_failure(stop, shown) from None
    except Exception as error:
        raise LabFailure(f"called {shown}\n  it raised {type(error).__name__}: {_text_safely(error)}"
                         f"{where_it_raised(error)}\n  (no error was expected here)") from None
    _current["result"] = result  # what came back, for wrong_type_failure() if the grader cannot read it
    return result


# The errors a grader's own code raises when a value the learner returned is not of the kind
# it reads (ids where Passages were due, a dict for a record, None): reported as such.
READING_ERRORS = (AttributeError, TypeError, KeyError, IndexError)


def _kind_of(value) -> str:
    if value is None:
        return "None"
    name = type(value).__name__
    if type(value) in (list, tuple) and value:
        name += f" of {type(value[0]).__name__}"
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def _needed(error: BaseException, got) -> str:
    """What the grader needed, in words, from the error its reading raised."""
    text = _text_of(error)
    if isinstance(error, AttributeError):
        name = getattr(error, "name", None) or (text.rsplit("'", 2)[-2] if text.count("'") >= 4 else "")
        if not name:
            return "a value of the documented type"
        obj = getattr(error, "obj", _NOTHING)
        if type(got) in (list, tuple, set, frozenset) and any(item is obj for item in got):
            return f"items with the field .{name} (records, not {type(obj).__name__} values)"
        return f"a value with the field .{name}"
    if isinstance(error, KeyError):
        return f"a value holding the key {shown_value(error.args[0], 40) if error.args else ''}".rstrip()
    if isinstance(error, IndexError):
        return "a value with as many items as the task documents"
    return "a value of the type the task documents"


def wrong_type_failure(error: BaseException, learner: str | None = None):
    """A LabFailure for a grader that could not read what the learner's code returned, or None.

    It applies when `error` is one of READING_ERRORS, was raised by the grader's code (no frame
    of it is in the learner's file `learner`), and a call of the learner's code in this test has
    returned: the message is called / got (the value and its type) / expected (what was read)."""
    if not isinstance(error, READING_ERRORS) or _current.get("result", _NOTHING) is _NOTHING:
        return None
    learners = {str(module.__file__) for module, _names in _bindings_of.values()} | {learner}
    if any(frame.filename in learners for frame in traceback.extract_tb(error.__traceback__)):
        return None  # the learner's own code raised it (a method of a value it returned, say)
    got = _current["result"]
    return LabFailure(f"called {_current['call']}\n  got:      {shown_value(got, 60)} ({_kind_of(got)})\n"
                      f"  expected: {_needed(error, got)}\n"
                      f"  (the grader could not read the value: {type(error).__name__}: {_text_of(error)[:120]})")


def full_value(value) -> str:
    """A value's whole repr, or, when it has none that prints (nested too deep, an int past the
    digit limit, a repr that raises), shown_value's description of it."""
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - RecursionError, ValueError, or a learner's own __repr__
        return shown_value(value)


_NUMERATOR, _DENOMINATOR = Fraction.__dict__["_numerator"], Fraction.__dict__["_denominator"]
_BUILTIN = (int, float, complex, str, bytes, bool, type(None))


def same(actual, expected) -> bool:
    """Whether `actual` equals `expected` with exactly its type, item by item. No method the
    learner's code defined or patched decides it: a str or int subclass fails on its type, a
    Fraction is compared by its numerator and denominator as read before any learner code ran
    (fractions.Fraction.__eq__ may have been replaced), a lab record field by field."""
    kind = type(expected)
    if type(actual) is not kind:
        return False
    if kind in _BUILTIN:
        return actual == expected  # the built-in types' own methods cannot be replaced
    if kind is Fraction:
        return (_NUMERATOR.__get__(actual) == _NUMERATOR.__get__(expected)
                and _DENOMINATOR.__get__(actual) == _DENOMINATOR.__get__(expected))
    if kind is list or isinstance(expected, tuple):
        return len(actual) == len(expected) and all(same(a, b) for a, b in zip(actual, expected))
    if kind in (dict, set, frozenset):
        if len(actual) != len(expected):
            return False
        if _plain_keys(actual) and _plain_keys(expected):  # hashed and compared by built-in methods only
            if kind is dict:
                return actual.keys() == expected.keys() and all(same(actual[k], expected[k]) for k in expected)
            return actual == expected
        unmatched = list(actual.items() if kind is dict else actual)
        for item in (expected.items() if kind is dict else expected):
            match = next((index for index, other in enumerate(unmatched) if same(other, item)), None)
            if match is None:
                return False
            unmatched.pop(match)
        return True
    fields = getattr(kind, "__dataclass_fields__", None)
    if isinstance(fields, dict) and kind.__module__.split(".")[0] == "modules":
        return all(same(object.__getattribute__(actual, name), object.__getattribute__(expected, name))
                   for name in fields)
    return actual == expected


def _plain_keys(items) -> bool:
    return all(type(item) in _BUILTIN or (type(item) is tuple and _plain_keys(item)) for item in items)


# The course's one container rule (every docstring may rely on it): a task that returns a
# sequence may return a list or a tuple, either is accepted; a mapping is a dict; a set only
# where the docstring says so. Any other type is named in the failure.
SEQUENCES = (list, tuple)


def _type_note(actual, expected) -> str:
    if type(actual) is type(expected):
        return ""
    wanted = ("a list or a tuple (either is accepted)" if type(expected) in SEQUENCES
              else _kind_of(expected).split(" of ")[0])
    return f"\n  type: got {_kind_of(actual).split(' of ')[0]}; the task returns {wanted}"


def expect(actual, expected, shown: str, why: str = "") -> None:
    if type(actual) in SEQUENCES and type(expected) in SEQUENCES and type(actual) is not type(expected):
        if same(type(expected)(actual), expected):
            return  # a list for a tuple, or a tuple for a list: the same answer
    if not same(actual, expected):
        detail = f"\n  why: {why}" if why else ""
        raise LabFailure(f"called {shown}\n  got:      {full_value(actual)}\n  expected: {full_value(expected)}"
                         f"{_type_note(actual, expected)}{detail}")


def expect_true(condition: bool, message: str) -> None:
    if not condition:
        raise LabFailure(message)


def expect_error(errors, fn, *args, shown: str, why: str = "", **kwargs) -> None:
    _calling(shown)
    try:
        fn(*args, **kwargs)
    except NotImplementedError:
        raise LabFailure(f"{fn.__name__} is not written yet: it still raises NotImplementedError "
                         f"(called {shown}).") from None
    except errors:
        return
    except SystemExit as stop:
        raise _exit_failure(stop, shown) from None
    except Exception as error:
        names = " or ".join(e.__name__ for e in (errors if isinstance(errors, tuple) else (errors,)))
        raise LabFailure(f"called {shown}\n  it raised {type(error).__name__}: {error}\n  expected: {names}") from None
    names = " or ".join(e.__name__ for e in (errors if isinstance(errors, tuple) else (errors,)))
    detail = f" ({why})" if why else ""
    raise LabFailure(f"called {shown}\n  it returned normally\n  expected: it raises {names}{detail}")


def redacting(replacements):
    """A decorator for the tests of permission tasks: a failure message never names what must
    stay hidden. `replacements` is ((text to hide, what to show instead), ...)."""
    pairs = tuple(replacements)

    def decorate(test):
        @functools.wraps(test)
        def run():
            try:
                try:
                    test()
                except READING_ERRORS as error:
                    failure = wrong_type_failure(error)
                    if failure is None:
                        raise
                    raise failure from None
            except LabFailure as failure:
                message = str(failure)
                for secret, shown in pairs:
                    message = message.replace(secret, shown)
                raise LabFailure(message) from None
        return run
    return decorate


def expect_choice(lesson: str, name: str, best: str, task: int, reread: str) -> None:
    """A multiple-choice quiz constant: one letter 'a'-'d', and the best one."""
    answer = constant(load(lesson), name)
    expect_true(type(answer) is str and answer in ("a", "b", "c", "d"),
                f"{name} is {shown_value(answer, 60)}; set it to one letter: 'a', 'b', 'c' or 'd'")
    expect_true(answer == best, f"{name} = {answer!r} is not the best answer. {reread}, then try again "
                                f"(hint: python3 -B methods.py hint {lesson} {task})")


# ------------------------------------------------------------------ calls shown as written

SHOWN_CHARS = 120  # an argument longer than this, written out, is shortened in a displayed call


@dataclass(frozen=True)
class Shown:
    """An argument passed as `value` and displayed as `text`: a name such as CANDIDATES, or a
    summary such as "[long:150 chars, short:30 chars]" where the value itself would not read well."""

    text: str
    value: object


def shown_value(value, limit: int = SHOWN_CHARS) -> str:
    """An argument as a learner reads it: its repr, shortened when longer than `limit`.

    A list, tuple, dict or set shows its first items and its size, `['a', 'b', ...] (12 items)`,
    a set in sorted order (a repr in hash order would differ between runs); a function or class
    shows its name; anything else its repr, cut to `limit` with its full length: `'xx...(152 chars)`.
    A value that cannot be shown (nested too deep, an int past the digit limit, a repr that
    raises) is described instead: a message never carries a traceback of its own.
    """
    try:
        return _shown_value(value, limit)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deeply to print>"
    except ValueError as error:
        if isinstance(value, int) and "digits" in str(error):
            return f"<an int of about {int(value.bit_length() * 0.30103) + 1:,} digits, too long to print>"
        return f"<a {type(value).__name__} that cannot be printed>"
    except Exception:  # noqa: BLE001 - a learner's __repr__ may raise anything
        return f"<a {type(value).__name__} whose repr raises>"


def _shown_value(value, limit: int = SHOWN_CHARS) -> str:
    if isinstance(value, Shown):
        return value.text
    kind = type(value)
    if kind in (list, tuple, dict, set, frozenset):
        return _shown_container(value, limit)
    if callable(value) and isinstance(getattr(value, "__name__", None), str):
        return value.__name__
    text = repr(value)
    if " at 0x" in text:  # an address differs between runs
        return f"<{kind.__name__}>"
    cut = f"...({len(text)} chars)"
    return text if len(text) <= limit else text[:max(limit - len(cut), 1)] + cut


# How deep containers inside containers are shown: each level that does not fit is laid out
# twice (all of it, then what fits beside its size), so an unbounded depth cost 2**depth.
SHOWN_DEPTH = 4
_depth = [0]


def _shown_container(value, limit: int) -> str:
    if not value:
        return repr(value)
    kind = type(value)
    opening, closing = {list: ("[", "]"), tuple: ("(", ")"), dict: ("{", "}"), set: ("{", "}"),
                        frozenset: ("frozenset({", "})")}[kind]
    if _depth[0] >= SHOWN_DEPTH:
        return f"{opening}...{closing}"
    _depth[0] += 1
    try:
        return _laid_out(value, limit, kind, opening, closing)
    finally:
        _depth[0] -= 1


def _laid_out(value, limit: int, kind: type, opening: str, closing: str) -> str:
    members = value.items() if kind is dict else _sorted(value) if kind in (set, frozenset) else value
    room = limit - len(opening) - len(closing)
    kept = _fitting(members, kind is dict, room)
    if len(kept) == len(value):
        return opening + ", ".join(kept) + ("," if kind is tuple and len(kept) == 1 else "") + closing
    size = f" ({len(value)} item{'s' if len(value) > 1 else ''})"
    kept = _fitting(members, kind is dict, room - len(", ...") - len(size))
    return opening + ", ".join(kept + ["..."]) + closing + size


def _fitting(members, pairs: bool, room: int) -> list[str]:
    # The first members, shown, that fit in `room` characters with ", " between them; it stops
    # at the first that does not, so a long argument costs no more than what is shown.
    kept, used = [], -2
    for member in members:
        left = room - used - 2
        if pairs:
            key = shown_value(member[0], left)
            text = f"{key}: {shown_value(member[1], left - len(key) - 2)}"
        else:
            text = shown_value(member, left)
        if used + 2 + len(text) > room:
            break
        kept.append(text)
        used += 2 + len(text)
    return kept


def _sorted(items) -> list:
    try:
        return sorted(items)
    except TypeError:  # mixed types: by type name, then repr
        return sorted(items, key=lambda item: (type(item).__name__, repr(item)))


def shown_call(fn, *args, **kwargs) -> str:
    """The call as written, from the arguments passed: `name(arg1, arg2, key=value)`."""
    parts = [shown_value(arg) for arg in args] + [f"{key}={shown_value(arg)}" for key, arg in kwargs.items()]
    return f"{getattr(fn, '__name__', type(fn).__name__)}({', '.join(parts)})"


def _passed(value):
    return value.value if isinstance(value, Shown) else value


def call_shown(fn, *args, **kwargs):
    """call() with the displayed call built from the arguments; returns (result, displayed call)."""
    shown = shown_call(fn, *args, **kwargs)
    return call(fn, *map(_passed, args), shown=shown, **{k: _passed(v) for k, v in kwargs.items()}), shown


_UNSET = object()


def expect_call(fn, *args, want=_UNSET, raises=None, why: str = "", **kwargs):
    """Call the learner's function and compare its result with `want` as expect() does (or, with
    raises=ValueError or a tuple of errors, require that error as expect_error() does); the
    message shows the call built from the arguments (see shown_value; wrap an argument in
    Shown(text, value) to show it as text). Returns the result (None with raises)."""
    if (want is _UNSET) == (raises is None):
        raise TypeError("expect_call needs exactly one of want=... and raises=...")
    shown = shown_call(fn, *args, **kwargs)
    values, named = [_passed(arg) for arg in args], {key: _passed(arg) for key, arg in kwargs.items()}
    if raises is not None:
        expect_error(raises, fn, *values, shown=shown, why=why, **named)
        return None
    got = call(fn, *values, shown=shown, **named)
    expect(got, want, shown, why=why)
    return got


# Set by worker.py under `grade --sandbox`: then load() never runs the learner's file here.
_remote = None


class ChildDied(SystemExit):
    """The sandboxed process ended (or was stopped) while it held the learner's code."""


@contextlib.contextmanager
def patched(module_name: str, **values):
    """Temporarily replace attributes of a course module (for example its evaluation labels);
    under the sandbox, in the sandboxed process too (where the learner's code reads them)."""
    module = importlib.import_module(module_name)
    saved = {name: getattr(module, name) for name in values}
    token = _remote.patch(module_name, values) if _remote is not None else None
    try:
        for name, value in values.items():
            setattr(module, name, value)
        yield module
    finally:
        for name, value in saved.items():
            setattr(module, name, value)
        if token is not None:
            _remote.unpatch(token)


# ------------------------------------------------------------------ running

def task_number(test_name: str) -> int:
    # test_task3_keeps_exact_fit -> 3
    digits = test_name[len("test_task"):].split("_", 1)[0]
    if not test_name.startswith("test_task") or not digits.isdigit():
        raise ValueError(f"grader test name must look like test_task<N>_..., got {test_name!r}")
    return int(digits)


def tests_of(grader) -> list:
    return [fn for name, fn in vars(grader).items() if name.startswith("test_") and callable(fn)]


OUTPUT_CHARS = 2000  # of the learner's own prints kept per test (and at import)


class _Sink(io.StringIO):
    """A bounded stdout for the graded code: keeps the first `limit` characters, counts the rest."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit, self.dropped = limit, 0

    def write(self, text) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.limit - self.tell()
        if room > 0:
            super().write(text[:room])
        self.dropped += max(0, len(text) - max(room, 0))
        return len(text)

    def text(self) -> str:
        kept = self.getvalue()
        return kept + (f"\n... ({self.dropped:,} more characters not kept)" if self.dropped else "")


def _raise_overtime(signum, frame):
    raise Overtime()


@contextlib.contextmanager
def time_limit(seconds):
    """Raise Overtime in the block after `seconds` (None: no limit). Needs SIGALRM and the main
    thread; elsewhere the caller's watchdog is the only limit."""
    usable = (seconds is not None and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return
    previous = signal.signal(signal.SIGALRM, _raise_overtime)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def trap_exits():
    """Make os._exit() raise ExitCalled (so the task that called it is named); return the real one."""
    real = os._exit

    def _exit(code=0):
        raise ExitCalled(code)

    os._exit = _exit
    return real


def _blames_the_grader(error: BaseException, learner: str) -> bool:
    """On a Python older than the course supports (3.10), a crash that never passed through the
    learner's file is the grader's (its `str | None`, say), not the learner's."""
    if sys.version_info >= (3, 10):
        return False
    return all(frame.filename != learner for frame in traceback.extract_tb(error.__traceback__))


def grader_cannot_run(lesson: str, error: BaseException) -> str:
    """The message for a grader that cannot run: never the learner's fault."""
    version = ".".join(map(str, sys.version_info[:3]))
    old = " (the course needs Python 3.10 or newer)" if sys.version_info < (3, 10) else ""
    return (f"the grader for '{lesson}' could not run on Python {version}{old}: {type(error).__name__}: {error}. "
            f"This is not a problem in your file, which was not graded.")


def run(lesson: str, first_failure: bool = False, only_tasks=None, *, seconds=None, report=None,
        grader=None, tests=None, output_chars: int = OUTPUT_CHARS) -> dict:
    """Grade one lesson against LAB_TARGET; return a JSON-ready result.

    The learner's file is imported first, once: a file that cannot be imported gives one
    error ({"error", "kind"}) instead of the same failure in every test. With `seconds`, the
    import and each task's tests (together) get that many seconds: a task that runs out fails
    with the last call it made, and the other tasks still run. `report`, when given, is called
    with each result as it is known ({"t": "imported"}, {"t": "result", ...}, {"t": "error", ...}).
    `grader` is the grader module (default: a fresh one); `tests` names the tests to run.
    Each test's result keeps what the learner's code printed ("output", at most `output_chars`).

    For the maintainer's batch grading only: `only_tasks` (task numbers) runs only their tests,
    and first_failure stops at the first failing test (the mutation pass and the wrong-answer
    check only need to know that some test rejects a version); the result then lists the
    tests that ran.
    """
    report = report or (lambda record: None)
    grader = grader if grader is not None else grader_module(lesson)
    declared = {t.number: t for t in grader.TASKS}
    given = _sources.get(lesson)
    path = given[0] if given else target_dir() / f"{lesson}.py"
    outcome = {"lesson": lesson, "target": shown_path(target_dir())}

    def failed_tasks() -> list:
        return [{"number": t.number, "name": t.name, "title": t.title, "hints": len(t.hints), "passed": False,
                 "tests": 0} for t in grader.TASKS]

    sink = _Sink(output_chars)
    _current.update(test="", call="")
    try:
        with time_limit(seconds), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            load(lesson)
    except LoadFailure as failure:
        error, kind = str(failure), failure.kind
    except Overtime:
        error, kind = (f"importing {shown_path(path)} did not finish within {seconds:g} s: is there a loop "
                       f"at the top level of the file?"), "timeout"
    else:
        error = kind = None
    if sink.getvalue():
        outcome["output"] = sink.text()
    if error is not None:
        report({"t": "error", "kind": kind, "message": error, "output": outcome.get("output", "")})
        return dict(outcome, error=error, kind=kind, tasks=failed_tasks(), tests=[])
    report({"t": "imported", "output": outcome.get("output", "")})

    results, spent, exhausted, grader_errors = [], {}, {}, []
    for test in tests_of(grader):
        name, number = test.__name__, task_number(test.__name__)
        if only_tasks is not None and number not in only_tasks:
            continue
        if tests is not None and name not in tests:
            continue
        task = declared.get(number)
        label = f"task {number} ({task.name})" if task else f"task {number}"
        _current.update(test=name, call="", result=_NOTHING)
        sink = _Sink(output_chars)
        budget = None if seconds is None else seconds - spent.get(number, 0.0)
        started = time.perf_counter()
        record = {"test": name, "task": number}
        try:
            if number in exhausted:
                raise LabFailure(exhausted[number])
            with time_limit(budget), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                test()
            passed, message = True, ""
        except Overtime:
            passed = False
            last = _current["call"]
            cost = _cost_of(task.name if task else "")
            message = (f"{label} was too slow: it had not finished when its time limit of {seconds:g} s ran out"
                       + (f"\n  last call: {last}" if last else "")
                       + (f"\n  The task's docstring asks: {cost}" if cost else
                          "\n  (either a loop that never ends, or work that grows too fast with the input)"))
            exhausted[number] = f"not run: {label} already ran out of time in {name}"
        except AssertionError as error:
            passed, message = False, str(error) or "assertion failed"
        except SystemExit as stop:  # outside call(): the grader called the learner's code directly
            passed, last = False, _current["call"]
            message = (f"{label}: the program was ended with {exit_words(stop)} while {name} ran"
                       + (f"\n  last call: {last}" if last else "")
                       + "\n  (a function should return its answer; nothing here may exit)")
        except Exception as error:  # a grader or learner crash outside call(): show where
            passed = False
            failure = wrong_type_failure(error, str(path))
            if failure is not None:
                message = str(failure)
            elif _blames_the_grader(error, str(path)):
                grader_errors.append(error)
                record["grader_error"] = True
                message = grader_cannot_run(lesson, error)
            else:
                message = f"{type(error).__name__}: {error}\n" + "".join(traceback.format_exc(limit=-2))
        finally:
            took = time.perf_counter() - started
            spent[number] = spent.get(number, 0.0) + took
        record.update(passed=passed, message=message, seconds=round(took, 3))
        if sink.getvalue():
            record["output"] = sink.text()
        results.append(record)
        report(dict(record, t="result"))
        if first_failure and not passed:
            break
    outcome["tasks"] = [{"number": t.number, "name": t.name, "title": t.title, "hints": len(t.hints),
                         "passed": all(r["passed"] for r in results if r["task"] == t.number),
                         "tests": sum(1 for r in results if r["task"] == t.number)}
                        for t in grader.TASKS]
    outcome["tests"] = results
    if grader_errors:
        outcome.update(error=grader_cannot_run(lesson, grader_errors[0]), kind="grader")
    return outcome


def manifest_tasks(lesson: str) -> tuple[Task, ...]:
    """The lesson's tasks as course.json lists them, with their hints (the grader's TASKS).
    course.json is read as the harness read it (labtools/manifest.py checks its form; a grader
    needs only its lesson's task list)."""
    import json
    course = json.loads(harness_bytes(ROOT / "course.json").decode("utf-8"))
    entry = next((e for e in course["lessons"] if e["name"] == lesson), None)
    if entry is None:
        raise ValueError(f"course.json has no lesson {lesson!r}")
    return hints.hinted(lesson, tuple(Task(t["number"], t["name"], t["title"]) for t in entry.get("tasks", [])))
