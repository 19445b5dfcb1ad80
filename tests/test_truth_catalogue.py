"""One truth across the parts-catalogue lessons (07 hybrid, 08 eligibility, 09 grounding,
12 channels, 13 memory): every quiz premise and trace sentence checked here is
read back from the lesson's own --json record or the fixture, never restated as a constant.

Each test names the statement it holds true; a change that makes the statement false (a
new fixture figure, a reordered quiz, a trace that hides what it claims to show) fails it.
"""

from __future__ import annotations

import datetime
import json
import re

import pytest

from helpers import ROOT, methods
from labtools import render
from modules.catalogue import LISTINGS

LESSONS = ("hybrid", "eligibility", "grounding", "channels", "memory")


@pytest.fixture(scope="module")
def records() -> dict:
    return {name: json.loads(methods(name, "--json").stdout) for name in LESSONS}


@pytest.fixture(scope="module")
def plain() -> dict:
    return {name: methods(name, "--plain").stdout.decode() for name in LESSONS}


def quiz(lesson: str, name: str) -> tuple[str, dict]:
    """(the premise, {letter: option text}) of quiz `name`, as the learner's exercise file states it."""
    text = (ROOT / "exercises" / f"{lesson}.py").read_text(encoding="utf-8")
    blocks = [b for b in re.split(r"^# Task \d+ \(quiz\)\.", text, flags=re.M)[1:]
              if f"# Set {name} to one letter." in b]
    assert len(blocks) == 1, f"exercises/{lesson}.py has {len(blocks)} quiz blocks for {name}"
    lines = blocks[0].split(f"# Set {name} to one letter.")[0].split("\n")
    body = " ".join(line.lstrip("#").strip() for line in lines)
    premise, *options = re.split(r'\s"([a-d])"\s', " " + body)
    return " ".join(premise.split()), {options[i]: options[i + 1] for i in range(0, len(options), 2)}


def key(lesson: str, name: str) -> str:
    text = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    return re.search(rf'^{name} = "([a-d])"$', text, re.M).group(1)


def hits(channels: list, name: str) -> dict:
    """{candidate: score} of one channel in a record's channel list."""
    return {h["candidate"]: h["score"] for c in channels if c["channel"] == name for h in c["hits"]}


# ---------------------------------------------------------------- quiz keys and premises

def test_the_quiz_keys_are_the_ones_the_course_spreads_over_the_letters():
    keys = {("hybrid", "RAW_SCORES_QUIZ"): "c", ("eligibility", "EXPIRED_FIRST_QUIZ"): "d",
            ("grounding", "REBUILD_QUIZ"): "b", ("grounding", "RANKER_QUIZ"): "c",
            ("channels", "TWO_EVALUATIONS_QUIZ"): "b", ("memory", "ONLY_MEMORY_QUIZ"): "b"}
    assert {place: key(*place) for place in keys} == keys
    # the key still points at the option that carries the lesson's reason
    reasons = {("hybrid", "RAW_SCORES_QUIZ"): "scales are unrelated",
               ("eligibility", "EXPIRED_FIRST_QUIZ"): "freshness control",
               ("grounding", "REBUILD_QUIZ"): "stop at the permission check",
               ("grounding", "RANKER_QUIZ"): "its check reads what passed the gate",
               ("channels", "TWO_EVALUATIONS_QUIZ"): "recall judges the index against exact search",
               ("memory", "ONLY_MEMORY_QUIZ"): "every data question applies"}
    for (lesson, name), reason in reasons.items():
        _premise, options = quiz(lesson, name)
        assert sorted(options) == ["a", "b", "c", "d"], (lesson, name)
        assert reason in options[keys[(lesson, name)]], (lesson, name)


def test_raw_scores_quiz_states_the_lexical_scores_the_traces_print(records):
    premise, _ = quiz("hybrid", "RAW_SCORES_QUIZ")
    q001 = hits(records["hybrid"]["detail"]["channels"], "lexical")
    q002 = hits(records["grounding"]["detail"]["retrieval"]["channels"], "lexical")
    assert records["hybrid"]["detail"]["query_id"] == "PW-Q001"
    assert records["grounding"]["detail"]["query_id"] == "PW-Q002"
    assert f"PW-L001 scores {q001['PW-L001']:g} for PW-Q001 and {q002['PW-L001']:g} for PW-Q002" in premise
    weights = records["hybrid"]["declared"]["field_weights"]
    assert f"title x{weights['title']}, description x{weights['description']}" in premise
    # "a cosine, at most 1": no vector score the traces print is above 1
    cosines = list(hits(records["hybrid"]["detail"]["channels"], "vector").values()) + list(
        hits(records["grounding"]["detail"]["retrieval"]["channels"], "vector").values())
    assert cosines and max(cosines) <= 1 and "at most 1" in premise
    # no stated upper bound for the lexical scale that the lessons' own scores exceed
    for bound in re.findall(r"scores 0 to (\d+)", premise):
        assert max(list(q001.values()) + list(q002.values())) <= int(bound)


