"""Lesson 08, eligibility: permission, freshness and evidence states before anything is ranked.

Lesson 07's channels propose candidates. Before any of them is ranked or shown, each one
passes the gate of one versioned policy (modules/catalogue/policy.py, which lesson 07's
fusion already runs after), and every outcome is a recorded decision: a state, reason
codes, the policy clause ids it rests on, evidence references and next actions. Never a
free-text verdict.

The catalogue pipeline, in order (RETRIEVAL is lesson 07's half, CATALOGUE adds this
lesson's stages; lesson 09 traces the same run):

  source        one record per listing id; every copy's permission is kept
  contract      the query contract (lesson 07)
  query-scope   a prohibited family or a failed transformation stops the query here:
                nothing is retrieved for it and no packet is assembled
  lexical, structured, vector   the channels propose from the whole index (lesson 07)
  gate          permission (only "allowed"; unknown, missing or disagreeing copies fail
                closed), prohibited family, and freshness per field against the run's
                explicit as-of date; withheld candidates never reach ranking
  fusion        reciprocal rank fusion over canonical clusters (lesson 07)
  evidence      deterministic checks of each ranked candidate: a named family or a
                requested diameter that no reading matches is incompatible; a title that
                disagrees with the structured field is a conflict (abstain, never pick)
  packet        the fields of the best usable listings; a stale optional field (a price)
                is left out and named
  decision      the query's state, by precedence:
                prohibited_scope > unauthorized > incompatible > conflict > clarify >
                degraded > respond; an empty result names its cause and never invents

Withheld listings whose permission is not "allowed" appear only as opaque references,
keyed hashes of their ids: `unkeyed_ref` shows why an unkeyed hash would not do.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, Listing, Query
from modules.common.checks import sequence_of, sha256_hex, short
from modules.common.pipeline import Stage
from modules.catalogue.policy import (CLAUSES, NEXT_ACTIONS, POLICY_VERSION, STATES, Decision, decide_state,
                                      permission_gate)
from modules.hybrid import RETRIEVAL, QueryContract, parse_diameter

__all__ = [
    "STATES", "POLICY_VERSION", "CLAUSES", "EMPTY_CAUSES", "PACKET_LISTINGS", "PACKET_FIELDS", "Decision",
    "Evidence", "Packet", "QueryDecision", "decide_state", "permission_gate", "empty_cause", "diameter_readings",
    "matches_request", "check_evidence", "check_candidates", "assemble", "decide", "CATALOGUE", "evaluate",
    "unkeyed_ref", "enumerate_refs",
]

EMPTY_CAUSES = ("out_of_scope", "transformation_failed", "no_permitted_match", "all_unauthorized",
                "all_stale", "all_excluded")
PACKET_LISTINGS = 3
PACKET_FIELDS = ("title", "family", "diameter_mm", "price_eur")

@dataclass(frozen=True)
class Evidence:
    """What stage `evidence` kept: the usable listings in fused order, and the decisions on those it
    excluded."""
    usable: tuple[str, ...]            # listing ids in fused order
    decisions: tuple[Decision, ...]    # one per excluded listing
    excluded: tuple[str, ...]          # their listing ids, in the same order


@dataclass(frozen=True)
class Packet:
    """The evidence packet: its listings, their permitted fields as (field id, value), what was left
    out and a note."""
    listings: tuple[str, ...]
    fields: tuple[tuple[str, object], ...]   # (field id "PW-L001#title", value), ...
    omitted: tuple[str, ...]                 # field ids left out as stale
    note: str


@dataclass(frozen=True)
class QueryDecision:
    """What stage `decision` reached for a query: the decision, why its result is empty (if it is)
    and what it rests on."""
    decision: Decision
    empty_cause: str | None
    because: tuple[tuple[str, str, tuple[str, ...]], ...]   # (subject, state, reason codes): what it was decided from


def empty_cause(scope_prohibited: bool, transformation_failed: bool, withheld_states) -> str:
    """Name why a result is empty; `withheld_states` are the states of the withheld candidates that matched."""
    for name, value in (("scope_prohibited", scope_prohibited), ("transformation_failed", transformation_failed)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, got {type(value).__name__} {short(value)}")
    states = sequence_of(withheld_states, str, "withheld_states")
    for state in states:
        if state not in STATES:
            raise ValueError(f"withheld state must be one of {STATES}, got {short(state)}")
    if scope_prohibited:
        return "out_of_scope"
    if transformation_failed:
        return "transformation_failed"
    if not states:
        return "no_permitted_match"
    if all(state == "unauthorized" for state in states):
        return "all_unauthorized"
    if all(state == "degraded" for state in states):
        return "all_stale"
    return "all_excluded"


def diameter_readings(listing: Listing) -> dict:
    """Every stable reading of a listing's diameter in mm: the structured field and an explicit title size."""
    if not isinstance(listing, Listing):
        raise TypeError(f"listing must be a Listing, got {type(listing).__name__} {short(listing)}")
    readings = {}
    if listing.listed_unit and listing.diameter_mm is not None:
        readings["diameter_mm"] = listing.diameter_mm
    title = _title_size(listing.title)
    if title is not None:
        readings["title"] = title
    return readings


