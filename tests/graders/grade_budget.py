"""Grader for lesson 02, budget. Run: python3 -B methods.py check budget"""

from labtools.grading.harness import (manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load,
                  patched, Shown)
from modules.budget import (COVERAGE_BUDGET, COVERAGE_FACETS, COVERAGE_RANKED, RANKED, REQUESTS, WINDOW_TOKENS,
                            BudgetWalk, Facet, RankedPassage, Request)
from modules.common.units import chars, lab_tokens

LESSON = "budget"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


# ---------------------------------------------------------------- Task 1

def test_task1_worked_example():
    fn = function(load(LESSON), "evidence_budget")
    expect_call(fn, 1024, 124, 0, 0, 128, 0, want=772,
                why="1,024 - 124 - 128 = 772: the window minus the base input (system text, question, wrapping) "
                    "and the output reserve")


def test_task1_every_term_counts():
    fn = function(load(LESSON), "evidence_budget")
    expect_call(fn, 1024, 124, 150, 90, 128, 0, want=532,
                why="history (150) and tool schemas (90) take 240 of the evidence room")
    expect_call(fn, 1024, 124, 150, 90, 128, 32, want=500, why="the margin (32) is paid before evidence too")
    expect_call(fn, 100, 10, 20, 30, 15, 5, want=20,
                why="100 - 10 - 20 - 30 - 15 - 5 = 20; every term is subtracted once")


def test_task1_negative_is_an_error_zero_is_not():
    fn = function(load(LESSON), "evidence_budget")
    expect_call(fn, 1024, 124, 700, 90, 128, 32, raises=ValueError,
                why="the other terms sum to 1,074 > 1,024: a negative remainder must be reported, not turned into 0")
    expect_call(fn, 100, 60, 0, 0, 41, 0, raises=ValueError, why="a remainder of -1 is still negative")
    expect_call(fn, 100, 60, 0, 0, 40, 0, want=0, why="a remainder of exactly 0 is a (tiny) budget, not an error")


# ---------------------------------------------------------------- Task 2

def _c(cid: str, length: int) -> RankedPassage:
    # Text of exactly `length` characters, made of 5-letter words so lab tokens are easy to predict.
    words = (cid[0] * 5 + " ") * (length // 6 + 1)
    return RankedPassage(cid, words[:length])


def _lengths(chunks) -> Shown:
    return Shown("[" + ", ".join(f"{c.id}:{len(c.text)} chars" for c in chunks) + "]", chunks)


def _walk(fn, chunks, budget, counter, kept, skipped, used, why=""):
    walk, shown = call_shown(fn, _lengths(chunks), budget, counter)
    expect_true(isinstance(walk, BudgetWalk), f"called {shown}\n  got a {type(walk).__name__}\n  expected: a BudgetWalk")
    expect(tuple(c.id for c in walk.kept), tuple(kept), shown + " -> kept ids", why=why)
    expect(tuple(walk.skipped_ids), tuple(skipped), shown + " -> skipped_ids", why=why)
    expect(walk.used, used, shown + " -> used", why=why)
    expect(walk.budget, budget, shown + " -> budget")
    for chunk in walk.kept:
        expect_true(chunk in chunks, f"called {shown}\n  kept {chunk.id!r} with {len(chunk.text)} chars, which "
                                     f"is not one of the input chunks: keep a chunk whole or skip it, never cut it")
    return walk, shown


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
          why="50 + 30 = 80 fills the budget exactly: a chunk that fits exactly is kept "
              "(used + size <= budget, not <)")
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
        walk, shown = _walk(fn, chunks, 100, counter, ["a", "b"], [], counter(chunks[0].text) + counter(chunks[1].text))
        expect(walk.policy, "skip", shown + " -> policy",
               why="the record says which policy made it, so a skip walk and a truncating walk cannot be confused")
        expect(walk.unit, unit, shown + " -> unit",
               why="a budget means nothing without its unit: name it after the counter (counter.__name__)")
    walk, shown = call_shown(fn, _lengths(chunks), 100, Shown("functools.partial(chars)", functools.partial(chars)))
    expect(walk.unit, "custom", shown + " -> unit",
           why="a functools.partial has no __name__; the task names such a counter's unit 'custom'")


def test_task2_zero_and_negative_budgets():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, [_c("a", 10)], 0, chars, [], ["a"], 0, why="nothing fits in a budget of 0")
    _walk(fn, [], 50, chars, [], [], 0, why="no chunks, nothing kept")
    expect_call(fn, _lengths([_c("a", 10)]), -1, chars, raises=ValueError,
                why="a negative budget is a mistake to report, not a budget of 0")


