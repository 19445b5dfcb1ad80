"""The course's one list of lessons and commands, and the two output helpers every command uses.

methods.py imports this module (standard library `os` and `sys` only) and then only what
the command it runs needs: a lesson command loads its lesson's modules and the renderer,
never the workflow. Nothing in labtools imports methods.py.

Adding a lesson: append `(name, one-line description, options)` to COURSE; its number is
its position (the 12th entry is lesson 12, shown as "12"), so it is written nowhere else.
Then write modules/NAME.py (the mechanism) and trace() and view() in it or, when the lesson
is long, in modules/NAME_trace.py (which imports the mechanism, never the reverse), its
golden file (`dev golden NAME`), and,
for graded exercises, solutions/NAME.py, tests/graders/grade_NAME.py and
tests/wrong_answers/NAME.py, with its hints in exercises/hints/NAME.md (`dev sync` makes
the stub). A notebook is
notebooks/src/NN_NAME.py, NN being that number.

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


SEED_LIMIT = 2 ** 32  # seeds are 0 <= seed < 2**32, so two different seeds never name one run

# (name, one-line description, lesson-specific options as (flags, argparse keywords)), in course order
COURSE = [
    ("context", "retrieval succeeded, the packet failed: one question at quote budgets 80, 120, 400",
     [(("--budget",), dict(dest="budgets", type=_number(minimum=None), action="append", metavar="N",
                           help="max_quote_chars to run (repeatable); replaces 80, 120 and 400"))]),
    ("budget", "keep the units explicit: skip vs truncate, the window, top-k overflow, coverage", []),
    ("dedupe", "remove redundancy without merging identities: ids, text, canonical documents, overlaps", []),
    ("versions", "surface version conflicts instead of guessing which record is fresh",
     [(("--as-of",), dict(dest="as_of", metavar="YYYY-MM-DD",
                          help="the day the validity filter checks (default: 2026-07-01)"))]),
    ("order", "position is a hypothesis to measure, with a labelled fictional reader",
     [(("--seed",), dict(type=_number(None, SEED_LIMIT - 1), metavar="N",
                         help=f"simulator seed, 0 to {SEED_LIMIT - 1} (default: the lesson's own)"))]),
    ("packet", "a sealed, sourced, safely wrapped evidence packet", []),
    ("hybrid", "candidate channels, the query contract and rank fusion", []),
    ("eligibility", "permission, freshness and evidence states before anything is ranked", []),
    ("grounding", "traces that explain every inclusion and exclusion: fingerprint, exclusions, layer walk",
     [(("--query",), dict(metavar="ID", help="catalogue query to show in detail (default PW-Q002)"))]),
    ("answer", "an honest answer stage that cites only its packet", []),
    ("practice", "the capstone: eight candidates, one packet, every decision explained",
     [(("--solution",), dict(action="store_true", help="also print the reference decision table"))]),
    ("channels", "every channel can fail, and each failure has its own fallback", []),
    ("memory", "retained context with obligations, under the same gate as evidence", []),
    ("operate", "signals per stage, the layered evaluation, faithfulness and the context contract review", []),
]

# name -> (number "01", description, options): what methods.py and the workflow look up
LESSONS = {name: (f"{position:02d}", about, options) for position, (name, about, options) in enumerate(COURSE, 1)}

# name -> (description, "module:function"); the function takes the argument list, returns the exit status
WORKFLOW = {
    "setup": ("once after cloning: compile the lab's own modules, as installing a package does, "
              "so lessons start fast", "labtools.precompile:main"),
    "check": ("grade your exercises: progress per lesson, the first failure, the next step", "labtools.cli:check"),
    "hint": ("the next hint for a task, one level at a time", "labtools.cli:hint"),
    "reset": ("restore an exercise file to its stub (your file is backed up first)", "labtools.workflow:reset"),
    "watch": ("re-grade whenever you save an exercise file", "labtools.workflow:watch"),
    "audit": ("find where your own retrieval run (BEIR folder + TREC run) loses evidence",
              "labtools.audit:main"),
    "grade": ("instructors: grade a folder of submissions into a gradebook", "labtools.gradebook:main"),
    "dev": ("maintainer commands: sync, check, notebooks, golden, mutants, bench, probe, gradescope, test",
            "labtools.dev:main"),
}


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
