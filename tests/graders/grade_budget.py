"""Grader for lesson 02, budget. Run: python3 -B methods.py check budget"""

from _lab import Task, call, expect, expect_choice, expect_error, expect_true, function, load
from modules.budget import RANKED, REQUESTS, WINDOW_TOKENS, BudgetWalk, Chunk, Request
from modules.common.units import chars, lab_tokens

LESSON = "budget"

TASKS = (
    Task(1, "evidence_budget", "The evidence budget from every term of the window", hints=(
        "Write the window equation with evidence as the unknown. Which terms sit on the other side?",
        "History and tool schemas are 0 in the worked example. Does a term that is 0 today stay 0 on the next turn?",
        "What should a caller get when the other terms already exceed the window: 0, or a clear refusal?",
        "remainder = window - system - history - tools - output_reserve - margin; raise ValueError if "
        "remainder < 0, otherwise return it (exactly 0 is allowed).",
    )),
    Task(2, "skip_walk", "The skip walk, with any counter", hints=(
        "The counter is a parameter. Where in your loop should it be called, and where should len() not be?",
        "When a chunk does not fit, what would cutting it do to what the quote says? And should the loop stop?",
        "A chunk that exactly fills the room left: does `used + size < budget` keep it? Should it?",
        "used = 0; for each chunk: size = counter(chunk.text); if used + size <= budget keep it and add size, "
        "else record chunk.id as skipped. Return BudgetWalk('skip', counter.__name__, budget, kept, skipped, used).",
    )),
    Task(3, "count_overflows", "Count the requests a fixed top-k pushes past the window", hints=(
        "Is the question whether the average request fits, or how many single requests do not?",
        "Which slice of a tuple holds exactly its first k items? And is a prompt equal to the window too big?",
        "Return sum(1 for r in requests if r.base_tokens + sum(r.chunk_tokens[:k]) > window), after refusing k < 1.",
    )),
    Task(4, "RESERVE_QUIZ", "Quiz: why the output reserve and margin stay in the equation", hints=(
        "Where does the model write its answer: in a separate space, or in the same window as the input?",
        "The lab counts lab tokens; the model counts with its own tokenizer. What covers the difference?",
    )),
)


# ---------------------------------------------------------------- Task 1

def _budget(fn, *terms):
    shown = f"evidence_budget{terms}"
    return call(fn, *terms, shown=shown), shown


def test_task1_worked_example():
    fn = function(load(LESSON), "evidence_budget")
    got, shown = _budget(fn, 1024, 124, 0, 0, 128, 0)
    expect(got, 772, shown, why="1,024 - 124 - 128 = 772: the window minus the base input and the output reserve")


def test_task1_every_term_counts():
    fn = function(load(LESSON), "evidence_budget")
    got, shown = _budget(fn, 1024, 124, 150, 90, 128, 0)
    expect(got, 532, shown, why="history (150) and tool schemas (90) take 240 of the evidence room")
    got, shown = _budget(fn, 1024, 124, 150, 90, 128, 32)
    expect(got, 500, shown, why="the margin (32) is paid before evidence too")
    got, shown = _budget(fn, 100, 10, 20, 30, 15, 5)
    expect(got, 20, shown, why="100 - 10 - 20 - 30 - 15 - 5 = 20; every term is subtracted once")


def test_task1_negative_is_an_error_zero_is_not():
    fn = function(load(LESSON), "evidence_budget")
    expect_error(ValueError, fn, 1024, 124, 700, 90, 128, 32, shown="evidence_budget(1024, 124, 700, 90, 128, 32)",
                 why="the other terms sum to 1,074 > 1,024: a negative remainder must be reported, not turned into 0")
    expect_error(ValueError, fn, 100, 60, 0, 0, 41, 0, shown="evidence_budget(100, 60, 0, 0, 41, 0)",
                 why="a remainder of -1 is still negative")
    got, shown = _budget(fn, 100, 60, 0, 0, 40, 0)
    expect(got, 0, shown, why="a remainder of exactly 0 is a (tiny) budget, not an error")


# ---------------------------------------------------------------- Task 2

def _c(cid: str, length: int) -> Chunk:
    # Text of exactly `length` characters, made of 5-letter words so lab tokens are easy to predict.
    words = (cid[0] * 5 + " ") * (length // 6 + 1)
    return Chunk(cid, words[:length])


def _shown(chunks, budget, counter) -> str:
    sizes = ", ".join(f"{c.id}:{len(c.text)} chars" for c in chunks)
    return f"skip_walk([{sizes}], {budget}, {getattr(counter, '__name__', 'custom')})"


def _walk(fn, chunks, budget, counter, kept, skipped, used, why=""):
    shown = _shown(chunks, budget, counter)
    walk = call(fn, chunks, budget, counter, shown=shown)
    expect_true(isinstance(walk, BudgetWalk), f"called {shown}\n  got a {type(walk).__name__}\n  expected: a BudgetWalk")
    expect(tuple(c.id for c in walk.kept), tuple(kept), shown + " -> kept ids", why=why)
    expect(tuple(walk.skipped_ids), tuple(skipped), shown + " -> skipped_ids", why=why)
    expect(walk.used, used, shown + " -> used", why=why)
    expect(walk.budget, budget, shown + " -> budget")
    for chunk in walk.kept:
        expect_true(chunk in chunks, f"called {shown}\n  kept {chunk.id!r} with {len(chunk.text)} chars, which "
                                     f"is not one of the input chunks: keep a chunk whole or skip it, never cut it")
    return walk


def test_task2_skip_and_keep_walking():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, RANKED, 80, chars, ["copier-pin", "guest-wifi"], ["laptop-loans"], 70,
          why="the 150-character chunk is skipped whole and the walk goes on: 30 + 40 = 70 fit")


