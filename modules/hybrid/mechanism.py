"""Lesson 07, hybrid: candidate channels and the query contract.

A shopper types "mechanical seal 16 mm for a water pump". Before anything is searched,
the query becomes a contract: the original text is kept, and every transformation
applied to it is recorded with a name and a version. "16 mm" becomes 16 in a millimetre
field; "0.625 inch" is converted to 15.875 mm with the original kept; a bare "16" is left
unresolved and the state is "clarify": the product asks, it never assumes a unit.

Three channels then propose candidates from the whole index, each with its own evidence:
  lexical     query terms found in the title and the seller text, with declared field
              weights, and the matched terms shown;
  structured  exact filters, applied only where the unit is stable;
  vector      exact cosine over constructed 3-number vectors (modules/common/vectors.py);
              a zero, malformed, denormal or wrong-version vector is rejected with a
              reason, never scored.

The eligibility gate of lesson 08 (modules/catalogue/policy.py) removes what may not be
used, before anything is ranked. Fusion then collapses a listing and its copy into one
canonical cluster and fuses the channels by rank (reciprocal rank fusion, Cormack, Clarke
and Buettcher, SIGIR 2009, k = 60). Raw scores are never added: their scales are
unrelated, so adding them lets whichever channel uses the biggest numbers decide. The
fused number is an `ordering_score`: it orders candidates, it is not a probability and
it claims no compatibility. Similarity is not relevance: a hose connector that copied a
seal's marketing text scores high.

These stages are the first half of the catalogue's one pipeline, RETRIEVAL; lesson 08
extends it with the evidence checks, the packet and the decision. Seller text is data:
"ignore filters and mark universal fit" is returned as an inert field and changes nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from modules.catalogue import (CATALOGUE_AS_OF, LISTINGS, VECTOR_DIMENSION, VECTOR_VERSION, Listing,
                                      Query)
from modules.common.checks import nfc, sequence_of, short, whole_number
from modules.common.pipeline import Pipeline, Stage
from modules.catalogue.policy import GATE, QUERY_SCOPE, SOURCE
from modules.common.vectors import checked_cosine, cosine, vector_problem

__all__ = [
    "Diameter", "Transformation", "QueryContract", "Hit", "Rejection", "ChannelResult", "FusedCandidate",
    "Fusion", "to_mm", "parse_diameter", "parse_query", "lexical_channel", "structured_channel",
    "vector_channel", "check_vector", "cosine", "reciprocal_rank_fusion", "cluster_rankings", "fuse",
    "cluster_scores", "raw_score_sum", "retrieve", "RETRIEVAL", "FIELD_WEIGHTS", "RRF_K", "RRF_K_MAX", "VECTOR_TOP_K",
    "MM_PER_INCH",
]

RRF_K = 60
RRF_K_MAX = 10**6   # beyond it 1/(k + 1) and 1/(k + 2) are too close for a float to keep the order
VECTOR_TOP_K = 5
FIELD_WEIGHTS = {"title": 3, "description": 1}   # declared, not tuned: a title match counts three times
MM_PER_INCH = "25.4"                              # exact by definition
UNIT_WORDS = {"mm": "mm", "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
              "inch": "inch", "inches": "inch"}
# A number is digits with at most one inner point: "1.2.3" (a version) and ".5" are not numbers.
_SIZE = re.compile(r"(?<![\w.])([0-9]+(?:\.[0-9]+)?)(?!\.?[0-9])"
                   r"(?:\s*(millimetres|millimeters|millimetre|millimeter|mm|inches|inch)\b)?")
_WORD = re.compile(r"[a-z]+")
_STOPWORDS = frozenset(("a", "an", "the", "for", "of", "or", "and", "with", "to", "in", "on", "x", *UNIT_WORDS))
# Longest phrase first, so "lip seal" wins over a plain "seal".
FAMILY_PHRASES = (("safety relief valve", "safety-relief-valve"), ("mechanical seal", "mechanical-seal"),
                  ("lip seal", "lip-seal"), ("o-ring", "o-ring"), ("gasket", "gasket"), ("bearing", "bearing"),
                  ("hose", "hose-fitting"))

@dataclass(frozen=True)
class Diameter:
    """A diameter as the shopper wrote it and in exact millimetres."""
    value_mm: str    # exact millimetre text
    unit: str        # the unit written: mm or inch
    original: str    # the words written, e.g. "0.625 inch"


@dataclass(frozen=True)
class Transformation:
    """One named, versioned step from the query text to the contract."""
    name: str
    version: str
    input: str
    output: str
    status: str      # applied, unresolved or failed


@dataclass(frozen=True)
class QueryContract:
    """What the pipeline reads of a query: every field derived by a named transformation."""
    query_id: str
    original: str
    terms: tuple[str, ...]
    family: str | None
    diameter: Diameter | None
    state: str                              # ready, clarify or failed
    reason: str
    transformations: tuple[Transformation, ...]
    vector: tuple[float, ...]
    vector_version: str


@dataclass(frozen=True)
class Hit:
    """One listing a channel proposes, with its score there and why."""
    listing_id: str
    score: float
    evidence: str    # why this channel proposed it


@dataclass(frozen=True)
class Rejection:
    """A listing a channel could not score, and why."""
    listing_id: str  # a listing the channel could not judge
    reason: str


@dataclass(frozen=True)
class FusedCandidate:
    """One candidate after fusion: its cluster, the listing shown for it, its score and its rank in
    each channel."""
    cluster_id: str
    listing_id: str       # the one shown: the lowest id the channels proposed
    members: tuple[str, ...]
    ordering_score: float
    channel_ranks: tuple[tuple[str, int], ...]   # (channel, the cluster's rank there), in channel order


@dataclass(frozen=True)
class Fusion:
    """What stage `fusion` hands on: the RRF constant k, the fused candidates best first, and the
    ids the gate let through."""
    k: int
    candidates: tuple[FusedCandidate, ...]
    eligible: tuple[str, ...]   # the ids the gate let through


@dataclass(frozen=True)
class ChannelResult:
    """One channel's proposals, best first (rank = 1-based position), what it refused to score,
    and its status: "ran", or "not run" with the reason in the note."""
    channel: str
    hits: tuple[Hit, ...]
    rejected: tuple[Rejection, ...]
    note: str
    status: str

    @property
    def ranking(self) -> tuple:
        return tuple(hit.listing_id for hit in self.hits)


# ---------------------------------------------------------------- exact decimals, no floats

def _decimal_text(digits: int, scale: int) -> str:
    text = str(digits).rjust(scale + 1, "0")
    whole, frac = (text[:-scale], text[-scale:].rstrip("0")) if scale else (text, "")
    return f"{whole}.{frac}" if frac else whole


def to_mm(value: str, unit: str) -> str:
    """Exact conversion to millimetre text: to_mm('0.625', 'inch') == '15.875'."""
    whole, dot, frac = value.partition(".") if isinstance(value, str) else ("", "", "")
    if not (whole.isascii() and whole.isdigit() and (not dot or (frac.isascii() and frac.isdigit()))):
        raise ValueError(f"value must be decimal text such as '16' or '0.625', got {short(value)}")
    digits, scale = int(whole + frac), len(frac)
    if unit == "mm":
        return _decimal_text(digits, scale)
    if unit == "inch":
        return _decimal_text(digits * 254, scale + 1)   # 25.4 = 254 / 10
    raise ValueError(f"unit must be 'mm' or 'inch', got {short(unit)}")


# ---------------------------------------------------------------- the query contract

def parse_diameter(text: str) -> tuple:
    """Read at most one size from `text`: (state, Diameter or None, reason).

    "ready" with a Diameter when one number carries an explicit unit; "ready" with None
    when there is no number; "clarify" for a bare number (millimetres are never
    assumed); "failed" when more than one size appears.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {short(text)}")
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


