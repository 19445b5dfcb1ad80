"""Lesson 08's figures and contracts, asserted on the mechanism and on the command."""

import json
import os
from dataclasses import replace
from itertools import combinations

import pytest

from helpers import methods
from modules.catalogue import (LISTINGS, QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS, VECTOR_VERSION,
                                      Listing, Query, listing_by_id, opaque_ref, query_by_id)
from modules.catalogue.policy import FRESHNESS, POLICY_VERSION, field_ages, gate
from modules.eligibility import (CATALOGUE, STATES, check_evidence, decide_state, diameter_readings, empty_cause,
                                 enumerate_refs, evaluate, matches_request, permission_gate, unkeyed_ref)
from modules.hybrid import parse_query


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("eligibility", "--json").stdout)


def _trace(record, query_id):
    return next(t for t in record["traces"] if t["query_id"] == query_id)


def _decision(query_id, listings=LISTINGS, as_of="2026-11-01"):
    return evaluate(query_by_id(query_id), listings, as_of).output("decision")


# ---------------------------------------------------------------- permission before ranking

def test_denied_closest_neighbour_never_reaches_ranking(record):
    run = evaluate(query_by_id("PW-Q002"))
    assert run.output("vector").ranking[0] == "PW-L004"
    assert all(not set(f.members) & set(RESTRICTED_IDS) for f in run.output("fusion").candidates)
    near = _trace(record, "PW-Q002")["closest_neighbour"]
    assert near == {"candidate": opaque_ref("PW-L004"), "withheld": True, "state": "unauthorized",
                    "reached_ranking": False}


def test_unknown_and_missing_permission_fail_closed():
    assert permission_gate([("PW-L005", "unknown"), ("X", None), ("Y", "ALLOWED"), ("Z", "allowed")]) == (
        ["Z"], [(opaque_ref("PW-L005"), "PERMISSION_UNKNOWN"), (opaque_ref("X"), "PERMISSION_UNKNOWN"),
                (opaque_ref("Y"), "PERMISSION_UNKNOWN")])
    run = evaluate(query_by_id("PW-Q005"))
    decision = next(d for d in run.output("gate").decisions if d.subject == opaque_ref("PW-L005"))
    assert (decision.state, decision.reason_codes, decision.clause_ids) == ("unauthorized", ("PERMISSION_UNKNOWN",),
                                                                            ("P2.1",))
    assert decision.evidence_refs == (f"{opaque_ref('PW-L005')}:permission",)


def test_duplicate_ids_with_differing_permission_fail_closed():
    # Before: the later copy won, and PW-L004 (denied) was ranked for PW-Q002.
    allowed_copy = replace(listing_by_id("PW-L004"), permission="allowed")
    for listings in (LISTINGS + (allowed_copy,), (allowed_copy,) + LISTINGS):
        run = evaluate(QUERIES[1], listings)
        gate_result = run.output("gate")
        ref = opaque_ref("PW-L004")
        decision = next(d for d in gate_result.decisions if d.subject == ref)
        assert decision.reason_codes == ("DUPLICATE_ID_CONFLICT",) and decision.clause_ids == ("P2.2",)
        for channel in run.of_kind("channel"):
            assert len(set(channel.ranking)) == len(channel.ranking), channel.channel
        members = [m for f in run.output("fusion").candidates for m in f.members]
        assert "PW-L004" not in members and len(members) == len(set(members))
        assert "PW-L004" not in {i for i, _ in run.output("packet").fields}
    assert permission_gate([("A", "allowed"), ("A", "denied"), ("B", "allowed"), ("B", "allowed")]) == (
        ["B"], [(opaque_ref("A"), "DUPLICATE_ID_CONFLICT")])


def test_identical_copies_are_one_listing():
    run = evaluate(QUERIES[0], LISTINGS + (listing_by_id("PW-L001"),))
    assert run.output("decision").decision == _decision("PW-Q001").decision


