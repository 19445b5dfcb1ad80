"""Lesson 12: the ten failure stages of the catalogue pipeline, each simulated by replacing
a stage of the real pipeline with a failing one, and the fallback each calls for.

Public names (stable: lesson 13 reuses them; add, never rename)

    FAILURES            tuple of Failure(name, stages, state, behaviour, visible): one per
                        failure stage, in the curriculum's order
    VISIBLE             every key a fallback may keep visible, with what it means
    fallback(failure, state_before) -> (state, visible keys)
                        the state after the fallback: the failure's own state combined
                        with the state the pipeline decided, by the policy's precedence
                        (None = the failure leaves the state as decided)
    failing(pipeline, failure) -> Pipeline
                        the same pipeline with the failure's stages replaced by failing
                        ones; each replaced stage's version ends in "+fault:<name>"
    FALLBACK            Stage "fallback" (runs after a halt too): reads which stages
                        failed from the run's versions and records a Fallback
    CHANNEL_BUDGET_MS, CHANNEL_LATENCY_MS, slow(stage)
                        simulated time: a declared latency per channel (inputs
                        "latency_ms" overrides it) against a declared budget; nothing sleeps
    task_ms(run)        simulated time the task waited for its channels
    EMPTY_CAUSES, empty_cause(run)
                        lesson 08's six causes of an empty result and the two a channel
                        failure adds: index_incomplete (the index holds fewer listings
                        than the feed) and timed_out (every channel that answered timed
                        out): "no results" is never one bucket
    all_channels_slow(pipeline)
                        every channel under the deadline, as the lexical timeout puts the
                        lexical channel

A failing stage never raises out of the pipeline: it returns what its stage returns in
that failure (a channel that timed out returns no hits and says so), so the stages after
it apply their ordinary rules: fusion reads only channels that ran, the gate fails closed,
the decision names an empty result's cause. The fallback stage then states the safe
behaviour and what stays visible; restricted listings stay opaque refs throughout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from modules.common.checks import short
from modules.common.pipeline import Stage
from modules.catalogue.policy import STATES, decide_state, index_listings
from modules.eligibility import EMPTY_CAUSES as DECIDED_CAUSES, assemble
from modules.hybrid import ChannelResult, FusedCandidate, Fusion

__all__ = ["Failure", "FAILURES", "VISIBLE", "Fallback", "fallback", "failing", "FALLBACK", "FAULT_MARK",
           "CHANNEL_BUDGET_MS", "CHANNEL_LATENCY_MS", "PACKET_FIELD_LIMIT", "slow", "task_ms",
           "bounded_packet", "failure_names", "EMPTY_CAUSES", "empty_cause", "all_channels_slow"]

FAULT_MARK = "+fault:"
CHANNEL_BUDGET_MS = 300                      # a channel answers within this, or the task goes on without it
CHANNEL_LATENCY_MS = {"lexical": 40, "structured": 15, "vector": 60, "image": 90}   # simulated, healthy
SLOW_LEXICAL_MS = 1500                       # the latency the lexical timeout simulates
PACKET_FIELD_LIMIT = 8                       # the smaller limit the packet failure simulates


@dataclass(frozen=True)
class Failure:
    """One simulated failure: the stages it replaces, the state it calls for (None: the run's own
    state stands; otherwise the stronger of the two), the safe behaviour and what stays visible."""
    name: str
    stages: tuple[str, ...]
    state: str | None
    behaviour: str
    visible: tuple[str, ...]


@dataclass(frozen=True)
class Fallback:
    """What stage `fallback` did with a run: the failure it saw, the state before and after, and
    what the shopper is shown."""
    failure: str | None
    stages: tuple[str, ...]
    state_before: str
    state: str
    behaviour: str
    visible: tuple[tuple[str, str], ...]   # (key, what is shown)
    elapsed_ms: int       # simulated time spent waiting for channels

VISIBLE = {
    "original_value": "the text the shopper wrote",
    "missing_meaning": "what the parser could not keep",
    "degraded_channel": "which channel is missing from this answer, and why",
    "coverage_limit": "what this answer could not search",
    "multimodal_unavailable": "that the photo was not used",
    "reason_codes": "safe reason codes and counts; no content, no ids of withheld listings",
    "source_age": "how old the oldest required field is, against the limit",
    "conflicting_fields": "which fields disagree, by field reference",
    "order_unavailable": "that the list is not ranked",
    "omitted_fields": "which fields were left out, required and optional named apart",
    "state": "the decision's state",
    "packet_fields": "the packet's field ids: the structured evidence",
    "empty_cause": "why nothing is offered",
}

FAILURES = (
    Failure("unit_not_kept", ("contract",), "clarify", "ask for the unit; never assume one",
            ("original_value", "missing_meaning")),
    Failure("lexical_timeout", ("lexical",), "degraded",
            "answer from the other permitted channels within the budget", ("degraded_channel", "coverage_limit")),
    Failure("vector_unavailable", ("vector", "image"), "degraded", "the lexical and structured path",
            ("degraded_channel", "multimodal_unavailable")),
    Failure("permission_missing", ("source",), "unauthorized", "fail closed: no listing without permission",
            ("reason_codes",)),
    Failure("source_stale", ("source",), "degraded", "exclude the stale listings; never present them as current",
            ("source_age",)),
    Failure("all_conflict", ("source",), "conflict", "abstain, and ask the seller", ("conflicting_fields",)),
    Failure("ranker_failed", ("fusion",), "degraded", "the gate-filtered set, unranked, as the contract permits",
            ("order_unavailable",)),
    Failure("packet_over_limit", ("packet",), "degraded",
            "leave optional alternatives out, lowest first; abstain if the required fields do not fit",
            ("omitted_fields",)),
    Failure("generator_failed", ("answer",), None, "show the structured evidence", ("state", "packet_fields")),
    Failure("no_eligible_evidence", ("source",), None,
            "offer an ordinary search or a correction; never invent a candidate", ("empty_cause",)),
)
_BY_NAME = {f.name: f for f in FAILURES}


def failure_names() -> tuple:
    return tuple(_BY_NAME)


def _failure(name) -> Failure:
    if not isinstance(name, str):
        raise TypeError(f"failure must be a str, got {type(name).__name__} {short(name)}")
    if name not in _BY_NAME:
        raise ValueError(f"failure must be one of {failure_names()}, got {short(name)}")
    return _BY_NAME[name]


def fallback(failure: str, state_before: str) -> tuple:
    """(state after the fallback, the keys that stay visible) for one failure stage."""
    spec = _failure(failure)
    if state_before not in STATES:
        raise ValueError(f"state_before must be one of {STATES}, got {short(state_before)}")
    state = state_before if spec.state is None else decide_state([state_before, spec.state])
    return state, spec.visible


# ---------------------------------------------------------------- simulated time

def _latency(so_far, name: str) -> int:
    return so_far.inputs.get("latency_ms", {}).get(name, CHANNEL_LATENCY_MS.get(name, 0))


def slow(stage: Stage, failure: str = "lexical_timeout") -> Stage:
    """The channel stage under a deadline: a simulated latency over CHANNEL_BUDGET_MS returns
    "timed out" at the budget when the run permits a fallback (inputs "fallback_allowed",
    default True); otherwise the task waits for it. Nothing sleeps: time is declared."""
    def run(so_far):
        latency = _latency(so_far, stage.name)
        if latency <= CHANNEL_BUDGET_MS:
            return stage.run(so_far)
        if so_far.inputs.get("fallback_allowed", True):
            return ChannelResult(stage.name, (), (), f"timed out at the {CHANNEL_BUDGET_MS} ms budget (simulated "
                                                     f"latency {latency} ms)", "timed out")
        result = stage.run(so_far)
        return replace(result, note=f"{result.note}; waited {latency} ms: this run permits no fallback")
    return Stage(stage.name, stage.version + FAULT_MARK + failure, stage.layer, run, stage.kind, stage.after_halt)


def all_channels_slow(pipeline):
    """`pipeline` with every channel under the deadline (slow, marked as the lexical timeout): with
    every channel's simulated latency over the budget, nothing is proposed in time."""
    for stage in pipeline.stages:
        if stage.kind == "channel":
            pipeline = pipeline.replace(stage.name, slow(stage))
    return pipeline


