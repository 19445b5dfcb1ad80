"""Lesson 08's figures and contracts, asserted on the mechanism and on the command."""

import json
from itertools import combinations

import pytest

from helpers import methods
from modules.catalogue import (LISTINGS, QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS, VECTOR_VERSION, Query,
                               listing_by_id, opaque_ref, query_by_id)
from modules.eligibility import (STATES, check_candidate, decide_state, diameter_readings, empty_cause, evaluate,
                                 matches_request, permission_gate)
from modules.hybrid import parse_query


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("eligibility", "--json").stdout)


def _trace(record, query_id):
    return next(t for t in record["traces"] if t["query_id"] == query_id)


# ---------------------------------------------------------------- permission before ranking

def test_denied_closest_neighbour_never_reaches_ranking(record):
    result = evaluate(query_by_id("PW-Q002"))
    assert result.channels[2].ranking[0] == "PW-L004"  # the vector channel's nearest neighbour
    assert all(listing_id not in RESTRICTED_IDS for _, listing_id, _ in result.ranked)
    assert [c for c, _, _ in result.ranked] == ["C-01", "C-02", "C-08", "C-11"]
    near = _trace(record, "PW-Q002")["closest_neighbour"]
    assert near == {"candidate": opaque_ref("PW-L004"), "withheld": True, "state": "unauthorized",
                    "reached_ranking": False}


def test_ranks_close_up_after_the_filter():
    # PW-L001 is second in PW-Q002's vector channel behind withheld listings; after the filter it is first.
    result = evaluate(query_by_id("PW-Q002"))
    assert result.ranked[0] == ("C-01", "PW-L001", round(3 / 61, 6))


def test_unknown_permission_fails_closed():
    contract = parse_query(query_by_id("PW-Q005"))
    decision = check_candidate(listing_by_id("PW-L005"), contract)
    assert decision.state == "unauthorized"
    assert decision.reason_codes == ("PERMISSION_UNKNOWN",) and decision.clause_ids == ("P2.1",)
    assert decision.subject == opaque_ref("PW-L005")
    assert decision.evidence_refs == (f"{opaque_ref('PW-L005')}:permission",)
    assert permission_gate([("PW-L005", "unknown"), ("X", None)]) == (
        [], [(opaque_ref("PW-L005"), "PERMISSION_UNKNOWN"), (opaque_ref("X"), "PERMISSION_UNKNOWN")])


def test_stale_listing_is_withheld_with_a_degraded_reason():
    decision = check_candidate(listing_by_id("PW-L006"), parse_query(query_by_id("PW-Q004")))
    assert (decision.state, decision.reason_codes, decision.clause_ids) == ("degraded", ("STALE_RECORD",), ("P6",))
    assert decision.next_actions[0] == "keep the expired record off the assisted path"


def test_conflicting_listing_is_never_picked():
    assert diameter_readings(listing_by_id("PW-L007")) == {"diameter_mm": "16", "title": "18"}
    for query_id in ("PW-Q001", "PW-Q004"):
        decision = check_candidate(listing_by_id("PW-L007"), parse_query(query_by_id(query_id)))
        assert decision.state == "conflict" and decision.reason_codes == ("TITLE_FIELD_CONFLICT",)


def test_prohibited_family_listing_is_withheld():
    decision = check_candidate(listing_by_id("PW-L008"), parse_query(query_by_id("PW-Q002")))
    assert decision.state == "prohibited_scope" and decision.reason_codes == ("PROHIBITED_FAMILY",)


# ---------------------------------------------------------------- states and decisions

def test_precedence_order_and_every_pair():
    assert STATES == ("prohibited_scope", "unauthorized", "incompatible", "conflict", "clarify", "degraded",
                      "respond")
    for stronger, weaker in combinations(STATES, 2):
        assert decide_state([weaker, stronger]) == decide_state([stronger, weaker]) == stronger
    assert decide_state([]) == "respond"


def test_every_decision_is_recorded_in_full(record):
    for run in record["traces"]:
        for decision in run["withheld"] + [run["decision"]]:
            assert set(decision) == {"subject", "state", "reason_codes", "clause_ids", "evidence_refs", "next_actions"}
            assert decision["state"] in STATES
            assert decision["reason_codes"] and decision["clause_ids"] and decision["evidence_refs"]
            assert decision["next_actions"]


@pytest.mark.parametrize("query_id, state, cause, results", [
    ("PW-Q001", "respond", None, 2), ("PW-Q002", "respond", None, 4), ("PW-Q003", "respond", None, 1),
    ("PW-Q004", "conflict", "all_excluded", 0), ("PW-Q005", "unauthorized", "all_unauthorized", 0),
    ("PW-Q006", "clarify", None, 8), ("PW-Q007", "clarify", "transformation_failed", 0),
    ("PW-Q008", "prohibited_scope", "out_of_scope", 0), ("PW-Q009", "respond", None, 1),
])
def test_each_query_state_and_cause(record, query_id, state, cause, results):
    row = next(s for s in record["summary"] if s["query_id"] == query_id)
    assert (row["state"], row["empty_cause"], row["results"]) == (state, cause, results)


