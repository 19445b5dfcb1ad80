"""Lesson 12's trace: what `python3 -B methods.py channels` runs and records.

trace() runs the pipeline of modules/channels/mechanism.py (this module imports its mechanism,
never the reverse) through the whole lesson: which queries carry a photo, which listings the
image index holds, the ten failures, each a replaced stage, with the fallback each calls for,
and the empty results by cause; modules/channels/experiments.py adds the experiments: every
query through the pipeline, the index's two evaluations, removals, metrics and the rebuilt
index. record() turns the runs into a JSON-ready record; view() into printable blocks. Every
listing whose permission is not "allowed" is named by its opaque ref, wherever it appears.
"""

from __future__ import annotations

from modules.channels.mechanism import (CHANNELS, IMAGE_INDEX, IMAGE_LISTS, IMAGE_NPROBE, IMAGE_REJECTED, IMAGE_SEED,
                                        IMAGE_TOP_K, REBUILD)
from modules.channels.failures import (CHANNEL_BUDGET_MS, CHANNEL_LATENCY_MS, EMPTY_CAUSES, FAILURES,
                                       PACKET_FIELD_LIMIT, VISIBLE, all_channels_slow, empty_cause, failing)
from modules.channels import experiments
from modules.channels import view as blocks
from modules.channels.rows import name_of, packet_of, photo_of, query_row
from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, QUERIES
from modules.catalogue.images import IMAGE_QUERIES, IMAGE_VERSION, image_problem, query_image
from modules.grounding import NOTHING_QUERY

FAILURE_QUERY, FAILURE_QUERIES = "PW-Q009", {"vector_unavailable": "CH-Q001", "packet_over_limit": "PW-Q002"}
SLOW = {"lexical": 1500}
ALL_SLOW = {"lexical": 1500, "structured": 1500, "vector": 1500, "image": 1500}
# Seed 004's eight causes of an empty result, each met on one case: (cause, case, how it is made).
EMPTY_CASES = (("out_of_scope", "PW-Q008", "healthy"), ("transformation_failed", "PW-Q007", "healthy"),
               ("no_permitted_match", "GR-Q001", "healthy"), ("all_unauthorized", "PW-Q005", "healthy"),
               ("all_stale", "PW-Q009", "source_stale"), ("all_excluded", "PW-Q004", "healthy"),
               ("index_incomplete", "PW-Q009", "no_eligible_evidence"), ("timed_out", "PW-Q009", "every channel slow"))


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


def trace() -> dict:
    """Run what the lesson shows, then build its record."""
    queries = {q.id: q for q in QUERIES + IMAGE_QUERIES}
    given = {qid: {"query": q, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF, "image": query_image(qid)}
             for qid, q in queries.items()}
    slow = {qid: dict(inputs, latency_ms=SLOW) for qid, inputs in given.items()}

    def run(qid, pipeline=CHANNELS, inputs=given):
        return pipeline.run(inputs[qid])

    photos = {qid: query_image(qid) for qid in queries if query_image(qid) and not image_problem(*query_image(qid))}
    broken = {f.name: failing(CHANNELS, f.name) for f in FAILURES}
    inputs_of = {name: slow if name == "lexical_timeout" else given for name in broken}
    given[NOTHING_QUERY.id] = {"query": NOTHING_QUERY, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF, "image": None}
    everything_slow = {FAILURE_QUERY: dict(given[FAILURE_QUERY], latency_ms=ALL_SLOW)}
    made = {"healthy": (CHANNELS, given), "every channel slow": (all_channels_slow(CHANNELS), everything_slow)}
    made.update({name: (broken[name], given) for name in ("source_stale", "no_eligible_evidence")})
    raw = {
        "queries": queries, "photos": photos, "broken": broken,
        "empty": [(cause, qid, how, run(qid, *made[how])) for cause, qid, how in EMPTY_CASES],
        "failures": {name: run(FAILURE_QUERIES.get(name, FAILURE_QUERY), pipeline, inputs_of[name])
                     for name, pipeline in broken.items()},
        "waited": run(FAILURE_QUERY, broken["lexical_timeout"], {FAILURE_QUERY: dict(slow[FAILURE_QUERY],
                                                                                     fallback_allowed=False)}),
        "declared": {"image_version": IMAGE_VERSION, "lists": IMAGE_LISTS, "seed": IMAGE_SEED,
                     "nprobe": IMAGE_NPROBE, "top_k": IMAGE_TOP_K, "rebuild": dict(REBUILD)},
    }
    return experiments.record(experiments.runs(raw, run), record(raw))


def record(raw: dict) -> dict:
    """The record of the image channel's share and the failures, from the runs trace() made."""
    return {
        "lesson": "channels",
        "declared": raw["declared"],
        "pipeline": [{"stage": name, "version": version} for name, version in CHANNELS.versions().items()],
        "images": _images(raw), "failures": _failures(raw),
        "empty": {"causes": list(EMPTY_CAUSES), "cases": [
            {"cause": cause, "query_id": qid, "made_by": how, "named": empty_cause(found),
             "state": found.output("fallback").state} for cause, qid, how, found in raw["empty"]]},
    }


def view(record: dict) -> list:
    """Printable blocks, in the order the lesson is taught (modules/channels/experiments.py)."""
    return blocks.view(record)


__all__ = ["trace", "record", "view", "query_row", "VISIBLE"]
