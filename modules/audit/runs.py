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
import operator
import os
from array import array
from dataclasses import dataclass
from itertools import islice

from modules.audit.readers import EXAMPLES, Findings, InputError, open_lines
from modules.audit.runlines import DICT_RUN, JSONL_RUN, MAX_JSON_RUN, TREC_RUN, Entry, batches, run_form  # noqa: F401
from modules.audit.topk import Lines
from modules.common.checks import short

__all__ = ["Entry", "Ranked", "RunSummary", "read_qrels", "rank_run", "MAX_JSON_RUN"]

BEIR_QRELS = "BEIR qrels (query-id TAB corpus-id TAB score)"
TREC_QRELS = "TREC qrels (qid 0 docid relevance)"

# The records below are made only by the readers in this file, which check every field of the
# line they read and name the file, line and field when one is wrong (InputError); so they
# carry no second check of their own.

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


def _groups(path: str, shown: str, form: str, findings, only=None):
    """(qid, doc ids, scores, ranks or None, line numbers) for each run of consecutive lines of
    one query (of the queries in `only`, when given), held whole."""
    current = None
    for qid, docids, scores, ranks, lines in batches(path, shown, form, findings):
        if only is not None and qid not in only:
            continue
        if qid != current:
            if current is not None:
                yield current, ids, held_scores, held_ranks, held_lines
            # Scores and line numbers in typed arrays: 8 bytes an entry, not an object each.
            current, ids, held_scores, held_lines = qid, [], array("d"), array("q")
            held_ranks = None if ranks is None else []
        ids += docids
        held_scores.extend(scores)
        held_lines.extend(lines)
        if ranks is not None:
            held_ranks += ranks
    if current is not None:
        yield current, ids, held_scores, held_ranks, held_lines


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
    form = run_form(path, shown)
    queries: dict[str, Ranked | None] = {}      # None: to be read again, whole
    entries = 0
    found = Findings()      # kept only if the run proves grouped (an interleaved run is read again)
    query = None
    for qid, docids, scores, ranks, lines in batches(path, shown, form, findings):
        if query is None or qid != query.qid:
            if query is not None:
                queries[query.qid] = _ranked(query, watch)
            if qid in queries:
                return _ungrouped(path, shown, form, relevant, k, findings, watch)
            query = Lines(qid, set(relevant.get(qid, ())), k)
        query.add(docids, scores, ranks, lines)
        entries += len(docids)
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
