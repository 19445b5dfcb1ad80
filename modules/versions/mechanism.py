"""Lesson 04, versions: surface ambiguity instead of guessing freshness.

A record whose status was never updated leaves two *current* versions of the help-desk
hours. The current/public filter admits both, and lesson 01's selector blocks the whole
source rather than guess: the packet loses the hours, and coverage shows the cost.

Guessing would be worse: version labels may be dates, names or ids; lexically "10" < "9";
a larger integer only says someone typed one. A winner may be picked only by a rule
declared outside the records, tried in a fixed order (RESOLUTION_CHECKS): is there a
conflict at all (each amount read, one unit, one scope), then what may establish
priority (declared authority, a declared publication-time rule, validity on an explicit
as-of date, a declared supersedes map). The first check that decides is recorded; when
none does, present both, abstain, and send the sources to content review.

Dates are ISO `YYYY-MM-DD`; `valid_until` is inclusive and None is open-ended. One reader
(`stated_amounts`, lesson 11 uses it too) reads amounts in ASCII digits beside a currency
(600 euros, EUR 600, €600, 1,600 euros); one it cannot read is unreadable, never guessed.
Known limit: the version rule compares labels within one source, so it cannot see two
sources that disagree, nor two passages carrying the same wrong label. The trace and its
tables are in modules/versions/trace.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from modules.common.checks import sequence_of, short, text_of
from modules.context.mechanism import Passage
from modules.helpdesk import entry

__all__ = [
    "Record", "Amount", "check_day", "check_window", "in_window", "current_public", "valid_on",
    "multi_version_sources", "version_maxima", "stated_amounts", "parse_amount", "resolve_or_abstain",
    "RESOLUTION_CHECKS", "resolve_in_order", "AS_OF",
]

STATUSES = ("current", "superseded")
AUDIENCES = ("public", "staff")


def check_day(value: object, name: str) -> str:
    """An ISO calendar day 'YYYY-MM-DD'; ISO days compare correctly as strings."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be an ISO date str 'YYYY-MM-DD', got {type(value).__name__} {short(value)}")
    parts = value.split("-")
    if len(value) != 10 or len(parts) != 3 or not all(p.isascii() and p.isdigit() for p in parts):
        raise ValueError(f"{name} must be an ISO date 'YYYY-MM-DD', got {short(value)}")
    year, month, day = (int(p) for p in parts)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not 1 <= month <= 12 or not 1 <= day <= days[month - 1]:
        raise ValueError(f"{name} is not a calendar day, got {value!r}")
    return value


def check_window(valid_from: str | None, valid_until: str | None, owner: str) -> None:
    """The one validity check of the course: both ends ISO days or None (open), and the
    window not ending before it starts. `owner` names the record type in messages."""
    if valid_from is not None:
        check_day(valid_from, f"{owner}.valid_from")
    if valid_until is not None:
        check_day(valid_until, f"{owner}.valid_until")
        if valid_from is not None and valid_until < valid_from:
            raise ValueError(f"{owner}.valid_until {valid_until!r} is before valid_from {valid_from!r}")


def in_window(day: str, valid_from: str | None, valid_until: str | None) -> bool:
    """valid_from <= day <= valid_until, both ends inclusive; None is an open end."""
    return (valid_from is None or valid_from <= day) and (valid_until is None or day <= valid_until)


