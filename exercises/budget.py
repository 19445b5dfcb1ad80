# TODO: fill in each answer, then run: python3 -B methods.py check budget
"""Lesson 02 exercises: budget arithmetic in declared units.

Task 1  evidence_budget  what the window leaves for evidence once every other term is paid
Task 2  skip_walk        copy whole chunks under a budget, counted by any counter, skipping misfits
Task 3  count_overflows  how many requests a fixed top-k pushes past the window
Task 4  RESERVE_QUIZ     why the output reserve and the margin cannot be left out
Task 5  cover_facets     choose chunks that cover the question's sub-questions within the budget

Check your work:  python3 -B methods.py check budget
Stuck?            python3 -B methods.py hint budget
"""

from modules.budget import BudgetWalk, Facet, RankedPassage, Request, facets_covered
from modules.common.units import chars, lab_tokens


def evidence_budget(window: int, base_input: int, history: int, tools: int, output_reserve: int, margin: int) -> int:
    """Task 1. Return the room left for evidence in a context window.

    window = base_input + history + tools + evidence + output_reserve + margin, all in
    one unit; base_input is the system text, the question and the message wrapping.
    Solve for evidence. Every term counts, even when it is 0. If the
    remainder is negative, raise ValueError (the fixed parts already overflow the
    window); never return 0 in its place. A remainder of exactly 0 is allowed.

    >>> evidence_budget(1024, 124, 0, 0, 128, 0)
    772
    """
    raise NotImplementedError("evidence_budget: write your answer here, then run: python3 -B methods.py check budget")


def skip_walk(chunks, budget: int, counter=chars) -> BudgetWalk:
    """Task 2. Walk `chunks` (a sequence of RankedPassage, best first) under `budget`.

    Measure each chunk with `counter(chunk.text)`, a function str -> int such as
    modules.common.units.chars or modules.common.units.lab_tokens: never assume len(). A chunk
    fits when the running total plus its size is at most the budget; it is kept
    whole. A chunk that does not fit is skipped whole (never cut) and the walk
    goes on to the next. Raise ValueError if `budget` is negative.

    Return BudgetWalk(policy="skip", unit=counter.__name__, budget=budget,
                      kept=<kept chunks, tuple>, skipped_ids=<skipped ids, tuple>,
                      used=<total size of the kept chunks>)
    A counter without a __name__ (a functools.partial, say) gives unit="custom".
    """
    raise NotImplementedError("skip_walk: write your answer here, then run: python3 -B methods.py check budget")


def count_overflows(requests, k: int, window: int) -> int:
    """Task 3. Count the requests that overflow `window` when each takes its top `k` chunks.

    Each request is a Request: its prompt is `request.base_tokens` plus the sizes
    of its first k chunks, `request.chunk_tokens[:k]`. A request overflows when its
    prompt is larger than the window; a prompt exactly as large as the window fits.
    Judge every request on its own: a fitting average says nothing about the largest.
    Raise ValueError if k < 1.

    >>> count_overflows([Request("a", "?", 10, (50, 60)), Request("b", "?", 10, (5, 5))], 2, 100)
    1
    """
    raise NotImplementedError("count_overflows: write your answer here, then run: python3 -B methods.py check budget")


# Task 4 (quiz). A colleague computes the evidence budget as window - base_input - history - tools
# and leaves out the output reserve and the margin "because they are not input". Why is that wrong?
#   "a"  it is not wrong: the reserve and margin are small enough to ignore
#   "b"  the reserve matters only when the answer is streamed
#   "c"  the model trims an input that is too long, so the only cost is a slightly shorter answer
#   "d"  the answer is written into the same window, so without a reserve the input can fill it and
#        leave no room to answer; the margin covers the gap between the lab's count and the
#        model's own tokenizer
# Set RESERVE_QUIZ to one letter.
RESERVE_QUIZ = None  # TODO: your answer


def cover_facets(chunks, facets, budget: int, counter=chars) -> tuple:
    """Task 5. Choose chunks that cover the question's facets within `budget`.

    `chunks` is a sequence of RankedPassage, best first; `facets` a sequence of Facet, the
    question's declared sub-questions. `facets_covered(facets, chunk.text)` names the
    facets a chunk covers; measure a chunk with `counter(chunk.text)`. This is budgeted
    maximum coverage, solved greedily. Repeat:

      among the chunks not chosen yet that add at least one facet not covered yet and
      still fit (used + size <= budget), take the one with the most new facets per unit
      of size; on a tie, the better-ranked (earlier) one.

    Stop when no chunk qualifies (a chunk that adds nothing is never taken). Compare
    ratios without floats: new_a / size_a > new_b / size_b exactly when
    new_a * size_b > new_b * size_a (so a size-0 chunk that adds a facet wins). Never cut
    a chunk. Return the chosen chunks as a tuple in rank order (their order in
    `chunks`), not in the order you chose them. Raise ValueError if `budget` is negative.

    >>> pick = [RankedPassage("a", "alpha " * 20), RankedPassage("b", "alpha"), RankedPassage("c", "beta")]
    >>> [c.id for c in cover_facets(pick, [Facet("alpha", "alpha?"), Facet("beta", "beta?")], 50)]
    ['b', 'c']
    """
    raise NotImplementedError("cover_facets: write your answer here, then run: python3 -B methods.py check budget")


__all__ = ["RankedPassage", "Facet", "Request", "lab_tokens", "evidence_budget", "skip_walk", "count_overflows",
           "RESERVE_QUIZ", "cover_facets"]
