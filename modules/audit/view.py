"""The audit's printable view: the record of trace.py as headings, text, tables and a chart."""

from __future__ import annotations

from modules.audit.mechanism import CAUSES
from modules.common.tables import table_block

__all__ = ["blocks", "printable", "share", "LABELS", "SENT_LABELS"]

LABELS = {"not_retrieved": "not retrieved", "not_in_corpus": "not in corpus", "expired": "expired",
          "superseded": "superseded", "version_conflict": "version conflict", "canonical_copy": "canonical copy",
          "duplicate_text": "duplicate text", "overlap": "overlap", "budget_skip": "budget skip"}
SENT_LABELS = {"not_retrieved": "not retrieved", "other_version": "other version", "split_unit": "split unit",
               "not_sent": "not sent", "split_calls": "split across calls", "truncated": "truncated",
               "piece": "a piece", "cut_negation": "cut negation", "altered": "altered", "sent": "sent whole",
               "duplicate": "duplicate", "over_window": "over the window"}


def _labels():
    return LABELS, SENT_LABELS


def share(value: dict) -> str:
    """A share of the record ({"found", "needed"}) as the view prints it: unreduced, so the count
    of passages stays visible."""
    return f"{value['found']}/{value['needed']}"


def _table(key: str, title: str, legend: str, columns: list, rows: list) -> dict:
    # A table too wide for the terminal is stacked by the renderer, as every lesson's is.
    return table_block(
        key, title,
        legend,
        columns,
        rows)


def printable(value):
    """Ids and texts come from the user's files: a control character (an ANSI escape, say) is
    shown as its escape, never sent to the terminal. Newlines of the view's own text stay."""
    if isinstance(value, str):
        return value if value.isprintable() else "".join(
            c if c.isprintable() or c == "\n" else repr(c)[1:-1] for c in value)
    if isinstance(value, list):
        return [printable(item) for item in value]
    if isinstance(value, dict):
        return {key: printable(item) for key, item in value.items()}
    return value


def _detail_lines(query: dict, labels: dict) -> list[str]:
    """One line per needed id and explanation, naming the budgets it holds at."""
    seen: dict[tuple, list[str]] = {}
    for step in query["budgets"]:
        for loss in step["lost"]:
            flag = "; check the judgement" if loss["kind"] == "judgement" else ""
            seen.setdefault((loss["id"], loss["cause"], loss["detail"] + flag), []).append(str(step["budget"]))
    lines = []
    for (pid, cause, detail), budgets in sorted(seen.items(), key=lambda item: item[0][0]):
        where = "every budget" if len(budgets) == len(query["budgets"]) else ", ".join(budgets)
        lines.append(f"- {pid}, {labels[cause]} at {where}: {detail}")
    return lines


def _head(record: dict) -> list[dict]:
    settings, counts, data = record["settings"], record["counts"], record["data"]
    k, unit, budgets = settings["k"], settings["unit"], settings["budgets"]
    labels, _ = _labels()
    as_of = (f"as of {settings['as_of']} (validity windows checked)" if settings["as_of"]
             else "no as-of date (validity windows not checked; give --as-of)")
    found = [{"key": "title", "heading": "Audit: where a retrieval run loses evidence before the packet"}]
    for index, warning in enumerate(record["warnings"]):
        found.append({"key": f"warning-{index}", "text": f"Warning: {warning}."})
    drawn = (f" (drawn from the corpus: 1, 2, 5 and 10 times the median size of the {counts['held']:,} passages "
             f"held; give --budget N to choose)" if settings.get("budgets_drawn") else "")
    found += [
        {"key": "data", "text": f"Data: {data['folder']}: {', '.join(data['files'].values())} "
                                f"({data['run_format']} run, {data['run_entries']:,} entries). {counts['passages']:,} "
                                f"passages read, {counts['held']:,} held (those the run, qrels or packets name); "
                                f"{counts['queries']} queries, {counts['judged_queries']} with a relevant judgement "
                                f"(qrels score >= 1); {counts['audited_queries']} audited."},
        {"key": "settings", "text": f"Settings: the top k = {k} passages of each query go to the selector; budgets "
                                    f"{', '.join(map(str, budgets))}{drawn} in {settings['unit_note']}; {as_of}."},
        {"key": "pipeline", "text": "Steps, in order; a needed passage that does not reach the packet is booked "
                                    "under the first step that removed it (kind in brackets):\n"
         + "\n".join(f"{i}. {labels[s['cause']]} [{s['kind']}]: keeps {s['keeps']} ({s['mechanism']})"
                     for i, s in enumerate(record["pipeline"], start=1))},
        _table("checks", "Input checks", "count: run entries, queries or judgements with the problem; none is "
                                         "dropped silently (handling below).",
               ["check", "count", "examples"],
               [[c["what"], c["count"], ", ".join(c["examples"][:2]) or "-"] for c in record["checks"]
                if c["count"] or c["check"] in ("unknown_doc", "repeated_doc", "duplicate_rank")]),
    ]
    handled = [f"- {c['what']}: {c['handling']}." for c in record["checks"] if c["count"]]
    if not settings["as_of"] and counts["passages_with_validity_window"]:
        handled.append(f"- {counts['passages_with_validity_window']} passages carry a validity window that was "
                       f"not checked: give --as-of YYYY-MM-DD.")
    if handled:
        found.append({"key": "handling", "text": "Handling:\n" + "\n".join(handled)})
    return found