def test_stale_required_field_withholds_and_stale_optional_field_is_left_out():
    run = evaluate(query_by_id("PW-Q004"))
    stale = next(d for d in run.output("gate").decisions if d.subject == "PW-L006")
    assert (stale.state, stale.reason_codes, stale.clause_ids) == ("degraded", ("STALE_FIELD",) * 1, ("P6",))
    assert stale.evidence_refs == ("PW-L006:diameter_mm",)
    q3 = evaluate(query_by_id("PW-Q003"))
    packet = q3.output("packet")
    assert packet.listings == ("PW-L010",) and packet.omitted == ("PW-L010#price_eur",)
    assert "PW-L010#price_eur" not in dict(packet.fields) and "PW-L010#diameter_mm" in dict(packet.fields)
    decision = q3.output("decision").decision
    assert (decision.state, decision.reason_codes, decision.clause_ids) == ("degraded", ("STALE_FIELD_OMITTED",),
                                                                            ("P6.1", "P7"))


def test_freshness_is_per_field_against_an_explicit_as_of_date():
    assert [(r.field, r.max_days, r.required) for r in FRESHNESS] == [("diameter_mm", 1826, True),
                                                                     ("price_eur", 60, False)]
    l010 = listing_by_id("PW-L010")
    now = {r.field: r for r in field_ages(l010, "2026-11-01")}
    assert (now["diameter_mm"].age_days, now["diameter_mm"].fresh) == (1300, True)   # a dimension stays valid
    assert (now["price_eur"].age_days, now["price_eur"].fresh) == (104, False)       # a price does not
    assert all(r.fresh for r in field_ages(l010, "2026-08-01"))
    assert _decision("PW-Q003", as_of="2026-08-01").decision.state == "respond"
    assert _decision("PW-Q003", as_of="2026-11-01").decision.state == "degraded"
    # A field checked after the as-of date was not known then; one never checked is not fresh.
    assert not field_ages(l010, "2023-01-01")[0].fresh
    bare = replace(l010, checked_on=(("diameter_mm", "2026-10-01"),))
    assert [r.fresh for r in field_ages(bare, "2026-11-01")] == [True, False]
    with pytest.raises(ValueError, match="as_of must be an ISO date"):
        field_ages(l010, "1 Nov 2026")
    with pytest.raises(ValueError, match="as_of must be an ISO date"):
        evaluate(QUERIES[0], LISTINGS, "2026-13-01")


def test_freshness_shown_in_the_trace(record):
    rows = {(r["listing_id"], r["field"]): r for r in record["freshness"]["rows"]}
    assert rows[("PW-L006", "diameter_mm")]["fresh"] is False and rows[("PW-L010", "diameter_mm")]["fresh"] is True
    assert rows[("PW-L010", "price_eur")]["age_days"] == 104 and record["freshness"]["as_of"] == "2026-11-01"
    assert "per field" in methods("eligibility").stdout.decode()


def test_conflicting_listing_is_never_picked():
    assert diameter_readings(listing_by_id("PW-L007")) == {"diameter_mm": "16", "title": "18"}
    for query_id in ("PW-Q001", "PW-Q004"):
        decision = check_evidence(listing_by_id("PW-L007"), parse_query(query_by_id(query_id)))
        assert decision.state == "conflict" and decision.reason_codes == ("TITLE_FIELD_CONFLICT",)


def test_prohibited_family_listing_is_withheld_at_the_gate():
    decisions = evaluate(query_by_id("PW-Q002")).output("gate").decisions
    decision = next(d for d in decisions if d.subject == "PW-L008")
    assert decision.state == "prohibited_scope" and decision.reason_codes == ("PROHIBITED_FAMILY",)


@pytest.mark.parametrize("query_id, reason", [("PW-Q008", "PROHIBITED_QUERY_SCOPE"),
                                              ("PW-Q007", "QUERY_TRANSFORM_FAILED")])
