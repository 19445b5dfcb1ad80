"""Grader for lesson 03, dedupe. Run: python3 -B methods.py check dedupe"""

from _lab import Task, call, expect, expect_choice, expect_error, expect_true, function, load
from modules.dedupe import (CANONICAL_CASE, ID_CASE, ID_CONFLICT, OVERLAP_CASE, TEXT_CASE, CanonicalDedupe, Chunk,
                            OverlapSelection, TextDedupe)

LESSON = "dedupe"

TASKS = (
    Task(1, "dedupe_ids", "Collapse repeated ids, refuse conflicting ones", hints=(
        "When one id arrives twice with the same content, which copy keeps its place: the first or the last?",
        "When one id arrives with a different text or source, which of the two is right? Can the code know?",
        "Remember the first chunk per id in a dict. For a repeat, compare every field in IDENTITY_FIELDS; on the "
        "first difference raise ValueError(f\"id {id!r} appears twice with a different {field}\").",
    )),
    Task(2, "dedupe_text", "Exact-text dedupe", hints=(
        "Two chunks that overlap share most of their words. Are their texts equal?",
        "Which data structure maps a text to the first id that carried it?",
        "Walk in order: if chunk.text is already in the dict, record chunk.id -> first id; else remember it and "
        "keep the chunk. No lower-casing, no stripping.",
    )),
    Task(3, "same_passage", "Copies of one passage, not of one document", hints=(
        "A policy's rule and, in the next chunk, its exception share a canonical_id. Are they copies of each other?",
        "A mirror copied a passage with other line breaks; an export put a header in front of it. Which of "
        "anchor and normalised text still matches in each case?",
        "False unless both canonical_ids are equal and non-empty; then True if both anchors are equal and "
        "non-empty, else compare normalised_text(a.text) with normalised_text(b.text).",
    )),
    Task(4, "dedupe_canonical", "One copy of each passage", hints=(
        "Three copies of one policy's rule and one chunk of its exception: how many passages is that? "
        "How many should stay?",
        "The export matches the primary by anchor, the mirror matches it by text, but the mirror and the "
        "export match each other by neither. Are they still copies of one passage?",
        "Walk the chunks: merge every passage group the chunk is the same_passage() of, plus the chunk, into "
        "one group. In each group keep min(group, key=(copy != 'primary', rank)); map every other id to it.",
    )),
    Task(5, "lines_overlap", "Overlap on 1-based inclusive line ranges", hints=(
        "Do 12-24 and 25-33 share a line? Do 12-24 and 24-30?",
        "Two ranges are disjoint when one ends before the other starts. What is the negation of that?",
        "Same source, and a.start_line <= b.end_line and b.start_line <= a.end_line.",
    )),
    Task(6, "select_non_overlapping", "Select without overlaps, whatever the input order", hints=(
        "If the candidates arrive reversed, does your loop see a different chunk first?",
        "sorted() is stable: with equal scores, who comes first? What second key makes the order total?",
        "Sort by (-score, id); walk the ranking keeping a list of selected chunks; reject a chunk that "
        "lines_overlap()s any selected one with 'overlapping_lines_with:<that id>', else select it.",
    )),
    Task(7, "CANONICAL_QUIZ", "Quiz: three copies, one source", hints=(
        "Where did each of the three chunks come from originally?",
        "If one person says something three times, how many witnesses is that?",
        "And would keeping one chunk of that document fix the count without losing anything it says elsewhere?",
    )),
)


def _ids(chunks) -> tuple:
    return tuple(c.id for c in chunks)


def _c(cid, source="doc", text=None, score=0.5, start=1, end=1, canonical="", copy="primary", anchor="") -> Chunk:
    return Chunk(cid, source, text if text is not None else f"text of {cid}", score, canonical, copy, start, end,
                 anchor)


# ---------------------------------------------------------------- Task 1

