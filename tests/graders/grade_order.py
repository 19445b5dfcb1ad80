"""Grader for lesson 05, order. Run: python3 -B methods.py check order"""

import re
import time
from fractions import Fraction

from labtools.grading.harness import (manifest_tasks, call_shown, constant, expect, expect_call, expect_true, function, load, LabFailure,
                  Shown)
from modules.order import experiments
from modules.order import mechanism as lesson
from modules.order import OrderEffect, Paragraph

LESSON = "order"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


_VECTOR = (1.0,) + (0.0,) * 31


def _chunk(cid: str, number: int = 0) -> Paragraph:
    """A made-up chunk whose code is `cid` (number tells two chunks of one document apart)."""
    return Paragraph(number=number, code=cid, text=f"text of {cid}", bag=frozenset({cid.lower()}), vector=_VECTOR,
                     tokens=4)


def _raises_naming(fn, args: tuple, error, words: tuple, shown: str, why: str) -> None:
    """The call must raise `error` with a message that holds each of `words` (the docstring
    says what the message names)."""
    try:
        fn(*args)
    except error as raised:
        missing = [word for word in words if not re.search(rf"(?<!\w){re.escape(word)}(?!\w)", str(raised))]
        expect_true(not missing, f"called {shown}\n  it raised {type(raised).__name__}: {raised}\n  expected: a "
                                 f"message that names {', '.join(missing)} ({why})")
        return
    except Exception as raised:
        raise LabFailure(f"called {shown}\n  it raised {type(raised).__name__}: {raised}\n  expected: "
                         f"{error.__name__} ({why})") from None
    raise LabFailure(f"called {shown}\n  it returned normally\n  expected: it raises {error.__name__} ({why})")


def _ids(chunks) -> list:
    return [c.code if isinstance(c, Paragraph) else c for c in chunks]


def _sequence(got, shown: str) -> list:
    """The container rule: a list or a tuple (either is accepted), read as a list."""
    if not isinstance(got, (list, tuple)):
        raise LabFailure(f"called {shown}\n  got:      {got!r} (a {type(got).__name__})\n"
                         "  expected: a list or a tuple (either is accepted)")
    return list(got)


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


def _goods(j: int) -> list:
    fixture, ranked = _world()
    return [lesson.good_and_bad(query, ranking, j)[0] for query, ranking in zip(fixture.queries, ranked)]


# ---------------------------------------------------------------- Task 1

def _reorder(fn, items, first_weight, last_weight, want, why, shown_items=None):
    got, shown = call_shown(fn, Shown(shown_items, items) if shown_items else items, first_weight, last_weight)
    expect(_sequence(got, shown), list(want), shown, why=why)
    return got


def test_task1_first_stronger_is_lost_in_the_middle():
    fn = function(load(LESSON), "reorder_for_edges")
    _reorder(fn, list(range(1, 11)), 1.0, 0.8, [1, 3, 5, 7, 9, 10, 8, 6, 4, 2],
             "the first place weighs more: best first, second best last, alternating inward")
    _reorder(fn, ["a", "b", "c", "d"], 1.0, 0.8, ["a", "c", "d", "b"], "best first even for an even count")
    _reorder(fn, list("abcde"), 0.9, 0.1, list("acedb"), "five items, first stronger")


def test_task1_last_stronger_puts_the_best_last():
    fn = function(load(LESSON), "reorder_for_edges")
    _reorder(fn, list(range(1, 11)), 0.8, 1.0, [2, 4, 6, 8, 10, 9, 7, 5, 3, 1],
             "the last place weighs more: the best goes last, the second best first, alternating inward "
             "(the lesson's reorder_lost_in_middle always puts the best first: that is the other case)")
    _reorder(fn, list(range(1, 6)), 0.8, 1.0, [2, 4, 5, 3, 1],
             "an odd count, last stronger: the best still goes last (not only for even counts)")
    _reorder(fn, ["a", "b", "c", "d"], 0, 3, ["b", "d", "c", "a"], "integer weights are numbers too")


def test_task1_equal_weights_keep_the_best_first():
    fn = function(load(LESSON), "reorder_for_edges")
    _reorder(fn, ["a", "b", "c", "d"], 0.5, 0.5, ["a", "c", "d", "b"],
             "equal weights: the docstring sends the best to the first place")


def test_task1_small_counts():
    fn = function(load(LESSON), "reorder_for_edges")
    for items, first, last in (([], [], []), (["a"], ["a"], ["a"]), (["a", "b"], ["a", "b"], ["b", "a"]),
                               (["a", "b", "c"], ["a", "c", "b"], ["b", "c", "a"])):
        _reorder(fn, items, 1.0, 0.8, first, "first stronger")
        _reorder(fn, items, 0.8, 1.0, last, "last stronger: the best last, the second best first")


