"""Reading a run's lines, checked field by field, in batches of one query's consecutive lines.

    TREC        `qid Q0 docid rank score tag`, whitespace-separated
    JSON lines  {"qid", "docid", "rank", "score"}
    JSON        one object {qid: {docid: score}} (pytrec_eval's and ranx's run)

batches() yields (qid, doc ids, scores, ranks or None, line numbers) for a stretch of one query's
consecutive lines, at most a block of the file, so that what reduces them (topk.Lines) works a
batch at a time. Each line is checked field by field, and a bad one named by line and field.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from itertools import compress, repeat
from operator import ne

from modules.audit.lines import _DECODER, BOM, _open, block_lines, blocks
from modules.audit.readers import InputError, open_lines, read_id, read_object
from modules.common.checks import short

__all__ = ["Entry", "batches", "run_form", "MAX_JSON_RUN", "TREC_RUN", "JSONL_RUN", "DICT_RUN"]

NUMBER_CHARACTERS = frozenset("0123456789+-.eE")
MAX_JSON_RUN = 1 << 30   # a {qid: {docid: score}} run is one JSON value: read whole, up to 1 GiB
TREC_RUN = "a TREC run line (qid Q0 docid rank score tag)"
JSONL_RUN = "a JSON-lines run object {\"qid\", \"docid\", \"rank\", \"score\"}"
DICT_RUN = "a JSON run {qid: {docid: score}}"
BATCH = 4096    # lines of a JSON run per batch
# A TREC block's lines are held as objects while read, about 30 times its size: a small block keeps
# them in the processor's cache (3 x 10^6 lines: 4.2 s of CPU in 32 KiB blocks, 6.1 s in 256 KiB).
RUN_BLOCK = 1 << 15

# Entry is made only by the readers in this file, which check every field of the line they read
# and name the file, line and field when one is wrong (InputError); so it carries no second check.

@dataclass(frozen=True, slots=True)
class Entry:
    """One run line: the doc id, its score, the rank column as written (None in a JSON run)
    and the line's number."""

    docid: str
    score: float
    rank: int | None
    line: int


def _score(value, shown: str, number: int, form: str) -> float:
    # float() alone would also take "nan", "inf", "1_0" and digits of other scripts; 1e999 is inf.
    if isinstance(value, str):
        found = _parsed(value) if value and set(value) <= NUMBER_CHARACTERS else None
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        found = float(value) if abs(value) < 1e308 or isinstance(value, float) else math.inf
    else:
        found = None
    if found is None or not math.isfinite(found):
        raise InputError(shown, number, "score", f"expected a finite decimal number in {form}, found {short(value)}")
    return found


