"""Lesson 05: the published simulator's figures, asserted on the --json record of the default
trace and of --all (and on both printed traces), and the contracts of the simulator and the
lesson's mechanisms."""

import inspect
import json
import math
from fractions import Fraction

import pytest

from helpers import ROOT, methods
from modules.common.units import lab_tokens
from modules.order import experiments as order_experiments
from modules.order import mechanism as order
from modules.order import reader, simulator
from modules.order import trace as order_trace
from modules.order import (INSTRUCTION, SEED, WINDOW, OrderEffect, Paragraph, Rng, build_fixture, build_layout,
                           build_prompt, fnv1a, good_and_bad, is_relevant, order_effect, pick, read,
                           reorder_lost_in_middle, reorder_parity_variant, retrieve, share_of_change, tokens)


@pytest.fixture(scope="module")
def committed():
    return json.loads(methods("order", "--json").stdout)


@pytest.fixture(scope="module")
def plain():
    return methods("order").stdout.decode()


@pytest.fixture(scope="module")
def committed_all():
    return json.loads(methods("order", "--all", "--json").stdout)


@pytest.fixture(scope="module")
def plain_all():
    return methods("order", "--all").stdout.decode()


@pytest.fixture(scope="module", params=["default", "--all"])
def both(request, committed, plain, committed_all, plain_all):
    """(record, printed trace) of the default trace, then of --all."""
    return (committed, plain) if request.param == "default" else (committed_all, plain_all)


@pytest.fixture(scope="module")
def world():
    fixture = build_fixture()
    return fixture, order_experiments.rankings(fixture)


def f4(value):
    return f"{value:.4f}"


# ---------------------------------------------------------------- the published figures

def test_budget_line_is_the_published_one(both):
    committed, plain = both
    budget = committed["budget"]
    assert (budget["window"], budget["instruction"]) == (240, 20)
    assert (f"{budget['query']:.1f}", f"{budget['per_chunk']:.1f}", f"{budget['fit']:.1f}") == ("5.5", "16.0", "13.4")
    line = ("Budget line: window 240; instruction 20 + query 5.5 + per chunk 16.0 tokens; chunks that fit 13.4.")
    assert line in " ".join(plain.split())


PUBLISHED_K_SWEEP = {
    1: ("43.6", 48, 0, "0.7750", "0.7750", "1.0000", "0.7750"),
    3: ("76.2", 88, 0, "0.7750", "0.7000", "1.0000", "0.7000"),
    5: ("109.0", 127, 0, "0.8000", "0.6750", "1.0000", "0.6750"),
    8: ("157.4", 186, 0, "0.8500", "0.5500", "1.0000", "0.5500"),
    10: ("189.9", 226, 0, "0.9750", "0.5750", "1.0000", "0.5750"),
    11: ("206.4", 246, 6, "0.9750", "0.5500", "0.8500", "0.5500"),
    12: ("222.7", 266, 15, "0.9750", "0.4500", "0.6250", "0.4500"),
    13: ("238.9", 286, 15, "0.9750", "0.4500", "0.6250", "0.4500"),
}


def test_k_sweep_is_the_published_table(committed_all, plain_all):
    got = {r["k"]: (f"{r['context_avg']:.1f}", r["largest"], r["overflow"], f4(r["recall"]), f4(r["generation"]),
                    f4(r["cite_concept"]), f4(r["cite_record"])) for r in committed_all["k_sweep"]}
    assert got == PUBLISHED_K_SWEEP
    for k, row in PUBLISHED_K_SWEEP.items():
        assert " ".join([str(k), *map(str, row)]) in " ".join(plain_all.split()), k


PUBLISHED_LAYOUTS = {
    0: ("1.0000", "1.0000", "1.0000", "0.0000", "0.0000", "0.0000"),
    2: ("0.8250", "0.2250", "0.5000", "0.7000", "0.4500", "0.3750"),
    4: ("0.7750", "0.2000", "0.6250", "0.7000", "0.5250", "0.4250"),
    8: ("0.6500", "0.1500", "0.6000", "0.8500", "0.5500", "0.6000"),
}


