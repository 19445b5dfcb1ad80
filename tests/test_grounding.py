"""Lesson 09's figures and contracts, asserted on the mechanism and on the command."""

import copy
import hashlib
import json
import unicodedata
from dataclasses import replace

import pytest

from helpers import methods
from modules.grounding import mechanism as grounding
from modules.grounding import trace as grounding_lesson
from modules.catalogue import QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS, opaque_ref, query_by_id
from modules.common.checks import canonical_json
from modules.grounding.mechanism import (BASELINE, CHECKS, GROUNDED, LAYERS, NOTHING_QUERY, VARIANTS, count_exclusions,
                               exclusions, failure_counts, first_failing_layer, fingerprinted, locate,
                               query_fingerprint, run_query, run_variant, trace_record, user_view)

DENIED_NEIGHBOUR = opaque_ref("PW-L004")
SECTIONS = ("input", "source", "retrieval", "permission/freshness", "ranking", "assembly", "decision",
            "presentation", "generation", "change")


def record(query_id):
    query = NOTHING_QUERY if query_id == NOTHING_QUERY.id else query_by_id(query_id)
    return trace_record(run_query(query))


@pytest.fixture(scope="module")
def traced():
    return json.loads(methods("grounding", "--json").stdout)


def test_one_record_joins_every_layer_of_the_detail_query(traced):
    d = traced["detail"]
    assert d["query_id"] == "PW-Q002" and all(section in d for section in SECTIONS) and LAYERS == SECTIONS
    assert d["fingerprint"] == query_fingerprint(fingerprinted(d))
    assert [(t["name"], t["version"]) for t in d["input"]["transformations"]] == [
        ("normalise", "normalise/2"), ("unit-to-mm", "unit-to-mm/1"), ("family-terms", "family-terms/1"),
        ("terms", "terms/1")]
    channels = {c["channel"]: c for c in d["retrieval"]["channels"]}
    assert set(channels) == {"lexical", "structured", "vector"}     # the structured channel is there too
    assert channels["vector"]["hits"][0]["candidate"] == DENIED_NEIGHBOUR
    gate = d["permission/freshness"]
    assert gate["policy"] == "assisted-use-policy/4" and gate["as_of"] == "2026-11-01"
    assert [(w["subject"], w["reason_codes"]) for w in gate["withheld"]] == [
        ("PW-L008", ["PROHIBITED_FAMILY"]), (opaque_ref("PW-L005"), ["PERMISSION_UNKNOWN"]),
        (DENIED_NEIGHBOUR, ["PERMISSION_DENIED"]), (opaque_ref("PW-L016"), ["PERMISSION_DENIED"]),
        ("PW-L006", ["STALE_FIELD"])]
    assert [(r["cluster"], r["shown"]) for r in d["ranking"]["fused"][:3]] == [("C-01", "PW-L001"),
                                                                             ("C-02", "PW-L003"), ("C-14", "PW-L015")]
    assert d["assembly"]["listings"] == ["PW-L001", "PW-L003", "PW-L009"]
    assert [f["field_id"] for f in d["assembly"]["packet"]][::4] == ["PW-L001#title", "PW-L003#title",
                                                                     "PW-L009#title"]
    assert (d["decision"]["state"], d["decision"]["empty_cause"], d["decision"]["fallback"]) == ("respond", None, None)
    assert d["change"]["versions"] == BASELINE


def test_ranks_are_recounted_after_the_gate():
    # The denied neighbour was vector #1; PW-L001 is vector #2 once it is gone, as in lessons 07 and 08.
    top = record("PW-Q002")["ranking"]["fused"][0]
    assert top["channel_ranks"] == {"lexical": 1, "structured": 1, "vector": 2}
    assert top["ordering_score"] == round(2 / 61 + 1 / 62, 6)


def test_every_query_state_and_cause(traced):
    got = [(q["query_id"], q["state"], q["empty_cause"], q["user_state"]) for q in traced["queries"]]
    assert got == [("PW-Q001", "respond", None, "answer"), ("PW-Q002", "respond", None, "answer"),
                   ("PW-Q003", "degraded", None, "answer_partial"), ("PW-Q004", "conflict", "all_excluded", "no_match"),
                   ("PW-Q005", "unauthorized", "all_unauthorized", "no_match"), ("PW-Q006", "clarify", None, "clarify"),
                   ("PW-Q007", "clarify", "transformation_failed", "clarify"),
                   ("PW-Q008", "prohibited_scope", "out_of_scope", "out_of_scope"), ("PW-Q009", "respond", None, "answer")]


