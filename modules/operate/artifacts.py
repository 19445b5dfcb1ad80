"""The five completion artifacts, generated from the pipeline's definitions and runs.

Nothing here is written by hand: each artifact reads the Pipeline object (its stages, their
versions, layers and kinds), the declared constants the stages use, and the trace records
of the frozen cases. Change a stage's version and the contract and the decision record
change with it.

  context_contract         stages with version, layer and owner; packet fields required,
                           optional, prohibited; the packet limit; the policy's clauses
  decision_record          the channels, fusion and its k, field weights, what is never added
  trace_schema             the sections of a trace record and the keys each holds
  evidence_state_table     the states by precedence, with clauses, next actions, counts
  (the layered evaluation report is evaluation.evaluation_report)
"""

from __future__ import annotations

from modules.common.pipeline import Pipeline
from modules.catalogue.policy import CLAUSES, FRESHNESS, NEXT_ACTIONS, STATES
from modules.eligibility import PACKET_FIELDS, PACKET_LISTINGS
from modules.hybrid import FIELD_WEIGHTS, RRF_K, VECTOR_TOP_K
from modules.operate.mechanism import owner_of

__all__ = ["context_contract", "decision_record", "trace_schema", "evidence_state_table", "PROHIBITED_FIELDS"]

# Never packed: seller free text is data (lesson 07), and a withheld listing gives nothing (lesson 08).
PROHIBITED_FIELDS = ("description (seller text)", "any field of a listing not 'allowed'")


def _pipeline(pipeline) -> Pipeline:
    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"pipeline must be a Pipeline, got {type(pipeline).__name__}")
    return pipeline


def context_contract(pipeline: Pipeline) -> dict:
    """The context contract of `pipeline`."""
    rules = {rule.field: rule for rule in FRESHNESS}
    return {
        "pipeline": _pipeline(pipeline).name,
        "stages": [{"stage": s.name, "version": s.version, "layer": s.layer, "kind": s.kind,
                    "owner": owner_of(s.name)} for s in pipeline.stages],
        "required": [f for f in PACKET_FIELDS if f not in rules or rules[f].required],
        "optional": [f for f in PACKET_FIELDS if f in rules and not rules[f].required],
        "prohibited": list(PROHIBITED_FIELDS),
        "freshness": [{"field": r.field, "max_days": r.max_days, "required": r.required} for r in FRESHNESS],
        "packet_limit": PACKET_LISTINGS,
        "clauses": dict(CLAUSES),
    }


def decision_record(pipeline: Pipeline) -> dict:
    """The retrieval and ranking decision record of `pipeline`: what proposes, what orders, and why."""
    names = _pipeline(pipeline).names()
    channels = [{"channel": s.name, "version": s.version} for s in pipeline.stages if s.kind == "channel"]
    fusion = pipeline.stage("fusion") if "fusion" in names else None
    gate_first = "gate" in names and fusion is not None and names.index("gate") < names.index("fusion")
    return {
        "channels": channels,
        "fusion": None if fusion is None else {"version": fusion.version, "rule": "reciprocal rank fusion",
                                               "k": RRF_K},
        "field_weights": dict(FIELD_WEIGHTS), "vector_top_k": VECTOR_TOP_K,
        "gate_before_ranking": gate_first,
        "never": ["raw scores of different channels added", "an ordering score read as a probability or a fit"],
    }


def trace_schema(record: dict) -> list:
    """[(section, [keys])] of one trace record (lesson 09's), in record order."""
    if not isinstance(record, dict):
        raise TypeError(f"record must be a trace record dict, got {type(record).__name__}")
    return [(section, sorted(value) if isinstance(value, dict) else [type(value).__name__])
            for section, value in record.items()]


def evidence_state_table(records: dict) -> list:
    """One row per state by precedence: its clauses' first next action and the frozen cases in it."""
    rows = []
    for rank, state in enumerate(STATES, 1):
        cases = [q for q, r in records.items() if r["decision"]["state"] == state]
        rows.append({"precedence": rank, "state": state, "next_action": NEXT_ACTIONS[state][0], "cases": cases})
    return rows
