"""Lesson 11's figures and contracts (the capstone), asserted on the mechanism and on the command."""

from dataclasses import replace
import importlib.util
import json

import pytest

from helpers import ROOT, methods
from modules.dedupe import mechanism as dedupe
from modules.practice import mechanism as practice
from modules.versions import mechanism as versions
from modules.practice import trace as practice_trace
from modules.practice.mechanism import (AS_OF, BUDGET, CANDIDATES, EXAMPLE_RULE, SCOPE, TIGHT_BUDGET, Candidate, as_chunk,
                              canonical_dedupe, decision_table, is_current, settle_conflict, stated_amounts)
from modules.common.units import lab_tokens
from modules.versions import Record

REFERENCE = [
    ("A1", "keep", "evidence", 1), ("E1", "discard", "off_topic", None), ("B1", "discard", "copy", None),
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
    assert by_id["B1"].canonical == "travel-policy" != by_id["B1"].document    # a mirror copy of A1's passage
    assert a1.text in by_id["B1"].text and by_id["B1"].chunk == a1.chunk and a1.text != by_id["B1"].text
    assert by_id["C1"].valid_until < AS_OF                                     # expired
    assert [(a.value, a.unit) for a in stated_amounts(by_id["D1"].text)] == [(500, "euros")]
    assert [(a.value, a.unit) for a in stated_amounts(by_id["D2"].text)] == [(600, "euros")]
    assert by_id["D1"].authority > by_id["D2"].authority                        # the tempting score
    assert by_id["E1"].similarity > by_id["F1"].similarity and by_id["E1"].scope != SCOPE
    assert [lab_tokens(c.text) for c in CANDIDATES] == [69, 53, 80, 24, 25, 23, 39, 49]


def test_f1_is_independent_of_a():
    """Issue 13: F1 said "as the travel policy describes", a restatement of A, not independent support."""
    by_id = {c.id: c for c in CANDIDATES}
    f1 = by_id["F1"]
    assert f1.source != by_id["A1"].source or f1.document != by_id["A1"].document
    assert f1.canonical not in (by_id["A1"].canonical, by_id["A2"].canonical)
    lowered = f1.text.lower()
    assert "policy" not in lowered and "describe" not in lowered and "travel-policy" not in lowered

    def grams(text, n=4):
        words = [w.strip(".,:;") for w in text.lower().split()]
        return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}
    assert not grams(f1.text) & (grams(by_id["A1"].text) | grams(by_id["A2"].text)), "F1 restates A"


def test_reference_decision_table():
    plan = decision_table(CANDIDATES, AS_OF, SCOPE, BUDGET)
    assert [(d.id, d.decision, d.reason, d.order) for d in plan.decisions] == REFERENCE
    assert plan.packet == ("A1", "A2", "D2", "D1", "F1")
    assert plan.dedupe == {"B1": "A1"}
    assert (plan.conflict.state, plan.conflict.kept) == ("unresolved", ("D2", "D1"))
    assert [(a.value, a.unit) for a in plan.conflict.amounts] == [(600, "euros"), (500, "euros")]
    assert plan.used_tokens == 205 and plan.budget == 1000


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
    assert ref["selection_order"] == [p["id"] for p in ref["packet"]] == ["A1", "A2", "D2", "D1", "F1"]
    assert ref["dedupe"]["dropped"] == [{"id": "B1", "kept_id": "A1", "matched": "same anchor #3"}]
    assert ref["dedupe"]["kept_per_document"] == {"travel-policy": ["A1", "A2"]}
    assert ref["conflict"]["state"] == "unresolved"
    assert [(a["id"], a["value"], a["written"]) for a in ref["conflict"]["amounts"]] == [
        ("D2", 600, "600 euros"), ("D1", 500, "500 euros")]
    assert ref["used_tokens"] == 205
    assert json.loads(methods("practice", "--json").stdout)["budget_only"]["tokens"] == 362
    assert ref["with_declared_rule"]["packet"] == ["A1", "A2", "D1", "F1"]
    assert ref["with_declared_rule"]["discarded"]["D2"] == "superseded_by_rule"
    assert len(ref["answers"]) == 3


