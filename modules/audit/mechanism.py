"""Audit a retrieval run: where does the evidence a run retrieved go missing before the packet?

IR evaluation stops at the ranking (recall@k); the lessons show that the packet can still
lose what the ranking found. This module replays a real run through the lessons' own
selection mechanisms, imported, never re-implemented, and books every needed passage that
does not reach the packet under exactly one cause, the first step that removed it:

    not_retrieved     not among the run's top k for the query (a retrieval loss)
    not_in_corpus     in the top k, but corpus.jsonl has no such _id (an input problem)
    expired           outside its validity window on the as-of date (versions.valid_on, lesson 04)
    version_conflict  its source shows two version labels among the top k, so the whole
                      source is blocked (lesson 01's rule, versions.multi_version_sources)
    canonical_copy    a copy of a passage whose other copy was kept (dedupe.dedupe_canonical)
    duplicate_text    the same text as a higher-ranked passage (dedupe.dedupe_text)
    overlap           shares a line of its file with a higher-ranked passage
                      (dedupe.select_non_overlapping)
    budget_skip       did not fit in the room left (budget.fill_budget, the skip walk)

The steps run in that order over the top k, and only the walk depends on the budget, so a
query is selected once and walked once per budget. Recall@k and coverage are lesson 01's
counts (context.recall_counts, context.coverage_counts); per query,
needed = not retrieved + not in corpus + lost in selection + in the packet.

The audit holds no passage text: a passage is its size in the unit, the SHA-256 of its text
and its metadata. The lessons' records get the hash where they would hold the text (equal
hashes, equal texts), and the walk's counter looks the size up by hash. Relevance is
qrels score >= 1, and the ranking is the run's scores, highest first, equal scores in
descending doc id order: trec_eval's order, so recall@k agrees with trec_eval and
ir-measures. The rank column is checked (repeated ranks are counted), not used to order.
"""

from __future__ import annotations

import os
from collections import namedtuple

from modules.budget import Chunk as WalkChunk, fill_budget
from modules.common.checks import whole_number
from modules.common.units import chars, lab_tokens
from modules.context.mechanism import coverage_counts, recall_counts
from modules.dedupe import Chunk as DedupeChunk, dedupe_canonical, dedupe_text, select_non_overlapping
from modules.versions import AS_OF, Record, check_day, multi_version_sources, valid_on

__all__ = ["CAUSES", "UNITS", "DEFAULT_K", "DEFAULT_BUDGETS", "DEMO", "DEMO_AS_OF", "Corpus", "Loss",
           "QueryAudit", "Ledger", "rank_entries", "select_candidates", "audit_query", "run_audit"]

CAUSES = ("not_retrieved", "not_in_corpus", "expired", "version_conflict", "canonical_copy",
          "duplicate_text", "overlap", "budget_skip")
UNITS = {"chars": chars, "lab-tokens": lab_tokens}
DEFAULT_K = 10
DEFAULT_BUDGETS = {"chars": (80, 120, 400, 1000), "lab-tokens": (20, 30, 100, 250)}
DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo")
DEMO_AS_OF = AS_OF          # the help desk's as-of date (lesson 04); user data has none unless given
OPEN_START = "0001-01-01"   # valid_on needs a first day; a passage without one has always been valid

# What the audit holds of one passage: the lessons' records (text replaced by its hash),
# and what the steps read. `source_id` and `version` are the names lesson 04's
# multi_version_sources reads; source_id is "" when the corpus gives no source.
Held = namedtuple("Held", "chunk walk source_id version lines validity")
# One needed passage that did not reach the packet. `kept` is the passage that won it
# (duplicate, copy or overlap), "" otherwise; `kept_in_packet` says whether the winner got in.
Loss = namedtuple("Loss", "id cause detail kept kept_in_packet")
QueryAudit = namedtuple("QueryAudit", "qid needed retrieved in_corpus coverage lost")
Selection = namedtuple("Selection", "eligible causes")


