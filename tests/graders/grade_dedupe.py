"""Grader for lesson 03, dedupe. Run: python3 -B methods.py check dedupe"""

from labtools.grading.harness import (manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load, Shown,
                  shown_call)
from modules.dedupe import (CANONICAL_CASE, ID_CASE, ID_CONFLICT, OVERLAP_CASE, TEXT_CASE, CanonicalDedupe,
                            OverlapSelection, RetrievedChunk, TextDedupe)

LESSON = "dedupe"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


def _ids(chunks) -> tuple:
    return tuple(c.id for c in chunks)


def _c(cid, source="doc", text=None, score=0.5, start=1, end=1, canonical="", copy="primary", anchor="") -> RetrievedChunk:
    return RetrievedChunk(cid, source, text if text is not None else f"text of {cid}", score, canonical, copy, start, end,
                 anchor)


# ---------------------------------------------------------------- Task 1

def test_task1_the_lessons_two_cases():
    fn = function(load(LESSON), "id_conflicts")
    expect_call(fn, Shown("ID_CASE from modules.dedupe", ID_CASE), want=(),
                why="the second returns-v1 is an identical copy (only its score differs): no conflict to report")
    expect_call(fn, Shown("ID_CONFLICT from modules.dedupe", ID_CONFLICT), want=(("returns-v1", ("text",)),),
                why="a stale index holds another text under returns-v1: one id, two chunks")
    expect_call(fn, [], want=(), why="nothing retrieved, nothing to report")


def test_task1_provenance_counts_score_does_not():
    fn = function(load(LESSON), "id_conflicts")
    expect_call(fn, Shown("[a from wiki, a from mirror]", [_c("a", source="wiki"), _c("a", source="mirror")]),
                want=(("a", ("source",)),), why="same id, different source: a provenance conflict")
    expect_call(fn, Shown("[a lines 1-9, a lines 5-9]", [_c("a", start=1, end=9), _c("a", start=5, end=9)]),
                want=(("a", ("start_line",)),), why="same id, different lines")
    expect_call(fn, Shown("[a at anchor §1, a at anchor §2]", [_c("a", anchor="§1"), _c("a", anchor="§2")]),
                want=(("a", ("anchor",)),), why="same id, another place in its document")
    expect_call(fn, Shown("[a as primary, a as mirror copy]", [_c("a", canonical="pol"), _c("a", canonical="pol",
                                                                                         copy="mirror")]),
                want=(("a", ("copy",)),), why="same id, but one claims to be the primary and the other a copy")
    expect_call(fn, Shown("[a scored 0.9, a scored 0.4]", [_c("a", score=0.9), _c("a", score=0.4)]), want=(),
                why="two channels may score one chunk differently; it is still the same chunk")


def test_task1_every_differing_field_in_identity_order():
    fn = function(load(LESSON), "id_conflicts")
    expect_call(fn, Shown("[a, a with another text from another source]",
                          [_c("a"), _c("a", source="mirror", text="other text")]),
                want=(("a", ("text", "source")),),
                why="report every field that differs, not only the first one dedupe_ids would name")
    expect_call(fn, Shown("[a, a from mirror, a with another text]",
                          [_c("a"), _c("a", source="mirror"), _c("a", text="other text")]),
                want=(("a", ("text", "source")),),
                why="the second copy differs in source and the third in text: both fields, in the order of "
                    "IDENTITY_FIELDS (text comes first), not in the order they were found")
    expect_call(fn, Shown("[a lines 1-2, a lines 3-4]", [_c("a", start=1, end=2), _c("a", start=3, end=4)]),
                want=(("a", ("start_line", "end_line")),), why="both ends of the line range moved")


def test_task1_every_id_in_order_of_first_appearance():
    fn = function(load(LESSON), "id_conflicts")
    a, b, c = _c("a"), _c("b"), _c("c")
    expect_call(fn, Shown("[a, b, c, b from mirror, a with another text]",
                          [a, b, c, _c("b", source="mirror"), _c("a", text="other text")]),
                want=(("a", ("text",)), ("b", ("source",))),
                why="two ids conflict: list both (do not stop at the first), in the order a and b first appear")
    expect_call(fn, Shown("[c, b, b from mirror, a, a]", [c, b, _c("b", source="mirror"), a, a]),
                want=(("b", ("source",)),),
                why="a arrives twice as the same chunk and c once: only b is listed")
    expect_call(fn, Shown("[b, a, a with another text, b from mirror]",
                          [b, a, _c("a", text="other text"), _c("b", source="mirror")]),
                want=(("b", ("source",)), ("a", ("text",))),
                why="b appears before a, so b is listed first, whichever conflict was found first")


