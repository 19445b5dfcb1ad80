"""Readers for `methods.py audit`: a BEIR-layout folder and a retrieval run, checked line by line.

    corpus.jsonl    {"_id", "title", "text", "metadata": {...}} one passage a line
    queries.jsonl   {"_id", "text"} one query a line
    qrels/NAME.tsv  query-id <TAB> corpus-id <TAB> score, after an optional header line
    run             TREC lines `qid Q0 docid rank score tag`, or JSON lines
                    {"qid", "docid", "rank", "score"} (a file ending in .jsonl)

Optional passage metadata, all under "metadata": source (the file or document the passage
comes from), version, canonical_id and copy (primary, mirror or export), valid_from and
valid_until (ISO days, both ends inclusive), start_line and end_line (1-based, inclusive).

A malformed line raises InputError naming the file, the line and the field. Problems that
are not malformed lines (a run entry for a passage the corpus lacks, a repeated rank, a
query nobody judged) are counted in a Findings object and reported, never dropped silently.
Nothing here writes a file. The run is read as a stream, one query's entries at a time.
"""

from __future__ import annotations

import json
import os
from collections import namedtuple

from modules.common.checks import parse_whole_number, short
from modules.dedupe import COPY_KINDS
from modules.versions import check_day

__all__ = ["InputError", "Findings", "Passage", "Entry", "read_corpus", "read_queries", "read_qrels",
           "read_run", "find_files"]

NUMBER_CHARACTERS = frozenset("0123456789+-.eE")
EXAMPLES = 5


class InputError(ValueError):
    """A malformed input line: `path`, 1-based `line` and the `field` at fault are attributes too."""

    def __init__(self, path: str, line: int, field: str, problem: str) -> None:
        super().__init__(f"{path} line {line}, field {field}: {problem}")
        self.path, self.line, self.field = path, line, field


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


# What the audit keeps of a passage: no text, only its size in the unit and its SHA-256.
Passage = namedtuple("Passage", "id size digest source version canonical_id copy start_line end_line "
                                "valid_from valid_until")
# One run line: the doc id, its score, the rank column as written, and the line number.
Entry = namedtuple("Entry", "docid score rank line")