def _title_size(title: str):
    """The one explicit size a title states, in mm, or None."""
    state, diameter, _reason = parse_diameter(title)
    return diameter.value_mm if state == "ready" and diameter is not None else None


def _contract(contract) -> QueryContract:
    if not isinstance(contract, QueryContract):
        raise TypeError(f"contract must be a QueryContract, got {type(contract).__name__} {short(contract)}")
    return contract


def matches_request(listing: Listing, contract: QueryContract) -> bool:
    """Deterministic compatibility: the named family, and the requested diameter if any reading exists."""
    _contract(contract)
    if contract.family and listing.family != contract.family:
        return False
    readings = diameter_readings(listing)
    return not (contract.diameter and readings and contract.diameter.value_mm not in readings.values())


def check_evidence(listing: Listing, contract: QueryContract):
    """The evidence checks of one permitted, ranked listing: None when it may be used, else its Decision."""
    readings = diameter_readings(listing)
    want = contract.diameter.value_mm if _contract(contract).diameter else None
    fired = []  # (state, reason code, clause id, evidence field)
    if contract.family and listing.family != contract.family:
        fired.append(("incompatible", "FAMILY_MISMATCH", "P3", "family"))
    if want and readings and want not in readings.values():
        fired.append(("incompatible", "DIAMETER_MISMATCH", "P3", "diameter_mm"))
    if len(set(readings.values())) > 1:
        fired.append(("conflict", "TITLE_FIELD_CONFLICT", "P4", "title+diameter_mm"))
    if want and not readings:
        fired.append(("clarify", "LISTING_UNIT_MISSING", "P5", "listed_unit"))
    if not fired:
        return None
    state = min((s for s, *_ in fired), key=STATES.index)
    return Decision(subject=listing.id, state=state,
                    reason_codes=tuple(dict.fromkeys(code for _, code, _, _ in fired)),
                    clause_ids=tuple(dict.fromkeys(clause for _, _, clause, _ in fired)),
                    evidence_refs=tuple(dict.fromkeys(f"{listing.id}:{field}" for _, _, _, field in fired)),
                    next_actions=NEXT_ACTIONS[state])


# ---------------------------------------------------------------- this lesson's stages

def check_candidates(so_far) -> Evidence:
    """Stage `evidence`: the ranked candidates, best first, checked against the request."""
    contract = so_far.output("contract")
    by_id = so_far.output("source").by_id
    usable, decisions, excluded = [], [], []
    for candidate in so_far.output("fusion").candidates:
        decision = check_evidence(by_id[candidate.listing_id], contract)
        if decision is None:
            usable.append(candidate.listing_id)
        else:
            decisions.append(decision)
            excluded.append(candidate.listing_id)
    return Evidence(usable=tuple(usable), decisions=tuple(decisions), excluded=tuple(excluded))


def assemble(so_far) -> Packet:
    """Stage `packet`: whole fields of the best usable listings, each with its own field id."""
    contract = so_far.output("contract")
    if contract.state != "ready":
        return Packet(listings=(), fields=(), omitted=(),
                      note=f"not assembled: the query contract is {contract.state!r}")
    by_id = so_far.output("source").by_id
    stale = set(so_far.output("gate").omit)
    chosen = so_far.output("evidence").usable[:PACKET_LISTINGS]
    fields = tuple([(f"{i}#{f}", getattr(by_id[i], f)) for i in chosen for f in PACKET_FIELDS if (i, f) not in stale])
    omitted = tuple(f"{i}#{f}" for i in chosen for f in PACKET_FIELDS if (i, f) in stale)
    return Packet(listings=chosen, fields=fields, omitted=omitted,
                  note=f"the best {PACKET_LISTINGS} usable listings, fields " + ", ".join(PACKET_FIELDS))


def _matched(so_far, contract) -> list:
    """Decisions of withheld or excluded candidates that would have fitted the request."""
    gate, evidence = so_far.output("gate"), so_far.output("evidence")
    by_id = so_far.output("source").by_id
    pairs = list(zip(gate.withheld, gate.decisions)) + list(zip(evidence.excluded, evidence.decisions))
    return [d for listing_id, d in pairs if matches_request(by_id[listing_id], contract)]


