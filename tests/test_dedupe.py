"""Lesson 03's figures and contracts, asserted on the mechanism and on the command."""

import dataclasses
import json

import pytest

from helpers import methods
from modules.dedupe import mechanism as dedupe
from modules.dedupe import trace as dedupe_trace
from modules.dedupe import (CANONICAL_CASE, CROWDING_CASE, ID_CASE, ID_CONFLICT, OVERLAP_CASE, TEXT_CASE, IdConflict,
                            RetrievedChunk, canonical_sources, dedupe_canonical, dedupe_ids, dedupe_text, distinct_texts,
                            lines_overlap, ranked, same_passage, select_non_overlapping)


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
    base = RetrievedChunk("a", "src", "same text")
    other = RetrievedChunk(**{**dict(id="a", source="src", text="same text"), **changes})
    with pytest.raises(IdConflict, match=rf"id 'a' appears twice with a different {field}"):
        dedupe_ids([base, other])
    assert dedupe_ids([base, RetrievedChunk("a", "src", "same text", score=0.1)]) == (base,)


def test_exact_text_dedupe(record):
    result = dedupe_text(TEXT_CASE)
    assert [c.id for c in result.kept] == ["hours-v2", "hours-w1", "hours-w2"]
    assert result.duplicate_text_ids == ("news-17",) and result.duplicate_of == {"news-17": "hours-v2"}
    assert record["text"]["duplicate_text_ids"] == ["news-17"]
    w1, w2 = TEXT_CASE[2].text, TEXT_CASE[3].text
    shared = "On Saturdays it opens at 10:00."
    assert shared in w1 and shared in w2 and w1 != w2
    assert record["text"]["overlapping_but_distinct"] == ["hours-w1", "hours-w2"]


def test_canonical_dedupe_keeps_one_copy_of_each_passage(record):
    result = dedupe_canonical(CANONICAL_CASE)
    assert [c.id for c in result.kept] == ["printing-export", "returns-v1", "hours-v2", "returns-laptops"]
    assert result.dropped == {"returns-mirror": "returns-v1", "returns-export": "returns-v1",
                              "printing-mirror": "printing-export"}
    assert result.reasons == {"printing-export": "first-ranked of 2 copies, none primary",
                              "returns-v1": "primary, preferred over 2 other copies",
                              "hours-v2": "only copy", "returns-laptops": "only copy"}
    assert result.matched == {"returns-mirror": "same normalised text", "returns-export": "same anchor §1",
                              "printing-mirror": "same anchor §1"}
    canonical = record["canonical"]
    assert canonical["copies_per_document"]["policy:returns"] == 4
    assert canonical["passages_kept_per_document"] == {"policy:printing": 1, "policy:returns": 2, "policy:hours": 1}
    assert (canonical["chunks_before"], canonical["places_before"], canonical["canonical_sources_before"]) == (7, 6, 3)
    assert (canonical["chunks_after"], canonical["canonical_sources_after"]) == (4, 3)
    assert canonical["chunks_after_exact_text"] == 7 == len(dedupe_text(CANONICAL_CASE).kept)
    text = methods("dedupe").stdout.decode()
    assert "policy:returns: 4 chunks, 2 passages kept" in text


def test_the_rule_and_its_exception_are_two_passages():
    """Issue 13: 'one chunk per canonical document' dropped an exception; distinct passages all stay."""
    rule = RetrievedChunk("rule", "intranet/t", "Trips are reimbursed.", 0.9, "t", "primary", anchor="§3")
    mirror = RetrievedChunk("rule-m", "mirror/t", "TRIPS are\nreimbursed.", 0.95, "t", "mirror")
    exception = RetrievedChunk("exception", "intranet/t", "Unless booked before approval.", 0.5, "t", "primary", anchor="§4")
    result = dedupe_canonical([mirror, rule, exception])
    assert [c.id for c in result.kept] == ["rule", "exception"] and result.dropped == {"rule-m": "rule"}
    assert same_passage(rule, mirror) and not same_passage(rule, exception)
    assert canonical_sources([mirror, rule, exception]) == 1 == canonical_sources(result.kept)


