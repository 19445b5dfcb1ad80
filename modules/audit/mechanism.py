"""Audit a retrieval run: where does the evidence a run retrieved go missing before the packet?

IR evaluation stops at the ranking (recall@k); the lessons show that the packet can still
lose what the ranking found. This module replays a real run through the lessons' own
selection mechanisms, imported, never re-implemented, and books every needed passage that
does not reach the packet under exactly one cause, the first step that removed it:

    not_retrieved     not among the run's top k for the query               (retrieval)
    not_in_corpus     in the top k, but the corpus has no such _id          (input)
    expired           outside its validity window on the as-of date         (judgement)
                      (versions.valid_on, lesson 04)
    superseded        another version of its source among the candidates declares that it
                      supersedes this one (versions.resolve_or_abstain)     (judgement)
    version_conflict  its source shows two version labels and no declaration settles them,
                      so the whole source is held back (lesson 01's rule)   (policy)
    canonical_copy    a copy of a passage whose other copy was kept (dedupe.dedupe_canonical)
    duplicate_text    the same text as a higher-ranked passage (dedupe.dedupe_text)
    overlap           shares a line of its file with a higher-ranked passage
                      (dedupe.select_non_overlapping)                       (policy)
    budget_skip       its unit did not fit in the room left (budget.fill_budget, the skip
                      walk, over lesson 11's units: passages that declare one metadata.unit
                      travel together; a position alone orders, nothing more)

"judgement" marks a passage the qrels call relevant that the rules exclude for a stated
reason: the judgement may be the thing to check. The steps run in that order over the top
k, and only the walk depends on the budget. Recall@k and coverage are lesson 01's counts
(context.recall_counts, context.coverage_counts). The audit of packets a system actually
sent is in modules/audit/sent.py.

The audit holds no passage text (only a packet's passages keep theirs, to compare, and the
candidates of a query that declares sub-questions, for the facet model of --policy): a
passage is its size in the unit, the SHA-256 of its text and its metadata. The ranking is
the run's scores, highest first, equal scores in descending doc id order: trec_eval's
order, so recall@k agrees with trec_eval and ir-measures.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from modules.budget import RankedPassage, fill_budget, select_for_coverage
from modules.common.units import chars, lab_tokens
from modules.context.mechanism import coverage_counts, recall_counts
from modules.dedupe import RetrievedChunk, dedupe_canonical, dedupe_text, select_non_overlapping
from modules.versions import AS_OF, Record, check_day, multi_version_sources, resolve_or_abstain, valid_on

__all__ = ["CAUSES", "KINDS", "NOTES", "UNITS", "POLICIES", "DEFAULT_K", "DEFAULT_BUDGETS", "DEMO", "DEMO_AS_OF",
           "Corpus", "Loss", "QueryAudit", "select_candidates", "walkable", "walk", "cover",
           "audit_query"]

CAUSES = ("not_retrieved", "not_in_corpus", "expired", "superseded", "version_conflict", "canonical_copy",
          "duplicate_text", "overlap", "budget_skip")
KINDS = {"not_retrieved": "retrieval", "not_in_corpus": "input", "expired": "judgement", "superseded": "judgement",
         "version_conflict": "policy", "canonical_copy": "policy", "duplicate_text": "policy", "overlap": "policy",
         "budget_skip": "policy"}
NOTES = {  # what to do next, per cause
    "not_retrieved": "a retrieval defect: look at the query and the passage (vocabulary, chunking), "
                     "or raise k",
    "not_in_corpus": "fix the ids: the run or the qrels name passages the corpus lacks",
    "expired": "check the judgement: the qrels call relevant a passage that is not valid on the "
               "as-of date",
    "superseded": "check the judgement: the qrels call relevant a version that a newer one declares "
                  "it replaces",
    "version_conflict": "a policy choice: declare which version supersedes (metadata.supersedes), "
                        "or re-index one version",
    "canonical_copy": "a policy choice: another copy of the same passage was kept; judge the copy "
                      "or map copies to one id",
    "duplicate_text": "a policy choice: the same text was kept under another id",
    "overlap": "a policy choice: its lines were already sent in a higher-ranked window",
    "budget_skip": "a policy choice: raise the budget, cut what filled it, or rank the passage "
                   "higher",
}
UNITS = {"chars": chars, "lab-tokens": lab_tokens}
# The lessons' selections, side by side (--policy): lesson 02's stop and skip walks over single
# passages, lesson 11's skip walk over units (declared neighbours together), the default, and
# lesson 02's coverage-aware choice (for a query that declares its sub-questions).
POLICIES = ("stop", "skip", "units", "coverage")
DEFAULT_K = 10
DEFAULT_BUDGETS = {"chars": (80, 120, 400, 1000), "lab-tokens": (20, 30, 100, 250)}
DEMO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo")
DEMO_AS_OF = AS_OF          # the help desk's as-of date (lesson 04); user data has none unless given
OPEN_START = "0001-01-01"   # valid_on needs a first day; a passage without one has always been valid

@dataclass(frozen=True, slots=True)
class Held:
    """What the audit holds of one passage the run or the qrels touch: the lessons' records
    (lesson 03's chunk and lesson 02's, their text replaced by its hash) and what the steps
    read. Built by Corpus from a checked readers.Passage, so it checks nothing again."""

    chunk: RetrievedChunk
    walk: RankedPassage
    source_id: str
    version: str
    lines: bool          # the passage declares a line range
    validity: str        # why it is not valid on the as-of date, "" when it is
    supersedes: tuple
    position: int        # its place in its source, -1 when undeclared: it orders a unit, nothing more
    unit: str            # the unit it declares (lesson 11: members travel together), "" when none
    text: str | None


@dataclass(frozen=True)
class Loss:
    """One needed passage that did not reach the packet. `kept` is the passage that won it
    (duplicate, copy, overlap or newer version), "" otherwise; `kept_in_packet` whether it got in."""

    id: str
    cause: str
    detail: str
    kept: str = ""
    kept_in_packet: bool = False

    def __post_init__(self) -> None:
        if self.cause not in CAUSES:
            raise ValueError(f"Loss.cause must be one of {', '.join(CAUSES)}, got {self.cause!r}")


@dataclass(frozen=True)
class QueryAudit:
    """One query: its needed and retrieved counts, and per budget the coverage (needed passages
    in the packet), the packet's ids in packet order, and a Loss per needed passage left out."""

    qid: str
    needed: int
    retrieved: int
    in_corpus: int
    coverage: tuple
    lost: tuple
    packets: tuple
    policies: dict      # policy -> coverage per budget (with --policy), else {}; None: not computed