class Corpus:
    """Every passage as the audit holds it, and its size by text hash for the walk's counter.

    With an `as_of` date, lesson 04's valid_on decides each passage's validity once, here.
    """

    def __init__(self, passages, as_of: str | None = None) -> None:
        self.held: dict[str, Held] = {}
        self.size_of: dict[str, int] = {}
        self.windows = 0
        self.as_of = None if as_of is None else check_day(as_of, "as_of")
        windows = []
        for p in passages:
            # The audit's canonical_id names one passage (its copies share it), so it is also
            # the passage's anchor: lesson 03 then joins exactly the declared copies, whatever
            # their text, and leaves distinct passages alone.
            chunk = DedupeChunk(p.id, p.source or p.id, p.digest, 0.0, p.canonical_id, p.copy,
                                p.start_line or 1, p.end_line or 1, p.canonical_id)
            self.held[p.id] = Held(chunk, WalkChunk(p.id, p.digest), p.source, p.version, p.start_line > 0, "")
            self.size_of[p.digest] = p.size
            if p.valid_from or p.valid_until:
                windows.append(p)
        self.windows = len(windows)
        if self.as_of is not None and windows:
            records = [Record(p.id, p.source or p.id, p.version or "-", "", p.digest,
                              valid_from=p.valid_from or OPEN_START, valid_until=p.valid_until or None)
                       for p in windows]
            valid = {r.id for r in valid_on(records, self.as_of)}
            for p in windows:
                if p.id not in valid:
                    why = (f"expired: last day {p.valid_until}" if p.valid_until and p.valid_until < self.as_of
                           else f"not yet valid: first day {p.valid_from}")
                    self.held[p.id] = self.held[p.id]._replace(validity=why)

    def __len__(self) -> int:
        return len(self.held)

    def __contains__(self, pid: str) -> bool:
        return pid in self.held

    def size(self, pid: str) -> int:
        return self.size_of[self.held[pid].walk.text]


def rank_entries(entries, qid: str, corpus: Corpus, findings) -> list[str]:
    """The run's entries for one query as a ranking of distinct doc ids.

    Order: score, highest first; equal scores by doc id, descending (trec_eval's order). A doc
    id listed twice keeps its best-ranked entry; repeated ranks and doc ids the corpus lacks
    are counted in `findings`, and unknown ids keep their place (they take a slot in the top k).
    """
    ranks: set[int] = set()
    held = corpus.held
    for entry in entries:
        if entry.rank in ranks:
            findings.add("duplicate_rank", f"{qid} rank {entry.rank} (line {entry.line})")
        ranks.add(entry.rank)
        if entry.docid not in held:
            findings.add("unknown_doc", f"{qid} {entry.docid} (line {entry.line})")
    ranking, seen = [], set()
    for entry in sorted(entries, key=lambda e: (e.score, e.docid), reverse=True):
        if entry.docid in seen:
            findings.add("repeated_doc", f"{qid} {entry.docid} (line {entry.line})")
            continue
        seen.add(entry.docid)
        ranking.append(entry.docid)
    return ranking


