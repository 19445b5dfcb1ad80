"""Readers for the audit's judgements, run and packets (the corpus and queries are in readers.py).

    qrels    BEIR: `query-id <TAB> corpus-id <TAB> score` after an optional header line;
             TREC: `qid 0 docid relevance`, whitespace-separated. The first line's shape
             decides, and every later line must have the same shape.
    run      TREC: `qid Q0 docid rank score tag`; JSON lines {"qid", "docid", "rank", "score"};
             or one JSON object {qid: {docid: score}} (pytrec_eval's and ranx's run), told
             apart by the first line. Lines may come in any order, as trec_eval reads them.
    packets  JSON lines {"qid", "docids": [...], "texts": [...]}: what a system actually sent
             for a query, ids in the order sent (an id may repeat: a chunk-level index sends
             several pieces of one passage), `texts` (optional) the exact text of each.
    prompts  JSON lines {"qid", "call", "prompt"}: one line per LLM call, as the adapters of
             modules/audit/adapters.py write them; a query's calls are numbered from 0.

A run grouped by query (as every TREC tool writes it) is streamed one query at a time; a run
whose queries interleave is grouped in memory first, which costs memory in the run's size.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from modules.audit.readers import EXAMPLES, InputError, open_lines, read_id, read_object
from modules.common.checks import short

__all__ = ["Entry", "Packet", "RunScan", "read_qrels", "scan_run", "read_run", "read_packets", "read_prompts",
           "MAX_JSON_RUN"]

NUMBER_CHARACTERS = frozenset("0123456789+-.eE")
MAX_JSON_RUN = 1 << 30   # a {qid: {docid: score}} run is one JSON value: read whole, up to 1 GiB
BEIR_QRELS = "BEIR qrels (query-id TAB corpus-id TAB score)"
TREC_QRELS = "TREC qrels (qid 0 docid relevance)"
TREC_RUN = "a TREC run line (qid Q0 docid rank score tag)"
JSONL_RUN = "a JSON-lines run object {\"qid\", \"docid\", \"rank\", \"score\"}"
DICT_RUN = "a JSON run {qid: {docid: score}}"

# The records below are made only by the readers in this file, which check every field of the
# line they read and name the file, line and field when one is wrong (InputError); so they
# carry no second check of their own.

@dataclass(frozen=True, slots=True)
class Entry:
    """One run line: the doc id, its score, the rank column as written (None in a JSON run)
    and the line's number."""

    docid: str
    score: float
    rank: int | None
    line: int


@dataclass(frozen=True, slots=True)
class Packet:
    """What a system sent for one query: the ids in the order sent (an id may repeat), their
    texts (None when the packet gives none) and the line's number; found in prompts, also the
    call each id was sent in, and each call's prompt and call number."""

    qid: str
    docids: tuple[str, ...]
    texts: tuple[str, ...] | None
    line: int
    calls: tuple[int, ...] = ()
    prompts: tuple[str, ...] = ()
    call_ids: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RunScan:
    """What the first pass over a run learns: its format, the doc ids it names, whether each
    query's lines are together, how many entries it holds, and the doc ids it names for the
    watched queries (those whose passages' texts the audit must read)."""

    format: str
    docids: set
    grouped: bool
    entries: int
    watched: set


def _relevance(text: str, shown: str, number: int, form: str) -> int:
    body = text[1:] if text.startswith("-") else text
    if not body.isascii() or not body.isdigit() or len(body) > 9:
        raise InputError(shown, number, "score" if form == BEIR_QRELS else "relevance",
                         f"expected a whole number in {form}, found {short(text)}")
    return int(text)


