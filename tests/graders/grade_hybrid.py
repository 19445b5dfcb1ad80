"""Grader for lesson 07, hybrid. Run: python3 -B methods.py check hybrid"""

from labtools.grading.harness import manifest_tasks, call_shown, constant, expect, expect_call, expect_true, function, load, Shown
from modules.catalogue import QUERIES
from modules.hybrid import parse_diameter, retrieve

LESSON = "hybrid"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


def _expect_fused(got, want, shown: str, why: str = "") -> None:
    """Same ids in the same order, scores equal to 12 decimal places (float sums may differ in the last bit).
    The result and each pair may be a list or a tuple (the course's container rule)."""
    ok = isinstance(got, (list, tuple)) and len(got) == len(want) and all(
        isinstance(pair, (list, tuple)) and len(pair) == 2 and pair[0] == w[0] and isinstance(pair[1], float)
        and abs(pair[1] - w[1]) < 1e-12 for pair, w in zip(got, want))
    if not ok:
        detail = f"\n  why: {why}" if why else ""
        expect_true(False, f"called {shown}\n  got:      {got!r}\n  expected: {want!r}\n"
                           f"  (a list or tuple of (id, float) pairs, best first){detail}")


# ---------------------------------------------------------------- Task 1

def _expect_size(fn, text, want, why=""):
    """parse_size(text) == want, the pair read as a tuple: a list or a tuple is accepted (the
    course's container rule); anything else is shown as it came."""
    got, shown = call_shown(fn, text)
    expect(tuple(got) if isinstance(got, list) else got, want, shown, why=why)


def test_task1_explicit_millimetres():
    fn = function(load(LESSON), "parse_size")
    for text in ("mechanical seal 16 mm", "16mm seal", "Seal 16 MM", "seal for a 16 millimetres shaft"):
        _expect_size(fn, text, want=("ready", "16"),
                    why="one number with a written unit: 16 millimetres, as exact text '16'")


def test_task1_bare_number_is_never_assumed():
    fn = function(load(LESSON), "parse_size")
    for text in ("pump seal 16", "16", "seal 16, carbon", "seal 0.625in"):
        _expect_size(fn, text, want=("clarify", None),
                    why="no known unit was written: ask (state 'clarify'); assuming millimetres would invent the "
                        "customer's intent ('in' is not one of UNIT_WORDS)")


def test_task1_inches_converted_exactly():
    fn = function(load(LESSON), "parse_size")
    for text, want in (("lip seal 0.625 inch", "15.875"), ("2 inches", "50.8"), ("shaft 1inch", "25.4")):
        _expect_size(fn, text, want=("ready", want),
                    why="convert with to_mm(number, 'inch'): exact decimal text, 1 inch = 25.4 mm")


def test_task1_no_size_or_two_sizes():
    fn = function(load(LESSON), "parse_size")
    _expect_size(fn, "mechanical seal", want=("ready", None),
                why="no number: nothing to resolve, and nothing to ask")
    for text in ("seal 16 mm or 18 mm", "16 mm seal for an 18 mm shaft", "seal 16 18"):
        _expect_size(fn, text, want=("failed", None),
                    why="more than one number: picking one would guess which size is meant")


def test_task1_a_number_has_digits_on_both_sides_of_its_point():
    fn = function(load(LESSON), "parse_size")
    for text, why in (
        ("firmware 1.2.3, seal 16 mm", "'1.2.3' has two points, so it is not a number (a version, not a size): "
                                       "the one size is 16 mm"),
        ("seal 16 mm, wall .5 inch", "'.5' has no digit before its point, so by the task's rule it is not a "
                                     "number: the one size is 16 mm"),
    ):
        _expect_size(fn, text, want=("ready", "16"), why=why)


