"""Lesson 05 exercises: put chunks in a chosen order, then measure what order does.

Task 1  reorder_lost_in_middle  best first, second best last, alternating inward
Task 2  build_layout            one relevant chunk at the head, in the middle or at the tail
Task 3  share_of_change         how many picked chunks changed between two runs
Task 4  order_effect            did a change of order move more than a change of seed?
Task 5  COPIER_QUIZ             what the quote copier's missing position effect proves

Everything runs on the lesson's FICTIONAL reader simulator (modules/order/simulator.py
and reader.py): a labelled simulator of a reader, no model.

Check your work:  python3 -B methods.py check order
Stuck?            python3 -B methods.py hint order
"""

from fractions import Fraction

from modules.order import LAYOUTS, OrderEffect, Paragraph


def reorder_lost_in_middle(items) -> list:
    """Task 1. Return a new list: the strongest items at both ends, the weakest in the middle.

    `items` is any sequence given best first (rank 1, rank 2, ...). The best
    item comes first, the second best last, the third best second, the fourth
    best second to last, and so on, alternating inward:

        ranks 1..10  ->  1 3 5 7 9 10 8 6 4 2
        ranks 1..4   ->  1 3 4 2
        ranks 1..5   ->  1 3 5 4 2

    The best item is first whatever the count (even or odd). Do not change
    `items`. Run in linear time: no `list.insert` in a loop (each insert at the
    front moves every item already there).

    >>> reorder_lost_in_middle(["a", "b", "c", "d"])
    ['a', 'c', 'd', 'b']
    """
    # BEGIN SOLUTION
    items = list(items)
    return items[0::2] + items[1::2][::-1]
    # END SOLUTION


def build_layout(good: Paragraph, bad, layout: str) -> tuple:
    """Task 2. Place one relevant chunk among the irrelevant ones; return a tuple.

    `good` is the relevant chunk, `bad` the j irrelevant ones in rank order (the
    lesson takes them from good_and_bad(query, ranking, j)). The irrelevant chunks
    keep their given order; only the good chunk's place depends on `layout`:

        "head"    good then bad
        "tail"    bad then good
        "middle"  bad[:j // 2] + good + bad[j // 2:]  (with an odd j, the earlier
                  of the two middle places)

    With 4 irrelevant chunks d1..d4 the middle layout is (d1, d2, G, d3, d4);
    with 3 it is (d1, G, d2, d3). Do not change `bad`. Raise ValueError for any
    other layout name, naming it.
    """
    # BEGIN SOLUTION
    others = list(bad)
    if layout == "head":
        place = 0
    elif layout == "tail":
        place = len(others)
    elif layout == "middle":
        place = len(others) // 2
    else:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    return tuple(others[:place]) + (good,) + tuple(others[place:])
    # END SOLUTION


def share_of_change(before, after) -> Fraction:
    """Task 3. Return the share of paired picks that differ.

    `before` and `after` list what the reader picked for each question, in the same
    question order, for two runs (say: same seed, head and middle layouts; or the
    same layout with seed and seed + 1). A pick is a Paragraph, or None when the prompt
    overflowed the window. Compare the chunks themselves: two chunks of one document
    share a code, and a pick that moved to the other chunk of the same document has
    changed. Any ordered iterable will do: a list, a tuple, or a generator read
    once, such as `(r.chunk for r in readings)`. None against None is no change,
    None against a chunk is a change. Return an exact Fraction over all the pairs.
    Raise ValueError when the two runs differ in length (the pairs would not line
    up) or are empty.

    >>> share_of_change(["a", "b", None, "d"], ["a", "x", None, "y"])
    Fraction(1, 2)
    """
    # BEGIN SOLUTION
    before, after = list(before), list(after)
    if len(before) != len(after):
        raise ValueError(f"before and after must pair up, got {len(before)} and {len(after)} items")
    if not before:
        raise ValueError("before must not be empty")
    return Fraction(sum(1 for a, b in zip(before, after) if a != b), len(before))
    # END SOLUTION


def order_effect(first, reordered, reseeded) -> OrderEffect:
    """Task 4. Decide whether a change of order moved more citations than a change of seed.

    All three list the reader's pick (a Paragraph, or None) for each question, in the
    same question order:

        first      one run: seed s, the original order
        reordered  seed s again, only the order changed (say: head -> middle)
        reseeded   the original order again, only the seed changed (s + 1)

    A random reader changes some picks even when nothing changes, so reseeding is
    the run-to-run baseline; in this simulator it is large (0.425 of the picks at
    j = 4), so a change of order must be judged against it, never against zero.
    Return OrderEffect(order_share, seed_share, exceeds):

        order_share  share_of_change(first, reordered)
        seed_share   share_of_change(first, reseeded)
        exceeds      True only when order_share is larger than seed_share; a change
                     no larger than the baseline (equal included) is not an order effect

    Any argument may be a generator, read once: `first` is compared twice.

    >>> order_effect(["a", "b", "c", "d"], ["a", "x", "y", "d"], ["a", "b", "z", "d"])
    OrderEffect(order_share=Fraction(1, 2), seed_share=Fraction(1, 4), exceeds=True)
    """
    # BEGIN SOLUTION
    first = list(first)
    order_share = share_of_change(first, reordered)
    seed_share = share_of_change(first, reseeded)
    return OrderEffect(order_share, seed_share, order_share > seed_share)
    # END SOLUTION


# Task 5 (quiz). Lesson 01's quote copier copies every chunk of its packet, in order,
# whatever the order is: moving a chunk to the middle changes nothing it does. This
# lesson's simulator, on the same kind of move, picks a relevant chunk for 0.7750 of
# the questions with the relevant chunk at the head and 0.2000 in the middle (j = 4).
# What does the copier's lack of a position effect show?
#   "a"  that position effects are an artefact of the simulator, since the copier,
#        which really reads, has none
#   "b"  that the packet need not record its order: one reader of the course ignores it
#   "c"  that lost-in-the-middle reordering harms every reader, since the copier needs none
#   "d"  only that this one reader has no position effect; it proves nothing about
#        another reader, which must be measured on its own, as the simulator is here
# Set COPIER_QUIZ to one letter.
# BEGIN SOLUTION
COPIER_QUIZ = "d"
# END SOLUTION


__all__ = ["Paragraph", "OrderEffect", "reorder_lost_in_middle", "build_layout", "share_of_change", "order_effect",
           "COPIER_QUIZ"]
