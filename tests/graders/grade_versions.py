"""Grader for lesson 04, versions. Run: python3 -B methods.py check versions"""

import re

from labtools.grading.harness import (manifest_tasks, call_shown, constant, expect, expect_call, expect_true, function, load, LabFailure,
                  Shown)
from modules.context.mechanism import as_passage
from modules.versions.mechanism import (AS_OF, COLLECTION, DEPOSITS, LATE_FEES, SUPERSEDES, Record, current_public,
                                        resolve_in_order)

LESSON = "versions"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


def _rec(rid: str, source: str, version: str, text: str = "", **dates) -> Record:
    return Record(id=rid, source_id=source, version=version, title=f"title {rid}", text=text or f"text of {rid}",
                  **dates)


def _ids(records) -> tuple:
    return tuple(r.id for r in records)


def _labels(records) -> Shown:
    return Shown("[" + ", ".join(f"{r.id}: {r.source_id} v{r.version}" for r in records) + "]", records)


def _raises_naming(fn, args: tuple, error, word: str, shown: str, why: str) -> None:
    """The call must raise `error` with a message that names `word` (as a word of its own)."""
    try:
        fn(*args)
    except error as raised:
        expect_true(re.search(rf"(?<!\w){re.escape(word)}(?!\w)", str(raised)) is not None,
                    f"called {shown}\n  it raised {type(raised).__name__}: {raised}\n  expected: a message that "
                    f"names {word} ({why})")
        return
    except Exception as raised:
        raise LabFailure(f"called {shown}\n  it raised {type(raised).__name__}: {raised}\n  expected: "
                         f"{error.__name__} ({why})") from None
    raise LabFailure(f"called {shown}\n  it returned normally\n  expected: it raises {error.__name__} ({why})")


def _sequence(got, shown: str, what: str = "the result") -> list:
    """The container rule: a list or a tuple (either is accepted), read as a list."""
    if not isinstance(got, (list, tuple)):
        raise LabFailure(f"called {shown}\n  got:      {got!r} (a {type(got).__name__})\n"
                         f"  expected: {what} as a list or a tuple (either is accepted)")
    return list(got)


# ---------------------------------------------------------------- Task 1

def _reused(fn, passages, want, why, shown_as=None):
    got, shown = call_shown(fn, Shown(shown_as, passages) if shown_as else _labels(passages))
    expect_true(isinstance(got, dict), f"called {shown}\n  got:      {got!r}\n  expected: a dict")
    got = {source: _sequence(labels, shown, f"the labels of {source!r}") for source, labels in got.items()}
    expect(got, {source: list(labels) for source, labels in want.items()}, shown, why=why)


def test_task1_the_lessons_label_reused():
    fn = function(load(LESSON), "reused_labels")
    pair = [as_passage("hours-v2"), as_passage("hours-draft")]
    _reused(fn, pair, {"help-desk-hours": ("2",)},
            "hours-v2 and hours-draft both carry label 2 of help-desk-hours with other hours: the case the "
            "lesson's rule cannot see", shown_as="[as_passage('hours-v2'), as_passage('hours-draft')]")
    passages = [r.as_passage() for r in current_public(COLLECTION)]
    _reused(fn, passages, {}, "in the lesson's collection every label of a source has one text: two labels is "
                              "multi_version_sources' case, not this one",
            shown_as="[r.as_passage() for r in current_public(COLLECTION)]")


def test_task1_copies_and_other_labels_are_not_reuse():
    fn = function(load(LESSON), "reused_labels")
    _reused(fn, [_rec("a", "s", "2", "same"), _rec("b", "s", "2", "same")], {},
            "one label, one text: copies, not a conflict")
    _reused(fn, [_rec("a", "s", "1", "x"), _rec("b", "s", "2", "y")], {},
            "two labels with two texts is the lesson's multi-version case, not a reused label")
    _reused(fn, [_rec("a", "s", "2", "x"), _rec("b", "t", "2", "y")], {},
            "the same label in two sources is two labels: compare within one source")
    _reused(fn, [], {}, "no passages, nothing reused")


