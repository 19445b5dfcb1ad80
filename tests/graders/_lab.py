"""What every grader shares: find the code under test, call it, explain failures.

Graders are plain functions named `test_task<N>_...` that use plain `assert`-free
checks from here, so they run the same under pytest and under `methods.py check`
(which needs nothing but Python). The code under test comes from LAB_TARGET:

    exercises   the learner's files (the default)
    solutions   the reference answers
    a path      any folder holding the same file names (a submission to grade)

`run.py` beside this file grades one lesson and prints one JSON line.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import os
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRADERS = Path(__file__).resolve().parent
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


def target_dir() -> Path:
    value = os.environ.get("LAB_TARGET", "exercises") or "exercises"
    path = ROOT / value if value in ("exercises", "solutions") else Path(value).expanduser().resolve()
    if not path.is_dir():
        raise LabFailure(f"LAB_TARGET={value!r} is not a folder; use exercises, solutions or a folder path")
    return path


def shown_path(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


_loaded: dict[tuple[str, Path], object] = {}
# Internal hook for batch grading (run.py --batch): lesson -> (path to show, source text).
# While set, load() executes that text instead of reading <target>/<lesson>.py, so one
# process can grade many versions of a file (wrong answers, mutants) without writing any.
_sources: dict[str, tuple[Path, str]] = {}


def _exec_source(name: str, path: Path, text: str):
    import linecache
    import types
    module = types.ModuleType(name)
    module.__file__ = str(path)
    # Tracebacks and inspect.getsource() read the text from linecache, as for a real file.
    linecache.cache[str(path)] = (len(text), None, text.splitlines(True), str(path))
    sys.modules[name] = module  # while it runs, as for a file: @dataclass looks its module up there
    try:
        exec(compile(text, str(path), "exec", dont_inherit=True), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def load(lesson: str, fresh: bool = False):
    """Import `<target>/<lesson>.py`; a broken or missing file fails every check with one clear message."""
    given = _sources.get(lesson)
    path = given[0] if given else target_dir() / f"{lesson}.py"
    key = (lesson, path)
    if not fresh and key in _loaded:
        return _loaded[key]
    if given is None and not path.is_file():
        raise LabFailure(f"{shown_path(path)} does not exist: the exercises for '{lesson}' live in that file "
                         f"(restore it with: python3 -B methods.py reset {lesson})")
    name = f"lab_target_{lesson}_{len(_loaded)}"
    try:
        if given is not None:
            module = _exec_source(name, path, given[1])
        else:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            # Listed in sys.modules while it runs: @dataclass looks its module up there.
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            finally:
                sys.modules.pop(name, None)
    except SyntaxError as error:
        raise LabFailure(f"{shown_path(path)} has a syntax error at line {error.lineno}: {error.msg}") from None
    except Exception as error:  # the learner's module failed while importing
        raise LabFailure(f"{shown_path(path)} fails when imported: {type(error).__name__}: {error}") from None
    if not fresh:
        _loaded[key] = module
    return module


def function(module, name: str):
    found = getattr(module, name, None)
    if not callable(found):
        raise LabFailure(f"{shown_path(Path(module.__file__))} should define {name}(...), but it was not found. "
                         f"Was it renamed or deleted? (python3 -B methods.py reset {_lesson(module)} restores the stub)")
    return found


def constant(module, name: str):
    if not hasattr(module, name):
        raise LabFailure(f"{shown_path(Path(module.__file__))} should define the constant {name}, but it was not found.")
    return getattr(module, name)


def _lesson(module) -> str:
    return Path(module.__file__).stem


def call(fn, *args, shown: str, **kwargs):
    """Call the learner's function; turn a stub or a crash into a readable failure."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise LabFailure(f"{fn.__name__} is not written yet: it still raises NotImplementedError "
                         f"(called {shown}). Replace the raise with your code.") from None
    except Exception as error:
        raise LabFailure(f"called {shown}\n  it raised {type(error).__name__}: {error}\n"
                         f"  (no error was expected here)") from None


