"""Lesson 07, hybrid: candidate channels and the query contract.

A shopper types "mechanical seal 16 mm for a water pump". Before anything is
searched, the query becomes a contract: the original text is kept, and every
transformation applied to it is recorded with a name and a version. "16 mm" becomes
16 in a millimetre field; "0.625 inch" is converted to 15.875 mm with the original
kept; a bare "16" is left unresolved and the state is "clarify": the product asks,
it never assumes a unit.

Three channels then propose candidates, each with its own evidence:
  lexical     query terms found in the title and the seller text, with declared
              field weights, and the matched terms shown;
  structured  exact filters, applied only where the unit is stable;
  vector      exact cosine over constructed 3-number vectors; a zero, malformed
              or wrong-version vector is rejected with a reason, never scored.

The hybrid step takes the union, collapses a listing and its copy into one
canonical cluster, and fuses the channels by rank (reciprocal rank fusion,
Cormack, Clarke and Buettcher, SIGIR 2009, k = 60). Raw scores are never added:
their scales are unrelated, so adding them lets whichever channel happens to
use the biggest numbers decide. The fused number is an `ordering_score`: it
orders candidates, it is not a probability and it claims no compatibility.
Similarity is not relevance: a hose connector that copied a seal's marketing
text scores high. Lesson 08 decides what may be used; this lesson only proposes.

Seller text is data. A description saying "ignore filters and mark universal
fit" is returned as an inert field and changes no filter, score or state.
"""

from __future__ import annotations

import math
import re
from collections import namedtuple

from modules.catalogue import LISTINGS, VECTOR_VERSION, Listing, Query, permitted_listings

__all__ = [
    "Diameter", "Transformation", "QueryContract", "Hit", "Rejection", "ChannelResult", "FusedCandidate",
    "to_mm", "parse_diameter", "parse_query", "lexical_channel", "structured_channel", "vector_channel",
    "check_vector", "cosine", "reciprocal_rank_fusion", "cluster_rankings", "hybrid_search", "raw_score_sum",
    "FIELD_WEIGHTS", "RRF_K", "VECTOR_TOP_K", "MM_PER_INCH", "trace", "view",
]

RRF_K = 60
VECTOR_TOP_K = 5
FIELD_WEIGHTS = {"title": 3, "description": 1}   # declared, not tuned: a title match counts three times
MM_PER_INCH = "25.4"                              # exact by definition
UNIT_WORDS = {"mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
              "inch": "inch", "inches": "inch"}
# A number is digits with at most one inner point: "1.2.3" (a version) and ".5" are not numbers.
_SIZE = re.compile(r"(?<![\w.])([0-9]+(?:\.[0-9]+)?)(?!\.?[0-9])(?:\s*(millimetres|millimeters|millimetre|millimeter|mm|inches|inch)\b)?")
_WORD = re.compile(r"[a-z]+")
_STOPWORDS = frozenset(("a", "an", "the", "for", "of", "or", "and", "with", "to", "in", "on", "x", *UNIT_WORDS))
# Longest phrase first, so "lip seal" wins over a plain "seal".
FAMILY_PHRASES = (("safety relief valve", "safety-relief-valve"), ("mechanical seal", "mechanical-seal"),
                  ("lip seal", "lip-seal"), ("o-ring", "o-ring"), ("gasket", "gasket"), ("bearing", "bearing"),
                  ("hose", "hose-fitting"))

# Immutable records. (Named tuples rather than dataclasses: a lesson command is
# rebuilt on every run, and these cost a tenth as much to define.)
Diameter = namedtuple("Diameter", "value_mm unit original")   # exact mm text, unit written, words written
Transformation = namedtuple("Transformation", "name version input output status")  # applied/unresolved/failed
QueryContract = namedtuple("QueryContract", "query_id original terms family diameter state reason "
                                            "transformations vector vector_version")
Hit = namedtuple("Hit", "listing_id score evidence")          # evidence: why this channel proposed it
Rejection = namedtuple("Rejection", "listing_id reason")      # a listing the channel could not judge
FusedCandidate = namedtuple("FusedCandidate", "cluster_id listing_id members ordering_score channel_ranks")


class ChannelResult(namedtuple("ChannelResult", "channel hits rejected note")):
    """One channel's proposals, best first (rank = 1-based position), and what it refused to score."""

    __slots__ = ()

    @property
    def ranking(self) -> tuple:
        return tuple(hit.listing_id for hit in self.hits)


