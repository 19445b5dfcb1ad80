"""The assisted-use policy of the parts catalogue: one version id, its clauses, the evidence
states, per-field freshness, and the gate every candidate passes before it is ranked.

Lesson 08 teaches this policy; it lives with the catalogue's fixture, in the world's own
folder, because lesson 07's rank fusion already runs after the gate and lesson 08 builds
on lesson 07 (a lesson never imports a later one): both import it from here.

The stages defined here (see modules/common/pipeline.py):

    source      the index the channels search: one record per listing id; every copy's
                permission is kept, so two copies that disagree are caught at the gate
    query-scope stops a query before retrieval when it asks for a prohibited family (P1)
                or when its transformation failed (P5): nothing is retrieved for it
    gate        per proposed candidate, before ranking: permission (only "allowed"
                passes, unknown or missing fails closed, an id whose copies disagree
                fails closed), scope (prohibited family) and freshness per field against
                the run's explicit as-of date: a stale required field withholds the
                listing, a stale optional field is only left out of the packet
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Mapping
from types import MappingProxyType

from modules.catalogue import PROHIBITED_FAMILIES, Listing, opaque_ref
from modules.common.checks import sequence_of, short
from modules.common.pipeline import Halt, Stage

__all__ = [
    "POLICY_VERSION", "CLAUSES", "STATES", "NEXT_ACTIONS", "FRESHNESS", "FieldRule", "FieldAge", "Decision",
    "Source", "GateResult", "decide_state", "permission_gate", "field_ages", "day_number", "names_of",
    "index_listings", "query_scope", "gate", "SOURCE", "QUERY_SCOPE", "GATE",
]

POLICY_VERSION = "assisted-use-policy/4"
CLAUSES = {
    "P1": "offer nothing from a prohibited family, and answer no query about one",
    "P2": "use a listing only when its assisted-use permission is exactly 'allowed'",
    "P2.1": "unknown or missing permission is treated as denied (fail closed)",
    "P2.2": "a listing id whose copies disagree about permission is treated as denied",
    "P3": "a named family or a requested diameter that no reading matches is incompatible",
    "P4": "when a listing's own fields disagree, abstain and ask; never pick one",
    "P5": "a size is used only with an explicit unit; otherwise ask",
    "P6": "freshness is per field, against the as-of date; a stale required field withholds",
    "P6.1": "a stale optional field (a price) is left out of the packet, and that is named",
    "P7": "answer only from eligible evidence; an empty result is reported, never filled",
}
# Highest precedence first: decide_state keeps the first that applies.
STATES = ("prohibited_scope", "unauthorized", "incompatible", "conflict", "clarify", "degraded", "respond")
NEXT_ACTIONS = {
    "prohibited_scope": ("decline: this family is outside assisted use", "offer a human specialist"),
    "unauthorized": ("say that no permitted listing matches", "do not name or describe withheld listings"),
    "incompatible": ("say that nothing in the catalogue fits the request", "ask whether another size would do"),
    "conflict": ("abstain: do not choose between the disagreeing fields", "ask the seller to confirm the diameter"),
    "clarify": ("ask the customer for the missing unit or the intended size",),
    "degraded": ("keep stale values off the assisted path and say so", "request a feed refresh"),
    "respond": ("answer from the listed evidence only",),
}


@dataclass(frozen=True)
class FieldRule:
    """How long one listing field stays fresh, and what a stale value costs."""
    field: str
    max_days: int
    required: bool   # a stale required field withholds the listing; an optional one is left out


# A dimension stays true for years; a price goes stale in weeks.
FRESHNESS = (FieldRule("diameter_mm", 1826, True), FieldRule("price_eur", 60, False))


@dataclass(frozen=True)
class FieldAge:
    """One field of one listing on the as-of date: when it was last checked, its age and whether it
    is fresh."""
    field: str
    checked_on: str | None
    age_days: int | None
    max_days: int
    required: bool
    fresh: bool


@dataclass(frozen=True)
class Decision:
    """A recorded outcome: never a free-text verdict."""
    subject: str                  # a listing id, a query id, or a withheld listing's opaque ref
    state: str                    # one of STATES
    reason_codes: tuple[str, ...]
    clause_ids: tuple[str, ...]   # the CLAUSES the reason codes rest on
    evidence_refs: tuple[str, ...]
    next_actions: tuple[str, ...]


@dataclass(frozen=True)
class Source:
    """What stage `source` hands on: the catalogue's records and the permission of every copy."""
    records: tuple[Listing, ...]                   # one per id (the first copy)
    permissions: tuple[tuple[str, object], ...]    # (id, permission) of every copy, as the feed gave it
    by_id: Mapping[str, Listing]   # the same records by id (read-only), so a stage finds a candidate without a search


