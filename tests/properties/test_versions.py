"""Lesson 04's public functions on generated input (hypothesis): every input either gives a
result that keeps the lesson's invariants, or raises ValueError/TypeError naming the argument."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.versions import mechanism as versions  # noqa: E402
from modules.versions import RESOLUTION_CHECKS, Record  # noqa: E402

FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
ANYTHING = st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=8), st.booleans(),
                     st.lists(st.text(max_size=3), max_size=3), st.sets(st.text(max_size=2), max_size=2))
DAYS = ["2025-12-10", "2026-01-01", "2026-04-20", "2026-05-01", "2026-07-01", "2026-12-31"]


@FAST
@given(st.lists(ANYTHING, min_size=5, max_size=5), st.dictionaries(
    st.sampled_from(["status", "audience", "valid_from", "valid_until", "scope", "published"]),
    st.one_of(ANYTHING, st.sampled_from(DAYS + ["current", "public", "staff"])), max_size=3))
def test_record_accepts_valid_fields_or_names_the_bad_one(fields, named):
    try:
        record = Record(*fields, **named)
    except (ValueError, TypeError) as error:
        assert "Record." in str(error) or "Passage." in str(error), str(error)
        return
    assert record.valid_until is None or record.valid_from <= record.valid_until
    assert record.status in ("current", "superseded") and record.audience in ("public", "staff")


@FAST
@given(st.lists(st.one_of(st.from_regex(r"[0-9]{1,3}", fullmatch=True), st.text(min_size=1, max_size=4)),
                min_size=1, max_size=5), st.randoms(use_true_random=False))
def test_version_maxima_is_the_same_in_any_input_order(labels, rng):
    try:
        got = versions.version_maxima(labels)
    except ValueError as error:
        assert "labels" in str(error) and not all(label.strip() for label in labels)
        return
    shuffled = list(labels)
    rng.shuffle(shuffled)
    assert versions.version_maxima(shuffled) == got
    assert got["lexical"] == max(labels)
    if all(label.isascii() and label.isdigit() for label in labels):
        assert int(got["numeric"]) == max(int(label) for label in labels)
    else:
        assert got["numeric"] is None


@FAST
@given(ANYTHING)
def test_functions_name_the_argument_they_refuse(value):
    if not isinstance(value, str):
        with pytest.raises(TypeError, match="text must be a str"):
            versions.stated_amounts(value)
        with pytest.raises(TypeError, match="text must be a str"):
            versions.parse_amount(value)
    if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        with pytest.raises((TypeError, ValueError), match="labels"):
            versions.version_maxima(value)
    if not (isinstance(value, list) and not value):
        with pytest.raises(TypeError, match=r"records(\[\d+\])? must be"):
            versions.current_public(value)
    with pytest.raises((TypeError, ValueError), match="as_of"):
        versions.valid_on(versions.LATE_FEES, value if value != "2026-07-01" else None)


@FAST
@given(st.text(alphabet="0123456789 ,.€EURerosuwnxih\u0666", max_size=24))
def test_the_reader_never_guesses(text):
    amounts = versions.stated_amounts(text)
    for amount in amounts:
        assert amount.unit in ("euros", "crowns") and amount.written in text
        assert amount.value is None or (amount.value >= 0 and amount.value == int(
            "".join(ch for ch in amount.written if ch in "0123456789")))
    if amounts and amounts[0].value is not None:
        assert versions.parse_amount(text) == (amounts[0].value, amounts[0].unit)
    else:
        with pytest.raises(ValueError, match="no amount|cannot be read"):
            versions.parse_amount(text)


@FAST
@given(st.integers(min_value=0, max_value=10 ** 9), st.sampled_from(["{n} euros", "€{n}", "EUR {n}", "{n:,} euros",
                                                                      "{n} EUR", "{n}€", "{n} euro", "{n} crowns"]))
def test_every_spelling_of_a_number_reads_back(n, spelling):
    text = f"The allowance is {spelling.format(n=n)} per trip."
    assert versions.parse_amount(text) == (n, "crowns" if "crowns" in spelling else "euros")


@st.composite
def amount_records(draw):
    found = []
    for number in range(draw(st.integers(min_value=2, max_value=4))):
        amount = draw(st.sampled_from(["500 crowns", "600 crowns", "60 euros", "six hundred crowns", "no amount"]))
        found.append(Record(f"r{number}", draw(st.sampled_from(["s1", "s2", "s3"])), "1", "t",
                            f"The deposit is {amount}.", valid_from=draw(st.sampled_from(DAYS[:4])),
                            scope=draw(st.sampled_from(["deposit", "deposit", "locker", ""])),
                            published=draw(st.sampled_from([None, *DAYS[:3]]))))
    return found


@FAST
@given(amount_records(), st.sampled_from(DAYS), st.data(), st.randoms(use_true_random=False))
def test_resolution_runs_the_checks_in_order_and_ignores_record_order(records, as_of, data, rng):
    ids = [r.id for r in records]
    supersedes = {}
    for new in data.draw(st.lists(st.sampled_from(ids), unique=True, max_size=2)):
        supersedes[new] = tuple(data.draw(st.lists(st.sampled_from([i for i in ids if i != new]), max_size=2)))
    precedence = tuple(data.draw(st.permutations(["s1", "s2", "s3"]))[:data.draw(st.integers(0, 3))])
    later = data.draw(st.booleans())
    got = versions.resolve_in_order(records, as_of, supersedes, precedence, later)
    names = [name for name, _ in RESOLUTION_CHECKS]
    run = [c["check"] for c in got["checks"]]
    assert run == names[:len(run)]
    assert all(c["decision"] is None for c in got["checks"][:-1])
    assert got["decided_by"] == (got["checks"][-1]["check"] if got["checks"][-1]["decision"] else None)
    assert got["decision"] in ("selected", "no-conflict", "abstain-and-review")
    assert (got["selected_id"] in ids) == (got["decision"] == "selected")
    shuffled = list(records)
    rng.shuffle(shuffled)
    again = versions.resolve_in_order(shuffled, as_of, supersedes, precedence, later)
    assert (again["decided_by"], again["decision"], again["selected_id"]) == (
        got["decided_by"], got["decision"], got["selected_id"])
    # Any record whose amount cannot be read stops the run at parsing: never counted as agreement.
    if any(not versions.stated_amounts(r.text) or versions.stated_amounts(r.text)[0].value is None for r in records):
        assert (got["decided_by"], got["decision"]) == ("parsing", "abstain-and-review")


def test_pairs_are_compared_whole():
    for a, b in itertools.permutations(versions.DEPOSITS):
        assert versions.resolve_in_order([a, b], "2026-07-01")["decision"] == "abstain-and-review"
