"""Lesson 12, channels: the image channel, the two evaluations of the index, removals, the ten
failure stages, the metrics (checked against ir-measures) and the long-tail anomaly."""

import json
import random
import time
from dataclasses import asdict

import pytest

from helpers import ROOT, failed_tasks, figures_missing, methods
from modules.channels import mechanism as ch
from modules.channels import trace as channels_trace
from modules.channels.failures import (CHANNEL_BUDGET_MS, EMPTY_CAUSES, FAILURES, FAULT_MARK, VISIBLE, bounded_packet,
                                       empty_cause, failing, fallback, task_ms)
from modules.channels.metrics import (RELEVANCE, SEGMENTS, hit_at_k, judged, metric_row, ndcg_at_k, precision_at_k,
                                      reciprocal_rank)
from modules.common import ann
from modules.catalogue import LISTINGS, QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS, query_by_id
from modules.catalogue.images import IMAGE_QUERIES, IMAGE_VERSION, QUERY_IMAGES, image_problem, query_image
from modules.common.pipeline import Pipeline, Stage
from modules.catalogue.policy import STATES
from modules.common.vectors import Vector
from modules.eligibility import evaluate
from modules.channels.trace import query_row
from modules.eligibility.trace import query_row as lesson_08_row
from modules.hybrid import parse_query

ALL = {q.id: q for q in QUERIES + IMAGE_QUERIES}
PHOTOS = [q for q, img in QUERY_IMAGES.items() if image_problem(*img) is None]


def _run(query_id, pipeline=ch.CHANNELS, **inputs):
    return ch.run_channels(ALL[query_id], pipeline=pipeline, **inputs)


@pytest.fixture(scope="module")
def full():
    """The record of `methods.py channels`: the findings and every experiment behind them."""
    return channels_trace.trace()


def _ranking(run):
    fusion = run.output("fusion", None)
    return [f.listing_id for f in fusion.candidates] if fusion else []


# ---------------------------------------------------------------- one pipeline, extended

def test_the_pipeline_is_extended_not_copied():
    from modules.grounding import GROUNDED
    names = ch.CHANNELS.names()
    assert names == GROUNDED.names()[:6] + ("image",) + GROUNDED.names()[6:] + ("fallback",)
    for stage in GROUNDED.stages:
        assert ch.CHANNELS.stage(stage.name) is stage


@pytest.mark.parametrize("query", QUERIES, ids=[q.id for q in QUERIES])
def test_a_catalogue_query_gets_what_lessons_07_to_09_give_it(query):
    run = ch.run_channels(query)
    ours, theirs = query_row(run), lesson_08_row(evaluate(query))
    assert {key: value for key, value in ours.items() if key in theirs} == theirs
    assert run.output("fallback").state == run.output("decision").decision.state
    assert query_image(query.id) is None


# ---------------------------------------------------------------- the image channel

def test_absent_and_unusable_photos_are_explicit():
    no_photo = _run("PW-Q001").output("image")
    assert no_photo.status == "not run" and "carries no photo" in no_photo.note and not no_photo.hits
    blank = _run("CH-Q004").output("image")
    assert blank.status == "not run" and "unusable (zero vector)" in blank.note
    old = _run("CH-Q001", image=((0.8, 0.3, 0.5, 0.2), "pw-img-0")).output("image")
    assert old.status == "not run" and "pw-img-0" in old.note
    short = _run("CH-Q001", image=((0.8, 0.3), IMAGE_VERSION)).output("image")
    assert short.status == "not run" and "malformed" in short.note
    rejected = {r.listing_id: r.reason for r in _run("CH-Q001").output("image").rejected}
    assert rejected == {"PW-L011": "no photo", "PW-L013": "photo unusable: zero vector",
                        "PW-L014": "photo unusable: vector version 'pw-img-0', the index expects 'pw-img-1'"}


def test_the_task_succeeds_without_a_usable_photo():
    blank, same_text = _run("CH-Q004"), _run("PW-Q003")
    assert blank.output("packet").listings == same_text.output("packet").listings == ("PW-L010",)
    assert blank.output("fallback").state == same_text.output("fallback").state == "degraded"
    oring = _run("CH-Q003")   # PW-L011 has no photo: words and the text vector find it
    assert oring.output("packet").listings == ("PW-L011",) and oring.output("fallback").state == "respond"
    assert "PW-L011" not in [h.listing_id for h in oring.output("image").hits]