def test_a_stopped_query_gets_no_retrieval_and_no_packet(query_id, reason):
    run = evaluate(query_by_id(query_id))
    assert run.halted_by == "query-scope" and run.of_kind("channel") == ()
    assert run.output("packet", None) is None and run.output("decision").decision.reason_codes == (reason,)


# ---------------------------------------------------------------- states and decisions

def test_precedence_order_and_every_pair():
    assert STATES == ("prohibited_scope", "unauthorized", "incompatible", "conflict", "clarify", "degraded",
                      "respond")
    for stronger, weaker in combinations(STATES, 2):
        assert decide_state([weaker, stronger]) == decide_state([stronger, weaker]) == stronger
    assert decide_state([]) == "respond"


def test_one_policy_version_everywhere():
    versions = CATALOGUE.versions()
    assert versions["query-scope"] == versions["gate"] == versions["decision"] == POLICY_VERSION
    from modules.grounding import GROUNDED
    assert GROUNDED.versions()["gate"] == POLICY_VERSION


def test_every_decision_is_recorded_in_full(record):
    for run in record["traces"]:
        for decision in run["withheld"] + run["excluded"] + [run["decision"]]:
            assert set(decision) == {"subject", "state", "reason_codes", "clause_ids", "evidence_refs",
                                     "next_actions"}
            assert decision["state"] in STATES and decision["next_actions"]
            assert decision["reason_codes"] and decision["clause_ids"] and decision["evidence_refs"]


@pytest.mark.parametrize("query_id, state, cause, packed", [
    ("PW-Q001", "respond", None, 2), ("PW-Q002", "respond", None, 3), ("PW-Q003", "degraded", None, 1),
    ("PW-Q004", "conflict", "all_excluded", 0), ("PW-Q005", "unauthorized", "all_unauthorized", 0),
    ("PW-Q006", "clarify", None, 0), ("PW-Q007", "clarify", "transformation_failed", 0),
    ("PW-Q008", "prohibited_scope", "out_of_scope", 0), ("PW-Q009", "respond", None, 1),
])
def test_each_query_state_and_cause(record, query_id, state, cause, packed):
    row = next(s for s in record["queries"] if s["query_id"] == query_id)
    listings = {field.split("#")[0] for field in row["packet"]}
    assert (row["state"], row["empty_cause"], len(listings)) == (state, cause, packed)


def test_the_four_traces(record):
    assert [(t["name"], t["query_id"]) for t in record["traces"]] == [
        ("ordinary explicit evidence", "PW-Q001"), ("unauthorized closest neighbour", "PW-Q002"),
        ("stale and conflicting evidence: abstain", "PW-Q004"), ("empty after controls", "PW-Q005")]
    assert _trace(record, "PW-Q001")["decision"]["evidence_refs"] == ["PW-L001:diameter_mm", "PW-L003:diameter_mm"]
    abstain = _trace(record, "PW-Q004")["decision"]
    assert abstain["state"] == "conflict" and abstain["reason_codes"] == ["TITLE_FIELD_CONFLICT", "STALE_FIELD"]
    assert abstain["next_actions"][0].startswith("abstain")
    empty = _trace(record, "PW-Q005")
    assert empty["packet"] == [] and empty["empty_cause"] == "all_unauthorized"
    assert empty["decision"]["reason_codes"] == ["PERMISSION_UNKNOWN", "PERMISSION_DENIED"]


def test_empty_never_invents_a_listing(record):
    for run in record["traces"]:
        if not run["packet"]:
            assert all(ref.startswith(("ref-", "PW-L", run["query_id"])) for ref in run["decision"]["evidence_refs"])
    assert methods("eligibility").stdout.decode().count("No listing is invented.") == 2


def test_other_empty_causes_on_small_pools():
    bearing = Query("PW-T001", "ball bearing 40 mm", (0.1, 0.1, 0.9), VECTOR_VERSION)
    result = evaluate(bearing).output("decision")
    assert result.empty_cause == "no_permitted_match"
    assert result.decision.state == "incompatible" and result.decision.reason_codes == ("NO_COMPATIBLE_MATCH",)
    stale_only = evaluate(query_by_id("PW-Q004"), [listing_by_id("PW-L006")]).output("decision")
    assert stale_only.empty_cause == "all_stale" and stale_only.decision.state == "degraded"
    assert empty_cause(False, False, ["degraded", "conflict"]) == "all_excluded"


