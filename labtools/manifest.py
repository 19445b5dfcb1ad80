"""The course manifest, course.json: every lesson and every graded task, in one file.

It is plain JSON so that Python 3.10 reads it with the standard library (`tomllib` arrived
in 3.11). Everything that needs to know the course reads it through this module: the
lesson commands and their options (labtools/registry.py), `check` and `hint`, the stub
generator's check of the answer regions, the graders' task lists, `dev check` and the
notebook builder. A lesson's number is its position in the list.

    {"lessons": [{"name": "context", "title": "...", "world": "helpdesk",
                  "options": [{"flags": ["--budget"], "dest": "budgets", "type": "whole_number",
                               "minimum": null, "action": "append", "metavar": "N",
                               "help": "..."}],
                  "tasks": [{"number": 1, "name": "packet_coverage", "kind": "function",
                             "title": "..."}]}]}

Task kinds: "function" (the learner writes a def), "quiz" (a constant, one letter) or
"predict" (a constant holding a value the learner predicts before running anything: a
number, a string, a tuple; its grader compares it with what the mechanism computes). A task
whose answer is two functions names the second in "also" (escape_text with unescape_text).
A task may set "points" (default 1) and "visibility" (Gradescope's: visible, after_due_date,
after_published or hidden; default visible): the autograder's results.json uses both.
Hints live in exercises/hints/NAME.md, one `## Task N: name` section per task.

"grading_python" (top level, default "3.10") names the Python the class is graded with:
`check` flags syntax and standard-library names a learner's file uses that it lacks
(labtools/compat.py).
"""

import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATH = os.path.join(ROOT, "course.json")

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LESSON_KEYS = {"name", "title", "world", "options", "tasks"}
_OPTION_KEYS = {"flags", "dest", "type", "minimum", "maximum", "action", "metavar", "help"}
_TASK_KEYS = {"number", "name", "kind", "title", "also", "points", "visibility"}
# Gradescope's test visibilities (its results.json format): a task's, in course.json.
VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")
WORLDS = ("helpdesk", "catalogue", "capstone", "own")  # "own": the lesson's own small fixture
OPTION_TYPES = ("text", "whole_number")
OPTION_ACTIONS = ("store", "append", "store_true")
TASK_KINDS = ("function", "quiz", "predict")
GRADING_PYTHON = "3.10"  # the oldest Python the lab supports, and Gradescope's Ubuntu 22.04 image


class ManifestError(ValueError):
    """course.json is not what this module expects; the message names the entry and field."""


def _fail(where, message):
    raise ManifestError(f"course.json, {where}: {message}")


def _text(value, where):
    if not isinstance(value, str) or not value.strip():
        _fail(where, f"must be a non-empty string, got {value!r}")
    return value


def _keys(entry, allowed, required, where):
    if not isinstance(entry, dict):
        _fail(where, f"must be an object, got {type(entry).__name__}")
    unknown = sorted(set(entry) - allowed)
    if unknown:
        _fail(where, f"unknown field {unknown[0]!r} (fields: {', '.join(sorted(allowed))})")
    missing = [key for key in required if key not in entry]
    if missing:
        _fail(where, f"missing field {missing[0]!r}")


def _check_option(option, where):
    _keys(option, _OPTION_KEYS, ("flags", "help"), where)
    flags = option["flags"]
    if not isinstance(flags, list) or not flags or not all(isinstance(f, str) and f.startswith("--")
                                                            for f in flags):
        _fail(where + ".flags", f"must be a list of --flags, got {flags!r}")
    if option.get("type", "text") not in OPTION_TYPES:
        _fail(where + ".type", f"must be one of {', '.join(OPTION_TYPES)}, got {option['type']!r}")
    if option.get("action", "store") not in OPTION_ACTIONS:
        _fail(where + ".action", f"must be one of {', '.join(OPTION_ACTIONS)}, got {option['action']!r}")
    for bound in ("minimum", "maximum"):
        value = option.get(bound)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            _fail(f"{where}.{bound}", f"must be a whole number or null, got {value!r}")
    _text(option["help"], where + ".help")