def test_each_table_keeps_one_row_order():
    """Issue 13: the running-total column followed packet order while the rows followed rank order."""
    ref = json.loads(methods("practice", "--json", "--solution").stdout)["reference"]
    assert [d["rank"] for d in ref["decisions"]] == list(range(1, 9)) and "running_total" not in ref["decisions"][0]
    packet = ref["packet"]
    assert [p["order"] for p in packet] == list(range(1, len(packet) + 1))
    totals = [p["running_total"] for p in packet]
    assert totals == sorted(totals) and totals[-1] == ref["used_tokens"]
    assert all(b - a == p["tokens"] for a, b, p in zip([0] + totals, totals, packet))
    steps = json.loads(methods("practice", "--json").stdout)["tight_run"]["steps"]
    assert [s["step"] for s in steps] == list(range(1, len(steps) + 1))
    blocks = practice_trace.view(practice_trace.trace(solution=True))
    decisions = next(b for b in blocks if b.get("key") == "decisions")["table"]
    assert "running total" not in decisions["columns"]


def test_a_second_run_at_a_budget_that_binds():
    """Issue 13: a second run where the budget binds shows the walk at work."""
    tight = json.loads(methods("practice", "--json").stdout)["tight_run"]
    assert tight["budget"] == TIGHT_BUDGET == 160
    assert [(s["unit"], s["tokens"], s["fits"], s["used_after"]) for s in tight["steps"]] == [
        (["A1", "A2"], 118, True, 118), (["D2", "D1"], 48, False, 118), (["F1"], 39, True, 157)]
    assert tight["packet"] == ["A1", "A2", "F1"] and tight["used_tokens"] == 157
    assert tight["discarded"] == {"E1": "off_topic", "B1": "copy", "C1": "expired", "D2": "budget", "D1": "budget"}
    plan = decision_table(CANDIDATES, AS_OF, SCOPE, TIGHT_BUDGET)
    assert plan.packet == ("A1", "A2", "F1") and plan.used_tokens == 157
    assert "A second run at 160 lab tokens, where the budget binds" in methods("practice").stdout.decode()


def test_canonical_dedupe_is_lesson_03s_and_decides_every_candidate_the_same():
    """Issue 13: one mechanism; the same candidate gets the same decision in lessons 03 and 11."""
    by_id = {c.id: c for c in CANDIDATES}
    a3 = replace(by_id["A2"], id="A3", chunk=5, text="Receipts are kept for a year.")
    b3 = replace(by_id["B1"], id="B3", chunk=9, text="RECEIPTS are kept  for a year.")
    for candidates in (CANDIDATES, CANDIDATES + (a3, b3), tuple(reversed(CANDIDATES))):
        in_03 = dedupe.dedupe_canonical([as_chunk(c) for c in candidates])
        assert canonical_dedupe(candidates) == in_03.dropped
        plan = decision_table(candidates, AS_OF, SCOPE, BUDGET)
        for decision in plan.decisions:
            if decision.reason != "copy":
                assert decision.id not in in_03.dropped or decision.reason in ("expired", "off_topic")
            else:
                assert decision.id in in_03.dropped
    assert canonical_dedupe([by_id["A1"], by_id["A2"]]) == {}   # not one chunk per canonical document


def test_one_amount_reader_and_one_digit_rule_in_lessons_04_and_11():
    """Issue 13: 11 used its own reader, missed '1,600 euros', '€600', ... and disagreed with 04 on digits."""
    assert practice.stated_amounts is versions.stated_amounts
    by_id = {c.id: c for c in CANDIDATES}
    for written in practice.D2_SPELLINGS:
        d2 = replace(by_id["D2"], text=f"The allowance is {written} per trip.")
        conflict = settle_conflict([d2, by_id["D1"]])
        first = versions.stated_amounts(d2.text)[0]
        assert conflict.amounts[0] == first
        if first.value is None:
            assert conflict.state == "unreadable" and conflict.kept == ("D2", "D1")
            with pytest.raises(ValueError, match="cannot be read"):
                versions.parse_amount(d2.text)
        else:
            assert versions.parse_amount(d2.text) == (first.value, first.unit)
            assert conflict.state == ("none" if first.value == 500 else "unresolved")
    arabic = replace(by_id["D2"], text="The allowance is \u0666\u0660\u0660 euros.")   # 600 in Arabic-Indic digits
    assert settle_conflict([arabic, by_id["D1"]]).state == "unreadable"
    with pytest.raises(ValueError, match="cannot be read"):
        versions.parse_amount(arabic.text)
    rows = json.loads(methods("practice", "--json").stdout)["amount_reader"]
    assert {r["written"]: (r["value"], r["state"]) for r in rows} == {
        "600 euros": (600, "unresolved"), "1,600 euros": (1600, "unresolved"), "600 EUR": (600, "unresolved"),
        "EUR 600": (600, "unresolved"), "€600": (600, "unresolved"), "600 euro": (600, "unresolved"),
        "six hundred euros": (None, "unreadable"), "\u0666\u0660\u0660 euros": (None, "unreadable"),
        "500 euros": (500, "none")}


