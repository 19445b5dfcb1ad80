"""Lesson 11 exercises, the capstone: produce the decision table, then explain it.

Each task asks for something modules/practice/mechanism.py does not do; its docstring says what.

Task 1  validity                 the validity window's four states, with a review warning
Task 2  canonical_dedupe         lesson 03's canonical dedupe, for candidates out of rank order
Task 3  settle_conflict          amounts that disagree: settle by declared rules, followed in a chain
Task 4  decision_table           every layer in order, counting each passage's evidence wrapper
Task 5  A2_QUIZ                  what happens to the answer if A2 is dropped
Task 6  C1_QUIZ                  if C1 ranks first after reranking, which layer failed first
Task 7  D_QUIZ                   can D1/D2 be settled by authority, and what rule would be needed
Task 8  PACKET_WITH_RULE_AT_160  predict: the packet with the declared rule at the tight budget

See the scenario:  python3 -B methods.py practice
Check your work:   python3 -B methods.py check practice
Stuck?             python3 -B methods.py hint practice
"""

from datetime import date

from modules.common.units import lab_tokens
from modules.dedupe import RetrievedChunk, dedupe_canonical
from modules.practice import Amount, Candidate, Conflict, Decision, Plan, stated_amounts


def validity(candidate: Candidate, as_of: str, warn_days: int = 30) -> str:
    """Task 1. Where `as_of` ("YYYY-MM-DD") falls in the candidate's validity window.

    The lab's is_current answers yes or no. A content team also wants to know WHY a
    policy is out (not yet valid, or expired: the discard reasons differ), and which
    current policies expire before the next review. Return one of:

    * "not_yet_valid"  as_of is before valid_from;
    * "expired"        as_of is after valid_until;
    * "expiring"       valid on as_of, and valid_until is at most `warn_days` days after
                       as_of (0 days: its last valid day is as_of itself);
    * "current"        valid on as_of otherwise (an open end, "", never expires).

    Both ends of the window are included; "" means that side is open. Compare dates
    (datetime.date), never today's clock: the as-of date is an explicit input. A
    `warn_days` that is not a whole number >= 0 (bool refused) is a ValueError naming it.
    """
    # BEGIN SOLUTION
    if isinstance(warn_days, bool) or not isinstance(warn_days, int) or warn_days < 0:
        raise ValueError(f"warn_days must be a whole number >= 0, got {warn_days!r}")
    day = date.fromisoformat(as_of)
    if candidate.valid_from and day < date.fromisoformat(candidate.valid_from):
        return "not_yet_valid"
    if candidate.valid_until:
        left = (date.fromisoformat(candidate.valid_until) - day).days
        if left < 0:
            return "expired"
        if left <= warn_days:
            return "expiring"
    return "current"
    # END SOLUTION


def canonical_dedupe(candidates, rank: dict) -> dict:
    """Task 2. Lesson 03's canonical dedupe for candidates that arrive OUT of rank order;
    return {dropped id: id of the copy kept}.

    The lab's canonical_dedupe reads the list's order as the rank. Candidates merged from
    two retrievers, or grouped by source for display, come in another order; `rank` maps
    every candidate's id to its place after reranking (smaller = better). Lesson 03's
    rule keeps the original when present, else the BEST-RANKED copy, and it reads rank
    from the order of the chunks it is given: so hand it the chunks sorted by rank.

    Do not write a new rule: use lesson 03's `dedupe_canonical` (imported above). Describe
    each candidate as a lesson 03 `RetrievedChunk`: its id, its `document` as the source,
    its text and similarity; `canonical` as the canonical_id; the copy kind "primary" when
    the candidate's document is its canonical document and "mirror" otherwise; and an
    anchor that names the passage's place in the canonical document, f"#{chunk}" (the
    same in every copy). Return the `dropped` dict of the result. A candidate whose id
    `rank` does not hold is a ValueError naming the id.
    """
    # BEGIN SOLUTION
    for c in candidates:
        if c.id not in rank:
            raise ValueError(f"rank has no place for candidate {c.id!r}")
    chunks = []
    for c in sorted(candidates, key=lambda c: rank[c.id]):
        copy = "primary" if c.document == c.canonical else "mirror"
        chunks.append(RetrievedChunk(c.id, c.document, c.text, c.similarity, c.canonical, copy, anchor=f"#{c.chunk}"))
    return dict(dedupe_canonical(chunks).dropped)
    # END SOLUTION