def test_the_old_contradictions_are_gone(traced):
    rows = {q["query_id"]: q for q in traced["queries"]}
    # PW-Q007 was `respond` with a packet; PW-Q004 `empty (all_stale)`; PW-Q008 retrieved and packed.
    assert rows["PW-Q007"]["state"] == "clarify" and rows["PW-Q007"]["packet"] == []
    assert rows["PW-Q004"]["state"] == "conflict"
    assert rows["PW-Q008"]["stopped"] == "PROHIBITED_QUERY_SCOPE" and rows["PW-Q008"]["gate"] == []
    assert rows["PW-Q008"]["packet"] == [] and rows["PW-Q008"]["ranking"] == []
    q8 = record("PW-Q008")
    assert q8["retrieval"]["channels"] == [] and not q8["permission/freshness"]["ran"]
    assert rows["PW-Q001"]["ranking"][0] == ["C-01", "PW-L001", 0.04918]   # three channels, as in lesson 07


# ---------------------------------------------------------------- the fingerprint

def test_fingerprint_is_the_hash_of_the_canonical_contract():
    contract = fingerprinted(record("PW-Q002"))
    assert set(contract) == {"query", "family", "diameter_mm", "state", "terms", "versions"}
    value = query_fingerprint(contract)
    assert value == hashlib.sha256(canonical_json(contract).encode()).hexdigest()
    assert query_fingerprint(dict(reversed(list(contract.items())))) == value
    assert query_fingerprint(dict(contract, versions=dict(contract["versions"], source="source/2"))) != value
    assert query_fingerprint(dict(contract, diameter_mm="18")) != value


def test_nfc_and_nfd_spellings_share_a_fingerprint():
    # Before: query_fingerprint gave the two spellings different fingerprints, though its docstring
    # said they shared one.
    contract = dict(fingerprinted(record("PW-Q002")), query="joint d\u00e9tanche 16 mm", terms=["d\u00e9tanche"])
    nfd = {unicodedata.normalize("NFD", k): (unicodedata.normalize("NFD", v) if isinstance(v, str) else v)
           for k, v in contract.items()}
    nfd["terms"] = [unicodedata.normalize("NFD", "d\u00e9tanche")]
    assert canonical_json(nfd) != canonical_json(contract)
    assert query_fingerprint(nfd) == query_fingerprint(contract)
    nfd_query = replace(query_by_id("PW-Q001"), text=unicodedata.normalize("NFD", "m\u00e9canique seal 16 mm"))
    nfc_query = replace(nfd_query, text="m\u00e9canique seal 16 mm")
    assert trace_record(run_query(nfd_query))["fingerprint"] == trace_record(run_query(nfc_query))["fingerprint"]


# ---------------------------------------------------------------- what the shopper sees

def test_denied_and_nothing_matched_differ_internally_only(traced):
    contrast = traced["denied_versus_nothing_matched"]
    denied, nothing = contrast["retrieved_then_denied"], contrast["nothing_matched"]
    assert (denied["query_id"], denied["cause"]) == ("PW-Q005", "all_unauthorized")
    assert (nothing["query_id"], nothing["cause"]) == ("GR-Q001", "no_permitted_match")
    assert dict(denied["user_view"], query="") == dict(nothing["user_view"], query="")
    assert denied["user_view"]["state"] == "no_match" and contrast["user_views_equal_apart_from_the_query"] is True


def test_locate_tells_not_retrieved_from_retrieved_then_denied():
    q2 = record("PW-Q002")
    assert locate(q2, "PW-L004") == "retrieved, then excluded at permission/freshness: PERMISSION_DENIED"
    assert locate(q2, "PW-L002") == "retrieved, then collapsed into PW-L001 (cluster C-01)"
    assert locate(q2, "PW-L001") == "in the packet"
    assert locate(q2, "PW-L007") == "retrieved, then excluded at assembly: TITLE_FIELD_CONFLICT"
    assert locate(q2, "PW-L012") == "usable, ranked below the packet"
    assert locate(q2, "PW-L011").startswith("not retrieved; the structured channel rejected it")
    assert locate(record("PW-Q008"), "PW-L001") == "not retrieved"


