"""Lesson 11, practice: the capstone. Eight candidates, one packet, every decision explained.

A question about volunteers' conference travel retrieves eight candidates. Each
one tests a rule from an earlier lesson, applied in the order the layers run:

    freshness  a policy whose validity window ended before the as-of date leaves first
    scope      a passage that reads alike but is about someone else answers nothing
    canonical  a mirror copy of a document already present is the same evidence twice
    conflict   two current sources that state different amounts are settled only by a
               priority rule declared in advance; otherwise both stay and the answer abstains
    units      an exception travels with the conclusion it qualifies (adjacent chunks of
               one document), and a conflict travels whole: all of it or none of it
    budget     whole units, in rank order, under 1,000 lab tokens

Scores are shown because they tempt: similarity ranks the wrong passages high, and
an authority score is not a declared rule.
"""

from __future__ import annotations

from collections import namedtuple

from modules.common.units import lab_tokens

__all__ = [
    "Candidate", "Decision", "Conflict", "Plan", "stated_amounts", "is_current", "canonical_dedupe",
    "settle_conflict", "decision_table", "QUESTION", "AS_OF", "SCOPE", "BUDGET", "CANDIDATES", "RULES",
    "KEEP_REASONS", "DISCARD_REASONS", "trace",
]

KEEP_REASONS = ("evidence", "adjacent", "disputed")
DISCARD_REASONS = ("expired", "not_yet_valid", "off_topic", "mirror", "superseded_by_rule", "budget")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

# The value types are immutable named tuples rather than frozen dataclasses: a
# dataclass builds its methods with exec() on every import, and this command must
# start within 1.3x of a bare interpreter. Build new values with `._replace(...)`.


class Candidate(namedtuple("Candidate", "id similarity document chunk canonical source scope valid_from "
                                        "valid_until authority text")):
    """One retrieved chunk with the metadata the rules need. Candidates come best-ranked first.

    similarity  the retriever's score: why it ranks where it does, not whether it belongs
    document    the document this chunk was cut from; chunk: its position in that document
    canonical   the canonical document it is a copy of (its own document, unless a mirror)
    source      who publishes it; scope: whom and what it is about
    valid_from, valid_until  ISO dates YYYY-MM-DD; "" means open-ended
    authority   a source's reputation score: tempting, never a declared rule
    """

    __slots__ = ()

    def __new__(cls, *fields, **named):
        self = super().__new__(cls, *fields, **named)
        for name in ("id", "document", "canonical", "source", "scope", "valid_from", "valid_until", "text"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"Candidate.{name} must be a str, got {getattr(self, name)!r}")
        for name in ("id", "document", "canonical", "source", "scope", "text"):
            if not getattr(self, name).strip():
                raise ValueError(f"Candidate.{name} must not be empty, got {getattr(self, name)!r}")
        if isinstance(self.chunk, bool) or not isinstance(self.chunk, int):
            raise TypeError(f"Candidate.chunk must be an int, got {type(self.chunk).__name__} {self.chunk!r}")
        for name in ("similarity", "authority"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"Candidate.{name} must be a number, got {type(value).__name__} {value!r}")
        for name in ("valid_from", "valid_until"):
            if getattr(self, name):
                _date(getattr(self, name), f"Candidate.{name}")
        return self


class Decision(namedtuple("Decision", "id decision reason order")):
    """decision: "keep" or "discard"; reason: one of KEEP_REASONS or DISCARD_REASONS;
    order: position in the packet (1 = first), None when discarded."""

    __slots__ = ()


class Conflict(namedtuple("Conflict", "ids amounts state kept rule", defaults=("",))):
    """ids: the candidates that state an amount, rank order; amounts: what each states;
    state: "none" (they agree, or only one states an amount), "unresolved" or "resolved";
    kept: the ids that stay in the packet; rule: the declared rule that settled it, if any."""

    __slots__ = ()


class Plan(namedtuple("Plan", "decisions packet dedupe conflict used_tokens budget")):
    """decisions: one Decision per candidate, rank order; packet: kept ids in packet order;
    dedupe: mirror id -> the canonical document it copies; conflict: a Conflict;
    used_tokens / budget: lab tokens."""

    __slots__ = ()


def _date(text: str, name: str) -> str:
    """Check an ISO date YYYY-MM-DD and return it: such strings compare in date order.

    Checked by hand rather than with datetime, which would cost every run of the
    command an import, and whose accepted forms differ between Python 3.10 and 3.11.
    """
    parts = text.split("-") if isinstance(text, str) else ()
    if [len(p) for p in parts] == [4, 2, 2] and all(p.isascii() and p.isdigit() for p in parts):
        year, month, day = (int(p) for p in parts)
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        if 1 <= month <= 12 and 1 <= day <= _DAYS[month - 1] + (month == 2 and leap):
            return text
    raise ValueError(f"{name} must be an ISO date YYYY-MM-DD, got {text!r}")


