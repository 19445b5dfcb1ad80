"""`dev release`: the learner's copy of the course, one week's lessons at a time (nbgrader's
"release" step: the student version is generated from the course, never edited by hand).

    python3 -B methods.py dev release --lesson context --lesson budget --out DIR

DIR gets every mechanism (modules/), the learner's commands (labtools/, without the
maintainer tools), the grading harness and the released lessons' graders, hints, notebooks and
stubs. It never gets solutions/, the project's own tests (goldens, wrong-answer catalogues), nor
anything of a lesson not released (its grader holds its quiz keys, its last hint is nearly the
answer). The grader manifest is written from what DIR holds, so `check` there compares exactly
what was shipped.

The stubs go to DIR/.lab/stubs/ (the course's, replaced by each release) and, for a lesson new
to DIR, to DIR/exercises/NAME.py (the learner's, never written again; DIR/.lab/started/ keeps
the stub it started from). So building next week's release into the same DIR, or a learner
running `methods.py update --from NEWDIR` (labtools/update.py), adds lessons and changes the
course's files without touching a learner's file, and a class repository that tracks
exercises/ never gets a conflict from the course: the course never edits a learner's file.

DIR/.lab/release.json records the lessons, the course commit and the files shipped (an
update removes what a later release no longer ships).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from labtools import course, files

# The maintainer tools live in devtools/, which a release never ships; of labtools, only the
# stub generator is theirs (it reads solutions/, which a release does not have).
MAINTAINER_TOOLS = ("stubgen.py",)
TOP_FILES = ("methods.py", "course.json", "pyproject.toml", "README.md")
RECORD = Path(".lab") / "release.json"
IGNORE = """__pycache__/
*.pyc
.backups/
.hints-seen.json
.hints-seen.json.*
.lab.lock
.*.tmp
exercises/.*.tmp
"""


def _skipped(path: Path) -> bool:
    return "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo") or not path.is_file()


def _tree(folder: Path) -> list[Path]:
    return [path for path in sorted(folder.rglob("*")) if not _skipped(path)] if folder.is_dir() else []


def shipped_files(lessons: list[str], root: Path | None = None) -> dict[str, Path]:
    """{path in the release: source file} for a release of `lessons` (the stubs aside)."""
    from labtools import manifest
    root = root or course.ROOT
    found: dict[str, Path] = {}

    def add(path: Path) -> None:
        found[path.relative_to(root).as_posix()] = path

    for name in TOP_FILES:
        if (root / name).is_file():
            add(root / name)
    for path in _tree(root / "docs") + _tree(root / "modules"):
        add(path)
    for path in _tree(root / "labtools"):  # the learner's commands and the grading package
        if path.suffix == ".py" and not (path.parent == root / "labtools" and path.name in MAINTAINER_TOOLS):
            add(path)
    every = [entry["name"] for entry in manifest.lessons()]
    graders = root / "tests" / "graders"
    for path in sorted(graders.glob("*.py")):
        lesson = path.stem[len("grade_"):] if path.stem.startswith("grade_") else None
        if lesson is None or lesson in lessons or lesson not in every:
            add(path)  # the harness, and the released lessons' graders
    for lesson in lessons:
        for path in (root / "exercises" / "hints" / f"{lesson}.md",
                     root / "notebooks" / f"{manifest.number(lesson)}_{lesson}.ipynb"):
            if path.is_file():
                add(path)
    return found


def _stubs(lessons: list[str]) -> dict[str, str]:
    return {lesson: course.generated_stub(lesson) for lesson in lessons}


def read_record(folder: Path) -> dict | None:
    """DIR/.lab/release.json, or None when DIR is not a release."""
    data = files.read_bytes(folder / RECORD)
    if data is None:
        return None
    try:
        record = json.loads(data.decode("utf-8"))
    except ValueError:
        return None
    return record if isinstance(record, dict) and isinstance(record.get("files"), list) else None


def commit() -> str | None:
    """The course checkout's commit (None outside git)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=course.ROOT, capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode().strip() if done.returncode == 0 else None