def expect(actual, expected, shown: str, why: str = "") -> None:
    if actual != expected or type(actual) is not type(expected):
        detail = f"\n  why: {why}" if why else ""
        raise LabFailure(f"called {shown}\n  got:      {actual!r}\n  expected: {expected!r}{detail}")


def expect_true(condition: bool, message: str) -> None:
    if not condition:
        raise LabFailure(message)


def expect_error(errors, fn, *args, shown: str, why: str = "", **kwargs) -> None:
    try:
        fn(*args, **kwargs)
    except NotImplementedError:
        raise LabFailure(f"{fn.__name__} is not written yet: it still raises NotImplementedError "
                         f"(called {shown}).") from None
    except errors:
        return
    except Exception as error:
        names = " or ".join(e.__name__ for e in (errors if isinstance(errors, tuple) else (errors,)))
        raise LabFailure(f"called {shown}\n  it raised {type(error).__name__}: {error}\n  expected: {names}") from None
    names = " or ".join(e.__name__ for e in (errors if isinstance(errors, tuple) else (errors,)))
    detail = f" ({why})" if why else ""
    raise LabFailure(f"called {shown}\n  it returned normally\n  expected: it raises {names}{detail}")


def expect_choice(lesson: str, name: str, best: str, task: int, reread: str) -> None:
    """A multiple-choice quiz constant: one letter 'a'-'d', and the best one."""
    answer = constant(load(lesson), name)
    expect_true(answer in ("a", "b", "c", "d"), f"{name} is {answer!r}; set it to one letter: 'a', 'b', 'c' or 'd'")
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
    """
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


def _shown_container(value, limit: int) -> str:
    if not value:
        return repr(value)
    kind = type(value)
    opening, closing = {list: ("[", "]"), tuple: ("(", ")"), dict: ("{", "}"), set: ("{", "}"),
                        frozenset: ("frozenset({", "})")}[kind]
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


# ------------------------------------------------------------------ hints, as the learner reads them

HINTS = ROOT / "exercises" / "hints"  # one Markdown file per lesson; not a grading file (no manifest)
_HEADING = re.compile(r"## Task ([0-9]+): ([A-Za-z_][A-Za-z0-9_]*)")


def read_hints(path: Path) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """The task sections of a hints file: (heading line, task number, task name, hints in order).

    The format: any text (a title, a note) up to the first `## Task N: name` heading; under each
    heading one `- ` list item per hint level, from a nudge to nearly the answer, a long hint
    going on in lines indented by two spaces (joined with single spaces); blank lines anywhere.
    Anything else raises ValueError naming the file and line.
    """
    where = shown_path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise ValueError(f"{where} does not exist: every lesson's hints live there "
                         f"('## Task N: name' headings, one '- ' item per hint)") from None
    sections: list[tuple[int, int, str, list[str]]] = []
    for number, line in enumerate(lines, start=1):
        if line.startswith("#") and (sections or line.startswith("##")):
            match = _HEADING.fullmatch(line.rstrip())
            if match is None:
                raise ValueError(f"{where}, line {number}: a task heading reads '## Task N: function_name', "
                                 f"got {line!r}")
            task = int(match.group(1))
            if any(section[1] == task for section in sections):
                raise ValueError(f"{where}, line {number}: task {task} has a second heading")
            sections.append((number, task, match.group(2), []))
        elif not sections or not line.strip():
            continue  # the title and notes before the first task; blank lines
        elif line.startswith("- ") and line[2:].strip():
            sections[-1][3].append(line[2:].strip())
        elif line.startswith("  ") and sections[-1][3]:
            sections[-1][3][-1] += " " + line.strip()
        else:
            raise ValueError(f"{where}, line {number}: under a task heading, write each hint as one '- ' list "
                             f"item (a long hint goes on in lines indented by two spaces), got {line!r}")
    for heading, task, name, hints in sections:
        if not hints:
            raise ValueError(f"{where}, line {heading}: task {task} ({name}) has no hints: add '- ' items")
    return [(heading, task, name, tuple(hints)) for heading, task, name, hints in sections]


def hinted(lesson: str, tasks: tuple[Task, ...]) -> tuple[Task, ...]:
    """`tasks` with their hints from exercises/hints/LESSON.md: each task has exactly one section
    there, `## Task N: name` matching its number and name, and each section a task."""
    path = HINTS / f"{lesson}.md"
    sections = {task: (heading, name, hints) for heading, task, name, hints in read_hints(path)}
    known = {task.number: task.name for task in tasks}
    for task, (heading, name, _hints) in sections.items():
        if known.get(task) != name:
            listed = ", ".join(f"Task {number}: {known[number]}" for number in sorted(known))
            raise ValueError(f"{shown_path(path)}, line {heading}: 'Task {task}: {name}' is not a task of "
                             f"{lesson} ({listed})")
    for task in tasks:
        if task.number not in sections:
            raise ValueError(f"{shown_path(path)} has no '## Task {task.number}: {task.name}' section: "
                             f"every task needs its hints there")
    return tuple(Task(task.number, task.name, task.title, sections[task.number][2]) for task in tasks)


@contextlib.contextmanager
def patched(module_name: str, **values):
    """Temporarily replace attributes of a course module (for example its evaluation labels)."""
    module = importlib.import_module(module_name)
    saved = {name: getattr(module, name) for name in values}
    try:
        for name, value in values.items():
            setattr(module, name, value)
        yield module
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


# ------------------------------------------------------------------ running

_grader_code: dict[tuple[Path, int, int], object] = {}


def grader_module(lesson: str):
    """A fresh grader module each call; its compiled code is reused while the file is unchanged
    (a batch grades hundreds of versions, and compiling the grader was half the cost of each)."""
    path = GRADERS / f"grade_{lesson}.py"
    spec = importlib.util.spec_from_file_location(f"grade_{lesson}", path)
    module = importlib.util.module_from_spec(spec)
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    if key not in _grader_code:
        _grader_code[key] = compile(path.read_bytes(), str(path), "exec", dont_inherit=True)
    exec(_grader_code[key], module.__dict__)
    return module


def task_number(test_name: str) -> int:
    # test_task3_keeps_exact_fit -> 3
    digits = test_name[len("test_task"):].split("_", 1)[0]
    if not test_name.startswith("test_task") or not digits.isdigit():
        raise ValueError(f"grader test name must look like test_task<N>_..., got {test_name!r}")
    return int(digits)


def tests_of(grader) -> list:
    return [fn for name, fn in vars(grader).items() if name.startswith("test_") and callable(fn)]


def run(lesson: str, first_failure: bool = False, only_tasks=None) -> dict:
    """Grade one lesson against LAB_TARGET; return a JSON-ready result.

    For the maintainer's batch grading only: `only_tasks` (task numbers) runs only their tests,
    and first_failure stops at the first failing test (the mutation pass and the wrong-answer
    check only need to know that some test rejects a version); the result then lists the
    tests that ran.
    """
    grader = grader_module(lesson)
    results = []
    for test in tests_of(grader):
        if only_tasks is not None and task_number(test.__name__) not in only_tasks:
            continue
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                test()
            passed, message = True, ""
        except AssertionError as error:
            passed, message = False, str(error) or "assertion failed"
        except Exception as error:  # a grader or learner crash outside call(): show where
            passed = False
            message = f"{type(error).__name__}: {error}\n" + "".join(traceback.format_exc(limit=-2))
        results.append({"test": test.__name__, "task": task_number(test.__name__),
                        "passed": passed, "message": message})
        if first_failure and not passed:
            break
    tasks = [{"number": t.number, "name": t.name, "title": t.title, "hints": len(t.hints),
              "passed": all(r["passed"] for r in results if r["task"] == t.number),
              "tests": sum(1 for r in results if r["task"] == t.number)}
             for t in grader.TASKS]
    return {"lesson": lesson, "target": shown_path(target_dir()), "tasks": tasks, "tests": results}