def test_user_view_hides_every_trace_of_denied_listings():
    for query in (*QUERIES, NOTHING_QUERY):
        rec = trace_record(run_query(query))
        seen = user_view(rec)
        assert tuple(seen) == ("query", "state", "message", "answer") and seen == rec["presentation"]
        text = json.dumps(seen)
        for secret in (*RESTRICTED_IDS, *RESTRICTED_STRINGS, *(opaque_ref(i) for i in RESTRICTED_IDS), "ref-"):
            assert secret not in text, (query.id, secret)
        stripped = copy.deepcopy(rec)
        stripped["permission/freshness"]["withheld"] = [
            w for w in rec["permission/freshness"].get("withheld", ()) if not w["subject"].startswith("ref-")]
        assert user_view(stripped) == seen


def test_a_broken_pipeline_is_not_shown_to_the_shopper():
    for variant in VARIANTS:
        after = trace_record(run_variant(variant, query_by_id(variant.query)))
        assert after["presentation"]["state"] == "unavailable" and after["presentation"]["answer"] == []


# ---------------------------------------------------------------- the walk

@pytest.mark.parametrize("variant, layer", [(VARIANTS[0], "input"), (VARIANTS[1], "source"),
                                            (VARIANTS[2], "permission/freshness")])
def test_the_walk_names_the_first_failing_layer(variant, layer, traced):
    rec = trace_record(run_variant(variant, query_by_id(variant.query)))
    assert first_failing_layer(rec)[0] == layer
    shown = {v["name"]: v["first_failing_layer"] for v in traced["variants"]}
    assert shown[variant.name] == layer and variant.seen_at != layer


def test_each_variant_replaces_exactly_one_stage():
    for variant in VARIANTS:
        changed = [name for name in GROUNDED.names() if GROUNDED.stage(name) != variant.pipeline.stage(name)]
        assert changed == [variant.change[0]] and variant.pipeline.versions()[changed[0]] == variant.change[1]


def test_symptoms_show_far_from_the_failing_layer():
    q1 = trace_record(run_variant(VARIANTS[0], query_by_id("PW-Q001")))
    assert q1["decision"]["state"] == "clarify"         # asks for a unit it was given
    q4 = trace_record(run_variant(VARIANTS[2], query_by_id("PW-Q004")))
    assert q4["assembly"]["listings"] == ["PW-L006"] and q4["decision"]["state"] == "respond"
    assert "PW-L006#price_eur" in [f["field_id"] for f in q4["assembly"]["packet"]]   # a 2020 price as current
    assert record("PW-Q004")["decision"]["state"] == "conflict"


@pytest.mark.parametrize("query", [*QUERIES, NOTHING_QUERY], ids=lambda q: q.id)
def test_a_healthy_run_holds_at_every_layer(query):
    rec = trace_record(run_query(query))
    failed = [(layer, why) for layer in LAYERS for held, why in [CHECKS[layer](rec)] if not held]
    assert not failed


def test_failure_counts_over_the_healthy_and_broken_records():
    healthy = [record(q.id) for q in QUERIES]
    assert failure_counts(healthy) == dict.fromkeys(("all_held",) + LAYERS, 0) | {"all_held": 9}
    broken = [trace_record(run_variant(v, query_by_id(v.query))) for v in VARIANTS]
    counts = failure_counts(healthy + broken)
    assert list(counts) == ["all_held", *LAYERS]
    assert (counts["all_held"], counts["input"], counts["source"], counts["permission/freshness"]) == (9, 1, 1, 1)


def test_permission_exclusions_triple_after_the_rebuild_with_the_same_policy(traced):
    agg = traced["exclusions_by_reason"]
    assert (agg["permission_before"], agg["permission_after"]) == (21, 63)
    assert agg["policy_version"] == ["assisted-use-policy/4", "assisted-use-policy/4"]
    assert agg["source_version"] == ["source/1", "source/2-rebuild"]
    assert agg["after"]["PERMISSION_UNKNOWN"] == 63 and agg["after"]["PERMISSION_DENIED"] == 0
    # Fail-closed held: nothing the rebuilt index could not vouch for reached a packet.
    for query in QUERIES:
        rebuilt = trace_record(run_variant(VARIANTS[1], query))
        packed = set(rebuilt["assembly"].get("listings", ()))
        assert not packed & {"PW-L001", "PW-L002", "PW-L004", "PW-L007", "PW-L008", "PW-L014", "PW-L015", "PW-L016"}


# ---------------------------------------------------------------- each check reads its own section

def _broken(rec, path, value):
    rec = copy.deepcopy(rec)
    where = rec
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value(where[path[-1]])
    return rec