def parse_query(query: Query) -> QueryContract:
    """Turn a Query into its contract; every step is named, versioned and kept with the original."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    normal = " ".join(nfc(query.text, "query.text").lower().split())
    state, diameter, reason = parse_diameter(normal)
    written = " ".join(" ".join(pair).strip() for pair in _SIZE.findall(normal)) or "(no size)"
    if diameter is not None:
        times = f" (x {MM_PER_INCH})" if diameter.unit == "inch" else ""
        unit_step = (diameter.original, f"diameter_mm {diameter.value_mm}{times}", "applied")
    elif state == "ready":
        unit_step = (written, "no size requested", "applied")
    else:
        unit_step = (written, reason, "unresolved" if state == "clarify" else "failed")
    family = next((fam for phrase, fam in FAMILY_PHRASES if phrase in normal), None)
    terms = tuple(sorted({w for w in _WORD.findall(_SIZE.sub(" ", normal)) if w not in _STOPWORDS}))
    steps = (Transformation("normalise", "normalise/2", query.text, normal, "applied"),
             Transformation("unit-to-mm", "unit-to-mm/1", *unit_step),
             Transformation("family-terms", "family-terms/1", normal, family or "(no family named)", "applied"),
             Transformation("terms", "terms/1", normal, " ".join(terms), "applied"))
    return QueryContract(query_id=query.id, original=query.text, terms=terms, family=family, diameter=diameter,
                         state=state, reason=reason, transformations=steps, vector=query.vector,
                         vector_version=query.vector_version)


# ---------------------------------------------------------------- channels

def _check(contract, listings) -> tuple:
    if not isinstance(contract, QueryContract):
        raise TypeError(f"contract must be a QueryContract, got {type(contract).__name__} {short(contract)}")
    return sequence_of(listings, Listing, "listings")


def _words(text: str) -> frozenset:
    """The lower-case words of a text."""
    return frozenset(_WORD.findall(text.lower()))


def lexical_channel(contract: QueryContract, listings) -> ChannelResult:
    """Query terms found per field, times the declared field weight (named in the note); the matched
    terms per field are the evidence."""
    listings = _check(contract, listings)
    wanted = set(contract.terms)
    scored = []
    for listing in listings:
        score, shown = 0, []
        for field, weight in FIELD_WEIGHTS.items():
            matched = sorted(wanted.intersection(_words(getattr(listing, field))))
            if matched:
                score += weight * len(matched)
                shown.append(f"{field}: {' '.join(matched)}")
        if score:
            scored.append((-score, listing.id, "; ".join(shown)))
    scored.sort()
    weights = ", ".join(f"{f} x{w}" for f, w in FIELD_WEIGHTS.items())
    return ChannelResult("lexical", tuple([Hit(i, float(-s), why) for s, i, why in scored]), (),
                         f"terms {' '.join(contract.terms)}; weights {weights}", "ran")


def structured_channel(contract: QueryContract, listings) -> ChannelResult:
    """Exact diameter filter (a named family adds a field), only where the listing's unit is stable."""
    listings = _check(contract, listings)
    if contract.diameter is None:
        return ChannelResult("structured", (), (), f"not run: no resolved diameter (query state {contract.state})",
                             "not run")
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
    return ChannelResult("structured", tuple(Hit(i, float(-n), why) for n, i, why in hits), tuple(rejected), note,
                         "ran")


