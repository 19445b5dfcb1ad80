"""Lesson 14's view, second half: the evaluation report and faithfulness (the default), then,
under --all, the review, the artifacts, the counterfactuals, the judgements, ownership and the
failure patterns (trace.view calls it)."""

from __future__ import annotations

__all__ = ["rest"]


def _pairs(d: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "-"


def _evaluation_blocks(r: dict) -> list:
    e = r["evaluation"]
    k, c = e["ranking"], e["context"]
    top = "; ".join(f"{q} " + " ".join(f"{ch}#{n}" for ch, n in ranks.items()) for q, ranks in k["breakdown"].items())
    return [
        {"key": "evaluation-heading", "heading": "The layered evaluation report: four sections, no single number"},
        {"key": "evaluation-retrieval", "table": {
            "title": "1. Retrieval: candidates by channel and segment",
            "legend": "cases: frozen cases in the segment; candidates: proposals per channel, summed over the "
                      "cases (before the gate); ranked: clusters reaching ranking; empty: cases with an empty "
                      "cause.",
            "columns": ["segment", "cases", "candidates", "ranked", "empty"],
            "rows": [[x["segment"], x["cases"], _pairs(x["candidates"]), x["ranked"], x["empty"]]
                     for x in e["retrieval"]]}},
        {"key": "evaluation-ranking", "text": (
            f"2. Ranking: of {k['judged']} cases with lesson 12's labels and a ranking, {k['top_relevant']} rank a "
            f"relevant listing first. A channel's own first candidate was withheld in {k['channel_top_withheld']} "
            f"cases, and no restricted listing reached ranking ({k['restricted_ranked']}); tied neighbours: "
            f"{k['ties']}. First place by channel rank: {top}.")},
        {"key": "evaluation-context", "text": (
            f"3. Context: {c['fields_from_permitted']} of {c['fields']} packet fields come from permitted listings; "
            f"{c['lines_citing_packet']} of {c['answer_lines']} answer lines cite the packet only; stale fields "
            f"packed {c['stale_packed']}, named as left out {c['stale_named']}; conflicting listings packed "
            f"{c['conflicts_packed']}; of {c['empty']} cases without a packet, {c['empty_named']} name an empty "
            f"cause, the others are in state {', '.join(c['empty_unnamed_states']) or '-'}; largest "
            f"packet {c['largest_packet']} listings (limit {c['limit']}); {c['complete_traces']} of {e['cases']} "
            f"traces hold at every layer; restricted fields packed: {c['restricted_in_packets']}.")},
        {"key": "evaluation-behaviour", "table": {
            "title": "4. End-to-end behaviour, and with generation removed",
            "legend": "state and fallback: the decision and what the product does next; without generation: "
                      "the state with the answer stage removed; packet kept: the same packet fields.",
            "columns": ["case", "state", "fallback", "without generation", "packet kept"],
            "rows": [[b["query_id"], b["state"], b["fallback"] or "-", b["without_generation"], b["packet_kept"]]
                     for b in e["behaviour"]]}},
        {"key": "evaluation-limits", "text": f"Limits: {e['limits']}."},
    ]


def _faithfulness_blocks(r: dict) -> list:
    f = r["faithfulness"]
    out = [{"key": "faithfulness-heading", "heading": "Faithful downstream use: seven checks on an explanation"}]
    for qid, case in f["cases"].items():
        out.append({"key": f"faithfulness-{qid}", "text": f"The template explanation of {qid}:\n" + "\n".join(
            f"  {text} [{', '.join(cites)}]" if cites else f"  {text}" for text, cites in case["template"])
            + "\nPasses: " + ", ".join(name for name, held, _ in case["checks"] if held)
            + ". A reworded variant passes " + str(sum(held for _n, held, _ in case["reworded"])) + " of 7."})
    out.append({"key": "faithfulness-mistakes", "table": {
        "title": "Each unfaithful explanation fails exactly its check",
        "legend": "explanation: one edit of the template; case: the query it explains; fails: the checks it "
                  "fails (only the one it must).",
        "columns": ["explanation", "case", "fails"],
        "rows": [[x["name"], x["query_id"], ", ".join(x["failed"])] for x in f["mistakes"]]}})
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
        {"key": "artifact-contract", "table": {
            "title": f"1. Context contract of '{cc['pipeline']}'",
            "legend": "every stage with its version, the layer lesson 09 walks and the role that owns it.",
            "columns": ["stage", "version", "layer", "owner"],
            "rows": [[s["stage"], s["version"], s["layer"], s["owner"]] for s in cc["stages"]]}},
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
        {"key": "artifact-states", "table": {
            "title": "4. Evidence-state table",
            "legend": "by precedence (1 wins over 2 ...); cases: the frozen cases in that state.",
            "columns": ["#", "state", "cases"],
            "rows": [[x["precedence"], x["state"], " ".join(x["cases"]) or "-"] for x in a["evidence_states"]]}},
        {"key": "artifact-states-actions", "text": "Each state's first next action: " + "; ".join(
            f"{x['state']}: {x['next_action']}" for x in a["evidence_states"]) + "."},
        {"key": "artifact-report", "text": "5. Layered evaluation report: the four sections above."},
    ]