# ---------------------------------------------------------------- Task 3

def _requests(requests) -> Shown:
    return Shown(f"<{len(requests)} requests>", requests)


def _overflows(fn, requests, k, window, want, why=""):
    # k and window are passed by position and shown by name, as the lesson's table names them.
    expect_call(fn, _requests(requests), Shown(f"k={k}", k), Shown(f"window={window}", window), want=want, why=why)


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
    expect_call(fn, _requests(requests), Shown("k=0", 0), Shown("window=100", 100), raises=ValueError,
                why="k must be at least 1")


# ---------------------------------------------------------------- Task 4

def test_task4_reserve_quiz():
    expect_choice(LESSON, "RESERVE_QUIZ", "d", 4, "Reread the lesson's part on the window equation")


# ---------------------------------------------------------------- Task 5

ALPHA, BETA = Facet("alpha", "Where is alpha?"), Facet("beta", "What about beta?")


def _f(cid: str, facet_words: str, length: int) -> RankedPassage:
    # A chunk of exactly `length` characters holding the given facet words, padded with dots.
    text = (facet_words + " " + "." * length)[:length] if facet_words else "." * length
    return RankedPassage(cid, text)


def _sizes(chunks, counter=chars) -> Shown:
    return Shown("[" + ", ".join(f"{c.id}:{counter(c.text)}" for c in chunks) + "]", chunks)


def _facets(facets) -> Shown:
    return Shown(f"[{', '.join(f.name for f in facets)}]", facets)