# ---------------------------------------------------------------- exact decimals, no floats

def _decimal(text: str) -> tuple:
    """'0.625' -> (625, 3): value = digits / 10**scale, exact."""
    whole, _, frac = text.partition(".")
    return int(whole + frac), len(frac)


def _decimal_text(digits: int, scale: int) -> str:
    text = str(digits).rjust(scale + 1, "0")
    whole, frac = (text[:-scale], text[-scale:].rstrip("0")) if scale else (text, "")
    return f"{whole}.{frac}" if frac else whole


def to_mm(value: str, unit: str) -> str:
    """Exact conversion to millimetre text: to_mm('0.625', 'inch') == '15.875'."""
    whole, dot, frac = value.partition(".") if isinstance(value, str) else ("", "", "")
    if not (whole.isascii() and whole.isdigit() and (not dot or (frac.isascii() and frac.isdigit()))):
        raise ValueError(f"value must be decimal text such as '16' or '0.625', got {value!r}")
    digits, scale = _decimal(value)
    if unit == "mm":
        return _decimal_text(digits, scale)
    if unit == "inch":
        per_inch, per_scale = _decimal(MM_PER_INCH)
        return _decimal_text(digits * per_inch, scale + per_scale)
    raise ValueError(f"unit must be 'mm' or 'inch', got {unit!r}")


# ---------------------------------------------------------------- the query contract

def parse_diameter(text: str) -> tuple:
    """Read at most one size from `text`: (state, Diameter or None, reason).

    "ready" with a Diameter when one number carries an explicit unit; "ready"
    with None when there is no number; "clarify" for a bare number (millimetres
    are never assumed); "failed" when more than one size appears.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {text!r}")
    found = _SIZE.findall(text.lower())
    if not found:
        return "ready", None, "no size in the text"
    if len(found) > 1:
        sizes = ", ".join((number + " " + unit).strip() for number, unit in found)
        return "failed", None, f"more than one size ({sizes}): which one is meant?"
    number, word = found[0]
    if not word:
        return "clarify", None, f"bare number {number!r} has no unit: mm or inch?"
    unit = UNIT_WORDS[word]
    return "ready", Diameter(to_mm(number, unit), unit, f"{number} {word}"), f"explicit unit {word!r}"


def _family(text: str):
    for phrase, family in FAMILY_PHRASES:
        if phrase in text:
            return family
    return None


def parse_query(query: Query) -> QueryContract:
    """Turn a Query into its contract; every step is named, versioned and kept with the original."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {query!r}")
    normal = " ".join(query.text.lower().split())
    state, diameter, reason = parse_diameter(normal)
    if diameter is not None:
        times = f" (x {MM_PER_INCH})" if diameter.unit == "inch" else ""
        unit_step = (diameter.original, f"diameter_mm = {diameter.value_mm}{times}", "applied")
    elif state == "ready":
        unit_step = (normal, "no size requested", "applied")
    else:
        unit_step = (normal, f"{'unresolved' if state == 'clarify' else 'failed'}: {reason}",
                     "unresolved" if state == "clarify" else "failed")
    family = _family(normal)
    terms = tuple(sorted({w for w in _WORD.findall(_SIZE.sub(" ", normal)) if w not in _STOPWORDS}))
    steps = (Transformation("normalise", "normalise/1", query.text, normal, "applied"),
             Transformation("unit-to-mm", "unit-to-mm/1", *unit_step),
             Transformation("family-terms", "family-terms/1", normal, family or "(no family named)", "applied"),
             Transformation("terms", "terms/1", normal, " ".join(terms), "applied"))
    return QueryContract(query.id, query.text, terms, family, diameter, state, reason, steps,
                         query.vector, query.vector_version)


# ---------------------------------------------------------------- channels

def _check(contract, listings) -> tuple:
    if not isinstance(contract, QueryContract):
        raise TypeError(f"contract must be a QueryContract, got {type(contract).__name__} {contract!r}")
    if isinstance(listings, (str, bytes)) or not hasattr(listings, "__iter__"):
        raise TypeError(f"listings must be a sequence of Listing, got {type(listings).__name__} {listings!r}")
    found = tuple(listings)
    for index, listing in enumerate(found):
        if not isinstance(listing, Listing):
            raise TypeError(f"listings[{index}] must be a Listing, got {type(listing).__name__} {listing!r}")
    return found


_WORDS_OF: dict = {}


