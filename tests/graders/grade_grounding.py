"""Grader for lesson 09, grounding. Run: python3 -B methods.py check grounding"""

import contextlib
import copy
import json
import pickle
import unicodedata

from labtools.grading.harness import (manifest_tasks, call_shown, constant, expect, expect_call, expect_error, expect_true, function,
                  load, redacting, Shown)
from modules.catalogue.fixture import QUERIES, RESTRICTED_IDS, opaque_ref, query_by_id, withheld_replacements
from modules.grounding.mechanism import (CHECKS, LAYERS, NOTHING_QUERY, USER_MESSAGES, VARIANTS, first_failing_layer,
                                        fingerprinted, query_fingerprint, run_query, run_variant, trace_record,
                                        user_view)

LESSON = "grounding"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

# Grading messages of permission tasks speak in refs: a withheld id becomes its opaque ref.
_safe = redacting(withheld_replacements())


# Each record is built once and kept pickled: every call gets a fresh copy (a learner's function
# may change what it is given), and unpickling is several times cheaper than copy.deepcopy.
_RECORDS: dict = {}


def _record(query_id: str) -> dict:
    if query_id not in _RECORDS:
        query = NOTHING_QUERY if query_id == NOTHING_QUERY.id else query_by_id(query_id)
        _RECORDS[query_id] = pickle.dumps(trace_record(run_query(query)))
    return pickle.loads(_RECORDS[query_id])


def _broken(n: int) -> dict:
    key = f"variant {n}"
    if key not in _RECORDS:
        variant = VARIANTS[n]
        _RECORDS[key] = pickle.dumps(trace_record(run_variant(variant, query_by_id(variant.query))))
    return pickle.loads(_RECORDS[key])


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


def test_task1_a_failed_step_on_one_size_fails():
    # The lab's check_input lets any "failed" step through; the task's does not.
    fn = function(load(LESSON), "check_input")
    for query_id in ("PW-Q001", "PW-Q003"):
        record = _record(query_id)
        step = record["input"]["transformations"][1]
        step.update(status="failed", output="failed: could not read the size")
        held, shown = _verdict(fn, record, f"{query_id} whose unit step failed on the one size {step['input']!r}")
        expect(held, False, shown + "[0]", why="'failed' answers two sizes in one query; on one size the step gave up "
                                               "on a size it should have read")
    held, shown = _verdict(fn, _record("PW-Q007"), "PW-Q007, whose unit step failed on '16 mm 18 mm'")
    expect(held, True, shown + "[0]", why="two sizes in one query are a reason to ask the shopper, not a defect")
    record = _record("PW-Q003")
    record["input"]["transformations"][1].update(input="0.625 inch 0.75 inch", status="failed", output="failed")
    held, shown = _verdict(fn, record, "PW-Q003 whose unit step failed on '0.625 inch 0.75 inch'")
    expect(held, True, shown + "[0]", why="'0.625' and '0.75' are two numbers: two sizes, a reason to ask")
    record = _record("PW-Q003")
    record["input"]["transformations"][1].update(input="16 mm 1.2.3 mm", status="failed", output="failed")
    held, shown = _verdict(fn, record, "PW-Q003 whose unit step failed on '16 mm 1.2.3 mm'")
    expect(held, False, shown + "[0]", why="'1.2.3' is not a number (one '.' at most): one size, and the step gave up")
    record = _record("PW-Q002")
    record["input"]["transformations"][2].update(status="failed")
    held, shown = _verdict(fn, record, "PW-Q002 whose family-terms step (not the unit step) failed")
    expect(held, True, shown + "[0]", why="the one-size rule is about the unit-to-mm step only")


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


