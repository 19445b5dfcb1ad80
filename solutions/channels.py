"""Lesson 12 exercises: measure an approximate index honestly, fall back safely, score rankings.

Task 1  two_evaluations       index quality (recall against exact search) and relevance, kept apart
Task 2  combined_fallback     several failure stages at once -> one state, and what stays visible
Task 3  mean_reciprocal_rank  MRR@k over several queries (ranks count from 1)
Task 4  ndcg_exponential      nDCG@k with exponential gains (2**grade - 1), the other common definition
Task 5  compare_removal       a counterfactual: what removing a channel changed, query by query
Task 6  TWO_EVALUATIONS_QUIZ  why approximate recall and relevance are two evaluations
Task 7  REBUILT_NPROBE        predict the nprobe the rebuilt index needs, and what a search then costs

Check your work:  python3 -B methods.py check channels
Stuck?            python3 -B methods.py hint channels
"""

import math

from modules.catalogue.policy import STATES

# What a fallback may keep visible, in this order (Task 2).
VISIBLE_KEYS = ("original_value", "missing_meaning", "degraded_channel", "coverage_limit", "multimodal_unavailable",
                "reason_codes", "source_age", "conflicting_fields", "order_unavailable", "omitted_fields", "state",
                "packet_fields", "empty_cause")


def two_evaluations(approximate, exact, grades: dict, k: int) -> tuple:
    """Task 1. Two numbers about one query's image search; return (index_recall, exact_precision).

    `approximate` and `exact` are lists of listing ids, best first: what the approximate
    index returned and what exact cosine over every vector returns. `grades` maps listing
    ids to a relevance grade (1 or more = relevant; a missing id is grade 0).

      index_recall     the share of the exact top k that the approximate top k contains:
                       len(set(approximate[:k]) & set(exact[:k])) / len(exact[:k])
                       The exact search is the reference here, not the labels.
      exact_precision  the share of the exact top k that is relevant by the labels.

    Both are floats between 0 and 1. Raise ValueError if k < 1 or if `exact` is empty.

    >>> two_evaluations(["a", "c"], ["a", "b"], {"b": 2}, 2)
    (0.5, 0.5)
    """
    # BEGIN SOLUTION
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    reference = list(exact)[:k]
    if not reference:
        raise ValueError("exact must not be empty")
    found = set(list(approximate)[:k])
    recall = len(found & set(reference)) / len(reference)
    precision = sum(1 for i in reference if grades.get(i, 0) >= 1) / len(reference)
    return recall, precision
    # END SOLUTION


def combined_fallback(failures, state_before: str) -> tuple:
    """Task 2. The fallback when several stages fail at once.

    The lesson's fallback stage handles one failure at a time (and refuses two). In operation
    a lexical timeout and missing permission metadata can come together. `failures` is a list
    or a tuple of failure names from the table below, each at most once; return (state,
    visible):

      state    the strongest, by the policy's precedence (STATES: earlier is stronger, so
               "unauthorized" beats "degraded", which beats "respond"), of `state_before` and
               the own state of each failure (a failure whose own state is "-" leaves it)
      visible  every key any of the failures keeps visible, each once, in VISIBLE_KEYS
               order; return a list or a tuple (either is accepted)

      failure                 own state     visible
      "unit_not_kept"         clarify       original_value, missing_meaning
      "lexical_timeout"       degraded      degraded_channel, coverage_limit
      "vector_unavailable"    degraded      degraded_channel, multimodal_unavailable
      "permission_missing"    unauthorized  reason_codes
      "source_stale"          degraded      source_age
      "all_conflict"          conflict      conflicting_fields
      "ranker_failed"         degraded      order_unavailable
      "packet_over_limit"     degraded      omitted_fields
      "generator_failed"      -             state, packet_fields
      "no_eligible_evidence"  -             empty_cause

    No failure at all: (state_before, an empty list or tuple). Raise ValueError for an
    unknown failure, a failure named twice, or a state that is not in STATES.

    >>> combined_fallback(("lexical_timeout", "permission_missing"), "respond")
    ('unauthorized', ('degraded_channel', 'coverage_limit', 'reason_codes'))
    """
    # BEGIN SOLUTION
    table = {
        "unit_not_kept": ("clarify", ("original_value", "missing_meaning")),
        "lexical_timeout": ("degraded", ("degraded_channel", "coverage_limit")),
        "vector_unavailable": ("degraded", ("degraded_channel", "multimodal_unavailable")),
        "permission_missing": ("unauthorized", ("reason_codes",)),
        "source_stale": ("degraded", ("source_age",)),
        "all_conflict": ("conflict", ("conflicting_fields",)),
        "ranker_failed": ("degraded", ("order_unavailable",)),
        "packet_over_limit": ("degraded", ("omitted_fields",)),
        "generator_failed": (None, ("state", "packet_fields")),
        "no_eligible_evidence": (None, ("empty_cause",)),
    }
    if state_before not in STATES:
        raise ValueError(f"unknown state {state_before!r}")
    state, keys = state_before, set()
    for failure in failures:
        if failure not in table:
            raise ValueError(f"unknown failure {failure!r}")
        if list(failures).count(failure) > 1:
            raise ValueError(f"failure {failure!r} is named twice")
        own, visible = table[failure]
        if own is not None:
            state = min(state, own, key=STATES.index)
        keys.update(visible)
    return state, tuple(key for key in VISIBLE_KEYS if key in keys)
    # END SOLUTION