@dataclass(frozen=True)
class Record:
    """A passage as the collection stores it: provenance, status, audience, validity (valid_until
    is the inclusive last day, None = no end), `scope` (what it is about, "" = not stated) and
    `published`. Build a changed copy with dataclasses.replace(record, ...): it is checked
    like a new value."""

    id: str
    source_id: str
    version: str
    title: str
    text: str
    status: str = "current"
    audience: str = "public"
    valid_from: str = "2026-01-01"
    valid_until: str | None = None
    scope: str = ""
    published: str | None = None

    def __post_init__(self) -> None:
        self.as_passage()  # same field checks as lesson 01's Passage
        if self.status not in STATUSES:  # unknown status fails closed
            raise ValueError(f"Record.status must be one of {STATUSES}, got {short(self.status)}")
        if self.audience not in AUDIENCES:
            raise ValueError(f"Record.audience must be one of {AUDIENCES}, got {short(self.audience)}")
        check_day(self.valid_from, "Record.valid_from")
        check_window(self.valid_from, self.valid_until, "Record")
        text_of(self.scope, "Record.scope")
        if self.published is not None:
            check_day(self.published, "Record.published")

    def as_passage(self) -> Passage:
        """The record as lesson 01's Passage (which also checks the shared fields)."""
        return Passage(id=self.id, source_id=self.source_id, version=self.version, title=self.title, text=self.text)


def _records(records: object) -> tuple[Record, ...]:
    return sequence_of(records, Record, "records")


def current_public(records) -> tuple[Record, ...]:
    """The hard filter of lessons 01-03: status current and audience public, rank order kept."""
    return tuple(r for r in _records(records) if r.status == "current" and r.audience == "public")


def valid_on(records, as_of: str) -> tuple[Record, ...]:
    """Records whose validity window holds `as_of`: valid_from <= as_of <= valid_until (inclusive)."""
    day = check_day(as_of, "as_of")
    return tuple(r for r in _records(records) if in_window(day, r.valid_from, r.valid_until))


def multi_version_sources(passages) -> dict[str, tuple[str, ...]]:
    """Sources seen with more than one distinct version label, labels in first-seen order."""
    if isinstance(passages, (str, bytes, set, frozenset, dict)) or not hasattr(passages, "__iter__"):
        raise TypeError(f"passages must be a sequence of passages or records, got {type(passages).__name__}")
    labels: dict[str, dict[str, None]] = {}  # a dict keeps first-seen order and finds repeats in O(1)
    for i, item in enumerate(passages):
        if not isinstance(getattr(item, "source_id", None), str) or not isinstance(getattr(item, "version", None), str):
            raise TypeError(f"passages[{i}] needs str source_id and version, got {short(item)}")
        labels.setdefault(item.source_id, {})[item.version] = None
    return {source: tuple(found) for source, found in labels.items() if len(found) > 1}


def version_maxima(labels) -> dict:
    """What 'take the largest version' would pick: by string order, and by integer value if all
    are ASCII integers (equal integers such as '9' and '09' go to the larger string), so the
    answer never depends on the order the labels arrive in. It is still no proof of approval."""
    labels = sequence_of(labels, str, "labels")
    if not labels or not all(label.strip() for label in labels):
        raise ValueError(f"labels must be non-empty strs, got {short(labels, 60)}")
    numeric = None
    if all(label.isascii() and label.isdigit() for label in labels):
        numeric = max(labels, key=lambda label: (int(label), label))
    return {"lexical": max(labels), "numeric": numeric}


# ---------------------------------------------------------------- reading amounts

@dataclass(frozen=True)
class Amount:
    """value: a whole number, or None when the text states an amount the reader cannot read;
    unit: "euros" or "crowns"; written: the amount as the text writes it."""

    value: int | None
    unit: str
    written: str


_CURRENCIES = {"€": "euros", "eur": "euros", "euro": "euros", "euros": "euros", "crown": "crowns", "crowns": "crowns"}
_NUMBER_WORDS = frozenset("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                          "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
                          "eighty ninety hundred thousand million".split())
# Tokens: a run of letters; a number with its sign and everything glued to it ("-500",
# "1e3", "0x1F4", "1,600"), so that no part of it is read as the whole; or any other mark.
TOKENS = re.compile(r"[^\W\d_]+|[-+\u2212]?\d(?:[\w,.]*\w)?|\S")
# The only amounts read: ASCII digits, optionally with thousands commas, at most 40 digits.
WHOLE = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+")
MAX_DIGITS = 40