def _parsed(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _jsonl_entry(line: str, shown: str, number: int, findings) -> tuple[str, Entry]:
    record = read_object(line, shown, number, JSONL_RUN)
    qid, docid = (read_id(record, name, shown, number, findings) for name in ("qid", "docid"))
    rank = record.get("rank")
    if "rank" not in record:
        raise InputError(shown, number, "rank", f"missing (expected {JSONL_RUN})")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
        raise InputError(shown, number, "rank", f"expected a whole number >= 0, found {short(rank)}")
    if "score" not in record:
        raise InputError(shown, number, "score", f"missing (expected {JSONL_RUN})")
    if isinstance(record["score"], str):    # a JSON run writes numbers as numbers
        raise InputError(shown, number, "score", f"expected a JSON number, found the string {short(record['score'])}")
    return qid, Entry(docid, _score(record["score"], shown, number, JSONL_RUN), rank, number)


FORM_PEEK = 1 << 16     # a JSON-lines run's first line is far shorter; a longer one is a JSON run


def run_form(path: str, shown: str) -> str:
    """The run's format, from its first non-blank line, read no further than FORM_PEEK bytes past
    the blank ones (a {qid: {docid: score}} run may be one line of a gigabyte: never parsed here)."""

    with _open(path) as handle:
        head = b""
        try:
            while not head:
                chunk = handle.read(FORM_PEEK)
                if not chunk:
                    return TREC_RUN
                head = chunk.lstrip(b"\xef\xbb\xbf").lstrip()
            head += handle.read(FORM_PEEK)
        except (OSError, EOFError):
            return TREC_RUN     # the line reader names the file and the line
    if not head.startswith(b"{"):
        return TREC_RUN
    end = head.find(b"\n")
    try:
        record = json.loads(head if end < 0 else head[:end])
    except ValueError:
        return DICT_RUN   # a multi-line JSON object, or a line longer than the peek
    return JSONL_RUN if isinstance(record, dict) and "qid" in record else DICT_RUN


def _dict_run(path: str, shown: str, findings):
    """Yield (qid, entry) from a {qid: {docid: score}} object: the file is one value, decoded one
    query's object at a time (so memory is the file's text and one query, not the whole tree)."""
    text = _whole_text(path, shown)
    at = _skip(text, 0)
    if text[at:at + 1] != "{":
        raise InputError(shown, 1, "(json)", f"expected {DICT_RUN}, found {short(text[at:at + 20])}")
    at, seen = _skip(text, at + 1), set()
    while text[at:at + 1] != "}":
        try:
            qid, at = _DECODER.raw_decode(text, at)
            at = _skip(text, at)
            if text[at:at + 1] != ":":
                raise ValueError(f"expected ':' at character {at}")
            docs, at = _DECODER.raw_decode(text, _skip(text, at + 1))
        except KeyError as error:
            raise InputError(shown, 1, str(error.args[0]), "appears twice in one object (expected each key "
                                                           "once)") from None
        except RecursionError:
            raise InputError(shown, 1, "(json)", f"expected {DICT_RUN}, found JSON nested deeper than the "
                                                 f"reader's limit") from None
        except ValueError as error:
            raise InputError(shown, 1, "(json)", f"expected {DICT_RUN}, found invalid JSON ({error})") from None
        if not isinstance(qid, str) or qid in seen:
            raise InputError(shown, 1, f"{short(qid)}", f"expected each query once in {DICT_RUN}")
        seen.add(qid)
        if not isinstance(docs, dict):
            raise InputError(shown, 1, f"{short(qid)}", f"expected {DICT_RUN}, found {type(docs).__name__} for "
                                                        f"the query")
        for docid, score in docs.items():
            if not docid.strip():
                raise InputError(shown, 1, f"{short(qid)}", f"expected non-empty doc ids in {DICT_RUN}")
            yield qid.strip(), Entry(docid.strip(), _score(score, shown, 1, DICT_RUN), None, 1)
        at = _skip(text, at)
        if text[at:at + 1] == ",":
            at = _skip(text, at + 1)
        elif text[at:at + 1] != "}":
            raise InputError(shown, 1, "(json)", f"expected ',' or '}}' in {DICT_RUN} at character {at}")
    if text[_skip(text, at + 1):].strip():
        raise InputError(shown, 1, "(json)", f"expected {DICT_RUN} alone, found more after it")


def _whole_text(path: str, shown: str) -> str:
    """The whole file as text (gzip undone, a BOM dropped): one copy, up to MAX_JSON_RUN bytes."""

    with _open(path) as handle:
        try:
            data = handle.read(MAX_JSON_RUN + 1)
        except (OSError, EOFError) as error:
            raise InputError(shown, 1, "(gzip)", f"expected gzip data, found {error or 'a stream cut short'}") from None
    if len(data) > MAX_JSON_RUN:
        raise InputError(shown, 1, "(line)", f"expected a JSON run of at most {MAX_JSON_RUN:,} bytes, found a "
                                             f"longer one")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(shown, 1, "(encoding)", f"expected UTF-8 text, found {error.reason} at byte "
                                                 f"{error.start}") from None
    del data
    return text[1:] if text.startswith(BOM) else text


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def batches(path: str, shown: str, form: str, findings):
    """(qid, doc ids, scores, ranks or None, line numbers) for each stretch of one query's
    consecutive lines, in the file's order; a query's lines may come in several batches."""
    if form == TREC_RUN:
        yield from _trec_batches(path, shown)
        return
    current, rows = None, []
    entries = (_dict_run(path, shown, findings) if form == DICT_RUN
               else (_jsonl_entry(line, shown, number, findings) for number, line in open_lines(path, shown)))
    for qid, entry in entries:
        if rows and (qid != current or len(rows) == BATCH):
            yield _columns(current, rows, form)
            rows = []
        current = qid
        rows.append(entry)
    if rows:
        yield _columns(current, rows, form)


def _columns(qid: str, rows: list, form: str) -> tuple:
    return (qid, [e.docid for e in rows], [e.score for e in rows],
            None if form == DICT_RUN else [e.rank for e in rows], [e.line for e in rows])


# A block of plain TREC lines: six fields of printable ASCII, separated by spaces or tabs, no blank
# line. Such a block is split and checked by C loops (below); any other goes line by line.
_PLAIN_FIELDS = rb"[ \t]*[!-~]+(?:[ \t]+[!-~]+){5}[ \t]*\r?"
PLAIN_BLOCK = re.compile(rb"(?:" + _PLAIN_FIELDS + rb"\n)*(?:" + _PLAIN_FIELDS + rb")?")


def _plain_block(block: bytes, first: int):
    """(qids, doc ids, ranks, scores, line numbers) of a block of plain TREC lines whose every
    field passes the checks the line-by-line reader makes, or None (that reader then names the
    line at fault). The same values as that reader's, a few times faster."""
    if not block.isascii() or PLAIN_BLOCK.fullmatch(block) is None:
        return None
    fields = block.decode("ascii").split()
    ranks, scores = fields[3::6], fields[4::6]
    if not ranks or not all(map(str.isdigit, ranks)) or max(map(len, ranks)) > 12 \
            or any(map(str.__contains__, scores, repeat("_"))):
        return None
    try:
        values = list(map(float, scores))
    except ValueError:
        return None
    if not all(map(math.isfinite, values)):
        return None
    return fields[0::6], fields[2::6], list(map(int, ranks)), values, list(range(first, first + len(ranks)))


def _trec_batches(path: str, shown: str):
    """Each TREC line checked here, field by field, without making a record of it (a million lines
    a query are read at the speed of _checked_block's loop; a block of plain lines, at the speed
    of _plain_block's C loops)."""
    for first, block in blocks(path, shown, size=RUN_BLOCK):
        qids, docids, ranks, scores, numbers = _plain_block(block, first) or _checked_block(block, first, shown)
        if not qids:    # blank lines only
            continue
        cuts = [0, *compress(range(1, len(qids)), map(ne, qids[1:], qids)), len(qids)]  # where the query changes
        for start, end in zip(cuts, cuts[1:]):
            yield qids[start], docids[start:end], scores[start:end], ranks[start:end], numbers[start:end]


def _checked_block(block: bytes, first: int, shown: str):
    """_plain_block's columns for any block, read line by line, a bad line named by its field."""
    qids, docids, ranks, scores, numbers = [], [], [], [], []
    ascii = block.isascii()     # then no field needs its own check of it
    for number, line in block_lines(block, first, shown):
        fields = line.split()
        if len(fields) != 6:
            raise InputError(shown, number, "(columns)", f"expected {TREC_RUN}; found {len(fields)} columns")
        qid, _q0, docid, rank, score, _tag = fields
        if not rank.isdigit() or len(rank) > 12 or not (ascii or rank.isascii()):
            raise InputError(shown, number, "rank", f"expected a whole number in {TREC_RUN}, found "
                                                    f"{short(rank)}")
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        # float() alone would also take "nan", "inf", "1_0" and digits of other scripts; 1e999 is inf.
        if not math.isfinite(value) or "_" in score or not (ascii or score.isascii()):
            raise InputError(shown, number, "score", f"expected a finite decimal number in {TREC_RUN}, found "
                                                     f"{short(score)}")
        qids.append(qid)
        docids.append(docid)
        ranks.append(int(rank))
        scores.append(value)
        numbers.append(number)
    return qids, docids, ranks, scores, numbers
