"""The layered evaluation report: four sections, never one number.

The sections are retrieval, ranking, context and end-to-end behaviour, each read from lesson
09's trace records of the frozen cases. The ranking section judges the expected order only
when it is given relevance labels (`judged_ranking` with lesson 12's RELEVANCE, which the
trace passes); without them it reports what the records alone show. The behaviour section
compares each case with generation removed when it is given those runs. The forced
counterfactuals and the failure patterns are in counterfactuals.py.
"""

from __future__ import annotations

from modules.catalogue import RESTRICTED_IDS
from modules.grounding.checks import CHECKS, LAYERS
from modules.operate.mechanism import segment_of

__all__ = ["evaluation_report", "judged_ranking", "limits", "CATALOGUE_CASES"]

CATALOGUE_CASES = "ten hand-built catalogue cases"


def limits(*counted: str) -> str:
    """The report's limits, over what was counted ("ten hand-built catalogue cases", ...)."""
    if not counted or not all(isinstance(c, str) and c for c in counted):
        raise TypeError(f"counted must be non-empty strs, got {counted!r}")
    what = counted[0] if len(counted) == 1 else ", ".join(counted[:-1]) + " and " + counted[-1]
    return (f"{what}: every figure is a count over them, no rate generalises, and no statistical claim is made; "
            "the restricted and stale listings are injected in the fixture on purpose (three not 'allowed', two "
            "with stale fields)")


def _by_segment(records: dict) -> dict:
    out: dict = {}
    for qid, r in records.items():
        out.setdefault(segment_of(r), []).append(qid)
    return out


def _breakdown(records: dict, ids) -> dict:
    """First place's rank in each channel, for each case in `ids`."""
    return {q: records[q]["ranking"]["fused"][0]["channel_ranks"] for q in ids}


def evaluation_report(records: dict, without_answer: dict | None = None, counted: tuple = (CATALOGUE_CASES,)) -> dict:
    """The four sections over {case id: trace record}; `without_answer` the same cases' runs
    with generation removed (then the behaviour section compares each state and packet with
    them); `counted` what the limits say the figures count."""
    segments = _by_segment(records)
    retrieval = []
    for seg, ids in segments.items():
        rows = [records[q] for q in ids]
        per = {}
        for r in rows:
            for c in r["retrieval"]["channels"]:
                per[c["channel"]] = per.get(c["channel"], 0) + len(c["hits"])
        retrieval.append({"segment": seg, "cases": len(ids), "candidates": per,
                          "ranked": sum(len(r["ranking"].get("fused", [])) for r in rows),
                          "empty": sum(r["decision"]["empty_cause"] is not None for r in rows)})
    ranked = [q for q in records if records[q]["ranking"].get("fused")]
    ranking = {
        "ranked": len(ranked),
        "channel_top_withheld": sum(any(c["hits"] and c["hits"][0]["candidate"] not in
                                        {p["candidate"] for p in r["permission/freshness"].get("passed", ())}
                                        for c in r["retrieval"]["channels"]) for r in records.values()),
        "restricted_ranked": sum(f["shown"] in RESTRICTED_IDS for r in records.values()
                                 for f in r["ranking"].get("fused", ())),
        "ties": sum(a["ordering_score"] == b["ordering_score"] for r in records.values()
                    for a, b in zip(r["ranking"].get("fused", []), r["ranking"].get("fused", [])[1:])),
        "breakdown": _breakdown(records, ranked),
    }
    passed = {q: {p["candidate"] for p in r["permission/freshness"].get("passed", ())} for q, r in records.items()}
    packets = {q: [f["field_id"] for f in r["assembly"].get("packet", ())] for q, r in records.items()}
    context = {
        "fields": sum(len(p) for p in packets.values()),
        "fields_from_permitted": sum(f.split("#")[0] in passed[q] for q, p in packets.items() for f in p),
        "answer_lines": sum(len(r["generation"]["answer"]) for r in records.values()),
        "lines_citing_packet": sum(all(c in packets[q] for c in line["cites"]) for q, r in records.items()
                                   for line in r["generation"]["answer"]),
        "stale_packed": sum(f in r["assembly"].get("omitted", ()) for q, r in records.items() for f in packets[q]),
        "stale_named": sum(len(r["assembly"].get("omitted", ())) for r in records.values()),
        "conflicts_packed": sum(e["subject"] in r["assembly"].get("listings", ()) for r in records.values()
                                for e in r["assembly"].get("excluded", ())
                                if "TITLE_FIELD_CONFLICT" in e["reason_codes"]),
        "empty_named": sum(r["decision"]["empty_cause"] is not None for r in records.values()
                           if not r["assembly"].get("listings")),
        "empty": sum(not r["assembly"].get("listings") for r in records.values()),
        "empty_unnamed_states": sorted(r["decision"]["state"] for r in records.values()
                                       if not r["assembly"].get("listings") and r["decision"]["empty_cause"] is None),
        "largest_packet": max(len(r["assembly"].get("listings", ())) for r in records.values()),
        "limit": next(r["assembly"]["limit"] for r in records.values() if "limit" in r["assembly"]),
        "complete_traces": sum(all(CHECKS[layer](r)[0] for layer in LAYERS) for r in records.values()),
        "restricted_in_packets": sum(f.split("#")[0] in RESTRICTED_IDS for p in packets.values() for f in p),
    }
    behaviour = []
    for q, r in records.items():
        row = {"query_id": q, "state": r["decision"]["state"], "fallback": r["decision"]["fallback"]}
        if without_answer is not None:
            row["without_generation"] = without_answer[q].output("decision").decision.state
            row["packet_kept"] = packets[q] == [f for f, _ in getattr(without_answer[q].output("packet", None),
                                                                      "fields", ())]
        behaviour.append(row)
    return {"retrieval": retrieval, "ranking": ranking, "context": context, "behaviour": behaviour,
            "limits": limits(*counted), "cases": len(records)}


def judged_ranking(records: dict, labels: dict) -> dict:
    """The ranking section's judged figures: of the cases with labels ({case id: {listing id:
    grade}}) and a ranking, how many rank a relevant listing (grade >= 1) first, and first
    place's channel ranks for those cases."""
    if not isinstance(labels, dict):
        raise TypeError(f"labels must be a dict of case id -> {{listing id: grade}}, got {type(labels).__name__}")
    judged = [q for q in records if q in labels and records[q]["ranking"].get("fused")]
    return {"judged": len(judged),
            "top_relevant": sum(labels[q].get(records[q]["ranking"]["fused"][0]["shown"], 0) >= 1 for q in judged),
            "breakdown": _breakdown(records, judged)}
