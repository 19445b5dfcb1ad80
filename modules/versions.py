"""Lesson 04, versions: surface ambiguity instead of guessing freshness.

A record whose status was never updated leaves two *current* versions of the
help-desk hours in the collection. The current/public filter admits both, and
lesson 01's selector blocks the whole source rather than guess: the packet loses
the hours, and coverage shows what being conservative costs.

Guessing would be worse. Version labels are labels, not numbers: they may be
dates, release names or arbitrary ids; lexically "10" < "9", and even a larger
integer only says someone typed a larger integer, not that it was approved. What
can pick a winner is a rule declared outside the records (a supersedes map), or a
hard filter that removes what is not valid on an explicit as-of date. Without such
a rule the honest outcome is to present both records and abstain, then send the
sources to content review: the fix belongs in the data's governance, not in a
relaxed filter.

Dates are ISO `YYYY-MM-DD` strings; `valid_until` is inclusive (the last day the
record applies) and None means open-ended. Known limit: the rule only compares
version labels within one source, so it cannot see two different sources that
disagree, nor two passages carrying the same wrong label.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.context import CANDIDATES, RELEVANT_IDS, Passage, coverage_counts, select_context

__all__ = [
    "Record", "check_day", "current_public", "valid_on", "multi_version_sources",
    "version_maxima", "parse_amount", "resolve_or_abstain", "AS_OF", "trace", "view",
]

STATUSES = ("current", "superseded")
AUDIENCES = ("public", "staff")


def check_day(value: object, name: str) -> str:
    """An ISO calendar day 'YYYY-MM-DD'; ISO days compare correctly as strings."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be an ISO date str 'YYYY-MM-DD', got {type(value).__name__} {value!r}")
    parts = value.split("-")
    if len(value) != 10 or len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        raise ValueError(f"{name} must be an ISO date 'YYYY-MM-DD', got {value!r}")
    year, month, day = (int(p) for p in parts)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not 1 <= month <= 12 or not 1 <= day <= days[month - 1]:
        raise ValueError(f"{name} is not a calendar day, got {value!r}")
    return value


@dataclass(frozen=True)
class Record:
    """A passage as the collection stores it: provenance plus status, audience and validity."""

    id: str
    source_id: str
    version: str
    title: str
    text: str
    status: str = "current"
    audience: str = "public"
    valid_from: str = "2026-01-01"
    valid_until: str | None = None  # inclusive; None = no end

    def __post_init__(self) -> None:
        self.as_passage()  # same field checks as lesson 01's Passage
        if self.status not in STATUSES:  # unknown status fails closed
            raise ValueError(f"Record.status must be one of {STATUSES}, got {self.status!r}")
        if self.audience not in AUDIENCES:
            raise ValueError(f"Record.audience must be one of {AUDIENCES}, got {self.audience!r}")
        check_day(self.valid_from, "Record.valid_from")
        if self.valid_until is not None:
            check_day(self.valid_until, "Record.valid_until")
            if self.valid_until < self.valid_from:
                raise ValueError(f"Record.valid_until {self.valid_until!r} is before valid_from {self.valid_from!r}")

    def as_passage(self) -> Passage:
        return Passage(self.id, self.source_id, self.version, self.title, self.text)


def _records(records: object) -> tuple[Record, ...]:
    if isinstance(records, (str, bytes)) or not hasattr(records, "__iter__"):
        raise TypeError(f"records must be a sequence of Record, got {type(records).__name__}")
    found = tuple(records)
    for i, record in enumerate(found):
        if not isinstance(record, Record):
            raise TypeError(f"records[{i}] must be a Record, got {type(record).__name__} {record!r}")
    return found


def current_public(records) -> tuple[Record, ...]:
    """The hard filter of lessons 01-03: status current and audience public, rank order kept."""
    return tuple(r for r in _records(records) if r.status == "current" and r.audience == "public")


