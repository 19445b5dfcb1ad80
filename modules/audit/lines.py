"""Reading an audit input file line by line, bounded: for `methods.py audit`'s readers.

A file may be gzip-compressed (told by its first two bytes) and may start with a UTF-8 byte
order mark. A line longer than MAX_LINE bytes, JSON nested deeper than Python's reader allows,
a repeated key in one object and a path that is not a regular file each stop the audit with
one InputError naming the file, the line and the field. The files' own fields are read in
modules/audit/readers.py (corpus, queries), runs.py (qrels, the run per query), runlines.py
(the run's lines) and packets.py (packets, prompts).
"""

from __future__ import annotations

import json
import os
import re
import stat

from modules.common.checks import short

MAX_LINE = 1 << 24       # 16 MiB: a passage line longer than this is refused, never read whole
GZIP_MAGIC = b"\x1f\x8b"
BOM = "\ufeff"

class InputError(ValueError):
    """A malformed input line: `path`, 1-based `line` and the `field` at fault are attributes too."""

    def __init__(self, path: str, line: int, field: str, problem: str) -> None:
        super().__init__(f"{path} line {line}, field {field}: {problem}")
        self.path, self.line, self.field = path, line, field



def regular_file(path: str, what: str) -> str:
    """`path` if it names a regular file (after links); a FIFO, a directory or a device is refused."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} does not exist (the {what} file)") from None
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
        raise ValueError(f"{path}: expected a regular file (the {what} file), found {kind}")
    return path


def _open(path: str):
    with open(path, "rb") as probe:
        compressed = probe.read(2) == GZIP_MAGIC
    if compressed:
        import gzip
        return gzip.open(path, "rb")
    return open(path, "rb")


BLOCK = 1 << 20
# The next character that is not whitespace: the blank lines before it are skipped by the regular
# expression engine and counted by bytes.count, never visited one by one in Python.
NOT_BLANK = re.compile(rb"[^ \t\r\n\f\v]")


def _line_breaks(block: bytes) -> int:
    return block.count(b"\n")


def blocks(path: str, shown: str, limit: int = MAX_LINE, line_breaks=_line_breaks, size: int = BLOCK):
    """(number of the block's first line, block) pairs: the file, gzip undone, in blocks that end
    at a line break (the last may not); no line longer than `limit` bytes is ever held whole.
    Each block is `size` bytes, then the rest of its last line. `line_breaks(block)` counts its
    line breaks (a reader that passes over every byte anyway may count them in the same pass)."""
    with _open(path) as handle:
        number = 1
        while True:
            try:
                block = handle.read(size)
            except (OSError, EOFError) as error:
                raise _gzip_error(shown, number, error) from None
            if not block:
                return
            if not block.endswith(b"\n"):
                try:
                    rest = handle.readline(limit + 1)
                except (OSError, EOFError) as error:
                    raise _gzip_error(shown, number + block.count(b"\n"), error) from None
                if len(rest) > limit and not rest.endswith(b"\n"):
                    raise InputError(shown, number + block.count(b"\n"), "(line)", f"expected a line of at most "
                                                                                   f"{limit:,} bytes, found a "
                                                                                   f"longer one")
                block += rest
            breaks = line_breaks(block)
            yield number, block
            number += breaks


def _gzip_error(shown: str, number: int, error) -> InputError:
    """A file named .gz whose body is not gzip, one cut short, ..."""
    problem = "the gzip stream ends early (a truncated file?)" if isinstance(error, EOFError) else error
    return InputError(shown, number, "(gzip)", f"expected gzip data, found {problem}")


def open_lines(path: str, shown: str, limit: int = MAX_LINE):
    """(line number, text) of every non-blank line, decoded as UTF-8 one line at a time (so a bad
    byte is reported on its own line); gzip is undone, a first-line BOM dropped, and no line
    longer than `limit` bytes is ever read whole. The file is read in blocks: a run of blank
    lines is counted, never split (a gzip of 2 GiB of newlines costs its decompression)."""
    for first, block in blocks(path, shown, limit):
        yield from block_lines(block, first, shown, limit)


BLANK_RUNS = 1000   # a block with more empty lines than this is walked line by line with NOT_BLANK


def block_lines(block: bytes, first: int, shown: str, limit: int = MAX_LINE):
    """(line number, text) of every non-blank line of one block whose first line is `first`.

    The usual block is decoded whole and split; one that holds many blank lines, a line over
    the limit or a byte that is not UTF-8 is walked from one non-blank line to the next (which
    names the line of a bad byte)."""
    if len(block) <= limit and block.count(b"\n\n") <= BLANK_RUNS:
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            if first == 1 and text.startswith(BOM):
                text = text[1:]
            for number, line in enumerate(text.split("\n"), start=first):
                if line and not line.isspace():
                    yield number, line
            return
    number, at = first, 0
    while True:
        found = NOT_BLANK.search(block, at)
        if found is None:
            return
        start = block.rfind(b"\n", at, found.start()) + 1 or at
        end = block.find(b"\n", found.start())
        end = len(block) if end < 0 else end
        number += block.count(b"\n", at, start)
        at = end
        if end - start > limit:
            raise InputError(shown, number, "(line)", f"expected a line of at most {limit:,} bytes, "
                                                      f"found a longer one")
        try:
            text = block[start:end].decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(shown, number, "(encoding)", f"expected UTF-8 text, found {error.reason} at "
                                                           f"byte {error.start}") from None
        if number == 1 and text.startswith(BOM):
            text = text[1:]
        if text.strip():
            yield number, text


def _no_repeats(pairs):
    found = {}
    for key, value in pairs:
        if key in found:
            raise KeyError(key)
        found[key] = value
    return found


_DECODER = json.JSONDecoder(object_pairs_hook=_no_repeats)   # json.loads with a hook makes one a call


def read_object(text: str, shown: str, number: int, expected: str = "a JSON object") -> dict:
    """One JSON object; a repeated key or a nesting too deep is an InputError (a score's NaN or
    1e999 is refused by the score's own check)."""
    try:
        if text.startswith(BOM):    # as json.loads says it
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        value = _DECODER.decode(text)
    except KeyError as error:
        raise InputError(shown, number, str(error.args[0]), "appears twice in one object (expected each key "
                                                            "once)") from None
    except RecursionError:
        raise InputError(shown, number, "(json)", f"expected {expected}, found JSON nested deeper than the "
                                                  f"reader's limit (about 1,000 levels)") from None
    except ValueError as error:
        raise InputError(shown, number, "(json)", f"expected {expected}, found invalid JSON ({error})") from None
    if not isinstance(value, dict):
        raise InputError(shown, number, "(json)", f"expected {expected}, found a JSON {type(value).__name__}")
    return value


def read_id(record: dict, name: str, shown: str, number: int, findings=None, required=True, empty=False):
    """A string field, stripped; a JSON integer is read as its decimal text (and noted)."""
    if name not in record:
        if required:
            raise InputError(shown, number, name, "missing")
        return None
    value = record[name]
    if isinstance(value, int) and not isinstance(value, bool) and findings is not None:
        findings.add("integer_id", f"{shown} line {number} {name} {value}")
        value = str(value)
    if not isinstance(value, str):
        raise InputError(shown, number, name, f"expected a string, found {type(value).__name__} {short(value)}")
    if not empty and not value.strip():
        raise InputError(shown, number, name, f"expected a non-empty string, found {value!r}")
    return value.strip() if not empty else value
