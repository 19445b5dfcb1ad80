"""Every descendant, gone: the grading processes are subreapers (Linux), so whatever the graded
code starts (setsid or not) is reparented to them when its parent dies, and killed here.
One loop for the worker (after each job) and for the process that runs the workers."""

from __future__ import annotations

import os
import signal
import sys
import time


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux): a child that calls
    setsid() and forks leaves its process group, but its orphans are still reparented here."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def become_undumpable() -> bool:
    """PR_SET_DUMPABLE 0 (Linux): another process of the same user can then neither trace
    this one nor open its /proc/PID/fd, mem or environ (only a root one could, hence the
    learner's own user where grading runs as root: worker.py). Inherited by forked children."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        return False


def children_of(pid: int) -> list[int]:
    """Process ids whose parent is `pid` (from /proc; empty where there is no /proc)."""
    quick = _children_files(pid)
    if quick is not None:
        return quick
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                text = handle.read()
        except OSError:
            continue
        fields = text.rpartition(b")")[2].split()
        if len(fields) > 1 and fields[1].isdigit() and int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _children_files(pid: int) -> list[int] | None:
    """The children of every thread of `pid` from /proc/PID/task/*/children (cheap), or None
    where the kernel does not offer them."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    found = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found += [int(part) for part in handle.read().split()]
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            continue
    return found


def kill_orphans(keep=()) -> int:
    """SIGKILL every child of this process not in `keep` (each killed one's own children are
    then reparented here, and killed in the next round) and reap it; return how many."""
    killed = 0
    for _ in range(200):
        found = [pid for pid in children_of(os.getpid()) if pid not in keep]
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            killed += 1
        time.sleep(0.002)
    return killed


def process_state(pid: int) -> str:
    """A process's state letter from /proc ("T": stopped), or "" where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rpartition(b")")[2].split()
        return fields[0].decode() if fields else ""
    except OSError:
        return ""
