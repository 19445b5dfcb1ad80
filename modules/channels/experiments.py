"""Lesson 12's experiments: what they run, their record and the lesson's blocks.

modules/channels/trace.py runs the image channel's share and the ten failures; this module
adds every query through the extended pipeline, the index's two evaluations, the removals,
the metrics and the rebuilt index, and records them; modules/channels/view.py arranges the whole record into the lesson's
blocks.
Every listing whose permission is not "allowed" is named by its opaque ref, wherever it appears.
"""

from __future__ import annotations

from modules.channels.mechanism import (CHANNELS, IMAGE_INDEX, IMAGE_LISTS, IMAGE_NPROBE, IMAGE_REJECTED, IMAGE_SEED,
                                        IMAGE_TOP_K, INDEX_SCALING, PREDICTIONS, REBUILD, REMOVALS, UNGATED,
                                        compare_indexes, image_stage, locate_layer, probe, reencode, removal_effect)
from modules.channels.metrics import CUTOFF, METRICS, RELEVANCE, SEGMENTS, judged, metric_row, precision_at_k
from modules.channels.rows import name_of, names_of, packet_of, photo_of, query_row, ranking_of, state_of
from modules.common import ann
from modules.catalogue import LISTINGS, QUERIES, RESTRICTED_IDS
from modules.catalogue.policy import POLICY_VERSION
from modules.grounding.checks import GATE_CODES
from modules.common.vectors import Vector

PERMISSION_CODES = tuple(code for code in GATE_CODES if code.startswith(("PERMISSION", "DUPLICATE_ID")))
TRACE_NPROBES = (1, 2, 3)
DIRECTIONS = ("CH-Q001", "CH-Q002")   # a miss at nprobe 1 that costs nothing, and one that is critical
PROHIBITED_QUERY = "PW-Q005"   # every listing that fits it is withheld


def runs(raw: dict, run) -> dict:
    """trace()'s `raw` with the experiments' runs added; `run(query id, pipeline, inputs)` runs
    one query."""
    queries, photos, broken = raw["queries"], raw["photos"], raw["broken"]
    base = {qid: run(qid) for qid in queries}
    reached = [qid for qid, found in base.items() if found.halted_by is None]
    without = {name: CHANNELS.without(*stages) for name, stages in REMOVALS}
    # The image channel does not run for a query without a usable photo, so removing it cannot
    # change that query (tests check every query); it is measured where it runs.
    removed = {name: {qid: run(qid, pipeline) if name != "image" or qid in photos else base[qid] for qid in reached}
               for name, pipeline in without.items()}
    scored = judged(queries)
    # A lost channel (timed out, unavailable or removed) gives one ranking: fusion reads only the
    # channels that ran (tests check it), so the removal runs measure the channel failures too.
    unranked_ranking = broken["ranker_failed"].until("fusion")
    cheap = CHANNELS.replace("image", image_stage(IMAGE_INDEX, IMAGE_REJECTED, nprobe=1))
    rebuilt_index = ann.build(IMAGE_INDEX.vectors, REBUILD["n_lists"], REBUILD["seed"])
    rebuilt = CHANNELS.replace("image", image_stage(rebuilt_index, IMAGE_REJECTED)).until("fusion")
    encoded = ann.build(tuple((i, Vector(reencode(v.values), "pw-img-2")) for i, v in IMAGE_INDEX.vectors),
                        IMAGE_LISTS, IMAGE_SEED)
    comparison = compare_indexes((IMAGE_INDEX, IMAGE_NPROBE), (rebuilt_index, IMAGE_NPROBE),
                                 {qid: (img, img) for qid, img in photos.items()})
    reencoded = compare_indexes((IMAGE_INDEX, IMAGE_NPROBE), (encoded, IMAGE_NPROBE),
                                {qid: (img, (reencode(img[0]), "pw-img-2")) for qid, img in photos.items()})
    return dict(
        raw, base=base,
        probes=[probe(IMAGE_INDEX, qid, img, IMAGE_TOP_K, p) for qid, img in photos.items() for p in TRACE_NPROBES],
        cheap={qid: run(qid, cheap) for qid in DIRECTIONS}, scaling=INDEX_SCALING, predictions=PREDICTIONS,
        removals={name: [removal_effect(base[qid], runs[qid]) for qid in reached] for name, runs in removed.items()},
        unranked={qid: run(qid, unranked_ranking) for qid in scored}, removed=removed, judged=scored,
        ungated=run(PROHIBITED_QUERY, UNGATED), rebuilt={qid: run(qid, rebuilt) for qid in photos},
        comparison=comparison, layer=locate_layer(comparison), reencoded=reencoded, contrast=locate_layer(reencoded))


def record(raw: dict, findings: dict) -> dict:
    """The whole record: trace.record's `findings` and the experiments', in the lesson's order."""
    return {"lesson": findings["lesson"], "declared": findings["declared"], "pipeline": findings["pipeline"],
            "queries": [query_row(raw["base"][q.id]) for q in QUERIES],
            "images": dict(findings["images"], queries=_photo_queries(raw)), "index": _index(raw),
            "removals": _removals(raw), "failures": findings["failures"], "empty": findings["empty"],
            "metrics": _metrics(raw), "anomaly": _anomaly(raw)}


def _photo_queries(raw: dict) -> list:
    base, queries = raw["base"], raw["queries"]
    rows = []
    for query_id, query in queries.items():
        if query_id.startswith("PW-"):
            continue
        run = base[query_id]
        image = run.output("image")
        fused = run.output("fusion").candidates
        via = {f.listing_id: ", ".join(channel for channel, _rank in f.channel_ranks) for f in fused}
        rows.append({"query_id": query_id, "text": query.text, "photo": photo_of(query_id), "status": image.status,
                     "note": image.note, "hits": names_of(h.listing_id for h in image.hits),
                     "state": state_of(run), "packet": [f"{i} via {via[i]}" for i in packet_of(run)]})
    return rows


