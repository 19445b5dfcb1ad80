"""The lab on every supported Python (3.10 to 3.13) found on this machine.

Under each interpreter: every built lesson command prints its golden output, the
graders pass every solution and reject the first lesson's stub (`check --target ... --json`), and
the workflow commands parse and answer. An interpreter that is not installed is
skipped with the places that were searched.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import pytest

from helpers import GOLDEN, ROOT, built_lessons
from labtools import course
from devtools import dev

SUPPORTED = ("3.10", "3.11", "3.12", "3.13")


@lru_cache(maxsize=None)
def find_python(version: str) -> str | None:
    """An interpreter that really is `version` (pyenv shims on PATH may only pretend)."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(glob.glob(f"/root/.pyenv/versions/{version}*/bin/python3"), reverse=True)
    for candidate in filter(None, candidates):
        try:
            done = subprocess.run([candidate, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                  capture_output=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0 and done.stdout.decode().strip() == version:
            return candidate
    return None


def environment() -> dict:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    for name in ("NO_COLOR", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"):
        env.pop(name, None)  # nothing from the test runner's own interpreter may leak in
    return env


def run(python: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-B", str(ROOT / "methods.py"), *args], capture_output=True,
                          cwd=ROOT, env=environment(), timeout=300)


# The grading Python (3.10) and CI's (3.11) in every run; the newer ones are probes.
@pytest.mark.parametrize("version", [v if v in ("3.10", "3.11") else pytest.param(v, marks=pytest.mark.probe)
                                     for v in SUPPORTED])
def test_lessons_and_graders_under(version, tmp_path):
    python = find_python(version)
    if python is None:
        pytest.skip(f"Python {version} not found (looked for python{version} on PATH and in "
                    f"/root/.pyenv/versions/{version}*/bin/python3)")
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    first = course.lessons()[0]
    (stubs / f"{first}.py").write_text(dev.generated_stub(first), encoding="utf-8")
    goldens = [name for name in built_lessons() if (GOLDEN / f"{name}.txt").is_file()]
    jobs = {("lesson", name): (name, "--plain") for name in goldens}
    jobs[("check", "solutions")] = ("check", "--target", str(ROOT / "solutions"), "--json")
    jobs[("check", "stubs")] = ("check", first, "--target", str(stubs), "--json")  # graders reject, too
    jobs[("hint",)] = ("hint", first, "1", "--level", "1")
    jobs[("reset",)] = ("reset",)
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = dict(zip(jobs, pool.map(lambda args: run(python, *args), jobs.values())))

    for name in goldens:
        result = done[("lesson", name)]
        assert result.returncode == 0, f"{name} under {version}: {result.stderr.decode()}"
        assert result.stdout == (GOLDEN / f"{name}.txt").read_bytes(), f"{name} differs from its golden under {version}"

    solved = done[("check", "solutions")]
    record = json.loads(solved.stdout)
    failing = [f"{lesson['lesson']}: {lesson.get('error') or next(t['message'] for t in lesson['tasks'] if not t['passed'])}"
               for lesson in record["lessons"] if lesson["status"] != "passed"]
    assert solved.returncode == 0 and record["passed"] is True and not failing, \
        f"solutions fail under {version}: " + "; ".join(failing)
    assert [lesson["lesson"] for lesson in record["lessons"]] == course.lessons()

    unsolved = done[("check", "stubs")]
    record = json.loads(unsolved.stdout)
    assert unsolved.returncode == 1
    for lesson in record["lessons"]:
        assert lesson["status"] == "failing" and lesson["done"] == 0, f"{lesson['lesson']} stub under {version}"

    assert done[("hint",)].returncode == 0 and b"hint 1/" in done[("hint",)].stdout
    assert done[("reset",)].returncode == 2 and b"--all" in done[("reset",)].stderr
    assert not list(stubs.rglob("__pycache__"))

