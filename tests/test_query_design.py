"""Lesson 07's query design: aliases, a narrowing rewrite, identifiers and declared conditions."""

import json

import pytest

from helpers import methods
from modules.catalogue import QUERIES, RESTRICTED_IDS
from modules.catalogue.fixture import DESIGN_QUERIES
from modules.eligibility import evaluate
from modules.hybrid import parse_query
from modules.hybrid import query_design as qd


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("hybrid", "--json").stdout)["query_design"]


def test_the_design_queries_are_new_ids():
    assert not {q.id for q in DESIGN_QUERIES} & {q.id for q in QUERIES}


def test_an_alias_is_a_versioned_step_that_keeps_the_original_and_recovers_a_listing(record):
    contract = qd.with_aliases(qd.design_query_by_id("PW-Q010"))
    step = contract.transformations[-1]
    assert (step.name, step.version, step.input) == ("aliases", qd.ALIAS_VERSION, "nbr oring")
    assert contract.original == "nbr oring" and "nitrile" in contract.terms
    a = record["aliases"]
    assert a["lexical_before"] == [] and "PW-L011" in a["lexical_after"] and "PW-L011" in a["gained"]


def test_a_category_rewrite_loses_a_listing_the_shopper_wanted(record):
    r = record["rewrite"]
    assert r["step"]["output"] == "family mechanical-seal"
    assert r["lost_relevance"].get("PW-L009") == 2 and r["ranked"][1] < r["ranked"][0]


def test_the_identifier_rule_decides_not_the_larger_score(record):
    i = record["identifier"]
    assert i["raw_state"] == "clarify" and i["state"] == "ready"
    assert i["identifier_proposed"] == ["PW-L009"] and i["decided_first"] == "PW-L009"
    assert i["fused_first"] != "PW-L009" and i["fused_first_score"] > i["identified_score"]
    assert i["vector_first"] != "PW-L009"


def test_five_judgements_are_kept_apart(record):
    keys = {"channel_similarity", "candidate_relevance", "evidence_sufficiency", "compatibility_control",
            "behaviour_eligibility"}
    for j in record["identifier"]["judgements"]:
        assert keys <= set(j)
    first, second = record["identifier"]["judgements"][:2]
    assert first["candidate_relevance"] == 2 and second["candidate_relevance"] == 0
    assert second["channel_similarity"].get("vector") == 1   # the most similar is not the relevant one


def test_conditions_are_declared_and_the_tolerance_is_the_rules():
    assert {c.kind for c in qd.CONDITIONS} == {"gate", "facet", "rank feature"}
    contract = parse_query(qd.design_query_by_id("PW-Q013"))
    from modules.catalogue import LISTINGS
    verdicts = {i: ok for i, ok, _ in qd.condition_verdicts(contract, LISTINGS)}
    assert verdicts["PW-L001"] and verdicts["PW-L010"] and not verdicts["PW-L006"]
    exact = (qd.Condition("diameter_mm", "gate"),)
    assert not any(ok for _i, ok, _ in qd.condition_verdicts(contract, LISTINGS, exact))
    with pytest.raises(ValueError, match="kind"):
        qd.Condition("price_eur", "boost")


def test_the_record_names_no_restricted_listing(record):
    text = json.dumps(record)
    assert not [i for i in RESTRICTED_IDS if i in text]


def test_each_design_query_has_the_contract_and_ranking_lesson_08_gives_it(record):
    for row in record["rows"]:
        run = evaluate(qd.design_query_by_id(row["query_id"]))
        assert row["contract_state"] == run.output("contract").state
        assert row["ranking"] == [[f.cluster_id, f.listing_id, round(f.ordering_score, 6)]
                                  for f in run.output("fusion").candidates]


def test_lesson_14_completes_the_five_judgements():
    from modules.eligibility import check_evidence, matches_request
    pipelines = qd.design_pipelines()
    run = qd.run(pipelines["identifier"][1], qd.design_query_by_id("PW-Q012"))
    first = qd.judgements(run, "PW-L009", qd.RELEVANCE["PW-Q012"], check_evidence, matches_request)
    assert (first["evidence_sufficiency"], first["compatibility_control"]) == ("sufficient", "compatible")
    assert qd.judgements(run, "PW-L009", {})["evidence_sufficiency"] == qd.LATER
