"""Lesson 05's shapes and contracts, asserted on the mechanism and on the command."""

import inspect
import json

import pytest

from helpers import methods
from modules import order
from modules.order import (CHUNKS, QUERIES, SEED, WINDOW, Chunk, build_layout, build_prompt, prompt_tokens,
                           reorder_lost_in_middle, reorder_parity_variant, share_of_change, simulate_reader)
from modules.common.units import lab_tokens

SECOND_SEED = 520  # any other seed; the shapes below must hold for it too


@pytest.fixture(scope="module")
def committed():
    return json.loads(methods("order", "--json").stdout)


@pytest.fixture(scope="module", params=[SEED, SECOND_SEED])
def record(request):
    return order.trace(seed=request.param)


def _generation(record, column="generation"):
    return {(r["irrelevant"], r["layout"]): r[column] for r in record["layouts"]["generation"]}


# ---------------------------------------------------------------- the k sweep

def test_k_sweep_recall_rises_while_generation_falls(record):
    rows = {r["k"]: r for r in record["k_sweep"]}
    assert sorted(rows) == list(range(1, 14))
    recall = [rows[k]["recall"] for k in range(1, 14)]
    assert recall == sorted(recall) and recall[9] > recall[0]
    assert rows[10]["generation"] < rows[1]["generation"]
    assert rows[13]["generation"] < rows[10]["generation"] <= rows[1]["generation"] - 0.1


def test_k_sweep_overflow_appears_past_the_window(record):
    rows = record["k_sweep"]
    for row in rows:
        assert (row["overflow"] > 0) == (row["max_prompt"] > WINDOW)
        assert row["avg_prompt"] <= row["max_prompt"]
    assert [r["overflow"] for r in rows] == sorted(r["overflow"] for r in rows)
    assert all(r["overflow"] == 0 for r in rows if r["k"] <= 10)
    assert rows[-1]["overflow"] == len(QUERIES) and rows[-1]["generation"] == 0


def test_citation_splits_concept_from_record(record):
    for row in record["k_sweep"]:
        assert row["cite_record"] <= row["cite_concept"]
        assert row["cite_record"] <= row["generation"] <= row["cite_concept"] + 0.2
    # With one chunk the reader reads it: the record is cited exactly when it was ranked first.
    first = record["k_sweep"][0]
    assert first["cite_record"] == first["recall"]
    assert any(r["cite_concept"] > r["cite_record"] for r in record["k_sweep"])


def test_committed_k_sweep_figures(committed):
    rows = {r["k"]: r for r in committed["k_sweep"]}
    assert (rows[1]["recall"], rows[10]["recall"]) == (0.8, 0.975)
    assert (rows[1]["generation"], rows[10]["generation"]) == (0.8, 0.625)
    assert (rows[11]["overflow"], rows[12]["overflow"]) == (8, 32)


# ---------------------------------------------------------------- layouts

def test_one_chunk_is_always_answered_and_order_changes_nothing(record):
    generation = _generation(record)
    second = _generation(record, "generation_second_seed")
    assert all(generation[0, layout] == second[0, layout] == 1.0 for layout in order.LAYOUTS)
    zero = record["layouts"]["share_of_change"][0]
    assert zero == {"irrelevant": 0, "reseed_head": 0.0, "order_middle": 0.0, "order_tail": 0.0}


@pytest.mark.parametrize("column", ["generation", "generation_second_seed"])
def test_head_beats_tail_beats_middle(record, column):
    generation = _generation(record, column)
    for j in (2, 4, 8):
        assert generation[j, "head"] > generation[j, "tail"] > generation[j, "middle"], (j, column)
    # The middle falls sharply already at j = 2: to half of the j = 0 score or less.
    assert generation[2, "middle"] <= 0.5
    assert record["layouts"]["same_ordering_on_second_seed"] is True
    assert [r["ordering"] for r in record["layouts"]["orderings"]][1:] == ["head > tail > middle"] * 3


