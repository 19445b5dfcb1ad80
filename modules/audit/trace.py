"""`methods.py audit`: the audit's record (trace) and its printable view (view, in view.py).

    python3 -B methods.py audit [PATH] [--run FILE] [--qrels FILE]
                                [--prompts FILE | --packets FILE] [--window N]
                                [--budget N ...] [--unit chars|lab-tokens]
                                [--tokenizer MODULE:FUNCTION] [--k K] [--as-of YYYY-MM-DD]
                                [--policy] [--top N] [--plain | --json]

Without PATH it audits the demo in modules/audit/demo. Nothing is written anywhere.
"""

from __future__ import annotations

from dataclasses import asdict

from modules.audit.mechanism import CAUSES, DEFAULT_K, KINDS, NOTES
from modules.audit.report import run_audit
from modules.audit.sent import PACKET_NOTES, SENT_CAUSES, SENT_NOTES
from modules.audit.view import blocks, printable

__all__ = ["trace", "view", "TOP", "PROGRESS_BYTES"]

# The steps as they run, each with the lesson mechanism that decides it.
PIPELINE = (
    ("not_retrieved", "the run's top k, by score in trec_eval's order", "context.recall_counts"),
    ("not_in_corpus", "passages that the corpus holds", "an input check"),
    ("expired", "passages valid on the as-of date", "versions.valid_on"),
    ("superseded", "the version a declared supersedes leaves standing", "versions.resolve_or_abstain"),
    ("version_conflict", "sources with one version label among the candidates",
     "versions.multi_version_sources"),
    ("canonical_copy", "one copy of each declared canonical passage", "dedupe.dedupe_canonical"),
    ("duplicate_text", "one passage per exact text, the first-ranked", "dedupe.dedupe_text"),
    ("overlap", "no line shared with a higher-ranked passage of its file", "dedupe.select_non_overlapping"),
    ("budget_skip", "whole units (declared neighbours together) in rank order while they fit",
     "practice's units, budget.fill_budget"),
)
CHECKS = (  # kind, what is counted, what the audit does about it
    ("unknown_doc", "run entries whose doc id is not in the corpus",
     "kept at their rank (they count for recall@k); they cannot enter the packet"),
    ("repeated_doc", "run entries repeating a doc id within a query", "the best-ranked entry stays"),
    ("duplicate_rank", "run entries repeating a rank within a query",
     "none: the ranking follows the scores, as trec_eval's does"),
    ("run_not_grouped", "runs whose queries interleave", "read whole, then grouped by query"),
    ("integer_id", "ids or versions written as JSON integers", "read as their decimal text"),
    ("run_unknown_query", "run queries not in queries.jsonl", "audited if judged, shown without text"),
    ("run_query_without_qrels", "run queries with no relevant judgement",
     "not audited: recall of nothing is undefined"),
    ("judged_query_not_in_run", "judged queries missing from the run", "audited with an empty ranking"),
    ("qrels_unknown_query", "judged queries not in queries.jsonl", "audited, shown without text"),
    ("qrels_unknown_doc", "relevant judgements of doc ids not in the corpus",
     "needed all the same; they can never reach the packet"),
    ("packet_unknown_doc", "sent passages the corpus lacks", "counted in the packet's size if a text is given"),
    ("judged_query_without_packet", "judged queries the packets or prompts file does not cover",
     "audited by the lessons' walk only"),
    ("packet_query_not_judged", "packets or prompts of queries with no relevant judgement",
     "not audited: nothing is needed from them"),
)
UNIT_NOTE = {"chars": "characters: len() of each passage's text (titles and ids are not counted)",
             "lab-tokens": "lab tokens: whitespace pieces of each passage's text, each ceil(len / 5); a "
                           "teaching unit, not a model token (titles and ids are not counted)"}
TOP = 10
PROGRESS_BYTES = 1 << 20        # a run file this large gets a progress bar on a terminal
FORMATS = {"a TREC run line (qid Q0 docid rank score tag)": "TREC",
           "a JSON-lines run object {\"qid\", \"docid\", \"rank\", \"score\"}": "JSON lines",
           "a JSON run {qid: {docid: score}}": "JSON {qid: {docid: score}}"}


def _share(found: int, needed: int) -> dict:
    """A share as its numerator and denominator (numbers, so a script need not parse "1/2")."""
    return {"found": found, "needed": needed}


def _query(result, budgets, text) -> dict:
    gaps = [(result.retrieved - found) / result.needed for found in result.coverage]
    return {"query": result.qid, "text": text, "needed": result.needed, "retrieved": result.retrieved,
            "recall_at_k": _share(result.retrieved, result.needed), "mean_gap": round(sum(gaps) / len(gaps), 6),
            "budgets": [{"budget": budget, "coverage": _share(found, result.needed), "packet": list(packet),
                         "lost": [dict(asdict(loss), kind=KINDS[loss.cause]) for loss in losses]}
                        for budget, found, losses, packet in zip(budgets, result.coverage, result.lost,
                                                                 result.packets)],
            "policies": {policy: None if coverage is None else [_share(found, result.needed) for found in coverage]
                         for policy, coverage in result.policies.items()}}


