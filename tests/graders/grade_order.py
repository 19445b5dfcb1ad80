"""Grader for lesson 05, order. Run: python3 -B methods.py check order"""

import time
from fractions import Fraction

from labtools.grading.harness import manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load, Shown
from modules.order import experiments
from modules.order import mechanism as lesson
from modules.order import OrderEffect, Paragraph

LESSON = "order"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


_VECTOR = (1.0,) + (0.0,) * 31


def _chunk(cid: str, number: int = 0) -> Paragraph:
    """A made-up chunk whose code is `cid` (number tells two chunks of one document apart)."""
    return Paragraph(number, cid, f"text of {cid}", frozenset({cid.lower()}), _VECTOR, 4)


def _ids(chunks) -> list:
    return [c.code if isinstance(c, Paragraph) else c for c in chunks]


_WORLD = {}


def _world():
    """The lesson's fixture and each question's ranking, built once per grading run."""
    if not _WORLD:
        fixture = lesson.build_fixture()
        _WORLD.update(fixture=fixture, ranked=experiments.rankings(fixture))
    return _WORLD["fixture"], _WORLD["ranked"]


def _picks(layout: str, j: int, seed: int) -> list:
    """The lesson's own picks for every question with this layout, j and reader seed."""
    fixture, ranked = _world()
    out = []
    for query, ranking in zip(fixture.queries, ranked):
        good, bad = lesson.good_and_bad(query, ranking, j)
        out.append(lesson.read(lesson.build_prompt(query, lesson.build_layout(good, bad, layout)), seed).chunk)
    return out


# ---------------------------------------------------------------- Task 1

def test_task1_ten_items_alternate_inward():
    fn = function(load(LESSON), "reorder_lost_in_middle")
    got, shown = call_shown(fn, list(range(1, 11)))
    quirk = " (this is the parity quirk: with an even count it puts the best item last)" \
        if isinstance(got, list) and got[-1:] == [1] else ""
    expect(got, [1, 3, 5, 7, 9, 10, 8, 6, 4, 2], shown,
           why="best first, second best last, then alternate inward; return a list" + quirk)


def test_task1_best_first_for_even_counts():
    fn = function(load(LESSON), "reorder_lost_in_middle")
    got, shown = call_shown(fn, ["a", "b", "c", "d"])
    if got == ["b", "d", "c", "a"]:
        raise AssertionError(f"called {shown}\n  got:      {got!r}\n  expected: ['a', 'c', 'd', 'b']\n"
                             "  why: this is the parity quirk (sort ascending, alternate from the front): with an "
                             "even count it puts the best item last; the lesson's reorder keeps it first")
    expect(got, ["a", "c", "d", "b"], shown, why="a (best) first, b (second best) last, c second, d in between")
    expect_call(fn, list("abcdef"), want=list("acefdb"))


def test_task1_odd_counts_and_small_ones():
    fn = function(load(LESSON), "reorder_lost_in_middle")
    for items, want in (([], []), (["a"], ["a"]), (["a", "b"], ["a", "b"]), (["a", "b", "c"], ["a", "c", "b"]),
                        (list("abcde"), list("acedb")), (list("abcdefg"), list("acegfdb"))):
        expect_call(fn, items, want=want, why="the odd ranks walk in from the front, the even ranks from the back")


def test_task1_best_first_second_best_last_for_every_count():
    fn = function(load(LESSON), "reorder_lost_in_middle")
    for count in range(2, 16):
        items = list(range(1, count + 1))
        got, shown = call_shown(fn, Shown(f"list(range(1, {count + 1}))", items))
        expect_true(isinstance(got, list) and sorted(got) == items,
                    f"called {shown}\n  got:      {got!r}\n  expected: a list holding each of 1..{count} once")
        expect_true(got[0] == 1 and got[-1] == 2,
                    f"called {shown}\n  got:      {got!r}\n  expected: 1 first and 2 last for every count "
                    f"(here {count}, {'even' if count % 2 == 0 else 'odd'})")


