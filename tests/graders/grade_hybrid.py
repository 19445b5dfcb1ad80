"""Grader for lesson 07, hybrid. Run: python3 -B methods.py check hybrid"""

from labtools.grading.harness import manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load, Shown
from modules.catalogue import QUERIES
from modules.hybrid import parse_diameter, retrieve

LESSON = "hybrid"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


def _expect_fused(got, want, shown: str, why: str = "") -> None:
    """Same ids in the same order, scores equal to 12 decimal places (float sums may differ in the last bit)."""
    ok = isinstance(got, list) and len(got) == len(want) and all(
        isinstance(pair, tuple) and len(pair) == 2 and pair[0] == w[0] and isinstance(pair[1], float)
        and abs(pair[1] - w[1]) < 1e-12 for pair, w in zip(got, want))
    if not ok:
        detail = f"\n  why: {why}" if why else ""
        expect_true(False, f"called {shown}\n  got:      {got!r}\n  expected: {want!r}\n"
                           f"  (a list of (id, float) tuples, best first){detail}")


# ---------------------------------------------------------------- Task 1

def test_task1_explicit_millimetres():
    fn = function(load(LESSON), "parse_size")
    for text in ("mechanical seal 16 mm", "16mm seal", "Seal 16 MM", "seal for a 16 millimetres shaft"):
        expect_call(fn, text, want=("ready", "16"),
                    why="one number with a written unit: 16 millimetres, as exact text '16'")


def test_task1_bare_number_is_never_assumed():
    fn = function(load(LESSON), "parse_size")
    for text in ("pump seal 16", "16", "seal 16, carbon", "seal 0.625in"):
        expect_call(fn, text, want=("clarify", None),
                    why="no known unit was written: ask (state 'clarify'); assuming millimetres would invent the "
                        "customer's intent ('in' is not one of UNIT_WORDS)")


def test_task1_inches_converted_exactly():
    fn = function(load(LESSON), "parse_size")
    for text, want in (("lip seal 0.625 inch", "15.875"), ("2 inches", "50.8"), ("shaft 1inch", "25.4")):
        expect_call(fn, text, want=("ready", want),
                    why="convert with to_mm(number, 'inch'): exact decimal text, 1 inch = 25.4 mm")


def test_task1_no_size_or_two_sizes():
    fn = function(load(LESSON), "parse_size")
    expect_call(fn, "mechanical seal", want=("ready", None),
                why="no number: nothing to resolve, and nothing to ask")
    for text in ("seal 16 mm or 18 mm", "16 mm seal for an 18 mm shaft", "seal 16 18"):
        expect_call(fn, text, want=("failed", None),
                    why="more than one number: picking one would guess which size is meant")


def test_task1_a_number_has_digits_on_both_sides_of_its_point():
    fn = function(load(LESSON), "parse_size")
    for text, why in (
        ("firmware 1.2.3, seal 16 mm", "'1.2.3' has two points, so it is not a number (a version, not a size): "
                                       "the one size is 16 mm"),
        ("seal 16 mm, wall .5 inch", "'.5' has no digit before its point, so by the task's rule it is not a "
                                     "number: the one size is 16 mm"),
    ):
        expect_call(fn, text, want=("ready", "16"), why=why)


def test_task1_a_full_stop_ends_the_sentence_not_the_number():
    fn = function(load(LESSON), "parse_size")
    for text, want, why in (
        ("I need a 16 mm.", ("ready", "16"), "the full stop ends the sentence; 'mm' is still the unit"),
        ("Do you stock seal 16?", ("clarify", None), "'16?' is the bare number 16: ask for its unit"),
        ("seal 16.", ("clarify", None), "'16.' is the number 16 at the end of a sentence, with no unit: ask, "
                                        "never drop a size the customer wrote"),
        ("seal 16.mm", ("clarify", None), "'16.mm' is 16 with '.mm' glued on, which is not a unit word: the "
                                          "number stays, without a unit, so ask"),
        ("step 2. fit a 16 mm seal", ("failed", None), "'2.' is the number 2 before a full stop, so the text "
                                                       "holds two numbers: which one is the size?"),
    ):
        expect_call(fn, text, want=want, why=why)


