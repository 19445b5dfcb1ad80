"""Grader for lesson 12, channels. Run: python3 -B methods.py check channels"""

import math

from labtools.grading.harness import (manifest_tasks, call, constant, expect, expect_error, expect_true, function, LabFailure, load,
                  redacting)
from modules.catalogue.fixture import RESTRICTED_IDS, opaque_ref, withheld_replacements

LESSON = "channels"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

# Grading messages never name a withheld listing: its id becomes its ref, its text a placeholder.
_safe = redacting(withheld_replacements())


def _name(listing_id: str) -> str:
    # What the learner's function is given: a withheld listing only ever as its opaque ref.
    return opaque_ref(listing_id) if listing_id in RESTRICTED_IDS else listing_id


def _close(got, want: float, shown: str, why: str = "") -> None:
    ok = isinstance(got, (int, float)) and not isinstance(got, bool) and math.isfinite(got) and abs(got - want) < 1e-9
    if not ok:
        detail = f"\n  why: {why}" if why else ""
        raise LabFailure(f"called {shown}\n  got:      {got!r}\n  expected: {want!r}{detail}")


# ---------------------------------------------------------------- Task 1

def _two(fn, approximate, exact, grades, k, want, why):
    shown = f"two_evaluations({approximate!r}, {exact!r}, {grades!r}, {k})"
    got = call(fn, approximate, exact, grades, k, shown=shown)
    expect_true(isinstance(got, tuple) and len(got) == 2,
                f"called {shown}\n  got:      {got!r}\n  expected: a tuple (index_recall, exact_precision)")
    _close(got[0], want[0], shown + "  # index_recall", why)
    _close(got[1], want[1], shown + "  # exact_precision", why)


@_safe
def test_task1_matches_the_lesson():
    from modules.channels import IMAGE_INDEX, IMAGE_TOP_K, probe
    from modules.channels.metrics import RELEVANCE, precision_at_k
    from modules.catalogue.images import query_image
    fn = function(load(LESSON), "two_evaluations")
    for query_id in ("CH-Q001", "CH-Q002", "CH-Q003", "CH-Q005"):
        for nprobe in (1, 2):
            p = probe(IMAGE_INDEX, query_id, query_image(query_id), IMAGE_TOP_K, nprobe)
            grades = {_name(i): g for i, g in RELEVANCE[query_id].items()}
            want = (float(p.recall), precision_at_k(p.exact, RELEVANCE[query_id], IMAGE_TOP_K))
            _two(fn, _names(p.approximate), _names(p.exact), grades, IMAGE_TOP_K, want,
                 f"the lesson's {query_id} at nprobe {nprobe}")


def test_task1_recall_is_against_the_exact_search_not_the_labels():
    fn = function(load(LESSON), "two_evaluations")
    _two(fn, ["a", "x", "y"], ["a", "b", "c"], {"x": 2, "y": 2}, 3, (1 / 3, 0.0),
         "the index found one of the exact top 3 (a); the labels like x and y, which exact search does not rank, "
         "so they say nothing about the index, and none of the exact top 3 is relevant")
    _two(fn, ["c", "b", "a"], ["a", "b", "c"], {"a": 1, "c": 1}, 3, (1.0, 2 / 3),
         "the same three ids in another order: recall is about membership; two of the exact three are relevant")


def test_task1_cutoff_and_short_answers():
    fn = function(load(LESSON), "two_evaluations")
    _two(fn, ["x", "y", "a", "b"], ["a", "b", "c", "d"], {"c": 1}, 2, (0.0, 0.0),
         "only the first k = 2 of each list count: the index's top 2 holds neither a nor b, and neither a nor b "
         "is relevant")
    _two(fn, ["a"], ["a", "b", "c"], {"a": 1, "b": 1}, 3, (1 / 3, 2 / 3),
         "an index can return fewer than k ids (a small inverted list): the denominator is the exact top k")
    _two(fn, ["a", "b"], ["a"], {"a": 3}, 5, (1.0, 1.0), "fewer than k exact neighbours: divide by how many there are")
    _two(fn, ["b", "a"], ["a", "b"], {"a": 1}, 1, (0.0, 1.0), "k = 1: only the first of each list counts")


