"""Lesson 05's public functions on generated inputs (hypothesis): every input either gives a
result that keeps the lesson's invariants, or raises ValueError/TypeError naming the argument."""

from __future__ import annotations

import math
import random
import tempfile
from fractions import Fraction
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.order import mechanism as order  # noqa: E402
from modules.order import Paragraph  # noqa: E402

FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
FIXTURE = order.build_fixture()
QUERY = FIXTURE.queries[0]
WORDS = st.sampled_from(["tier", "limit", "for", "entry", "goes", "with", "unit", "price", "restoration", "é"])
TEXT = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)


@st.composite
def chunks(draw, min_size=1, max_size=12):
    count = draw(st.integers(min_value=min_size, max_value=max_size))
    found = []
    for i in range(count):
        text = draw(TEXT)
        code = draw(st.sampled_from(["TR001", "TR002", "AR003"]))
        found.append(Paragraph(i, code, text, order.token_bag(text), order.embed(text, FIXTURE.rows),
                           len(order.tokens(f"[{code}] {text} ."))))
    return tuple(found)


ORDERED = st.one_of(st.lists(st.integers()), st.lists(st.integers()).map(tuple))
UNORDERED = st.one_of(st.sets(st.integers(), min_size=1).map(set), st.sets(st.integers()).map(frozenset),
                      st.dictionaries(st.integers(), st.integers()),
                      st.dictionaries(st.integers(), st.integers()).map(lambda d: d.keys()),
                      st.dictionaries(st.integers(), st.integers()).map(lambda d: d.values()),
                      st.text(max_size=5))
IDS = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))


# ---------------------------------------------------------------- reorders

@FAST
@given(ORDERED)
def test_reorders_are_permutations_that_keep_the_input(items):
    before = list(items)
    for reorder in (order.reorder_lost_in_middle, order.reorder_parity_variant):
        placed = reorder(items)
        assert isinstance(placed, list) and sorted(placed) == sorted(before)
        assert list(items) == before, f"{reorder.__name__} changed its input"


@FAST
@given(st.integers(min_value=0, max_value=60))
def test_lost_in_the_middle_puts_the_strongest_at_the_ends(count):
    placed = order.reorder_lost_in_middle(range(count))
    if count:
        assert placed[0] == 0
    if count >= 2:
        assert placed[-1] == 1
    edge = {item: min(i, count - 1 - i) for i, item in enumerate(placed)}
    assert all(edge[r] >= edge[r - 2] for r in range(2, count)), "a weaker item sits nearer an edge"
    # The parity variant is the same order mirrored for an even count, and the same for an odd one.
    variant = order.reorder_parity_variant(range(count))
    assert variant == (placed[::-1] if count % 2 == 0 else placed)


@FAST
@given(UNORDERED)
def test_unordered_input_is_refused_by_name(items):
    for call, name in ((lambda: order.reorder_lost_in_middle(items), "items"),
                       (lambda: order.reorder_parity_variant(items), "items"),
                       (lambda: order.share_of_change(items, []), "before"),
                       (lambda: order.share_of_change([1], items), "after"),
                       (lambda: order.order_effect(items, [], []), "first")):
        with pytest.raises(TypeError, match=f"^{name} must be an ordered sequence"):
            call()


# ---------------------------------------------------------------- layouts