def test_order_changes_more_answers_than_reseeding(record):
    for row in record["layouts"]["share_of_change"][1:]:
        assert row["order_middle"] > row["reseed_head"], row
        assert row["order_tail"] > row["reseed_head"], row


def test_committed_layout_figures(committed):
    generation = _generation(committed)
    assert [generation[2, layout] for layout in ("head", "middle", "tail")] == [0.725, 0.35, 0.475]
    change = committed["layouts"]["share_of_change"][2]
    assert (change["irrelevant"], change["reseed_head"], change["order_middle"]) == (4, 0.425, 0.625)


def test_layouts_use_irrelevant_chunks_only():
    by_id = {c.id: c for c in CHUNKS}
    for query in QUERIES:
        gold = by_id[query.gold_id]
        others = [c for c in order.rank_chunks(query.text, CHUNKS) if c.concept != gold.concept][:8]
        assert len(others) == 8 and all(c.concept != gold.concept for c in others)
        assert build_layout(gold, others, "middle")[4] is gold
        assert prompt_tokens(query.text, build_layout(gold, others, "tail")) <= WINDOW


# ---------------------------------------------------------------- reorder policies

def test_reorder_lost_in_middle_ranks():
    assert reorder_lost_in_middle(range(1, 11)) == [1, 3, 5, 7, 9, 10, 8, 6, 4, 2]
    assert reorder_lost_in_middle([1, 2, 3, 4]) == [1, 3, 4, 2]
    assert reorder_lost_in_middle([]) == [] and reorder_lost_in_middle(["a"]) == ["a"]
    for count in range(2, 30):
        placed = reorder_lost_in_middle(range(1, count + 1))
        assert placed[0] == 1 and placed[-1] == 2 and sorted(placed) == list(range(1, count + 1))


def test_parity_variant_puts_the_best_last_for_even_counts():
    assert reorder_parity_variant([1, 2, 3, 4]) == [2, 4, 3, 1]
    for count in range(1, 30):
        placed = reorder_parity_variant(range(1, count + 1))
        assert placed.index(1) == (count - 1 if count % 2 == 0 else 0)
        if count % 2:
            assert placed == reorder_lost_in_middle(range(1, count + 1))


def test_parity_variant_equals_the_insert_loop_it_copies():
    def insert_loop(items):  # the widely copied shape: reverse, then insert at the front / append
        out = []
        for i, item in enumerate(reversed(list(items))):
            if i % 2 == 1:
                out.append(item)
            else:
                out.insert(0, item)
        return out

    for count in range(0, 25):
        assert reorder_parity_variant(range(count)) == insert_loop(range(count))


def test_reorders_are_slices_not_insert_loops():
    for fn in (reorder_lost_in_middle, reorder_parity_variant):
        assert ".insert(" not in inspect.getsource(fn)
    items = list(range(200_000))
    assert reorder_lost_in_middle(items)[:2] == [0, 2] and items[:2] == [0, 1]


def test_policies_are_measured_on_the_same_top_k(record):
    rows = record["policies"]
    by = {(r["k"], r["policy"]): r for r in rows}
    sweep = {r["k"]: r for r in record["k_sweep"]}
    for k in order.POLICY_KS:
        assert by[k, "rank order"]["generation"] == sweep[k]["generation"]
        best_at = by[k, "parity variant"]["order"].index(1) + 1
        assert best_at == (k if k % 2 == 0 else 1)
        assert by[k, "lost in the middle"]["order"][0] == 1 and by[k, "lost in the middle"]["order"][-1] == 2
        if k % 2:
            assert by[k, "parity variant"]["generation"] == by[k, "lost in the middle"]["generation"]


# ---------------------------------------------------------------- the simulator

