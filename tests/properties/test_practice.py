"""Lesson 11's public functions on generated input (hypothesis): every input either gives a
result that keeps the capstone's invariants, or raises ValueError/TypeError naming the argument.

The capstone applies lessons 03 and 04: the properties check that it takes their decisions
(canonical dedupe, amount reading, validity) and that the reference solution agrees."""

from __future__ import annotations
from dataclasses import replace

import importlib.util
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.dedupe import mechanism as dedupe
from modules.practice import mechanism as practice
from modules.versions import mechanism as versions  # noqa: E402
from modules.common.units import lab_tokens  # noqa: E402
from modules.practice import AS_OF, CANDIDATES, SCOPE, Candidate  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def _solution():
    spec = importlib.util.spec_from_file_location("solution_practice_properties", ROOT / "solutions" / "practice.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOLUTION = _solution()
AMOUNTS = ["500 euros", "600 euros", "EUR 600", "1,600 euros", "six hundred euros", "500 crowns", ""]
DAYS = ["", "2025-01-01", "2025-12-31", "2026-01-01", "2026-06-01", "2026-12-31"]


@st.composite
def candidates(draw):
    """Variations of the capstone's eight: other amounts, windows, scopes, documents and chunk places."""
    found = []
    for c in draw(st.lists(st.sampled_from(CANDIDATES), unique_by=lambda c: c.id, min_size=0, max_size=8)):
        text = c.text
        if c.id in ("D1", "D2") or draw(st.booleans()):
            amount = draw(st.sampled_from(AMOUNTS))
            text = f"{c.id} says the allowance is {amount} per trip." if amount else text
        start, end = sorted([draw(st.sampled_from(DAYS)), draw(st.sampled_from(DAYS))], key=lambda d: d or "0")
        if draw(st.booleans()):
            end = ""
        found.append(replace(c, text=text, valid_from=start, valid_until=end,
                                chunk=draw(st.sampled_from([c.chunk, c.chunk, 3, 4])),
                                scope=draw(st.sampled_from([SCOPE, SCOPE, "staff conference travel"]))))
    return found


RULES = st.lists(st.sampled_from([("finance-office", "finance-faq"), ("finance-faq", "finance-office"),
                                  ("volunteer-office", "finance-office")]), unique=True, max_size=2).map(tuple)


def _chained(rules) -> bool:
    """Rules where one source is both a winner and a loser: the graded task follows such a chain
    (and refuses a cycle), the module reads each pair alone; solutions and module agree otherwise."""
    return bool({winner for winner, _ in rules} & {loser for _, loser in rules})


@FAST
@given(candidates(), st.sampled_from(["2025-06-01", AS_OF, "2026-12-31"]), st.integers(0, 400), RULES)
def test_decision_table_keeps_the_capstones_invariants(found, as_of, budget, rules):
    plan = practice.decision_table(found, as_of, SCOPE, budget, rules)
    assert [d.id for d in plan.decisions] == [c.id for c in found]
    by_id = {c.id: c for c in found}
    kept = [d for d in plan.decisions if d.decision == "keep"]
    assert sorted(d.order for d in kept) == list(range(1, len(kept) + 1))
    assert [d.id for d in sorted(kept, key=lambda d: d.order)] == list(plan.packet)
    assert plan.used_tokens == sum(lab_tokens(by_id[i].text) for i in plan.packet) <= budget
    for d in plan.decisions:
        assert d.reason in practice.KEEP_REASONS + practice.DISCARD_REASONS
        c = by_id[d.id]
        if d.id in plan.packet:
            assert practice.is_current(c, as_of) and c.scope == SCOPE
    # Lesson 03 decides the copies; lesson 04's reader and order decide the conflict.
    survivors = [c for c in found if practice.is_current(c, as_of) and c.scope == SCOPE]
    assert plan.dedupe == dedupe.dedupe_canonical([practice.as_chunk(c) for c in survivors]).dropped
    assert {d.id for d in plan.decisions if d.reason == "copy"} == set(plan.dedupe)
    if plan.conflict.state in ("unresolved", "unreadable"):
        inside = [i in plan.packet for i in plan.conflict.ids]
        assert all(inside) or not any(inside), "a disputed conflict entered in part"
    if plan.conflict.state == "unreadable":
        assert any(a.value is None for a in plan.conflict.amounts)
    if plan.conflict.state == "none":
        assert len({(a.value, a.unit) for a in plan.conflict.amounts}) <= 1
        assert all(a.value is not None for a in plan.conflict.amounts) or len(plan.conflict.ids) < 2
    # The graded reference takes the same decisions, where the task's rules mean what the module's do.
    if not _chained(rules):
        assert SOLUTION.decision_table(found, as_of, SCOPE, budget, rules) == plan


@FAST
@given(candidates(), RULES)
def test_conflicts_read_amounts_with_lesson_04s_reader(found, rules):
    conflict = practice.settle_conflict(found, rules)
    stating = [c for c in found if versions.stated_amounts(c.text)]
    assert conflict.ids == tuple(c.id for c in stating)
    assert conflict.amounts == tuple(versions.stated_amounts(c.text)[0] for c in stating)
    assert conflict.state in practice.CONFLICT_STATES and set(conflict.kept) <= set(conflict.ids)
    assert (conflict.rule != "") == (conflict.state == "resolved")
    if not _chained(rules):
        assert SOLUTION.settle_conflict(found, rules) == conflict


ANYTHING = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=6), st.booleans(),
                     st.lists(st.integers(), max_size=2), st.sets(st.integers(), max_size=2))


@FAST
@given(st.lists(ANYTHING, min_size=11, max_size=11), st.sampled_from(range(11)))
def test_candidate_accepts_valid_fields_or_names_the_bad_one(garbage, where):
    fields = list(vars(CANDIDATES[0]).values())
    fields[where] = garbage[where]
    try:
        made = Candidate(*fields)
    except (ValueError, TypeError) as error:
        assert "Candidate." in str(error), str(error)
        return
    assert replace(made) == made
    if made.valid_from and made.valid_until:
        assert made.valid_from <= made.valid_until


@FAST
@given(ANYTHING)
def test_functions_name_the_argument_they_refuse(value):
    if not (isinstance(value, list) and not value):
        with pytest.raises(TypeError, match=r"candidates(\[\d+\])? must be"):
            practice.canonical_dedupe(value)
        with pytest.raises(TypeError, match=r"candidates(\[\d+\])? must be"):
            practice.decision_table(value, AS_OF, SCOPE, 10)
    with pytest.raises((TypeError, ValueError), match="as_of"):
        practice.is_current(CANDIDATES[0], value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        with pytest.raises((TypeError, ValueError), match="budget"):
            practice.decision_table(CANDIDATES, AS_OF, SCOPE, value)
