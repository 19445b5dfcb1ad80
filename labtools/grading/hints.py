"""Hints, as the learner reads them: exercises/hints/LESSON.md, one `## Task N: name` section
per task, one `- ` item per hint level (read from the harness snapshot once it is taken)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from labtools.grading.snapshot import ROOT, harness_bytes

HINTS = ROOT / "exercises" / "hints"  # one Markdown file per lesson; not a grading file (no manifest)
_HEADING = re.compile(r"## Task ([0-9]+): ([A-Za-z_][A-Za-z0-9_]*)")


def _shown(path: Path) -> str:
    try:
        return Path(path).relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def read_hints(path: Path) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """The task sections of a hints file: (heading line, task number, task name, hints in order).

    The format: any text (a title, a note) up to the first `## Task N: name` heading; under each
    heading one `- ` list item per hint level, from a nudge to nearly the answer, a long hint
    going on in lines indented by two spaces (joined with single spaces); blank lines anywhere.
    Anything else raises ValueError naming the file and line.
    """
    where = _shown(path)
    try:
        lines = harness_bytes(path).decode("utf-8").splitlines()
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


def hinted(lesson: str, tasks: tuple) -> tuple:
    """`tasks` with their hints from exercises/hints/LESSON.md: each task has exactly one section
    there, `## Task N: name` matching its number and name, and each section a task."""
    path = HINTS / f"{lesson}.md"
    sections = {task: (heading, name, hints) for heading, task, name, hints in read_hints(path)}
    known = {task.number: task.name for task in tasks}
    for task, (heading, name, _hints) in sections.items():
        if known.get(task) != name:
            listed = ", ".join(f"Task {number}: {known[number]}" for number in sorted(known))
            raise ValueError(f"{_shown(path)}, line {heading}: 'Task {task}: {name}' is not a task of "
                             f"{lesson} ({listed})")
    for task in tasks:
        if task.number not in sections:
            raise ValueError(f"{_shown(path)} has no '## Task {task.number}: {task.name}' section: "
                             f"every task needs its hints there")
    return tuple(dataclasses.replace(task, hints=sections[task.number][2]) for task in tasks)
