"""Lesson 05's shapes and contracts, asserted on the mechanism and on the command."""

import inspect
import json
import math
import random
from fractions import Fraction

import pytest

from helpers import ROOT, methods
from modules.order import mechanism as order
from modules.order import experiments as order_experiments
from modules.order import trace as order_trace
from modules.common.units import lab_tokens
from modules.order import (CHUNKS, QUERIES, SEED, WINDOW, Chunk, build_layout, build_prompt, order_effect,
                           prompt_tokens, reorder_lost_in_middle, reorder_parity_variant, share_of_change,
                           simulate_reader)

SECOND_SEED = 520  # any other seed; the shapes below must hold for it too


@pytest.fixture(scope="module")
def committed():
    return json.loads(methods("order", "--json").stdout)


@pytest.fixture(scope="module")
def plain():
    return methods("order").stdout.decode()


@pytest.fixture(scope="module", params=[SEED, SECOND_SEED])
def record(request):
    return order_trace.trace(seed=request.param)


def _generation(record, column="generation"):
    return {(r["irrelevant"], r["layout"]): r[column] for r in record["layouts"]["generation"]}


def _gold(query):
    return next(c for c in CHUNKS if c.id == query.gold_id)


# ---------------------------------------------------------------- the published reader rule

def test_the_reader_uses_the_published_rule():
    assert order.POSITION_WEIGHTS == {"first": 1.0, "last": 0.8, "other": 0.45}
    assert (order.SHARE_FLOOR, order.TEMPERATURE, order.WINDOW) == (0.3, 0.12, 240)
    query = QUERIES[12]
    context = order.rank_chunks(query.text, CHUNKS)[:5]
    weights = [order.position_weight(i, 5) for i in range(5)]
    shares = [order.token_share(query.text, c) for c in context]
    scores = [w * (0.3 + s) for w, s in zip(weights, shares)]
    assert order.reader_scores(query.text, context) == scores
    odds = [math.exp(s / 0.12) for s in scores]
    assert order.reader_probabilities(query.text, context) == pytest.approx([o / sum(odds) for o in odds])
    for seed in range(300):
        # One draw from a seeded generator, proportional to exp(score / 0.12): random.choices itself.
        expected = random.Random(seed).choices(context, weights=odds)[0]
        assert simulate_reader(query.text, context, seed).cited_id == expected.id


def test_draw_frequencies_follow_the_probabilities():
    query = QUERIES[0]
    context = order.rank_chunks(query.text, CHUNKS)[:4]
    chances = order.reader_probabilities(query.text, context)
    counts = {c.id: 0 for c in context}
    for seed in range(4000):
        counts[simulate_reader(query.text, context, seed).cited_id] += 1
    for chunk, chance in zip(context, chances):
        assert abs(counts[chunk.id] / 4000 - chance) < 0.03, (chunk.id, counts, chances)


def test_token_share_counts_the_questions_lab_tokens_found_as_written():
    chunk = Chunk("x", "c", "v", "In summer the first boat leaves at 06:10.")
    # 'When'(1) 'does'(1) 'the'(1) 'first'(1) 'boat'(1) 'leave'(1) 'in'(1) 'summer?'(2): 9 lab tokens;
    # found as written: 'the', 'first', 'boat' (not 'summer?', not 'in', since 'In' is capitalised).
    assert lab_tokens("When does the first boat leave in summer?") == 9
    assert order.token_share("When does the first boat leave in summer?", chunk) == 3 / 9
    assert order.token_share("summer?", chunk) == 0 and order.token_share("summer", chunk) == 1
    assert order.token_share("summer boat", Chunk("y", "c", "v", "summer boat")) == 1


def test_the_temperature_is_explained_in_the_trace(plain):
    text = " ".join(plain.split())
    assert "The temperature 0.12 sets how firmly the reader follows the scores" in text
    assert "a score 0.12 higher makes a chunk e (about 2.7) times as likely" in text
    example = order_trace.trace()["example"]
    assert sum(r["chance"] for r in example["rows"]) == pytest.approx(1, abs=0.002)
    first, second = example["rows"][:2]
    assert f"{math.exp((first['score'] - second['score']) / 0.12):.1f} times as likely" in text