def test_task1_each_label_once_in_first_seen_order():
    fn = function(load(LESSON), "reused_labels")
    passages = [_rec("a", "s", "9", "x"), _rec("b", "s", "10", "p"), _rec("c", "s", "9", "y"),
                _rec("d", "s", "10", "q"), _rec("e", "s", "9", "z"), _rec("f", "t", "1", "m"),
                _rec("g", "t", "1", "n")]
    _reused(fn, passages, {"s": ("9", "10"), "t": ("1",)},
            "labels as written, each once, in the order first seen (9 before 10), never sorted")
    passages = [_rec("a", "s", "1", "x"), _rec("b", "s", "2", "y"), _rec("c", "s", "2", "z"), _rec("d", "s", "1", "x")]
    _reused(fn, passages, {"s": ("2",)}, "label 1 has one text (twice), label 2 two texts")
    passages = [_rec("a", "s", "9", "x"), _rec("b", "s", "10", "p"), _rec("c", "s", "10", "q"), _rec("d", "s", "9", "y")]
    _reused(fn, passages, {"s": ("9", "10")},
            "label 9 appears first (passage a), though its second text turns up last (passage d): the order is "
            "the order the labels first appear")


def test_task1_texts_compared_exactly():
    fn = function(load(LESSON), "reused_labels")
    _reused(fn, [_rec("a", "s", "2", "Opens at 9:00."), _rec("b", "s", "2", "opens at 9:00. ")], {"s": ("2",)},
            "texts are compared exactly, as strings: another capital or a trailing space is another text, and "
            "nobody has checked that the two say the same",
            shown_as="[a: s v2 'Opens at 9:00.', b: s v2 'opens at 9:00. ']")


# ---------------------------------------------------------------- Task 2

def _during(fn, records, start, end, want, why, shown_as):
    got, shown = call_shown(fn, Shown(shown_as, records), start, end)
    expect(_ids(_sequence(got, shown)), want, shown + " -> ids", why=why)


def test_task2_a_period_across_the_fee_change():
    fn = function(load(LESSON), "valid_during")
    for start, end, want, why in (
        ("2026-06-28", "2026-07-03", ("late-fee-2025", "late-fee-2026"),
         "the fee changes on 2026-07-01, inside the period: both rules apply to some day of it"),
        ("2026-06-30", "2026-07-01", ("late-fee-2025", "late-fee-2026"),
         "the old rule's last day and the new rule's first day are both in the period"),
        ("2026-07-01", "2026-07-31", ("late-fee-2026",), "the old rule ended the day before the period"),
        ("2026-06-01", "2026-06-30", ("late-fee-2025",), "the new rule starts the day after the period"),
        ("2024-01-01", "2024-12-31", (), "before either rule existed"),
    ):
        _during(fn, LATE_FEES, start, end, want, why, "LATE_FEES")


def test_task2_one_day_periods_and_windows():
    fn = function(load(LESSON), "valid_during")
    one = _rec("one", "s", "1", valid_from="2026-03-10", valid_until="2026-03-10")
    for start, end, want in (("2026-03-09", "2026-03-09", ()), ("2026-03-10", "2026-03-10", ("one",)),
                             ("2026-03-01", "2026-03-31", ("one",)), ("2026-03-11", "2026-04-01", ())):
        _during(fn, [one], start, end, want, "a record valid on 2026-03-10 only, against periods around it",
                "[valid 2026-03-10 .. 2026-03-10]")