@FAST
@given(chunks(min_size=1, max_size=10), st.sampled_from(order.LAYOUTS))
def test_build_layout_places_the_relevant_chunk_and_keeps_the_others(found, layout):
    relevant, others = found[0], list(found[1:])
    placed = order.build_layout(relevant, others, layout)
    index = {"head": 0, "middle": len(others) // 2, "tail": len(others)}[layout]
    assert placed[index] is relevant and list(placed[:index] + placed[index + 1:]) == others


@FAST
@given(st.text(max_size=8))
def test_build_layout_names_a_wrong_layout(name):
    if name in order.LAYOUTS:
        return
    with pytest.raises(ValueError, match="layout must be one of"):
        order.build_layout(FIXTURE.chunks[0], FIXTURE.chunks[1:3], name)


# ---------------------------------------------------------------- share of change and the baseline

@FAST
@given(st.lists(st.tuples(IDS, IDS), min_size=1, max_size=30))
def test_share_of_change_counts_differing_pairs(pairs):
    before, after = [a for a, _ in pairs], [b for _, b in pairs]
    share = order.share_of_change(before, after)
    assert isinstance(share, Fraction) and 0 <= share <= 1
    assert share == Fraction(sum(a != b for a, b in pairs), len(pairs))
    assert share == order.share_of_change(after, before) == order.share_of_change(iter(before), iter(after))
    assert (share == 0) == (before == after)


@FAST
@given(st.lists(IDS, max_size=6), st.lists(IDS, max_size=6))
def test_share_of_change_refuses_runs_that_do_not_pair_up(before, after):
    if len(before) == len(after) and before:
        return
    with pytest.raises(ValueError, match="before"):
        order.share_of_change(before, after)


@FAST
@given(st.lists(st.tuples(IDS, IDS, IDS), min_size=1, max_size=30))
def test_order_effect_is_order_share_beyond_seed_share(triples):
    first, reordered, reseeded = ([t[i] for t in triples] for i in range(3))
    effect = order.order_effect(first, reordered, reseeded)
    assert effect.order_share == order.share_of_change(first, reordered)
    assert effect.seed_share == order.share_of_change(first, reseeded)
    assert effect.exceeds is (effect.order_share > effect.seed_share)
    swapped = order.order_effect(iter(first), reseeded, reordered)
    assert not (effect.exceeds and swapped.exceeds), "both runs cannot exceed each other"


# ---------------------------------------------------------------- the reader

@FAST
@given(chunks(), st.integers(min_value=0, max_value=2 ** 40), st.integers(min_value=1, max_value=300))
def test_the_reader_picks_a_chunk_it_was_given_or_overflows(found, seed, window):
    prompt = order.build_prompt(QUERY, found)
    assert prompt.tokens == len(order.tokens(prompt.text))
    reading = order.read(prompt, seed, window)
    assert reading.overflow is (prompt.tokens > window) and reading.tokens == prompt.tokens
    if reading.overflow:
        assert reading.chunk is None
    else:
        assert reading.chunk in found
        assert reading.chunk is found[order.pick(order.Rng(seed ^ prompt.fnv)(), order.reader_chances(prompt))]
    assert order.read(prompt, seed, window) == reading


@FAST
@given(chunks(min_size=2, max_size=8))
def test_chances_sum_to_one_and_the_first_place_helps(found):
    prompt = order.build_prompt(QUERY, found)
    chances = order.reader_chances(prompt)
    assert len(chances) == len(found) and all(c > 0 for c in chances)
    assert math.isclose(sum(chances), 1.0)
    if len(found) >= 3:
        moved = order.build_prompt(QUERY, (found[1],) + found[:1] + found[2:])
        assert order.reader_chances(moved)[0] >= chances[1] - 1e-12


@FAST
@given(st.text(max_size=30))
def test_tokens_count_as_lab_tokens_of_the_comma_spaced_text(text):
    from modules.common.units import lab_tokens
    pieces = order.tokens(text)
    assert len(pieces) == lab_tokens(text.lower().replace(",", " , "))
    assert all(1 <= len(p) <= 5 for p in pieces)


@FAST
@given(st.one_of(st.none(), st.integers(), st.floats(), st.text(max_size=3), st.lists(st.integers(), max_size=2),
                 st.sets(st.integers(), max_size=2), st.booleans()))
def test_bad_arguments_raise_errors_that_name_them(value):
    prompt = order.build_prompt(QUERY, FIXTURE.chunks[:2])
    calls = {"prompt": lambda: order.read(value),
             "query": lambda: order.build_prompt(value, FIXTURE.chunks[:2]),
             "chunks": lambda: order.build_prompt(QUERY, value),
             "seed": lambda: order.read(prompt, value),
             "window": lambda: order.read(prompt, 1, value),
             "good": lambda: order.build_layout(value, FIXTURE.chunks[:2], "head"),
             "count": lambda: order.position_weight(0, value)}
    for name, call in calls.items():
        try:
            call()
        except (TypeError, ValueError) as error:
            assert name in str(error), (name, str(error))
