"""Lesson 05 exercises: put chunks where a measured reader reads best, then measure what order does.

Task 1  reorder_for_edges         the best item at the reader's stronger edge, alternating inward
Task 2  place_at                  the relevant chunk at any place, for a position sweep
Task 3  classify_changes          which changed picks were lost, gained, or moved among the others
Task 4  order_effect_over_seeds   an order effect against the largest of several reseeded runs
Task 5  J1_MIDDLE_CHANGE          predict: the middle's share of change at j = 1
Task 6  COPIER_QUIZ               what the quote copier's missing position effect proves

Everything runs on the lesson's FICTIONAL reader simulator (modules/order/simulator.py
and reader.py): a labelled simulator of a reader, no model. The lesson's own functions
(reorder_lost_in_middle, build_layout, share_of_change, order_effect in
modules/order/mechanism.py) are the starting point; each task asks for something they do not do.

Container rule (every task): a sequence you return may be a list or a tuple (either is
accepted); a mapping is a dict.

Check your work:  python3 -B methods.py check order
Stuck?            python3 -B methods.py hint order
"""

from fractions import Fraction

from modules.order import OrderEffect, Paragraph


def reorder_for_edges(items, first_weight: float, last_weight: float):
    """Task 1. Place the best item at the edge this reader weighs more, then alternate inward.

    `items` is any sequence given best first (rank 1, rank 2, ...). `first_weight`
    and `last_weight` are the reader's measured weights of the first and the last
    place (this lesson's simulator: 1.0 and 0.8; a reader that favours recent text
    may weigh the end more). The best item goes to the stronger edge (the first
    place when the two weights are equal), the second best to the other edge, the
    third best next to the best, the fourth next to the second, and so on inward.

        first stronger (1.0, 0.8), ranks 1..10  ->  1 3 5 7 9 10 8 6 4 2
        last stronger  (0.8, 1.0), ranks 1..10  ->  2 4 6 8 10 9 7 5 3 1
        last stronger  (0.8, 1.0), ranks 1..5   ->  2 4 5 3 1

    modules/order's reorder_lost_in_middle is the first case only: it always puts the
    best first. Return a list or a tuple (either is accepted) and leave `items`
    unchanged. Run in linear time: no `list.insert` in a loop (each insert at the
    front moves every item already there). The grader times 160,000 items; when
    that takes 0.1 s or more, it times 20,000 too, and eight times the items may
    take at most sixteen times as long (linear: about eight; quadratic: 64).
    `items` may be any sequence (a list, a tuple, a range). Weights must be numbers
    (int or float, not bool): raise TypeError with a message that names the weight
    (first_weight or last_weight) otherwise.

    >>> list(reorder_for_edges(["a", "b", "c", "d"], 0.8, 1.0))
    ['b', 'd', 'c', 'a']
    """
    # BEGIN SOLUTION
    for name, weight in (("first_weight", first_weight), ("last_weight", last_weight)):
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise TypeError(f"{name} must be a number, got {type(weight).__name__} {weight!r}")
    items = list(items)
    first_strong = items[0::2] + items[1::2][::-1]
    return first_strong if first_weight >= last_weight else first_strong[::-1]
    # END SOLUTION


def place_at(good: Paragraph, bad, position: int):
    """Task 2. Put the relevant chunk at place `position` (1 = first) among the irrelevant ones.

    `good` is the relevant chunk, `bad` the j irrelevant ones in rank order. The
    irrelevant chunks keep their given order; the good chunk goes to place
    `position`, counted from 1, so that position 1 is the lesson's head layout and
    position j + 1 its tail. A sweep over every position, as Liu et al. moved the
    answer through 20 documents, needs every place, not only head, middle and tail:

        bad = (d1, d2, d3, d4):  position 1 -> (G, d1, d2, d3, d4)
                                 position 2 -> (d1, G, d2, d3, d4)
                                 position 5 -> (d1, d2, d3, d4, G)

    `bad` may be a list or a tuple. Return a list or a tuple (either is accepted);
    do not change `bad`. Raise
    TypeError when `position` is not an int (a bool is not a position), and
    ValueError when it is outside 1 .. j + 1, with a message that states the position
    and the largest allowed, j + 1 (never clamp it to an edge).
    """
    # BEGIN SOLUTION
    others = list(bad)
    if isinstance(position, bool) or not isinstance(position, int):
        raise TypeError(f"position must be an int, got {type(position).__name__} {position!r}")
    if not 1 <= position <= len(others) + 1:
        raise ValueError(f"position must be from 1 to {len(others) + 1}, got {position}")
    return others[:position - 1] + [good] + others[position - 1:]
    # END SOLUTION


