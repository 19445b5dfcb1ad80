# TODO: replace each `raise NotImplementedError` and `= None` below, then run: python3 -B methods.py check budget
"""Lesson 02 exercises: budget arithmetic in declared units.

Task 1  evidence_budget  what the window leaves for evidence once every other term is paid
Task 2  skip_walk        copy whole chunks under a budget, counted by any counter, skipping misfits
Task 3  count_overflows  how many requests a fixed top-k pushes past the window
Task 4  RESERVE_QUIZ     why the output reserve and the margin cannot be left out

Check your work:  python3 -B methods.py check budget
Stuck?            python3 -B methods.py hint budget
"""

from modules.budget import BudgetWalk, Chunk, Request
from modules.common.units import chars, lab_tokens


def evidence_budget(window: int, system: int, history: int, tools: int, output_reserve: int, margin: int) -> int:
    """Task 1. Return the room left for evidence in a context window.

    window = system + history + tools + evidence + output_reserve + margin, all in
    one unit. Solve for evidence. Every term counts, even when it is 0. If the
    remainder is negative, raise ValueError (the fixed parts already overflow the
    window); never return 0 in its place. A remainder of exactly 0 is allowed.

    >>> evidence_budget(1024, 124, 0, 0, 128, 0)
    772
    """
    raise NotImplementedError("evidence_budget: write your answer here, then run: python3 -B methods.py check budget")


def skip_walk(chunks, budget: int, counter=chars) -> BudgetWalk:
    """Task 2. Walk `chunks` (a sequence of Chunk, best first) under `budget`.

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


# Task 4 (quiz). A colleague computes the evidence budget as window - system - history - tools
# and leaves out the output reserve and the margin "because they are not input". Why is that wrong?
#   "a"  it is not wrong: the reserve and margin are small enough to ignore
#   "b"  the answer is written into the same window, so without a reserve the input can fill it and
#        leave no room to answer; the margin covers the gap between the lab's count and the
#        model's own tokenizer
#   "c"  the model trims an input that is too long, so the only cost is a slightly shorter answer
#   "d"  the reserve matters only when the answer is streamed
# Set RESERVE_QUIZ to one letter.
RESERVE_QUIZ = None  # TODO: your answer


__all__ = ["Chunk", "Request", "lab_tokens", "evidence_budget", "skip_walk", "count_overflows", "RESERVE_QUIZ"]
