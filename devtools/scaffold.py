"""`methods.py dev new NAME`: start a lesson from the course manifest's point of view.

It appends the lesson (and its two starter tasks) to course.json and writes the files a
lesson needs, each a small working example to replace: the mechanism, the trace and view,
the solution, the grader and its wrong answers, the hints and the notebook source (the
hand-written files), plus modules/NAME/__init__.py, which only re-exports the mechanism.
Then `dev sync` generates the stub and the grader manifest, `dev golden NAME` the golden
output, `dev notebooks` the executed notebook. It never overwrites a file that exists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from labtools import files, manifest

TEMPLATES = {
    "modules/{name}/__init__.py": '''"""Lesson {number}, {name}: {title}.

The public API of this lesson: everything mechanism.py exports. Read mechanism.py for how
it works; trace.py prints the lesson.
"""

from modules.{name}.mechanism import *  # noqa: F401,F403
from modules.{name}.mechanism import __all__  # noqa: F401
''',
    "modules/{name}/mechanism.py": '''"""Lesson {number}, {name}: {title}.

Replace this example mechanism with the lesson's own: pure functions over frozen records.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.common.checks import sequence_of

__all__ = ["Passage", "PASSAGES", "longest_first"]


@dataclass(frozen=True)
class Passage:
    """A passage and its text."""

    id: str
    text: str

    def __post_init__(self) -> None:
        for field in ("id", "text"):
            if not isinstance(getattr(self, field), str):
                raise TypeError(f"Passage.{{field}} must be a str, got {{getattr(self, field)!r}}")


PASSAGES = (Passage("p1", "short"), Passage("p2", "a longer passage"), Passage("p3", "middle one"))


def longest_first(passages) -> tuple[Passage, ...]:
    """The passages, longest text first (ties keep their order)."""
    return tuple(sorted(sequence_of(passages, Passage, "passages"), key=lambda p: -len(p.text)))
''',
    "modules/{name}/trace.py": '''"""Lesson {number}, {name}: the trace record and its printable view."""

from __future__ import annotations

from modules.{name}.mechanism import PASSAGES, longest_first


def trace() -> dict:
    """The lesson's record: JSON-serialisable, the same on every run."""
    return {{"passages": [{{"id": p.id, "chars": len(p.text)}} for p in longest_first(PASSAGES)]}}


def view(record: dict) -> list:
    """Printable blocks (see labtools/render.py): a heading and one table with its legend."""
    return [
        {{"key": "heading", "heading": "Lesson {number} - {name}: {title}"}},
        {{"key": "passages", "table": {{
            "title": "Passages, longest first", "legend": "chars: the text's length in characters.",
            "columns": ["id", "chars"], "rows": [[p["id"], p["chars"]] for p in record["passages"]]}}}},
    ]
''',
    "solutions/{name}.py": '''"""Lesson {number} exercises.

Task 1  total_chars   the characters of every passage together
Task 2  EXAMPLE_QUIZ  what a total says about one passage

Check your work:  python3 -B methods.py check {name}
Stuck?            python3 -B methods.py hint {name}
"""

from modules.{name} import Passage  # noqa: F401 (the record the tasks take)


def total_chars(passages) -> int:
    """Task 1. Return the number of characters of all `passages`' texts together."""
    # BEGIN SOLUTION
    return sum(len(p.text) for p in passages)
    # END SOLUTION


# Task 2. The total is 31 characters. What does it say about passage p1?
#   a) p1 has 31 characters
#   b) nothing by itself: p1 is one of three passages
#   c) p1 is the longest passage
#   d) every passage has 31 characters
# BEGIN SOLUTION
EXAMPLE_QUIZ = "b"
# END SOLUTION
''',
    "tests/graders/grade_{name}.py": '''"""Grader for lesson {number}, {name}. Run: python3 -B methods.py check {name}"""

from labtools.grading.harness import expect_call, expect_choice, function, load, manifest_tasks
from modules.{name} import PASSAGES, Passage

LESSON = "{name}"

