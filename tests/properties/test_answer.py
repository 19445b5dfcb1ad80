"""Lesson 10's public functions on generated input: a result that keeps the lesson's
invariants, or a ValueError/TypeError that names the argument."""

from __future__ import annotations

from hypothesis import given, strategies as st

from modules.answer import (NO_ANSWER_CAUSES, OUTCOMES, Answer, Facet, Sentence, answer_output,
                            check_citations, check_output, classify_outcome, compose_answer, is_grounded,
                            no_answer_cause, shown_answer)
from modules.context import Passage, select_context

from ._common import ANYTHING, FAST, refused

FACETS = (Facet("hours", "When does the desk open?"), Facet("returns", "Where are books returned?"))
TEXTS = ["The desk opens at 9.", "The desk opens at 10.", "Books are returned to the box.", "Wi-Fi is free.",
         "The DESK OPENS at 9.", "Books returned: box; the desk opens at 8."]


@st.composite
def packets(draw, max_size: int = 6) -> list:
    ids = draw(st.lists(st.sampled_from([f"p{i}" for i in range(10)]), unique=True, max_size=max_size))
    return [Passage(pid, draw(st.sampled_from(["s1", "s2"])), draw(st.sampled_from(["1", "2"])), "t",
                    draw(st.sampled_from(TEXTS))) for pid in ids]


FACET_SETS = st.lists(st.sampled_from(FACETS), unique=True, min_size=1)


@FAST
@given(FACET_SETS, packets())
def test_every_composed_answer_passes_its_schema_and_is_grounded(facets, packet):
    reply = compose_answer(facets, packet)
    output = answer_output(reply)
    assert check_output(output) == [], check_output(output)
    assert shown_answer(output) == reply.text
    texts = {p.id: p.text for p in packet}
    assert is_grounded(reply, list(texts), texts)
    for sentence in reply.sentences:
        if sentence.kind in ("claim", "disputed"):
            assert sentence.quote == texts[sentence.cite]
    names = [f.name for f in facets]
    assert set(reply.missing) | set(reply.disputed) <= set(names)
    assert (reply.status == "full") == (not reply.missing and not reply.disputed)


@FAST
@given(FACET_SETS, packets(), st.integers(min_value=0, max_value=120))
def test_a_conflict_reaches_the_answer_as_a_conflict_never_as_evidence(facets, candidates, budget):
    record = select_context(candidates, budget)
    assert record.used_quote_chars == sum(len(p.text) for p in record.packet) <= budget
    assert not {p.source_id for p in record.packet} & set(record.conflicts)
    reply = compose_answer(facets, record.packet, record.unresolved)
    texts = {p.id: p.text for p in candidates}
    assert is_grounded(reply, list(record.handed_ids), texts)
    for conflict in record.unresolved:
        if any(s.cite in conflict.ids for s in reply.sentences):
            assert reply.status == "conflict"
            assert not [s for s in reply.sentences if s.kind == "claim" and s.cite in conflict.ids]


@FAST
@given(ANYTHING, ANYTHING)
def test_compose_answer_refuses_bad_arguments_by_name(facets, packet):
    refused(lambda: compose_answer(facets, packet), "facets", "packet")


@FAST
@given(st.one_of(st.lists(st.sampled_from(["p1", "p2", "h"]), max_size=3), ANYTHING), ANYTHING)
def test_check_citations_refuses_a_str_and_other_bad_ids_by_name(packet_ids, source_texts):
    reply = Answer("full", (Sentence("claim", "x", "x", "p1"),))
    raised, checks = refused(lambda: check_citations(reply, packet_ids, source_texts), "packet_ids", "source_texts")
    if not raised:
        assert not isinstance(packet_ids, str) and [c["present"] for c in checks] == ["p1" in set(packet_ids)]


@FAST
@given(ANYTHING, ANYTHING, ANYTHING)
def test_outcomes_and_grounding_refuse_bad_arguments_by_name(answer, gold_id, corpus):
    refused(lambda: is_grounded(answer, [], {}), "answer")
    refused(lambda: classify_outcome(answer, gold_id, corpus), "answer", "gold_id", "corpus")
    reply = Answer("full", (Sentence("claim", "x", "x", "p1"),))
    raised, outcome = refused(lambda: classify_outcome(reply, gold_id, corpus), "gold_id", "corpus")
    if not raised:
        assert outcome in OUTCOMES


@FAST
@given(FACET_SETS, packets(), packets(), st.booleans())
def test_no_answer_cause_is_one_of_the_four_or_refuses_an_answer(facets, packet, skipped, fits):
    reply = compose_answer(facets, packet)
    raised, cause = refused(lambda: no_answer_cause(reply, skipped, facets, fits), "answer")
    if raised:
        assert fits and reply.status in ("full", "partial")
    else:
        assert cause in NO_ANSWER_CAUSES
        assert (cause == "window overflow") == (not fits)


JSONISH = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=6)),
                       lambda inner: st.one_of(st.lists(inner, max_size=3),
                                               st.dictionaries(st.sampled_from(["status", "sentences", "missing",
                                                                                "disputed", "kind", "text", "quote",
                                                                                "cite", "x"]), inner, max_size=5)),
                       max_leaves=12)


@FAST
@given(JSONISH)
def test_the_schema_check_never_crashes_and_shows_only_what_passes(output):
    problems = check_output(output)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)
    raised, text = refused(lambda: shown_answer(output), "schema")
    assert raised == bool(problems)