def test_task1_a_full_stop_ends_the_sentence_not_the_number():
    fn = function(load(LESSON), "parse_size")
    for text, want, why in (
        ("I need a 16 mm.", ("ready", "16"), "the full stop ends the sentence; 'mm' is still the unit"),
        ("Do you stock seal 16?", ("clarify", None), "'16?' is the bare number 16: ask for its unit"),
        ("seal 16.", ("clarify", None), "'16.' is the number 16 at the end of a sentence, with no unit: ask, "
                                        "never drop a size the customer wrote"),
        ("seal 16.mm", ("clarify", None), "'16.mm' is 16 with '.mm' glued on, which is not a unit word: the "
                                          "number stays, without a unit, so ask"),
        ("a 16-mm seal", ("clarify", None), "'16-mm' is 16 with '-mm' glued on, which is not a unit word: the "
                                            "number stays, without a unit, so ask (dropped, the customer's size "
                                            "would be lost)"),
        ("step 2. fit a 16 mm seal", ("failed", None), "'2.' is the number 2 before a full stop, so the text "
                                                       "holds two numbers: which one is the size?"),
    ):
        _expect_size(fn, text, want=want, why=why)


def test_task1_imperial_fractions():
    fn = function(load(LESSON), "parse_size")
    for text, want, why in (
        ("lip seal 5/8 inch", ("ready", "15.875"), "5/8 inch is 0.625 inch, exactly 15.875 mm (PW-Q003's size)"),
        ("seal 5/8inch", ("ready", "15.875"), "the unit may be glued to a fraction as to any number"),
        ("seal 3/64 inch", ("ready", "1.190625"), "3/64 = 0.046875 exactly: a power of two divides a power of ten"),
        ("o-ring 1/2 mm", ("ready", "0.5"), "a fraction of a millimetre is a size too"),
        ("seal 10/4 inch", ("ready", "63.5"), "an improper fraction is still one number: 2.5 inch"),
        ("seal 5/8", ("clarify", None), "a bare fraction has no unit either: ask"),
        ("seal 1 1/4 inch", ("failed", None), "a whole number before a fraction is two numbers: which one is meant?"),
        ("seal 1/3 inch", ("ready", None), "a third has no exact decimal, and 3 is not an allowed denominator: "
                                           "the word is not a number, so no size was requested"),
        ("seal 5/0 mm", ("ready", None), "a zero denominator is not a fraction: the word is ignored"),
        ("lip seal 1/3 or 16 mm", ("ready", "16"), "the ignored '1/3' ends nothing: the walk goes on to 16 mm"),
        ("seal 1/16 inch", ("ready", "1.5875"), "sixteenths are allowed"),
        ("seal 1/32 inch", ("ready", "0.79375"), "thirty-seconds are allowed"),
    ):
        _expect_size(fn, text, want=want, why=why)


def test_task1_agrees_with_the_lesson_queries():
    fn = function(load(LESSON), "parse_size")
    for query in QUERIES:
        state, diameter, _reason = parse_diameter(query.text)
        want = (state, diameter.value_mm if diameter else None)
        got, shown = call_shown(fn, query.text)
        expect(tuple(got) if isinstance(got, list) else got, want, f"{shown}  # {query.id}",
               why="the lesson's query contract reads this query that way")


# ---------------------------------------------------------------- Task 2

def _wrrf(fn, rankings, weights, k=60):
    # k is passed by position and shown by name.
    return call_shown(fn, rankings, weights, Shown(f"k={k}", k))


def test_task2_a_weight_changes_the_order():
    fn = function(load(LESSON), "weighted_rank_fusion")
    got, shown = _wrrf(fn, [["b", "a"], ["a", "b"]], [2, 1])
    _expect_fused(got, [("b", 2 / 61 + 1 / 62), ("a", 2 / 62 + 1 / 61)], shown,
                  why="the first ranking counts twice: b, its rank 1, earns 2 / 61; with equal weights a and b "
                      "would tie and a would come first by id")
    got, shown = _wrrf(fn, [["a", "b"], ["b", "c"]], [1, 3])
    _expect_fused(got, [("b", 1 / 62 + 3 / 61), ("c", 3 / 62), ("a", 1 / 61)], shown,
                  why="each rank term is multiplied by its ranking's weight: c, second in the weight-3 ranking, "
                      "beats a, first in the weight-1 ranking")