def test_matches_request_uses_every_reading():
    q18 = parse_query(query_by_id("PW-Q004"))
    assert matches_request(listing_by_id("PW-L007"), q18)      # its title says 18 mm
    assert not matches_request(listing_by_id("PW-L001"), q18)  # 16 mm everywhere
    assert matches_request(listing_by_id("PW-L011"), q18) is False  # an O-ring, not a mechanical seal


# ---------------------------------------------------------------- opaque refs

def test_unkeyed_refs_are_reversed_by_enumeration_and_keyed_ones_are_not(record):
    guesses = [f"PW-L{n:03d}" for n in range(1000)]
    unkeyed = enumerate_refs([unkeyed_ref(i) for i in RESTRICTED_IDS], unkeyed_ref, guesses)
    assert sorted(unkeyed.values()) == sorted(RESTRICTED_IDS)
    keyed = enumerate_refs([opaque_ref(i) for i in RESTRICTED_IDS], unkeyed_ref, guesses)
    assert set(keyed.values()) == {None}
    refs = record["opaque_refs"]
    assert (refs["unkeyed_reversed"], refs["keyed_reversed"], refs["restricted"]) == (3, 0, 3)
    assert "DEMO key" in refs["key"] and "CONTEXT_LAB_REF_KEY" in refs["key"]


def test_opaque_refs_are_keyed_and_the_key_is_replaceable(monkeypatch):
    import hashlib
    import hmac
    from modules.catalogue import DEMO_REF_KEY
    assert opaque_ref("PW-L004") == "ref-" + hmac.new(DEMO_REF_KEY, b"PW-L004", hashlib.sha256).hexdigest()[:12]
    monkeypatch.setenv("CONTEXT_LAB_REF_KEY", "a deployment secret")
    assert opaque_ref("PW-L004") == "ref-" + hmac.new(b"a deployment secret", b"PW-L004",
                                                      hashlib.sha256).hexdigest()[:12]
    shown = methods("eligibility", "--json", env={"CONTEXT_LAB_REF_KEY": "another"}).stdout.decode()
    assert "ref-" in shown and opaque_ref("PW-L004") not in shown and "DEMO key" not in shown
    assert "CONTEXT_LAB_REF_KEY" in json.loads(shown)["opaque_refs"]["key"]
    os.environ.pop("CONTEXT_LAB_REF_KEY", None)



def test_the_gate_names_withheld_listings_with_the_current_key(monkeypatch):
    # The gate remembers each index's verdicts; a new key must still give new refs.
    query = next(q for q in QUERIES if q.id == "PW-Q005")

    def refs():
        result = evaluate(query).output("gate")
        pairs = [(i, d.subject) for i, d in zip(result.withheld, result.decisions) if d.state == "unauthorized"]
        assert pairs and all(subject == opaque_ref(i) for i, subject in pairs)   # under the key of the moment
        return {subject for _i, subject in pairs}

    monkeypatch.delenv("CONTEXT_LAB_REF_KEY", raising=False)
    demo = refs()
    monkeypatch.setenv("CONTEXT_LAB_REF_KEY", "a deployment secret")
    assert not refs() & demo


# ---------------------------------------------------------------- nothing restricted leaves

def test_withheld_listings_appear_only_as_opaque_refs(record):
    shown = json.dumps(record) + methods("eligibility").stdout.decode()
    for listing_id in RESTRICTED_IDS:
        assert listing_id not in shown
    for text in RESTRICTED_STRINGS:
        assert text not in shown
    for run in record["traces"]:
        for channel in run["channels"]:
            for top in channel["top"]:
                if top["candidate"].startswith("ref-"):
                    assert top["withheld"]


# ---------------------------------------------------------------- bad input