def test_no_other_rule_is_presented_under_the_published_name():
    source = inspect.getsource(order) + inspect.getsource(order_experiments) + inspect.getsource(order_trace)
    assert "salience" not in source and "Gumbel" not in source and "splitmix" not in source.lower()
    assert "TEMPERATURE = 0.12" in source


# ---------------------------------------------------------------- the k sweep

def test_k_sweep_recall_rises_while_generation_falls(record):
    rows = {r["k"]: r for r in record["k_sweep"]}
    assert sorted(rows) == list(range(1, 14))
    recall = [rows[k]["recall"] for k in range(1, 14)]
    assert recall == sorted(recall) and recall[9] > recall[0]
    assert rows[10]["generation"] <= rows[1]["generation"] - 0.1
    assert all(rows[k]["generation"] < rows[1]["generation"] for k in range(2, 11))
    assert rows[13]["generation"] == 0


def test_k_sweep_refusals_appear_past_the_window(record):
    rows = record["k_sweep"]
    for row in rows:
        assert (row["refused"] > 0) == (row["max_prompt"] > WINDOW)
        assert row["avg_prompt"] <= row["max_prompt"]
    assert [r["refused"] for r in rows] == sorted(r["refused"] for r in rows)
    assert all(r["refused"] == 0 for r in rows if r["k"] <= 10)
    assert rows[10]["refused"] > 0 and rows[-1]["refused"] == len(QUERIES)


def test_each_concept_has_several_records():
    concepts = {}
    for chunk in CHUNKS:
        concepts.setdefault(chunk.concept, []).append(chunk.id)
    assert len(concepts) >= 2 and all(len(ids) > 1 for ids in concepts.values())
    assert len({c.id for c in CHUNKS}) == len(CHUNKS) and {q.gold_id for q in QUERIES} <= {c.id for c in CHUNKS}


def test_the_error_is_in_the_record_not_in_the_concept(record):
    rows = {r["k"]: r for r in record["k_sweep"]}
    for k in range(1, 11):
        assert rows[k]["cite_concept"] >= 0.95, rows[k]
        assert rows[k]["cite_record"] <= rows[k]["generation"] <= rows[k]["cite_concept"]
    assert rows[10]["cite_record"] <= rows[1]["cite_record"] - 0.1
    # With one chunk the reader reads it: the record is cited exactly when it was ranked first.
    assert rows[1]["cite_record"] == rows[1]["recall"]


def test_a_right_answer_can_cite_the_wrong_record():
    # Siblings that state the same fact: only the citation tells them apart.
    same = [(a.id, b.id) for a in CHUNKS for b in CHUNKS
            if a.id < b.id and a.concept == b.concept and a.value == b.value]
    assert same
    rows = order_trace.trace()["k_sweep"]
    assert any(r["generation"] > r["cite_record"] for r in rows)


def test_committed_k_sweep_figures(committed):
    rows = {r["k"]: r for r in committed["k_sweep"]}
    assert (rows[1]["recall"], rows[10]["recall"]) == (0.85, 1.0)
    assert (rows[1]["generation"], rows[10]["generation"]) == (0.85, 0.725)
    assert (rows[10]["cite_concept"], rows[10]["cite_record"]) == (1.0, 0.725)
    assert (rows[10]["refused"], rows[11]["refused"], rows[12]["refused"]) == (0, 27, 40)


# ---------------------------------------------------------------- layouts

def test_one_chunk_is_always_answered_and_order_changes_nothing(record):
    generation = _generation(record)
    second = _generation(record, "generation_second_seed")
    assert all(generation[0, layout] == second[0, layout] == 1.0 for layout in order.LAYOUTS)
    zero = record["layouts"]["share_of_change"][0]
    assert (zero["reseed_head"], zero["order_middle"], zero["order_tail"]) == (0.0, 0.0, 0.0)
    assert zero["middle_exceeds_baseline"] is zero["tail_exceeds_baseline"] is False


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
        assert row["order_middle"] > row["reseed_head"] and row["middle_exceeds_baseline"] is True, row
        assert row["order_tail"] > row["reseed_head"] and row["tail_exceeds_baseline"] is True, row


