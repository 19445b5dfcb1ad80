"""Grader for lesson 04, versions. Run: python3 -B methods.py check versions"""

from labtools.grading.harness import manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load, Shown
from modules.versions.mechanism import COLLECTION, DEPOSITS, LATE_FEES, SUPERSEDES, Record, current_public

LESSON = "versions"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


def _rec(rid: str, source: str, version: str, **dates) -> Record:
    return Record(rid, source, version, f"title {rid}", f"text of {rid}", **dates)


def _ids(records) -> tuple:
    return tuple(r.id for r in records)


def _labels(records) -> Shown:
    return Shown("[" + ", ".join(f"{r.id}: {r.source_id} v{r.version}" for r in records) + "]", records)


# ---------------------------------------------------------------- Task 1

def test_task1_the_lesson_collection():
    fn = function(load(LESSON), "multi_version_sources")
    passages = [r.as_passage() for r in current_public(COLLECTION)]
    shown = "[r.as_passage() for r in current_public(COLLECTION)] from modules.versions.mechanism"
    expect_call(fn, Shown(shown, passages),
                want={"help-desk-hours": ("2", "1"), "printing-prices": ("1", "2")},
                why="help-desk-hours is seen as 2 then 1, printing-prices as 1 then 2; the other sources have one "
                    "label")


def test_task1_labels_stay_strings_in_first_seen_order():
    fn = function(load(LESSON), "multi_version_sources")
    cases = [
        ([_rec("a", "s", "9"), _rec("b", "s", "10")], {"s": ("9", "10")}, "first-seen order, not sorted as strings"),
        ([_rec("a", "s", "2"), _rec("b", "s", "1")], {"s": ("2", "1")}, "first-seen order, not sorted as numbers"),
        ([_rec("a", "s", "1"), _rec("b", "s", "01")], {"s": ("1", "01")}, "'1' and '01' are two different labels"),
        ([_rec("a", "s", "oak"), _rec("b", "s", "birch")], {"s": ("oak", "birch")}, "labels may be names"),
    ]
    for passages, want, why in cases:
        expect_call(fn, _labels(passages), want=want, why=why)


def test_task1_one_label_many_passages_is_not_a_conflict():
    fn = function(load(LESSON), "multi_version_sources")
    passages = [_rec("a", "s", "2"), _rec("b", "s", "2"), _rec("c", "t", "1"), _rec("d", "s", "2")]
    expect_call(fn, _labels(passages), want={},
                why="source s has three passages but only one label; count labels, not passages")
    passages = [_rec("a", "s", "2"), _rec("b", "s", "2"), _rec("c", "s", "3")]
    expect_call(fn, _labels(passages), want={"s": ("2", "3")}, why="each label is listed once")
    expect_call(fn, [], want={})


# ---------------------------------------------------------------- Task 2

def test_task2_the_last_day_is_still_valid():
    fn = function(load(LESSON), "valid_on")
    for day, want, why in (
        ("2026-06-30", ("late-fee-2025",), "2026-06-30 is the old rule's last day (inclusive); the new one starts tomorrow"),
        ("2026-07-01", ("late-fee-2026",), "on 2026-07-01 the old rule has expired and the new one starts"),
        ("2026-06-29", ("late-fee-2025",), "the day before the boundary"),
        ("2024-12-31", (), "before either rule existed"),
    ):
        got, shown = call_shown(fn, Shown("LATE_FEES", LATE_FEES), day)
        expect(_ids(got), want, shown + " -> ids", why=why)


def test_task2_boundaries_of_one_day_windows():
    fn = function(load(LESSON), "valid_on")
    one_day = _rec("one", "s", "1", valid_from="2026-03-10", valid_until="2026-03-10")
    for day, want in (("2026-03-09", ()), ("2026-03-10", ("one",)), ("2026-03-11", ())):
        got, shown = call_shown(fn, Shown("[valid 2026-03-10 .. 2026-03-10]", [one_day]), day)
        expect(_ids(got), want, shown + " -> ids",
               why="a record valid from and until the same day is valid on that day only")


def test_task2_open_end_and_order():
    fn = function(load(LESSON), "valid_on")
    records = [_rec("late", "s", "1", valid_from="2027-01-01"), _rec("open", "t", "1", valid_from="2020-01-01"),
               _rec("closed", "u", "1", valid_from="2020-01-01", valid_until="2026-12-31")]
    windows = Shown("[late: from 2027-01-01, open: from 2020-01-01, closed: 2020-01-01..2026-12-31]", records)
    got, shown = call_shown(fn, windows, "2027-01-01")
    expect(_ids(got), ("late", "open"), shown + " -> ids",
           why="valid_until None has no end; keep the input order; compare with as_of, not today's date")
    got, shown = call_shown(fn, windows, "2026-12-31")
    expect(_ids(got), ("open", "closed"), shown + " -> ids")