def test_a_hit_the_source_no_longer_holds_is_dropped():
    without = tuple(x for x in LISTINGS if x.id != "PW-L012")
    image = _run("CH-Q002", listings=without).output("image")
    assert "PW-L012" not in [h.listing_id for h in image.hits] and len(image.hits) == 2


def test_the_share_of_queries_with_a_photo():
    record = channels_trace.trace()
    share = record["images"]["share"]
    assert share == {"usable": 5, "unusable": 1, "none": 9, "queries": 15, "catalogue_with_photo": 0}
    assert sorted(PHOTOS) == sorted(SEGMENTS["image query"])


def test_bad_input_to_the_image_channel_is_refused():
    contract = parse_query(ALL["CH-Q001"])
    with pytest.raises(TypeError, match="contract"):
        ch.image_channel("CH-Q001", None, LISTINGS, ch.IMAGE_INDEX)
    with pytest.raises(TypeError, match="image"):
        ch.image_channel(contract, [(1.0, 0.0, 0.0, 0.0), IMAGE_VERSION], LISTINGS, ch.IMAGE_INDEX)
    with pytest.raises(ValueError, match="nprobe"):
        ch.image_stage(ch.IMAGE_INDEX, nprobe=0)


# ---------------------------------------------------------------- two evaluations of the index

def test_probing_every_list_is_the_exact_search():
    for query_id in PHOTOS:
        p = ch.probe(ch.IMAGE_INDEX, query_id, query_image(query_id), 3, ch.IMAGE_LISTS)
        assert p.approximate == p.exact and p.recall == 1


def test_a_miss_of_a_copy_changes_nothing_and_a_miss_of_a_rare_listing_is_critical():
    cheap = ch.CHANNELS.replace("image", ch.image_stage(ch.IMAGE_INDEX, ch.IMAGE_REJECTED, nprobe=1))
    copy = ch.probe(ch.IMAGE_INDEX, "CH-Q001", query_image("CH-Q001"), 3, 1)
    assert set(copy.exact) - set(copy.approximate) == {"PW-L002"} and "PW-L001" in copy.approximate
    assert _run("CH-Q001", cheap).output("packet") == _run("CH-Q001").output("packet")
    rare = ch.probe(ch.IMAGE_INDEX, "CH-Q002", query_image("CH-Q002"), 3, 1)
    assert set(rare.exact) - set(rare.approximate) == {"PW-L012"} and rare.recall == copy.recall
    assert "PW-L012" in _run("CH-Q002").output("packet").listings
    assert "PW-L012" not in _run("CH-Q002", cheap).output("packet").listings
    assert [x.family for x in LISTINGS].count("gasket") == 1


def test_perfect_recall_of_irrelevant_neighbours():
    p = ch.probe(ch.IMAGE_INDEX, "CH-Q003", query_image("CH-Q003"), 3, ch.IMAGE_LISTS)
    assert p.recall == 1 and precision_at_k(p.exact, RELEVANCE["CH-Q003"], 3) == 0


def test_the_scaling_table_is_what_the_index_measures():
    rows = ch.scaling((100, 1000, 10000), (1, 2, 4, 8))
    assert tuple((r["size"], r["lists"], r["nprobe"], round(r["recall"], 3), round(r["compared"], 1))
                 for r in rows) == ch.INDEX_SCALING
    for row in ch.INDEX_SCALING:
        assert row[4] < row[0]   # sublinear: every search compares fewer than the catalogue


# ---------------------------------------------------------------- removals

def test_removal_predictions_are_measured_and_one_is_missed(full):
    record = full
    verdicts = {r["removal"]: r["held"] for r in record["removals"]}
    assert verdicts == {"vector": True, "image": True, "lexical": False, "generation": True}
    lexical = next(r for r in record["removals"] if r["removal"] == "lexical")
    assert lexical["measured_packets"] == [] and lexical["kept_via"]["CH-Q003"] == {"PW-L011": ["vector"]}


@pytest.mark.parametrize("query_id", [q for q in ALL if q not in PHOTOS])
def test_removing_the_image_channel_changes_nothing_where_it_did_not_run(query_id):
    full, less = _run(query_id), _run(query_id, ch.CHANNELS.without("image"))
    effect = ch.removal_effect(full, less) if full.halted_by is None else None
    assert effect is None or (not effect["gained"] and not effect["lost"] and not effect["packet_changed"]
                              and effect["state_before"] == effect["state_after"])