def test_committed_layout_figures(committed):
    generation = _generation(committed)
    assert [generation[2, layout] for layout in ("head", "middle", "tail")] == [0.975, 0.25, 0.875]
    change = committed["layouts"]["share_of_change"][2]
    assert (change["irrelevant"], change["reseed_head"], change["order_middle"]) == (4, 0.025, 0.775)


def test_layouts_use_irrelevant_chunks_only():
    for query in QUERIES:
        gold = _gold(query)
        others = [c for c in order.rank_chunks(query.text, CHUNKS) if c.concept != gold.concept][:8]
        assert len(others) == 8 and all(c.concept != gold.concept for c in others)
        assert build_layout(gold, others, "middle")[4] is gold
        assert prompt_tokens(query.text, build_layout(gold, others, "tail")) <= WINDOW


# ---------------------------------------------------------------- share of change against the baseline

def test_order_effect_compares_with_the_baseline():
    effect = order_effect(["a", "b", "c", "d"], ["a", "x", "y", "d"], ["a", "b", "z", "d"])
    assert effect == (Fraction(1, 2), Fraction(1, 4), True)
    equal = order_effect(["a", "b"], ["a", "x"], ["y", "b"])
    assert equal.exceeds is False and equal.order_share == equal.seed_share  # equal is not more
    less = order_effect(["a", "b"], ["a", "b"], ["y", "b"])
    assert less.exceeds is False
    assert order_effect((x for x in "ab"), ["a", "x"], iter(["a", "b"])).exceeds is True  # generators read once


def test_order_effect_agrees_with_the_trace():
    record = order_trace.trace()
    runs = [order_experiments.Run(order_experiments.Reader(), seed) for seed in (SEED, SEED + 1)]
    ranked, golds = order_experiments.rankings(), order_experiments.gold_chunks()
    others = order_experiments.distractors(ranked, golds)
    row = record["layouts"]["share_of_change"][2]
    cited = {(layout, run.seed): order_experiments.cited(run.read_all(
        [build_layout(g, o[:4], layout) for g, o in zip(golds, others)])) for layout in order.LAYOUTS for run in runs}
    effect = order_effect(cited["head", SEED], cited["middle", SEED], cited["head", SEED + 1])
    assert (float(effect.order_share), float(effect.seed_share), effect.exceeds) == (
        row["order_middle"], row["reseed_head"], row["middle_exceeds_baseline"])


# ---------------------------------------------------------------- reorder policies and the frameworks

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
    ranks = list(range(1, count + 1))  # best first; a retriever's score falls with the rank
    assert langchain_loop(ranks) == reorder_parity_variant(ranks)
    assert llamaindex_loop([(r, 1.0 - r / 100) for r in ranks]) == reorder_parity_variant(ranks)
    assert haystack_loop(ranks) == reorder_lost_in_middle(ranks)


def test_frameworks_are_named_with_versions_and_ten_and_four_items(committed, plain):
    found = {f["name"]: f for f in committed["frameworks"]}
    assert set(found) == {"LangChain LongContextReorder", "LlamaIndex LongContextReorder",
                          "Haystack LostInTheMiddleRanker"}
    assert found["LangChain LongContextReorder"]["version"] == "langchain-community 0.4.2"
    assert found["LlamaIndex LongContextReorder"]["version"] == "llama-index-core 0.14.25"
    assert found["Haystack LostInTheMiddleRanker"]["version"] == "haystack-ai 3.4.1"
    loops = {"LangChain LongContextReorder": langchain_loop, "Haystack LostInTheMiddleRanker": haystack_loop,
             "LlamaIndex LongContextReorder": lambda xs: llamaindex_loop([(x, -x) for x in xs])}
    for name, framework in found.items():
        assert framework["ten"] == loops[name](range(1, 11)) and framework["four"] == loops[name](range(1, 5))
        assert name in plain and framework["version"] in plain


def test_reorders_are_slices_not_insert_loops():
    for fn in (reorder_lost_in_middle, reorder_parity_variant):
        assert ".insert(" not in inspect.getsource(fn)
    items = list(range(200_000))
    assert reorder_lost_in_middle(items)[:2] == [0, 2] and items[:2] == [0, 1]


