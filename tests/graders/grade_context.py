"""Grader for lesson 01, context. Run: python3 -B methods.py check context"""

from fractions import Fraction

from labtools.grading.harness import (manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load,
                  patched, Shown)
from modules.context import CANDIDATES, ContextRecord, Passage, RELEVANT_IDS

LESSON = "context"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


def _p(pid: str, length: int, source: str | None = None) -> Passage:
    # Text made of a repeated letter so every passage has a distinct, exact length.
    return Passage(pid, source or f"src-{pid}", "1", f"title {pid}", (pid[0] * length)[:length])


def _lengths(passages) -> Shown:
    return Shown("[" + ", ".join(f"{p.id}:{len(p.text)} chars" for p in passages) + "]", passages)


# ---------------------------------------------------------------- Task 1

def test_task1_half_of_the_needed_passages():
    fn = function(load(LESSON), "packet_coverage")
    expect_call(fn, ["returns-v1", "wifi-v1"], ["hours-v2", "returns-v1"], want=Fraction(1, 2),
                why="one of the two needed ids is in the packet; return a Fraction, not a float")


def test_task1_denominator_is_the_needed_set():
    fn = function(load(LESSON), "packet_coverage")
    expect_call(fn, ["a", "x", "y", "z"], ["a", "b", "c"], want=Fraction(1, 3),
                why="divide by the number of needed ids (3), not by the packet size (4)")
    expect_call(fn, [], ["a", "b"], want=Fraction(0), why="an empty packet covers nothing")


def test_task1_repeats_count_once():
    fn = function(load(LESSON), "packet_coverage")
    expect_call(fn, ["a", "a"], ["a", "b"], want=Fraction(1, 2),
                why="'a' was found once, however often the packet lists it")
    expect_call(fn, ("b", "a"), ("a", "b", "a"), want=Fraction(1),
                why="the needed set is {a, b}: both are in the packet")


def test_task1_empty_relevant_set_is_an_error():
    fn = function(load(LESSON), "packet_coverage")
    expect_call(fn, ["a"], [], raises=ValueError,
                why="coverage of an empty set of needed ids is undefined, not 0 and not 1")


# ---------------------------------------------------------------- Task 2

def test_task2_lesson_ranking():
    fn = function(load(LESSON), "recall_at_k")
    ranked = [p.id for p in CANDIDATES]
    for k, want in ((1, Fraction(1, 2)), (2, Fraction(1)), (8, Fraction(1))):
        expect_call(fn, Shown("[p.id for p in CANDIDATES] from modules.context", ranked), list(RELEVANT_IDS), k,
                    want=want)


def test_task2_exactly_k_items():
    fn = function(load(LESSON), "recall_at_k")
    ranked, relevant = ["x", "a", "y", "b"], ["a", "b"]
    for k, want in ((1, Fraction(0)), (2, Fraction(1, 2)), (3, Fraction(1, 2)), (4, Fraction(1))):
        expect_call(fn, ranked, relevant, k, want=want, why=f"look at exactly the first {k} ranked ids")


def test_task2_denominator_is_not_k():
    fn = function(load(LESSON), "recall_at_k")
    expect_call(fn, ["a", "x", "y"], ["a"], 3, want=Fraction(1),
                why="recall divides by the needed ids (1); dividing by k gives precision")
    expect_call(fn, ["a", "a", "x"], ["a", "b"], 2, want=Fraction(1, 2), why="an id ranked twice is still one found id")
    expect_call(fn, ["a"], ["a", "b"], 5, want=Fraction(1, 2), why="k larger than the ranking is allowed")
    expect_call(fn, ["a", "x"], ["a", "b", "a"], 2, want=Fraction(1, 2),
                why="the needed ids are {a, b}: a needed id listed twice is still one id to find")


def test_task2_bad_k_or_empty_labels():
    fn = function(load(LESSON), "recall_at_k")
    expect_call(fn, ["a"], ["a"], 0, raises=ValueError, why="k must be at least 1")
    expect_call(fn, ["a"], [], 1, raises=ValueError, why="recall of an empty set of needed ids is undefined")


# ---------------------------------------------------------------- Task 3

def _fill(fn, passages, budget):
    record, shown = call_shown(fn, _lengths(passages), budget)
    expect_true(isinstance(record, ContextRecord),
                f"called {shown}\n  got a {type(record).__name__}\n  expected: a ContextRecord")
    wrong = [item for item in record.packet if not isinstance(item, Passage)]
    if wrong:  # read no field of a value that is not a Passage: say what came back instead
        expect_true(False, f"called {shown} -> packet\n  got:      {tuple(record.packet)!r:.60} (items of type "
                           f"{type(wrong[0]).__name__})\n  expected: the Passages themselves, in order (the "
                           f"packet quotes their text; ids alone cannot be quoted)")
    return record, shown


def _expect_walk(fn, passages, budget, packet, skipped, used, why=""):
    record, shown = _fill(fn, passages, budget)
    expect(tuple(p.id for p in record.packet), tuple(packet), shown + " -> packet ids", why=why)
    expect(tuple(record.budget_skipped_ids), tuple(skipped), shown + " -> budget_skipped_ids", why=why)
    expect(record.used_quote_chars, used, shown + " -> used_quote_chars", why=why)
    expect(record.max_quote_chars, budget, shown + " -> max_quote_chars")
    return record


def test_task3_skip_the_misfit_keep_walking():
    fn = function(load(LESSON), "fill_quote_budget")
    passages = [_p("long", 150), _p("short", 30), _p("mid", 40)]
    _expect_walk(fn, passages, 80, ["short", "mid"], ["long"], 70,
                 why="the 150-character passage is skipped whole; the two after it still fit (70 used)")


