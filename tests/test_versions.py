"""Lesson 04's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest
from dataclasses import replace

from helpers import methods
from modules.versions import mechanism as versions
from modules.versions import trace as versions_trace
from modules.context import CANDIDATES, RELEVANT_IDS, packet_coverage, select_context
from modules.versions.mechanism import (COLLECTION, DEPOSIT_SCORES, DEPOSITS, LATE_FEES, RESOLUTION_CHECKS, SUPERSEDES, Amount, Record,
                              check_day, check_window, current_public, multi_version_sources, parse_amount,
                              resolve_in_order, resolve_or_abstain, stated_amounts, valid_on, version_maxima)


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
        ("9 vs 10", "9", "10", "9"), ("09 vs 9", "9", "9", "09"),
        ("2026-03-01 vs 2026-02-15", "2026-03-01", None, "2026-02-15"), ("oak vs birch", "oak", None, "birch")]
    assert all(r["same_in_either_order"] for r in rows)
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
    reused = limits["a label reused"]
    assert reused["flagged"] is False and reused["versions"] == ["2", "2"]
    assert reused["packet_ids"] == ["hours-v2", "hours-draft"]


def test_validity_filter_removes_the_expired_rule_before_ranking(record):
    assert LATE_FEES[0].id == "late-fee-2025" and LATE_FEES[0].valid_until == "2026-06-30"
    assert [r.id for r in valid_on(LATE_FEES, "2026-06-30")] == ["late-fee-2025"]  # inclusive last day
    assert [r.id for r in valid_on(LATE_FEES, "2026-07-01")] == ["late-fee-2026"]
    rows = {v["as_of"]: v for v in record["validity"]}
    assert list(rows) == ["2026-06-30", "2026-07-01", "none"]
    assert rows["2026-07-01"]["packet_ids"] == ["late-fee-2026"]
    assert rows["2026-07-01"]["removed"] == ["late-fee-2025 (ended 2026-06-30)"]
    assert rows["2026-06-30"]["removed"] == ["late-fee-2026 (from 2026-07-01)"]
    assert rows["none"]["packet_ids"] == [] and rows["none"]["conflicts"] == ["late-fees"]
    assert "valid_until is inclusive" in record["dates"]


def test_as_of_option_adds_its_day():
    rows = json.loads(methods("versions", "--json", "--as-of", "2025-06-01").stdout)["validity"]
    assert [v["as_of"] for v in rows] == ["2026-06-30", "2026-07-01", "2025-06-01", "none"]
    assert rows[2]["packet_ids"] == ["late-fee-2025"]
    done = methods("versions", "--as-of", "2026-02-30", check=False)
    assert done.returncode == 2 and b"as_of is not a calendar day, got '2026-02-30'" in done.stderr


def test_version_maxima_does_not_depend_on_input_order():
    """Issue 14: ["9", "09"] and ["09", "9"] picked different numeric maxima."""
    assert version_maxima(["9", "09"]) == version_maxima(["09", "9"]) == {"lexical": "9", "numeric": "9"}
    assert version_maxima(["010", "10", "9"]) == version_maxima(["9", "10", "010"]) == {"lexical": "9",
                                                                                      "numeric": "10"}
    # Superscript and other scripts' digits are not integers here: int() would fail or differ.
    assert version_maxima(["\u00b2", "1"])["numeric"] is None and version_maxima(["\u0663", "1"])["numeric"] is None
    with pytest.raises(TypeError, match="labels must be a sequence of str, got set"):
        version_maxima({"9", "10"})


@pytest.mark.parametrize("text, amounts", [
    ("The allowance is 600 euros per trip.", [(600, "euros", "600 euros")]),
    ("The allowance is 1,600 euros per trip.", [(1600, "euros", "1,600 euros")]),
    ("The allowance is 600 EUR per trip.", [(600, "euros", "600 EUR")]),
    ("The allowance is EUR 600 per trip.", [(600, "euros", "EUR 600")]),
    ("The allowance is €600 per trip.", [(600, "euros", "€600")]),
    ("The allowance is 600€ per trip.", [(600, "euros", "600€")]),
    ("The allowance is 600 euro per trip.", [(600, "euros", "600 euro")]),
    ("The allowance is six hundred euros per trip.", [(None, "euros", "six hundred euros")]),
    ("The allowance is \u0666\u0660\u0660 euros per trip.", [(None, "euros", "\u0666\u0660\u0660 euros")]),
    ("The allowance is 600.50 euros, or 1.600,00 euros.", [(None, "euros", "600.50 euros"),
                                                          (None, "euros", "1.600,00 euros")]),
    ("A deposit of 500 crowns, at most 2000 euros a year.", [(500, "crowns", "500 crowns"),
                                                               (2000, "euros", "2000 euros")]),
    ("Prices are given in euros; two nights of lodging.", []),
])
def test_one_amount_reader_reads_every_spelling_or_says_it_cannot(text, amounts):
    """Issue 13: one amount reader for lessons 04 and 11; an unread amount is flagged, never guessed."""
    assert [(a.value, a.unit, a.written) for a in stated_amounts(text)] == amounts
    assert all(isinstance(a, Amount) for a in stated_amounts(text))
    if amounts and amounts[0][0] is not None:
        assert parse_amount(text) == amounts[0][:2]
    else:
        with pytest.raises(ValueError, match="cannot be read" if amounts else "holds no amount"):
            parse_amount(text)


def test_parse_amount_none_is_a_type_error_naming_the_argument():
    """Issue 14: versions.parse_amount(None) raised AttributeError."""
    with pytest.raises(TypeError, match="text must be a str, got NoneType None"):
        parse_amount(None)
    with pytest.raises(TypeError, match="text must be a str"):
        stated_amounts(b"600 euros")


def test_resolution_checks_run_in_order_and_the_trace_shows_which_decided(record):
    """Issue 13: parsing, unit, scope, authority, publication time, validity, supersedes, each recorded."""
    assert [name for name, _ in RESOLUTION_CHECKS] == ["parsing", "unit", "scope", "authority", "publication time",
                                                       "validity", "supersedes"]
    full = resolve_in_order(DEPOSITS, "2026-07-01", SUPERSEDES)
    assert [c["check"] for c in full["checks"]] == [name for name, _ in RESOLUTION_CHECKS]
    assert [c["decision"] for c in full["checks"]] == [None] * 6 + ["selected"]
    assert (full["decided_by"], full["decision"], full["selected_id"]) == ("supersedes", "selected", "deposit-notice")
    assert full["checks"][0]["result"] == "deposit-rules: 500 crowns; deposit-notice: 600 crowns"
    none = resolve_in_order(DEPOSITS, "2026-07-01")
    assert (none["decided_by"], none["decision"], none["presented_ids"]) == (
        None, "abstain-and-review", ["deposit-rules", "deposit-notice"])
    rows = {r["case"]: r for r in record["amount_conflict"]["resolutions"]}
    assert {case: (r["decided_by"], r["decision"], r["selected_id"]) for case, r in rows.items()} == {
        "supersedes map declared": ("supersedes", "selected", "deposit-notice"),
        "nothing declared": (None, "abstain-and-review", None),
        "as of 2026-04-30": ("validity", "selected", "deposit-rules"),
        "precedence declared": ("authority", "selected", "deposit-rules"),
        "notice says 60 euros": ("unit", "abstain-and-review", None),
        "notice in words": ("parsing", "abstain-and-review", None)}
    # A run stops at the deciding check: later checks are not run, and the table says so.
    assert [c["check"] for c in rows["notice in words"]["checks"]] == ["parsing"]
    text = methods("versions").stdout.decode()
    flat = " ".join(text.split())
    assert "7 supersedes DECIDES: declared: deposit-notice supersedes the others" in flat
    assert "parsed, same unit, same scope" not in text


def test_each_check_decides_on_its_own_terms():
    rules, notice = DEPOSITS
    same = replace(notice, text="Study room keys: the deposit is 500 crowns.")
    assert resolve_in_order([rules, same], "2026-07-01")["decision"] == "no-conflict"
    elsewhere = replace(notice, scope="locker key deposit")
    outcome = resolve_in_order([rules, elsewhere], "2026-07-01", SUPERSEDES)
    assert (outcome["decided_by"], outcome["decision"]) == ("scope", "no-conflict")
    unstated = replace(notice, scope="")
    assert resolve_in_order([rules, unstated], "2026-07-01")["decided_by"] == "scope"
    later = resolve_in_order(DEPOSITS, "2026-07-01", later_publication_wins=True)
    assert (later["decided_by"], later["selected_id"]) == ("publication time", "deposit-notice")
    undated = replace(notice, published=None)
    assert resolve_in_order([rules, undated], "2026-07-01", later_publication_wins=True)["decided_by"] is None
    assert resolve_in_order(DEPOSITS, "2025-06-01")["decided_by"] == "validity"  # neither valid yet
    # A score is never an input: reversing the pair changes no decision.
    for kwargs in ({}, {"supersedes": SUPERSEDES}, {"precedence": ("facilities-notices", "room-booking-rules")}):
        forward, backward = resolve_in_order(DEPOSITS, "2026-07-01", **kwargs), resolve_in_order(
            DEPOSITS[::-1], "2026-07-01", **kwargs)
        assert (forward["decided_by"], forward["selected_id"]) == (backward["decided_by"], backward["selected_id"])


def test_one_validity_check_for_records():
    with pytest.raises(ValueError, match="Thing.valid_until '2026-01-01' is before valid_from '2026-02-01'"):
        check_window("2026-02-01", "2026-01-01", "Thing")
    check_window(None, None, "Thing")
    check_window("2026-02-01", "2026-02-01", "Thing")


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


def test_plain_output_fits_88_columns_with_keys_and_legends():
    lines = methods("versions").stdout.decode().splitlines()
    assert max(len(line) for line in lines) <= 88
    blocks = versions_trace.view(versions_trace.trace())
    assert all(b.get("key") for b in blocks) and len({b["key"] for b in blocks}) == len(blocks)
    assert all(b["table"].get("legend") for b in blocks if "table" in b)


def test_notebook_makes_no_claim_about_lesson_09_auditing_contradictions():
    """Issue 13: lesson 09's traces do not audit cross-source contradictions."""
    from helpers import ROOT
    text = (ROOT / "notebooks" / "src" / "04_versions.py").read_text(encoding="utf-8")
    assert "audit" not in text.lower()


