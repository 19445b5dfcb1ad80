"""Lesson 12, channels: every channel can fail, and each failure has its own fallback.

The catalogue pipeline of lessons 07-09 (GROUNDED, modules/grounding/answer.py) gains two
stages and copies none:

  image     a fourth channel: the shopper's photo against the listings' photos
            (modules/catalogue/images.py: four numbers and an encoder version each), searched
            in an approximate inverted-file index (modules/common/ann.py). A query without
            a photo, or with one it cannot use, does not run the channel and says why; a
            listing without a usable photo is listed as rejected, never scored.
  fallback  after everything (also after a halt): which stage failed, the safe behaviour,
            the state after it and what stays visible (modules/channels/failures.py)

For a catalogue query (PW-Q001 ... PW-Q009 carry no photo) nothing changes: same gate,
same ranking, same packet, same state as lessons 07-09, and a test proves it.

What the lesson measures on it:
  index quality     the share of the exact top-k that the approximate search returns, as
                    nprobe and the catalogue grow, with the vectors each search compared
  relevance         kept apart: whether those exact neighbours fit the request at all
  removals          a prediction, then the measurement: each channel, and generation, taken
                    out of the pipeline; per query the candidates gained and lost, the state
  failures          the ten failure stages, each a replaced stage of this pipeline
  metrics           P@3, MRR@3, nDCG@3, hit@3 by segment and by failure (modules/channels/metrics.py)
  an anomaly        after an index rebuild, image candidates fall only for long-tail queries:
                    versions, exact neighbours, index parameters and coverage name the layer
                    (lesson 09's: retrieval, its approximate index)

modules/channels/trace.py runs all of it for `python3 -B methods.py channels` (it imports
this module, never the reverse).
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.channels.failures import FALLBACK
from modules.common import ann
from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, Query
from modules.catalogue.images import IMAGE_VERSION, image_problem, listing_image, query_image, synthetic_images
from modules.catalogue.policy import GateResult
from modules.common.checks import short, whole_number
from modules.context import recall_at_k   # lesson 01's recall: the index's first evaluation
from modules.common.pipeline import Stage
from modules.common.vectors import Vector, cosine
from modules.grounding.answer import GROUNDED
from modules.hybrid import ChannelResult, Hit, Rejection, QueryContract

__all__ = ["IMAGE_LISTS", "IMAGE_SEED", "IMAGE_NPROBE", "IMAGE_TOP_K", "image_items", "build_image_index",
           "image_channel", "image_stage", "IMAGE_INDEX", "CHANNELS", "run_channels", "Probe", "probe",
           "REMOVALS", "Prediction", "PREDICTIONS", "removal_effect", "REBUILD", "compare_indexes",
           "locate_layer", "reencode", "UNGATED", "INDEX_SCALING", "scaling"]

IMAGE_LISTS, IMAGE_SEED, IMAGE_NPROBE, IMAGE_TOP_K = 3, 124, 2, 3


# ---------------------------------------------------------------- the image channel

def image_items(listings) -> tuple:
    """((id, Vector), ...) of the listings with a usable photo, and a Rejection for each other one."""
    items, rejected = [], []
    for listing in listings:
        image = listing_image(listing.id)
        problem = "no photo" if image is None else image_problem(*image)
        if problem:
            # The reason's first clause ("zero vector", "malformed", "vector version ..."): short enough to show.
            rejected.append(Rejection(listing.id, problem if image is None else
                                      f"photo unusable: {problem.split(':')[0]}"))
        else:
            items.append((listing.id, Vector(*image)))
    return tuple(items), tuple(rejected)


def build_image_index(listings=LISTINGS, n_lists: int = IMAGE_LISTS, seed: int = IMAGE_SEED):
    """(index, rejected): the approximate index over every usable listing photo."""
    items, rejected = image_items(listings)
    return ann.build(items, n_lists, seed), rejected


def image_channel(contract: QueryContract, image, listings, index, nprobe: int = IMAGE_NPROBE,
                  top_k: int = IMAGE_TOP_K, rejected=()) -> ChannelResult:
    """The approximate top_k listing photos nearest the query's photo, best first.
    `image` is the query's (values, version) or None; a hit whose id the source no longer
    holds is dropped (the index is older than the source), never returned."""
    if not isinstance(contract, QueryContract):
        raise TypeError(f"contract must be a QueryContract, got {type(contract).__name__} {short(contract)}")
    if image is None:
        return ChannelResult("image", (), (), "not run: the query carries no photo", "not run")
    if not (isinstance(image, tuple) and len(image) == 2):
        raise TypeError(f"image must be a (values, version) pair or None, got {short(image)}")
    problem = image_problem(*image)
    if problem:
        return ChannelResult("image", (), (), f"not run: the query's photo is unusable ({problem.split(':')[0]})",
                             "not run")
    query = Vector(*image)
    found = ann.search(index, query, top_k, nprobe)
    present = {x.id for x in listings}
    vectors = dict(index.vectors)
    hits = []
    for listing_id in found.ids:
        if listing_id in present:
            score = cosine(query, vectors[listing_id])
            hits.append(Hit(listing_id, score, f"photo cosine {score:.4f}"))
    note = (f"approximate top {top_k} ({index.n_lists} lists, nprobe {nprobe}): {found.compared} comparisons, "
            f"exact search {len(index)}")
    return ChannelResult("image", tuple(hits), tuple(r for r in rejected if r.listing_id in present), note, "ran")


def image_stage(index, rejected=(), nprobe: int = IMAGE_NPROBE, top_k: int = IMAGE_TOP_K) -> Stage:
    """Stage `image` over one built index; its version names the index's parameters."""
    whole_number(nprobe, "nprobe", minimum=1)

    def run(so_far):
        return image_channel(so_far.output("contract"), so_far.inputs.get("image"), so_far.output("source").records,
                             index, nprobe, top_k, rejected)
    return Stage("image", f"image/1+{index.index_version}:{index.n_lists}x{nprobe}", "retrieval", run, kind="channel")