def test_task1_keeps_the_input_and_takes_any_sequence():
    fn = function(load(LESSON), "reorder_lost_in_middle")
    items = [1, 2, 3, 4, 5]
    call_shown(fn, items)
    expect(items, [1, 2, 3, 4, 5], "reorder_lost_in_middle(items) -> items afterwards",
           why="return a new list; the caller's ranking must stay as it was")
    expect_call(fn, (1, 2, 3, 4), want=[1, 3, 4, 2], why="a tuple in, a list out")


def test_task1_linear_time():
    fn = function(load(LESSON), "reorder_lost_in_middle")
    items = list(range(300_000))
    start = time.perf_counter()
    got, _shown = call_shown(fn, Shown("list(range(300_000))", items))
    seconds = time.perf_counter() - start
    expect_true(seconds < 1.5, f"reorder_lost_in_middle on 300,000 items took {seconds:.1f} s; a linear version "
                               "takes a few hundredths. Inserting at the front of a list in a loop moves every "
                               "item already there, so the whole loop is quadratic: build it from slices instead")
    expect_true(got[:3] == [0, 2, 4] and got[-3:] == [5, 3, 1],
                f"reorder_lost_in_middle(list(range(300_000))) starts {got[:3]!r} and ends {got[-3:]!r}; "
                "expected [0, 2, 4] ... [5, 3, 1]")


# ---------------------------------------------------------------- Task 2

def _layout(fn, relevant, irrelevant, layout):
    got, shown = call_shown(fn, Shown(relevant.code, relevant), Shown(str(_ids(irrelevant)), irrelevant), layout)
    expect_true(isinstance(got, tuple), f"called {shown}\n  got a {type(got).__name__}\n  expected: a tuple of chunks")
    return got, shown


def test_task2_head_and_tail():
    fn = function(load(LESSON), "build_layout")
    relevant, others = _chunk("R"), [_chunk(f"d{i}") for i in range(1, 5)]
    got, shown = _layout(fn, relevant, list(others), "head")
    expect(_ids(got), ["R", "d1", "d2", "d3", "d4"], shown, why="head: the relevant chunk first")
    got, shown = _layout(fn, relevant, list(others), "tail")
    expect(_ids(got), ["d1", "d2", "d3", "d4", "R"], shown,
           why="tail: the relevant chunk last, the others in their given order")


def test_task2_middle_even_and_odd():
    fn = function(load(LESSON), "build_layout")
    relevant = _chunk("R")
    for count, want in ((0, ["R"]), (2, ["d1", "R", "d2"]), (3, ["d1", "R", "d2", "d3"]),
                        (4, ["d1", "d2", "R", "d3", "d4"]), (5, ["d1", "d2", "R", "d3", "d4", "d5"]),
                        (8, ["d1", "d2", "d3", "d4", "R", "d5", "d6", "d7", "d8"])):
        got, shown = _layout(fn, relevant, [_chunk(f"d{i}") for i in range(1, count + 1)], "middle")
        expect(_ids(got), want, shown, why=f"middle: index len(irrelevant) // 2 = {count // 2}")


def test_task2_no_chunk_lost_and_input_kept():
    fn = function(load(LESSON), "build_layout")
    relevant, others = _chunk("R"), [_chunk(f"d{i}") for i in range(1, 9)]
    for layout in ("head", "middle", "tail"):
        given = list(others)
        got, shown = _layout(fn, relevant, given, layout)
        expect_true(len(got) == 9 and got.count(relevant) == 1 and [c for c in got if c is not relevant] == others,
                    f"called {shown}\n  got:      {_ids(got)}\n  expected: the relevant chunk once, and the 8 others "
                    "once each in their given order")
        expect(_ids(given), _ids(others), shown + " -> irrelevant afterwards",
               why="build a new tuple; do not change the caller's list")


def test_task2_unknown_layout_is_an_error():
    fn = function(load(LESSON), "build_layout")
    for name in ("centre", "Head", ""):
        expect_call(fn, Shown("R", _chunk("R")), Shown("['d1', 'd2']", [_chunk("d1"), _chunk("d2")]), name,
                    raises=ValueError, why="an unknown layout is a mistake to report, not a head layout")


