"""Lesson 14, operate: signals, the layered evaluation and the context contract review.

This lesson adds no stage to the catalogue pipeline. It reads the one pipeline lessons 07-13
built (GROUNDED of lesson 09, CHANNELS of lesson 12, MEMORY of lesson 13) over the frozen
cases the course already has, and asks the operating questions of it:

  signals        per stage, aggregated over the frozen cases, never per user, each with
                 an owner, a first diagnostic action, a retention, who may see it and its
                 limitation (modules/operate/signals.py)
  anomalies      lesson 09's index rebuild and lesson 12's image-index rebuild, named by
                 their layer from the signals alone
  evaluation     four sections (retrieval, ranking, context, end-to-end), never one number
  faithfulness   seven checks over an explanation of the packet (faithfulness.py)
  review         the context contract review, each answer a pointer into the course's own
                 stages, lessons and tests, or a gap (review.py)
  artifacts      the five completion artifacts, generated from the pipeline (artifacts.py)

The frozen cases: the nine catalogue queries (ordinary, missing unit, failed transformation,
conflicting, stale, unauthorized, excluded category, instruction-like seller text), lesson
09's nothing-matches query (empty), and lesson 13's four memory sessions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, QUERIES
from modules.catalogue.images import IMAGE_QUERIES, image_problem, query_image
from modules.channels.mechanism import CHANNELS, IMAGE_INDEX, IMAGE_REJECTED, REBUILD, image_stage
from modules.common import ann
from modules.common.checks import short
from modules.common.pipeline import Pipeline
from modules.grounding import GROUNDED, NOTHING_QUERY, run_query, trace_record
from modules.memory import mechanism as memory
from modules.memory.store import build, serve

__all__ = [
    "CASES", "CASE_KINDS", "OWNERS", "STAGE_OWNERS", "SEGMENTS", "Owner", "frozen_runs", "frozen_records",
    "segment_of", "owner_of", "ownership", "with_permission", "memory_runs", "photo_runs", "rebuilt_image_index",
    "channels_pipeline", "memory_pipeline",
]

CASES = QUERIES + (NOTHING_QUERY,)
# What each frozen case stands for (the states are the pipeline's, as lessons 07-09 show them).
CASE_KINDS = {
    "PW-Q001": "ordinary", "PW-Q002": "ordinary, denied closest neighbour", "PW-Q003": "stale price",
    "PW-Q004": "conflicting", "PW-Q005": "unauthorized", "PW-Q006": "missing unit",
    "PW-Q007": "failed transformation", "PW-Q008": "excluded category",
    "PW-Q009": "instruction-like seller text", "GR-Q001": "empty",
}


@dataclass(frozen=True)
class Owner:
    """One owning role, and the parts of the context path it answers for."""
    role: str
    owns: str

    def __post_init__(self):
        for name in ("role", "owns"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise TypeError(f"Owner.{name} must be a non-empty str, got {short(value)}")


OWNERS = (
    Owner("catalogue/domain", "families, sizes and units, aliases, the evidence checks"),
    Owner("data", "the listing feed, its metadata and field freshness"),
    Owner("search/platform", "channels, indexes, representations, fusion"),
    Owner("combined behaviour", "the engineer owning packet, decision and end-to-end behaviour"),
    Owner("product/design", "what the shopper sees and the answer template"),
    Owner("privacy/security", "permission, scope, opaque refs, memory obligations"),
    Owner("operations", "fallbacks, signals, timeouts, incident response"),
    Owner("release", "versions, change log, replay before exposure"),
)
_ROLES = tuple(o.role for o in OWNERS)

# Every stage of the catalogue pipeline (lessons 07-13) and the role that owns it.
STAGE_OWNERS = {
    "source": "data", "contract": "catalogue/domain", "query-scope": "privacy/security",
    "lexical": "search/platform", "structured": "search/platform", "vector": "search/platform",
    "image": "search/platform", "memory-recall": "search/platform", "gate": "privacy/security",
    "memory-gate": "privacy/security", "fusion": "search/platform", "evidence": "catalogue/domain",
    "packet": "combined behaviour", "memory-context": "combined behaviour", "decision": "combined behaviour",
    "answer": "product/design", "fallback": "operations",
}


def owner_of(stage: str) -> str:
    """The role that owns a stage; ValueError naming a stage nobody owns."""
    if not isinstance(stage, str):
        raise TypeError(f"stage must be a str, got {type(stage).__name__} {short(stage)}")
    if stage not in STAGE_OWNERS:
        raise ValueError(f"stage {stage!r} has no owner; owned stages: {sorted(STAGE_OWNERS)}")
    return STAGE_OWNERS[stage]


def ownership(*pipelines: Pipeline) -> list:
    """[(role, [stage, ...]), ...] for every role: the stages of the pipelines, each once, in order."""
    names = []
    for pipeline in pipelines:
        if not isinstance(pipeline, Pipeline):
            raise TypeError(f"pipeline must be a Pipeline, got {type(pipeline).__name__} {short(pipeline)}")
        names += [s.name for s in pipeline.stages if s.name not in names]
    stages = [(name, owner_of(name)) for name in names]
    return [(role, [name for name, owner in stages if owner == role]) for role in _ROLES]


def channels_pipeline() -> Pipeline:
    """Lesson 12's pipeline: lesson 09's with the image channel and the fallback."""
    return CHANNELS


def memory_pipeline() -> Pipeline:
    """Lesson 13's pipeline: lesson 08's with memory recall, its gate and its context."""
    return memory.MEMORY


# How the contract read the size (lesson 12's declared rules), in the order signals list them.
SEGMENTS = ("explicit unit", "bare number", "other")


def segment_of(record: dict) -> str:
    """The segment a case belongs to, from its contract alone (lesson 12's declared rules)."""
    i = record["input"]
    if i["diameter_mm"] is not None:
        return "explicit unit"
    if i["state"] == "clarify":
        return "bare number"
    return "other"


def frozen_runs(pipeline: Pipeline = GROUNDED, listings=LISTINGS, cases=CASES) -> dict:
    """{case id: Run} of every frozen catalogue case through `pipeline`."""
    return {q.id: run_query(q, pipeline, listings, CATALOGUE_AS_OF) for q in cases}


def frozen_records(runs: dict) -> dict:
    """{case id: lesson 09's trace record} for each run."""
    return {qid: trace_record(run) for qid, run in runs.items()}


def with_permission(listings, listing_id: str, permission: str) -> tuple:
    """The listings with one listing's permission replaced (a new record, the others as they were)."""
    if not any(x.id == listing_id for x in listings):
        raise ValueError(f"listing_id {listing_id!r} is not among the listings")
    return tuple(replace(x, permission=permission) if x.id == listing_id else x for x in listings)


def memory_runs() -> tuple:
    """Lesson 13's sessions served in order from its store, as its lesson serves them:
    ({session id: (session, Run)}, the store after serving them, with its cached packets)."""
    state, runs = build(memory.ITEMS, memory.ASSISTANT_MEMORY), {}
    for session in memory.SESSIONS:
        run, state = serve(state, session)
        runs[session.id] = (session, run)
    return runs, state


def photo_runs(image_index=None) -> dict:
    """{query id: Run} of lesson 12's photo queries through its channels pipeline, with the image
    index it built (or `image_index`: lesson 12's nightly rebuild, say)."""
    pipeline = CHANNELS if image_index is None else CHANNELS.replace(
        "image", image_stage(image_index, IMAGE_REJECTED))
    photos = [q for q in IMAGE_QUERIES if query_image(q.id) and not image_problem(*query_image(q.id))]
    return {q.id: pipeline.run({"query": q, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF,
                                "image": query_image(q.id)}) for q in photos}


def rebuilt_image_index():
    """Lesson 12's nightly rebuild of the image index: its REBUILD parameters, the same vectors."""
    return ann.build(IMAGE_INDEX.vectors, REBUILD["n_lists"], REBUILD["seed"])