def test_simulator_window_counts_the_real_prompt():
    query = QUERIES[0]
    ranking = order.rank_chunks(query.text, CHUNKS)
    for k in range(1, 14):
        context = ranking[:k]
        assert prompt_tokens(query.text, context) == lab_tokens(build_prompt(query.text, context))
        reading = simulate_reader(query.text, context, 1)
        assert reading.prompt_tokens == lab_tokens(build_prompt(query.text, context))
        assert reading.refused == (reading.prompt_tokens > WINDOW)
        assert (reading.cited_id is None) == reading.refused
        if not reading.refused:
            assert reading.cited_id in {c.id for c in context}
            assert reading.answer == next(c.value for c in context if c.id == reading.cited_id)


def test_simulator_is_seeded_and_deterministic():
    query = QUERIES[5]
    context = order.rank_chunks(query.text, CHUNKS)[:8]
    readings = {seed: simulate_reader(query.text, context, seed) for seed in range(40)}
    assert all(simulate_reader(query.text, context, seed) == readings[seed] for seed in range(40))
    assert len({r.cited_id for r in readings.values()}) > 1  # the seed matters
    single = simulate_reader(query.text, context[:1], 3)
    assert single.cited_id == context[0].id and not single.refused


def test_trace_does_not_depend_on_what_ran_before():
    fresh = methods("order", "--json").stdout
    order.trace(seed=SECOND_SEED)
    order.trace(seed=3)
    assert json.dumps(order.trace(), indent=2, ensure_ascii=False).encode() + b"\n" == fresh


def test_first_position_is_always_read():
    assert order.position_weight(0, 1) == 1.0
    assert [order.position_weight(i, 4) for i in range(4)] == [1.0, 0.45, 0.45, 0.8]


# ---------------------------------------------------------------- the command

def test_every_output_labels_the_reader_fictional(committed):
    text = " ".join(methods("order").stdout.decode().split())  # the plain view wraps lines
    assert "FICTIONAL reader simulator" in text and "No number below describes a real model" in text
    assert "FICTIONAL" in committed["simulator"]["label"]
    assert "Liu et al." in text and "TACL 2024" in text and "quote copier has no position effect" in text


def test_json_carries_every_table(committed):
    assert {"k_sweep", "layouts", "policies", "context_order", "simulator", "fixture"} <= set(committed)
    assert {"generation", "orderings", "share_of_change", "seeds"} <= set(committed["layouts"])
    assert committed["layouts"]["seeds"] == [SEED, SEED + 1]
    assert committed["context_order"]["policy"] == "rank order"
    assert committed["fixture"]["queries"] == len(QUERIES) == 40


def test_text_charts_of_generation_by_layout():
    text = methods("order").stdout.decode()
    assert "Generation by layout" in text
    assert "j=2 middle  |##########....................| 0.350" in text


def test_seed_option_reruns_with_another_seed():
    record = json.loads(methods("order", "--json", "--seed", str(SECOND_SEED)).stdout)
    assert record["simulator"]["seed"] == SECOND_SEED and record["layouts"]["seeds"] == [SECOND_SEED, SECOND_SEED + 1]
    assert record == order.trace(seed=SECOND_SEED)
    done = methods("order", "--seed", "-1", check=False)
    assert done.returncode == 2 and b"seed must be >= 0, got -1" in done.stderr


def test_the_copier_of_lesson_01_has_no_position_effect():
    from modules import context
    passages = context.CANDIDATES[:4]
    forward = context.fill_quote_budget(passages, 10_000)
    backward = context.fill_quote_budget(passages[::-1], 10_000)
    assert set(forward.packet_ids) == set(backward.packet_ids) == {p.id for p in passages}


