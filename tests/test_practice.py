"""Lesson 11's figures and contracts (the capstone), asserted on the mechanism and on the command."""

import importlib.util
import json

import pytest

from helpers import ROOT, methods
from modules import practice
from modules.practice import (AS_OF, BUDGET, CANDIDATES, EXAMPLE_RULE, SCOPE, Candidate, canonical_dedupe,
                              decision_table, is_current, settle_conflict, stated_amounts)
from modules.common.units import lab_tokens

REFERENCE = [
    ("A1", "keep", "evidence", 1), ("E1", "discard", "off_topic", None), ("B1", "discard", "mirror", None),
    ("C1", "discard", "expired", None), ("D2", "keep", "disputed", 3), ("D1", "keep", "disputed", 4),
    ("F1", "keep", "evidence", 5), ("A2", "keep", "adjacent", 2),
]


def test_the_fixture_is_the_curriculums():
    assert [c.id for c in CANDIDATES] == ["A1", "E1", "B1", "C1", "D2", "D1", "F1", "A2"]
    assert BUDGET == 1000 and practice.RULES == ()
    by_id = {c.id: c for c in CANDIDATES}
    a1, a2 = by_id["A1"], by_id["A2"]
    assert a1.document == a2.document and a2.chunk == a1.chunk + 1             # adjacent chunks of one document
    assert "Exception" in a2.text and "Conclusion" in a1.text
    assert by_id["B1"].canonical == "travel-policy" != by_id["B1"].document    # a mirror copy of A
    assert a1.text in by_id["B1"].text and a2.text in by_id["B1"].text
    assert by_id["C1"].valid_until < AS_OF                                     # expired
    assert stated_amounts(by_id["D1"].text) == (500,) and stated_amounts(by_id["D2"].text) == (600,)
    assert by_id["D1"].authority > by_id["D2"].authority                        # the tempting score
    assert by_id["E1"].similarity > by_id["F1"].similarity and by_id["E1"].scope != SCOPE
    assert [lab_tokens(c.text) for c in CANDIDATES] == [69, 53, 129, 24, 25, 23, 36, 49]


def test_reference_decision_table():
    plan = decision_table(CANDIDATES, AS_OF, SCOPE, BUDGET)
    assert [(d.id, d.decision, d.reason, d.order) for d in plan.decisions] == REFERENCE
    assert plan.packet == ("A1", "A2", "D2", "D1", "F1")
    assert plan.dedupe == {"B1": "travel-policy"}
    assert (plan.conflict.state, plan.conflict.kept, plan.conflict.amounts) == ("unresolved", ("D2", "D1"), (600, 500))
    assert plan.used_tokens == 202 and plan.budget == 1000


def test_command_shows_the_scenario_and_hides_the_table_without_solution():
    plain = methods("practice").stdout.decode()
    assert "Eight candidates" in plain and "Reference decision table" not in plain
    assert "--solution" in plain
    flat = " ".join(plain.split())
    for question in practice.CAPSTONE_QUESTIONS:
        assert question in flat
    assert "reference" not in json.loads(methods("practice", "--json").stdout)


def test_solution_flag_prints_the_reference_table():
    text = methods("practice", "--solution").stdout.decode()
    assert "Reference decision table" in text and "Selection order and final packet: A1, A2, D2, D1, F1" in text
    ref = json.loads(methods("practice", "--json", "--solution").stdout)["reference"]
    assert [(d["id"], d["decision"], d["reason"], d["order"]) for d in ref["decisions"]] == REFERENCE
    assert ref["selection_order"] == ref["packet"] == ["A1", "A2", "D2", "D1", "F1"]
    assert ref["dedupe"]["clusters"] == {"travel-policy": {"kept": ["A1", "A2"], "dropped": ["B1"]}}
    assert ref["conflict"]["state"] == "unresolved" and ref["conflict"]["amounts"] == [600, 500]
    assert ref["used_tokens"] == 202 and ref["budget_only"]["tokens"] == 408
    assert ref["with_declared_rule"]["packet"] == ["A1", "A2", "D1", "F1"]
    assert ref["with_declared_rule"]["discarded"]["D2"] == "superseded_by_rule"
    assert len(ref["answers"]) == 3