# Lesson 08's causes, then the two only a channel failure makes: seed 004's eight.
EMPTY_CAUSES = DECIDED_CAUSES + ("index_incomplete", "timed_out")


def empty_cause(run) -> str | None:
    """Why a run's result is empty, or None when it is not: lesson 08's cause as the decision
    named it, unless a channel failure explains it better. timed_out: a channel timed out and
    no channel that answered proposed anything; index_incomplete: the index holds fewer
    listings than the feed it was built from, and the decision found no permitted match."""
    cause = run.output("decision").empty_cause
    if cause is None or cause in ("out_of_scope", "transformation_failed"):
        return cause
    channels = run.of_kind("channel")
    if any(c.status == "timed out" for c in channels) and not any(c.hits for c in channels if c.status == "ran"):
        return "timed_out"
    if cause == "no_permitted_match" and len(run.output("source").records) < len(run.inputs["listings"]):
        return "index_incomplete"
    return cause


def task_ms(run) -> int:
    """Simulated time the task waited: the slowest channel, counting a timed-out one at the budget."""
    declared, spent = run.inputs.get("latency_ms", {}), [0]
    for record in run.records:
        if record.kind == "channel" and record.output.status in ("ran", "timed out"):
            spent.append(CHANNEL_BUDGET_MS if record.output.status == "timed out"
                         else declared.get(record.name, CHANNEL_LATENCY_MS.get(record.name, 0)))
    return max(spent)


