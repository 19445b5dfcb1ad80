"""Lesson 01, context: retrieval succeeded, the packet failed.

A retriever ranks the two passages a question needs first and second, so its
recall@2 is perfect. The selector then copies whole passages into a quote budget
measured in characters. With a small budget the packet holds neither needed
passage, with a medium one it holds one, and only a large one carries both:
the ranking never changed, the evidence handed onward did.

Unit contract: `max_quote_chars` is the sum of Python `len()` over quote text
only. Ids, titles, instructions, JSON and the question are not counted. It is
not a byte, message or model-token limit, and nothing here converts it.

The relevant ids are an evaluation label. They live apart from the candidates
and the selector never receives them: a selector that could see them would be
graded on an answer key it was handed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from modules.common.checks import sequence_of

# `fractions` is imported inside the two functions that build a Fraction: the trace
# only needs counts, and skipping the import saves about 2 ms on every run.

__all__ = [
    "Passage", "ContextRecord", "select_context", "fill_quote_budget",
    "packet_coverage", "recall_at_k", "QUESTION", "CANDIDATES", "RELEVANT_IDS",
    "DEFAULT_BUDGETS", "trace",
]


@dataclass(frozen=True)
class Passage:
    """One retrieved passage. `version` is a label, never a number to compare."""

    id: str
    source_id: str
    version: str
    title: str
    text: str

    def __post_init__(self) -> None:
        for name in ("id", "source_id", "version", "title", "text"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"Passage.{name} must be a str, got {type(value).__name__} {value!r}")
        for name in ("id", "source_id", "version"):
            if not getattr(self, name).strip():
                raise ValueError(f"Passage.{name} must not be empty, got {getattr(self, name)!r}")


@dataclass(frozen=True)
class ContextRecord:
    """What the selector decided: the packet and every reason something was left out."""

    packet: tuple[Passage, ...]
    budget_skipped_ids: tuple[str, ...]
    duplicate_text_ids: tuple[str, ...]
    conflicts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    used_quote_chars: int = 0
    max_quote_chars: int = 0

    @property
    def packet_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.packet)


def check_budget(max_quote_chars: object) -> int:
    # bool is an int subclass; True as a budget is a bug, not a 1.
    if isinstance(max_quote_chars, bool) or not isinstance(max_quote_chars, int):
        raise TypeError(f"max_quote_chars must be an int, got {type(max_quote_chars).__name__} {max_quote_chars!r}")
    if max_quote_chars < 0:
        raise ValueError(f"max_quote_chars must be >= 0, got {max_quote_chars}")
    return max_quote_chars


def check_passages(candidates: object) -> tuple[Passage, ...]:
    return sequence_of(candidates, Passage, "candidates")


def collapse_repeated_ids(passages: tuple[Passage, ...]) -> tuple[Passage, ...]:
    """Step 1: keep the first-ranked copy of each id; refuse two different passages under one id."""
    first_by_id: dict[str, Passage] = {}
    kept = []
    for passage in passages:
        earlier = first_by_id.get(passage.id)
        if earlier is None:
            first_by_id[passage.id] = passage
            kept.append(passage)
            continue
        for name in ("text", "source_id", "version", "title"):
            if getattr(earlier, name) != getattr(passage, name):
                raise ValueError(
                    f"id {passage.id!r} appears twice with a different {name}: "
                    f"{getattr(earlier, name)!r} vs {getattr(passage, name)!r}"
                )
    return tuple(kept)


def version_conflicts(passages: tuple[Passage, ...]) -> dict[str, tuple[str, ...]]:
    """Step 2: sources that appear with more than one version label, labels in first-seen order."""
    labels: dict[str, list[str]] = {}
    for passage in passages:
        seen = labels.setdefault(passage.source_id, [])
        if passage.version not in seen:
            seen.append(passage.version)
    return {source: tuple(found) for source, found in labels.items() if len(found) > 1}


def fill_quote_budget(candidates, max_quote_chars: int) -> ContextRecord:
    """Step 4 alone: copy every whole passage that still fits, in rank order.

    A passage that does not fit is skipped (never cut) and the walk goes on, so a
    shorter passage further down may still enter.
    """
    passages = check_passages(candidates)
    budget = check_budget(max_quote_chars)
    packet, skipped, used = [], [], 0
    for passage in passages:
        if used + len(passage.text) <= budget:
            packet.append(passage)
            used += len(passage.text)
        else:
            skipped.append(passage.id)
    return ContextRecord(tuple(packet), tuple(skipped), (), {}, used, budget)


def select_context(candidates, max_quote_chars: int) -> ContextRecord:
    """Select whole passages for the packet. The selector is never given labels."""
    passages = collapse_repeated_ids(check_passages(candidates))
    budget = check_budget(max_quote_chars)
    conflicts = version_conflicts(passages)
    seen_text: set[str] = set()
    duplicates, eligible = [], []
    for passage in passages:
        if passage.source_id in conflicts:
            continue
        if passage.text in seen_text:
            duplicates.append(passage.id)
            continue
        seen_text.add(passage.text)
        eligible.append(passage)
    walked = fill_quote_budget(eligible, budget)
    return ContextRecord(walked.packet, walked.budget_skipped_ids, tuple(duplicates),
                         conflicts, walked.used_quote_chars, budget)


def _id_list(ids: object, name: str) -> list[str]:
    if isinstance(ids, (str, bytes)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"{name} must be a collection of ids, got {type(ids).__name__} {ids!r}")
    found = list(ids)
    for item in found:
        if not isinstance(item, str):
            raise TypeError(f"{name} must hold str ids, got {type(item).__name__} {item!r}")
    return found


def coverage_counts(packet_ids, relevant_ids) -> tuple[int, int]:
    """(found, needed): how many relevant ids reached the packet, out of how many."""
    packet = set(_id_list(packet_ids, "packet_ids"))
    relevant = set(_id_list(relevant_ids, "relevant_ids"))
    if not relevant:
        raise ValueError("relevant_ids must not be empty: coverage of nothing is undefined")
    return len(packet & relevant), len(relevant)


def recall_counts(ranked_ids, relevant_ids, k: int) -> tuple[int, int]:
    """(found, needed): how many relevant ids the first k ranked ids hold, out of how many."""
    ranked = _id_list(ranked_ids, "ranked_ids")
    relevant = set(_id_list(relevant_ids, "relevant_ids"))
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an int, got {type(k).__name__} {k!r}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if not relevant:
        raise ValueError("relevant_ids must not be empty: recall of nothing is undefined")
    return len(set(ranked[:k]) & relevant), len(relevant)


def packet_coverage(packet_ids, relevant_ids) -> Fraction:
    """Share of the relevant ids that reached the packet, as an exact fraction."""
    from fractions import Fraction
    return Fraction(*coverage_counts(packet_ids, relevant_ids))


def recall_at_k(ranked_ids, relevant_ids, k: int) -> Fraction:
    """Share of the relevant ids found among the first k ranked ids."""
    from fractions import Fraction
    return Fraction(*recall_counts(ranked_ids, relevant_ids, k))


# ---------------------------------------------------------------- the fixture

QUESTION = "When does the help desk open, and where can books be returned when it is closed?"

# The retriever's ranking, best first. `hours-v1` (superseded) is not a candidate.
CANDIDATES = (
    Passage("returns-v1", "returns-policy", "1", "Returning books",
            "When the help desk is closed, return books to the drop box beside the north entrance of the library."),
    Passage("hours-v2", "help-desk-hours", "2", "Help desk hours",
            "The help desk opens at 8:30 on weekdays and at 10:00 on Saturdays; it is closed on Sundays."),
    Passage("returns-faq", "faq", "3", "FAQ: returns",
            "When the help desk is closed, return books to the drop box beside the north entrance of the library."),
    Passage("wifi-v1", "wifi-guide", "1", "Guest Wi-Fi", "Guest Wi-Fi needs no password."),
    Passage("printing-v1", "printing-prices", "1", "Printing", "Printing costs 10 cents a page."),
    Passage("printing-v2", "printing-prices", "2", "Printing", "Printing costs 15 cents a page."),
    Passage("parking-v1", "parking-rules", "1", "Visitor parking",
            "Visitor parking is free for the first two hours with a validated ticket from the help desk; "
            "after that the city rate applies, and overnight parking is not allowed in the library lot."),
    Passage("card-v1", "library-cards", "1", "Library cards", "Replacement library cards cost 2 euros."),
)

# Evaluation label: which passages the answer needs. Kept apart; never passed to a selector.
RELEVANT_IDS = ("hours-v2", "returns-v1")

DEFAULT_BUDGETS = (80, 120, 400)


# ---------------------------------------------------------------- the trace

def _share(found: int, needed: int) -> str:
    """The reduced fraction as Fraction prints it ("1/2", "1", "0"), without importing fractions."""
    from math import gcd
    divisor = gcd(found, needed) or 1
    return str(found // divisor) if needed // divisor == 1 else f"{found // divisor}/{needed // divisor}"


def _steps(candidates: tuple[Passage, ...], record: ContextRecord) -> list[dict]:
    chosen = set(record.packet_ids)
    skipped, duplicates = set(record.budget_skipped_ids), set(record.duplicate_text_ids)
    steps, running = [], 0
    for rank, passage in enumerate(candidates, start=1):
        if passage.id in chosen:
            running += len(passage.text)
            decision = "selected"
        elif passage.source_id in record.conflicts:
            decision = "blocked: version conflict"
        elif passage.id in duplicates:
            decision = "skipped: duplicate text"
        elif passage.id in skipped:
            decision = "skipped: budget"
        else:  # pragma: no cover - select_context accounts for every candidate
            raise AssertionError(f"no decision recorded for {passage.id!r}")
        steps.append({"rank": rank, "id": passage.id, "chars": len(passage.text),
                      "decision": decision, "running_total": running})
    return steps


def trace(budgets=DEFAULT_BUDGETS) -> dict:
    """Run the lesson's question through each budget; return a JSON-ready record."""
    budgets = tuple(budgets)
    if not budgets:
        raise ValueError("budgets must name at least one max_quote_chars value")
    for budget in budgets:
        check_budget(budget)
    ranked_ids = [p.id for p in CANDIDATES]
    needed = len(RELEVANT_IDS)
    recall = recall_counts(ranked_ids, RELEVANT_IDS, needed)
    runs = []
    for budget in budgets:
        record = select_context(CANDIDATES, budget)
        found, _ = coverage_counts(record.packet_ids, RELEVANT_IDS)
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
            "conflicts": {source: list(labels) for source, labels in record.conflicts.items()},
            "steps": _steps(CANDIDATES, record),
        })
    return {
        "lesson": "context",
        "question": QUESTION,
        "unit": "max_quote_chars = sum of len() over quote text only (no ids, titles, JSON or question)",
        "candidates": [{"rank": rank, "id": p.id, "source_id": p.source_id, "version": p.version,
                        "chars": len(p.text)} for rank, p in enumerate(CANDIDATES, start=1)],
        "labels": {"relevant_ids": sorted(RELEVANT_IDS),
                   "note": "for evaluation only: the selector never receives them"},
        "runs": runs,
    }