def test_task2_never_truncates():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, [_c("long", 150), _c("short", 30)], 100, chars, ["short"], ["long"], 30,
          why="cutting the 150-character chunk to 100 would quote something its source did not say")


def test_task2_exact_fit_is_kept():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, [_c("first", 50), _c("second", 30)], 80, chars, ["first", "second"], [], 80,
          why="50 + 30 = 80 fills the budget exactly, and exactly full fits")
    _walk(fn, [_c("a", 50), _c("b", 40), _c("c", 30), _c("d", 5)], 80, chars, ["a", "c"], ["b", "d"], 80,
          why="b does not fit after a (90 > 80), c fills the rest exactly, d no longer fits")


def test_task2_the_counter_decides_the_size():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, RANKED, 20, lab_tokens, ["copier-pin", "guest-wifi"], ["laptop-loans"], 17,
          why="in lab tokens the chunks measure 33, 8 and 9; measure with the counter you were given, not len()")

    def one_each(text: str) -> int:
        return 1
    _walk(fn, RANKED, 2, one_each, ["laptop-loans", "copier-pin"], ["guest-wifi"], 2,
          why="a counter that counts every chunk as 1 lets exactly two chunks into a budget of 2")


def test_task2_the_walk_names_its_policy_and_unit():
    import functools
    fn = function(load(LESSON), "skip_walk")
    chunks = [_c("a", 10), _c("b", 20)]
    for counter, unit in ((chars, "chars"), (lab_tokens, "lab_tokens")):
        walk = _walk(fn, chunks, 100, counter, ["a", "b"], [], counter(chunks[0].text) + counter(chunks[1].text))
        shown = _shown(chunks, 100, counter)
        expect(walk.policy, "skip", shown + " -> policy",
               why="the record says which policy made it, so a skip walk and a truncating walk cannot be confused")
        expect(walk.unit, unit, shown + " -> unit",
               why="a budget means nothing without its unit: name it after the counter (counter.__name__)")
    unnamed = functools.partial(chars)
    shown = "skip_walk([a:10 chars, b:20 chars], 100, functools.partial(chars))"
    walk = call(fn, chunks, 100, unnamed, shown=shown)
    expect(walk.unit, "custom", shown + " -> unit",
           why="a functools.partial has no __name__; the task names such a counter's unit 'custom'")


def test_task2_zero_and_negative_budgets():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, [_c("a", 10)], 0, chars, [], ["a"], 0, why="nothing fits in a budget of 0")
    _walk(fn, [], 50, chars, [], [], 0, why="no chunks, nothing kept")
    expect_error(ValueError, fn, [_c("a", 10)], -1, chars, shown="skip_walk([a:10 chars], -1, chars)",
                 why="a negative budget is a mistake to report, not a budget of 0")


# ---------------------------------------------------------------- Task 3

def _overflows(fn, requests, k, window, want, why=""):
    shown = f"count_overflows(<{len(requests)} requests>, k={k}, window={window})"
    expect(call(fn, requests, k, window, shown=shown), want, shown, why=why)


def test_task3_lesson_sweep():
    fn = function(load(LESSON), "count_overflows")
    for k, want in ((3, 0), (4, 1), (5, 2), (6, 3), (8, 7)):
        _overflows(fn, REQUESTS, k, WINDOW_TOKENS, want,
                   why="the lesson's table: count each request whose base + top-k sizes exceed 160")


def test_task3_average_fits_largest_does_not():
    fn = function(load(LESSON), "count_overflows")
    requests = [Request("small", "?", 10, (10, 10)), Request("small2", "?", 10, (10, 10)),
                Request("large", "?", 10, (60, 60))]
    _overflows(fn, requests, 2, 100, 1,
               why="the average prompt is (30 + 30 + 130) / 3 = 63.3, inside 100, but the large request needs 130")


def test_task3_exact_fit_and_exact_k():
    fn = function(load(LESSON), "count_overflows")
    requests = [Request("exact", "?", 20, (40, 40, 50)), Request("over", "?", 21, (40, 40, 50))]
    _overflows(fn, requests, 2, 100, 1, why="20 + 40 + 40 = 100 fills the window exactly and fits; 101 does not")
    _overflows(fn, requests, 1, 100, 0, why="with k=1 only the first chunk counts: 60 and 61")
    _overflows(fn, requests, 3, 100, 2, why="with k=3 all three chunks count")
    _overflows(fn, requests, 9, 200, 0, why="k larger than the ranking takes every chunk there is")
    expect_error(ValueError, fn, requests, 0, 100, shown="count_overflows(<2 requests>, k=0, window=100)",
                 why="k must be at least 1")


# ---------------------------------------------------------------- Task 4

def test_task4_reserve_quiz():
    expect_choice(LESSON, "RESERVE_QUIZ", "b", 4, "Reread the lesson's part on the window equation")
