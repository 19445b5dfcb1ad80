"""Grader for lesson 09, grounding. Run: python3 -B methods.py check grounding"""

import contextlib
import copy
import json
import unicodedata

from labtools.grading.harness import (manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load,
                  redacting, Shown)
from modules.catalogue.fixture import QUERIES, RESTRICTED_IDS, opaque_ref, query_by_id, withheld_replacements
from modules.grounding.mechanism import (CHECKS, LAYERS, NOTHING_QUERY, USER_MESSAGES, VARIANTS, fingerprinted,
                               query_fingerprint, run_query, run_variant, trace_record, user_view)

LESSON = "grounding"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

# Grading messages of permission tasks speak in refs: a withheld id becomes its opaque ref.
_safe = redacting(withheld_replacements())


_RECORDS: dict = {}


def _record(query_id: str) -> dict:
    if query_id not in _RECORDS:
        query = NOTHING_QUERY if query_id == NOTHING_QUERY.id else query_by_id(query_id)
        _RECORDS[query_id] = trace_record(run_query(query))
    return copy.deepcopy(_RECORDS[query_id])


def _broken(n: int) -> dict:
    key = f"variant {n}"
    if key not in _RECORDS:
        variant = VARIANTS[n]
        _RECORDS[key] = trace_record(run_variant(variant, query_by_id(variant.query)))
    return copy.deepcopy(_RECORDS[key])


def _only(record: dict, section: str) -> dict:
    """The record with every other layer's section taken out."""
    return {key: value for key, value in record.items() if key not in LAYERS or key == section}


def _verdict(fn, record: dict, label: str):
    got, shown = call_shown(fn, Shown(f"<{label}>", record))
    expect_true(isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], bool) and isinstance(got[1], str)
                and got[1].strip(), f"called {shown}\n  got: {got!r}\n  expected: a tuple (held, why): a bool and "
                                    f"a non-empty sentence")
    return got[0], shown


def _judge(fn, layer: str, cases) -> None:
    for record, label, why in cases:
        held, shown = _verdict(fn, record, label)
        want, _ = CHECKS[layer](record)
        expect(held, want, shown + "[0]", why=why)


# ---------------------------------------------------------------- Task 1

def test_task1_healthy_records_hold():
    fn = function(load(LESSON), "check_input")
    _judge(fn, "input", [(_record(q.id), f"the record of {q.id}",
                          "PW-Q006 (a bare number, unresolved) and PW-Q007 (two sizes, failed) are the input layer "
                          "doing its job") for q in QUERIES])


def test_task1_a_lost_unit_fails():
    fn = function(load(LESSON), "check_input")
    held, shown = _verdict(fn, _broken(0), "PW-Q001 through the parser that drops the unit")
    expect(held, False, shown + "[0]", why="'16 mm' was written with a unit and unit-to-mm/2 left it unresolved")
    record = _record("PW-Q003")
    record["input"]["transformations"][1].update(status="unresolved", output="no unit read")
    held, shown = _verdict(fn, record, "PW-Q003 with '0.625 inch' left unresolved")
    expect(held, False, shown + "[0]", why="'inch' is a unit word too")


def test_task1_original_and_versions():
    fn = function(load(LESSON), "check_input")
    record = _record("PW-Q002")
    record["input"]["transformations"][0]["input"] = "carbon ceramic pump seal"
    held, shown = _verdict(fn, record, "PW-Q002 whose first step did not read the original")
    expect(held, False, shown + "[0]", why="the first step must start from the text the shopper typed")
    record = _record("PW-Q002")
    record["input"]["transformations"][2]["version"] = "family-terms"
    held, shown = _verdict(fn, record, "PW-Q002 with a step versioned 'family-terms'")
    expect(held, False, shown + "[0]", why="a version names the step and its revision, like 'family-terms/1'")
    record = _record("PW-Q002")
    record["input"]["transformations"] = []
    held, shown = _verdict(fn, record, "PW-Q002 with no transformations")
    expect(held, False, shown + "[0]", why="with no steps nobody can replay how the query was read")


