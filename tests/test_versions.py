"""Lesson 04's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import methods
from modules import versions
from modules.context import CANDIDATES, RELEVANT_IDS, packet_coverage, select_context
from modules.versions import (COLLECTION, DEPOSITS, LATE_FEES, SUPERSEDES, Record, check_day, current_public,
                              multi_version_sources, parse_amount, resolve_or_abstain, valid_on, version_maxima)


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("versions", "--json").stdout)


def test_both_hours_records_are_current_and_public_and_differ():
    kept = current_public(COLLECTION)
    hours = [r for r in kept if r.source_id == "help-desk-hours"]
    assert [(r.id, r.version) for r in hours] == [("hours-v2", "2"), ("hours-v1", "1")]
    assert hours[0].text != hours[1].text and "8:30" in hours[0].text and "9:00" in hours[1].text
    assert "staff-rota" in {r.id for r in COLLECTION} - {r.id for r in kept}


def test_the_policy_blocks_every_hours_candidate_and_records_the_labels():
    passages = [r.as_passage() for r in current_public(COLLECTION)]
    for budget in (120, 400, 10_000):
        chosen = select_context(passages, budget)
        assert chosen.conflicts["help-desk-hours"] == ("2", "1")
        assert not {"hours-v1", "hours-v2"} & set(chosen.packet_ids)
    at_400 = select_context(passages, 400)
    assert packet_coverage(at_400.packet_ids, RELEVANT_IDS) == packet_coverage(["returns-v1"], RELEVANT_IDS)
    assert packet_coverage(select_context(CANDIDATES, 400).packet_ids, RELEVANT_IDS) == 1


def test_trace_shows_the_cost_of_being_conservative(record):
    runs = record["hours_conflict"]["runs"]
    assert [(r["max_quote_chars"], r["coverage"], r["lesson_01_coverage"]) for r in runs] == [
        (120, "1/2", "1/2"), (400, "1/2", "2/2")]
    assert runs[1]["conflicts"] == {"help-desk-hours": ["2", "1"], "printing-prices": ["1", "2"]}
    assert record["hours_conflict"]["multi_version_sources"]["help-desk-hours"] == ["2", "1"]


def test_largest_version_trap(record):
    assert version_maxima(["9", "10"]) == {"lexical": "9", "numeric": "10"}
    assert version_maxima(["2026-03-01", "2026-02-15"]) == {"lexical": "2026-03-01", "numeric": None}
    assert version_maxima(["oak", "birch"]) == {"lexical": "oak", "numeric": None}
    rows = record["largest_version_trap"]
    assert [(r["labels"], r["lexical"], r["numeric"], r["approved"]) for r in rows] == [
        ("9 vs 10", "9", "10", "9"), ("2026-03-01 vs 2026-02-15", "2026-03-01", None, "2026-02-15"),
        ("oak vs birch", "oak", None, "birch")]
    assert all(r["policy"] == "blocked: version conflict" for r in rows)
    # the mechanism itself never picks a maximum: 9 vs 10 with no declared rule abstains
    nine, ten = Record("a", "s", "9", "t", "x"), Record("b", "s", "10", "t", "y")
    assert resolve_or_abstain([nine, ten], {})["decision"] == "abstain-and-review"
    assert select_context([nine.as_passage(), ten.as_passage()], 100).conflicts == {"s": ("9", "10")}


def test_known_limit_cases_go_unflagged(record):
    limits = {c["case"]: c for c in record["known_limits"]}
    disagree = limits["two sources disagree"]
    assert disagree["flagged"] is False and disagree["packet_ids"] == ["hours-v2", "leaflet-v1"]
    assert len(set(disagree["sources"])) == 2
    reused = limits["one wrong label reused"]
    assert reused["flagged"] is False and reused["versions"] == ["2", "2"]
    assert reused["packet_ids"] == ["hours-v2", "hours-draft"]


def test_validity_filter_removes_the_expired_rule_before_ranking(record):
    assert LATE_FEES[0].id == "late-fee-2025" and LATE_FEES[0].valid_until == "2026-06-30"
    assert [r.id for r in valid_on(LATE_FEES, "2026-06-30")] == ["late-fee-2025"]  # inclusive last day
    assert [r.id for r in valid_on(LATE_FEES, "2026-07-01")] == ["late-fee-2026"]
    rows = {v["as_of"]: v for v in record["validity"]}
    assert list(rows) == ["2026-06-30", "2026-07-01", "(no filter)"]
    assert rows["2026-07-01"]["packet_ids"] == ["late-fee-2026"]
    assert rows["2026-07-01"]["removed"] == ["late-fee-2025 (expired: last day 2026-06-30)"]
    assert rows["2026-06-30"]["removed"] == ["late-fee-2026 (not yet valid: from 2026-07-01)"]
    assert rows["(no filter)"]["packet_ids"] == [] and rows["(no filter)"]["conflicts"] == ["late-fees"]
    assert "valid_until is inclusive" in record["dates"]


def test_as_of_option_adds_its_day():
    rows = json.loads(methods("versions", "--json", "--as-of", "2025-06-01").stdout)["validity"]
    assert [v["as_of"] for v in rows] == ["2026-06-30", "2026-07-01", "2025-06-01", "(no filter)"]
    assert rows[2]["packet_ids"] == ["late-fee-2025"]
    done = methods("versions", "--as-of", "2026-02-30", check=False)
    assert done.returncode == 2 and b"as_of is not a calendar day, got '2026-02-30'" in done.stderr


def test_amount_conflict_resolved_only_by_the_declared_rule(record):
    assert [parse_amount(r.text) for r in DEPOSITS] == [(500, "crowns"), (600, "crowns")]
    assert {r.source_id for r in DEPOSITS} == {"room-booking-rules", "facilities-notices"}
    resolved = resolve_or_abstain(DEPOSITS, SUPERSEDES)
    assert (resolved["decision"], resolved["selected_id"]) == ("selected", "deposit-notice")
    unresolved = resolve_or_abstain(DEPOSITS, {})
    assert unresolved["decision"] == "abstain-and-review" and unresolved["selected_id"] is None
    assert unresolved["presented_ids"] == ["deposit-rules", "deposit-notice"]
    conflict = record["amount_conflict"]
    assert conflict["highest_score_would_pick"] == "deposit-rules"  # the replaced one
    assert [(o["decision"], o["selected_id"]) for o in conflict["outcomes"]] == [
        ("selected", "deposit-notice"), ("abstain-and-review", None)]
    assert "review" in record["next_step"]


def test_plain_output_names_the_cases():
    text = methods("versions").stdout.decode()
    for words in ("largest-version trap", "Known limit", "valid_until is inclusive", "abstain-and-review",
                  "help-desk-hours (2, 1)"):
        assert words in text


def test_multi_version_sources_matches_lesson_01_selector():
    passages = [r.as_passage() for r in current_public(COLLECTION)]
    assert multi_version_sources(passages) == select_context(passages, 0).conflicts


@pytest.mark.parametrize("call, error, words", [
    (lambda: Record("x", "s", "1", "t", "x", status="draft"), ValueError, "Record.status must be one of"),
    (lambda: Record("x", "s", "1", "t", "x", audience="unknown"), ValueError, "got 'unknown'"),
    (lambda: Record("x", "s", "1", "t", "x", valid_from="2026-1-1"), ValueError, "Record.valid_from must be an ISO"),
    (lambda: Record("x", "s", "1", "t", "x", valid_until="2025-12-31"), ValueError, "is before valid_from"),
    (lambda: Record("x", "s", 1, "t", "x"), TypeError, "Passage.version must be a str, got int 1"),
    (lambda: check_day(20260701, "as_of"), TypeError, "as_of must be an ISO date str"),
    (lambda: check_day("2025-02-29", "as_of"), ValueError, "as_of is not a calendar day, got '2025-02-29'"),
    (lambda: valid_on(LATE_FEES, "2026/07/01"), ValueError, "as_of must be an ISO date"),
    (lambda: valid_on(["x"], "2026-07-01"), TypeError, "records[0] must be a Record"),
    (lambda: resolve_or_abstain(DEPOSITS, [("a", "b")]), TypeError, "supersedes must be a dict"),
    (lambda: resolve_or_abstain(DEPOSITS, {"a": "b"}), TypeError, "supersedes['a'] must be a collection"),
    (lambda: resolve_or_abstain(DEPOSITS, {"a": ["a"]}), ValueError, "supersedes['a'] names the record itself"),
    (lambda: version_maxima([]), ValueError, "labels must be non-empty strs"),
    (lambda: version_maxima(["9", 10]), TypeError, "labels must be strs, got ('9', 10)"),
    (lambda: multi_version_sources([("s", "1")]), TypeError, "passages[0] needs str source_id and version"),
    (lambda: parse_amount("no number here"), ValueError, "no amount"),
    (lambda: versions.trace(as_of="tomorrow"), ValueError, "as_of must be an ISO date"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_leap_day_is_a_calendar_day():
    assert check_day("2028-02-29", "as_of") == "2028-02-29"
