"""Writing the learner's files without losing anything, even when two commands run at once.

locked()        one lab command at a time in the state-changing part of `reset`, `dev sync`
                and `hint` (an exclusive lock on .lab.lock in the checkout, released by the
                system when the process ends, so a crash never leaves it held)
replace_bytes() write a private temporary file beside the target, then os.replace it over
                the target: a reader sees the old file or the new one, never half of one,
                and two writers never share a scratch file
backup_bytes()  save bytes into a folder under a timestamped name that is created
                exclusively (O_EXCL): two backups made in the same second get two names
FileProblem     what went wrong with a file, as a sentence a command can print
odd_file()      a path that exists but is not a regular file (a FIFO, a socket, a device, a
                folder), in words: the lab never opens one, so it can never block on it
near_misses()   files in a folder whose names are nearly a lesson file's (Context.py,
                budget (1).py, dedupe.py.txt), for a message that says what was found
lesson_folder() where a handed-in folder keeps its lesson files (itself, or a nested
                exercises/ of a whole checkout): the one rule of grade, check --target
                and pytest with LAB_TARGET

Where the system has neither fcntl (POSIX) nor msvcrt (Windows), locked() cannot
serialise commands; it says so once on stderr, and backups and replacements stay
exclusive and atomic.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from labtools.registry import ROOT as _ROOT

ROOT = Path(_ROOT)
LOCK_SECONDS = 60.0  # how long a command waits for another one to finish with the files


class FileProblem(Exception):
    """A file operation that cannot be done; str() is the message for the person at the keyboard."""


def shown(path: Path) -> str:
    """A path as the learner should read it: relative to the project when inside it."""
    try:
        return Path(path).relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def describe(error: OSError, path: Path, doing: str) -> FileProblem:
    """`error` from `doing` (e.g. "write", "read") on `path`, in plain words."""
    where = shown(path)
    reason = error.strerror or type(error).__name__
    if isinstance(error, PermissionError):
        return FileProblem(f"cannot {doing} {where}: permission denied (is it, or its folder, "
                           f"read-only? `chmod u+rw` on it gives you access)")
    if isinstance(error, IsADirectoryError):
        return FileProblem(f"cannot {doing} {where}: it is a folder, not a file")
    if isinstance(error, NotADirectoryError) or error.errno == errno.ENOTDIR:
        return FileProblem(f"cannot {doing} {where}: a part of that path is a file, not a folder")
    if error.errno == errno.ENOSPC:
        return FileProblem(f"cannot {doing} {where}: the disk is full")
    return FileProblem(f"cannot {doing} {where}: {reason}")


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def odd_file(path: Path) -> str | None:
    """None for a regular file, a link or nothing at `path`; otherwise a message saying what is
    there. Checked with lstat, so nothing is opened: opening a FIFO would wait for a writer."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return None
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    return (f"{shown(path)} is {kind}, not a regular file, so the lab will not open it: "
            f"move it away, then rerun")


_COPY_MARK = re.compile(r"\s*(\(\d+\)|-? ?copy( \d+)?|~)$", re.IGNORECASE)


def near_misses(folder: Path, lesson: str) -> list[Path]:
    """Files in `folder` named almost LESSON.py: another case (Context.py), a copy's mark
    (`budget (1).py`, `budget copy.py`, `budget~.py`), an extra extension (dedupe.py.txt) or
    none (dedupe). Never LESSON.py itself, nor the lab's own hidden scratch files."""
    wanted = f"{lesson}.py"
    try:
        names = sorted(entry.name for entry in os.scandir(folder))
    except OSError:
        return []
    found = []
    for name in names:
        if name == wanted or name.startswith("."):
            continue
        stem = name
        while "." in stem and stem.rsplit(".", 1)[1].lower() in ("txt", "py", "bak", "orig", "save", "md", "rtf"):
            stem = stem.rsplit(".", 1)[0]
        stem = _COPY_MARK.sub("", stem).strip()
        if stem.lower() == lesson.lower():
            found.append(Path(folder) / name)
    return found


def near_miss_note(folder: Path, lesson: str) -> str | None:
    """"found Context.py: the name must be context.py", or None when nothing is nearly it."""
    found = near_misses(folder, lesson)
    if not found:
        return None
    names = ", ".join(path.name for path in found)
    return f"found {names}: the name must be {lesson}.py"


# ------------------------------------------------------------------ a submission's lesson files

SKIPPED_FOLDERS = {"__pycache__", "__MACOSX", ".git", ".venv", "venv", "node_modules"}
SEARCH_DEPTH = 4


