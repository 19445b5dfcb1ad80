"""Properties of lesson 08's public functions (hypothesis): fail closed for every input, and
refuse bad input with ValueError/TypeError naming the argument."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.catalogue import LISTINGS, QUERIES, opaque_ref  # noqa: E402
from modules.catalogue.policy import STATES  # noqa: E402
from modules.eligibility import decide_state, empty_cause, evaluate, permission_gate  # noqa: E402

FAST = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
PERMISSIONS = st.sampled_from(["allowed", "denied", "unknown", "", "Allowed", "allowed ", None, "ALLOWED", 1])


@FAST
@given(st.lists(st.tuples(st.sampled_from([f"L{i}" for i in range(6)]), PERMISSIONS), max_size=10))
def test_permission_gate_fails_closed_and_names_each_id_once(pairs):
    permitted, withheld = permission_gate(pairs)
    ids = list(dict.fromkeys(listing for listing, _ in pairs))
    refs = {opaque_ref(i): i for i in ids}
    assert permitted + [refs[ref] for ref, _ in withheld] == [i for i in ids if i in permitted] + \
        [i for i in ids if i not in permitted] and len(permitted) + len(withheld) == len(ids)
    for listing in ids:
        given_ = [p for i, p in pairs if i == listing]
        agree = all(type(p) is type(given_[0]) and p == given_[0] for p in given_)
        assert (listing in permitted) == (agree and given_[0] == "allowed")
    for ref, code in withheld:
        given_ = [p for i, p in pairs if i == refs[ref]]
        assert code == ("DUPLICATE_ID_CONFLICT" if len(set(map(repr, given_))) > 1
                        else "PERMISSION_DENIED" if given_[0] == "denied" else "PERMISSION_UNKNOWN")
        assert refs[ref] not in ref


@FAST
@given(st.lists(st.sampled_from(STATES), max_size=6), st.randoms(use_true_random=False))
def test_decide_state_ignores_order_and_repeats(states, rng):
    decided = decide_state(states)
    shuffled = states + states[:2]
    rng.shuffle(shuffled)
    assert decide_state(shuffled) == decided
    assert decided in states or (decided == "respond" and not states)
    assert all(STATES.index(decided) <= STATES.index(s) for s in states)


@FAST
@given(st.booleans(), st.booleans(), st.lists(st.sampled_from(STATES), max_size=4))
def test_empty_cause_names_one_cause(scope, failed, states):
    cause = empty_cause(scope, failed, states)
    assert cause in ("out_of_scope", "transformation_failed", "no_permitted_match", "all_unauthorized", "all_stale",
                     "all_excluded")
    assert (cause == "out_of_scope") == scope


@FAST
@given(st.one_of(st.text(max_size=3), st.integers(), st.sets(st.sampled_from(STATES), max_size=2),
                 st.lists(st.one_of(st.text(max_size=4), st.integers()), max_size=3)))
def test_bad_states_are_refused(states):
    try:
        decide_state(states)
    except (TypeError, ValueError) as error:
        assert "state" in str(error)


@st.composite
def catalogues(draw):
    """A shuffled sub-catalogue, some permissions changed, some listings given a second, disagreeing copy."""
    chosen = draw(st.lists(st.sampled_from(LISTINGS), unique_by=lambda x: x.id, min_size=1, max_size=16))
    out = []
    for listing in chosen:
        if draw(st.booleans()):
            listing = replace(listing, permission=draw(st.sampled_from(["allowed", "denied", "unknown", None])))
        out.append(listing)
        if draw(st.integers(min_value=0, max_value=5)) == 0:
            out.append(replace(listing, permission="allowed" if listing.permission != "allowed" else "denied"))
    draw(st.randoms(use_true_random=False)).shuffle(out)
    return tuple(out)


@FAST
@given(catalogues(), st.sampled_from(QUERIES), st.sampled_from(["2026-11-01", "2026-08-01", "2031-01-01"]))
def test_nothing_unpermitted_is_ranked_or_packed(listings, query, as_of):
    run = evaluate(query, listings, as_of)
    decision = run.output("decision").decision
    assert decision.state in STATES
    if run.halted_by:
        assert run.of_kind("channel") == () and run.output("packet", None) is None
        return
    copies = {}
    for listing in listings:
        copies.setdefault(listing.id, set()).add(listing.permission)
    permitted = {i for i, given_ in copies.items() if given_ == {"allowed"}}
    for channel in run.of_kind("channel"):
        assert len(set(channel.ranking)) == len(channel.ranking)
    members = [m for f in run.output("fusion").candidates for m in f.members]
    assert len(members) == len(set(members)) and set(members) <= permitted
    packed = set(run.output("packet").listings)
    assert packed <= permitted
    if packed:
        assert decision.state in ("respond", "degraded")
