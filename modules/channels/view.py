"""Lesson 12's view: the trace record of modules/channels/trace.py as printable blocks, each
table with its legend. Kept apart so that each file reads in one sitting; its blocks read only
the record and the lesson's declared constants; view() arranges them with the experiments'
blocks (the experiments themselves are computed in modules/channels/experiments.py)."""

from __future__ import annotations

import textwrap

from modules.catalogue import QUERIES
from modules.channels.failures import CHANNEL_BUDGET_MS
from modules.channels.metrics import CUTOFF, METRICS
from modules.common.tables import table_block
from modules.eligibility.trace import wrapped_rows


def opening_blocks(record: dict) -> list:
    d = record["declared"]
    return [
        {"key": "heading", "heading": "Lesson 12 - channels: every channel can fail; each failure has a "
                                      "fallback"},
        {"key": "opening", "text": (
            "What this lesson shows: an approximate image index evaluated twice (against exact search, then "
            "for relevance), the image channel's real share of queries, each channel removed (predicted, then "
            "measured), ten failures with their fallbacks and eight empty causes, ranking metrics that never "
            "become one figure, and a rebuild anomaly named by its layer.")},
        {"key": "pipeline", "text": (
            "The catalogue pipeline of lessons 07-09, extended, not copied: "
            + " > ".join(p["stage"] for p in record["pipeline"])
            + f". New: image ({d['image_version']} photos, an approximate index) and fallback. Channels answer "
              f"within {CHANNEL_BUDGET_MS} ms of simulated time.")},
    ]


def image_blocks(record: dict) -> list:
    im = record["images"]
    share = im["share"]
    return [
        {"key": "images-heading", "heading": "The image channel"},
        {"key": "images-share", "text": (
            f"Of this lesson's {share['queries']} queries, {share['usable']} carry a usable photo, "
            f"{share['unusable']} an unusable one and {share['none']} none; of the catalogue's own "
            f"{len(QUERIES)} queries, {share['catalogue_with_photo']}. Any benefit of the channel is measured on "
            f"the queries that carry a photo, never claimed for the rest.")},
        {"key": "images-listings", "text": (
            f"{im['indexed']} of {im['listings']} listings have a usable photo. Rejected, never scored: "
            + "; ".join(f"{r['listing']} ({r['reason']})" for r in im["rejected"]) + ".")},
    ]


def failure_blocks(record: dict) -> list:
    f = record["failures"]
    slow = f["slow"]
    return [
        {"key": "failures-heading", "heading": "Ten failure stages, each a replaced stage of this pipeline"},
        {"key": "failures-slow", "text": (
            f"A slow channel never holds the task open when a fallback is allowed. Channels have a "
            f"{f['budget_ms']} ms budget (simulated; nothing sleeps). The lexical channel at {f['slow_ms']} ms: "
            f"with a fallback allowed the task finishes at {slow['allowed']['elapsed_ms']} ms, state "
            f"{slow['allowed']['state']}; when the run permits no fallback it "
            f"waits: {slow['not_allowed']['elapsed_ms']} ms, state {slow['not_allowed']['state']}. Either way the "
            f"trace names the slow channel.")},
    ]


