"""Lesson 03 exercises: remove repeats without merging what is different.

Task 1  id_conflicts            every id carried by two different chunks, with the fields that differ
Task 2  dedupe_text             keep the first-ranked chunk of each exact text, record the others
Task 3  same_passage            are two chunks copies of one passage of one canonical document?
Task 4  dedupe_canonical        one copy of each passage, preferring its primary copy
Task 5  lines_overlap           do two chunks share a line? (1-based, inclusive ranges)
Task 6  select_non_overlapping  rank by score, drop chunks that overlap a better one, whatever the input order
Task 7  CANONICAL_QUIZ          why three copies are not three sources

Check your work:  python3 -B methods.py check dedupe
Stuck?            python3 -B methods.py hint dedupe
"""

from modules.dedupe import CanonicalDedupe, OverlapSelection, RetrievedChunk, TextDedupe, normalised_text

IDENTITY_FIELDS = ("text", "source", "canonical_id", "copy", "start_line", "end_line", "anchor")


def id_conflicts(chunks) -> tuple:
    """Task 1. List every id that arrives as two different chunks, and the fields they differ in.

    The lesson's dedupe_ids collapses identical copies of an id and raises at the first
    copy that differs, naming its first differing field. Whoever has to repair the feed
    needs the whole list at once: this is that report.

    `chunks` is a sequence of RetrievedChunk, best first. Compare each later copy of an
    id with the first copy of that id, field by field over IDENTITY_FIELDS (the score
    is not compared: two channels may score one chunk differently and it is still the
    same chunk).

    Return a tuple of (id, fields) pairs, one for each id with at least one copy that
    differs from its first, in the order the ids first appear in `chunks`; `fields` is
    the tuple of every IDENTITY_FIELDS name in which any later copy differs from the
    first, in the order of IDENTITY_FIELDS. An id seen once, or only in identical
    copies, is not listed; with no conflict at all, return ().

    >>> id_conflicts(ID_CONFLICT)   # from modules.dedupe
    (('returns-v1', ('text',)),)
    """
    # BEGIN SOLUTION
    first = {}
    differing = {}
    for chunk in chunks:
        earlier = first.setdefault(chunk.id, chunk)
        for name in IDENTITY_FIELDS:
            if getattr(earlier, name) != getattr(chunk, name):
                differing.setdefault(chunk.id, set()).add(name)
    return tuple((chunk_id, tuple(name for name in IDENTITY_FIELDS if name in differing[chunk_id]))
                 for chunk_id in first if chunk_id in differing)
    # END SOLUTION


def dedupe_text(chunks) -> TextDedupe:
    """Task 2. Keep the first-ranked chunk of each exact text; record the others.

    Two chunks are duplicates only if their `text` is exactly equal: no
    lower-casing, no trimming, no "one contains the other". Return
    TextDedupe(kept=<kept chunks in order, tuple>,
               duplicate_text_ids=<ids of the dropped chunks in order, tuple>,
               duplicate_of=<dict: dropped id -> id of the kept chunk with that text>)
    """
    # BEGIN SOLUTION
    first = {}
    kept, duplicate_of = [], {}
    for chunk in chunks:
        if chunk.text in first:
            duplicate_of[chunk.id] = first[chunk.text]
        else:
            first[chunk.text] = chunk.id
            kept.append(chunk)
    return TextDedupe(tuple(kept), tuple(duplicate_of), duplicate_of)
    # END SOLUTION


def same_passage(a: RetrievedChunk, b: RetrievedChunk) -> bool:
    """Task 3. True if chunks `a` and `b` are copies of one passage of one canonical document.

    A primary site, a mirror and an export of one document share its `canonical_id`
    ("" means a chunk declares no copy relation: it is nobody's copy). Two chunks
    with the same non-empty canonical_id are copies of one passage when
      * both declare the same non-empty `anchor` (the passage's place in the document), or
      * their texts are equal after normalised_text() (imported above: Unicode NFC,
        case-folded, runs of whitespace made one space).
    Two different passages of one document (the rule and, in the next chunk, its
    exception) are NOT copies: they have different anchors and different texts.
    """
    # BEGIN SOLUTION
    if not a.canonical_id or a.canonical_id != b.canonical_id:
        return False
    if a.anchor and a.anchor == b.anchor:
        return True
    return normalised_text(a.text) == normalised_text(b.text)
    # END SOLUTION


