"""Grader for lesson 02, budget. Run: python3 -B methods.py check budget"""

from labtools.grading.harness import (manifest_tasks, call_shown, constant, expect, expect_call, expect_choice, expect_true, function,
                  load, patched, Shown)
from modules.budget import (COVERAGE_BUDGET, COVERAGE_FACETS, COVERAGE_RANKED, RANKED, REQUESTS, WINDOW_TOKENS,
                            BudgetWalk, Facet, RankedPassage, Request, fill_budget)
from modules.common.units import chars, lab_tokens

LESSON = "budget"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


# ---------------------------------------------------------------- Task 1

TOKENS = "lab_tokens"


def _plan(base_input=124, history=0, tools=0, output_reserve=128, margin=0, unit=TOKENS, **changes) -> Shown:
    """A plan dict in one unit; a term given as a (size, unit) pair is used as given, one given as
    None is left out, and `changes` adds other keys."""
    terms = {"base_input": base_input, "history": history, "tools": tools, "output_reserve": output_reserve,
             "margin": margin}
    plan = {name: value if isinstance(value, tuple) else (value, unit) for name, value in terms.items()
            if value is not None}
    for name, value in changes.items():
        if value is None:
            del plan[name]
        else:
            plan[name] = value
    return Shown("{" + ", ".join(f"{name!r}: {value!r}" for name, value in plan.items()) + "}", plan)


def _plan_budget(fn, window, plan, want, why=""):
    got, shown = call_shown(fn, window, plan)
    expect_true(isinstance(got, (tuple, list)) and len(got) == 2,
                f"called {shown}\n  got: {got!r:.80}\n  expected: a tuple (or a list) (evidence, unit)")
    expect(tuple(got), want, shown, why=why)


def _refused(fn, window, plan, names, why):
    """The call raises ValueError and its message names each of `names` (the offending term)."""
    expect_call(fn, window, plan, raises=ValueError, why=why)
    try:
        fn(window, plan.value)
    except ValueError as error:
        message = str(error)
    for name in names:
        expect_true(name in message, f"called {call_shown_text(fn, window, plan)}\n  it raised ValueError: "
                                     f"{message}\n  expected: a message that names {name!r}, so the reader knows "
                                     f"which term to fix")


def call_shown_text(fn, *args) -> str:
    return f"{fn.__name__}(" + ", ".join(a.text if isinstance(a, Shown) else repr(a) for a in args) + ")"


def test_task1_worked_example():
    fn = function(load(LESSON), "evidence_budget_of_plan")
    _plan_budget(fn, (1024, TOKENS), _plan(), (772, TOKENS),
                 why="1,024 - 124 - 128 = 772: the window minus the base input (system text, question, wrapping) "
                     "and the output reserve, in the window's unit")


def test_task1_every_term_counts():
    fn = function(load(LESSON), "evidence_budget_of_plan")
    _plan_budget(fn, (1024, TOKENS), _plan(history=150, tools=90), (532, TOKENS),
                 why="history (150) and tool schemas (90) take 240 of the evidence room")
    _plan_budget(fn, (1024, TOKENS), _plan(history=150, tools=90, margin=32), (500, TOKENS),
                 why="the margin (32) is paid before evidence too")
    _plan_budget(fn, (100, "chars"), _plan(10, 20, 30, 15, 5, unit="chars"), (20, "chars"),
                 why="100 - 10 - 20 - 30 - 15 - 5 = 20, and the unit is the window's: chars")


def test_task1_a_missing_or_unknown_term_is_refused():
    fn = function(load(LESSON), "evidence_budget_of_plan")
    _refused(fn, (1024, TOKENS), _plan(history=None), ["history"],
             "a plan without history is refused: reading the missing term as 0 silently inflates the evidence "
             "budget on every follow-up turn")
    _refused(fn, (1024, TOKENS), _plan(tools=None), ["tools"], "tool schemas are a term even when empty")
    _refused(fn, (1024, TOKENS), _plan(system=(40, TOKENS)), ["system"],
             "'system' is not a term of the equation (the system text is part of base_input)")