def _words(text: str) -> frozenset:
    """The lower-case words of a text, remembered: the same listing is read by every query."""
    found = _WORDS_OF.get(text)
    if found is None:
        found = _WORDS_OF[text] = frozenset(_WORD.findall(text.lower()))
    return found


def lexical_channel(contract: QueryContract, listings) -> ChannelResult:
    """Query terms found per field, times the declared field weight; the matched terms are the evidence."""
    listings = _check(contract, listings)
    wanted = set(contract.terms)
    scored = []
    for listing in listings:
        score, shown = 0, []
        for field, weight in FIELD_WEIGHTS.items():
            matched = sorted(wanted.intersection(_words(getattr(listing, field))))
            if matched:
                score += weight * len(matched)
                shown.append(f"{field} x{weight}: {' '.join(matched)}")
        if score:
            scored.append((-score, listing.id, "; ".join(shown)))
    scored.sort()
    weights = ", ".join(f"{f} x{w}" for f, w in FIELD_WEIGHTS.items())
    return ChannelResult("lexical", tuple(Hit(i, float(-s), why) for s, i, why in scored), (),
                         f"terms {' '.join(contract.terms)}; weights {weights}")


def structured_channel(contract: QueryContract, listings) -> ChannelResult:
    """Exact diameter filter (a named family adds a field), only where the listing's unit is stable."""
    listings = _check(contract, listings)
    if contract.diameter is None:
        return ChannelResult("structured", (), (), f"not run: no resolved diameter (query state {contract.state})")
    want = contract.diameter.value_mm
    hits, rejected = [], []
    for listing in listings:
        if not listing.listed_unit or listing.diameter_mm is None:
            rejected.append(Rejection(listing.id, "unit missing: the diameter is not a stable value"))
        elif listing.diameter_mm == want:
            fields = ("diameter_mm", "family") if listing.family == contract.family else ("diameter_mm",)
            hits.append((-len(fields), listing.id, " + ".join(fields) + " match"))
    hits.sort()  # more matched fields first; a filter has no other order, so ties go by id
    note = f"diameter_mm == {want}" + (f"; family == {contract.family} adds a field" if contract.family else "")
    return ChannelResult("structured", tuple(Hit(i, float(-n), why) for n, i, why in hits), tuple(rejected), note)


def check_vector(vector, version) -> str | None:
    """None when the vector can be scored, else the reason it is rejected."""
    if version != VECTOR_VERSION:
        return f"vector version {version!r}, the index expects {VECTOR_VERSION!r}"
    if not isinstance(vector, tuple) or len(vector) != 3:
        size = len(vector) if isinstance(vector, (tuple, list)) else type(vector).__name__
        return f"malformed: expected 3 numbers, got {size}"
    for value in vector:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"malformed: {value!r} is not a finite number"
    if not any(vector):
        return "zero vector: its cosine is undefined"
    return None


def cosine(a: tuple, b: tuple) -> float:
    """Exact cosine of two vectors that pass check_vector."""
    for name, vector in (("a", a), ("b", b)):
        problem = check_vector(vector, VECTOR_VERSION)
        if problem:
            raise ValueError(f"vector {name}={vector!r} cannot be scored: {problem}")
    return _cosine(a, b)


def _cosine(a: tuple, b: tuple) -> float:
    # Written out for three numbers (check_vector guarantees it); same sums, same order as sum().
    dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    return dot / math.sqrt((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) * (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]))


def vector_channel(contract: QueryContract, listings, top_k: int = VECTOR_TOP_K) -> ChannelResult:
    """The top_k listings by exact cosine; broken vectors are rejected with a reason, never scored."""
    listings = _check(contract, listings)
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise TypeError(f"top_k must be an int, got {type(top_k).__name__} {top_k!r}")
    if top_k < 1:
        raise ValueError(f"top_k must be >= 1, got {top_k}")
    problem = check_vector(contract.vector, contract.vector_version)
    if problem:
        raise ValueError(f"query vector {contract.vector!r} cannot be scored: {problem}")
    scored, rejected = [], []
    for listing in listings:
        problem = check_vector(listing.vector, listing.vector_version)
        if problem:
            rejected.append(Rejection(listing.id, problem))
        else:
            scored.append((-_cosine(contract.vector, listing.vector), listing.id))  # both checked above
    scored.sort()
    return ChannelResult("vector", tuple(Hit(i, -c, f"cosine {-c:.4f}") for c, i in scored[:top_k]),
                         tuple(rejected), f"top {top_k} by exact cosine, version {VECTOR_VERSION}")


# ---------------------------------------------------------------- fusion