def view(record: dict) -> list:
    """Every block of the lesson: the pipeline, the catalogue's queries, the index, images,
    removals, failures with what stays visible, metrics and the anomaly."""
    rows = [[q["query_id"], q["original"], q["image"] or "-", q["state"]] for q in record["queries"]]
    photos = sum(q["photo"] != "none" for q in record["queries"])
    queries = table_block(
        "queries", "The catalogue's own queries: the same states as lessons 07-09",
        f"original: the shopper's words; image: the image channel's status ({photos} of the "
        f"{len(rows)} carry a photo: not run = no photo, - = stopped before retrieval); state: the "
        "decision, identical to lessons 07-09 (a test compares every query).",
        ["query", "original", "image", "state"],
        rows)
    failures = failure_blocks(record)
    failures[1:1] = _visible_blocks(record) + _empty_blocks(record)   # after the heading, before the slow channel
    return (opening_blocks(record) + [queries] + _index_blocks(record) + image_blocks(record)
            + _photo_query_blocks(record) + _removal_blocks(record) + failures + _metric_blocks(record)
            + _anomaly_blocks(record))


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
        table_block(
            "index-quality", "First evaluation, index quality: recall@3 against the exact top 3",
            "recall np=N: the share of the exact top 3 (exact cosine over every photo) that the "
            "approximate search returns when it opens N lists; cost np=N: centroids plus photos "
            "compared (exact search compares all of them: the last column).",
            ["query", "recall np=1", "np=2", "np=3", "cost np=1", "np=2", "np=3", "exact"],
            [[q, _f(p[1]["recall"]), _f(p[2]["recall"]), _f(p[3]["recall"]), p[1]["compared"],
              p[2]["compared"], p[3]["compared"], p[1]["exact_compared"]] for q, p in by_query.items()]),
        table_block(
            "index-relevance", "Second evaluation, kept apart: are the exact neighbours relevant?",
            "exact top 3: the reference itself, best first (opaque refs for listings whose "
            "permission is not 'allowed'), * = the labels judge it to fit the request; P@3: the "
            "share of the three that fit. Perfect recall of irrelevant neighbours is still "
            "irrelevant.",
            ["query", "exact top 3", "P@3"],
            [[r["query_id"], " ".join(i + ("*" if i in r["relevant"] else "") for i in r["exact"]),
              _f(r["precision"])] for r in ix["relevance"]]),
    ]
    perfect = []
    for r in ix["relevance"]:
        found = by_query[r["query_id"]]
        full_recall = [n for n in sorted(found) if found[n]["recall"] == 1.0]
        if r["precision"] == 0.0 and full_recall:
            where = ("at every nprobe" if len(full_recall) == len(found) else
                     "at nprobe " + ", ".join(map(str, full_recall)) + f" only; at the pipeline's nprobe "
                     f"{d['nprobe']}: {found[d['nprobe']]['recall']:.3f}")
            perfect.append(f"{r['query_id']} (recall 1.000 {where})")
    if perfect:
        blocks.append({"key": "index-perfect-irrelevant", "text": (
            "Recall 1 with P@3 0: " + "; ".join(perfect) + ". The index can return the exact neighbours "
            "faithfully, and none of them fits.")})
    for r in ix["directions"]:
        copy = r["missed_is_copy_of"]
        effect = ("no task effect: the missed photo is a copy of " + ", ".join(copy) + " (same cluster), which was "
                  "returned, and the packet is the same" if copy and r["packet_nprobe_1"] == r["packet_nprobe_2"]
                  else f"critical: the packet goes from {' '.join(r['packet_nprobe_2']) or '-'} to "
                       f"{' '.join(r['packet_nprobe_1']) or '-'}; a relevant listing in the top {CUTOFF}: "
                       f"{'yes' if r['hit_nprobe_2'] else 'no'} -> {'yes' if r['hit_nprobe_1'] else 'no'}")
        blocks.append({"key": f"index-miss-{r['query_id']}", "text": (
            f"At nprobe 1, {r['query_id']} misses {', '.join(r['missed'])}: recall {r['recall']:.3f}, {effect}.")})
    probes = sorted({r["nprobe"] for r in ix["scaling"]})
    sizes = sorted({(r["size"], r["lists"]) for r in ix["scaling"]})
    cell = {(r["size"], r["nprobe"]): r for r in ix["scaling"]}
    blocks.append(table_block(
        "index-scaling", "Recall@10 as the catalogue grows (seeded synthetic photos)",
        "lists: centroids, about the square root of the size; r@N: recall@10 with nprobe N, the "
        "mean share of the exact top 10 found when N lists are opened, over 12 queries; c@N: its "
        "cost, mean centroids plus photos compared per search; exact: what exact search compares. "
        "Measured by "
        "`methods.py dev bench --index`, which goes on to 10^5; tests/test_channels.py "
        "recomputes every cell.",
        ["size", "lists"] + [f"r@{n}" for n in probes] + [f"c@{n}" for n in probes] + ["exact"],
        [[size, lists] + [_f(cell[size, n]["recall"]) for n in probes]
         + [f"{cell[size, n]['compared']:.1f}" for n in probes] + [size] for size, lists in sizes]))
    return blocks