def test_expired_first_quiz_states_pw_l006s_dates_as_the_freshness_table_does(records):
    premise, _ = quiz("eligibility", "EXPIRED_FIRST_QUIZ")
    fresh = records["eligibility"]["freshness"]
    row = next(r for r in fresh["rows"] if r["listing_id"] == "PW-L006" and r["field"] == "diameter_mm")
    assert not row["fresh"]
    assert (f"last checked on {row['checked_on']}, {row['age_days']} days before the lesson's as-of date "
            f"{fresh['as_of']} (the policy allows {row['max_days']} days") in premise
    stale_query = next(t for t in records["eligibility"]["traces"] if t["query_id"] == "PW-Q004")
    assert f"\"{stale_query['original']}\"" in premise
    assert any(h["candidate"] == "PW-L006" for c in stale_query["channels"] for h in c["top"])


def test_rebuild_quiz_states_the_lessons_exclusion_counts_and_its_key_holds(records):
    premise, options = quiz("grounding", "REBUILD_QUIZ")
    agg = records["grounding"]["exclusions_by_reason"]
    words = {9: "nine"}
    premise = " ".join(premise.split())
    assert f"over the {words[agg['query_count']]} queries" in premise
    assert f"PROHIBITED_FAMILY going from {agg['before']['PROHIBITED_FAMILY']} to {agg['after']['PROHIBITED_FAMILY']}" \
        in premise and agg["after"]["PROHIBITED_FAMILY"] == 0
    assert f"PERMISSION_DENIED from {agg['before']['PERMISSION_DENIED']} to {agg['after']['PERMISSION_DENIED']}" \
        in premise
    assert f"STALE_FIELD stays at {agg['before']['STALE_FIELD']}" in premise
    assert agg["before"]["STALE_FIELD"] == agg["after"]["STALE_FIELD"]
    # The key: every listing excluded for its family before the rebuild is still proposed after
    # it and is excluded at the permission check (its opaque ref, PERMISSION_UNKNOWN), its family
    # kept in the rebuilt records (not "a"), the policy the same (not "c"), proposed still (not "d").
    from modules.catalogue.fixture import LISTINGS, QUERIES, opaque_ref
    from modules.catalogue.policy import POLICY_VERSION
    from modules.grounding.mechanism import VARIANTS, _gate, run_query, run_variant
    assert agg["policy_version"] == [POLICY_VERSION, POLICY_VERSION]
    rebuilt = run_variant(VARIANTS[1], QUERIES[0], until="source").output("source").by_id
    assert all(rebuilt[listing.id].family == listing.family for listing in LISTINGS)
    families = 0
    for query in QUERIES:
        before = _gate(run_query(query)).get("withheld", ())
        after = {d["subject"]: d["reason_codes"]
                 for d in _gate(run_variant(VARIANTS[1], query, until="gate")).get("withheld", ())}
        for decision in before:
            if "PROHIBITED_FAMILY" in decision["reason_codes"]:
                families += 1
                assert list(after[opaque_ref(decision["subject"])]) == ["PERMISSION_UNKNOWN"], (query.id, decision)
    assert families == agg["before"]["PROHIBITED_FAMILY"] > 0