def test_task2_equal_weights_are_the_lessons_fusion():
    fn = function(load(LESSON), "weighted_rank_fusion")
    got, shown = _wrrf(fn, [["a"]], [1])
    _expect_fused(got, [("a", 1 / 61)], shown, why="the first place has rank 1, so it earns 1 / (60 + 1), not 1 / 60")
    got, shown = _wrrf(fn, [["a", "b", "c"]], [1], 1)
    _expect_fused(got, [("a", 1 / 2), ("b", 1 / 3), ("c", 1 / 4)], shown, why="with k = 1: 1/(1+1), 1/(1+2), 1/(1+3)")
    got, shown = _wrrf(fn, [["a", "b", "c"], ["c", "d"]], (1, 1))
    _expect_fused(got, [("c", 1 / 63 + 1 / 61), ("a", 1 / 61), ("b", 1 / 62), ("d", 1 / 62)], shown,
                  why="c is in both rankings; a, b and d are each in one ranking and keep what it gives them")
    got, shown = _wrrf(fn, [["b", "a"], ["a", "b"]], [0.5, 0.5])
    _expect_fused(got, [("a", 0.5 / 61 + 0.5 / 62), ("b", 0.5 / 61 + 0.5 / 62)], shown,
                  why="equal totals are ordered by id, whatever order they were met in")
    got, shown = _wrrf(fn, [["x"], []], [1, 5])
    _expect_fused(got, [("x", 1 / 61)], shown, why="an empty ranking contributes nothing, whatever its weight")
    got, shown = _wrrf(fn, [], [])
    _expect_fused(got, [], shown, why="no rankings, nothing to fuse")
    got, shown = _wrrf(fn, [["a", "b"], ["b"]], [1, 1], 10)
    _expect_fused(got, [("b", 1 / 12 + 1 / 11), ("a", 1 / 11)], shown, why="use the k you are given")


def test_task2_bad_weights_and_k_are_errors():
    fn = function(load(LESSON), "weighted_rank_fusion")
    expect_call(fn, [["a"], ["b"]], [1], 60, raises=ValueError,
                why="two rankings and one weight: which ranking would the missing weight belong to?")
    expect_call(fn, [["a"]], [1, 2], 60, raises=ValueError, why="a weight with no ranking is a mistake too")
    expect_call(fn, [["a"], ["b"]], [1, 0], 60, raises=ValueError,
                why="a weight of 0 silences a channel: leave the channel out instead, on purpose")
    expect_call(fn, [["a"]], [-1], 60, raises=ValueError, why="a negative weight would push its ids down")
    expect_call(fn, [["a"]], [1], 0, raises=ValueError, why="k must be at least 1")
    expect_call(fn, [["a", "b", "a"]], [1], 60, raises=ValueError, why="a ranking lists each id once")


def test_task2_a_set_is_not_a_ranking():
    fn = function(load(LESSON), "weighted_rank_fusion")
    expect_call(fn, [["a", "b"], {"b", "c"}], [1, 1], 60, raises=TypeError,
                why="a set has no order of its own: which of b and c is its rank 1 would depend on the hash seed")
    expect_call(fn, [frozenset({"a"})], [1], 60, raises=TypeError, why="a frozenset is a set too")
    got, shown = _wrrf(fn, [("b", "a"), ["a"]], (1, 1))
    _expect_fused(got, [("a", 1 / 62 + 1 / 61), ("b", 1 / 61)], shown, why="a tuple has an order: it is a ranking")


def _gated(query):
    """A query's channel hits after the lesson's gate: only what may be ranked (withheld ids never appear)."""
    run = retrieve(query)
    passed = set(run.output("gate").passed)
    return run, {c.channel: [(h.listing_id, h.score) for h in c.hits if h.listing_id in passed]
                 for c in run.of_kind("channel")}


def test_task2_matches_the_lesson():
    fn = function(load(LESSON), "weighted_rank_fusion")
    _run, hits = _gated(QUERIES[0])
    rankings = [[listing_id for listing_id, _ in channel] for channel in hits.values()]
    from modules.hybrid import reciprocal_rank_fusion as reference
    got, shown = call_shown(fn, Shown("<PW-Q001's three channel rankings after the gate>", rankings), [1, 1, 1], 60)
    _expect_fused(got, reference(rankings, 60), shown, why="with every weight 1 it is the lesson's fused order")
    doubled = [rankings[0], *rankings]   # the lexical ranking given twice: the same as weight 2
    got, shown = call_shown(fn, Shown("<PW-Q001's rankings after the gate>", rankings), [2, 1, 1], 60)
    _expect_fused(got, reference(doubled, 60), shown,
                  why="weight 2 on the lexical ranking fuses as if the lexical ranking were given twice")