def _has_lessons(folder: Path, lessons: list[str]) -> bool:
    return any((folder / f"{lesson}.py").is_file() or (folder / f"{lesson}.py").is_symlink() for lesson in lessons)


def _count_lessons(folder: Path, lessons: list[str]) -> int:
    return sum((folder / f"{lesson}.py").is_file() for lesson in lessons)


STUB_MARK = b"write your answer here, then run:"  # what every stub's unanswered task raises (stubgen)


def _work(folder: Path, lessons: list[str]) -> float:
    """How much work a folder's lesson files hold: 1 per file, half for one still holding an
    unanswered stub task; so a stray stub at the top does not outweigh a solved exercises/."""
    total = 0.0
    for lesson in lessons:
        path = folder / f"{lesson}.py"
        if path.is_file() and not path.is_symlink():
            try:
                data = read_bytes(path) or b""
            except FileProblem:
                data = b""
            total += 0.5 if STUB_MARK in data else 1.0
    return total


def passed_over(folder: Path, chosen: Path, lessons: list[str]) -> str | None:
    """What lesson_folder graded instead of other lesson files in `folder`, said so: a nested
    exercises/ chosen over stray lesson files at the top (or the reverse), or None."""
    folder, chosen = Path(folder), Path(chosen)
    other = folder if chosen != folder else folder / "exercises"
    if other.is_symlink() or not other.is_dir():
        return None
    stray = [f"{lesson}.py" for lesson in lessons if (other / f"{lesson}.py").is_file()]
    if not stray:
        return None
    where = "the top of the folder" if other == folder else "exercises/"
    graded = "the top of the folder" if chosen == folder else chosen.relative_to(folder).as_posix() + "/"
    return (f"graded {graded} ({_count_lessons(chosen, lessons)} lesson file(s)); {where} also holds "
            f"{', '.join(stray[:3])}{' ...' if len(stray) > 3 else ''}, not graded")


def stray_modules(folder: Path, lessons: list[str]) -> list[str]:
    """The .py files beside the lesson files that are neither one nor nearly one (helpers.py):
    they are not graded, and a lesson file cannot import them (only lesson files are copied)."""
    try:
        names = sorted(entry.name for entry in os.scandir(folder) if entry.is_file() and entry.name.endswith(".py"))
    except OSError:
        return []
    near = {path.name for lesson in lessons for path in near_misses(folder, lesson)}
    return [name for name in names if name[:-3] not in lessons and name not in near and not name.startswith(".")
            and not _RESUBMITTED.match(name)]


# An LMS's name for a file handed in again: Canvas adds "-1" (context-1.py), Moodle " (1)".
_RESUBMITTED = re.compile(r"^(?P<stem>.+?)(?:-[0-9]{1,3}| \([0-9]{1,3}\))\.py$")


def resubmitted_lesson(name: str, lessons: list[str]) -> str | None:
    """The lesson whose file `name` is as an LMS renames a resubmission (context-1.py), or None."""
    match = _RESUBMITTED.match(name)
    return match["stem"] if match and match["stem"] in lessons else None


def lesson_folder(folder: Path, lessons: list[str]) -> tuple[Path | None, str]:
    """The folder holding a submission's lesson files, and why none was found ("" when one was).

    The folder itself if it holds a lesson file; else the one nested folder named `exercises`
    that does (links are not followed); else the one shallowest nested folder that does. When
    none does, the reason names the near misses found (Context.py for context.py, say)."""
    folder = Path(folder)
    if _has_lessons(folder, lessons):
        nested = folder / "exercises"
        if not nested.is_symlink() and nested.is_dir() and _work(nested, lessons) > _work(folder, lessons):
            return nested, ""  # a stray stub at the top must not hide a solved exercises/ (passed_over says so)
        return folder, ""
    found, notes = [], []
    for here, folders, _files in os.walk(folder, followlinks=False):
        depth = len(Path(here).relative_to(folder).parts)
        folders[:] = sorted(name for name in folders if not name.startswith(".") and name not in SKIPPED_FOLDERS
                            and depth < SEARCH_DEPTH)
        if Path(here) != folder and _has_lessons(Path(here), lessons):
            found.append(Path(here))
        for lesson in lessons if not found else ():
            note = near_miss_note(Path(here), lesson)
            if note is not None:
                where = Path(here).relative_to(folder).as_posix()
                notes.append(note if where == "." else f"in {where}/, {note}")
    if not found:
        why = "no lesson file (such as context.py) in the folder or the folders inside it"
        return None, why + (f" ({'; '.join(notes[:3])})" if notes else "")
    named = [path for path in found if path.name == "exercises"]
    pool = named or found
    shallowest = min(len(path.parts) for path in pool)
    pool = [path for path in pool if len(path.parts) == shallowest]
    if len(pool) > 1:
        return None, "several folders hold lesson files: " + ", ".join(
            path.relative_to(folder).as_posix() for path in pool)
    return pool[0], ""