def test_ranker_quiz_states_what_the_freshness_off_walk_shows(records):
    premise, options = quiz("grounding", "RANKER_QUIZ")
    walk = next(v for v in records["grounding"]["variants"] if "freshness" in v["name"])
    query = next(q for q in records["grounding"]["queries"] if q["query_id"] == walk["query_id"])
    assert "PW-L006" in walk["packet_after"] and f"\"{query['original']}\"" in premise
    assert ") enters the packet for" in premise
    checked = next(r["checked_on"] for r in records["eligibility"]["freshness"]["rows"]
                   if r["listing_id"] == "PW-L006" and r["field"] == "diameter_mm")
    assert f"last checked in {checked[:4]}" in premise
    assert options[key("grounding", "RANKER_QUIZ")].strip().startswith(f"{walk['first_failing_layer']}:")
    # The key holds whatever a ranker does downstream: the permission/freshness check reads its own
    # section only (here, the gate's section alone) and fails on PW-L006, and the walk reaches it
    # before ranking and assembly.
    from modules.grounding.mechanism import CHECKS, LAYERS, VARIANTS, run_variant, trace_record
    from modules.catalogue.fixture import query_by_id
    variant = next(v for v in VARIANTS if "freshness" in v.name)
    after = trace_record(run_variant(variant, query_by_id(variant.query)))
    held, why = CHECKS["permission/freshness"]({"permission/freshness": after["permission/freshness"]})
    assert not held and "PW-L006 passed the gate" in why
    assert LAYERS.index("permission/freshness") < LAYERS.index("ranking") < LAYERS.index("assembly")


def test_two_evaluations_quiz_states_the_index_figures_at_their_nprobe(records):
    premise, _ = quiz("channels", "TWO_EVALUATIONS_QUIZ")
    ix = records["channels"]["index"]
    recall = {(p["query_id"], p["nprobe"]): p["recall"] for p in ix["probes"]}
    assert recall[("CH-Q003", 3)] == 1.0 and "At nprobe 3 the index returns CH-Q003's exact top 3 (recall 1.0)" \
        in premise
    relevance = next(r for r in ix["relevance"] if r["query_id"] == "CH-Q003")
    o_rings = [x.id for x in LISTINGS if x.family == "o-ring"]
    assert relevance["relevant"] == [] and not set(relevance["exact"]) & set(o_rings)
    assert len(o_rings) == 1 and {"listing": o_rings[0], "reason": "no photo"} in records["channels"]["images"][
        "rejected"] and "the only O-ring has no photo" in premise
    miss = next(d for d in ix["directions"] if d["query_id"] == "CH-Q001")
    assert miss["missed"] == ["PW-L002"] and miss["packet_nprobe_1"] == miss["packet_nprobe_2"]
    assert f"At nprobe 1 it misses PW-L002 for CH-Q001 (recall {miss['recall']:.3f})" in premise


def test_only_memory_quiz_names_the_stores_a_deletion_reaches(records):
    _premise, options = quiz("memory", "ONLY_MEMORY_QUIZ")
    reaches = records["memory"]["deletion"]["removed"]
    assert set(reaches) == {"store", "index", "packet-cache", "trace-payloads"}
    assert "deletion" in options[key("memory", "ONLY_MEMORY_QUIZ")]




# ---------------------------------------------------------------- what the traces say

@pytest.mark.parametrize("name", LESSONS)
def test_plain_output_fits_80_columns_with_every_table_as_a_table(plain, name):
    text = plain[name]
    assert [line for line in text.split("\n") if len(line) > 80] == []
    assert "-- row 1 of" not in text, f"{name}: a table too wide for 80 columns was stacked"


def test_lesson_08_prints_the_gate_table_once_and_states_the_packet_cap(records):
    from modules.eligibility import trace as lesson
    view = lesson.view(records["eligibility"])
    gate_tables = [b for b in view if "table" in b and b["table"]["title"].startswith("The gate withheld")]
    assert len(gate_tables) == 1
    first = records["eligibility"]["traces"][0]
    for n, t in enumerate(records["eligibility"]["traces"][1:], start=2):
        text = render.block(view, f"trace-{n}-withheld")["text"]
        same = sorted(map(str, t["withheld"])) == sorted(map(str, first["withheld"]))
        assert ("the same" in text) == same
        assert f"proposed {t['proposed']} of the {t['catalogue_size']} listings" in text or not same
    capped = [t for t in records["eligibility"]["traces"] if len(t["usable"]) > t["packet_cap"]]
    assert capped, "no traced query shows the packet cap at work"
    for t in capped:
        n = records["eligibility"]["traces"].index(t) + 1
        text = render.block(view, f"trace-{n}-packet")["text"]
        assert f"at most {t['packet_cap']} listings" in text
        assert all(listing in text for listing in t["usable"][t["packet_cap"]:])