BREAKS = [
    ("input", ("input", "transformations"), lambda t: [t[0], dict(t[1], status="unresolved")] + t[2:]),
    ("source", ("source", "missing"), lambda m: dict(m, permission=2)),
    ("retrieval", ("retrieval", "channels"), lambda c: [dict(c[0], hits=c[0]["hits"] + c[0]["hits"][:1])] + c[1:]),
    ("permission/freshness", ("permission/freshness", "passed"), lambda p: p + [{"candidate": "X", "permission": None}]),
    ("ranking", ("ranking", "fused"), lambda f: list(reversed(f))),
    ("ranking", ("ranking", "received"), lambda r: r[1:]),
    ("assembly", ("assembly", "listings"), lambda listings: ["PW-L012"] + listings),
    ("decision", ("decision", "state"), lambda _: "clarify"),
    ("presentation", ("presentation", "message"), lambda m: m + " " + RESTRICTED_STRINGS[0]),
    ("generation", ("generation", "answer"), lambda a: a + [{"text": "x", "cites": ["PW-L012#title"]}]),
    ("change", ("change", "versions"), lambda v: dict(v, fusion="rrf-30/9")),
]


@pytest.mark.parametrize("layer, path, value", BREAKS)
def test_every_layer_check_can_fail(layer, path, value):
    rec = _broken(record("PW-Q002"), path, value)
    held, why = CHECKS[layer](rec)
    assert not held and why


@pytest.mark.parametrize("layer", LAYERS)
def test_a_check_reads_only_its_own_section(layer):
    rec = record("PW-Q003")
    alone = {key: value for key, value in rec.items() if key not in SECTIONS or key == layer}
    assert CHECKS[layer](alone) == CHECKS[layer](rec)


# ---------------------------------------------------------------- the command

def test_plain_output_names_the_figures():
    text = methods("grounding").stdout.decode()
    for layer in ("input", "source", "permission/freshness"):
        assert f"First failing layer: {layer}." in text.replace("\n", " ")
    assert "Permission exclusions 21 -> 63; policy version assisted-use-policy/4 -> assisted-use-policy/4." in \
        text.replace("\n", " ")
    assert "User views identical apart from the query text: yes." in text


@pytest.mark.parametrize("query_id", [q.id for q in QUERIES])
def test_no_restricted_string_in_any_output(query_id):
    for mode in ((), ("--json",)):
        out = methods("grounding", "--query", query_id, *mode).stdout.decode()
        for secret in (*RESTRICTED_IDS, *RESTRICTED_STRINGS):
            assert secret not in out, (query_id, mode, secret)
        if not mode:
            assert max(len(line) for line in out.splitlines()) <= 88, query_id


def test_query_option():
    record_ = json.loads(methods("grounding", "--json", "--query", "PW-Q005").stdout)
    assert record_["detail"]["query_id"] == "PW-Q005" and record_["user_view"]["state"] == "no_match"
    done = methods("grounding", "--query", "PW-Q999", check=False)
    assert done.returncode == 2 and b"query_id 'PW-Q999' is not one of the catalogue's queries" in done.stderr


def test_same_record_on_every_run():
    assert grounding_lesson.trace() == grounding_lesson.trace()


