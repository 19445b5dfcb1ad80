"""Lesson 14's trace: what `python3 -B methods.py operate` runs and records.

trace() runs the frozen catalogue cases through lesson 09's pipeline, lesson 13's memory
sessions, lesson 09's and lesson 12's rebuilds, the cases with generation removed and the
counterfactuals, and builds the record from the mechanism's functions: the signals, the two
rebuilds named by their layer, the layered evaluation, the faithfulness checks, the review,
the five artifacts, the counterfactuals, ownership and the six failure patterns.
modules/operate/view.py arranges the record into printable blocks.
"""

from __future__ import annotations

from modules.catalogue import QUERIES, RESTRICTED_IDS, opaque_ref
from modules.channels.metrics import RELEVANCE
from modules.grounding import GROUNDED, VARIANTS
from modules.grounding.trace import query_row
from modules.operate import artifacts as art
from modules.operate import counterfactuals as cf
from modules.operate import evaluation as ev
from modules.operate import faithfulness as fa
from modules.operate import mechanism as m
from modules.operate import review as rv
from modules.operate.signals import PERMISSION_CODES, aggregate, name_layer, signal_map
from modules.operate.view import view

__all__ = ["trace", "record", "view", "DASHBOARD"]

# The signals the dashboard of a rebuild shows: each when it moved, and the steady ones always
# (a stable count is evidence too: it rules its layer out).
DASHBOARD = ("parser failures", "candidates", "index version", "exclusions", "ranked", "packet fields",
             "assisted results", "answered", "versions")
STEADY = ("parser failures", "candidates", "assisted results", "answered")


def trace() -> dict:
    """Run what the lesson shows, then build its record."""
    runs = m.frozen_runs()
    records = m.frozen_records(runs)
    briefs = {qid: fa.brief_of(runs[qid]) for qid in ("PW-Q002", "PW-Q004")}
    memory, served = m.memory_runs()
    without_answer = m.frozen_runs(GROUNDED.without("answer"))
    nine = {q.id: records[q.id] for q in QUERIES}
    rebuilt = m.frozen_records(m.frozen_runs(VARIANTS[1].pipeline, cases=QUERIES))
    photos = m.frozen_records(m.photo_runs())
    photos_after = m.frozen_records(m.photo_runs(m.rebuilt_image_index()))
    evaluation = ev.evaluation_report(records, without_answer,
                                      (ev.CATALOGUE_CASES, "five photo queries", "four memory sessions"))
    evaluation["ranking"].update(ev.judged_ranking(records, RELEVANCE))
    vector = cf.remove_vector(runs, m.frozen_runs(GROUNDED.without("vector")))
    mistakes = _mistakes(briefs)
    return record({
        "records": records, "briefs": briefs, "mistakes": mistakes, "memory": memory,
        "signals": aggregate(records, memory), "evaluation": evaluation,
        "rebuild": dict(_anomaly(aggregate(nine), aggregate(rebuilt)),
                        restricted_proposed=[_restricted_proposed(r) for r in (nine, rebuilt)]),
        "image": dict(_anomaly(aggregate(photos), aggregate(photos_after)),
                      restricted_proposed=[_restricted_proposed(r) for r in (photos, photos_after)]),
        "review": rv.review((m.channels_pipeline(), m.memory_pipeline())),
        "vector": vector, "generation": cf.remove_generation(runs, without_answer),
        "withdraw": cf.withdraw(records, served),
        "patterns": cf.failure_patterns(records, vector, memory, mistakes),
    })


def _mistakes(briefs: dict) -> list:
    """Each unfaithful explanation with the checks it fails."""
    out = []
    for mistake in fa.MISTAKES:
        b = briefs[mistake.query_id]
        failed = [name for name, held, _why in fa.run_checks(b, mistake.edit(b, fa.explain(b))) if not held]
        out.append({"name": mistake.name, "query_id": mistake.query_id, "must_fail": mistake.fails,
                    "failed": failed})
    return out