def test_copies_of_copies_join_one_passage():
    mirror = RetrievedChunk("m", "mirror/s", "Return books to the box.", 0.9, "s", "mirror")
    export = RetrievedChunk("e", "export/s", "EXPORT. Return books to the box.", 0.8, "s", "export", anchor="§1")
    primary = RetrievedChunk("p", "intranet/s", "Return books to the box.", 0.7, "s", "primary", anchor="§1")
    for order in ([mirror, export, primary], [export, primary, mirror], [primary, mirror, export]):
        result = dedupe_canonical(order)
        assert [c.id for c in result.kept] == ["p"], order
    assert [c.id for c in dedupe_canonical([mirror, export]).kept] == ["m", "e"]
    assert dedupe_canonical([mirror, export, primary]).matched == {"m": "same normalised text", "e": "same anchor §1"}
    bridge = RetrievedChunk("b", "mirror2/s", "Another wording.", 0.6, "s", "mirror", anchor="§1")
    linked = dedupe_canonical([mirror, export, primary, bridge, RetrievedChunk("x", "mirror3/s", "another  WORDING.", 0.5,
                                                                      "s", "mirror")])
    assert linked.dropped["x"] == "p" and linked.matched["x"] == "linked through another copy"


@pytest.mark.parametrize("field", ["canonical_id", "anchor"])
@pytest.mark.parametrize("blank", [" ", "\t", "  \n"])
def test_a_blank_canonical_id_or_anchor_is_refused(field, blank):
    """Issue 14: a whitespace canonical_id merged unrelated chunks."""
    with pytest.raises(ValueError, match=rf"RetrievedChunk.{field} must be '' \(none declared\) or a non-blank id"):
        RetrievedChunk("a", "s", "t", **{field: blank})
    assert RetrievedChunk("a", "s", "t", **{field: ""}).canonical_id == ""
    with pytest.raises(ValueError, match=rf"RetrievedChunk.{field} must be"):
        dataclasses.replace(RetrievedChunk("a", "s", "t"), **{field: blank})   # a replaced value is checked like a new one


def test_overlapping_lines_case(record):
    assert [(c.source, c.start_line, c.end_line) for c in OVERLAP_CASE] == [
        ("release-policy.md", 12, 29), ("release-policy.md", 26, 34), ("deployment-guide.md", 12, 24),
        ("deployment-guide.md", 25, 33), ("service-config.md", 32, 35)]
    selection = select_non_overlapping(OVERLAP_CASE)
    assert selection.selected_ids == ("chunk-0001", "chunk-0003", "chunk-0004", "chunk-0005")
    assert selection.rejected == {"chunk-0002": "overlapping_lines_with:chunk-0001"}
    assert selection.shared_lines == {"chunk-0002": (26, 29)}
    overlap = record["overlap"]
    assert (len(overlap["candidates"]), len(overlap["selected_ids"]), len(overlap["rejected"])) == (5, 4, 1)
    assert overlap["rejected"] == [{"id": "chunk-0002", "reason": "overlapping_lines_with:chunk-0001",
                                    "shared_lines": "26-29"}]
    assert "1-based and inclusive" in record["line_ranges"]


def test_inclusive_ranges_and_adjacency():
    one, two, three, four, five = OVERLAP_CASE
    assert lines_overlap(one, two) and lines_overlap(two, one)
    assert not lines_overlap(three, four) and not lines_overlap(four, three)
    assert not lines_overlap(four, five)        # 25-33 and 32-35, but different files
    touching = RetrievedChunk("x", "deployment-guide.md", "t", start_line=24, end_line=25)
    assert lines_overlap(three, touching) and lines_overlap(four, touching)