IMAGE_INDEX, IMAGE_REJECTED = build_image_index()
CHANNELS = GROUNDED.insert(image_stage(IMAGE_INDEX, IMAGE_REJECTED), after="vector").extend(
    FALLBACK, name="catalogue, channels")


def run_channels(query: Query, pipeline=CHANNELS, listings=LISTINGS, as_of: str = CATALOGUE_AS_OF, **inputs):
    """One query through the pipeline with its photo (images.query_image), if any; extra
    inputs (image=..., latency_ms=..., fallback_allowed=...) override."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    given = {"query": query, "listings": listings, "as_of": as_of, "image": query_image(query.id)}
    given.update(inputs)
    return pipeline.run(given)


# ---------------------------------------------------------------- index quality, kept apart from relevance

@dataclass(frozen=True)
class Probe:
    """One photo query's approximate top k against the exact top k, with the vectors each search
    compared."""
    query_id: str
    nprobe: int
    exact: tuple[str, ...]
    approximate: tuple[str, ...]
    recall: float         # the share of the exact top k found (lesson 01's recall_at_k, a Fraction), as a float
    compared: int
    exact_compared: int


def probe(index, query_id: str, image, k: int, nprobe: int) -> Probe:
    """One query's approximate top-k against the exact top-k over the same vectors."""
    vector = Vector(*image)
    exact = ann.exact_search(index, vector, k)
    found = ann.search(index, vector, k, nprobe)
    recall = float(recall_at_k(found.ids, exact.ids, len(exact.ids)))
    return Probe(query_id=query_id, nprobe=nprobe, exact=exact.ids, approximate=found.ids, recall=recall,
                 compared=found.compared, exact_compared=exact.compared)