def layout_figures(record):
    return {r["j"]: tuple(f4(r[f]) for f in ("head", "middle", "tail", "change_middle", "change_tail", "run_to_run"))
            for r in record["layouts"]}


def test_layouts_are_the_published_table(committed_all, plain_all):
    assert layout_figures(committed_all) == PUBLISHED_LAYOUTS
    assert all((r["seed"], r["baseline_seed"]) == (SEED, SEED + 1) for r in committed_all["layouts"])
    for j, row in PUBLISHED_LAYOUTS.items():
        assert " ".join([str(j), *row]) in " ".join(plain_all.split()), j


def test_the_default_trace_reads_no_table_over_all_the_questions(committed, plain):
    assert (committed["k_sweep"], committed["layouts"], committed["second_run"], committed["policies"]) == (
        [], [], None, [])
    text = " ".join(plain.split())
    for k, row in PUBLISHED_K_SWEEP.items():
        assert " ".join([str(k), *map(str, row)]) not in text, k
    for j, row in PUBLISHED_LAYOUTS.items():
        assert " ".join([str(j), *row]) not in text, j
    for title in ("k sweep:", "Layouts:", "Second run,", "Reorder policies over"):
        assert title not in text, title


def test_one_question_is_laid_out_as_the_mechanism_reads_it(both, world):
    committed, plain = both
    fixture, ranked = world
    query = fixture.queries[0]
    one = committed["one_question"]
    assert (one["query"], one["j"]) == (query.text, 4)
    good, bad = good_and_bad(query, ranked[0], 4)
    text = " ".join(plain.split())
    for row, layout in zip(one["rows"], ("head", "middle", "tail")):
        prompt = build_prompt(query, build_layout(good, bad, layout))
        place = prompt.chunks.index(good)
        picks = [read(prompt, seed).chunk for seed in (SEED, SEED + 1)]
        assert (row["layout"], row["place"], row["chance"]) == (layout, place + 1, order.reader_chances(prompt)[place])
        assert row["reads"] == [{"seed": seed, "code": chunk.code, "relevant": chunk == good}
                                for seed, chunk in zip((SEED, SEED + 1), picks)]
        assert row["changed"] == (picks[0] != picks[1])
        cells = [f"{c['code']} {'relevant' if c['relevant'] else 'other'}" for c in row["reads"]]
        assert " ".join([layout, str(place + 1), f4(row["chance"]), *cells]) in text, layout
    # the place alone moves the chance: the middle's weight is the lowest
    chance = {row["layout"]: row["chance"] for row in one["rows"]}
    assert chance["middle"] < chance["tail"] < chance["head"]
    hits = [sum(row["reads"][i]["relevant"] for row in one["rows"]) for i in (0, 1)]
    changed = sum(row["changed"] for row in one["rows"])
    assert (f"seed {SEED} picks the relevant chunk in {hits[0]} of 3 layouts, seed {SEED + 1} in {hits[1]}, and "
            f"the next seed changes the pick in {changed} of 3") in text


def test_every_figure_of_the_default_is_the_same_under_all(committed, committed_all):
    assert (committed["shows"], committed_all["shows"]) == ("default", "all")
    for key in ("simulator", "fixture", "example", "budget", "one_question", "frameworks", "context_order",
                "copier"):
        assert committed[key] == committed_all[key], key
    assert committed_all["k_sweep"] and committed_all["layouts"] and committed_all["second_run"]
    assert committed_all["policies"]


def test_the_default_trace_says_what_all_adds(plain, plain_all):
    text, text_all = " ".join(plain.split()), " ".join(plain_all.split())
    assert ("--all adds the tables over all 40 questions: the k sweep at k = 1, 3, 5, 8, 10, 11, 12 and 13; "
            "the layouts at j = 0, 2, 4 and 8 against the run-to-run baseline, with a second run (seed 20260219) "
            "at j = 4; and the reorder policies at k = 4 and 5.") in text
    assert "--all adds" not in text_all
    for said in ("k sweep: the top k in rank order", "Layouts: one relevant chunk and j irrelevant ones",
                 "Second run, seed 20260219", "Reorder policies over the same top k",
                 "With j = 0 every layout is the same prompt"):
        assert said in text_all and said not in text, said