def _looks_numeric(token: str) -> bool:
    return any(ch.isdigit() for ch in token) or token.casefold() in _NUMBER_WORDS


def stated_amounts(text: str) -> tuple[Amount, ...]:
    """Every amount the text states next to a currency, in order: 600 euros, EUR 600, €600,
    1,600 euros (1600). A number written in words or in other digits, with decimals, a
    sign, an exponent or a hex prefix ("-500", "1e3", "0x1F4"), or longer than 40 digits,
    is an amount all the same, with value None: unreadable, for review, never a guess."""
    text = text_of(text, "text")
    tokens = [(m.group(), m.start(), m.end()) for m in TOKENS.finditer(text)]
    found, used = [], set()
    for k, (token, _, _) in enumerate(tokens):
        unit = _CURRENCIES.get(token.casefold())
        if unit is None:
            continue
        for n in (k - 1, k + 1):  # the number before the currency, else after it
            if 0 <= n < len(tokens) and n not in used and _looks_numeric(tokens[n][0]):
                first = n
                while n < k and first > 0 and first - 1 not in used and _looks_numeric(tokens[first - 1][0]):
                    first -= 1  # "six hundred": a number in words runs back
                lo, hi = min(first, k), max(n, k)
                used.update(range(lo, hi + 1))
                number = tokens[n][0]
                readable = (first == n and number.isascii() and WHOLE.fullmatch(number) is not None
                            and len(number.replace(",", "")) <= MAX_DIGITS)
                value = int(tokens[n][0].replace(",", "")) if readable else None
                found.append(Amount(value=value, unit=unit, written=text[tokens[lo][1]:tokens[hi][2]]))
                break
    return tuple(found)


def parse_amount(text: str) -> tuple[int, str]:
    """The first amount the text states, as (value, unit): (500, 'crowns'). ValueError if the
    text states none, or if the first one cannot be read."""
    amounts = stated_amounts(text)
    if not amounts:
        raise ValueError(f"text holds no amount followed or preceded by a currency: {short(text, 60)}")
    if amounts[0].value is None:
        raise ValueError(f"text states an amount that cannot be read, for review: {short(amounts[0].written)} "
                         f"(amounts are read in ASCII digits, with optional thousands commas, at most "
                         f"{MAX_DIGITS} digits; no sign, exponent or prefix)")
    return amounts[0].value, amounts[0].unit


# ---------------------------------------------------------------- resolving two amounts

def _supersedes(supersedes: object) -> dict:
    if not isinstance(supersedes, dict):
        raise TypeError(f"supersedes must be a dict of id -> ids, got {type(supersedes).__name__}")
    for new, olds in supersedes.items():
        if isinstance(olds, str) or not isinstance(olds, (tuple, list, frozenset, set)):
            raise TypeError(f"supersedes[{new!r}] must be a collection of ids, got {short(olds)}")
        if new in olds:
            raise ValueError(f"supersedes[{new!r}] names the record itself")
    return supersedes


def resolve_or_abstain(records, supersedes: dict) -> dict:
    """Pick one record only if the declared supersedes map leaves exactly one standing.

    Returns {"decision": "selected" | "abstain-and-review", "selected_id", "presented_ids", "reason"}.
    `supersedes` maps a record id to the ids it replaces. A link counts only when the
    replacing record is itself present. Scores, version labels and amounts are never
    consulted: none of them says which record was approved.
    """
    found = _records(records)
    supersedes = _supersedes(supersedes)
    present = [r.id for r in found]
    here = set(present)
    replaced = {old for new, olds in supersedes.items() if new in here for old in olds}
    standing = [i for i in present if i not in replaced]
    if len(standing) == 1:
        return {"decision": "selected", "selected_id": standing[0], "presented_ids": standing,
                "reason": f"declared rule: {standing[0]} supersedes the others"}
    return {"decision": "abstain-and-review", "selected_id": None, "presented_ids": standing or present,
            "reason": "no declared rule leaves exactly one record: present all, conclude nothing, send to review"}