def scaling(sizes, nprobes, k: int = 10, queries: int = 12, seed: int = 7, clock=None) -> list:
    """Mean recall@k against exact search and vectors compared, per catalogue size and nprobe,
    on seeded synthetic catalogues (n_lists grows as the square root of the size). With a
    `clock` (time.perf_counter), each row also holds the build's seconds and the mean seconds
    of one approximate and one exact search; the bench passes one, the lesson does not."""
    rows = []
    for size in sizes:
        made = synthetic_images(size + queries, seed)
        items = tuple((i, Vector(v, IMAGE_VERSION)) for i, _family, v in made[:size])
        lists = max(1, round(size ** 0.5))
        started = clock() if clock else 0.0
        index = ann.build(items, lists, seed)
        built = clock() - started if clock else None
        for nprobe in nprobes:
            found, timing = [], [0.0, 0.0]
            for i, _family, v in made[size:]:
                vector = Vector(v, IMAGE_VERSION)
                started = clock() if clock else 0.0
                exact = ann.exact_search(index, vector, k)
                middle = clock() if clock else 0.0
                approximate = ann.search(index, vector, k, nprobe)
                if clock:
                    timing[0] += middle - started
                    timing[1] += clock() - middle
                found.append((recall_at_k(approximate.ids, exact.ids, len(exact.ids)), approximate.compared))
            row = {"size": size, "lists": lists, "nprobe": nprobe, "exact": size,
                   "recall": float(sum(r for r, _c in found) / len(found)),
                   "compared": sum(c for _r, c in found) / len(found)}
            if clock:
                row.update(build_seconds=built, exact_seconds=timing[0] / queries, search_seconds=timing[1] / queries)
            rows.append(row)
    return rows


# ---------------------------------------------------------------- removal counterfactuals

REMOVALS = (("vector", ("vector",)), ("image", ("image",)), ("lexical", ("lexical",)), ("generation", ("answer",)))


@dataclass(frozen=True)
class Prediction:
    """Written before measuring."""
    removal: str
    claim: str
    states: dict[str, str]    # {query id: state after} for every query whose state is predicted to change
    packets: tuple[str, ...]  # the query ids whose packet is predicted to change


PREDICTIONS = (
    Prediction("vector", "text vectors mostly repeat what the words already found: no state changes, and "
               "only CH-Q002, whose words match nothing, loses packet entries", {}, ("CH-Q002",)),
    Prediction("image", "only queries with a usable photo can change; CH-Q002 loses the gasket, which nothing "
               "else finds", {}, ("CH-Q002",)),
    Prediction("lexical", "the structured and vector channels still find sized requests; the O-ring of "
               "CH-Q003 is found by its words only, so it leaves the packet", {}, ("CH-Q003",)),
    Prediction("generation", "the packet and the state are decided before generation: nothing changes but the "
               "answer lines", {}, ()),
)


def removal_effect(before, after) -> dict:
    """What removing a stage changed for one query: ranked candidates gained and lost (by listing
    id, members of every fused cluster), the state and the packet before and after."""
    fused, fused_after = before.output("fusion", None), after.output("fusion", None)
    packed, packed_after = before.output("packet", None), after.output("packet", None)
    was, now = _members(fused), _members(fused_after)
    fused_as = {m: f for f in (fused_after.candidates if fused_after else ()) for m in f.members}
    answers = before.output("answer", None), after.output("answer", None)
    return {"query_id": before.inputs["query"].id, "gained": sorted(now - was), "lost": sorted(was - now),
            "state_before": before.output("fallback").state, "state_after": after.output("fallback").state,
            "packet_changed": _field_ids(packed) != _field_ids(packed_after),
            "packet_via_after": {i: [channel for channel, _rank in fused_as[i].channel_ranks] if i in fused_as else []
                                 for i in (packed_after.listings if packed_after else ())},
            "answer_lines": [len(answer.lines) if answer else None for answer in answers]}


def _members(fusion) -> set:
    return {m for f in fusion.candidates for m in f.members} if fusion else set()


def _field_ids(packet) -> list:
    return [f for f, _ in packet.fields] if packet else []


# ---------------------------------------------------------------- the long-tail anomaly

REBUILD = {"n_lists": 9, "seed": IMAGE_SEED}   # the nightly rebuild's parameters; nprobe stayed at 2


def reencode(values: tuple) -> tuple:
    """A fictional second encoder, pw-img-2: it nearly ignores flatness, so flat parts (the
    gasket) look like everything else. Used to show what a representation change looks like."""
    return (values[0], round(values[1] * 0.2, 4), values[2], values[3])


