"""Grading, in one package: each file has one job.

The graders' side (what runs in a grading worker; standard library only):
    harness.py    what every grader (tests/graders/grade_NAME.py) imports: load the learner's
                  file, call it, compare, explain failures; run() grades one lesson
    hints.py      exercises/hints/LESSON.md, read into each task's hints
    snapshot.py   the harness read once into memory (lab modules, graders, this package, hints)
    sources.py    reading a learner's lesson file: checked by stat, bounded, never bytecode
    worker.py     the warm worker (--serve): one child per job, limits, the watchdog
    signed.py     the signed result channel between a child and its worker
    reaper.py     every process the graded code started, killed (the subreaper's loop)
    remote.py     grade --sandbox, trusted side: the pipe to the sandboxed learner process
    sandboxed.py  grade --sandbox, learner side: runs under bubblewrap, answers with plain data
    wire.py       values as plain data across that pipe

The instructor's side (what `check` and `grade` run):
    pool.py       start the workers, hand out the jobs, collect the results
    sandbox.py    whether bubblewrap can run here, and its command line
    limits.py     seconds, memory and prints per graded lesson, and their options
    records.py    a result as a gradebook record, its text escaped
    gradebook.py  `methods.py grade`: a class folder into gradebook files
    exports.py    the gradebook as CSV and JUnit XML
    gradescope.py Gradescope's results.json and the autograder zip
    lms.py        a class folder as Canvas, Moodle or one folder per student delivers it
    integrity.py  the tamper warning: the grading files against the manifest

`from labtools import grading` gives the instructor's side by name (grading.grade_many,
grading.Limits, ...). Those names are looked up on first use, not imported here: a grading
worker and the sandbox import this package with only the graders' side present.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "pool": ("HarnessError", "Submission", "grade", "grade_many", "grade_submissions", "harness_snapshot",
             "lessons_with_graders", "read_lesson"),
    "limits": ("Limits", "MEMORY_MB", "OUTPUT_CHARS", "TASK_SECONDS", "add_limit_options", "limits_from"),
    "sandbox": ("sandbox_problem",),
    "records": ("PRINT_LINES", "escaped", "learner_prints", "summarize"),
    "sources": ("MAX_SOURCE_BYTES",),
}
_NAMES = {name: module for module, names in _WHERE.items() for name in names}


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'labtools.grading' has no attribute {name!r}")
    return getattr(importlib.import_module(f"labtools.grading.{module}"), name)