def test_task1_identical_copies_collapse_to_the_first():
    fn = function(load(LESSON), "dedupe_ids")
    shown = "dedupe_ids(<the lesson's returns-v1, hours-v2, returns-v1 again>)"
    got = call(fn, ID_CASE, shown=shown)
    expect(_ids(got), ("returns-v1", "hours-v2"), shown + " -> ids",
           why="the second returns-v1 is an identical copy: drop it and keep the first in its place")
    expect_true(got[0] is ID_CASE[0], f"called {shown}\n  kept the copy scored {got[0].score}, expected the "
                                      f"first-ranked copy (score {ID_CASE[0].score})")
    a, b = _c("a"), _c("b")
    shown = "dedupe_ids([a, b, a])"
    expect(_ids(call(fn, [a, b, a], shown=shown)), ("a", "b"), shown,
           why="keep the first copy where it stands; keeping the last would move a behind b")


def test_task1_a_different_text_is_an_error_naming_id_and_field():
    fn = function(load(LESSON), "dedupe_ids")
    shown = "dedupe_ids(<the lesson's case plus a returns-v1 with another text>)"
    try:
        fn(ID_CONFLICT)
    except NotImplementedError:
        raise AssertionError(f"dedupe_ids is not written yet (called {shown})") from None
    except ValueError as error:
        message = str(error)
        expect_true("returns-v1" in message and "text" in message,
                    f"called {shown}\n  it raised ValueError({message!r})\n  expected: a message naming the id "
                    f"'returns-v1' and the differing field 'text'")
        return
    except Exception as error:
        raise AssertionError(f"called {shown}\n  it raised {type(error).__name__}: {error}\n  expected: ValueError")
    raise AssertionError(f"called {shown}\n  it returned normally\n  expected: ValueError naming 'returns-v1' and "
                         f"'text' (one of the two copies is wrong, and the code cannot tell which)")


def test_task1_provenance_counts_score_does_not():
    fn = function(load(LESSON), "dedupe_ids")
    expect_error(ValueError, fn, [_c("a", source="wiki"), _c("a", source="mirror")],
                 shown="dedupe_ids([a from wiki, a from mirror])", why="same id, different source: a provenance conflict")
    expect_error(ValueError, fn, [_c("a", start=1, end=9), _c("a", start=5, end=9)],
                 shown="dedupe_ids([a lines 1-9, a lines 5-9])", why="same id, different lines")
    expect_error(ValueError, fn, [_c("a", anchor="§1"), _c("a", anchor="§2")],
                 shown="dedupe_ids([a at anchor §1, a at anchor §2])", why="same id, another place in its document")
    shown = "dedupe_ids([a scored 0.9, a scored 0.4])"
    got = call(fn, [_c("a", score=0.9), _c("a", score=0.4)], shown=shown)
    expect(tuple(c.score for c in got), (0.9,), shown + " -> scores",
           why="two channels may score one chunk differently; it is still the same chunk, keep the first")


# ---------------------------------------------------------------- Task 2

def _text(fn, chunks, shown):
    got = call(fn, chunks, shown=shown)
    expect_true(isinstance(got, TextDedupe), f"called {shown}\n  got a {type(got).__name__}\n  expected: a TextDedupe")
    return got


def test_task2_lesson_case():
    fn = function(load(LESSON), "dedupe_text")
    shown = "dedupe_text(<the lesson's hours-v2, news-17, hours-w1, hours-w2>)"
    got = _text(fn, TEXT_CASE, shown)
    expect(_ids(got.kept), ("hours-v2", "hours-w1", "hours-w2"), shown + " -> kept ids",
           why="news-17 repeats hours-v2 word for word; hours-w1 and hours-w2 overlap but differ, so both stay")
    expect(tuple(got.duplicate_text_ids), ("news-17",), shown + " -> duplicate_text_ids")
    expect(dict(got.duplicate_of), {"news-17": "hours-v2"}, shown + " -> duplicate_of")


def test_task2_keep_the_first_not_the_last():
    fn = function(load(LESSON), "dedupe_text")
    chunks = [_c("a", text="same"), _c("b", text="other"), _c("c", text="same")]
    shown = "dedupe_text([a:'same', b:'other', c:'same'])"
    got = _text(fn, chunks, shown)
    expect(_ids(got.kept), ("a", "b"), shown + " -> kept ids", why="a ranks first, so a stays and c is the duplicate")
    expect(tuple(got.duplicate_text_ids), ("c",), shown + " -> duplicate_text_ids")
    expect(dict(got.duplicate_of), {"c": "a"}, shown + " -> duplicate_of")


