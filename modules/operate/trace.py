"""Lesson 14's trace and view: what `python3 -B methods.py operate` prints.

trace() runs the frozen cases through the one catalogue pipeline (and lesson 09's and 12's
rebuilt indexes; with --all also lesson 12's removals and a withdrawn permission) and builds
the record from the mechanism's functions; view() arranges it into printable blocks.
"""

from __future__ import annotations

from modules.catalogue import QUERIES
from modules.grounding import GROUNDED, VARIANTS
from modules.grounding.trace import query_row
from modules.operate import artifacts as art
from modules.operate import evaluation as ev
from modules.operate import faithfulness as fa
from modules.operate import mechanism as m
from modules.operate import review as rv
from modules.operate.signals import PERMISSION_CODES, aggregate, name_layer, signal_map

__all__ = ["trace", "record", "view"]

DASHBOARD = ("parser failures", "candidates", "exclusions", "ranked", "packet fields", "answered", "index version",
             "versions")
STEADY = ("parser failures", "candidates", "answered")   # shown even when they did not move


def _signal_dict(s) -> dict:
    return {"stage": s.stage, "name": s.name, "counts": [list(p) for p in s.counts], "value": s.value,
            "owner": s.owner, "first_action": s.first_action, "retention": s.retention, "access": s.access,
            "limitation": s.limitation}


def _anomaly(before: dict, after: dict) -> dict:
    a, b = signal_map(before), signal_map(after)
    layer, why = name_layer(a, b)
    rows = []
    for name in a:
        for label in dict.fromkeys(list(a[name]) + list(b.get(name, {}))):
            x, y = a[name].get(label, 0), b.get(name, {}).get(label, 0)
            if name in DASHBOARD and (x != y or name in STEADY):
                rows.append([name, label, x, y])
    totals = {}
    for name, _label, x, y in rows:
        if isinstance(x, int) and isinstance(y, int):
            totals[name] = (totals.get(name, (0, 0))[0] + x, totals.get(name, (0, 0))[1] + y)
    fell = [name for name, (x, y) in totals.items() if y < x]
    rose = [name for name, (x, y) in totals.items() if y > x]
    return {"rows": rows, "layer": layer, "why": why, "fell": fell, "rose": rose,
            "permission": [sum(v for k, v in s.get("exclusions", {}).items() if k in PERMISSION_CODES)
                           for s in (a, b)]}


def trace(full: bool = False) -> dict:
    """Run what the lesson shows, then build its record.

    The default runs what the findings need: the frozen cases, the signals, the two rebuilds,
    the evaluation report and the faithfulness checks. `full` (the command's --all) also runs
    the review, the counterfactuals (removing the vector channel, withdrawing a permission) and
    lesson 07's judgements, and adds the artifacts, the ownership and the failure patterns."""
    if not isinstance(full, bool):
        raise TypeError(f"full must be a bool, got {type(full).__name__} {full!r}")
    runs = m.frozen_runs()
    records = m.frozen_records(runs)
    memory, served = m.memory_runs()
    nine = {q.id: records[q.id] for q in QUERIES}
    rebuilt = m.frozen_records(m.frozen_runs(VARIANTS[1].pipeline, cases=QUERIES))
    photos = m.frozen_records(m.photo_runs())
    photos_after = m.frozen_records(m.photo_runs(m.rebuilt_image_index()))
    without_answer = m.frozen_runs(GROUNDED.without("answer"))
    briefs = {qid: fa.brief_of(runs[qid]) for qid in ("PW-Q002", "PW-Q004")}
    raw = {
        "full": full, "records": records, "runs": runs, "memory": memory, "signals": aggregate(records, memory),
        "rebuild": _anomaly(aggregate(nine), aggregate(rebuilt)),
        "image": _anomaly(aggregate(photos), aggregate(photos_after)),
        "evaluation": ev.evaluation_report(records, without_answer),
        "briefs": briefs,
        "mistakes": _mistakes(briefs),
    }
    if full:
        raw.update({
            "review": rv.review((m.channels_pipeline(), m.memory_pipeline())),
            "vector": ev.remove_vector(runs, m.frozen_runs(GROUNDED.without("vector"))),
            "generation": ev.remove_generation(runs, without_answer),
            "withdraw": ev.withdraw(records, served),
            "judgements": _judgements(),
        })
    return record(raw)


def _mistakes(briefs: dict) -> list:
    """Each unfaithful explanation with the checks it fails."""
    out = []
    for mistake in fa.MISTAKES:
        b = briefs[mistake.query_id]
        failed = [name for name, held, _why in fa.run_checks(b, mistake.edit(b, fa.explain(b))) if not held]
        out.append({"name": mistake.name, "query_id": mistake.query_id, "must_fail": mistake.fails,
                    "failed": failed})
    return out


def _judgements() -> list:
    """Lesson 07's five judgements of PW-Q012's first three, completed with lesson 08's checks."""
    from modules.eligibility import check_evidence, matches_request
    from modules.hybrid import query_design as qd
    run = qd.run(qd.design_pipelines()["identifier"][1], qd.design_query_by_id("PW-Q012"))
    return [qd.judgements(run, f.listing_id, qd.RELEVANCE["PW-Q012"], check_evidence, matches_request)
            for f in run.output("fusion").candidates[:3]]


