"""Grader for lesson 03, dedupe. Run: python3 -B methods.py check dedupe"""

from fractions import Fraction

from labtools.grading.harness import (manifest_tasks, call_shown, constant, expect, expect_call, expect_choice, expect_true, function,
                  load, Shown)
from modules.dedupe import (CANONICAL_CASE, ID_CASE, ID_CONFLICT, OVERLAP_CASE, TEXT_CASE, CanonicalDedupe,
                            RetrievedChunk, TextDedupe, select_non_overlapping)

LESSON = "dedupe"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


def _ids(chunks) -> tuple:
    return tuple(c.id for c in chunks)


def _c(cid, source="doc", text=None, score=0.5, start=1, end=1, canonical="", copy="primary", anchor="") -> RetrievedChunk:
    return RetrievedChunk(id=cid, source=source, text=text if text is not None else f"text of {cid}", score=score,
                          canonical_id=canonical, copy=copy, start_line=start, end_line=end, anchor=anchor)


# ---------------------------------------------------------------- Task 1

def _conflicts(fn, chunks, want, why=""):
    """id_conflicts' answer: a list or a tuple of (id, fields) pairs, fields a list or a tuple."""
    got, shown = call_shown(fn, chunks)
    readable = isinstance(got, (list, tuple)) and all(
        isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[1], (list, tuple)) for pair in got)
    expect_true(readable, f"called {shown}\n  got:      {got!r:.80}\n  expected: a list or a tuple of (id, fields) "
                          f"pairs, fields a list or a tuple of field names")
    expect(tuple((pair[0], tuple(pair[1])) for pair in got), want, shown, why=why)


def test_task1_the_lessons_two_cases():
    fn = function(load(LESSON), "id_conflicts")
    _conflicts(fn, Shown("ID_CASE from modules.dedupe", ID_CASE), want=(),
                why="the second returns-v1 is an identical copy (only its score differs): no conflict to report")
    _conflicts(fn, Shown("ID_CONFLICT from modules.dedupe", ID_CONFLICT), want=(("returns-v1", ("text",)),),
                why="a stale index holds another text under returns-v1: one id, two chunks")
    _conflicts(fn, [], want=(), why="nothing retrieved, nothing to report")


def test_task1_provenance_counts_score_does_not():
    fn = function(load(LESSON), "id_conflicts")
    _conflicts(fn, Shown("[a from wiki, a from mirror]", [_c("a", source="wiki"), _c("a", source="mirror")]),
                want=(("a", ("source",)),), why="same id, different source: a provenance conflict")
    _conflicts(fn, Shown("[a lines 1-9, a lines 5-9]", [_c("a", start=1, end=9), _c("a", start=5, end=9)]),
                want=(("a", ("start_line",)),), why="same id, different lines")
    _conflicts(fn, Shown("[a at anchor §1, a at anchor §2]", [_c("a", anchor="§1"), _c("a", anchor="§2")]),
                want=(("a", ("anchor",)),), why="same id, another place in its document")
    _conflicts(fn, Shown("[a as primary, a as mirror copy]", [_c("a", canonical="pol"), _c("a", canonical="pol",
                                                                                         copy="mirror")]),
                want=(("a", ("copy",)),), why="same id, but one claims to be the primary and the other a copy")
    _conflicts(fn, Shown("[a scored 0.9, a scored 0.4]", [_c("a", score=0.9), _c("a", score=0.4)]), want=(),
                why="two channels may score one chunk differently; it is still the same chunk")


def test_task1_every_differing_field_in_identity_order():
    fn = function(load(LESSON), "id_conflicts")
    _conflicts(fn, Shown("[a, a with another text from another source]",
                          [_c("a"), _c("a", source="mirror", text="other text")]),
                want=(("a", ("text", "source")),),
                why="report every field that differs, not only the first one dedupe_ids would name")
    _conflicts(fn, Shown("[a, a from mirror, a with another text]",
                          [_c("a"), _c("a", source="mirror"), _c("a", text="other text")]),
                want=(("a", ("text", "source")),),
                why="the second copy differs in source and the third in text: both fields, in the order of "
                    "IDENTITY_FIELDS (text comes first), not in the order they were found")
    _conflicts(fn, Shown("[a lines 1-2, a lines 3-4]", [_c("a", start=1, end=2), _c("a", start=3, end=4)]),
                want=(("a", ("start_line", "end_line")),), why="both ends of the line range moved")