def mean_reciprocal_rank(rankings: dict, grades: dict, k: int) -> float:
    """Task 3. MRR@k: the mean, over the queries of `rankings`, of 1 / rank of the first
    relevant listing among the first k (0 when none of the first k is relevant).

    `rankings` maps a query id to its ranking (listing ids, best first); `grades` maps a
    query id to {listing id: grade} (1 or more = relevant; missing = 0). The first place
    has rank 1. Return 0.0 when `rankings` is empty. Raise ValueError if k < 1.

    >>> mean_reciprocal_rank({"q1": ["a", "b"], "q2": ["c"]}, {"q1": {"b": 1}, "q2": {}}, 3)
    0.25
    """
    # BEGIN SOLUTION
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not rankings:
        return 0.0
    total = 0.0
    for query_id, ranking in rankings.items():
        labels = grades.get(query_id, {})
        for rank, listing_id in enumerate(ranking[:k], start=1):
            if labels.get(listing_id, 0) >= 1:
                total += 1 / rank
                break
    return total / len(rankings)
    # END SOLUTION


def ndcg_exponential(ranking, grades: dict, k: int) -> float:
    """Task 4. nDCG@k with exponential gains: the definition many learning-to-rank libraries
    use, where the lesson (like trec_eval) uses the grade itself as the gain.

      gain       2**grade - 1 (grade 1 -> 1, grade 2 -> 3, grade 3 -> 7; no grade -> 0)
      DCG@k      the sum over the first k places of gain / log2(rank + 1), rank from 1
      ideal      the DCG@k of the best possible ranking: every graded listing of `grades`
                 (retrieved or not) sorted by grade, highest first

    Return DCG@k / ideal DCG@k, or 0.0 when the ideal DCG is 0 (nothing is relevant). Raise
    ValueError if k < 1. With grades of 0 and 1 only, this equals the lesson's nDCG; with a
    grade 2 below a grade 1 it scores lower, because it rewards the better listing more.

    >>> round(ndcg_exponential(["c", "a"], {"a": 2, "b": 1}, 2), 4)
    0.5213
    """
    # BEGIN SOLUTION
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")

    def dcg(ids):
        return sum((2 ** grades.get(i, 0) - 1) / math.log2(rank + 1) for rank, i in enumerate(ids[:k], start=1))

    ideal = dcg(sorted(grades, key=lambda i: grades[i], reverse=True))
    return dcg(list(ranking)) / ideal if ideal else 0.0
    # END SOLUTION


def compare_removal(before: dict, after: dict) -> list:
    """Task 5. What removing a stage changed, query by query.

    `before` and `after` map a query id to {"candidates": [listing ids], "state": str}:
    the run with every channel, and the run with one removed. Candidates are a set of
    ids here: a different order is not a change.

    Return a list or a tuple (either is accepted) of (query_id, gained, lost, state_before,
    state_after) for every query of `before` whose candidates or state changed, in the order
    of `before`: `gained` the sorted ids only `after` has, `lost` the sorted ids only `before`
    has (each a list or a tuple). A query whose
    candidates and state are unchanged is left out. Raise ValueError when `after` lacks
    a query of `before`.

    >>> compare_removal({"q": {"candidates": ["a", "b"], "state": "respond"}},
    ...                 {"q": {"candidates": ["b"], "state": "respond"}})
    [('q', [], ['a'], 'respond', 'respond')]
    """
    # BEGIN SOLUTION
    changed = []
    for query_id, was in before.items():
        if query_id not in after:
            raise ValueError(f"after has no run for {query_id!r}")
        now = after[query_id]
        gained = sorted(set(now["candidates"]) - set(was["candidates"]))
        lost = sorted(set(was["candidates"]) - set(now["candidates"]))
        if gained or lost or was["state"] != now["state"]:
            changed.append((query_id, gained, lost, was["state"], now["state"]))
    return changed
    # END SOLUTION


# Task 6 (quiz). At nprobe 3 the index returns CH-Q003's exact top 3 (recall 1.0), yet none
# of the three is an O-ring (the only O-ring has no photo). At nprobe 1 it misses PW-L002 for
# CH-Q001 (recall 0.667) and the packet does not change. Why does the lesson keep recall
# against exact search and relevance as two evaluations?
#   "a"  recall is taken at a cutoff and relevance is not, so the two cannot share a table
#   "b"  recall judges the index against exact search; relevance judges exact search by the labels
#   "c"  relevance needs checking only when recall falls below 1, so the two rarely coincide
#   "d"  they are one evaluation at two nprobe values, reported apart only for readability
# Set TWO_EVALUATIONS_QUIZ to one letter.
# BEGIN SOLUTION
TWO_EVALUATIONS_QUIZ = "b"
# END SOLUTION


# Task 7 (predict). The nightly rebuild files the same 13 photos in 9 lists instead of 3, and
# the pipeline still opens nprobe 2 of them: the trace shows recall@3 falling for three photo
# queries. Before you run anything, predict (a) the smallest nprobe at which the rebuilt index
# returns the exact top 3 for all five photo queries, and (b) how many vectors one search of
# CH-Q002 then compares (centroids plus photos, as the trace's cost column counts them).
# Set REBUILT_NPROBE to a tuple of two ints: (nprobe, compared).
# BEGIN SOLUTION
REBUILT_NPROBE = (3, 13)
# END SOLUTION


__all__ = ["VISIBLE_KEYS", "two_evaluations", "combined_fallback", "mean_reciprocal_rank", "ndcg_exponential",
           "compare_removal", "TWO_EVALUATIONS_QUIZ", "REBUILT_NPROBE"]