def test_plain_output_names_the_cases():
    text = methods("versions").stdout.decode()
    for words in ("largest-version trap", "Known limit", "valid_until is inclusive", "abstain-and-review",
                  "help-desk-hours (2, 1)", "Which check decided"):
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
    (lambda: version_maxima(["9", 10]), TypeError, "labels[1] must be a str, got int 10"),
    (lambda: version_maxima(["9", " "]), ValueError, "labels must be non-empty strs"),
    (lambda: Record("x", "s", "1", "t", "x", scope=None), TypeError, "Record.scope must be a str"),
    (lambda: Record("x", "s", "1", "t", "x", published="soon"), ValueError, "Record.published must be an ISO"),
    (lambda: resolve_in_order(DEPOSITS[:1], "2026-07-01"), ValueError, "at least two records"),
    (lambda: resolve_in_order(DEPOSITS, "2026-07-01", precedence="abc"), TypeError, "precedence must be a sequence"),
    (lambda: resolve_in_order(DEPOSITS, "2026-07-01", later_publication_wins=1), TypeError,
     "later_publication_wins must be a bool"),
    (lambda: current_public({COLLECTION[0]}), TypeError, "records must be a sequence of Record, got set"),
    (lambda: multi_version_sources({COLLECTION[0]}), TypeError, "passages must be a sequence"),
    (lambda: multi_version_sources([("s", "1")]), TypeError, "passages[0] needs str source_id and version"),
    (lambda: parse_amount("no number here"), ValueError, "no amount"),
    (lambda: parse_amount(None), TypeError, "text must be a str, got NoneType None"),
    (lambda: versions_trace.trace(as_of="tomorrow"), ValueError, "as_of must be an ISO date"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_leap_day_is_a_calendar_day():
    assert check_day("2028-02-29", "as_of") == "2028-02-29"


@pytest.mark.parametrize("text", ["1e3 crowns", "5e2 crowns", "0x1F4 crowns", "-500 crowns", "+500 crowns",
                                  "9" * 5000 + " crowns"])
def test_parse_amount_refuses_what_it_would_misread(text):
    # Issue 27.4: these read as 3, 2, 4 and 500, and 5,000 digits leaked int()'s digit-limit message.
    with pytest.raises(ValueError, match="^text states an amount that cannot be read, for review") as caught:
        versions.parse_amount(text)
    assert len(str(caught.value)) < 300
    assert [a.value for a in versions.stated_amounts(text)] == [None]


def test_parse_amount_still_reads_plain_amounts():
    for text, expected in (("500 crowns", (500, "crowns")), ("EUR 600.", (600, "euros")), ("€600", (600, "euros")),
                           ("1,600 euros", (1600, "euros")), ("costs 5 euros per day", (5, "euros"))):
        assert versions.parse_amount(text) == expected


def test_the_score_quiz_premise_holds_on_the_fixture():
    from helpers import ROOT
    quiz = (ROOT / "solutions" / "versions.py").read_text(encoding="utf-8").split("# Task 4 (quiz).")[1]
    quiz = " ".join(" ".join(line.lstrip("# ") for line in quiz.splitlines()).split())
    assert "500-crown passage 0.91 and the 600-crown passage 0.84" in quiz
    assert DEPOSIT_SCORES == {"deposit-rules": 0.91, "deposit-notice": 0.84}
    assert [versions.parse_amount(r.text) for r in DEPOSITS] == [(500, "crowns"), (600, "crowns")]

