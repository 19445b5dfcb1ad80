# TODO: fill in each answer, then run: python3 -B methods.py check dedupe
"""Lesson 03 exercises: remove repeats without merging what is different.

Task 1  id_conflicts            every id carried by two different chunks, with the fields that differ
Task 2  dedupe_text             exact-text dedupe that keeps the copy of the most authoritative source
Task 3  same_passage            copies of one passage, when two declared anchors outrank equal words
Task 4  dedupe_canonical        one copy of each passage, by a declared preference of copy kinds
Task 5  overlap_share           how much of the shorter chunk two chunks share (1-based, inclusive ranges)
Task 6  merge_overlapping       merge overlapping chunks of one file into spans, whatever the input order
Task 7  CANONICAL_QUIZ          why three copies are not three sources
Task 8  SELECTED_WITH_0006     predict the selection when a sixth candidate joins

Check your work:  python3 -B methods.py check dedupe
Stuck?            python3 -B methods.py hint dedupe
"""

from fractions import Fraction

from modules.dedupe import CanonicalDedupe, RetrievedChunk, TextDedupe, normalised_text

IDENTITY_FIELDS = ("text", "source", "canonical_id", "copy", "start_line", "end_line", "anchor")


def id_conflicts(chunks) -> tuple:
    """Task 1. List every id that arrives as two different chunks, and the fields they differ in.

    The lesson's dedupe_ids collapses identical copies of an id and raises at the first
    copy that differs, naming its first differing field. Whoever has to repair the feed
    needs the whole list at once: this is that report.

    `chunks` is a list or a tuple of RetrievedChunk (either is accepted), best first.
    Compare each later copy of an id with the first copy of that id, field by field over
    IDENTITY_FIELDS (the score is not compared: two channels may score one chunk
    differently and it is still the same chunk).

    Return a list or a tuple (either is accepted) of (id, fields) pairs, one for each id
    with at least one copy that differs from its first, in the order the ids first appear
    in `chunks`; `fields` (a list or a tuple) holds every IDENTITY_FIELDS name in which any
    later copy differs from the first, in the order of IDENTITY_FIELDS. An id seen once,
    or only in identical copies, is not listed; with no conflict at all, return ().

    >>> id_conflicts(ID_CONFLICT)   # from modules.dedupe
    (('returns-v1', ('text',)),)
    """
    raise NotImplementedError("id_conflicts: write your answer here, then run: python3 -B methods.py check dedupe")


def dedupe_text(chunks, authority) -> TextDedupe:
    """Task 2. Exact-text dedupe that keeps the copy of the most authoritative source.

    The lesson keeps the first-ranked chunk of each exact text, and says that this is a tie
    rule, not a judgement about authority. Here the authority is declared: `authority` is a
    list or a tuple of `source` names (either is accepted), most authoritative first. Two
    chunks are duplicates only if their `text` is exactly equal (no lower-casing, no
    trimming, no "one contains the other"). Among the chunks of one text keep the one whose
    source comes first in `authority`; a source not listed ranks after every listed one;
    between equals keep the first-ranked. `chunks` is a list or a tuple of RetrievedChunk,
    best first. Return
    TextDedupe(kept=<kept chunks, in their order in `chunks`, tuple>,
               duplicate_text_ids=<ids of the dropped chunks, in their order in `chunks`, tuple>,
               duplicate_of=<dict: dropped id -> id of the chunk kept for that text>)
    Every dropped id maps to the kept chunk itself, never to another dropped copy.
    """
    raise NotImplementedError("dedupe_text: write your answer here, then run: python3 -B methods.py check dedupe")


def same_passage(a: RetrievedChunk, b: RetrievedChunk) -> bool:
    """Task 3. True if chunks `a` and `b` are copies of one passage of one canonical document,
    where two declared anchors outrank equal words.

    A primary site, a mirror and an export of one document share its `canonical_id`
    ("" means a chunk declares no copy relation: it is nobody's copy). The lesson's rule
    calls two chunks of one canonical document copies when they declare the same anchor OR
    their normalised texts are equal, so one sentence repeated in two sections (§1 and §4)
    counts as one passage. Here a declared place wins:
      * both declare a non-empty `anchor`: copies exactly when the anchors are equal,
        whatever their texts;
      * otherwise (one or both declare none): copies exactly when their texts are equal
        after normalised_text() (imported above: Unicode NFC, case-folded, runs of
        whitespace made one space).
    Chunks with different (or empty) canonical ids are never copies.
    """
    raise NotImplementedError("same_passage: write your answer here, then run: python3 -B methods.py check dedupe")