def _decide(result: str, decision: str | None, selected_id: str | None = None) -> dict:
    """One check's record; decision None means the check passes the question on."""
    return {"result": result, "decision": decision, "selected_id": selected_id}


def _go_on(result: str) -> dict:
    return _decide(result, None)


def _only(ids: list, result: str, otherwise: str) -> dict:
    return _decide(result, "selected", ids[0]) if len(ids) == 1 else _go_on(otherwise)


def check_parsing(records, ctx) -> dict:
    amounts = [stated_amounts(r.text) for r in records]
    bad = [r.id for r, a in zip(records, amounts) if not a or a[0].value is None]
    if bad:
        return _decide(f"cannot read an amount in {', '.join(bad)}", "abstain-and-review")
    ctx["amounts"] = [a[0] for a in amounts]
    return _go_on("; ".join(f"{r.id}: {a.value} {a.unit}" for r, a in zip(records, ctx["amounts"])))


def check_unit(records, ctx) -> dict:
    units = list(dict.fromkeys(a.unit for a in ctx["amounts"]))
    if len(units) > 1:
        return _decide(f"units differ ({', '.join(units)}); no declared rate", "abstain-and-review")
    if len({a.value for a in ctx["amounts"]}) == 1:
        return _decide(f"all state {ctx['amounts'][0].value} {units[0]}: they agree", "no-conflict")
    return _go_on(f"all in {units[0]}; the amounts differ")


def check_scope(records, ctx) -> dict:
    scopes = list(dict.fromkeys(r.scope for r in records))
    if "" in scopes:
        return _decide("a scope is not stated: same question unknown", "abstain-and-review")
    if len(scopes) > 1:
        return _decide(f"different scopes ({', '.join(scopes)}): each stands", "no-conflict")
    return _go_on(f"one scope: {scopes[0]}")


def check_authority(records, ctx) -> dict:
    order = ctx["precedence"]
    sources = list(dict.fromkeys(r.source_id for r in records))
    if not order or any(s not in order for s in sources):
        return _go_on("no declared precedence between these sources")
    top = min(sources, key=order.index)
    return _only([r.id for r in records if r.source_id == top], f"declared precedence puts {top} first",
                 f"declared precedence puts {top} first, with several records")


def check_publication(records, ctx) -> dict:
    dates = [r.published for r in records]
    if None in dates:
        return _go_on("a publication day is unknown")
    latest = max(dates)
    ids = [r.id for r in records if r.published == latest]
    if not ctx["later_publication_wins"]:
        return _go_on(f"latest: {', '.join(ids)} ({latest}); no rule says it wins")
    return _only(ids, f"declared: the latest wins ({latest})", f"several published on {latest}")


def check_validity(records, ctx) -> dict:
    ids = [r.id for r in valid_on(records, ctx["as_of"])]
    if not ids:
        return _decide(f"none is valid on {ctx['as_of']}", "abstain-and-review")
    return _only(ids, f"only {ids[0]} is valid on {ctx['as_of']}", f"all valid on {ctx['as_of']}"
                 if len(ids) == len(records) else f"{len(ids)} valid on {ctx['as_of']}")


def check_supersedes(records, ctx) -> dict:
    outcome = resolve_or_abstain(records, ctx["supersedes"])
    if outcome["decision"] == "selected":
        return _decide(f"declared: {outcome['selected_id']} supersedes the others", "selected",
                       outcome["selected_id"])
    return _go_on("no declared link leaves one record")


RESOLUTION_CHECKS = (("parsing", check_parsing), ("unit", check_unit), ("scope", check_scope),
                     ("authority", check_authority), ("publication time", check_publication),
                     ("validity", check_validity), ("supersedes", check_supersedes))