# ---------------------------------------------------------------- Task 2

def _texts(chunks) -> Shown:
    return Shown("[" + ", ".join(f"{c.id}:{c.text!r}" for c in chunks) + "]", chunks)


def _text(fn, chunks: Shown):
    got, shown = call_shown(fn, chunks)
    expect_true(isinstance(got, TextDedupe), f"called {shown}\n  got a {type(got).__name__}\n  expected: a TextDedupe")
    return got, shown


def test_task2_lesson_case():
    fn = function(load(LESSON), "dedupe_text")
    got, shown = _text(fn, Shown("TEXT_CASE from modules.dedupe", TEXT_CASE))
    expect(_ids(got.kept), ("hours-v2", "hours-w1", "hours-w2"), shown + " -> kept ids",
           why="news-17 repeats hours-v2 word for word; hours-w1 and hours-w2 overlap but differ, so both stay")
    expect(tuple(got.duplicate_text_ids), ("news-17",), shown + " -> duplicate_text_ids")
    expect(dict(got.duplicate_of), {"news-17": "hours-v2"}, shown + " -> duplicate_of")


def test_task2_keep_the_first_not_the_last():
    fn = function(load(LESSON), "dedupe_text")
    chunks = [_c("a", text="same"), _c("b", text="other"), _c("c", text="same")]
    got, shown = _text(fn, _texts(chunks))
    expect(_ids(got.kept), ("a", "b"), shown + " -> kept ids", why="a ranks first, so a stays and c is the duplicate")
    expect(tuple(got.duplicate_text_ids), ("c",), shown + " -> duplicate_text_ids")
    expect(dict(got.duplicate_of), {"c": "a"}, shown + " -> duplicate_of")


def test_task2_exact_means_exact():
    fn = function(load(LESSON), "dedupe_text")
    chunks = [_c("a", text="Closed on Sundays."), _c("b", text="closed on Sundays."), _c("c", text="Closed on Sundays. "),
              _c("d", text="Closed on Sundays. Open at 8:30.")]
    got, shown = _text(fn, _texts(chunks))
    expect(_ids(got.kept), ("a", "b", "c", "d"), shown + " -> kept ids",
           why="no two texts are exactly equal (case, a trailing space, one text containing another all count)")
    expect(tuple(got.duplicate_text_ids), (), shown + " -> duplicate_text_ids")


# ---------------------------------------------------------------- Task 3

BY_ID = {c.id: c for c in CANONICAL_CASE}


def _passage(chunk: RetrievedChunk) -> Shown:
    # A chunk as same_passage reads it: its text, its declared place, its document, its copy.
    if not chunk.canonical_id:
        place = "with no canonical_id"
    else:
        place = f"at {chunk.anchor} of {chunk.canonical_id}" if chunk.anchor else f"of {chunk.canonical_id}, no anchor"
    copy = "" if chunk.copy == "primary" else f" ({chunk.copy} copy)"
    return Shown(f"{chunk.id}: {chunk.text!r} {place}{copy}", chunk)


def _same(fn, a, b, want, why):
    expect_call(fn, a if isinstance(a, Shown) else _passage(a), b if isinstance(b, Shown) else _passage(b),
                want=want, why=why)


def test_task3_lesson_pairs():
    fn = function(load(LESSON), "same_passage")
    for a, b, want, why in (
        ("returns-primary", "returns-export", True, "both declare anchor §1 of policy:returns; the export's header "
                                                     "does not make it another passage"),
        ("returns-primary", "returns-mirror", True, "the mirror declares no anchor, but its text is the primary's "
                                                     "with another line break: equal once normalised"),
        ("printing-export", "printing-mirror", True, "anchor §1 of policy:printing in both"),
        ("returns-primary", "returns-laptops", False, "one document, two passages: the drop-box rule (§1) and the "
                                                       "laptop exception (§2) are not copies of each other"),
        ("returns-export", "returns-mirror", False, "no shared anchor (the mirror declares none) and the export's "
                                                     "header makes the texts differ"),
        ("returns-primary", "hours-primary", False, "different canonical documents are never copies"),
    ):
        first, second = Shown(f"<{a}>", BY_ID[a]), Shown(f"<{b}>", BY_ID[b])
        _same(fn, first, second, want, why)
        _same(fn, second, first, want, "the same question in the other order")