def _declared(report, budgets) -> dict | None:
    """The skip walk and the coverage-aware choice on the queries that declare sub-questions:
    mean coverage per budget over those queries alone (None without --policy)."""
    if not report.ledger.policy_sum:
        return None
    declared = [r for r in report.results if r.policies.get("coverage") is not None]
    n = len(declared) or 1
    return {"queries": [r.qid for r in declared],
            **{policy: [round(sum(r.policies[policy][i] / r.needed for r in declared) / n, 6)
                        for i in range(len(budgets))] for policy in ("skip", "coverage")}}


def _sent(report) -> dict | None:
    ledger = report.packets
    if ledger is None:
        return None
    n = ledger.queries or 1
    notes = {cause: SENT_NOTES[cause] for cause in SENT_CAUSES if ledger.causes[cause]}
    if ledger.duplicates:
        notes["duplicate"] = PACKET_NOTES["duplicate"]
    if ledger.over_window:
        notes["over_window"] = PACKET_NOTES["over_window"]
    return {"queries": ledger.queries, "needed": ledger.needed, "ledger": dict(ledger.causes),
            "coverage": round(ledger.coverage_sum / n, 6), "lab_coverage": round(ledger.lab_sum / n, 6),
            "covered": ledger.covered, "lab_covered": ledger.lab_covered, "size": ledger.size,
            "splits": ledger.splits, "duplicates": ledger.duplicates, "duplicate_size": ledger.duplicate_size,
            "calls": ledger.calls, "over_window": ledger.over_window, "window": report.settings["window"],
            "notes": notes,
            "per_query": [{"query": r.qid, "budget": r.budget, "sent": list(r.sent),
                           "coverage": _share(r.covered, r.needed), "lab_packet": list(r.lab_packet),
                           "lab_coverage": _share(r.lab_covered, r.needed),
                           "splits": [list(pair) for pair in r.splits],
                           "duplicates": [asdict(d) for d in r.duplicates],
                           "call_sizes": list(r.call_sizes),
                           "bookings": [dict(asdict(b), pieces=[list(p) for p in b.pieces]) for b in r.bookings]}
                          for r in report.packet_results]}


def trace(path=None, *, run=None, qrels=None, packets=None, prompts=None, budgets=None, unit="chars",
          tokenizer=None, k=DEFAULT_K, as_of=None, policy=False, window=0, top=TOP, progress=None) -> dict:
    """Audit a BEIR folder and its run (the demo when `path` is None) into a JSON-ready record."""
    from modules.common.checks import whole_number
    whole_number(top, "top", minimum=1)
    report = run_audit(path, run=run, qrels=qrels, packets=packets, prompts=prompts, budgets=budgets, unit=unit,
                       tokenizer=tokenizer, k=k, as_of=as_of, policy=policy, window=window, progress=progress)
    ledger, budgets, unit = report.ledger, report.settings["budgets"], report.settings["unit"]
    n = ledger.queries or 1
    rows = []
    for index, budget in enumerate(budgets):
        recall, coverage = ledger.recall_sum / n, ledger.coverage_sum[index] / n
        rows.append({"budget": budget, "recall_at_k": round(recall, 6), "coverage": round(coverage, 6),
                     "gap": round(recall - coverage, 6), "needed": ledger.needed, "retrieved": ledger.retrieved,
                     "in_packet": ledger.in_packet[index],
                     "lost_after_retrieval": ledger.retrieved - ledger.in_packet[index],
                     "ledger": dict(ledger.causes[index]), "copy_in_packet": ledger.copy_in_packet[index],
                     "policies": {p: round(s[index] / n, 6) for p, s in ledger.policy_sum.items()}})
    results = [_query(result, budgets, report.texts.get(result.qid)) for result in report.results]
    largest = sorted((q for q in results if q["mean_gap"] > 0), key=lambda q: -q["mean_gap"])[:top]
    findings = report.findings
    booked = {cause for row in rows for cause, count in row["ledger"].items() if count}
    unit_note = UNIT_NOTE.get(unit, f"tokens counted by {unit} (your tokenizer; titles and ids are not counted)")
    return {
        "lesson": "audit",
        "data": {"folder": "demo (modules/audit/demo)" if path is None else str(path), "files": report.files,
                 "run_format": FORMATS[report.run_format], "run_entries": report.entries},
        "warnings": report.warnings,
        "settings": dict(report.settings, top=top, unit_note=unit_note),
        "counts": {"passages": report.passages, "held": report.held, "queries": report.queries,
                   "judged_queries": report.judged, "audited_queries": ledger.queries,
                   "passages_with_validity_window": report.windows},
        "pipeline": [{"cause": cause, "kind": KINDS[cause], "keeps": keeps, "mechanism": mechanism}
                     for cause, keeps, mechanism in PIPELINE],
        "notes": {cause: NOTES[cause] for cause in CAUSES if cause in booked},
        "checks": [{"check": kind, "what": what, "count": findings.counts.get(kind, 0), "handling": handling,
                    "examples": findings.examples.get(kind, [])} for kind, what, handling in CHECKS],
        "budgets": rows,
        "queries": results,
        "largest_gaps": [q["query"] for q in largest],
        "coverage_policy": _declared(report, budgets),
        "sent": _sent(report),
    }


def view(record: dict) -> list[dict]:
    """The record as printable blocks (headings, text, tables, a chart), each with a key."""
    return [printable(block) for block in blocks(record)]