@pytest.mark.parametrize("call, error, words", [
    (lambda: count_exclusions([{"permission/freshness": {"withheld": [{"subject": "x", "reason_codes": ["secret"]}]},
                                "assembly": {}}]), ValueError, "'secret' is not a safe reason code"),
    (lambda: query_fingerprint(["seal"]), TypeError, "contract must be a dict, got list"),
    (lambda: query_fingerprint({"query": {1, 2}}), TypeError, "must be a JSON value"),
    (lambda: query_fingerprint({"query": float("nan")}), ValueError, "must be a finite number"),
    (lambda: run_query("PW-Q001"), TypeError, "query must be a Query, got str 'PW-Q001'"),
    (lambda: grounding_lesson.trace(query="PW-Q999"), ValueError, "query_id 'PW-Q999'"),
    (lambda: grounding_lesson.trace(query=2), TypeError, "query_id must be a str, got int 2"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_exclusions_list_the_gate_then_the_evidence_checks():
    rows = exclusions(record("PW-Q004"))
    assert [layer for _, layer, _ in rows] == ["permission/freshness"] * 5 + ["assembly"] * 7


# ---------------------------------------------------------------- tasks that teach

def test_the_modules_own_functions_fail_the_tasks(tmp_path):
    # Issue 36: a learner who pastes the reading's function fails its task, and only on the test
    # of what the task adds (each docstring says what "the lab's ... lets through").
    from helpers import passed_tests, pasted_text
    from modules.grounding import checks
    passed = passed_tests("grounding", pasted_text("grounding", [
        (checks.check_input, "check_input"), (checks.check_permission_freshness, "check_permission_freshness"),
        (checks.check_ranking, "check_ranking"), (grounding.query_fingerprint, "request_fingerprint"),
        (checks.user_view, "user_view"), (checks.failure_counts, "regression_counts")],
        preamble="from modules.common.checks import short\n",
        # the lab's user_view walks the layers up to the decision; the file's walk takes no `layers`
        edits=[("broken = first_failing_layer(record, layers=LAYERS[:LAYERS.index(\"decision\") + 1])",
                "found = first_failing_layer(record)\n    broken = found is not None and found[0] in LAYERS[:7]")]))
    assert sorted(name for name, ok in passed.items() if not ok) == sorted([
        "test_task1_a_failed_step_on_one_size_fails", "test_task2_a_permission_exclusion_names_a_ref_only",
        "test_task3_one_cluster_per_listing_shown_by_its_lowest_id",
        "test_task4_a_component_upgrade_keeps_it_another_request_does_not",
        "test_task4_the_hash_of_the_canonical_request", "test_task4_unicode_spelling_does_not_matter",
        "test_task4_key_order_does_not_matter",
        "test_task6_an_answer_line_that_fails_generation_is_not_shown", "test_task7_regression_counts",
        "test_task7_unmatched_queries_are_refused"])


def test_the_default_trace_shows_every_curriculum_figure():
    # Issue 35: every figure the curriculum lists for lesson 09 prints without an option.
    text = " ".join(methods("grounding", "--plain").stdout.decode().split())
    figures = [
        "input > source > retrieval > permission/freshness > ranking > assembly > decision > presentation > "
        "generation > change",                                        # the ten layers, in walk order
        "Fingerprint e166ffd6ed31625965f5637c8827841fefdc47a0c16b1e533f446ffea6bab5ee",   # PW-Q002, for replay
        "unit-to-mm (unit-to-mm/1, applied): 16 mm -> diameter_mm 16",  # a transformation, named and versioned
        "ref-d6dacd426e3c unauthorized PERMISSION_DENIED P2",         # an exclusion, by opaque ref and code
        "C-01 PW-L001 0.048916 lexical #1, structured #1, vector #2",   # a rank reason
        "PW-L001#title, PW-L001#family",                               # packet field ids
        "PW-Q008 prohibited_scope out_of_scope -",                     # a prohibited scope: no packet
        "Stopped before retrieval, so no channel ran, nothing was retrieved and no packet was assembled: "
        "PW-Q007 (QUERY_TRANSFORM_FAILED), PW-Q008 (PROHIBITED_QUERY_SCOPE).",
        "decision: respond; reason codes EVIDENCE_ELIGIBLE; clauses P7; empty cause -; fallback -.",
        "PW-L011: not retrieved", "ref-d6dacd426e3c: retrieved, then excluded at permission/freshness",
        "retrieved, then denied unauthorized all_unauthorized 3 no_match",
        "nothing matched incompatible no_permitted_match 3 no_match",
        "User views identical apart from the query text: yes.",
        "First failing layer: input.", "First failing layer: source.", "First failing layer: permission/freshness.",
        "1 contract decision input", "2 source permission/freshness source", "3 gate generation permission/freshness",
        "PERMISSION_DENIED 14 0", "PERMISSION_UNKNOWN 7 63",
        "Permission exclusions 21 -> 63; policy version assisted-use-policy/4 -> assisted-use-policy/4.",
        "First failing layer of the rebuild: source (walk 2).",
    ]
    missing = [figure for figure in figures if figure not in text]
    assert not missing, missing


def test_the_rebuild_is_named_by_one_of_the_ten_layers():
    # Lessons 12 and 14 name this rebuild by lesson 09's layers: the layer whose own section
    # shows the defect (8 of 16 records without a permission) is "source".
    rebuilt = trace_record(run_variant(VARIANTS[1], query_by_id("PW-Q001")))
    assert first_failing_layer(rebuilt) == ("source", "8 of 16 records have no permission")
    assert VARIANTS[1].change[0] == "source" and "source" in LAYERS