def test_task3_never_truncates():
    fn = function(load(LESSON), "fill_quote_budget")
    passages = [_p("long", 150), _p("short", 30)]
    record, shown = _fill(fn, passages, 80)
    for passage in record.packet:
        expect_true(passage in passages,
                    f"called {shown}\n  the packet holds {passage.id!r} with {len(passage.text)} chars, "
                    f"which is not one of the input passages: a passage is copied whole or skipped, never cut")


def test_task3_exact_fit_is_kept():
    fn = function(load(LESSON), "fill_quote_budget")
    _expect_walk(fn, [_p("first", 50), _p("second", 30)], 80, ["first", "second"], [], 80,
                 why="50 + 30 = 80 fills the budget exactly: a passage that fits exactly is kept "
                     "(used + length <= budget, not <)")
    _expect_walk(fn, [_p("whole", 80)], 80, ["whole"], [], 80, why="a passage of exactly the budget fits")


def test_task3_counts_characters_not_bytes_or_titles():
    fn = function(load(LESSON), "fill_quote_budget")
    accented = Passage("cafe", "src-cafe", "1", "a long title that is not quote text", "é" * 40)
    plain = Passage("plain", "src-plain", "1", "another title", "p" * 40)
    _expect_walk(fn, [accented, plain], 80, ["cafe", "plain"], [], 80,
                 why="the budget counts len(passage.text): 40 + 40 = 80 characters fit, although the "
                     "accented text is 80 UTF-8 bytes and the titles are not counted at all")


def test_task3_same_text_under_two_ids_is_copied_twice():
    fn = function(load(LESSON), "fill_quote_budget")
    first, second = Passage("x1", "src-x", "1", "x", "same words"), Passage("x2", "src-y", "1", "y", "same words")
    _expect_walk(fn, [first, second], 40, ["x1", "x2"], [], 20,
                 why="fill_quote_budget only walks the budget; removing duplicates is another step's job")


def test_task3_record_holds_tuples():
    fn = function(load(LESSON), "fill_quote_budget")
    record, shown = _fill(fn, [_p("long", 150), _p("short", 30)], 80)
    for name in ("packet", "budget_skipped_ids", "duplicate_text_ids"):
        value = getattr(record, name)
        expect_true(isinstance(value, tuple),
                    f"called {shown}\n  record.{name} is a {type(value).__name__}: {value!r}\n"
                    f"  expected: a tuple (a record that cannot change after the walk)")
    expect(record.duplicate_text_ids, (), shown + " -> duplicate_text_ids", why="this walk removes no duplicates")
    expect(record.conflicts, {}, shown + " -> conflicts", why="this walk checks no versions")


def test_task3_later_passage_may_still_fit():
    fn = function(load(LESSON), "fill_quote_budget")
    _expect_walk(fn, [_p("a", 50), _p("b", 40), _p("c", 30), _p("d", 5)], 80, ["a", "c"], ["b", "d"], 80,
                 why="b does not fit after a (90 > 80), c does (80), and d no longer does")


def test_task3_lesson_budgets():
    fn = function(load(LESSON), "fill_quote_budget")
    deduped = [p for p in CANDIDATES if p.id not in ("returns-faq", "printing-v1", "printing-v2")]
    _expect_walk(fn, deduped, 80, ["wifi-v1", "card-v1"],
                 ["returns-v1", "hours-v2", "parking-v1"], 69)
    _expect_walk(fn, deduped, 120, ["returns-v1"], ["hours-v2", "wifi-v1", "parking-v1", "card-v1"], 100)
    _expect_walk(fn, deduped, 400, ["returns-v1", "hours-v2", "wifi-v1", "card-v1"], ["parking-v1"], 260,
                 why="parking-v1 (182) would make 403 > 400, so it is skipped and card-v1 still fits")


def test_task3_zero_and_negative_budgets():
    fn = function(load(LESSON), "fill_quote_budget")
    _expect_walk(fn, [_p("a", 10)], 0, [], ["a"], 0, why="nothing fits in a budget of 0")
    _expect_walk(fn, [], 50, [], [], 0, why="no candidates, empty packet")
    expect_call(fn, _lengths([_p("a", 10)]), -1, raises=ValueError,
                why="a negative budget is a mistake to report, not a budget of 0")


def test_task3_selector_ignores_the_labels():
    # Grade the same inputs under the lesson's labels and under invented ones:
    # a selector that reads the answer key would change its packet.
    deduped = [p for p in CANDIDATES if p.id not in ("returns-faq", "printing-v1", "printing-v2")]
    outputs = []
    for labels in (RELEVANT_IDS, ("card-v1", "parking-v1"), ("wifi-v1",)):
        with patched("modules.context", RELEVANT_IDS=labels):
            fn = function(load(LESSON, fresh=True), "fill_quote_budget")
            outputs.append([tuple(p.id for p in _fill(fn, deduped, b)[0].packet) for b in (80, 120, 400)])
    expect_true(outputs[0] == outputs[1] == outputs[2],
                "fill_quote_budget's packet changed when only the evaluation labels (RELEVANT_IDS) changed:\n"
                f"  with the lesson's labels: {outputs[0]}\n  with other labels:       {outputs[1]}\n"
                "  the selector must decide from the candidates and the budget alone")


# ---------------------------------------------------------------- Task 4

def test_task4_labels_quiz():
    expect_choice(LESSON, "LABELS_QUIZ", "a", 4, "Reread the lesson's part on why the labels stay apart")