def test_the_four_traces(record):
    names = [(t["name"], t["query_id"]) for t in record["traces"]]
    assert names == [("ordinary explicit evidence", "PW-Q001"), ("unauthorized closest neighbour", "PW-Q002"),
                     ("stale and conflicting evidence: abstain", "PW-Q004"), ("empty after controls", "PW-Q005")]
    ordinary = _trace(record, "PW-Q001")
    assert ordinary["decision"]["evidence_refs"] == ["PW-L001:diameter_mm", "PW-L003:diameter_mm"]
    abstain = _trace(record, "PW-Q004")["decision"]
    assert abstain["state"] == "conflict" and abstain["reason_codes"] == ["TITLE_FIELD_CONFLICT", "STALE_RECORD"]
    assert abstain["next_actions"][0].startswith("abstain")
    empty = _trace(record, "PW-Q005")
    assert empty["ranked"] == [] and empty["empty_cause"] == "all_unauthorized"
    assert empty["decision"]["reason_codes"] == ["PERMISSION_UNKNOWN", "PERMISSION_DENIED"]


def test_empty_never_invents_a_listing(record):
    for run in record["traces"]:
        if not run["ranked"]:
            refs = run["decision"]["evidence_refs"]
            assert all(ref.startswith("ref-") or ref.startswith(run["query_id"]) for ref in refs)
    text = methods("eligibility").stdout.decode()
    assert text.count("No listing is invented.") == 2


def test_other_empty_causes_on_small_pools():
    bearing = Query("PW-T001", "ball bearing 40 mm", (0.1, 0.1, 0.9), VECTOR_VERSION)
    result = evaluate(bearing)
    assert result.ranked == () and result.empty_cause == "no_permitted_match"
    assert result.decision.state == "incompatible" and result.decision.reason_codes == ("NO_COMPATIBLE_MATCH",)
    stale_only = evaluate(query_by_id("PW-Q004"), [listing_by_id("PW-L006")])
    assert stale_only.empty_cause == "all_stale" and stale_only.decision.state == "degraded"
    assert empty_cause(False, False, ["degraded", "conflict"]) == "all_excluded"


def test_matches_request_uses_every_reading():
    q18 = parse_query(query_by_id("PW-Q004"))
    assert matches_request(listing_by_id("PW-L007"), q18)      # its title says 18 mm
    assert not matches_request(listing_by_id("PW-L001"), q18)  # 16 mm everywhere
    assert matches_request(listing_by_id("PW-L011"), q18) is False  # an O-ring, not a mechanical seal


# ---------------------------------------------------------------- nothing restricted leaves

def test_withheld_listings_appear_only_as_opaque_refs(record):
    shown = json.dumps(record) + methods("eligibility").stdout.decode()
    for listing_id in RESTRICTED_IDS:
        assert listing_id not in shown
    for text in RESTRICTED_STRINGS:
        assert text not in shown
    for run in record["traces"]:
        assert all(d["subject"].startswith("ref-") for d in run["withheld"])
        for channel in run["channels"]:
            assert all(t["candidate"].startswith("ref-") == t["withheld"] for t in channel["top"])


# ---------------------------------------------------------------- bad input

def test_bad_input_names_the_field_and_value():
    with pytest.raises(TypeError, match=r"states must be a collection of state names, got str 'respond'"):
        decide_state("respond")
    with pytest.raises(ValueError, match=r"state must be one of .* got 'stale'"):
        decide_state(["stale"])
    with pytest.raises(TypeError, match=r"pairs\[0\] must be a \(listing_id, permission\) tuple, got \('PW-L001',\)"):
        permission_gate([("PW-L001",)])
    with pytest.raises(TypeError, match=r"scope_prohibited must be a bool, got str 'no'"):
        empty_cause("no", False, [])
    with pytest.raises(ValueError, match=r"withheld state must be one of .* got 'stale'"):
        empty_cause(False, False, ["stale"])
    with pytest.raises(TypeError, match=r"listing must be a Listing, got str 'PW-L001'"):
        diameter_readings("PW-L001")
    with pytest.raises(TypeError, match=r"query must be a Query, got str 'seal'"):
        evaluate("seal")
    with pytest.raises(TypeError, match=r"contract must be a QueryContract, got str 'q'"):
        check_candidate(listing_by_id("PW-L001"), "q")
    with pytest.raises(ValueError, match=r"show must be a whole number >= 1, got 0"):
        evaluate(query_by_id("PW-Q001"), show=0)
    with pytest.raises(TypeError, match=r"listings\[0\] must be a Listing, got str 'PW-L001'"):
        evaluate(query_by_id("PW-Q001"), ["PW-L001"])
    assert len(LISTINGS) == 16 and len(QUERIES) == 9