@dataclass(frozen=True, slots=True)
class Selection:
    """One query's candidates after the lessons' steps. units: tuple of tuples of Held, by
    best-ranked member; causes: dropped id -> (cause, detail, kept id); alive: the Held
    passages left, in rank order."""

    units: tuple
    causes: dict
    alive: tuple


class Corpus:
    """Every passage the run or the qrels touch, as the audit holds it, and sizes by text hash.

    With an `as_of` date, lesson 04's valid_on decides each passage's validity once, here.
    """

    def __init__(self, passages, as_of: str | None = None, counter=chars) -> None:
        self.held: dict[str, Held] = {}
        self.size_of: dict[str, int] = {}
        self.ids_of: dict[str, list[str]] = {}     # text hash -> ids (a sent text is looked up here)
        self.members: dict[str, list[str]] = {}    # declared unit -> its passages' ids
        self.windows = 0
        self.counter = counter
        self.as_of = None if as_of is None else check_day(as_of, "as_of")
        windows = []
        for p in passages:
            # The audit's canonical_id names one passage (its copies share it), so it is also
            # the passage's anchor: lesson 03 then joins exactly the declared copies.
            chunk = RetrievedChunk(p.id, p.source or p.id, p.digest, 0.0, p.canonical_id, p.copy,
                                   p.start_line or 1, p.end_line or 1, p.canonical_id)
            self.held[p.id] = Held(chunk=chunk, walk=RankedPassage(p.id, p.digest), source_id=p.source,
                                   version=p.version, lines=p.start_line > 0, validity="", supersedes=p.supersedes,
                                   position=p.position, unit=p.unit, text=p.text)
            self.size_of[p.digest] = p.size
            self.ids_of.setdefault(p.digest, []).append(p.id)
            if p.unit:
                self.members.setdefault(p.unit, []).append(p.id)
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
                    self.held[p.id] = replace(self.held[p.id], validity=why)

    def __len__(self) -> int:
        return len(self.held)

    def __contains__(self, pid: str) -> bool:
        return pid in self.held

    def size(self, pid: str) -> int:
        return self.size_of[self.held[pid].walk.text]