def dedupe_canonical(chunks) -> CanonicalDedupe:
    """Task 4. Keep one copy of each passage; never drop a distinct passage of a document.

    `chunks` is a sequence of RetrievedChunk, best first, with unique ids. Group them into
    passages: a chunk belongs with every chunk it is the same_passage() of (Task 3), and
    copies of copies are copies (if a matches b by anchor and b matches c by text, all
    three are one passage). A chunk that matches nothing is a passage on its own.
    In each passage keep the chunk whose `copy` is "primary" (the first-ranked one if
    several are), or, with no primary, the first-ranked chunk. Return
    CanonicalDedupe(kept=<tuple of kept chunks, in their original order>,
                    dropped=<dict: dropped id -> id of the chunk kept for its passage>)
    (the `reasons` and `matched` fields may be left out).
    """
    # BEGIN SOLUTION
    position = {chunk.id: i for i, chunk in enumerate(chunks)}
    passages = []
    for chunk in chunks:
        joined = [p for p in passages if any(same_passage(chunk, other) for other in p)]
        merged = [c for p in joined for c in p] + [chunk]
        passages = [p for p in passages if all(p is not q for q in joined)] + [merged]
    kept_for = {}
    for passage in passages:
        best = min(passage, key=lambda c: (c.copy != "primary", position[c.id]))
        for chunk in passage:
            kept_for[chunk.id] = best
    kept = tuple(chunk for chunk in chunks if kept_for[chunk.id] is chunk)
    dropped = {chunk.id: kept_for[chunk.id].id for chunk in chunks if kept_for[chunk.id] is not chunk}
    return CanonicalDedupe(kept, dropped)
    # END SOLUTION


def lines_overlap(a: RetrievedChunk, b: RetrievedChunk) -> bool:
    """Task 5. True if chunks `a` and `b` come from the same `source` and share at least one line.

    Line ranges are 1-based and inclusive: start_line=12, end_line=24 covers
    lines 12, 13, ..., 24. So 12-24 and 24-30 share line 24, while 12-24 and
    25-33 are adjacent and share nothing. Chunks of different sources never overlap.
    """
    # BEGIN SOLUTION
    return a.source == b.source and a.start_line <= b.end_line and b.start_line <= a.end_line
    # END SOLUTION


def select_non_overlapping(chunks) -> OverlapSelection:
    """Task 6. Select chunks whose lines do not overlap, best first, independent of input order.

    Rank the chunks by score, highest first, breaking ties by id (alphabetical),
    so that the same candidates in any input order give the same result. Walk
    that ranking: a chunk that overlaps (Task 5) an already selected chunk is
    rejected with the reason "overlapping_lines_with:<id of that selected chunk>"
    (if it overlaps several, name the highest-ranked one); otherwise select it.
    (Comparing chunk with chunk is enough here; never walk the lines one by one: a
    chunk may span lines 1 to 1,000,000,000.)
    The ids are unique. Return
    OverlapSelection(selected=<selected chunks in rank order, tuple>,
                     rejected=<dict: rejected id -> reason>)
    """
    # BEGIN SOLUTION
    selected, rejected = [], {}
    for chunk in sorted(chunks, key=lambda c: (-c.score, c.id)):
        clash = next((kept for kept in selected if lines_overlap(kept, chunk)), None)
        if clash is None:
            selected.append(chunk)
        else:
            rejected[chunk.id] = f"overlapping_lines_with:{clash.id}"
    return OverlapSelection(tuple(selected), rejected)
    # END SOLUTION


# Task 7 (quiz). A returns policy reaches the candidates three times: from the intranet (primary),
# a mirror site and a text export. All three say books go to the north drop box. A report says
# "three sources agree". What is wrong with that?
#   "a"  nothing: three retrieved chunks that agree are stronger evidence than one
#   "b"  the three are copies of one passage of one canonical document; agreement among copies
#        is one source repeated, not independent confirmation
#   "c"  the export has a header, so its text is not an exact duplicate and must be kept
#   "d"  the count is right once only one chunk per canonical document is kept, whatever
#        else that document says in its other chunks
# Set CANONICAL_QUIZ to one letter.
# BEGIN SOLUTION
CANONICAL_QUIZ = "b"
# END SOLUTION


__all__ = ["RetrievedChunk", "IDENTITY_FIELDS", "id_conflicts", "dedupe_text", "same_passage", "dedupe_canonical",
           "lines_overlap", "select_non_overlapping", "CANONICAL_QUIZ"]
