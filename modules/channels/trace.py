"""Lesson 12's trace and view: what `python3 -B methods.py channels` prints.

trace() runs the pipeline of modules/channels/mechanism.py (this module imports its mechanism, never
the reverse) for every query, then the experiments: the index's two evaluations, removals,
the ten failures, the metrics and the rebuilt index. record() turns those runs into a
JSON-ready record and view() into printable blocks. Every listing whose permission is not
"allowed" is named by its opaque ref, wherever it appears.
"""

from __future__ import annotations

from modules.channels.mechanism import (CHANNELS, IMAGE_INDEX, IMAGE_LISTS, IMAGE_NPROBE, IMAGE_REJECTED, IMAGE_SEED,
                              IMAGE_TOP_K, INDEX_SCALING, PREDICTIONS, REBUILD, REMOVALS, UNGATED, compare_indexes,
                              image_stage, locate_layer, probe, reencode, removal_effect)
from modules.channels.failures import (CHANNEL_BUDGET_MS, CHANNEL_LATENCY_MS, FAILURES, PACKET_FIELD_LIMIT,
                                       VISIBLE, failing)
from modules.channels.reuse import reusing
from modules.channels.metrics import CUTOFF, METRICS, RELEVANCE, SEGMENTS, judged, metric_row, precision_at_k
from modules.channels.view import view  # noqa: F401 (the tables; methods.py finds them here)
from modules.common import ann
from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, QUERIES, RESTRICTED_IDS, opaque_ref
from modules.catalogue.images import IMAGE_QUERIES, IMAGE_VERSION, image_problem, query_image
from modules.common.runs import catalogue_row
from modules.common.vectors import Vector

TRACE_NPROBES = (1, 2, 3)
FAILURE_QUERY, FAILURE_QUERIES = "PW-Q009", {"vector_unavailable": "CH-Q001", "packet_over_limit": "PW-Q002"}
SLOW = {"lexical": 1500}
PROHIBITED_QUERY = "PW-Q005"   # every listing that fits it is withheld


def query_row(run) -> dict:
    """One catalogue query as this lesson shows it: the keys every catalogue lesson shows (the
    same run, so the same values), and the photo and the image channel's status."""
    image = run.output("image", None)
    return dict(catalogue_row(run), photo=_photo(run.output("contract").query_id), image=image and image.status)


def _name(listing_id: str) -> str:
    return opaque_ref(listing_id) if listing_id in RESTRICTED_IDS else listing_id


def _names(ids) -> list:
    return [_name(i) for i in ids]


def _photo(query_id: str) -> str:
    image = query_image(query_id)
    if image is None:
        return "none"
    return "usable" if image_problem(*image) is None else "unusable"


def _ranking(run) -> list:
    fusion = run.output("fusion", None)
    return [f.listing_id for f in fusion.candidates] if fusion else []


def _packet(run) -> list:
    packet = run.output("packet", None)
    return list(packet.listings) if packet else []


def _state(run) -> str:
    return run.output("fallback").state


def _images(raw: dict) -> dict:
    base, queries = raw["base"], raw["queries"]
    photos = [_photo(q) for q in queries]
    counts = {kind: photos.count(kind) for kind in ("usable", "unusable", "none")}
    rows = []
    for query_id, query in queries.items():
        if query_id.startswith("PW-"):
            continue
        run = base[query_id]
        image = run.output("image")
        fused = run.output("fusion").candidates
        via = {f.listing_id: ", ".join(channel for channel, _rank in f.channel_ranks) for f in fused}
        rows.append({"query_id": query_id, "text": query.text, "photo": _photo(query_id), "status": image.status,
                     "note": image.note, "hits": _names(h.listing_id for h in image.hits),
                     "state": _state(run), "packet": [f"{i} via {via[i]}" for i in _packet(run)]})
    return {"share": dict(counts, queries=len(queries),
                          catalogue_with_photo=sum(_photo(q.id) != "none" for q in QUERIES)),
            "indexed": len(raw["index"]), "listings": len(LISTINGS),
            "rejected": [{"listing": _name(r.listing_id), "reason": r.reason} for r in raw["rejected"]],
            "queries": rows}


