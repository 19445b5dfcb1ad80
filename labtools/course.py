"""Where the course's files are, and the few file operations the workflow needs."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS, EXERCISES, GRADERS = ROOT / "solutions", ROOT / "exercises", ROOT / "tests" / "graders"
BACKUPS = ROOT / ".backups"
GRADE_SECONDS = 60


def lessons() -> list[str]:
    """Lessons that have graded exercises, in course order."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from methods import LESSONS
    return [name for name in LESSONS if (SOLUTIONS / f"{name}.py").is_file()
            and (GRADERS / f"grade_{name}.py").is_file()]


def require_lesson(name: str) -> str:
    known = lessons()
    if name not in known:
        raise SystemExit(f"methods.py: error: no graded exercises for '{name}'; lessons with exercises: "
                         + ", ".join(known))
    return name


def shown(path: Path) -> str:
    """A path as the learner should read it: relative to the project when inside it."""
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def backup(path: Path) -> Path:
    """Copy `path` into .backups/ under a timestamped name; return the copy's path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    BACKUPS.mkdir(exist_ok=True)
    copy = BACKUPS / f"{path.stem}.{stamp}{path.suffix}"
    counter = 1
    while copy.exists():
        counter += 1
        copy = BACKUPS / f"{path.stem}.{stamp}-{counter}{path.suffix}"
    shutil.copy2(path, copy)
    return copy


def committed_text(path: Path) -> str | None:
    """The file as the last commit has it, or None outside git (a zip download, say)."""
    try:
        done = subprocess.run(["git", "show", f"HEAD:{path.relative_to(ROOT).as_posix()}"], cwd=ROOT,
                              capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None