def _versions(alive, causes: dict) -> list:
    """Lesson 04 over the candidates: a source with two version labels is settled by its declared
    `supersedes` (resolve_or_abstain), or else held back whole (lesson 01's rule)."""
    versioned = [h for h in alive if h.version]
    conflicts = multi_version_sources(versioned) if len(versioned) > 1 else {}
    for source, labels in conflicts.items():
        members = [h for h in alive if h.source_id == source and h.version]
        by_label: dict[str, list[str]] = {}
        for h in members:
            by_label.setdefault(h.version, []).append(h.chunk.id)
        declared = {h.chunk.id: [old for label in h.supersedes for old in by_label.get(label, [])]
                    for h in members if h.supersedes}
        records = [Record(h.chunk.id, source, h.version, "", h.walk.text) for h in members]
        decision = resolve_or_abstain(records, declared)
        if decision["decision"] == "selected":
            winner = decision["selected_id"]
            label = next(h.version for h in members if h.chunk.id == winner)
            for h in members:
                if h.chunk.id != winner:
                    causes[h.chunk.id] = ("superseded", f"version {h.version} of {source}; {winner} (version "
                                                        f"{label}) declares it supersedes it", winner)
        else:
            cycle = _cycle(members)
            why = (f"{source}'s declarations form a cycle ({cycle}): fix metadata.supersedes" if cycle else
                   f"{source} has versions {', '.join(labels)} among the candidates, none declared to supersede "
                   f"the others")
            for h in (h for h in alive if h.source_id == source):   # the whole source is held back
                causes[h.chunk.id] = ("version_conflict", why, "")
    return [h for h in alive if h.chunk.id not in causes]


def _cycle(members) -> str:
    """A cycle among the versions' declared supersedes ("h1 (1) supersedes h2 (2) supersedes h1"),
    or "" when the declarations form none."""
    replaces = {h.version: [label for label in h.supersedes] for h in members}
    named = {h.version: h.chunk.id for h in members}
    for start in sorted(replaces):
        path, label = [start], start
        while True:
            following = [other for other in replaces.get(label, []) if other in named]
            if not following:
                break
            label = following[0]
            if label in path:
                loop = path[path.index(label):] + [label]
                return " supersedes ".join(f"{named[v]} ({v})" for v in loop)
            path.append(label)
    return ""