def test_task2_exact_means_exact():
    fn = function(load(LESSON), "dedupe_text")
    chunks = [_c("a", text="Closed on Sundays."), _c("b", text="closed on Sundays."), _c("c", text="Closed on Sundays. "),
              _c("d", text="Closed on Sundays. Open at 8:30.")]
    shown = "dedupe_text([a:'Closed on Sundays.', b:'closed on Sundays.', c:'Closed on Sundays. ', d:'Closed on Sundays. Open at 8:30.'])"
    got = _text(fn, chunks, shown)
    expect(_ids(got.kept), ("a", "b", "c", "d"), shown + " -> kept ids",
           why="no two texts are exactly equal (case, a trailing space, one text containing another all count)")
    expect(tuple(got.duplicate_text_ids), (), shown + " -> duplicate_text_ids")


# ---------------------------------------------------------------- Task 3

BY_ID = {c.id: c for c in CANONICAL_CASE}


def _same(fn, a, b, want, label, why):
    shown = f"same_passage({label})"
    expect(call(fn, a, b, shown=shown), want, shown, why=why)


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
        _same(fn, BY_ID[a], BY_ID[b], want, f"<{a}>, <{b}>", why)
        _same(fn, BY_ID[b], BY_ID[a], want, f"<{b}>, <{a}>", "the same question in the other order")


def test_task3_normalised_text_and_anchors():
    fn = function(load(LESSON), "same_passage")
    pol = dict(canonical="pol")
    _same(fn, _c("a", text="Closed  on\nSundays.", **pol), _c("b", text="closed on Sundays.", copy="mirror", **pol),
          True, "a: 'Closed  on\\nSundays.', b: 'closed on Sundays.' (one document, no anchors)",
          "case and runs of whitespace are what copying changes: compare normalised_text()")
    _same(fn, _c("a", text="Caf\u00e9 closed.", **pol), _c("b", text="Cafe\u0301 closed.", **pol),
          True, "a: 'Caf\u00e9 closed.' (one code point), b: 'Cafe\u0301 closed.' (e + accent)",
          "the same letters in two Unicode forms: normalised_text() composes both (NFC)")
    _same(fn, _c("a", text="Closed on Sundays.", **pol), _c("b", text="Closed on Saturdays.", **pol),
          False, "a: 'Closed on Sundays.', b: 'Closed on Saturdays.' (one document, no anchors)",
          "different words are a different passage")
    _same(fn, _c("a", text="x", anchor="§3", **pol), _c("b", text="y", anchor="§3", copy="export", **pol),
          True, "a and b at anchor §3 of pol, texts 'x' and 'y'", "the same declared place in one document")
    _same(fn, _c("a", text="same", anchor="§1", **pol), _c("b", text="same", anchor="§2", **pol),
          True, "a at §1 and b at §2 of pol, both with text 'same'", "equal normalised text is enough on its own")
    _same(fn, _c("a", text="x", **pol), _c("b", text="y", **pol),
          False, "a and b of pol, no anchors, texts 'x' and 'y'", "two empty anchors declare no place at all")


def test_task3_only_declared_copies():
    fn = function(load(LESSON), "same_passage")
    _same(fn, _c("a", "guide.md", text="same"), _c("b", "faq.md", text="same"), False,
          "a and b with text 'same' and no canonical_id", "no copy relation is declared: that is exact-text "
                                                           "dedupe's business (Task 2), not this rule's")
    _same(fn, _c("a", text="same", canonical="pol-1", anchor="§1"), _c("b", text="same", canonical="pol-2",
                                                                         anchor="§1"),
          False, "a of pol-1 and b of pol-2, both anchor §1 and text 'same'", "two documents, two passages")


# ---------------------------------------------------------------- Task 4

def _canonical(fn, chunks, shown):
    got = call(fn, chunks, shown=shown)
    expect_true(isinstance(got, CanonicalDedupe),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: a CanonicalDedupe")
    return got


def test_task4_lesson_case():
    fn = function(load(LESSON), "dedupe_canonical")
    shown = "dedupe_canonical(<the lesson's seven chunks of three policies>)"
    got = _canonical(fn, CANONICAL_CASE, shown)
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
    shown = "dedupe_canonical([rule §3, rule-m: mirror of the rule, exception §4], all of document t)"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("rule", "exception"), shown + " -> kept ids",
           why="one chunk per canonical document would drop the exception: the rule's mirror goes, the "
               "exception is a passage of its own")
    expect(dict(got.dropped), {"rule-m": "rule"}, shown + " -> dropped")