def _lines(path: str, shown: str):
    """(line number, text) of every non-blank line, decoded as UTF-8 one line at a time, so a
    bad byte is reported on its own line."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise InputError(shown, number, "(encoding)", f"not UTF-8 text ({error.reason} at byte "
                                                               f"{error.start})") from None
            if text.strip():
                yield number, text


def _object(text: str, shown: str, number: int) -> dict:
    try:
        value = json.loads(text)
    except ValueError as error:
        raise InputError(shown, number, "(json)", f"not a JSON value: {error}") from None
    if not isinstance(value, dict):
        raise InputError(shown, number, "(json)", f"expected a JSON object, got {type(value).__name__}")
    return value


def _text(record: dict, name: str, shown: str, number: int, required: bool = True, empty: bool = False):
    if name not in record:
        if required:
            raise InputError(shown, number, name, "missing")
        return None
    value = record[name]
    if not isinstance(value, str):
        raise InputError(shown, number, name, f"must be a string, got {type(value).__name__} {short(value)}")
    if not empty and not value.strip():
        raise InputError(shown, number, name, f"must not be empty, got {value!r}")
    return value


def _line_number(meta: dict, name: str, shown: str, number: int) -> int:
    value = meta[name]
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(shown, number, f"metadata.{name}", f"must be a whole number, got {short(value)}")
    if value < 1:
        raise InputError(shown, number, f"metadata.{name}", f"lines are 1-based, got {value}")
    return value


def _metadata(record: dict, shown: str, number: int) -> tuple:
    for name in ("source", "version", "canonical_id", "copy", "valid_from", "valid_until", "start_line", "end_line"):
        if name in record:
            raise InputError(shown, number, name, "must sit under \"metadata\"")
    meta = record.get("metadata", {})
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise InputError(shown, number, "metadata", f"must be a JSON object, got {type(meta).__name__}")
    found = {name: _text(meta, name, shown, number, required=False)
             for name in ("source", "version", "canonical_id", "copy", "valid_from", "valid_until")}
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
                             f"must be one of {', '.join(COPY_KINDS)}, got {found['copy']!r}")
        if found["canonical_id"] is None:
            raise InputError(shown, number, "metadata.copy", "needs metadata.canonical_id (the passage it copies)")
    lines = [name for name in ("start_line", "end_line") if name in meta]
    start = end = 0
    if lines:
        if len(lines) == 1:
            missing = "end_line" if lines == ["start_line"] else "start_line"
            raise InputError(shown, number, f"metadata.{missing}", "missing: give both start_line and end_line")
        start, end = (_line_number(meta, name, shown, number) for name in ("start_line", "end_line"))
        if end < start:
            raise InputError(shown, number, "metadata.end_line", f"{end} is before start_line {start}")
    for name, present in (("version", found["version"] is not None), ("start_line", bool(lines))):
        if present and found["source"] is None:
            raise InputError(shown, number, f"metadata.{name}",
                             "needs metadata.source (the document its versions or lines belong to)")
    return (found["source"] or "", found["version"] or "", found["canonical_id"] or "",
            found["copy"] or "primary", start, end, found["valid_from"] or "", found["valid_until"] or "")


def read_corpus(path: str, counter, shown: str = "corpus.jsonl"):
    """Yield one Passage per line: its size by `counter` (str -> int) and the SHA-256 of its text.

    The text is measured, hashed and let go; titles are not part of the quote and not counted.
    """
    from modules.common.checks import sha256_hex
    seen: dict[str, int] = {}
    for number, line in _lines(path, shown):
        record = _object(line, shown, number)
        pid = _text(record, "_id", shown, number)
        text = _text(record, "text", shown, number, empty=True)
        _text(record, "title", shown, number, required=False, empty=True)
        if pid in seen:
            raise InputError(shown, number, "_id", f"{pid!r} already appears on line {seen[pid]}")
        seen[pid] = number
        yield Passage(pid, counter(text), sha256_hex(text), *_metadata(record, shown, number))


def read_queries(path: str, shown: str = "queries.jsonl") -> dict[str, str]:
    """Query id -> text."""
    queries: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, line in _lines(path, shown):
        record = _object(line, shown, number)
        qid = _text(record, "_id", shown, number)
        if qid in queries:
            raise InputError(shown, number, "_id", f"{qid!r} already appears on line {lines[qid]}")
        queries[qid], lines[qid] = _text(record, "text", shown, number, empty=True), number
    return queries


QRELS_HEADER = ("query-id", "corpus-id", "score")


def read_qrels(path: str, shown: str) -> dict[str, dict[str, int]]:
    """Query id -> {doc id: relevance}. The header line, if any, must be the first line."""
    judged: dict[str, dict[str, int]] = {}
    where: dict[tuple[str, str], int] = {}
    for number, line in _lines(path, shown):
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) != 3:
            raise InputError(shown, number, "(columns)", f"expected 3 tab-separated columns "
                                                          f"query-id, corpus-id, score; got {len(fields)}")
        if number == 1 and tuple(f.strip() for f in fields) == QRELS_HEADER:
            continue
        qid, docid, score = (f.strip() for f in fields)
        for name, value in (("query-id", qid), ("corpus-id", docid)):
            if not value:
                raise InputError(shown, number, name, "must not be empty")
        try:
            relevance = parse_whole_number(score, "score", minimum=None)
        except ValueError as error:
            raise InputError(shown, number, "score", str(error)) from None
        if (qid, docid) in where:
            raise InputError(shown, number, "corpus-id", f"{docid!r} is judged twice for query {qid!r} "
                                                         f"(first on line {where[(qid, docid)]})")
        where[(qid, docid)] = number
        judged.setdefault(qid, {})[docid] = relevance
    return judged


def _score(text: str, shown: str, number: int) -> float:
    # float() alone would also take "nan", "inf", "1_0" and digits of other scripts.
    if text and set(text) <= NUMBER_CHARACTERS:
        try:
            return float(text)
        except ValueError:
            pass
    raise InputError(shown, number, "score", f"must be a finite decimal number, got {short(text)}")


def _trec_entry(line: str, shown: str, number: int) -> tuple[str, Entry]:
    fields = line.split()
    if len(fields) != 6:
        raise InputError(shown, number, "(columns)", f"expected 6 columns qid Q0 docid rank score tag; "
                                                      f"got {len(fields)}")
    qid, _q0, docid, rank, score, _tag = fields
    try:
        rank_value = parse_whole_number(rank, "rank")
    except ValueError as error:
        raise InputError(shown, number, "rank", str(error)) from None
    return qid, Entry(docid, _score(score, shown, number), rank_value, number)


def _jsonl_entry(line: str, shown: str, number: int) -> tuple[str, Entry]:
    record = _object(line, shown, number)
    qid, docid = _text(record, "qid", shown, number), _text(record, "docid", shown, number)
    values = []
    for name in ("rank", "score"):
        if name not in record:
            raise InputError(shown, number, name, "missing")
        value = record[name]
        kinds = int if name == "rank" else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or value != value or value in (
                float("inf"), float("-inf")):
            raise InputError(shown, number, name, f"must be a {'whole' if name == 'rank' else 'finite'} "
                                                   f"number, got {short(value)}")
        if name == "rank" and value < 0:
            raise InputError(shown, number, "rank", f"must be at least 0, got {value}")
        values.append(value)
    return qid, Entry(docid, float(values[1]), values[0], number)


def read_run(path: str, shown: str, progress=None):
    """Yield (query id, [Entry, ...]) for each query, in file order, one query at a time.

    A query's lines must be consecutive (as every TREC tool writes them); lines of one query
    that resume after another query raise InputError, so no query is ever audited twice.
    `progress(characters read, file size)` is called after each query, if given.
    """
    parse = _jsonl_entry if path.endswith(".jsonl") else _trec_entry
    total = os.path.getsize(path)
    finished: dict[str, int] = {}
    current, entries, read = None, [], 0
    for number, line in _lines(path, shown):
        read += len(line)  # characters: the same as bytes for ASCII, close enough for a progress bar
        qid, entry = parse(line, shown, number)
        if qid != current:
            if current is not None:
                yield current, entries
                finished[current] = number - 1
                if progress is not None:
                    progress(read, total)
            if qid in finished:
                raise InputError(shown, number, "qid", f"entries of query {qid!r} resume after other queries; "
                                                       f"a run lists each query's lines together "
                                                       f"(sort it by query id, keeping each query's order)")
            current, entries = qid, []
        entries.append(entry)
    if current is not None:
        yield current, entries
        if progress is not None:
            progress(total, total)


def find_files(folder: str, run: str | None = None, qrels: str | None = None) -> dict[str, str]:
    """The four input paths of a BEIR folder; `run` and `qrels` may name files elsewhere.

    qrels defaults to qrels/test.tsv, or the only .tsv in qrels/; the run to the folder's
    only run.trec, run.txt or run.jsonl.
    """
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{folder} is not a folder (expected corpus.jsonl, queries.jsonl, qrels/)")
    found = {"corpus": os.path.join(folder, "corpus.jsonl"), "queries": os.path.join(folder, "queries.jsonl")}
    if qrels is None:
        tables = sorted(name for name in os.listdir(os.path.join(folder, "qrels"))
                        if name.endswith(".tsv")) if os.path.isdir(os.path.join(folder, "qrels")) else []
        if "test.tsv" in tables:
            tables = ["test.tsv"]
        if len(tables) != 1:
            raise FileNotFoundError(f"{folder}/qrels holds {', '.join(tables) or 'no .tsv file'}: "
                                    f"name one with --qrels")
        qrels = os.path.join(folder, "qrels", tables[0])
    found["qrels"] = qrels
    if run is None:
        runs = [name for name in ("run.trec", "run.txt", "run.jsonl") if os.path.isfile(os.path.join(folder, name))]
        if len(runs) != 1:
            raise FileNotFoundError(f"{folder} holds {', '.join(runs) or 'no run.trec, run.txt or run.jsonl'}: "
                                    f"name the run with --run")
        run = os.path.join(folder, runs[0])
    found["run"] = run
    for name, path in found.items():
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path} does not exist (the {name} file)")
    return found
