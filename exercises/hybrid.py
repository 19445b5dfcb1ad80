# TODO: fill in each answer, then run: python3 -B methods.py check hybrid
"""Lesson 07 exercises: read a size honestly, then fuse channels by rank.

Task 1  parse_size              read one size from shopper text; never assume a unit
Task 2  reciprocal_rank_fusion  fuse rankings by rank alone (RRF, k = 60, ranks from 1)
Task 3  fuse_by_cluster         collapse copies by canonical cluster, then fuse; raw scores unused
Task 4  RAW_SCORES_QUIZ         why raw channel scores must not be added
Task 5  alias_effect            authorised aliases as a versioned step, and the candidates gained and lost

Check your work:  python3 -B methods.py check hybrid
Stuck?            python3 -B methods.py hint hybrid
"""

from modules.hybrid import to_mm

UNIT_WORDS = {"mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
              "inch": "inch", "inches": "inch"}


def parse_size(text: str) -> tuple:
    """Task 1. Read at most one size from `text`; return (state, value_mm).

    Split the text into words on spaces and commas; punctuation that ends a
    sentence (. ; : ! ?) at the end of a word is not part of it, so "seal 16."
    holds the bare number 16 and "a 16 mm." holds 16 mm. A size is a number
    (digits, optionally with one decimal point that has digits on both sides:
    "16", "0.625"; ".5" and "1.2.3" are not numbers, and a word like them is
    ignored) followed, with or without a space, by an optional unit word from
    UNIT_WORDS ("16 mm", "16mm", "0.625 inch", "2 inches"); anything else glued to
    the number ("16.mm", "16x") leaves it without a unit. Case does not matter.

      one number with a unit    -> ("ready", <millimetres as exact decimal text>)
                                   use to_mm(number_text, unit): to_mm("0.625", "inch") == "15.875"
      one number with no unit   -> ("clarify", None): ask, never assume millimetres
      no number at all          -> ("ready", None): no size was requested
      more than one number      -> ("failed", None): which one is meant?

    >>> parse_size("mechanical seal 16 mm")
    ('ready', '16')
    >>> parse_size("pump seal 16")
    ('clarify', None)
    """
    raise NotImplementedError("parse_size: write your answer here, then run: python3 -B methods.py check hybrid")


def reciprocal_rank_fusion(rankings, k: int = 60) -> list:
    """Task 2. Fuse rankings by rank alone (Cormack, Clarke and Buettcher, 2009).

    `rankings` is a list of rankings; each ranking is a list of distinct ids,
    best first. The first id of a ranking has rank 1 (not 0). An id earns
    1 / (k + rank) from every ranking that holds it, and nothing from a ranking
    that does not: an id found by one channel only is still fused.

    Return a list of (id, ordering_score) pairs, highest score first; equal
    scores are ordered by id (alphabetically). Raise ValueError if k < 1. A
    ranking must be a list or a tuple: a set has no order of its own (it comes
    out in an order that changes with the hash seed), so raise TypeError if a
    ranking is a set or a frozenset.

    >>> reciprocal_rank_fusion([["a", "b"], ["b"]], k=60)
    [('b', 0.03252247488101534), ('a', 0.01639344262295082)]
    """
    raise NotImplementedError("reciprocal_rank_fusion: write your answer here, then run: python3 -B methods.py check hybrid")


def fuse_by_cluster(channel_hits: dict, cluster_of: dict, k: int = 60) -> list:
    """Task 3. Collapse each channel's hits to canonical clusters, then fuse by rank.

    `channel_hits` maps a channel name to its hits, best first, each hit a
    (listing_id, raw_score) pair. The raw scores come from unrelated scales
    (term counts, cosines...): do not add or compare them, use positions only.
    `cluster_of` maps every listing id to its canonical cluster id; a listing and
    its copy share one cluster.

    Within one channel a cluster takes the position of its first (best) member
    and its later members are dropped, so the next cluster moves up: the ranks
    of a channel are 1, 2, 3... over distinct clusters. Then fuse the channels'
    cluster rankings with reciprocal_rank_fusion(..., k). Return
    [(cluster_id, ordering_score), ...] as reciprocal_rank_fusion does.
    """
    raise NotImplementedError("fuse_by_cluster: write your answer here, then run: python3 -B methods.py check hybrid")


# Task 4 (quiz). The lexical channel scores weighted term counts (title x3, description
# x1): PW-L001 scores 9 for PW-Q001 and 13 for PW-Q002. The vector channel scores a
# cosine, at most 1. A colleague ranks by lexical + cosine. What is wrong?
#   "a"  nothing, as long as both scores are higher-is-better
#   "b"  the sum can exceed 1, so it is no longer a probability of compatibility
#   "c"  the scales are unrelated, so the sum mostly repeats the lexical order, and writing
#        the same cosines as percentages would reorder the results with no new evidence
#   "d"  cosines can be negative, which makes the sum undefined
# Set RAW_SCORES_QUIZ to one letter.
RAW_SCORES_QUIZ = None  # TODO: your answer


def alias_effect(terms, aliases: dict, version: str, search) -> dict:
    """Task 5. Apply authorised catalogue aliases to a query's terms, keep the original, and
    measure what the transformation changes.

    `terms` is a sequence of the query's words; `aliases` maps a shopper's word to the
    catalogue's term ({"nbr": "nitrile"}); `version` names the alias table ("aliases/1");
    `search(terms)` returns the listing ids a channel proposes for a tuple of terms.
    A word is aliased only when it is a key of `aliases` as a whole word. Return
      {"original": the terms as given, a tuple,
       "terms":    the terms after aliasing, each once, sorted (a tuple),
       "step":     ("aliases", version, the original terms joined by spaces,
                    "word -> term" pairs joined by ", " in the order of the terms,
                    or "(no alias)"),
       "gained":   sorted ids search finds for the new terms and not for the original,
       "lost":     sorted ids search finds for the original and not for the new terms}
    """
    raise NotImplementedError("alias_effect: write your answer here, then run: python3 -B methods.py check hybrid")


__all__ = ["UNIT_WORDS", "parse_size", "reciprocal_rank_fusion", "fuse_by_cluster", "RAW_SCORES_QUIZ",
           "alias_effect"]