def test_task1_units_are_never_mixed():
    fn = function(load(LESSON), "evidence_budget_of_plan")
    _refused(fn, (1024, TOKENS), _plan(history=(600, "chars")), ["history"],
             "history is counted in chars and the window in lab tokens: subtracting one from the other is a "
             "unit error, and converting would need a ratio the lab never guesses")
    _refused(fn, (1024, "chars"), _plan(), ["base_input"],
             "every term is in lab tokens but the window is in chars")


def test_task1_negative_is_an_error_zero_is_not():
    fn = function(load(LESSON), "evidence_budget_of_plan")
    expect_call(fn, (1024, TOKENS), _plan(history=700, tools=90, margin=32), raises=ValueError,
                why="the other terms sum to 1,074 > 1,024: a negative remainder must be reported, not turned into 0")
    expect_call(fn, (100, TOKENS), _plan(60, 0, 0, 41, 0), raises=ValueError, why="a remainder of -1 is still negative")
    _plan_budget(fn, (100, TOKENS), _plan(60, 0, 0, 40, 0), (0, TOKENS),
                 why="a remainder of exactly 0 is a (tiny) budget, not an error")
    _refused(fn, (1024, TOKENS), _plan(margin=(-32, TOKENS)), ["margin"],
             "a negative margin would hand its room to the evidence: a term's size is at least 0")
    _refused(fn, (1024, TOKENS), _plan(tools=(-1, TOKENS)), ["tools"], "-1 is negative too")


# ---------------------------------------------------------------- Task 2

def _c(cid: str, length: int) -> RankedPassage:
    # Text of exactly `length` characters, made of 5-letter words so lab tokens are easy to predict.
    words = (cid[0] * 5 + " ") * (length // 6 + 1)
    return RankedPassage(cid, words[:length])


def _lengths(chunks) -> Shown:
    return Shown("[" + ", ".join(f"{c.id}:{len(c.text)} chars" for c in chunks) + "]", chunks)


def sent(chunk: RankedPassage) -> str:
    """A chunk as the request carries it (modules.budget.assemble_request's wrapper)."""
    return f'<source id="{chunk.id}">{chunk.text}</source>'


def _walk(fn, chunks, budget, counter, kept, skipped, used, why=""):
    walk, shown = call_shown(fn, _lengths(chunks), budget, counter)
    expect_true(isinstance(walk, BudgetWalk), f"called {shown}\n  got a {type(walk).__name__}\n  expected: a BudgetWalk")
    expect(tuple(c.id for c in walk.kept), tuple(kept), shown + " -> kept ids", why=why)
    expect(tuple(walk.skipped_ids), tuple(skipped), shown + " -> skipped_ids", why=why)
    expect(walk.used, used, shown + " -> used", why=why)
    expect(walk.budget, budget, shown + " -> budget")
    for chunk in walk.kept:
        expect_true(chunk in chunks, f"called {shown}\n  kept {chunk.id!r} with {len(chunk.text)} chars, which "
                                     f"is not one of the input chunks: keep a chunk whole (as given, without its "
                                     f"wrapper) or skip it, never cut it")
    return walk, shown


def test_task2_each_chunk_costs_what_is_sent():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, RANKED, 80, chars, ["copier-pin"], ["laptop-loans", "guest-wifi"], 63,
          why='copier-pin is sent as <source id="copier-pin">...</source>: 30 chars of text and 33 of wrapper, '
              '63 in all; guest-wifi then costs 73 and no longer fits (the bare-text walk keeps both, 70)')
    _walk(fn, RANKED, 136, chars, ["copier-pin", "guest-wifi"], ["laptop-loans"], 136,
          why="63 + 73 = 136: guest-wifi fits exactly, and a chunk that fits exactly is kept (used + size <= "
              "budget, not <); laptop-loans (185 with its wrapper) is skipped whole")


def test_task2_never_truncates():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, [_c("long", 150), _c("short", 30)], 100, chars, ["short"], ["long"], 58,
          why="cutting the long chunk to fit would quote something its source did not say; short costs "
              "30 + 28 = 58 with its wrapper")