def decide(so_far) -> QueryDecision:
    """Stage `decision`: the query's state by precedence, with its reasons and the empty cause."""
    halt = so_far.halt
    if halt is not None:
        d = halt.detail
        cause = "out_of_scope" if d.state == "prohibited_scope" else "transformation_failed"
        return QueryDecision(decision=d, empty_cause=cause, because=((d.subject, d.state, d.reason_codes),))
    contract, packet = so_far.output("contract"), so_far.output("packet")
    qid = contract.query_id
    because, refs, cause = [], [], None
    if contract.state == "clarify":
        because.append((qid, "clarify", ("QUERY_UNIT_MISSING",)))
        refs.append(f"{qid}:unit-to-mm")
    if packet.listings:
        if packet.omitted:
            because.append((qid, "degraded", ("STALE_FIELD_OMITTED",)))
            refs += packet.omitted
    elif contract.state == "ready":
        matched = _matched(so_far, contract)
        cause = empty_cause(False, False, [d.state for d in matched])
        because += [(d.subject, d.state, d.reason_codes) for d in matched]
        refs += [ref for d in matched for ref in d.evidence_refs]
        if not matched:
            because.append((qid, "incompatible", ("NO_COMPATIBLE_MATCH",)))
            refs.append(f"{qid}:filters")
    because.sort(key=lambda b: STATES.index(b[1]))  # strongest first, stable within a state
    if not because:
        refs = [f"{i}:diameter_mm" for i in packet.listings]
        return QueryDecision(decision=Decision(subject=qid, state="respond", reason_codes=("EVIDENCE_ELIGIBLE",),
                                               clause_ids=("P7",), evidence_refs=tuple(refs),
                                               next_actions=NEXT_ACTIONS["respond"]),
                             empty_cause=None, because=())
    state = decide_state([b[1] for b in because])
    codes = tuple(dict.fromkeys(code for b in because for code in b[2]))
    clauses = tuple(dict.fromkeys(_CLAUSE_OF[code] for code in codes)) + ("P7",)
    return QueryDecision(decision=Decision(subject=qid, state=state, reason_codes=codes, clause_ids=clauses,
                                           evidence_refs=tuple(dict.fromkeys(refs)), next_actions=NEXT_ACTIONS[state]),
                         empty_cause=cause, because=tuple(because))


_CLAUSE_OF = {"QUERY_UNIT_MISSING": "P5", "STALE_FIELD_OMITTED": "P6.1", "NO_COMPATIBLE_MATCH": "P3",
              "PERMISSION_DENIED": "P2", "PERMISSION_UNKNOWN": "P2.1", "DUPLICATE_ID_CONFLICT": "P2.2",
              "PROHIBITED_FAMILY": "P1", "STALE_FIELD": "P6", "FAMILY_MISMATCH": "P3", "DIAMETER_MISMATCH": "P3",
              "TITLE_FIELD_CONFLICT": "P4", "LISTING_UNIT_MISSING": "P5"}

CATALOGUE = RETRIEVAL.extend(
    Stage("evidence", "evidence/1", "assembly", check_candidates),
    Stage("packet", "packet/1", "assembly", assemble),
    Stage("decision", POLICY_VERSION, "decision", decide, after_halt=True),
    name="catalogue")


def evaluate(query: Query, listings=LISTINGS, as_of: str = CATALOGUE_AS_OF, pipeline=CATALOGUE):
    """Run the catalogue pipeline for one query (controls before ranking, then the decision)."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    return pipeline.run({"query": query, "listings": listings, "as_of": as_of})


# ---------------------------------------------------------------- why a ref must be keyed

PUBLIC_SALT = "context-lab/exclusions/v1:"


def unkeyed_ref(listing_id: str) -> str:
    """The mistake, kept to show it: a hash of the id with a public salt. Anyone can compute it."""
    if not isinstance(listing_id, str) or not listing_id:
        raise ValueError(f"listing_id must be a non-empty str, got {short(listing_id)}")
    return "ref-" + sha256_hex(PUBLIC_SALT + listing_id)[:12]


def enumerate_refs(refs, make_ref, guesses) -> dict:
    """The attack: hash every guessable id with `make_ref` and look each ref up. Returns
    {ref: the id it reverses to, or None}. (One table of guesses serves any number of refs.)"""
    table = {make_ref(guess): guess for guess in guesses}
    return {ref: table.get(ref) for ref in sequence_of(refs, str, "refs")}
