"""Lesson 14's view, second half: the evaluation report, the faithfulness checks and the line
saying what --all adds (trace.view calls them; full.py holds the blocks only --all prints)."""

from __future__ import annotations
from modules.common.tables import table_block

__all__ = ["evaluation_blocks", "faithfulness_blocks", "more_block"]


def _pairs(d: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "-"


def _behaviour_table(rows: list) -> dict:
    if rows and "without_generation" not in rows[0]:
        return {"title": "4. End-to-end behaviour",
                "legend": "state and fallback: the decision and what the product does next.",
                "columns": ["case", "state", "fallback"],
                "rows": [[b["query_id"], b["state"], b["fallback"] or "-"] for b in rows]}
    return {"title": "4. End-to-end behaviour, and with generation removed",
            "legend": "state and fallback: the decision and what the product does next; without generation: "
                      "the state with the answer stage removed; packet kept: the same packet fields.",
            "columns": ["case", "state", "fallback", "without generation", "packet kept"],
            "rows": [[b["query_id"], b["state"], b["fallback"] or "-", b["without_generation"], b["packet_kept"]]
                     for b in rows]}


def evaluation_blocks(r: dict) -> list:
    e = r["evaluation"]
    k, c = e["ranking"], e["context"]
    top = "; ".join(f"{q} " + " ".join(f"{ch}#{n}" for ch, n in ranks.items()) for q, ranks in k["breakdown"].items())
    return [
        {"key": "evaluation-heading", "heading": "The layered evaluation report: four sections, no single number"},
        table_block(
            "evaluation-retrieval", "1. Retrieval: candidates by channel and segment",
            "cases: frozen cases in the segment; candidates: proposals per channel, summed over the "
            "cases (before the gate); ranked: clusters reaching ranking; empty: cases with an empty "
            "cause.",
            ["segment", "cases", "candidates", "ranked", "empty"],
            [[x["segment"], x["cases"], _pairs(x["candidates"]), x["ranked"], x["empty"]]
             for x in e["retrieval"]]),
        {"key": "evaluation-ranking", "text": (
            (f"2. Ranking: of {k['judged']} cases with lesson 12's labels and a ranking, {k['top_relevant']} rank a "
             f"relevant listing first." if "judged" in k else f"2. Ranking: {k['ranked']} cases reach a ranking.")
            + f" A channel's own first candidate was withheld in {k['channel_top_withheld']} cases, and no "
            f"restricted listing reached ranking ({k['restricted_ranked']}); tied neighbours: {k['ties']}. First "
            f"place by channel rank: {top}." + ("" if "judged" in k else
                                                " Whether first place is relevant needs lesson 12's labels: "
                                                "--all reads them."))},
        {"key": "evaluation-context", "text": (
            f"3. Context: {c['fields_from_permitted']} of {c['fields']} packet fields come from permitted listings; "
            f"{c['lines_citing_packet']} of {c['answer_lines']} answer lines cite the packet only; stale fields "
            f"packed {c['stale_packed']}, named as left out {c['stale_named']}; conflicting listings packed "
            f"{c['conflicts_packed']}; of {c['empty']} cases without a packet, {c['empty_named']} name an empty "
            f"cause, the others are in state {', '.join(c['empty_unnamed_states']) or '-'}; largest "
            f"packet {c['largest_packet']} listings (limit {c['limit']}); {c['complete_traces']} of {e['cases']} "
            f"traces hold at every layer; restricted fields packed: {c['restricted_in_packets']}.")},
        {"key": "evaluation-behaviour", "table": _behaviour_table(e["behaviour"])},
        {"key": "evaluation-limits", "text": f"Limits: {e['limits']}."},
    ]


def faithfulness_blocks(r: dict) -> list:
    f = r["faithfulness"]
    out = [{"key": "faithfulness-heading", "heading": "Faithful downstream use: seven checks on an explanation"}]
    for qid, case in f["cases"].items():
        out.append({"key": f"faithfulness-{qid}", "text": f"The template explanation of {qid}:\n" + "\n".join(
            f"  {text} [{', '.join(cites)}]" if cites else f"  {text}" for text, cites in case["template"])
            + "\nPasses: " + ", ".join(name for name, held, _ in case["checks"] if held)
            + ". A reworded variant passes " + str(sum(held for _n, held, _ in case["reworded"])) + " of 7."})
    out.append(table_block(
        "faithfulness-mistakes", "Each unfaithful explanation fails exactly its check",
        "explanation: one edit of the template; case: the query it explains; fails: the checks it "
        "fails (only the one it must).",
        ["explanation", "case", "fails"],
        [[x["name"], x["query_id"], ", ".join(x["failed"])] for x in f["mistakes"]]))
    return out


def more_block() -> dict:
    """The default's last line: exactly what --all adds."""
    return {"key": "more", "text": (
        "These are the lesson's findings over the ten catalogue cases. `python3 -B methods.py operate --all` "
        "adds the rest: lesson 13's four memory sessions (and their withheld-memory signal), lesson 09's and "
        "lesson 12's rebuilds named by their layer, lesson 12's relevance labels in the ranking section, each "
        "case rerun with generation removed in the behaviour section, the context contract review, the five "
        "completion artifacts, the three forced counterfactuals, lesson 07's five judgements, the ownership "
        "table and the six failure patterns.")}