def _photo_query_blocks(record: dict) -> list:
    """The queries with a photo, one table: each query's cells wrapped into lines of their own."""
    rows = []
    for q in record["images"]["queries"]:
        hits = textwrap.wrap(" ".join(q["hits"]), 24) if q["status"] == "ran" else [q["status"]]
        packet = [f"{listing} {''.join(ch[0] for ch in via.split(', '))}"
                  for listing, _, via in (p.partition(" via ") for p in q["packet"])] or ["-"]
        cells = [[q["query_id"]], textwrap.wrap(q["text"], 14), hits, [q["state"]], packet]
        for n in range(max(len(c) for c in cells)):
            rows.append([c[n] if n < len(c) else "" for c in cells])
    unusable = [f"{q['query_id']} ({q['note'].split('(')[-1].rstrip(')')})" for q in record["images"]["queries"]
                if q["status"] != "ran"]
    return [table_block(
        "images-queries", "Queries with photos, through the whole pipeline",
        "image top 3: the image channel's hits at nprobe 2, before the gate (their cost is the np=2 "
        f"column above; not run: the photo is unusable, {', '.join(unusable)}); state: after the "
        "fallback; packet: the listings packed, with the channels that proposed each (l lexical, "
        "s structured, v vector, i image).",
        ["query", "words", "image top 3", "state", "packet"],
        rows)]


def _visible_blocks(record: dict) -> list:
    rows = []
    for r in record["failures"]["rows"]:
        state = r["decided"] if r["decided"] == r["state"] else f"{r['decided']} -> {r['state']}"
        visible = "; ".join([f"packet: {' '.join(r['packet']) or 'empty'}"]
                            + [f"{v['key']}: {v['shows']}" for v in r["visible"]])
        rows += wrapped_rows([(r["failure"], f"[{'+'.join(r['stages'])} on {r['query_id']}: {state}, "
                                             f"{r['elapsed_ms']} ms]"),
                              ("", r["behaviour"]), ("", "> " + visible)], 56)
    return [table_block(
        "failures-visible", "Each failure, simulated: its safe behaviour, and what stays visible",
        "[stage on query: state, ms]: the stage replaced by a failing one (its version gains "
        "+fault:<name>), the query run, the state the decision stage reached -> the state once the "
        "fallback applies, and the simulated time the task waited for its channels; then what the "
        "product does instead; then, after '>': what the shopper is still shown, by key (packet: "
        "the listings packed; withheld listings stay opaque refs or counts).",
        ["failure", "simulated / behaviour > what stays visible"],
        rows)]


def _empty_blocks(record: dict) -> list:
    e = record["empty"]
    return [table_block(
        "failures-empty", f"Empty results name their cause: all {len(e['causes'])}",
        "cause: why nothing is offered (lesson 08's six, and the two a channel failure adds); "
        "case: the query it is met on; made by: the healthy pipeline or the failure simulated; "
        "state: after the fallback. No empty result is answered by generation.",
        ["cause", "case", "made by", "state"],
        [[x["named"], x["query_id"], x["made_by"], x["state"]] for x in e["cases"]])]