# ------------------------------------------------------------------ the lock

_warned = []


def _acquire(handle, deadline: float) -> None:
    try:
        import fcntl
    except ImportError:
        fcntl = None
    if fcntl is not None:
        def attempt() -> None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    else:
        try:
            import msvcrt
        except ImportError:
            if not _warned:
                _warned.append(True)
                sys.stderr.write("note: this system offers no file locking (no fcntl or msvcrt), so two lab "
                                 "commands run at the same moment are not taken in turn; backups and file "
                                 "replacements are still exclusive and atomic.\n")
            return

        def attempt() -> None:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
    pause = 0.002
    while True:
        try:
            attempt()
            return
        except OSError as error:
            if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK, errno.EDEADLK):
                raise
        if time.monotonic() > deadline:
            raise FileProblem(f"another lab command (reset, hint or dev sync) has held {shown(handle.name)} "
                              f"for over {LOCK_SECONDS:.0f} s; wait for it to finish, or stop it, then rerun")
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the lock on the file `path` (created if need be) for the `with` block."""
    try:
        handle = open(path, "a+b")
    except OSError as error:
        raise describe(error, path, "create the lock file") from None
    with handle:
        _acquire(handle, time.monotonic() + LOCK_SECONDS)
        yield  # closing the file releases the lock


# ------------------------------------------------------------------ writing

def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def replace_bytes(path: Path, data: bytes) -> None:
    """Make `path` hold `data`: a private temporary file in the same folder, then os.replace.
    A symbolic link is never written through, nor replaced."""
    path = Path(path)
    if path.is_symlink():
        raise FileProblem(f"{shown(path)} is a symbolic link (to {os.readlink(path)}); the lab never writes "
                          f"through a link: remove the link, then rerun")
    odd = odd_file(path)
    if odd:
        raise FileProblem(odd)
    mode = _mode_for(path)
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise describe(error, path, "write") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise describe(error, path, "write") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _claim(folder: Path, name: str) -> str:
    """A fresh hidden scratch name beside the target (.NAME.XXXX.tmp, which .gitignore covers)."""
    handle, scratch = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    os.close(handle)
    return scratch


def swap_in(path: Path, data: bytes, known: bytes | None, keep: Callable[[bytes], Path]) -> tuple[bool, list[Path]]:
    """Put `data` at `path`, replacing exactly what is backed up: an editor that saves over the
    file while this runs never loses its save.

    The file is first renamed to a hidden scratch name (atomic: what was at `path` at that
    instant is now there, and nothing else can change it); if those bytes are not `known`
    (the version the caller already backed up), keep(them) backs them up too. The new bytes
    are then linked in without replacing anything: a file saved at `path` in the meantime
    stays, and the result says so. Returns (whether `data` is now at `path`, the extra backups)."""
    path = Path(path)
    odd = odd_file(path)
    if odd:
        raise FileProblem(odd)
    if path.is_symlink():
        raise FileProblem(f"{shown(path)} is a symbolic link (to {os.readlink(path)}); the lab never writes "
                          f"through a link: remove the link, then rerun")
    mode = _mode_for(path)
    extra: list[Path] = []
    moved = False
    try:
        aside = _claim(path.parent, path.name)
    except OSError as error:
        raise describe(error, path, "write") from None
    try:
        try:
            os.replace(path, aside)
            moved = True
        except FileNotFoundError:
            pass
        except OSError as error:
            raise describe(error, path, "write") from None
        if moved:
            with open(aside, "rb") as stream:
                removed = stream.read()
            if removed != known and removed != data:
                extra.append(keep(removed))  # saved since the caller's backup: back that up too
        fresh = _claim(path.parent, path.name)
        try:
            with open(fresh, "wb") as stream:
                stream.write(data)
                stream.flush()
                os.fsync(stream.fileno())
            os.chmod(fresh, mode)
            try:
                os.link(fresh, path)  # never over a file that appeared meanwhile
                placed = True
            except FileExistsError:
                placed = False
            except OSError:  # no hard links here (some shared folders): create exclusively instead
                try:
                    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
                except FileExistsError:
                    placed = False
                else:
                    with os.fdopen(handle, "wb") as stream:
                        stream.write(data)
                    placed = True
        except OSError as error:
            raise describe(error, path, "write") from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(fresh)
    except BaseException:
        if moved:  # put the learner's file back unless something new took its place
            with contextlib.suppress(OSError):
                os.link(aside, path)
        with contextlib.suppress(OSError):
            os.unlink(aside)
        raise
    with contextlib.suppress(OSError):
        os.unlink(aside)
    return placed, extra


def replace_text(path: Path, text: str) -> None:
    replace_bytes(path, text.encode("utf-8"))


def make_folder(folder: Path) -> None:
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise describe(error, folder, "create the folder") from None


def backup_bytes(data: bytes, folder: Path, stem: str, suffix: str, mtime_ns: int | None = None) -> Path:
    """Save `data` as folder/STEM.YYYYMMDD-HHMMSS[-N]SUFFIX, a name no other backup has."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise FileProblem(f"{shown(folder)} is a file, so no backup can be saved in it; rename or move "
                          f"that file, then rerun (nothing was changed)")
    make_folder(folder)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    counter = 1
    while True:
        copy = folder / f"{stem}.{stamp}{'' if counter == 1 else f'-{counter}'}{suffix}"
        try:
            handle = os.open(copy, flags, 0o644)
            break
        except FileExistsError:
            counter += 1
        except OSError as error:
            raise describe(error, copy, "save a backup as") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        if mtime_ns is not None:
            os.utime(copy, ns=(mtime_ns, mtime_ns))  # the backup shows when the work was last saved
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(copy)
        raise describe(error, copy, "save a backup as") from None
    return copy


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes, or None when it does not exist; anything else odd is a FileProblem."""
    path = Path(path)
    if path.is_symlink():
        raise FileProblem(f"{shown(path)} is a symbolic link (to {os.readlink(path)}); the lab never writes "
                          f"through a link: remove the link, then rerun")
    odd = odd_file(path)
    if odd:
        raise FileProblem(odd)
    try:
        # O_NONBLOCK: should a FIFO appear after the check, opening it does not wait for a writer
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as error:
        raise describe(error, path, "read") from None
    with os.fdopen(handle, "rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise FileProblem(odd_file(path) or f"{shown(path)} is not a regular file; move it away, then rerun")
        try:
            return stream.read()
        except OSError as error:
            raise describe(error, path, "read") from None


def read_text(path: Path) -> str:
    """A UTF-8 text file the lab itself reads (a solution, say), with a clear message if it is not."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise FileProblem(f"{shown(path)} is not UTF-8 text (byte {error.start}): save it as UTF-8") from None
    except OSError as error:
        raise describe(error, path, "read") from None