def install(out: Path, sources: dict[str, Path], stubs: dict[str, str], record: dict) -> list[str]:
    """Put a release's course files into `out` (a new folder, or a copy holding an earlier release):
    the files in `sources`, the stubs in .lab/stubs/, an exercise file for each lesson `out` has
    none of; remove what the earlier release shipped and this one does not. Never writes an
    existing exercises/NAME.py. The lines to print."""
    earlier = read_record(out) or {"files": [], "lessons": []}
    lines = []
    for name, source in sorted(sources.items()):
        target = out / name
        files.make_folder(target.parent)
        files.replace_bytes(target, source.read_bytes())
    for name in sorted(set(earlier["files"]) - set(sources)):
        if not name.startswith(".lab/"):  # the list holds course files only, never a learner's
            (out / name).unlink(missing_ok=True)
            lines.append(f"removed {name} (no longer shipped)")
    stub_folder = out / ".lab" / "stubs"
    files.make_folder(stub_folder)
    for lesson, text in sorted(stubs.items()):
        files.replace_text(stub_folder / f"{lesson}.py", text)
        exercise, started = out / "exercises" / f"{lesson}.py", out / ".lab" / "started" / f"{lesson}.py"
        if not exercise.exists() and not exercise.is_symlink():
            files.make_folder(started.parent)
            files.replace_text(started, text)
            files.replace_text(exercise, text)
            lines.append(f"new lesson {lesson}: exercises/{lesson}.py")
    if not (out / ".gitignore").exists():
        files.replace_text(out / ".gitignore", IGNORE)
    files.replace_text(out / RECORD, json.dumps(record, indent=1, sort_keys=True) + "\n")
    from labtools.grading import integrity
    integrity.write_manifest(out, [name for name in record["files"] if (out / name).is_file()])
    return lines


CLASSROOM = Path(".github") / "classroom" / "autograding.json"


def build(lessons: list[str], out: Path, classroom: bool = False) -> list[str]:
    """Write the release of `lessons` into `out`; the lines to print. `classroom`: also GitHub
    Classroom's .github/classroom/autograding.json, one test per released task."""
    out = Path(out).resolve()
    if out == course.ROOT or course.ROOT in out.parents:
        raise files.FileProblem(f"{out} is inside the course checkout; write the release elsewhere")
    if out.exists() and any(out.iterdir()) and read_record(out) is None:
        raise files.FileProblem(f"{out} holds files and is not a release (no {RECORD.as_posix()}); "
                                f"name an empty folder, or an earlier release to add lessons to")
    sources = shipped_files(lessons)
    names = sorted(sources) + [f".lab/stubs/{lesson}.py" for lesson in lessons]
    record = {"lessons": lessons, "course_commit": commit(), "files": names}
    files.make_folder(out)
    lines = install(out, sources, _stubs(lessons), record)
    if classroom:
        from labtools.grading import exports
        files.make_folder((out / CLASSROOM).parent)
        files.replace_text(out / CLASSROOM, exports.classroom_json(lessons))
        lines.append(f"wrote {CLASSROOM.as_posix()} (GitHub Classroom: one test per task)")
    return lines + [f"wrote a release of {', '.join(lessons)} to {out} ({len(names)} files, no solutions)"]


def main(argv: list[str]) -> int:
    import argparse
    from labtools.render import fit
    parser = argparse.ArgumentParser(prog="methods.py dev release", description=__doc__.splitlines()[0])
    parser.add_argument("--lesson", action="append", required=True, metavar="NAME",
                        help="a lesson to release (repeatable; a number works too); earlier weeks' lessons "
                             "must be named again")
    parser.add_argument("--out", required=True, type=Path, metavar="DIR",
                        help="an empty folder, or an earlier release to add this one's lessons to")
    parser.add_argument("--classroom", action="store_true",
                        help="also write .github/classroom/autograding.json (GitHub Classroom's autograding: "
                             "one test per task, `check --target . LESSON TASK`, its points)")
    args = parser.parse_args(argv)
    from labtools.registry import lesson_named
    known = course.lessons()
    lessons = []
    for text in args.lesson:
        name = lesson_named(text)
        if name not in known:
            parser.error(f"there is no lesson with exercises called {text!r}; lessons: {', '.join(known)}")
        if name not in lessons:
            lessons.append(name)
    lessons.sort(key=known.index)
    try:
        lines = build(lessons, args.out, classroom=args.classroom)
    except files.FileProblem as problem:
        sys.stderr.write(fit(f"methods.py dev release: {problem}") + "\n")
        return 1
    for line in lines:
        print(fit(line))
    return 0
