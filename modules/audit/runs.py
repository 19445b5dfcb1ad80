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

The run is read once (rank_run): each query's lines, as they go by, are reduced to what the
audit reads of them (modules/audit/topk.py): the top k distinct doc ids in trec_eval's order,
the ranks of its judged passages below k, and its counts. So for a run grouped by query whose
scores never rise within a query (as every TREC tool writes it), memory follows k, the judged
ids and the longest run of equal scores, plus 8 bytes a line of the deepest query, not the
run's depth. A query that lists a doc id twice, whose rank column does not rise, or whose
scores rise with a judged passage below k is read again and held whole (one query at a time);
so is one whose prompts are audited (they are searched for every passage it ranks). A run
whose queries interleave is grouped in memory first (counted as a finding), and a
{qid: {docid: score}} run is decoded one query's object at a time.
"""

from __future__ import annotations

import heapq
import json
import operator
from array import array
from itertools import islice
import math
import os
from dataclasses import dataclass

from modules.audit.lines import BOM, _no_repeats, _open
from modules.audit.readers import EXAMPLES, Findings, InputError, open_lines, read_id, read_object
from modules.audit.topk import Lines
from modules.common.checks import short

__all__ = ["Entry", "Ranked", "RunSummary", "read_qrels", "rank_run", "MAX_JSON_RUN"]

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
class Ranked:
    """What the audit reads of one query's run lines: its top k distinct doc ids in trec_eval's
    order (score, highest first; equal scores by doc id, descending) and the line of each, the
    rank of each judged passage ranked below k, how many distinct doc ids it ranks, and its lines."""

    qid: str
    top: tuple[str, ...]
    lines: tuple[int, ...]
    below: dict[str, int]
    depth: int
    entries: int
    ranking: tuple[str, ...] = ()   # every distinct doc id in order, for a watched query only


@dataclass(frozen=True, slots=True)
class RunSummary:
    """The run, read once: its format, each query's Ranked in the order queries first appear,
    how many entries it holds, and whether each query's lines were together."""

    format: str
    queries: dict[str, Ranked]
    entries: int
    grouped: bool


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


def _form(path: str, shown: str) -> str:
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
    decoder = json.JSONDecoder(object_pairs_hook=_no_repeats)
    at = _skip(text, 0)
    if text[at:at + 1] != "{":
        raise InputError(shown, 1, "(json)", f"expected {DICT_RUN}, found {short(text[at:at + 20])}")
    at, seen = _skip(text, at + 1), set()
    while text[at:at + 1] != "}":
        try:
            qid, at = decoder.raw_decode(text, at)
            at = _skip(text, at)
            if text[at:at + 1] != ":":
                raise ValueError(f"expected ':' at character {at}")
            docs, at = decoder.raw_decode(text, _skip(text, at + 1))
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


def _entries(path: str, shown: str, form: str, findings):
    """(qid, doc id, score, rank or None, line number) of each run line, in the file's order. A
    TREC line is checked here, field by field, without making a record of it."""
    if form != TREC_RUN:
        for qid, entry in (_dict_run(path, shown, findings) if form == DICT_RUN
                           else (_jsonl_entry(line, shown, number, findings)
                                 for number, line in open_lines(path, shown))):
            yield qid, entry.docid, entry.score, entry.rank, entry.line
        return
    for number, line in open_lines(path, shown):
        fields = line.split()
        if len(fields) != 6:
            raise InputError(shown, number, "(columns)", f"expected {TREC_RUN}; found {len(fields)} columns")
        qid, _q0, docid, rank, score, _tag = fields
        if not rank.isdigit() or not rank.isascii() or len(rank) > 12:
            raise InputError(shown, number, "rank", f"expected a whole number in {TREC_RUN}, found {short(rank)}")
        try:
            value = float(score)
        except ValueError:
            value = math.nan
        # float() alone would also take "nan", "inf", "1_0" and digits of other scripts; 1e999 is inf.
        if not math.isfinite(value) or "_" in score or not score.isascii():
            raise InputError(shown, number, "score", f"expected a finite decimal number in {TREC_RUN}, found "
                                                     f"{short(score)}")
        yield qid, docid, value, int(rank), number


def _groups(path: str, shown: str, form: str, findings, only=None):
    """(qid, doc ids, scores, ranks or None, line numbers) for each run of consecutive lines of
    one query (of the queries in `only`, when given), held whole."""
    current, ids, scores, ranks, lines = None, [], array("d"), [], array("q")
    for qid, docid, score, rank, line in _entries(path, shown, form, findings):
        if only is not None and qid not in only:
            continue
        if qid != current:
            if current is not None:
                yield current, ids, scores, (None if form == DICT_RUN else ranks), lines
            # Scores, TREC ranks (12 digits at most) and line numbers in typed arrays: 8 bytes an
            # entry, not an object each. A JSON rank may be any whole number.
            current, ids, scores, lines = qid, [], array("d"), array("q")
            ranks = array("q") if form == TREC_RUN else []
        ids.append(docid)
        scores.append(score)
        if rank is not None:
            ranks.append(rank)
        lines.append(line)
    if current is not None:
        yield current, ids, scores, (None if form == DICT_RUN else ranks), lines


