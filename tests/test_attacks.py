"""A few of devtools/attacks.py's attacks on `grade`, fast enough for every run of the suite
(the full set, in both modes: `python3 -B methods.py dev probe --grading`), and the plain-data
channel of the sandbox (labtools/grading/wire.py) on its own."""

from __future__ import annotations

from fractions import Fraction

import pytest

from labtools import grading
from devtools import attacks
from labtools.grading import wire as _wire

SANDBOX = grading.sandbox_problem() is None
BY_NAME = {attack.name: attack for attack in attacks.ATTACKS}


@pytest.fixture(scope="module")
def shared():
    copy = attacks.Shared()
    yield copy
    copy.close()


@pytest.mark.parametrize("name", [attack.name for attack in attacks.ATTACKS if attack.fast])
def test_a_fast_attack_changes_no_classmate_and_gets_what_it_must_without_the_sandbox(shared, name):
    result = attacks.run(BY_NAME[name], sandbox=False, shared=shared, pause=0.5)
    assert not result["problems"], result["problems"]


@pytest.mark.skipif(not SANDBOX, reason="bwrap cannot make a sandbox here")
@pytest.mark.parametrize("name", ["frame walking to the reporter", "replacing the grader's tests",
                                  "reading solutions/context.py and exec-ing it", "a setsid() child outliving grade"])
def test_under_the_sandbox_no_attack_forges_a_pass(shared, name):
    result = attacks.run(BY_NAME[name], sandbox=True, shared=shared, pause=0.5)
    assert not result["problems"], result["problems"]
    assert result["mallory"] == 0


def test_without_the_sandbox_self_forgery_is_the_documented_gap(shared):
    result = attacks.run(BY_NAME["frame walking to the reporter"], sandbox=False, shared=shared, pause=0.5)
    assert not result["problems"], result["problems"]  # the classmates and the gradebook held


def test_pytest_route_fails_an_exit_at_import():
    assert not attacks.pytest_route("os._exit(0) at import")["problems"]


# ------------------------------------------------------------------ the plain-data channel

def _round_trip(value, sent=None):
    return _wire.decode(_wire.encode(value, lambda fn: {"C": 1, "name": None}), lambda n, name: None, sent=sent)


def test_values_cross_as_plain_data_and_come_back_equal():
    from modules.context import ContextRecord, Passage
    passage = Passage("a", "src-a", "1", "t", "text")
    record = ContextRecord((passage,), 4, 80, ("b",), (), {})
    for value in (None, True, 3, 2.5, float("inf"), "é", [1, (2, 3)], {("k", 1): {4}}, frozenset({1}),
                  Fraction(1, 3), b"\x00", range(1, 6), range(9, 0, -3), passage, record):
        back = _round_trip(value)
        assert back == value and type(back) is type(value)


def test_a_learners_class_comes_back_opaque_and_equal_to_nothing():
    class Anything:
        def __eq__(self, other):
            return True
    back = _round_trip(Anything())
    assert isinstance(back, _wire.Opaque) and back != Fraction(1, 2) and back != back.__class__("x", "y")


def test_decoding_refuses_classes_outside_the_lab_and_forged_fields():
    for data in ({"R": "os:system", "f": {}}, {"R": "modules.context:Passage", "f": {"id": "a"}},
                 {"N": "builtins:tuple", "v": []}, {"X": 1}, {"P": 0}, [1, 2], {"G": [1, 5, 0]},
                 {"G": [1, 5]}, {"G": [1, 5.0, 1]}):
        with pytest.raises(_wire.WireError):
            _wire.decode(data, lambda n, name: None)


def test_a_record_given_comes_back_as_itself():
    from modules.context import Passage
    passage = Passage("a", "src-a", "1", "t", "text")
    table: list = []
    sent = _wire.encode([passage], lambda fn: None, table=table)
    received: list = []
    theirs = _wire.decode(sent, lambda n, name: None, table=received)
    known = {id(obj): (number, obj) for number, obj in enumerate(received)}
    answer = _wire.encode((theirs[0],), lambda fn: None, known=known)
    assert _wire.decode(answer, lambda n, name: None, sent=table)[0] is passage


def test_a_list_given_comes_back_as_itself_with_what_it_holds_now():
    # Found by the agreement pass: a view that shares the record's lists passed under --sandbox,
    # where every list came back a copy. A list, dict or set the grader sent and the learner's
    # function returns is the grader's own object again, holding what the learner left in it.
    cites = ["PW-L001#title"]
    record = {"answer": [{"text": "x", "cites": cites}], "other": {"k": [1]}}
    table: list = []
    sent = _wire.encode(record, lambda fn: None, table=table)
    received: list = []
    theirs = _wire.decode(sent, lambda n, name: None, table=received)
    theirs["answer"][0]["cites"].append("PW-L002#price_eur")      # changed, then returned inside a new dict
    view = {"answer": [{"text": "x", "cites": theirs["answer"][0]["cites"]}], "copied": list(theirs["other"]["k"])}
    known = {id(obj): (number, obj) for number, obj in enumerate(received)}
    adopted = []
    back = _wire.decode(_wire.encode(view, lambda fn: None, known=known), lambda n, name: None, sent=table,
                        adopt=lambda original, now: (adopted.append(original), original.__setitem__(slice(None), now)))
    assert back["answer"][0]["cites"] is cites and cites == ["PW-L001#title", "PW-L002#price_eur"]
    assert back["copied"] == [1] and back["copied"] is not record["other"]["k"] and adopted == [cites]
    with pytest.raises(_wire.WireError):  # a reference with contents needs a receiver that adopts them
        _wire.decode({"P": 0, "v": {"L": []}}, lambda n, name: None, sent=table)
