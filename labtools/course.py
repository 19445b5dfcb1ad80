"""Where the course's files are, and the few file operations the workflow needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from labtools import files

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS, EXERCISES, GRADERS = ROOT / "solutions", ROOT / "exercises", ROOT / "tests" / "graders"
# A student release (`dev release`) ships no solutions/: the course's stubs live in .lab/stubs/
# (the course writes them; a learner never edits them), and .lab/started/ remembers the stub
# each exercises/NAME.py was written from, so `update` can tell the learner's edits from the
# course's (labtools/update.py).
STUBS, STARTED = ROOT / ".lab" / "stubs", ROOT / ".lab" / "started"
BACKUPS = ROOT / ".backups"
LOCK = ROOT / ".lab.lock"  # reset, dev sync and hint take turns on it (labtools/files.py)
GRADE_SECONDS = 60


def lessons() -> list[str]:
    """Lessons that have graded exercises, in course order: those whose course.json entry lists
    tasks and whose grader exists, with a solution (the course's own checkout) or a shipped stub
    (a student release, which holds only the released lessons' graders); `dev check` reports an
    entry without them."""
    from labtools import manifest
    return [entry["name"] for entry in manifest.lessons() if entry.get("tasks")
            and (GRADERS / f"grade_{entry['name']}.py").is_file()
            and ((SOLUTIONS / f"{entry['name']}.py").is_file() or (STUBS / f"{entry['name']}.py").is_file())]


def is_release() -> bool:
    """Whether this is a student release: no solutions/, the stubs shipped in .lab/stubs/."""
    return STUBS.is_dir() and not SOLUTIONS.is_dir()


def require_lesson(name: str, command: str = "methods.py") -> str:
    """`name` if it is a lesson with graded exercises; otherwise a usage error (exit 2)."""
    known = lessons()
    if name not in known:
        from modules.common.checks import short
        sys.stderr.write(f"{command}: error: no graded exercises for {short(name)}; lessons with exercises: "
                         + ", ".join(known) + "\n")
        raise SystemExit(2)
    return name


def generated_stub(lesson: str) -> str:
    """exercises/LESSON.py as the generator makes it from solutions/LESSON.py now; in a student
    release (no solution), the stub the course shipped in .lab/stubs/."""
    solution = SOLUTIONS / f"{lesson}.py"
    if not solution.is_file() and (STUBS / f"{lesson}.py").is_file():
        return files.read_text(STUBS / f"{lesson}.py")
    from labtools import stubgen
    return stubgen.make_stub(files.read_text(solution), lesson)


def write_missing_exercises() -> list[str]:
    """In a student release, write exercises/NAME.py from the shipped stub for every lesson
    that has none yet (a new week's lesson), remembering the stub in .lab/started/; never
    touch a file that exists. The lines to print, one per file written."""
    if not STUBS.is_dir():
        return []
    written = []
    with locked():
        for lesson in lessons():
            path, stub = EXERCISES / f"{lesson}.py", STUBS / f"{lesson}.py"
            if path.exists() or path.is_symlink() or not stub.is_file():
                continue
            text = files.read_text(stub)
            files.make_folder(EXERCISES)
            files.make_folder(STARTED)
            files.replace_text(STARTED / f"{lesson}.py", text)
            files.replace_text(path, text)
            written.append(f"New exercise file: {shown(path)} (lesson {lesson})")
    return written


def shown(path: Path) -> str:
    """A path as the learner should read it: relative to the project when inside it."""
    return files.shown(path)


def locked():
    """The lab's lock (see labtools/files.py) around a change to the learner's files or state."""
    return files.locked(LOCK)


def backup(path: Path, data: bytes | None = None) -> Path:
    """Save `data` (default: the file's bytes now) into .backups/ under a timestamped name that
    no other backup has, even one made in the same second; return the copy's path."""
    if data is None:
        data = files.read_bytes(path)
        if data is None:
            raise files.FileProblem(f"{shown(path)} does not exist, so there is nothing to back up")
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        mtime = None
    return files.backup_bytes(data, BACKUPS, path.stem, path.suffix, mtime)


def committed_text(path: Path) -> str | None:
    """The file as the last commit has it, or None outside git (a zip download, say), for a
    file the commit lacks, or one that is not UTF-8 text."""
    try:
        name = path.resolve().relative_to(ROOT).as_posix()
        done = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=ROOT, capture_output=True, timeout=20)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        return None