@pytest.mark.parametrize("query_id", sorted(ALL))
def test_without_generation_the_state_and_the_packet_stay(query_id):
    full, less = _run(query_id), _run(query_id, ch.CHANNELS.without("answer"))
    assert less.output("fallback").state == full.output("fallback").state
    assert less.output("packet", None) == full.output("packet", None)
    assert less.output("answer", None) is None


# ---------------------------------------------------------------- failures

@pytest.mark.parametrize("failure", FAILURES, ids=[f.name for f in FAILURES])
def test_each_failure_runs_through_the_pipeline_and_falls_back_safely(failure):
    query_id = {"vector_unavailable": "CH-Q001", "packet_over_limit": "PW-Q002"}.get(failure.name, "PW-Q009")
    pipeline = failing(ch.CHANNELS, failure.name)
    assert [s.name for s in pipeline.stages] == list(ch.CHANNELS.names())
    replaced = [s.name for s in pipeline.stages if FAULT_MARK + failure.name in s.version]
    assert replaced == list(failure.stages)
    run = _run(query_id, pipeline, latency_ms={"lexical": 1500})
    record = run.output("fallback")
    assert record.failure == failure.name and record.stages == failure.stages
    assert (record.state, tuple(k for k, _ in record.visible)) == fallback(failure.name, record.state_before)
    assert record.state in STATES and all(key in VISIBLE for key, _ in record.visible)
    text = json.dumps(asdict(record))
    assert not [s for s in RESTRICTED_IDS + RESTRICTED_STRINGS if s in text]
    if failure.state is not None:
        assert STATES.index(record.state) <= STATES.index(failure.state)


def test_the_failures_reach_their_states():
    states = {f.name: _run({"vector_unavailable": "CH-Q001", "packet_over_limit": "PW-Q002"}.get(f.name, "PW-Q009"),
                           failing(ch.CHANNELS, f.name), latency_ms={"lexical": 1500}).output("fallback").state
              for f in FAILURES}
    assert states == {"unit_not_kept": "clarify", "lexical_timeout": "degraded", "vector_unavailable": "degraded",
                      "permission_missing": "unauthorized", "source_stale": "degraded", "all_conflict": "conflict",
                      "ranker_failed": "degraded", "packet_over_limit": "degraded", "generator_failed": "respond",
                      "no_eligible_evidence": "incompatible"}


def test_missing_permission_never_responds():
    for state in STATES:
        assert fallback("permission_missing", state)[0] in ("unauthorized", "prohibited_scope")
    run = _run("PW-Q001", failing(ch.CHANNELS, "permission_missing"))
    assert run.output("packet").fields == () and run.output("answer").lines == ()


def test_no_eligible_evidence_invents_nothing():
    run = _run("PW-Q009", failing(ch.CHANNELS, "no_eligible_evidence"))
    assert run.output("packet").listings == () and run.output("answer").lines == ()
    assert run.output("decision").empty_cause == "no_permitted_match"


def test_a_slow_channel_never_holds_the_task_open_when_a_fallback_is_allowed(monkeypatch):
    monkeypatch.setattr(time, "sleep", lambda seconds: pytest.fail("nothing may sleep"))
    slow = failing(ch.CHANNELS, "lexical_timeout")
    allowed = _run("PW-Q009", slow, latency_ms={"lexical": 1500})
    assert allowed.output("lexical").status == "timed out" and task_ms(allowed) == CHANNEL_BUDGET_MS
    assert allowed.output("fallback").state == "degraded" and allowed.output("packet").listings == ("PW-L009",)
    waited = _run("PW-Q009", slow, latency_ms={"lexical": 1500}, fallback_allowed=False)
    assert waited.output("lexical").status == "ran" and task_ms(waited) == 1500
    assert waited.output("fallback").state == "respond"
    quick = _run("PW-Q009", slow, latency_ms={"lexical": 200})
    assert quick.output("lexical").status == "ran" and task_ms(quick) == 200


@pytest.mark.parametrize("query_id", judged(ALL))
def test_a_lost_channel_ranks_as_a_removed_one(query_id):
    timed_out = _run(query_id, failing(ch.CHANNELS, "lexical_timeout"), latency_ms={"lexical": 1500})
    assert _ranking(timed_out) == _ranking(_run(query_id, ch.CHANNELS.without("lexical")))
    down = _run(query_id, failing(ch.CHANNELS, "vector_unavailable"))
    assert _ranking(down) == _ranking(_run(query_id, ch.CHANNELS.without("vector", "image")))