def test_task1_reads_only_its_own_section():
    fn = function(load(LESSON), "check_input")
    for record, label, want in ((_only(_record("PW-Q001"), "input"), "PW-Q001, only its input section", True),
                                (_only(_broken(0), "input"), "the broken parser's record, only its input section",
                                 False)):
        held, shown = _verdict(fn, record, label)
        expect(held, want, shown + "[0]", why="the input layer is judged from its own section; reading another "
                                              "layer's fields could blame it for that layer's fault")


# ---------------------------------------------------------------- Task 2

def test_task2_healthy_records_hold():
    fn = function(load(LESSON), "check_permission_freshness")
    _judge(fn, "permission/freshness", [(_record(q.id), f"the record of {q.id}",
                                         "the gate withheld the stale PW-L006 and passed PW-L010, whose stale price "
                                         "is optional; stopped queries never reached the gate") for q in QUERIES])


def test_task2_a_stale_required_field_that_passed_fails():
    fn = function(load(LESSON), "check_permission_freshness")
    held, shown = _verdict(fn, _broken(2), "PW-Q004 through the gate with the freshness rule off")
    expect(held, False, shown + "[0]", why="PW-L006 passed with a diameter checked 2,330 days ago; the limit is 1,826")
    record = _record("PW-Q001")
    row = next(r for r in record["permission/freshness"]["fields"] if r["candidate"] == "PW-L001" and r["required"])
    for age, want, why in ((row["max_days"], True, "an age equal to the limit is still within it"),
                           (0, True, "a field checked on the as-of date itself is fresh"),
                           (-1, False, "a field checked the day after the as-of date was not known on that date"),
                           (row["max_days"] + 1, False, "one day over the limit is stale"),
                           (-3, False, "a field checked after the as-of date was not known on that date"),
                           (None, False, "a field never checked cannot be called fresh")):
        row["age_days"] = age
        held, shown = _verdict(fn, record, f"PW-Q001 with PW-L001's diameter aged {age}")
        expect(held, want, shown + "[0]", why=why)


def test_task2_permission_and_reason_codes():
    fn = function(load(LESSON), "check_permission_freshness")
    for value in (None, "unknown", "Allowed"):
        record = _record("PW-Q001")
        record["permission/freshness"]["passed"][0]["permission"] = value
        held, shown = _verdict(fn, record, f"PW-Q001 with a passed candidate whose permission is {value!r}")
        expect(held, False, shown + "[0]", why="only the exact value 'allowed' may pass the gate")
    record = _record("PW-Q001")
    record["permission/freshness"]["withheld"][0]["reason_codes"] = ["held back because it looked odd"]
    held, shown = _verdict(fn, record, "PW-Q001 with a withheld candidate whose reason is free text")
    expect(held, False, shown + "[0]", why="free text can quote a withheld title; only safe codes may be recorded")
    record = _record("PW-Q001")
    record["permission/freshness"]["withheld"][0]["reason_codes"] += ["it looked odd"]
    held, shown = _verdict(fn, record, "PW-Q001 with a withheld candidate whose second reason is free text")
    expect(held, False, shown + "[0]", why="every reason code must be a safe one, not just the first")
    record = _record("PW-Q001")
    record["permission/freshness"]["withheld"][0]["reason_codes"] = []
    held, shown = _verdict(fn, record, "PW-Q001 with a withheld candidate without reason codes")
    expect(held, False, shown + "[0]", why="an exclusion without a reason cannot be audited")


def test_task2_reads_only_its_own_section():
    fn = function(load(LESSON), "check_permission_freshness")
    for record, label, want in ((_only(_record("PW-Q003"), "permission/freshness"),
                                 "PW-Q003, only its permission/freshness section", True),
                                (_only(_broken(2), "permission/freshness"),
                                 "the freshness-off record, only its permission/freshness section", False),
                                (_only(_record("PW-Q008"), "permission/freshness"),
                                 "PW-Q008 (stopped before retrieval), only its gate section", True)):
        held, shown = _verdict(fn, record, label)
        expect(held, want, shown + "[0]", why="the gate is judged from its own section alone")


# ---------------------------------------------------------------- Task 3

def test_task3_healthy_records_hold():
    fn = function(load(LESSON), "check_ranking")
    _judge(fn, "ranking", [(_record(q.id), f"the record of {q.id}", "a healthy ranking holds")
                           for q in QUERIES])