def test_bad_input_names_the_field_and_value():
    with pytest.raises(TypeError, match=r"states must be a sequence of state names, got str 'respond'"):
        decide_state("respond")
    with pytest.raises(TypeError, match=r"states must be a sequence of state names, got set"):
        decide_state({"respond"})
    with pytest.raises(ValueError, match=r"state must be one of .* got 'stale'"):
        decide_state(["stale"])
    with pytest.raises(TypeError, match=r"pairs\[0\] must be a \(listing_id, permission\) tuple, got \('PW-L001',\)"):
        permission_gate([("PW-L001",)])
    with pytest.raises(TypeError, match=r"pairs must be a sequence of tuple, got set"):
        permission_gate({("PW-L001", "allowed")})
    with pytest.raises(TypeError, match=r"scope_prohibited must be a bool, got str 'no'"):
        empty_cause("no", False, [])
    with pytest.raises(ValueError, match=r"withheld state must be one of .* got 'stale'"):
        empty_cause(False, False, ["stale"])
    with pytest.raises(TypeError, match=r"listing must be a Listing, got str 'PW-L001'"):
        diameter_readings("PW-L001")
    with pytest.raises(TypeError, match=r"query must be a Query, got str 'seal'"):
        evaluate("seal")
    with pytest.raises(TypeError, match=r"contract must be a QueryContract, got str 'q'"):
        check_evidence(listing_by_id("PW-L001"), "q")
    with pytest.raises(TypeError, match=r"listings\[0\] must be a Listing, got str 'PW-L001'"):
        evaluate(QUERIES[0], ["PW-L001"])
    with pytest.raises(ValueError, match=r"Listing.permission must be one of"):
        replace(listing_by_id("PW-L001"), permission="yes")
    with pytest.raises(ValueError, match=r"Listing.checked_on"):
        replace(listing_by_id("PW-L001"), checked_on=(("colour", "2026-01-01"),))
    with pytest.raises(TypeError, match=r"listing must be a Listing"):
        field_ages("PW-L001", "2026-11-01")
    assert gate.__name__ == "gate"


# ---------------------------------------------------------------- the default trace is the lesson

def test_every_curriculum_figure_prints_in_the_default_trace():
    # The curriculum's figures for lesson 08, as they print (whitespace normalised, so a table
    # row or a wrapped sentence reads as one line): no option is needed to see any of them.
    ref = {i: opaque_ref(i) for i in ("PW-L004", "PW-L005", "PW-L016")}
    figures = [
        "assisted-use-policy/4",
        "prohibited_scope > unauthorized > incompatible > conflict > clarify > degraded > respond",
        # freshness per field against an explicit as-of date
        "PW-L006 diameter_mm 2020-06-15 2330 1826 yes no", "PW-L006 price_eur 2020-06-15 2330 60 no no",
        "PW-L010 diameter_mm 2023-04-11 1300 1826 yes yes", "PW-L010 price_eur 2026-07-20 104 60 no no",
        "as of 2026-08-01, PW-L010's diameter_mm was 1208 days old (fresh) and price_eur was 12 days old (fresh)",
        # the gate, before ranking: fail closed, opaque refs, prohibited family, stale
        "PW-L008 prohibited_scope PROHIBITED_FAMILY P1", f"{ref['PW-L005']} unauthorized PERMISSION_UNKNOWN P2.1",
        f"{ref['PW-L004']} unauthorized PERMISSION_DENIED P2", f"{ref['PW-L016']} unauthorized PERMISSION_DENIED P2",
        "PW-L006 degraded STALE_FIELD P6",
        # the four traces and their recorded decisions
        "Decision for PW-Q001: respond", "evidence refs: PW-L001:diameter_mm PW-L003:diameter_mm",
        f"Closest vector neighbour: {ref['PW-L004']}, withheld (unauthorized); reached ranking: no",
        "Decision for PW-Q002: respond", "4 are usable, so PW-L012 (ranked below the first 3) is left out",
        "PW-L007 0.032787 conflict TITLE_FIELD_CONFLICT P4", "Empty cause: all_excluded",
        "Decision for PW-Q004: conflict", "reason codes: TITLE_FIELD_CONFLICT STALE_FIELD", "clause ids: P4 P6 P7",
        "Decision for PW-Q005: unauthorized", "Empty cause: all_unauthorized",
        "reason codes: PERMISSION_UNKNOWN PERMISSION_DENIED",
        # the two holes: duplicate ids and unkeyed refs
        "DUPLICATE_ID_CONFLICT, clause P2.2); reached ranking: no", "reverses 3 of the 3 restricted",
        "reverses 0 of the keyed",
        # every query's state and the named cause of every empty result
        "PW-Q003 lip seal 0.625 inch degraded no", "PW-Q006 pump seal 16 clarify no",
        "PW-Q007 seal 16 mm or 18 mm clarify yes", "PW-Q008 safety relief valve seal 16 mm prohibited_scope yes",
        "PW-Q003 STALE_FIELD_OMITTED PW-L010", "PW-Q007 QUERY_TRANSFORM_FAILED transformation_failed",
        "PW-Q008 PROHIBITED_QUERY_SCOPE out_of_scope",
        "out_of_scope, transformation_failed, no_permitted_match, all_unauthorized, all_stale, all_excluded",
    ]
    from helpers import figures_missing
    missing = figures_missing("eligibility", figures)
    assert not missing, f"not in the default trace: {missing}"