def is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def set_aside(path: Path, label: str) -> Path:
    """Rename `path` to PATH.LABEL-YYYYMMDD-HHMMSS[-N], a name nothing else has; return it."""
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    counter = 1
    while True:
        aside = path.with_name(f"{path.name}.{label}-{stamp}{'' if counter == 1 else f'-{counter}'}")
        try:
            os.close(os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))  # claim the name
            break
        except FileExistsError:
            counter += 1
        except OSError as error:
            raise describe(error, aside, "set the file aside as") from None
    try:
        os.replace(path, aside)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(aside)
        raise describe(error, path, "set aside") from None
    return aside


def backup_name(path: Path) -> Path:
    """A fresh `NAME.STAMP[-N].bak` beside `path`, claimed exclusively (created empty), so two
    writers never pick the same backup name."""
    import time
    stamp = time.strftime("%Y%m%d-%H%M%S")
    counter = 1
    while True:
        copy = path.with_name(f"{path.name}.{stamp}{'' if counter == 1 else f'-{counter}'}.bak")
        try:
            os.close(os.open(copy, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            return copy
        except FileExistsError:
            counter += 1


def existing(paths: list[Path]) -> list[Path]:
    return [path for path in paths if path.exists() or path.is_symlink()]


def write_files(files: dict[Path, str | bytes], overwrite: bool) -> list[str]:
    """Write each file atomically; an existing one only with `overwrite`, after it is moved
    to a backup beside it. Returns a line for each backup kept."""
    clash = existing(list(files))
    if clash and not overwrite:
        raise FileExistsError(", ".join(str(path) for path in clash))
    lines = []
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            copy = backup_name(path)
            os.replace(path, copy)
            lines.append(f"kept the earlier {path.name} as {copy}")
        replace_bytes(path, text if isinstance(text, bytes) else text.encode("utf-8"))
    return lines
