"""Lesson 08, eligibility: permission, freshness and evidence states before anything is ranked.

Lesson 07's channels propose candidates. Before any of them is ranked or shown,
each one passes the controls of a versioned policy, and every outcome is a
recorded decision: a state, reason codes, the policy clause ids it rests on,
evidence references and next actions. Never a free-text verdict.

Controls, per candidate
  permission   exactly "allowed" passes; "denied" and "unknown" are withheld
               (unknown fails closed). Similarity never restores permission:
               the closest vector neighbour of PW-Q002 is denied, and it never
               reaches ranking or output.
  scope        a listing in a prohibited family is withheld.
  compatibility  a named family that differs, or a requested diameter that no
               reading of the listing matches, is a deterministic incompatibility.
  conflict     title and structured field disagree about the diameter: abstain
               rather than pick the newer-looking phrase.
  unit         no stable diameter reading while the query asks for one.
  freshness    an expired (stale) record is withheld with a degraded reason.

States, highest precedence first (decide_state keeps the first that applies):
  prohibited_scope > unauthorized > incompatible > conflict > clarify > degraded > respond

The query's own decision: a prohibited family in the query stops everything
(out of scope); a failed transformation stops before retrieval; a bare number
asks (clarify). Otherwise, if any candidate is eligible the state is respond;
if none is, the states of the withheld candidates that were not simply
incompatible decide, and the empty result names its cause. An empty result
never invents a listing. Withheld listings appear only as opaque references.
"""

from __future__ import annotations

from collections import namedtuple

from modules.catalogue import LISTINGS, PROHIBITED_FAMILIES, QUERIES, Listing, listing_by_id, opaque_ref, query_by_id
from modules.hybrid import (RRF_K, QueryContract, cluster_rankings, lexical_channel, parse_diameter, parse_query,
                            reciprocal_rank_fusion, structured_channel, vector_channel)

__all__ = [
    "STATES", "POLICY_VERSION", "CLAUSES", "EMPTY_CAUSES", "Decision", "Evaluation", "decide_state",
    "permission_gate", "empty_cause", "diameter_readings", "matches_request", "check_candidate", "evaluate", "trace", "view",
]

STATES = ("prohibited_scope", "unauthorized", "incompatible", "conflict", "clarify", "degraded", "respond")
POLICY_VERSION = "assisted-use-policy/3"
CLAUSES = {
    "P1": "offer nothing from a prohibited family, and answer no query about one",
    "P2": "use a listing only when its assisted-use permission is exactly 'allowed'",
    "P2.1": "unknown or missing permission is treated as denied (fail closed)",
    "P3": "a named family or a requested diameter that no reading matches is incompatible",
    "P4": "when a listing's own fields disagree, abstain and ask; never pick one",
    "P5": "a size is used only with an explicit unit; otherwise ask",
    "P6": "expired records are kept off the assisted path (degraded)",
    "P7": "answer only from eligible evidence; an empty result is reported, never filled",
}
EMPTY_CAUSES = ("out_of_scope", "transformation_failed", "no_permitted_match", "all_unauthorized",
                "all_stale", "all_excluded")
NEXT_ACTIONS = {
    "prohibited_scope": ("decline: this family is outside assisted use", "offer a human specialist"),
    "unauthorized": ("say that no permitted listing matches", "do not name or describe withheld listings"),
    "incompatible": ("say that nothing in the catalogue fits the request", "ask whether another size would do"),
    "conflict": ("abstain: do not choose between the disagreeing fields", "ask the seller to confirm the diameter"),
    "clarify": ("ask the customer for the missing unit or the intended size",),
    "degraded": ("keep the expired record off the assisted path", "request a feed refresh"),
    "respond": ("answer from the listed evidence only",),
}

# Immutable records (named tuples: cheap to define on every run of a lesson command).
Decision = namedtuple("Decision", "subject state reason_codes clause_ids evidence_refs next_actions")
Evaluation = namedtuple("Evaluation", "query_id contract_state decision candidates ranked empty_cause channels "
                                      "matched_withheld")  # states of withheld candidates that fit the request