def test_second_run_is_the_published_one(committed_all, plain_all):
    committed, plain = committed_all, plain_all
    second = committed["second_run"]
    assert (second["seed"], second["baseline_seed"], second["j"]) == (20260219, 20260220, 4)
    assert (f4(second["head"]), f4(second["middle"]), f4(second["tail"])) == ("0.7500", "0.1500", "0.5750")
    assert "Second run, seed 20260219, j = 4: head 0.7500, middle 0.1500, tail 0.5750" in " ".join(plain.split())
    # the order effect exceeds the run-to-run baseline on both seeds
    j4 = next(r for r in committed["layouts"] if r["j"] == 4)
    assert j4["change_middle"] > j4["run_to_run"] and j4["middle_exceeds"] is True
    assert second["change_middle"] > second["run_to_run"] and second["middle_exceeds"] is True


def test_the_trace_says_everything_is_fictional_at_the_top(both):
    _record, plain = both
    top = " ".join(plain.split("\n\n", 3)[1].split())
    assert "FICTIONAL reader simulator" in top and "no model" in top and "water utility" in top


def test_plain_output_fits_80_columns_and_tables_are_not_stacked(both):
    _record, plain = both
    assert max(map(len, plain.splitlines())) <= 80
    assert "-- row" not in plain.split("Lost in the middle puts")[0], "a table was stacked"


def test_seed_option_moves_the_reader_not_the_fixture():
    other = json.loads(methods("order", "--seed", "5", "--json").stdout)
    assert other["simulator"]["reader_seed"] == 5 and other["simulator"]["fixture_seed"] == SEED
    assert other["budget"] == order_trace.trace()["budget"]
    assert [[read["seed"] for read in row["reads"]] for row in other["one_question"]["rows"]] == [[5, 6]] * 3
    other_all = json.loads(methods("order", "--seed", "5", "--all", "--json").stdout)
    assert other_all["second_run"]["seed"] == 6 and other_all["layouts"][0]["baseline_seed"] == 6
    assert other_all["budget"] == other["budget"] and other_all["one_question"] == other["one_question"]


def test_trace_is_the_same_on_every_run(committed, committed_all):
    assert json.loads(json.dumps(order_trace.trace())) == committed
    assert json.loads(json.dumps(order_trace.trace(full=True))) == committed_all


@pytest.mark.parametrize("full", ["yes", 1, None])
def test_full_must_be_a_bool(full):
    with pytest.raises(TypeError, match="full must be a bool"):
        order_trace.trace(full=full)


# ---------------------------------------------------------------- the simulator, by its specification

def test_rng_and_pick():
    r = Rng(0)
    x = ((0 ^ 0) * 2246822507) % 2 ** 32
    state = (x ^ (x >> 16)) % 2 ** 32
    state = (state * 1664525 + 1013904223) % 2 ** 32
    assert r() == state / 2 ** 32
    assert [Rng(12345)() for _ in range(2)] == [Rng(12345)()] * 2  # seeded: the same first draw
    assert pick(0.0, [0.5, 0.5]) == 0 and pick(0.5, [0.5, 0.5]) == 1 and pick(0.99, [0.5, 0.5]) == 1
    assert pick(1.5, [0.5, 0.5]) == 1  # none exceeds: the last index
    with pytest.raises(ValueError, match="weights"):
        pick(0.1, [])
    with pytest.raises(TypeError, match="seed"):
        Rng(1.5)


def test_tokens_are_lower_cased_comma_spaced_pieces_of_five():
    assert tokens("Service restoration, ok") == ["servi", "ce", "resto", "ratio", "n", ",", "ok"]
    for text in ("Tier limit for entry", "a,b  c", "technician when does it show up"):
        assert len(tokens(text)) == lab_tokens(text.replace(",", " , "))


def test_fnv1a_known_values():
    assert fnv1a("") == 0x811C9DC5 and fnv1a("a") == 0xE40C292C and fnv1a("foobar") == 0xBF9CF968


