"""The course's lessons (read from course.json by labtools/manifest.py) and its commands, and
the two output helpers every command uses.

methods.py imports this module (standard library `os`, `sys` and `json` only) and then only
what the command it runs needs: a lesson command loads its lesson's modules and the
renderer, never the workflow. Nothing in labtools imports methods.py.

Adding a lesson: `python3 -B methods.py dev new NAME --title "..."` appends its entry to
course.json (its number is its position) and writes its starter files; see the README's
"Where to change what".

Adding a workflow command: one entry in WORKFLOW, `name: (description, "module:function")`,
where the function takes the command's argument list and returns the exit status.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = "python3 -B methods.py"


def _number(minimum=0, maximum=None):
    """An argparse type for a whole number in ASCII digits (int() would also take '1_000', ' 5 '
    and other scripts' digits) within [minimum, maximum] (None: no bound here, the lesson's
    own check decides); errors echo a short form of the text."""
    def whole_number(text):
        from modules.common.checks import parse_whole_number
        try:
            return parse_whole_number(text, "the value", minimum, maximum)
        except (TypeError, ValueError) as error:
            import argparse  # already loaded: only a parser calls this
            raise argparse.ArgumentTypeError(str(error)) from None
    return whole_number


def _option(spec: dict):
    """One manifest option as (flags, argparse keywords)."""
    keywords = {"help": spec["help"]}
    for key in ("dest", "metavar"):
        if key in spec:
            keywords[key] = spec[key]
    if spec.get("action", "store") != "store":
        keywords["action"] = spec["action"]
    if spec.get("type") == "whole_number":
        keywords["type"] = _number(spec.get("minimum", 0), spec.get("maximum"))
    return tuple(spec["flags"]), keywords


def _course():
    """[(name, one-line description, options as (flags, argparse keywords)), ...] from course.json."""
    from labtools import manifest
    return [(entry["name"], entry["title"], [_option(spec) for spec in entry.get("options", [])])
            for entry in manifest.lessons()]


COURSE = _course()

# name -> (number "01", description, options): what methods.py and the workflow look up
LESSONS = {name: (f"{position:02d}", about, options) for position, (name, about, options) in enumerate(COURSE, 1)}

# name -> (description, "module:function"); the function takes the argument list, returns the exit status
WORKFLOW = {
    "setup": ("once after cloning: compile the lab's own modules, as installing a package does, "
              "so lessons start fast", "labtools.precompile:main"),
    "check": ("grade your exercises: progress per lesson, the first failure, the next step", "labtools.cli:check"),
    "hint": ("the next hint for a task, one level at a time", "labtools.cli:hint"),
    "reset": ("restore an exercise file to its stub (your file is backed up first)", "labtools.workflow:reset"),
    "update": ("bring your copy to the course's new version, keeping your answers", "labtools.update:main"),
    "watch": ("re-grade whenever you save an exercise file", "labtools.workflow:watch"),
    "audit": ("find where your own retrieval run, or the packets it sent, lose evidence",
              "labtools.audit:main"),
    "grade": ("instructors: grade a folder of submissions into a gradebook", "labtools.grading.gradebook:main"),
    "dev": ("maintainer commands: sync, check, notebooks, golden, mutants, bench, probe, gradescope, test",
            "devtools.dev:main"),
}


def lesson_named(text):
    """The lesson `text` names: its name, or its number as the course lists it ("01", "1", "3");
    None when it names none (the caller says what is known)."""
    if text in LESSONS:
        return text
    if isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 3:
        position = int(text)
        names = list(LESSONS)
        if 1 <= position <= len(names):
            return names[position - 1]
    return None


def built(name):
    """Whether lesson `name` has its folder yet (a catalogued lesson may not be written yet)."""
    return os.path.exists(os.path.join(ROOT, "modules", name, "trace.py"))


def lesson_module(name):
    """modules/NAME/trace.py, whose trace() and view() print lesson `name` (it imports the
    lesson's mechanism, which never imports it back, so the import graph has no cycle)."""
    import importlib
    return importlib.import_module(f"modules.{name}.trace")


def built_lessons():
    """The catalogued lessons whose module exists, in course order."""
    return [name for name in LESSONS if built(name)]


def write(text):
    """Print `text` as UTF-8 bytes whatever the locale, so the output is the same everywhere
    (a grader's message or a lesson's table may hold any character)."""
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        sys.stdout.write(text)
    else:
        stream.write(text.encode("utf-8"))
    sys.stdout.flush()


def wants_rich(plain=False, as_json=False):
    """Colour only for a terminal that wants it and a machine that has rich."""
    if plain or as_json or os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return False
    import importlib.util
    return importlib.util.find_spec("rich") is not None