def decide_state(states) -> str:
    """The highest-precedence state among `states`; "respond" when none is given."""
    if isinstance(states, (str, bytes)) or not hasattr(states, "__iter__"):
        raise TypeError(f"states must be a collection of state names, got {type(states).__name__} {states!r}")
    given = set()
    for state in states:
        if state not in STATES:
            raise ValueError(f"state must be one of {STATES}, got {state!r}")
        given.add(state)
    return next((state for state in STATES if state in given), "respond")


def permission_gate(pairs) -> tuple:
    """Fail-closed permission filter over (listing_id, permission) pairs, run before ranking.

    Returns (permitted ids in input order, [(opaque ref, reason code), ...] for
    the rest). Only the exact value "allowed" passes.
    """
    permitted, withheld = [], []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[0], str):
            raise TypeError(f"pairs[{index}] must be a (listing_id, permission) tuple, got {pair!r}")
        listing_id, permission = pair
        if permission == "allowed":
            permitted.append(listing_id)
        else:
            withheld.append((_ref(listing_id),
                             "PERMISSION_DENIED" if permission == "denied" else "PERMISSION_UNKNOWN"))
    return permitted, withheld


def empty_cause(scope_prohibited: bool, transformation_failed: bool, withheld_states) -> str:
    """Name why a result is empty; `withheld_states` are the states of the withheld candidates that matched."""
    for name, value in (("scope_prohibited", scope_prohibited), ("transformation_failed", transformation_failed)):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be a bool, got {type(value).__name__} {value!r}")
    if isinstance(withheld_states, (str, bytes)) or not hasattr(withheld_states, "__iter__"):
        raise TypeError(f"withheld_states must be a collection of states, got {type(withheld_states).__name__} "
                        f"{withheld_states!r}")
    states = list(withheld_states)
    for state in states:
        if state not in STATES:
            raise ValueError(f"withheld state must be one of {STATES}, got {state!r}")
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


_TITLE_SIZE: dict = {}


def diameter_readings(listing: Listing) -> dict:
    """Every stable reading of a listing's diameter in mm: the structured field and an explicit title size."""
    if not isinstance(listing, Listing):
        raise TypeError(f"listing must be a Listing, got {type(listing).__name__} {listing!r}")
    readings = {}
    if listing.listed_unit and listing.diameter_mm is not None:
        readings["diameter_mm"] = listing.diameter_mm
    if listing.title not in _TITLE_SIZE:  # every query reads the same titles: parse each once
        state, diameter, _reason = parse_diameter(listing.title)
        _TITLE_SIZE[listing.title] = diameter.value_mm if state == "ready" and diameter else None
    if _TITLE_SIZE[listing.title] is not None:
        readings["title"] = _TITLE_SIZE[listing.title]
    return readings


_REFS: dict = {}


def _ref(listing_id: str) -> str:
    if listing_id not in _REFS:
        _REFS[listing_id] = opaque_ref(listing_id)
    return _REFS[listing_id]


def matches_request(listing: Listing, contract) -> bool:
    """Deterministic compatibility: the named family, and the requested diameter if any reading exists."""
    if contract.family and listing.family != contract.family:
        return False
    readings = diameter_readings(listing)
    return not (contract.diameter and readings and contract.diameter.value_mm not in readings.values())