def select_candidates(top, corpus: Corpus) -> Selection:
    """Run the budget-free steps over the top-k ids (rank order): what is left for the walk,
    and id -> (cause, detail, kept id) for everything removed."""
    causes: dict[str, tuple[str, str, str]] = {}
    alive = []
    for rank, pid in enumerate(top, start=1):
        held = corpus.held.get(pid)
        if held is None:
            causes[pid] = ("not_in_corpus", f"rank {rank}; corpus.jsonl has no such _id", "")
        elif held.validity:
            causes[pid] = ("expired", f"{held.validity} (as of {corpus.as_of})", "")
        else:
            alive.append(held)
    versioned = [h for h in alive if h.version]
    if len(versioned) > 1:
        conflicts = multi_version_sources(versioned)
        if conflicts:
            for held in alive:
                if held.source_id in conflicts:
                    labels = ", ".join(conflicts[held.source_id])
                    causes[held.chunk.id] = ("version_conflict", f"{held.source_id} has versions {labels} "
                                                                 f"among the candidates", "")
            alive = [h for h in alive if h.chunk.id not in causes]
    declared = [h.chunk._replace(start_line=1, end_line=1) for h in alive if h.chunk.canonical_id]
    if len(declared) > 1:   # a copy is one passage on another site: its lines there say nothing
        dropped = dedupe_canonical(declared).dropped
        for pid, kept in dropped.items():
            causes[pid] = ("canonical_copy", f"a copy of {corpus.held[pid].chunk.canonical_id}; kept {kept}", kept)
        if dropped:
            alive = [h for h in alive if h.chunk.id not in dropped]
    duplicates = dedupe_text([h.chunk for h in alive]).duplicate_of
    for pid, kept in duplicates.items():
        causes[pid] = ("duplicate_text", f"the same text as {kept}", kept)
    if duplicates:
        alive = [h for h in alive if h.chunk.id not in duplicates]
    lined = [h.chunk._replace(score=float(-index)) for index, h in enumerate(alive) if h.lines]
    if len(lined) > 1:      # scores that rank them in the run's order for the lesson's sort
        rejected = select_non_overlapping(lined).rejected
        for pid, reason in rejected.items():
            chunk = corpus.held[pid].chunk
            kept = reason.partition(":")[2]     # the lesson's reason: overlapping_lines_with:<kept id>
            causes[pid] = ("overlap", f"lines {chunk.start_line}-{chunk.end_line} of {chunk.source} overlap "
                                      f"{kept}", kept)
        if rejected:
            alive = [h for h in alive if h.chunk.id not in rejected]
    return Selection(tuple(h.walk for h in alive), causes)


def audit_query(qid: str, ranking, relevant, corpus: Corpus, k: int, budgets, unit: str) -> QueryAudit:
    """Recall@k, and per budget the coverage and a Loss for every needed id not in the packet."""
    relevant = sorted(relevant)
    retrieved, needed = recall_counts(ranking, relevant, k)
    top = ranking[:k]
    selection = select_candidates(top, corpus)
    wanted = set(relevant)
    position = {pid: rank for rank, pid in enumerate(ranking, start=1) if pid in wanted}
    counter = corpus.size_of.__getitem__
    coverage, lost = [], []
    for budget in budgets:
        walk = fill_budget(selection.eligible, budget, counter)
        packet = set(walk.kept_ids)
        coverage.append(coverage_counts(packet, relevant)[0])
        losses = []
        for pid in relevant:
            if pid in packet:
                continue
            if pid in selection.causes:
                cause, detail, kept = selection.causes[pid]
                if kept:
                    detail += f" ({'in' if kept in packet else 'not in'} the packet)"
                losses.append(Loss(pid, cause, detail, kept, kept in packet))
            elif pid in position and position[pid] <= k:
                losses.append(Loss(pid, "budget_skip", f"{corpus.size(pid)} {unit}; {walk.used} of {budget} "
                                                        f"used", "", False))
            else:
                where = (f"ranked {position[pid]} of {len(ranking)}, beyond k = {k}" if pid in position
                         else "not in the run for this query")
                losses.append(Loss(pid, "not_retrieved", where, "", False))
        lost.append(tuple(losses))
    in_corpus = sum(1 for pid in relevant if pid in corpus)
    return QueryAudit(qid, needed, retrieved, in_corpus, tuple(coverage), tuple(lost))