def _index(raw: dict) -> dict:
    index, cheap, base = raw["index"], raw["cheap"], raw["base"]
    probes = [{"query_id": p.query_id, "nprobe": p.nprobe, "exact": _names(p.exact),
               "approximate": _names(p.approximate), "recall": float(p.recall), "compared": p.compared,
               "exact_compared": p.exact_compared} for p in raw["probes"]]
    relevance = []
    for query_id in raw["photos"]:
        exact = next(p for p in raw["probes"] if p.query_id == query_id).exact
        grades = RELEVANCE.get(query_id, {})
        relevance.append({"query_id": query_id, "exact": _names(exact),
                          "relevant": _names(i for i in exact if grades.get(i, 0) >= 1),
                          "precision": precision_at_k(exact, grades, len(exact))})
    directions = []
    for query_id, run in cheap.items():
        probe = next(p for p in raw["probes"] if p.query_id == query_id and p.nprobe == 1)
        missed = [i for i in probe.exact if i not in probe.approximate]
        grades = RELEVANCE[query_id]
        directions.append({
            "query_id": query_id, "missed": _names(missed), "recall": float(probe.recall),
            "missed_is_copy_of": [_name(i) for m in missed for i in probe.approximate
                                  if _cluster(i) == _cluster(m)],
            "packet_nprobe_2": _packet(base[query_id]), "packet_nprobe_1": _packet(run),
            "hit_nprobe_2": precision_at_k(_ranking(base[query_id]), grades, CUTOFF) > 0,
            "hit_nprobe_1": precision_at_k(_ranking(run), grades, CUTOFF) > 0})
    where = {i: n for n, ids in enumerate(index.lists, start=1) for i in ids}
    return {"lists": [len(ids) for ids in index.lists], "copy_lists": {"PW-L001": where["PW-L001"],
                                                                       "PW-L002": where["PW-L002"]},
            "probes": probes, "relevance": relevance, "directions": directions,
            "scaling": [dict(zip(("size", "lists", "nprobe", "recall", "compared"), row)) for row in raw["scaling"]]}


_CLUSTER = {x.id: x.cluster_id for x in LISTINGS}


def _cluster(listing_id: str) -> str:
    return _CLUSTER[listing_id]


def _removals(raw: dict) -> list:
    out = []
    for prediction in raw["predictions"]:
        effects = raw["removals"][prediction.removal]
        changed = [e for e in effects if e["gained"] or e["lost"] or e["packet_changed"]
                   or e["state_before"] != e["state_after"]]
        states = {e["query_id"]: e["state_after"] for e in effects if e["state_before"] != e["state_after"]}
        packets = tuple(e["query_id"] for e in effects if e["packet_changed"])
        held = states == prediction.states and packets == prediction.packets
        out.append({"removal": prediction.removal, "claim": prediction.claim,
                    "predicted_states": prediction.states, "predicted_packets": list(prediction.packets),
                    "measured_states": states, "measured_packets": list(packets), "held": held,
                    "queries": len(effects), "changed": changed,
                    "answer_lines": {e["query_id"]: e["answer_lines"] for e in effects},
                    "kept_via": {e["query_id"]: e["packet_via_after"] for e in effects}})
    return out


def _failures(raw: dict) -> dict:
    rows = []
    for failure in FAILURES:
        run = raw["failures"][failure.name]
        fb = run.output("fallback")
        rows.append({"failure": failure.name, "stages": list(fb.stages),
                     "versions": [run.versions[s] for s in fb.stages],
                     "query_id": run.inputs["query"].id, "decided": fb.state_before, "state": fb.state,
                     "behaviour": fb.behaviour, "visible": [{"key": k, "shows": v} for k, v in fb.visible],
                     "packet": _packet(run), "elapsed_ms": fb.elapsed_ms})
    waited = raw["waited"].output("fallback")
    allowed = raw["failures"]["lexical_timeout"].output("fallback")
    return {"budget_ms": CHANNEL_BUDGET_MS, "latency_ms": dict(CHANNEL_LATENCY_MS), "slow_ms": 1500,
            "packet_field_limit": PACKET_FIELD_LIMIT, "rows": rows,
            "slow": {"allowed": {"elapsed_ms": allowed.elapsed_ms, "state": allowed.state},
                     "not_allowed": {"elapsed_ms": waited.elapsed_ms, "state": waited.state,
                                     "behaviour": waited.behaviour}}}