def test_task2_lesson_layouts_match_the_reader_experiment():
    fn = function(load(LESSON), "build_layout")
    fixture, ranked = _world()
    for number in (0, 7):
        good, bad = lesson.good_and_bad(fixture.queries[number], ranked[number], 4)
        for layout in ("head", "middle", "tail"):
            got, shown = _layout(fn, good, list(bad), layout)
            expect(_ids(got), _ids(lesson.build_layout(good, bad, layout)), shown,
                   why="the lesson's experiment places the relevant chunk the same way")
            expect_true(list(got) == list(lesson.build_layout(good, bad, layout)),
                        f"called {shown}\n  expected the very chunks the lesson places, in its order")


# ---------------------------------------------------------------- Task 3

def test_task3_half_changed():
    fn = function(load(LESSON), "share_of_change")
    expect_call(fn, ["a", "b", None, "d"], ["a", "x", None, "y"], want=Fraction(1, 2),
                why="2 of 4 pairs differ; return a Fraction, not a float")


def test_task3_refusals_are_answers_too():
    fn = function(load(LESSON), "share_of_change")
    expect_call(fn, [None, None, "a", "b"], [None, "a", "a", None], want=Fraction(1, 2),
                why="None vs None is no change; None vs 'a' and 'b' vs None are changes; every pair counts")
    expect_call(fn, ["a", "b", "c"], ["a", "b", "c"], want=Fraction(0), why="nothing changed")
    expect_call(fn, ("a", "b", "c"), ["x", "y", "c"], want=Fraction(2, 3))


def test_task3_generators_are_read_once():
    fn = function(load(LESSON), "share_of_change")
    # A generator's repr says nothing of its items: show how each was made.
    expect_call(fn, Shown("(x for x in ['a', 'b', None, 'd'])", (x for x in ["a", "b", None, "d"])),
                Shown("map(str.lower, ['A', 'X', 'C', 'D'])", map(str.lower, ["A", "X", "C", "D"])),
                want=Fraction(1, 2),
                why="runs often arrive as generators, which have no len() and can be walked only once: turn each "
                    "into a list first; here 'b'/'x' and None/'c' differ, 2 of 4 pairs")


def test_task3_pairs_must_line_up():
    fn = function(load(LESSON), "share_of_change")
    expect_call(fn, ["a", "b", "c"], ["a", "b"], raises=ValueError,
                why="zip() would drop the third pair silently; unequal runs cannot be compared")
    expect_call(fn, [], [], raises=ValueError, why="the share of no pairs is undefined, not 0")


def test_task3_the_same_chunk_not_merely_the_same_code():
    fn = function(load(LESSON), "share_of_change")
    first, second, other = _chunk("KS012", 40), _chunk("KS012", 41), _chunk("TR003", 7)
    before = Shown("[KS012 chunk 40, TR003 chunk 7]", [first, other])
    after = Shown("[KS012 chunk 41, TR003 chunk 7]", [second, other])
    expect_call(fn, before, after, want=Fraction(1, 2),
                why="chunks 40 and 41 belong to one document and share its code KS012, but they are two "
                    "chunks: the pick moved, so 1 of 2 pairs changed (compare the chunks, not their codes)")


def test_task3_order_against_the_seed_baseline():
    fn = function(load(LESSON), "share_of_change")
    seed = lesson.SEED
    head, middle, again = _picks("head", 4, seed), _picks("middle", 4, seed), _picks("head", 4, seed + 1)
    first = Shown(f"<head picks, j = 4, seed {seed}>", head)
    order_share = expect_call(fn, first, Shown(f"<middle picks, j = 4, seed {seed}>", middle),
                              want=lesson.share_of_change(head, middle),
                              why="the lesson's own count on the same 40 readings (0.7000 in its table)")
    expect_call(fn, first, Shown(f"<head picks, j = 4, seed {seed + 1}>", again),
                want=lesson.share_of_change(head, again),
                why="the run-to-run baseline on the same 40 readings (0.4250 in the lesson's table)")
    expect_true(order_share == Fraction(28, 40), f"share_of_change(head, middle) gave {order_share}; the lesson's "
                                                 "table prints 0.7000 (28 of 40)")


# ---------------------------------------------------------------- Task 4