def _summary(record: dict) -> list[dict]:
    settings, counts = record["settings"], record["counts"]
    k, unit, budgets = settings["k"], settings["unit"], settings["budgets"]
    labels, _ = _labels()
    at_k = f"recall@{k}"
    rows = record["budgets"]
    found = [_table(
        "summary", f"Recall against coverage, per budget ({unit})",
        f"{at_k} and coverage: mean over the {counts['audited_queries']} audited queries of the share of each "
        f"query's needed passages in its top {k} and in its packet; gap = {at_k} - coverage; needed, "
        f"retrieved (in the top k) and packet (in the packet) count passages over all queries.",
        ["budget", at_k, "coverage", "gap", "needed", "retrieved", "packet"],
        [[r["budget"], f"{r['recall_at_k']:.3f}", f"{r['coverage']:.3f}", f"{r['gap']:.3f}", r["needed"],
          r["retrieved"], r["in_packet"]] for r in rows])]
    chart = []
    for r in rows:
        chart += [[f"{r['budget']} {at_k}", r["recall_at_k"], 1.0], [f"{r['budget']} coverage", r["coverage"], 1.0]]
    found.append({"key": "chart", "chart": {
        "title": f"{at_k} and coverage by budget", "width": 40, "rows": chart,
        "legend": f"Each bar is a mean share from 0 to 1 (one # is 1/40); the budget is in {unit}."}})
    kinds = {s["cause"]: s["kind"] for s in record["pipeline"]}
    ledger_rows = [[labels[cause], kinds[cause]] + [r["ledger"][cause] for r in rows] for cause in CAUSES]
    ledger_rows += [["total lost", ""] + [sum(r["ledger"].values()) for r in rows],
                    ["in the packet", ""] + [r["in_packet"] for r in rows],
                    ["needed", ""] + [r["needed"] for r in rows]]
    found.append(_table(
        "ledger", f"Loss ledger: needed passages by cause, per budget ({unit})",
        "Each cell counts needed passages over all audited queries, each booked once, under the first step "
        "that removed it; total lost + in the packet = needed. kind: retrieval (a retrieval defect), input "
        "(ids), judgement (the qrels call relevant what a stated rule excludes: check the judgement), "
        "policy (a choice of the lessons' rules).",
        ["cause", "kind"] + [str(b) for b in budgets], ledger_rows))
    if record["notes"]:
        found.append({"key": "notes", "text": "What to do next, per cause booked:\n" + "\n".join(
            f"- {labels[cause]}: {note}." for cause, note in record["notes"].items())})
    copies = [r["copy_in_packet"] for r in rows]
    if any(copies):
        found.append({"key": "copies", "text": "Lost by id, delivered in content: of the canonical copies and "
                                               "duplicate texts above, " + ", ".join(
                                                   f"{n} at {b}" for n, b in zip(copies, budgets))
                      + " had their kept twin in the packet. The qrels judge one copy; the packet carries "
                        "another, so coverage by id understates what the answer stage receives."})
    if rows and rows[0]["policies"]:
        found += _policy_blocks(record)
    return found