def test_reversed_input_gives_the_same_selection(record):
    assert record["overlap"]["reversed_input_selected_ids"] == record["overlap"]["selected_ids"]
    assert record["overlap"]["order_invariant"] is True
    assert select_non_overlapping(reversed(OVERLAP_CASE)) == select_non_overlapping(OVERLAP_CASE)
    a = RetrievedChunk("a", "f.md", "a", 0.5, start_line=1, end_line=10)
    b = RetrievedChunk("b", "f.md", "b", 0.5, start_line=5, end_line=15)
    for order in ([a, b], [b, a]):
        result = select_non_overlapping(order)
        assert result.selected_ids == ("a",) and result.rejected == {"b": "overlapping_lines_with:a"}
    assert [c.id for c in ranked([b, a])] == ["a", "b"]
    # one chunk seen twice with two scores ranks by its better score, whatever arrives first
    low_b = RetrievedChunk("b", "f.md", "b", 0.1, start_line=5, end_line=15)
    high_b = RetrievedChunk("b", "f.md", "b", 0.9, start_line=5, end_line=15)
    for order in ([a, low_b, high_b], [high_b, a, low_b], [low_b, a, high_b]):
        result = select_non_overlapping(order)
        assert result.selected_ids == ("b",) and result.rejected == {"a": "overlapping_lines_with:b"}


def test_rejection_names_the_best_ranked_overlap():
    chunks = [RetrievedChunk("low", "f.md", "l", 0.2, start_line=5, end_line=25),
              RetrievedChunk("mid", "f.md", "m", 0.5, start_line=20, end_line=30),
              RetrievedChunk("top", "f.md", "t", 0.9, start_line=1, end_line=10)]
    assert select_non_overlapping(chunks).rejected == {"low": "overlapping_lines_with:top"}


def test_huge_line_numbers_cost_nothing_extra():
    """Issue 13: one chunk spanning lines 1 to 10**9 ran over 20 s; cost now follows the chunks."""
    import time
    whole = RetrievedChunk("whole", "big.md", "w", 0.9, start_line=1, end_line=10 ** 9)
    tail = RetrievedChunk("tail", "big.md", "t", 0.8, start_line=10 ** 9, end_line=10 ** 9 + 5)
    after = RetrievedChunk("after", "big.md", "a", 0.7, start_line=10 ** 9 + 6, end_line=2 * 10 ** 9)
    began = time.perf_counter()
    result = select_non_overlapping([after, tail, whole])
    assert result.selected_ids == ("whole", "after") and result.rejected == {"tail": "overlapping_lines_with:whole"}
    # 2,000 nested chunks up to 2 * 10**6 lines took 120 s; and a thousand small chunks under one huge one.
    nested = [RetrievedChunk(f"n{i:04d}", "n.md", "x", i / 2000, start_line=1 + 500 * (1999 - i),
                    end_line=2 * 10 ** 6 - 500 * (1999 - i)) for i in range(2000)]
    result = select_non_overlapping(nested)
    assert result.selected_ids == ("n1999",) and len(result.rejected) == 1999
    assert set(result.rejected.values()) == {"overlapping_lines_with:n1999"}
    small = [RetrievedChunk(f"s{i:04d}", "m.md", "x", 0.9, start_line=10 * i + 1, end_line=10 * i + 5) for i in range(1000)]
    huge = [RetrievedChunk(f"h{i:04d}", "m.md", "x", 0.1, start_line=1, end_line=10 ** 9) for i in range(1000)]
    result = select_non_overlapping(huge + small)
    assert len(result.selected) == 1000 and set(result.rejected.values()) == {"overlapping_lines_with:s0000"}
    assert time.perf_counter() - began < 2.0


