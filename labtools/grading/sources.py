"""Reading a learner's lesson file, the one way both sides do it: checked by `stat` before it
is opened (a FIFO, a device, a folder or a file of more than MAX_SOURCE_BYTES is refused by
name, never read), read with the same checks on the open file, decoded as Python decodes
source. Never its bytecode."""

from __future__ import annotations

import importlib.util
import os
import stat as stat_
from pathlib import Path


class Unreadable(Exception):
    """A lesson file that is not graded; `kind` says why (file: not a small regular file, or
    unreadable; syntax: not decodable as Python source)."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


MAX_SOURCE_BYTES = 1 << 20  # a lesson file larger than this is refused by name, before it is read


def check_file(path: Path, shown: str) -> tuple[str, str] | None:
    """Why a lesson file cannot be graded, from `stat` alone (nothing is read): (kind, message),
    or None for a regular file of at most MAX_SOURCE_BYTES."""
    try:
        info = os.stat(path)
    except PermissionError:
        return "file", f"{shown} cannot be read (permission denied): it was not graded"
    except OSError as error:
        return "file", f"{shown} cannot be read ({error.strerror or error}): it was not graded"
    if not stat_.S_ISREG(info.st_mode):
        what = ("a folder" if stat_.S_ISDIR(info.st_mode) else "a FIFO (named pipe)" if stat_.S_ISFIFO(info.st_mode)
                else "a device" if stat_.S_ISCHR(info.st_mode) or stat_.S_ISBLK(info.st_mode)
                else "a socket" if stat_.S_ISSOCK(info.st_mode) else "not a regular file")
        return "file", f"{shown} is {what}, not a regular file: only regular files are graded"
    if info.st_size > MAX_SOURCE_BYTES:
        return "file", (f"{shown} is {info.st_size:,} bytes; a lesson file of more than {MAX_SOURCE_BYTES:,} "
                        f"bytes is not graded (nothing was read)")
    return None


def read_limited(path: Path, shown: str) -> bytes:
    """The bytes of a regular file of at most MAX_SOURCE_BYTES, checked by stat before and
    while reading (a file swapped for a FIFO or grown meanwhile is refused); Unreadable else."""
    problem = check_file(path, shown)
    if problem is not None:
        raise Unreadable(problem[1], problem[0])
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as error:
        raise Unreadable(f"{shown} cannot be read ({error.strerror or error}): it was not graded", "file") from None
    try:
        info = os.fstat(fd)
        if not stat_.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            raise Unreadable(f"{shown} changed while it was read (it is no longer a small regular file)", "file")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, MAX_SOURCE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_SOURCE_BYTES:
                raise Unreadable(f"{shown} grew past {MAX_SOURCE_BYTES:,} bytes while it was read", "file")
    except OSError as error:
        raise Unreadable(f"{shown} cannot be read ({error.strerror or error}): it was not graded", "file") from None
    finally:
        os.close(fd)
    return b"".join(chunks)


def decode_text(data: bytes, shown: str) -> str:
    """Source bytes as Python decodes them; a file holding NUL bytes is binary, not source."""
    if b"\0" in data:
        raise Unreadable(f"{shown} is a binary file (it holds NUL bytes), not Python source", "file")
    try:
        return importlib.util.decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        raise Unreadable(f"{shown} is not readable as Python source: {error}", "syntax") from None