def read_qrels(path: str, shown: str, findings=None) -> dict[str, dict[str, int]]:
    """Query id -> {doc id: relevance}, BEIR or TREC by the first line's shape."""
    judged: dict[str, dict[str, int]] = {}
    where: dict[tuple[str, str], int] = {}
    form = None
    for number, line in open_lines(path, shown):
        tabbed = line.rstrip("\r\n").split("\t")
        spaced = line.split()
        if form is None:
            form = BEIR_QRELS if len(tabbed) == 3 else TREC_QRELS if len(spaced) == 4 else None
            if form is None:
                raise InputError(shown, number, "(columns)", f"expected {BEIR_QRELS} or {TREC_QRELS}; found "
                                                              f"{len(tabbed)} tab-separated, {len(spaced)} "
                                                              f"whitespace-separated columns")
            if form == BEIR_QRELS and [f.strip() for f in tabbed] == ["query-id", "corpus-id", "score"]:
                continue
        if form == BEIR_QRELS:
            if len(tabbed) != 3:
                raise InputError(shown, number, "(columns)", f"expected {BEIR_QRELS} as on line 1; found "
                                                              f"{len(tabbed)} tab-separated columns")
            qid, docid, score = (f.strip() for f in tabbed)
        else:
            if len(spaced) != 4:
                raise InputError(shown, number, "(columns)", f"expected {TREC_QRELS} as on line 1; found "
                                                              f"{len(spaced)} columns")
            qid, _iteration, docid, score = spaced
        for name, value in (("query-id", qid), ("corpus-id", docid)):
            if not value:
                raise InputError(shown, number, name, f"expected a non-empty id in {form}")
        relevance = _relevance(score, shown, number, form)
        if (qid, docid) in where:
            raise InputError(shown, number, "corpus-id", f"{docid!r} is judged twice for query {qid!r} "
                                                         f"(first on line {where[(qid, docid)]})")
        where[(qid, docid)] = number
        judged.setdefault(qid, {})[docid] = relevance
    return judged


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


def _trec_entry(line: str, shown: str, number: int, findings) -> tuple[str, Entry]:
    fields = line.split()
    if len(fields) != 6:
        raise InputError(shown, number, "(columns)", f"expected {TREC_RUN}; found {len(fields)} columns")
    qid, _q0, docid, rank, score, _tag = fields
    if not rank.isascii() or not rank.isdigit() or len(rank) > 12:
        raise InputError(shown, number, "rank", f"expected a whole number in {TREC_RUN}, found {short(rank)}")
    return qid, Entry(docid, _score(score, shown, number, TREC_RUN), int(rank), number)


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


def _form(path: str, shown: str) -> str:
    for number, line in open_lines(path, shown, limit=MAX_JSON_RUN):   # a JSON run may be one long line
        if not line.lstrip().startswith("{"):
            return TREC_RUN
        try:
            record = read_object(line, shown, number)
        except InputError:
            return DICT_RUN   # the first line of a multi-line JSON object is not a whole object
        return JSONL_RUN if "qid" in record else DICT_RUN
    return TREC_RUN


def _dict_run(path: str, shown: str, findings):
    """Yield (qid, entry) from a {qid: {docid: score}} object: the whole file is one value."""
    text = "".join(line for _number, line in open_lines(path, shown, limit=MAX_JSON_RUN))
    run = read_object(text, shown, 1, DICT_RUN)
    for qid, docs in run.items():
        if not isinstance(docs, dict):
            raise InputError(shown, 1, f"{short(qid)}", f"expected {DICT_RUN}, found {type(docs).__name__} for "
                                                        f"the query")
        for docid, score in docs.items():
            if not docid.strip():
                raise InputError(shown, 1, f"{short(qid)}", f"expected non-empty doc ids in {DICT_RUN}")
            yield qid.strip(), Entry(docid.strip(), _score(score, shown, 1, DICT_RUN), None, 1)


def _entries(path: str, shown: str, form: str, findings):
    if form == DICT_RUN:
        yield from _dict_run(path, shown, findings)
        return
    parse = _trec_entry if form == TREC_RUN else _jsonl_entry
    for number, line in open_lines(path, shown):
        yield parse(line, shown, number, findings)


def _ids(path: str, shown: str, form: str, findings):
    """(qid, docid) of every entry; a TREC line is only split here (the second pass checks it)."""
    if form != TREC_RUN:
        for qid, entry in _entries(path, shown, form, findings):
            yield qid, entry.docid
        return
    for _number, line in open_lines(path, shown):
        fields = line.split()
        if len(fields) == 6:
            yield fields[0], fields[2]


