"""Learner code in namespaces of its own (Linux), for grading without the sandbox.

A forked grading child calls enter() after its limits are set and before any learner code runs.
Where the kernel allows it (user namespaces for a user who is not root), the child then runs:

- in a PID namespace of its own, with a /proc that shows only it and what it starts: no other
  process (a worker, `grade`, a classmate's child) can be named, signalled or read, and when
  it ends the kernel kills everything it started;
- in a network namespace with no interface up: no connection anywhere;
- with every file system read-only but its own work folder, and the checkout and the
  class folder (the `hidden` paths) covered by an empty read-only folder: no solutions,
  no .git, no classmate's file, no gradebook can be read or written;
- with no capability and no way to gain one (no_new_privs), so none of this can be undone.

What remains possible, as the same user: the child's own memory holds the key that signs its
own results, so code written to attack its grading can still forge its own grade (only the
sandbox defends that). enter() returns the list of what it could not do, empty when all held.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
CLONE_NEWIPC = 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
MOUNT_ATTR_RDONLY, AT_RECURSIVE = 0x1, 0x8000
SYS_MOUNT_SETATTR = 442  # the same number on x86_64 and arm64 (added in Linux 5.12)
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS = 1, 4, 38
CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64),
                ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    encode = (lambda text: text.encode() if text is not None else None)
    _check(_libc.mount(encode(source), encode(target), encode(kind), ctypes.c_ulong(flags), encode(data)),
           f"mount {target}")


def _set_read_only(path: str, recursive: bool, read_only: bool) -> None:
    attr = _MountAttr(MOUNT_ATTR_RDONLY if read_only else 0, 0 if read_only else MOUNT_ATTR_RDONLY, 0, 0)
    flags = AT_RECURSIVE if recursive else 0
    _check(_libc.syscall(SYS_MOUNT_SETATTR, -100, path.encode(), flags, ctypes.byref(attr), ctypes.sizeof(attr)),
           f"make {path} {'read-only' if read_only else 'writable'}")


def _write(path: str, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY)
    try:
        os.write(descriptor, text.encode())
    finally:
        os.close(descriptor)


def _drop_capabilities() -> None:
    """No capability left in any set: the namespaces' owner (this process, in a user namespace)
    can then no longer unmount or remount what enter() set up."""
    header = (ctypes.c_uint32 * 2)(CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_libc.capset(header, data), "drop capabilities")


def _relay(pid: int) -> None:
    """The process left outside the new PID namespace: it ends as its one child ended (the
    worker reads that status), and nothing inside can name it."""
    os.closerange(3, 1 << 16)
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder


def probe() -> list[str] | None:
    """What enter() could not do here (an empty list: everything held), or None where no
    namespace can be made at all: tried in a child that ends at once."""
    if _libc is None or not hasattr(os, "fork"):
        return None
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            missing = enter(os.getcwd(), [])
            os.write(write_end, "\n".join(missing).encode() + b"\n")
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as said:
        answer = said.read().decode()
    os.waitpid(pid, 0)
    return [line for line in answer.splitlines() if line] if answer else None


def enter(work: str, hidden: list[str]) -> list[str]:
    """Enter the namespaces (see the module's docstring); returns only in the new PID
    namespace's first process, with what could not be done (an empty list: everything held).
    Raises OSError when no namespace could be made at all."""
    if _libc is None:
        raise OSError("namespaces need Linux")
    work = os.path.realpath(work)
    as_root = os.geteuid() == 0
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | (0 if as_root else CLONE_NEWUSER)
    _check(_libc.unshare(flags), "unshare")
    if not as_root:
        # /proc/self of an undumpable process belongs to root: dumpable for the three writes only.
        _check(_libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0), "set dumpable")
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
        _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "set undumpable")
    pid = os.fork()
    if pid != 0:
        _relay(pid)  # never returns
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    os.setsid()  # kill(0, ...) now reaches only this namespace's processes
    # The first process of a PID namespace ignores SIGXCPU (the soft CPU limit's signal), so the
    # hard limit, whose SIGKILL it cannot ignore, comes one second after the soft one.
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if soft != resource.RLIM_INFINITY and (hard == resource.RLIM_INFINITY or hard > soft + 1):
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))
    missing = []
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here is seen outside
    try:
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        missing.append("a /proc of its own")
    keep = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    for folder in sorted({os.path.realpath(path) for path in hidden}):
        if folder == "/" or not os.path.isdir(folder) or _inside(work, folder) \
                or any(_inside(place, folder) for place in keep):
            continue
        try:
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=0555")
        except OSError:
            missing.append(f"{folder} hidden")
    try:
        _mount(work, work, None, MS_BIND)
        _set_read_only("/", recursive=True, read_only=True)
        _set_read_only(work, recursive=False, read_only=False)
    except OSError:
        missing.append("the file systems read-only")
    os.chdir(work)  # the working folder held so far is the one under the mount now read-only
    if not as_root:  # as root, the worker's drop to the learner's user clears them
        _drop_capabilities()
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "set no_new_privs")  # and none to gain by exec
    return missing
