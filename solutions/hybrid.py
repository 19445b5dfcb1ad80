"""Lesson 07 exercises: read a size honestly, then fuse channels by rank.

Task 1  parse_size              read one size from shopper text, imperial fractions too; never assume a unit
Task 2  weighted_rank_fusion    rank fusion with a declared weight per channel (weighted RRF)
Task 3  fuse_by_cluster         collapse copies by canonical cluster, keep a window of clusters, then fuse
Task 4  RAW_SCORES_QUIZ         why raw channel scores must not be added
Task 5  alias_effect            authorised aliases as a versioned step, and the candidates gained and lost
Task 6  PW_Q002_FIRST_CLUSTER   predict which cluster PW-Q002 fuses first, and from which ranks

Check your work:  python3 -B methods.py check hybrid
Stuck?            python3 -B methods.py hint hybrid
"""

from decimal import Decimal

from modules.hybrid import reciprocal_rank_fusion, to_mm

UNIT_WORDS = {"mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
              "inch": "inch", "inches": "inch"}


def parse_size(text: str) -> tuple:
    """Task 1. Read at most one size from `text`; return (state, value_mm), a tuple or a list
    (either is accepted).

    Split the text into words on spaces and commas; punctuation that ends a
    sentence (. ; : ! ?) at the end of a word is not part of it, so "seal 16."
    holds the bare number 16 and "a 16 mm." holds 16 mm. A size is a number
    (digits, optionally with one decimal point that has digits on both sides:
    "16", "0.625"; ".5" and "1.2.3" are not numbers, and a word like them is
    ignored) followed, with or without a space, by an optional unit word from
    UNIT_WORDS ("16 mm", "16mm", "0.625 inch", "2 inches"); other letters glued to the
    number, with or without a point or a hyphen between ("16.mm", "16-mm", "16x"),
    leave it a number without a unit. Case does not matter.

    One extension the lesson's parse_diameter does not have: seals are sold in
    imperial fractions, so a number may also be a fraction "a/b" of whole numbers
    whose denominator is 2, 4, 8, 16, 32 or 64 ("5/8 inch" is 0.625 inch: 15.875 mm;
    "5/8inch" too). Any other fraction ("1/3", "5/0") is not a number and is ignored,
    like "1.2.3". A whole number before a fraction ("1 1/4 inch") is two numbers.

      one number with a unit    -> ("ready", <millimetres as exact decimal text>)
                                   use to_mm(number_text, unit): to_mm("0.625", "inch") == "15.875";
                                   a fraction's number_text is its exact decimal ("5/8" -> "0.625")
      one number with no unit   -> ("clarify", None): ask, never assume millimetres
      no number at all          -> ("ready", None): no size was requested
      more than one number      -> ("failed", None): which one is meant?

    >>> parse_size("mechanical seal 16 mm")
    ('ready', '16')
    >>> parse_size("pump seal 16")
    ('clarify', None)
    >>> parse_size("lip seal 5/8 inch")
    ('ready', '15.875')
    """
    # BEGIN SOLUTION
    words = [word.rstrip(".;:!?") for word in text.lower().replace(",", " ").split()]
    sizes = []
    for index, word in enumerate(words):
        # "16.mm", "16-mm": the point or hyphen cuts the unit off, so the number stays without one
        number = word.rstrip("abcdefghijklmnopqrstuvwxyz").rstrip(".-")
        above, slash, below = number.partition("/")
        if slash:   # an imperial fraction: its exact decimal (a power of two divides a power of ten)
            if not (above.isascii() and above.isdigit() and below in ("2", "4", "8", "16", "32", "64")):
                continue
            value = str(Decimal(int(above)) / Decimal(int(below)))
        elif not number.isascii() or not number.replace(".", "", 1).isdigit() or number[0] == ".":
            continue
        else:
            value = number
        glued = word[len(number):]
        after = words[index + 1] if index + 1 < len(words) else ""
        unit = UNIT_WORDS.get(glued) if glued else UNIT_WORDS.get(after)
        sizes.append((value, unit))
    if not sizes:
        return "ready", None
    if len(sizes) > 1:
        return "failed", None
    number, unit = sizes[0]
    if unit is None:
        return "clarify", None
    return "ready", to_mm(number, unit)
    # END SOLUTION


def weighted_rank_fusion(rankings, weights, k: int = 60) -> list:
    """Task 2. Rank fusion with a declared weight per ranking (weighted reciprocal rank fusion,
    which search engines offer beside the plain kind).

    The lesson's reciprocal_rank_fusion gives every channel the same say. A catalogue team
    may declare that the lexical channel counts twice: then an id earns weight / (k + rank)
    from every ranking that holds it (rank from 1), and nothing from a ranking that does not.
    The weight multiplies a rank's term, never a raw score: scores still play no part.

    `rankings`: a list or a tuple of rankings, each a list or a tuple of distinct ids, best
    first (a set or frozenset raises TypeError: its order follows the hash seed; an id twice
    in one ranking raises ValueError). `weights`: one number (int or float) per ranking, in
    the same order; ValueError if there are more or fewer weights than rankings, or if a
    weight is not greater than 0. ValueError if k < 1. With every weight 1 the result is the
    lesson's reciprocal_rank_fusion.

    Return a list or a tuple (either is accepted) of (id, ordering_score) pairs, highest
    score first, equal scores ordered by id.

    >>> weighted_rank_fusion([["b", "a"], ["a", "b"]], [2, 1], k=60)
    [('b', 0.04891591750396616), ('a', 0.048651507139079855)]
    """
    # BEGIN SOLUTION
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings: give one weight per ranking")
    scores = {}
    for ranking, weight in zip(rankings, weights):
        if isinstance(ranking, (set, frozenset)):
            raise TypeError(f"a ranking must be a list or tuple, got {type(ranking).__name__}")
        if not weight > 0:
            raise ValueError(f"a weight must be greater than 0, got {weight!r}")
        if len(set(ranking)) != len(ranking):
            raise ValueError(f"a ranking lists an id twice: {list(ranking)!r}")
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    # END SOLUTION