def valid_on(records, as_of: str) -> tuple[Record, ...]:
    """Records whose validity window holds `as_of`: valid_from <= as_of <= valid_until (inclusive)."""
    day = check_day(as_of, "as_of")
    return tuple(r for r in _records(records)
                 if r.valid_from <= day and (r.valid_until is None or day <= r.valid_until))


def multi_version_sources(passages) -> dict[str, tuple[str, ...]]:
    """Sources seen with more than one distinct version label, labels in first-seen order."""
    labels: dict[str, dict[str, None]] = {}  # a dict keeps first-seen order and finds repeats in O(1)
    for i, item in enumerate(passages):
        if not isinstance(getattr(item, "source_id", None), str) or not isinstance(getattr(item, "version", None), str):
            raise TypeError(f"passages[{i}] needs str source_id and version, got {item!r}")
        labels.setdefault(item.source_id, {})[item.version] = None
    return {source: tuple(found) for source, found in labels.items() if len(found) > 1}


def version_maxima(labels) -> dict:
    """What 'take the largest version' would pick: by string order, and by integer value if all are integers."""
    labels = tuple(labels)
    if not all(isinstance(label, str) for label in labels):
        raise TypeError(f"labels must be strs, got {labels!r}")
    if not labels or not all(labels):
        raise ValueError(f"labels must be non-empty strs, got {labels!r}")
    numeric = max(labels, key=int) if all(label.isdigit() for label in labels) else None
    return {"lexical": max(labels), "numeric": numeric}


def parse_amount(text: str) -> tuple[int, str]:
    """The first whole number in `text` and the word after it: (500, 'crowns')."""
    words = text.replace(",", " ").replace(".", " ").split()
    for i, word in enumerate(words[:-1]):
        if word.isdigit():
            return int(word), words[i + 1]
    raise ValueError(f"text holds no amount followed by a unit: {text!r}")


def resolve_or_abstain(records, supersedes: dict) -> dict:
    """Pick one record only if the declared supersedes map leaves exactly one standing.

    Returns {"decision": "selected" | "abstain-and-review", "selected_id", "presented_ids", "reason"}.
    `supersedes` maps a record id to the ids it replaces. A link counts only when the
    replacing record is itself present. Scores, version labels and amounts are never
    consulted: none of them says which record was approved.
    """
    found = _records(records)
    if not isinstance(supersedes, dict):
        raise TypeError(f"supersedes must be a dict of id -> ids, got {type(supersedes).__name__}")
    for new, olds in supersedes.items():
        if isinstance(olds, str) or not isinstance(olds, (tuple, list, frozenset, set)):
            raise TypeError(f"supersedes[{new!r}] must be a collection of ids, got {olds!r}")
        if new in olds:
            raise ValueError(f"supersedes[{new!r}] names the record itself")
    present = [r.id for r in found]
    here = set(present)
    replaced = {old for new, olds in supersedes.items() if new in here for old in olds}
    standing = [i for i in present if i not in replaced]
    if len(standing) == 1:
        return {"decision": "selected", "selected_id": standing[0], "presented_ids": standing,
                "reason": f"declared rule: {standing[0]} supersedes the others"}
    return {"decision": "abstain-and-review", "selected_id": None, "presented_ids": standing or present,
            "reason": "no declared rule leaves exactly one record: present all, conclude nothing, send to review"}


# ---------------------------------------------------------------- the fixture

AS_OF = "2026-07-01"

def _record(p: Passage) -> Record:
    return Record(p.id, p.source_id, p.version, p.title, p.text)


HOURS_V1 = Record("hours-v1", "help-desk-hours", "1", "Help desk hours",
                  "The help desk opens at 9:00 on weekdays and at 11:00 on Saturdays; it is closed on Sundays.")

# The retriever's ranking over the collection. hours-v1 should have been marked superseded.
COLLECTION = (
    _record(CANDIDATES[0]),
    _record(CANDIDATES[1]),
    HOURS_V1,
    Record("staff-rota", "staff-rota", "7", "Desk rota", "Ana covers the help desk on Saturdays.", audience="staff"),
    *(_record(p) for p in CANDIDATES[2:]),
)

