"""Lesson 14's trace and view: what `python3 -B methods.py operate` prints.

trace() runs the frozen catalogue cases through lesson 09's pipeline and builds the record
from the mechanism's functions: the signals, the layered evaluation and the faithfulness
checks. With --all it also runs what full.py adds (lesson 13's sessions, the two rebuilds,
the cases with generation removed, lesson 12's labels, the review, the artifacts, the
counterfactuals, lesson 07's judgements, ownership and the failure patterns). view()
arranges the record into printable blocks.
"""

from __future__ import annotations

from modules.operate import evaluation as ev
from modules.operate import faithfulness as fa
from modules.operate import mechanism as m
from modules.operate.signals import aggregate
from modules.common.tables import table_block

__all__ = ["trace", "record", "view"]


def _signal_dict(s) -> dict:
    return {"stage": s.stage, "name": s.name, "counts": [list(p) for p in s.counts], "value": s.value,
            "owner": s.owner, "first_action": s.first_action, "retention": s.retention, "access": s.access,
            "limitation": s.limitation}


def trace(full: bool = False) -> dict:
    """Run what the lesson shows, then build its record.

    The default runs what its findings need: the frozen cases, their signals, the evaluation
    report and the faithfulness checks. `full` (the command's --all) also runs full.run: the
    memory sessions, the two rebuilds, the cases with generation removed, lesson 12's labels,
    the review, the counterfactuals and lesson 07's judgements, and adds the artifacts, the
    ownership and the failure patterns."""
    if not isinstance(full, bool):
        raise TypeError(f"full must be a bool, got {type(full).__name__} {full!r}")
    runs = m.frozen_runs()
    records = m.frozen_records(runs)
    briefs = {qid: fa.brief_of(runs[qid]) for qid in ("PW-Q002", "PW-Q004")}
    raw = {"full": full, "records": records, "runs": runs, "briefs": briefs, "mistakes": _mistakes(briefs)}
    if full:
        # Only --all reads lessons 12 and 13 (their rebuild, labels, store and pipelines) and
        # reruns the cases without generation: the default starts faster without them.
        from modules.operate import full as more
        raw.update(more.run(runs, records))
    else:
        raw.update(signals=aggregate(records), evaluation=ev.evaluation_report(records))
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


def record(raw: dict) -> dict:
    """The lesson's record (JSON-ready) from what trace() ran."""
    records, briefs = raw["records"], raw["briefs"]
    faithful = {qid: {"template": [[x.text, list(x.cites)] for x in fa.explain(b)],
                      "checks": [list(c) for c in fa.run_checks(b, fa.explain(b))],
                      "reworded": [list(c) for c in fa.run_checks(b, fa.reworded(b))]}
                for qid, b in briefs.items()}
    out = {
        "lesson": "operate",
        "shows": "all" if raw["full"] else "default",
        "cases": [{"query_id": qid, "kind": m.CASE_KINDS[qid], "segment": m.segment_of(r),
                   "state": r["decision"]["state"]} for qid, r in records.items()],
        "signals": [_signal_dict(s) for s in raw["signals"]],
        "evaluation": raw["evaluation"],
        "faithfulness": {"checks": [name for name, _f in fa.CHECKS], "cases": faithful, "mistakes": raw["mistakes"]},
    }
    if not raw["full"]:
        return out
    from modules.operate import full as more
    return dict(out, **more.record(raw))

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
        table_block(
            "signals", "Who owns each signal, and how long it is kept",
            "stage: where the signal is read; owner: the role that acts on it first; retention: "
            "how long the aggregate is kept (aggregates only, no case kept). Every signal is a count "
            "by safe code, channel, state or version: never a listing id, a title or a user.",
            ["stage", "signal", "owner", "retention"],
            rows),
        {"key": "signals-actions", "text": "\n".join(
            f"{s['name']}: first {s['first_action']}; seen by {s['access']}; limit: {s['limitation']}."
            for s in r["signals"])},
    ]


def view(record: dict) -> list:
    """Printable blocks."""
    from modules.operate import view as rest
    r = record
    blocks = [
        {"key": "heading", "heading": "Lesson 14 - operate: signals, the layered evaluation and the review"},
        table_block(
            "cases", "The frozen cases, through the one catalogue pipeline",
            "kind: what the case stands for; segment: how the contract read the size (explicit "
            "unit, bare number, or other); state: the decision, the same as lessons 07-13 show.",
            ["case", "kind", "segment", "state"],
            [[c["query_id"], c["kind"], c["segment"], c["state"]] for c in r["cases"]]),
    ] + _signal_blocks(r)
    if r["shows"] != "all":
        return blocks + rest.evaluation_blocks(r) + rest.faithfulness_blocks(r) + [rest.more_block()]
    from modules.operate import full as more
    return (blocks + more.anomaly_blocks(r) + rest.evaluation_blocks(r) + rest.faithfulness_blocks(r)
            + more.blocks(r))