POLICY_NAMES = {"stop": "stop walk", "skip": "skip walk", "units": "units walk", "coverage": "coverage"}


def _policy_blocks(record: dict) -> list[dict]:
    """--policy: the walks' mean coverage, then every selection per query (coverage-aware
    where the query declares sub-questions)."""
    rows, unit, budgets = record["budgets"], record["settings"]["unit"], record["settings"]["budgets"]
    walks = list(rows[0]["policies"])
    at_budgets = f"budget{'s' if len(budgets) > 1 else ''} {', '.join(map(str, budgets))}"
    found = [_table(
        "policies", f"The lessons' walks side by side: mean coverage per budget ({unit})",
        "stop walk: rank order, the first passage that does not fit ends it (lesson 02); skip walk: rank "
        "order, a misfit is skipped and the walk goes on (lesson 02); units walk: the skip walk over "
        "lesson 11's units, declared neighbours together (the audit's walk). Means over every audited query.",
        ["budget"] + [POLICY_NAMES[p] for p in walks],
        [[r["budget"]] + [f"{v:.3f}" for v in r["policies"].values()] for r in rows])]
    shown = record["queries"][:record["settings"]["top"]]
    more = len(record["queries"]) - len(shown)
    policies = list(shown[0]["policies"]) if shown else []
    found.append(_table(
        "policy-queries", f"Per query: needed passages in each selection ({unit})",
        f"Each cell: needed passages selected at {at_budgets}{', in that order' if len(budgets) > 1 else ''} "
        f"(needed: passages judged relevant). coverage: lesson 02's coverage-aware choice (select_for_coverage) "
        f"over the skip walk's candidates: most new facets per unit of cost, facets from the query's declared "
        f"sub-questions matched to passage texts, never the qrels; \"-\": no declared sub-questions."
        + (f" {more} more queries in --json." if more > 0 else ""),
        ["query", "needed"] + [POLICY_NAMES[p] for p in policies],
        [[q["query"], q["needed"]] + [" ".join(str(part["found"]) for part in q["policies"][p])
                                      if q["policies"][p] is not None else "-" for p in policies]
         for q in shown]))
    declared = record["coverage_policy"]
    if declared and declared["queries"]:
        found.append({"key": "policy-declared", "text": (
            f"On the {len(declared['queries'])} "
            f"{'query that declares' if len(declared['queries']) == 1 else 'queries that declare'} sub-questions "
            f"({', '.join(declared['queries'][:4])}{' ...' if len(declared['queries']) > 4 else ''}), mean "
            f"coverage at {at_budgets}: skip walk "
            f"{', '.join(f'{v:.3f}' for v in declared['skip'])}; coverage-aware "
            f"{', '.join(f'{v:.3f}' for v in declared['coverage'])}.")})
    return found


