"""Grader for lesson 09, grounding. Run: python3 -B methods.py check grounding"""

import copy
import json

from _lab import Task, call, expect, expect_choice, expect_error, expect_true, function, load
from modules.catalogue import QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS, opaque_ref, query_by_id
from modules.grounding import (HEALTHY, LAYERS, NOTHING_QUERY, REASON_CODES, USER_MESSAGES, VARIANTS,
                               build_index, layer_checks, run_query)

LESSON = "grounding"

TASKS = (
    Task(1, "first_failing_layer", "Walk the layers in order and name the first that failed", hints=(
        "A dict can arrive in any order. Whose order decides the walk: the dict's, or LAYERS'?",
        "When a layer has no result at all, can you say it passed? What would a later failure then hide?",
        "Loop `for layer in LAYERS:`; raise ValueError if the layer is missing, TypeError if its value is not "
        "a bool, return it if the value is False; after the loop return None. Check unknown names first.",
    )),
    Task(2, "user_view", "What the shopper may see", hints=(
        "Which parts of the record could tell the shopper that a denied listing exists: its ref, a count, a cause?",
        "Two records: one whose only candidates were denied, one that retrieved nothing. Should the shopper be "
        "able to tell them apart? Which record fields differ between them?",
        "Use only record['query'], record['state'] (through USER_STATES), USER_MESSAGES and record['answer']: "
        "state = USER_STATES[record['state']], then build the four keys, copying each answer line.",
    )),
    Task(3, "count_exclusions", "Count exclusions by safe reason code", hints=(
        "A dashboard should show a code that went from 0 to 12. What must the result hold for codes never seen?",
        "The same denied listing turns up for two queries. Is that one exclusion or two?",
        "Start from dict.fromkeys(REASON_CODES, 0); for each record, for each entry of record['exclusions'], "
        "raise ValueError if its 'reason' is not a key, else add 1. Clusters and rejected vectors are not exclusions.",
    )),
    Task(4, "REBUILD_QUIZ", "Quiz: permission exclusions tripled after a rebuild", hints=(
        "If the policy did not change, what else decides whether a listing reads as permitted?",
        "Which fix makes the count drop by making the product less safe? Which one puts the data back?",
    )),
    Task(5, "RANKER_QUIZ", "Quiz: why the ranker is not the first suspect", hints=(
        "Which layer comes first in the walk: permission/freshness or ranking? Which one let the stale record in?",
        "If the ranker buried the stale seal for this query, would it still be eligible for the next one?",
    )),
)

_INDEX = build_index()


def _record(query_id: str) -> dict:
    query = NOTHING_QUERY if query_id == NOTHING_QUERY.id else query_by_id(query_id)
    return run_query(query, HEALTHY, _INDEX)


def _results(**failed) -> dict:
    # Every layer passed, except those given as layer=False (underscores stand for spaces and slashes).
    results = {layer: True for layer in LAYERS}
    for name, value in failed.items():
        results[{"permission_freshness": "permission/freshness"}.get(name, name)] = value
    return results


# ---------------------------------------------------------------- Task 1

def test_task1_the_three_broken_pipelines():
    fn = function(load(LESSON), "first_failing_layer")
    for pipeline, want in zip(VARIANTS, ("input", "source", "permission/freshness")):
        index = pipeline.build_index()
        record = run_query(query_by_id(pipeline.symptom_query), pipeline, index)
        results = {c["layer"]: c["passed"] for c in layer_checks(record, index)}
        shown = f"first_failing_layer(<the checks of '{pipeline.name}' on {pipeline.symptom_query}>)"
        expect(call(fn, results, shown=shown), want, shown,
               why=f"the symptom shows at {pipeline.seen_at}, but the first layer whose check fails is {want}")


def test_task1_order_comes_from_layers_not_the_dict():
    fn = function(load(LESSON), "first_failing_layer")
    results = dict(reversed(list(_results(source=False, ranking=False, presentation=False).items())))
    shown = f"first_failing_layer({results})"
    expect(call(fn, results, shown=shown), "source", shown,
           why="the dict lists presentation first, but the walk follows LAYERS: source comes before the others")
    results = _results(decision=False, permission_freshness=False)
    shown = "first_failing_layer(<all True except decision and permission/freshness>)"
    expect(call(fn, results, shown=shown), "permission/freshness", shown,
           why="permission/freshness is the fourth layer, decision the seventh: return the first, not the last")


def test_task1_every_layer_passed():
    fn = function(load(LESSON), "first_failing_layer")
    shown = "first_failing_layer(<all ten layers True>)"
    expect(call(fn, _results(), shown=shown), None, shown, why="no layer failed, so there is no layer to name")
    results = _results(change=False)
    shown = "first_failing_layer(<all True except change>)"
    expect(call(fn, results, shown=shown), "change", shown, why="the last layer is still a layer")