def test_task3_broken_rankings_fail():
    fn = function(load(LESSON), "check_ranking")
    cases = []
    record = _record("PW-Q002")
    record["ranking"]["received"].remove("PW-L003")
    cases.append((record, "PW-Q002 whose ranker ranked PW-L003 without receiving it",
                  "only what the gate passed may be ranked"))
    record = _record("PW-Q002")
    record["ranking"]["fused"][2]["channel_ranks"]["lexical"] = 1
    cases.append((record, "PW-Q002 with a row whose channel ranks do not give its score",
                  "recompute round(sum(1 / (k + rank)), 6) from the row's channel ranks"))
    record = _record("PW-Q002")
    record["ranking"]["fused"][1]["cluster"] = "C-01"
    cases.append((record, "PW-Q002 with C-01 ranked twice", "a canonical cluster is ranked once"))
    record = _record("PW-Q002")
    record["ranking"]["fused"][3], record["ranking"]["fused"][4] = record["ranking"]["fused"][4], \
        record["ranking"]["fused"][3]
    cases.append((record, "PW-Q002 with rows 4 and 5 swapped", "scores never rise down the ranking"))
    record = _record("PW-Q002")
    record["ranking"]["k"] = 61
    cases.append((record, "PW-Q002 whose rows were scored with k = 60 but which says k = 61",
                  "use the section's own k"))
    for record, label, why in cases:
        held, shown = _verdict(fn, record, label)
        expect(held, False, shown + "[0]", why=why)
    record = _record("PW-Q002")
    record["ranking"]["fused"][7].update(channel_ranks={"lexical": 2}, ordering_score=round(1 / 62, 6))
    record["ranking"]["fused"][6].update(channel_ranks={"lexical": 2}, ordering_score=round(1 / 62, 6))
    held, shown = _verdict(fn, record, "PW-Q002 with two rows tied on 1 / (60 + 2)")
    expect(held, True, shown + "[0]", why="a tie is not a rise: equal scores may stand next to each other")


def test_task3_reads_only_its_own_section():
    fn = function(load(LESSON), "check_ranking")
    for query_id, want in (("PW-Q002", True), ("PW-Q007", True)):
        held, shown = _verdict(fn, _only(_record(query_id), "ranking"), f"{query_id}, only its ranking section")
        expect(held, want, shown + "[0]", why="the ranker is judged from what it received and produced")


# ---------------------------------------------------------------- Task 4

def _contract(query_id: str = "PW-Q002") -> dict:
    return fingerprinted(_record(query_id))


def _fingerprint(fn, contract: dict, label: str) -> tuple[str, str]:
    got, shown = call_shown(fn, Shown(f"<{label}>", copy.deepcopy(contract)))
    expect_true(isinstance(got, str), f"called {shown}\n  got a {type(got).__name__}\n  expected: a str of 64 hex digits")
    return got, shown


def test_task4_the_hash_of_the_canonical_contract():
    fn = function(load(LESSON), "query_fingerprint")
    for query_id in ("PW-Q002", "PW-Q003", "PW-Q008"):
        contract = _contract(query_id)
        got, shown = _fingerprint(fn, contract, f"the contract of {query_id}")
        expect(got, query_fingerprint(contract), shown,
               why="sha256_hex(canonical_json(<the contract, every str in NFC>))")


def test_task4_key_order_does_not_matter():
    fn = function(load(LESSON), "query_fingerprint")
    contract = _contract()
    backwards = dict(reversed(list(contract.items())))
    backwards["versions"] = dict(reversed(list(contract["versions"].items())))
    got, shown = _fingerprint(fn, backwards, "PW-Q002's contract with its keys in reverse order")
    expect(got, query_fingerprint(contract), shown,
           why="one request, one fingerprint: key order is not part of the request")