def _index(raw: dict) -> dict:
    index, cheap, base = IMAGE_INDEX, raw["cheap"], raw["base"]
    probes = [{"query_id": p.query_id, "nprobe": p.nprobe, "exact": names_of(p.exact),
               "approximate": names_of(p.approximate), "recall": float(p.recall), "compared": p.compared,
               "exact_compared": p.exact_compared} for p in raw["probes"]]
    relevance = []
    for query_id in raw["photos"]:
        exact = next(p for p in raw["probes"] if p.query_id == query_id).exact
        grades = RELEVANCE.get(query_id, {})
        relevance.append({"query_id": query_id, "exact": names_of(exact),
                          "relevant": names_of(i for i in exact if grades.get(i, 0) >= 1),
                          "precision": precision_at_k(exact, grades, len(exact))})
    directions = []
    for query_id, run in cheap.items():
        probe = next(p for p in raw["probes"] if p.query_id == query_id and p.nprobe == 1)
        missed = [i for i in probe.exact if i not in probe.approximate]
        grades = RELEVANCE[query_id]
        directions.append({
            "query_id": query_id, "missed": names_of(missed), "recall": float(probe.recall),
            "missed_is_copy_of": [name_of(i) for m in missed for i in probe.approximate
                                  if _cluster(i) == _cluster(m)],
            "packet_nprobe_2": packet_of(base[query_id]), "packet_nprobe_1": packet_of(run),
            "hit_nprobe_2": precision_at_k(ranking_of(base[query_id]), grades, CUTOFF) > 0,
            "hit_nprobe_1": precision_at_k(ranking_of(run), grades, CUTOFF) > 0})
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


def _metrics(raw: dict) -> dict:
    healthy = {qid: ranking_of(run) for qid, run in raw["base"].items()}
    segments = [dict(metric_row(healthy, ids), segment=name) for name, ids in SEGMENTS.items()]
    failures = [dict(metric_row(healthy, raw["judged"]), failure="none")]
    for name, label in (("lexical", "lexical lost"), ("vector", "vector lost"), ("image", "image lost")):
        rankings = {qid: ranking_of(run) for qid, run in raw["removed"][name].items()}
        failures.append(dict(metric_row(rankings, raw["judged"]), failure=label))
    failures.append(dict(metric_row({qid: ranking_of(run) for qid, run in raw["unranked"].items()}, raw["judged"]),
                         failure="ranker failed"))
    query_id = raw["ungated"].inputs["query"].id
    gated, ungated = healthy[query_id], ranking_of(raw["ungated"])
    grades = RELEVANCE[query_id]
    gate = {d.subject: d for d in raw["base"][query_id].output("gate").decisions}
    compare = [{"ranking": label, "query_id": query_id, "first": name_of(ranking[0]) if ranking else None,
                "first_withheld": bool(ranking) and ranking[0] in RESTRICTED_IDS,
                "first_state": gate[name_of(ranking[0])].state if ranking and name_of(ranking[0]) in gate else None,
                "first_codes": list(gate[name_of(ranking[0])].reason_codes)
                if ranking and name_of(ranking[0]) in gate else [],
                **{name: metric(ranking, grades, CUTOFF) for name, metric in METRICS}}
               for label, ranking in (("gated", gated), ("ungated", ungated))]
    return {"cutoff": CUTOFF, "segments": segments, "by_failure": failures, "prohibited_first": compare,
            "prohibited_state": state_of(raw["base"][query_id])}


def _anomaly(raw: dict) -> dict:
    base, rebuilt, comparison = raw["base"], raw["rebuilt"], raw["comparison"]
    rows = []
    for qid in raw["photos"]:
        before, after = base[qid], rebuilt[qid]
        rows.append({"query_id": qid, "segment": "long tail" if qid in SEGMENTS["long-tail family"] else "head",
                     "image_before": len(before.output("image").hits), "image_after": len(after.output("image").hits),
                     "fused_before": len(ranking_of(before)), "fused_after": len(ranking_of(after))})
    (layer, why), contrast = raw["layer"], raw["contrast"]
    public = dict(comparison, queries=[dict(r, exact_before=names_of(r["exact_before"]),
                                            exact_after=names_of(r["exact_after"])) for r in comparison["queries"]])
    permission = [sum(code in PERMISSION_CODES for qid in raw["photos"] for d in runs[qid].output("gate").decisions
                      for code in d.reason_codes) for runs in (base, rebuilt)]
    proposed = [{(qid, h.listing_id) for qid in raw["photos"] for c in runs[qid].of_kind("channel") for h in c.hits
                 if h.listing_id in RESTRICTED_IDS} for runs in (base, rebuilt)]
    versions = [next(iter(runs.values())).versions["image"] for runs in (base, rebuilt)]
    return {"rows": rows, "comparison": public, "layer": layer, "why": why, "policy": POLICY_VERSION,
            "image_versions": versions,
            "restricted": len(RESTRICTED_IDS), "permission_exclusions": permission,
            "restricted_proposed": [len(x) for x in proposed],
            "no_longer_proposed": [f"{name_of(i)} for {qid}" for qid, i in sorted(proposed[0] - proposed[1])],
            "contrast": {"versions": raw["reencoded"]["versions"], "layer": contrast[0], "why": contrast[1]}}

# ---------------------------------------------------------------- view
