"""Lesson 09, grounding: traces that explain every inclusion and exclusion.

One query, one trace record, and it is the record of the same run lessons 07 and 08 show:
the catalogue pipeline (modules/eligibility/mechanism.py CATALOGUE) plus one stage, the template
answer (modules/grounding/answer.py GROUNDED). The record has one section per layer, built by one function per layer, each
section holding what that layer received and produced, so a check can judge a layer from
its own section:

  input                 the original, every transformation (name, version), the contract
  source                how many records the index holds, and any missing metadata
  retrieval             each channel's candidates with scores and evidence, its rejections
  permission/freshness  the gate: policy version, as-of date, what passed, what was withheld
                        (by safe reason code; restricted listings by opaque ref), field ages
  ranking               the ids the ranker received and the fused clusters with channel ranks
  assembly              the usable candidates, the evidence exclusions, the packet field ids
  decision              state, reason codes, clauses, evidence refs, empty cause, fallback
  generation            the answer lines and the field ids they could cite
  presentation          the user view: never the content, the ref or the count of a denied one
  change                component versions against the baseline and the change log

The query fingerprint is the hash of the canonical form of the contract (strings in NFC,
keys sorted): the same request through the same components gives the same fingerprint.

The checks, one per layer, and what is built on them (the walk, the user view, the counts)
are in modules/grounding/checks.py. When an outcome is bad, the layers are walked in order
and the first whose check fails is the one to fix. Three broken pipelines, each one replaced stage, show the walk naming a
layer far from where the symptom shows. Nobody tunes the ranker before the walk names it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict, dataclass, replace

from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, Query, opaque_ref
from modules.common.checks import canonical_json, sha256_hex, short
from modules.common.pipeline import Pipeline, Run, Stage
from modules.catalogue.policy import gate, index_listings, names_of, permission_gate
from modules.grounding.checks import (CHECKS, GATE_CODES, LAYERS, SAFE_CODES, UNIT_WORDS, USER_KEYS, USER_MESSAGES,  # noqa: F401
                                      USER_STATES, check_assembly, check_change, check_decision, check_generation,
                                      check_input, check_permission_freshness, check_presentation, check_ranking,
                                      check_retrieval, check_source, count_exclusions, exclusions,
                                      failure_counts, first_failing_layer, user_view)
from modules.grounding.answer import BASELINE, GROUNDED, Answer, compose, run_query  # noqa: F401 (re-exported)
from modules.hybrid import parse_query

__all__ = [
    "LAYERS", "USER_STATES", "USER_MESSAGES", "USER_KEYS", "UNIT_WORDS", "SAFE_CODES", "GROUNDED", "BASELINE",
    "Answer", "compose", "run_query", "trace_record", "query_fingerprint", "exclusions", "CHECKS",
    "check_input", "check_source", "check_retrieval", "check_permission_freshness", "check_ranking",
    "check_assembly", "check_decision", "check_generation", "check_presentation", "check_change",
    "first_failing_layer", "user_view", "failure_counts", "count_exclusions", "locate", "Variant", "VARIANTS",
    "NOTHING_QUERY", "REBUILD_SINCE", "run_variant",
]

FALLBACKS = {"prohibited_scope": "refer_to_technician", "clarify": "ask_the_customer",
             "unauthorized": "suggest_other_search", "incompatible": "suggest_other_search",
             "conflict": "ask_the_seller", "degraded": "request_feed_refresh"}

# ---------------------------------------------------------------- the record, one function per layer

def _input(run: Run) -> dict:
    c = run.output("contract")
    halt = run.halt
    return {"original": c.original, "transformations": [asdict(t) for t in c.transformations],
            "state": c.state, "family": c.family, "diameter_mm": c.diameter and c.diameter.value_mm,
            "terms": list(c.terms), "stopped": halt and halt.reason}


def _source(run: Run) -> dict:
    records = run.output("source").records
    missing = {"permission": sum(x.permission is None for x in records),
               "checked_on": sum(not x.checked_on for x in records)}
    return {"records": len(records), "missing": missing}


def _names(run: Run) -> dict:
    gate = run.output("gate", None)
    return {} if gate is None else names_of(gate)


def _retrieval(run: Run) -> dict:
    names = _names(run)
    return {"stopped": run.halted_by is not None,
            "channels": [{"channel": c.channel, "status": c.status, "note": c.note,
                          "hits": [{"rank": n, "candidate": names[h.listing_id], "score": round(h.score, 4),
                                    "evidence": h.evidence} for n, h in enumerate(c.hits, start=1)],
                          "rejected": [{"candidate": names.get(r.listing_id, r.listing_id), "reason": r.reason}
                                       for r in c.rejected if names.get(r.listing_id, r.listing_id) == r.listing_id]}
                         for c in run.of_kind("channel")]}


def _decision_dict(d) -> dict:
    return {"subject": d.subject, "state": d.state, "reason_codes": list(d.reason_codes),
            "clause_ids": list(d.clause_ids), "evidence_refs": list(d.evidence_refs)}


def _gate(run: Run) -> dict:
    gate = run.output("gate", None)
    if gate is None:
        return {"ran": False}
    by_id = run.output("source").by_id
    return {"ran": True, "policy": gate.policy, "as_of": gate.as_of, "freshness_enforced": gate.freshness_enforced,
            "passed": [{"candidate": i, "permission": by_id[i].permission} for i in gate.passed],
            "withheld": [_decision_dict(d) for d in gate.decisions],
            "fields": [{"candidate": i, "field": r.field, "checked_on": r.checked_on, "age_days": r.age_days,
                        "max_days": r.max_days, "required": r.required} for i, *rows in gate.ages for r in rows]}


def _ranking(run: Run) -> dict:
    fusion = run.output("fusion", None)
    if fusion is None:
        return {"ran": False}
    return {"ran": True, "k": fusion.k, "received": list(fusion.eligible),
            "fused": [{"position": n, "cluster": f.cluster_id, "shown": f.listing_id, "members": list(f.members),
                       "ordering_score": round(f.ordering_score, 6), "channel_ranks": dict(f.channel_ranks)}
                      for n, f in enumerate(fusion.candidates, start=1)]}


def _assembly(run: Run) -> dict:
    evidence, packet = run.output("evidence", None), run.output("packet", None)
    if evidence is None:
        return {"ran": False}
    return {"ran": True, "ranked": [f.listing_id for f in run.output("fusion").candidates],
            "usable": list(evidence.usable), "excluded": [_decision_dict(d) for d in evidence.decisions],
            "limit": 3, "note": packet.note, "listings": list(packet.listings),
            "packet": [{"field_id": f, "value": v} for f, v in packet.fields], "omitted": list(packet.omitted)}


def _decision(run: Run) -> dict:
    q = run.output("decision")
    return dict(_decision_dict(q.decision), next_actions=list(q.decision.next_actions), empty_cause=q.empty_cause,
                because=[{"subject": s, "state": st, "reason_codes": list(codes)} for s, st, codes in q.because],
                fallback=FALLBACKS.get(q.decision.state))


def _generation(run: Run) -> dict:
    answer = run.output("answer")
    return {"from_fields": list(answer.from_fields),
            "answer": [{"text": text, "cites": list(cites)} for text, cites in answer.lines]}


def _change(run: Run) -> dict:
    log = run.inputs.get("change_log", ())
    return {"versions": run.versions, "baseline": dict(BASELINE),
            "change_log": [{"stage": s, "version": v, "why": why} for s, v, why in log]}


def query_fingerprint(contract: dict) -> str:
    """sha256 of the canonical JSON of the contract, every str (keys and values) in NFC first:
    two Unicode spellings of one request, or one dict in two key orders, share a fingerprint."""
    def nfc(value):
        if isinstance(value, str):
            return unicodedata.normalize("NFC", value)
        if isinstance(value, dict):
            return {nfc(k): nfc(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [nfc(v) for v in value]
        return value

    if not isinstance(contract, dict):
        raise TypeError(f"contract must be a dict, got {type(contract).__name__} {short(contract)}")
    return sha256_hex(canonical_json(nfc(contract)))


def fingerprinted(record: dict) -> dict:
    """The contract a fingerprint covers: the request as understood, and every component version."""
    i = record["input"]
    return {"query": i["transformations"][0]["output"], "family": i["family"], "diameter_mm": i["diameter_mm"],
            "state": i["state"], "terms": i["terms"], "versions": record["change"]["versions"]}


def trace_record(run: Run) -> dict:
    """The internal trace record of one run: one section per layer (JSON-ready)."""
    record = {"query_id": run.inputs["query"].id, "query": run.inputs["query"].text, "as_of": run.inputs["as_of"],
              "input": _input(run), "source": _source(run), "retrieval": _retrieval(run),
              "permission/freshness": _gate(run), "ranking": _ranking(run), "assembly": _assembly(run),
              "decision": _decision(run), "generation": _generation(run), "change": _change(run)}
    record["fingerprint"] = query_fingerprint(fingerprinted(record))
    record["presentation"] = user_view(record)
    return record


def locate(record: dict, listing_id: str) -> str:
    """Internal only: where one listing went. Not retrieved and retrieved-then-withheld differ here,
    though the user view shows neither."""
    names = {listing_id, opaque_ref(listing_id)}
    for subject, layer, codes in exclusions(record):
        if subject in names:
            return f"retrieved, then excluded at {layer}: {' '.join(codes)}"
    ranking = record["ranking"].get("fused", [])
    for row in ranking:
        if listing_id in row["members"] and row["shown"] != listing_id:
            return f"retrieved, then collapsed into {row['shown']} (cluster {row['cluster']})"
    if listing_id in record["assembly"].get("listings", ()):
        return "in the packet"
    if any(row["shown"] == listing_id for row in ranking):
        return "usable, ranked below the packet"
    for channel in record["retrieval"]["channels"]:
        for rejected in channel["rejected"]:
            if rejected["candidate"] == listing_id:
                return f"not retrieved; the {channel['channel']} channel rejected it: {rejected['reason']}"
    return "not retrieved"


# ---------------------------------------------------------------- broken pipelines, one stage each

@dataclass(frozen=True)
class Variant:
    """A broken pipeline: one replaced stage, the change log entry, and where it shows."""
    name: str
    pipeline: Pipeline
    change: tuple[str, str, str]   # (stage, version, why): what the change log records
    query: str
    symptom: str
    seen_at: str


REBUILD_SINCE = "2026-10-11"
NOTHING_QUERY = Query("GR-Q001", "marine stern seal 24 mm", (0.61, 0.30, 0.69), "pw-vec-2")


def _dropping_unit(so_far: Run):
    """The size parser after a refactor: it reads the number and loses the unit written with it."""
    c = parse_query(so_far.inputs["query"])
    if c.diameter is None:
        return c
    lost = replace(c.transformations[1], version="unit-to-mm/2", output="unresolved: no unit read",
                   status="unresolved")
    return replace(c, diameter=None, state="clarify", reason="no unit read",
                   transformations=(c.transformations[0], lost) + c.transformations[2:])


def _rebuilt_index(so_far: Run):
    """The nightly rebuild read listings updated since REBUILD_SINCE from a feed export that has
    no permission column, so their permission arrives missing."""
    return index_listings(tuple(replace(x, permission=None) if x.updated_on >= REBUILD_SINCE else x
                                for x in so_far.inputs["listings"]))


VARIANTS = (
    Variant(name="unit parser drops the unit",
            pipeline=GROUNDED.replace("contract", Stage("contract", "contract/3", "input", _dropping_unit)),
            change=("contract", "contract/3", "size parser refactor"), query="PW-Q001",
            symptom="the assistant asks which unit, though the shopper typed 16 mm", seen_at="decision"),
    Variant(name="index rebuilt without permission fields",
            pipeline=GROUNDED.replace("source", Stage("source", "source/2-rebuild", "source", _rebuilt_index)),
            change=("source", "source/2-rebuild", "nightly rebuild from the new feed export"), query="PW-Q001",
            symptom="permission exclusions triple overnight; the policy version is unchanged",
            seen_at="permission/freshness"),
    Variant(name="freshness rule switched off",
            pipeline=GROUNDED.replace("gate", Stage("gate", "assisted-use-policy/4+freshness-off",
                                                    "permission/freshness",
                                                    lambda so_far: gate(so_far, freshness=False))),
            change=("gate", "assisted-use-policy/4+freshness-off", "freshness switched off for a load test"),
            query="PW-Q004", symptom="a seal from the 2020 catalogue is offered as current", seen_at="generation"),
)


def run_variant(variant: Variant, query: Query, until: str = "answer") -> Run:
    """One query through a broken pipeline (up to stage `until`), its change logged."""
    return variant.pipeline.until(until).run({"query": query, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF,
                                              "change_log": (variant.change,)})