def test_the_bounded_packet_leaves_out_optional_listings_first_and_abstains_when_required_fields_overflow():
    run = _run("PW-Q002")
    assert len(run.output("packet").fields) == 12
    bounded = bounded_packet(run, 8)
    assert bounded.listings == run.output("packet").listings[:2] and len(bounded.fields) == 8
    assert "optional left out: PW-L009 (4 fields); required left out: none" in bounded.note
    assert bounded_packet(run, 3).listings == () and "abstained" in bounded_packet(run, 3).note


def test_bad_failure_names_are_refused():
    with pytest.raises(ValueError, match="failure must be one of"):
        fallback("cosmic_rays", "respond")
    with pytest.raises(TypeError, match="failure"):
        fallback(3, "respond")
    with pytest.raises(ValueError, match="state_before"):
        fallback("lexical_timeout", "fine")
    with pytest.raises(ValueError, match="failure must be one of"):
        failing(ch.CHANNELS, "cosmic_rays")


# ---------------------------------------------------------------- metrics

def test_segments_follow_their_declared_rules():
    families = {}
    for listing in LISTINGS:
        families[listing.family] = families.get(listing.family, 0) + 1
    for query_id, query in ALL.items():
        contract = parse_query(query)
        assert (query_id in SEGMENTS["explicit unit"]) == (contract.diameter is not None and query_id in RELEVANCE)
        assert (query_id in SEGMENTS["bare number"]) == (contract.state == "clarify")
        assert (query_id in SEGMENTS["image query"]) == (query_id in PHOTOS)
        wanted = {next(x.family for x in LISTINGS if x.id == i) for i in RELEVANCE.get(query_id, {})}
        assert (query_id in SEGMENTS["long-tail family"]) == (bool(wanted) and all(families[f] <= 2 for f in wanted))


def test_metrics_are_reported_per_group_never_as_one_figure(full):
    record = full
    metrics = record["metrics"]
    assert [r["segment"] for r in metrics["segments"]] == list(SEGMENTS)
    assert [r["failure"] for r in metrics["by_failure"]] == ["none", "lexical lost", "vector lost", "image lost",
                                                              "ranker failed"]
    assert "overall" not in json.dumps(metrics) and "all queries" not in json.dumps(metrics)


def test_a_better_metric_can_hide_a_withheld_listing_in_first_place(full):
    gated, ungated = full["metrics"]["prohibited_first"]
    assert ungated["first_withheld"] and not gated["first_withheld"]
    assert ungated["first"].startswith("ref-")
    for name in ("P@3", "MRR@3", "nDCG@3", "hit@3"):
        assert ungated[name] > gated[name]


def test_metric_edges_and_bad_input():
    assert ndcg_at_k(["a"], {}, 3) == 0.0 and reciprocal_rank(["x"], {"x": 0}) == 0.0
    assert precision_at_k(["a"], {"a": 1}, 3) == pytest.approx(1 / 3)     # a short list is not excused
    assert metric_row({}, ["PW-Q007"]) == {"queries": 0, "P@3": None, "MRR@3": None, "nDCG@3": None, "hit@3": None}
    with pytest.raises(TypeError, match="ranking"):
        hit_at_k({"a"}, {"a": 1}, 3)
    with pytest.raises(ValueError, match="twice"):
        hit_at_k(["a", "a"], {"a": 1}, 3)
    with pytest.raises(TypeError, match="grades"):
        ndcg_at_k(["a"], {"a": 1.5}, 3)
    with pytest.raises(ValueError, match="k"):
        precision_at_k(["a"], {"a": 1}, 0)


def _random_case(rng):
    docs = [f"d{n}" for n in range(12)]
    ranking = rng.sample(docs, rng.randint(0, 10))
    grades = {d: rng.randint(0, 3) for d in rng.sample(docs, rng.randint(0, 8))}
    return ranking, grades