def test_task1_best_at_the_stronger_edge_for_every_count():
    fn = function(load(LESSON), "reorder_for_edges")
    for count in range(2, 16):
        items = list(range(1, count + 1))
        for first_weight, last_weight, ends in ((1.0, 0.8, (1, 2)), (0.8, 1.0, (2, 1))):
            got, shown = call_shown(fn, Shown(f"list(range(1, {count + 1}))", items), first_weight, last_weight)
            got = _sequence(got, shown)
            expect_true(sorted(got) == items, f"called {shown}\n  got:      {got!r}\n  expected: each of "
                                              f"1..{count} once")
            expect_true((got[0], got[-1]) == ends,
                        f"called {shown}\n  got:      {got!r}\n  expected: {ends[0]} first and {ends[1]} last "
                        f"(the best at the stronger edge) for every count (here {count})")


def test_task1_keeps_the_input_and_checks_the_weights():
    fn = function(load(LESSON), "reorder_for_edges")
    items = [1, 2, 3, 4, 5]
    call_shown(fn, items, 0.8, 1.0)
    expect(items, [1, 2, 3, 4, 5], "reorder_for_edges(items, 0.8, 1.0) -> items afterwards",
           why="return a new sequence; the caller's ranking must stay as it was")
    _reorder(fn, (1, 2, 3, 4), 1.0, 0.8, [1, 3, 4, 2], "a tuple in is fine too")
    _reorder(fn, range(1, 6), 0.8, 1.0, [2, 4, 5, 3, 1], "a range is a sequence too", "range(1, 6)")
    for first, last, name in (("1.0", 0.8, "first_weight"), (1.0, None, "last_weight"), (True, 0.8, "first_weight")):
        _raises_naming(fn, ([1, 2, 3], first, last), TypeError, (name,),
                       f"reorder_for_edges([1, 2, 3], {first!r}, {last!r})",
                       "a weight must be a number (int or float, not bool), and the error names the weight: a "
                       "typo must not pick an edge")


LARGE, SMALL = 160_000, 20_000   # items timed: eight times as many
SLOW_SECONDS = 0.1               # under this for LARGE items, an answer passes at once
MAX_GROWTH = 16                  # for eight times the items: linear about 8 times the time, quadratic 64


def _timed(fn, count: int) -> tuple[float, object, str]:
    items = list(range(count))
    start = time.perf_counter()
    got, shown = call_shown(fn, Shown(f"list(range({count:_}))", items), 0.8, 1.0)
    return time.perf_counter() - start, got, shown


def test_task1_linear_time():
    # Judged by growth, not by a time alone: a machine whose memmove runs from cache moves a
    # quadratic loop of list.insert(0, ...) over 100,000 items in 0.19 s, under any fixed limit a
    # slow machine's linear answer also meets. 160,000 items: linear answers take 5 to 10 ms,
    # insert(0, ...) about 0.5 s; only an answer over 0.1 s is timed again at 20,000 (best of
    # three), and eight times the items taking over sixteen times as long is quadratic growth. Eight
    # times, not four: under --sandbox the items cross a pipe, a linear cost that pulls the growth
    # of a quadratic answer toward the linear one's.
    fn = function(load(LESSON), "reorder_for_edges")
    large, got, shown = _timed(fn, LARGE)
    if large >= SLOW_SECONDS:
        small = min(_timed(fn, SMALL)[0] for _ in range(3))
        growth = large / max(small, 1e-9)
        expect_true(growth <= MAX_GROWTH,
                    f"reorder_for_edges took {large:.2f} s on {LARGE:,} items and {small:.3f} s on {SMALL:,}: "
                    f"eight times the items took {growth:.0f} times as long, the growth of a quadratic loop (a "
                    f"linear answer takes about eight times, and the limit is {MAX_GROWTH}). The docstring warns "
                    "that inserting at the front of a list in a loop moves every item already there: build "
                    "the order from slices instead")
    got = _sequence(got, shown)
    expect_true(got[:3] == [1, 3, 5] and got[-3:] == [4, 2, 0],
                f"reorder_for_edges(list(range({LARGE:_})), 0.8, 1.0) starts {got[:3]!r} and ends {got[-3:]!r}; "
                "expected [1, 3, 5] ... [4, 2, 0]")


# ---------------------------------------------------------------- Task 2

