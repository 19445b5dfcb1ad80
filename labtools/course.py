"""Where the course's files are, and the few file operations the workflow needs."""

from __future__ import annotations

import json
import os
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


def grade(lesson: str, target: Path | None = None) -> dict:
    """Grade one lesson in a fresh interpreter (a learner's loop or crash stays there)."""
    command = [sys.executable, "-B", str(GRADERS / "run.py"), lesson]
    if target is not None:
        command += ["--target", str(target)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=GRADE_SECONDS, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"lesson": lesson, "error": f"grading '{lesson}' took over {GRADE_SECONDS} s: "
                                           f"is there a loop that never ends?"}
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        detail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"lesson": lesson, "error": f"the grader for '{lesson}' could not run: {detail}"}
    return json.loads(lines[-1])


def grade_many(lessons: list[str], target: Path | None = None, workers: int | None = None) -> list[dict]:
    """Grade several lessons at once, each in its own interpreter; results in the order given.

    Grading is mostly interpreter start-up and imports, so running the lessons side by
    side keeps `check` of the whole course quick even on a small machine.
    """
    if workers is None:
        workers = max(2, os.cpu_count() or 2)
    if len(lessons) <= 1 or workers <= 1:
        return [grade(lesson, target) for lesson in lessons]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=min(workers, len(lessons))) as pool:
        return list(pool.map(lambda lesson: grade(lesson, target), lessons))


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