TRAP_CASES = (  # labels of one source, and the record the editors' register approved
    ("integers", ("9", "10"), "9", "10 is a draft number an editor reserved; it was never approved"),
    ("dates", ("2026-03-01", "2026-02-15"), "2026-02-15", "the later date is a proposal written ahead of its vote"),
    ("release names", ("oak", "birch"), "birch", "names carry no order at all"),
)

LIMIT_CASES = (
    ("two sources disagree", (CANDIDATES[1], Passage(
        "leaflet-v1", "welcome-leaflet", "1", "Welcome leaflet",
        "Welcome! The help desk opens at 9:00 on weekdays."))),
    ("one wrong label reused", (CANDIDATES[1], Passage(
        "hours-draft", "help-desk-hours", "2", "Help desk hours",
        "The help desk opens at 7:30 on weekdays and at 10:00 on Saturdays."))),
)

LATE_FEES = (  # ranked: the expired rule scores highest
    Record("late-fee-2025", "late-fees", "2025", "Late laptop fee", "A laptop returned late costs 5 euros per day.",
           valid_from="2025-01-01", valid_until="2026-06-30"),
    Record("late-fee-2026", "late-fees", "2026", "Late laptop fee", "A laptop returned late costs 8 euros per day.",
           valid_from="2026-07-01"),
)

DEPOSITS = (  # two current sources about the same deposit
    Record("deposit-rules", "room-booking-rules", "3", "Study room key deposit",
           "The key deposit for a study room is 500 crowns, refunded when the key is returned."),
    Record("deposit-notice", "facilities-notices", "2026-05", "Study room key deposit",
           "Study room keys: the key deposit is now 600 crowns, refunded when the key is returned.", valid_from="2026-05-01"),
)
DEPOSIT_SCORES = {"deposit-rules": 0.91, "deposit-notice": 0.84}  # reranker relevance, not authority
SUPERSEDES = {"deposit-notice": ("deposit-rules",)}


# ---------------------------------------------------------------- the trace

def _ids(items) -> list[str]:
    return [item.id for item in items]


def _run(passages, budget: int) -> dict:
    chosen = select_context(passages, budget)
    found, needed = coverage_counts(chosen.packet_ids, RELEVANT_IDS)
    return {"max_quote_chars": budget, "packet_ids": list(chosen.packet_ids), "coverage": f"{found}/{needed}",
            "conflicts": {source: list(labels) for source, labels in chosen.conflicts.items()}}