def fuse_by_cluster(channel_hits: dict, cluster_of: dict, depth: int, k: int = 60) -> list:
    """Task 3. Collapse each channel's hits to canonical clusters, keep each channel's first
    `depth` clusters, then fuse by rank.

    `channel_hits` maps a channel name to its hits, best first, each hit a
    (listing_id, raw_score) pair. The raw scores come from unrelated scales
    (term counts, cosines...): do not add or compare them, use positions only.
    `cluster_of` maps every listing id to its canonical cluster id; a listing and
    its copy share one cluster.

    Within one channel a cluster takes the position of its first (best) member
    and its later members are dropped, so the next cluster moves up: the ranks
    of a channel are 1, 2, 3... over distinct clusters.

    One change from the lesson's fusion, which fuses every hit: only the first `depth`
    clusters of each channel vote (a fusion window, as search engines' rank fusion has).
    The window counts clusters, not listings: a copy never takes a place in it.
    Raise ValueError if depth < 1.

    Then fuse the channels' cluster rankings with the lesson's reciprocal_rank_fusion(...,
    k) (imported above). Return [(cluster_id, ordering_score), ...] as it does: a list or
    a tuple of pairs (either is accepted).
    """
    # BEGIN SOLUTION
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    rankings = []
    for hits in channel_hits.values():
        seen, ranking = set(), []
        for listing_id, _raw_score in hits:
            cluster = cluster_of[listing_id]
            if cluster not in seen:
                seen.add(cluster)
                ranking.append(cluster)
        rankings.append(ranking[:depth])
    return reciprocal_rank_fusion(rankings, k)
    # END SOLUTION


# Task 4 (quiz). The lexical channel scores weighted term counts (title x3, description
# x1): PW-L001 scores 9 for PW-Q001 and 13 for PW-Q002. The vector channel scores a
# cosine, at most 1. A colleague ranks by lexical + cosine. What is wrong?
#   "a"  nothing: both scores grow as the match gets better
#   "b"  the sum can pass 1, so it is no longer a probability of fit
#   "c"  the scales are unrelated: a rescaled cosine reorders it
#   "d"  a cosine can be negative, so the sum is undefined
# Set RAW_SCORES_QUIZ to one letter.
# BEGIN SOLUTION
RAW_SCORES_QUIZ = "c"
# END SOLUTION


def alias_effect(terms, aliases: dict, version: str, search) -> dict:
    """Task 5. Apply authorised catalogue aliases to a query's terms, keep the original, and
    measure what the transformation changes.

    `terms` is a sequence of the query's words; `aliases` maps a shopper's word to the
    catalogue's term ({"nbr": "nitrile"}); `version` names the alias table ("aliases/1");
    `search(terms)` returns the listing ids a channel proposes for a tuple of terms.
    A word is aliased only when it is a key of `aliases` as a whole word. Return a dict
      {"original": the terms as given,
       "terms":    the terms after aliasing, each once, sorted,
       "step":     ("aliases", version, the original terms joined by spaces,
                    "word -> term" pairs joined by ", " in the order of the terms,
                    or "(no alias)"),
       "gained":   sorted ids search finds for the new terms and not for the original,
       "lost":     sorted ids search finds for the original and not for the new terms}
    where "original", "terms", "step", "gained" and "lost" are each a list or a tuple (either is
    accepted).
    """
    # BEGIN SOLUTION
    original = tuple(terms)
    found = [word for word in original if word in aliases]
    new = tuple(sorted({aliases.get(word, word) for word in original}))
    step = ("aliases", version, " ".join(original),
            ", ".join(f"{word} -> {aliases[word]}" for word in found) or "(no alias)")
    before, after = set(search(original)), set(search(new))
    return {"original": original, "terms": new, "step": step, "gained": sorted(after - before),
            "lost": sorted(before - after)}
    # END SOLUTION


# Task 6 (predict). Before running anything: the trace shows PW-Q001's channels and fused
# table. For PW-Q002 ("carbon ceramic pump seal 16 mm") the vector channel's nearest
# listing is ref-d6dacd426e3c (denied, so it is shown only by its opaque ref), which the
# gate withholds before fusion; the vector channel's next are PW-L015, PW-L001, PW-L002
# and PW-L003, and both the lexical and the structured channel put PW-L001 first. Which canonical cluster does rank fusion put first
# for PW-Q002, and at which rank does it count in the lexical, structured and vector
# channel? Set PW_Q002_FIRST_CLUSTER to (cluster id, (lexical rank, structured rank,
# vector rank)), for example ("C-02", (2, 2, 3)); a list is accepted for the ranks.
# BEGIN SOLUTION
PW_Q002_FIRST_CLUSTER = ("C-01", (1, 1, 2))
# END SOLUTION


__all__ = ["UNIT_WORDS", "parse_size", "weighted_rank_fusion", "fuse_by_cluster", "RAW_SCORES_QUIZ",
           "alias_effect", "PW_Q002_FIRST_CLUSTER"]
