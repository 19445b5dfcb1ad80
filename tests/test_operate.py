"""Lesson 14's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import ROOT, failed_tasks, figures_missing, methods
from modules.catalogue import QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS
from modules.common.pipeline import Stage
from modules.grounding import GROUNDED
from modules.grounding.checks import LAYERS
from modules.operate import artifacts as art
from modules.operate import faithfulness as fa
from modules.operate import mechanism as m
from modules.operate import review as rv
from modules.operate import signals as sg


@pytest.fixture(scope="module")
def record():
    """The command's record: every section of the lesson is in the default."""
    return json.loads(methods("operate", "--json").stdout)


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

def test_the_command_fits_80_columns_and_is_the_same_every_run():
    first = methods("operate", "--plain", env={"PYTHONHASHSEED": "0"}).stdout
    second = methods("operate", "--plain", env={"PYTHONHASHSEED": "12345"}).stdout
    assert first == second
    wide = [line for line in first.decode().splitlines() if len(line) > 80]
    assert not wide, wide[:3]
    assert methods("operate", "--json", env={"PYTHONHASHSEED": "7"}).stdout == methods("operate", "--json").stdout
    assert methods("operate", "--all", check=False).returncode == 2   # no option left: the default is the lesson


# Every figure the curriculum lists for lesson 14, as the default trace prints it.
FIGURES = (
    # signals per stage, each with owner, first action, retention, who may see it, limitation
    "parser failures", "unresolved units", "rewrite rate", "empty sets", "timeouts", "index version",
    "contribution", "exclusions", "duplicates collapsed", "top score", "tie rate", "top withheld",
    "packet fields", "omissions", "conflicts kept", "provenance", "states", "assisted results", "answered",
    "fallbacks", "versions", "memory withheld", "90 days", "1 year", "privacy/security, operations",
    "counts what the parser refused, not what it misread",
    # the anomaly: assisted results drop for the explicit-unit segment, exclusions triple, layer source
    "assisted results  explicit unit         55        25", "answered          explicit unit         4         4",
    "candidates        lexical               98        98", "candidates        vector                35        35",
    "source/1  source/2-rebuild", "21 -> 63", "Layer: source. Index construction",
    # lesson 12's image rebuild: the same symptom, another layer
    "candidates        image              15                 12", "image/1+ivf/1:3x2  image/1+ivf/1:9x2",
    "Layer: retrieval. Approximate index", "exclusions go 14 -> 13",
    # the layered evaluation: four sections
    "1. Retrieval", "2. Ranking: of 7 cases with lesson 12's labels and a ranking, 6", "3. Context: 27 of 27",
    "4. End-to-end behaviour, and with generation removed", "no statistical claim",
    # the seven faithfulness checks; each mistake fails exactly its check; two allowed wordings pass
    "writes a size no cited field holds                PW-Q002  support",
    "omits the conflict                                PW-Q004  completeness",
    "calls the seller's title a catalogue field        PW-Q004  attribution",
    "says 'fits' where the evidence says 'listed for'  PW-Q002  non-amplification",
    "obeys the instruction in seller text              PW-Q002  instruction isolation",
    "explains the abstention as a recommendation       PW-Q004  state consistency",
    "rewords it and drops a listing's price            PW-Q002  variation",
    "PW-Q002's second wording passes 7 of 7; PW-Q004's second wording passes 7 of 7",
    # the review, the five artifacts, the counterfactuals, ownership, the six failure patterns
    "12. which changes need replay? ANSWERED", "GAP:", "1. Context contract of 'catalogue, channels'",
    "2. Retrieval and ranking decision record", "3. Grounding trace schema", "4. Evidence-state table",
    "5. Layered evaluation report", "Remove the vector channel", "Remove generation: 10 of 10",
    "Withdraw PW-L003's permission", "Ownership against the stages", "similarity equals relevance",
    "citation equals correctness", "dense always beats lexical", "more context is better", "memory is magic",
    "an empty result triggers generation",
)


def test_the_default_trace_prints_every_curriculum_figure():
    assert figures_missing("operate", FIGURES) == []


def test_no_restricted_listing_in_any_output_in_any_spelling():
    for args in (("operate", "--plain"), ("operate", "--json")):
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
        with pytest.raises(ValueError, match="restricted"):
            sg.safe_label(f"top excluded: {spelling}")   # inside a longer label too
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


