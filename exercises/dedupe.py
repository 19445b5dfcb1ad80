# TODO: replace each `raise NotImplementedError` and `= None` below, then run: python3 -B methods.py check dedupe
"""Lesson 03 exercises: remove repeats without merging what is different.

Task 1  dedupe_ids              collapse identical copies of an id; refuse two different chunks under one id
Task 2  dedupe_text             keep the first-ranked chunk of each exact text, record the others
Task 3  dedupe_canonical        one chunk per canonical document, preferring its primary copy
Task 4  lines_overlap           do two chunks share a line? (1-based, inclusive ranges)
Task 5  select_non_overlapping  rank by score, drop chunks that overlap a better one, whatever the input order
Task 6  CANONICAL_QUIZ          why three copies are not three sources

Check your work:  python3 -B methods.py check dedupe
Stuck?            python3 -B methods.py hint dedupe
"""

from modules.dedupe import CanonicalDedupe, Chunk, OverlapSelection, TextDedupe

IDENTITY_FIELDS = ("text", "source", "canonical_id", "copy", "start_line", "end_line")


def dedupe_ids(chunks) -> tuple:
    """Task 1. Collapse repeated ids, keeping the first-ranked copy in its place.

    `chunks` is a sequence of Chunk, best first. A later chunk with an id seen
    before is dropped if it is the same chunk: every field in IDENTITY_FIELDS
    equal (the score may differ). If any of those fields differs, raise
    ValueError with a message naming the id and the first differing field, for
    example "id 'a' appears twice with a different text".

    Return the kept chunks as a tuple, in their original order.
    """
    raise NotImplementedError("dedupe_ids: write your answer here, then run: python3 -B methods.py check dedupe")


def dedupe_text(chunks) -> TextDedupe:
    """Task 2. Keep the first-ranked chunk of each exact text; record the others.

    Two chunks are duplicates only if their `text` is exactly equal: no
    lower-casing, no trimming, no "one contains the other". Return
    TextDedupe(kept=<kept chunks in order, tuple>,
               duplicate_text_ids=<ids of the dropped chunks in order, tuple>,
               duplicate_of=<dict: dropped id -> id of the kept chunk with that text>)
    """
    raise NotImplementedError("dedupe_text: write your answer here, then run: python3 -B methods.py check dedupe")


def dedupe_canonical(chunks) -> CanonicalDedupe:
    """Task 3. Keep one chunk per canonical document.

    Chunks with the same `canonical_id` are copies of one document. Among them
    keep the one whose `copy` is "primary" (if several claim to be primary,
    the first-ranked of them); if no copy is primary, keep the first-ranked
    copy. A chunk whose canonical_id is "" declares no copy relation: keep it
    (removing repeated text is Task 2's job, not this one's).
    Kept chunks stay in their original order. Return
    CanonicalDedupe(kept=<tuple of kept chunks>, dropped=<dict: dropped id -> kept id>)
    (the `reasons` field may be left out).
    """
    raise NotImplementedError("dedupe_canonical: write your answer here, then run: python3 -B methods.py check dedupe")


def lines_overlap(a: Chunk, b: Chunk) -> bool:
    """Task 4. True if chunks `a` and `b` come from the same `source` and share at least one line.

    Line ranges are 1-based and inclusive: start_line=12, end_line=24 covers
    lines 12, 13, ..., 24. So 12-24 and 24-30 share line 24, while 12-24 and
    25-33 are adjacent and share nothing. Chunks of different sources never overlap.
    """
    raise NotImplementedError("lines_overlap: write your answer here, then run: python3 -B methods.py check dedupe")


def select_non_overlapping(chunks) -> OverlapSelection:
    """Task 5. Select chunks whose lines do not overlap, best first, independent of input order.

    Rank the chunks by score, highest first, breaking ties by id (alphabetical),
    so that the same candidates in any input order give the same result. Walk
    that ranking: a chunk that overlaps (Task 4) an already selected chunk is
    rejected with the reason "overlapping_lines_with:<id of that selected chunk>"
    (if it overlaps several, name the highest-ranked one); otherwise select it.
    The ids are unique. Return
    OverlapSelection(selected=<selected chunks in rank order, tuple>,
                     rejected=<dict: rejected id -> reason>)
    """
    raise NotImplementedError("select_non_overlapping: write your answer here, then run: python3 -B methods.py check dedupe")


# Task 6 (quiz). A returns policy reaches the candidates three times: from the intranet (primary),
# a mirror site and a text export. All three say books go to the north drop box. A report says
# "three sources agree". What is wrong with that?
#   "a"  nothing: three retrieved chunks that agree are stronger evidence than one
#   "b"  the export has a header, so its text is not an exact duplicate and must be kept
#   "c"  the three are copies of one canonical document; agreement among copies is one source
#        repeated, not independent confirmation
#   "d"  the mirror should be kept because it ranked first
# Set CANONICAL_QUIZ to one letter.
CANONICAL_QUIZ = None  # TODO: your answer


__all__ = ["Chunk", "IDENTITY_FIELDS", "dedupe_ids", "dedupe_text", "dedupe_canonical", "lines_overlap",
           "select_non_overlapping", "CANONICAL_QUIZ"]