def check_candidate(listing: Listing, contract) -> Decision:
    """Run the controls on one candidate; the decision keeps every control that fired, the state the strongest.

    A withheld listing is recorded by opaque reference; one that is not permitted
    also keeps its other fields out of the record (they are not read).
    """
    if not isinstance(listing, Listing):
        raise TypeError(f"listing must be a Listing, got {type(listing).__name__} {listing!r}")
    if not isinstance(contract, QueryContract):
        raise TypeError(f"contract must be a QueryContract, got {type(contract).__name__} {contract!r}")
    fired = []  # (state, reason code, clause id, evidence field)
    if listing.family in PROHIBITED_FAMILIES:
        fired.append(("prohibited_scope", "PROHIBITED_FAMILY", "P1", "family"))
    if listing.permission != "allowed":
        fired.append(("unauthorized", "PERMISSION_DENIED", "P2", "permission") if listing.permission == "denied"
                     else ("unauthorized", "PERMISSION_UNKNOWN", "P2.1", "permission"))
    else:  # only a permitted listing's fields are read any further
        readings = diameter_readings(listing)
        want = contract.diameter.value_mm if contract.diameter else None
        if contract.family and listing.family != contract.family:
            fired.append(("incompatible", "FAMILY_MISMATCH", "P3", "family"))
        if want and readings and want not in readings.values():
            fired.append(("incompatible", "DIAMETER_MISMATCH", "P3", "diameter_mm"))
        if len(set(readings.values())) > 1:
            fired.append(("conflict", "TITLE_FIELD_CONFLICT", "P4", "title+diameter_mm"))
        if want and not readings:
            fired.append(("clarify", "LISTING_UNIT_MISSING", "P5", "listed_unit"))
        if listing.stale:
            fired.append(("degraded", "STALE_RECORD", "P6", "updated_on"))
    if not fired:
        return Decision(listing.id, "respond", ("ELIGIBLE",), ("P2", "P3", "P6"),
                        tuple(f"{listing.id}:{f}" for f in ("permission", "diameter_mm", "updated_on")),
                        NEXT_ACTIONS["respond"])
    ref = _ref(listing.id)  # withheld: recorded by opaque reference only
    state = min((s for s, *_ in fired), key=STATES.index)  # the strongest, as decide_state would say
    return Decision(ref, state, tuple(code for _, code, _, _ in fired), tuple(dict.fromkeys(c for _, _, c, _ in fired)),
                    tuple(dict.fromkeys(f"{ref}:{field}" for *_, field in fired)), NEXT_ACTIONS[state])


def evaluate(query, listings=LISTINGS, show: int = 3) -> Evaluation:
    """Controls before ranking for one query, then the query's own decision."""
    if isinstance(show, bool) or not isinstance(show, int) or show < 1:
        raise ValueError(f"show must be a whole number >= 1, got {show!r}")
    contract = parse_query(query)
    if isinstance(listings, (str, bytes)) or not hasattr(listings, "__iter__"):
        raise TypeError(f"listings must be a sequence of Listing, got {type(listings).__name__} {listings!r}")
    pool = tuple(listings)
    if contract.family in PROHIBITED_FAMILIES:
        decision = Decision(query.id, "prohibited_scope", ("PROHIBITED_QUERY_SCOPE",), ("P1",),
                            (f"{query.id}:family",), NEXT_ACTIONS["prohibited_scope"])
        return Evaluation(query.id, contract.state, decision, (), (), "out_of_scope", (), ())
    if contract.state == "failed":
        decision = Decision(query.id, "clarify", ("QUERY_TRANSFORM_FAILED",), ("P5",),
                            (f"{query.id}:unit-to-mm",), ("ask which size is meant",))
        return Evaluation(query.id, contract.state, decision, (), (), "transformation_failed", (), ())
    channels = (lexical_channel(contract, pool), structured_channel(contract, pool), vector_channel(contract, pool))
    rankings = [c.ranking for c in channels]
    by_id = {listing.id: listing for listing in pool}
    proposed = sorted({listing_id for ranking in rankings for listing_id in ranking})
    checked = {listing_id: check_candidate(by_id[listing_id], contract) for listing_id in proposed}
    eligible = {listing_id for listing_id, d in checked.items() if d.state == "respond"}
    # Withheld candidates leave every channel before fusion; the ranks that remain close up.
    kept = [[listing_id for listing_id in ranking if listing_id in eligible] for ranking in rankings]
    cluster_of = {listing_id: by_id[listing_id].cluster_id for listing_id in eligible}
    members: dict = {}
    for listing_id in sorted(eligible):
        members.setdefault(cluster_of[listing_id], []).append(listing_id)
    ranked = tuple((cluster, members[cluster][0], round(score, 6))
                   for cluster, score in reciprocal_rank_fusion(cluster_rankings(kept, cluster_of), RRF_K))
    conditions = [("clarify", "QUERY_UNIT_MISSING", "P5", f"{query.id}:unit-to-mm")] if contract.state == "clarify" else []
    # Which withheld candidates would have answered the request? Only their states can explain an empty result.
    matched = [checked[i] for i in proposed if checked[i].state != "respond" and matches_request(by_id[i], contract)]
    cause = None
    if not ranked:
        cause = empty_cause(False, False, [d.state for d in matched])
        conditions += [(d.state, code, clause, ref) for d in matched
                       for code, clause, ref in zip(d.reason_codes, d.clause_ids, d.evidence_refs)]
        if not matched:
            conditions.append(("incompatible", "NO_COMPATIBLE_MATCH", "P3", f"{query.id}:filters"))
    conditions.sort(key=lambda c: STATES.index(c[0]))  # strongest first, stable within a state
    state = decide_state(s for s, *_ in conditions)
    if not conditions:
        refs = tuple(f"{listing_id}:diameter_mm" for _, listing_id, _ in ranked[:show])
        decision = Decision(query.id, "respond", ("EVIDENCE_ELIGIBLE",), ("P7",), refs, NEXT_ACTIONS["respond"])
    else:
        decision = Decision(query.id, state, tuple(dict.fromkeys(code for _, code, _, _ in conditions)),
                            tuple(dict.fromkeys(clause for _, _, clause, _ in conditions)) + ("P7",),
                            tuple(dict.fromkeys(ref for *_, ref in conditions)), NEXT_ACTIONS[state])
    return Evaluation(query.id, contract.state, decision, tuple(checked[i] for i in proposed), ranked,
                      cause, channels, tuple(d.state for d in matched))