def test_task2_open_ends_and_order():
    fn = function(load(LESSON), "valid_during")
    records = [_rec("late", "s", "1", valid_from="2027-01-01"), _rec("open", "t", "1", valid_from="2020-01-01"),
               _rec("closed", "u", "1", valid_from="2020-01-01", valid_until="2026-12-31")]
    shown_as = "[late: from 2027-01-01, open: from 2020-01-01, closed: 2020-01-01..2026-12-31]"
    _during(fn, records, "2026-12-31", "2027-01-01", ("late", "open", "closed"), "all three touch the period; "
            "valid_until None has no end; keep the input order", shown_as)
    _during(fn, records, "2027-01-02", "2030-01-01", ("late", "open"), "closed ended before the period", shown_as)
    _during(fn, tuple(records), "2019-01-01", "2019-12-31", (), "a tuple of records is fine too", shown_as)


def test_task2_days_must_be_iso_and_in_order():
    fn = function(load(LESSON), "valid_during")
    for start, end, bad in (("2026/07/01", "2026-07-02", "start"), ("2026-07-01", "2 July 2026", "end"),
                            ("2026-02-30", "2026-03-01", "start"), ("2026-07-01", "2026-13-01", "end")):
        _raises_naming(fn, (LATE_FEES, start, end), ValueError, bad, f"valid_during(LATE_FEES, {start!r}, {end!r})",
                       f"a day that is not a calendar day 'YYYY-MM-DD' cannot be compared safely; the message "
                       f"names the argument ({bad})")
    expect_call(fn, Shown("LATE_FEES", LATE_FEES), "2026-07-03", "2026-06-28", raises=ValueError,
                why="a period that ends before it starts is a mistake to report, not an empty answer")


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
    expect(_sequence(got["presented_ids"], shown, "presented_ids"), list(presented), shown + " -> presented_ids",
           why=why)


def test_task3_a_chain_through_an_absent_record():
    fn = function(load(LESSON), "resolve_with_chains")
    a, c = _rec("rules-2024", "s", "1"), _rec("notice-2026", "t", "1")
    chain = {"notice-2026": ("rules-2025",), "rules-2025": ("rules-2024",)}
    _expect_outcome(fn, [a, c], chain, "selected", "notice-2026", ["notice-2026"],
                    why="notice-2026 replaced rules-2025, which replaced rules-2024: the chain replaces rules-2024 "
                        "even though rules-2025 is no longer among the records (the lesson's resolve_or_abstain "
                        "would abstain here)")
    _expect_outcome(fn, [c, a], chain, "selected", "notice-2026", ["notice-2026"], why="the order of the records "
                                                                                     "does not matter")
    longer = {"d": ["c"], "c": ["b"], "b": ["a"]}
    _expect_outcome(fn, [_rec("a", "s", "1"), _rec("d", "s", "4")], longer, "selected", "d", ["d"],
                    why="d reaches a through c and b, two absent steps")
    diamond = {"d": ["b", "c"], "b": ["a"], "c": ["a"]}
    _expect_outcome(fn, [_rec("a", "s", "1"), _rec("d", "s", "4")], diamond, "selected", "d", ["d"],
                    why="d reaches a along two paths (through b and through c); reaching an id twice is not a "
                        "cycle: only a record that reaches itself is")


def test_task3_the_deposit_and_direct_links():
    fn = function(load(LESSON), "resolve_with_chains")
    _expect_outcome(fn, DEPOSITS, SUPERSEDES, "selected", "deposit-notice", ["deposit-notice"],
                    why="the declared map says deposit-notice replaces deposit-rules")
    _expect_outcome(fn, DEPOSITS, {}, "abstain-and-review", None, ["deposit-rules", "deposit-notice"],
                    why="no declared rule: present both amounts and conclude nothing")
    a, b, c = _rec("a", "s", "1"), _rec("b", "t", "1"), _rec("c", "u", "1")
    _expect_outcome(fn, [a, b, c], {"c": ["a"]}, "abstain-and-review", None, ["b", "c"],
                    why="a is replaced, but b and c are both still standing")
    _expect_outcome(fn, [b], {}, "selected", "b", ["b"], why="a single record has nothing to conflict with")