@dataclass(frozen=True)
class GateResult:
    """What the gate decided: the ids that may be ranked, the ones withheld with their decisions,
    and each field's age."""
    policy: str
    as_of: str
    freshness_enforced: bool
    passed: tuple[str, ...]         # ids that may be ranked, in id order
    withheld: tuple[str, ...]       # the ids kept back (internal: output names them by decisions[i].subject only)
    decisions: tuple[Decision, ...]  # one per withheld candidate
    ages: tuple[tuple, ...]         # (listing id, FieldAge, FieldAge, ...) for every permitted candidate
    omit: tuple[tuple[str, str], ...]   # (id, field): stale optional fields left out of the packet


def decide_state(states) -> str:
    """The highest-precedence state among `states`; "respond" when none is given."""
    given = set()
    for state in sequence_of(states, None, "states", "state names"):
        if state not in STATES:
            raise ValueError(f"state must be one of {STATES}, got {short(state)}")
        given.add(state)
    return next((state for state in STATES if state in given), "respond")


def permission_code(permissions) -> str | None:
    """None when a listing id may be used, else why not: the permissions of every copy of
    the id decide together. Only the exact str "allowed" passes; copies that disagree (in
    value or in type) are a conflict, since no copy can vouch for another; "denied" is a
    denial; anything else (unknown, missing, misspelt) fails closed as unknown."""
    first = permissions[0]
    if any(type(p) is not type(first) or p != first for p in permissions):
        return "DUPLICATE_ID_CONFLICT"
    if type(first) is str and first == "allowed":
        return None
    return "PERMISSION_DENIED" if first == "denied" else "PERMISSION_UNKNOWN"


def _copies(pairs) -> dict:
    """{listing id: [the permission of each copy, ...]} in first-seen order."""
    copies: dict = {}
    for listing_id, permission in pairs:
        copies.setdefault(listing_id, []).append(permission)
    return copies


def permission_gate(pairs) -> tuple:
    """Fail-closed permission over (listing_id, permission) pairs, run before ranking.

    Returns (permitted ids, [(opaque ref, reason code), ...]), each in first-seen order, one
    entry per id. Only the exact value "allowed" passes. An id given twice with different
    permissions is withheld as DUPLICATE_ID_CONFLICT: no copy can vouch for the other.
    """
    pairs = sequence_of(pairs, tuple, "pairs")
    for index, pair in enumerate(pairs):
        if len(pair) != 2 or not isinstance(pair[0], str):
            raise TypeError(f"pairs[{index}] must be a (listing_id, permission) tuple, got {short(pair)}")
    permitted, withheld = [], []
    for listing_id, permissions in _copies(pairs).items():
        code = permission_code(permissions)
        if code is None:
            permitted.append(listing_id)
        else:
            withheld.append((opaque_ref(listing_id), code))
    return permitted, withheld


def day_number(day: str, name: str = "day") -> int:
    """An ISO date's day number (date.toordinal), so two dates subtract to days."""
    if not isinstance(day, str) or len(day) != 10:
        raise ValueError(f"{name} must be an ISO date YYYY-MM-DD, got {short(day)}")
    try:
        return datetime.date.fromisoformat(day).toordinal()
    except ValueError:
        raise ValueError(f"{name} must be an ISO date YYYY-MM-DD, got {short(day)}") from None


def field_ages(listing: Listing, as_of: str) -> tuple:
    """Each FRESHNESS field of a listing against the as-of date. A field with no check date,
    or checked after the as-of date (not yet known then), is not fresh: fail closed."""
    if not isinstance(listing, Listing):
        raise TypeError(f"listing must be a Listing, got {type(listing).__name__} {short(listing)}")
    today = day_number(as_of, "as_of")
    rows = []
    for rule in FRESHNESS:
        checked = listing.checked(rule.field)
        age = None if checked is None else today - day_number(checked, f"checked_on[{rule.field!r}]")
        rows.append(FieldAge(rule.field, checked, age, rule.max_days, rule.required,
                             age is not None and 0 <= age <= rule.max_days))
    return tuple(rows)