def test_lesson_09_walks_say_what_the_shopper_sees_and_name_held_layers_once(records):
    from modules.grounding import trace as lesson
    view = lesson.view(records["grounding"])
    # what the shopper sees is one table row per walk, and the message is said once, beside it
    rows = render.block(view, "broken-runs")["table"]["rows"]
    said = " ".join(render.block(view, "walks-shown")["text"].split())
    for n, v in enumerate(records["grounding"]["variants"], start=1):
        text = " ".join(render.block(view, f"walk-{n}")["text"].split())
        assert v["user_view_after"] == "unavailable"
        assert f"{v['user_view_before']} -> {v['user_view_after']}" in [str(cell) for cell in rows[n - 1]]
        assert v["user_message_after"] in said and v["user_message_after"] not in text
        assert "the shopper now sees" not in text
        before = {c["layer"]: c["why"] for c in v["checks_before"]}
        unchanged = [c["layer"] for c in v["checks"] if c["held"] and c["why"] == before[c["layer"]]]
        assert f"held, as in the healthy run: {', '.join(unchanged)}." in text
        for c in v["checks"]:
            shown = f"{c['layer']}: " in text.replace(f"held, as in the healthy run: {', '.join(unchanged)}", "")
            assert shown == (c["layer"] not in unchanged), (v["name"], c["layer"])


def test_lesson_12_default_is_the_whole_lesson(plain):
    default = " ".join(plain["channels"].split())
    assert "--all" not in default
    for section in ("The catalogue's own queries", "First evaluation, index quality", "Second evaluation, kept apart",
                    "Recall 1 with P@3 0", "At nprobe 1, CH-Q002 misses PW-L012", "Recall@10 as the catalogue grows",
                    "Queries with photos, through the whole pipeline", "Prediction missed", "Measured without vector",
                    "behaviour > what stays visible", "By predeclared segment", "By failure", "Layer: retrieval",
                    "Contrast: had the rebuild re-encoded", "The catalogue pipeline of lessons 07-09, extended",
                    "5 carry a usable photo", "Rejected, never scored", "Each failure, simulated",
                    "A slow channel never holds the task open"):
        assert section in default, section


def test_lesson_12_names_the_first_listings_state_correctly(records):
    from modules.channels import trace as lesson
    view = lesson.view(records["channels"])
    table = render.block(view, "metrics-prohibited")["table"]
    ungated = records["channels"]["metrics"]["prohibited_first"][1]
    assert ungated["first_state"] == "unauthorized"
    assert "prohibited" not in table["title"] and "withheld" in table["title"]
    assert f"{ungated['first']} is {ungated['first_state']}" in table["legend"]


def test_lesson_13_default_is_the_whole_lesson(plain, records):
    default = " ".join(plain["memory"].split())
    assert "--all" not in default
    for section in ("the same with memory switched off: yes", "Correction of MEM-A2", "Deletion of MEM-A3",
                    "Embedding migration mem-vec-1 -> mem-vec-2", "Replay of the buyer's requests",
                    "Replay of the migration to mem-vec-2", "Every catalogue query with memory switched off",
                    "The allowed feature", "Its obligations", "Each item through the gate",
                    "memory-recall and memory-gate, per session", "memory-context: each usable item",
                    "Conflict shown: today's diameter_mm 18 against the remembered 16"):
        assert section in default, section
    assert all(s["catalogue"]["same_with_memory_off"] for s in records["memory"]["sessions"])


def test_lesson_13_retention_counts_days_after_recording_at_the_boundary(records):
    from modules import memory
    m = records["memory"]
    for s in m["store"]:
        recorded = datetime.date.fromisoformat(s["as_of"])
        assert s["last_day"] == (recorded + datetime.timedelta(days=s["retention_days"])).isoformat()
    item = next(s for s in m["store"] if s["id"] == "MEM-A3")
    assert item["last_day"] == m["as_of"]                 # the lesson's as-of date is MEM-A3's last day
    assert item["gate"] == [] and item["gate_tomorrow"] == ["MEMORY_EXPIRED"]
    purchase = next(i for i in memory.ITEMS if i.id == "MEM-A3")
    last = datetime.date.fromisoformat(item["last_day"])
    assert not memory.gate_item(purchase, item["owner"], last.isoformat())
    assert memory.gate_item(purchase, item["owner"], (last + datetime.timedelta(days=1)).isoformat()) == (
        "MEMORY_EXPIRED",)
    assert not memory.gate_item(purchase, item["owner"], item["as_of"])      # the recording day is day 0
    from modules.memory import trace as lesson
    legend = render.block(lesson.view(m), "store-gate")["table"]["legend"]
    assert "that day is day 0" in legend and "usable on N + 1 calendar days" in legend
    notebook = (ROOT / "notebooks" / "src" / "13_memory.py").read_text(encoding="utf-8")
    assert "which is day 0" in notebook and "366th calendar day" in notebook
