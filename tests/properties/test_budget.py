"""Lesson 02's public functions on generated input: a result that keeps the lesson's
invariants, or a ValueError/TypeError that names the argument."""

from __future__ import annotations

import unicodedata

from hypothesis import given, strategies as st

from modules.budget import (RankedPassage, Request, count_overflows, evidence_budget, fill_budget, prompt_sizes,
                            select_for_coverage, window_bar)
from modules.common.facets import Facet, content_terms, covers, declared_facets, facets_covered
from modules.common.units import chars, lab_tokens, utf8_bytes

from ._common import ANYTHING, FAST, refused

WORDS = ["alpha", "beta", "gamma", "café", "the", "opens", "open", "desk", "x"]
FACETS = (Facet("a", "Where is alpha?"), Facet("b", "What is beta?"), Facet("g", "gamma café"))


@st.composite
def chunks(draw, max_size: int = 8) -> list:
    ids = draw(st.lists(st.sampled_from([f"c{i}" for i in range(12)]), unique=True, max_size=max_size))
    return [RankedPassage(cid, " ".join(draw(st.lists(st.sampled_from(WORDS), max_size=6)))) for cid in ids]


COUNTERS = st.sampled_from([chars, utf8_bytes, lab_tokens])


@FAST
@given(chunks(), st.lists(st.sampled_from(FACETS), unique=True, min_size=1), st.integers(min_value=0, max_value=80),
       COUNTERS)
def test_coverage_selection_is_within_budget_in_rank_order_and_maximal(ranked, facets, budget, counter):
    chosen = select_for_coverage(ranked, facets, budget, counter)
    assert chosen.used == sum(counter(c.text) for c in chosen.kept) <= budget
    order = [c.id for c in ranked]
    positions = [order.index(c.id) for c in chosen.kept]
    assert positions == sorted(positions) and all(c in ranked for c in chosen.kept)
    assert sorted(chosen.pick_order) == sorted(chosen.kept_ids)
    names = [f.name for f in facets]
    union = {n for c in chosen.kept for n in facets_covered(facets, c.text)}
    assert list(chosen.covered) == [n for n in names if n in union]
    assert list(chosen.missing) == [n for n in names if n not in union]
    # Every pick added a facet; afterwards no unchosen chunk that still fits would add one.
    seen = set()
    by_id = {c.id: c for c in ranked}
    for cid in chosen.pick_order:
        new = set(facets_covered(facets, by_id[cid].text)) - seen
        assert new, f"{cid} was taken without adding a facet"
        seen |= new
    for chunk in ranked:
        if chunk.id not in chosen.kept_ids and chosen.used + counter(chunk.text) <= budget:
            assert set(facets_covered(facets, chunk.text)) <= seen
    # Deterministic: the same input gives the same choice.
    assert select_for_coverage(list(ranked), list(facets), budget, counter) == chosen


@FAST
@given(ANYTHING, ANYTHING, ANYTHING)
def test_coverage_selection_refuses_bad_arguments_by_name(ranked, facets, budget):
    refused(lambda: select_for_coverage(ranked, facets, budget), "chunks", "facets", "budget")


@FAST
@given(chunks(), ANYTHING, ANYTHING, ANYTHING)
def test_fill_budget_refuses_bad_arguments_by_name(ranked, budget, counter, policy):
    raised, walk = refused(lambda: fill_budget(ranked, budget, counter, policy), "budget", "counter", "policy")
    if not raised:
        assert walk.used <= budget


@FAST
@given(st.integers(min_value=-5, max_value=3000), *[st.integers(min_value=-5, max_value=800)] * 5)
def test_evidence_budget_is_the_remainder_or_a_named_error(window, base, history, tools, reserve, margin):
    raised, evidence = refused(lambda: evidence_budget(window, base, history, tools, reserve, margin),
                               "window", "base_input", "history", "tools", "output_reserve", "margin")
    if not raised:
        assert evidence == window - base - history - tools - reserve - margin >= 0


@FAST
@given(ANYTHING, ANYTHING, ANYTHING, ANYTHING)
def test_evidence_budget_refuses_non_numbers_by_name(window, base, history, tools):
    refused(lambda: evidence_budget(window, base, history, tools, 0, 0), "window", "base_input", "history", "tools")


@FAST
@given(*[st.one_of(st.integers(min_value=-3, max_value=500), ANYTHING)] * 4)
def test_window_bar_is_one_row_or_a_named_error(value, window, scale, width):
    raised, bar = refused(lambda: window_bar(value, window, scale, width), "value", "window", "scale", "width")
    if not raised:
        assert len(bar) == width + 1 and bar.count("|") == 1 and set(bar) <= set("#!.|")
        assert ("!" in bar) <= (value > window)


@FAST
@given(st.lists(st.tuples(st.integers(min_value=0, max_value=60),
                          st.lists(st.integers(min_value=0, max_value=40), max_size=6)), min_size=1, max_size=6),
       st.integers(min_value=1, max_value=8), st.integers(min_value=1, max_value=300))
def test_overflows_count_the_requests_over_the_window(specs, k, window):
    requests = [Request(f"q{i}", "?", base, tuple(sizes)) for i, (base, sizes) in enumerate(specs)]
    sizes = prompt_sizes(requests, k)
    assert count_overflows(requests, k, window) == sum(size > window for size in sizes)
    assert all(size >= r.base_tokens for size, r in zip(sizes, requests))


@FAST
@given(st.lists(st.sampled_from(WORDS + ["CAFÉ", "Opens", "Desks"]), max_size=8), st.sampled_from(FACETS))
def test_facet_matching_ignores_case_and_unicode_form(words, facet):
    text = " ".join(words)
    forms = {unicodedata.normalize(form, variant) for form in ("NFC", "NFD")
             for variant in (text, text.upper(), text.lower())}
    assert len({covers(facet, variant) for variant in forms}) == 1
    assert covers(facet, text) == (set(facet.terms) <= set(content_terms(text)))


@FAST
@given(ANYTHING, ANYTHING)
def test_facets_refuse_bad_input_by_name(name, asks):
    refused(lambda: Facet(name, asks), "Facet.")
    refused(lambda: declared_facets(name), "sub_questions", "Facet.")
    refused(lambda: covers(name, "text"), "facet")
    refused(lambda: facets_covered(FACETS, name), "text")