def names_of(result: GateResult) -> dict:
    """{listing id: what output may call it} for every candidate the gate judged."""
    names = {i: i for i in result.passed}
    names.update(zip(result.withheld, (d.subject for d in result.decisions)))
    return names


# ---------------------------------------------------------------- stages

def index_listings(listings) -> Source:
    """The index behind stage `source`: one record per id (the first copy); every copy's permission is kept."""
    listings = sequence_of(listings, Listing, "listings")
    records: dict = {}
    for listing in listings:
        records.setdefault(listing.id, listing)
    return Source(tuple(records.values()), tuple((x.id, x.permission) for x in listings), MappingProxyType(records))


def query_scope(so_far):
    """Stage `query-scope`: a Halt for a prohibited family or a failed transformation, else None."""
    contract = so_far.output("contract")
    if contract.family in PROHIBITED_FAMILIES:
        return Halt("PROHIBITED_QUERY_SCOPE", Decision(
            contract.query_id, "prohibited_scope", ("PROHIBITED_QUERY_SCOPE",), ("P1",),
            (f"{contract.query_id}:family",), NEXT_ACTIONS["prohibited_scope"]))
    if contract.state == "failed":
        return Halt("QUERY_TRANSFORM_FAILED", Decision(
            contract.query_id, "clarify", ("QUERY_TRANSFORM_FAILED",), ("P5",),
            (f"{contract.query_id}:unit-to-mm",), ("ask which size is meant",)))
    return None


_PERMISSION_CLAUSE = {"PERMISSION_DENIED": "P2", "PERMISSION_UNKNOWN": "P2.1", "DUPLICATE_ID_CONFLICT": "P2.2"}


def gate(so_far, freshness: bool = True) -> GateResult:
    """Stage `gate`: permission, scope and freshness for every candidate a channel proposed.

    Each proposed id, in the index's order: first permission (all its copies together, fail
    closed: a withheld id is named only by its opaque ref), then, for a permitted listing
    only, scope and the freshness of each field on the as-of date. `freshness=False` is the
    lesson's counterfactual gate that ignores the dates."""
    as_of = so_far.inputs["as_of"]
    day_number(as_of, "as_of")
    source = so_far.output("source")
    proposed = {hit.listing_id for channel in so_far.of_kind("channel") for hit in channel.hits}
    passed, held, ages, omit = [], [], [], []
    for listing_id, permissions in _copies(source.permissions).items():
        if listing_id not in proposed:
            continue
        # 1. permission: every copy must say exactly "allowed"
        code = permission_code(permissions)
        if code is not None:
            ref = opaque_ref(listing_id)
            held.append((listing_id, Decision(ref, "unauthorized", (code,), (_PERMISSION_CLAUSE[code],),
                                              (f"{ref}:permission",), NEXT_ACTIONS["unauthorized"])))
            continue
        # 2. scope and freshness, read only for a permitted listing
        listing = source.by_id[listing_id]
        rows = field_ages(listing, as_of)
        ages.append((listing_id, *rows))
        fired = []   # (state, reason code, clause, field) of every rule the listing breaks
        if listing.family in PROHIBITED_FAMILIES:
            fired.append(("prohibited_scope", "PROHIBITED_FAMILY", "P1", "family"))
        if freshness:
            fired += [("degraded", "STALE_FIELD", "P6", row.field) for row in rows if row.required and not row.fresh]
        if not fired:
            passed.append(listing_id)
            if freshness:   # a stale optional field only stays out of the packet
                omit += [(listing_id, row.field) for row in rows if not row.required and not row.fresh]
            continue
        state = min((s for s, *_ in fired), key=STATES.index)
        held.append((listing_id, Decision(listing_id, state, tuple(dict.fromkeys(c for _, c, _, _ in fired)),
                                          tuple(dict.fromkeys(c for _, _, c, _ in fired)),
                                          tuple(f"{listing_id}:{field}" for *_, field in fired), NEXT_ACTIONS[state])))
    held.sort(key=lambda pair: (STATES.index(pair[1].state), pair[1].subject))
    return GateResult(POLICY_VERSION, as_of, freshness, tuple(sorted(passed)), tuple(i for i, _ in held),
                      tuple(d for _, d in held), tuple(ages), tuple(omit))


def _source(so_far) -> Source:
    return index_listings(so_far.inputs["listings"])


SOURCE = Stage("source", "source/1", "source", _source)
QUERY_SCOPE = Stage("query-scope", POLICY_VERSION, "input", query_scope)
GATE = Stage("gate", POLICY_VERSION, "permission/freshness", gate)