def dedupe_canonical(chunks, copy_preference) -> CanonicalDedupe:
    """Task 4. Keep one copy of each passage, by a declared preference of copy kinds; never
    drop a distinct passage of a document.

    `chunks` is a list or a tuple of RetrievedChunk, best first, with unique ids. Group them
    into passages: a chunk belongs with every chunk it is the same_passage() of (Task 3), and
    copies of copies are copies (if a matches b by anchor and b matches c by text, all three
    are one passage). A chunk that matches nothing is a passage on its own.
    The lesson keeps the primary copy, else the first-ranked one. Here the choice is declared:
    `copy_preference` is a list or a tuple of copy kinds ("primary", "mirror", "export"), best
    first; in each passage keep the chunk whose `copy` comes first in it (a kind not listed
    comes after every listed one), and between equals the first-ranked. With ("primary",
    "export", "mirror"), a passage retrieved only as a mirror and an export keeps the export
    (generated from the primary) even when the mirror ranks higher. Return
    CanonicalDedupe(kept=<tuple of kept chunks, in their original order>,
                    dropped=<dict: dropped id -> id of the chunk kept for its passage>)
    (the `reasons` and `matched` fields may be left out).
    """
    raise NotImplementedError("dedupe_canonical: write your answer here, then run: python3 -B methods.py check dedupe")


def overlap_share(a: RetrievedChunk, b: RetrievedChunk) -> Fraction:
    """Task 5. The share of the shorter chunk's lines that the two chunks share, as a Fraction.

    The lesson rejects a chunk that shares even one line with a better one. Before choosing a
    threshold you need the amount: count the lines both chunks cover and divide by the line
    count of the shorter one (the one with fewer lines; either when they tie). Line ranges
    are 1-based and inclusive: start_line=12, end_line=24 covers lines 12, 13, ..., 24, which
    is 13 lines. So 12-24 and 24-30 share 1 line (of 7 in the shorter: Fraction(1, 7)), while
    12-24 and 25-33 are adjacent and share nothing (Fraction(0)). Chunks of different sources
    share nothing. Compute it from the ranges' ends: a chunk may span lines 1 to 10**9.

    >>> overlap_share(OVERLAP_CASE[0], OVERLAP_CASE[1])   # from modules.dedupe; 12-29 and 26-34 share 26-29
    Fraction(4, 9)
    """
    raise NotImplementedError("overlap_share: write your answer here, then run: python3 -B methods.py check dedupe")


def merge_overlapping(chunks) -> tuple:
    """Task 6. Merge the overlapping chunks of each file into spans, whatever the input order.

    `chunks` is a list or a tuple of RetrievedChunk (either is accepted), in any order.
    The lesson keeps the best chunk and rejects what overlaps it, losing the rejected chunk's
    other lines (chunk-0002's lines 30-34). Here overlapping chunks of one `source` are
    merged instead: a span covers the union of their line ranges, and chunks that overlap
    through a third one (a overlaps b, b overlaps c) are one span. Adjacent ranges (12-24 and
    25-33) share no line and stay separate spans. Lines are 1-based and inclusive.

    Rank the chunks by score, highest first, ties broken by id (alphabetical), so the same
    chunks in any input order give the same result. Return a list or a tuple (either is
    accepted) of spans, each a tuple or a list (source, start_line, end_line, ids) where `ids`
    (a tuple or a list) holds its chunks' ids in rank order; spans are ordered by the rank of
    their best chunk.
    Compare ranges by their ends, never line by line (a chunk may span 10**9 lines).

    >>> merge_overlapping(OVERLAP_CASE)[0]   # OVERLAP_CASE from modules.dedupe
    ('release-policy.md', 12, 34, ('chunk-0001', 'chunk-0002'))
    """
    raise NotImplementedError("merge_overlapping: write your answer here, then run: python3 -B methods.py check dedupe")


# Task 7 (quiz). A returns policy reaches the candidates three times: from its primary home, a
# mirror site and a text export. All three say books go to the north drop box. A report says
# "three sources agree". What is wrong with that?
#   "a"  the three are copies of one passage: one source repeated, not three confirming
#   "b"  nothing: three retrieved chunks that agree are stronger evidence than one chunk
#   "c"  the export has a header, so it is no duplicate and counts as its own source
#   "d"  the count is right once only one chunk per canonical document is kept
# Set CANONICAL_QUIZ to one letter.
CANONICAL_QUIZ = None  # TODO: your answer


# Task 8 (predict). Before you run anything: a sixth candidate joins the trace's five
# (OVERLAP_CASE, from modules.dedupe), another chunk of release-policy.md:
#     RetrievedChunk(id="chunk-0006", source="release-policy.md", text="Hotfixes skip the freeze ...",
#                    score=5.0, start_line=30, end_line=40)
# Which chunk ids does select_non_overlapping(OVERLAP_CASE + (that chunk,)) select, in rank order?
# Set SELECTED_WITH_0006 to a tuple (or a list) of id strings.
SELECTED_WITH_0006 = None  # TODO: your answer


__all__ = ["RetrievedChunk", "IDENTITY_FIELDS", "id_conflicts", "dedupe_text", "same_passage", "dedupe_canonical",
           "overlap_share", "merge_overlapping", "CANONICAL_QUIZ", "SELECTED_WITH_0006"]
