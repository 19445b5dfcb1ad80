"""Lesson 04 exercises: the conflicts the version rule misses, validity over a period, chains of replacement.

Task 1  reused_labels               one label carried by passages whose texts differ (the rule's blind spot)
Task 2  valid_during                the records valid on any day of a period, not one as-of day
Task 3  resolve_with_chains         a declared supersedes map followed through records no longer present
Task 4  PUBLICATION_RULE_OUTCOME    predict: which check decides when the later publication is declared to win
Task 5  SCORE_QUIZ                  why the highest score cannot settle a conflict

The lesson's own functions (multi_version_sources, valid_on, resolve_or_abstain in
modules/versions/mechanism.py) are the starting point; each task asks for something they
do not do.

Container rule (every task): a sequence you return may be a list or a tuple (either is
accepted); a mapping is a dict.

Check your work:  python3 -B methods.py check versions
Stuck?            python3 -B methods.py hint versions
"""

from modules.versions import Record, check_day


def reused_labels(passages) -> dict:
    """Task 1. Return {source_id: labels} for every label one source carries on passages whose texts differ.

    `passages` is a sequence of objects with `.source_id`, `.version` and `.text`
    (lesson 01's Passage or this lesson's Record), in rank order. The lesson's rule,
    multi_version_sources, flags a source seen with two labels; it cannot see a draft
    filed under the same source and the SAME label with other text (the trace's "a
    label reused": hours-v2 and hours-draft, both label 2). Find those: a label of a
    source counts when two or more of its passages carry it with different texts
    (texts compared exactly, as strings). Two passages with one label and the same
    text are copies, not a conflict; two different labels are the rule's case, not
    this one. List each source's reused labels once each, in the order each label
    first appears in `passages` (not the order in which its second text turns up),
    as a list or a tuple (either is accepted); leave out sources with none.

    >>> reused_labels([Record("a", "hours", "2", "t", "8:30"), Record("b", "hours", "2", "t", "7:30")])
    {'hours': ('2',)}
    """
    # BEGIN SOLUTION
    texts = {}  # (source, label) -> the distinct texts seen under it
    order = {}  # source -> its labels in first-seen order
    for item in passages:
        seen = texts.setdefault((item.source_id, item.version), [])
        if item.text not in seen:
            seen.append(item.text)
        labels = order.setdefault(item.source_id, [])
        if item.version not in labels:
            labels.append(item.version)
    found = {}
    for source, labels in order.items():
        reused = tuple(label for label in labels if len(texts[source, label]) > 1)
        if reused:
            found[source] = reused
    return found
    # END SOLUTION


def valid_during(records, start: str, end: str):
    """Task 2. Return the records (order kept) valid on at least one day from `start` to `end`.

    Days are ISO strings 'YYYY-MM-DD'; the period includes both `start` and `end`. A
    record is valid from `valid_from` up to and including `valid_until` (None: no end).
    The lesson's valid_on checks one as-of day; a question about a period ("what does a
    late laptop cost from 28 June to 3 July?") needs every record that applies on any
    day of it, so that a change inside the period reaches the packet (and is flagged)
    instead of being filtered away. A record overlaps the period when it starts on or
    before `end` and does not end before `start`. Return a list or a tuple (either is
    accepted). Raise ValueError when `start` or `end` is not a calendar day
    'YYYY-MM-DD', with a message that names the argument, start or end (check_day,
    imported above, checks one day and names it), or when `end` is before `start`.
    """
    # BEGIN SOLUTION
    check_day(start, "start")
    check_day(end, "end")
    if end < start:
        raise ValueError(f"end {end!r} is before start {start!r}")
    return [r for r in records if r.valid_from <= end and (r.valid_until is None or start <= r.valid_until)]
    # END SOLUTION


def resolve_with_chains(records, supersedes: dict) -> dict:
    """Task 3. Select one record only if the supersedes map, followed through chains, leaves one standing.

    `records` are the records that answer one question; `supersedes` maps a record id
    to a collection of the ids it replaces. The lesson's resolve_or_abstain counts a
    link only from a record that is present. The editors' register is a chain: if c
    replaced b and b replaced a, then c replaced a, even when b is no longer among the
    records (expired, say). So a present record replaces every id it reaches through
    the map, step by step, through records present or not. A link from a record that
    is absent and not reached from a present one counts for nothing. A present record
    that reaches itself (a cycle) makes the register unusable: raise ValueError with a
    message that names that record's id.

    The outcome has the shape of resolve_or_abstain's: when exactly one record is
    standing (replaced by no present record),
        {"decision": "selected", "selected_id": <its id>, "presented_ids": [<its id>], "reason": <text>}
    otherwise
        {"decision": "abstain-and-review", "selected_id": None,
         "presented_ids": [<the standing ids, or all ids if none stands, in the order of records>],
         "reason": <text>}
    presented_ids may be a list or a tuple (either is accepted); reason is a non-empty
    str saying why. Never use scores, amounts, dates or version labels.
    """
    # BEGIN SOLUTION
    present = [r.id for r in records]
    replaced = set()
    for start in present:
        reached, todo = set(), list(supersedes.get(start, ()))
        while todo:
            old = todo.pop()
            if old == start:
                raise ValueError(f"supersedes has a cycle: {start!r} replaces itself through the chain")
            if old not in reached:
                reached.add(old)
                todo.extend(supersedes.get(old, ()))
        replaced |= reached
    standing = [i for i in present if i not in replaced]
    if len(standing) == 1:
        return {"decision": "selected", "selected_id": standing[0], "presented_ids": standing,
                "reason": f"declared chain: {standing[0]} replaces the others"}
    return {"decision": "abstain-and-review", "selected_id": None, "presented_ids": standing or present,
            "reason": "no declared chain leaves exactly one record: present all and send to review"}
    # END SOLUTION


# Task 4 (predict, before you run anything). The trace runs the deposit pair (500 and 600
# crowns, DEPOSITS) through the resolution checks in six cases, but never with the rule
# "the later publication wins" declared. Take the pair as of 2026-07-01 with no supersedes
# map and no precedence, and declare that rule (later_publication_wins=True). Which check
# decides, and which record does it select? Set PUBLICATION_RULE_OUTCOME to a pair
# (check name as the trace prints it, selected id), e.g. ("validity", "deposit-rules").
# BEGIN SOLUTION
PUBLICATION_RULE_OUTCOME = ("publication time", "deposit-notice")
# END SOLUTION


# Task 5 (quiz). Two current sources give a key deposit of 500 and 600 crowns. The
# reranker scores the 500-crown passage 0.91 and the 600-crown passage 0.84. Why can
# the higher score not decide which amount is in force?
#   "a"  0.91 and 0.84 are too close to call; a gap of 0.2 or more would settle it
#   "b"  scores must be normalised first; after that the larger one marks the valid record
#   "c"  it can: the better-matching passage is the more trustworthy one, so 0.91 wins
#   "d"  a score rates how well it matches the question, not which record is in force
# Set SCORE_QUIZ to one letter.
# BEGIN SOLUTION
SCORE_QUIZ = "d"
# END SOLUTION


__all__ = ["Record", "reused_labels", "valid_during", "resolve_with_chains", "PUBLICATION_RULE_OUTCOME",
           "SCORE_QUIZ"]
