# TODO: fill in each answer, then run: python3 -B methods.py check context
"""Lesson 01 exercises: measure the packet, then fill it without cutting.

Task 1  packet_coverage    what share of the needed passages reached the packet
Task 2  recall_at_k        what share of the needed passages the retriever ranked in its top k
Task 3  fill_quote_budget  copy whole passages into a character budget, skipping misfits
Task 4  LABELS_QUIZ        why the selector must never see the evaluation labels

Check your work:  python3 -B methods.py check context
Stuck?            python3 -B methods.py hint context
"""

from fractions import Fraction

from modules.context import ContextRecord, Passage


def packet_coverage(packet_ids, relevant_ids) -> Fraction:
    """Task 1. Return the share of `relevant_ids` that appear in `packet_ids`.

    Both arguments are collections of id strings. The result is an exact
    `Fraction` (found / needed), not a float: 1 of 2 is Fraction(1, 2). An id
    listed twice counts once. Raise ValueError if `relevant_ids` is empty.

    >>> packet_coverage(["returns-v1", "wifi-v1"], ["hours-v2", "returns-v1"])
    Fraction(1, 2)
    """
    raise NotImplementedError("packet_coverage: write your answer here, then run: python3 -B methods.py check context")


def recall_at_k(ranked_ids, relevant_ids, k: int) -> Fraction:
    """Task 2. Return the share of `relevant_ids` found among the first `k` of `ranked_ids`.

    The denominator is the number of relevant ids (not k). An id ranked twice
    counts once. Raise ValueError if k < 1 or `relevant_ids` is empty.

    >>> recall_at_k(["returns-v1", "hours-v2", "wifi-v1"], ["hours-v2", "returns-v1"], 1)
    Fraction(1, 2)
    """
    raise NotImplementedError("recall_at_k: write your answer here, then run: python3 -B methods.py check context")


def fill_quote_budget(candidates, max_quote_chars: int) -> ContextRecord:
    """Task 3. Copy every whole passage that still fits into the budget, in rank order.

    `candidates` is a sequence of Passage, best first. The budget counts
    `len(passage.text)` only. Walk the candidates once: a passage that fits
    (the running total plus its length is at most the budget) is selected; one
    that does not fit is skipped whole, never cut, and the walk goes on.
    Raise ValueError if `max_quote_chars` is negative.

    Return ContextRecord(packet=<selected passages, tuple>,
                         budget_skipped_ids=<skipped ids, tuple>,
                         duplicate_text_ids=(), conflicts={},
                         used_quote_chars=<total length selected>,
                         max_quote_chars=max_quote_chars)
    """
    raise NotImplementedError("fill_quote_budget: write your answer here, then run: python3 -B methods.py check context")


# Task 4 (quiz). A colleague's selector reads RELEVANT_IDS and moves those passages to the
# front before filling the budget. On the lesson's ranking at 120 characters its coverage
# is 1/2, the same as the honest selector's: the two needed passages already rank first,
# and together they take 100 + 91 = 191 characters, more than 120. What is wrong with it?
#   "a"  nothing: it scores the same as the honest selector here, so it does no harm
#   "b"  its coverage measures the labels it was handed, not its choices: it gains nothing
#        here only because of this ranking and budget, and on another ranking or budget it
#        would raise coverage with nothing in the number to show why
#   "c"  it lowers coverage at 120 characters, because moving passages breaks the rank order
#   "d"  nothing, as long as the labels themselves are correct
# Set LABELS_QUIZ to one letter.
LABELS_QUIZ = None  # TODO: your answer


__all__ = ["Passage", "packet_coverage", "recall_at_k", "fill_quote_budget", "LABELS_QUIZ"]