def _units(alive) -> tuple:
    """Lesson 11's units: the candidates that declare one metadata.unit travel as one unit (in
    the order of their positions, then ids); every other passage is a unit of its own. A
    position alone orders, nothing more: an ordinary chunk index declares positions for every
    chunk, and its neighbours are not one rule. Units are ordered by their best-ranked member."""
    declared = [h for h in alive if h.unit]
    if not declared:
        return tuple((h,) for h in alive)
    from modules.practice import Candidate, units as practice_units
    rank = {h.chunk.id: i for i, h in enumerate(alive)}
    by_id = {h.chunk.id: h for h in declared}
    # practice.units joins chunks n and n + 1 of one document: number each unit's members in order.
    ordered = sorted(declared, key=lambda h: (h.unit, h.position, h.chunk.id))
    place, count = {}, {}
    for h in ordered:
        place[h.chunk.id] = count[h.unit] = count.get(h.unit, -1) + 1
    candidates = [Candidate(h.chunk.id, 0.0, h.unit, place[h.chunk.id], "-", "-", "-", "", "", 0.0, h.walk.text)
                  for h in ordered]
    units = [tuple(by_id[c.id] for c in unit) for unit in practice_units(candidates, rank)]
    units += [(h,) for h in alive if not h.unit]
    return tuple(sorted(units, key=lambda unit: min(rank[h.chunk.id] for h in unit)))


def select_candidates(top, corpus: Corpus) -> Selection:
    """Run the budget-free steps over the top-k ids (rank order): the units left for the walk,
    and id -> (cause, detail, kept id) for everything removed."""
    causes: dict[str, tuple[str, str, str]] = {}
    alive = []
    for rank, pid in enumerate(top, start=1):
        held = corpus.held.get(pid)
        if held is None:
            causes[pid] = ("not_in_corpus", f"rank {rank}; the corpus has no such _id", "")
        elif held.validity:
            causes[pid] = ("expired", f"{held.validity} (as of {corpus.as_of})", "")
        else:
            alive.append(held)
    alive = _versions(alive, causes)
    declared = [replace(h.chunk, start_line=1, end_line=1) for h in alive if h.chunk.canonical_id]
    if len(declared) > 1:   # a copy is one passage on another site: its lines there say nothing
        dropped = dedupe_canonical(declared).dropped
        for pid, kept in dropped.items():
            causes[pid] = ("canonical_copy", f"a copy of {corpus.held[pid].chunk.canonical_id}; kept {kept}", kept)
        alive = [h for h in alive if h.chunk.id not in dropped]
    duplicates = dedupe_text([h.chunk for h in alive]).duplicate_of
    for pid, kept in duplicates.items():
        causes[pid] = ("duplicate_text", f"the same text as {kept}", kept)
    alive = [h for h in alive if h.chunk.id not in duplicates]
    lined = [replace(h.chunk, score=float(-index)) for index, h in enumerate(alive) if h.lines]
    if len(lined) > 1:      # scores that rank them in the run's order for the lesson's sort
        rejected = select_non_overlapping(lined).rejected
        for pid, reason in rejected.items():
            chunk = corpus.held[pid].chunk
            kept = reason.partition(":")[2]     # the lesson's reason: overlapping_lines_with:<kept id>
            causes[pid] = ("overlap", f"lines {chunk.start_line}-{chunk.end_line} of {chunk.source} overlap "
                                      f"{kept}", kept)
        alive = [h for h in alive if h.chunk.id not in rejected]
    return Selection(_units(alive), causes, tuple(alive))


@dataclass(frozen=True, slots=True)
class Walkable:
    """What a walk walks: one RankedPassage (lesson 02) per unit (its text a key), each key's
    size, and the passages of each unit by its first id. Built once per query and policy,
    walked per budget."""

    chunks: tuple
    sizes: dict
    members: dict
    policy: str


def walkable(selection: Selection, corpus: Corpus, policy: str = "units") -> Walkable:
    """The units to walk: lesson 11's units ("units"), or single passages ("skip" and "stop")."""
    groups = selection.units if policy == "units" else tuple((h,) for h in selection.alive)
    sizes, members, chunks = {}, {}, []
    for unit in groups:
        key = "+".join(h.walk.text for h in unit)
        sizes[key] = sum(corpus.size_of[h.walk.text] for h in unit)
        members[unit[0].chunk.id] = unit
        chunks.append(RankedPassage(unit[0].chunk.id, key) if len(unit) > 1 else unit[0].walk)
    return Walkable(tuple(chunks), sizes, members, policy)


