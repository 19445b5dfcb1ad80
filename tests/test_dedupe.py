"""Lesson 03's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import methods
from modules import dedupe
from modules.dedupe import (CANONICAL_CASE, CROWDING_CASE, ID_CASE, ID_CONFLICT, OVERLAP_CASE, TEXT_CASE, Chunk,
                            IdConflict, dedupe_canonical, dedupe_ids, dedupe_text, distinct_texts, lines_overlap,
                            ranked, select_non_overlapping)


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("dedupe", "--json").stdout)


def test_identical_ids_collapse_to_the_first_ranked(record):
    kept = dedupe_ids(ID_CASE)
    assert [c.id for c in kept] == ["returns-v1", "hours-v2"] and kept[0] is ID_CASE[0]
    assert record["ids"]["kept_ids"] == ["returns-v1", "hours-v2"] and record["ids"]["collapsed"] == 1


def test_a_conflicting_id_raises_naming_id_and_field(record):
    with pytest.raises(IdConflict) as caught:
        dedupe_ids(ID_CONFLICT)
    assert isinstance(caught.value, ValueError)
    assert (caught.value.chunk_id, caught.value.field) == ("returns-v1", "text")
    assert "id 'returns-v1' appears twice with a different text" in str(caught.value)
    conflict = record["ids"]["conflict"]
    assert conflict["event"].startswith("caught") and (conflict["id"], conflict["field"]) == ("returns-v1", "text")
    assert conflict["explained"]
    text = methods("dedupe").stdout.decode()
    assert "caught IdConflict" in text and "differing field" in text


@pytest.mark.parametrize("changes, field", [
    (dict(source="mirror"), "source"), (dict(canonical_id="policy:x"), "canonical_id"),
    (dict(copy="mirror"), "copy"), (dict(start_line=2, end_line=3), "start_line"),
])
def test_provenance_conflicts_name_their_field(changes, field):
    base = Chunk("a", "src", "same text")
    other = Chunk(**{**dict(id="a", source="src", text="same text"), **changes})
    with pytest.raises(IdConflict, match=rf"id 'a' appears twice with a different {field}"):
        dedupe_ids([base, other])
    assert dedupe_ids([base, Chunk("a", "src", "same text", score=0.1)]) == (base,)


def test_exact_text_dedupe(record):
    result = dedupe_text(TEXT_CASE)
    assert [c.id for c in result.kept] == ["hours-v2", "hours-w1", "hours-w2"]
    assert result.duplicate_text_ids == ("news-17",) and result.duplicate_of == {"news-17": "hours-v2"}
    assert record["text"]["duplicate_text_ids"] == ["news-17"]
    w1, w2 = TEXT_CASE[2].text, TEXT_CASE[3].text
    shared = "On Saturdays it opens at 10:00."
    assert shared in w1 and shared in w2 and w1 != w2
    assert record["text"]["overlapping_but_distinct"] == ["hours-w1", "hours-w2"]


def test_canonical_copies_collapse_with_a_reason(record):
    result = dedupe_canonical(CANONICAL_CASE)
    assert [c.id for c in result.kept] == ["printing-export", "returns-primary", "hours-primary"]
    assert result.dropped == {"returns-mirror": "returns-primary", "returns-export": "returns-primary",
                              "printing-mirror": "printing-export"}
    assert result.reasons["returns-primary"].startswith("primary copy")
    assert result.reasons["printing-export"].startswith("first-ranked copy; no primary")
    canonical = record["canonical"]
    assert canonical["copies_per_source"]["policy:returns"] == 3
    assert (canonical["apparent_sources_before"], canonical["canonical_sources_before"]) == (6, 3)
    assert (canonical["chunks_after"], canonical["canonical_sources_after"]) == (3, 3)
    assert canonical["chunks_after_exact_text"] == 5 == len(dedupe_text(CANONICAL_CASE).kept)
    assert "policy:returns: 3 copies is 1 source" in methods("dedupe").stdout.decode()


def test_overlapping_lines_case(record):
    assert [(c.source, c.start_line, c.end_line) for c in OVERLAP_CASE] == [
        ("release-policy.md", 12, 29), ("release-policy.md", 26, 34), ("deployment-guide.md", 12, 24),
        ("deployment-guide.md", 25, 33), ("service-config.md", 32, 35)]
    selection = select_non_overlapping(OVERLAP_CASE)
    assert selection.selected_ids == ("chunk-0001", "chunk-0003", "chunk-0004", "chunk-0005")
    assert selection.rejected == {"chunk-0002": "overlapping_lines_with:chunk-0001"}
    overlap = record["overlap"]
    assert (len(overlap["candidates"]), len(overlap["selected_ids"]), len(overlap["rejected"])) == (5, 4, 1)
    assert overlap["rejected"] == [{"id": "chunk-0002", "reason": "overlapping_lines_with:chunk-0001"}]
    assert "1-based and inclusive" in record["line_ranges"]


def test_inclusive_ranges_and_adjacency():
    one, two, three, four, five = OVERLAP_CASE
    assert lines_overlap(one, two) and lines_overlap(two, one)
    assert not lines_overlap(three, four) and not lines_overlap(four, three)
    assert not lines_overlap(four, five)        # 25-33 and 32-35, but different files
    touching = Chunk("x", "deployment-guide.md", "t", start_line=24, end_line=25)
    assert lines_overlap(three, touching) and lines_overlap(four, touching)


def test_reversed_input_gives_the_same_selection(record):
    assert record["overlap"]["reversed_input_selected_ids"] == record["overlap"]["selected_ids"]
    assert record["overlap"]["order_invariant"] is True
    assert select_non_overlapping(reversed(OVERLAP_CASE)) == select_non_overlapping(OVERLAP_CASE)
    a = Chunk("a", "f.md", "a", 0.5, start_line=1, end_line=10)
    b = Chunk("b", "f.md", "b", 0.5, start_line=5, end_line=15)
    for order in ([a, b], [b, a]):
        result = select_non_overlapping(order)
        assert result.selected_ids == ("a",) and result.rejected == {"b": "overlapping_lines_with:a"}
    assert [c.id for c in ranked([b, a])] == ["a", "b"]
    # one chunk seen twice with two scores ranks by its better score, whatever arrives first
    low_b = Chunk("b", "f.md", "b", 0.1, start_line=5, end_line=15)
    high_b = Chunk("b", "f.md", "b", 0.9, start_line=5, end_line=15)
    for order in ([a, low_b, high_b], [high_b, a, low_b], [low_b, a, high_b]):
        result = select_non_overlapping(order)
        assert result.selected_ids == ("b",) and result.rejected == {"a": "overlapping_lines_with:b"}


def test_rejection_names_the_best_ranked_overlap():
    chunks = [Chunk("low", "f.md", "l", 0.2, start_line=5, end_line=25),
              Chunk("mid", "f.md", "m", 0.5, start_line=20, end_line=30),
              Chunk("top", "f.md", "t", 0.9, start_line=1, end_line=10)]
    assert select_non_overlapping(chunks).rejected == {"low": "overlapping_lines_with:top"}


def test_crowding_cutoff_two_holds_half_the_answer(record):
    assert [c.text for c in CROWDING_CASE[:3]] == [dedupe.RETURNS] * 3 and CROWDING_CASE[3].text == dedupe.HOURS
    rows = {row["label"]: row for row in record["crowding"]["rows"]}
    top2 = rows["top 2"]
    assert top2["ids"] == ["returns-v1", "faq-returns"] and top2["distinct_texts"] == 1
    assert top2["answer_parts"] == "1/2" and top2["mean_score"] == 0.935
    assert rows["top 4"]["distinct_texts"] == 2 and rows["top 4"]["answer_parts"] == "2/2"
    deduped = rows["exact-text dedupe, then top 2"]
    assert deduped["ids"] == ["returns-v1", "hours-v2"] and deduped["answer_parts"] == "2/2"
    assert distinct_texts(CROWDING_CASE[:2]) == 1 and distinct_texts(CROWDING_CASE) == 2
    assert record["crowding"]["labels"]["note"].startswith("for evaluation only")


@pytest.mark.parametrize("call, error, words", [
    (lambda: Chunk("", "s", "t"), ValueError, "Chunk.id must not be empty"),
    (lambda: Chunk("a", "s", 5), TypeError, "Chunk.text must be a str, got int 5"),
    (lambda: Chunk("a", "s", "t", copy="backup"), ValueError, "Chunk.copy must be one of primary, mirror, export, got 'backup'"),
    (lambda: Chunk("a", "s", "t", score="high"), TypeError, "Chunk.score must be a number, got str 'high'"),
    (lambda: Chunk("a", "s", "t", score=True), TypeError, "Chunk.score must be a number, got bool True"),
    (lambda: Chunk("a", "s", "t", score=float("nan")), TypeError, "Chunk.score must be a number, got float nan"),
    (lambda: Chunk("a", "s", "t", start_line=0), ValueError, "Chunk.start_line must be >= 1 (lines are 1-based), got 0"),
    (lambda: Chunk("a", "s", "t", start_line=1.0), TypeError, "Chunk.start_line must be an int, got float 1.0"),
    (lambda: Chunk("a", "s", "t", start_line=9, end_line=3), ValueError, "Chunk 'a': end_line 3 is before start_line 9"),
    (lambda: dedupe_text("abc"), TypeError, "chunks must be a sequence of Chunk, got str"),
    (lambda: dedupe_ids([ID_CASE[0], "x"]), TypeError, "chunks[1] must be a Chunk, got str 'x'"),
    (lambda: select_non_overlapping([None]), TypeError, "chunks[0] must be a Chunk, got NoneType"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)