def test_task4_primary_wins_first_ranked_otherwise():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("m", "mirror/p", canonical="pol", copy="mirror", anchor="§1"),
              _c("p", "intranet/p", canonical="pol", anchor="§1"),
              _c("e", "export/p", canonical="pol", copy="export", anchor="§1")]
    shown = "dedupe_canonical([m: mirror, p: primary, e: export], all at anchor §1 of pol)"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("p",), shown + " -> kept ids", why="the primary copy stays even though the mirror ranks first")
    chunks = [_c("m1", "mirror/q", canonical="q", copy="mirror", anchor="§1"),
              _c("e1", "export/q", canonical="q", copy="export", anchor="§1"),
              _c("m2", "mirror2/q", canonical="q", copy="mirror", anchor="§1")]
    shown = "dedupe_canonical([m1: mirror, e1: export, m2: mirror], all at anchor §1 of q)"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("m1",), shown + " -> kept ids", why="no primary: keep the first-ranked copy, not the last")
    expect(dict(got.dropped), {"e1": "m1", "m2": "m1"}, shown + " -> dropped")


def test_task4_two_primaries_keep_the_first_ranked():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("m", "mirror/r", canonical="r", copy="mirror", anchor="§1"), _c("p1", "intranet/r", canonical="r",
                                                                                   anchor="§1"),
              _c("p2", "wiki/r", canonical="r", anchor="§1"), _c("e", "export/r", canonical="r", copy="export",
                                                                 anchor="§1")]
    shown = "dedupe_canonical([m: mirror, p1: primary, p2: primary, e: export], all at anchor §1 of r)"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("p1",), shown + " -> kept ids",
           why="two copies claim to be primary: the first-ranked primary (p1) stays")
    expect(dict(got.dropped), {"m": "p1", "p2": "p1", "e": "p1"}, shown + " -> dropped")


def test_task4_copies_of_copies_are_copies():
    fn = function(load(LESSON), "dedupe_canonical")
    mirror = _c("m", "mirror/s", text="Return books to the box.", canonical="s", copy="mirror")
    export = _c("e", "export/s", text="EXPORT. Return books to the box.", canonical="s", copy="export", anchor="§1")
    primary = _c("p", "intranet/s", text="Return books to the box.", canonical="s", anchor="§1")
    shown = "dedupe_canonical([m: mirror, same text as p; e: export at §1 with a header; p: primary at §1])"
    got = _canonical(fn, [mirror, export, primary], shown)
    expect(_ids(got.kept), ("p",), shown + " -> kept ids",
           why="m matches p by text and e matches p by anchor, so all three are one passage, even though m and e "
               "match each other by neither")
    expect(dict(got.dropped), {"m": "p", "e": "p"}, shown + " -> dropped")
    shown = "dedupe_canonical([e: export at §1 with a header; p: primary at §1; m: mirror, same text as p])"
    got = _canonical(fn, [export, primary, mirror], shown)
    expect(dict(got.dropped), {"e": "p", "m": "p"}, shown + " -> dropped",
           why="m matches p, a later member of e's passage, by text: compare with every copy of a passage, "
               "not only its first")
    shown = "dedupe_canonical([m: mirror, e: export at §1 with a header]) (no primary retrieved)"
    got = _canonical(fn, [mirror, export], shown)
    expect(_ids(got.kept), ("m", "e"), shown + " -> kept ids",
           why="without the primary nothing links them: no shared anchor, different texts")


def test_task4_only_declared_copies_collapse():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("a1", "guide.md", text="same"), _c("b1", "faq.md"), _c("a2", "guide.md", text="same"),
              _c("x", "site/x", canonical="guide", copy="mirror", anchor="§1"),
              _c("y", "guide.md", canonical="guide", anchor="§1")]
    shown = "dedupe_canonical([a1 and a2 from guide.md (no canonical_id), b1, x: mirror at §1 of guide, y: primary at §1])"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("a1", "b1", "a2", "y"), shown + " -> kept ids",
           why="only chunks that share a canonical_id are copies; a chunk without one is left alone, even "
               "if its text repeats (that is exact-text dedupe, Task 2)")
    expect(dict(got.dropped), {"x": "y"}, shown + " -> dropped")