def _effect(first, reordered, reseeded):
    fn = function(load(LESSON), "order_effect")
    got, shown = call_shown(fn, first, reordered, reseeded)
    expect_true(isinstance(got, OrderEffect),
                f"called {shown}\n  got:      {got!r}\n  expected: OrderEffect(order_share, seed_share, exceeds)")
    expect_true(type(got.order_share) is Fraction and type(got.seed_share) is Fraction and type(got.exceeds) is bool,
                f"called {shown}\n  got:      {got!r}\n  expected: the two shares as exact Fractions (what "
                "share_of_change returns) and exceeds as True or False")
    return got, shown


def test_task4_order_beyond_the_baseline():
    got, shown = _effect(["a", "b", "c", "d"], ["a", "x", "y", "d"], ["a", "b", "z", "d"])
    expect(got, OrderEffect(Fraction(1, 2), Fraction(1, 4), True), shown,
           why="the order moved 2 of 4 citations and the seed 1 of 4: more than the baseline")


def test_task4_no_larger_than_the_baseline_is_no_effect():
    got, shown = _effect(["a", "b", "c", "d"], ["a", "x", "c", "d"], ["a", "b", "c", "z"])
    expect(got, OrderEffect(Fraction(1, 4), Fraction(1, 4), False), shown,
           why="both moved 1 of 4: a change of order no larger than reseeding could be noise, so exceeds "
               "is False (equal is not more)")
    got, shown = _effect(["a", "b", "c", "d"], ["a", "b", "c", "x"], ["y", "z", "c", "d"])
    expect(got, OrderEffect(Fraction(1, 4), Fraction(1, 2), False), shown,
           why="the order moved 1 of 4 and the seed 2 of 4: the order did less than the baseline")


def test_task4_nothing_moved():
    got, shown = _effect(["a", None], ["a", None], ["a", None])
    expect(got, OrderEffect(Fraction(0), Fraction(0), False), shown,
           why="nothing changed either way, so there is no order effect")


def test_task4_generators_are_read_once():
    got, shown = _effect(Shown("(x for x in 'abcd')", (x for x in "abcd")), Shown("iter('axyd')", iter("axyd")),
                         Shown("iter('abzd')", iter("abzd")))
    expect(got, OrderEffect(Fraction(1, 2), Fraction(1, 4), True), shown,
           why="`first` is compared twice, but a generator can be walked only once: make it a list first")


def test_task4_the_lessons_layouts():
    seed = lesson.SEED
    head, tail, again = _picks("head", 8, seed), _picks("tail", 8, seed), _picks("head", 8, seed + 1)
    shown_head = Shown(f"<head picks, j = 8, seed {seed}>", head)
    shown_tail = Shown(f"<tail picks, j = 8, seed {seed}>", tail)
    shown_again = Shown(f"<head picks, j = 8, seed {seed + 1}>", again)
    got, shown = _effect(shown_head, shown_tail, shown_again)
    expect(got, lesson.order_effect(head, tail, again), shown,
           why="at j = 8 the tail moves 0.5500 of the picks and reseeding 0.6000: no order effect, though "
               "0.5500 is far from zero")
    middle = _picks("middle", 8, seed)
    got, shown = _effect(shown_head, Shown(f"<middle picks, j = 8, seed {seed}>", middle), shown_again)
    expect(got, lesson.order_effect(head, middle, again), shown,
           why="the middle moves 0.8500 of the picks against 0.6000 reseeded: an order effect")


def test_task4_the_second_seed():
    seed = lesson.SEED + 1
    head, middle, again = _picks("head", 4, seed), _picks("middle", 4, seed), _picks("head", 4, seed + 1)
    got, shown = _effect(Shown(f"<head picks, j = 4, seed {seed}>", head),
                         Shown(f"<middle picks, j = 4, seed {seed}>", middle),
                         Shown(f"<head picks, j = 4, seed {seed + 1}>", again))
    expect(got, lesson.order_effect(head, middle, again), shown,
           why="the second run: the middle moves 0.9000 of the picks against a baseline of 0.4250")


# ---------------------------------------------------------------- Task 5

def test_task5_copier_quiz():
    expect_choice(LESSON, "COPIER_QUIZ", "d", 5, "Reread the lesson's part on the quote copier and Liu et al.")