# ---------------------------------------------------------------- tasks that the reading does not answer

@pytest.mark.parametrize("task, source", [
    (1, "from modules.catalogue.policy import decide_state as lesson_decide_state\n\n\n"
        "def query_state(usable, matched_states, stale_left_out):\n"
        "    return lesson_decide_state(matched_states)\n"),
    (2, "from modules.catalogue.policy import permission_gate as lesson_permission_gate\n\n\n"
        "def listing_and_seller_gate(pairs, seller_of, seller_permission):\n"
        "    return lesson_permission_gate(pairs)\n"),
    (3, "from modules.catalogue.policy import permission_gate as lesson_permission_gate\n"
        "from modules.hybrid import reciprocal_rank_fusion as lesson_rrf\n\n\n"
        "def rank_permitted(rankings, permission_of, cluster_of, k=60):\n"
        "    permitted, _withheld = lesson_permission_gate(list(permission_of.items()))\n"
        "    return lesson_rrf([[i for i in ranking if i in permitted] for ranking in rankings], k)\n"),
], ids=["query_state", "listing_and_seller_gate", "rank_permitted"])
def test_the_lessons_own_function_fails_the_task(task, source):
    # Issue 36: the lesson's own function, pasted in as the answer (a later def wins), fails the task.
    from helpers import failed_tasks, pasted_text
    assert task in failed_tasks("eligibility", pasted_text("eligibility", preamble=source))


def test_the_predict_tasks_premise_holds_on_the_fixture():
    from helpers import ROOT
    from modules.catalogue.policy import day_number
    premise = (ROOT / "exercises" / "eligibility.py").read_text(encoding="utf-8").split("# Task 6 (predict).")[1]
    premise = " ".join(line.lstrip("# ") for line in premise.split("PW_Q002_ON_2027_06_01 = ")[0].splitlines())
    days = day_number("2027-06-01") - day_number("2026-11-01")
    assert f"as of 2027-06-01, {days} days later" in premise
    today = _decision("PW-Q002")
    run = evaluate(query_by_id("PW-Q002"))
    assert today.decision.state == "respond" and run.output("packet").listings == ("PW-L001", "PW-L003", "PW-L009")
    assert run.output("evidence").usable[3] == "PW-L012" and "PW-L012 is the fourth usable one" in premise
    assert "a diameter stays fresh for 1826 days, a price for 60" in premise
    assert {rule.field: rule.max_days for rule in FRESHNESS} == {"diameter_mm": 1826, "price_eur": 60}
