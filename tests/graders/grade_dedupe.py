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
    Task(3, "dedupe_canonical", "One chunk per canonical document", hints=(
        "Three copies of one policy: how many documents is that? What key do the copies share?",
        "Which copy should survive when the primary ranks below a mirror: the better-ranked or the primary?",
        "First pass: per canonical_id choose the primary if there is one, else the first seen (a chunk with no "
        "canonical_id is its own group). "
        "Second pass: keep each chunk that is its key's choice, map every other id to the chosen id.",
    )),
    Task(4, "lines_overlap", "Overlap on 1-based inclusive line ranges", hints=(
        "Do 12-24 and 25-33 share a line? Do 12-24 and 24-30?",
        "Two ranges are disjoint when one ends before the other starts. What is the negation of that?",
        "Same source, and a.start_line <= b.end_line and b.start_line <= a.end_line.",
    )),
    Task(5, "select_non_overlapping", "Select without overlaps, whatever the input order", hints=(
        "If the candidates arrive reversed, does your loop see a different chunk first?",
        "sorted() is stable: with equal scores, who comes first? What second key makes the order total?",
        "Sort by (-score, id); walk the ranking keeping a list of selected chunks; reject a chunk that "
        "lines_overlap()s any selected one with 'overlapping_lines_with:<that id>', else select it.",
    )),
    Task(6, "CANONICAL_QUIZ", "Quiz: three copies, one source", hints=(
        "Where did each of the three chunks come from originally?",
        "If one person says something three times, how many witnesses is that?",
    )),
)


def _ids(chunks) -> tuple:
    return tuple(c.id for c in chunks)


def _c(cid, source="doc", text=None, score=0.5, start=1, end=1, canonical="", copy="primary") -> Chunk:
    return Chunk(cid, source, text if text is not None else f"text of {cid}", score, canonical, copy, start, end)


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

def _canonical(fn, chunks, shown):
    got = call(fn, chunks, shown=shown)
    expect_true(isinstance(got, CanonicalDedupe),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: a CanonicalDedupe")
    return got


def test_task3_lesson_case():
    fn = function(load(LESSON), "dedupe_canonical")
    shown = "dedupe_canonical(<the lesson's six copies of three policies>)"
    got = _canonical(fn, CANONICAL_CASE, shown)
    expect(_ids(got.kept), ("printing-export", "returns-primary", "hours-primary"), shown + " -> kept ids",
           why="one chunk per canonical document: the returns primary beats its mirror and export; printing "
               "has no primary, so its first-ranked copy (the export) stays")
    expect(dict(got.dropped), {"returns-mirror": "returns-primary", "returns-export": "returns-primary",
                               "printing-mirror": "printing-export"}, shown + " -> dropped")


def test_task3_primary_wins_first_ranked_otherwise():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("m", "mirror/p", canonical="pol", copy="mirror"), _c("p", "intranet/p", canonical="pol"),
              _c("e", "export/p", canonical="pol", copy="export")]
    shown = "dedupe_canonical([m: mirror of pol, p: primary of pol, e: export of pol])"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("p",), shown + " -> kept ids", why="the primary copy stays even though the mirror ranks first")
    chunks = [_c("m1", "mirror/q", canonical="q", copy="mirror"), _c("e1", "export/q", canonical="q", copy="export"),
              _c("m2", "mirror2/q", canonical="q", copy="mirror")]
    shown = "dedupe_canonical([m1: mirror of q, e1: export of q, m2: mirror of q])"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("m1",), shown + " -> kept ids", why="no primary: keep the first-ranked copy, not the last")
    expect(dict(got.dropped), {"e1": "m1", "m2": "m1"}, shown + " -> dropped")


def test_task3_two_primaries_keep_the_first_ranked():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("m", "mirror/r", canonical="r", copy="mirror"), _c("p1", "intranet/r", canonical="r"),
              _c("p2", "wiki/r", canonical="r"), _c("e", "export/r", canonical="r", copy="export")]
    shown = "dedupe_canonical([m: mirror of r, p1: primary of r, p2: primary of r, e: export of r])"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("p1",), shown + " -> kept ids",
           why="two copies claim to be primary: a primary never displaces one already chosen, so the "
               "first-ranked primary (p1) stays")
    expect(dict(got.dropped), {"m": "p1", "p2": "p1", "e": "p1"}, shown + " -> dropped")


def test_task3_only_declared_copies_collapse():
    fn = function(load(LESSON), "dedupe_canonical")
    chunks = [_c("a1", "guide.md", text="same"), _c("b1", "faq.md"), _c("a2", "guide.md", text="same"),
              _c("x", "site/x", canonical="guide", copy="mirror"), _c("y", "guide.md", canonical="guide")]
    shown = "dedupe_canonical([a1 and a2 from guide.md (no canonical_id), b1, x: mirror of guide, y: primary of guide])"
    got = _canonical(fn, chunks, shown)
    expect(_ids(got.kept), ("a1", "b1", "a2", "y"), shown + " -> kept ids",
           why="only chunks that share a canonical_id are copies; a chunk without one is left alone, even "
               "if its text repeats (that is exact-text dedupe, Task 2)")
    expect(dict(got.dropped), {"x": "y"}, shown + " -> dropped")


