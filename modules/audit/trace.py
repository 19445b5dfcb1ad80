"""`methods.py audit`: the audit's record, its printable view and its command line.

    python3 -B methods.py audit [PATH] [--run FILE] [--qrels FILE] [--budget N ...]
                                [--unit chars|lab-tokens] [--k K] [--as-of YYYY-MM-DD]
                                [--top N] [--plain | --json]

Without PATH it audits the demo in modules/audit/demo. Plain text is the default off a
terminal; on a terminal with rich installed the tables are drawn by rich and a long run
shows a progress bar. Nothing is written anywhere.
"""

from __future__ import annotations


from modules.audit import CAUSES, DEFAULT_K, run_audit

LABELS = {"not_retrieved": "not retrieved", "not_in_corpus": "not in corpus", "expired": "expired",
          "version_conflict": "version conflict", "canonical_copy": "canonical copy",
          "duplicate_text": "duplicate text", "overlap": "overlap", "budget_skip": "budget skip"}
# The steps as they run, each with the lesson mechanism that decides it.
PIPELINE = (
    ("not_retrieved", "the run's top k, by score in trec_eval's order", "context.recall_counts"),
    ("not_in_corpus", "passages that corpus.jsonl holds", "an input check"),
    ("expired", "passages valid on the as-of date", "versions.valid_on"),
    ("version_conflict", "sources with one version label among the candidates",
     "versions.multi_version_sources"),
    ("canonical_copy", "one copy of each declared canonical passage", "dedupe.dedupe_canonical"),
    ("duplicate_text", "one passage per exact text, the first-ranked", "dedupe.dedupe_text"),
    ("overlap", "no line shared with a higher-ranked passage of its file", "dedupe.select_non_overlapping"),
    ("budget_skip", "whole passages in rank order while they fit, skipping the rest", "budget.fill_budget"),
)
CHECKS = (  # kind, what is counted, what the audit does about it
    ("unknown_doc", "run entries whose doc id is not in the corpus",
     "kept at their rank (they count for recall@k); they cannot enter the packet"),
    ("repeated_doc", "run entries repeating a doc id within a query", "the best-ranked entry stays"),
    ("duplicate_rank", "run entries repeating a rank within a query",
     "none: the ranking follows the scores, as trec_eval's does"),
    ("run_unknown_query", "run queries not in queries.jsonl", "audited if judged, shown without text"),
    ("run_query_without_qrels", "run queries with no relevant judgement",
     "not audited: recall of nothing is undefined"),
    ("judged_query_not_in_run", "judged queries missing from the run", "audited with an empty ranking"),
    ("qrels_unknown_query", "judged queries not in queries.jsonl", "audited, shown without text"),
    ("qrels_unknown_doc", "relevant judgements of doc ids not in the corpus",
     "needed all the same; they can never reach the packet"),
)
UNIT_NOTE = {"chars": "characters: len() of each passage's text (titles and ids are not counted)",
             "lab-tokens": "lab tokens: whitespace pieces of each passage's text, each ceil(len / 5); a "
                           "teaching unit, not a model token (titles and ids are not counted)"}
TOP = 10
PROGRESS_BYTES = 1 << 20        # a run file this large gets a progress bar on a terminal


def _share(found: int, needed: int) -> str:
    return f"{found}/{needed}"   # unreduced, so the count of passages stays visible


def _query(result, budgets, text) -> dict:
    gaps = [(result.retrieved - found) / result.needed for found in result.coverage]
    return {"query": result.qid, "text": text, "needed": result.needed, "retrieved": result.retrieved,
            "recall_at_k": _share(result.retrieved, result.needed), "mean_gap": round(sum(gaps) / len(gaps), 6),
            "budgets": [{"budget": budget, "coverage": _share(found, result.needed),
                         "lost": [loss._asdict() for loss in losses]}
                        for budget, found, losses in zip(budgets, result.coverage, result.lost)]}