def _check_task(task, number, where):
    _keys(task, _TASK_KEYS, ("number", "name", "kind", "title"), where)
    if task["number"] != number:
        _fail(where + ".number", f"tasks are numbered 1, 2, 3 ... in order: expected {number}, "
                                 f"got {task['number']!r}")
    if not isinstance(task["name"], str) or not _IDENTIFIER.match(task["name"]):
        _fail(where + ".name", f"must be a Python name, got {task['name']!r}")
    if task["kind"] not in TASK_KINDS:
        _fail(where + ".kind", f"must be one of {', '.join(TASK_KINDS)}, got {task['kind']!r}")
    _text(task["title"], where + ".title")
    points = task.get("points", 1)
    if isinstance(points, bool) or not isinstance(points, (int, float)) or not 0 < points <= 1000:
        _fail(where + ".points", f"must be a number of points above 0 (at most 1000), got {points!r}")
    if task.get("visibility", "visible") not in VISIBILITIES:
        _fail(where + ".visibility", f"must be one of {', '.join(VISIBILITIES)}, got {task['visibility']!r}")
    also = task.get("also", [])
    if not isinstance(also, list) or not all(isinstance(n, str) and _IDENTIFIER.match(n) for n in also):
        _fail(where + ".also", f"must be a list of Python names, got {also!r}")


def check(data):
    """`data` (course.json, parsed) if it is a valid manifest, else ManifestError naming the field."""
    _keys(data, {"about", "lessons", "grading_python"}, ("lessons",), "top level")
    python = data.get("grading_python", GRADING_PYTHON)
    if not isinstance(python, str) or not re.fullmatch(r"3\.[0-9]{1,2}", python) or int(python[2:]) < 10:
        _fail("grading_python", f"must name the Python that grades the course, \"3.10\" or newer, got {python!r}")
    lessons = data["lessons"]
    if not isinstance(lessons, list) or not lessons:
        _fail("lessons", "must be a non-empty list")
    seen = set()
    for index, lesson in enumerate(lessons):
        where = f"lessons[{index}]"
        _keys(lesson, _LESSON_KEYS, ("name", "title", "world"), where)
        name = lesson["name"]
        if not isinstance(name, str) or not _NAME.match(name):
            _fail(where + ".name", f"must be a lower-case Python name, got {name!r}")
        if name in seen:
            _fail(where + ".name", f"{name!r} is listed twice")
        seen.add(name)
        where = f"lesson {name!r}"
        _text(lesson["title"], where + ".title")
        if lesson["world"] not in WORLDS:
            _fail(where + ".world", f"must be one of {', '.join(WORLDS)}, got {lesson['world']!r}")
        for position, option in enumerate(lesson.get("options", [])):
            _check_option(option, f"{where}.options[{position}]")
        names = set()
        for position, task in enumerate(lesson.get("tasks", [])):
            _check_task(task, position + 1, f"{where}.tasks[{position}]")
            if task["name"] in names:
                _fail(f"{where}.tasks[{position}].name", f"{task['name']!r} is a task twice")
            names.add(task["name"])
    return data


def load(path=PATH):
    """The manifest, checked. Read on every call (it is small): a maintainer's edit shows at once."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except OSError as error:
        raise ManifestError(f"cannot read the course manifest {path}: {error.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ManifestError(f"course.json, line {error.lineno}: not valid JSON ({error.msg})") from None
    return check(data)


def lessons(data=None):
    """[lesson entry, ...] in course order."""
    return (data or load())["lessons"]


def lesson(name, data=None):
    """The entry of lesson `name`, or KeyError."""
    for entry in lessons(data):
        if entry["name"] == name:
            return entry
    raise KeyError(name)


def grading_python(data=None):
    """The Python the course is graded with, as (3, 10): course.json's "grading_python"."""
    text = (data or load()).get("grading_python", GRADING_PYTHON)
    return int(text.split(".")[0]), int(text.split(".")[1])


def tasks(name, data=None):
    """[(number, name, kind, title), ...] of lesson `name` (empty when it has no graded tasks)."""
    return [(t["number"], t["name"], t["kind"], t["title"]) for t in lesson(name, data).get("tasks", [])]


def task_settings(name, number, data=None):
    """(points, visibility) of task `number` of lesson `name`: course.json's "points" (default 1)
    and "visibility" (default "visible"), what Gradescope's results.json gets."""
    for task in lesson(name, data).get("tasks", []):
        if task["number"] == number:
            return task.get("points", 1), task.get("visibility", "visible")
    return 1, "visible"


def answer_names(name, data=None):
    """Every name the learner writes for lesson `name`: each task's own and its "also" names."""
    return {n for t in lesson(name, data).get("tasks", []) for n in [t["name"], *t.get("also", [])]}


def number(name, data=None):
    """The lesson's two-digit number: its position in the manifest."""
    for position, entry in enumerate(lessons(data), 1):
        if entry["name"] == name:
            return f"{position:02d}"
    raise KeyError(name)