def test_task2_a_permission_exclusion_names_a_ref_only():
    # The lab's check_permission_freshness does not look at the subjects; the task's does.
    fn = function(load(LESSON), "check_permission_freshness")
    denied = opaque_ref("PW-L004")
    for subject, label in (("PW-L004", "its listing id"), (denied.upper().replace("REF-", "ref-"), "upper-case hex"),
                           (denied[:-1], "a ref one hex digit short"), ("ref-" + "g" * 12, "'ref-' and 12 letters g"),
                           ("ref-x" + denied[5:], "a ref whose first digit is 'x'"),
                           ("ref-" + "X" * 12, "'ref-' and 12 letters X")):
        record = _record("PW-Q001")
        row = next(w for w in record["permission/freshness"]["withheld"] if w["subject"] == denied)
        row["subject"] = subject
        held, shown = _verdict(fn, record, f"PW-Q001 whose PERMISSION_DENIED exclusion names its subject by {label}")
        expect(held, False, shown + "[0]", why="a listing withheld for permission is named by 'ref-' and 12 lowercase "
                                               "hex digits, never by its id")
    record = _record("PW-Q001")
    row = next(w for w in record["permission/freshness"]["withheld"] if w["subject"] == denied)
    row.update(subject="PW-L004", reason_codes=["PERMISSION_DENIED", "STALE_FIELD"])
    held, shown = _verdict(fn, record, "PW-Q001 whose exclusion PERMISSION_DENIED and STALE_FIELD names its listing id")
    expect(held, False, shown + "[0]", why="one PERMISSION_ code is enough: the subject must be an opaque ref")
    record = _record("PW-Q001")
    row = next(w for w in record["permission/freshness"]["withheld"] if w["subject"] == denied)
    row.update(subject="PW-L004", reason_codes=["STALE_FIELD", "PERMISSION_DENIED"])
    held, shown = _verdict(fn, record, "PW-Q001 whose exclusion STALE_FIELD and PERMISSION_DENIED names its listing id")
    expect(held, False, shown + "[0]", why="a PERMISSION_ code anywhere in the list, not only first, calls for a ref")
    held, shown = _verdict(fn, _record("PW-Q001"), "PW-Q001, whose PROHIBITED_FAMILY exclusion names PW-L008")
    expect(held, True, shown + "[0]", why="only PERMISSION_ codes need an opaque ref: PW-L008 is permitted, its family "
                                          "is prohibited")


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


def test_task3_one_cluster_per_listing_shown_by_its_lowest_id():
    # The lab's check_ranking checks clusters, not their members; the task's checks both.
    fn = function(load(LESSON), "check_ranking")
    record = _record("PW-Q002")
    record["ranking"]["fused"][1]["members"] = ["PW-L003", "PW-L012"]
    held, shown = _verdict(fn, record, "PW-Q002 with PW-L012 a member of C-02 and of C-11")
    expect(held, False, shown + "[0]", why="one listing belongs to one cluster, or it is ranked and packed twice")
    record = _record("PW-Q002")
    record["ranking"]["fused"][0]["shown"] = "PW-L002"
    held, shown = _verdict(fn, record, "PW-Q002 whose cluster C-01 (PW-L001, PW-L002) shows PW-L002")
    expect(held, False, shown + "[0]", why="a cluster shows its lowest member, as lesson 03's canonical rule does")
    record = _record("PW-Q002")
    record["ranking"]["fused"][0]["members"] = ["PW-L002", "PW-L001"]
    held, shown = _verdict(fn, record, "PW-Q002 whose cluster C-01 lists PW-L002 first and shows PW-L001")
    expect(held, True, shown + "[0]", why="the lowest member is min() of the ids, wherever the list puts it")
    record["ranking"]["fused"][0]["shown"] = "PW-L002"
    held, shown = _verdict(fn, record, "PW-Q002 whose cluster C-01 lists PW-L002 first and shows it")
    expect(held, False, shown + "[0]", why="the first member listed is not the lowest: PW-L001 < PW-L002")


def test_task3_reads_only_its_own_section():
    fn = function(load(LESSON), "check_ranking")
    for query_id, want in (("PW-Q002", True), ("PW-Q007", True)):
        held, shown = _verdict(fn, _only(_record(query_id), "ranking"), f"{query_id}, only its ranking section")
        expect(held, want, shown + "[0]", why="the ranker is judged from what it received and produced")


# ---------------------------------------------------------------- Task 4

def _contract(query_id: str = "PW-Q002") -> dict:
    return fingerprinted(_record(query_id))


def _request(contract: dict) -> str:
    """The reference: the lab's query_fingerprint of the contract without its versions."""
    return query_fingerprint({key: value for key, value in contract.items() if key != "versions"})


def _fingerprint(fn, contract: dict, label: str) -> tuple[str, str]:
    given = copy.deepcopy(contract)
    got, shown = call_shown(fn, Shown(f"<{label}>", given))
    expect_true(isinstance(got, str), f"called {shown}\n  got a {type(got).__name__}\n  expected: a str of 64 hex digits")
    expect_true(given == contract, f"called {shown}\n  the contract you were given changed\n  expected: it unchanged; "
                                   "build a new dict without 'versions'")
    return got, shown


def test_task4_the_hash_of_the_canonical_request():
    fn = function(load(LESSON), "request_fingerprint")
    for query_id in ("PW-Q002", "PW-Q003", "PW-Q008"):
        contract = _contract(query_id)
        got, shown = _fingerprint(fn, contract, f"the contract of {query_id}")
        expect(got, _request(contract), shown,
               why="sha256_hex(canonical_json(<the contract without 'versions', every str in NFC>))")
        bare = {key: value for key, value in contract.items() if key != "versions"}
        got, shown = _fingerprint(fn, bare, f"the contract of {query_id} without a 'versions' key")
        expect(got, _request(contract), shown, why="a contract may come without its versions")