# ---------------------------------------------------------------- Task 4

def _overlap(fn, a, b, want, why):
    shown = (f"lines_overlap({a.id} {a.source} {a.start_line}-{a.end_line}, "
             f"{b.id} {b.source} {b.start_line}-{b.end_line})")
    expect(call(fn, a, b, shown=shown), want, shown, why=why)


def test_task4_inclusive_ranges():
    fn = function(load(LESSON), "lines_overlap")
    one, two, three, four, five = OVERLAP_CASE
    _overlap(fn, one, two, True, "12-29 and 26-34 share lines 26 to 29")
    _overlap(fn, two, one, True, "overlap does not depend on argument order")
    _overlap(fn, three, four, False, "12-24 and 25-33 are adjacent: line 24 then line 25, nothing shared")
    _overlap(fn, four, three, False, "adjacent in either order")
    _overlap(fn, _c("a", start=12, end=24), _c("b", start=24, end=30), True, "both ranges include line 24")
    _overlap(fn, _c("a", start=7, end=7), _c("b", start=7, end=7), True, "a one-line range overlaps itself")
    _overlap(fn, _c("a", start=1, end=50), _c("b", start=10, end=12), True, "one range inside the other")


def test_task4_different_files_never_overlap():
    fn = function(load(LESSON), "lines_overlap")
    _overlap(fn, OVERLAP_CASE[3], OVERLAP_CASE[4], False, "lines 25-33 and 32-35 of different files are different lines")


# ---------------------------------------------------------------- Task 5

def _select(fn, chunks, shown):
    got = call(fn, chunks, shown=shown)
    expect_true(isinstance(got, OverlapSelection),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: an OverlapSelection")
    return _ids(got.selected), dict(got.rejected)


def test_task5_lesson_case():
    fn = function(load(LESSON), "select_non_overlapping")
    shown = "select_non_overlapping(<the lesson's five candidates>)"
    selected, rejected = _select(fn, OVERLAP_CASE, shown)
    expect(selected, ("chunk-0001", "chunk-0003", "chunk-0004", "chunk-0005"), shown + " -> selected ids",
           why="4 of 5 selected: the adjacent deployment-guide chunks both stay")
    expect(rejected, {"chunk-0002": "overlapping_lines_with:chunk-0001"}, shown + " -> rejected")


def test_task5_input_order_does_not_matter():
    fn = function(load(LESSON), "select_non_overlapping")
    forward = _select(fn, OVERLAP_CASE, "select_non_overlapping(<five candidates>)")
    shown = "select_non_overlapping(<the same five candidates, reversed>)"
    expect(_select(fn, tuple(reversed(OVERLAP_CASE)), shown), forward, shown,
           why="rank by score, not by arrival: the lower-scored chunk-0002 must lose in any order")


def test_task5_ties_are_broken_by_id():
    fn = function(load(LESSON), "select_non_overlapping")
    b, a = _c("b", "f.md", score=0.7, start=1, end=10), _c("a", "f.md", score=0.7, start=5, end=15)
    for order, label in (([b, a], "[b, a]"), ([a, b], "[a, b]")):
        shown = f"select_non_overlapping({label}) with equal scores 0.7, lines 1-10 (b) and 5-15 (a)"
        expect(_select(fn, order, shown), (("a",), {"b": "overlapping_lines_with:a"}), shown,
               why="equal scores: the tie goes to the smaller id, 'a', in every input order")


def test_task5_reason_names_the_selected_chunk():
    fn = function(load(LESSON), "select_non_overlapping")
    chunks = [_c("low", "f.md", score=0.2, start=5, end=25), _c("top", "f.md", score=0.9, start=1, end=10),
              _c("mid", "f.md", score=0.5, start=20, end=30), _c("far", "g.md", score=0.1, start=5, end=25)]
    shown = "select_non_overlapping([low 5-25 (0.2), top 1-10 (0.9), mid 20-30 (0.5), far: g.md 5-25 (0.1)])"
    expect(_select(fn, chunks, shown), (("top", "mid", "far"), {"low": "overlapping_lines_with:top"}), shown,
           why="low overlaps top and mid; name the highest-ranked one it overlaps. far is another file")


# ---------------------------------------------------------------- Task 6

def test_task6_canonical_quiz():
    expect_choice(LESSON, "CANONICAL_QUIZ", "c", 6, "Reread the lesson's part on canonical documents")
