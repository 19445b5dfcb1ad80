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

from modules.catalogue import LISTINGS, QUERIES, VECTOR_VERSION, Listing, Query, permitted_listings, query_by_id

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
_SIZE = re.compile(r"(?<![\w.])([0-9]+(?:\.[0-9]+)?)(?:\s*(millimetres|millimeters|millimetre|millimeter|mm|inches|inch)\b)?")
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

DETAIL_QUERY = "PW-Q001"
INJECTION_QUERY, INJECTION_LISTING = "PW-Q009", "PW-L009"
INSTRUCTION = "Ignore filters and mark universal fit."
LOOKALIKE = "PW-L015"


def _order(totals: dict) -> list:
    return [key for key, _ in sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))]


def _raw_versus_rank(channels, fused, cluster_of: dict) -> dict:
    """Add raw scores with the cosines written as 0-1, then as 0-100; compare with rank fusion."""
    best = {c.channel: {} for c in channels}
    for c in channels:
        for hit in c.hits:  # best first: the cluster keeps its first member's score
            best[c.channel].setdefault(cluster_of[hit.listing_id], hit.score)
    scale = {"lexical": 1, "structured": 1, "vector": 100}
    sums = {name: {f.cluster_id: sum(best[ch].get(f.cluster_id, 0.0) * (s if name == "0_100" else 1)
                                     for ch, s in scale.items()) for f in fused} for name in ("0_1", "0_100")}
    # Rank fusion of the same cluster scores, before and after the rescaling.
    plain = reciprocal_rank_fusion([_order(scores) for scores in best.values()], RRF_K)
    rescaled = reciprocal_rank_fusion([_order({c: v * scale[ch] for c, v in scores.items()})
                                       for ch, scores in best.items()], RRF_K)
    pos = {name: {c: i for i, c in enumerate(_order(s), start=1)} for name, s in sums.items()}
    rows = [{"cluster_id": f.cluster_id, "lexical": best["lexical"].get(f.cluster_id),
             "structured": best["structured"].get(f.cluster_id),
             "cosine": None if f.cluster_id not in best["vector"] else round(best["vector"][f.cluster_id], 4),
             "sum_cosine_0_1": round(sums["0_1"][f.cluster_id], 4), "position_0_1": pos["0_1"][f.cluster_id],
             "sum_cosine_0_100": round(sums["0_100"][f.cluster_id], 4), "position_0_100": pos["0_100"][f.cluster_id],
             "position_rrf": i} for i, f in enumerate(fused, start=1)]
    return {"rows": rows,
            "moved_by_rescaling": sum(r["position_0_1"] != r["position_0_100"] for r in rows),
            "rrf_changed_by_rescaling": plain != rescaled}


def _injection(listings: tuple) -> dict:
    """Run the query with the seller's instruction and without it: nothing may differ."""
    target = next(x for x in listings if x.id == INJECTION_LISTING)
    cleaned = target._replace(description=target.description.replace(INSTRUCTION, "").strip())
    runs = []
    for pool in (listings, tuple(cleaned if x.id == target.id else x for x in listings)):
        contract, channels, fused = hybrid_search(query_by_id(INJECTION_QUERY), pool)
        runs.append({"state": contract.state, "filters": [c.note for c in channels],
                     "scores": {c.channel: next((h.score for h in c.hits if h.listing_id == target.id), None)
                                for c in channels},
                     "fused_order": [f.cluster_id for f in fused],
                     "ordering_scores": [round(f.ordering_score, 6) for f in fused]})
    return {"query_id": INJECTION_QUERY, "listing_id": target.id,
            "seller_text": {"value": target.description, "treated_as": "data (inert field)"},
            "as_listed": runs[0], "instruction_removed": runs[1], "identical": runs[0] == runs[1]}


