"""Lesson 01 exercises: measure the packet, then fill it without cutting.

Task 1  packet_coverage    what share of the needed passages reached the packet as evidence
Task 2  recall_at_k        recall over the first k distinct ids the retriever ranked
Task 3  fill_quote_budget  copy whole passages into a character budget, each id once
Task 4  LABELS_QUIZ        why the selector must never see the evaluation labels
Task 5  PACKET_AT_190      predict the packet at a budget the trace does not print

Check your work:  python3 -B methods.py check context
Stuck?            python3 -B methods.py hint context
"""

from fractions import Fraction

from modules.context import ContextRecord, Passage


def packet_coverage(record, relevant_ids) -> Fraction:
    """Task 1. Return the share of `relevant_ids` that reached `record` as evidence.

    `record` is a ContextRecord (what select_context returns), not a list of ids. Its
    evidence is `record.packet`. A passage of a blocked source travels beside the packet in
    `record.unresolved` (a conflict to review, never quoted as the answer): it does not count,
    and neither do skipped or duplicate ids. `relevant_ids` is a collection of id strings; an
    id listed twice counts once. Return an exact Fraction (found / needed): 1 of 2 is
    Fraction(1, 2). Raise ValueError if `relevant_ids` is empty.

    >>> packet_coverage(select_context(CANDIDATES, 120), ["hours-v2", "returns-v1"])   # from modules.context
    Fraction(1, 2)
    """
    # BEGIN SOLUTION
    relevant = set(relevant_ids)
    if not relevant:
        raise ValueError("relevant_ids must not be empty")
    evidence = {passage.id for passage in record.packet}
    return Fraction(len(relevant & evidence), len(relevant))
    # END SOLUTION


def recall_at_k(ranked_ids, relevant_ids, k: int) -> Fraction:
    """Task 2. Return the share of `relevant_ids` found among the first `k` DISTINCT ids ranked.

    A retriever that searches two shards can return one id twice; the selector collapses the
    repeat (step 1), so here k counts distinct ids, not positions: for ["a", "a", "b"] the
    first 2 distinct ids are a and b. `ranked_ids` is a list or a tuple (either is accepted),
    best first. The denominator is the number of distinct relevant ids (not k). Raise
    ValueError if k < 1 or `relevant_ids` is empty.

    >>> recall_at_k(["returns-v1", "returns-v1", "hours-v2"], ["hours-v2", "returns-v1"], 2)
    Fraction(1, 1)
    """
    # BEGIN SOLUTION
    relevant = set(relevant_ids)
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not relevant:
        raise ValueError("relevant_ids must not be empty")
    first_k = []
    for ranked in ranked_ids:
        if ranked not in first_k:
            first_k.append(ranked)
            if len(first_k) == k:
                break
    return Fraction(len(relevant & set(first_k)), len(relevant))
    # END SOLUTION


def fill_quote_budget(candidates, max_quote_chars: int) -> ContextRecord:
    """Task 3. Copy every whole passage that still fits into the budget, in rank order,
    deciding each id once.

    `candidates` is a list or a tuple of Passage (either is accepted), best first. The budget
    counts `len(passage.text)` only. Walk the candidates once: a passage that fits (the
    running total plus its length is at most the budget) is selected; one that does not fit
    is skipped whole, never cut, and the walk goes on. A retriever can return one passage
    twice: an id already selected or skipped is the same passage again, so pass over it (it
    is neither copied nor paid for twice, nor listed twice). Raise ValueError if
    `max_quote_chars` is negative.

    Return ContextRecord(packet=<selected passages, tuple>,
                         budget_skipped_ids=<skipped ids, tuple>,
                         duplicate_text_ids=(), conflicts={},
                         used_quote_chars=<total length selected>,
                         max_quote_chars=max_quote_chars)
    """
    # BEGIN SOLUTION
    if max_quote_chars < 0:
        raise ValueError(f"max_quote_chars must be >= 0, got {max_quote_chars}")
    packet, skipped, used = [], [], 0
    decided = set()   # the ids already selected or skipped
    for passage in candidates:
        if passage.id in decided:
            continue
        decided.add(passage.id)
        if used + len(passage.text) <= max_quote_chars:
            packet.append(passage)
            used += len(passage.text)
        else:
            skipped.append(passage.id)
    record = ContextRecord(packet=tuple(packet), budget_skipped_ids=tuple(skipped), duplicate_text_ids=(),
                           conflicts={}, used_quote_chars=used, max_quote_chars=max_quote_chars)
    return record
    # END SOLUTION


# Task 4 (quiz). A colleague's selector reads RELEVANT_IDS and moves those passages to the
# front before filling the budget. On the lesson's ranking at 120 characters its coverage
# is 1/2, the same as the honest selector's: the two needed passages already rank first,
# and together they take 100 + 91 = 191 characters, more than 120. What is wrong with it?
#   "a"  nothing: it scores 1/2 like the honest selector, so no harm is done here
#   "b"  it lowers coverage at 120, because moving passages breaks the rank order
#   "c"  its score measures the answer key, and elsewhere it would inflate coverage
#   "d"  nothing, as long as the labels it reads are themselves correct and complete
# Set LABELS_QUIZ to one letter.
# BEGIN SOLUTION
LABELS_QUIZ = "c"
# END SOLUTION


# Task 5 (predict). Before you run anything: at max_quote_chars = 190 (one character less
# than the two needed passages take together), which ids does select_context(CANDIDATES,
# 190) put in the packet, in order? Set PACKET_AT_190 to a tuple or a list (either is
# accepted) of id strings.
# BEGIN SOLUTION
PACKET_AT_190 = ("returns-v1", "wifi-v1", "card-v1")
# END SOLUTION


__all__ = ["Passage", "packet_coverage", "recall_at_k", "fill_quote_budget", "LABELS_QUIZ", "PACKET_AT_190"]
