"""Lesson 01's public functions on generated input: a result that keeps the lesson's
invariants, or a ValueError/TypeError that names the argument."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, strategies as st

from modules.context import (ContextRecord, Passage, check_ids, fill_quote_budget, packet_coverage, recall_at_k,
                             select_context)

from ._common import ANYTHING, FAST, refused

IDS = [f"p{i}" for i in range(8)]
TEXTS = st.one_of(st.text(alphabet="ab é\n", max_size=20), st.sampled_from(["same", "other", ""]))


@st.composite
def passages(draw, max_size: int = 8) -> list:
    """Ids may repeat (with equal or different text) so the id check is exercised too."""
    found = []
    for _ in range(draw(st.integers(min_value=0, max_value=max_size))):
        pid = draw(st.sampled_from(IDS))
        found.append(Passage(pid, draw(st.sampled_from(["s1", "s2", "s3"])), draw(st.sampled_from(["1", "2"])),
                             "t", draw(TEXTS)))
    return found


@FAST
@given(passages(), st.integers(min_value=0, max_value=200))
def test_select_context_accounts_for_every_candidate_or_names_the_repeated_id(candidates, budget):
    raised, record = refused(lambda: select_context(candidates, budget), "appears twice")
    if raised:
        return
    assert isinstance(record, ContextRecord) and record.used_quote_chars <= budget
    ids = list(dict.fromkeys(p.id for p in candidates))
    first = {p.id: p for p in reversed(candidates)}
    blocked = [i for i in ids if first[i].source_id in record.conflicts]
    fates = list(record.packet_ids) + list(record.budget_skipped_ids) + list(record.duplicate_text_ids) + blocked
    assert sorted(fates) == sorted(ids)
    # A duplicate names the kept passage it repeats, which carries the same text and ranks earlier.
    assert tuple(record.duplicate_of) == record.duplicate_text_ids
    for dup, kept in record.duplicate_of.items():
        assert first[dup].text == first[kept].text and ids.index(kept) < ids.index(dup)
        assert kept not in record.duplicate_of
    for source, labels in record.conflicts.items():
        assert len(labels) > 1 and len(set(labels)) == len(labels)


@FAST
@given(ANYTHING, ANYTHING)
def test_select_context_refuses_bad_arguments_by_name(candidates, budget):
    refused(lambda: select_context(candidates, budget), "candidates", "max_quote_chars", "Passage")


@FAST
@given(passages(), ANYTHING)
def test_fill_quote_budget_refuses_a_bad_budget_by_name(candidates, budget):
    raised, record = refused(lambda: fill_quote_budget(candidates, budget), "max_quote_chars")
    if not raised:
        assert isinstance(budget, int) and record.used_quote_chars <= budget


@FAST
@given(ANYTHING, ANYTHING, ANYTHING, ANYTHING, ANYTHING)
def test_passage_fields_are_checked_by_name(pid, source, version, title, text):
    raised, passage = refused(lambda: Passage(pid, source, version, title, text), "Passage.")
    if not raised:
        assert all(isinstance(v, str) for v in (pid, source, version, title, text)) and pid.strip()


ID_LISTS = st.one_of(st.lists(st.sampled_from(IDS), max_size=6), st.tuples(st.sampled_from(IDS)), ANYTHING)


@FAST
@given(ID_LISTS, ID_LISTS)
def test_coverage_is_a_fraction_in_0_1_or_names_the_argument(packet_ids, relevant_ids):
    raised, share = refused(lambda: packet_coverage(packet_ids, relevant_ids), "packet_ids", "relevant_ids")
    if not raised:
        assert isinstance(share, Fraction) and 0 <= share <= 1
        assert not isinstance(packet_ids, str) and not isinstance(relevant_ids, str)


@FAST
@given(ID_LISTS, ID_LISTS, st.one_of(st.integers(min_value=-3, max_value=10), ANYTHING))
def test_recall_is_a_fraction_in_0_1_or_names_the_argument(ranked_ids, relevant_ids, k):
    raised, share = refused(lambda: recall_at_k(ranked_ids, relevant_ids, k), "ranked_ids", "relevant_ids", "k ")
    if not raised:
        assert isinstance(share, Fraction) and 0 <= share <= 1 and isinstance(k, int) and k >= 1


@FAST
@given(ANYTHING)
def test_check_ids_never_reads_a_str_as_its_characters(ids):
    raised, found = refused(lambda: check_ids(ids, "ids"), "ids")
    if not raised:
        assert not isinstance(ids, (str, bytes)) and all(isinstance(i, str) for i in found)