def test_task4_a_component_upgrade_keeps_it_another_request_does_not():
    # The lab's query_fingerprint changes with every component version; the task's must not.
    fn = function(load(LESSON), "request_fingerprint")
    contract = _contract()
    base, _shown = _fingerprint(fn, contract, "PW-Q002's contract")
    upgraded = dict(contract, versions=dict(contract["versions"], source="source/2-rebuild"))
    got, shown = _fingerprint(fn, upgraded, "PW-Q002's contract through the rebuilt index")
    expect(got, base, shown, why="the same question after an upgrade: one request fingerprint, so yesterday's runs of "
                                 "it are found and compared with today's")
    for change, label in ((dict(contract, diameter_mm="18"), "the same contract for 18 mm"),
                          (dict(contract, query="carbon ceramic pump seal 18 mm"), "the query text for 18 mm")):
        got, shown = _fingerprint(fn, change, label)
        expect_true(got != base, f"called {shown}\n  got the same fingerprint as PW-Q002's\n"
                                 "  expected: a different one: another request is another question")


def test_task4_key_order_does_not_matter():
    fn = function(load(LESSON), "request_fingerprint")
    contract = _contract()
    backwards = dict(reversed(list(contract.items())))
    backwards["versions"] = dict(reversed(list(contract["versions"].items())))
    got, shown = _fingerprint(fn, backwards, "PW-Q002's contract with its keys in reverse order")
    expect(got, _request(contract), shown, why="one request, one fingerprint: key order is not part of the request")


def test_task4_unicode_spelling_does_not_matter():
    fn = function(load(LESSON), "request_fingerprint")
    nfc = dict(_contract(), query="joint d\u00e9tanche 16 mm", terms=["d\u00e9tanche", "joint"],
               family={"fr\u00e9quence": "\u00e9t\u00e9"})
    nfd = json.loads(unicodedata.normalize("NFD", json.dumps(nfc, ensure_ascii=False)))
    got, shown = _fingerprint(fn, nfd, "a contract spelled in NFD (e + combining accent)")
    expect(got, _request(nfc), shown,
           why="NFC and NFD spell the same text; normalise every str, keys and values, to NFC before hashing")


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
            for line in got["answer"]:      # a copy: whoever edits the view must not edit the record
                line["cites"].append("PW-L999#price_eur")
                line["text"] = ""
            expect(record["generation"]["answer"], _record(query.id)["generation"]["answer"],
                   f"{shown}, then the view's lines edited; the record's generation answer",
                   why="the view holds a copy of each line and of its cites list, not the record's own objects")


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


def test_task6_an_answer_line_that_fails_generation_is_not_shown():
    # The lab's user_view shows these lines (generation comes after the decision); the task's does not.
    module = load(LESSON)
    fn = function(module, "user_view")
    with _lab_checks(module):
        for line, label in (({"text": "Lip seal, 7.80 EUR.", "cites": ["PW-L010#price_eur"]},
                             "a line citing PW-L010#price_eur, a field outside the packet"),
                            ({"text": "Also fits 18 mm shafts.", "cites": []}, "a line citing nothing")):
            record = _record("PW-Q002")
            record["generation"]["answer"].append(line)
            got, shown = call_shown(fn, Shown(f"<PW-Q002 with {label}>", record))
            expect(got, {"query": record["query"], "state": "unavailable", "message": USER_MESSAGES["unavailable"],
                         "answer": []}, shown,
                   why="a line the generation check rejects must not reach the shopper, and neither may the rest "
                       "of that answer")


def _regressions(before, after) -> dict:
    """The reference: queries whose record held before and fails after, by the layer it fails at."""
    was = {r["query_id"]: first_failing_layer(r) for r in before}
    counts = dict.fromkeys(LAYERS, 0)
    for record in after:
        failed = first_failing_layer(record)
        if was[record["query_id"]] is None and failed is not None:
            counts[failed[0]] += 1
    return counts


def _failing_ranking(query_id: str) -> dict:
    record = _record(query_id)
    record["ranking"]["fused"].reverse()
    return record