def compare_indexes(before, after, images: dict, k: int = IMAGE_TOP_K) -> dict:
    """Side by side for two (index, nprobe) pairs and the query photos {query id: (values, version)}
    each index is searched with: vector versions, exact neighbours, parameters, coverage, per query
    the approximate count and recall against its own exact reference."""
    (old, old_probe), (new, new_probe) = before, after
    rows = []
    for query_id, (first, second) in images.items():
        a = probe(old, query_id, first, k, old_probe)
        b = probe(new, query_id, second, k, new_probe)
        rows.append({"query_id": query_id, "exact_before": list(a.exact), "exact_after": list(b.exact),
                     "count_before": len(a.approximate), "count_after": len(b.approximate),
                     "recall_before": float(a.recall), "recall_after": float(b.recall)})
    return {"versions": [old.version, new.version],
            "query_versions": sorted({pair[0][1] for pair in images.values()} | {pair[1][1] for pair in images.values()}),
            "parameters": [{"index": x.index_version, "n_lists": x.n_lists, "seed": x.seed, "nprobe": p}
                           for x, p in (before, after)],
            "coverage": [len(old), len(new)], "queries": rows}


def locate_layer(comparison: dict) -> tuple:
    """(layer, why), the layer one of lesson 09's ten and `why` opening with the part of it that
    moved. Checked in this order: retrieval (the representation) when the vectors' version
    changed; source (index coverage) when the index holds fewer vectors (its exact reference
    moves with them); retrieval (the representation) when the exact neighbours changed all the
    same; retrieval (the approximate index) when only the approximate search lost what the exact
    reference still finds; None when nothing fell."""
    rows = comparison["queries"]
    fell = [r["query_id"] for r in rows if r["count_after"] < r["count_before"] or r["recall_after"] < r["recall_before"]]
    old, new = comparison["versions"]
    if old != new:
        return "retrieval", f"representation: the vectors changed version ({old} -> {new}), so the space itself moved"
    before, after = comparison["coverage"]
    if after < before:
        return "source", f"index coverage: the index holds {after} vectors, {before} before: listings are missing"
    moved = [r["query_id"] for r in rows if r["exact_before"] != r["exact_after"]]
    if moved:
        return "retrieval", f"representation: the exact neighbours changed for {', '.join(moved)}, so the space moved"
    if fell:
        a, b = comparison["parameters"]
        changed = ", ".join(f"{key} {a[key]} -> {b[key]}" for key in a if a[key] != b[key]) or "none"
        return "retrieval", (f"approximate index: same vectors, same exact neighbours, same coverage; the approximate "
                             f"search lost neighbours for {', '.join(fell)}; parameters changed: {changed}")
    return None, "nothing fell"


# ---------------------------------------------------------------- what channels_trace runs

def _ungated(so_far):
    """The mistake, kept to measure it: every proposed candidate passes, unchecked."""
    proposed = tuple(sorted({hit.listing_id for channel in so_far.of_kind("channel") for hit in channel.hits}))
    return GateResult("none", so_far.inputs["as_of"], False, proposed, (), (), (), ())


UNGATED = CHANNELS.until("fusion").replace("gate", Stage("gate", "gate/none", "permission/freshness", _ungated))
# scaling((100, 1000, 10000), (1, 2, 4, 8)), as `python3 -B methods.py dev bench --index` measures it;
# tests/test_channels.py recomputes every row. (size, lists, nprobe, recall@10, mean vectors compared)
INDEX_SCALING = ((100, 10, 1, 0.642, 23.0), (100, 10, 2, 0.942, 36.7), (100, 10, 4, 1.0, 62.1),
                 (100, 10, 8, 1.0, 98.2), (1000, 32, 1, 0.833, 70.5), (1000, 32, 2, 0.942, 97.5),
                 (1000, 32, 4, 1.0, 167.0), (1000, 32, 8, 1.0, 295.2), (10000, 100, 1, 0.825, 204.9),
                 (10000, 100, 2, 0.925, 309.7), (10000, 100, 4, 1.0, 520.1), (10000, 100, 8, 1.0, 959.9))