def _place(fn, good, bad, position):
    got, shown = call_shown(fn, Shown(good.code, good), Shown(str(_ids(bad)), bad), position)
    return _sequence(got, shown), shown


def test_task2_every_position():
    fn = function(load(LESSON), "place_at")
    good, bad = _chunk("G"), [_chunk(f"d{i}") for i in range(1, 5)]
    for position in range(1, 6):
        got, shown = _place(fn, good, list(bad), position)
        want = ["d1", "d2", "d3", "d4"]
        want.insert(position - 1, "G")
        expect(_ids(got), want, shown, why=f"position {position} counts from 1: the relevant chunk is item "
                                            f"{position} of 5, the others keep their order")


def test_task2_odd_places_the_layouts_never_use():
    fn = function(load(LESSON), "place_at")
    good, bad = _chunk("G"), [_chunk(f"d{i}") for i in range(1, 9)]
    got, shown = _place(fn, good, list(bad), 2)
    expect(_ids(got), ["d1", "G", "d2", "d3", "d4", "d5", "d6", "d7", "d8"], shown,
           why="second of nine: not head, middle or tail, the very places a position sweep adds")
    got, shown = _place(fn, good, list(bad), 8)
    expect(_ids(got), ["d1", "d2", "d3", "d4", "d5", "d6", "d7", "G", "d8"], shown, why="eighth of nine")
    got, shown = _place(fn, good, [], 1)
    expect(_ids(got), ["G"], shown, why="no irrelevant chunk: position 1 is the only place")


def test_task2_matches_the_lessons_layouts():
    fn = function(load(LESSON), "place_at")
    fixture, ranked = _world()
    for number in (0, 7):
        good, bad = lesson.good_and_bad(fixture.queries[number], ranked[number], 4)
        for layout, position in (("head", 1), ("middle", 3), ("tail", 5)):
            got, shown = _place(fn, good, list(bad), position)
            expect_true(got == list(lesson.build_layout(good, bad, layout)),
                        f"called {shown}\n  got:      {_ids(got)}\n  expected: the lesson's {layout} layout, "
                        f"{_ids(lesson.build_layout(good, bad, layout))}: position {position} of 5 is that place")


def test_task2_keeps_the_input():
    fn = function(load(LESSON), "place_at")
    good, bad = _chunk("G"), [_chunk(f"d{i}") for i in range(1, 4)]
    given = list(bad)
    _got, shown = _place(fn, good, given, 2)
    expect(_ids(given), _ids(bad), shown + " -> bad afterwards", why="build a new sequence; do not change `bad`")
    got, shown = _place(fn, good, tuple(bad), 4)
    expect(_ids(got), ["d1", "d2", "d3", "G"], shown, why="`bad` may be a tuple")


def test_task2_positions_outside_the_range_are_errors():
    fn = function(load(LESSON), "place_at")
    good, bad = Shown("G", _chunk("G")), Shown("['d1', 'd2']", [_chunk("d1"), _chunk("d2")])
    for position in (0, 4, -1):
        _raises_naming(fn, (good.value, bad.value, position), ValueError, (str(position), "3"),
                       f"place_at(G, ['d1', 'd2'], {position})",
                       "positions run from 1 to j + 1 = 3; out of range is a mistake to report with the position "
                       "and the range, not an edge")
    for position in (1.0, "1", True):
        expect_call(fn, good, bad, position, raises=TypeError,
                    why="a position is an int (True is not the first place)")


# ---------------------------------------------------------------- Task 3

def test_task3_lost_gained_other():
    fn = function(load(LESSON), "classify_changes")
    expect_call(fn, ["G1", "x", "y", "G4"], ["z", "G2", "w", "G4"], ["G1", "G2", "G3", "G4"],
                want={"lost": 1, "gained": 1, "other": 1},
                why="G1 -> z lost the good chunk, x -> G2 gained it, y -> w changed among the others, G4 stayed")


def test_task3_overflows_and_unchanged_picks():
    fn = function(load(LESSON), "classify_changes")
    expect_call(fn, ["G1", None, None, "x"], [None, "G2", None, "x"], ["G1", "G2", "G3", "G4"],
                want={"lost": 1, "gained": 1, "other": 0},
                why="a good pick that overflows is lost, an overflow that becomes the good pick is gained, and "
                    "None against None or x against x is no change")
    expect_call(fn, [None, "x"], ["y", None], ["G1", "G2"], want={"lost": 0, "gained": 0, "other": 2},
                why="None against an irrelevant chunk (either way) is a change among the others")
    expect_call(fn, ("a",), ("a",), ("G",), want={"lost": 0, "gained": 0, "other": 0}, why="nothing changed")


