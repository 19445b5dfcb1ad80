"""The bubblewrap sandbox of `grade --sandbox`, seen from the trusted side: whether it can run
here, and the command that starts one submission's learner process (sandboxed.py) in it."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

from labtools.grading.limits import Limits


def sandbox_problem() -> str | None:
    """Why `--sandbox` cannot be used here (None when it can)."""
    if sys.platform != "linux":
        return "--sandbox needs Linux (it runs each submission under bubblewrap)"
    if shutil.which("bwrap") is None:
        return ("--sandbox needs bubblewrap (the `bwrap` command), which is not installed; on Debian or "
                "Ubuntu: sudo apt-get install bubblewrap. Nothing was graded.")
    try:
        done = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--cap-drop", "ALL", "--", "true"],
                              capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"--sandbox: bwrap could not run: {error}. Nothing was graded."
    if done.returncode != 0:
        detail = done.stderr.decode(errors="replace").strip() or f"exit status {done.returncode}"
        return f"--sandbox: bwrap is installed but cannot make a sandbox here: {detail}. Nothing was graded."
    return None


def _interpreter() -> str:
    """The base interpreter (a venv's python needs its venv; the sandbox has only the base)."""
    for candidate in (getattr(sys, "_base_executable", None), sys.executable):
        if candidate and os.path.isfile(candidate):
            return os.path.realpath(candidate)
    return sys.executable


TMP_BYTES = 64 << 20  # the sandbox's /tmp (RAM-backed: host shared memory)


@functools.lru_cache(maxsize=1)
def _sizes_tmpfs() -> bool:
    """Whether this bwrap has --size (bubblewrap 0.8 and later)."""
    try:
        done = subprocess.run(["bwrap", "--help"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--size" in done.stdout + done.stderr


def sandbox_command(lab: Path, work: Path, limits: Limits) -> list[str]:
    """bwrap running the learner's side (sandboxed.py): the system's /usr and the interpreter's
    prefix read-only, /lab (the lab modules, sandboxed.py and wire.py) read-only, /work (this
    submission's scratch folder) writable; no network, no other process, no checkout."""
    python = _interpreter()
    command = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
               "--clearenv", "--setenv", "HOME", "/work", "--setenv", "TMPDIR", "/work",
               "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
               "--ro-bind", "/usr", "/usr"]
    for name in ("bin", "lib", "lib64", "lib32", "sbin"):
        place = Path("/") / name
        if place.is_symlink():
            command += ["--symlink", os.readlink(place), str(place)]
        elif place.is_dir():
            command += ["--ro-bind", str(place), str(place)]
    prefix = Path(sys.base_prefix).resolve()
    if Path("/usr") not in prefix.parents and prefix != Path("/usr"):
        command += ["--ro-bind", str(prefix), str(prefix)]
    # /tmp is RAM: bounded where bwrap can size it, else the submission's scratch folder on disk.
    tmp = (["--size", str(TMP_BYTES), "--tmpfs", "/tmp"] if _sizes_tmpfs()
           else ["--bind", str(work / "tmp"), "/tmp"])
    if "--bind" in tmp:
        (work / "tmp").mkdir(exist_ok=True)
    command += ["--proc", "/proc", "--dev", "/dev", *tmp,
                "--ro-bind", str(lab / "sandbox"), "/lab", "--bind", str(work), "/work", "--chdir", "/work",
                "--", python, "-I", "-S", "-B", "/lab/labtools/grading/sandboxed.py",
                "--memory-mb", str(limits.memory_mb)]
    return command