def test_task2_as_of_must_be_an_iso_day():
    fn = function(load(LESSON), "valid_on")
    # One non-digit at each place a digit belongs: every part of the day is checked.
    for bad in ("2026/07/01", "1 July 2026", "20260701", "202x-07-01", "2026-x7-01", "2026-0x-01",
                "2026-07-x1", "2026-07-0x"):
        expect_call(fn, Shown("LATE_FEES", LATE_FEES), bad, raises=ValueError,
                    why="an as-of date that is not 'YYYY-MM-DD' cannot be compared safely")


# ---------------------------------------------------------------- Task 3

def _resolve(fn, records, links):
    got, shown = call_shown(fn, Shown(str(list(_ids(records))), records), links)
    expect_true(isinstance(got, dict), f"called {shown}\n  got a {type(got).__name__}\n  expected: a dict")
    for key in ("decision", "selected_id", "presented_ids", "reason"):
        expect_true(key in got, f"called {shown}\n  got {got!r}\n  expected: a dict with the key {key!r}")
    expect_true(isinstance(got["reason"], str) and got["reason"].strip() != "",
                f"called {shown}\n  got reason {got['reason']!r}\n  expected: a sentence saying why "
                f"(the rule that selected, or why the decision goes to review)")
    return got, shown


def _expect_outcome(fn, records, links, decision, selected, presented, why):
    got, shown = _resolve(fn, records, links)
    expect(got["decision"], decision, shown + " -> decision", why=why)
    expect(got["selected_id"], selected, shown + " -> selected_id", why=why)
    expect(list(got["presented_ids"]), list(presented), shown + " -> presented_ids", why=why)


def test_task3_the_deposit_both_ways():
    fn = function(load(LESSON), "resolve_or_abstain")
    _expect_outcome(fn, DEPOSITS, SUPERSEDES, "selected", "deposit-notice", ["deposit-notice"],
                    why="the declared map says deposit-notice replaces deposit-rules")
    _expect_outcome(fn, DEPOSITS, {}, "abstain-and-review", None, ["deposit-rules", "deposit-notice"],
                    why="no declared rule: present both amounts (500 and 600) and conclude nothing")
    _expect_outcome(fn, DEPOSITS[::-1], {}, "abstain-and-review", None, ["deposit-notice", "deposit-rules"],
                    why="rank order does not resolve a conflict either; present both in the given order")


def test_task3_never_the_largest_version_label():
    fn = function(load(LESSON), "resolve_or_abstain")
    nine, ten = _rec("v9", "s", "9"), _rec("v10", "s", "10")
    _expect_outcome(fn, [nine, ten], {}, "abstain-and-review", None, ["v9", "v10"],
                    why="neither '10' (numeric max) nor '9' (lexical max) was declared to replace the other")
    _expect_outcome(fn, [ten, nine], {}, "abstain-and-review", None, ["v10", "v9"],
                    why="neither '10' (numeric max) nor '9' (lexical max) was declared to replace the other")
    _expect_outcome(fn, [ten, nine], {"v9": ("v10",)}, "selected", "v9", ["v9"],
                    why="the register says 9 replaced the draft 10: the declared rule wins over any maximum")
    older, newer = _rec("d1", "s", "2026-02-15"), _rec("d2", "s", "2026-03-01")
    _expect_outcome(fn, [older, newer], {}, "abstain-and-review", None, ["d1", "d2"],
                    why="a later date label is not evidence of approval")


def test_task3_links_count_only_from_present_records():
    fn = function(load(LESSON), "resolve_or_abstain")
    _expect_outcome(fn, DEPOSITS, {"ghost": ("deposit-rules",)}, "abstain-and-review", None,
                    ["deposit-rules", "deposit-notice"],
                    why="'ghost' is not among the records (filtered out, say), so its link settles nothing")
    a, b, c = _rec("a", "s", "1"), _rec("b", "t", "1"), _rec("c", "u", "1")
    _expect_outcome(fn, [a, b, c], {"c": ["a"]}, "abstain-and-review", None, ["b", "c"],
                    why="a is replaced, but b and c are both still standing")
    _expect_outcome(fn, [a, b, c], {"c": ["a", "b"]}, "selected", "c", ["c"], why="c replaces both others")
    _expect_outcome(fn, [b], {}, "selected", "b", ["b"], why="a single record has nothing to conflict with")


# ---------------------------------------------------------------- Task 4

def test_task4_score_quiz():
    expect_choice(LESSON, "SCORE_QUIZ", "c", 4, "Reread the lesson's part on the 500 and 600 crown deposits")