class Ledger:
    """Totals over the audited queries, per budget: needed, retrieved, in the packet, and each cause."""

    def __init__(self, budgets) -> None:
        self.budgets = tuple(budgets)
        self.queries = self.needed = self.retrieved = 0
        self.recall_sum = 0.0
        self.coverage_sum = [0.0] * len(self.budgets)
        self.in_packet = [0] * len(self.budgets)
        self.causes = [dict.fromkeys(CAUSES, 0) for _ in self.budgets]
        self.copy_in_packet = [0] * len(self.budgets)   # lost as a copy or duplicate whose twin got in

    def add(self, result: QueryAudit) -> None:
        self.queries += 1
        self.needed += result.needed
        self.retrieved += result.retrieved
        self.recall_sum += result.retrieved / result.needed
        for index, (found, losses) in enumerate(zip(result.coverage, result.lost)):
            self.coverage_sum[index] += found / result.needed
            self.in_packet[index] += found
            for loss in losses:
                self.causes[index][loss.cause] += 1
                if loss.kept_in_packet and loss.cause in ("canonical_copy", "duplicate_text"):
                    self.copy_in_packet[index] += 1


Report = namedtuple("Report", "files settings passages windows queries judged ledger results findings texts")


def _budgets(budgets, unit: str) -> tuple[int, ...]:
    budgets = DEFAULT_BUDGETS[unit] if budgets is None else tuple(budgets)
    if not budgets:
        raise ValueError("budgets must name at least one budget")
    for budget in budgets:
        whole_number(budget, "budget")
    return tuple(sorted(set(budgets)))


def _shown(file: str, folder: str) -> str:
    """A file as messages name it: relative to the data folder when inside it."""
    inside = os.path.relpath(os.path.abspath(file), os.path.abspath(folder))
    return file if inside.startswith(os.pardir) else inside.replace(os.sep, "/")


def run_audit(path=None, *, run=None, qrels=None, budgets=None, unit="chars", k=DEFAULT_K, as_of=None,
              progress=None) -> Report:
    """Read a BEIR folder and a run, audit every judged query; `path` None audits the demo."""
    import modules.audit.readers as audit_io
    if unit not in UNITS:
        raise ValueError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
    whole_number(k, "k", minimum=1)
    budgets = _budgets(budgets, unit)
    if path is None:
        path, as_of = DEMO, DEMO_AS_OF if as_of is None else as_of
    files = audit_io.find_files(path, run, qrels)
    shown = {name: _shown(file, path) for name, file in files.items()}
    findings = audit_io.Findings()
    corpus = Corpus(audit_io.read_corpus(files["corpus"], UNITS[unit], shown["corpus"]), as_of)
    queries = audit_io.read_queries(files["queries"], shown["queries"])
    judged = audit_io.read_qrels(files["qrels"], shown["qrels"])
    relevant = {qid: [d for d, score in docs.items() if score >= 1] for qid, docs in judged.items()}
    for qid, docs in relevant.items():
        if qid not in queries:
            findings.add("qrels_unknown_query", qid)
        for docid in docs:
            if docid not in corpus:
                findings.add("qrels_unknown_doc", f"{qid} {docid}")
    ledger, results, seen = Ledger(budgets), [], set()
    for qid, entries in audit_io.read_run(files["run"], shown["run"], progress):
        seen.add(qid)
        if qid not in queries:
            findings.add("run_unknown_query", qid)
        ranking = rank_entries(entries, qid, corpus, findings)
        if not relevant.get(qid):
            findings.add("run_query_without_qrels", qid)
            continue
        results.append(audit_query(qid, ranking, relevant[qid], corpus, k, budgets, unit))
        ledger.add(results[-1])
    for qid, docs in relevant.items():
        if docs and qid not in seen:
            findings.add("judged_query_not_in_run", qid)
            results.append(audit_query(qid, [], docs, corpus, k, budgets, unit))
            ledger.add(results[-1])
    settings = {"k": k, "unit": unit, "budgets": list(budgets), "as_of": as_of}
    return Report(shown, settings, len(corpus), corpus.windows, len(queries),
                  sum(1 for docs in relevant.values() if docs), ledger, results, findings, queries)