def test_task1_bad_input():
    fn = function(load(LESSON), "two_evaluations")
    expect_error(ValueError, fn, ["a"], ["a"], {}, 0, shown="two_evaluations(['a'], ['a'], {}, 0)",
                 why="k must be at least 1")
    expect_error(ValueError, fn, ["a"], [], {}, 3, shown="two_evaluations(['a'], [], {}, 3)",
                 why="there is no exact reference to measure against")
    expect_error(ValueError, fn, ["a", "b"], ["a", "b"], {}, -1, shown="two_evaluations(['a', 'b'], ['a', 'b'], {}, -1)",
                 why="k must be at least 1")


def _names(ids) -> list:
    return [_name(i) for i in ids]


# ---------------------------------------------------------------- Task 2

FAILURES = ("unit_not_kept", "lexical_timeout", "vector_unavailable", "permission_missing", "source_stale",
            "all_conflict", "ranker_failed", "packet_over_limit", "generator_failed", "no_eligible_evidence")


def _reference(failures, state):
    """One failure at a time through the lesson's own fallback, combined as the docstring says."""
    from modules.catalogue.policy import STATES
    from modules.channels.failures import VISIBLE, fallback
    keys, states = set(), [state]
    for failure in failures:
        after, visible = fallback(failure, state)
        states.append(after)
        keys.update(visible)
    return min(states, key=STATES.index), tuple(k for k in VISIBLE if k in keys)