def test_task4_unicode_spelling_does_not_matter():
    fn = function(load(LESSON), "query_fingerprint")
    nfc = dict(_contract(), query="joint d\u00e9tanche 16 mm", terms=["d\u00e9tanche", "joint"],
               versions={"r\u00e9sum\u00e9": "v/1", "contract": "contract/2"})
    nfd = json.loads(unicodedata.normalize("NFD", json.dumps(nfc, ensure_ascii=False)))
    got, shown = _fingerprint(fn, nfd, "a contract spelled in NFD (e + combining accent)")
    expect(got, query_fingerprint(nfc), shown,
           why="NFC and NFD spell the same text; normalise every str, keys and values, to NFC before hashing")


def test_task4_a_changed_component_changes_it():
    fn = function(load(LESSON), "query_fingerprint")
    contract = _contract()
    base, _shown = _fingerprint(fn, contract, "PW-Q002's contract")
    for change, label in ((dict(contract, versions=dict(contract["versions"], source="source/2-rebuild")),
                           "the same contract through the rebuilt index"),
                          (dict(contract, diameter_mm="18"), "the same contract for 18 mm")):
        got, shown = _fingerprint(fn, change, label)
        expect_true(got != base, f"called {shown}\n  got the same fingerprint as PW-Q002's\n"
                                 "  expected: a different one: a replay must tell 'same query, new index' apart")


# ---------------------------------------------------------------- Tasks 5 to 7: built on the checks

@contextlib.contextmanager
def _checks(module, checks: dict):
    """Run the learner's walk with the given CHECKS (the lab's, or fakes), then put theirs back."""
    saved = getattr(module, "CHECKS", None)
    module.CHECKS = checks
    try:
        yield
    finally:
        module.CHECKS = saved


def _lab_checks(module):
    return _checks(module, dict(CHECKS))


def _walk(fn, record, label):
    return call_shown(fn, Shown(f"<{label}>", record))


def test_task5_the_three_broken_pipelines():
    module = load(LESSON)
    fn = function(module, "first_failing_layer")
    with _lab_checks(module):
        for n, layer in enumerate(("input", "source", "permission/freshness")):
            variant = VARIANTS[n]
            got, shown = _walk(fn, _broken(n), f"{variant.query} through '{variant.name}'")
            expect(isinstance(got, tuple) and got[0], layer, shown + "[0]",
                   why=f"the symptom shows at {variant.seen_at}, but the first layer whose check fails is {layer}")
            expect_true(isinstance(got[1], str) and got[1], f"called {shown}\n  got {got!r}\n  expected: "
                                                            "(layer, why), why being the check's sentence")
        for query in QUERIES:
            got, shown = _walk(fn, _record(query.id), f"the healthy record of {query.id}")
            expect(got, None, shown, why="every layer held")


def test_task5_walks_in_the_order_of_layers_with_your_checks():
    module = load(LESSON)
    fn = function(module, "first_failing_layer")
    calls = []

    def fake(layer, held):
        def check(record):
            calls.append(layer)
            return held, f"{layer} {'held' if held else 'failed'}"
        return check

    failing = {"retrieval", "ranking", "presentation"}
    fakes = {layer: fake(layer, layer not in failing) for layer in reversed(LAYERS)}
    with _checks(module, fakes):
        got, shown = _walk(fn, _record("PW-Q001"), "any record, with CHECKS failing at retrieval, ranking and "
                                                   "presentation, the dict in reverse order")
    expect(got, ("retrieval", "retrieval failed"), shown,
           why="walk LAYERS in order, call CHECKS[layer] (the dict in your file), stop at the first failure")
    expect(calls, ["input", "source", "retrieval"], "the checks the walk called, in order",
           why="a walk stops at the first failing layer")


def test_task6_user_view_of_healthy_records():
    module = load(LESSON)
    fn = function(module, "user_view")
    with _lab_checks(module):
        for query in (*QUERIES, NOTHING_QUERY):
            record = _record(query.id)
            got, shown = call_shown(fn, Shown(f"<the record of {query.id}>", record))
            expect(got, user_view(record), shown,
                   why="the request, the user state, its fixed message and the cited lines; nothing else")
            expect_true(list(got) == ["query", "state", "message", "answer"],
                        f"called {shown}\n  keys {list(got)}\n  expected: query, state, message, answer, in order")