def test_the_rebuild_is_named_source_as_lesson_09_names_it(record):
    rebuild = record["anomalies"]["rebuild"]
    lesson09 = json.loads(methods("grounding", "--json").stdout)
    assert rebuild["layer"] == "source" and rebuild["layer"] in LAYERS
    assert rebuild["permission"] == [lesson09["exclusions_by_reason"]["permission_before"],
                                     lesson09["exclusions_by_reason"]["permission_after"]] == [21, 63]
    rows = {(name, label): (a, b) for name, label, a, b in rebuild["rows"]}
    # the curriculum's symptom: assisted results drop for the explicit-unit segment, the answered count does not
    before, after = rows[("assisted results", "explicit unit")]
    assert after < before / 2 and rows[("answered", "explicit unit")] == (4, 4)
    for steady in (("parser failures", "failed"), ("candidates", "lexical"), ("candidates", "vector")):
        assert rows[steady][0] == rows[steady][1], steady
    assert rebuild["permission"][1] == 3 * rebuild["permission"][0]


def test_the_image_rebuild_is_named_retrieval_and_its_permission_change_is_a_lost_candidate(record):
    image = record["anomalies"]["image"]
    assert image["layer"] == "retrieval" and "candidates" in image["fell"]
    lost = image["permission"][0] - image["permission"][1]
    assert lost == image["restricted_proposed"][0] - image["restricted_proposed"][1] == 1


def test_name_layer_uses_lesson_09s_layers_in_their_order():
    base = {"parser failures": {"failed": 1}, "versions": {"gate": "p/4", "source": "s/1", "fusion": "f/1"},
            "exclusions": {"PERMISSION_DENIED": 3}, "candidates": {"lexical": 5}, "index version": {"vector": "v1"}}
    assert sg.name_layer(base, base)[0] is None
    ranker = dict(base, versions=dict(base["versions"], fusion="f/2"))
    assert sg.name_layer(base, ranker)[0] == "ranking"
    both = dict(ranker, versions=dict(ranker["versions"], source="s/2"), exclusions={"PERMISSION_UNKNOWN": 9})
    assert sg.name_layer(base, both)[0] == "source"
    # more exclusions with the source version unchanged is no index-construction anomaly
    assert sg.name_layer(base, dict(base, exclusions={"PERMISSION_UNKNOWN": 9}))[0] is None
    policy = dict(both, versions=dict(both["versions"], gate="p/5"))
    assert sg.name_layer(base, policy)[0] == "permission/freshness"
    parser = dict(policy, **{"parser failures": {"failed": 4}})
    assert sg.name_layer(base, parser)[0] == "input"
    space = dict(ranker, **{"index version": {"vector": "v2"}})
    assert sg.name_layer(base, space)[0] == "retrieval"
    for after in (ranker, both, policy, parser, space):
        assert sg.name_layer(base, after)[0] in LAYERS


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


def test_each_review_answer_points_at_a_real_stage_and_test(record):
    pipelines = (m.channels_pipeline(), m.memory_pipeline())
    names = {n for p in pipelines for n in p.names()}
    for row in record["review"]:
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


def test_the_counterfactuals(record):
    c = record["counterfactuals"]
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


def test_without_generation_every_state_and_packet_stay(record):
    behaviour = record["evaluation"]["behaviour"]
    assert len(behaviour) == len(QUERIES) + 1
    assert all(b["without_generation"] == b["state"] and b["packet_kept"] for b in behaviour)


def test_the_six_failure_patterns_each_with_a_lesson(record):
    patterns = record["patterns"]
    assert len(patterns) == 6 and len({p[0] for p in patterns}) == 6
    assert all(p[1][:2].isdigit() and any(ch.isdigit() for ch in p[2]) for p in patterns)


def test_ownership_covers_every_stage(record):
    owned = [s for o in record["ownership"] for s in o["stages"]]
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
    assisted = [sg.signal_map(sg.aggregate(x))["assisted results"]["explicit unit"] for x in (before, after)]
    assert assisted == [55, 25]   # the quiz's premise: "the assisted results ... went 55 -> 25"


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


# ---------------------------------------------------------------- tasks that teach

def test_the_modules_own_functions_fail_every_function_task():
    """Pasting the function the lesson's module holds answers none of the function tasks."""
    solution = (ROOT / "solutions" / "operate.py").read_text(encoding="utf-8")
    pasted = solution + "\n".join([
        "", "from modules.operate.signals import safe_label as safe_signal",
        "from modules.operate.signals import name_layer as name_the_layer",
        "from modules.operate.faithfulness import check_support, check_non_amplification",
        "from modules.operate.review import answer as review_answer", ""])
    assert failed_tasks("operate", pasted) == {1, 2, 3, 4, 5}


def test_the_gaps_issue_36_named_are_closed():
    """name_the_layer naming a rebuild whose index version did not change, and amplification
    found by splitting on whitespace only, both passed the graders before."""
    from devtools import dev
    solution = (ROOT / "solutions" / "operate.py").read_text(encoding="utf-8")
    for name, task in (("index construction without checking that the index changed", 2),
                       ("amplification split on whitespace only", 4)):
        wrong = next(w for w in dev._load_catalogue("operate") if w["name"] == name)
        assert task in failed_tasks("operate", dev.apply_wrong_answer(solution, wrong)), name