def trace(path=None, *, run=None, qrels=None, budgets=None, unit="chars", k=DEFAULT_K, as_of=None, top=TOP,
          progress=None) -> dict:
    """Audit a BEIR folder and its run (the demo when `path` is None) into a JSON-ready record."""
    from modules.common.checks import whole_number
    whole_number(top, "top", minimum=1)
    report = run_audit(path, run=run, qrels=qrels, budgets=budgets, unit=unit, k=k, as_of=as_of,
                       progress=progress)
    ledger, budgets = report.ledger, report.settings["budgets"]
    n = ledger.queries or 1
    rows = []
    for index, budget in enumerate(budgets):
        recall, coverage = ledger.recall_sum / n, ledger.coverage_sum[index] / n
        rows.append({"budget": budget, "recall_at_k": round(recall, 6), "coverage": round(coverage, 6),
                     "gap": round(recall - coverage, 6), "needed": ledger.needed, "retrieved": ledger.retrieved,
                     "in_packet": ledger.in_packet[index],
                     "lost_after_retrieval": ledger.retrieved - ledger.in_packet[index],
                     "ledger": dict(ledger.causes[index]), "copy_in_packet": ledger.copy_in_packet[index]})
    results = [_query(result, budgets, report.texts.get(result.qid)) for result in report.results]
    largest = sorted((q for q in results if q["mean_gap"] > 0), key=lambda q: -q["mean_gap"])[:top]
    findings = report.findings
    return {
        "lesson": "audit",
        "data": {"folder": "demo (modules/audit/demo)" if path is None else str(path), "files": report.files,
                 "run_format": "JSON lines" if report.files["run"].endswith(".jsonl") else "TREC"},
        "settings": dict(report.settings, top=top, unit_note=UNIT_NOTE[unit]),
        "counts": {"passages": report.passages, "queries": report.queries, "judged_queries": report.judged,
                   "audited_queries": ledger.queries, "passages_with_validity_window": report.windows},
        "pipeline": [{"cause": cause, "keeps": keeps, "mechanism": mechanism} for cause, keeps, mechanism in PIPELINE],
        "checks": [{"check": kind, "what": what, "count": findings.counts.get(kind, 0), "handling": handling,
                    "examples": findings.examples.get(kind, [])} for kind, what, handling in CHECKS],
        "budgets": rows,
        "queries": results,
        "largest_gaps": [q["query"] for q in largest],
    }


# ---------------------------------------------------------------- the view

def _table(key: str, title: str, legend: str, columns: list, rows: list) -> dict:
    # A table too wide for the terminal is stacked by the renderer, as every lesson's is.
    return {"key": key, "table": {"title": title, "legend": legend, "columns": columns, "rows": rows}}


def _detail_lines(query: dict) -> list[str]:
    """One line per needed id and explanation, naming the budgets it holds at (the room
    left after a budget skip is in the JSON record; here the passage's size is enough)."""
    seen: dict[tuple, list[str]] = {}
    for step in query["budgets"]:
        for loss in step["lost"]:
            detail = loss["detail"].split("; ")[0] if loss["cause"] == "budget_skip" else loss["detail"]
            seen.setdefault((loss["id"], loss["cause"], detail), []).append(str(step["budget"]))
    lines = []
    for (pid, cause, detail), budgets in sorted(seen.items(), key=lambda item: item[0][0]):
        where = "every budget" if len(budgets) == len(query["budgets"]) else ", ".join(budgets)
        lines.append(f"- {pid}, {LABELS[cause]} at {where}: {detail}")
    return lines


def _printable(value):
    """Ids and texts come from the user's files: a control character (an ANSI escape, say) is
    shown as its escape, never sent to the terminal. Newlines of the view's own text stay."""
    if isinstance(value, str):
        return value if value.isprintable() else "".join(
            c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in value)
    if isinstance(value, list):
        return [_printable(item) for item in value]
    if isinstance(value, dict):
        return {key: _printable(item) for key, item in value.items()}
    return value


def view(record: dict) -> list[dict]:
    """The record as printable blocks (headings, text, tables, a chart), each with a key."""
    return [_printable(block) for block in _blocks(record)]