def reciprocal_rank_fusion(rankings, k: int = RRF_K) -> list:
    """Fuse rankings by rank alone: score(d) = sum of 1 / (k + rank) over the rankings holding d.

    `rankings` is a sequence of rankings, each a sequence of distinct ids, best
    first; rank counts from 1. An id missing from a ranking simply gets nothing
    from it. Returns [(id, ordering_score), ...] best first, ties broken by id.
    (Cormack, Clarke and Buettcher, SIGIR 2009.)
    """
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an int, got {type(k).__name__} {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if isinstance(rankings, (str, bytes, dict)) or not hasattr(rankings, "__iter__"):
        raise TypeError(f"rankings must be a sequence of rankings, got {type(rankings).__name__} {rankings!r}")
    terms: dict = {}
    for index, ranking in enumerate(rankings):
        if isinstance(ranking, (str, bytes)) or not hasattr(ranking, "__iter__"):
            raise TypeError(f"rankings[{index}] must be a sequence of ids, got {type(ranking).__name__} {ranking!r}")
        seen = set()
        for rank, item in enumerate(ranking, start=1):
            if not isinstance(item, str):
                raise TypeError(f"rankings[{index}] must hold str ids, got {type(item).__name__} {item!r}")
            if item in seen:
                raise ValueError(f"rankings[{index}] lists {item!r} twice")
            seen.add(item)
            terms.setdefault(item, []).append(1.0 / (k + rank))
    # math.fsum rounds the exact sum once, so the score cannot depend on the order of the rankings
    # (a running float sum can differ in its last bit and flip two tied items).
    scores = {item: math.fsum(parts) for item, parts in terms.items()}
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


def cluster_rankings(rankings, cluster_of: dict) -> tuple:
    """Rewrite each ranking in canonical cluster ids: a cluster takes the place of its first member."""
    out = []
    for ranking in rankings:
        seen, clusters = set(), []
        for item in ranking:
            if item not in cluster_of:
                raise ValueError(f"listing {item!r} has no canonical cluster")
            if cluster_of[item] not in seen:
                seen.add(cluster_of[item])
                clusters.append(cluster_of[item])
        out.append(tuple(clusters))
    return tuple(out)


def raw_score_sum(channels, scales=None) -> list:
    """The mistake, kept to compare against: add raw channel scores (each times an optional scale)."""
    scales = scales or {}
    totals: dict = {}
    for result in channels:
        for hit in result.hits:
            totals[hit.listing_id] = totals.get(hit.listing_id, 0.0) + scales.get(result.channel, 1) * hit.score
    return sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))


def hybrid_search(query: Query, listings=None) -> tuple:
    """(contract, channel results, fused candidates) for one query; default pool: permitted listings."""
    pool = permitted_listings(LISTINGS) if listings is None else listings
    contract = parse_query(query)
    channels = (lexical_channel(contract, pool), structured_channel(contract, pool), vector_channel(contract, pool))
    cluster_of = {listing.id: listing.cluster_id for listing in pool}
    by_cluster = cluster_rankings([c.ranking for c in channels], cluster_of)
    members: dict = {}
    for channel in channels:
        for listing_id in channel.ranking:
            members.setdefault(cluster_of[listing_id], set()).add(listing_id)
    where = [(c.channel, {cluster: rank for rank, cluster in enumerate(r, start=1)})
             for c, r in zip(channels, by_cluster)]
    fused = []
    for cluster, score in reciprocal_rank_fusion(by_cluster, RRF_K):
        ids = tuple(sorted(members[cluster]))  # shown: the lowest id the channels proposed
        fused.append(FusedCandidate(cluster, ids[0], ids, score,
                                    {name: ranks[cluster] for name, ranks in where if cluster in ranks}))
    return contract, channels, tuple(fused)


# ---------------------------------------------------------------- the trace

# The lesson's trace and view live in modules/hybrid_trace.py. Lesson 08 imports the
# channels above on every run; kept apart, it does not compile this lesson's tables too.
DETAIL_QUERY = "PW-Q001"


def trace(detail_query: str = DETAIL_QUERY) -> dict:
    """Every query's contract, one query's channels and fusion, and the two side-by-sides."""
    from modules import hybrid_trace
    return hybrid_trace.trace(detail_query)


def view(record: dict) -> list:
    """Printable blocks: contracts, channels, fusion, the raw-score trap and the inert seller text."""
    from modules import hybrid_trace
    return hybrid_trace.view(record)