def test_policies_are_measured_on_the_same_top_k(record):
    by = {(r["k"], r["policy"]): r for r in record["policies"]}
    sweep = {r["k"]: r for r in record["k_sweep"]}
    for k in order_experiments.POLICY_KS:
        assert by[k, "rank order"]["generation"] == sweep[k]["generation"]
        assert by[k, "parity variant"]["best_at"] == (k if k % 2 == 0 else 1)
        assert by[k, "lost in the middle"]["order"][0] == 1 and by[k, "lost in the middle"]["order"][-1] == 2
        if k % 2:
            assert by[k, "parity variant"]["generation"] == by[k, "lost in the middle"]["generation"]
        else:  # the best chunk on the 0.8 place, the second best on the 1.0 place: it costs here
            assert by[k, "parity variant"]["generation"] < by[k, "lost in the middle"]["generation"]


# ---------------------------------------------------------------- ordered input only (issue 14)

@pytest.mark.parametrize("bad", [{1, 2, 3}, frozenset({1, 2}), {"a": 1}, {"a": 1}.keys(), {"a": 1}.values(),
                                 {"a": 1}.items(), "abc", b"ab", 5])
def test_unordered_input_is_refused(bad):
    with pytest.raises(TypeError, match="items must be an ordered sequence"):
        reorder_lost_in_middle(bad)
    with pytest.raises(TypeError, match="items must be an ordered sequence"):
        reorder_parity_variant(bad)
    with pytest.raises(TypeError, match="before must be an ordered sequence"):
        share_of_change(bad, ["a"])
    with pytest.raises(TypeError, match="after must be an ordered sequence"):
        share_of_change(["a"], bad)
    with pytest.raises(TypeError, match="first must be an ordered sequence"):
        order_effect(bad, ["a"], ["a"])


def test_ordered_iterables_are_accepted():
    assert reorder_lost_in_middle(range(4)) == reorder_lost_in_middle((0, 1, 2, 3)) == [0, 2, 3, 1]
    assert reorder_lost_in_middle(x for x in range(4)) == [0, 2, 3, 1]
    assert share_of_change((x for x in "abc"), map(str, "abd")) == Fraction(1, 3)


# ---------------------------------------------------------------- no unbounded caches

def _container_sizes():
    sizes = {}
    for module in (order, order_experiments, order_trace):
        for name, value in vars(module).items():
            if isinstance(value, (dict, list, set)):
                sizes[module.__name__, name] = len(value)
    return sizes


def test_module_state_stays_the_same_size_after_many_seeds():
    order_trace.trace(seed=1)
    before = _container_sizes()
    for seed in range(2, 32):
        order_trace.trace(seed=seed)
        simulate_reader(QUERIES[seed].text, CHUNKS[:seed % 9 + 1], seed)
        order.rank_chunks(QUERIES[seed].text, CHUNKS)
    assert _container_sizes() == before


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
    readings = {seed: simulate_reader(query.text, context, seed) for seed in range(60)}
    assert all(simulate_reader(query.text, context, seed) == readings[seed] for seed in range(60))
    assert len({r.cited_id for r in readings.values()}) > 1  # the seed matters
    single = simulate_reader(query.text, context[:1], 3)
    assert single.cited_id == context[0].id and not single.refused


def test_trace_does_not_depend_on_what_ran_before():
    fresh = methods("order", "--json").stdout
    order_trace.trace(seed=SECOND_SEED)
    order_trace.trace(seed=3)
    assert json.dumps(order_trace.trace(), indent=2, ensure_ascii=False).encode() + b"\n" == fresh


def test_first_position_is_always_read():
    assert order.position_weight(0, 1) == 1.0
    assert [order.position_weight(i, 4) for i in range(4)] == [1.0, 0.45, 0.45, 0.8]