def test_candidate_and_record_share_one_validity_check():
    """Issue 13: Candidate accepted valid_from later than valid_until; versions.Record refused it."""
    with pytest.raises(ValueError, match="Candidate.valid_until '2026-01-01' is before valid_from '2026-02-01'"):
        replace(CANDIDATES[0], valid_from="2026-02-01", valid_until="2026-01-01")
    with pytest.raises(ValueError, match="Record.valid_until '2026-01-01' is before valid_from '2026-02-01'"):
        Record("r", "s", "1", "t", "x", valid_from="2026-02-01", valid_until="2026-01-01")
    for day in ("2025-12-31", "2026-01-01", "2026-06-01"):
        c1 = CANDIDATES[3]
        assert is_current(c1, day) == versions.in_window(day, c1.valid_from or None, c1.valid_until or None)


def test_plain_output_fits_88_columns_with_keys_and_legends():
    for args in ((), ("--solution",)):
        lines = methods("practice", *args).stdout.decode().splitlines()
        assert max(len(line) for line in lines) <= 88
    blocks = practice_trace.view(practice_trace.trace(solution=True))
    assert all(b.get("key") for b in blocks) and len({b["key"] for b in blocks}) == len(blocks)
    assert all(b["table"].get("legend") for b in blocks if "table" in b)


def test_units_travel_whole_at_every_budget():
    for budget in range(0, 260):
        packet = decision_table(CANDIDATES, AS_OF, SCOPE, budget).packet
        assert ("A1" in packet) == ("A2" in packet), budget
        assert ("D1" in packet) == ("D2" in packet), budget
        assert not {"B1", "C1", "E1"} & set(packet)
        assert sum(lab_tokens(c.text) for c in CANDIDATES if c.id in packet) <= budget


def test_authority_never_settles_only_a_declared_rule_does():
    by_id = {c.id: c for c in CANDIDATES}
    swapped = [replace(by_id["D2"], authority=0.99), replace(by_id["D1"], authority=0.01)]
    assert settle_conflict(swapped).state == "unresolved"
    resolved = settle_conflict([by_id["D2"], by_id["D1"]], EXAMPLE_RULE)
    assert (resolved.state, resolved.kept, resolved.rule) == ("resolved", ("D1",), "finance-office over finance-faq")


def test_validity_and_canonical_rules():
    by_id = {c.id: c for c in CANDIDATES}
    assert not is_current(by_id["C1"], AS_OF) and is_current(by_id["C1"], "2025-12-31")
    assert not is_current(by_id["A1"], "2025-12-31")
    assert canonical_dedupe([by_id["B1"], by_id["A1"], by_id["A2"]]) == {"B1": "A1"}
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
    (AS_OF, SCOPE, TIGHT_BUDGET, EXAMPLE_RULE, None),
])
def test_solution_and_mechanism_agree(as_of, scope, budget, rules, order):
    by_id = {c.id: c for c in CANDIDATES}
    candidates = [by_id[i] for i in order] if order else list(CANDIDATES)
    assert _solution().decision_table(candidates, as_of, scope, budget, rules) == \
        decision_table(candidates, as_of, scope, budget, rules)


_FIELDS = tuple(vars(CANDIDATES[0]).values())   # the first candidate's fields, in order