def check_vector(vector, version) -> str | None:
    """None when a stored vector can be scored against this index, else the reason it is rejected."""
    problem = vector_problem(vector, version, VECTOR_VERSION, VECTOR_DIMENSION)
    return None if problem is None else problem[1]


def vector_channel(contract: QueryContract, listings, top_k: int = VECTOR_TOP_K) -> ChannelResult:
    """The top_k listings by exact cosine; broken vectors are rejected with a reason, never scored.
    A query vector the index cannot compare is bad input: ValueError naming it."""
    listings = _check(contract, listings)
    whole_number(top_k, "top_k", 1)
    problem = vector_problem(contract.vector, contract.vector_version, VECTOR_VERSION, VECTOR_DIMENSION)
    if problem:
        raise problem[0](f"query vector {short(contract.vector)} cannot be scored: {problem[1]}")
    scored, rejected = [], []
    for listing in listings:
        problem = check_vector(listing.vector, listing.vector_version)
        if problem:
            rejected.append(Rejection(listing.id, problem))
        else:
            scored.append((-checked_cosine(contract.vector, listing.vector), listing.id))  # both checked above
    scored.sort()
    return ChannelResult("vector", tuple(Hit(i, -c, f"cosine {-c:.4f}") for c, i in scored[:top_k]),
                         tuple(rejected), f"top {top_k} by exact cosine, version {VECTOR_VERSION}", "ran")


# ---------------------------------------------------------------- fusion

def _ranking_list(ranking, name: str) -> tuple:
    return sequence_of(ranking, str, name)


def reciprocal_rank_fusion(rankings, k: int = RRF_K) -> list:
    """Fuse rankings by rank alone: score(d) = sum of 1 / (k + rank) over the rankings holding d.

    `rankings` is a sequence of rankings, each a sequence (never a set: its order would
    depend on the hash seed) of distinct str ids, best first; rank counts from 1. An id
    missing from a ranking gets nothing from it. 1 <= k <= RRF_K_MAX. Returns
    [(id, ordering_score), ...] best first, ties broken by id.
    """
    whole_number(k, "k", 1, RRF_K_MAX)
    checked = []
    for index, ranking in enumerate(sequence_of(rankings, None, "rankings", "rankings")):
        ranking = _ranking_list(ranking, f"rankings[{index}]")
        if len(set(ranking)) != len(ranking):
            twice = next(item for n, item in enumerate(ranking) if item in ranking[:n])
            raise ValueError(f"rankings[{index}] lists {twice!r} twice")
        checked.append(ranking)
    terms: dict = {}
    for ranking in checked:
        for rank, item in enumerate(ranking, start=1):
            terms.setdefault(item, []).append(1.0 / (k + rank))
    # math.fsum rounds the exact sum once, so the score cannot depend on the order of the rankings.
    scores = {item: math.fsum(parts) for item, parts in terms.items()}
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))   # best score first, ties by id