def _sent_blocks(record: dict) -> list[dict]:
    sent = record["sent"]
    if sent is None:
        return []
    _, labels = _labels()
    unit, top = record["settings"]["unit"], record["settings"]["top"]
    found = [{"key": "sent-title", "heading": "The packets your system sent"},
             {"key": "sent-summary", "text": f"Over {sent['queries']} queries with a sent packet, your packets "
                                             f"carried {sent['coverage']:.2f} of the needed passages whole (mean "
                                             f"share); the lessons' walk would have carried "
                                             f"{sent['lab_coverage']:.2f} on the same budgets (each packet's own "
                                             f"size in {unit}, repeats included), from the same run."}]
    rows = [[labels[c], sent["ledger"][c]] for c in sent["ledger"]]
    rows.append([labels["duplicate"], sent["duplicates"]])
    if sent["window"]:
        rows.append([labels["over_window"], sent["over_window"]])
    found.append(_table(
        "sent-ledger", "Where each needed passage ended",
        "count: needed passages over the queries with a packet, each booked once, first place that "
        f"applies (see the notes below); duplicate: texts sent more than once in one call (their repeats took "
        f"{sent['duplicate_size']:,} of the {sent['size']:,} {unit} sent)"
        + (f"; over the window: calls (of {sent['calls']}) whose prompt is longer than the window, "
           f"{sent['window']:,} {unit}." if sent["window"] else "."),
        ["place", "count"], rows))
    ranked = sorted(sent["per_query"], key=lambda q: (q["coverage"]["found"] - q["coverage"]["needed"],
                                                      q["coverage"]["found"] - q["lab_coverage"]["found"]))
    shown = ranked[:top]
    more = len(ranked) - len(shown)
    found.append(_table(
        "sent-queries", f"Per query: your packet and the lessons' walk on its budget ({unit})",
        "budget: the size of what was sent; yours and lessons': needed passages carried whole / needed; "
        f"the {len(shown)} queries that lost most, first." + (f" {more} more queries in --json." if more > 0 else ""),
        ["query", "budget", "yours", "lessons'", "sent"],
        [[q["query"], q["budget"], share(q["coverage"]), share(q["lab_coverage"]), ", ".join(q["sent"][:6])
          + (f" and {len(q['sent']) - 6} more" if len(q["sent"]) > 6 else "")] for q in shown]))
    lines = []
    for q in shown:
        for b in q["bookings"]:
            if b["cause"] != "sent":
                lines.append(f"- {q['query']} {b['id']}, {labels[b['cause']]}: {b['detail']}"
                             + (f"; {b['diagnosis']}" if b["diagnosis"] else ""))
        for d in q["duplicates"]:
            lines.append(f"- {q['query']} {d['id']}, {labels['duplicate']}: sent {d['copies']} times in call "
                         f"{d['call']}; the repeats took {d['size']:,} {unit}")
        if sent["window"]:
            over = [f"call {i}: {size:,}" for i, size in enumerate(q["call_sizes"]) if size > sent["window"]]
            if over:
                lines.append(f"- {q['query']}, {labels['over_window']}: {'; '.join(over)} {unit} against a window of "
                             f"{sent['window']:,}")
    if lines:
        found.append({"key": "sent-why", "text": "What did not arrive whole, and what the packet wasted (the queries "
                                                 "above):\n" + "\n".join(lines)})
    if sent["notes"]:
        found.append({"key": "sent-notes", "text": "What to do next, per place:\n" + "\n".join(
            f"- {labels[cause]}: {note}." for cause, note in sent["notes"].items())})
    return found


def blocks(record: dict) -> list[dict]:
    settings = record["settings"]
    k, unit, budgets = settings["k"], settings["unit"], settings["budgets"]
    labels, _ = _labels()
    at_k = f"recall@{k}"
    found = _head(record) + _summary(record) + _sent_blocks(record)
    queries = {q["query"]: q for q in record["queries"]}
    largest = [queries[qid] for qid in record["largest_gaps"]]
    if not largest:
        found.append({"key": "gaps", "text": "No audited query loses a retrieved passage before the packet."})
        return found
    found.append(_table(
        "gaps", f"The {len(largest)} queries with the largest gap between {at_k} and coverage",
        f"needed: passages judged relevant; {at_k} and coverage at each budget ({unit}): found/needed; mean gap: "
        f"{at_k} - coverage averaged over the budgets. Largest first, then run order.",
        ["query", "needed", at_k] + [str(b) for b in budgets] + ["mean gap"],
        [[q["query"], q["needed"], share(q["recall_at_k"])] + [share(s["coverage"]) for s in q["budgets"]]
         + [f"{q['mean_gap']:.3f}"] for q in largest]))
    for q in largest:
        lost_ids = sorted({loss["id"] for s in q["budgets"] for loss in s["lost"]})
        cells = {(s["budget"], loss["id"]): labels[loss["cause"]] for s in q["budgets"] for loss in s["lost"]}
        found.append({"key": f"query-{q['query']}", "text": f"{q['query']}: {q['text'] or '(no text in queries.jsonl)'}"})
        found.append(_table(
            f"lost-{q['query']}", "", f"What happened to each needed passage of {q['query']} that missed the packet, "
                                      f"per budget ({unit}).",
            ["needed id"] + [str(b) for b in budgets],
            [[pid] + [cells.get((b, pid), "in packet") for b in budgets] for pid in lost_ids[:settings["top"]]]))
        lines = _detail_lines(q, labels)
        top = settings["top"]
        found.append({"key": f"why-{q['query']}", "text": "\n".join(lines[:top] + (
            [f"- and {len(lines) - top} more in --json"] if len(lines) > top else []))})
    return found