def _shown_sorted(value) -> str:
    """A learner's value as the message shows it: a set (or a set inside a pair) sorted, so the message
    reads the same under every hash seed."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(sorted(repr(v) for v in value)) + "}"
    if isinstance(value, (tuple, list)):
        return "(" * isinstance(value, tuple) + "[" * isinstance(value, list) + ", ".join(
            _shown_sorted(v) for v in value) + ("," if isinstance(value, tuple) and len(value) == 1 else "") + (
            ")" if isinstance(value, tuple) else "]")
    return repr(value)


def _combined(fn, failures, state, want, why):
    shown = f"combined_fallback({failures!r}, {state!r})"
    got = call(fn, failures, state, shown=shown)
    expect_true(isinstance(got, (tuple, list)) and len(got) == 2 and isinstance(got[1], (tuple, list)),
                f"called {shown}\n  got:      {_shown_sorted(got)}\n  expected: a pair (state, visible keys as a "
                f"list or tuple)")
    expect((got[0], tuple(got[1])), want, shown, why=why)


def test_task2_one_failure_is_the_lessons_fallback():
    fn = function(load(LESSON), "combined_fallback")
    for failure in FAILURES:
        for state in ("respond", "clarify"):
            _combined(fn, (failure,), state, _reference((failure,), state),
                      "one failure: its own state or the stronger state before it, and its visible keys in order")
    _combined(fn, (), "degraded", ("degraded", ()), "no failure: the state stays and nothing extra is shown")


def test_task2_two_failures_take_the_strongest_state():
    fn = function(load(LESSON), "combined_fallback")
    _combined(fn, ("lexical_timeout", "permission_missing"), "respond",
              ("unauthorized", ("degraded_channel", "coverage_limit", "reason_codes")),
              "unauthorized beats degraded: unknown permission fails closed whatever else went wrong")
    _combined(fn, ["permission_missing", "lexical_timeout"], "respond",
              ("unauthorized", ("degraded_channel", "coverage_limit", "reason_codes")),
              "the order the failures are listed in changes nothing: the keys follow VISIBLE_KEYS")
    _combined(fn, ("ranker_failed", "all_conflict"), "respond", ("conflict", ("conflicting_fields", "order_unavailable")),
              "conflict beats degraded")
    _combined(fn, ("generator_failed", "source_stale"), "clarify", ("clarify", ("source_age", "state", "packet_fields")),
              "clarify was already stronger than degraded; generator_failed keeps it")
    _combined(fn, ("unit_not_kept", "permission_missing"), "prohibited_scope",
              ("prohibited_scope", ("original_value", "missing_meaning", "reason_codes")),
              "prohibited scope is the strongest state of all")


def test_task2_a_shared_key_is_shown_once():
    fn = function(load(LESSON), "combined_fallback")
    _combined(fn, ("vector_unavailable", "lexical_timeout"), "respond",
              ("degraded", ("degraded_channel", "coverage_limit", "multimodal_unavailable")),
              "both keep the degraded channel visible: one key, once, naming both channels")
    for first in FAILURES:
        for second in FAILURES:
            if first < second:
                _combined(fn, (first, second), "respond", _reference((first, second), "respond"),
                          f"{first} and {second} together")


def test_task2_bad_input():
    fn = function(load(LESSON), "combined_fallback")
    expect_error(ValueError, fn, ("cosmic_rays",), "respond", shown="combined_fallback(('cosmic_rays',), 'respond')",
                 why="an unknown failure has no declared fallback")
    expect_error(ValueError, fn, ("lexical_timeout", "lexical_timeout"), "respond",
                 shown="combined_fallback(('lexical_timeout', 'lexical_timeout'), 'respond')",
                 why="a failure named twice is a mistake upstream: refuse it")
    expect_error(ValueError, fn, ("generator_failed",), "fine", shown="combined_fallback(('generator_failed',), 'fine')",
                 why="'fine' is not one of STATES")
    expect_error(ValueError, fn, (), "fine", shown="combined_fallback((), 'fine')",
                 why="'fine' is not one of STATES, failures or not")


@_safe
def test_task2_matches_the_lessons_pipeline_one_failure_at_a_time():
    from modules.channels import CHANNELS, run_channels
    from modules.channels.failures import failing
    from modules.catalogue import query_by_id
    fn = function(load(LESSON), "combined_fallback")
    for failure in FAILURES:
        run = run_channels(query_by_id("PW-Q002"), pipeline=failing(CHANNELS, failure), latency_ms={"lexical": 1500})
        record = run.output("fallback")
        want = (record.state, tuple(key for key, _shown in record.visible))
        _combined(fn, (failure,), record.state_before, want,
                  f"the lesson's pipeline with {failure} simulated on PW-Q002 decided {record.state_before!r} "
                  f"and its fallback stage recorded {record.state!r}")


# ---------------------------------------------------------------- Task 3

def _mrr(fn, rankings, grades, k, want, why):
    shown = f"mean_reciprocal_rank({rankings!r}, {grades!r}, {k})"
    _close(call(fn, rankings, grades, k, shown=shown), want, shown, why)


def test_task3_ranks_count_from_one():
    fn = function(load(LESSON), "mean_reciprocal_rank")
    _mrr(fn, {"q": ["a", "b"]}, {"q": {"a": 1}}, 3, 1.0, "a relevant first place has rank 1: 1 / 1")
    _mrr(fn, {"q": ["x", "a"]}, {"q": {"a": 1}}, 3, 0.5, "the second place has rank 2: 1 / 2")
    _mrr(fn, {"q": ["x", "y", "a"]}, {"q": {"a": 2}}, 3, 1 / 3, "the third place has rank 3")


def test_task3_only_the_first_relevant_counts():
    fn = function(load(LESSON), "mean_reciprocal_rank")
    _mrr(fn, {"q": ["x", "a", "b"]}, {"q": {"a": 1, "b": 2}}, 3, 0.5,
         "the reciprocal rank is that of the first relevant listing only")
    _mrr(fn, {"q": ["x", "a"]}, {"q": {"x": 0, "a": 1}}, 3, 0.5, "grade 0 is labelled, but not relevant")


def test_task3_cutoff_and_mean():
    fn = function(load(LESSON), "mean_reciprocal_rank")
    _mrr(fn, {"q": ["w", "x", "y", "a"]}, {"q": {"a": 1}}, 3, 0.0, "rank 4 is beyond the cutoff k = 3")
    _mrr(fn, {"q": ["w", "x", "y", "a"]}, {"q": {"a": 1}}, 4, 0.25, "with k = 4 it counts: 1 / 4")
    _mrr(fn, {"q1": ["a"], "q2": ["x", "b"], "q3": ["z"]}, {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {}}, 3, 0.5,
         "the mean over all three queries: (1 + 1/2 + 0) / 3")
    _mrr(fn, {"q1": ["a"], "q2": ["b"]}, {"q1": {"a": 1}}, 3, 0.5, "a query without labels scores 0 and still counts")
    _mrr(fn, {}, {}, 3, 0.0, "no queries: 0.0")
    _mrr(fn, {"q1": ["a"], "q2": ["x", "b"]}, {"q1": {"a": 1}, "q2": {"b": 1}}, 1, 0.5,
         "k = 1: only first places count, so q2's b is beyond the cutoff")
    expect_error(ValueError, fn, {"q": ["a"]}, {"q": {"a": 1}}, 0, shown="mean_reciprocal_rank(..., 0)",
                 why="k must be at least 1")


@_safe
def test_task3_matches_the_lesson():
    from modules.channels.metrics import RELEVANCE, SEGMENTS, reciprocal_rank
    fn = function(load(LESSON), "mean_reciprocal_rank")
    for segment, rankings in _segment_rankings().items():
        grades = {q: {_name(i): g for i, g in RELEVANCE[q].items()} for q in rankings}
        want = sum(reciprocal_rank(r, RELEVANCE[q], 3) for q, r in _raw_rankings(SEGMENTS[segment]).items()) / len(rankings)
        _mrr(fn, rankings, grades, 3, want, f"the lesson's MRR@3 of the {segment!r} segment")


def _raw_rankings(query_ids) -> dict:
    from modules.channels import run_channels
    from modules.channels.metrics import RELEVANCE
    from modules.catalogue import QUERIES
    from modules.catalogue.images import IMAGE_QUERIES
    by_id = {q.id: q for q in QUERIES + IMAGE_QUERIES}
    out = {}
    for query_id in query_ids:
        if query_id in RELEVANCE:
            fusion = run_channels(by_id[query_id]).output("fusion", None)
            out[query_id] = [f.listing_id for f in fusion.candidates] if fusion else []
    return out


def _segment_rankings() -> dict:
    from modules.channels.metrics import SEGMENTS
    return {segment: {q: _names(r) for q, r in _raw_rankings(ids).items()} for segment, ids in SEGMENTS.items()}


# ---------------------------------------------------------------- Task 4

def _gain(grade) -> float:
    return 2 ** grade - 1


def _exp_ndcg(ranking, grades, k) -> float:
    def dcg(ids):
        return sum(_gain(grades.get(i, 0)) / math.log2(rank + 1) for rank, i in enumerate(ids[:k], start=1))
    ideal = dcg(sorted(grades, key=lambda i: grades[i], reverse=True))
    return dcg(list(ranking)) / ideal if ideal else 0.0


def _ndcg(fn, ranking, grades, k, want, why):
    shown = f"ndcg_exponential({ranking!r}, {grades!r}, {k})"
    _close(call(fn, ranking, grades, k, shown=shown), want, shown, why)


def test_task4_divided_by_the_ideal():
    fn = function(load(LESSON), "ndcg_exponential")
    _ndcg(fn, ["a", "b"], {"a": 2, "b": 1}, 2, 1.0, "the best possible order scores exactly 1")
    _ndcg(fn, ["x", "y"], {"a": 1}, 2, 0.0, "nothing relevant retrieved: 0")
    _ndcg(fn, ["x"], {}, 3, 0.0, "nothing relevant at all: the ideal is 0, return 0.0")


def test_task4_exponential_gains_where_the_lessons_linear_ones_differ():
    fn = function(load(LESSON), "ndcg_exponential")
    _ndcg(fn, ["b", "a"], {"a": 2, "b": 1}, 2, (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)),
          "gains 2**1 - 1 = 1 and 2**2 - 1 = 3: DCG (1/log2(2) + 3/log2(3)) over the ideal (3/log2(2) + 1/log2(3)); "
          "the lesson's linear gains would give about 0.860 here")
    _ndcg(fn, ["x", "a", "b"], {"a": 3, "b": 1}, 3, (7 / math.log2(3) + 1 / math.log2(4)) / (7 + 1 / math.log2(3)),
          "a grade 3 gains 2**3 - 1 = 7, discounted by log2(rank + 1)")
    _ndcg(fn, ["b", "a"], {"a": 1, "b": 1}, 2, 1.0,
          "with grades 0 and 1 only, exponential and linear gains agree: 2**1 - 1 = 1")


def test_task4_the_ideal_counts_what_was_not_retrieved():
    fn = function(load(LESSON), "ndcg_exponential")
    _ndcg(fn, ["a"], {"a": 1, "b": 2}, 2, 1 / (3 + 1 / math.log2(3)),
          "b was never retrieved, yet the best ranking would put it first: the ideal uses every label")
    _ndcg(fn, ["a", "b"], {"a": 3, "b": 3, "c": 3}, 2, 1.0,
          "the ideal is cut at k too: two grade-3 listings in the first two places are the best possible")
    _ndcg(fn, ["x", "y", "z", "a"], {"a": 1}, 4, 1 / math.log2(5), "rank 4: 1 / log2(5)")
    _ndcg(fn, ["x", "y", "z", "a"], {"a": 1}, 3, 0.0, "rank 4 is beyond the cutoff k = 3")
    _ndcg(fn, ["b", "a"], {"a": 2, "b": 1}, 1, 1 / 3, "k = 1: gain 1 in first place against the ideal gain 3")
    expect_error(ValueError, fn, ["a"], {"a": 1}, 0, shown="ndcg_exponential(['a'], {'a': 1}, 0)",
                 why="k must be at least 1")


@_safe
def test_task4_on_the_lessons_rankings():
    from modules.channels.metrics import RELEVANCE
    fn = function(load(LESSON), "ndcg_exponential")
    for query_id, ranking in _raw_rankings(RELEVANCE).items():
        grades = {_name(i): g for i, g in RELEVANCE[query_id].items()}
        _ndcg(fn, _names(ranking), grades, 3, _exp_ndcg(ranking, RELEVANCE[query_id], 3),
              f"nDCG@3 with exponential gains of {query_id}'s fused ranking")


# ---------------------------------------------------------------- Task 5

def _compare(fn, before, after, want, why):
    shown = f"compare_removal({before!r}, {after!r})"
    got = call(fn, before, after, shown=shown)
    expect_true(isinstance(got, (list, tuple)) and all(isinstance(row, (list, tuple)) and len(row) == 5 and
                                                       isinstance(row[1], (list, tuple)) and
                                                       isinstance(row[2], (list, tuple)) for row in got),
                f"called {shown}\n  got:      {got!r}\n  expected: a list or a tuple of (query_id, gained, lost, "
                f"state_before, state_after), gained and lost lists or tuples")
    expect([(q, list(gained), list(lost), a, b) for q, gained, lost, a, b in got], want, shown, why=why)


def _runs(candidates_and_states: dict) -> dict:
    return {q: {"candidates": list(c), "state": s} for q, (c, s) in candidates_and_states.items()}


def test_task5_gained_and_lost():
    fn = function(load(LESSON), "compare_removal")
    _compare(fn, _runs({"q": (["a", "b"], "respond")}), _runs({"q": (["b", "c"], "respond")}),
             [("q", ["c"], ["a"], "respond", "respond")],
             "gained: only the run without the channel has c; lost: only the full run has a")
    _compare(fn, _runs({"q": (["d", "a"], "respond")}), _runs({"q": (["c", "b", "e"], "degraded")}),
             [("q", ["b", "c", "e"], ["a", "d"], "respond", "degraded")], "both lists sorted")


def test_task5_order_is_not_a_change_and_unchanged_queries_are_left_out():
    fn = function(load(LESSON), "compare_removal")
    _compare(fn, _runs({"q1": (["a", "b"], "respond"), "q2": (["c"], "clarify")}),
             _runs({"q1": (["b", "a"], "respond"), "q2": (["c"], "clarify")}), [],
             "the same candidates in another order, the same states: nothing changed")
    _compare(fn, _runs({"q1": (["a"], "respond"), "q2": (["b"], "respond"), "q3": (["c"], "respond")}),
             _runs({"q3": ([], "respond"), "q2": (["b"], "degraded"), "q1": (["a"], "respond")}),
             [("q2", [], [], "respond", "degraded"), ("q3", [], ["c"], "respond", "respond")],
             "a state-only change counts; the order is that of before; q1 did not change")


def test_task5_a_missing_query_is_refused():
    fn = function(load(LESSON), "compare_removal")
    expect_error(ValueError, fn, _runs({"q1": (["a"], "respond")}), {},
                 shown="compare_removal({'q1': {...}}, {})", why="after has no run for q1: nothing to compare")


@_safe
def test_task5_matches_the_lesson():
    from modules.channels import CHANNELS, REMOVALS, removal_effect, run_channels
    from modules.catalogue.images import IMAGE_QUERIES
    fn = function(load(LESSON), "compare_removal")

    def summary(run):
        fusion = run.output("fusion", None)
        return {"candidates": sorted(m for f in (fusion.candidates if fusion else ()) for m in f.members),
                "state": run.output("fallback").state}

    for name, stages in REMOVALS[:3]:
        before, after, want = {}, {}, []
        for query in IMAGE_QUERIES:
            full, less = run_channels(query), run_channels(query, pipeline=CHANNELS.without(*stages))
            before[query.id], after[query.id] = summary(full), summary(less)
            e = removal_effect(full, less)
            if e["gained"] or e["lost"] or e["state_before"] != e["state_after"]:
                want.append((query.id, e["gained"], e["lost"], e["state_before"], e["state_after"]))
        got = call(fn, before, after, shown=f"compare_removal(<the image queries with every channel>, "
                                            f"<the same without {name}>)")
        expect(got, want, f"compare_removal(<the image queries>, <without {name}>)",
               why=f"the lesson's measured removal of the {name} channel")


# ---------------------------------------------------------------- Task 6

QUIZ_MISCONCEPTIONS = {
    "a": "a cutoff is not the difference: both are measured on the same top 3",
    "c": "relevance must be checked at recall 1 too: CH-Q003's perfect recall returns no O-ring",
    "d": "they are not one evaluation: recall compares the index with exact search, relevance compares exact "
         "search with the labels",
}


def test_task6_two_evaluations_quiz():
    answer = constant(load(LESSON), "TWO_EVALUATIONS_QUIZ")
    expect_true(answer in ("a", "b", "c", "d"),
                f"TWO_EVALUATIONS_QUIZ is {answer!r}; set it to one letter: 'a', 'b', 'c' or 'd'")
    expect_true(answer == "b", f"TWO_EVALUATIONS_QUIZ = {answer!r}: {QUIZ_MISCONCEPTIONS.get(answer, '')}. Look "
                               f"again at the lesson's two tables on the image index and at the two misses at "
                               f"nprobe 1 (hint: python3 -B methods.py hint {LESSON} 6)")


# ---------------------------------------------------------------- Task 7

def _rebuilt_nprobe() -> tuple:
    """The lesson's own rebuilt index: the smallest nprobe with recall 1 for every photo query, and
    what one search of CH-Q002 compares there."""
    from modules.catalogue.images import IMAGE_QUERIES, image_problem, query_image
    from modules.channels.mechanism import IMAGE_INDEX, IMAGE_TOP_K, REBUILD, probe
    from modules.common import ann
    index = ann.build(IMAGE_INDEX.vectors, REBUILD["n_lists"], REBUILD["seed"])
    photos = {q.id: query_image(q.id) for q in IMAGE_QUERIES if query_image(q.id) and not image_problem(*query_image(q.id))}
    for nprobe in range(1, index.n_lists + 1):
        if all(probe(index, q, image, IMAGE_TOP_K, nprobe).recall == 1 for q, image in photos.items()):
            return nprobe, probe(index, "CH-Q002", photos["CH-Q002"], IMAGE_TOP_K, nprobe).compared
    raise AssertionError("the rebuilt index never reaches recall 1")


def test_task7_rebuilt_nprobe():
    predicted = constant(load(LESSON), "REBUILT_NPROBE")
    expect_true(isinstance(predicted, (tuple, list)) and len(predicted) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in predicted),
                f"REBUILT_NPROBE is {predicted!r}; set it to a tuple of two ints: (nprobe, vectors compared)")
    nprobe, compared = _rebuilt_nprobe()
    expect_true(predicted[0] == nprobe, f"REBUILT_NPROBE predicts nprobe {predicted[0]}; the rebuilt index needs "
                                        f"another. With 9 lists each list is smaller: how many does a search have to "
                                        f"open? (hint: python3 -B methods.py hint {LESSON} 7)")
    expect_true(predicted[1] == compared, f"REBUILT_NPROBE predicts {predicted[1]} vectors compared for CH-Q002; "
                                          f"the index compares another number. A search compares every centroid, "
                                          f"then the photos of the lists it opens (hint: python3 -B methods.py hint "
                                          f"{LESSON} 7)")
