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


SHORT_DECISION = {"selected": "selected", "skipped: budget": "budget", "skipped: duplicate text": "duplicate",
                  "blocked: version conflict": "blocked"}
BUDGETS_PER_TABLE = 3   # budget columns side by side; more budgets (--budget) continue in another table


def _loss(run: dict, needed_ids) -> str:
    """Why each needed passage is missing from one run's packet, from the run's own steps."""
    by_id = {s["id"]: s for s in run["steps"]}
    budget, parts = run["max_quote_chars"], []
    for needed in sorted(needed_ids):
        step = by_id.get(needed)
        if step is None:
            parts.append(f"{needed} was not a candidate")
        elif step["decision"] == "selected":
            continue
        elif step["decision"] != "skipped: budget":
            parts.append(f"{needed} was {step['decision']}")
        elif step["chars"] > budget:
            parts.append(f"{needed} ({step['chars']}) is longer than the whole budget")
        else:
            parts.append(f"{needed} ({step['chars']}) came after {step['running_total']} were used, "
                         f"{budget - step['running_total']} left")
    return "; ".join(parts) if parts else "every needed passage fits"


def view(record: dict) -> list[dict]:
    """Turn the trace record into printable blocks (headings, text, tables), each with a key."""
    needed_ids = record["labels"]["relevant_ids"]
    needed = len(needed_ids)
    recall_key = f"recall_at_{needed}"
    runs = record["runs"]
    budgets = ", ".join(str(r["max_quote_chars"]) for r in runs)
    blocks = [
        {"key": "heading", "heading": "Lesson 01 - context: retrieval succeeded, the packet failed"},
        {"key": "plan", "text": f"One question, one fixed ranking, quote budgets of {budgets} characters. "
                                f"Watch recall@{needed} (did the retriever rank the needed passages?) against "
                                f"coverage (did they reach the packet?), then each candidate's decision."},
        {"key": "question", "text": f"Question: {record['question']}"},
        {"key": "unit", "text": f"Unit: {record['unit']}."},
        table_block(
            "candidates", "Candidates, as the retriever ranked them",
            "rank: the retriever's order, 1 = best; version: a label, not a number to compare; "
            "chars: len() of the passage text.",
            ["rank", "id", "source", "version", "chars"],
            [[c["rank"], c["id"], c["source_id"], c["version"], c["chars"]] for c in record["candidates"]]),
        {"key": "labels", "text": "Labels, for evaluation only (the selector never sees them): "
                                  + ", ".join(needed_ids)},
        table_block(
            "summary", "Summary: the ranking is fixed, only the budget changes",
            f"budget: max_quote_chars; recall@{needed}: needed passages among the first {needed} "
            f"ranked; coverage: needed passages in the packet, out of {needed}; used: chars of quote "
            f"text in the packet.",
            ["budget", f"recall@{needed}", "coverage", "used", "packet"],
            [[run["max_quote_chars"], run[recall_key], run["coverage"], run["used_quote_chars"],
              ", ".join(run["packet_ids"]) or "(empty)"] for run in runs]),
        {"key": "finding", "text": f"Finding: recall@{needed} is {runs[0][recall_key]} in every row, and "
                                   f"coverage is " + ", ".join(
                                       f"{r['coverage']} at {r['max_quote_chars']}" for r in runs)
                                   + ". The ranking never changed; the budget decided. " + ". ".join(
                                       f"At {r['max_quote_chars']}: {_loss(r, needed_ids)}" for r in runs) + "."},
    ]
    steps = runs[0]["steps"]
    duplicates = sorted({f"{s['id']} repeats {s['duplicate_of']}" for s in steps if "duplicate_of" in s})
    blocked = sorted({f"{s['conflict']['source_id']} {', '.join(s['conflict']['labels'])}"
                      for s in steps if "conflict" in s})
    legend = ("chars: len() of the text; each budget column: the decision, then the running total of "
              "selected chars. selected: copied whole; budget: skipped, does not fit what is left; "
              "duplicate: skipped, exact text of an earlier id"
              + (f" ({'; '.join(duplicates)})" if duplicates else "")
              + "; blocked: its source has two version labels"
              + (f" ({'; '.join(blocked)})" if blocked else "") + ".")
    for first in range(0, len(runs), BUDGETS_PER_TABLE):
        shown = runs[first:first + BUDGETS_PER_TABLE]
        key = "walk" if first == 0 else f"walk-{first // BUDGETS_PER_TABLE + 1}"
        blocks.append(table_block(
            key, "Each candidate's decision, in rank order, at each budget"
            + ("" if first == 0 else " (continued)"),
            legend if first == 0 else "as in the table above.",
            ["rank", "id", "chars"] + [f"at {r['max_quote_chars']}" for r in shown],
            [[s["rank"], s["id"], s["chars"]] + [f"{SHORT_DECISION[r['steps'][i]['decision']]} "
                                                 f"{r['steps'][i]['running_total']}" for r in shown]
             for i, s in enumerate(steps)]))
    blocks.append({"key": "conflicts", "text":
                   "Every packet also carries each blocked source as a conflict, not as evidence: "
                   "unresolved, not paid from the budget, never quoted as an answer. "
                   + conflict_text(runs[0]["unresolved"])})
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