def settle_conflict(members, rules=()) -> Conflict:
    """Task 3. Compare the amounts the members state; settle only by declared rules, which
    (unlike the lab's settle_conflict) are followed in a chain.

    Read amounts with lesson 04's reader, `stated_amounts(text)` (imported above): it
    returns the Amounts a text states, each with a `value` (None when the amount is
    written in a way it cannot read, such as "six hundred euros") and a `unit`. Only
    members whose text states an amount take part, in the order given, each with its
    first Amount; `ids` and `amounts` list them. Then, in lesson 04's order:

    * Two or more members and an amount that cannot be read:
      Conflict(ids, amounts, "unreadable", ids). Never treat it as agreement.
    * All the same (value, unit) (or fewer than two members): Conflict(ids, amounts, "none", ids).
    * Different amounts: `rules` holds (winner_source, loser_source) pairs declared in
      advance, and priority is TRANSITIVE: ("finance-office", "volunteer-office") and
      ("volunteer-office", "finance-faq") together put finance-office over finance-faq,
      though no single pair says so (the lab's function needs that pair written out). If
      some member's source is above the source of every member stating a different
      (value, unit) than it, the conflict is resolved:
      Conflict(ids, amounts, "resolved", <ids of that source's members>,
      rule=f"{winner_source} over {<losing sources, sorted, joined by ', '>}").
      Check the members in the order given and take the first that qualifies.
    * Otherwise: Conflict(ids, amounts, "unresolved", ids). Similarity, authority and
      rank never settle anything.

    Rules in which a source ends up above itself (a cycle, such as (a, b) and (b, a))
    contradict themselves: raise ValueError naming that source (the first in sorted
    order), whatever the members.
    """
    # BEGIN SOLUTION
    above = {}
    for winner, loser in rules:
        above.setdefault(winner, set()).add(loser)
    changed = True
    while changed:   # close the relation: a source is above everything its losers are above
        changed = False
        for winner in sorted(above):
            for loser in sorted(above[winner]):
                new = above.get(loser, set()) - above[winner]
                if new:
                    above[winner] |= new
                    changed = True
    cycles = sorted(source for source, below in above.items() if source in below)
    if cycles:
        raise ValueError(f"rules put source {cycles[0]!r} above itself")
    members = [c for c in members if stated_amounts(c.text)]
    ids = tuple(c.id for c in members)
    amounts = tuple(stated_amounts(c.text)[0] for c in members)
    if len(members) > 1 and any(a.value is None for a in amounts):
        return Conflict(ids, amounts, "unreadable", ids)
    said = [(a.value, a.unit) for a in amounts]
    if len(set(said)) <= 1:
        return Conflict(ids, amounts, "none", ids)
    for winner, mine in zip(members, said):
        losers = [c for c, theirs in zip(members, said) if theirs != mine]
        if all(c.source in above.get(winner.source, set()) for c in losers):
            kept = tuple(c.id for c in members if c.source == winner.source)
            rule = f"{winner.source} over " + ", ".join(sorted({c.source for c in losers}))
            return Conflict(ids, amounts, "resolved", kept, rule)
    return Conflict(ids, amounts, "unresolved", ids)
    # END SOLUTION