# ---------------------------------------------------------------- Task 3

def _fuse(fn, hits, clusters, k=60, depth=10):
    # depth and k are passed by position and shown by name
    return call_shown(fn, hits, clusters, Shown(f"depth={depth}", depth), Shown(f"k={k}", k))


def test_task3_raw_scores_are_not_added():
    fn = function(load(LESSON), "fuse_by_cluster")
    hits = {"lexical": [("A", 100.0), ("B", 99.0)], "vector": [("B", 0.9), ("C", 0.8)]}
    clusters = {"A": "cA", "B": "cB", "C": "cC"}
    got, shown = _fuse(fn, hits, clusters)
    _expect_fused(got, [("cB", 1 / 62 + 1 / 61), ("cA", 1 / 61), ("cC", 1 / 62)], shown,
                  why="B is proposed by both channels; adding 100 + 0 for A against 99 + 0.9 for B would let "
                      "the lexical channel's big numbers decide")
    scaled = {"lexical": [("A", 100.0), ("B", 99.0)], "vector": [("B", 90.0), ("C", 80.0)]}
    again, shown2 = _fuse(fn, scaled, clusters)
    _expect_fused(again, got, shown2, why="writing the cosines as percentages changes no position, so it "
                                          "must change no ordering_score")


def test_task3_copy_collapses_to_its_cluster():
    fn = function(load(LESSON), "fuse_by_cluster")
    hits = {"lexical": [("L1", 9.0), ("L2", 9.0), ("L3", 8.0)], "vector": [("L3", 0.99), ("L1", 0.98)]}
    clusters = {"L1": "C-01", "L2": "C-01", "L3": "C-02"}
    got, shown = _fuse(fn, hits, clusters)
    _expect_fused(got, [("C-01", 1 / 61 + 1 / 62), ("C-02", 1 / 62 + 1 / 61)], shown,
                  why="L2 is a copy of L1: C-01 takes rank 1 once in the lexical channel, and C-02 moves up "
                      "to rank 2 there (not 3)")


def test_task3_clusters_not_display_ids():
    fn = function(load(LESSON), "fuse_by_cluster")
    hits = {"lexical": [("L2", 5.0)], "vector": [("L1", 0.7)]}
    got, shown = _fuse(fn, hits, {"L1": "C-01", "L2": "C-01"}, 10)
    _expect_fused(got, [("C-01", 2 / 11)], shown,
                  why="two display ids, one canonical cluster: both channels vote for C-01 at rank 1")


def test_task3_the_window_counts_clusters_not_listings():
    fn = function(load(LESSON), "fuse_by_cluster")
    hits = {"lexical": [("L1", 9.0), ("L2", 9.0), ("L3", 8.0), ("L4", 7.0)], "vector": [("L4", 0.99), ("L3", 0.9)]}
    clusters = {"L1": "C-01", "L2": "C-01", "L3": "C-03", "L4": "C-04"}
    got, shown = _fuse(fn, hits, clusters, depth=2)
    _expect_fused(got, [("C-03", 1 / 62 + 1 / 62), ("C-01", 1 / 61), ("C-04", 1 / 61)], shown,
                  why="with depth 2 the lexical channel votes for C-01 and C-03 (L2 is C-01's copy and takes no "
                      "place in the window); the vector channel for C-04 and C-03")
    got, shown = _fuse(fn, hits, clusters, depth=1)
    _expect_fused(got, [("C-01", 1 / 61), ("C-04", 1 / 61)], shown, why="depth 1: each channel's first cluster only")
    got, shown = _fuse(fn, hits, clusters, depth=50)
    _expect_fused(got, [("C-04", 1 / 63 + 1 / 61), ("C-03", 1 / 62 + 1 / 62), ("C-01", 1 / 61)], shown,
                  why="a window deeper than the channel keeps everything")
    expect_call(fn, hits, clusters, 0, 60, raises=ValueError, why="a window of 0 clusters fuses nothing: an error")