TASKS = manifest_tasks(LESSON)


def test_task1_the_lesson_passages():
    expect_call(function(load(LESSON), "total_chars"), PASSAGES, want=31,
                why="5 + 16 + 10 characters")


def test_task1_no_passages():
    expect_call(function(load(LESSON), "total_chars"), (), want=0, why="no passage, no characters")
    expect_call(function(load(LESSON), "total_chars"), (Passage("x", "ab"), Passage("y", "ab")), want=4,
                why="two passages with the same text both count")


def test_task2_quiz():
    expect_choice(LESSON, "EXAMPLE_QUIZ", "b", 2, "Reread what a total adds up")
''',
    "tests/wrong_answers/{name}.py": '''"""Plausible wrong answers to lesson {number}'s tasks; `dev check` proves the graders reject each."""

WRONG_ANSWERS = [
    {{"name": "counts passages, not characters", "task": 1,
     "replace": [("return sum(len(p.text) for p in passages)", "return len(passages)")]}},
    {{"name": "counts each distinct text once", "task": 1,
     "replace": [("return sum(len(p.text) for p in passages)",
                  "return sum(len(text) for text in set(p.text for p in passages))")]}},
    {{"name": "quiz: reads the total as p1's length", "task": 2,
     "replace": [('EXAMPLE_QUIZ = "b"', 'EXAMPLE_QUIZ = "a"')]}},
]
''',
    "exercises/hints/{name}.md": '''# Hints for lesson {number}, {name}

## Task 1: total_chars
- What is a passage's length, and how do you add up many of them?
- `sum(len(p.text) for p in passages)`: every passage counts, even one whose text repeats.

## Task 2: EXAMPLE_QUIZ
- Does a sum over three passages tell you about any one of them?
- A total needs the other parts before it says anything about one.
''',
    "notebooks/src/{number}_{name}.py": '''# %% [markdown]
# # Lesson {number} · {name}: {title}
#
# Replace this notebook with the lesson for reading; it calls the package.

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from modules.{name} import trace as lesson

record = lesson.trace()
record["passages"]
''',
}

MANIFEST_TASKS = [
    {"number": 1, "name": "total_chars", "kind": "function", "title": "Add up the characters of the passages"},
    {"number": 2, "name": "EXAMPLE_QUIZ", "kind": "quiz", "title": "Quiz: what a total says about one passage"},
]


def new_lesson(root: Path, name: str, title: str, world: str = "own") -> list[str]:
    """Append lesson `name` to course.json and write its starter files; return what was done."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name or ""):
        raise ValueError(f"name must be a lower-case Python name, got {name!r}")
    if world not in manifest.WORLDS:
        raise ValueError(f"world must be one of {', '.join(manifest.WORLDS)}, got {world!r}")
    path = root / "course.json"
    data = manifest.load(str(path))
    if any(entry["name"] == name for entry in data["lessons"]):
        raise ValueError(f"course.json already has a lesson {name!r}")
    number = f"{len(data['lessons']) + 1:02d}"
    data["lessons"].append({"name": name, "world": world, "title": title, "tasks": MANIFEST_TASKS})
    manifest.check(data)
    done = []
    for pattern, template in TEMPLATES.items():
        target = root / pattern.format(name=name, number=number)
        if target.exists():
            done.append(f"kept {target.relative_to(root)}: it exists")
            continue
        files.make_folder(target.parent)
        files.replace_text(target, template.format(name=name, number=number, title=title))
        done.append(f"wrote {target.relative_to(root)}")
    # The manifest last, so an interrupted run leaves no lesson without its files.
    text = path.read_text(encoding="utf-8")
    entry = json.dumps(data["lessons"][-1], ensure_ascii=False)
    at = text.rstrip().rstrip("}").rstrip().rstrip("]").rstrip()
    files.replace_text(path, at + ",\n    " + entry + "\n  ]\n}\n")
    manifest.load(str(path))
    done.append(f"added lesson {number} {name} to course.json")
    return done