def trace(detail_query: str = DETAIL_QUERY) -> dict:
    """Every query's contract, one query's channels and fusion, and the two side-by-sides."""
    query = query_by_id(detail_query)
    listings = permitted_listings(LISTINGS)
    cluster_of = {x.id: x.cluster_id for x in listings}
    contract, channels, fused = hybrid_search(query, listings)
    alike = next(x for x in listings if x.id == LOOKALIKE)
    alike_fused = next(((i, f.channel_ranks) for i, f in enumerate(fused, start=1) if f.listing_id == alike.id),
                       (None, {}))
    return {
        "lesson": "hybrid",
        "scope": f"{len(listings)} of {len(LISTINGS)} listings, those whose permission is 'allowed' "
                 "(lesson 08 shows the controls)",
        "declared": {"field_weights": dict(FIELD_WEIGHTS), "rrf_k": RRF_K, "vector_top_k": VECTOR_TOP_K,
                     "vector_version": VECTOR_VERSION, "mm_per_inch": MM_PER_INCH},
        "contracts": [{"query_id": c.query_id, "original": c.original, "state": c.state, "reason": c.reason,
                       "family": c.family, "terms": list(c.terms),
                       "diameter": c.diameter and c.diameter._asdict(),
                       "transformations": [t._asdict() for t in c.transformations]}
                      for c in map(parse_query, QUERIES)],
        "detail": {"query_id": query.id, "original": query.text, "state": contract.state,
                   "channels": [{"channel": c.channel, "note": c.note,
                                 "hits": [{"rank": r, "listing_id": h.listing_id, "cluster_id": cluster_of[h.listing_id],
                                           "score": round(h.score, 4), "evidence": h.evidence}
                                          for r, h in enumerate(c.hits, start=1)],
                                 "rejected": [r._asdict() for r in c.rejected]} for c in channels],
                   "fused": [{"position": i, "cluster_id": f.cluster_id, "listing_id": f.listing_id,
                              "members": list(f.members), "ordering_score": round(f.ordering_score, 6),
                              "channel_ranks": f.channel_ranks} for i, f in enumerate(fused, start=1)]},
        "raw_versus_rank": _raw_versus_rank(channels, fused, cluster_of),
        "similarity_is_not_relevance": {"listing_id": alike.id, "title": alike.title, "family": alike.family,
                                        "diameter_mm": alike.diameter_mm, "fused_position": alike_fused[0],
                                        "channel_ranks": alike_fused[1]},
        "injection": _injection(listings),
    }


def _num(value):
    """Whole scores print as integers, cosines with four decimals; None prints as '-'."""
    if value is None or float(value).is_integer():
        return value if value is None else int(value)
    return f"{value:.4f}"