def _anomaly(before: tuple, after: tuple) -> dict:
    """One rebuild's dashboard: the signals before and after, and the layer name_layer names."""
    a, b = signal_map(before), signal_map(after)
    layer, why = name_layer(a, b)
    rows = []
    for name in DASHBOARD:
        for label in dict.fromkeys(list(a.get(name, {})) + list(b.get(name, {}))):
            x, y = a.get(name, {}).get(label, 0), b.get(name, {}).get(label, 0)
            if x != y or name in STEADY:
                rows.append([name, label, x, y])
    totals: dict = {}
    for name, _label, x, y in rows:
        if isinstance(x, int) and isinstance(y, int):
            totals[name] = (totals.get(name, (0, 0))[0] + x, totals.get(name, (0, 0))[1] + y)
    return {"rows": rows, "layer": layer, "why": why,
            "changed_versions": [[label, x, y] for name, label, x, y in rows if name == "versions"],
            "fell": [name for name, (x, y) in totals.items() if y < x],
            "rose": [name for name, (x, y) in totals.items() if y > x],
            "steady": [name for name, (x, y) in totals.items() if y == x],
            "permission": [sum(v for k, v in s.get("exclusions", {}).items() if k in PERMISSION_CODES)
                           for s in (a, b)]}


def _restricted_proposed(records: dict) -> int:
    """How many listings that are not 'allowed' the channels proposed, once per case: a count,
    never an id (the records show such a listing by its opaque ref)."""
    refs = {opaque_ref(i) for i in RESTRICTED_IDS} | set(RESTRICTED_IDS)
    return sum(len({hit["candidate"] for channel in r["retrieval"]["channels"] for hit in channel["hits"]} & refs)
               for r in records.values())


def _signal_dict(s) -> dict:
    return {"stage": s.stage, "name": s.name, "counts": [list(p) for p in s.counts], "value": s.value,
            "owner": s.owner, "first_action": s.first_action, "retention": s.retention, "access": s.access,
            "limitation": s.limitation}


def record(raw: dict) -> dict:
    """The lesson's record (JSON-ready) from what trace() ran."""
    records, briefs = raw["records"], raw["briefs"]
    channels, memory = m.channels_pipeline(), m.memory_pipeline()
    faithful = {qid: {"template": [[x.text, list(x.cites)] for x in fa.explain(b)],
                      "reworded": [[x.text, list(x.cites)] for x in fa.reworded(b)],
                      "checks": [list(c) for c in fa.run_checks(b, fa.explain(b))],
                      "reworded_checks": [list(c) for c in fa.run_checks(b, fa.reworded(b))]}
                for qid, b in briefs.items()}
    return {
        "lesson": "operate",
        "cases": [{"query_id": qid, "kind": m.CASE_KINDS[qid], "segment": m.segment_of(r),
                   "state": r["decision"]["state"]} for qid, r in records.items()],
        "sessions": [s.id for s, _run in raw["memory"].values()],
        "signals": [_signal_dict(s) for s in raw["signals"]],
        "anomalies": {"rebuild": raw["rebuild"], "image": raw["image"]},
        "evaluation": raw["evaluation"],
        "faithfulness": {"checks": [name for name, _f in fa.CHECKS], "cases": faithful, "mistakes": raw["mistakes"]},
        "review": [{"question": p.question, "stage": p.stage, "lesson": p.lesson, "test": p.test, "status": status,
                    "note": note} for p, status, note in raw["review"]],
        "artifacts": {"context_contract": art.context_contract(channels),
                      "decision_record": art.decision_record(channels),
                      "trace_schema": [[s, keys] for s, keys in art.trace_schema(records["PW-Q002"])],
                      "evidence_states": art.evidence_state_table(records),
                      "evaluation_report": "the evaluation section of this record"},
        "counterfactuals": {"vector": raw["vector"], "generation": raw["generation"], "withdraw": raw["withdraw"]},
        "ownership": [{"role": o.role, "owns": o.owns, "stages": stages_of}
                      for o, (_role, stages_of) in zip(m.OWNERS, m.ownership(channels, memory))],
        "patterns": [list(p) for p in raw["patterns"]],
        # lesson 09's rows of the nine catalogue queries: the agreement test compares them with lessons 07-13
        "queries": [query_row(records[q.id]) for q in QUERIES],
    }