def _metrics(raw: dict) -> dict:
    healthy = {qid: _ranking(run) for qid, run in raw["base"].items()}
    segments = [dict(metric_row(healthy, ids), segment=name) for name, ids in SEGMENTS.items()]
    failures = [dict(metric_row(healthy, raw["judged"]), failure="none")]
    for name, label in (("lexical", "lexical lost"), ("vector", "vector lost"), ("image", "image lost")):
        rankings = {qid: _ranking(run) for qid, run in raw["removed"][name].items()}
        failures.append(dict(metric_row(rankings, raw["judged"]), failure=label))
    failures.append(dict(metric_row({qid: _ranking(run) for qid, run in raw["unranked"].items()}, raw["judged"]),
                         failure="ranker failed"))
    query_id = raw["ungated"].inputs["query"].id
    gated, ungated = healthy[query_id], _ranking(raw["ungated"])
    grades = RELEVANCE[query_id]
    gate = {d.subject: d for d in raw["base"][query_id].output("gate").decisions}
    compare = [{"ranking": label, "query_id": query_id, "first": _name(ranking[0]) if ranking else None,
                "first_withheld": bool(ranking) and ranking[0] in RESTRICTED_IDS,
                "first_state": gate[_name(ranking[0])].state if ranking and _name(ranking[0]) in gate else None,
                "first_codes": list(gate[_name(ranking[0])].reason_codes)
                if ranking and _name(ranking[0]) in gate else [],
                **{name: metric(ranking, grades, CUTOFF) for name, metric in METRICS}}
               for label, ranking in (("gated", gated), ("ungated", ungated))]
    return {"cutoff": CUTOFF, "segments": segments, "by_failure": failures, "prohibited_first": compare,
            "prohibited_state": _state(raw["base"][query_id])}


def _anomaly(raw: dict) -> dict:
    base, rebuilt, comparison = raw["base"], raw["rebuilt"], raw["comparison"]
    rows = []
    for qid in raw["photos"]:
        before, after = base[qid], rebuilt[qid]
        rows.append({"query_id": qid, "segment": "long tail" if qid in SEGMENTS["long-tail family"] else "head",
                     "image_before": len(before.output("image").hits), "image_after": len(after.output("image").hits),
                     "fused_before": len(_ranking(before)), "fused_after": len(_ranking(after))})
    (layer, why), contrast = raw["layer"], raw["contrast"]
    public = dict(comparison, queries=[dict(r, exact_before=_names(r["exact_before"]),
                                            exact_after=_names(r["exact_after"])) for r in comparison["queries"]])
    from modules.catalogue.policy import POLICY_VERSION
    return {"rows": rows, "comparison": public, "layer": layer, "why": why, "policy": POLICY_VERSION,
            "restricted": len(RESTRICTED_IDS),
            "contrast": {"versions": raw["reencoded"]["versions"], "layer": contrast[0], "why": contrast[1]}}


def trace(full: bool = False) -> dict:
    """Every query through the extended pipeline, then the index, removals, failures, metrics, anomaly.
    The record is the same either way; `full` (the command's --all) asks the view for every detail,
    not only the findings."""
    return dict(_trace(), shows="all" if full else "findings")


