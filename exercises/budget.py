# TODO: fill in each answer, then run: python3 -B methods.py check budget
"""Lesson 02 exercises: budget arithmetic in declared units.

Task 1  evidence_budget_of_plan  the evidence room of a plan whose every term declares its unit
Task 2  skip_walk                the skip walk, paying for each chunk as it is sent (wrapper included)
Task 3  safe_top_k               the largest k at which no request, answer included, overflows
Task 4  RESERVE_QUIZ             why the output reserve and the margin cannot be left out
Task 5  cover_facets             choose chunks that cover the question's sub-questions within the budget
Task 6  WALK_AT_200              predict the rank walk on the coverage case at a smaller budget

Check your work:  python3 -B methods.py check budget
Stuck?            python3 -B methods.py hint budget
"""

from modules.budget import BudgetWalk, Facet, RankedPassage, Request, facets_covered
from modules.common.units import chars, lab_tokens


TERMS = ("base_input", "history", "tools", "output_reserve", "margin")   # every term but the evidence


def evidence_budget_of_plan(window, plan: dict) -> tuple:
    """Task 1. Return the room a plan leaves for evidence, and its unit: (evidence, unit).

    The lesson's evidence_budget takes six bare numbers and trusts that they share a unit.
    Here every quantity declares its unit: `window` is a (size, unit) pair such as
    (1024, "lab_tokens"), and `plan` is a dict with exactly the keys "base_input", "history",
    "tools", "output_reserve" and "margin", each a (size, unit) pair. Solve
    window = base_input + history + tools + evidence + output_reserve + margin for evidence.

    Raise ValueError, naming the term in the message, when: a term is missing (history and
    tools are terms even when they are 0: a plan that leaves one out is refused, never read
    as 0); the plan holds a key that is not a term; a term's unit differs from the window's
    (never convert: a ratio between units is a guess); a term's size is negative; or the
    remainder is negative (never return 0 in its place). A remainder of exactly 0 is allowed.
    Return a tuple (or a list: either is accepted) of the evidence size and the window's unit.

    >>> evidence_budget_of_plan((1024, "lab_tokens"), {"base_input": (124, "lab_tokens"),
    ...     "history": (0, "lab_tokens"), "tools": (0, "lab_tokens"),
    ...     "output_reserve": (128, "lab_tokens"), "margin": (0, "lab_tokens")})
    (772, 'lab_tokens')
    """
    raise NotImplementedError("evidence_budget_of_plan: write your answer here, then run: python3 -B methods.py check budget")


def skip_walk(chunks, budget: int, counter=chars) -> BudgetWalk:
    """Task 2. Walk `chunks` (a list or a tuple of RankedPassage, best first) under `budget`,
    counting each chunk as it will be sent.

    The lesson's walk measures the bare text, and its recount shows the cost of that: the
    source headers and wrappers were never paid for. Here a chunk costs what the request
    will carry: counter(f'<source id="{chunk.id}">{chunk.text}</source>'), the wrapper
    modules.budget.assemble_request puts around every chunk. `counter` is a function str ->
    int such as modules.common.units.chars or modules.common.units.lab_tokens: never assume
    len(). A chunk fits when the running total plus its cost is at most the budget; it is
    kept whole. A chunk that does not fit is skipped whole (never cut) and the walk goes on
    to the next. Raise ValueError if `budget` is negative.

    Return BudgetWalk(policy="skip", unit=counter.__name__, budget=budget,
                      kept=<kept chunks as given, tuple>, skipped_ids=<skipped ids, tuple>,
                      used=<total cost of the kept chunks, wrappers included>)
    A counter without a __name__ (a functools.partial, say) gives unit="custom".
    """
    raise NotImplementedError("skip_walk: write your answer here, then run: python3 -B methods.py check budget")


def safe_top_k(requests, window: int, output_reserve: int) -> int:
    """Task 3. Return the largest k at which no request overflows the window, answer included.

    The lesson counts overflows for one k (count_overflows) and finds each request's own
    largest k (chunks_that_fit), ignoring the answer. A fixed top-k must be chosen once for
    every request, and the answer is written into the same window. Each request is a
    Request: with its top k chunks, its prompt is `request.base_tokens` plus the sizes of
    `request.chunk_tokens[:k]` (a request with fewer chunks takes all it has). It fits when
    prompt + output_reserve is at most the window (exactly full fits).

    Try k from 1 up to the most chunks any request has; return the largest k at which every
    request fits (a larger k can only add chunks, so stop at the first k that overflows), or
    0 when even k = 1 overflows a request. Raise ValueError if `requests` is empty.

    >>> safe_top_k([Request("a", "?", 10, (50, 60)), Request("b", "?", 10, (5, 5))], 100, 20)
    1
    """
    raise NotImplementedError("safe_top_k: write your answer here, then run: python3 -B methods.py check budget")


# Task 4 (quiz). A colleague computes the evidence budget as window - base_input - history - tools
# and leaves out the output reserve and the margin "because they are not input". Why is that wrong?
#   "a"  it is not wrong: the reserve and margin are too small to change the budget
#   "b"  the answer shares the window, and lab counts may differ from the model's
#   "c"  the model trims an input that is too long, so the answer only gets shorter
#   "d"  the reserve matters only when the answer is streamed back token by token
# Set RESERVE_QUIZ to one letter.
RESERVE_QUIZ = None  # TODO: your answer


def cover_facets(chunks, facets, budget: int, counter=chars) -> tuple:
    """Task 5. Choose chunks that cover the question's facets within `budget`.

    `chunks` is a list or a tuple of RankedPassage, best first; `facets` a list or a tuple of
    Facet, the question's declared sub-questions. `facets_covered(facets, chunk.text)` returns
    the names (strings) of the facets a chunk covers; measure a chunk with
    `counter(chunk.text)`. This is budgeted maximum coverage, solved greedily. Repeat:

      among the chunks not chosen yet that add at least one facet not covered yet and
      still fit (used + size <= budget), take the one with the most new facets per unit
      of size; on a tie, the better-ranked (earlier) one.

    Stop when no chunk qualifies (a chunk that adds nothing is never taken). Compare
    ratios without floats: new_a / size_a > new_b / size_b exactly when
    new_a * size_b > new_b * size_a (so a size-0 chunk that adds a facet wins; a division
    would raise ZeroDivisionError on it). Never cut a chunk. Return the chosen chunks as a
    list or a tuple (either is accepted) in rank order (their order in `chunks`), not in
    the order you chose them. Raise ValueError if `budget` is negative.

    >>> pick = [RankedPassage("a", "alpha " * 20), RankedPassage("b", "alpha"), RankedPassage("c", "beta")]
    >>> [c.id for c in cover_facets(pick, [Facet("alpha", "alpha?"), Facet("beta", "beta?")], 50)]
    ['b', 'c']
    """
    raise NotImplementedError("cover_facets: write your answer here, then run: python3 -B methods.py check budget")


# Task 6 (predict). Before you run anything: the trace runs the rank walk (the skip walk in
# chars) on COVERAGE_RANKED at a budget of 330 and it covers 1 of the 2 sub-questions. At a
# budget of 200 instead, which chunk ids does that walk keep, in order? Set WALK_AT_200 to a
# tuple or a list (either is accepted) of id strings.
WALK_AT_200 = None  # TODO: your answer


__all__ = ["RankedPassage", "Facet", "Request", "lab_tokens", "evidence_budget_of_plan", "skip_walk", "safe_top_k",
           "RESERVE_QUIZ", "cover_facets", "WALK_AT_200"]
