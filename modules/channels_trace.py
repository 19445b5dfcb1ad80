"""Lesson 12's trace and view: what `python3 -B methods.py channels` prints.

trace() runs the pipeline of modules/channels.py (this module imports its mechanism, never
the reverse) for every query, then the experiments: the index's two evaluations, removals,
the ten failures, the metrics and the rebuilt index. record() turns those runs into a
JSON-ready record and view() into printable blocks. Every listing whose permission is not
"allowed" is named by its opaque ref, wherever it appears.
"""

from __future__ import annotations

from modules.channels import (CHANNELS, IMAGE_INDEX, IMAGE_LISTS, IMAGE_NPROBE, IMAGE_REJECTED, IMAGE_SEED,
                              IMAGE_TOP_K, INDEX_SCALING, PREDICTIONS, REBUILD, REMOVALS, UNGATED, compare_indexes,
                              image_stage, locate_layer, probe, reencode, removal_effect, reusing)
from modules.channels_failures import (CHANNEL_BUDGET_MS, CHANNEL_LATENCY_MS, FAILURES, PACKET_FIELD_LIMIT,
                                       VISIBLE, failing)
from modules.channels_metrics import CUTOFF, METRICS, RELEVANCE, SEGMENTS, judged, metric_row, precision_at_k
from modules.common import ann
from modules.common.catalogue import CATALOGUE_AS_OF, LISTINGS, QUERIES, RESTRICTED_IDS, opaque_ref
from modules.common.images import IMAGE_QUERIES, IMAGE_VERSION, image_problem, query_image
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
    counts = {kind: sum(_photo(q) == kind for q in queries) for kind in ("usable", "unusable", "none")}
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
    compare = [{"ranking": label, "query_id": query_id, "first": _name(ranking[0]) if ranking else None,
                "first_withheld": bool(ranking) and ranking[0] in RESTRICTED_IDS,
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
    from modules.common.policy import POLICY_VERSION
    return {"rows": rows, "comparison": public, "layer": layer, "why": why, "policy": POLICY_VERSION,
            "restricted": len(RESTRICTED_IDS),
            "contrast": {"versions": raw["reencoded"]["versions"], "layer": contrast[0], "why": contrast[1]}}


def trace() -> dict:
    """Every query through the extended pipeline, then the index, removals, failures, metrics, anomaly."""
    queries = {q.id: q for q in QUERIES + IMAGE_QUERIES}
    given = {qid: {"query": q, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF, "image": query_image(qid)}
             for qid, q in queries.items()}
    slow = {qid: dict(inputs, latency_ms=SLOW) for qid, inputs in given.items()}
    cache: dict = {}
    wrapped: dict = {}

    def run(qid, pipeline=CHANNELS, inputs=given):
        if id(pipeline) not in wrapped:
            wrapped[id(pipeline)] = (pipeline, reusing(pipeline, cache))
        return wrapped[id(pipeline)][1].run(inputs[qid])

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
    """The lesson's record from the runs modules/channels.py made."""
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

def _f(value) -> str:
    return "-" if value is None else f"{value:.3f}"


def _index_blocks(record: dict) -> list:
    d, ix = record["declared"], record["index"]
    by_query: dict = {}
    for p in ix["probes"]:
        by_query.setdefault(p["query_id"], {})[p["nprobe"]] = p
    blocks = [
        {"key": "index-heading", "heading": "Two evaluations of the approximate index"},
        {"key": "index-built", "text": (
            f"The image index ({d['image_version']}) is an inverted file: {d['lists']} centroids from a seeded "
            f"k-means (seed {d['seed']}), each photo filed in the list of its nearest centroid, list sizes "
            f"{', '.join(map(str, ix['lists']))}. A search opens the nprobe nearest lists only; the pipeline "
            f"uses nprobe {d['nprobe']} and keeps the top {d['top_k']}. PW-L001 sits in list "
            f"{ix['copy_lists']['PW-L001']}, its relisting PW-L002 (another angle) in list "
            f"{ix['copy_lists']['PW-L002']}.")},
        {"key": "index-quality", "table": {
            "title": "First evaluation, index quality: recall@3 against the exact top 3",
            "legend": "recall np=N: the share of the exact top 3 (exact cosine over every photo) that the "
                      "approximate search returns when it opens N lists; cost np=N: centroids plus photos "
                      "compared (exact search compares all of them: the last column).",
            "columns": ["query", "recall np=1", "np=2", "np=3", "cost np=1", "np=2", "np=3", "exact"],
            "rows": [[q, _f(p[1]["recall"]), _f(p[2]["recall"]), _f(p[3]["recall"]), p[1]["compared"],
                      p[2]["compared"], p[3]["compared"], p[1]["exact_compared"]] for q, p in by_query.items()]}},
        {"key": "index-relevance", "table": {
            "title": "Second evaluation, kept apart: are the exact neighbours relevant at all?",
            "legend": "exact top 3: the reference itself, best first (opaque refs for listings whose "
                      "permission is not 'allowed'); relevant: those the labels judge to fit the request; "
                      "P@3: their share. Perfect recall of irrelevant neighbours is still irrelevant.",
            "columns": ["query", "exact top 3", "relevant", "P@3"],
            "rows": [[r["query_id"], " ".join(r["exact"]), " ".join(r["relevant"]) or "-", _f(r["precision"])]
                     for r in ix["relevance"]]}},
    ]
    for r in ix["directions"]:
        copy = r["missed_is_copy_of"]
        effect = ("no task effect: the missed photo is a copy of " + ", ".join(copy) + " (same cluster), which was "
                  "returned, and the packet is the same" if copy and r["packet_nprobe_1"] == r["packet_nprobe_2"]
                  else f"critical: the packet goes from {' '.join(r['packet_nprobe_2']) or '-'} to "
                       f"{' '.join(r['packet_nprobe_1']) or '-'}; a relevant listing in the top {CUTOFF}: "
                       f"{'yes' if r['hit_nprobe_2'] else 'no'} -> {'yes' if r['hit_nprobe_1'] else 'no'}")
        blocks.append({"key": f"index-miss-{r['query_id']}", "text": (
            f"At nprobe 1, {r['query_id']} misses {', '.join(r['missed'])}: recall {r['recall']:.3f}, {effect}.")})
    blocks.append({"key": "index-scaling", "table": {
        "title": "Recall@10 as the catalogue grows (seeded synthetic photos)",
        "legend": "lists: centroids, about the square root of the size; recall@10: mean share of the exact "
                  "top 10 found, over 12 queries; cost: mean centroids plus photos compared per search; "
                  "exact: what exact search compares. Measured by `methods.py dev bench --index`, which "
                  "goes on to 10^5; tests/test_channels.py recomputes every row.",
        "columns": ["size", "lists", "nprobe", "recall@10", "cost", "exact"],
        "rows": [[r["size"], r["lists"], r["nprobe"], _f(r["recall"]), f"{r['compared']:.1f}", r["size"]]
                 for r in ix["scaling"]]}})
    return blocks


def _image_blocks(record: dict) -> list:
    im = record["images"]
    share = im["share"]
    return [
        {"key": "images-heading", "heading": "The image channel"},
        {"key": "images-share", "text": (
            f"Of the {share['queries']} queries this lesson shows, {share['usable']} carry a usable photo, "
            f"{share['unusable']} an unusable one and {share['none']} none; of the catalogue's own "
            f"{len(QUERIES)} queries, {share['catalogue_with_photo']}. Any benefit of the channel is measured on "
            f"the queries that carry a photo, never claimed for the rest.")},
        {"key": "images-listings", "text": (
            f"{im['indexed']} of {im['listings']} listings have a usable photo. Rejected, never scored: "
            + "; ".join(f"{r['listing']} ({r['reason']})" for r in im["rejected"]) + ".")},
        {"key": "images-queries", "text": "Queries with photos, through the whole pipeline (hits: the image "
                                           "channel's top 3 before the gate; state: after the fallback; packet: "
                                           "the listings packed, with the channels that proposed each):"},
    ] + [{"key": f"images-{q['query_id']}", "text": (
        f"{q['query_id']} \"{q['text']}\", photo {q['photo']}\n"
        f"  image: {q['note']}\n"
        f"  hits: {' '.join(q['hits']) or '-'}\n"
        f"  state: {q['state']}"
        + "".join(f"\n  packet: {p}" for p in q["packet"]))} for q in im["queries"]]


def _chunked(e: dict, per_row: int = 3) -> list:
    """One query's removal row; long gained/lost lists continue on rows of their own."""
    state = e["state_before"] if e["state_before"] == e["state_after"] else f"{e['state_before']} -> {e['state_after']}"
    gained, lost = e["gained"] or ["-"], e["lost"] or ["-"]
    rows = []
    for n in range(0, max(len(gained), len(lost)), per_row):
        first = n == 0
        rows.append([e["query_id"] if first else "", state if first else "",
                     ("changed" if e["packet_changed"] else "same") if first else "",
                     " ".join(gained[n:n + per_row]), " ".join(lost[n:n + per_row])])
    return rows


def _removal_blocks(record: dict) -> list:
    blocks = [{"key": "removals-heading", "heading": "Removal counterfactuals: predict, then measure"}]
    for r in record["removals"]:
        name = r["removal"]
        blocks.append({"key": f"removal-{name}", "text": (
            f"Remove {name}. Predicted: {r['claim']}. Predicted packet changes: "
            f"{', '.join(r['predicted_packets']) or 'none'}; state changes: "
            f"{', '.join(f'{k} -> {v}' for k, v in r['predicted_states'].items()) or 'none'}.")})
        if r["changed"]:
            blocks.append({"key": f"removal-{name}-measured", "table": {
                "title": f"Measured without {name}: the queries that changed ({len(r['changed'])} of {r['queries']})",
                "legend": "gained, lost: listings that reach ranking only with, or only without, the stage; "
                          "state: before -> after; packet: whether the packed fields changed.",
                "columns": ["query", "state", "packet", "gained", "lost"],
                "rows": [row for e in r["changed"] for row in _chunked(e)]}})
        lines = r["answer_lines"]
        answered = sum(1 for before, _after in lines.values() if before)
        extra = (f" The {answered} queries that had answer lines keep their state and packet and lose only the "
                 f"sentences: the structured evidence stays." if name == "generation" else "")
        verdict = "held" if r["held"] else (
            f"missed: measured packet changes {', '.join(r['measured_packets']) or 'none'}, state changes "
            f"{', '.join(f'{k} -> {v}' for k, v in r['measured_states'].items()) or 'none'}"
            + "".join(f"; {q} kept its packet: " + ", ".join(f"{i} is also proposed by {' and '.join(ch)}"
                                                            for i, ch in r["kept_via"][q].items())
                      for q in r["predicted_packets"] if q not in r["measured_packets"]))
        blocks.append({"key": f"removal-{name}-verdict", "text": f"Prediction {verdict}.{extra}"})
    return blocks


def _failure_blocks(record: dict) -> list:
    f = record["failures"]
    slow = f["slow"]
    return [
        {"key": "failures-heading", "heading": "Ten failure stages, each a replaced stage of this pipeline"},
        {"key": "failures", "table": {
            "title": "Each failure, simulated through the pipeline's own stages",
            "legend": "stage: the stage replaced by a failing one (its version gains +fault:<name>); state: "
                      "what the decision stage reached -> what it is once the fallback applies; ms: "
                      "simulated time the task waited for its channels.",
            "columns": ["failure", "stage", "query", "state", "ms"],
            "rows": [[r["failure"], "+".join(r["stages"]), r["query_id"],
                      r["decided"] if r["decided"] == r["state"] else f"{r['decided']} -> {r['state']}",
                      r["elapsed_ms"]] for r in f["rows"]]}},
        {"key": "failures-visible", "text": "The safe behaviour of each, and what stays visible (withheld listings "
                                            "stay opaque refs or counts):"},
    ] + [{"key": f"failure-{r['failure']}", "text": (
        f"{r['failure']} ({r['query_id']})\n  behaviour: {r['behaviour']}\n  packet: {' '.join(r['packet']) or 'empty'}"
        + "".join(f"\n  {v['key']}: {v['shows']}" for v in r["visible"]))} for r in f["rows"]] + [
        {"key": "failures-slow", "text": (
            f"A slow channel never holds the task open when a fallback is allowed. Channels have a "
            f"{f['budget_ms']} ms budget (simulated; nothing sleeps). The lexical channel at {f['slow_ms']} ms: "
            f"with a fallback allowed the task finishes at {slow['allowed']['elapsed_ms']} ms, state "
            f"{slow['allowed']['state']}; when the run permits no fallback it "
            f"waits: {slow['not_allowed']['elapsed_ms']} ms, state {slow['not_allowed']['state']}. Either way the "
            f"trace names the slow channel.")},
    ]


def _metric_rows(rows: list, label: str) -> list:
    return [[r[label], r["queries"]] + [_f(r[name]) for name, _metric in METRICS] for r in rows]


def _metric_blocks(record: dict) -> list:
    m = record["metrics"]
    names = [name for name, _metric in METRICS]
    legend = (f"queries: judged queries in the group (labels exist); P@{m['cutoff']}: relevant share of the "
              f"first {m['cutoff']}; MRR@{m['cutoff']}: mean of 1/rank of the first relevant; nDCG@{m['cutoff']}: "
              f"graded gain, discounted by log2(rank + 1), over the ideal; hit@{m['cutoff']}: share of queries "
              f"with a relevant listing in the first {m['cutoff']}. Means within a row only.")
    first = m["prohibited_first"]
    gated, ungated = first
    return [
        {"key": "metrics-heading", "heading": "Metrics beyond recall, never one figure"},
        {"key": "metrics-segments", "table": {
            "title": "By predeclared segment (healthy pipeline, fused ranking after the gate)",
            "legend": legend, "columns": ["segment", "queries"] + names, "rows": _metric_rows(m["segments"], "segment")}},
        {"key": "metrics-failures", "table": {
            "title": "By failure (every judged query, under each failure)",
            "legend": "failure: none = healthy; a channel lost (timed out, unavailable or removed: fusion "
                      "reads only channels that ran, so all three rank alike); ranker failed = the gate's "
                      "set listed by id. The other columns as above.",
            "columns": ["failure", "queries"] + names, "rows": _metric_rows(m["by_failure"], "failure")}},
        {"key": "metrics-prohibited", "table": {
            "title": f"A better ranking metric can hide a prohibited candidate in first place ({first[0]['query_id']})",
            "legend": "gated: the pipeline's ranking; ungated: the same channels fused with no gate; first: "
                      "the listing ranked first (an opaque ref when it is withheld by the policy).",
            "columns": ["ranking", "first", "withheld"] + names,
            "rows": [[r["ranking"], r["first"], r["first_withheld"]] + [_f(r[name]) for name in names]
                     for r in first]}},
        {"key": "metrics-prohibited-verdict", "text": (
            f"The ungated ranking scores nDCG@{m['cutoff']} {ungated['nDCG@3']:.3f} against {gated['nDCG@3']:.3f} "
            f"and puts a withheld listing first: the labels judge fit, and the withheld listings fit. The "
            f"gated pipeline's 0 is the right answer here (state {m['prohibited_state']}). A metric cannot see "
            f"permission: read it with the gate's exclusions, never instead of them.")},
    ]


def _anomaly_blocks(record: dict) -> list:
    a = record["anomaly"]
    c = a["comparison"]
    same_exact = all(r["exact_before"] == r["exact_after"] for r in c["queries"])
    p0, p1 = c["parameters"]
    return [
        {"key": "anomaly-heading", "heading": "The long-tail image anomaly"},
        {"key": "anomaly-symptom", "table": {
            "title": "After the nightly rebuild of the image index: candidates per photo query",
            "legend": "image: the image channel's candidates before -> after; fused: candidates reaching "
                      "ranking; segment: long tail = a family with at most two listings.",
            "columns": ["query", "segment", "image", "fused"],
            "rows": [[r["query_id"], r["segment"], f"{r['image_before']} -> {r['image_after']}",
                      f"{r['fused_before']} -> {r['fused_after']}"] for r in a["rows"]]}},
        {"key": "anomaly-compare", "table": {
            "title": "What the trace compares, before -> after",
            "legend": "same: whether the rebuild changed it; the recall row is each index against its own "
                      "exact reference (mean over the photo queries).",
            "columns": ["compared", "before", "after", "same"],
            "rows": [
                ["vector version", c["versions"][0], c["versions"][1], c["versions"][0] == c["versions"][1]],
                ["exact neighbours (top 3)", "per query", "per query", same_exact],
                ["index n_lists", p0["n_lists"], p1["n_lists"], p0["n_lists"] == p1["n_lists"]],
                ["index seed", p0["seed"], p1["seed"], p0["seed"] == p1["seed"]],
                ["nprobe", p0["nprobe"], p1["nprobe"], p0["nprobe"] == p1["nprobe"]],
                ["photos indexed", c["coverage"][0], c["coverage"][1], c["coverage"][0] == c["coverage"][1]],
                ["policy", a["policy"], a["policy"], True],
                ["listings not 'allowed'", a["restricted"], a["restricted"], True],
                ["recall@3 vs exact", _f(sum(r["recall_before"] for r in c["queries"]) / len(c["queries"])),
                 _f(sum(r["recall_after"] for r in c["queries"]) / len(c["queries"])),
                 all(r["recall_before"] == r["recall_after"] for r in c["queries"])]]}},
        {"key": "anomaly-layer", "text": (
            f"Layer: {a['layer']}. {a['why'][0].upper() + a['why'][1:]}. Permission is stable (same policy, same "
            f"metadata), so the gate is not it; the ranker only orders what it receives, so it is not it either. "
            f"The fix is in the index (restore the lists, or raise nprobe), checked against the exact reference "
            f"on the long-tail segment before it is exposed.")},
        {"key": "anomaly-contrast", "text": (
            f"Contrast: had the rebuild re-encoded the photos with another encoder instead, the same comparison "
            f"would name {a['contrast']['layer']}: {a['contrast']['why']}.")},
    ]


def view(record: dict) -> list:
    """Printable blocks: the pipeline, the index, images, removals, failures, metrics, the anomaly."""
    d = record["declared"]
    rows = [[q["query_id"], q["original"], q["photo"], q["image"] or "-", q["state"]] for q in record["queries"]]
    blocks = [
        {"key": "heading", "heading": "Lesson 12 - channels: every channel can fail, and each failure has its "
                                      "own fallback"},
        {"key": "pipeline", "text": (
            "The catalogue pipeline of lessons 07-09, extended, not copied: "
            + " > ".join(p["stage"] for p in record["pipeline"])
            + f". New: image ({d['image_version']} photos, an approximate index) and fallback. Channels answer "
              f"within {CHANNEL_BUDGET_MS} ms of simulated time.")},
        {"key": "queries", "table": {
            "title": "The catalogue's own queries: the same states as lessons 07-09",
            "legend": "photo: none for every catalogue query, so the image channel does not run; state: the "
                      "decision, identical to lessons 07-09 (a test compares every query).",
            "columns": ["query", "original", "photo", "image", "state"], "rows": rows}},
    ]
    return (blocks + _index_blocks(record) + _image_blocks(record) + _removal_blocks(record)
            + _failure_blocks(record) + _metric_blocks(record) + _anomaly_blocks(record))


__all__ = ["trace", "record", "view", "query_row", "VISIBLE"]
