"""What `python3 -B methods.py operate --all` adds to lesson 14's default trace.

The default (trace.py) reads the ten catalogue cases through lesson 09's pipeline alone.
Everything here reads more: lesson 13's memory sessions (their signal, and its pipeline for
the review and ownership), lesson 09's and lesson 12's rebuilds named by their layer, the
frozen cases rerun with generation removed, lesson 12's relevance labels for the ranking
section, the context contract review, the artifacts, the counterfactuals, lesson 07's
judgements, ownership, the failure patterns, and the record's rows of the nine queries as
lesson 09 writes them (the agreement test compares them with lessons 07-13). It is a module
of its own, imported by trace() only under --all, so the default starts without compiling
or importing lessons 12 and 13.
"""

from __future__ import annotations

from modules.catalogue import QUERIES
from modules.channels.metrics import RELEVANCE
from modules.grounding import GROUNDED, VARIANTS
from modules.grounding.trace import query_row
from modules.operate import artifacts as art
from modules.operate import counterfactuals as cf
from modules.operate import evaluation as ev
from modules.operate import mechanism as m
from modules.operate import review as rv
from modules.operate.signals import PERMISSION_CODES, aggregate, name_layer, signal_map
from modules.common.tables import table_block

__all__ = ["run", "record", "anomaly_blocks", "blocks"]

DASHBOARD = ("parser failures", "candidates", "exclusions", "ranked", "packet fields", "answered", "index version",
             "versions")
STEADY = ("parser failures", "candidates", "answered")   # shown even when they did not move


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


def run(runs: dict, records: dict) -> dict:
    """What --all runs beyond the default, from the default's runs of the frozen cases: the
    signals and the evaluation over the memory sessions and photo queries too (and with
    generation removed), the two rebuilds, the review, the counterfactuals and lesson 07's
    judgements."""
    memory, served = m.memory_runs()
    without_answer = m.frozen_runs(GROUNDED.without("answer"))
    nine = {q.id: records[q.id] for q in QUERIES}
    rebuilt = m.frozen_records(m.frozen_runs(VARIANTS[1].pipeline, cases=QUERIES))
    photos = m.frozen_records(m.photo_runs())
    photos_after = m.frozen_records(m.photo_runs(m.rebuilt_image_index()))
    evaluation = ev.evaluation_report(records, without_answer,
                                      (ev.CATALOGUE_CASES, "five photo queries", "four memory sessions"))
    evaluation["ranking"].update(ev.judged_ranking(records, RELEVANCE))
    return {
        "memory": memory, "signals": aggregate(records, memory), "evaluation": evaluation,
        "rebuild": _anomaly(aggregate(nine), aggregate(rebuilt)),
        "image": _anomaly(aggregate(photos), aggregate(photos_after)),
        "review": rv.review((m.channels_pipeline(), m.memory_pipeline())),
        "vector": cf.remove_vector(runs, m.frozen_runs(GROUNDED.without("vector"))),
        "generation": cf.remove_generation(runs, without_answer),
        "withdraw": cf.withdraw(records, served),
        "judgements": _judgements(),
    }


def _judgements() -> list:
    """Lesson 07's five judgements of PW-Q012's first three, completed with lesson 08's checks."""
    from modules.eligibility import check_evidence, matches_request
    from modules.hybrid import query_design as qd
    run = qd.run(qd.design_pipelines()["identifier"][1], qd.design_query_by_id("PW-Q012"))
    return [qd.judgements(run, f.listing_id, qd.RELEVANCE["PW-Q012"], check_evidence, matches_request)
            for f in run.output("fusion").candidates[:3]]


def record(raw: dict) -> dict:
    """The record's keys --all adds (JSON-ready), from what trace() and run() ran."""
    records, mistakes = raw["records"], raw["mistakes"]
    channels, memory = m.channels_pipeline(), m.memory_pipeline()
    return {
        "queries": [query_row(records[q.id]) for q in QUERIES],
        "sessions": [s.id for s, _run in raw["memory"].values()],
        "anomalies": {"rebuild": raw["rebuild"], "image": raw["image"]},
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
        "patterns": [list(p) for p in cf.failure_patterns(records, raw["vector"], raw["memory"], mistakes)],
        "judgements": raw["judgements"],
    }


# ---------------------------------------------------------------- view