def test_task1_every_id_in_order_of_first_appearance():
    fn = function(load(LESSON), "id_conflicts")
    a, b, c = _c("a"), _c("b"), _c("c")
    _conflicts(fn, Shown("[a, b, c, b from mirror, a with another text]",
                          [a, b, c, _c("b", source="mirror"), _c("a", text="other text")]),
                want=(("a", ("text",)), ("b", ("source",))),
                why="two ids conflict: list both (do not stop at the first), in the order a and b first appear")
    _conflicts(fn, Shown("[c, b, b from mirror, a, a]", [c, b, _c("b", source="mirror"), a, a]),
                want=(("b", ("source",)),),
                why="a arrives twice as the same chunk and c once: only b is listed")
    _conflicts(fn, Shown("[b, a, a with another text, b from mirror]",
                          [b, a, _c("a", text="other text"), _c("b", source="mirror")]),
                want=(("b", ("source",)), ("a", ("text",))),
                why="b appears before a, so b is listed first, whichever conflict was found first")


# ---------------------------------------------------------------- Task 2

def _texts(chunks) -> Shown:
    return Shown("[" + ", ".join(f"{c.id}:{c.text!r}" + (f" from {c.source}" if c.source != "doc" else "")
                                 for c in chunks) + "]", chunks)


def _text(fn, chunks: Shown, authority=()):
    got, shown = call_shown(fn, chunks, authority)
    expect_true(isinstance(got, TextDedupe), f"called {shown}\n  got a {type(got).__name__}\n  expected: a TextDedupe")
    return got, shown


def test_task2_lesson_case():
    fn = function(load(LESSON), "dedupe_text")
    got, shown = _text(fn, Shown("TEXT_CASE from modules.dedupe", TEXT_CASE))
    expect(_ids(got.kept), ("hours-v2", "hours-w1", "hours-w2"), shown + " -> kept ids",
           why="news-17 repeats hours-v2 word for word; hours-w1 and hours-w2 overlap but differ, so both stay")
    expect(tuple(got.duplicate_text_ids), ("news-17",), shown + " -> duplicate_text_ids")
    expect(dict(got.duplicate_of), {"news-17": "hours-v2"}, shown + " -> duplicate_of")


def test_task2_the_declared_authority_decides():
    fn = function(load(LESSON), "dedupe_text")
    chunks = [_c("news", "intranet-news", text="Open at 8:30."), _c("desk", "help-desk-hours", text="Open at 8:30."),
              _c("other", "intranet-news", text="Closed on Sundays.")]
    got, shown = _text(fn, _texts(chunks), ("help-desk-hours", "intranet-news"))
    expect(_ids(got.kept), ("desk", "other"), shown + " -> kept ids",
           why="help-desk-hours is declared more authoritative than intranet-news, so its copy stays although "
               "the news copy ranks first; the kept chunks stay in rank order")
    expect(dict(got.duplicate_of), {"news": "desk"}, shown + " -> duplicate_of")
    got, shown = _text(fn, _texts(chunks), ["faq"])
    expect(_ids(got.kept), ("news", "other"), shown + " -> kept ids",
           why="neither source is listed: both rank after every listed source, so the first-ranked copy stays "
               "(a list is accepted as well as a tuple)")


