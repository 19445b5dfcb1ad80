"""Readers for `methods.py audit`: the BEIR folder's files, checked line by line and bounded.

    corpus.jsonl    {"_id", "title", "text", "metadata": {...}} one passage a line
    queries.jsonl   {"_id", "text"} one query a line; "metadata": {"sub_questions": [[name,
                    sub-question], ...]} optionally declares its facets (for --policy)
    qrels/NAME.tsv  BEIR (`query-id <TAB> corpus-id <TAB> score`, optional header) or TREC
                    (`qid 0 docid relevance`), told apart by the first line's shape
    run             TREC (`qid Q0 docid rank score tag`), JSON lines ({"qid", "docid", "rank",
                    "score"}) or one JSON object {qid: {docid: score}} (pytrec_eval, ranx)

Any file may be gzip-compressed (told by its first two bytes, whatever its name) and may
start with a UTF-8 byte order mark. Optional passage metadata, all under "metadata":
source, version, supersedes (the version labels of its source it replaces), position (its
place in its source: it orders, nothing more), unit (a label: passages that declare the same
unit travel together or not at all, as lesson 11's conclusion and exception), canonical_id and copy (primary, mirror or
export), valid_from and valid_until (ISO days, inclusive), start_line and end_line.

Every id is read as written with the surrounding whitespace removed, in every file. An id
or version written as a JSON integer is read as its decimal text and counted as a note.

Bounds: a line longer than MAX_LINE bytes, JSON nested deeper than Python's reader allows,
a repeated key in one object, a score that is not finite and a path that is not a regular
file each stop the audit with one line naming the file, the line and the field. The corpus
is streamed: only the passages in `keep` are held (their size and hash, never the text,
unless named in `texts`: a sent packet's passages, and with --policy the candidates of a
query that declares sub-questions, which the facet model reads), and a line whose leading
_id is not in `keep` is read no further: a block of such lines costs one pass of the regular
expression engine, which finds each line's _id (and counts the lines), and only the lines of
the ids in `keep` are parsed. The qrels and run readers are in modules/audit/runs.py and
runlines.py, the packet readers in packets.py.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from itertools import compress, count

from modules.audit.lines import (MAX_LINE, InputError, block_lines, blocks, open_lines, read_id, read_object,
                                 regular_file)
from modules.audit.tokenizer_process import BATCH_TEXTS, count_all
from modules.common.checks import short
from modules.common.facets import declared_facets
from modules.dedupe import COPY_KINDS
from modules.versions import check_day

__all__ = ["InputError", "Findings", "Passage", "MAX_LINE", "open_lines", "read_object", "read_id",
           "read_corpus", "read_queries", "find_files", "regular_file"]

EXAMPLES = 5



class Findings:
    """Counts of input problems that are reported rather than raised, with a few examples each.

    Examples keep the order the files list them in, so a report is the same on every run.
    """

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.examples: dict[str, list[str]] = {}

    def add(self, kind: str, example: str) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        shown = self.examples.setdefault(kind, [])
        if len(shown) < EXAMPLES:
            shown.append(example)

    def merge(self, other: "Findings") -> None:
        """Add another Findings' counts and examples (after this one's, up to the few kept)."""
        for kind, count in other.counts.items():
            self.counts[kind] = self.counts.get(kind, 0) + count
            shown = self.examples.setdefault(kind, [])
            shown.extend(other.examples[kind][:EXAMPLES - len(shown)])


@dataclass(frozen=True, slots=True)
class Passage:
    """What the audit keeps of a passage: its size in the unit, its SHA-256, its metadata, and
    its text only when a packet sent it (to compare what was sent with what the corpus says).
    Made only by read_corpus, whose checks name the file, line and field of a bad value; "" (or
    0 for lines, -1 for position) means the metadata does not declare it."""

    id: str
    size: int
    digest: str
    source: str
    version: str
    canonical_id: str
    copy: str
    start_line: int
    end_line: int
    valid_from: str
    valid_until: str
    supersedes: tuple
    position: int
    unit: str
    text: str | None



def _whole(meta: dict, name: str, shown: str, number: int, minimum: int) -> int:
    value = meta[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(shown, number, f"metadata.{name}", f"expected a whole number >= {minimum}, found "
                                                            f"{short(value)}")
    return value


TEXT_FIELDS = ("source", "version", "canonical_id", "copy", "valid_from", "valid_until", "unit")


def _metadata(record: dict, shown: str, number: int, findings) -> tuple:
    for name in TEXT_FIELDS + ("supersedes", "position", "start_line", "end_line"):
        if name in record:
            raise InputError(shown, number, name, "must sit under \"metadata\"")
    meta = record.get("metadata") or {}
    if not isinstance(meta, dict):
        raise InputError(shown, number, "metadata", f"expected a JSON object, found {type(meta).__name__}")
    found = {name: read_id(meta, name, shown, number, findings if name == "version" else None, required=False)
             for name in TEXT_FIELDS}
    for name in ("valid_from", "valid_until"):
        if found[name] is not None:
            try:
                check_day(found[name], name)
            except ValueError as error:
                raise InputError(shown, number, f"metadata.{name}", str(error)) from None
    if found["valid_from"] and found["valid_until"] and found["valid_until"] < found["valid_from"]:
        raise InputError(shown, number, "metadata.valid_until",
                         f"{found['valid_until']} is before valid_from {found['valid_from']}")
    if found["copy"] is not None:
        if found["copy"] not in COPY_KINDS:
            raise InputError(shown, number, "metadata.copy",
                             f"expected one of {', '.join(COPY_KINDS)}, found {found['copy']!r}")
        if found["canonical_id"] is None:
            raise InputError(shown, number, "metadata.copy", "needs metadata.canonical_id (the passage it copies)")
    supersedes = meta.get("supersedes", [])
    if isinstance(supersedes, (str, int)) and not isinstance(supersedes, bool):
        supersedes = [supersedes]
    if not isinstance(supersedes, list):
        raise InputError(shown, number, "metadata.supersedes", f"expected a version label or a list of them, "
                                                               f"found {short(supersedes)}")
    labels = tuple(read_id({"supersedes": s}, "supersedes", shown, number, findings) for s in supersedes)
    lines = [name for name in ("start_line", "end_line") if name in meta]
    start = end = 0
    if lines:
        if len(lines) == 1:
            missing = "end_line" if lines == ["start_line"] else "start_line"
            raise InputError(shown, number, f"metadata.{missing}", "missing: give both start_line and end_line")
        start, end = (_whole(meta, name, shown, number, 1) for name in ("start_line", "end_line"))
        if end < start:
            raise InputError(shown, number, "metadata.end_line", f"{end} is before start_line {start}")
    position = _whole(meta, "position", shown, number, 0) if "position" in meta else -1
    for name, present in (("version", found["version"] is not None), ("start_line", bool(lines)),
                          ("supersedes", bool(labels)), ("position", position >= 0)):
        if present and found["source"] is None:
            raise InputError(shown, number, f"metadata.{name}", "needs metadata.source (the document it belongs to)")
    if labels and found["version"] is None:
        raise InputError(shown, number, "metadata.supersedes", "needs metadata.version (its own label)")
    if found["version"] is not None and found["version"] in labels:
        raise InputError(shown, number, "metadata.supersedes", f"names its own version {found['version']!r} (a "
                                                               f"passage cannot supersede itself)")
    return (found["source"] or "", found["version"] or "", found["canonical_id"] or "",
            found["copy"] or "primary", start, end, found["valid_from"] or "", found["valid_until"] or "",
            labels, position, found["unit"] or "")


ID_START = '{"_id": "'


def _first_id(line: str) -> str | None:
    """The _id of a line that starts `{"_id": "...` (as BEIR's writers write it) with no escape
    inside the id, stripped as every id is; None for any other line (it is parsed whole)."""
    if not line.startswith(ID_START):
        return None
    end = line.find('"', len(ID_START))
    found = line[len(ID_START):end] if end > 0 else ""
    return found.strip() if found.strip() and "\\" not in found else None


# A line as BEIR's writers write it: `{"_id": "...` first, the id free of quotes, escapes and
# surrounding whitespace. A block made only of such lines is skimmed: its ids are found by the
# regular expression engine and only the lines of the ids the audit holds are parsed.
STANDARD_ID = rb'\{"_id": "([^"\\\s](?:[^"\\\n]*(?<!\s)))"'   # its last character no space: checked
# looking back, so a match never steps back a character (about a fifth faster than [^"\\\s] at its end)
FIRST_LINE = re.compile(STANDARD_ID)
EVERY_LINE = re.compile(rb"\n(?:" + STANDARD_ID + rb"|)")   # after a line break: a literal prefix, which
# the engine finds fast (a pattern anchored with ^ and re.M is tried at every byte); "|)", not ")?":
# a branch costs the engine less than an optional group


def read_corpus(path: str, counter, shown: str, keep, texts=frozenset(), findings=None, seen=None):
    """Yield a Passage for each line whose _id is in `keep`. Its size is `counter(text)`, counted
    a batch of passages at a time (a tokenizer in its own process answers a batch at once); titles
    are not counted. A line that starts with an _id nothing names is read only that far (so a
    corpus costs little beyond what the run touches); any other line is checked whole.

    `seen`, a dict, if given, receives "lines" (the lines read) and "ids" (the first few ids,
    for messages about ids that match nothing).
    """
    from modules.common.checks import sha256_hex
    where: dict[str, int] = {}
    pending: list = []      # (id, text, the rest of its Passage) until their sizes are counted
    seen = {} if seen is None else seen
    seen.update(lines=0, ids=[])
    wanted = frozenset(pid.encode("utf-8") for pid in keep)

    def passage(number: int, line: str):
        first = _first_id(line)
        if first is not None and first not in keep:   # a passage nothing names: read no further
            if len(seen["ids"]) < EXAMPLES:
                seen["ids"].append(first)
            return False
        record = read_object(line, shown, number)
        pid = read_id(record, "_id", shown, number, findings)
        if len(seen["ids"]) < EXAMPLES:
            seen["ids"].append(pid)
        if pid not in keep:
            return False
        text = read_id(record, "text", shown, number, empty=True)
        read_id(record, "title", shown, number, required=False, empty=True)
        if pid in where:
            raise InputError(shown, number, "_id", f"{pid!r} already appears on line {where[pid]}")
        where[pid] = number
        pending.append((pid, text, (sha256_hex(text), *_metadata(record, shown, number, findings),
                                    text if pid in texts else None)))
        return len(pending) >= BATCH_TEXTS

    def sized():
        sizes = count_all(counter, [text for _pid, text, _rest in pending])
        done = [Passage(pid, size, *rest) for (pid, _text, rest), size in zip(pending, sizes)]
        pending.clear()
        return done

    found: list[bytes] = []

    def skim(block: bytes) -> int:
        # One pass of the regular expression engine over the block: the _id of each line when it
        # is standard, else b"", and so the count of its line breaks (an entry after each).
        nonlocal found
        first = FIRST_LINE.match(block)
        found = [first.group(1) if first else b""] + EVERY_LINE.findall(block)
        return len(found) - 1

    for first, block in blocks(path, shown, line_breaks=skim):
        ids = found
        if block.endswith(b"\n"):
            ids.pop()       # the last line break starts no line
        if first > 1 and all(ids):     # every line standard (the first block may hold a BOM)
            seen["lines"] += len(ids)
            if len(seen["ids"]) < EXAMPLES:
                seen["ids"] += [i.decode("utf-8", "replace") for i in ids[:EXAMPLES - len(seen["ids"])]]
            at = 0
            # The id on line i of the block is ids[i]: its line starts at the first `\n{"_id": "ID"`
            # after the one before (a line break is never inside a line), so the block is searched once.
            for index in list(compress(count(), map(wanted.__contains__, ids))):   # the held lines, in C
                number = first + index
                start = 0 if index == 0 else block.find(b'\n{"_id": "' + ids[index] + b'"', at) + 1
                at = block.find(b"\n", start)
                raw = block[start:len(block) if at < 0 else at]
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise InputError(shown, number, "(encoding)", f"expected UTF-8 text, found {error.reason} at "
                                                                   f"byte {error.start}") from None
                if passage(number, line):
                    yield from sized()
            continue
        for number, line in block_lines(block, first, shown, MAX_LINE):
            seen["lines"] += 1
            if passage(number, line):
                yield from sized()
    yield from sized()


SUB_QUESTIONS = "metadata.sub_questions"


def _sub_questions(record: dict, shown: str, number: int) -> tuple | None:
    """A query's declared facets (lesson 02's facet model), or None when it declares none.

    "metadata": {"sub_questions": [[name, sub-question], ...]}: each pair two strings,
    each name once, each sub-question with a content word (modules.common.facets)."""
    meta = record.get("metadata") or {}
    if not isinstance(meta, dict):
        raise InputError(shown, number, "metadata", f"expected a JSON object, found {type(meta).__name__}")
    if "sub_questions" not in meta:
        return None
    pairs = meta["sub_questions"]
    if not isinstance(pairs, list) or not pairs:
        raise InputError(shown, number, SUB_QUESTIONS, f"expected a non-empty list of [name, sub-question] "
                                                       f"pairs, found {short(pairs)}")
    for index, pair in enumerate(pairs):
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(part, str) for part in pair):
            raise InputError(shown, number, f"{SUB_QUESTIONS}[{index}]", f"expected a [name, sub-question] pair "
                                                                         f"of two strings, found {short(pair)}")
    try:
        return declared_facets([tuple(pair) for pair in pairs])
    except (TypeError, ValueError) as error:
        raise InputError(shown, number, SUB_QUESTIONS, str(error)) from None


def read_queries(path: str, shown: str, findings=None, facets=None) -> dict[str, str]:
    """Query id -> text. `facets`, a dict, if given, receives query id -> its declared facets
    (a tuple of Facet) for each query whose metadata declares sub_questions."""
    queries: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, line in open_lines(path, shown):
        record = read_object(line, shown, number)
        qid = read_id(record, "_id", shown, number, findings)
        if qid in queries:
            raise InputError(shown, number, "_id", f"{qid!r} already appears on line {lines[qid]}")
        queries[qid], lines[qid] = read_id(record, "text", shown, number, empty=True), number
        declared = _sub_questions(record, shown, number)
        if declared is not None and facets is not None:
            facets[qid] = declared
    return queries


def _first(folder: str, names) -> str | None:
    found = [name for name in names if os.path.lexists(os.path.join(folder, name))]
    return os.path.join(folder, found[0]) if len(found) == 1 else None if not found else "|".join(found)


def find_files(folder: str, run: str | None = None, qrels: str | None = None, packets: str | None = None):
    """The input paths of a BEIR folder (each may end in .gz); `run`, `qrels` and `packets` may
    name files elsewhere. qrels defaults to qrels/test.tsv, or the only .tsv in qrels/; the run
    to the folder's only run.trec, run.txt, run.jsonl or run.json."""
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{folder} is not a folder (expected corpus.jsonl, queries.jsonl, qrels/)")
    found = {}
    for name in ("corpus", "queries"):
        path = _first(folder, (f"{name}.jsonl", f"{name}.jsonl.gz"))
        if path is None or "|" in path:
            raise FileNotFoundError(f"{folder} holds {path.replace('|', ' and ') if path else f'no {name}.jsonl'}"
                                    f": expected one {name}.jsonl (or .jsonl.gz)")
        found[name] = path
    if qrels is None:
        where = os.path.join(folder, "qrels")
        tables = sorted(n for n in os.listdir(where) if n.endswith((".tsv", ".tsv.gz"))) if os.path.isdir(where) else []
        if any(n.startswith("test.tsv") for n in tables):
            tables = [n for n in tables if n.startswith("test.tsv")]
        if len(tables) != 1:
            raise FileNotFoundError(f"{folder}/qrels holds {', '.join(tables) or 'no .tsv file'}: "
                                    f"name one with --qrels")
        qrels = os.path.join(where, tables[0])
    found["qrels"] = qrels
    if run is None:
        names = [f"run.{ext}{gz}" for ext in ("trec", "txt", "jsonl", "json") for gz in ("", ".gz")]
        runs = [n for n in names if os.path.lexists(os.path.join(folder, n))]
        if len(runs) != 1:
            raise FileNotFoundError(f"{folder} holds {', '.join(runs) or 'no run.trec, run.txt, run.jsonl or run.json'}"
                                    f": name the run with --run")
        run = os.path.join(folder, runs[0])
    found["run"] = run
    if packets is not None:
        found["packets"] = packets
    for name, path in found.items():
        regular_file(path, name)
    return found