def test_task3_normalised_text_and_anchors():
    fn = function(load(LESSON), "same_passage")
    pol = dict(canonical="pol")
    _same(fn, _c("a", text="Closed  on\nSundays.", **pol), _c("b", text="closed on Sundays.", copy="mirror", **pol),
          True, "case and runs of whitespace are what copying changes: compare normalised_text()")
    # The two spellings of é look alike when printed: say which is which.
    _same(fn, Shown("a: 'Caf\u00e9 closed.' (one code point)", _c("a", text="Caf\u00e9 closed.", **pol)),
          Shown("b: 'Cafe\u0301 closed.' (e + accent), both of pol", _c("b", text="Cafe\u0301 closed.", **pol)),
          True, "the same letters in two Unicode forms: normalised_text() composes both (NFC)")
    _same(fn, _c("a", text="Closed on Sundays.", **pol), _c("b", text="Closed on Saturdays.", **pol),
          False, "different words are a different passage")
    _same(fn, _c("a", text="x", anchor="§3", **pol), _c("b", text="y", anchor="§3", copy="export", **pol),
          True, "the same declared place in one document")
    _same(fn, _c("a", text="same", anchor="§1", **pol), _c("b", text="same", anchor="§2", **pol),
          True, "equal normalised text is enough on its own")
    _same(fn, _c("a", text="x", **pol), _c("b", text="y", **pol),
          False, "two empty anchors declare no place at all")


def test_task3_only_declared_copies():
    fn = function(load(LESSON), "same_passage")
    _same(fn, _c("a", "guide.md", text="same"), _c("b", "faq.md", text="same"), False,
          "no copy relation is declared: that is exact-text dedupe's business (Task 2), not this rule's")
    _same(fn, _c("a", text="same", canonical="pol-1", anchor="§1"), _c("b", text="same", canonical="pol-2",
                                                                         anchor="§1"),
          False, "two documents, two passages")


# ---------------------------------------------------------------- Task 4

def _canonical(fn, chunks: Shown):
    got, shown = call_shown(fn, chunks)
    expect_true(isinstance(got, CanonicalDedupe),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: a CanonicalDedupe")
    return got, shown


def test_task4_lesson_case():
    fn = function(load(LESSON), "dedupe_canonical")
    got, shown = _canonical(fn, Shown("CANONICAL_CASE from modules.dedupe", CANONICAL_CASE))
    expect(_ids(got.kept), ("printing-export", "returns-primary", "hours-primary", "returns-laptops"),
           shown + " -> kept ids",
           why="one copy of each passage: the returns rule's primary beats its mirror and export; printing has no "
               "primary, so its first-ranked copy (the export) stays; the laptop exception is another passage "
               "of the returns policy and stays too")
    expect(dict(got.dropped), {"returns-mirror": "returns-primary", "returns-export": "returns-primary",
                               "printing-mirror": "printing-export"}, shown + " -> dropped")


def test_task4_every_passage_of_a_document_stays():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("rule", "intranet/t", text="Trips are reimbursed.", canonical="t", anchor="§3"),
              _c("rule-m", "mirror/t", text="Trips are reimbursed.", canonical="t", copy="mirror"),
              _c("exception", "intranet/t", text="Unless booked before approval.", canonical="t", anchor="§4")]
    got, shown = _canonical(fn, Shown("[rule §3, rule-m: mirror of the rule, exception §4], all of document t",
                                      chunks))
    expect(_ids(got.kept), ("rule", "exception"), shown + " -> kept ids",
           why="one chunk per canonical document would drop the exception: the rule's mirror goes, the "
               "exception is a passage of its own")
    expect(dict(got.dropped), {"rule-m": "rule"}, shown + " -> dropped")


def test_task4_primary_wins_first_ranked_otherwise():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("m", "mirror/p", canonical="pol", copy="mirror", anchor="§1"),
              _c("p", "intranet/p", canonical="pol", anchor="§1"),
              _c("e", "export/p", canonical="pol", copy="export", anchor="§1")]
    got, shown = _canonical(fn, Shown("[m: mirror, p: primary, e: export], all at anchor §1 of pol", chunks))
    expect(_ids(got.kept), ("p",), shown + " -> kept ids", why="the primary copy stays even though the mirror ranks first")
    chunks = [_c("m1", "mirror/q", canonical="q", copy="mirror", anchor="§1"),
              _c("e1", "export/q", canonical="q", copy="export", anchor="§1"),
              _c("m2", "mirror2/q", canonical="q", copy="mirror", anchor="§1")]
    got, shown = _canonical(fn, Shown("[m1: mirror, e1: export, m2: mirror], all at anchor §1 of q", chunks))
    expect(_ids(got.kept), ("m1",), shown + " -> kept ids", why="no primary: keep the first-ranked copy, not the last")
    expect(dict(got.dropped), {"e1": "m1", "m2": "m1"}, shown + " -> dropped")