def _pairs(d: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "-"


def anomaly_blocks(r: dict) -> list:
    """The two rebuilds, printed between the signals and the evaluation."""
    out = [{"key": "anomaly-heading", "heading": "Two rebuilds, one symptom, two layers"}]
    for key, title in (("rebuild", "Lesson 09's index rebuild, over its nine queries"),
                       ("image", "Lesson 12's image-index rebuild, over its photo queries")):
        a = r["anomalies"][key]
        out += [
            table_block(
                f"anomaly-{key}", title,
                "signal and label as in the signals above; before/after: the value on the healthy "
                "and the rebuilt index (only what changed, and the counts that did not).",
                ["signal", "label", "before", "after"],
                a["rows"]),
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


def _review_blocks(r: dict) -> list:
    return [
        {"key": "review-heading", "heading": "The context contract review"},
        {"key": "review", "text": "Each question, answered by a stage, a lesson and a test, or marked a gap:\n"
         + "\n".join(f"- {x['question']} {x['status'].upper()}: {x['note']} (test {x['test'].split('::')[1]})"
                     for x in r["review"])},
    ]


def _artifact_blocks(r: dict) -> list:
    a = r["artifacts"]
    cc, dr = a["context_contract"], a["decision_record"]
    return [
        {"key": "artifacts-heading", "heading": "The five completion artifacts, generated from the pipeline"},
        table_block(
            "artifact-contract", f"1. Context contract of '{cc['pipeline']}'",
            "every stage with its version, the layer lesson 09 walks and the role that owns it.",
            ["stage", "version", "layer", "owner"],
            [[s["stage"], s["version"], s["layer"], s["owner"]] for s in cc["stages"]]),
        {"key": "artifact-contract-fields", "text": (
            f"Packet fields required: {', '.join(cc['required'])}; optional: {', '.join(cc['optional'])}; "
            f"prohibited: {', '.join(cc['prohibited'])}; at most {cc['packet_limit']} listings; freshness: "
            + ", ".join(f"{x['field']} {x['max_days']} days" for x in cc["freshness"]) + ".")},
        {"key": "artifact-decision", "text": (
            "2. Retrieval and ranking decision record: channels "
            + ", ".join(f"{c['channel']} ({c['version']})" for c in dr["channels"])
            + f"; fusion {dr['fusion']['rule']}, k = {dr['fusion']['k']} ({dr['fusion']['version']}); field "
              f"weights {_pairs(dr['field_weights'])}; vector top {dr['vector_top_k']}; gate before ranking: "
              f"{dr['gate_before_ranking']}; never: {'; '.join(dr['never'])}.")},
        {"key": "artifact-schema", "text": "3. Grounding trace schema (section: keys): " + "; ".join(
            f"{s}: {' '.join(keys)}" for s, keys in a["trace_schema"])},
        table_block(
            "artifact-states", "4. Evidence-state table",
            "by precedence (1 wins over 2 ...); cases: the frozen cases in that state.",
            ["#", "state", "cases"],
            [[x["precedence"], x["state"], " ".join(x["cases"]) or "-"] for x in a["evidence_states"]]),
        {"key": "artifact-states-actions", "text": "Each state's first next action: " + "; ".join(
            f"{x['state']}: {x['next_action']}" for x in a["evidence_states"]) + "."},
        {"key": "artifact-report", "text": "5. Layered evaluation report: the four sections above."},
    ]


def _counterfactual_blocks(r: dict) -> list:
    c = r["counterfactuals"]
    v, g, w = c["vector"], c["generation"], c["withdraw"]
    return [
        {"key": "counterfactuals-heading", "heading": "Three forced counterfactuals"},
        table_block(
            "counterfactual-vector", "Remove the vector channel",
            "segment: lesson 12's declared segments (a case may be in two); losing: cases that lose "
            "ranked candidates; lost: candidates lost; states: states that change.",
            ["segment", "cases", "losing", "lost", "states"],
            [[s, x["cases"], x["losing"], x["lost"], x["states_changed"]] for s, x in v["segments"].items()]),
        {"key": "counterfactual-vector-fallback", "text": f"What remains: {v['fallback']} (lesson 12)."},
        {"key": "counterfactual-generation", "text": (
            f"Remove generation: {g['unchanged']} of {g['cases']} cases keep their state and packet; the "
            f"{g['answer_lines_before']} answer lines go, the structured evidence stays.")},
        {"key": "counterfactual-withdraw", "text": (
            f"Withdraw {w['listing']}'s permission: packed before in {', '.join(w['packed_before'])}, after in "
            f"{', '.join(w['packed_after']) or 'none'}; rerun, the {len(w['cases'])} cases that retrieved it "
            f"name its id {w['id_in_records_after']} times, its opaque ref {w['ref_in_records_after']} times. States after: "
            + _pairs(w["states_after"]) + ". Memory (lesson 13): "
            + "; ".join(f"{name}: {'held' if held else 'FAILED'}" for name, held, _d in w["memory"]) + ".")},
    ]


def _tail_blocks(r: dict) -> list:
    return [
        table_block(
            "ownership", "Ownership against the stages",
            "role: who owns the part; stages: the pipeline stages (lessons 07-13) it answers for; "
            "release owns no stage and every version.",
            ["role", "stages"],
            [[o["role"], " ".join(o["stages"]) or "(every stage's version)"]
             for o in r["ownership"]]),
        {"key": "patterns-heading", "heading": "Six failure patterns, each refuted by a measured figure"},
        {"key": "patterns", "text": "\n".join(f"- {p} (lesson {lesson}): {figure}." for p, lesson, figure
                                              in r["patterns"])},
    ]


def _judgement_blocks(r: dict) -> list:
    return [table_block(
        "judgements", "Lesson 07's five judgements of PW-Q012, with lesson 08's checks",
        "similarity: rank per channel (lex = lexical, vec = vector); relevance: hand grade; "
        "evidence: lesson 08's checks (sufficient, or the reason); compatible: lesson 08's control; "
        "eligibility: the gate. Five columns, never one score.",
        ["candidate", "similarity", "relevance", "evidence", "compatible", "eligibility"],
        [[j["listing_id"], " ".join(f"{k[:3]}#{v}" for k, v in j["channel_similarity"].items()),
          j["candidate_relevance"], j["evidence_sufficiency"], j["compatibility_control"],
          j["behaviour_eligibility"]] for j in r["judgements"]])]


def blocks(r: dict) -> list:
    """The blocks after the faithfulness checks."""
    return (_review_blocks(r) + _artifact_blocks(r) + _counterfactual_blocks(r) + _judgement_blocks(r)
            + _tail_blocks(r))
