"""A class folder as a learning-management system delivers it, read into one entry per student.

`grade` takes whatever the instructor downloaded, unchanged:

- one folder per student, named by the student's id (a GitHub Classroom clone, a hand-made
  folder, a whole checkout handed in);
- Canvas's "Download Submissions" zip: flat files named
  `NAME_USERID_SUBMISSIONID_FILE` (`NAME_LATE_USERID_...` when late), NAME being the student's
  sortable name or login, USERID Canvas's user id (what Canvas's gradebook import matches);
- Moodle's "Download submissions" zip: with "Download submissions in folders", one folder
  `Full Name_PARTICIPANTID_assignsubmission_file_` per student; without it, flat files
  `Full Name_PARTICIPANTID_assignsubmission_file_FILE`. PARTICIPANTID is what Moodle's grading
  worksheet calls "Participant N".

A file handed in again keeps the LMS's new name: Canvas adds `-1` (`context-1.py`), Moodle's
file manager ` (1)`. Such a file is read as the lesson file, and the student's notes say so.
A .py file that is no lesson file (helpers.py) is named as not graded: only lesson files are
graded, and a lesson file cannot import a module beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from labtools import files

CANVAS = re.compile(r"^(?P<name>.+?)_(?:LATE_)?(?P<id>[0-9]+)_(?P<item>[0-9]+)_(?P<file>.+)$")
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<id>[0-9]+)_assignsubmission_(?P<plugin>[a-z]+)_$")
MOODLE_FILE = re.compile(r"^(?P<name>.+)_(?P<id>[0-9]+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)$")


@dataclass
class Student:
    """One student of a class folder: `id` keys the gradebook row (Canvas's user id, Moodle's
    participant id, or the folder's name); `name` is the name the LMS gave; `folder` the folder
    whose lesson files are graded (None: none found, `why` says why); `files` the lesson files
    by lesson when they are not simply FOLDER/LESSON.py (flat downloads, resubmission names)."""
    id: str
    name: str
    lms: str                                   # "canvas", "moodle" or "folders"
    folder: Path | None = None
    why: str = ""
    files: dict[str, Path] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)   # what it was read from, relative to the class folder


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def lesson_file(name: str, lessons: list[str]) -> tuple[str | None, bool]:
    """(the lesson `name` is the file of, whether it is a resubmission's name), or (None, False)."""
    if name.endswith(".py") and name[:-3] in lessons:
        return name[:-3], False
    lesson = files.resubmitted_lesson(name, lessons)
    return (lesson, True) if lesson else (None, False)


def _take(student: Student, lesson: str, path: Path, resubmitted: bool, root: Path) -> None:
    shown = _relative(path, root)
    earlier = student.files.get(lesson)
    if earlier is not None:
        # Two files for one lesson: the later resubmission (the higher suffix) wins; say so.
        keep, drop = sorted([earlier, path], key=lambda p: _suffix_number(p.name))[::-1]
        student.files[lesson] = keep
        student.notes.append(f"{_relative(drop, root)} passed over: {_relative(keep, root)} is the later "
                             f"file for {lesson}.py")
        return
    student.files[lesson] = path
    if resubmitted:
        student.notes.append(f"{shown} read as {lesson}.py (the name an LMS gives a file handed in again)")


def _suffix_number(name: str) -> int:
    match = re.search(r"(?:-([0-9]+)| \(([0-9]+)\))\.py$", name)
    return int(match[1] or match[2]) if match else 0


def _folder_files(student: Student, folder: Path, lessons: list[str], root: Path) -> None:
    """The lesson files of a student's folder, resubmission names included, and its stray modules."""
    for lesson in lessons:
        if (folder / f"{lesson}.py").is_file() or (folder / f"{lesson}.py").is_symlink():
            student.files[lesson] = folder / f"{lesson}.py"
    try:
        names = sorted(entry.name for entry in folder.iterdir())
    except OSError:
        names = []
    for name in names:
        lesson, resubmitted = lesson_file(name, lessons)
        if resubmitted and lesson not in student.files:
            _take(student, lesson, folder / name, True, root)
        elif resubmitted:
            student.notes.append(f"{_relative(folder / name, root)} passed over: {lesson}.py is there too")
    for name in files.stray_modules(folder, lessons):
        student.notes.append(f"{_relative(folder / name, root)} is not graded: only lesson files are, and a lesson "
                             f"file cannot import a module beside it")


def read_class(root: Path, lessons: list[str]) -> tuple[list[Student], list[str]]:
    """The students of class folder `root`, sorted by id, and notes on what was passed over."""
    root = Path(root)
    students: dict[str, Student] = {}
    notes: list[str] = []

    def student(key: str, name: str, lms: str) -> Student:
        if key not in students:
            students[key] = Student(key, name, lms)
        return students[key]

    for entry in sorted(root.iterdir(), key=lambda path: path.name):
        if entry.name.startswith(".") or entry.name in files.SKIPPED_FOLDERS:
            continue
        if entry.is_symlink():
            notes.append(f"{entry.name}: a link, passed over")
            continue
        if entry.is_dir():
            match = MOODLE_FOLDER.match(entry.name)
            one = student(match["id"], match["name"], "moodle") if match else student(entry.name, entry.name, "folders")
            one.sources.append(entry.name + "/")
            found, why = files.lesson_folder(entry, lessons)
            if found is None and not any(lesson_file(p.name, lessons)[1] for p in entry.iterdir() if p.is_file()):
                if one.folder is None and not one.files:
                    one.why = why
                continue
            found = found or entry
            if one.folder is None or not one.files:
                one.folder, one.why = found, ""
                _folder_files(one, found, lessons, root)
                note = files.passed_over(entry, found, lessons)
                if note:
                    one.notes.append(f"{entry.name}/: {note}")
            continue
        if not entry.is_file():
            notes.append(f"{entry.name}: not a regular file, passed over")
            continue
        match = MOODLE_FILE.match(entry.name)
        if match:
            one = student(match["id"], match["name"], "moodle")
        else:
            match = CANVAS.match(entry.name)
            if not match:
                notes.append(f"{entry.name}: not a folder, nor a file named as Canvas or Moodle name a "
                             f"submission; passed over")
                continue
            one = student(match["id"], match["name"], "canvas")
        one.sources.append(entry.name)
        if one.folder is None:
            one.folder = root
        lesson, resubmitted = lesson_file(match["file"], lessons)
        if lesson is not None:
            _take(one, lesson, entry, resubmitted, root)
        elif match["file"].endswith(".py"):
            near = [l for l in lessons if match["file"][:-3].lower() == l.lower()]
            one.notes.append(f"{entry.name} is not graded: " + (
                f"the name must be {near[0]}.py" if near else
                "only lesson files are, and a lesson file cannot import a module beside it"))
    for one in students.values():
        if one.folder is root and not one.files:
            one.folder, one.why = None, "no lesson file (such as context.py) among the files handed in"
    return sorted(students.values(), key=lambda s: s.id), notes


def identity_columns(students: list[Student]) -> tuple[list[str], dict[str, list[str]]]:
    """The columns an LMS's gradebook import matches its students by, for this class:
    Canvas's (Student, ID, SIS User ID, SIS Login ID, Section: Canvas matches on ID), Moodle's
    grading worksheet (Identifier "Participant N", Full name); none for a class of folders.
    Returns (header, {student id: cells})."""
    kinds = {s.lms for s in students}
    if kinds == {"canvas"}:
        return (["Student", "ID", "SIS User ID", "SIS Login ID", "Section"],
                {s.id: [s.name, s.id, "", "", ""] for s in students})
    if kinds == {"moodle"}:
        return ["Identifier", "Full name"], {s.id: [f"Participant {s.id}", s.name] for s in students}
    return [], {s.id: [] for s in students}