def test_task4_two_primaries_keep_the_first_ranked():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("m", "mirror/r", canonical="r", copy="mirror", anchor="§1"), _c("p1", "intranet/r", canonical="r",
                                                                                   anchor="§1"),
              _c("p2", "wiki/r", canonical="r", anchor="§1"), _c("e", "export/r", canonical="r", copy="export",
                                                                 anchor="§1")]
    got, shown = _canonical(fn, Shown("[m: mirror, p1: primary, p2: primary, e: export], all at anchor §1 of r",
                                      chunks))
    expect(_ids(got.kept), ("p1",), shown + " -> kept ids",
           why="two copies claim to be primary: the first-ranked primary (p1) stays")
    expect(dict(got.dropped), {"m": "p1", "p2": "p1", "e": "p1"}, shown + " -> dropped")


def test_task4_copies_of_copies_are_copies():
    fn = function(load(LESSON), "dedupe_canonical")
    mirror = _c("m", "mirror/s", text="Return books to the box.", canonical="s", copy="mirror")
    export = _c("e", "export/s", text="EXPORT. Return books to the box.", canonical="s", copy="export", anchor="§1")
    primary = _c("p", "intranet/s", text="Return books to the box.", canonical="s", anchor="§1")
    got, shown = _canonical(fn, Shown("[m: mirror, same text as p; e: export at §1 with a header; p: primary at §1]",
                                      [mirror, export, primary]))
    expect(_ids(got.kept), ("p",), shown + " -> kept ids",
           why="m matches p by text and e matches p by anchor, so all three are one passage, even though m and e "
               "match each other by neither")
    expect(dict(got.dropped), {"m": "p", "e": "p"}, shown + " -> dropped")
    got, shown = _canonical(fn, Shown("[e: export at §1 with a header; p: primary at §1; m: mirror, same text as p]",
                                      [export, primary, mirror]))
    expect(dict(got.dropped), {"e": "p", "m": "p"}, shown + " -> dropped",
           why="m matches p, a later member of e's passage, by text: compare with every copy of a passage, "
               "not only its first")
    got, shown = _canonical(fn, Shown("[m: mirror, e: export at §1 with a header], no primary retrieved",
                                      [mirror, export]))
    expect(_ids(got.kept), ("m", "e"), shown + " -> kept ids",
           why="without the primary nothing links them: no shared anchor, different texts")


def test_task4_only_declared_copies_collapse():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("a1", "guide.md", text="same"), _c("b1", "faq.md"), _c("a2", "guide.md", text="same"),
              _c("x", "site/x", canonical="guide", copy="mirror", anchor="§1"),
              _c("y", "guide.md", canonical="guide", anchor="§1")]
    got, shown = _canonical(fn, Shown("[a1 and a2 from guide.md (no canonical_id), b1, x: mirror at §1 of guide, "
                                      "y: primary at §1]", chunks))
    expect(_ids(got.kept), ("a1", "b1", "a2", "y"), shown + " -> kept ids",
           why="only chunks that share a canonical_id are copies; a chunk without one is left alone, even "
               "if its text repeats (that is exact-text dedupe, Task 2)")
    expect(dict(got.dropped), {"x": "y"}, shown + " -> dropped")


# ---------------------------------------------------------------- Task 5

def _lines(chunk: RetrievedChunk) -> Shown:
    return Shown(f"{chunk.id} {chunk.source} {chunk.start_line}-{chunk.end_line}", chunk)


def _overlap(fn, a, b, want, why):
    expect_call(fn, _lines(a), _lines(b), want=want, why=why)


def test_task5_inclusive_ranges():
    fn = function(load(LESSON), "lines_overlap")
    one, two, three, four, five = OVERLAP_CASE
    _overlap(fn, one, two, True, "12-29 and 26-34 share lines 26 to 29")
    _overlap(fn, two, one, True, "overlap does not depend on argument order")
    _overlap(fn, three, four, False, "12-24 and 25-33 are adjacent: line 24 then line 25, nothing shared")
    _overlap(fn, four, three, False, "adjacent in either order")
    _overlap(fn, _c("a", start=12, end=24), _c("b", start=24, end=30), True, "both ranges include line 24")
    _overlap(fn, _c("a", start=7, end=7), _c("b", start=7, end=7), True, "a one-line range overlaps itself")
    _overlap(fn, _c("a", start=1, end=50), _c("b", start=10, end=12), True, "one range inside the other")