@pytest.mark.parametrize("call, error, words", [
    (lambda: simulate_reader(42, CHUNKS[:2], 1), TypeError, "question must be a str, got int 42"),
    (lambda: simulate_reader(" ", CHUNKS[:2], 1), ValueError, "question must not be empty"),
    (lambda: simulate_reader("q", CHUNKS[:2], True), TypeError, "seed must be an int, got bool True"),
    (lambda: simulate_reader("q", CHUNKS[:2], -3), ValueError, "seed must be >= 0, got -3"),
    (lambda: simulate_reader("q", CHUNKS[:2], 1, window=0), ValueError, "window must be >= 1, got 0"),
    (lambda: simulate_reader("q", [], 1), ValueError, "chunks must hold at least one Chunk"),
    (lambda: simulate_reader("q", "abc", 1), TypeError, "chunks must be a sequence of Chunk, got str"),
    (lambda: simulate_reader("q", [CHUNKS[0], "x"], 1), TypeError, "chunks[1] must be a Chunk, got str"),
    (lambda: Chunk("a", "c", "v", 7), TypeError, "Chunk.text must be a str, got int 7"),
    (lambda: Chunk("", "c", "v", "t"), ValueError, "Chunk.id must not be empty"),
    (lambda: build_layout(CHUNKS[0], CHUNKS[1:3], "centre"), ValueError, "got 'centre'"),
    (lambda: build_layout("R", CHUNKS[1:3], "head"), TypeError, "relevant must be a Chunk, got str"),
    (lambda: share_of_change(["a"], ["a", "b"]), ValueError, "got 1 and 2 items"),
    (lambda: share_of_change([], []), ValueError, "before must not be empty"),
    (lambda: reorder_lost_in_middle("abc"), TypeError, "items must be a sequence, got str"),
    (lambda: order.position_weight(4, 4), ValueError, "index must be < count (4), got 4"),
    (lambda: order.trace(seed=2.5), TypeError, "seed must be an int, got float 2.5"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_share_of_change_is_exact():
    from fractions import Fraction
    assert share_of_change(["a", None, "b", None], ["a", None, "c", "d"]) == Fraction(1, 2)


def test_tables_are_the_public_reader_applied_to_each_question():
    # The trace's fast path must agree with simulate_reader, question by question.
    record = order.trace()
    by_id = {c.id: c for c in CHUNKS}
    for j, layout in ((4, "middle"), (2, "tail"), (8, "head")):
        right = 0
        for number, query in enumerate(QUERIES):
            gold = by_id[query.gold_id]
            others = [c for c in order.rank_chunks(query.text, CHUNKS) if c.concept != gold.concept][:j]
            reading = simulate_reader(query.text, build_layout(gold, others, layout),
                                      order.reading_seed(SEED, number))
            right += reading.answer == gold.value
        assert _generation(record)[j, layout] == round(right / len(QUERIES), 3)
    sweep = {r["k"]: r for r in record["k_sweep"]}
    for k in (1, 7, 11):
        readings = [simulate_reader(q.text, order.rank_chunks(q.text, CHUNKS)[:k], order.reading_seed(SEED, n))
                    for n, q in enumerate(QUERIES)]
        assert sweep[k]["overflow"] == sum(r.refused for r in readings)
        assert sweep[k]["cite_record"] == round(sum(r.cited_id == q.gold_id for r, q in zip(readings, QUERIES)) / 40, 3)


@pytest.mark.parametrize("seed", [SEED, SECOND_SEED, 0])
def test_one_pass_over_prefixes_equals_reading_each_prefix(seed):
    by_id = {c.id: c for c in CHUNKS}
    for number, query in enumerate(QUERIES):
        state = order._splitmix(order.reading_seed(seed, number))
        ranking = order.rank_chunks(query.text, CHUNKS)
        gold = by_id[query.gold_id]
        mixed = (ranking[5], gold) + ranking[:3] + ranking[20:30]  # any context, not only rank order
        for context in (ranking[:13], mixed):
            prefixes = order._read_prefixes(query.text, context, state, WINDOW)
            assert prefixes == [order._read(query.text, context[:k], state, WINDOW)
                                for k in range(1, len(context) + 1)]