def test_task2_every_copy_points_at_the_kept_chunk():
    fn = function(load(LESSON), "dedupe_text")
    chunks = [_c("a", text="same"), _c("b", text="same"), _c("c", text="same")]
    got, shown = _text(fn, _texts(chunks))
    expect(dict(got.duplicate_of), {"b": "a", "c": "a"}, shown + " -> duplicate_of",
           why="c is a copy of the kept chunk a, not of b: b was dropped, so pointing c at b leaves a reader "
               "following a chain to a chunk that is not in the packet")
    chunks = [_c("a", "x", text="same"), _c("b", "y", text="same"), _c("c", "z", text="same")]
    got, shown = _text(fn, _texts(chunks), ("z",))
    expect(_ids(got.kept), ("c",), shown + " -> kept ids", why="z is the only listed source")
    expect(tuple(got.duplicate_text_ids), ("a", "b"), shown + " -> duplicate_text_ids",
           why="the dropped ids in their order in the input")
    expect(dict(got.duplicate_of), {"a": "c", "b": "c"}, shown + " -> duplicate_of")


def test_task2_ties_in_authority_keep_the_first():
    fn = function(load(LESSON), "dedupe_text")
    chunks = [_c("a", "wiki", text="same"), _c("b", "desk", text="other"), _c("c", "wiki", text="same"),
              _c("d", "desk", text="same")]
    got, shown = _text(fn, _texts(chunks), ("desk", "wiki", "desk"))
    expect(_ids(got.kept), ("b", "d"), shown + " -> kept ids",
           why="desk comes first (its repeat later in the list changes nothing); d is the desk copy of 'same', "
               "and the kept chunks stay in their order in the input (b before d)")
    expect(dict(got.duplicate_of), {"a": "d", "c": "d"}, shown + " -> duplicate_of")
    got, shown = _text(fn, _texts(chunks[:3]), ("desk",))
    expect(dict(got.duplicate_of), {"c": "a"}, shown + " -> duplicate_of",
           why="a and c come from the same (unlisted) source: the first-ranked one stays")


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
        ("returns-v1", "returns-export", True, "both declare anchor §1 of policy:returns; the export's header "
                                                "does not make it another passage"),
        ("returns-v1", "returns-mirror", True, "the mirror declares no anchor, but its text is the primary's "
                                                "with another line break: equal once normalised"),
        ("printing-export", "printing-mirror", True, "anchor §1 of policy:printing in both, though the words differ"),
        ("returns-v1", "returns-laptops", False, "one document, two passages: the drop-box rule (§1) and the "
                                                 "laptop exception (§2) are not copies of each other"),
        ("returns-export", "returns-mirror", False, "no shared anchor (the mirror declares none) and the export's "
                                                    "header makes the texts differ"),
        ("returns-v1", "hours-v2", False, "different canonical documents are never copies"),
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
    _same(fn, _c("a", text="Same  words.", anchor="§1", **pol), _c("b", text="same words.", anchor="§4", **pol),
          False, "both declare a place, and §1 is not §4: one sentence repeated in two sections is two passages, "
                 "though their words match (the lesson's rule would call them copies)")
    _same(fn, _c("a", text="Same  words.", anchor="§1", **pol), _c("b", text="same words.", copy="mirror", **pol),
          True, "only one declares an anchor: equal normalised text decides")
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

PRIMARY_FIRST = ("primary", "export", "mirror")