def test_fixture_follows_the_specification(world):
    fixture, _ranked = world
    assert len(fixture.documents) == 200 and len(fixture.queries) == 40
    assert len(fixture.chunks) == sum(len(d.paragraphs) for d in fixture.documents)
    assert all(2 <= len(d.paragraphs) <= 5 for d in fixture.documents)
    assert [d.code[2:] for d in fixture.documents] == [f"{i:03d}" for i in range(1, 201)]
    assert all(abs(sum(v * v for v in c.vector) - 1) < 1e-9 for c in fixture.chunks)
    assert [c.number for c in fixture.chunks] == list(range(len(fixture.chunks)))
    for query in fixture.queries:
        assert query.text.startswith(query.concept.query_phrase + " ") and query.record == query.text.split()[-1]


def test_prompt_format_and_token_count(world):
    fixture, ranked = world
    query = fixture.queries[3]
    prompt = build_prompt(query, ranked[3][:4])
    entries = " ".join(f"[{c.code}] {c.text} ." for c in ranked[3][:4])
    assert prompt.text == INSTRUCTION + entries + " Question: " + query.text
    assert INSTRUCTION.endswith(" . ") and prompt.tokens == len(tokens(prompt.text))
    assert prompt.fnv == fnv1a(prompt.text)


def test_retrieval_is_best_first_with_ties_in_chunk_order(world):
    fixture, ranked = world
    query = fixture.queries[0]
    scores = [simulator.retrieval_score(query, c) for c in ranked[0]]
    assert scores == sorted(scores, reverse=True)
    shuffled = list(reversed(fixture.chunks))
    assert retrieve(query, shuffled, 40) == ranked[0]
    assert any(is_relevant(query, c) for c in ranked[0])


def test_reader_follows_the_rule(world):
    fixture, ranked = world
    query = fixture.queries[5]
    prompt = build_prompt(query, ranked[5][:5])
    weights = [reader.position_weight(i, 5) for i in range(5)]
    assert weights == [1.0, 0.45, 0.45, 0.45, 0.8] and reader.position_weight(0, 1) == 1.0
    shares = [len(query.bag & c.bag) / len(query.bag) for c in prompt.chunks]
    assert reader.reader_scores(prompt) == [w * (0.3 + s) for w, s in zip(weights, shares)]
    odds = [math.exp(w * (0.3 + s) / 0.12) for w, s in zip(weights, shares)]
    chances = [o / sum(odds) for o in odds]
    assert reader.reader_chances(prompt) == chances
    for seed in (SEED, SEED + 1, 7):
        reading = read(prompt, seed)
        assert reading.chunk is prompt.chunks[pick(Rng(seed ^ prompt.fnv)(), chances)]
        assert read(prompt, seed) == reading


def test_overflow_over_the_window(world):
    fixture, ranked = world
    prompt = build_prompt(fixture.queries[0], ranked[0][:13])
    assert prompt.tokens > WINDOW
    reading = read(prompt, SEED)
    assert reading.overflow and reading.chunk is None and reading.code is None
    assert not read(prompt, SEED, window=prompt.tokens).overflow


def test_no_second_simulator_is_left():
    source = "".join(inspect.getsource(m) for m in (order, simulator, reader, order_experiments, order_trace))
    assert "random.Random" not in source and "import random" not in source
    assert "TEMPERATURE = 0.12" in source and "ferry" not in source.lower()


# ---------------------------------------------------------------- layouts and share of change

def test_layouts_follow_the_specification(world):
    fixture, ranked = world
    query = fixture.queries[2]
    good, bad = good_and_bad(query, ranked[2], 8)
    assert good == next(c for c in ranked[2] if is_relevant(query, c))
    assert list(bad) == [c for c in ranked[2] if not is_relevant(query, c)][:8]
    assert build_layout(good, bad, "head") == (good,) + bad
    assert build_layout(good, bad, "tail") == bad + (good,)
    assert build_layout(good, bad, "middle") == bad[:4] + (good,) + bad[4:]
    assert build_layout(good, bad[:3], "middle") == bad[:1] + (good,) + bad[1:3]
    with pytest.raises(ValueError, match="layout must be one of"):
        build_layout(good, bad, "centre")
    with pytest.raises(ValueError, match="j must be at most"):
        good_and_bad(query, ranked[2], 40)