def test_task6_denied_reads_like_nothing_matched():
    module = load(LESSON)
    fn = function(module, "user_view")
    with _lab_checks(module):
        denied, _shown = call_shown(fn, Shown("<PW-Q005: every match withheld>", _record("PW-Q005")))
        nothing, _shown = call_shown(fn, Shown(f"<{NOTHING_QUERY.id}: nothing matched>", _record(NOTHING_QUERY.id)))
    expect(dict(denied, query=""), dict(nothing, query=""),
           "user_view(<all denied>) vs user_view(<nothing matched>), query text blanked",
           why="a shopper must not be able to tell 'denied' from 'not there': no cause, no count, no ref")
    text = json.dumps(denied)
    for secret in ("ref-", *(opaque_ref(i) for i in RESTRICTED_IDS)):
        expect_true(secret not in text, f"called user_view(<PW-Q005>)\n  the view contains {secret!r}\n"
                                        "  expected: no trace of a withheld listing, not even its ref")


def test_task6_a_broken_run_is_not_shown():
    module = load(LESSON)
    fn = function(module, "user_view")
    with _lab_checks(module):
        for n, variant in enumerate(VARIANTS):
            got, shown = call_shown(fn, Shown(f"<{variant.query} through '{variant.name}'>", _broken(n)))
            expect(got, {"query": _broken(n)["query"], "state": "unavailable",
                         "message": USER_MESSAGES["unavailable"], "answer": []}, shown,
                   why="a layer up to the decision failed, so this run's answer cannot be trusted")
        record = _record("PW-Q002")
        record["presentation"]["message"] += f" ({opaque_ref('PW-L004')} was withheld)"
        got, shown = call_shown(fn, Shown("<PW-Q002 whose stored user view leaked a ref>", record))
        expect(got, user_view(_record("PW-Q002")), shown,
               why="only layers up to the decision stop a view; the view itself is rebuilt from the record")
        for query_id, state in (("PW-Q002", "respond"), ("PW-Q003", "degraded")):
            record = _record(query_id)
            record["generation"]["answer"] = []
            label = f"<{query_id}, decided {state!r}, whose answer stage wrote no line>"
            got, shown = call_shown(fn, Shown(label, record))
            expect(got.get("state"), "no_match", shown + "['state']",
                   why="an answer state with nothing to show would promise listings the shopper never sees")
        record = _record("PW-Q002")
        record["decision"]["state"] = "clarify"
        got, shown = call_shown(fn, Shown("<PW-Q002 whose decision contradicts its own reasons>", record))
        expect(got.get("state"), "unavailable", shown + "['state']",
               why="the decision is the last layer that must hold before anything is shown")


def test_task7_failure_counts():
    module = load(LESSON)
    fn = function(module, "failure_counts")
    with _lab_checks(module):
        healthy = [_record(q.id) for q in QUERIES]
        twice = _broken(0)
        twice["ranking"]["fused"].reverse()
        records = healthy + [_broken(0), _broken(1), _broken(2), _broken(1), twice]
        got, shown = call_shown(fn, Shown("<the nine healthy records, four broken ones, and one failing at both input "
                                          "and ranking>", iter(records)))
        want = dict.fromkeys(("all_held",) + LAYERS, 0)
        want.update({"all_held": 9, "input": 2, "source": 2, "permission/freshness": 1})
        expect(got, want, shown, why="each record counts once, under its first failing layer")
        expect(list(got), list(want), shown + " keys", why="'all_held', then every layer in the order of LAYERS, zeros "
                                                           "included, so a dashboard shows a layer going from 0 to 3")
        expect_call(fn, [], want=dict.fromkeys(("all_held",) + LAYERS, 0))


# ---------------------------------------------------------------- Tasks 8 and 9

def test_task8_rebuild_quiz():
    expect_choice(LESSON, "REBUILD_QUIZ", "b", 8, "Reread the lesson's part on the index rebuild")


def test_task9_ranker_quiz():
    expect_choice(LESSON, "RANKER_QUIZ", "a", 9, "Reread the lesson's walk of the freshness-off pipeline")


# Every test speaks in refs: a failure message never names a withheld listing, whatever the answer did.
for _name, _test in list(globals().items()):
    if _name.startswith("test_") and callable(_test):
        globals()[_name] = _safe(_test)