def view(record: dict) -> list[dict]:
    """Turn the trace record into printable blocks (headings, text, tables)."""
    needed = len(record["labels"]["relevant_ids"])
    recall_key = f"recall_at_{needed}"
    blocks = [
        {"heading": "Lesson 01 - context: retrieval succeeded, the packet failed"},
        {"text": f"Question: {record['question']}"},
        {"text": f"Unit: {record['unit']}."},
        {"table": {"title": "Candidates, as the retriever ranked them",
                   "columns": ["rank", "id", "source", "version", "chars"],
                   "rows": [[c["rank"], c["id"], c["source_id"], c["version"], c["chars"]]
                            for c in record["candidates"]]}},
        {"text": "Labels, for evaluation only (the selector never sees them): "
                 + ", ".join(record["labels"]["relevant_ids"])},
        {"table": {"title": "Summary: the ranking is fixed, only the budget changes",
                   "columns": ["max_quote_chars", f"recall@{needed}", "coverage", "used", "packet"],
                   "rows": [[run["max_quote_chars"], run[recall_key], run["coverage"],
                             run["used_quote_chars"], ", ".join(run["packet_ids"]) or "(empty)"]
                            for run in record["runs"]]}},
    ]
    for run in record["runs"]:
        blocks.append({"table": {
            "title": f"max_quote_chars = {run['max_quote_chars']}: coverage {run['coverage']}, "
                     f"recall@{needed} {run[recall_key]}",
            "columns": ["rank", "id", "chars", "decision", "running total"],
            "rows": [[s["rank"], s["id"], s["chars"], s["decision"], s["running_total"]]
                     for s in run["steps"]]}})
    blocks.append({"text": "A skipped passage is never cut to fit: a truncated quote can say what "
                           "its source did not. The walk goes on after a skip, so a shorter passage "
                           "further down may still enter."})
    return blocks