def walk(units: Walkable, budget: int) -> tuple[list[str], int]:
    """The packet's ids in packet order and the room used: lesson 02's walk (fill_budget)."""
    found = fill_budget(units.chunks, budget, units.sizes.__getitem__, "stop" if units.policy == "stop" else "skip")
    return [h.chunk.id for first in found.kept_ids for h in units.members[first]], found.used


def cover(selection: Selection, corpus: Corpus, facets, budget: int) -> list[str]:
    """Lesson 02's coverage-aware choice over the same candidates as the skip walk: the ids
    chosen, in rank order. The facet model reads each candidate's text (held for it)."""
    chunks = [RankedPassage(h.chunk.id, h.text) for h in selection.alive]
    return list(select_for_coverage(chunks, facets, budget, corpus.counter).kept_ids)


def _filled(packet: list[str], limit: int = 4) -> str:
    shown = ", ".join(packet[:limit]) + (f" and {len(packet) - limit} more" if len(packet) > limit else "")
    return f" by {shown}" if packet else ""


def _budget_skip(pid: str, selection: Selection, corpus: Corpus, unit: str, packet, used: int, budget: int) -> str:
    group = next(u for u in selection.units if any(h.chunk.id == pid for h in u))
    size = sum(corpus.size_of[h.walk.text] for h in group)
    together = ""
    if len(group) > 1:
        others = ", ".join(h.chunk.id for h in group if h.chunk.id != pid)
        together = f" with {others} (one declared unit, {group[0].unit})"
    return f"{size} {unit}{together}; {used} of {budget} used{_filled(packet)}"


def audit_query(qid: str, ranking, relevant, corpus: Corpus, k: int, budgets, unit: str, policies=(),
                facets=(), below=None, depth: int | None = None) -> QueryAudit:
    """Recall@k, and per budget the coverage, the packet and a Loss for every needed id not in it.
    With `policies`, the coverage of each policy per budget; "coverage" is None without `facets`."""
    relevant = sorted(relevant)
    retrieved, needed = recall_counts(ranking, relevant, k)
    selection = select_candidates(ranking[:k], corpus)
    wanted = set(relevant)
    position = {pid: rank for rank, pid in enumerate(ranking, start=1) if pid in wanted}
    position.update(below or {})    # judged passages ranked below the top k the caller kept
    depth = len(ranking) if depth is None else depth
    coverage, lost, packets = [], [], []
    units = walkable(selection, corpus)
    for budget in budgets:
        packet, used = walk(units, budget)
        sent = set(packet)
        coverage.append(coverage_counts(sent, relevant)[0])
        packets.append(tuple(packet))
        losses = []
        for pid in relevant:
            if pid in sent:
                continue
            if pid in selection.causes:
                cause, detail, kept = selection.causes[pid]
                if kept:
                    detail += f" ({'in' if kept in sent else 'not in'} the packet)"
                losses.append(Loss(pid, cause, detail, kept, kept in sent))
            elif pid in position and position[pid] <= k:
                losses.append(Loss(pid, "budget_skip", _budget_skip(pid, selection, corpus, unit, packet, used,
                                                                    budget)))
            else:
                where = (f"ranked {position[pid]} of {depth}, beyond k = {k}" if pid in position
                         else "not in the run for this query")
                losses.append(Loss(pid, "not_retrieved", where))
        lost.append(tuple(losses))
    compared = {}
    for policy in policies:
        if policy == "coverage":
            compared[policy] = (tuple(coverage_counts(set(cover(selection, corpus, facets, b)), relevant)[0]
                                      for b in budgets) if facets else None)
            continue
        units = walkable(selection, corpus, policy)
        compared[policy] = tuple(coverage_counts(set(walk(units, b)[0]), relevant)[0] for b in budgets)
    in_corpus = sum(1 for pid in relevant if pid in corpus)
    return QueryAudit(qid, needed, retrieved, in_corpus, tuple(coverage), tuple(lost), tuple(packets), compared)