def _candidates(candidates) -> tuple[Candidate, ...]:
    if isinstance(candidates, (str, bytes)) or not hasattr(candidates, "__iter__"):
        raise TypeError(f"candidates must be a sequence of Candidate, got {type(candidates).__name__}")
    found = tuple(candidates)
    seen = set()
    for index, candidate in enumerate(found):
        if not isinstance(candidate, Candidate):
            raise TypeError(f"candidates[{index}] must be a Candidate, got {type(candidate).__name__} {candidate!r}")
        if candidate.id in seen:
            raise ValueError(f"candidates: id {candidate.id!r} appears twice")
        seen.add(candidate.id)
    return found


def stated_amounts(text: str) -> tuple[int, ...]:
    """Every 'N euros' in a text, as integers, in order."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {text!r}")
    words = text.split()
    return tuple(int(n) for n, unit in zip(words, words[1:]) if n.isascii() and n.isdigit() and unit.startswith("euros"))


# ---------------------------------------------------------------- the layers

def is_current(candidate: Candidate, as_of: str) -> bool:
    """Inside its validity window on the as-of date; both ends inclusive, "" is open.

    The dates are checked ISO strings (Candidate checks its own), so string order is date order.
    """
    if not isinstance(candidate, Candidate):
        raise TypeError(f"candidate must be a Candidate, got {type(candidate).__name__} {candidate!r}")
    day = _date(as_of, "as_of")
    if candidate.valid_from and candidate.valid_from > day:
        return False
    return not (candidate.valid_until and candidate.valid_until < day)


def canonical_dedupe(candidates) -> dict[str, str]:
    """Mirror copies to drop: id -> the canonical document they copy.

    A mirror is a chunk whose document is not its canonical document. When the
    canonical document itself is among the candidates, every mirror of it goes.
    When only mirrors are present, the best-ranked mirror document stays.
    Chunks of the kept document are never deduplicated against each other:
    adjacent chunks are different evidence, not copies.
    """
    clusters: dict[str, list[Candidate]] = {}
    for candidate in _candidates(candidates):
        clusters.setdefault(candidate.canonical, []).append(candidate)
    dropped = {}
    for canonical, members in clusters.items():
        documents = {c.document for c in members}
        keep = canonical if canonical in documents else members[0].document
        for candidate in members:
            if candidate.document != keep:
                dropped[candidate.id] = canonical
    return dropped


def _rules(rules) -> tuple[tuple[str, str], ...]:
    if isinstance(rules, (str, bytes)) or not hasattr(rules, "__iter__"):
        raise TypeError(f"rules must be a sequence of (winner_source, loser_source) pairs, got {rules!r}")
    found = tuple(rules)
    for rule in found:
        if not (isinstance(rule, tuple) and len(rule) == 2 and all(isinstance(s, str) and s for s in rule)):
            raise ValueError(f"rules: each rule must be a (winner_source, loser_source) pair of str, got {rule!r}")
    return found


def settle_conflict(members, rules=()) -> Conflict:
    """Compare the amounts stated by `members`; settle only by a declared rule.

    A rule (winner, loser) says, before any query, that source `winner` takes
    priority over source `loser`. A conflict is resolved when one member's
    source has a rule over every member stating another amount; then only the
    members of that source stay. Otherwise every member stays, unresolved.
    Scores (similarity, authority) are never consulted.
    """
    members = tuple(c for c in _candidates(members) if stated_amounts(c.text))
    rules = _rules(rules)
    amounts = tuple(stated_amounts(c.text)[0] for c in members)
    ids = tuple(c.id for c in members)
    if len(set(amounts)) <= 1:
        return Conflict(ids, amounts, "none", ids)
    declared = set(rules)
    for winner, stated in zip(members, amounts):
        others = [c for c, amount in zip(members, amounts) if amount != stated]
        if all((winner.source, c.source) in declared for c in others):
            kept = tuple(c.id for c in members if c.source == winner.source)
            return Conflict(ids, amounts, "resolved", kept, f"{winner.source} over "
                            + ", ".join(sorted({c.source for c in others})))
    return Conflict(ids, amounts, "unresolved", ids)


def decision_table(candidates, as_of: str, scope: str, budget: int, rules=()) -> Plan:
    """Run every layer in order and record one decision, with its reason, per candidate."""
    candidates = _candidates(candidates)
    if not isinstance(scope, str) or not scope.strip():
        raise ValueError(f"scope must be a non-empty str, got {scope!r}")
    if isinstance(budget, bool) or not isinstance(budget, int):
        raise TypeError(f"budget must be an int of lab tokens, got {type(budget).__name__} {budget!r}")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    reason: dict[str, str] = {}
    day = _date(as_of, "as_of")
    for c in candidates:
        if not is_current(c, as_of):
            reason[c.id] = "expired" if c.valid_until and c.valid_until < day else "not_yet_valid"
        elif c.scope != scope:
            reason[c.id] = "off_topic"
    alive = [c for c in candidates if c.id not in reason]
    dedupe = canonical_dedupe(alive)
    reason.update({pid: "mirror" for pid in dedupe})
    alive = [c for c in alive if c.id not in reason]
    conflict = settle_conflict(alive, rules)
    for pid in conflict.ids:
        if pid not in conflict.kept:
            reason[pid] = "superseded_by_rule"
    alive = [c for c in alive if c.id not in reason]

    # Units: runs of adjacent chunks of one document; an unresolved conflict as one unit.
    rank = {c.id: i for i, c in enumerate(candidates)}
    disputed = set(conflict.ids) if conflict.state == "unresolved" else set()
    units: list[list[Candidate]] = []
    last_in_document: dict[str, list[Candidate]] = {}
    for c in sorted((c for c in alive if c.id not in disputed), key=lambda c: (c.document, c.chunk, rank[c.id])):
        unit = last_in_document.get(c.document)
        if unit is not None and c.chunk == unit[-1].chunk + 1:
            unit.append(c)
            reason[c.id] = "adjacent"
        else:
            last_in_document[c.document] = unit = [c]
            units.append(unit)
            reason[c.id] = "evidence"
        last_in_document[c.document] = unit
    if disputed:
        group = [c for c in alive if c.id in disputed]
        units.append(group)
        reason.update({c.id: "disputed" for c in group})
    units.sort(key=lambda unit: min(rank[c.id] for c in unit))

    packet, used = [], 0
    for unit in units:
        size = sum(lab_tokens(c.text) for c in unit)
        if used + size <= budget:
            packet.extend(c.id for c in unit)
            used += size
        else:
            reason.update({c.id: "budget" for c in unit})
    order = {pid: i for i, pid in enumerate(packet, start=1)}
    decisions = tuple(Decision(c.id, "keep" if c.id in order else "discard", reason[c.id], order.get(c.id))
                      for c in candidates)
    return Plan(decisions, tuple(packet), dedupe, conflict, used, budget)


# ---------------------------------------------------------------- the fixture

QUESTION = "How much can a volunteer claim for travel to a conference, and on what conditions?"
AS_OF = "2026-06-01"
SCOPE = "volunteer conference travel"
BUDGET = 1000
RULES: tuple = ()   # no priority between sources has been declared

_A1 = ("Conclusion: volunteers who travel to a conference on behalf of the library are reimbursed for "
       "their train or bus fare and one night of lodging, up to the amount set in the current allowance "
       "table. Claims go to the volunteer coordinator within thirty days, with the original receipts.")
_A2 = ("Exception to the conclusion above: travel booked before the coordinator has approved the trip "
       "in writing is not reimbursed at all, unless the coordinator confirms afterwards that the "
       "booking could not wait.")

CANDIDATES = (
    Candidate("A1", 0.92, "travel-policy", 3, "travel-policy", "volunteer-office", SCOPE, "2026-01-01", "",
              0.8, _A1),
    Candidate("E1", 0.91, "staff-travel-policy", 3, "staff-travel-policy", "staff-office",
              "staff conference travel", "2026-01-01", "", 0.8,
              "Conclusion: staff who travel to a conference on behalf of the library are reimbursed for their "
              "train or bus fare and two nights of lodging, up to 800 euros per trip. Claims go to the "
              "finance office within sixty days."),
    Candidate("B1", 0.90, "intranet-mirror/travel-policy", 1, "travel-policy", "intranet-mirror", SCOPE,
              "2026-01-01", "", 0.5, "[Mirror of travel-policy, copied 2026-03-02] " + _A1 + " " + _A2),
    Candidate("C1", 0.88, "travel-policy-2025", 2, "travel-policy-2025", "volunteer-office", SCOPE,
              "2025-01-01", "2025-12-31", 0.8,
              "Volunteers are reimbursed up to 300 euros per conference trip, lodging included; no prior "
              "approval is needed."),
    Candidate("D2", 0.85, "finance-faq", 12, "finance-faq", "finance-faq", SCOPE, "2026-01-01", "", 0.6,
              "FAQ: how much can a volunteer claim for a conference trip? The allowance is 600 euros per "
              "trip, lodging included."),
    Candidate("D1", 0.83, "allowance-table-2026", 1, "allowance-table-2026", "finance-office", SCOPE,
              "2026-01-01", "", 0.9,
              "Allowance table 2026: the conference travel allowance for volunteers is 500 euros per trip, "
              "lodging included."),
    Candidate("F1", 0.79, "volunteer-handbook", 7, "volunteer-handbook", "volunteer-office", SCOPE,
              "2026-01-01", "", 0.7,
              "Volunteer handbook, section 7: when the library sends a volunteer to a conference, the library "
              "pays the travel back, as the travel policy describes."),
    Candidate("A2", 0.64, "travel-policy", 4, "travel-policy", "volunteer-office", SCOPE, "2026-01-01", "",
              0.8, _A2),
)

CAPSTONE_QUESTIONS = (
    "What happens to the answer if A2 is dropped?",
    "If C1 ranks first after reranking, which layer failed first?",
    "Can D1/D2 be settled by the higher authority score, and which prior rule would be required?",
)

# A rule someone could declare in advance (content review, not the query, decides it).
EXAMPLE_RULE = (("finance-office", "finance-faq"),)


# ---------------------------------------------------------------- the trace

def _plan_record(plan: Plan, candidates) -> dict:
    tokens = {c.id: lab_tokens(c.text) for c in candidates}
    running, rows = {}, []
    total = 0
    for pid in plan.packet:
        total += tokens[pid]
        running[pid] = total
    for rank, d in enumerate(plan.decisions, start=1):
        rows.append({"rank": rank, "id": d.id, "decision": d.decision, "reason": d.reason, "order": d.order,
                     "tokens": tokens[d.id], "running_total": running.get(d.id)})
    clusters: dict[str, dict] = {}
    deduped = set(plan.dedupe.values())
    for c in candidates:
        if c.canonical in deduped:
            entry = clusters.setdefault(c.canonical, {"kept": [], "dropped": []})
            entry["dropped" if c.id in plan.dedupe else "kept"].append(c.id)
    cf = plan.conflict
    return {
        "decisions": rows,
        "selection_order": list(plan.packet),
        "dedupe": {"dropped": dict(sorted(plan.dedupe.items())), "clusters": clusters},
        "conflict": {"ids": list(cf.ids), "amounts": list(cf.amounts), "state": cf.state, "kept": list(cf.kept),
                     "rule": cf.rule},
        "packet": list(plan.packet),
        "used_tokens": plan.used_tokens,
        "budget": plan.budget,
    }


def trace(solution: bool = False) -> dict:
    """The scenario; with solution=True also the reference decision table."""
    if not isinstance(solution, bool):
        raise TypeError(f"solution must be a bool, got {type(solution).__name__} {solution!r}")
    record = {
        "lesson": "practice",
        "question": QUESTION,
        "as_of": AS_OF,
        "scope": SCOPE,
        "budget": BUDGET,
        "unit": "lab tokens (modules/common/units.py): whitespace pieces, each ceil(len / 5)",
        "declared_rules": [list(r) for r in RULES],
        "candidates": [{"rank": rank, "id": c.id, "similarity": c.similarity, "document": c.document,
                        "chunk": c.chunk, "canonical": c.canonical, "source": c.source, "scope": c.scope,
                        "valid_from": c.valid_from, "valid_until": c.valid_until, "authority": c.authority,
                        "tokens": lab_tokens(c.text), "text": c.text}
                       for rank, c in enumerate(CANDIDATES, start=1)],
        "questions": list(CAPSTONE_QUESTIONS),
    }
    if solution:
        plan = decision_table(CANDIDATES, AS_OF, SCOPE, BUDGET, RULES)
        with_rule = decision_table(CANDIDATES, AS_OF, SCOPE, BUDGET, EXAMPLE_RULE)
        record["reference"] = _plan_record(plan, CANDIDATES)
        record["reference"]["budget_only"] = {
            "packet": [c.id for c in CANDIDATES],
            "tokens": sum(lab_tokens(c.text) for c in CANDIDATES)}
        record["reference"]["with_declared_rule"] = {
            "rule": [list(r) for r in EXAMPLE_RULE], "conflict_state": with_rule.conflict.state,
            "packet": list(with_rule.packet),
            "discarded": {d.id: d.reason for d in with_rule.decisions if d.decision == "discard"}}
        record["reference"]["answers"] = [
            "The answer keeps A1's conclusion without its exception: it tells a volunteer who booked before "
            "approval that the trip is reimbursed. Every citation still checks out, so nothing flags it.",
            "Freshness, before ranking: C1 expired on 2025-12-31 and the validity filter should have removed it "
            "before any reranker saw it. Tuning the reranker would treat the symptom.",
            "No. Authority 0.9 against 0.6 is a score, not a priority. Only a rule declared in advance (for "
            "example: the finance office's allowance table takes priority over the finance FAQ, or a supersedes "
            "link) may settle it; without one, both stay, the answer gives no single amount, and the sources go "
            "to content review.",
        ]
    return record


def view(record: dict) -> list[dict]:
    blocks = [
        {"heading": "Lesson 11 - practice: the capstone"},
        {"text": f"Question: {record['question']}\nAs of {record['as_of']}; the question's scope: "
                 f"{record['scope']}; evidence budget: {record['budget']:,} {record['unit']}. Declared priority "
                 f"rules between sources: {', '.join(' over '.join(r) for r in record['declared_rules']) or 'none'}."},
        {"table": {"title": "Eight candidates, as the retriever ranked them",
                   "columns": ["rank", "id", "similarity", "authority", "tokens", "source", "valid from", "valid until"],
                   "rows": [[c["rank"], c["id"], c["similarity"], c["authority"], c["tokens"], c["source"],
                             c["valid_from"] or "open", c["valid_until"] or "open"] for c in record["candidates"]]}},
        {"table": {"title": "Where each one comes from",
                   "columns": ["id", "document#chunk", "canonical document", "scope"],
                   "rows": [[c["id"], f"{c['document']}#{c['chunk']}", c["canonical"], c["scope"]]
                            for c in record["candidates"]]}},
        {"text": "\n".join(f"{c['id']}: {c['text']}" for c in record["candidates"])},
        {"text": "Your exercise (exercises/practice.py): produce the decision table - selection order, a reason "
                 "for every discarded candidate, the canonical dedupe, the conflict state and the final packet - "
                 "then answer:\n" + "\n".join(f"{i}. {q}" for i, q in enumerate(record["questions"], start=1))},
    ]
    ref = record.get("reference")
    if ref is None:
        blocks.append({"text": "Run with --solution to print the reference decision table."})
        return blocks
    cf = ref["conflict"]
    blocks += [
        {"heading": "Reference decision table (--solution)"},
        {"table": {"title": f"One decision per candidate, rank order (packet uses {ref['used_tokens']} of "
                            f"{ref['budget']:,} lab tokens)",
                   "columns": ["rank", "id", "decision", "reason", "packet order", "tokens", "running total"],
                   "rows": [[d["rank"], d["id"], d["decision"], d["reason"], d["order"], d["tokens"],
                             d["running_total"]] for d in ref["decisions"]]}},
        {"text": "Canonical dedupe: " + "; ".join(
            f"{canonical}: kept {', '.join(e['kept'])}, dropped {', '.join(e['dropped'])}"
            for canonical, e in ref["dedupe"]["clusters"].items())
            + ". Chunks of one document are not copies of each other; a mirror of the document is."},
        {"text": f"Conflict: {', '.join(f'{i} states {a} euros' for i, a in zip(cf['ids'], cf['amounts']))}; "
                 f"state {cf['state']}, kept {', '.join(cf['kept'])}. No declared rule: both stay as disputed "
                 f"evidence, the answer gives no single amount, and the sources go to content review."},
        {"text": f"Selection order and final packet: {', '.join(ref['selection_order'])}. A2 ranked last by "
                 f"similarity but enters right after A1: an exception travels with its conclusion."},
        {"text": f"For contrast: a budget-only selector keeps all eight ({ref['budget_only']['tokens']} lab "
                 f"tokens fit in {ref['budget']:,}): the budget is not a freshness, scope, copy or conflict check."},
        {"text": f"With a rule declared in advance ({' over '.join(ref['with_declared_rule']['rule'][0])}): "
                 f"conflict {ref['with_declared_rule']['conflict_state']}, packet "
                 f"{', '.join(ref['with_declared_rule']['packet'])}, discarded "
                 + ", ".join(f"{k} ({v})" for k, v in ref["with_declared_rule"]["discarded"].items()) + "."},
    ]
    blocks += [{"text": f"{i}. {q} {a}"} for i, (q, a) in enumerate(zip(record["questions"], ref["answers"]), start=1)]
    return blocks
