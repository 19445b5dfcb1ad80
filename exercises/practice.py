# TODO: fill in each answer, then run: python3 -B methods.py check practice
"""Lesson 11 exercises, the capstone: produce the decision table, then explain it.

Task 1  is_current       the validity window against an explicit as-of date
Task 2  canonical_dedupe  apply lesson 03's canonical dedupe: drop copies of a passage, never a passage
Task 3  settle_conflict   amounts that disagree: settle by a declared rule, or keep both
Task 4  decision_table    every layer in order: one decision and one reason per candidate
Task 5  A2_QUIZ           what happens to the answer if A2 is dropped
Task 6  C1_QUIZ           if C1 ranks first after reranking, which layer failed first
Task 7  D_QUIZ            can D1/D2 be settled by authority, and what rule would be needed

See the scenario:  python3 -B methods.py practice
Check your work:   python3 -B methods.py check practice
Stuck?             python3 -B methods.py hint practice
"""

from datetime import date

from modules.common.units import lab_tokens
from modules.dedupe import RetrievedChunk, dedupe_canonical
from modules.practice import Amount, Candidate, Conflict, Decision, Plan, stated_amounts


def is_current(candidate: Candidate, as_of: str) -> bool:
    """Task 1. Is `candidate` valid on the date `as_of` ("YYYY-MM-DD")?

    Valid means valid_from <= as_of <= valid_until, both ends included. An
    empty string for either end means that side is open. Compare dates, not
    today's clock: the as-of date is an explicit input, so a replay next year
    gives the same answer.
    """
    raise NotImplementedError("is_current: write your answer here, then run: python3 -B methods.py check practice")


def canonical_dedupe(candidates) -> dict:
    """Task 2. Apply lesson 03's canonical dedupe; return {dropped id: id of the copy kept}.

    Do not write a new rule: lesson 03's `dedupe_canonical` (imported above) keeps one
    copy of each passage and every distinct passage of a document. Describe each
    candidate, in rank order, as a lesson 03 `RetrievedChunk`: its id, its `document` as the
    source, its text and similarity; `canonical` as the canonical_id; the copy kind
    "primary" when the candidate's document is its canonical document and "mirror"
    otherwise; and an anchor that names the passage's place in the canonical document,
    f"#{chunk}" (the same in every copy). Return the `dropped` dict of the result.
    """
    raise NotImplementedError("canonical_dedupe: write your answer here, then run: python3 -B methods.py check practice")


def settle_conflict(members, rules=()) -> Conflict:
    """Task 3. Compare the amounts the members state; settle only by a declared rule.

    Read amounts with lesson 04's reader, `stated_amounts(text)` (imported above): it
    returns the Amounts a text states, each with a `value` (None when the amount is
    written in a way it cannot read, such as "six hundred euros") and a `unit`. Only
    members whose text states an amount take part, in the order given, each with its
    first Amount; `ids` and `amounts` list them. Then, in lesson 04's order:

    * Two or more members and an amount that cannot be read:
      Conflict(ids, amounts, "unreadable", ids). Never treat it as agreement.
    * All the same (value, unit) (or fewer than two members): Conflict(ids, amounts, "none", ids).
    * Different amounts: `rules` holds (winner_source, loser_source) pairs declared
      in advance. If some member's source has a rule over the source of every member
      stating a different (value, unit) than it, the conflict is resolved:
      Conflict(ids, amounts, "resolved", <ids of that source's members>,
      rule=f"{winner_source} over {<losing sources, sorted, joined by ', '>}").
      Check the members in the order given and take the first that qualifies.
    * Otherwise: Conflict(ids, amounts, "unresolved", ids). Similarity,
      authority and rank never settle anything.
    """
    raise NotImplementedError("settle_conflict: write your answer here, then run: python3 -B methods.py check practice")


def decision_table(candidates, as_of: str, scope: str, budget: int, rules=()) -> Plan:
    """Task 4. Run the layers in order and decide every candidate, with its reason.

    `candidates` are best-ranked first. A candidate's reason is set by the
    first layer that removes it:

    1. freshness: not is_current -> "expired" if its valid_until is before
       as_of, else "not_yet_valid".
    2. scope: candidate.scope != scope -> "off_topic".
    3. canonical: canonical_dedupe over the survivors -> "copy".
    4. conflict: settle_conflict(survivors, rules); a member not in `kept` ->
       "superseded_by_rule".
    5. units: the survivors form units. The members of a conflict that is
       "unresolved" or "unreadable" form one unit (reason "disputed"), in rank order. Every other survivor joins
       its document's unit if its chunk number is one more than the last chunk
       already in that unit (reason "adjacent"), else it starts a new unit
       (reason "evidence"); take each document's chunks in chunk order.
    6. budget: units in the order of their best-ranked member; a unit whose
       total lab_tokens still fits is kept whole, otherwise all of its members
       are discarded with "budget". Never keep part of a unit.

    Return Plan(decisions=<one Decision(id, "keep" or "discard", reason,
    packet position from 1, or None) per candidate, in rank order>,
    packet=<kept ids in packet order>, dedupe=<canonical_dedupe's result>,
    conflict=<settle_conflict's result>, used_tokens=<lab tokens kept>, budget=budget).
    """
    raise NotImplementedError("decision_table: write your answer here, then run: python3 -B methods.py check practice")


# Task 5 (quiz). The packet is A1, A2, D2, D1, F1. Someone trims it and drops A2, the
# lowest-ranked candidate. What happens to the answer?
#   "a"  the answer states A1's conclusion without its exception, so it promises
#        reimbursement for travel booked before approval, and its citations still pass
#   "b"  nothing that matters: A2 ranked last, so it carried the least evidence
#   "c"  B1 takes A2's place, since the mirror is a copy of the travel policy
#   "d"  the answer abstains, because the conclusion is missing
# Set A2_QUIZ to one letter.
A2_QUIZ = None  # TODO: your answer

# Task 6 (quiz). After a change, the reranker puts C1 (valid until 2025-12-31) first for a
# query run as of 2026-06-01. Which layer failed first?
#   "a"  ranking: the reranker overweights C1 and needs tuning
#   "b"  generation: the answer stage should notice the old date in the text
#   "c"  assembly: the budget should have skipped C1
#   "d"  freshness: the validity filter should have removed C1 before anything was ranked
# Set C1_QUIZ to one letter.
C1_QUIZ = None  # TODO: your answer

# Task 7 (quiz). D1 (finance-office, authority 0.9) says 500 euros; D2 (finance-faq,
# authority 0.6) says 600 euros; both are current and about the same scope.
#   "a"  keep D1: its authority score is higher
#   "b"  keep D2: it ranked higher by similarity
#   "c"  neither score settles it; only a priority rule declared in advance (for example
#        "the finance office's allowance table takes priority over the finance FAQ", or a
#        supersedes link) may; without one keep both, give no single amount, send to review
#   "d"  report the average, 550 euros, citing both
# Set D_QUIZ to one letter.
D_QUIZ = None  # TODO: your answer


__all__ = ["Amount", "Candidate", "is_current", "canonical_dedupe", "settle_conflict", "decision_table",
           "A2_QUIZ", "C1_QUIZ", "D_QUIZ"]