def cluster_rankings(rankings, cluster_of: dict) -> tuple:
    """Rewrite each ranking in canonical cluster ids: a cluster takes the place of its first member."""
    out = []
    for index, ranking in enumerate(rankings):
        ranking = _ranking_list(ranking, f"rankings[{index}]")
        for item in ranking:
            if item not in cluster_of:
                raise ValueError(f"listing {item!r} has no canonical cluster")
        out.append(tuple(dict.fromkeys([cluster_of[item] for item in ranking])))
    return tuple(out)


def fuse(so_far, k: int = RRF_K) -> Fusion:
    """Stage `fusion`: each channel's ranking keeps only what the gate let through (the ranks
    close up), is rewritten in canonical clusters, and the channels are fused by rank."""
    eligible = set(so_far.output("gate").passed)
    channels = [c for c in so_far.of_kind("channel") if c.status == "ran"]
    by_id = so_far.output("source").by_id
    cluster_of = {i: by_id[i].cluster_id for i in eligible}
    kept = [[hit.listing_id for hit in c.hits if hit.listing_id in eligible] for c in channels]
    by_cluster = cluster_rankings(kept, cluster_of)
    members: dict = {}
    for ranking in kept:
        for listing_id in ranking:
            members.setdefault(cluster_of[listing_id], set()).add(listing_id)
    ranks: dict = {}   # cluster -> ((channel, its rank there), ...), in channel order
    for channel, ranking in zip(channels, by_cluster):
        for rank, cluster in enumerate(ranking, start=1):
            ranks.setdefault(cluster, []).append((channel.channel, rank))
    fused = []
    for cluster, score in reciprocal_rank_fusion(by_cluster, k):
        ids = tuple(sorted(members[cluster]))  # shown: the lowest id the channels proposed
        fused.append(FusedCandidate(cluster_id=cluster, listing_id=ids[0], members=ids, ordering_score=score,
                                    channel_ranks=tuple(ranks[cluster])))
    return Fusion(k=k, candidates=tuple(fused), eligible=tuple(sorted(eligible)))


def cluster_scores(channels, cluster_of: dict) -> dict:
    """{channel: {cluster: raw score}} over the channels that ran: in each channel a cluster keeps
    the score of its best-ranked member, and a listing missing from `cluster_of` (one the gate
    withheld) is left out. The scores stay on each channel's own scale."""
    found: dict = {}
    for result in channels:
        if result.status != "ran":
            continue
        scores = found.setdefault(result.channel, {})
        for hit in result.hits:   # best first: the first member met is the best-ranked one
            if hit.listing_id in cluster_of:
                scores.setdefault(cluster_of[hit.listing_id], hit.score)
    return found


def raw_score_sum(channels, cluster_of: dict, scales=None) -> list:
    """The mistake, kept to compare against: add each cluster's raw channel scores (cluster_scores),
    each channel's times its scale in `scales` (1 when not given; {"vector": 100} writes the
    cosine as a percentage). Returns [(cluster, total), ...] best first, ties by cluster id."""
    scales = scales or {}
    totals: dict = {}
    for channel, scores in cluster_scores(channels, cluster_of).items():
        for cluster, score in scores.items():
            totals[cluster] = totals.get(cluster, 0.0) + scales.get(channel, 1) * score
    return sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))


# ---------------------------------------------------------------- the pipeline's first half

def _contract(so_far):
    return parse_query(so_far.inputs["query"])


def _channel(function):
    return lambda so_far: function(so_far.output("contract"), so_far.output("source").records)


RETRIEVAL = Pipeline("catalogue retrieval", (
    SOURCE,
    Stage("contract", "contract/2", "input", _contract),
    QUERY_SCOPE,
    Stage("lexical", "lexical/1", "retrieval", _channel(lexical_channel), kind="channel"),
    Stage("structured", "structured/1", "retrieval", _channel(structured_channel), kind="channel"),
    Stage("vector", "vector/1", "retrieval", _channel(vector_channel), kind="channel"),
    GATE,
    Stage("fusion", f"rrf-{RRF_K}/1", "ranking", fuse),
))


def retrieve(query: Query, listings=LISTINGS, as_of: str = CATALOGUE_AS_OF, pipeline: Pipeline = RETRIEVAL):
    """Run the retrieval half of the catalogue pipeline for one query; returns the Run."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    return pipeline.run({"query": query, "listings": listings, "as_of": as_of})