def _blocks(record: dict) -> list[dict]:
    settings, counts, data = record["settings"], record["counts"], record["data"]
    k, unit, budgets = settings["k"], settings["unit"], settings["budgets"]
    at_k = f"recall@{k}"
    as_of = (f"as of {settings['as_of']} (validity windows checked)" if settings["as_of"]
             else "no as-of date (validity windows not checked; give --as-of)")
    blocks = [
        {"key": "title", "heading": "Audit: where a retrieval run loses evidence before the packet"},
        {"key": "data", "text": f"Data: {data['folder']}: {', '.join(data['files'].values())} "
                                f"({data['run_format']} run). {counts['passages']} passages, {counts['queries']} "
                                f"queries, {counts['judged_queries']} with a relevant judgement (qrels score >= 1); "
                                f"{counts['audited_queries']} audited."},
        {"key": "settings", "text": f"Settings: the top k = {k} passages of each query go to the selector; budgets "
                                    f"{', '.join(map(str, budgets))} in {UNIT_NOTE[unit]}; {as_of}."},
        {"key": "pipeline", "text": "Steps, in order; a needed passage that does not reach the packet is booked "
                                    "under the first step that removed it:\n"
                 + "\n".join(f"{i}. {LABELS[s['cause']]}: keeps {s['keeps']} ({s['mechanism']})"
                             for i, s in enumerate(record["pipeline"], start=1))},
        _table("checks", "Input checks", "count: run entries, queries or judgements with the problem; none is "
                                         "dropped silently (handling below).",
               ["check", "count", "examples"],
               [[c["what"], c["count"], ", ".join(c["examples"][:2]) or "-"] for c in record["checks"]]),
    ]
    handled = [f"- {c['what']}: {c['handling']}." for c in record["checks"] if c["count"]]
    if not settings["as_of"] and counts["passages_with_validity_window"]:
        handled.append(f"- {counts['passages_with_validity_window']} passages carry a validity window that was "
                       f"not checked: give --as-of YYYY-MM-DD.")
    if handled:
        blocks.append({"key": "handling", "text": "Handling:\n" + "\n".join(handled)})
    rows = record["budgets"]
    blocks.append(_table(
        "summary", f"Recall against coverage, per budget ({unit})",
        f"{at_k} and coverage: mean over the {counts['audited_queries']} audited queries of the share of each "
        f"query's needed passages in its top {k} and in its packet; gap = {at_k} - coverage. needed, retrieved, "
        f"in packet and lost after retrieval count passages over all queries.",
        ["budget", at_k, "coverage", "gap", "needed", "retrieved", "in packet", "lost after retrieval"],
        [[r["budget"], f"{r['recall_at_k']:.3f}", f"{r['coverage']:.3f}", f"{r['gap']:.3f}", r["needed"],
          r["retrieved"], r["in_packet"], r["lost_after_retrieval"]] for r in rows]))
    chart = []
    for r in rows:
        chart += [[f"{r['budget']} {at_k}", r["recall_at_k"], 1.0], [f"{r['budget']} coverage", r["coverage"], 1.0]]
    blocks.append({"key": "chart", "chart": {
        "title": f"{at_k} and coverage by budget", "width": 40, "rows": chart,
        "legend": f"Each bar is a mean share from 0 to 1 (one # is 1/40); the budget is in {unit}."}})
    ledger_rows = [[LABELS[cause]] + [r["ledger"][cause] for r in rows] for cause in CAUSES]
    ledger_rows += [["total lost"] + [sum(r["ledger"].values()) for r in rows],
                    ["in the packet"] + [r["in_packet"] for r in rows],
                    ["needed"] + [r["needed"] for r in rows]]
    blocks.append(_table(
        "ledger", f"Loss ledger: needed passages by cause, per budget ({unit})",
        "Each cell counts needed passages over all audited queries; each lost passage is booked once, under the "
        "first step that removed it. total lost + in the packet = needed.",
        ["cause"] + [str(b) for b in budgets], ledger_rows))
    copies = [r["copy_in_packet"] for r in rows]
    if any(copies):
        blocks.append({"key": "copies", "text": "Lost by id, delivered in content: of the canonical copies and "
                                                "duplicate texts above, " + ", ".join(
                                                    f"{n} at {b}" for n, b in zip(copies, budgets))
                       + " had their kept twin in the packet. The qrels judge one copy; the packet carries "
                         "another, so coverage by id understates what the answer stage receives."})
    queries = {q["query"]: q for q in record["queries"]}
    largest = [queries[qid] for qid in record["largest_gaps"]]
    if not largest:
        blocks.append({"key": "gaps", "text": "No audited query loses a retrieved passage before the packet."})
        return blocks
    blocks.append(_table(
        "gaps", f"The {len(largest)} queries with the largest gap between {at_k} and coverage",
        f"needed: passages judged relevant; {at_k} and coverage at each budget ({unit}): found/needed; mean gap: "
        f"{at_k} - coverage averaged over the budgets. Largest first, then run order.",
        ["query", "needed", at_k] + [str(b) for b in budgets] + ["mean gap"],
        [[q["query"], q["needed"], q["recall_at_k"]] + [s["coverage"] for s in q["budgets"]]
         + [f"{q['mean_gap']:.3f}"] for q in largest]))
    for q in largest:
        lost_ids = sorted({loss["id"] for s in q["budgets"] for loss in s["lost"]})
        cells = {(s["budget"], loss["id"]): LABELS[loss["cause"]] for s in q["budgets"] for loss in s["lost"]}
        blocks.append({"key": f"query-{q['query']}", "text": f"{q['query']}: {q['text'] or '(no text in queries.jsonl)'}"})
        blocks.append(_table(
            f"lost-{q['query']}", "", f"What happened to each needed passage of {q['query']} that missed the packet, "
                                      f"per budget ({unit}).",
            ["needed id"] + [str(b) for b in budgets],
            [[pid] + [cells.get((b, pid), "in packet") for b in budgets] for pid in lost_ids]))
        blocks.append({"key": f"why-{q['query']}", "text": "\n".join(_detail_lines(q))})
    return blocks
