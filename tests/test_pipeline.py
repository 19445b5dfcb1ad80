"""The stage framework lessons 07-09 share and lessons 12 and 13 extend (modules/common/pipeline.py)."""

import dataclasses

import pytest

from modules.catalogue import LISTINGS, QUERIES, query_by_id
from modules.common.pipeline import Halt, Pipeline, Run, Stage
from modules.eligibility import CATALOGUE, evaluate
from modules.hybrid import ChannelResult, Hit


def _stage(name, value, **kwargs):
    return Stage(name, f"{name}/1", "input", lambda so_far: value, **kwargs)


def test_a_run_keeps_every_stage_output_and_observes_each():
    seen = []
    pipeline = Pipeline("toy", (_stage("a", 1), Stage("b", "b/1", "input", lambda so_far: so_far.output("a") + 1)))
    run = pipeline.run({"x": 0}, observe=lambda stage, output: seen.append((stage.name, output)))
    assert (run.output("a"), run.output("b")) == (1, 2) and seen == [("a", 1), ("b", 2)]
    assert run.versions == {"a": "a/1", "b": "b/1"} == pipeline.versions()
    assert run.output("c", None) is None
    with pytest.raises(KeyError, match="stage 'c' has no output"):
        run.output("c")


def test_a_halt_skips_the_rest_except_stages_that_run_after_it():
    pipeline = Pipeline("toy", (_stage("a", Halt("STOP", "why")), _stage("b", 2), _stage("c", 3, after_halt=True)))
    run = pipeline.run({})
    assert run.halted_by == "a" and run.halt == Halt("STOP", "why") and run.skipped == ("b",)
    assert run.output("c") == 3 and run.output("b", "skipped") == "skipped"


def test_a_run_finds_outputs_by_name_however_it_was_made():
    pipeline = Pipeline("toy", (_stage("a", 1), _stage("b", 2), _stage("c", 3)))
    run = pipeline.run({})
    assert [run.output(n) for n in "abc"] == [1, 2, 3]
    by_hand = Run("toy", {}, run.records[::-1])
    assert [by_hand.output(n) for n in "abc"] == [1, 2, 3]
    replaced = dataclasses.replace(run, records=run.records[1:])
    assert replaced.output("c") == 3 and replaced.output("a", None) is None
    with pytest.raises(KeyError, match="stage 'a' has no output"):
        replaced.output("a")


def test_channels_propose_side_by_side():
    seen = {}

    def channel(name):
        def run(so_far):
            seen[name] = (so_far.output("a"), [r.name for r in so_far.records], so_far.of_kind("channel"))
            return name.upper()
        return Stage(name, f"{name}/1", "retrieval", run, kind="channel")

    after = Stage("gate", "gate/1", "permission/freshness", lambda so_far: so_far.of_kind("channel"))
    pipeline = Pipeline("toy", (_stage("a", 1), channel("x"), channel("y"), after))
    run = pipeline.run({})
    # A channel never sees another channel: y reads the run as stage a left it.
    assert seen["y"] == (1, ["a"], ()) and run.output("gate") == ("X", "Y")
    assert pipeline.without("x").run({}).output("gate") == ("Y",)


def test_stages_are_replaced_inserted_removed_and_cut_without_copying():
    names = CATALOGUE.names()
    assert names == ("source", "contract", "query-scope", "lexical", "structured", "vector", "gate", "fusion",
                     "evidence", "packet", "decision")
    image = Stage("image", "image/1", "retrieval", lambda so_far: ChannelResult("image", (), (), "no image", "not run"),
                  kind="channel")
    wider = CATALOGUE.insert(image, after="vector")
    assert wider.names()[6] == "image" and wider.stage("gate") is CATALOGUE.stage("gate")
    assert CATALOGUE.without("vector").names() == tuple(n for n in names if n != "vector")
    assert CATALOGUE.until("fusion").names() == names[:8]
    assert CATALOGUE.replace("packet", _stage("packet", None)).stage("packet").version == "packet/1"
    with pytest.raises(ValueError, match="has no stage 'ranker'"):
        CATALOGUE.without("ranker")
    with pytest.raises(ValueError, match="two stages named 'gate'"):
        CATALOGUE.extend(CATALOGUE.stage("gate"))
    with pytest.raises(ValueError, match="exactly one of after= or before="):
        CATALOGUE.insert(image)


def test_an_added_channel_is_gated_and_fused_and_a_removed_one_is_gone():
    query = query_by_id("PW-Q002")

    def image(so_far):   # proposes the denied listing first and a permitted one second
        return ChannelResult("image", (Hit("PW-L004", 0.99, "image"), Hit("PW-L003", 0.98, "image")), (), "", "ran")

    wider = CATALOGUE.insert(Stage("image", "image/1", "retrieval", image, kind="channel"), after="vector")
    run = evaluate(query, pipeline=wider)
    fused = {f.cluster_id: dict(f.channel_ranks) for f in run.output("fusion").candidates}
    assert fused["C-02"]["image"] == 1 and "C-03" not in fused          # the gate held PW-L004 back
    without = evaluate(query, pipeline=CATALOGUE.without("vector"))
    assert all("vector" not in dict(f.channel_ranks) for f in without.output("fusion").candidates)
    failed = CATALOGUE.replace("lexical", Stage("lexical", "lexical/1+timeout", "retrieval",
                                                lambda so_far: ChannelResult("lexical", (), (), "timed out", "failed"),
                                                kind="channel"))
    run = evaluate(query, pipeline=failed)
    assert run.output("decision").decision.state == "respond"
    assert all("lexical" not in dict(f.channel_ranks) for f in run.output("fusion").candidates)


def test_the_same_query_gives_the_same_run_in_every_lesson():
    from modules.grounding import run_query
    from modules.hybrid import retrieve
    for query in QUERIES:
        first, whole, grounded = retrieve(query), evaluate(query), run_query(query)
        for record in first.records:
            assert whole.output(record.name) == record.output == grounded.output(record.name)
        assert whole.output("decision") == grounded.output("decision")


def test_bad_stages_and_pipelines_are_refused():
    with pytest.raises(TypeError, match="Stage.version must be a non-empty str"):
        Stage("a", "", "input", len)
    with pytest.raises(TypeError, match="Stage.run must be callable"):
        Stage("a", "a/1", "input", "len")
    with pytest.raises(TypeError, match=r"Pipeline.stages\[0\] must be a Stage"):
        Pipeline("p", ("a",))
    with pytest.raises(TypeError, match="Pipeline.stages must be a tuple"):
        Pipeline("p", [])
    with pytest.raises(TypeError, match="inputs must be a dict"):
        CATALOGUE.run([("query", QUERIES[0])])
    assert isinstance(evaluate(QUERIES[0], LISTINGS), Run)