def test_rejection_names_the_best_ranked_overlap_across_many():
    # Many selected chunks under one rejected range: the reason names the best-ranked of them.
    import random
    rng = random.Random(3)
    chunks = [RetrievedChunk(f"c{i:03d}", "f.md", "x", rng.random(), start_line=s, end_line=s + rng.randrange(0, 40))
              for i, s in enumerate(rng.randrange(1, 2000) for _ in range(400))]
    result = select_non_overlapping(chunks)
    order = ranked(chunks)
    rank = {c.id: i for i, c in enumerate(order)}
    for chunk in order:
        if chunk.id in result.rejected:
            clashes = [c for c in result.selected if lines_overlap(c, chunk) and rank[c.id] < rank[chunk.id]]
            assert result.rejected[chunk.id] == f"overlapping_lines_with:{min(clashes, key=lambda c: rank[c.id]).id}"
        else:
            assert not any(lines_overlap(c, chunk) for c in result.selected if c.id != chunk.id)


def test_plain_output_fits_88_columns_and_every_table_has_a_legend():
    lines = methods("dedupe").stdout.decode().splitlines()
    assert max(len(line) for line in lines) <= 88
    blocks = dedupe_trace.view(dedupe_trace.trace())
    assert all(b.get("key") for b in blocks) and len({b["key"] for b in blocks}) == len(blocks)
    assert all(b["table"].get("legend") for b in blocks if "table" in b)


def test_crowding_cutoff_two_holds_half_the_answer(record):
    assert [c.text for c in CROWDING_CASE[:3]] == [dedupe.RETURNS] * 3 and CROWDING_CASE[3].text == dedupe.HOURS
    rows = {row["label"]: row for row in record["crowding"]["rows"]}
    top2 = rows["top 2"]
    assert top2["ids"] == ["returns-v1", "returns-faq"] and top2["distinct_texts"] == 1
    assert top2["answer_parts"] == "1/2" and top2["mean_score"] == 0.935
    assert rows["top 4"]["distinct_texts"] == 2 and rows["top 4"]["answer_parts"] == "2/2"
    deduped = rows["deduped 2"]
    assert deduped["ids"] == ["returns-v1", "hours-v2"] and deduped["answer_parts"] == "2/2"
    assert distinct_texts(CROWDING_CASE[:2]) == 1 and distinct_texts(CROWDING_CASE) == 2
    assert record["crowding"]["labels"]["note"].startswith("for evaluation only")