def _canonical(fn, chunks: Shown, preference=PRIMARY_FIRST):
    got, shown = call_shown(fn, chunks, preference)
    expect_true(isinstance(got, CanonicalDedupe),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: a CanonicalDedupe")
    return got, shown


def test_task4_lesson_case():
    fn = function(load(LESSON), "dedupe_canonical")
    got, shown = _canonical(fn, Shown("CANONICAL_CASE from modules.dedupe", CANONICAL_CASE))
    expect(_ids(got.kept), ("printing-export", "returns-v1", "hours-v2", "returns-laptops"),
           shown + " -> kept ids",
           why="one copy of each passage: the returns rule's primary beats its mirror and export; printing has no "
               "primary, so its export stays; the laptop exception is another passage of the returns policy and "
               "stays too")
    expect(dict(got.dropped), {"returns-mirror": "returns-v1", "returns-export": "returns-v1",
                               "printing-mirror": "printing-export"}, shown + " -> dropped")
    got, shown = _canonical(fn, Shown("CANONICAL_CASE from modules.dedupe", CANONICAL_CASE),
                            ["export", "primary", "mirror"])
    expect(_ids(got.kept), ("returns-export", "printing-export", "hours-v2", "returns-laptops"),
           shown + " -> kept ids",
           why="exports first: the returns rule keeps its export; the hours and the laptop exception have only "
               "a primary copy and keep it (a list is accepted as well as a tuple)")


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
    expect(_ids(got.kept), ("e1",), shown + " -> kept ids",
           why="no primary: the export comes next in the preference, although the mirror m1 ranks first")
    expect(dict(got.dropped), {"m1": "e1", "m2": "e1"}, shown + " -> dropped")
    got, shown = _canonical(fn, Shown("[m1: mirror, e1: export, m2: mirror], all at anchor §1 of q", chunks),
                            ("primary", "mirror"))
    expect(_ids(got.kept), ("m1",), shown + " -> kept ids",
           why="mirrors before the unlisted export: the first-ranked mirror stays, not the last")


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


def _share(fn, a, b, want, why):
    expect_call(fn, _lines(a), _lines(b), want=want, why=why)


def test_task5_the_lesson_case():
    fn = function(load(LESSON), "overlap_share")
    one, two, three, four, five = OVERLAP_CASE
    _share(fn, one, two, Fraction(4, 9), "12-29 and 26-34 share lines 26 to 29: 4 lines of the shorter chunk's 9 "
                                         "(26-34 is 9 lines, both ends included)")
    _share(fn, two, one, Fraction(4, 9), "the share does not depend on argument order")
    _share(fn, three, four, Fraction(0), "12-24 and 25-33 are adjacent: line 24 then line 25, nothing shared")
    _share(fn, four, five, Fraction(0), "lines 25-33 and 32-35 of different files are different lines")


def test_task5_inclusive_ranges():
    fn = function(load(LESSON), "overlap_share")
    _share(fn, _c("a", start=12, end=24), _c("b", start=24, end=30), Fraction(1, 7),
           "both ranges include line 24: 1 shared line of the 7 in 24-30")
    _share(fn, _c("a", start=7, end=7), _c("b", start=7, end=7), Fraction(1), "a one-line range shares its line")
    _share(fn, _c("a", start=1, end=50), _c("b", start=10, end=12), Fraction(1),
           "10-12 lies inside 1-50: all 3 of its lines are shared")
    _share(fn, _c("a", start=1, end=5), _c("b", start=10, end=20), Fraction(0),
           "1-5 and 10-20 of one file are far apart: they share no line (not a negative number of lines)")
    _share(fn, _c("a", start=1, end=4), _c("b", start=3, end=6), Fraction(1, 2),
           "3-4 is shared: 2 of 4 lines (the two chunks are equally long)")
    _share(fn, _c("a", start=1, end=10 ** 9), _c("b", start=10 ** 9, end=10 ** 9 + 9), Fraction(1, 10),
           "compare the ends, never the lines one by one: 1 shared line of 10")


# ---------------------------------------------------------------- Task 6

def _ranges(chunks) -> Shown:
    # id, lines and score of each chunk; the file too where it is not the first chunk's.
    return Shown("[" + ", ".join(f"{c.id}{'' if c.source == chunks[0].source else ': ' + c.source} "
                                 f"{c.start_line}-{c.end_line} ({c.score})" for c in chunks) + "]", chunks)


def _merge(fn, chunks: Shown):
    got, shown = call_shown(fn, chunks)
    expect_true(isinstance(got, (tuple, list)),
                f"called {shown}\n  got a {type(got).__name__}\n  expected: a list or a tuple of spans")
    spans = []
    for span in got:
        expect_true(isinstance(span, (tuple, list)) and len(span) == 4 and isinstance(span[3], (tuple, list)),
                    f"called {shown}\n  got the span {span!r:.80}\n  expected: a tuple or a list (source, "
                    f"start_line, end_line, ids) whose ids are a tuple or a list")
        spans.append((span[0], span[1], span[2], tuple(span[3])))
    return tuple(spans), shown


def test_task6_lesson_case():
    fn = function(load(LESSON), "merge_overlapping")
    got, shown = _merge(fn, Shown("OVERLAP_CASE from modules.dedupe", OVERLAP_CASE))
    expect(got, (("release-policy.md", 12, 34, ("chunk-0001", "chunk-0002")),
                 ("deployment-guide.md", 12, 24, ("chunk-0003",)), ("deployment-guide.md", 25, 33, ("chunk-0004",)),
                 ("service-config.md", 32, 35, ("chunk-0005",))), shown,
           why="chunk-0001 (12-29) and chunk-0002 (26-34) share 26-29: one span 12-34; the adjacent "
               "deployment-guide chunks stay two spans; spans in the rank of their best chunk")


def test_task6_input_order_does_not_matter():
    fn = function(load(LESSON), "merge_overlapping")
    forward, _shown = _merge(fn, Shown("<five candidates>", OVERLAP_CASE))
    backward, shown = _merge(fn, Shown("<the same five candidates, reversed>", tuple(reversed(OVERLAP_CASE))))
    expect(backward, forward, shown,
           why="rank by score, not by arrival: the spans and the ids inside them come out in rank order")


def test_task6_ties_are_broken_by_id():
    fn = function(load(LESSON), "merge_overlapping")
    b, a = _c("b", "f.md", score=0.7, start=1, end=10), _c("a", "f.md", score=0.7, start=5, end=15)
    c = _c("c", "g.md", score=0.7, start=1, end=2)
    for order in ([b, c, a], [c, a, b]):
        got, shown = _merge(fn, _ranges(order))
        expect(got, (("f.md", 1, 15, ("a", "b")), ("g.md", 1, 2, ("c",))), shown,
               why="equal scores: rank by id, so a comes before b and c, in every input order")


def test_task6_a_chunk_can_join_two_spans():
    fn = function(load(LESSON), "merge_overlapping")
    chunks = [_c("top", "f.md", score=0.9, start=1, end=10), _c("far", "f.md", score=0.8, start=20, end=30),
              _c("other", "g.md", score=0.6, start=5, end=25), _c("bridge", "f.md", score=0.5, start=8, end=22)]
    got, shown = _merge(fn, _ranges(chunks))
    expect(got, (("f.md", 1, 30, ("top", "far", "bridge")), ("g.md", 5, 25, ("other",))), shown,
           why="top and far share nothing, but bridge (8-22) overlaps both: one span 1-30; other is another file")
    chunks = [_c("top", "f.md", score=0.9, start=1, end=10), _c("far", "f.md", score=0.8, start=20, end=30),
              _c("near", "f.md", score=0.7, start=5, end=12), _c("bridge", "f.md", score=0.5, start=11, end=21)]
    got, shown = _merge(fn, _ranges(chunks))
    expect(got, (("f.md", 1, 30, ("top", "far", "near", "bridge")),), shown,
           why="near joins top's span, then bridge joins it with far's: the ids of a span are in rank order "
               "(far, 0.8, before near, 0.7), not in the order the spans were joined")
    chunks = [_c("a", "f.md", score=0.9, start=1, end=5), _c("b", "f.md", score=0.8, start=6, end=9),
              _c("c", "f.md", score=0.7, start=5, end=6)]
    got, shown = _merge(fn, _ranges(chunks))
    expect(got, (("f.md", 1, 9, ("a", "b", "c")),), shown,
           why="a (1-5) and b (6-9) are adjacent, but c shares line 5 with a and line 6 with b")


def test_task6_huge_line_numbers():
    fn = function(load(LESSON), "merge_overlapping")
    chunks = [_c("whole", "big.md", score=0.9, start=1, end=10 ** 9), _c("tail", "big.md", score=0.8,
                                                                            start=10 ** 9, end=10 ** 9 + 5),
              _c("after", "big.md", score=0.7, start=10 ** 9 + 6, end=2 * 10 ** 9)]
    got, shown = _merge(fn, Shown("[whole: lines 1-10**9, tail: 10**9-(10**9 + 5), after: (10**9 + 6)-(2 * 10**9)]",
                                  chunks))
    expect(got, (("big.md", 1, 10 ** 9 + 5, ("whole", "tail")), ("big.md", 10 ** 9 + 6, 2 * 10 ** 9, ("after",))),
           shown, why="compare the ranges' ends, never the lines one by one: whole and tail share line 10**9, "
                      "after starts right behind tail")


# ---------------------------------------------------------------- Task 7

CANONICAL_MISTAKES = {
    "b": "agreement among copies is one source said three times: it confirms nothing",
    "c": "a header does not make a copy independent: the export reproduces the same passage of one document",
    "d": "one chunk per canonical document would also drop that document's other passages (the laptop exception)",
}


def test_task7_canonical_quiz():
    answer = constant(load(LESSON), "CANONICAL_QUIZ")
    expect_true(answer not in CANONICAL_MISTAKES,
                f"CANONICAL_QUIZ = {answer!r}: {CANONICAL_MISTAKES.get(answer)}. Reread the lesson's part on "
                f"canonical documents, then try again (hint: python3 -B methods.py hint {LESSON} 7)")
    expect_choice(LESSON, "CANONICAL_QUIZ", "a", 7, "Reread the lesson's part on canonical documents")


# ---------------------------------------------------------------- Task 8

# The sixth candidate the task's comment shows: it overlaps only chunk-0002, which chunk-0001 already
# rejected, and starts right after chunk-0001 ends (29 then 30).
CHUNK_0006 = RetrievedChunk(id="chunk-0006", source="release-policy.md", text="Hotfixes skip the freeze ...",
                            score=5.0, start_line=30, end_line=40)
SIX_MISTAKES = {
    ("chunk-0001", "chunk-0003", "chunk-0004", "chunk-0005"):
        "chunk-0006 was left out, but the chunk it overlaps (chunk-0002, lines 26-34) was rejected: only a "
        "selected chunk can block another, and chunk-0001 ends at 29, where chunk-0006 begins at 30 (adjacent)",
    ("chunk-0001", "chunk-0003", "chunk-0004", "chunk-0005", "chunk-0006"):
        "those are the right ids in the order they arrived; the selection is in rank order (score 5.0 "
        "ranks above 4.2)",
    ("chunk-0001", "chunk-0002", "chunk-0003", "chunk-0004", "chunk-0006", "chunk-0005"):
        "chunk-0002 shares lines 26-29 with chunk-0001 and is still rejected",
}


def test_task8_predict_the_selection_with_a_sixth_candidate():
    predicted = constant(load(LESSON), "SELECTED_WITH_0006")
    expect_true(isinstance(predicted, (list, tuple)) and all(isinstance(i, str) for i in predicted),
                f"SELECTED_WITH_0006 is {predicted!r:.80}; set it to a tuple (or a list) of chunk ids, in rank order")
    actual = select_non_overlapping(OVERLAP_CASE + (CHUNK_0006,)).selected_ids
    why = SIX_MISTAKES.get(tuple(predicted), "walk the six by score and compare each one's lines with the chunks "
                                             "already selected in its own file")
    expect_true(tuple(predicted) == actual,
                f"SELECTED_WITH_0006 = {tuple(predicted)!r} is not what select_non_overlapping selects: {why}. "
                f"Check with: python3 -B -c \"from modules.dedupe import OVERLAP_CASE, RetrievedChunk, "
                f"select_non_overlapping as s; print(s(OVERLAP_CASE + (RetrievedChunk('chunk-0006', "
                f"'release-policy.md', 'x', 5.0, start_line=30, end_line=40),)).selected_ids)\"")
