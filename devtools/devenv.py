"""`methods.py dev test`: one command from a fresh clone to a passing test suite.

It creates .venv (so it works where the system Python refuses `pip install`),
installs the optional dependency groups named in pyproject.toml, and runs
pytest from that environment. The environment is reused while the
requirements are unchanged.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

from labtools import course

VENV = course.ROOT / ".venv"
EXTRAS = ("test", "notebooks", "pretty", "frameworks")


def optional_dependencies(text: str) -> dict[str, list[str]]:
    """Read [project.optional-dependencies] (tomllib where it exists, 3.11+; a small reader on 3.10)."""
    try:
        import tomllib
    except ModuleNotFoundError:
        match = re.search(r"^\[project\.optional-dependencies\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        if not match:
            return {}
        table = {}
        for name, value in re.findall(r"^(\w[\w-]*)\s*=\s*(\[.*?\])", match.group(1), re.M | re.S):
            table[name] = ast.literal_eval(re.sub(r"#[^\n]*", "", value))
        return table
    return tomllib.loads(text).get("project", {}).get("optional-dependencies", {})


def requirements() -> list[str]:
    table = optional_dependencies((course.ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    missing = [extra for extra in EXTRAS if extra not in table]
    if missing:
        raise SystemExit(f"pyproject.toml lacks optional-dependencies groups: {', '.join(missing)}")
    return sorted({req for extra in EXTRAS for req in table[extra]})


def python_in(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


# uv installs the groups in parallel, and about ten times faster than pip (measured on the 2-core
# machine: the frameworks group and the rest, 18 s and 4 CPU-seconds against pip's 72 CPU-seconds),
# which keeps CI's whole run within its five minutes. It is only the installer: pip stays the
# fallback where uv cannot be installed, and the environment is the same either way.
INSTALLER = "uv>=0.9,<1"


def install(python: Path, packages: list[str]) -> None:
    """Install `packages` into the environment of `python`: with uv when it installs, else pip."""
    quiet = ["--disable-pip-version-check", "-q"]
    uv = python.parent / ("uv.exe" if os.name == "nt" else "uv")
    if subprocess.run([str(python), "-m", "pip", "install", *quiet, INSTALLER]).returncode == 0 and uv.exists():
        done = subprocess.run([str(uv), "pip", "install", "-q", "--compile-bytecode", "--python", str(python),
                               *packages])
        if done.returncode == 0:
            return
        print("uv could not install them; trying pip", flush=True)
    subprocess.run([str(python), "-m", "pip", "install", *quiet, *packages], check=True)


def ensure_venv() -> Path:
    wanted = "\n".join([sys.version.split()[0], *requirements()]) + "\n"
    stamp = VENV / ".lab-requirements"
    python = python_in(VENV)
    if python.exists() and stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        return python
    if VENV.is_symlink():  # rebuilding would empty the folder it points to, another checkout's
        raise SystemExit(f"{VENV.relative_to(course.ROOT)} is a link to {os.readlink(VENV)} and its requirements "
                         f"differ from this checkout's: remove the link, then run the command again")
    print(f"setting up {VENV.relative_to(course.ROOT)} with: {', '.join(wanted.split()[1:])}", flush=True)
    venv.EnvBuilder(with_pip=True, clear=VENV.exists()).create(VENV)
    install(python, wanted.split()[1:])
    stamp.write_text(wanted, encoding="utf-8")
    return python


def workers(pytest_args: list[str]) -> list[str]:
    """`-n auto` (one pytest-xdist worker per core) unless the arguments choose for themselves
    (`-n 0` runs in one process, as `-p no:xdist` does)."""
    chosen = any(arg == "-n" or arg.startswith(("-n", "--numprocesses", "--dist")) or arg == "no:xdist"
                 for arg in pytest_args)
    return [] if chosen else ["-n", "auto"]


def selection(pytest_args: list[str]) -> list[str]:
    """`-m "not probe"` unless the arguments choose (`-m ...`) or ask for the probes too
    (`--probes`, taken out here): a test marked `probe` is a long measurement (every lesson's
    mutants, pytest collecting every grader, four Pythons) that `dev mutants`, `dev probe` and
    `dev test --probes` run, and CI's five minutes leave out."""
    if "--probes" in pytest_args:
        return [arg for arg in pytest_args if arg != "--probes"]
    if any(arg == "-m" or arg.startswith("-m") for arg in pytest_args):
        return pytest_args
    return ["-m", "not probe", *pytest_args]


def run_tests(pytest_args: list[str]) -> int:
    pytest_args = selection(pytest_args)
    python = ensure_venv()
    # No bytecode written: the workers run side by side, and a test compares the checkout's
    # files before and after a lesson command.
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([str(python), "-m", "pytest", *workers(pytest_args), *pytest_args], cwd=course.ROOT,
                          env=env).returncode