# ---------------------------------------------------------------- failing stages

def _unit_not_kept(stage):
    def run(so_far):
        contract = stage.run(so_far)
        if contract.diameter is None:
            return contract
        written = contract.diameter.original
        step = replace(contract.transformations[1], output=f"unit not kept: {written!r} read as a bare number",
                                                    status="unresolved")
        return replace(contract, diameter=None, state="clarify", reason=f"the parser could not keep the unit of "
                                 f"{written!r}", transformations=(contract.transformations[0], step)
                                 + contract.transformations[2:])
    return run


def _unavailable(stage):
    return lambda so_far: ChannelResult(stage.name, (), (), "unavailable (no answer from the vector "
                                                            "service)", "unavailable")


def _feed(change):
    return lambda stage: lambda so_far: index_listings(tuple(change(x) for x in so_far.inputs["listings"]))


_TITLE_SIZE = re.compile(r"\b(\d+) mm\b")


def _wrong_title(listing):
    # A feed mix-up: each title carries the next size up (16 mm -> 18 mm), the fields stay right.
    return replace(listing, title=_TITLE_SIZE.sub(lambda m: f"{int(m.group(1)) + 2} mm", listing.title, count=1))


def _unranked(stage):
    def run(so_far):
        passed = so_far.output("gate").passed
        by_id = so_far.output("source").by_id
        cluster_of = {i: by_id[i].cluster_id for i in passed}
        members: dict = {}
        for listing_id in passed:
            members.setdefault(cluster_of[listing_id], []).append(listing_id)
        unordered = sorted((ids[0], cluster, tuple(ids)) for cluster, ids in members.items())
        return Fusion(None, tuple(FusedCandidate(c, shown, ids, 0.0, ()) for shown, c, ids in unordered), passed)
    return run


def bounded_packet(so_far, limit: int = PACKET_FIELD_LIMIT):
    """The packet within `limit` fields. Required: every field of the best listing (the answer
    needs one listing whole); optional: the alternatives after it, left out whole, lowest first,
    so the answer never shows a listing with a field missing. If the required fields alone do
    not fit, abstain with an empty packet. The note names what was left out, and which kind."""
    full = assemble(so_far)
    listings, fields = list(full.listings), list(full.fields)
    dropped = []
    while len(fields) > limit and len(listings) > 1:
        gone = listings.pop()
        count = sum(f.startswith(gone + "#") for f, _ in fields)
        dropped.append(f"{gone} ({count} fields)")
        fields = [pair for pair in fields if not pair[0].startswith(gone + "#")]
    if len(fields) > limit:
        return replace(full, listings=(), fields=(), note=f"abstained: the required fields ({len(fields)}) exceed "
                                                          f"the {limit}-field limit; required left out: "
                                                          + ", ".join(f for f, _ in fields))
    return replace(full, listings=tuple(listings), fields=tuple(fields),
                         note=f"optional left out: {', '.join(dropped) or 'none'}; required left out: none; "
                              f"limit {limit} fields")


def _no_answer(stage):
    return lambda so_far: replace(stage.run(so_far), lines=())


_FAILING = {
    "unit_not_kept": _unit_not_kept,
    "vector_unavailable": _unavailable,
    "permission_missing": _feed(lambda x: replace(x, permission=None)),
    "source_stale": _feed(lambda x: replace(x, checked_on=(("diameter_mm", "2019-01-15"), ("price_eur", "2019-01-15")))),
    "all_conflict": _feed(_wrong_title),
    "ranker_failed": _unranked,
    "packet_over_limit": lambda stage: bounded_packet,
    "generator_failed": _no_answer,
    # The nightly export lost its seal categories: nothing of the family a seal query names is left.
    "no_eligible_evidence": lambda stage: lambda so_far: index_listings(
        tuple(x for x in so_far.inputs["listings"] if not x.family.endswith("-seal"))),
}