def test_task1_agrees_with_the_lesson_queries():
    fn = function(load(LESSON), "parse_size")
    for query in QUERIES:
        state, diameter, _reason = parse_diameter(query.text)
        want = (state, diameter.value_mm if diameter else None)
        got, shown = call_shown(fn, query.text)
        expect(got, want, f"{shown}  # {query.id}", why="the lesson's query contract reads this query that way")


# ---------------------------------------------------------------- Task 2

def _rrf(fn, rankings, k=None):
    # k is passed by position and shown by name.
    return call_shown(fn, rankings) if k is None else call_shown(fn, rankings, Shown(f"k={k}", k))


def test_task2_ranks_start_at_one():
    fn = function(load(LESSON), "reciprocal_rank_fusion")
    got, shown = _rrf(fn, [["a"]])
    _expect_fused(got, [("a", 1 / 61)], shown, why="the first place has rank 1, so it earns 1 / (60 + 1), not 1 / 60")
    got, shown = _rrf(fn, [["a", "b", "c"]], 1)
    _expect_fused(got, [("a", 1 / 2), ("b", 1 / 3), ("c", 1 / 4)], shown, why="with k = 1: 1/(1+1), 1/(1+2), 1/(1+3)")


def test_task2_items_in_one_list_are_still_fused():
    fn = function(load(LESSON), "reciprocal_rank_fusion")
    got, shown = _rrf(fn, [["a", "b", "c"], ["c", "d"]])
    _expect_fused(got, [("c", 1 / 63 + 1 / 61), ("a", 1 / 61), ("b", 1 / 62), ("d", 1 / 62)], shown,
                  why="c is in both rankings; a, b and d are each in one ranking and keep what it gives them")
    got, shown = _rrf(fn, [["x"], []])
    _expect_fused(got, [("x", 1 / 61)], shown, why="an empty ranking contributes nothing and removes nothing")


def test_task2_order_and_ties():
    fn = function(load(LESSON), "reciprocal_rank_fusion")
    got, shown = _rrf(fn, [["b", "a"], ["a", "b"]])
    _expect_fused(got, [("a", 1 / 61 + 1 / 62), ("b", 1 / 61 + 1 / 62)], shown,
                  why="equal totals are ordered by id, whatever order they were met in")
    got, shown = _rrf(fn, [["z", "y", "x"], ["y"]])
    _expect_fused(got, [("y", 1 / 62 + 1 / 61), ("z", 1 / 61), ("x", 1 / 63)], shown, why="highest total first")
    got, shown = _rrf(fn, [])
    _expect_fused(got, [], shown, why="no rankings, nothing to fuse")


def test_task2_k_is_used():
    fn = function(load(LESSON), "reciprocal_rank_fusion")
    got, shown = _rrf(fn, [["a", "b"], ["b"]], 10)
    _expect_fused(got, [("b", 1 / 12 + 1 / 11), ("a", 1 / 11)], shown, why="use the k you are given")
    expect_call(fn, [["a"]], 0, raises=ValueError, why="k must be at least 1")


def test_task2_a_set_is_not_a_ranking():
    fn = function(load(LESSON), "reciprocal_rank_fusion")
    expect_call(fn, [["a", "b"], {"b", "c"}], 60, raises=TypeError,
                why="a set has no order of its own: which of b and c is its rank 1 would depend on the hash seed")
    expect_call(fn, [frozenset({"a"})], 60, raises=TypeError, why="a frozenset is a set too")
    got, shown = _rrf(fn, [("b", "a"), ["a"]])
    _expect_fused(got, [("a", 1 / 62 + 1 / 61), ("b", 1 / 61)], shown, why="a tuple has an order: it is a ranking")


