"""Grader for lesson 05, order. Run: python3 -B methods.py check order"""

import time
from fractions import Fraction

from _lab import Shown, Task, call_shown, expect, expect_call, expect_choice, expect_true, function, hinted, load
from modules.order import mechanism as lesson
from modules.order import Chunk, OrderEffect

LESSON = "order"

TASKS = hinted(LESSON, (
    Task(1, "reorder_lost_in_middle", "Best first, second best last, alternating inward"),
    Task(2, "build_layout", "Head, middle and tail layouts of one relevant chunk"),
    Task(3, "share_of_change", "Share of cited chunks that changed between two runs"),
    Task(4, "order_effect", "Is the order effect bigger than the run-to-run baseline?"),
    Task(5, "COPIER_QUIZ", "Quiz: what the copier's missing position effect proves"),
))


def _chunk(cid: str, concept: str = "") -> Chunk:
    return Chunk(cid, concept or f"concept-{cid}", f"value {cid}", f"text of {cid}")


def _ids(chunks) -> list:
    return [c.id if isinstance(c, Chunk) else c for c in chunks]


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
    got, shown = call_shown(fn, Shown(relevant.id, relevant), Shown(str(_ids(irrelevant)), irrelevant), layout)
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
    by_id = {c.id: c for c in lesson.CHUNKS}
    query = lesson.QUERIES[0]
    gold = by_id[query.gold_id]
    others = [c for c in lesson.rank_chunks(query.text, lesson.CHUNKS) if c.concept != gold.concept][:4]
    for layout in ("head", "middle", "tail"):
        got, shown = _layout(fn, gold, list(others), layout)
        expect(_ids(got), _ids(lesson.build_layout(gold, others, layout)), shown,
               why="the lesson's experiment places the relevant chunk the same way")


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


def test_task3_order_against_the_seed_baseline():
    fn = function(load(LESSON), "share_of_change")
    rankings = [lesson.rank_chunks(q.text, lesson.CHUNKS) for q in lesson.QUERIES]
    by_id = {c.id: c for c in lesson.CHUNKS}

    def cited(layout, seed):
        out = []
        for number, (query, ranking) in enumerate(zip(lesson.QUERIES, rankings)):
            gold = by_id[query.gold_id]
            others = [c for c in ranking if c.concept != gold.concept][:4]
            context = lesson.build_layout(gold, others, layout)
            out.append(lesson.simulate_reader(query.text, context, lesson.reading_seed(seed, number)).cited_id)
        return out

    head, middle, head_next = cited("head", lesson.SEED), cited("middle", lesson.SEED), cited("head", lesson.SEED + 1)
    first = Shown(f"<head, j = 4, seed {lesson.SEED}>", head)
    order_share = expect_call(fn, first, Shown(f"<middle, j = 4, seed {lesson.SEED}>", middle),
                              want=lesson.share_of_change(head, middle),
                              why="the lesson's own count on the same 40 readings")
    seed_share = expect_call(fn, first, Shown(f"<head, j = 4, seed {lesson.SEED + 1}>", head_next),
                             want=lesson.share_of_change(head, head_next))
    expect_true(order_share > seed_share, f"order changed {order_share} of the answers and reseeding {seed_share}: "
                                          "the lesson's fixture has moving the relevant chunk change more")


# ---------------------------------------------------------------- Task 4

def _effect(first, reordered, reseeded):
    fn = function(load(LESSON), "order_effect")
    got, shown = call_shown(fn, first, reordered, reseeded)
    expect_true(isinstance(got, tuple) and len(got) == 3,
                f"called {shown}\n  got:      {got!r}\n  expected: OrderEffect(order_share, seed_share, exceeds)")
    expect_true(all(type(share) is Fraction for share in got[:2]) and type(got[2]) is bool,
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
    rankings = [lesson.rank_chunks(q.text, lesson.CHUNKS) for q in lesson.QUERIES]
    by_id = {c.id: c for c in lesson.CHUNKS}

    def cited(layout, seed):
        out = []
        for number, (query, ranking) in enumerate(zip(lesson.QUERIES, rankings)):
            gold = by_id[query.gold_id]
            others = [c for c in ranking if c.concept != gold.concept][:2]
            context = lesson.build_layout(gold, others, layout)
            out.append(lesson.simulate_reader(query.text, context, lesson.reading_seed(seed, number)).cited_id)
        return out

    head, tail, head_next = cited("head", lesson.SEED), cited("tail", lesson.SEED), cited("head", lesson.SEED + 1)
    shown_head = Shown(f"<head, j = 2, seed {lesson.SEED}>", head)
    shown_tail = Shown(f"<tail, j = 2, seed {lesson.SEED}>", tail)
    shown_next = Shown(f"<head, j = 2, seed {lesson.SEED + 1}>", head_next)
    got, shown = _effect(shown_head, shown_tail, shown_next)
    expect(got, lesson.order_effect(head, tail, head_next), shown,
           why="the lesson's own decision on the same 40 readings")
    got, shown = _effect(shown_head, shown_next, shown_tail)
    expect(got, lesson.order_effect(head, head_next, tail), shown,
           why="swap the two runs and reseeding becomes the change under test: it moved fewer citations "
               "than the order did, so it is no effect")


# ---------------------------------------------------------------- Task 5

def test_task5_copier_quiz():
    expect_choice(LESSON, "COPIER_QUIZ", "b", 5, "Reread the lesson's part on the quote copier and Liu et al.")