def test_task1_a_walk_cannot_skip_a_layer():
    fn = function(load(LESSON), "first_failing_layer")
    results = _results(ranking=False)
    del results["source"]
    expect_error(ValueError, fn, results, shown="first_failing_layer(<no 'source' result; ranking False>)",
                 why="source was never checked, so nobody knows it passed; naming ranking would skip it")
    results = {"input": True, "source": False}
    shown = "first_failing_layer({'input': True, 'source': False})"
    expect(call(fn, results, shown=shown), "source", shown,
           why="the walk stops at the first failure; the layers after it need no result yet")


def test_task1_bad_results():
    fn = function(load(LESSON), "first_failing_layer")
    results = _results()
    del results["permission/freshness"]
    results.update({"permission": True, "freshness": False})
    expect_error(ValueError, fn, results, shown="first_failing_layer(<'permission' and 'freshness' as two layers>)",
                 why="the gate is one layer, 'permission/freshness'; an unknown name is a mistake to report")
    results = dict(_results(), ranker=False)
    expect_error(ValueError, fn, results, shown="first_failing_layer(<all ten layers True, plus 'ranker': False>)",
                 why="'ranker' is not a layer (the layer is 'ranking'); ignoring it would hide a failure")
    results = _results(source="failed")
    expect_error(TypeError, fn, results, shown="first_failing_layer(<source: 'failed'>)",
                 why="'failed' is a non-empty string, so it is truthy: a result must be exactly True or False")


# ---------------------------------------------------------------- Task 2

def _view(fn, record: dict, label: str) -> dict:
    shown = f"user_view(<{label}>)"
    got = call(fn, copy.deepcopy(record), shown=shown)
    expect_true(isinstance(got, dict), f"called {shown}\n  got a {type(got).__name__}\n  expected: a dict")
    return got


def test_task2_the_detail_query():
    fn = function(load(LESSON), "user_view")
    record = _record("PW-Q002")
    want = {"query": record["query"], "state": "answer", "message": USER_MESSAGES["answer"],
            "answer": [{"text": line["text"], "cites": list(line["cites"])} for line in record["answer"]]}
    expect(_view(fn, record, "the record of PW-Q002"), want, "user_view(<the record of PW-Q002>)",
           why="four keys: the query, the user state, its message and the cited answer lines; nothing else")


def test_task2_never_shows_a_denied_listing():
    fn = function(load(LESSON), "user_view")
    for query_id in ("PW-Q002", "PW-Q005", "PW-Q006"):
        record = _record(query_id)
        text = json.dumps(_view(fn, record, f"the record of {query_id}"), ensure_ascii=False)
        secrets = [e["ref"] for e in record["exclusions"]] + [opaque_ref(i) for i in RESTRICTED_IDS]
        secrets += list(RESTRICTED_IDS) + list(RESTRICTED_STRINGS)
        for secret in secrets:
            expect_true(secret not in text, f"called user_view(<the record of {query_id}>)\n  the view contains "
                                            f"{secret!r}\n  expected: no trace of an excluded or denied listing, "
                                            f"not even its opaque ref")


def test_task2_denied_reads_like_nothing_found():
    fn = function(load(LESSON), "user_view")
    denied, nothing = _record("PW-Q005"), _record(NOTHING_QUERY.id)
    seen_denied = _view(fn, denied, "PW-Q005: both candidates retrieved, then denied")
    seen_nothing = _view(fn, nothing, f"{NOTHING_QUERY.id}: nothing retrieved")
    expect_true(isinstance(seen_denied.get("state"), str) and seen_denied.get("state") == "no_match",
                f"called user_view(<PW-Q005, all candidates denied>)\n  state: {seen_denied.get('state')!r}\n"
                f"  expected: 'no_match', exactly what a search that found nothing says")
    expect(dict(seen_denied, query=""), dict(seen_nothing, query=""),
           "user_view(<PW-Q005, all denied>) vs user_view(<nothing retrieved>), query text blanked",
           why="a shopper must not be able to tell 'denied' from 'not there': no cause, no count, no hint")


def test_task2_a_denied_candidate_changes_nothing():
    fn = function(load(LESSON), "user_view")
    record = _record("PW-Q001")
    without = copy.deepcopy(record)
    without["exclusions"] = [e for e in record["exclusions"] if e["category"] != "permission"]
    for channel in without["candidates"].values():
        channel[:] = [hit for hit in channel if hit["ref"].startswith("PW-")]
    more = copy.deepcopy(record)
    more["exclusions"] += [dict(record["exclusions"][0], ref=opaque_ref(f"PW-X{n}"), category="permission",
                                reason="permission_denied") for n in range(3)]
    base = _view(fn, record, "PW-Q001")
    for other, label in ((without, "PW-Q001 with its denied candidate removed"),
                         (more, "PW-Q001 with three more denied candidates")):
        expect(_view(fn, other, label), base, f"user_view(<{label}>) compared with user_view(<PW-Q001>)",
               why="how many listings were denied, if any, must not change a single character of the view")


