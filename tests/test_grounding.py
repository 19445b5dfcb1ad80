"""Lesson 09's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import methods
from modules import grounding
from modules.catalogue import QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS, opaque_ref, query_by_id
from modules.grounding import (BASELINE_VERSIONS, HEALTHY, LAYERS, NOTHING_QUERY, VARIANTS, build_index,
                               count_exclusions, first_failing_layer, layer_checks, locate, query_fingerprint,
                               run_query, user_view)

INDEX = build_index()
DENIED_NEIGHBOUR = opaque_ref("PW-L004")


def record(query_id, pipeline=HEALTHY, index=INDEX):
    return run_query(query_by_id(query_id), pipeline, index)


@pytest.fixture(scope="module")
def traced():
    return json.loads(methods("grounding", "--json").stdout)


def test_one_record_joins_every_layer_of_the_detail_query(traced):
    d = traced["detail"]
    assert d["query_id"] == "PW-Q002" and d["fingerprint"] == query_fingerprint(d["query"], BASELINE_VERSIONS)
    assert [(s["name"], s["version"]) for s in d["transformations"]] == [
        ("normalise", "normalise/1"), ("size", "size-parser/1"), ("terms", "terms/1")]
    assert d["size_filter_mm"] == ["16"]
    assert [h["ref"] for h in d["candidates"]["lexical"]] == ["PW-L001", "PW-L002", DENIED_NEIGHBOUR, "PW-L003", "PW-L008"]
    assert [h["ref"] for h in d["candidates"]["vector"]][:1] == [DENIED_NEIGHBOUR]  # the closest neighbour is denied
    assert [(e["ref"], e["layer"], e["category"], e["reason"], e["rule_version"]) for e in d["exclusions"]] == [
        (DENIED_NEIGHBOUR, "permission/freshness", "permission", "permission_denied", "assist-policy/4"),
        ("PW-L008", "permission/freshness", "scope", "prohibited_family", "scope/1"),
        ("PW-L007", "assembly", "evidence", "field_conflict", "packet/1")]
    assert d["clusters"] == [{"cluster": "C-01", "kept": "PW-L001", "collapsed": ["PW-L002"]}]
    assert [(r["ref"], r["reason"]) for r in d["ranking"]] == [
        ("PW-L001", "lexical #1, vector #1"), ("PW-L003", "lexical #3, vector #3"), ("PW-L007", "vector #4")]
    assert [f["field_id"] for f in d["packet"]][::4] == ["PW-L001#title", "PW-L003#title"]
    assert (d["state"], d["cause"], d["fallback"]) == ("respond", None, None)


def test_ranks_are_recounted_after_the_gate():
    # The denied neighbour was vector #1; PW-L001 must not keep a score that shows the hole it left.
    top = record("PW-Q002")["ranking"][0]
    assert top["ref"] == "PW-L001" and top["ordering_score"] == round(2 / 61, 6)


def test_every_query_state_and_cause(traced):
    got = [(q["query_id"], q["state"], q["cause"]) for q in traced["queries"]]
    assert got == [("PW-Q001", "respond", None), ("PW-Q002", "respond", None), ("PW-Q003", "respond", None),
                   ("PW-Q004", "empty", "all_stale"), ("PW-Q005", "empty", "all_unauthorized"),
                   ("PW-Q006", "clarify", "missing_unit"), ("PW-Q007", "respond", None),
                   ("PW-Q008", "prohibited", "prohibited_scope"), ("PW-Q009", "respond", None)]


def test_fingerprint_is_stable_normalised_and_version_sensitive():
    text = "carbon ceramic pump seal 16 mm"
    value = query_fingerprint(text, BASELINE_VERSIONS)
    assert len(value) == 64 and set(value) <= set("0123456789abcdef")
    assert query_fingerprint("  Carbon   CERAMIC pump seal 16 mm ", BASELINE_VERSIONS) == value
    assert query_fingerprint(text, dict(reversed(list(BASELINE_VERSIONS.items())))) == value
    assert query_fingerprint(text, dict(BASELINE_VERSIONS, index="pw-index/2026-11-02-rebuild")) != value
    assert query_fingerprint("carbon ceramic pump seal 18 mm", BASELINE_VERSIONS) != value
    import hashlib
    for query in (text, 'seal "16" mm \\ back\tslash', "joint \u00e9tanche 16 mm \U0001F527", "ctrl \x01 \x7f"):
        versions = dict(BASELINE_VERSIONS, note='say "hi" \u00e9')
        canonical = json.dumps({"query": " ".join(query.casefold().split()), "versions": versions},
                               sort_keys=True, separators=(",", ":"))
        assert query_fingerprint(query, versions) == hashlib.sha256(canonical.encode()).hexdigest(), query


def test_not_retrieved_and_retrieved_then_denied_differ_internally_only(traced):
    contrast = traced["denied_versus_not_retrieved"]
    denied, nothing = contrast["retrieved_then_denied"], contrast["not_retrieved"]
    assert (denied["cause"], len(denied["exclusions"])) == ("all_unauthorized", 2)
    assert (nothing["cause"], nothing["exclusions"]) == ("no_permitted_match", [])
    assert all(ref.startswith("ref-") for ref, _ in denied["exclusions"])
    assert dict(denied["user_view"], query="") == dict(nothing["user_view"], query="")
    assert denied["user_view"]["state"] == "no_match" and contrast["user_views_equal_apart_from_the_query"] is True
    q2 = record("PW-Q002")
    assert locate(q2, "PW-L004") == "retrieved, then excluded at permission/freshness: permission_denied"
    assert locate(q2, "PW-L016") == "not retrieved"
    assert locate(q2, "PW-L002") == "retrieved, then collapsed into PW-L001 (cluster C-01)"
    assert locate(q2, "PW-L001") == "in the packet"
    assert locate(q2, "PW-L012") == "not retrieved: vector rejected"


def test_user_view_hides_every_trace_of_denied_listings():
    for query in (*QUERIES, NOTHING_QUERY):
        rec = run_query(query, HEALTHY, INDEX)
        seen = user_view(rec)
        assert set(seen) == {"query", "state", "message", "answer"}
        text = json.dumps(seen)
        for secret in (*RESTRICTED_IDS, *RESTRICTED_STRINGS, *(opaque_ref(i) for i in RESTRICTED_IDS)):
            assert secret not in text, (query.id, secret)
        stripped = dict(rec, exclusions=[e for e in rec["exclusions"] if e["category"] != "permission"])
        assert user_view(stripped) == seen


@pytest.mark.parametrize("pipeline, query_id, layer", [
    (VARIANTS[0], "PW-Q001", "input"),
    (VARIANTS[1], "PW-Q001", "source"),
    (VARIANTS[2], "PW-Q004", "permission/freshness"),
])
def test_the_walk_names_the_first_failing_layer(pipeline, query_id, layer, traced):
    index = pipeline.build_index()
    checks = layer_checks(run_query(query_by_id(query_id), pipeline, index), index)
    assert [c["layer"] for c in checks] == list(LAYERS)
    assert first_failing_layer({c["layer"]: c["passed"] for c in checks}) == layer
    shown = {v["name"]: v["first_failing_layer"] for v in traced["variants"]}
    assert shown[pipeline.name] == layer


def test_symptoms_show_far_from_the_failing_layer():
    assert record("PW-Q001", VARIANTS[0], INDEX)["state"] == "clarify"      # asks for a unit it was given
    broken = record("PW-Q004", VARIANTS[2], INDEX)
    assert broken["ranking"][0]["ref"] == "PW-L006" and broken["state"] == "respond"  # stale seal ranks first
    assert record("PW-Q004")["cause"] == "all_stale"


def test_a_healthy_run_passes_every_layer():
    for query in QUERIES:
        checks = layer_checks(run_query(query, HEALTHY, INDEX), INDEX)
        assert all(c["passed"] for c in checks), (query.id, [c for c in checks if not c["passed"]])


def test_permission_exclusions_triple_after_the_rebuild_with_the_same_policy(traced):
    agg = traced["exclusions_by_reason"]
    assert agg["before"] == {"permission_denied": 4, "permission_unknown": 2, "prohibited_family": 6, "stale": 2,
                             "field_conflict": 4}
    assert agg["after"] == {"permission_denied": 0, "permission_unknown": 18, "prohibited_family": 6, "stale": 2,
                            "field_conflict": 0}
    assert (agg["permission_before"], agg["permission_after"]) == (6, 18)
    assert agg["policy_version"][0] == agg["policy_version"][1] == "assist-policy/4"
    assert agg["index_version"][0] != agg["index_version"][1]
    # Fail-closed held: nothing the rebuilt index could not vouch for reached a packet.
    rebuilt = VARIANTS[1].build_index()
    missing = {r["id"] for r in rebuilt if r["permission"] is None}
    assert sorted(missing) == ["PW-L002", "PW-L004", "PW-L007", "PW-L015", "PW-L016"]
    for query in QUERIES:
        packet = {f["field_id"].split("#")[0] for f in run_query(query, VARIANTS[1], rebuilt)["packet"]}
        assert not packet & missing


def test_plain_output_names_the_figures():
    text = methods("grounding").stdout.decode()
    assert "First failing layer: input" in text and "First failing layer: source" in text
    assert "First failing layer: permission/freshness" in text
    assert "Permission exclusions 6 -> 18; policy version assist-policy/4 -> assist-policy/4." in text
    assert "User views identical apart from the query text: yes." in text


@pytest.mark.parametrize("query_id", [q.id for q in QUERIES])
def test_no_restricted_string_in_any_output(query_id):
    for mode in ((), ("--json",)):
        out = methods("grounding", "--query", query_id, *mode).stdout.decode()
        for secret in (*RESTRICTED_IDS, *RESTRICTED_STRINGS):
            assert secret not in out, (query_id, mode, secret)


def test_query_option():
    record_ = json.loads(methods("grounding", "--json", "--query", "PW-Q005").stdout)
    assert record_["detail"]["query_id"] == "PW-Q005" and record_["user_view"]["state"] == "no_match"
    done = methods("grounding", "--query", "PW-Q999", check=False)
    assert done.returncode == 2 and b"query_id 'PW-Q999' is not one of the catalogue's queries" in done.stderr


def test_same_record_on_every_run():
    assert grounding.trace() == grounding.trace()


@pytest.mark.parametrize("call, error, words", [
    (lambda: first_failing_layer(["input"]), TypeError, "results must be a dict of layer -> bool, got list"),
    (lambda: first_failing_layer({"input": True}), ValueError, "layer 'source' has no check result"),
    (lambda: first_failing_layer({"inputs": False}), ValueError, "unknown layer(s) ['inputs']"),
    (lambda: first_failing_layer({"input": 0}), TypeError, "results['input'] must be True or False, got int 0"),
    (lambda: count_exclusions([{"exclusions": [{"reason": "secret title"}]}]), ValueError,
     "exclusion reason 'secret title' is not a safe reason code"),
    (lambda: query_fingerprint("   ", BASELINE_VERSIONS), ValueError, "query text must not be blank, got '   '"),
    (lambda: query_fingerprint(16, BASELINE_VERSIONS), TypeError, "query text must be a str, got int 16"),
    (lambda: query_fingerprint("seal", {}), TypeError, "versions must be a non-empty dict"),
    (lambda: query_fingerprint("seal", {"index": 2}), TypeError, "versions['index'] must map a str to a str, got 2"),
    (lambda: run_query("PW-Q001"), TypeError, "query must be a catalogue Query, got str 'PW-Q001'"),
    (lambda: run_query(QUERIES[0], "healthy"), TypeError, "pipeline must be a Pipeline, got str 'healthy'"),
    (lambda: grounding.trace(query="PW-Q999"), ValueError, "query_id 'PW-Q999'"),
    (lambda: grounding.trace(query=2), TypeError, "query_id must be a str, got int 2"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def _broken(**changes):
    rec = json.loads(json.dumps(record("PW-Q002")))
    for key, change in changes.items():
        rec[key] = change(rec[key])
    return rec


@pytest.mark.parametrize("layer, rec", [
    ("retrieval", lambda: _broken(size_filter_mm=lambda _: ["18"])),
    ("ranking", lambda: _broken(ranking=lambda r: [dict(r[0], ref=DENIED_NEIGHBOUR)] + r[1:])),
    ("ranking", lambda: _broken(ranking=lambda r: list(reversed(r)))),
    ("assembly", lambda: _broken(packet=lambda p: p + [{"field_id": "PW-L009#title", "value": "x"}])),
    ("decision", lambda: _broken(state=lambda _: "clarify")),
    ("presentation", lambda: _broken(answer=lambda a: a + [{"text": RESTRICTED_STRINGS[0], "cites": []}])),
    ("generation", lambda: _broken(answer=lambda a: a + [{"text": "x", "cites": ["PW-L009#title"]}])),
    ("change", lambda: _broken(versions=lambda v: dict(v, ranker="rrf-30/9"))),
])
def test_every_layer_check_can_fail(layer, rec):
    checks = {c["layer"]: c for c in layer_checks(rec(), INDEX)}
    assert not checks[layer]["passed"] and checks[layer]["evidence"] != "ok"