def classify_changes(before, after, good) -> dict:
    """Task 3. Split the picks that changed between two runs by what the change did.

    `before` and `after` hold the reader's pick for each question (a Paragraph, or
    None when the prompt overflowed), in the same question order; `good` holds each
    question's relevant chunk, in that order too. share_of_change counts every
    changed pick alike; this splits them:

        lost    before picked the question's good chunk, after did not
        gained  before did not, after picked the good chunk
        other   neither picked it, and the two picks differ (another irrelevant
                chunk, or None against a chunk)

    Compare chunks, not codes (two chunks of one document share a code). lost -
    gained is the change in right answers; lost + gained + other is the number of
    changed picks. Return a dict {"lost": int, "gained": int, "other": int}. Each
    argument may be a list, a tuple or a generator (read once). Raise ValueError
    when the three differ in length or are empty.

    >>> classify_changes(["G1", "x", "y", "G4"], ["z", "G2", "w", "G4"], ["G1", "G2", "G3", "G4"])
    {'lost': 1, 'gained': 1, 'other': 1}
    """
    # BEGIN SOLUTION
    before, after, good = list(before), list(after), list(good)
    if not len(before) == len(after) == len(good):
        raise ValueError(f"before, after and good must pair up, got {len(before)}, {len(after)} and "
                         f"{len(good)} items")
    if not before:
        raise ValueError("before must not be empty")
    counts = {"lost": 0, "gained": 0, "other": 0}
    for first, second, right in zip(before, after, good):
        if first == second:
            continue
        if first == right:
            counts["lost"] += 1
        elif second == right:
            counts["gained"] += 1
        else:
            counts["other"] += 1
    return counts
    # END SOLUTION


def order_effect_over_seeds(first, reordered, reseeded_runs) -> OrderEffect:
    """Task 4. Judge a change of order against the largest of several run-to-run baselines.

    `first` and `reordered` hold the reader's picks (a Paragraph, or None) for each
    question, seed s, before and after only the order changed. `reseeded_runs` holds
    one or more runs of the original order read with other seeds (s + 1, s + 2, ...).
    One reseed is one sample of the run-to-run variation; the lesson's order_effect
    compares against that one. Here the baseline is the LARGEST share any reseeded
    run changed against `first`, so an order effect must move more picks than every
    reseed did. Return OrderEffect(order_share, seed_share, exceeds):

        order_share  the share of paired picks that differ, first against reordered
        seed_share   the largest such share, first against each reseeded run
        exceeds      True only when order_share is larger than seed_share (equal is
                     not more)

    Shares are exact Fractions. `first` and `reordered` may be generators (read once);
    `reseeded_runs` is a list or a tuple of runs. Raise ValueError when there is no
    reseeded run (with a message that names reseeded_runs), when `reordered` or any
    reseeded run differs in length from `first` (never pair them up with zip, which
    drops the extra picks), or when `first` is empty.

    >>> order_effect_over_seeds("abcd", "axyd", ["abzd", "wbzd"])
    OrderEffect(order_share=Fraction(1, 2), seed_share=Fraction(1, 2), exceeds=False)
    """
    # BEGIN SOLUTION
    first = list(first)
    runs = [list(reordered)] + [list(run) for run in reseeded_runs]
    if len(runs) < 2:
        raise ValueError("reseeded_runs must hold at least one run, got none")
    if not first:
        raise ValueError("first must not be empty")
    if any(len(run) != len(first) for run in runs):
        raise ValueError(f"every run must pair up with first ({len(first)} picks), got "
                         f"{[len(run) for run in runs]}")
    shares = [Fraction(sum(1 for a, b in zip(first, run) if a != b), len(first)) for run in runs]
    order_share, seed_share = shares[0], max(shares[1:])
    return OrderEffect(order_share=order_share, seed_share=seed_share, exceeds=order_share > seed_share)
    # END SOLUTION


# Task 5 (predict, before you run anything). The trace lays out j = 0, 2, 4 and 8 irrelevant
# chunks. Take j = 1: one relevant chunk and one irrelevant chunk per question, read with
# the published seed 20260218. What share of the 40 questions changes its picked chunk when
# the relevant chunk moves from the head layout to the middle layout? Set J1_MIDDLE_CHANGE
# to a number from 0 to 1 (a float, or a Fraction). Work it out from how build_layout
# places the middle, then check it (the hint shows how).
# BEGIN SOLUTION
J1_MIDDLE_CHANGE = 0.0
# END SOLUTION


# Task 6 (quiz). Lesson 01's quote copier copies every chunk of its packet, in order,
# whatever the order is: moving a chunk to the middle changes nothing it does. This
# lesson's simulator, on the same kind of move, picks a relevant chunk for 0.7750 of
# the questions with the relevant chunk at the head and 0.2000 in the middle (j = 4).
# What does the copier's lack of a position effect show?
#   "a"  that position effects are an artefact of simulators, since the copier has none
#   "b"  only that this one reader has no position effect; others must be measured
#   "c"  that the packet need not record its order, since a reader may ignore it
#   "d"  that a reorder is wasted work for every reader, since the copier needs none
# Set COPIER_QUIZ to one letter.
# BEGIN SOLUTION
COPIER_QUIZ = "b"
# END SOLUTION


__all__ = ["Paragraph", "OrderEffect", "reorder_for_edges", "place_at", "classify_changes",
           "order_effect_over_seeds", "J1_MIDDLE_CHANGE", "COPIER_QUIZ"]
