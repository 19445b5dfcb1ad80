"""Lesson 12 exercises: measure an approximate index honestly, fall back safely, score rankings.

Task 1  two_evaluations       index quality (recall against exact search) and relevance, kept apart
Task 2  fallback              a failure stage -> the state after its fallback, and what stays visible
Task 3  mean_reciprocal_rank  MRR@k over several queries (ranks count from 1)
Task 4  ndcg_at_k             nDCG@k with linear gains and the ideal ranking of every label
Task 5  compare_removal       a counterfactual: what removing a channel changed, query by query
Task 6  TWO_EVALUATIONS_QUIZ  why approximate recall and relevance are two evaluations

Check your work:  python3 -B methods.py check channels
Stuck?            python3 -B methods.py hint channels
"""

import math

from modules.catalogue.policy import STATES

# What a fallback may keep visible (Task 2).
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


def fallback(failure: str, state_before: str) -> tuple:
    """Task 2. The state after a failure's fallback, and the keys that stay visible.

    Return (state, visible): `visible` is a tuple of keys from VISIBLE_KEYS, in the order
    listed here. Each failure has its own state, except two that leave the state as the
    pipeline decided it. The state after the fallback is the stronger of `state_before`
    and the failure's own state, by the policy's precedence (STATES: earlier is stronger,
    so "unauthorized" beats "degraded", which beats "respond").

      "unit_not_kept"         the parser could not keep a written unit: ask (clarify);
                              visible: the original value, the missing meaning
      "lexical_timeout"       the lexical channel timed out: answer from the other
                              permitted channels, degraded; visible: the degraded channel,
                              the coverage limit
      "vector_unavailable"    the vector channel is unavailable: the lexical and structured
                              path, degraded; visible: the degraded channel, that the
                              multimodal benefit is unavailable
      "permission_missing"    permission metadata is missing: fail closed (unauthorized);
                              visible: the reason codes only, never content
      "source_stale"          the source is stale: exclude or degrade (degraded); visible:
                              the source age
      "all_conflict"          every candidate conflicts: abstain (conflict); visible: the
                              conflicting fields
      "ranker_failed"         the ranker failed: the filtered set unranked, degraded;
                              visible: that the order is unavailable
      "packet_over_limit"     the packet is over its limit: bounded omission, degraded;
                              visible: the omitted fields
      "generator_failed"      the generator failed: show the structured evidence, state
                              unchanged; visible: the state, the packet fields
      "no_eligible_evidence"  nothing is eligible: ordinary search or a correction, never
                              an invented candidate, state unchanged; visible: the empty cause

    Raise ValueError for an unknown failure or a state that is not in STATES.

    >>> fallback("lexical_timeout", "respond")
    ('degraded', ('degraded_channel', 'coverage_limit'))
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
    if failure not in table:
        raise ValueError(f"unknown failure {failure!r}")
    if state_before not in STATES:
        raise ValueError(f"unknown state {state_before!r}")
    own, visible = table[failure]
    if own is None:
        return state_before, visible
    return min(state_before, own, key=STATES.index), visible
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


def ndcg_at_k(ranking, grades: dict, k: int) -> float:
    """Task 4. nDCG@k of one ranking: DCG@k divided by the ideal DCG@k.

      DCG@k      the sum over the first k places of grade / log2(rank + 1), rank from 1
                 (a listing without a grade counts 0)
      ideal      the DCG@k of the best possible ranking: every graded listing of `grades`
                 (retrieved or not) sorted by grade, highest first

    Return 0.0 when the ideal DCG is 0 (nothing is relevant). Raise ValueError if k < 1.
    These are the definitions trec_eval uses (linear gains): the lesson's test checks its
    own function against ir-measures.

    >>> round(ndcg_at_k(["c", "a"], {"a": 2, "b": 1}, 2), 4)
    0.4796
    """
    # BEGIN SOLUTION
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")

    def dcg(ids):
        return sum(grades.get(i, 0) / math.log2(rank + 1) for rank, i in enumerate(ids[:k], start=1))

    ideal = dcg(sorted(grades, key=lambda i: grades[i], reverse=True))
    return dcg(list(ranking)) / ideal if ideal else 0.0
    # END SOLUTION


def compare_removal(before: dict, after: dict) -> list:
    """Task 5. What removing a stage changed, query by query.

    `before` and `after` map a query id to {"candidates": [listing ids], "state": str}:
    the run with every channel, and the run with one removed. Candidates are a set of
    ids here: a different order is not a change.

    Return a list of (query_id, gained, lost, state_before, state_after) for every query
    of `before` whose candidates or state changed, in the order of `before`: `gained` the
    sorted ids only `after` has, `lost` the sorted ids only `before` has. A query whose
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
#   "a"  recall is measured at a cutoff and relevance is not, so they cannot share a table
#   "b"  they are one evaluation at two nprobe values
#   "c"  relevance only needs checking when recall is below 1
#   "d"  recall judges the index against exact search, relevance judges exact search against
#        the labels: a perfect index can return irrelevant neighbours, and a miss can cost
#        nothing when the missed item is a copy of one returned
# Set TWO_EVALUATIONS_QUIZ to one letter.
# BEGIN SOLUTION
TWO_EVALUATIONS_QUIZ = "d"
# END SOLUTION


__all__ = ["VISIBLE_KEYS", "two_evaluations", "fallback", "mean_reciprocal_rank", "ndcg_at_k", "compare_removal",
           "TWO_EVALUATIONS_QUIZ"]