def test_units_travel_whole_at_every_budget():
    for budget in range(0, 260):
        packet = decision_table(CANDIDATES, AS_OF, SCOPE, budget).packet
        assert ("A1" in packet) == ("A2" in packet), budget
        assert ("D1" in packet) == ("D2" in packet), budget
        assert not {"B1", "C1", "E1"} & set(packet)
        assert sum(lab_tokens(c.text) for c in CANDIDATES if c.id in packet) <= budget


def test_authority_never_settles_only_a_declared_rule_does():
    by_id = {c.id: c for c in CANDIDATES}
    swapped = [by_id["D2"]._replace(authority=0.99), by_id["D1"]._replace(authority=0.01)]
    assert settle_conflict(swapped).state == "unresolved"
    resolved = settle_conflict([by_id["D2"], by_id["D1"]], EXAMPLE_RULE)
    assert (resolved.state, resolved.kept, resolved.rule) == ("resolved", ("D1",), "finance-office over finance-faq")


def test_validity_and_canonical_rules():
    by_id = {c.id: c for c in CANDIDATES}
    assert not is_current(by_id["C1"], AS_OF) and is_current(by_id["C1"], "2025-12-31")
    assert not is_current(by_id["A1"], "2025-12-31")
    assert canonical_dedupe([by_id["B1"], by_id["A1"], by_id["A2"]]) == {"B1": "travel-policy"}
    assert canonical_dedupe([by_id["B1"]]) == {}


def _solution():
    spec = importlib.util.spec_from_file_location("solution_practice", ROOT / "solutions" / "practice.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("as_of, scope, budget, rules, order", [
    (AS_OF, SCOPE, BUDGET, (), None),
    (AS_OF, SCOPE, BUDGET, EXAMPLE_RULE, None),
    ("2025-06-01", SCOPE, BUDGET, (), None),
    (AS_OF, "staff conference travel", BUDGET, (), None),
    (AS_OF, SCOPE, 143, (), None),
    (AS_OF, SCOPE, 100, (), ("A2", "F1", "B1", "A1", "D1", "C1", "D2", "E1")),
])
def test_solution_and_mechanism_agree(as_of, scope, budget, rules, order):
    by_id = {c.id: c for c in CANDIDATES}
    candidates = [by_id[i] for i in order] if order else list(CANDIDATES)
    assert _solution().decision_table(candidates, as_of, scope, budget, rules) == \
        decision_table(candidates, as_of, scope, budget, rules)


@pytest.mark.parametrize("call, error, words", [
    (lambda: practice.trace(solution="yes"), TypeError, "solution must be a bool, got str 'yes'"),
    (lambda: decision_table(CANDIDATES, "2026-6-1", SCOPE, BUDGET), ValueError,
     "as_of must be an ISO date YYYY-MM-DD, got '2026-6-1'"),
    (lambda: decision_table(CANDIDATES, AS_OF, "", BUDGET), ValueError, "scope must be a non-empty str, got ''"),
    (lambda: decision_table(CANDIDATES, AS_OF, SCOPE, True), TypeError, "budget must be an int of lab tokens, got bool"),
    (lambda: decision_table(CANDIDATES, AS_OF, SCOPE, -5), ValueError, "budget must be >= 0, got -5"),
    (lambda: decision_table(["A1"], AS_OF, SCOPE, BUDGET), TypeError, "candidates[0] must be a Candidate, got str 'A1'"),
    (lambda: decision_table(CANDIDATES + CANDIDATES[:1], AS_OF, SCOPE, BUDGET), ValueError, "id 'A1' appears twice"),
    (lambda: settle_conflict(CANDIDATES, [("finance-office",)]), ValueError, "each rule must be a (winner_source"),
    (lambda: is_current(CANDIDATES[0], "June 1"), ValueError, "as_of must be an ISO date YYYY-MM-DD, got 'June 1'"),
    (lambda: Candidate(*CANDIDATES[0][:3], "3", *CANDIDATES[0][4:]), TypeError,
     "Candidate.chunk must be an int, got str '3'"),
    (lambda: Candidate(*CANDIDATES[0][:7], "2025-02-30", "", 0.5, "x"), ValueError,
     "Candidate.valid_from must be an ISO date YYYY-MM-DD, got '2025-02-30'"),
    (lambda: Candidate(*CANDIDATES[0][:9], True, "x"), TypeError, "Candidate.authority must be a number, got bool"),
    (lambda: stated_amounts(500), TypeError, "text must be a str, got int 500"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)