def test_share_of_change_compares_chunks_not_codes(world):
    fixture, _ranked = world
    by_code = {}
    for chunk in fixture.chunks:
        by_code.setdefault(chunk.code, []).append(chunk)
    first, second = next(chunks for chunks in by_code.values() if len(chunks) > 1)[:2]
    assert first.code == second.code and first != second
    assert share_of_change([first, None], [second, None]) == Fraction(1, 2)


def test_order_effect_against_the_baseline():
    assert order_effect(list("abcd"), ["a", "x", "y", "d"], ["a", "b", "z", "d"]) == OrderEffect(
        Fraction(1, 2), Fraction(1, 4), True)
    assert order_effect(["a", "b"], ["a", "x"], ["y", "b"]).exceeds is False  # equal is not more
    assert order_effect((x for x in "ab"), ["a", "x"], iter(["a", "b"])).exceeds is True


def test_the_mechanism_agrees_with_the_table(committed_all, world):
    fixture, ranked = world
    picks = {}
    for layout, seed in (("head", SEED), ("middle", SEED), ("head", SEED + 1)):
        picks[layout, seed] = [read(build_prompt(q, build_layout(*good_and_bad(q, r, 4), layout)), seed).chunk
                               for q, r in zip(fixture.queries, ranked)]
    effect = order_effect(picks["head", SEED], picks["middle", SEED], picks["head", SEED + 1])
    j4 = next(r for r in committed_all["layouts"] if r["j"] == 4)
    assert (float(effect.order_share), float(effect.seed_share), effect.exceeds) == (
        j4["change_middle"], j4["run_to_run"], j4["middle_exceeds"])


@pytest.mark.parametrize("bad", [{1, 2, 3}, frozenset({1, 2}), {"a": 1}, {"a": 1}.keys(), "abc", b"ab", 5])
def test_unordered_input_is_refused(bad):
    with pytest.raises(TypeError, match="items must be an ordered sequence"):
        reorder_lost_in_middle(bad)
    with pytest.raises(TypeError, match="items must be an ordered sequence"):
        reorder_parity_variant(bad)
    with pytest.raises(TypeError, match="before must be an ordered sequence"):
        share_of_change(bad, ["a"])
    with pytest.raises(TypeError, match="first must be an ordered sequence"):
        order_effect(bad, ["a"], ["a"])


def test_bad_input_names_the_field(world):
    fixture, ranked = world
    query = fixture.queries[0]
    for call, name in ((lambda: read("prompt"), "prompt"), (lambda: build_prompt("q", ranked[0][:2]), "query"),
                       (lambda: build_prompt(query, []), "chunks"), (lambda: retrieve(query, fixture.chunks, 0), "k"),
                       (lambda: read(build_prompt(query, ranked[0][:1]), -1), "seed"),
                       (lambda: build_layout("good", ranked[0][:2], "head"), "good"),
                       (lambda: Paragraph(0, "TR001", "", frozenset({"a"}), (0.0,) * 32, 1), "Paragraph.text"),
                       (lambda: tokens(5), "text"), (lambda: order.embed(None, fixture.rows), "text"),
                       (lambda: order.retrieval_score(query, "chunk"), "chunk"),
                       (lambda: is_relevant("query", ranked[0][0]), "query"), (lambda: pick("0.5", [1.0]), "u"),
                       (lambda: order.reader_scores(None), "prompt"), (lambda: build_fixture(-3), "seed")):
        with pytest.raises((TypeError, ValueError), match=name):
            call()


# ---------------------------------------------------------------- reorder policies and the frameworks

def test_reorder_lost_in_middle_ranks():
    assert reorder_lost_in_middle(range(1, 11)) == [1, 3, 5, 7, 9, 10, 8, 6, 4, 2]
    assert reorder_lost_in_middle([1, 2, 3, 4]) == [1, 3, 4, 2]
    assert reorder_lost_in_middle([]) == [] and reorder_lost_in_middle(["a"]) == ["a"]