def test_tables_are_the_public_reader_applied_to_each_question():
    # The experiments' run (one draw per question, odds gathered once) must agree with simulate_reader.
    record = order_trace.trace()
    for j, layout in ((4, "middle"), (2, "tail"), (8, "head")):
        right = 0
        for number, query in enumerate(QUERIES):
            gold = _gold(query)
            others = [c for c in order.rank_chunks(query.text, CHUNKS) if c.concept != gold.concept][:j]
            reading = simulate_reader(query.text, build_layout(gold, others, layout),
                                      order.reading_seed(SEED, number))
            right += reading.answer == gold.value
        assert _generation(record)[j, layout] == round(right / len(QUERIES), 3)
    sweep = {r["k"]: r for r in record["k_sweep"]}
    for k in (1, 2, 7, 11):
        readings = [simulate_reader(q.text, order.rank_chunks(q.text, CHUNKS)[:k], order.reading_seed(SEED, n))
                    for n, q in enumerate(QUERIES)]
        assert sweep[k]["refused"] == sum(r.refused for r in readings)
        assert sweep[k]["cite_record"] == round(sum(r.cited_id == q.gold_id for r, q in zip(readings, QUERIES)) / 40, 3)


@pytest.mark.parametrize("seed", [SEED, SECOND_SEED, 0])
def test_one_pass_over_prefixes_equals_reading_each_prefix(seed):
    run = order_experiments.Run(order_experiments.Reader(), seed)
    for number, query in enumerate(QUERIES):
        ranking = order.rank_chunks(query.text, CHUNKS)
        mixed = (ranking[5], _gold(query)) + ranking[:3] + ranking[20:30]  # any context, not only rank order
        for context in (ranking[:13], mixed):
            assert run.read_prefixes(number, context) == [run.read(number, context[:k])
                                                          for k in range(1, len(context) + 1)]
            for k in (1, 2, 5, 9):
                reading = simulate_reader(query.text, context[:k], order.reading_seed(seed, number))
                chosen, tokens = run.read(number, context[:k])
                assert (reading.cited_id, reading.prompt_tokens) == (chosen and chosen.id, tokens)


# ---------------------------------------------------------------- the command

def test_every_output_labels_the_reader_fictional(committed, plain):
    text = " ".join(plain.split())  # the plain view wraps lines
    assert "FICTIONAL reader simulator" in text and "No number below describes a real model" in text
    assert "FICTIONAL" in committed["simulator"]["label"]
    assert "Liu et al." in text and "TACL 2024" in text and "quote copier has no position effect" in text


def test_plain_output_fits_88_columns_and_every_table_has_a_legend(plain):
    assert max(len(line) for line in plain.splitlines()) <= 88
    blocks = order_trace.view(order_trace.trace())
    keys = [b.get("key") for b in blocks]
    assert None not in keys and len(set(keys)) == len(keys)
    for block in blocks:
        spec = block.get("table") or block.get("chart")
        if "table" in block:
            assert spec.get("legend"), spec["title"]


def test_counts_carry_no_three_decimals(plain):
    # The k sweep is stacked on 80 columns: one "column: value" line per cell.
    cells = [line.strip().split(": ", 1) for line in plain.splitlines() if ": " in line]
    avg = [value for key, value in cells if key == "avg prompt (lab tokens)"]
    refused = [value for key, value in cells if key == "refused"]
    assert len(avg) == 13 and all(len(value.split(".")[1]) == 1 for value in avg), avg
    assert refused and all(value.isdigit() for value in refused)  # refused: a count


def test_text_chart_of_the_k_sweep(plain):
    assert "Recall@k against generation, by k" in plain
    assert "k=1  recall@k    |##################################......| 0.850" in plain
    assert "     generation  |#############################...........| 0.725" in plain


def test_json_carries_every_table(committed):
    assert {"k_sweep", "layouts", "policies", "frameworks", "example", "context_order", "simulator",
            "fixture"} <= set(committed)
    assert {"generation", "orderings", "share_of_change", "seeds"} <= set(committed["layouts"])
    assert committed["layouts"]["seeds"] == [SEED, SEED + 1]
    assert committed["context_order"]["policy"] == "rank order"
    assert committed["fixture"]["queries"] == len(QUERIES) == 40
    assert committed["simulator"]["temperature"] == 0.12


