"""Lesson 03's public functions on generated input (hypothesis): every input either gives a
result that keeps the lesson's invariants, or raises ValueError/TypeError naming the argument.

The reference solution (solutions/dedupe.py) is run on the same input: the module and the
answer a learner is graded against must take the same decisions.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.dedupe import mechanism as dedupe  # noqa: E402
from modules.dedupe import RetrievedChunk  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def _solution():
    spec = importlib.util.spec_from_file_location("solution_dedupe_properties", ROOT / "solutions" / "dedupe.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SOLUTION = _solution()

TEXTS = ["Return books to the box.", "return  books to the\nbox.", "Laptops go to the desk.", "x", "Caf\u00e9",
         "Cafe\u0301"]


@st.composite
def chunks(draw, max_size: int = 8, huge: bool = False):
    """Unique ids; a few documents, anchors and texts, so copies, passages and overlaps all occur."""
    ids = draw(st.lists(st.sampled_from([f"c{i}" for i in range(12)]), unique=True, max_size=max_size))
    found = []
    top = 10 ** 9 if huge else 30
    for cid in ids:
        start = draw(st.integers(min_value=1, max_value=top))
        found.append(RetrievedChunk(cid, draw(st.sampled_from(["a.md", "b.md", "c.md"])), draw(st.sampled_from(TEXTS)),
                           score=draw(st.sampled_from([0.5, 0.7, 0.9])),
                           canonical_id=draw(st.sampled_from(["", "doc-1", "doc-2"])),
                           copy=draw(st.sampled_from(dedupe.COPY_KINDS)), start_line=start,
                           end_line=start + draw(st.integers(min_value=0, max_value=top // 3)),
                           anchor=draw(st.sampled_from(["", "", "§1", "§2"]))))
    return found


ANYTHING = st.one_of(st.none(), st.integers(), st.floats(allow_nan=True), st.text(max_size=6), st.booleans(),
                     st.lists(st.integers(), max_size=2), st.sets(st.integers(), max_size=2),
                     st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))


@FAST
@given(st.lists(ANYTHING, min_size=2, max_size=9), st.sampled_from(list(range(2, 10))))
def test_chunk_accepts_valid_fields_or_names_the_bad_one(values, count):
    args = values[:count]
    try:
        chunk = RetrievedChunk(*args)
    except (ValueError, TypeError) as error:
        message = str(error)
        assert "RetrievedChunk" in message or "argument" in message, message
        return
    assert all(isinstance(getattr(chunk, f), str) for f in ("id", "source", "text", "canonical_id", "copy", "anchor"))
    assert chunk.id.strip() and chunk.source.strip() and 1 <= chunk.start_line <= chunk.end_line
    assert chunk.canonical_id == "" or chunk.canonical_id.strip()


@FAST
@given(ANYTHING)
def test_every_function_refuses_what_is_not_a_sequence_of_chunks(value):
    for function in (dedupe.dedupe_ids, dedupe.dedupe_text, dedupe.dedupe_canonical, dedupe.ranked,
                     dedupe.select_non_overlapping, dedupe.distinct_texts, dedupe.canonical_sources):
        if isinstance(value, list) and not value:
            function(value)  # an empty list is a valid, empty input
            continue
        with pytest.raises(TypeError, match=r"chunks(\[\d+\])? must be"):
            function(value)


@FAST
@given(chunks(), st.lists(st.integers(min_value=0, max_value=7), max_size=4))
def test_id_and_text_dedupe(found, repeats):
    with_repeats = found + [found[i] for i in repeats if i < len(found)]
    by_id = dedupe.dedupe_ids(with_repeats)
    assert by_id == tuple(found) and dedupe.dedupe_ids(by_id) == by_id
    by_text = dedupe.dedupe_text(found)
    assert [c.text for c in by_text.kept] == list(dict.fromkeys(c.text for c in found))
    for dropped, kept in by_text.duplicate_of.items():
        assert next(c.text for c in found if c.id == dropped) == next(c.text for c in by_text.kept if c.id == kept)
    if found:
        changed = dataclasses.replace(found[0], text=found[0].text + "!")
        with pytest.raises(ValueError, match=repr(found[0].id)):
            dedupe.dedupe_ids(found + [changed])


@FAST
@given(chunks())
def test_canonical_dedupe_keeps_one_copy_of_each_passage_and_every_passage(found):
    result = dedupe.dedupe_canonical(found)
    kept_ids = [c.id for c in result.kept]
    assert kept_ids == [c.id for c in found if c.id not in result.dropped], "kept chunks leave rank order"
    assert set(result.dropped) | set(kept_ids) == {c.id for c in found}
    # No two kept chunks are copies of one passage; every dropped chunk maps to a kept one of its document.
    for a, b in itertools.combinations(result.kept, 2):
        assert not dedupe.same_passage(a, b), (a.id, b.id)
    by_id = {c.id: c for c in found}
    for dropped, kept in result.dropped.items():
        assert kept in kept_ids and by_id[dropped].canonical_id == by_id[kept].canonical_id != ""
        assert by_id[kept].copy == "primary" or all(
            by_id[d].copy != "primary" for d, k in result.dropped.items() if k == kept)
    assert all(c.id in kept_ids for c in found if not c.canonical_id), "a chunk with no canonical id was dropped"
    # Copies count once, passages all stay: no canonical document loses its last chunk.
    assert dedupe.canonical_sources(result.kept) == dedupe.canonical_sources(found)
    assert dedupe.dedupe_canonical(result.kept).kept == result.kept
    assert set(result.reasons) == set(kept_ids) and set(result.matched) == set(result.dropped)
    # The graded variants (two declared anchors outrank equal words; a declared preference of
    # copy kinds) take the lesson's decisions wherever the two rules agree: no two different
    # anchors, and the primary first.
    assert all(SOLUTION.same_passage(a, b) == dedupe.same_passage(a, b)
               for a in found for b in found if not (a.anchor and b.anchor and a.anchor != b.anchor))
    plain = [dataclasses.replace(c, anchor="") for c in found]
    reference = SOLUTION.dedupe_canonical(plain, ("primary",))
    lesson = dedupe.dedupe_canonical(plain)
    assert (reference.kept, reference.dropped) == (lesson.kept, lesson.dropped)


@FAST
@given(st.text(max_size=20))
def test_normalised_text_is_idempotent_and_ignores_case_and_spacing(text):
    once = dedupe.normalised_text(text)
    assert dedupe.normalised_text(once) == once and "  " not in once and once == once.strip()
    assert dedupe.normalised_text("  " + text.upper().replace(" ", "\n ") + "\t") == dedupe.normalised_text(
        text.upper())


@FAST
@given(chunks(huge=True), st.randoms(use_true_random=False))
def test_selection_has_no_overlap_names_the_best_ranked_clash_and_ignores_input_order(found, rng):
    chosen = dedupe.select_non_overlapping(found)
    for a, b in itertools.combinations(chosen.selected, 2):
        assert not dedupe.lines_overlap(a, b), (a.id, b.id)
    assert sorted(chosen.selected_ids + tuple(chosen.rejected)) == sorted(c.id for c in found)
    rank = {c.id: i for i, c in enumerate(dedupe.ranked(found))}
    for cid, reason in chosen.rejected.items():
        chunk = next(c for c in found if c.id == cid)
        clashes = [c for c in chosen.selected if dedupe.lines_overlap(c, chunk)]
        best = min(clashes, key=lambda c: rank[c.id])
        assert reason == f"overlapping_lines_with:{best.id}" and rank[best.id] < rank[cid]
    shuffled = list(found)
    rng.shuffle(shuffled)
    assert dedupe.select_non_overlapping(shuffled) == chosen
    # The graded variant merges what the lesson rejects: every chunk in one span, spans of one
    # file never share a line, and each span's best chunk is one the lesson selects.
    spans = SOLUTION.merge_overlapping(found)
    assert sorted(i for span in spans for i in span[3]) == sorted(c.id for c in found)
    assert {span[3][0] for span in spans} <= set(chosen.selected_ids)
    for a, b in itertools.combinations(spans, 2):
        assert a[0] != b[0] or a[2] < b[1] or b[2] < a[1], (a, b)


@FAST
@given(chunks(max_size=2))
def test_lines_overlap_is_shared_lines(pair):
    if len(pair) == 2:
        a, b = pair
        if a.end_line - a.start_line < 1000 and b.end_line - b.start_line < 1000:
            shared = set(range(a.start_line, a.end_line + 1)) & set(range(b.start_line, b.end_line + 1))
            assert dedupe.lines_overlap(a, b) == (a.source == b.source and bool(shared))
        assert dedupe.lines_overlap(a, b) == dedupe.lines_overlap(b, a)