def test_task2_exact_fit_is_kept():
    fn = function(load(LESSON), "skip_walk")
    _walk(fn, [_c("a", 26), _c("b", 6)], 80, chars, ["a", "b"], [], 80,
          why="with a one-letter id the wrapper is 24 chars: 50 + 30 = 80 fills the budget exactly, and a "
              "chunk that fits exactly is kept (used + size <= budget, not <)")
    _walk(fn, [_c("a", 26), _c("b", 16), _c("c", 6), _c("d", 1)], 80, chars, ["a", "c"], ["b", "d"], 80,
          why="costs 50, 40, 30, 25: b does not fit after a (90 > 80), c fills the rest exactly, d no longer fits")


def test_task2_the_counter_decides_the_size():
    fn = function(load(LESSON), "skip_walk")
    costs = [lab_tokens(sent(c)) for c in RANKED]
    _walk(fn, RANKED, costs[1] + costs[2], lab_tokens, ["copier-pin", "guest-wifi"], ["laptop-loans"],
          costs[1] + costs[2],
          why=f"in lab tokens the chunks as sent measure {costs[0]}, {costs[1]} and {costs[2]}: call the counter "
              f"you were given (not len()) once on the whole wrapped text; counting the tags and the text apart "
              f"splits pieces the request does not split")

    def one_each(text: str) -> int:
        return 1
    _walk(fn, RANKED, 2, one_each, ["laptop-loans", "copier-pin"], ["guest-wifi"], 2,
          why="a counter that counts every chunk as 1 lets exactly two chunks into a budget of 2")


def test_task2_the_walk_names_its_policy_and_unit():
    import functools
    fn = function(load(LESSON), "skip_walk")
    chunks = [_c("a", 10), _c("b", 20)]
    for counter, unit in ((chars, "chars"), (lab_tokens, "lab_tokens")):
        walk, shown = _walk(fn, chunks, 100, counter, ["a", "b"], [],
                            counter(sent(chunks[0])) + counter(sent(chunks[1])))
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


def _safe(fn, requests, window, reserve, want, why="", shown=None):
    # window and reserve are passed by position and shown by name, as the lesson names them.
    expect_call(fn, shown or _requests(requests), Shown(f"window={window}", window),
                Shown(f"output_reserve={reserve}", reserve), want=want, why=why)


def test_task3_lesson_requests():
    fn = function(load(LESSON), "safe_top_k")
    lesson = Shown("REQUESTS from modules.budget", REQUESTS)
    _safe(fn, REQUESTS, WINDOW_TOKENS, 0, 3, shown=lesson,
          why="the tightest request (q07) fits only 3 chunks in 160: the average of 6.1 is no safe k")
    _safe(fn, REQUESTS, 200, 40, 3, shown=lesson,
          why="with 40 reserved for the answer, 200 leaves the same 160 for the prompt")
    _safe(fn, REQUESTS, 200, 0, 4, shown=lesson, why="with no answer to write, 200 fits 4 chunks in every request")


def test_task3_the_largest_request_decides():
    fn = function(load(LESSON), "safe_top_k")
    requests = [Request("small", "?", 10, (10, 10, 10)), Request("small2", "?", 10, (10, 10, 10)),
                Request("large", "?", 10, (60, 60, 60))]
    _safe(fn, requests, 100, 0, 1,
          why="at k=2 the average prompt is (30 + 30 + 130) / 3 = 63.3, inside 100, but the large request "
              "needs 130: only k=1 fits every request")


def test_task3_the_answer_needs_room():
    fn = function(load(LESSON), "safe_top_k")
    requests = [Request("a", "?", 20, (30, 30, 30))]
    _safe(fn, requests, 100, 0, 2, why="20 + 30 + 30 = 80 fits 100; a third chunk makes 110")
    _safe(fn, requests, 100, 20, 2, why="80 + a reserve of 20 = 100 fills the window exactly, and that fits")
    _safe(fn, requests, 100, 21, 1, why="80 + 21 = 101 overflows: the answer is written into the same window")
    _safe(fn, requests, 100, 60, 0, why="even one chunk: 20 + 30 + 60 = 110 > 100, so no k is safe")
    _safe(fn, requests, 100, 90, 0, why="the base input and the reserve alone, 20 + 90, already exceed 100: no k is "
                                        "safe, and the answer is 0, not a negative k")