def scan_run(path: str, shown: str, findings=None, watch=frozenset()) -> RunScan:
    """The first pass: the run's format, the doc ids it names (and those of the `watch` queries),
    and whether it is grouped by query."""
    form = _form(path, shown)
    docids, finished, current, grouped, entries, watched = set(), set(), None, True, 0, set()
    for qid, docid in _ids(path, shown, form, findings):
        entries += 1
        docids.add(docid)
        if qid in watch:
            watched.add(docid)
        if qid != current:
            if qid in finished:
                grouped = False
            if current is not None:
                finished.add(current)
            current = qid
    return RunScan(form, docids, grouped, entries, watched)


def read_run(path: str, shown: str, scan: RunScan, findings=None, progress=None):
    """Yield (query id, [Entry, ...]) for each query, in the order queries first appear.

    `progress(entries done, entries in all)` is called after each query, if given.
    """
    entries = _entries(path, shown, scan.format, findings)
    done = 0
    if scan.grouped:
        current, group = None, []
        for qid, entry in entries:
            if qid != current:
                if current is not None:
                    yield current, group
                    done += len(group)
                    if progress is not None:
                        progress(done, scan.entries)
                current, group = qid, []
            group.append(entry)
        if current is not None:
            yield current, group
            if progress is not None:
                progress(scan.entries, scan.entries)
        return
    by_query: dict[str, list[Entry]] = {}
    for qid, entry in entries:
        by_query.setdefault(qid, []).append(entry)
    if findings is not None:
        findings.add("run_not_grouped", f"{os.path.basename(shown)}: {len(by_query)} queries read whole")
    for qid, group in by_query.items():
        yield qid, group
        done += len(group)
        if progress is not None:
            progress(done, scan.entries)


PACKETS = "a packet line {\"qid\", \"docids\": [...], \"texts\": [...]}"


def read_packets(path: str, shown: str, findings=None) -> dict[str, Packet]:
    """Query id -> the Packet a system sent for it."""
    packets: dict[str, Packet] = {}
    for number, line in open_lines(path, shown):
        record = read_object(line, shown, number, PACKETS)
        qid = read_id(record, "qid", shown, number, findings)
        if qid in packets:
            raise InputError(shown, number, "qid", f"{qid!r} already has a packet on line {packets[qid].line}")
        docids = record.get("docids")
        if not isinstance(docids, list):
            raise InputError(shown, number, "docids", f"expected a list of passage ids in {PACKETS}, found "
                                                      f"{short(docids)}")
        ids = tuple(read_id({"docids": d}, "docids", shown, number, findings) for d in docids)
        texts = record.get("texts")
        if texts is not None:
            if not isinstance(texts, list) or len(texts) != len(ids) or not all(isinstance(t, str) for t in texts):
                raise InputError(shown, number, "texts", f"expected a list of {len(ids)} strings (one per docid), "
                                                         f"found {short(texts)}")
            texts = tuple(texts)
        packets[qid] = Packet(qid=qid, docids=ids, texts=texts, line=number)
    return packets


PROMPTS = "a prompt line {\"qid\", \"call\", \"prompt\"}"


def read_prompts(path: str, shown: str, findings=None) -> dict[str, list[tuple[int, str]]]:
    """Query id -> its (call, prompt) pairs, in call order: what each LLM call received."""
    prompts: dict[str, dict[int, tuple[str, int]]] = {}
    for number, line in open_lines(path, shown):
        record = read_object(line, shown, number, PROMPTS)
        qid = read_id(record, "qid", shown, number, findings)
        call = record.get("call")
        if isinstance(call, bool) or not isinstance(call, int) or call < 0:
            raise InputError(shown, number, "call", f"expected a whole number >= 0 in {PROMPTS}, found {short(call)}")
        prompt = record.get("prompt")
        if not isinstance(prompt, str):
            raise InputError(shown, number, "prompt", f"expected a string in {PROMPTS}, found {short(prompt)}")
        calls = prompts.setdefault(qid, {})
        if call in calls:
            raise InputError(shown, number, "call", f"call {call} of {qid!r} already appears on line {calls[call][1]}")
        calls[call] = (prompt, number)
    return {qid: [(call, calls[call][0]) for call in sorted(calls)] for qid, calls in prompts.items()}


def examples(ids, count: int = EXAMPLES) -> list[str]:
    """A few ids, sorted, for a message."""
    return sorted(ids)[:count]