def trace(as_of: str = AS_OF) -> dict:
    """The lesson's five cases as one JSON-ready record."""
    check_day(as_of, "as_of")
    kept = current_public(COLLECTION)
    passages = [r.as_passage() for r in kept]
    runs = []
    for budget in (120, 400):
        run = _run(passages, budget)
        run["lesson_01_coverage"] = _run(CANDIDATES, budget)["coverage"]
        run["blocked"] = [f"{s} ({', '.join(v)})" for s, v in run["conflicts"].items()]
        runs.append(run)
    trap = [{"case": case, "labels": " vs ".join(labels), **version_maxima(labels), "approved": approved,
             "why_not": why, "policy": "blocked: version conflict"} for case, labels, approved, why in TRAP_CASES]
    limits = [{"case": case, "ids": _ids(pair), "sources": [p.source_id for p in pair],
               "versions": [p.version for p in pair], "flagged": bool(select_context(pair, 400).conflicts),
               "packet_ids": list(select_context(pair, 400).packet_ids)} for case, pair in LIMIT_CASES]
    validity = []
    for day in ["2026-06-30", "2026-07-01"] + ([as_of] if as_of not in ("2026-06-30", "2026-07-01") else []) + [""]:
        survivors = valid_on(LATE_FEES, day) if day else LATE_FEES
        chosen = select_context([r.as_passage() for r in survivors], 400)
        validity.append({"as_of": day or "(no filter)", "kept": _ids(survivors),
                         "removed": [f"{r.id} (not yet valid: from {r.valid_from})" if day < r.valid_from
                                     else f"{r.id} (expired: last day {r.valid_until})"
                                     for r in LATE_FEES if r not in survivors],
                         "packet_ids": list(chosen.packet_ids), "conflicts": sorted(chosen.conflicts)})
    amounts = [dict(zip(("amount", "unit"), parse_amount(r.text)), id=r.id, source_id=r.source_id, title=r.title,
                    valid_from=r.valid_from, score=DEPOSIT_SCORES[r.id]) for r in DEPOSITS]
    outcomes = [dict(resolve_or_abstain(DEPOSITS, links), rule=rule, supersedes={k: list(v) for k, v in links.items()})
                for rule, links in (("with the declared supersedes map", SUPERSEDES), ("without a declared rule", {}))]
    return {
        "lesson": "versions",
        "as_of": as_of,
        "dates": "ISO YYYY-MM-DD; valid_until is inclusive (the last day a record applies)",
        "hours_conflict": {"kept": _ids(kept), "removed": [f"{r.id} ({r.status}/{r.audience})"
                                                           for r in COLLECTION if r not in kept],
                           "multi_version_sources": {s: list(v) for s, v in multi_version_sources(passages).items()},
                           "runs": runs},
        "largest_version_trap": trap,
        "known_limits": limits,
        "validity": validity,
        "amount_conflict": {"records": amounts, "outcomes": outcomes,
                            "highest_score_would_pick": max(DEPOSIT_SCORES, key=DEPOSIT_SCORES.get)},
        "next_step": "a flagged conflict goes to review of the sources; never edit the data or relax a filter to pass",
    }


def _table(title: str, items: list, keys: str) -> dict:
    # keys: "key=header key ..."; list cells are joined, empty ones shown as "-".
    pairs = [key.partition("=")[::2] for key in keys.split()]
    rows = [[(", ".join(item[k]) or "-") if isinstance(item[k], list) else item[k] for k, _ in pairs] for item in items]
    return {"table": {"title": title, "columns": [h.replace("_", " ") or k for k, h in pairs], "rows": rows}}


def view(record: dict) -> list[dict]:
    hours, conflict = record["hours_conflict"], record["amount_conflict"]
    labels = "; ".join(f"{s}: {', '.join(v)}" for s, v in hours["multi_version_sources"].items())
    return [
        {"heading": "Lesson 04 - versions: surface ambiguity instead of guessing freshness"},
        {"text": f"Two records of help-desk-hours are both marked current. The current/public filter keeps "
                 f"{', '.join(hours['kept'])} and removes {', '.join(hours['removed'])}.\n"
                 f"Sources with more than one version label: {labels}."},
        _table("Lesson 01's question, with the stale record left current", hours["runs"],
               "max_quote_chars packet_ids=packet blocked=blocked_(labels) coverage lesson_01_coverage=lesson_01"),
        {"text": "Blocking both versions costs the hours passage even at 400 characters. That is the "
                 "price of not guessing; the remedy is to review the sources, not to relax the rule."},
        _table("The largest-version trap: what a maximum would pick, and what was approved",
               record["largest_version_trap"],
               "labels lexical=lexical_max numeric=numeric_max approved why_not=why_a_maximum_proves_nothing"),
        _table("Known limit: contradictions the rule cannot see", record["known_limits"],
               "case ids versions flagged packet_ids=packet"),
        _table(f"Validity before ranking ({record['dates']})", record["validity"],
               "as_of removed=removed_before_ranking packet_ids=packet conflicts=blocked_sources"),
        _table("Two current sources, two amounts (parsed, same unit, same scope)", conflict["records"],
               "id source_id=source amount unit valid_from score"),
        _table("Resolve only by a declared rule, otherwise abstain", conflict["outcomes"],
               "rule decision selected_id=selected presented_ids=presented"),
        {"text": f"The highest score would pick {conflict['highest_score_would_pick']}: the record the "
                 "declared rule says was replaced. A score measures relevance to the question, not which "
                 f"record is in force. Next step: {record['next_step']}."},
    ]