def resolve_in_order(records, as_of: str, supersedes: dict | None = None, precedence=(),
                     later_publication_wins: bool = False) -> dict:
    """Run RESOLUTION_CHECKS in order on records that may state conflicting amounts; the
    first check that decides ends the run. Returns {"checks": [{"check", "result",
    "decision", "selected_id"}, ...] for every check run, "decided_by": the deciding
    check or None, "decision": "selected" | "no-conflict" | "abstain-and-review",
    "selected_id", "presented_ids"}. Scores never take part; only declared rules select."""
    found = _records(records)
    if len(found) < 2:
        raise ValueError(f"records must hold at least two records to resolve, got {len(found)}")
    ctx = {"as_of": check_day(as_of, "as_of"), "supersedes": _supersedes({} if supersedes is None else supersedes),
           "precedence": sequence_of(precedence, str, "precedence")}
    if not isinstance(later_publication_wins, bool):
        raise TypeError(f"later_publication_wins must be a bool, got {short(later_publication_wins)}")
    ctx["later_publication_wins"] = later_publication_wins
    checks = []
    for name, check in RESOLUTION_CHECKS:
        checks.append(dict(check=name, **check(found, ctx)))
        if checks[-1]["decision"] is not None:
            chosen = checks[-1]["selected_id"]
            return {"checks": checks, "decided_by": name, "decision": checks[-1]["decision"], "selected_id": chosen,
                    "presented_ids": [chosen] if chosen else [r.id for r in found]}
    return {"checks": checks, "decided_by": None, "decision": "abstain-and-review", "selected_id": None,
            "presented_ids": [r.id for r in found]}


# ---------------------------------------------------------------- the fixture

AS_OF = "2026-07-01"


def from_helpdesk(entry_id: str, **fields) -> Record:
    """A help-desk record (modules/helpdesk) as this lesson's Record, with its status,
    audience and validity given here."""
    found = entry(entry_id)
    return Record(id=found.id, source_id=found.source_id, version=found.version, title=found.title, text=found.text,
                  **fields)


HOURS_V1 = from_helpdesk("hours-v1")   # the editors superseded it by hours-v2; nobody updated its status
# The retriever's ranking over the collection: lesson 01's ranking with hours-v1 third.
COLLECTION = tuple(from_helpdesk(i, audience="staff") if i == "staff-rota" else from_helpdesk(i)
                   for i in ("returns-v1", "hours-v2", "hours-v1", "staff-rota", "returns-faq", "wifi-v1",
                             "printing-v1", "printing-v2", "parking-v1", "card-v1"))
LATE_FEES = (  # ranked: the expired rule scores highest
    Record(id="late-fee-2025", source_id="late-fees", version="2025", title="Late laptop fee",
           text="A laptop returned late costs 5 euros per day.", valid_from="2025-01-01", valid_until="2026-06-30"),
    Record(id="late-fee-2026", source_id="late-fees", version="2026", title="Late laptop fee",
           text="A laptop returned late costs 8 euros per day.", valid_from="2026-07-01"),
)
DEPOSIT_SCOPE = "study room key deposit"
DEPOSITS = (  # two current sources about the same deposit
    Record(id="deposit-rules", source_id="room-booking-rules", version="3", title="Study room key deposit",
           text="The key deposit for a study room is 500 crowns, refunded when the key is returned.",
           scope=DEPOSIT_SCOPE, published="2025-12-10"),
    Record(id="deposit-notice", source_id="facilities-notices", version="2026-05", title="Study room key deposit",
           text="Study room keys: the key deposit is now 600 crowns, refunded when the key is returned.",
           valid_from="2026-05-01", scope=DEPOSIT_SCOPE, published="2026-04-20"),
)
DEPOSIT_SCORES = {"deposit-rules": 0.91, "deposit-notice": 0.84}  # reranker relevance, not authority
SUPERSEDES = {"deposit-notice": ("deposit-rules",)}