def failing(pipeline, failure: str):
    """`pipeline` with the stages of `failure` replaced by failing ones (a stage it lacks is skipped)."""
    spec = _failure(failure)
    for name in spec.stages:
        if name not in pipeline.names():
            continue
        stage = pipeline.stage(name)
        if failure == "lexical_timeout":
            pipeline = pipeline.replace(name, slow(stage, failure))
            continue
        run = _FAILING[failure](stage)
        pipeline = pipeline.replace(name, Stage(stage.name, stage.version + FAULT_MARK + failure, stage.layer, run,
                                                stage.kind, stage.after_halt))
    return pipeline


# ---------------------------------------------------------------- the fallback stage

def _visible(key: str, so_far) -> str:
    contract, q = so_far.output("contract"), so_far.output("decision")
    gate, packet = so_far.output("gate", None), so_far.output("packet", None)
    channels = so_far.of_kind("channel")
    if key == "original_value":
        return repr(contract.original)
    if key == "missing_meaning":
        return contract.reason
    if key == "degraded_channel":
        down: dict = {}
        for c in channels:
            if c.status in ("timed out", "unavailable"):
                down.setdefault(c.note, []).append(c.channel)
        return "; ".join(f"{', '.join(names)}: {note}" for note, names in down.items())
    if key == "coverage_limit":
        ran = [c.channel for c in channels if c.status == "ran"]
        return f"candidates come from {', '.join(ran) or 'no channel'} only"
    if key == "multimodal_unavailable":
        return "the photo was not searched: no image evidence in this answer"
    if key == "reason_codes":
        counts: dict = {}
        for d in (gate.decisions if gate else ()):
            for code in d.reason_codes:
                counts[code] = counts.get(code, 0) + 1
        return ", ".join(f"{code} x{n}" for code, n in sorted(counts.items())) or "none"
    if key == "source_age":
        ages = [(row.age_days, row.field, row.max_days) for _id, *rows in (gate.ages if gate else ()) for row in rows
                if row.required and row.age_days is not None]
        age, field, limit = max(ages) if ages else (None, "-", "-")
        return f"{field} checked {age} days before {so_far.inputs['as_of']} (limit {limit} days)"
    if key == "conflicting_fields":
        refs = [r for d in so_far.output("evidence").decisions if d.state == "conflict" for r in d.evidence_refs]
        return ", ".join(refs) or "none"
    if key == "order_unavailable":
        return "the permitted candidates, listed by id: no ranking was made"
    if key == "omitted_fields":
        return packet.note
    if key == "state":
        return q.decision.state
    if key == "packet_fields":
        return f"{len(packet.fields) if packet else 0} packet fields, shown as fields instead of sentences"
    return empty_cause(so_far) or "none"


def _record_fallback(so_far) -> Fallback:
    decided = so_far.output("decision").decision.state
    failed = [(r.name, r.version.split(FAULT_MARK, 1)[1]) for r in so_far.records if FAULT_MARK in r.version]
    names = tuple(dict.fromkeys(name for _stage, name in failed))
    if not names:
        return Fallback(failure=None, stages=(), state_before=decided, state=decided, behaviour="none needed",
                        visible=(), elapsed_ms=task_ms(so_far))
    if len(names) > 1:
        raise ValueError(f"one failure at a time, got {list(names)}")
    stages = tuple(stage for stage, _name in failed)
    if names[0] == "lexical_timeout" and all(so_far.output(s).status == "ran" for s in stages):
        # The run permitted no fallback: the task waited for the slow channel and lost nothing but time.
        waited = "none: " + "; ".join(so_far.output(s).note.rsplit("; ", 1)[1] for s in stages)
        return Fallback(failure=names[0], stages=stages, state_before=decided, state=decided,
                        behaviour="waits for the slow channel: this run permits no fallback",
                        visible=(("degraded_channel", waited),), elapsed_ms=task_ms(so_far))
    state, keys = fallback(names[0], decided)
    return Fallback(failure=names[0], stages=stages, state_before=decided, state=state,
                    behaviour=_BY_NAME[names[0]].behaviour, visible=tuple((key, _visible(key, so_far)) for key in keys),
                    elapsed_ms=task_ms(so_far))


FALLBACK = Stage("fallback", "fallback/1", "decision", _record_fallback, after_halt=True)
