"""Lesson 12: ranking metrics beyond recall, the relevance labels they read, and the segments
they are reported by.

Each metric reads one ranking (listing ids, best first) and the graded labels of its query
({listing id: grade}; grade >= 1 is relevant, an unlabelled listing is grade 0), with a cutoff k:

    precision_at_k   relevant among the first k, divided by k (a short list is not excused)
    reciprocal_rank  1 / the rank (counted from 1) of the first relevant listing within k; 0 if none
    ndcg_at_k        DCG@k / ideal DCG@k: DCG adds grade / log2(rank + 1); the ideal sorts every
                     labelled grade of the query, retrieved or not, best first
    hit_at_k         1 when any of the first k is relevant, else 0

These are the definitions of trec_eval (P@k, RR@k, nDCG@k with linear gains, Success@k);
tests/test_channels.py checks the functions against ir-measures on random rankings. Each has
its limit: precision punishes a query with fewer than k relevant listings, reciprocal rank
sees only the first relevant one, nDCG depends on the grades someone chose, and a hit says
nothing about order. None of them knows what the policy withholds: labels judge fit, so a
ranking that puts a withheld listing first can score higher (the lesson shows it).

Labels are for evaluation only: no stage of the pipeline reads them.
"""

from __future__ import annotations

import math

from modules.common.checks import sequence_of, short, whole_number

__all__ = ["RELEVANCE", "SEGMENTS", "CUTOFF", "precision_at_k", "reciprocal_rank", "dcg_at_k", "ndcg_at_k",
           "hit_at_k", "METRICS", "metric_row", "judged"]

CUTOFF = 3   # the packet holds three listings
# Graded fit to the request, judged by hand, whatever the permission: 2 = fits (family and size),
# 1 = right family, size unstated or unresolved. Restricted listings are judged too.
RELEVANCE = {
    "PW-Q001": {"PW-L001": 2, "PW-L002": 2, "PW-L003": 2, "PW-L004": 2},
    "PW-Q002": {"PW-L001": 2, "PW-L002": 2, "PW-L004": 2, "PW-L003": 1},
    "PW-Q003": {"PW-L010": 2},
    "PW-Q004": {"PW-L006": 2, "PW-L007": 1},
    "PW-Q005": {"PW-L005": 2, "PW-L016": 2},
    "PW-Q006": {"PW-L001": 1, "PW-L002": 1, "PW-L003": 1, "PW-L004": 1},
    "PW-Q009": {"PW-L009": 2, "PW-L010": 1},
    "CH-Q001": {"PW-L001": 2, "PW-L002": 2, "PW-L003": 2, "PW-L004": 2},
    "CH-Q002": {"PW-L012": 2},
    "CH-Q003": {"PW-L011": 2},
    "CH-Q004": {"PW-L010": 2},
    "CH-Q005": {"PW-L009": 2, "PW-L010": 2},
    "CH-Q006": {"PW-L001": 1, "PW-L002": 1, "PW-L003": 1, "PW-L004": 1},
}
# Declared before anything is measured, from the request alone (tests check each rule):
#   explicit unit     the query states a size with its unit
#   bare number       the query states a size without a unit
#   image query       the query carries a usable photo
#   long-tail family  the family asked for has at most two listings in the catalogue
SEGMENTS = {
    "explicit unit": ("PW-Q001", "PW-Q002", "PW-Q003", "PW-Q004", "PW-Q005", "PW-Q009", "CH-Q001", "CH-Q004"),
    "bare number": ("PW-Q006", "CH-Q006"),
    "image query": ("CH-Q001", "CH-Q002", "CH-Q003", "CH-Q005", "CH-Q006"),
    "long-tail family": ("PW-Q003", "PW-Q009", "CH-Q002", "CH-Q003", "CH-Q004", "CH-Q005"),
}


def _first_k(ranking, grades, k) -> tuple:
    """The first k ids of `ranking` (all of them when k is None), after checking the three
    arguments every metric takes."""
    ranking = sequence_of(ranking, None, "ranking", "listing ids")
    if len(set(ranking)) != len(ranking):
        raise ValueError(f"ranking lists an id twice: {short(ranking)}")
    if not isinstance(grades, dict):
        raise TypeError(f"grades must be a dict of listing id -> grade, got {type(grades).__name__} {short(grades)}")
    for listing_id, grade in grades.items():
        whole_number(grade, f"grades[{listing_id!r}]")
    if k is None:
        return ranking
    whole_number(k, "k", minimum=1)
    return ranking[:k]


def precision_at_k(ranking, grades: dict, k: int) -> float:
    """Relevant ids among the first k, divided by k."""
    top = _first_k(ranking, grades, k)
    return sum(grades.get(i, 0) >= 1 for i in top) / k


def reciprocal_rank(ranking, grades: dict, k: int | None = None) -> float:
    """1 / the rank of the first relevant id within k (the whole ranking when k is None); 0 if none."""
    top = _first_k(ranking, grades, k)
    for rank, listing_id in enumerate(top, start=1):
        if grades.get(listing_id, 0) >= 1:
            return 1 / rank
    return 0.0


def _discounted(gains) -> float:
    # DCG of gains in rank order: each gain over log2(rank + 1)
    return math.fsum([gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1)])


def dcg_at_k(ranking, grades: dict, k: int) -> float:
    """The first k ids' grades, each divided by log2(rank + 1), added up."""
    top = _first_k(ranking, grades, k)
    return _discounted([grades.get(i, 0) for i in top])


def ndcg_at_k(ranking, grades: dict, k: int) -> float:
    """DCG@k over the ideal DCG@k of every labelled grade; 0.0 when nothing is labelled relevant."""
    dcg = dcg_at_k(ranking, grades, k)
    ideal = _discounted(sorted(grades.values(), reverse=True)[:k])   # every grade, best first
    return dcg / ideal if ideal else 0.0


def hit_at_k(ranking, grades: dict, k: int) -> float:
    """1.0 when any of the first k ids is relevant, else 0.0."""
    top = _first_k(ranking, grades, k)
    return 1.0 if any(grades.get(i, 0) >= 1 for i in top) else 0.0


METRICS = (("P@3", precision_at_k), ("MRR@3", reciprocal_rank), ("nDCG@3", ndcg_at_k), ("hit@3", hit_at_k))


_LABELLED = frozenset(q for q, grades in RELEVANCE.items() if any(g >= 1 for g in grades.values()))


def judged(query_ids) -> tuple:
    """The query ids that have labels (a query without a relevant listing is not scored)."""
    return tuple([q for q in query_ids if q in _LABELLED])


def metric_row(rankings: dict, query_ids, k: int = CUTOFF) -> dict:
    """Each metric's mean over the judged queries among `query_ids`: {"queries": n, "P@3": ...}.
    One row per group: the caller never averages rows into one figure."""
    scored = [q for q in judged(query_ids) if q in rankings]
    row = {"queries": len(scored)}
    for name, metric in METRICS:
        row[name] = (math.fsum([metric(rankings[q], RELEVANCE[q], k) for q in scored]) / len(scored)
                     if scored else None)
    return row