def _chunked(e: dict, per_row: int = 5) -> list:
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
    legend = ("gained, lost: listings that reach ranking only with, or only without, the stage; "
              "state: before -> after; packet: whether the packed fields changed.")
    for r in record["removals"]:
        name = r["removal"]
        blocks.append({"key": f"removal-{name}", "text": (
            f"Remove {name}. Predicted: {r['claim']}. Predicted packet changes: "
            f"{', '.join(r['predicted_packets']) or 'none'}; state changes: "
            f"{', '.join(f'{k} -> {v}' for k, v in r['predicted_states'].items()) or 'none'}.")})
        if r["changed"]:
            blocks.append(table_block(
                f"removal-{name}-measured",
                f"Measured without {name}: the queries that changed ({len(r['changed'])} of {r['queries']})",
                legend,
                ["query", "state", "packet", "gained", "lost"],
                [row for e in r["changed"] for row in _chunked(e)]))
            legend = "Columns as in the first removal's table."
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
        table_block(
            "metrics-segments", "By predeclared segment (healthy pipeline, fused ranking after the gate)",
            legend,
            ["segment", "queries"] + names,
            _metric_rows(m["segments"], "segment")),
        table_block(
            "metrics-failures", "By failure (every judged query, under each failure)",
            "failure: none = healthy; a channel lost (timed out, unavailable or removed: fusion "
            "reads only channels that ran, so all three rank alike); ranker failed = the gate's "
            "set listed by id. The other columns as above.",
            ["failure", "queries"] + names,
            _metric_rows(m["by_failure"], "failure")),
        table_block(
            "metrics-prohibited", f"A better metric can put a withheld listing first ({first[0]['query_id']})",
            "gated: the pipeline's ranking; ungated: the same channels fused with no gate; first: "
            "the listing ranked first (an opaque ref when the policy withholds it); withheld: the "
            "gate's state for it (- = it passes). "
            + "; ".join(f"{r['first']} is {r['first_state']} ({' '.join(r['first_codes'])})"
                        for r in first if r["first_state"]) + ".",
            ["ranking", "first", "withheld"] + names,
            [[r["ranking"], r["first"], r["first_state"]] + [_f(r[name]) for name in names]
             for r in first]),
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
    blocks = [
        {"key": "anomaly-heading", "heading": "The long-tail image anomaly"},
        table_block(
            "anomaly-symptom", "After the nightly rebuild of the image index: candidates per photo query",
            "image: the image channel's candidates before -> after; fused: candidates reaching "
            "ranking; segment: long tail = a family with at most two listings.",
            ["query", "segment", "image", "fused"],
            [[r["query_id"], r["segment"], f"{r['image_before']} -> {r['image_after']}",
              f"{r['fused_before']} -> {r['fused_after']}"] for r in a["rows"]]),
        table_block(
            "anomaly-compare", "What the trace compares, before -> after",
            "same: whether the rebuild changed it; the recall row is each index against its own "
            "exact reference (mean over the photo queries).",
            ["compared", "before", "after", "same"],
            [
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
         all(r["recall_before"] == r["recall_after"] for r in c["queries"])]]),
        {"key": "anomaly-layer", "text": (
            f"Layer: {a['layer']}. {a['why'][0].upper() + a['why'][1:]}. The permission policy and every listing's "
            f"permission metadata are unchanged; the gate's permission exclusions go "
            f"{a['permission_exclusions'][0]} -> {a['permission_exclusions'][1]} only because the rebuilt index no "
            f"longer proposes {', '.join(a['no_longer_proposed'])}: a candidate lost, not a permission change, so the "
            f"gate is not it. The ranker only orders what it receives, so it is not it either. The fix is in the "
            f"index (restore the lists, or raise nprobe), checked against the exact reference on the long-tail "
            f"segment before it is exposed.")},
        {"key": "anomaly-contrast", "text": (
            f"Contrast: had the rebuild re-encoded the photos with another encoder instead, the same comparison "
            f"would name {a['contrast']['layer']} too, another part of it: {a['contrast']['why']}.")},
    ]
    return blocks
