"""Lesson 14's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import methods
from modules.catalogue import QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS
from modules.common.pipeline import Stage
from modules.grounding import GROUNDED
from modules.operate import artifacts as art
from modules.operate import faithfulness as fa
from modules.operate import mechanism as m
from modules.operate import review as rv
from modules.operate import signals as sg


@pytest.fixture(scope="module", params=[(), ("--all",)], ids=["default", "all"])
def record(request):
    """The default record and the --all record: every figure both hold is asserted on both."""
    return json.loads(methods("operate", *request.param, "--json").stdout)


@pytest.fixture(scope="module")
def full_record():
    """The --all record: the review, the artifacts, the counterfactuals, ownership, the patterns."""
    return json.loads(methods("operate", "--all", "--json").stdout)


@pytest.fixture(scope="module")
def runs():
    return m.frozen_runs()


@pytest.fixture(scope="module")
def records(runs):
    return m.frozen_records(runs)


def _spellings(secret: str) -> list:
    """A restricted id or title as a dashboard might carry it."""
    return [secret, secret.lower(), secret.upper(), secret.replace("-", "\u2010"), secret.replace("-", " "),
            secret.replace("-", "_"), secret.replace("-", ""),
            "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in secret)]


# ---------------------------------------------------------------- the command

@pytest.mark.parametrize("more", [(), ("--all",)], ids=["default", "all"])
def test_the_command_fits_80_columns_and_is_the_same_every_run(more):
    first = methods("operate", *more, "--plain", env={"PYTHONHASHSEED": "0"}).stdout
    second = methods("operate", *more, "--plain", env={"PYTHONHASHSEED": "12345"}).stdout
    assert first == second
    wide = [line for line in first.decode().splitlines() if len(line) > 80]
    assert not wide, wide[:3]
    assert (methods("operate", *more, "--json", env={"PYTHONHASHSEED": "7"}).stdout
            == methods("operate", *more, "--json").stdout)


def test_the_default_is_the_findings_and_all_adds_the_rest(full_record):
    default = json.loads(methods("operate", "--json").stdout)
    rest = ("queries", "sessions", "anomalies", "review", "artifacts", "counterfactuals", "ownership", "patterns",
            "judgements")
    assert default["shows"] == "default" and full_record["shows"] == "all"
    assert sorted(set(full_record) - set(default)) == sorted(rest) and set(default) <= set(full_record)
    assert all(default[k] == full_record[k] for k in default if k not in ("shows", "signals", "evaluation"))
    # --all adds lesson 13's memory signal after the default's signals, which it keeps as they are
    assert full_record["signals"][:-1] == default["signals"]
    assert [s["name"] for s in full_record["signals"][len(default["signals"]):]] == ["memory withheld"]
    # ... and lesson 12's labels to the ranking section; the other sections are the same
    e, f = default["evaluation"], full_record["evaluation"]
    assert all(e[k] == f[k] for k in e if k not in ("ranking", "limits", "behaviour"))
    assert e["behaviour"] == [{k: row[k] for k in ("query_id", "state", "fallback")} for row in f["behaviour"]]
    assert "judged" not in e["ranking"] and f["ranking"]["judged"] == len(f["ranking"]["breakdown"]) > 0
    assert {k: v for k, v in e["ranking"].items() if k != "breakdown"} == {
        k: v for k, v in f["ranking"].items() if k not in ("breakdown", "judged", "top_relevant")}
    assert f["ranking"]["breakdown"] == {q: e["ranking"]["breakdown"][q] for q in f["ranking"]["breakdown"]}
    assert "memory sessions" in f["limits"] and "memory sessions" not in e["limits"]
    short, full = (" ".join(methods("operate", *more, "--plain").stdout.decode().split()) for more in ((), ("--all",)))
    assert "`python3 -B methods.py operate --all`" in short and "operate --all" not in full
    for finding in ("Signals per stage", "1. Retrieval", "2. Ranking", "3. Context", "4. End-to-end behaviour",
                    "Each unfaithful explanation fails exactly its check"):
        assert finding in short and finding in full, finding
    for detail in ("memory withheld", "Layer: index construction", "Layer: approximate index",
                   "with lesson 12's labels", "4. End-to-end behaviour, and with generation removed",
                   "The context contract review", "The five completion artifacts", "Three forced counterfactuals",
                   "Lesson 07's five judgements", "Ownership against the stages", "Six failure patterns"):
        assert detail in full and detail not in short, detail


def test_no_restricted_listing_in_any_output_in_any_spelling():
    for args in (("operate", "--plain"), ("operate", "--json"), ("operate", "--all", "--plain"),
                 ("operate", "--all", "--json")):
        text = methods(*args).stdout.decode()
        assert sg.leaks(text) == [], args
        for secret in RESTRICTED_IDS:
            assert secret.lower() not in text.lower()


def test_leaks_catches_every_spelling_and_nothing_else():
    for secret in RESTRICTED_IDS + RESTRICTED_STRINGS[:2]:
        for spelling in _spellings(secret):
            assert sg.leaks(f"count for {spelling}: 3"), spelling
    assert sg.leaks("PERMISSION_DENIED 14, ref-d6dacd426e3c, PW-L001 PW-L003") == []


def test_a_signal_label_that_names_a_restricted_listing_is_refused():
    for spelling in _spellings(RESTRICTED_IDS[0]):
        with pytest.raises(ValueError, match="restricted"):
            sg.Signal("eligibility", "exclusions", ((spelling, 1),), "o", "a", "r", "s", "l")
    with pytest.raises(ValueError, match="stage"):
        sg.Signal("somewhere", "exclusions", (), "o", "a", "r", "s", "l")
    with pytest.raises(TypeError, match="counts"):
        sg.Signal("eligibility", "exclusions", [("x", 1)], "o", "a", "r", "s", "l")


# ---------------------------------------------------------------- signals

def test_every_stage_has_signals_each_with_its_operating_facts(records):
    signals = sg.aggregate(records, m.memory_runs()[0])
    assert {s.stage for s in signals} == set(sg.STAGES)
    roles = {o.role for o in m.OWNERS}
    for s in signals:
        assert s.owner in roles and s.first_action and s.retention and s.access and s.limitation, s.name


def test_signals_read_the_pipeline_records(records, record):
    by_name = {s["name"]: dict(map(tuple, s["counts"])) for s in record["signals"]}
    states = [r["decision"]["state"] for r in records.values()]
    assert by_name["states"] == {state: states.count(state) for state in set(states)}
    assert by_name["parser failures"]["failed"] == sum(r["input"]["state"] == "failed" for r in records.values())
    assert by_name["versions"] == GROUNDED.versions()
    assert sum(by_name["exclusions"].values()) == sum(
        len(d["reason_codes"]) for r in records.values()
        for d in r["permission/freshness"].get("withheld", []) + r["assembly"].get("excluded", []))


def test_the_rebuild_is_index_construction_and_agrees_with_lesson_09(full_record):
    rebuild = full_record["anomalies"]["rebuild"]
    assert rebuild["layer"] == "index construction"
    lesson09 = json.loads(methods("grounding", "--json").stdout)["exclusions_by_reason"]
    assert rebuild["permission"] == [lesson09["permission_before"], lesson09["permission_after"]] == [21, 63]
    steady = {(name, label): (a, b) for name, label, a, b in rebuild["rows"] if name in ("parser failures", "candidates")}
    assert steady and all(a == b for a, b in steady.values())


def test_the_image_rebuild_is_the_approximate_index_as_lesson_12_names_it(full_record):
    image = full_record["anomalies"]["image"]
    assert image["layer"] == "approximate index" and "candidates" in image["fell"]
    lesson12 = json.loads(methods("channels", "--all", "--json").stdout)["anomaly"]   # --all runs the rebuild
    assert lesson12["layer"] == "index"
    fell = sum(r["image_before"] - r["image_after"] for r in lesson12["rows"])
    row = next(r for r in image["rows"] if r[:2] == ["candidates", "image"])
    assert row[2] - row[3] == fell > 0


def test_name_layer_never_blames_the_ranker_before_the_layers_ahead_of_it():
    base = {"parser failures": {"failed": 1}, "versions": {"gate": "p/4", "source": "s/1", "fusion": "f/1"},
            "exclusions": {"PERMISSION_DENIED": 3}, "candidates": {"lexical": 5}, "index version": {"vector": "v1"}}
    assert sg.name_layer(base, base)[0] is None
    ranker = dict(base, versions=dict(base["versions"], fusion="f/2"))
    assert sg.name_layer(base, ranker)[0] == "ranking"
    both = dict(ranker, versions=dict(ranker["versions"], source="s/2"), exclusions={"PERMISSION_UNKNOWN": 9})
    assert sg.name_layer(base, both)[0] == "index construction"
    policy = dict(both, versions=dict(both["versions"], gate="p/5"))
    assert sg.name_layer(base, policy)[0] == "permission policy"
    parser = dict(policy, **{"parser failures": {"failed": 4}})
    assert sg.name_layer(base, parser)[0] == "query transformation"
    space = dict(ranker, **{"index version": {"vector": "v2"}})
    assert sg.name_layer(base, space)[0] == "representation"


# ---------------------------------------------------------------- faithfulness

@pytest.fixture(scope="module")
def briefs(runs):
    return {qid: fa.brief_of(runs[qid]) for qid in ("PW-Q002", "PW-Q004")}


@pytest.mark.parametrize("qid", ["PW-Q002", "PW-Q004"])
def test_the_template_and_a_rewording_pass_all_seven(briefs, qid):
    b = briefs[qid]
    assert fa.explain(b) != fa.reworded(b)
    for lines in (fa.explain(b), fa.reworded(b)):
        assert [(name, held) for name, held, _ in fa.run_checks(b, lines)] == [(n, True) for n, _ in fa.CHECKS]


@pytest.mark.parametrize("mistake", fa.MISTAKES, ids=lambda x: x.fails)
def test_each_unfaithful_explanation_fails_exactly_its_check_and_its_rewording_passes(briefs, mistake):
    b = briefs[mistake.query_id]
    failed = [name for name, held, _ in fa.run_checks(b, mistake.edit(b, fa.explain(b))) if not held]
    assert failed == [mistake.fails]
    assert all(held for _n, held, _ in fa.run_checks(b, fa.reworded(b)))


def test_every_check_is_covered_by_one_mistake():
    assert sorted(x.fails for x in fa.MISTAKES) == sorted(name for name, _ in fa.CHECKS)


def test_support_reads_values_not_only_citations(briefs):
    b = briefs["PW-Q002"]
    cited_wrongly = (fa.Line("PW-L001 is listed for 22 mm shafts.", ("PW-L001#diameter_mm",)),)
    assert fa.check_support(b, cited_wrongly)[0] is False
    assert fa.check_support(b, (fa.Line("PW-L001 is listed for 16 mm shafts.", ("PW-L012#title",)),))[0] is False
    with pytest.raises(TypeError, match="lines"):
        fa.check_support(b, [fa.Line("x")])
    with pytest.raises(TypeError, match="Line.text"):
        fa.Line("")


# ---------------------------------------------------------------- review, artifacts, counterfactuals

def test_every_stage_has_a_version_and_an_owner():
    for pipeline in (m.channels_pipeline(), m.memory_pipeline()):
        for stage in pipeline.stages:
            assert stage.version and m.owner_of(stage.name) in {o.role for o in m.OWNERS}
    with pytest.raises(ValueError, match="no owner"):
        m.owner_of("reranker")


def test_each_review_answer_points_at_a_real_stage_and_test(full_record):
    pipelines = (m.channels_pipeline(), m.memory_pipeline())
    names = {n for p in pipelines for n in p.names()}
    for row in full_record["review"]:
        assert row["stage"] in names and rv.has_test(row["test"]), row
        assert row["status"] == ("gap" if row["question"] in rv.GAPS else "answered")
    wrong = rv.Pointer("can generation be removed?", "generator", "12",
                       "tests/test_channels.py::test_without_generation_the_state_and_the_packet_stay")
    assert rv.answer(wrong, m.channels_pipeline())[0] == "gap"
    missing = rv.Pointer("q?", "answer", "12", "tests/test_channels.py::test_nobody_wrote")
    assert rv.answer(missing, m.channels_pipeline())[0] == "gap"
    with pytest.raises(ValueError, match="lesson"):
        rv.Pointer("q?", "answer", "99", "tests/x.py::y")


def test_the_artifacts_follow_a_changed_stage():
    scratch = GROUNDED.replace("fusion", Stage("fusion", "rrf-60/9", "ranking", GROUNDED.stage("fusion").run))
    before, after = art.context_contract(GROUNDED), art.context_contract(scratch)
    version = {s["stage"]: s["version"] for s in after["stages"]}
    assert version["fusion"] == "rrf-60/9" != {s["stage"]: s["version"] for s in before["stages"]}["fusion"]
    assert art.decision_record(scratch)["fusion"]["version"] == "rrf-60/9"
    assert art.decision_record(GROUNDED)["fusion"]["version"] == GROUNDED.stage("fusion").version
    no_vector = art.decision_record(GROUNDED.without("vector"))
    assert "vector" not in [c["channel"] for c in no_vector["channels"]]


def test_the_counterfactuals(full_record):
    c = full_record["counterfactuals"]
    assert c["generation"]["unchanged"] == c["generation"]["cases"] == len(QUERIES) + 1
    assert all(x["states_changed"] == 0 for x in c["vector"]["segments"].values())
    w = c["withdraw"]
    assert w["packed_before"] and w["packed_after"] == [] and w["id_in_records_after"] == 0
    assert w["ref_in_records_after"] > 0 and all(held for _n, held, _d in w["memory"])


def test_the_evaluation_is_four_sections_never_one_number(record):
    e = record["evaluation"]
    assert {"retrieval", "ranking", "context", "behaviour", "limits"} <= set(e)
    assert "no statistical claim" in e["limits"]
    assert e["context"]["restricted_in_packets"] == 0 and e["ranking"]["restricted_ranked"] == 0
    assert [(b["query_id"], b["state"]) for b in e["behaviour"]] == [(c["query_id"], c["state"])
                                                                       for c in record["cases"]]


def test_without_generation_every_state_and_packet_stay(full_record):
    behaviour = full_record["evaluation"]["behaviour"]
    assert len(behaviour) == len(QUERIES) + 1
    assert all(b["without_generation"] == b["state"] and b["packet_kept"] for b in behaviour)


def test_the_six_failure_patterns_each_with_a_lesson(full_record):
    patterns = full_record["patterns"]
    assert len(patterns) == 6 and len({p[0] for p in patterns}) == 6
    assert all(p[1][:2].isdigit() and any(ch.isdigit() for ch in p[2]) for p in patterns)


def test_ownership_covers_every_stage(full_record):
    owned = [s for o in full_record["ownership"] for s in o["stages"]]
    names = list(dict.fromkeys(list(m.channels_pipeline().names()) + list(m.memory_pipeline().names())))
    assert sorted(owned) == sorted(names)
    with pytest.raises(TypeError, match="pipeline"):
        m.ownership("CHANNELS")


def test_withdrawing_a_permission_makes_a_new_record():
    changed = m.with_permission(m.LISTINGS, "PW-L003", "denied")
    assert [x.permission for x in changed if x.id == "PW-L003"] == ["denied"]
    assert [x for x in changed if x.id != "PW-L003"] == [x for x in m.LISTINGS if x.id != "PW-L003"]
    with pytest.raises(ValueError, match="PW-L999"):
        m.with_permission(m.LISTINGS, "PW-L999", "denied")


def test_the_quiz_premise_is_true_of_the_fixture():
    from modules.grounding import VARIANTS
    before = m.frozen_records(m.frozen_runs(cases=QUERIES))
    after = m.frozen_records(m.frozen_runs(VARIANTS[1].pipeline, cases=QUERIES))
    answered = [sum(r["decision"]["state"] in ("respond", "degraded") for r in x.values()) for x in (before, after)]
    assert answered == [4, 4]
    changed = {q: (before[q]["decision"]["state"], after[q]["decision"]["state"]) for q in before
               if before[q]["decision"]["state"] != after[q]["decision"]["state"]}
    assert changed == {"PW-Q004": ("conflict", "unauthorized")}


def test_the_full_flag_is_a_bool():
    from modules.operate import trace as lesson
    with pytest.raises(TypeError, match="full"):
        lesson.trace(full="yes")


def test_the_ranking_is_judged_only_by_the_labels_it_is_given(records):
    from modules.operate import evaluation as ev
    first = {q: r["ranking"]["fused"][0]["shown"] for q, r in records.items() if r["ranking"].get("fused")}
    only_first = ev.judged_ranking(records, {q: {i: 1} for q, i in first.items()})
    assert only_first["judged"] == only_first["top_relevant"] == len(first)
    others = ev.judged_ranking(records, {q: {i: 0, "PW-L999": 2} for q, i in first.items()})
    assert others["top_relevant"] == 0 and others["judged"] == len(first)
    assert ev.judged_ranking(records, {})["judged"] == 0
    with pytest.raises(TypeError, match="labels"):
        ev.judged_ranking(records, [("PW-Q001", {})])