def test_task2_clarify_and_out_of_scope_show_no_listing():
    fn = function(load(LESSON), "user_view")
    for query_id, state in (("PW-Q006", "clarify"), ("PW-Q008", "out_of_scope"), ("PW-Q004", "no_match")):
        record = _record(query_id)
        want = {"query": record["query"], "state": state, "message": USER_MESSAGES[state], "answer": []}
        expect(_view(fn, record, f"the record of {query_id}"), want, f"user_view(<the record of {query_id}>)",
               why=f"internal state {record['state']!r} -> {state!r}; the packet was assembled but the decision "
                   f"gave no answer, so no listing is shown")


# ---------------------------------------------------------------- Task 3

def _counts(fn, records, label):
    shown = f"count_exclusions(<{label}>)"
    got = call(fn, records, shown=shown)
    expect_true(isinstance(got, dict), f"called {shown}\n  got a {type(got).__name__}\n  expected: a dict")
    return got, shown


def test_task3_before_and_after_the_rebuild():
    fn = function(load(LESSON), "count_exclusions")
    healthy = [run_query(q, HEALTHY, _INDEX) for q in QUERIES]
    got, shown = _counts(fn, healthy, "the nine healthy records")
    want = {"permission_denied": 4, "permission_unknown": 2, "prohibited_family": 6, "stale": 2, "field_conflict": 4}
    expect(list(got.items()), list(want.items()), shown + ".items()",
           why="every safe code, in the order of REASON_CODES")
    rebuilt = VARIANTS[1]
    index = rebuilt.build_index()
    got, shown = _counts(fn, [run_query(q, rebuilt, index) for q in QUERIES], "the nine records after the rebuild")
    want = {"permission_denied": 0, "permission_unknown": 18, "prohibited_family": 6, "stale": 2, "field_conflict": 0}
    expect(list(got.items()), list(want.items()), shown + ".items()",
           why="permission exclusions go from 4 + 2 = 6 to 18, and zeros stay listed so the drop shows")


def test_task3_every_code_even_at_zero():
    fn = function(load(LESSON), "count_exclusions")
    got, shown = _counts(fn, [], "no records")
    expect(list(got.items()), [(code, 0) for code in REASON_CODES], shown + ".items()",
           why="an empty dashboard still lists every code, each at 0")
    got, shown = _counts(fn, iter([{"exclusions": [{"reason": "stale"}]}]), "an iterator over one record")
    expect(got.get("stale"), 1, shown + "['stale']", why="records may be any iterable; walk it once")


def test_task3_counts_per_record_not_per_listing():
    fn = function(load(LESSON), "count_exclusions")
    ref = opaque_ref("PW-X1")
    records = [{"exclusions": [{"ref": ref, "category": "permission", "reason": "permission_denied"}]},
               {"exclusions": [{"ref": ref, "category": "permission", "reason": "permission_denied"}]}]
    got, shown = _counts(fn, records, "the same denied ref in two records")
    expect(got.get("permission_denied"), 2, shown + "['permission_denied']",
           why="two queries each lost that listing: two exclusions")
    record = {"exclusions": [{"ref": "PW-L006", "reason": "stale"}],
              "clusters": [{"cluster": "C-01", "kept": "PW-L001", "collapsed": ["PW-L002"]}],
              "vector_rejected": [{"ref": "PW-L012", "reason": "wrong_version"}]}
    got, shown = _counts(fn, [record], "one stale exclusion, one collapsed copy, one rejected vector")
    expect(sum(got.values()), 1, f"sum({shown}.values())",
           why="a collapsed copy and a rejected vector are not exclusions; only the 'exclusions' list counts")


def test_task3_unsafe_reasons_are_refused():
    fn = function(load(LESSON), "count_exclusions")
    title = RESTRICTED_STRINGS[0]
    expect_error(ValueError, fn, [{"exclusions": [{"reason": title}]}],
                 shown="count_exclusions([{'exclusions': [{'reason': <a restricted title>}]}])",
                 why="free text can quote what must stay hidden; only safe reason codes may be counted")
    expect_error(ValueError, fn, [{"exclusions": [{"reason": "permission"}]}],
                 shown="count_exclusions([{'exclusions': [{'reason': 'permission'}]}])",
                 why="'permission' is a category, not a reason code")


# ---------------------------------------------------------------- Tasks 4 and 5

def _quiz(name: str, want: str, number: int) -> None:
    expect_choice(LESSON, name, want, number, "Reread the lesson's part on it")


def test_task4_rebuild_quiz():
    _quiz("REBUILD_QUIZ", "b", 4)


def test_task5_ranker_quiz():
    _quiz("RANKER_QUIZ", "c", 5)