def test_seed_option_reruns_with_another_seed():
    record = json.loads(methods("order", "--json", "--seed", str(SECOND_SEED)).stdout)
    assert record["simulator"]["seed"] == SECOND_SEED and record["layouts"]["seeds"] == [SECOND_SEED, SECOND_SEED + 1]
    assert record == order_trace.trace(seed=SECOND_SEED)
    done = methods("order", "--seed", "-1", check=False)
    assert done.returncode == 2 and b"seed must be at least 0, got -1" in done.stderr


def test_a_lesson_run_never_imports_fractions_or_dataclasses():
    probe = ("import runpy, sys, io, contextlib\nsys.argv = ['methods.py', 'order', '--plain']\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        runpy.run_path('methods.py', run_name='__main__')\n"
             "    except SystemExit:\n        pass\n"
             "print('fractions' in sys.modules, 'dataclasses' in sys.modules)")
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-B", "-S", "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_the_copier_of_lesson_01_has_no_position_effect():
    from modules.context import mechanism as context
    passages = context.CANDIDATES[:4]
    forward = context.fill_quote_budget(passages, 10_000)
    backward = context.fill_quote_budget(passages[::-1], 10_000)
    assert set(forward.packet_ids) == set(backward.packet_ids) == {p.id for p in passages}


@pytest.mark.parametrize("call, error, words", [
    (lambda: simulate_reader(42, CHUNKS[:2], 1), TypeError, "question must be a str, got int 42"),
    (lambda: simulate_reader(" ", CHUNKS[:2], 1), ValueError, "question must not be empty"),
    (lambda: simulate_reader("q", CHUNKS[:2], True), TypeError, "seed must be an int, got bool True"),
    (lambda: simulate_reader("q", CHUNKS[:2], -3), ValueError, "seed must be at least 0, got -3"),
    (lambda: simulate_reader("q", CHUNKS[:2], 1, window=0), ValueError, "window must be at least 1, got 0"),
    (lambda: simulate_reader("q", [], 1), ValueError, "chunks must hold at least one Chunk"),
    (lambda: simulate_reader("q", "abc", 1), TypeError, "chunks must be a sequence of Chunk, got str"),
    (lambda: simulate_reader("q", {CHUNKS[0]}, 1), TypeError, "chunks must be a sequence of Chunk, got set"),
    (lambda: simulate_reader("q", [CHUNKS[0], "x"], 1), TypeError, "chunks[1] must be a Chunk, got str"),
    (lambda: Chunk("a", "c", "v", 7), TypeError, "Chunk.text must be a str, got int 7"),
    (lambda: Chunk("", "c", "v", "t"), ValueError, "Chunk.id must not be empty"),
    (lambda: build_layout(CHUNKS[0], CHUNKS[1:3], "centre"), ValueError, "got 'centre'"),
    (lambda: build_layout("R", CHUNKS[1:3], "head"), TypeError, "relevant must be a Chunk, got str"),
    (lambda: share_of_change(["a"], ["a", "b"]), ValueError, "got 1 and 2 items"),
    (lambda: share_of_change([], []), ValueError, "before must not be empty"),
    (lambda: order_effect(["a"], ["a"], ["a", "b"]), ValueError, "first and reseeded must pair up, got 1 and 2"),
    (lambda: reorder_lost_in_middle("abc"), TypeError, "items must be an ordered sequence"),
    (lambda: order.token_share("q", "chunk"), TypeError, "chunk must be a Chunk, got str"),
    (lambda: order.position_weight(4, 4), ValueError, "index must be < count (4), got 4"),
    (lambda: order.reading_seed(1, 1000), ValueError, "query_number must be at most 999"),
    (lambda: order_trace.trace(seed=2.5), TypeError, "seed must be an int, got float 2.5"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_the_notebook_picks_blocks_by_key_and_draws_the_conclusion():
    source = (ROOT / "notebooks" / "src" / "05_order.py").read_text(encoding="utf-8")
    assert "blocks[" not in source and "block(" in source
    prose = " ".join(source.replace("#", " ").replace("*", "").split()).lower()
    assert "the error is in the record, not in the concept" in prose and "only the citation shows it" in prose
    for name in ("langchain-community 0.4.2", "llama-index-core 0.14.25", "haystack-ai 3.4.1"):
        assert name in source