@pytest.mark.parametrize("call, error, words", [
    (lambda: RetrievedChunk("", "s", "t"), ValueError, "RetrievedChunk.id must not be empty"),
    (lambda: RetrievedChunk("a", "s", 5), TypeError, "RetrievedChunk.text must be a str, got int 5"),
    (lambda: RetrievedChunk("a", "s", "t", copy="backup"), ValueError, "RetrievedChunk.copy must be one of primary, mirror, export, got 'backup'"),
    (lambda: RetrievedChunk("a", "s", "t", score="high"), TypeError, "RetrievedChunk.score must be a number, got str 'high'"),
    (lambda: RetrievedChunk("a", "s", "t", score=True), TypeError, "RetrievedChunk.score must be a number, got bool True"),
    (lambda: RetrievedChunk("a", "s", "t", score=float("nan")), TypeError, "RetrievedChunk.score must be a number, got float nan"),
    (lambda: RetrievedChunk("a", "s", "t", start_line=0), ValueError, "RetrievedChunk.start_line must be >= 1 (lines are 1-based), got 0"),
    (lambda: RetrievedChunk("a", "s", "t", start_line=1.0), TypeError, "RetrievedChunk.start_line must be an int, got float 1.0"),
    (lambda: RetrievedChunk("a", "s", "t", start_line=9, end_line=3), ValueError, "RetrievedChunk 'a': end_line 3 is before start_line 9"),
    (lambda: dedupe_text("abc"), TypeError, "chunks must be a sequence of RetrievedChunk, got str"),
    (lambda: dedupe_ids([ID_CASE[0], "x"]), TypeError, "chunks[1] must be a RetrievedChunk, got str 'x'"),
    (lambda: select_non_overlapping([None]), TypeError, "chunks[0] must be a RetrievedChunk, got NoneType"),
    (lambda: RetrievedChunk("a", "s", "t", anchor=3), TypeError, "RetrievedChunk.anchor must be a str, got int 3"),
    (lambda: same_passage(ID_CASE[0], "x"), TypeError, "same_passage needs two RetrievedChunks, got RetrievedChunk and str"),
    (lambda: dedupe_canonical({ID_CASE[0]}), TypeError, "chunks must be a sequence of RetrievedChunk, got set"),
    (lambda: canonical_sources(None), TypeError, "chunks must be a sequence of RetrievedChunk, got NoneType"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_the_canonical_quiz_premise_holds_on_the_fixture():
    # The quiz: the returns policy reaches the candidates three times, primary, mirror and
    # export, all three saying books go to the north drop box.
    copies = [c for c in dedupe.CANONICAL_CASE if c.canonical_id == "policy:returns" and c.anchor in ("", "§1")]
    assert sorted(c.copy for c in copies) == ["export", "mirror", "primary"]
    assert all("drop box beside the north entrance" in " ".join(c.text.split()) for c in copies)


def methods_record() -> dict:
    return json.loads(methods("dedupe", "--json").stdout)


def test_the_modules_own_functions_fail_the_tasks(tmp_path):
    # Issue 36: paste the function each task obviously copies (dedupe_text, same_passage,
    # dedupe_canonical, lines_overlap, select_non_overlapping), renamed to the task's name:
    # every one of those tasks fails.
    from helpers import passed_tasks, pasted_text
    copies = {"dedupe_text": dedupe.dedupe_text, "same_passage": dedupe.same_passage,
              "dedupe_canonical": dedupe.dedupe_canonical, "overlap_share": dedupe.lines_overlap,
              "merge_overlapping": dedupe.select_non_overlapping}
    helpers = "from modules.dedupe.mechanism import *\nfrom modules.dedupe.mechanism import _chunks, _passage_keys, " \
              "_why_kept, _how_matched"
    passed = passed_tasks("dedupe", pasted_text("dedupe", [(function, name) for name, function in copies.items()],
                                                 preamble=helpers, in_place=True))
    assert passed == {"id_conflicts": True, "dedupe_text": False, "same_passage": False, "dedupe_canonical": False,
                      "overlap_share": False, "merge_overlapping": False, "CANONICAL_QUIZ": True,
                      "SELECTED_WITH_0006": True}


# Every figure curriculum.md lists for lesson 03, as the default trace prints it (seed 003's
# one rejection: its reason code and the lines it shares).
CURRICULUM_FIGURES = [
    "caught IdConflict (a ValueError)  returns-v1  text", "news-17 (same text as", "hours-v2)",
    "returns-v1       policy:returns   §1  primary, preferred over 2 other copies",
    "returns-laptops  policy:returns   §2  only copy",
    "returns-mirror   mirror  returns-v1       same normalised text", "returns-export   export  returns-v1",
    "   1  chunk-0001  release-policy.md    12-29", "   2  chunk-0002  release-policy.md    26-34",
    "   3  chunk-0003  deployment-guide.md  12-24", "   4  chunk-0004  deployment-guide.md  25-33",
    "   5  chunk-0005  service-config.md    32-35", "5 candidates, 4 selected, 1 rejected.", "overlapping_lines_with:chunk-0001",
    "Rejected: chunk-0002 overlapping_lines_with:chunk-0001 (shares lines 26-29)", "1-based and inclusive",
    "top 2      returns-v1, returns-faq                          0.935      1  1/2",
    "deduped 2  returns-v1, hours-v2                             0.875      2  2/2",
]


def test_the_default_trace_prints_every_curriculum_figure():
    text = methods("dedupe", "--plain").stdout.decode()
    assert [figure for figure in CURRICULUM_FIGURES if figure not in text] == []