def test_task3_requests_with_few_chunks():
    fn = function(load(LESSON), "safe_top_k")
    requests = [Request("short", "?", 10, (10,)), Request("long", "?", 10, (10, 10, 10, 10))]
    _safe(fn, requests, 100, 0, 4,
          why="a request with one chunk takes all it has at any k; the longest list (4 chunks) still fits")
    _safe(fn, requests, 40, 0, 3, why="long: 10 + 10 + 10 + 10 = 40 fits at k=3, 50 at k=4 does not")
    expect_call(fn, _requests([]), Shown("window=100", 100), Shown("output_reserve=0", 0), raises=ValueError,
                why="no requests: there is no k to choose")


# ---------------------------------------------------------------- Task 4

RESERVE_MISTAKES = {
    "a": "the reserve is not small: 128 of a 1,024 window, and without it the input may leave no room to answer",
    "c": "an input past the window is not trimmed for you: the request fails, and the lab counts it as wrong",
    "d": "streaming changes when the answer arrives, not where it is written: it still shares the window",
}


def test_task4_reserve_quiz():
    answer = constant(load(LESSON), "RESERVE_QUIZ")
    expect_true(answer not in RESERVE_MISTAKES, f"RESERVE_QUIZ = {answer!r}: {RESERVE_MISTAKES.get(answer)}. "
                                                f"Reread the lesson's window equation, then try again (hint: "
                                                f"python3 -B methods.py hint {LESSON} 4)")
    expect_choice(LESSON, "RESERVE_QUIZ", "b", 4, "Reread the lesson's part on the window equation")


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
    expect_true(isinstance(got, (tuple, list)),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: a list or a tuple of the chosen chunks")
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


def test_task5_ratios_are_recomputed_after_each_pick():
    # A static greedy (ratios computed once, then a walk) takes 'both' second for its 2 facets per 20;
    # after 'alpha' is taken, 'both' adds only beta (1/20) and 'beta' (1/12) is the better buy.
    fn = function(load(LESSON), "cover_facets")
    chunks = [_f("both", "alpha beta", 20), _f("alpha", "alpha", 8), _f("beta", "beta", 12)]
    _cover(fn, chunks, [ALPHA, BETA], 40, ["alpha", "beta"],
           "alpha goes first (1 new facet per 8); then 'both' adds only beta, 1 per 20, and 'beta' adds it for "
           "1 per 12: count the NEW facets again after every pick, not once at the start")


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


def test_task5_a_size_0_chunk_wins():
    fn = function(load(LESSON), "cover_facets")

    def free_notes(text: str) -> int:
        return 0 if text.startswith("note") else len(text)
    chunks = [_f("alpha", "alpha", 30), RankedPassage("note", "note alpha"), _f("beta", "beta", 20)]
    _cover(fn, chunks, [ALPHA, BETA], 25, ["note", "beta"],
           "the note costs 0 under this counter and adds alpha: its ratio 1/0 beats every other (compare "
           "new_a * size_b > new_b * size_a; dividing raises ZeroDivisionError)", counter=free_notes)


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


# ---------------------------------------------------------------- Task 6

def test_task6_predict_the_walk_at_200():
    predicted = constant(load(LESSON), "WALK_AT_200")
    expect_true(isinstance(predicted, (list, tuple)) and all(isinstance(i, str) for i in predicted),
                f"WALK_AT_200 is {predicted!r:.80}; set it to a tuple (or a list) of chunk ids, in rank order")
    actual = fill_budget(COVERAGE_RANKED, 200).kept_ids
    expect_true(tuple(predicted) == actual,
                f"WALK_AT_200 = {tuple(predicted)!r} is not what the skip walk keeps from COVERAGE_RANKED at 200 "
                f"chars. Walk it by hand with the sizes in the trace's coverage table, then check with: "
                f"python3 -B -c \"from modules.budget import COVERAGE_RANKED, fill_budget; "
                f"print(fill_budget(COVERAGE_RANKED, 200).kept_ids)\"")