def test_task3_the_same_chunk_not_merely_the_same_code():
    fn = function(load(LESSON), "classify_changes")
    good, sibling, other = _chunk("KS012", 40), _chunk("KS012", 41), _chunk("TR003", 7)
    expect_call(fn, Shown("[KS012 chunk 40, TR003 chunk 7]", [good, other]),
                Shown("[KS012 chunk 41, TR003 chunk 7]", [sibling, other]),
                Shown("[KS012 chunk 40, KS012 chunk 40]", [good, good]),
                want={"lost": 1, "gained": 0, "other": 0},
                why="chunks 40 and 41 share the code KS012 but only chunk 40 is the good one: the pick moved "
                    "to its sibling and the good chunk was lost")


def test_task3_generators_and_pairs_that_must_line_up():
    fn = function(load(LESSON), "classify_changes")
    expect_call(fn, Shown("(x for x in ['G1', 'b'])", (x for x in ["G1", "b"])), Shown("iter(['a', 'G2'])",
                iter(["a", "G2"])), Shown("iter(['G1', 'G2'])", iter(["G1", "G2"])),
                want={"lost": 1, "gained": 1, "other": 0},
                why="runs may arrive as generators, which have no len() and can be walked only once")
    expect_call(fn, ["a", "b"], ["a"], ["G", "G"], raises=ValueError,
                why="zip() would drop the second pair silently; runs that do not pair up cannot be compared")
    expect_call(fn, ["a", "b"], ["a", "b"], ["G"], raises=ValueError, why="`good` must pair up too")
    expect_call(fn, [], [], [], raises=ValueError, why="no pairs: nothing to classify is an error, not zeros")


def test_task3_the_lessons_head_and_middle():
    fn = function(load(LESSON), "classify_changes")
    seed = lesson.SEED
    head, middle, goods = _picks("head", 4, seed), _picks("middle", 4, seed), _goods(4)
    got, shown = call_shown(fn, Shown(f"<head picks, j = 4, seed {seed}>", head),
                            Shown(f"<middle picks, j = 4, seed {seed}>", middle), Shown("<good chunks, j = 4>", goods))
    expect_true(isinstance(got, dict) and set(got) == {"lost", "gained", "other"},
                f"called {shown}\n  got:      {got!r}\n  expected: a dict with the keys 'lost', 'gained', 'other'")
    right = (sum(h == g for h, g in zip(head, goods)), sum(m == g for m, g in zip(middle, goods)))
    changed = lesson.count_changes(head, middle)
    expect_true(got["lost"] - got["gained"] == right[0] - right[1] and sum(got.values()) == changed,
                f"called {shown}\n  got:      {got!r}\n  expected: lost - gained = {right[0] - right[1]} (right "
                f"answers at the head {right[0]}, in the middle {right[1]}) and lost + gained + other = {changed} "
                "(the changed picks, 0.7000 of 40 in the lesson's table)")


# ---------------------------------------------------------------- Task 4

def _effect(first, reordered, runs):
    fn = function(load(LESSON), "order_effect_over_seeds")
    got, shown = call_shown(fn, first, reordered, runs)
    expect_true(isinstance(got, OrderEffect),
                f"called {shown}\n  got:      {got!r}\n  expected: OrderEffect(order_share, seed_share, exceeds)")
    expect_true(type(got.order_share) is Fraction and type(got.seed_share) is Fraction and type(got.exceeds) is bool,
                f"called {shown}\n  got:      {got!r}\n  expected: the two shares as exact Fractions and exceeds "
                "as True or False")
    return got, shown


def test_task4_the_largest_reseed_is_the_baseline():
    got, shown = _effect(list("abcd"), list("axyd"), [list("abcd"), list("wbzd")])
    expect(got, OrderEffect(Fraction(1, 2), Fraction(1, 2), False), shown,
           why="the first reseed moved nothing but the second moved 2 of 4: the baseline is the largest, 1/2, "
               "and an order change of 2 of 4 is no larger (one reseed alone would have called it an effect)")
    got, shown = _effect(list("abcd"), list("axyz"), [list("abcd"), list("wbcd"), list("abcz")])
    expect(got, OrderEffect(Fraction(3, 4), Fraction(1, 4), True), shown,
           why="the order moved 3 of 4, no reseed more than 1 of 4: an order effect")


def test_task4_one_reseed_and_ties():
    got, shown = _effect(list("abcd"), list("axcd"), [list("abcz")])
    expect(got, OrderEffect(Fraction(1, 4), Fraction(1, 4), False), shown,
           why="both moved 1 of 4: a change no larger than reseeding could be noise (equal is not more)")
    got, shown = _effect(["a", None], ["a", None], (["a", None],))
    expect(got, OrderEffect(Fraction(0), Fraction(0), False), shown, why="nothing moved either way")