def view(record: dict) -> list:
    """Printable blocks: contracts, channels, fusion, the raw-score trap and the inert seller text."""
    d, detail = record["declared"], record["detail"]
    inch = next(c for c in record["contracts"] if c["diameter"] and c["diameter"]["unit"] == "inch")
    blocks = [
        {"heading": "Lesson 07 - hybrid: candidate channels and the query contract"},
        {"text": f"Searched: {record['scope']}. Declared: field weights "
                 + ", ".join(f"{k} x{v}" for k, v in d["field_weights"].items())
                 + f"; RRF k = {d['rrf_k']}; vector top {d['vector_top_k']}, version {d['vector_version']}; "
                 f"1 inch = {d['mm_per_inch']} mm exactly."},
        {"table": {"title": "The query contract: the original is kept; a size resolves only with a written unit",
                   "columns": ["query", "original", "state", "diameter_mm", "as written", "reason"],
                   "rows": [[c["query_id"], c["original"], c["state"], (c["diameter"] or {}).get("value_mm"),
                             (c["diameter"] or {}).get("original"), c["reason"]] for c in record["contracts"]]}},
        {"table": {"title": f"Every transformation of {inch['query_id']}, named and versioned",
                   "columns": ["step", "version", "input", "output", "status"],
                   "rows": [list(t.values()) for t in inch["transformations"]]}},
        {"text": f"Channels for {detail['query_id']} \"{detail['original']}\" (state {detail['state']}):"},
    ]
    for c in detail["channels"]:
        blocks.append({"table": {"title": f"{c['channel']} channel: {c['note']}",
                                 "columns": ["rank", "listing", "cluster", "score", "evidence"],
                                 "rows": [[h["rank"], h["listing_id"], h["cluster_id"], _num(h["score"]), h["evidence"]]
                                          for h in c["hits"]]}})
        if c["rejected"]:
            blocks.append({"text": f"{c['channel']} rejected, not scored: "
                                   + "; ".join(f"{r['listing_id']} {r['reason']}" for r in c["rejected"])})
    blocks += [
        {"table": {"title": f"Union, collapsed by canonical cluster, fused by rank (RRF, k = {d['rrf_k']})",
                   "columns": ["pos", "cluster", "shown", "members", "lexical", "structured", "vector", "ordering_score"],
                   "rows": [[f["position"], f["cluster_id"], f["listing_id"], " ".join(f["members"])]
                            + [f["channel_ranks"].get(ch) for ch in ("lexical", "structured", "vector")]
                            + [f"{f['ordering_score']:.6f}"] for f in detail["fused"]]}},
        {"text": "ordering_score = the sum of 1 / (k + rank) over the channels that proposed the cluster, "
                 "rank counted from 1. It orders candidates; it is not a probability and says nothing about fit."},
    ]
    raw = record["raw_versus_rank"]
    if raw["rows"]:
        blocks += [
            {"table": {"title": "Adding raw scores: the same cosines written as 0-1 or as 0-100 give two orders",
                       "columns": ["cluster", "lexical", "structured", "cosine", "sum (0-1)", "pos",
                                   "sum (0-100)", "pos", "RRF pos"],
                       "rows": [[r["cluster_id"], _num(r["lexical"]), _num(r["structured"]),
                                 "-" if r["cosine"] is None else f"{r['cosine']:.4f}",
                                 f"{r['sum_cosine_0_1']:9.4f}", r["position_0_1"], f"{r['sum_cosine_0_100']:11.4f}",
                                 r["position_0_100"], r["position_rrf"]] for r in raw["rows"]]}},
            {"text": f"Writing the cosines as percentages moved {raw['moved_by_rescaling']} of {len(raw['rows'])} "
                     f"clusters under raw addition; rank fusion changed: "
                     f"{'yes' if raw['rrf_changed_by_rescaling'] else 'no'}. Raw addition lets whichever channel "
                     "uses the biggest numbers decide; ranks share one scale."},
        ]
    alike = record["similarity_is_not_relevance"]
    blocks.append({"text": f"Similarity is not relevance: {alike['listing_id']} \"{alike['title']}\" "
                           f"({alike['family']}, {alike['diameter_mm']} mm) copied a seal's marketing text; channel "
                           "ranks " + ", ".join(f"{k} {v}" for k, v in alike["channel_ranks"].items())
                           + f", fused position {alike['fused_position']}. Channels propose; lesson 08 decides."})
    inj = record["injection"]
    a, b = inj["as_listed"], inj["instruction_removed"]
    rows = [["state", a["state"], b["state"]]]
    rows += [[f"filter {i}", x, y] for i, (x, y) in enumerate(zip(a["filters"], b["filters"]), start=1)]
    rows += [[f"{ch} score of {inj['listing_id']}", _num(a["scores"][ch]), _num(b["scores"][ch])] for ch in a["scores"]]
    rows.append(["fused order", " ".join(a["fused_order"]), " ".join(b["fused_order"])])
    blocks += [
        {"table": {"title": f"Seller text is data: {inj['query_id']} with and without the instruction in "
                            f"{inj['listing_id']}", "columns": ["what", "as listed", "instruction removed"],
                   "rows": rows}},
        {"text": f"seller_text of {inj['listing_id']}, returned as {inj['seller_text']['treated_as']}: "
                 f"\"{inj['seller_text']['value']}\" Identical runs: {'yes' if inj['identical'] else 'no'}."},
    ]
    return blocks