def test_task3_matches_the_lesson():
    fn = function(load(LESSON), "fuse_by_cluster")
    for query in QUERIES[:3]:
        run, hits = _gated(query)
        clusters = {x.id: x.cluster_id for x in run.output("source").records if x.id in run.output("gate").passed}
        got, shown = call_shown(fn, Shown(f"<the channel hits of {query.id} after the gate>", hits),
                                Shown("<clusters>", clusters), Shown("depth=20", 20), 60)
        _expect_fused(got, [(f.cluster_id, f.ordering_score) for f in run.output("fusion").candidates], shown,
                      why="the lesson's fused table for this query")


# ---------------------------------------------------------------- Task 4

_RAW_SCORES_WRONG = {
    "a": "both growing with the match says nothing about their sizes: a lexical 9 against a cosine of at most 1 "
         "lets the lexical order decide",
    "b": "a rank-fused ordering_score is not a probability either; the defect is the unrelated scales",
    "d": "a negative number still adds: the sum is defined, just meaningless, because the scales are unrelated",
}


def test_task4_raw_scores_quiz():
    answer = constant(load(LESSON), "RAW_SCORES_QUIZ")
    expect_true(answer in ("a", "b", "c", "d"), f"RAW_SCORES_QUIZ is {answer!r}; set it to one letter: 'a', 'b', "
                                                 f"'c' or 'd'")
    expect_true(answer == "c", f"RAW_SCORES_QUIZ = {answer!r} is not the best answer: {_RAW_SCORES_WRONG.get(answer, '')}."
                               f" Look again at the lesson's table where only the cosine's scale changes, then try "
                               f"again (hint: python3 -B methods.py hint {LESSON} 4)")


# ---------------------------------------------------------------- Task 5 (appended: query design)

def _search_table(table: dict):
    """search(terms) over a small table {listing id: its words}: ids whose words share a term, by id."""
    def search(terms):
        return [i for i, words in sorted(table.items()) if set(terms) & set(words)]
    return search


TABLE = {"L1": ("nitrile", "lip", "seal"), "L2": ("ring", "nitrile"), "L3": ("mechanical", "seal"),
         "L4": ("nbr", "gasket")}


_ALIAS_KEYS = ("original", "terms", "step", "gained", "lost")


def _expect_alias(fn, *args, want: dict, why: str) -> None:
    """The dict the docstring describes; each of its five values may be a list or a tuple (the
    course's container rule), so both sides are compared as tuples."""
    got, shown = call_shown(fn, *args)
    expect_true(isinstance(got, dict) and sorted(got) == sorted(_ALIAS_KEYS),
                f"called {shown}\n  got: {got!r}\n  expected a dict with the keys {', '.join(_ALIAS_KEYS)}")
    for key in _ALIAS_KEYS:
        expect_true(isinstance(got[key], (list, tuple)),
                    f"called {shown}\n  [{key!r}] is a {type(got[key]).__name__}: {got[key]!r}\n  expected a list "
                    f"or a tuple (either is accepted)")
    expect({key: tuple(got[key]) for key in _ALIAS_KEYS}, {key: tuple(want[key]) for key in _ALIAS_KEYS}, shown,
           why=why)


def test_task5_step_keeps_the_original():
    fn = function(load(LESSON), "alias_effect")
    _expect_alias(fn, ("nbr", "oring"), {"nbr": "nitrile", "oring": "ring"}, "aliases/1",
                      Shown("search", _search_table(TABLE)),
                      want={"original": ("nbr", "oring"), "terms": ("nitrile", "ring"),
                            "step": ("aliases", "aliases/1", "nbr oring", "nbr -> nitrile, oring -> ring"),
                            "gained": ["L1", "L2"], "lost": ["L4"]},
                      why="both words aliased; the step names the table's version and keeps the words as typed; "
                          "L4 matched the raw word 'nbr' and is lost, L1 and L2 are gained")
    _expect_alias(fn, ("oring", "nbr"), {"nbr": "nitrile", "oring": "ring"}, "aliases/1",
                  Shown("search", _search_table(TABLE)),
                  want={"original": ("oring", "nbr"), "terms": ("nitrile", "ring"),
                        "step": ("aliases", "aliases/1", "oring nbr", "oring -> ring, nbr -> nitrile"),
                        "gained": ["L1", "L2"], "lost": ["L4"]},
                  why="the step lists its pairs in the order the shopper typed the words, not in the alias "
                      "table's order")