# ---------------------------------------------------------------- Task 5

def _overlap(fn, a, b, want, why):
    shown = (f"lines_overlap({a.id} {a.source} {a.start_line}-{a.end_line}, "
             f"{b.id} {b.source} {b.start_line}-{b.end_line})")
    expect(call(fn, a, b, shown=shown), want, shown, why=why)


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

def _select(fn, chunks, shown):
    got = call(fn, chunks, shown=shown)
    expect_true(isinstance(got, OverlapSelection),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: an OverlapSelection")
    return _ids(got.selected), dict(got.rejected)


def test_task6_lesson_case():
    fn = function(load(LESSON), "select_non_overlapping")
    shown = "select_non_overlapping(<the lesson's five candidates>)"
    selected, rejected = _select(fn, OVERLAP_CASE, shown)
    expect(selected, ("chunk-0001", "chunk-0003", "chunk-0004", "chunk-0005"), shown + " -> selected ids",
           why="4 of 5 selected: the adjacent deployment-guide chunks both stay")
    expect(rejected, {"chunk-0002": "overlapping_lines_with:chunk-0001"}, shown + " -> rejected")


def test_task6_input_order_does_not_matter():
    fn = function(load(LESSON), "select_non_overlapping")
    forward = _select(fn, OVERLAP_CASE, "select_non_overlapping(<five candidates>)")
    shown = "select_non_overlapping(<the same five candidates, reversed>)"
    expect(_select(fn, tuple(reversed(OVERLAP_CASE)), shown), forward, shown,
           why="rank by score, not by arrival: the lower-scored chunk-0002 must lose in any order")


def test_task6_ties_are_broken_by_id():
    fn = function(load(LESSON), "select_non_overlapping")
    b, a = _c("b", "f.md", score=0.7, start=1, end=10), _c("a", "f.md", score=0.7, start=5, end=15)
    for order, label in (([b, a], "[b, a]"), ([a, b], "[a, b]")):
        shown = f"select_non_overlapping({label}) with equal scores 0.7, lines 1-10 (b) and 5-15 (a)"
        expect(_select(fn, order, shown), (("a",), {"b": "overlapping_lines_with:a"}), shown,
               why="equal scores: the tie goes to the smaller id, 'a', in every input order")


def test_task6_reason_names_the_selected_chunk():
    fn = function(load(LESSON), "select_non_overlapping")
    chunks = [_c("low", "f.md", score=0.2, start=5, end=25), _c("top", "f.md", score=0.9, start=1, end=10),
              _c("mid", "f.md", score=0.5, start=20, end=30), _c("far", "g.md", score=0.1, start=5, end=25)]
    shown = "select_non_overlapping([low 5-25 (0.2), top 1-10 (0.9), mid 20-30 (0.5), far: g.md 5-25 (0.1)])"
    expect(_select(fn, chunks, shown), (("top", "mid", "far"), {"low": "overlapping_lines_with:top"}), shown,
           why="low overlaps top and mid; name the highest-ranked one it overlaps. far is another file")


def test_task6_huge_line_numbers():
    fn = function(load(LESSON), "select_non_overlapping")
    chunks = [_c("whole", "big.md", score=0.9, start=1, end=10 ** 9), _c("tail", "big.md", score=0.8,
                                                                            start=10 ** 9, end=10 ** 9 + 5),
              _c("after", "big.md", score=0.7, start=10 ** 9 + 6, end=2 * 10 ** 9)]
    shown = "select_non_overlapping([whole: lines 1-10**9, tail: 10**9-(10**9 + 5), after: (10**9 + 6)-(2 * 10**9)])"
    expect(_select(fn, chunks, shown), (("whole", "after"), {"tail": "overlapping_lines_with:whole"}), shown,
           why="compare the ranges' ends, never the lines one by one: whole and tail share line 10**9, "
               "after starts right behind tail")


# ---------------------------------------------------------------- Task 7

def test_task7_canonical_quiz():
    expect_choice(LESSON, "CANONICAL_QUIZ", "c", 7, "Reread the lesson's part on canonical documents")
