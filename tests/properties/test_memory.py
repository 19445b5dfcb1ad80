"""Properties of lesson 13's public functions (hypothesis): the gate never hands one buyer another's
item, current input always wins, a deletion leaves nothing derived behind, a replay of a state
against itself changes nothing, and bad input is refused with an error naming it."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.memory import mechanism as m  # noqa: E402
from modules.memory import store as ms  # noqa: E402
from modules.catalogue import opaque_ref  # noqa: E402
from modules.catalogue.policy import day_number  # noqa: E402

FAST = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
BUYERS = st.sampled_from(["BUYER-A", "BUYER-B", "buyer-a", "BUYER-A ", "BUYER-C"])
DAYS = st.integers(min_value=day_number("2019-01-01"), max_value=day_number("2031-01-01"))
ITEMS = st.sampled_from(m.ITEMS)
VALUES = st.one_of(st.none(), st.sampled_from(["16", "18", "22", "16.0", "mechanical-seal"]))


def _day(number: int) -> str:
    import datetime
    return datetime.date.fromordinal(number).isoformat()


@FAST
@given(ITEMS, BUYERS, DAYS, st.sampled_from(["allowed", "denied", "unknown", None]),
       st.sampled_from(["owner", "internal"]), st.integers(min_value=1, max_value=4000))
def test_the_gate_never_passes_another_buyers_item(item, buyer, day, permission, visibility, retention):
    item = replace(item, permission=permission, visibility=visibility, retention_days=retention)
    codes = m.gate_item(item, buyer, _day(day))
    if buyer != item.owner:
        assert codes == ("MEMORY_OTHER_OWNER",)
    elif permission != "allowed":
        assert codes == ("PERMISSION_DENIED" if permission == "denied" else "PERMISSION_UNKNOWN",)
    else:
        age = day - day_number(item.as_of)
        assert ("MEMORY_EXPIRED" in codes) == (age > retention)
        assert ("MEMORY_NOT_YET_RECORDED" in codes) == (age < 0)
        assert ("MEMORY_NOT_VISIBLE" in codes) == (visibility != "owner")
    assert all(code in m.CODES for code in codes) and len(set(codes)) == len(codes)


@FAST
@given(VALUES, VALUES, st.booleans())
def test_explicit_current_input_always_wins(today, remembered, ambiguous):
    action, value, conflict = m.resolve(today, remembered, ambiguous)
    if today is not None:
        assert (action, value) == ("follow_today", today) and conflict == (remembered not in (None, today))
    else:
        assert not conflict and value in (None, remembered)
        assert action == ("none" if remembered is None else "ask" if ambiguous else "memory")
    assert value != remembered or remembered is None or action == "memory" or remembered == today


@pytest.fixture(scope="module")
def served():
    state = ms.build(m.ITEMS, m.ASSISTANT_MEMORY)
    for session in m.SESSIONS:
        _run, state = ms.serve(state, session)
    return state


@FAST
@given(st.lists(st.sampled_from([i.id for i in m.ITEMS]), min_size=1, max_size=4, unique=True))
def test_a_deletion_leaves_nothing_derived_behind(served, item_ids):
    state = served
    for item_id in item_ids:
        state, record = ms.delete(state, item_id, "2026-11-01")
        assert record.ref == opaque_ref(item_id) and item_id not in repr(record)
    kept = [i for i in m.ITEMS if i.id not in item_ids]
    for item_id in item_ids:
        assert ms.propagation(state, item_id) == {"store": 0, "index": 0, "packet-cache": 0, "trace-payloads": 0,
                                                  "deletion-record": 1}
    assert sorted(state.current()) == sorted(i.id for i in kept)
    assert sorted(state.index.ids()) == sorted(i.id for i in kept)


@FAST
@given(st.sampled_from(["MEM-A1", "MEM-A2", "MEM-B1"]), st.sampled_from(["16", "18", "22"]))
def test_a_correction_keeps_every_version_and_a_self_replay_is_empty(served, item_id, value):
    state = ms.correct(served, item_id, "2026-11-01", value=value)
    history = state.history(item_id)
    assert [i.version for i in history] == [1, 2] and history[-1].value == value and history[0] == \
        next(i for i in m.ITEMS if i.id == item_id)
    rows = ms.replay(m.SESSIONS[:2], state)
    assert all(not any(d.values()) for d in ms.replay_diff(rows, rows).values())


@FAST
@given(st.one_of(st.integers(), st.binary(), st.lists(st.text(max_size=3), max_size=2)), st.sampled_from(["text", "version"]))
def test_bad_input_is_refused_with_its_name(bad, where):
    with pytest.raises((TypeError, ValueError), match=where if where == "text" else "version"):
        if where == "text":
            m.encode(bad, "mem-vec-1")
        else:
            m.encode("pump seal", bad if not isinstance(bad, list) else str(bad))