def test_the_metrics_agree_with_ir_measures():
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import RR, P, Qrel, ScoredDoc, Success, nDCG
    rng = random.Random(12)
    qrels, run, cases = [], [], {}
    for n in range(300):
        query_id = f"q{n}"
        ranking, grades = _random_case(rng)
        if not grades:
            grades = {"d0": rng.randint(0, 3)}
        cases[query_id] = (ranking, grades)
        qrels += [Qrel(query_id, doc, grade) for doc, grade in grades.items()]
        run += [ScoredDoc(query_id, doc, float(len(ranking) - position)) for position, doc in enumerate(ranking)]
    for k in (1, 3, 5):
        ours = {(P @ k): precision_at_k, (RR @ k): reciprocal_rank, (nDCG @ k): ndcg_at_k, (Success @ k): hit_at_k}
        theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(list(ours), qrels, run)}
        checked = 0
        for query_id, (ranking, grades) in cases.items():
            for measure, function in ours.items():
                value = theirs.get((query_id, str(measure)))
                if value is None:   # ir-measures leaves out a query that retrieved nothing
                    assert not ranking
                    continue
                assert function(ranking, grades, k) == pytest.approx(value, abs=1e-9), (query_id, measure)
                checked += 1
        assert checked > 800


# ---------------------------------------------------------------- the anomaly

def test_the_rebuild_is_located_in_the_retrieval_layers_approximate_index(full):
    from modules.grounding.checks import LAYERS
    anomaly = full["anomaly"]
    assert anomaly["layer"] == "retrieval" in LAYERS and "n_lists 3 -> 9" in anomaly["why"]
    assert anomaly["why"].startswith("approximate index")
    fell = {r["query_id"] for r in anomaly["rows"] if r["image_after"] < r["image_before"]}
    assert fell == set(SEGMENTS["long-tail family"]) & set(PHOTOS)
    assert anomaly["contrast"]["layer"] == "retrieval" and anomaly["contrast"]["why"].startswith("representation")


def test_the_rebuilds_permission_change_is_one_candidate_lost(full):
    """The policy and the metadata do not move; the permission exclusions fall by exactly the
    restricted candidates the rebuilt index no longer proposes (lesson 14 shows the same count)."""
    anomaly = full["anomaly"]
    before, after = anomaly["permission_exclusions"]
    assert (before, after) == (14, 13)
    assert before - after == anomaly["restricted_proposed"][0] - anomaly["restricted_proposed"][1] == 1
    assert len(anomaly["no_longer_proposed"]) == 1 and anomaly["no_longer_proposed"][0].startswith("ref-")


def test_locate_layer_names_each_layer():
    photos = {q: (query_image(q), query_image(q)) for q in PHOTOS}
    same = ch.compare_indexes((ch.IMAGE_INDEX, 2), (ch.IMAGE_INDEX, 2), photos)
    assert ch.locate_layer(same) == (None, "nothing fell")
    fewer = ann.delete(ch.IMAGE_INDEX, "PW-L012")
    layer, why = ch.locate_layer(ch.compare_indexes((ch.IMAGE_INDEX, 2), (fewer, 2), photos))
    assert layer == "source" and "12 vectors, 13 before" in why   # the exact reference moved because of it
    smaller = ch.compare_indexes((ch.IMAGE_INDEX, 2), (ch.IMAGE_INDEX, 1), photos)
    assert ch.locate_layer(smaller)[0] == "retrieval" and "nprobe 2 -> 1" in ch.locate_layer(smaller)[1]


def test_the_lesson_never_names_a_withheld_listing(full):
    for record in (channels_trace.trace(), full):
        text = json.dumps(record, ensure_ascii=False)
        assert not [s for s in RESTRICTED_IDS + RESTRICTED_STRINGS if s in text]
    assert full["index"]["relevance"] and any(name.startswith("ref-") for r in full["index"]["relevance"]
                                              for name in r["exact"])   # a withheld neighbour, shown as its ref


def test_empty_results_name_all_eight_causes(full):
    cases = full["empty"]["cases"]
    assert full["empty"]["causes"] == list(EMPTY_CAUSES) and len(EMPTY_CAUSES) == 8
    assert [c["named"] for c in cases] == [c["cause"] for c in cases] == list(EMPTY_CAUSES)
    assert all(c["state"] not in ("respond", "degraded") or c["cause"] == "all_stale" for c in cases)
    assert empty_cause(_run("PW-Q001")) is None