# ---------------------------------------------------------------- the trace

TRACES = (("ordinary explicit evidence", "PW-Q001"), ("unauthorized closest neighbour", "PW-Q002"),
          ("stale and conflicting evidence: abstain", "PW-Q004"), ("empty after controls", "PW-Q005"))
TOP = 5


def _decision(d: Decision) -> dict:
    return {"subject": d.subject, "state": d.state, "reason_codes": list(d.reason_codes),
            "clause_ids": list(d.clause_ids), "evidence_refs": list(d.evidence_refs),
            "next_actions": list(d.next_actions)}


def _run(name: str, query, result: Evaluation) -> dict:
    # What a candidate may be called in output: its id if eligible, else its opaque ref.
    # (evaluate() records candidates in sorted id order.)
    rankings = [c.ranking for c in result.channels]
    proposed = sorted({i for ranking in rankings for i in ranking})
    shown = dict(zip(proposed, (d.subject for d in result.candidates)))
    state_of = {d.subject: d.state for d in result.candidates}
    withheld = [d for d in result.candidates if d.state != "respond"]
    withheld.sort(key=lambda d: (STATES.index(d.state), d.subject))
    channels = [{"channel": c.channel,
                 "top": [{"rank": r, "candidate": shown[i], "withheld": shown[i] != i}
                         for r, i in enumerate(ranking[:TOP], start=1)]} for c, ranking in zip(result.channels, rankings)]
    vector = rankings[2] if rankings else ()
    return {
        "name": name, "query_id": query.id, "original": query.text, "contract_state": result.contract_state,
        "channels": channels,
        "eligible": sorted(d.subject for d in result.candidates if d.state == "respond"),
        "withheld": [_decision(d) for d in withheld],
        "ranked": [{"position": n, "cluster_id": c, "listing_id": i, "title": listing_by_id(i).title,
                    "ordering_score": score} for n, (c, i, score) in enumerate(result.ranked, start=1)],
        "closest_neighbour": None if not vector else {
            "candidate": shown[vector[0]], "withheld": shown[vector[0]] != vector[0],
            "state": state_of[shown[vector[0]]],
            "reached_ranking": any(i == vector[0] for _, i, _ in result.ranked)},
        "decision": _decision(result.decision),
        "empty_cause": result.empty_cause,
    }


def trace() -> dict:
    """The four traces in detail, and every catalogue query's decision in one table."""
    results = {query.id: evaluate(query) for query in QUERIES}
    summary = []
    for query in QUERIES:
        result = results[query.id]
        summary.append({"query_id": query.id, "original": query.text, "state": result.decision.state,
                        "reason_codes": list(result.decision.reason_codes), "results": len(result.ranked),
                        "empty_cause": result.empty_cause,
                        "withheld": sum(d.state != "respond" for d in result.candidates)})
    return {
        "lesson": "eligibility",
        "policy": {"version": POLICY_VERSION, "clauses": dict(CLAUSES)},
        "precedence": list(STATES),
        "traces": [_run(name, query_by_id(query_id), results[query_id]) for name, query_id in TRACES],
        "summary": summary,
        "empty_causes": list(EMPTY_CAUSES),
    }