def record(raw: dict) -> dict:
    """The lesson's record (JSON-ready) from what trace() ran."""
    records, briefs = raw["records"], raw["briefs"]
    faithful = {qid: {"template": [[x.text, list(x.cites)] for x in fa.explain(b)],
                      "checks": [list(c) for c in fa.run_checks(b, fa.explain(b))],
                      "reworded": [list(c) for c in fa.run_checks(b, fa.reworded(b))]}
                for qid, b in briefs.items()}
    mistakes = raw["mistakes"]
    out = {
        "lesson": "operate",
        "shows": "all" if raw["full"] else "default",
        "cases": [{"query_id": qid, "kind": m.CASE_KINDS[qid], "segment": m.segment_of(r),
                   "state": r["decision"]["state"]} for qid, r in records.items()],
        "sessions": [s.id for s, _run in raw["memory"].values()],
        "queries": [query_row(records[q.id]) for q in QUERIES],
        "signals": [_signal_dict(s) for s in raw["signals"]],
        "anomalies": {"rebuild": raw["rebuild"], "image": raw["image"]},
        "evaluation": raw["evaluation"],
        "faithfulness": {"checks": [name for name, _f in fa.CHECKS], "cases": faithful, "mistakes": mistakes},
    }
    if not raw["full"]:
        return out
    channels, memory = m.channels_pipeline(), m.memory_pipeline()
    return dict(out, **{
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
        "patterns": [list(p) for p in ev.failure_patterns(records, raw["vector"], raw["memory"], mistakes)],
        "judgements": raw["judgements"],
    })


# ---------------------------------------------------------------- view

def _signal_blocks(r: dict) -> list:
    rows = [[s["stage"], s["name"], s["owner"], s["retention"]] for s in r["signals"]]
    by_stage: dict = {}
    for s in r["signals"]:
        by_stage.setdefault(s["stage"], []).append(f"{s['name']}: {s['value']}")
    return [
        {"key": "signals-heading", "heading": "Signals per stage, over the frozen cases"},
        {"key": "signals-values", "text": "\n".join(f"{stage.capitalize()} - " + "; ".join(values) + "."
                                                    for stage, values in by_stage.items())},
        {"key": "signals", "table": {
            "title": "Who owns each signal, and how long it is kept",
            "legend": "stage: where the signal is read; owner: the role that acts on it first; retention: "
                      "how long the aggregate is kept (aggregates only, no case kept). Every signal is a count "
                      "by safe code, channel, state or version: never a listing id, a title or a user.",
            "columns": ["stage", "signal", "owner", "retention"], "rows": rows}},
        {"key": "signals-actions", "text": "\n".join(
            f"{s['name']}: first {s['first_action']}; seen by {s['access']}; limit: {s['limitation']}."
            for s in r["signals"])},
    ]


def _anomaly_blocks(r: dict) -> list:
    out = [{"key": "anomaly-heading", "heading": "Two rebuilds, one symptom, two layers"}]
    for key, title in (("rebuild", "Lesson 09's index rebuild, over its nine queries"),
                       ("image", "Lesson 12's image-index rebuild, over its photo queries")):
        a = r["anomalies"][key]
        out += [
            {"key": f"anomaly-{key}", "table": {
                "title": title,
                "legend": "signal and label as in the signals above; before/after: the value on the healthy "
                          "and the rebuilt index (only what changed, and the counts that did not).",
                "columns": ["signal", "label", "before", "after"], "rows": a["rows"]}},
            {"key": f"anomaly-{key}-layer", "text": f"Layer: {a['layer']}. {a['why'][0].upper() + a['why'][1:]}."},
        ]
    p = r["anomalies"]["rebuild"]["permission"]
    out.append({"key": "anomaly-chart", "chart": {
        "title": "Permission exclusions, lesson 09's rebuild", "width": 30,
        "legend": "# = exclusions by the permission codes; full width = the count after the rebuild.",
        "rows": [["before", p[0], p[1]], ["after", p[1], p[1]]]}})
    first, second = r["anomalies"]["rebuild"], r["anomalies"]["image"]
    out.append({"key": "anomaly-reading", "text": (
        f"One symptom, counts falling after a rebuild with the policy unchanged (first: {', '.join(first['fell'])} "
        f"fell, {', '.join(first['rose']) or 'nothing'} rose; second: {', '.join(second['fell'])} fell, "
        f"{', '.join(second['rose']) or 'nothing'} rose), and two layers. The first is {first['layer']}: fix the rebuild "
        f"and replay the frozen cases; never loosen fail-closed. The second is the {second['layer']}: restore its "
        f"lists or raise nprobe. The ranker is named by neither: it orders what reaches it.")})
    return out


def view(record: dict) -> list:
    """Printable blocks."""
    r = record
    blocks = [
        {"key": "heading", "heading": "Lesson 14 - operate: signals, the layered evaluation and the review"},
        {"key": "cases", "table": {
            "title": "The frozen cases, through the one catalogue pipeline",
            "legend": "kind: what the case stands for; segment: how the contract read the size (explicit "
                      "unit, bare number, or other); state: the decision, the same as lessons 07-13 show.",
            "columns": ["case", "kind", "segment", "state"],
            "rows": [[c["query_id"], c["kind"], c["segment"], c["state"]] for c in r["cases"]]}},
    ]
    from modules.operate.view import rest
    return blocks + _signal_blocks(r) + _anomaly_blocks(r) + rest(r)