def _rank_group(qid: str, ids, scores, ranks, lines, wanted, k: int, findings, whole: bool = False) -> Ranked:
    """One query's lines, reduced to what the audit reads (see Ranked). A doc id listed twice keeps
    its best-ranked entry; repeated ranks and doc ids are counted in `findings`. `whole`: keep
    the query's whole ranking too (its prompts are searched for every passage it ranks)."""
    count = len(ids)
    # Ranks written in increasing order (as TREC tools write them) are distinct: no set of them.
    if ranks is not None and not all(map(operator.lt, ranks, islice(ranks, 1, None))) and len(set(ranks)) != count:
        seen: set = set()
        for rank, line in zip(ranks, lines):
            if rank in seen:
                findings.add("duplicate_rank", f"{qid} rank {rank} (line {line})")
            seen.add(rank)
    distinct = set(ids)
    if len(distinct) != count:      # keep each doc id's best-ranked entry, in trec_eval's order
        order, seen = [], set()
        for score, docid, line in sorted(zip(scores, ids, lines), reverse=True):
            if docid in seen:
                findings.add("repeated_doc", f"{qid} {docid} (line {line})")
                continue
            seen.add(docid)
            order.append((score, docid, line))
        top = order[:k]
        below = {docid: rank for rank, (_s, docid, _l) in enumerate(order, start=1) if rank > k and docid in wanted}
    else:
        top = heapq.nlargest(k, zip(scores, ids, lines))
        kept = {docid for _s, docid, _l in top}
        below = {}
        for docid in wanted & distinct:
            if docid not in kept:
                key = (scores[ids.index(docid)], docid)
                below[docid] = 1 + sum(1 for pair in zip(scores, ids) if pair > key)
    ranking = ()
    if whole:
        ranking = tuple(dict.fromkeys(docid for _s, docid in sorted(zip(scores, ids), reverse=True)))
    return Ranked(qid=qid, top=tuple(docid for _s, docid, _l in top), lines=tuple(line for _s, _d, line in top),
                  below=below, depth=len(distinct), entries=count, ranking=ranking)


def rank_run(path: str, shown: str, relevant: dict, k: int, findings=None, watch=frozenset()) -> RunSummary:
    """Read the run once: each query's Ranked (its top k and its judged passages' ranks below k;
    for a query in `watch`, its whole ranking too), each query reduced as its lines go by
    (topk.Lines). The queries Lines gives up on are read again, each held whole; a run whose
    queries interleave is read again, each query's lines gathered in memory first."""
    form = _form(path, shown)
    queries: dict[str, Ranked | None] = {}      # None: to be read again, whole
    entries = 0
    found = Findings()      # kept only if the run proves grouped (an interleaved run is read again)
    query = None
    for qid, docid, score, rank, line in _entries(path, shown, form, findings):
        if query is None or qid != query.qid:
            if query is not None:
                queries[query.qid] = _ranked(query, watch)
            if qid in queries:
                return _ungrouped(path, shown, form, relevant, k, findings, watch)
            query = Lines(qid, set(relevant.get(qid, ())), k)
        query.add(docid, score, rank, line)
        entries += 1
    if query is not None:
        queries[query.qid] = _ranked(query, watch)
    again = {qid for qid, ranked in queries.items() if ranked is None}
    if again:   # its findings were counted on the first reading: not again
        for qid, *held in _groups(path, shown, form, Findings(), again):
            queries[qid] = _rank_group(qid, *held, set(relevant.get(qid, ())), k, found, qid in watch)
    if findings is not None:
        findings.merge(found)
    return RunSummary(format=form, queries=queries, entries=entries, grouped=True)


def _ranked(query: Lines, watch) -> Ranked | None:
    """The query's Ranked from its Lines, or None when it must be read again whole."""
    summed = None if query.qid in watch else query.finish()
    if summed is None:
        return None
    top, lines, below, depth = summed
    return Ranked(qid=query.qid, top=top, lines=lines, below=below, depth=depth, entries=depth)


def _ungrouped(path: str, shown: str, form: str, relevant: dict, k: int, findings, watch) -> RunSummary:
    gathered: dict[str, tuple] = {}
    entries = 0
    for qid, ids, scores, ranks, lines in _groups(path, shown, form, findings):
        entries += len(ids)
        held = gathered.setdefault(qid, ([], [], None if ranks is None else [], []))
        held[0].extend(ids)
        held[1].extend(scores)
        if ranks is not None:
            held[2].extend(ranks)
        held[3].extend(lines)
    if findings is not None:
        findings.add("run_not_grouped", f"{os.path.basename(shown)}: {len(gathered)} queries read whole")
    queries = {qid: _rank_group(qid, *held, set(relevant.get(qid, ())), k, findings if findings is not None
                                else Findings(), qid in watch) for qid, held in gathered.items()}
    return RunSummary(format=form, queries=queries, entries=entries, grouped=False)


def examples(ids, count: int = EXAMPLES) -> list[str]:
    """A few ids, sorted, for a message."""
    return sorted(ids)[:count]
