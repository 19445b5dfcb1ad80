"""Lesson 12's trace: what `python3 -B methods.py channels` runs and records.

trace() runs the pipeline of modules/channels/mechanism.py (this module imports its mechanism,
never the reverse) through the lesson's findings: which queries carry a photo, which listings
the image index holds, and the ten failures, each a replaced stage, with the fallback each
calls for. With --all (trace(full=True)) modules/channels/full.py adds the experiments behind
them: every query through the pipeline, the index's two evaluations, removals, metrics and the
rebuilt index. record() turns the runs into a JSON-ready record; modules/channels/view.py
turns that into printable blocks. Every listing whose permission is not "allowed" is named
by its opaque ref, wherever it appears.
"""

from __future__ import annotations

from modules.channels.mechanism import (CHANNELS, IMAGE_INDEX, IMAGE_LISTS, IMAGE_NPROBE, IMAGE_REJECTED, IMAGE_SEED,
                                        IMAGE_TOP_K, REBUILD)
from modules.channels.failures import (CHANNEL_BUDGET_MS, CHANNEL_LATENCY_MS, FAILURES, PACKET_FIELD_LIMIT,
                                       VISIBLE, failing)
from modules.channels.rows import name_of, packet_of, photo_of, query_row
from modules.channels.view import findings_view
from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, QUERIES
from modules.catalogue.images import IMAGE_QUERIES, IMAGE_VERSION, image_problem, query_image

FAILURE_QUERY, FAILURE_QUERIES = "PW-Q009", {"vector_unavailable": "CH-Q001", "packet_over_limit": "PW-Q002"}
SLOW = {"lexical": 1500}


def _images(raw: dict) -> dict:
    photos = [photo_of(q) for q in raw["queries"]]
    counts = {kind: photos.count(kind) for kind in ("usable", "unusable", "none")}
    return {"share": dict(counts, queries=len(raw["queries"]),
                          catalogue_with_photo=sum(photo_of(q.id) != "none" for q in QUERIES)),
            "indexed": len(IMAGE_INDEX), "listings": len(LISTINGS),
            "rejected": [{"listing": name_of(r.listing_id), "reason": r.reason} for r in IMAGE_REJECTED]}


def _failures(raw: dict) -> dict:
    rows = []
    for failure in FAILURES:
        run = raw["failures"][failure.name]
        fb = run.output("fallback")
        rows.append({"failure": failure.name, "stages": list(fb.stages),
                     "versions": [run.versions[s] for s in fb.stages],
                     "query_id": run.inputs["query"].id, "decided": fb.state_before, "state": fb.state,
                     "behaviour": fb.behaviour, "visible": [{"key": k, "shows": v} for k, v in fb.visible],
                     "packet": packet_of(run), "elapsed_ms": fb.elapsed_ms})
    waited = raw["waited"].output("fallback")
    allowed = raw["failures"]["lexical_timeout"].output("fallback")
    return {"budget_ms": CHANNEL_BUDGET_MS, "latency_ms": dict(CHANNEL_LATENCY_MS), "slow_ms": 1500,
            "packet_field_limit": PACKET_FIELD_LIMIT, "rows": rows,
            "slow": {"allowed": {"elapsed_ms": allowed.elapsed_ms, "state": allowed.state},
                     "not_allowed": {"elapsed_ms": waited.elapsed_ms, "state": waited.state,
                                     "behaviour": waited.behaviour}}}


def trace(full: bool = False) -> dict:
    """Run what the lesson shows, then build its record.

    The default runs what the findings need: the image channel's share of the queries and the
    ten failures with their fallbacks. `full` (the command's --all) also runs every query, the
    index's two evaluations, the removals, the metrics and the rebuilt index
    (modules/channels/full.py), and the view prints every detail."""
    if not isinstance(full, bool):
        raise TypeError(f"full must be a bool, got {type(full).__name__} {full!r}")
    return dict(_trace(full), shows="all" if full else "findings")


def _trace(full: bool) -> dict:
    queries = {q.id: q for q in QUERIES + IMAGE_QUERIES}
    given = {qid: {"query": q, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF, "image": query_image(qid)}
             for qid, q in queries.items()}
    slow = {qid: dict(inputs, latency_ms=SLOW) for qid, inputs in given.items()}
    if full:
        # Only --all needs these: its experiments (full.py) send every query through many variants
        # of the pipeline, whose stages before each change are the same in all of them, so its runs
        # reuse those stages (reuse.py). The default's dozen runs share almost nothing and run plainly.
        from modules.channels import full as experiments
        from modules.channels.reuse import reusing
        memory: dict = {}

        def run(qid, pipeline=CHANNELS, inputs=given):
            return reusing(pipeline, memory).run(inputs[qid])
    else:
        def run(qid, pipeline=CHANNELS, inputs=given):
            return pipeline.run(inputs[qid])

    photos = {qid: query_image(qid) for qid in queries if query_image(qid) and not image_problem(*query_image(qid))}
    broken = {f.name: failing(CHANNELS, f.name) for f in FAILURES}
    inputs_of = {name: slow if name == "lexical_timeout" else given for name in broken}
    raw = {
        "queries": queries, "photos": photos, "broken": broken,
        "failures": {name: run(FAILURE_QUERIES.get(name, FAILURE_QUERY), pipeline, inputs_of[name])
                     for name, pipeline in broken.items()},
        "waited": run(FAILURE_QUERY, broken["lexical_timeout"], {FAILURE_QUERY: dict(slow[FAILURE_QUERY],
                                                                                     fallback_allowed=False)}),
        "declared": {"image_version": IMAGE_VERSION, "lists": IMAGE_LISTS, "seed": IMAGE_SEED,
                     "nprobe": IMAGE_NPROBE, "top_k": IMAGE_TOP_K, "rebuild": dict(REBUILD)},
    }
    if not full:
        return record(raw)
    return experiments.record(experiments.runs(raw, run), record(raw))


def record(raw: dict) -> dict:
    """The findings' record from the runs modules/channels/mechanism.py made."""
    return {
        "lesson": "channels",
        "declared": raw["declared"],
        "pipeline": [{"stage": name, "version": version} for name, version in CHANNELS.versions().items()],
        "images": _images(raw), "failures": _failures(raw),
    }


def view(record: dict) -> list:
    """Printable blocks: the findings (view.py); with --all (record["shows"] == "all") every block
    of modules/channels/full.py's view."""
    if record.get("shows") == "all":
        # Only --all prints the experiments' blocks: the default starts faster without loading them.
        from modules.channels.full import view as full_view
        return full_view(record)
    return findings_view(record)


__all__ = ["trace", "record", "view", "query_row", "VISIBLE"]