def test_task4_generators_and_bad_runs():
    got, shown = _effect(Shown("(x for x in 'abcd')", (x for x in "abcd")), Shown("iter('axyd')", iter("axyd")),
                         [list("abzd"), list("abcd")])
    expect(got, OrderEffect(Fraction(1, 2), Fraction(1, 4), True), shown,
           why="`first` is compared with every run, but a generator can be walked only once: make it a list")
    fn = function(load(LESSON), "order_effect_over_seeds")
    _raises_naming(fn, (list("ab"), list("ax"), []), ValueError, ("reseeded_runs",),
                   "order_effect_over_seeds(['a', 'b'], ['a', 'x'], [])",
                   "no reseeded run means no baseline: an order effect cannot be judged against nothing, and the "
                   "error names reseeded_runs")
    expect_call(fn, list("ab"), list("ax"), [list("ab"), list("a")], raises=ValueError,
                why="every reseeded run must pair up with `first`")
    expect_call(fn, list("abcd"), list("ax"), [list("abcd")], raises=ValueError,
                why="`reordered` must pair up with `first` too: zip() would compare 2 of the 4 picks and "
                    "divide by 4")
    expect_call(fn, [], [], [[]], raises=ValueError, why="no picks: the share of nothing is undefined")


def test_task4_the_lessons_layouts_over_three_reseeds():
    seed = lesson.SEED
    head = _picks("head", 8, seed)
    shown_head = Shown(f"<head picks, j = 8, seed {seed}>", head)
    runs = [_picks("head", 8, seed + n) for n in (1, 2, 3)]
    shown_runs = Shown(f"<head picks, j = 8, seeds {seed + 1}, {seed + 2}, {seed + 3}>", runs)
    largest = max(Fraction(lesson.count_changes(head, run), len(head)) for run in runs)
    for layout in ("middle", "tail"):
        moved = _picks(layout, 8, seed)
        share = Fraction(lesson.count_changes(head, moved), len(head))
        got, shown = _effect(shown_head, Shown(f"<{layout} picks, j = 8, seed {seed}>", moved), shown_runs)
        expect(got, OrderEffect(share, largest, share > largest), shown,
               why=f"the {layout} moves {float(share):.4f} of the picks; the largest of the three reseeds moves "
                   f"{float(largest):.4f}")


# ---------------------------------------------------------------- Task 5

def test_task5_predict_the_middle_at_j1():
    value = constant(load(LESSON), "J1_MIDDLE_CHANGE")
    expect_true(not isinstance(value, bool) and isinstance(value, (int, float, Fraction)) and 0 <= value <= 1,
                f"J1_MIDDLE_CHANGE is {value!r}; set it to a number from 0 to 1 (a share of the 40 questions)")
    fixture, ranked = _world()
    row = experiments.layout_rows(fixture, ranked, 1, (lesson.SEED,))[0]
    expect_true(abs(value - row["change_middle"]) < 1e-9,
                f"J1_MIDDLE_CHANGE = {value!r} is not what the simulator does. With j = 1, where does the middle "
                "layout put the relevant chunk (bad[:j // 2] + good + bad[j // 2:])? Compare that prompt with the "
                "head layout's, then check (hint: python3 -B methods.py hint order 5)")


# ---------------------------------------------------------------- Task 6

COPIER_MISCONCEPTIONS = {
    "a": "the copier is a reader too, not a truer one: one reader without a position effect cannot show that "
         "another reader's effect is an artefact",
    "c": "the order still matters to any reader that weighs places (this simulator does): the packet records "
         "its order so a measurement can be repeated",
    "d": "a reader without a position effect says nothing about what a reorder does to another reader: this "
         "simulator's middle is far below its ends, so where the evidence sits is measured, reader by reader",
}


def test_task6_copier_quiz():
    answer = constant(load(LESSON), "COPIER_QUIZ")
    expect_true(answer in ("a", "b", "c", "d"), f"COPIER_QUIZ is {answer!r}; set it to one letter: 'a', 'b', 'c' "
                                                "or 'd'")
    expect_true(answer == "b", f"COPIER_QUIZ = {answer!r} is not the best answer: "
                               f"{COPIER_MISCONCEPTIONS.get(answer, '')}. Reread the lesson's part on the quote "
                               "copier and Liu et al., then try again (hint: python3 -B methods.py hint order 6)")