def decision_table(candidates, as_of: str, scope: str, budget: int, rules=(), wrapper_tokens: int = 0) -> Plan:
    """Task 4. Run the layers in order and decide every candidate, with its reason,
    counting what each passage costs once it is sent.

    The lab's decision_table counts the text of each passage. But a packet is sent with
    every passage inside an evidence wrapper (its id and tags), and lesson 02's rule is
    to count what is sent: each kept passage costs lab_tokens(text) + `wrapper_tokens`.

    `candidates` are best-ranked first. A candidate's reason is set by the
    first layer that removes it:

    1. freshness: validity(c, as_of) is "expired" or "not_yet_valid" -> that reason
       ("expiring" and "current" both pass).
    2. scope: candidate.scope != scope -> "off_topic".
    3. canonical: canonical_dedupe(survivors, rank), rank being each candidate's
       position in `candidates` -> "copy".
    4. conflict: settle_conflict(survivors, rules); a member not in `kept` ->
       "superseded_by_rule".
    5. units: the survivors form units. The members of a conflict that is
       "unresolved" or "unreadable" form one unit (reason "disputed"), in rank order.
       Every other survivor joins its document's unit if its chunk number is one more
       than the last chunk already in that unit (reason "adjacent"), else it starts a
       new unit (reason "evidence"); take each document's chunks in chunk order.
    6. budget: units in the order of their best-ranked member; a unit whose size (the
       sum over its members of lab_tokens(text) + wrapper_tokens) still fits is kept
       whole, otherwise all of its members are discarded with "budget". Never keep part
       of a unit; a unit that does not fit is skipped and the walk goes on.

    Return Plan(decisions=<one Decision(id, "keep" or "discard", reason, packet
    position from 1, or None) per candidate, in rank order>, packet=<kept ids in packet
    order, a tuple>, dedupe=<canonical_dedupe's result>, conflict=<settle_conflict's
    result>, used_tokens=<lab tokens kept, wrappers included>, budget=budget).
    """
    # BEGIN SOLUTION
    reason = {}
    for c in candidates:
        state = validity(c, as_of)
        if state in ("expired", "not_yet_valid"):
            reason[c.id] = state
        elif c.scope != scope:
            reason[c.id] = "off_topic"
    rank = {c.id: i for i, c in enumerate(candidates)}
    alive = [c for c in candidates if c.id not in reason]
    dedupe = canonical_dedupe(alive, rank)
    for pid in dedupe:
        reason[pid] = "copy"
    alive = [c for c in alive if c.id not in reason]
    conflict = settle_conflict(alive, rules)
    for pid in conflict.ids:
        if pid not in conflict.kept:
            reason[pid] = "superseded_by_rule"
    alive = [c for c in alive if c.id not in reason]

    disputed = set(conflict.ids) if conflict.state in ("unresolved", "unreadable") else set()
    units, open_unit = [], {}
    for c in sorted((c for c in alive if c.id not in disputed), key=lambda c: (c.document, c.chunk)):
        unit = open_unit.get(c.document)
        if unit and c.chunk == unit[-1].chunk + 1:
            unit.append(c)
            reason[c.id] = "adjacent"
        else:
            unit = [c]
            units.append(unit)
            open_unit[c.document] = unit
            reason[c.id] = "evidence"
    group = [c for c in alive if c.id in disputed]
    if group:
        units.append(group)
        for c in group:
            reason[c.id] = "disputed"
    units.sort(key=lambda unit: min(rank[c.id] for c in unit))

    packet, used = [], 0
    for unit in units:
        size = sum(lab_tokens(c.text) + wrapper_tokens for c in unit)
        if used + size <= budget:
            packet += [c.id for c in unit]
            used += size
        else:
            for c in unit:
                reason[c.id] = "budget"
    order = {pid: i for i, pid in enumerate(packet, start=1)}
    decisions = tuple(Decision(c.id, "keep" if c.id in order else "discard", reason[c.id], order.get(c.id))
                      for c in candidates)
    return Plan(decisions, tuple(packet), dedupe, conflict, used, budget)
    # END SOLUTION


# Task 5 (quiz). The packet is A1, A2, D2, D1, F1. Someone trims it and drops A2, the
# lowest-ranked candidate. What happens to the answer?
#   "a"  nothing that matters: A2 ranked last, so it carried the least evidence
#   "b"  A1's rule goes out without its exception, yet its citations pass
#   "c"  B1 takes A2's place in the packet, since the mirror copies the policy
#   "d"  the answer abstains, because the policy's conclusion is now missing
# Set A2_QUIZ to one letter.
# BEGIN SOLUTION
A2_QUIZ = "b"
# END SOLUTION

# Task 6 (quiz). After a change, the reranker puts C1 (valid until 2025-12-31) first for a
# query run as of 2026-06-01. Which layer failed first?
#   "a"  freshness: C1 should have been filtered out before anything ranked
#   "b"  ranking: the reranker overweights C1, so its weights need more tuning
#   "c"  generation: the answer stage should notice the old date in the text
#   "d"  assembly: the budget should have skipped C1 when the packet filled
# Set C1_QUIZ to one letter.
# BEGIN SOLUTION
C1_QUIZ = "a"
# END SOLUTION

# Task 7 (quiz). The trace keeps D2 (finance-faq, authority 0.6, 600 euros) and D1
# (finance-office, authority 0.9, 500 euros) both, as disputed evidence. A reputation
# update now scores finance-faq 0.95, above finance-office; still no rule is declared.
# What happens to D1 and D2 at 1,000 lab tokens?
#   "a"  D2 is kept alone now, since its authority is the higher one
#   "b"  D1 is kept alone, since its title makes it the allowance table
#   "c"  both stay as disputed evidence, and no single amount is given
#   "d"  both are discarded, since no rule can say which one is right
# Set D_QUIZ to one letter.
# BEGIN SOLUTION
D_QUIZ = "c"
# END SOLUTION


# Task 8 (predict). The trace runs the walk at 160 lab tokens with no rule declared: A1, A2,
# F1, the conflict skipped whole. Before you run anything: with the rule finance-office
# over finance-faq declared in advance, at the same 160 lab tokens, which ids form the
# packet, in packet order? Set PACKET_WITH_RULE_AT_160 to a tuple (or a list) of ids, such
# as ("A1", "F1").
# BEGIN SOLUTION
PACKET_WITH_RULE_AT_160 = ("A1", "A2", "D1")
# END SOLUTION


__all__ = ["Amount", "Candidate", "validity", "canonical_dedupe", "settle_conflict", "decision_table",
           "A2_QUIZ", "C1_QUIZ", "D_QUIZ", "PACKET_WITH_RULE_AT_160"]