def _counterfactual_blocks(r: dict) -> list:
    c = r["counterfactuals"]
    v, g, w = c["vector"], c["generation"], c["withdraw"]
    return [
        {"key": "counterfactuals-heading", "heading": "Three forced counterfactuals"},
        {"key": "counterfactual-vector", "table": {
            "title": "Remove the vector channel",
            "legend": "segment: lesson 12's declared segments (a case may be in two); losing: cases that lose "
                      "ranked candidates; lost: candidates lost; states: states that change.",
            "columns": ["segment", "cases", "losing", "lost", "states"],
            "rows": [[s, x["cases"], x["losing"], x["lost"], x["states_changed"]] for s, x in v["segments"].items()]}},
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
        {"key": "ownership", "table": {
            "title": "Ownership against the stages",
            "legend": "role: who owns the part; stages: the pipeline stages (lessons 07-13) it answers for; "
                      "release owns no stage and every version.",
            "columns": ["role", "stages"],
            "rows": [[o["role"], " ".join(o["stages"]) or "(every stage's version)"]
                     for o in r["ownership"]]}},
        {"key": "patterns-heading", "heading": "Six failure patterns, each refuted by a measured figure"},
        {"key": "patterns", "text": "\n".join(f"- {p} (lesson {lesson}): {figure}." for p, lesson, figure
                                              in r["patterns"])},
    ]


def _judgement_blocks(r: dict) -> list:
    return [{"key": "judgements", "table": {
        "title": "Lesson 07's five judgements of PW-Q012, with lesson 08's checks",
        "legend": "similarity: rank per channel (lex = lexical, vec = vector); relevance: hand grade; "
                  "evidence: lesson 08's checks (sufficient, or the reason); compatible: lesson 08's control; "
                  "eligibility: the gate. Five columns, never one score.",
        "columns": ["candidate", "similarity", "relevance", "evidence", "compatible", "eligibility"],
        "rows": [[j["listing_id"], " ".join(f"{k[:3]}#{v}" for k, v in j["channel_similarity"].items()),
                  j["candidate_relevance"], j["evidence_sufficiency"], j["compatibility_control"],
                  j["behaviour_eligibility"]] for j in r["judgements"]]}}]


def rest(record: dict) -> list:
    blocks = _evaluation_blocks(record) + _faithfulness_blocks(record)
    if record["shows"] != "all":
        return blocks + [{"key": "more", "text": (
            "These are the lesson's findings. `python3 -B methods.py operate --all` adds the rest: the "
            "context contract review, the five completion artifacts, the three forced counterfactuals, "
            "lesson 07's five judgements, the ownership table and the six failure patterns.")}]
    return (blocks + _review_blocks(record) + _artifact_blocks(record) + _counterfactual_blocks(record)
            + _judgement_blocks(record) + _tail_blocks(record))