def _gated(query):
    """A query's channel hits after the lesson's gate: only what may be ranked (withheld ids never appear)."""
    run = retrieve(query)
    passed = set(run.output("gate").passed)
    return run, {c.channel: [(h.listing_id, h.score) for h in c.hits if h.listing_id in passed]
                 for c in run.of_kind("channel")}


def test_task2_matches_the_lesson():
    fn = function(load(LESSON), "reciprocal_rank_fusion")
    _run, hits = _gated(QUERIES[0])
    rankings = [[listing_id for listing_id, _ in channel] for channel in hits.values()]
    from modules.hybrid import reciprocal_rank_fusion as reference
    got, shown = call_shown(fn, Shown("<PW-Q001's three channel rankings after the gate>", rankings), 60)
    _expect_fused(got, reference(rankings, 60), shown)


# ---------------------------------------------------------------- Task 3

def _fuse(fn, hits, clusters, k=60):
    return call_shown(fn, hits, clusters, k)


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


def test_task3_matches_the_lesson():
    fn = function(load(LESSON), "fuse_by_cluster")
    for query in QUERIES[:3]:
        run, hits = _gated(query)
        clusters = {x.id: x.cluster_id for x in run.output("source").records if x.id in run.output("gate").passed}
        got, shown = call_shown(fn, Shown(f"<the channel hits of {query.id} after the gate>", hits),
                                Shown("<clusters>", clusters), 60)
        _expect_fused(got, [(f.cluster_id, f.ordering_score) for f in run.output("fusion").candidates], shown,
                      why="the lesson's fused table for this query")


# ---------------------------------------------------------------- Task 4

def test_task4_raw_scores_quiz():
    expect_choice(LESSON, "RAW_SCORES_QUIZ", "c", 4, "Look again at the lesson's table where only the cosine's scale changes")


# ---------------------------------------------------------------- Task 5 (appended: query design)

def _search_table(table: dict):
    """search(terms) over a small table {listing id: its words}: ids whose words share a term, by id."""
    def search(terms):
        return [i for i, words in sorted(table.items()) if set(terms) & set(words)]
    return search


TABLE = {"L1": ("nitrile", "lip", "seal"), "L2": ("ring", "nitrile"), "L3": ("mechanical", "seal"),
         "L4": ("nbr", "gasket")}


def test_task5_step_keeps_the_original():
    fn = function(load(LESSON), "alias_effect")
    expect_call(fn, ("nbr", "oring"), {"nbr": "nitrile", "oring": "ring"}, "aliases/1",
                      Shown("search", _search_table(TABLE)),
                      want={"original": ("nbr", "oring"), "terms": ("nitrile", "ring"),
                            "step": ("aliases", "aliases/1", "nbr oring", "nbr -> nitrile, oring -> ring"),
                            "gained": ["L1", "L2"], "lost": ["L4"]},
                      why="both words aliased; the step names the table's version and keeps the words as typed; "
                          "L4 matched the raw word 'nbr' and is lost, L1 and L2 are gained")


def test_task5_no_alias_and_repeats():
    fn = function(load(LESSON), "alias_effect")
    search = Shown("search", _search_table(TABLE))
    expect_call(fn, ("seal", "mechanical"), {"nbr": "nitrile"}, "aliases/2", search,
                want={"original": ("seal", "mechanical"), "terms": ("mechanical", "seal"),
                      "step": ("aliases", "aliases/2", "seal mechanical", "(no alias)"), "gained": [], "lost": []},
                why="no word is an alias: the step says so, and nothing is gained or lost")
    expect_call(fn, ["oring", "ring", "orings"], {"oring": "ring"}, "aliases/1", search,
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
    expect_call(fn, c.terms, Shown("ALIASES", qd.ALIASES), qd.ALIAS_VERSION,
                Shown("<the lexical channel over the catalogue>", search),
                want={"original": c.terms, "terms": lesson.terms,
                      "step": (step.name, step.version, step.input, step.output), "gained": gained, "lost": []},
                why=f"the lesson's {query.id}: the alias recovers listings the raw words miss")