def _cover(fn, chunks, facets, budget, want, why, counter=chars, label=""):
    shown_chunks = Shown(label, chunks) if label else _sizes(chunks, counter)
    got, shown = call_shown(fn, shown_chunks, _facets(facets), budget, counter)
    expect_true(isinstance(got, tuple),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: a tuple of the chosen chunks")
    for chunk in got:
        expect_true(chunk in chunks, f"called {shown}\n  returned {chunk!r}, which is not one of the input "
                                     f"chunks: choose chunks whole, never cut or rebuild them")
    expect(tuple(c.id for c in got), tuple(want), shown + " -> chosen ids", why=why)


def test_task5_lesson_case_covers_both_sub_questions():
    fn = function(load(LESSON), "cover_facets")
    _cover(fn, COVERAGE_RANKED, COVERAGE_FACETS, COVERAGE_BUDGET, ["laptop-loans", "guest-wifi"],
           "laptop-faq repeats the laptop part; guest-wifi adds the second sub-question for 40 chars (the rank "
           "walk keeps laptop-faq and then has no room for guest-wifi)",
           label="COVERAGE_RANKED from modules.budget")


def test_task5_cost_matters():
    fn = function(load(LESSON), "cover_facets")
    chunks = [_f("long-alpha", "alpha", 150), _f("short-alpha", "alpha", 40), _f("beta", "beta", 60)]
    _cover(fn, chunks, [ALPHA, BETA], 200, ["short-alpha", "beta"],
           "long-alpha and short-alpha add the same facet, but short-alpha costs 40 instead of 150: taking "
           "long-alpha leaves 50, too little for beta (60)")


def test_task5_only_new_facets_count():
    fn = function(load(LESSON), "cover_facets")
    chunks = [_f("alpha-1", "alpha", 10), _f("alpha-2", "alpha", 10), _f("beta", "beta", 30)]
    _cover(fn, chunks, [ALPHA, BETA], 45, ["alpha-1", "beta"],
           "once alpha-1 covers alpha, alpha-2 adds nothing: spending 10 more on it leaves 25, too little for beta")
    both = [_f("alpha", "alpha", 10), _f("both", "alpha beta", 15), _f("beta", "beta", 10)]
    _cover(fn, both, [ALPHA, BETA], 30, ["both"],
           "'both' adds two facets for 15 (2/15) and beats alpha and beta (1/10 each); after it, alpha and beta "
           "add nothing new, so they are not taken")


def test_task5_result_in_rank_order_and_never_a_useless_chunk():
    fn = function(load(LESSON), "cover_facets")
    chunks = [_f("filler", "", 5), _f("alpha", "alpha", 100), _f("beta", "beta", 10), _f("more", "", 5)]
    _cover(fn, chunks, [ALPHA, BETA], 400, ["alpha", "beta"],
           "beta is chosen first (1/10 beats 1/100), but the result keeps rank order; filler and more add no "
           "facet, so they are never taken, however much room is left")


def test_task5_exact_fit_and_no_fit():
    fn = function(load(LESSON), "cover_facets")
    chunks = [_f("alpha", "alpha", 30), _f("beta", "beta", 20)]
    _cover(fn, chunks, [ALPHA, BETA], 50, ["alpha", "beta"], "30 + 20 = 50 fills the budget exactly, and that fits")
    _cover(fn, chunks, [ALPHA, BETA], 29, ["beta"], "alpha (30) never fits in 29; beta does")
    _cover(fn, chunks[:1], [ALPHA, BETA], 29, [], "alpha alone is 30 chars, one more than the budget of 29")
    _cover(fn, chunks, [ALPHA, BETA], 40, ["beta"],
           "each fits alone, not both: beta (1/20) is taken first, and then alpha needs 20 + 30 = 50 > 40")
    _cover(fn, chunks, [ALPHA, BETA], 0, [], "nothing with a size fits a budget of 0, and that is no error")
    _cover(fn, [], [ALPHA, BETA], 50, [], "no chunks, nothing chosen")
    expect_call(fn, _sizes(chunks), _facets([ALPHA, BETA]), -1, chars, raises=ValueError,
                why="a negative budget is a mistake to report, not a budget of 0")


def test_task5_ties_go_to_the_better_rank():
    fn = function(load(LESSON), "cover_facets")
    # Forty chunks that each add alpha for the same size: only the first-ranked one may win,
    # whatever the hash seed. A loop over a set picks the first-ranked one about one time in
    # forty, so six families of other ids make a lucky pass about a one-in-four-billion event.
    for family in ("alpha", "first", "tied", "same", "equal", "even"):
        chunks = [_f(f"{family}-{i:02d}", "alpha", 20) for i in range(40)] + [_f("beta", "beta", 20)]
        _cover(fn, chunks, [ALPHA, BETA], 100, [f"{family}-00", "beta"],
               f"every {family}-NN chunk adds alpha for 20 chars: on a tie the better-ranked (first) chunk "
               f"wins, every run",
               label=f"<{family}-00 .. {family}-39, each 'alpha' in 20 chars, then beta:20>")
    chunks = [_f("beta-first", "beta", 40), _f("alpha", "alpha", 20), _f("beta-second", "beta", 40)]
    _cover(fn, chunks, [ALPHA, BETA], 60, ["beta-first", "alpha"],
           "beta-first and beta-second tie at 1/40: the earlier one wins")


def test_task5_the_counter_decides_the_size():
    fn = function(load(LESSON), "cover_facets")
    # Many one-letter words are short in chars but long in lab tokens; one long word is the reverse.
    short_words = RankedPassage("short-words", "alpha a b c d e f g h")   # 21 chars, 9 lab tokens
    long_word = RankedPassage("long-word", "alpha " + "x" * 30)           # 36 chars, 7 lab tokens
    chunks = [short_words, long_word, RankedPassage("beta", "beta")]
    _cover(fn, chunks, [ALPHA, BETA], 200, ["short-words", "beta"],
           "in chars short-words (21) is cheaper than long-word (36)", counter=chars)
    _cover(fn, chunks, [ALPHA, BETA], 200, ["long-word", "beta"],
           "in lab tokens long-word (7) is cheaper than short-words (9): measure with the counter you were "
           "given, not len()", counter=lab_tokens)


def test_task5_ignores_the_labels():
    outputs = []
    for labels in (("guest-wifi", "laptop-loans"), ("laptop-faq", "copier-pin"), ("guest-wifi",)):
        with patched("modules.budget", COVERAGE_LABELS=labels):
            fn = function(load(LESSON, fresh=True), "cover_facets")
            got, _shown = call_shown(fn, Shown("COVERAGE_RANKED from modules.budget", COVERAGE_RANKED),
                                     Shown("COVERAGE_FACETS from modules.budget", COVERAGE_FACETS),
                                     COVERAGE_BUDGET, chars)
            outputs.append(tuple(c.id for c in got))
    expect_true(outputs[0] == outputs[1] == outputs[2] == ("laptop-loans", "guest-wifi"),
                "cover_facets's choice changed when only the evaluation labels (modules.budget.COVERAGE_LABELS) "
                f"changed:\n  with the lesson's labels: {outputs[0]}\n  with other labels:       {outputs[1]}\n"
                "  choose from the chunks, the facets and the budget alone")