@pytest.mark.parametrize("call, error, words", [
    (lambda: practice_trace.trace(solution="yes"), TypeError, "solution must be a bool, got str 'yes'"),
    (lambda: decision_table(CANDIDATES, "2026-6-1", SCOPE, BUDGET), ValueError,
     "as_of must be an ISO date 'YYYY-MM-DD', got '2026-6-1'"),
    (lambda: decision_table(CANDIDATES, AS_OF, "", BUDGET), ValueError, "scope must be a non-empty str, got ''"),
    (lambda: decision_table(CANDIDATES, AS_OF, SCOPE, True), TypeError, "budget must be an int of lab tokens, got bool"),
    (lambda: decision_table(CANDIDATES, AS_OF, SCOPE, -5), ValueError, "budget must be at least 0, got -5"),
    (lambda: decision_table(["A1"], AS_OF, SCOPE, BUDGET), TypeError, "candidates[0] must be a Candidate, got str 'A1'"),
    (lambda: decision_table(CANDIDATES + CANDIDATES[:1], AS_OF, SCOPE, BUDGET), ValueError, "id 'A1' appears twice"),
    (lambda: settle_conflict(CANDIDATES, [("finance-office",)]), ValueError, "each rule must be a (winner_source"),
    (lambda: is_current(CANDIDATES[0], "June 1"), ValueError, "as_of must be an ISO date 'YYYY-MM-DD', got 'June 1'"),
    (lambda: Candidate(*_FIELDS[:3], "3", *_FIELDS[4:]), TypeError,
     "Candidate.chunk must be an int, got str '3'"),
    (lambda: Candidate(*_FIELDS[:7], "2025-02-30", "", 0.5, "x"), ValueError,
     "Candidate.valid_from is not a calendar day, got '2025-02-30'"),
    (lambda: Candidate(*_FIELDS[:7], "2025-1-30", "", 0.5, "x"), ValueError,
     "Candidate.valid_from must be an ISO date 'YYYY-MM-DD', got '2025-1-30'"),
    (lambda: Candidate(*_FIELDS[:3], -1, *_FIELDS[4:]), ValueError, "Candidate.chunk must be at least 0"),
    (lambda: Candidate(*_FIELDS[:1], float("nan"), *_FIELDS[2:]), TypeError,
     "Candidate.similarity must be a number"),
    (lambda: settle_conflict(CANDIDATES, "finance-office"), TypeError, "rules must be a tuple or list"),
    (lambda: canonical_dedupe({CANDIDATES[0]}), TypeError, "candidates must be a sequence of Candidate, got set"),
    (lambda: as_chunk("A1"), TypeError, "candidate must be a Candidate, got str 'A1'"),
    (lambda: Candidate(*_FIELDS[:9], True, "x"), TypeError, "Candidate.authority must be a number, got bool"),
    (lambda: stated_amounts(500), TypeError, "text must be a str, got int 500"),
    (lambda: stated_amounts(None), TypeError, "text must be a str, got NoneType None"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_the_trace_says_why_wording_inside_evidence_is_not_a_declared_rule():
    # Issue 27.4: "Declared priority rules between sources: none" stood beside A1's "current
    # allowance table" and D1's title without a word on why that wording declares nothing.
    flat = " ".join(methods("practice").stdout.decode().split())
    by_id = {c.id: c for c in CANDIDATES}
    assert "up to the amount set in the current allowance table" in by_id["A1"].text
    assert by_id["D1"].text.startswith("Allowance table 2026")
    assert "Declared priority rules between sources: none. A1 says claims go" in flat
    assert "wording inside retrieved evidence, not a declared rule" in flat
    assert practice_trace.trace()["declared_rules"] == []


@pytest.mark.parametrize("quiz, task", [("A2_QUIZ", "Task 5"), ("C1_QUIZ", "Task 6"), ("D_QUIZ", "Task 7")])
def test_the_quiz_premises_hold_on_the_fixture(quiz, task):
    text = (ROOT / "solutions" / "practice.py").read_text(encoding="utf-8")
    premise = " ".join(" ".join(line.lstrip("# ") for line in text.split(f"# {task} (quiz).")[1]
                                .split(f"# Set {quiz}")[0].splitlines()).split())
    by_id = {c.id: c for c in CANDIDATES}
    if quiz == "A2_QUIZ":
        assert "The packet is A1, A2, D2, D1, F1" in premise
        packet = practice_trace.trace(solution=True)["reference"]["packet"]
        assert [row["id"] for row in packet] == ["A1", "A2", "D2", "D1", "F1"]
    elif quiz == "C1_QUIZ":
        assert "C1 (valid until 2025-12-31)" in premise and by_id["C1"].valid_until == "2025-12-31"
    else:
        assert "D2 (finance-faq, authority 0.6, 600 euros) and D1 (finance-office, authority 0.9, 500 euros)" \
            in premise and "scores finance-faq 0.95" in premise
        assert (by_id["D1"].source, by_id["D1"].authority, by_id["D2"].source, by_id["D2"].authority) == (
            "finance-office", 0.9, "finance-faq", 0.6)
        raised = tuple(replace(c, authority=0.95) if c.id == "D2" else c for c in CANDIDATES)
        for candidates in (CANDIDATES, raised):     # the key, "c": the raised score changes nothing
            plan = decision_table(candidates, AS_OF, SCOPE, BUDGET)
            assert {d.id: (d.decision, d.reason) for d in plan.decisions if d.id in ("D1", "D2")} == {
                "D1": ("keep", "disputed"), "D2": ("keep", "disputed")}
            assert plan.conflict.state == "unresolved"


# ---------------------------------------------------------------- tasks that teach

def test_the_modules_own_functions_fail_the_tasks(tmp_path):
    # Issue 36: the reading's functions, pasted in (given the task's signature), fail the tests of
    # what each task adds, and only those for tasks 2 to 4.
    from helpers import passed_tests, pasted_text
    passed = passed_tests("practice", pasted_text("practice", [
        (practice.is_current, "validity"), (practice.canonical_dedupe, "canonical_dedupe"),
        (practice.settle_conflict, "settle_conflict"), (practice.decision_table, "decision_table")],
        preamble="from modules.practice.mechanism import _candidates, _layers, _rules, as_chunk\n"
                 "from modules.versions import check_day, in_window\n"
                 "from modules.common.checks import short, whole_number\n",
        edits=[("def canonical_dedupe(candidates) -> dict[str, str]:",
                "def canonical_dedupe(candidates, rank) -> dict[str, str]:"),
               ("def decision_table(candidates, as_of: str, scope: str, budget: int, rules=()) -> Plan:\n    \"\"\"Run",
                "def decision_table(candidates, as_of: str, scope: str, budget: int, rules=(), wrapper_tokens=0) "
                "-> Plan:\n    \"\"\"Run")]))
    failed = sorted(name for name, ok in passed.items() if not ok)
    assert {name for name in failed if name.startswith("test_task1")} == {
        name for name in passed if name.startswith("test_task1")}       # a yes or no is not a state
    assert [name for name in failed if not name.startswith("test_task1")] == [
        "test_task2_the_rank_decides_not_the_list_order", "test_task3_declared_rules_are_followed_in_a_chain",
        "test_task3_rules_that_contradict_themselves_are_refused", "test_task4_every_passage_pays_for_its_wrapper"]


def test_the_default_trace_shows_every_curriculum_figure_but_the_exercises_answer():
    # Issue 35: the scenario's figures print by default; the reference decision table is task
    # 4's answer, stays behind --solution, and the default says so in one line.
    plain = methods("practice", "--plain").stdout.decode()
    text = " ".join(plain.split())
    figures = ["1 A1 0.920 0.800 69 volunteer-office 2026-01-01 open",
               "4 C1 0.880 0.800 24 volunteer-office 2025-01-01 2025-12-31",
               "5 D2 0.850 0.600 25 finance-faq", "6 D1 0.830 0.900 23 finance-office",
               "8 A2 0.640 0.800 49 volunteer-office",
               "B1 intranet-mirror/travel-policy#3 travel-policy volunteer conference travel",
               "E1 staff-travel-policy#3 - staff conference travel",
               "evidence budget: 1,000 lab tokens", "Declared priority rules between sources: none.",
               # conflict detection reads an amount however it is written, or flags the pair
               "600 euros 600 euros unresolved D2, D1", "1,600 euros 1600 euros unresolved D2, D1",
               "EUR 600 600 euros unresolved D2, D1", "€600 600 euros unresolved D2, D1",
               "six hundred euros - unreadable D2, D1", "500 euros 500 euros none D2, D1",
               # a second run at a budget that binds shows the walk at work
               "1 A1, A2 118 yes 118", "2 D2, D1 48 no 118", "3 F1 39 yes 157",
               "Packet at 160: A1, A2, F1 (157 lab tokens)", "keeps all eight (362 lab tokens fit in 1,000)",
               *practice.CAPSTONE_QUESTIONS]
    missing = [figure for figure in figures if figure not in text]
    assert not missing, missing
    said = [line for line in plain.splitlines() if "--solution" in line]
    assert len(said) == 1 and "Reference decision table" not in plain, said