def view(record: dict) -> list:
    """Printable blocks: policy, precedence, the four traces, the summary."""
    blocks = [
        {"heading": "Lesson 08 - eligibility: permission, freshness and evidence states"},
        {"table": {"title": f"Policy {record['policy']['version']}", "columns": ["clause", "rule"],
                   "rows": [[k, v] for k, v in record["policy"]["clauses"].items()]}},
        {"text": "State precedence, strongest first: " + " > ".join(record["precedence"])
                 + ". Withheld candidates appear only as opaque references."},
    ]
    for n, run in enumerate(record["traces"], start=1):
        blocks.append({"text": f"Trace {n}, {run['name']}: {run['query_id']} \"{run['original']}\" "
                               f"(query contract state: {run['contract_state']})"})
        if run["channels"]:
            tops = [c["top"] for c in run["channels"]]
            blocks.append({"table": {
                "title": f"What the channels proposed (top {TOP}); [w] = withheld before ranking",
                "columns": ["rank"] + [c["channel"] for c in run["channels"]],
                "rows": [[r] + [(f"{t[r - 1]['candidate']}{' [w]' if t[r - 1]['withheld'] else ''}"
                                 if r <= len(t) else "-") for t in tops] for r in range(1, TOP + 1)]}})
        # Every withheld candidate is a recorded decision (see --json); the table leaves out the
        # plainly incompatible ones (wrong family or size) and counts them instead.
        shown = [d for d in run["withheld"] if d["state"] != "incompatible"]
        if shown:
            blocks.append({"table": {
                "title": f"Withheld before ranking: {len(run['withheld'])}, of which "
                         f"{len(run['withheld']) - len(shown)} incompatible (wrong family or size) and these:",
                "columns": ["subject", "state", "reason codes", "clauses", "evidence refs"],
                "rows": [[d["subject"], d["state"], " ".join(d["reason_codes"]), " ".join(d["clause_ids"]),
                          " ".join(d["evidence_refs"])] for d in shown]}})
        if run["ranked"]:
            blocks.append({"table": {"title": "Ranked, eligible candidates only (RRF over the channels after controls)",
                                     "columns": ["pos", "cluster", "listing", "title", "ordering_score"],
                                     "rows": [[r["position"], r["cluster_id"], r["listing_id"], r["title"],
                                               f"{r['ordering_score']:.6f}"] for r in run["ranked"]]}})
        else:
            blocks.append({"text": f"Ranked: nothing. Empty cause: {run['empty_cause']}. No listing is invented."})
        near = run["closest_neighbour"]
        if near and near["withheld"]:
            moral = " Similarity never restores permission." if near["state"] == "unauthorized" else ""
            blocks.append({"text": f"Closest vector neighbour: {near['candidate']}, withheld ({near['state']}); "
                                   f"reached ranking: {'yes' if near['reached_ranking'] else 'no'}.{moral}"})
        d = run["decision"]
        blocks.append({"table": {"title": f"Decision for {d['subject']}: {d['state']}", "columns": ["field", "value"],
                                 "rows": [["state", d["state"]], ["reason codes", " ".join(d["reason_codes"])],
                                          ["clause ids", " ".join(d["clause_ids"])],
                                          ["evidence refs", " ".join(d["evidence_refs"])],
                                          ["next actions", "; ".join(d["next_actions"])],
                                          ["empty cause", run["empty_cause"] or "-"]]}})
    blocks.append({"table": {"title": "Every catalogue query after controls",
                             "columns": ["query", "original", "state", "reason codes", "results", "withheld", "empty cause"],
                             "rows": [[s["query_id"], s["original"], s["state"], " ".join(s["reason_codes"]),
                                       s["results"], s["withheld"], s["empty_cause"] or "-"] for s in record["summary"]]}})
    blocks.append({"text": "Empty results are never one bucket: " + ", ".join(record["empty_causes"])
                           + ". An empty result is reported with its cause; it is never filled with an invented listing."})
    return blocks
