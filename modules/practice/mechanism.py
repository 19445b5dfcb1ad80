"""Lesson 11, practice: the capstone. Eight candidates, one packet, every decision explained.

A question about volunteers' conference travel retrieves eight candidates. Each
one tests a rule from an earlier lesson, applied in the order the layers run, and
each rule is the earlier lesson's own mechanism, imported rather than rewritten:

    freshness  a policy whose validity window ended before the as-of date leaves first
               (lesson 04's one validity check)
    scope      a passage that reads alike but is about someone else answers nothing
    canonical  a mirror copy of a passage already present is the same evidence twice
               (lesson 03's canonical dedupe: one copy of each passage, every passage kept)
    conflict   two current sources that state different amounts are settled only by a
               priority rule declared in advance; otherwise both stay and the answer
               abstains. Amounts are read by lesson 04's reader; one it cannot read
               sends the pair to review and never counts as agreement
    units      an exception travels with the conclusion it qualifies (adjacent chunks of
               one document), and a conflict travels whole: all of it or none of it
    budget     whole units, in rank order, under 1,000 lab tokens; a unit that does not
               fit is skipped and the walk goes on

Scores are shown because they tempt: similarity ranks the wrong passages high, and
an authority score is not a declared rule. The trace is in modules/practice/trace.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.common.checks import sequence_of, short, whole_number
from modules.common.units import lab_tokens
from modules.dedupe import RetrievedChunk, dedupe_canonical
from modules.versions import Amount, check_day, check_window, in_window, stated_amounts


__all__ = [
    "Candidate", "Decision", "Conflict", "Plan", "Amount", "stated_amounts", "is_current", "as_chunk",
    "canonical_dedupe", "settle_conflict", "units", "decision_table", "QUESTION", "AS_OF", "SCOPE", "BUDGET",
    "TIGHT_BUDGET", "CANDIDATES", "RULES", "KEEP_REASONS", "DISCARD_REASONS", "CONFLICT_STATES",
]

KEEP_REASONS = ("evidence", "adjacent", "disputed")
DISCARD_REASONS = ("expired", "not_yet_valid", "off_topic", "copy", "superseded_by_rule", "budget")
CONFLICT_STATES = ("none", "resolved", "unresolved", "unreadable")

# The records are frozen dataclasses, checked in __post_init__; build a changed copy
# with dataclasses.replace(value, ...), which is checked like a new value.


@dataclass(frozen=True)
class Candidate:
    """One retrieved chunk with the metadata the rules need. Candidates come best-ranked first.

    similarity  the retriever's score: why it ranks where it does, not whether it belongs
    document    the document this chunk was cut from (a mirror is a document of its own)
    chunk       the passage's place in its canonical document, the same in every copy
    canonical   the canonical document it reproduces (its own document, unless a copy)
    source      who publishes it; scope: whom and what it is about
    valid_from, valid_until  ISO dates YYYY-MM-DD; "" means open-ended (lesson 04's check)
    authority   a source's reputation score: tempting, never a declared rule
    """

    id: str
    similarity: float
    document: str
    chunk: int
    canonical: str
    source: str
    scope: str
    valid_from: str
    valid_until: str
    authority: float
    text: str

    def __post_init__(self) -> None:
        for name in ("id", "document", "canonical", "source", "scope", "valid_from", "valid_until", "text"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"Candidate.{name} must be a str, got {short(getattr(self, name))}")
        for name in ("id", "document", "canonical", "source", "scope", "text"):
            if not getattr(self, name).strip():
                raise ValueError(f"Candidate.{name} must not be empty, got {getattr(self, name)!r}")
        whole_number(self.chunk, "Candidate.chunk")
        for name in ("similarity", "authority"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                raise TypeError(f"Candidate.{name} must be a number, got {type(value).__name__} {short(value)}")
        check_window(self.valid_from or None, self.valid_until or None, "Candidate")


@dataclass(frozen=True)
class Decision:
    """decision: "keep" or "discard"; reason: one of KEEP_REASONS or DISCARD_REASONS;
    order: position in the packet (1 = first), None when discarded."""

    id: str
    decision: str
    reason: str
    order: int | None


@dataclass(frozen=True)
class Conflict:
    """ids: the candidates that state an amount, rank order; amounts: the first Amount each
    states (lesson 04's reader; value None when unreadable); state: one of CONFLICT_STATES;
    kept: the ids that stay in the packet; rule: the declared rule that settled it, if any."""

    ids: tuple[str, ...]
    amounts: tuple[Amount, ...]
    state: str
    kept: tuple[str, ...]
    rule: str = ""


@dataclass(frozen=True)
class Plan:
    """decisions: one Decision per candidate, rank order; packet: kept ids in packet order;
    dedupe: dropped copy id -> id of the copy kept (lesson 03); conflict: a Conflict;
    used_tokens / budget: lab tokens."""

    decisions: tuple[Decision, ...]
    packet: tuple[str, ...]
    dedupe: dict[str, str]
    conflict: Conflict
    used_tokens: int
    budget: int


def _candidates(candidates) -> tuple[Candidate, ...]:
    found = sequence_of(candidates, Candidate, "candidates")
    seen = set()
    for candidate in found:
        if candidate.id in seen:
            raise ValueError(f"candidates: id {candidate.id!r} appears twice")
        seen.add(candidate.id)
    return found


# ---------------------------------------------------------------- the layers

def is_current(candidate: Candidate, as_of: str) -> bool:
    """Inside its validity window on the as-of date; both ends inclusive, "" is open."""
    if not isinstance(candidate, Candidate):
        raise TypeError(f"candidate must be a Candidate, got {type(candidate).__name__} {short(candidate)}")
    return in_window(check_day(as_of, "as_of"), candidate.valid_from or None, candidate.valid_until or None)


def as_chunk(candidate: Candidate):
    """The candidate as lesson 03 sees a copy (a modules.dedupe.RetrievedChunk): its document
    is where it lives, `canonical` the document it reproduces, primary when those are the
    same, and `chunk` its anchor."""
    if not isinstance(candidate, Candidate):
        raise TypeError(f"candidate must be a Candidate, got {type(candidate).__name__} {short(candidate)}")
    copy = "primary" if candidate.document == candidate.canonical else "mirror"
    return RetrievedChunk(id=candidate.id, source=candidate.document, text=candidate.text, score=candidate.similarity,
                          canonical_id=candidate.canonical, copy=copy, anchor=f"#{candidate.chunk}")


def canonical_dedupe(candidates) -> dict[str, str]:
    """Copies to drop: id -> the id of the copy kept instead, by lesson 03's dedupe_canonical.

    One copy of each passage stays (the original when present, else the best-ranked
    copy); distinct passages of one document all stay: A2 is not a copy of A1.
    """
    return dict(dedupe_canonical([as_chunk(c) for c in _candidates(candidates)]).dropped)


def _rules(rules) -> tuple[tuple[str, str], ...]:
    if not isinstance(rules, (tuple, list)):
        raise TypeError(f"rules must be a tuple or list of (winner_source, loser_source) pairs, got {short(rules)}")
    found = tuple(rules)
    for rule in found:
        if not (isinstance(rule, tuple) and len(rule) == 2 and all(isinstance(s, str) and s.strip() for s in rule)):
            raise ValueError(f"rules: each rule must be a (winner_source, loser_source) pair of str, got {short(rule)}")
    return found


def settle_conflict(members, rules=()) -> Conflict:
    """Compare the amounts stated by `members`; settle only by a declared rule.

    Lesson 04's order: first every amount must be read (one that cannot be read makes
    the state "unreadable": all stay, and the pair goes to review). Amounts agree when
    value and unit are equal. A rule (winner, loser) says, before any query, that
    source `winner` takes priority over source `loser`; a conflict is resolved when
    one member's source has a rule over every member stating another amount, and then
    only that source's members stay. Otherwise every member stays, unresolved. Scores
    (similarity, authority) are never consulted.
    """
    stated = [(c, stated_amounts(c.text)) for c in _candidates(members)]
    rules = _rules(rules)
    members = tuple(c for c, amounts in stated if amounts)
    amounts = tuple(found[0] for _, found in stated if found)
    ids = tuple(c.id for c in members)
    if len(members) > 1 and any(a.value is None for a in amounts):
        return Conflict(ids=ids, amounts=amounts, state="unreadable", kept=ids)
    said = [(a.value, a.unit) for a in amounts]
    if len(set(said)) <= 1:
        return Conflict(ids=ids, amounts=amounts, state="none", kept=ids)
    declared = set(rules)
    for winner, mine in zip(members, said):
        others = [c for c, theirs in zip(members, said) if theirs != mine]
        if all((winner.source, c.source) in declared for c in others):
            kept = tuple(c.id for c in members if c.source == winner.source)
            return Conflict(ids=ids, amounts=amounts, state="resolved", kept=kept,
                            rule=f"{winner.source} over " + ", ".join(sorted({c.source for c in others})))
    return Conflict(ids=ids, amounts=amounts, state="unresolved", kept=ids)


def units(alive, rank: dict, disputed=frozenset(), reason: dict | None = None) -> list:
    """Runs of adjacent chunks of one document, and a disputed conflict as one unit, ordered
    by their best-ranked member. `alive` holds Candidates, `rank` maps each id to its place in
    the ranking, `disputed` names the ids of a conflict left open; `reason`, when given, is
    filled with why each candidate is kept ("evidence", "adjacent" or "disputed")."""
    reason = {} if reason is None else reason
    found: list[list[Candidate]] = []
    last_in_document: dict[str, list[Candidate]] = {}
    for c in sorted((c for c in alive if c.id not in disputed), key=lambda c: (c.document, c.chunk, rank[c.id])):
        unit = last_in_document.get(c.document)
        if unit is not None and c.chunk == unit[-1].chunk + 1:
            unit.append(c)
            reason[c.id] = "adjacent"
        else:
            last_in_document[c.document] = unit = [c]
            found.append(unit)
            reason[c.id] = "evidence"
    if disputed:
        group = [c for c in alive if c.id in disputed]
        found.append(group)
        reason.update({c.id: "disputed" for c in group})
    return sorted(found, key=lambda unit: min(rank[c.id] for c in unit))


def _layers(candidates, as_of: str, scope: str, rules) -> tuple:
    """Freshness, scope, canonical copies and conflict, in that order: the reason of every
    candidate removed so far, lesson 03's dedupe, the conflict, and the survivors as units."""
    if not isinstance(scope, str) or not scope.strip():
        raise ValueError(f"scope must be a non-empty str, got {short(scope)}")
    reason: dict[str, str] = {}
    day = check_day(as_of, "as_of")
    for c in candidates:
        if not is_current(c, day):
            reason[c.id] = "expired" if c.valid_until and c.valid_until < day else "not_yet_valid"
        elif c.scope != scope:
            reason[c.id] = "off_topic"
    alive = [c for c in candidates if c.id not in reason]
    dedupe = canonical_dedupe(alive)
    reason.update({pid: "copy" for pid in dedupe})
    alive = [c for c in alive if c.id not in reason]
    conflict = settle_conflict(alive, rules)
    for pid in conflict.ids:
        if pid not in conflict.kept:
            reason[pid] = "superseded_by_rule"
    alive = [c for c in alive if c.id not in reason]
    rank = {c.id: i for i, c in enumerate(candidates)}
    disputed = set(conflict.ids) if conflict.state in ("unresolved", "unreadable") else set()
    return reason, dedupe, conflict, units(alive, rank, disputed, reason)


def decision_table(candidates, as_of: str, scope: str, budget: int, rules=()) -> Plan:
    """Run every layer in order and record one decision, with its reason, per candidate."""
    candidates = _candidates(candidates)
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise TypeError(f"budget must be an int of lab tokens, got {type(budget).__name__} {short(budget)}")
    whole_number(budget, "budget")
    reason, dedupe, conflict, units = _layers(candidates, as_of, scope, rules)
    packet, used = [], 0
    for unit in units:
        size = sum(lab_tokens(c.text) for c in unit)
        if used + size <= budget:
            packet.extend(c.id for c in unit)
            used += size
        else:
            reason.update({c.id: "budget" for c in unit})
    order = {pid: i for i, pid in enumerate(packet, start=1)}
    decisions = tuple(Decision(id=c.id, decision="keep" if c.id in order else "discard", reason=reason[c.id],
                               order=order.get(c.id)) for c in candidates)
    return Plan(decisions=decisions, packet=tuple(packet), dedupe=dedupe, conflict=conflict, used_tokens=used,
                budget=budget)


# ---------------------------------------------------------------- the fixture

QUESTION = "How much can a volunteer claim for travel to a conference, and on what conditions?"
AS_OF = "2026-06-01"
SCOPE = "volunteer conference travel"
BUDGET = 1000
TIGHT_BUDGET = 160  # the second run: a budget that binds
RULES: tuple = ()   # no priority between sources has been declared

_A1 = ("Conclusion: volunteers who travel to a conference on behalf of the library are reimbursed for "
       "their train or bus fare and one night of lodging, up to the amount set in the current allowance "
       "table. Claims go to the volunteer coordinator within thirty days, with the original receipts.")
_A2 = ("Exception to the conclusion above: travel booked before the coordinator has approved the trip "
       "in writing is not reimbursed at all, unless the coordinator confirms afterwards that the "
       "booking could not wait.")

CANDIDATES = (
    Candidate(id="A1", similarity=0.92, authority=0.8, document="travel-policy",
              chunk=3, canonical="travel-policy", source="volunteer-office",
              scope=SCOPE, valid_from="2026-01-01", valid_until="",
              text=_A1),
    Candidate(id="E1", similarity=0.91, authority=0.8, document="staff-travel-policy",
              chunk=3, canonical="staff-travel-policy", source="staff-office",
              scope="staff conference travel", valid_from="2026-01-01", valid_until="",
              text="Conclusion: staff who travel to a conference on behalf of the library are reimbursed for their "
                   "train or bus fare and two nights of lodging, up to 800 euros per trip. Claims go to the "
                   "finance office within sixty days."),
    Candidate(id="B1", similarity=0.90, authority=0.5, document="intranet-mirror/travel-policy",
              chunk=3, canonical="travel-policy", source="intranet-mirror",
              scope=SCOPE, valid_from="2026-01-01", valid_until="",
              text="[Mirror of travel-policy, copied 2026-03-02] " + _A1),
    Candidate(id="C1", similarity=0.88, authority=0.8, document="travel-policy-2025",
              chunk=2, canonical="travel-policy-2025", source="volunteer-office",
              scope=SCOPE, valid_from="2025-01-01", valid_until="2025-12-31",
              text="Volunteers are reimbursed up to 300 euros per conference trip, lodging included; no prior "
                   "approval is needed."),
    Candidate(id="D2", similarity=0.85, authority=0.6, document="finance-faq",
              chunk=12, canonical="finance-faq", source="finance-faq",
              scope=SCOPE, valid_from="2026-01-01", valid_until="",
              text="FAQ: how much can a volunteer claim for a conference trip? The allowance is 600 euros per "
                   "trip, lodging included."),
    Candidate(id="D1", similarity=0.83, authority=0.9, document="allowance-table-2026",
              chunk=1, canonical="allowance-table-2026", source="finance-office",
              scope=SCOPE, valid_from="2026-01-01", valid_until="",
              text="Allowance table 2026: the conference travel allowance for volunteers is 500 euros per trip, "
                   "lodging included."),
    Candidate(id="F1", similarity=0.79, authority=0.7, document="volunteer-handbook",
              chunk=7, canonical="volunteer-handbook", source="volunteer-office",
              scope=SCOPE, valid_from="2026-01-01", valid_until="",
              text="Volunteer handbook, section 7: the coordinator signs a trip form for every conference a "
                   "volunteer attends for the library, and keeps a copy with the volunteer's record."),
    Candidate(id="A2", similarity=0.64, authority=0.8, document="travel-policy",
              chunk=4, canonical="travel-policy", source="volunteer-office",
              scope=SCOPE, valid_from="2026-01-01", valid_until="",
              text=_A2),
)

CAPSTONE_QUESTIONS = (
    "What happens to the answer if A2 is dropped?",
    "If C1 ranks first after reranking, which layer failed first?",
    "Can D1/D2 be settled by the higher authority score, and which prior rule would be required?",
)

# A rule someone could declare in advance (content review, not the query, decides it).
EXAMPLE_RULE = (("finance-office", "finance-faq"),)

# How else a source might write D2's amount: the conflict check must read each one or say it cannot.
D2_SPELLINGS = ("600 euros", "1,600 euros", "600 EUR", "EUR 600", "€600", "600 euro", "six hundred euros",
                "\u0666\u0660\u0660 euros", "500 euros")