def test_task7_regression_counts():
    # The lab's failure_counts takes one list; a dashboard of regressions compares two runs.
    module = load(LESSON)
    fn = function(module, "regression_counts")
    with _lab_checks(module):
        healthy = [_record(q.id) for q in QUERIES]
        before = healthy[:8] + [_failing_ranking("PW-Q009")]
        after = ([_broken(0), _broken(2)] + [r for r in healthy if r["query_id"] not in ("PW-Q001", "PW-Q004")]
                 [:-1] + [_failing_ranking("PW-Q009")])[::-1]
        got, shown = call_shown(fn, Shown("<the nine queries before (PW-Q009 failing at ranking)>", before),
                                Shown("<the nine after, in reverse order: PW-Q001 through the broken parser, PW-Q004 "
                                      "with freshness off, PW-Q009 still failing at ranking>", iter(after)))
        want = _regressions(before, after)
        expect(got, want, shown, why="match the records by query_id; PW-Q001 and PW-Q004 regressed; PW-Q009 failed "
                                     "before too, so it is no regression")
        expect(list(got), list(LAYERS), shown + " keys", why="every layer in the order of LAYERS, zeros included, so "
                                                            "a dashboard shows a layer going from 0 to 3")
        rebuilt = [trace_record(run_variant(VARIANTS[1], q)) for q in QUERIES[:3]]
        expect_call(fn, tuple(healthy[:3]), rebuilt, want=_regressions(healthy[:3], rebuilt),
                    why="the rebuilt index breaks every query at the source layer")
        expect_call(fn, [], [], want=dict.fromkeys(LAYERS, 0))


def test_task7_unmatched_queries_are_refused():
    module = load(LESSON)
    fn = function(module, "regression_counts")
    with _lab_checks(module):
        healthy = [_record(q.id) for q in QUERIES[:3]]
        for before, after, label, name in (
                (healthy, healthy[:2], "PW-Q003 before only", "PW-Q003"),
                (healthy[1:], healthy, "PW-Q001 after only", "PW-Q001"),
                (healthy + [healthy[0]], healthy + [healthy[0]], "PW-Q001 twice on each side", "PW-Q001")):
            shown = f"regression_counts(<{label}>)"
            expect_error(ValueError, fn, before, after, shown=shown,
                         why=f"a query on one side only, or twice, cannot be compared: name it ({name!r})")
            try:
                fn(before, after)
            except ValueError as error:
                expect_true(name in str(error), f"called {shown}\n  it raised ValueError: {error}\n  expected: a "
                                                f"message that names the query id {name!r}")


# ---------------------------------------------------------------- Tasks 8 to 10

def _choice(name: str, best: str, task: int, misreads: dict) -> None:
    """A quiz constant: one letter, the best one; a wrong letter is told the misconception it holds."""
    answer = constant(load(LESSON), name)
    expect_true(answer in ("a", "b", "c", "d"), f"{name} is {answer!r}; set it to one letter: 'a', 'b', 'c' or 'd'")
    expect_true(answer == best, f"{name} = {answer!r} is not the best answer: {misreads.get(answer, '')} "
                                f"(hint: python3 -B methods.py hint {LESSON} {task})")


def test_task8_rebuild_quiz():
    _choice("REBUILD_QUIZ", "b", 8, {
        "a": "the rebuild took only the permission column away; each listing kept its family, but the gate "
             "never read it.",
        "c": "the policy version is the same before and after the rebuild; what changed is the records the "
             "gate reads.",
        "d": "the prohibited listings are still proposed and still excluded: the table counts them under "
             "PERMISSION_UNKNOWN now."})


def test_task9_ranker_quiz():
    _choice("RANKER_QUIZ", "c", 9, {
        "a": "the permission/freshness check reads what passed the gate, and PW-L006 still passes it; the "
             "penalty hid the symptom, not the failure.",
        "b": "the walk checks permission/freshness before ranking, and that check still fails: PW-L006 passed "
             "the gate.",
        "d": "assembly comes after permission/freshness in the walk, and the gate still passes the stale "
             "listing."})


def test_task10_rebuilt_packet_prediction():
    predicted = constant(load(LESSON), "REBUILT_PACKET")
    expect_true(isinstance(predicted, (list, tuple)) and all(isinstance(x, str) for x in predicted),
                f"REBUILT_PACKET is {predicted!r}; set it to a tuple (or a list) of listing ids, such as "
                "(\"PW-L001\", \"PW-L002\")")
    run = trace_record(run_variant(VARIANTS[1], query_by_id("PW-Q002")))
    want = tuple(run["assembly"]["listings"])
    expect_true(tuple(predicted) == want,
                f"REBUILT_PACKET = {tuple(predicted)!r} is not what the rebuilt index packs for PW-Q002. Which of "
                "PW-Q002's usable listings were updated on or after 2026-10-11, and what moves up when they are "
                f"withheld? (hint: python3 -B methods.py hint {LESSON} 10)")


# Every test speaks in refs: a failure message never names a withheld listing, whatever the answer did.
for _name, _test in list(globals().items()):
    if _name.startswith("test_") and callable(_test):
        globals()[_name] = _safe(_test)