def test_task3_links_from_records_nobody_present_reaches_count_for_nothing():
    fn = function(load(LESSON), "resolve_with_chains")
    _expect_outcome(fn, DEPOSITS, {"ghost": ("deposit-rules",)}, "abstain-and-review", None,
                    ["deposit-rules", "deposit-notice"],
                    why="'ghost' is absent and no present record reaches it, so its link settles nothing")
    a, c = _rec("a", "s", "1"), _rec("c", "s", "3")
    _expect_outcome(fn, [a, c], {"b": ["a"]}, "abstain-and-review", None, ["a", "c"],
                    why="b replaced a, but b is absent and c does not reach b: a still stands beside c")
    _expect_outcome(fn, [a, c], {"c": ["b"]}, "abstain-and-review", None, ["a", "c"],
                    why="c replaced b, and the map says nothing about what b replaced: a still stands")


def test_task3_never_the_largest_label_and_no_cycles():
    fn = function(load(LESSON), "resolve_with_chains")
    nine, ten = _rec("v9", "s", "9"), _rec("v10", "s", "10")
    _expect_outcome(fn, [nine, ten], {}, "abstain-and-review", None, ["v9", "v10"],
                    why="neither '10' (numeric max) nor '9' (lexical max) was declared to replace the other")
    a, b = _rec("a", "s", "1"), _rec("b", "s", "2")
    for links in ({"a": ["b"], "b": ["a"]}, {"a": ["x"], "x": ["a"]}):
        expect_call(fn, Shown("[a, b]", [a, b]), links, raises=ValueError,
                    why="a record that replaces itself through the chain makes the register unusable; following "
                        "it would loop or pick at random")
    plans = [_rec("plan-1", "s", "1"), _rec("plan-2", "t", "1")]
    links = {"plan-1": ["ghost"], "ghost": ["plan-1"]}
    _raises_naming(fn, (plans, links), ValueError, "plan-1", f"resolve_with_chains(['plan-1', 'plan-2'], {links!r})",
                   "plan-1 reaches itself through ghost; the message names it, so an editor knows which entry of "
                   "the register to fix")


# ---------------------------------------------------------------- Task 4

def test_task4_predict_the_publication_rule():
    value = constant(load(LESSON), "PUBLICATION_RULE_OUTCOME")
    expect_true(isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, str) for v in value),
                f"PUBLICATION_RULE_OUTCOME is {value!r}; set it to a pair of strs (list or tuple): the check's "
                "name as the trace prints it and the selected id")
    outcome = resolve_in_order(DEPOSITS, AS_OF, later_publication_wins=True)
    expect_true(list(value) == [outcome["decided_by"], outcome["selected_id"]],
                f"PUBLICATION_RULE_OUTCOME = {value!r} is not what the checks do. Walk them in order (parsing, "
                "unit, scope, authority, publication time, validity, supersedes): which is the first that can "
                "decide once the later publication is declared to win, and which record was published later? "
                "(hint: python3 -B methods.py hint versions 4)")


# ---------------------------------------------------------------- Task 5

SCORE_MISCONCEPTIONS = {
    "a": "no gap, however wide, turns relevance into approval: the 0.91 record is the one the declared rule "
         "says was replaced",
    "b": "normalising rescales relevance; it still says nothing about which record is in force",
    "c": "matching the question well is not being in force: the better match here is the replaced record",
}


def test_task5_score_quiz():
    answer = constant(load(LESSON), "SCORE_QUIZ")
    expect_true(answer in ("a", "b", "c", "d"), f"SCORE_QUIZ is {answer!r}; set it to one letter: 'a', 'b', 'c' "
                                                "or 'd'")
    expect_true(answer == "d", f"SCORE_QUIZ = {answer!r} is not the best answer: {SCORE_MISCONCEPTIONS.get(answer, '')}"
                               ". Reread the lesson's part on the 500 and 600 crown deposits, then try again (hint: "
                               "python3 -B methods.py hint versions 5)")