# Every figure the curriculum lists for lesson 12 (and seed 004's tables), as the default prints them.
FIGURES = (
    # index quality: recall against exact search at nprobe 1, 2, 3, with cost; relevance kept apart
    "CH-Q001 0.667 1.000 1.000 6 13 16 13", "CH-Q003 0.667 0.667 1.000 6 9 16 13",
    "CH-Q003 PW-L010 PW-L009 PW-L006 0.000", "Recall 1 with P@3 0",
    # the costless and the critical miss
    "CH-Q001 misses PW-L002: recall 0.667, no task effect", "CH-Q002 misses PW-L012: recall 0.667, critical",
    # the catalogue size varies
    "10000 100 0.825 0.925 1.000 1.000 204.9 309.7 520.1 959.9 10000",
    "1000 32 0.833 0.942 1.000 1.000 70.5 97.5 167.0 295.2 1000",
    # the image channel's share
    "5 carry a usable photo, 1 an unusable one and 9 none", "13 of 16 listings have a usable photo",
    # removal counterfactuals, predicted then measured
    "Remove vector. Predicted", "Remove image. Predicted", "Remove lexical. Predicted", "Remove generation.",
    "Prediction held", "Prediction missed",
    # the ten failures, each with its safe behaviour and what stays visible
    "unit_not_kept", "lexical_timeout", "vector_unavailable", "permission_missing", "source_stale", "all_conflict",
    "ranker_failed", "packet_over_limit", "generator_failed", "no_eligible_evidence",
    "permission_missing [source on PW-Q009: unauthorized, 60 ms] fail closed: no listing without permission",
    "lexical_timeout [lexical on PW-Q009: respond -> degraded, 300 ms]", "reason_codes: PERMISSION_UNKNOWN x15",
    "multimodal_unavailable: the photo was not searched",
    # seed 004's eight empty causes
    "out_of_scope PW-Q008", "transformation_failed PW-Q007", "no_permitted_match GR-Q001",
    "all_unauthorized PW-Q005", "all_stale PW-Q009", "all_excluded PW-Q004", "index_incomplete PW-Q009",
    "timed_out PW-Q009",
    "with a fallback allowed the task finishes at 300 ms",
    # P@3, MRR@3, nDCG@3, hit@3 by segment and by failure; the ungated nDCG 1.000 against 0.000
    "explicit unit 8 0.458 0.875 0.685 0.875", "image query 5 0.533 0.900 0.832 1.000",
    "long-tail family 6 0.444 0.917 0.930 1.000", "ranker failed 13 0.308 0.436 0.336 0.538",
    "ungated ref-de124b42809c unauthorized 0.667 1.000 1.000 1.000", "nDCG@3 1.000 against 0.000",
    # the long-tail rebuild: candidates fall only for long-tail photo queries; the layer is named
    "CH-Q002 long tail 3 -> 2", "CH-Q001 head 3 -> 3", "Layer: retrieval. Approximate index",
    "permission exclusions go 14 -> 13",
)


def test_the_default_trace_prints_every_curriculum_figure():
    assert figures_missing("channels", FIGURES) == []
    assert methods("channels", "--all", check=False).returncode == 2   # no option left: the default is the lesson


def test_the_modules_own_functions_fail_tasks_2_and_4():
    """The lesson's fallback (one failure at a time) and its nDCG (linear gains), pasted in."""
    solution = (ROOT / "solutions" / "channels.py").read_text(encoding="utf-8")
    pasted = solution + "\n".join([
        "", "from modules.channels.failures import fallback as combined_fallback",
        "from modules.channels.metrics import ndcg_at_k as ndcg_exponential", ""])
    assert failed_tasks("channels", pasted) == {2, 4}


# ---------------------------------------------------------------- the index module's additions

def test_exact_search_over_the_index_equals_exact_search_over_the_items():
    items = ch.IMAGE_INDEX.vectors
    for query_id in PHOTOS:
        vector = Vector(*query_image(query_id))
        assert ann.exact_search(ch.IMAGE_INDEX, vector, 5) == ann.exact_search(items, vector, 5)


def test_an_index_is_immutable_and_compares_by_its_fields():
    index = ch.IMAGE_INDEX
    with pytest.raises(AttributeError, match="cannot assign to field"):
        index.n_lists = 4
    again = ann.build(index.vectors, ch.IMAGE_LISTS, ch.IMAGE_SEED)
    assert again == index and hash(again) == hash(index) and again != ann.build(index.vectors, 4, ch.IMAGE_SEED)
    assert "n_lists=3" in repr(index)