def test_task5_different_files_never_overlap():
    fn = function(load(LESSON), "lines_overlap")
    _overlap(fn, OVERLAP_CASE[3], OVERLAP_CASE[4], False, "lines 25-33 and 32-35 of different files are different lines")


# ---------------------------------------------------------------- Task 6

def _ranges(chunks) -> Shown:
    # id, lines and score of each chunk; the file too where it is not the first chunk's.
    return Shown("[" + ", ".join(f"{c.id}{'' if c.source == chunks[0].source else ': ' + c.source} "
                                 f"{c.start_line}-{c.end_line} ({c.score})" for c in chunks) + "]", chunks)


def _select(fn, chunks: Shown):
    got, shown = call_shown(fn, chunks)
    expect_true(isinstance(got, OverlapSelection),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: an OverlapSelection")
    return (_ids(got.selected), dict(got.rejected)), shown


def test_task6_lesson_case():
    fn = function(load(LESSON), "select_non_overlapping")
    (selected, rejected), shown = _select(fn, Shown("OVERLAP_CASE from modules.dedupe", OVERLAP_CASE))
    expect(selected, ("chunk-0001", "chunk-0003", "chunk-0004", "chunk-0005"), shown + " -> selected ids",
           why="4 of 5 selected: the adjacent deployment-guide chunks both stay")
    expect(rejected, {"chunk-0002": "overlapping_lines_with:chunk-0001"}, shown + " -> rejected")


def test_task6_input_order_does_not_matter():
    fn = function(load(LESSON), "select_non_overlapping")
    forward, _shown = _select(fn, Shown("<five candidates>", OVERLAP_CASE))
    backward, shown = _select(fn, Shown("<the same five candidates, reversed>", tuple(reversed(OVERLAP_CASE))))
    expect(backward, forward, shown,
           why="rank by score, not by arrival: the lower-scored chunk-0002 must lose in any order")


def test_task6_ties_are_broken_by_id():
    fn = function(load(LESSON), "select_non_overlapping")
    b, a = _c("b", "f.md", score=0.7, start=1, end=10), _c("a", "f.md", score=0.7, start=5, end=15)
    for order in ([b, a], [a, b]):
        got, shown = _select(fn, _ranges(order))
        expect(got, (("a",), {"b": "overlapping_lines_with:a"}), shown,
               why="equal scores: the tie goes to the smaller id, 'a', in every input order")


def test_task6_reason_names_the_selected_chunk():
    fn = function(load(LESSON), "select_non_overlapping")
    chunks = [_c("low", "f.md", score=0.2, start=5, end=25), _c("top", "f.md", score=0.9, start=1, end=10),
              _c("mid", "f.md", score=0.5, start=20, end=30), _c("far", "g.md", score=0.1, start=5, end=25)]
    got, shown = _select(fn, _ranges(chunks))
    expect(got, (("top", "mid", "far"), {"low": "overlapping_lines_with:top"}), shown,
           why="low overlaps top and mid; name the highest-ranked one it overlaps. far is another file")


def test_task6_huge_line_numbers():
    fn = function(load(LESSON), "select_non_overlapping")
    chunks = [_c("whole", "big.md", score=0.9, start=1, end=10 ** 9), _c("tail", "big.md", score=0.8,
                                                                            start=10 ** 9, end=10 ** 9 + 5),
              _c("after", "big.md", score=0.7, start=10 ** 9 + 6, end=2 * 10 ** 9)]
    got, shown = _select(fn, Shown("[whole: lines 1-10**9, tail: 10**9-(10**9 + 5), after: (10**9 + 6)-(2 * 10**9)]",
                                   chunks))
    expect(got, (("whole", "after"), {"tail": "overlapping_lines_with:whole"}), shown,
           why="compare the ranges' ends, never the lines one by one: whole and tail share line 10**9, "
               "after starts right behind tail")


# ---------------------------------------------------------------- Task 7

def test_task7_canonical_quiz():
    expect_choice(LESSON, "CANONICAL_QUIZ", "b", 7, "Reread the lesson's part on canonical documents")