def test_task5_no_alias_and_repeats():
    fn = function(load(LESSON), "alias_effect")
    search = Shown("search", _search_table(TABLE))
    _expect_alias(fn, ("seal", "mechanical"), {"nbr": "nitrile"}, "aliases/2", search,
                want={"original": ("seal", "mechanical"), "terms": ("mechanical", "seal"),
                      "step": ("aliases", "aliases/2", "seal mechanical", "(no alias)"), "gained": [], "lost": []},
                why="no word is an alias: the step says so, and nothing is gained or lost")
    _expect_alias(fn, ["oring", "ring", "orings"], {"oring": "ring"}, "aliases/1", search,
                want={"original": ("oring", "ring", "orings"), "terms": ("orings", "ring"),
                      "step": ("aliases", "aliases/1", "oring ring orings", "oring -> ring"),
                      "gained": [], "lost": []},
                why="'orings' is not the key 'oring' (whole words only); 'ring' appears once in the new terms, "
                    "and it was already searched, so nothing is gained")


def test_task5_the_lessons_alias_query():
    from modules.catalogue import LISTINGS
    from modules.hybrid import QueryContract, lexical_channel, parse_query
    from modules.hybrid import query_design as qd
    fn = function(load(LESSON), "alias_effect")
    query = qd.design_query_by_id("PW-Q010")
    c = parse_query(query)

    def search(terms):
        contract = QueryContract(c.query_id, c.original, tuple(terms), c.family, c.diameter, c.state, c.reason,
                                 c.transformations, c.vector, c.vector_version)
        return lexical_channel(contract, LISTINGS).ranking

    lesson = qd.with_aliases(query)
    step = lesson.transformations[-1]
    gained = sorted(set(search(lesson.terms)) - set(search(c.terms)))
    _expect_alias(fn, c.terms, Shown("ALIASES", qd.ALIASES), qd.ALIAS_VERSION,
                Shown("<the lexical channel over the catalogue>", search),
                want={"original": c.terms, "terms": lesson.terms,
                      "step": (step.name, step.version, step.input, step.output), "gained": gained, "lost": []},
                why=f"the lesson's {query.id}: the alias recovers listings the raw words miss")


# ---------------------------------------------------------------- Task 6

def test_task6_predict_pw_q002_first_cluster():
    from modules.catalogue import query_by_id
    answer = constant(load(LESSON), "PW_Q002_FIRST_CLUSTER")
    first = retrieve(query_by_id("PW-Q002")).output("fusion").candidates[0]
    want = (first.cluster_id, tuple(rank for _channel, rank in first.channel_ranks))
    shape = (isinstance(answer, (tuple, list)) and len(answer) == 2 and isinstance(answer[0], str)
             and isinstance(answer[1], (tuple, list)) and len(answer[1]) == 3
             and all(isinstance(r, int) and not isinstance(r, bool) for r in answer[1]))
    expect_true(shape, f"PW_Q002_FIRST_CLUSTER is {answer!r}; set it to (cluster id, (lexical rank, structured "
                       f"rank, vector rank)), for example ('C-02', (2, 2, 3))")
    cluster, ranks = answer[0], tuple(answer[1])
    why = []
    if cluster != want[0]:
        why.append("the cluster: which cluster do PW-L001 and its copy PW-L002 share, and which one is first in "
                   "two channels?")
    if ranks[2] == 3:
        why.append("the vector rank: the gate withheld ref-d6dacd426e3c before fusion, so do the ranks behind it close up?")
    elif ranks != want[1]:
        why.append("the ranks: a cluster counts once per channel, at its best-ranked member")
    expect_true(not why, f"PW_Q002_FIRST_CLUSTER = {answer!r} is not what the lesson's fusion computes; look again "
                         f"at " + " and at ".join(why) + f" (the last hint shows how to check it: python3 -B "
                         f"methods.py hint {LESSON} 6)")
