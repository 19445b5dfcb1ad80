"""Lesson 01's trace and view: what `python3 -B methods.py context` prints.

The mechanism and the fixture are in modules/context/mechanism.py, whose trace() and view()
call these. The labels are read through the module at call time (`lesson.RELEVANT_IDS`),
so a test that swaps them sees its own labels.
"""

from __future__ import annotations

from math import gcd

from modules.context import mechanism as lesson
from modules.context.mechanism import (CANDIDATES, ContextRecord, Passage, check_budget, coverage_counts, recall_counts,
                             select_context)
from modules.common.tables import table_block

# A second ranking of the same eight passages, distractors first, and a budget at which a
# selector that reads the labels would look better than the honest one.
OTHER_RANKING = ("wifi-v1", "card-v1", "returns-v1", "printing-v1", "printing-v2", "hours-v2", "returns-faq",
                 "parking-v1")
OTHER_BUDGET = 200


def _share(found: int, needed: int) -> str:
    """found/needed reduced as Fraction prints it ("1/2", "1", "0"); the trace needs only this text."""
    divisor = gcd(found, needed) or 1
    return str(found // divisor) if needed // divisor == 1 else f"{found // divisor}/{needed // divisor}"


def reads_the_labels(candidates, labels, max_quote_chars: int) -> ContextRecord:
    """What the lesson forbids, for comparison only: move the labelled passages to the front,
    then run the same selector."""
    return select_context(sorted(candidates, key=lambda p: p.id not in labels), max_quote_chars)


def _steps(candidates: tuple[Passage, ...], record: ContextRecord) -> list[dict]:
    chosen, skipped = set(record.packet_ids), set(record.budget_skipped_ids)
    steps, running = [], 0
    for rank, passage in enumerate(candidates, start=1):
        step = {"rank": rank, "id": passage.id, "chars": len(passage.text)}
        if passage.id in chosen:
            running += len(passage.text)
            step["decision"] = "selected"
        elif passage.source_id in record.conflicts:
            step["decision"] = "blocked: version conflict"
            step["conflict"] = {"source_id": passage.source_id, "labels": list(record.conflicts[passage.source_id])}
        elif passage.id in record.duplicate_of:
            step["decision"] = "skipped: duplicate text"
            step["duplicate_of"] = record.duplicate_of[passage.id]
        elif passage.id in skipped:
            step["decision"] = "skipped: budget"
        else:  # pragma: no cover - select_context accounts for every candidate
            raise AssertionError(f"no decision recorded for {passage.id!r}")
        step["running_total"] = running
        steps.append(step)
    return steps


def conflict_row(conflict) -> dict:
    """A recorded conflict as JSON: the source, its labels, each blocked id with its quote."""
    return {"source_id": conflict.source_id, "labels": list(conflict.labels), "ids": list(conflict.ids),
            "versions": list(conflict.versions), "quotes": list(conflict.quotes), "state": conflict.state}


def selection(candidates, record: ContextRecord) -> dict:
    """One selector decision as the agreement test compares it across lessons 01, 04 and 10."""
    return {"candidates": [p.id for p in candidates], "max_quote_chars": record.max_quote_chars,
            "packet_ids": list(record.packet_ids), "unresolved": [conflict_row(c) for c in record.unresolved]}


def conflict_text(conflicts: list[dict]) -> str:
    """One sentence per recorded conflict: the source, its labels and both quotes, unresolved."""
    return " ".join(
        f"{c['source_id']} ({', '.join(c['labels'])}), {c['state']}: "
        + "; ".join(f'{i} "{q}"' for i, q in zip(c["ids"], c["quotes"])) + "." for c in conflicts)


def _label_reader(budgets) -> list[dict]:
    by_id = {p.id: p for p in CANDIDATES}
    cases = [("the lesson's", CANDIDATES, b) for b in budgets]
    cases.append(("distractors first", tuple(by_id[i] for i in OTHER_RANKING), OTHER_BUDGET))
    rows = []
    for ranking, candidates, budget in cases:
        honest = select_context(candidates, budget)
        cheat = reads_the_labels(candidates, lesson.RELEVANT_IDS, budget)
        rows.append({"ranking": ranking, "ids": [p.id for p in candidates], "max_quote_chars": budget,
                     "honest": "{}/{}".format(*coverage_counts(honest.packet_ids, lesson.RELEVANT_IDS)),
                     "reads_labels": "{}/{}".format(*coverage_counts(cheat.packet_ids, lesson.RELEVANT_IDS))})
    return rows


def trace(budgets=lesson.DEFAULT_BUDGETS) -> dict:
    """Run the lesson's question through each budget; return a JSON-ready record."""
    budgets = tuple(budgets)
    if not budgets:
        raise ValueError("budgets must name at least one max_quote_chars value")
    for budget in budgets:
        check_budget(budget)
    labels = lesson.RELEVANT_IDS
    needed = len(labels)
    recall = recall_counts([p.id for p in CANDIDATES], labels, needed)
    runs = []
    for budget in budgets:
        record = select_context(CANDIDATES, budget)
        found, _ = coverage_counts(record.packet_ids, labels)
        runs.append({
            "max_quote_chars": budget,
            f"recall_at_{needed}": _share(*recall),
            # Printed unreduced ("2/2", not "1") so the count of passages stays visible.
            "coverage": f"{found}/{needed}",
            "coverage_value": _share(found, needed),
            "used_quote_chars": record.used_quote_chars,
            "packet_ids": list(record.packet_ids),
            "budget_skipped_ids": list(record.budget_skipped_ids),
            "duplicate_text_ids": list(record.duplicate_text_ids),
            "duplicate_of": dict(record.duplicate_of),
            "conflicts": {source: list(found_labels) for source, found_labels in record.conflicts.items()},
            "unresolved": [conflict_row(c) for c in record.unresolved],
            "steps": _steps(CANDIDATES, record),
        })
    return {
        "lesson": "context",
        "question": lesson.QUESTION,
        "unit": "max_quote_chars = sum of len() over quote text only (no ids, titles, JSON or question)",
        "candidates": [{"rank": rank, "id": p.id, "source_id": p.source_id, "version": p.version,
                        "chars": len(p.text)} for rank, p in enumerate(CANDIDATES, start=1)],
        "labels": {"relevant_ids": sorted(labels),
                   "note": "for evaluation only: the selector never receives them"},
        "runs": runs,
        "label_reader": _label_reader(budgets),
        "selections": [selection(CANDIDATES, select_context(CANDIDATES, b)) for b in budgets],
    }


def _decision(step: dict) -> str:
    if "duplicate_of" in step:
        return f"{step['decision']} of {step['duplicate_of']}"
    if "conflict" in step:
        return f"blocked: {step['conflict']['source_id']} {', '.join(step['conflict']['labels'])}"
    return step["decision"]


def view(record: dict) -> list[dict]:
    """Turn the trace record into printable blocks (headings, text, tables), each with a key."""
    needed = len(record["labels"]["relevant_ids"])
    recall_key = f"recall_at_{needed}"
    blocks = [
        {"key": "heading", "heading": "Lesson 01 - context: retrieval succeeded, the packet failed"},
        {"key": "question", "text": f"Question: {record['question']}"},
        {"key": "unit", "text": f"Unit: {record['unit']}."},
        table_block(
            "candidates", "Candidates, as the retriever ranked them",
            "rank: the retriever's order, 1 = best; version: a label, not a number to compare; "
            "chars: len() of the passage text.",
            ["rank", "id", "source", "version", "chars"],
            [[c["rank"], c["id"], c["source_id"], c["version"], c["chars"]] for c in record["candidates"]]),
        {"key": "labels", "text": "Labels, for evaluation only (the selector never sees them): "
                                  + ", ".join(record["labels"]["relevant_ids"])},
        table_block(
            "summary", "Summary: the ranking is fixed, only the budget changes",
            f"budget: max_quote_chars; recall@{needed}: needed passages among the first {needed} "
            f"ranked; coverage: needed passages in the packet, out of {needed}; used: chars of quote "
            f"text in the packet.",
            ["budget", f"recall@{needed}", "coverage", "used", "packet"],
            [[run["max_quote_chars"], run[recall_key], run["coverage"], run["used_quote_chars"],
              ", ".join(run["packet_ids"]) or "(empty)"] for run in record["runs"]]),
    ]
    for run in record["runs"]:
        blocks.append(table_block(
            f"walk-{run['max_quote_chars']}",
            f"max_quote_chars = {run['max_quote_chars']}: coverage {run['coverage']}, "
            f"recall@{needed} {run[recall_key]}",
            "chars: len() of the text; decision: selected, skipped (budget, or duplicate text "
            "of an earlier id) or blocked (its source has two version labels, shown); total: "
            "running sum of the selected chars.",
            ["rank", "id", "chars", "decision", "total"],
            [[s["rank"], s["id"], s["chars"], _decision(s), s["running_total"]] for s in run["steps"]]))
    blocks.append({"key": "conflicts", "text":
                   "Every packet also carries each blocked source as a conflict, not as evidence: "
                   "unresolved, not paid from the budget, never quoted as an answer. "
                   + conflict_text(record["runs"][0]["unresolved"])})
    blocks.append({"key": "skip-not-cut", "text": "A skipped passage is never cut to fit: a truncated quote can "
                                                  "say what its source did not. The walk goes on after a skip, "
                                                  "so a shorter passage further down may still enter."})
    other = record["label_reader"][-1]
    blocks.append(table_block(
        "label-reader", "For comparison: a selector that reads the labels (what the lesson forbids)",
        f"budget: max_quote_chars; honest, reads labels: coverage of each packet. The label "
        f"reader moves the labelled "
        f"passages to the front, then runs the same selector. {other['ranking'].capitalize()}: the "
        f"same passages ranked {', '.join(other['ids'])}.",
        ["ranking", "budget", "honest", "reads labels"],
        [[r["ranking"], r["max_quote_chars"], r["honest"], r["reads_labels"]]
         for r in record["label_reader"]]))
    blocks.append({"key": "label-reader-note", "text":
                   "On the lesson's ranking the label reader gains nothing: the needed passages already rank "
                   "first. On another ranking it scores higher without choosing better, and nothing in its "
                   "coverage says why: the number would measure the answer key, not the selector."})
    return blocks