def test_parity_variant_puts_the_best_last_for_even_counts():
    assert reorder_parity_variant([1, 2, 3, 4]) == [2, 4, 3, 1]
    for count in range(1, 30):
        placed = reorder_parity_variant(range(1, count + 1))
        assert placed.index(1) == (count - 1 if count % 2 == 0 else 0)


def langchain_loop(documents):
    """langchain-community 0.4.2, _litm_reordering, as read: reverse, then insert at 0 / append."""
    documents = list(documents)
    documents.reverse()
    out = []
    for i, value in enumerate(documents):
        if i % 2 == 1:
            out.append(value)
        else:
            out.insert(0, value)
    return out


def llamaindex_loop(scored):
    """llama-index-core 0.14.25, LongContextReorder._postprocess_nodes, as read: sort by score
    ascending, then insert at 0 for even i and append for odd i. `scored`: (item, score) pairs."""
    out = []
    for i, (item, _score) in enumerate(sorted(scored, key=lambda pair: pair[1])):
        if i % 2 == 0:
            out.insert(0, item)
        else:
            out.append(item)
    return out


def haystack_loop(documents):
    """haystack-ai 3.4.1, LostInTheMiddleRanker.run (no threshold, no top_k), as read."""
    documents = list(documents)
    if len(documents) <= 1:
        return documents
    indices = [0]
    for index in range(1, len(documents)):
        indices.insert(len(indices) // 2 + len(indices) % 2, index)
    return [documents[i] for i in indices]


@pytest.mark.parametrize("count", range(0, 16))
def test_the_frameworks_loops_match_the_lab_functions_named_for_them(count):
    ranks = list(range(1, count + 1))
    assert langchain_loop(ranks) == reorder_parity_variant(ranks)
    assert llamaindex_loop([(r, 1.0 - r / 100) for r in ranks]) == reorder_parity_variant(ranks)
    assert haystack_loop(ranks) == reorder_lost_in_middle(ranks)


def test_frameworks_are_named_with_versions(both):
    committed, plain = both
    found = {f["name"]: f for f in committed["frameworks"]}
    assert {name: f["version"] for name, f in found.items()} == {
        "LangChain LongContextReorder": "langchain-community 0.4.2",
        "LlamaIndex LongContextReorder": "llama-index-core 0.14.25",
        "Haystack LostInTheMiddleRanker": "haystack-ai 3.4.1"}
    assert found["LangChain LongContextReorder"]["four"] == [2, 4, 3, 1]
    assert found["Haystack LostInTheMiddleRanker"]["ten"] == [1, 3, 5, 7, 9, 10, 8, 6, 4, 2]
    text = " ".join(plain.split())
    assert all(f["version"] in text for f in found.values())
    assert "LongContextReorder" in text and "LostInTheMiddleRanker" in text


def test_policies_are_measured_on_the_same_top_k(committed_all):
    committed = committed_all
    assert [(r["k"], r["policy"]) for r in committed["policies"]] == [
        (k, name) for k in order_experiments.POLICY_KS for name in order_experiments.POLICIES]
    by = {(r["k"], r["policy"]): r for r in committed["policies"]}
    for k in order_experiments.POLICY_KS:
        assert by[k, "parity variant"]["best_at"] == (k if k % 2 == 0 else 1)
        if k % 2:
            assert by[k, "parity variant"]["generation"] == by[k, "lost in the middle"]["generation"]
    k_sweep = {r["k"]: r for r in committed["k_sweep"]}
    assert by[5, "rank order"]["generation"] == k_sweep[5]["generation"]


def test_the_order_is_written_down(both):
    committed, plain = both
    assert committed["context_order"] == {"policy": "rank order", "recorded_in": "the packet",
                                          "note": order_trace.DECISION}
    assert "design decision" in plain


def test_module_state_stays_the_same_size():
    def sizes():
        return {(m.__name__, n): len(v) for m in (order, simulator, reader, order_experiments, order_trace)
                for n, v in vars(m).items() if isinstance(v, (dict, list, set))}
    order_trace.trace(seed=1)
    before = sizes()
    for seed in (2, 3):
        order_trace.trace(seed=seed)
    assert sizes() == before