def _trace() -> dict:
    queries = {q.id: q for q in QUERIES + IMAGE_QUERIES}
    given = {qid: {"query": q, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF, "image": query_image(qid)}
             for qid, q in queries.items()}
    slow = {qid: dict(inputs, latency_ms=SLOW) for qid, inputs in given.items()}
    cache: dict = {}

    def run(qid, pipeline=CHANNELS, inputs=given):
        return reusing(pipeline, cache).run(inputs[qid])

    base = {qid: run(qid) for qid in queries}
    photos = {qid: query_image(qid) for qid in queries if query_image(qid) and not image_problem(*query_image(qid))}
    reached = [qid for qid, found in base.items() if found.halted_by is None]
    without = {name: CHANNELS.without(*stages) for name, stages in REMOVALS}
    # The image channel does not run for a query without a usable photo, so removing it cannot
    # change that query (tests check every query); it is measured where it runs.
    removed = {name: {qid: run(qid, pipeline) if name != "image" or qid in photos else base[qid] for qid in reached}
               for name, pipeline in without.items()}
    removals = {name: [removal_effect(base[qid], runs[qid]) for qid in reached] for name, runs in removed.items()}
    broken = {f.name: failing(CHANNELS, f.name) for f in FAILURES}
    inputs_of = {name: slow if name == "lexical_timeout" else given for name in broken}
    failures = {name: run(FAILURE_QUERIES.get(name, FAILURE_QUERY), pipeline, inputs_of[name])
                for name, pipeline in broken.items()}
    waited = run(FAILURE_QUERY, broken["lexical_timeout"], {FAILURE_QUERY: dict(slow[FAILURE_QUERY],
                                                                                fallback_allowed=False)})
    scored = judged(queries)
    # A lost channel (timed out, unavailable or removed) gives one ranking: fusion reads only the
    # channels that ran (tests check it), so the removal runs measure the channel failures too.
    unranked_ranking = broken["ranker_failed"].until("fusion")
    unranked = {qid: run(qid, unranked_ranking) for qid in scored}
    cheap = CHANNELS.replace("image", image_stage(IMAGE_INDEX, IMAGE_REJECTED, nprobe=1))
    rebuilt_index = ann.build(IMAGE_INDEX.vectors, REBUILD["n_lists"], REBUILD["seed"])
    rebuilt = CHANNELS.replace("image", image_stage(rebuilt_index, IMAGE_REJECTED)).until("fusion")
    encoded = ann.build(tuple((i, Vector(reencode(v.values), "pw-img-2")) for i, v in IMAGE_INDEX.vectors),
                        IMAGE_LISTS, IMAGE_SEED)
    comparison = compare_indexes((IMAGE_INDEX, IMAGE_NPROBE), (rebuilt_index, IMAGE_NPROBE),
                                 {qid: (img, img) for qid, img in photos.items()})
    reencoded = compare_indexes((IMAGE_INDEX, IMAGE_NPROBE), (encoded, IMAGE_NPROBE),
                                {qid: (img, (reencode(img[0]), "pw-img-2")) for qid, img in photos.items()})
    return record({
        "queries": queries, "base": base, "photos": photos, "index": IMAGE_INDEX, "rejected": IMAGE_REJECTED,
        "probes": [probe(IMAGE_INDEX, qid, img, IMAGE_TOP_K, p) for qid, img in photos.items() for p in TRACE_NPROBES],
        "cheap": {qid: run(qid, cheap) for qid in ("CH-Q001", "CH-Q002")},
        "scaling": INDEX_SCALING, "removals": removals, "predictions": PREDICTIONS,
        "failures": failures, "waited": waited, "unranked": unranked, "removed": removed, "judged": scored,
        "ungated": run(PROHIBITED_QUERY, UNGATED), "rebuilt": {qid: run(qid, rebuilt) for qid in photos},
        "comparison": comparison, "layer": locate_layer(comparison), "reencoded": reencoded,
        "contrast": locate_layer(reencoded),
        "declared": {"image_version": IMAGE_VERSION, "lists": IMAGE_LISTS, "seed": IMAGE_SEED,
                     "nprobe": IMAGE_NPROBE, "top_k": IMAGE_TOP_K, "rebuild": dict(REBUILD)},
    })


def record(raw: dict) -> dict:
    """The lesson's record from the runs modules/channels/mechanism.py made."""
    return {
        "lesson": "channels",
        "declared": raw["declared"],
        "pipeline": [{"stage": name, "version": version} for name, version in
                     raw["base"]["PW-Q001"].versions.items()],
        "queries": [query_row(raw["base"][q.id]) for q in QUERIES],
        "images": _images(raw), "index": _index(raw), "removals": _removals(raw), "failures": _failures(raw),
        "metrics": _metrics(raw), "anomaly": _anomaly(raw),
    }


# ---------------------------------------------------------------- view


__all__ = ["trace", "record", "view", "query_row", "VISIBLE"]
