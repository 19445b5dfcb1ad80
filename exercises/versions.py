# TODO: fill in each answer, then run: python3 -B methods.py check versions
"""Lesson 04 exercises: find version conflicts, filter by validity, resolve only by a declared rule.

Task 1  multi_version_sources  which sources appear with more than one version label
Task 2  valid_on               keep the records whose validity window holds an as-of day
Task 3  resolve_or_abstain     pick one record only when a supersedes map says so
Task 4  SCORE_QUIZ             why the highest score cannot settle a conflict

Check your work:  python3 -B methods.py check versions
Stuck?            python3 -B methods.py hint versions
"""

from modules.versions import Record


def multi_version_sources(passages) -> dict:
    """Task 1. Return {source_id: labels} for every source seen with two or more version labels.

    `passages` is a sequence of objects with `.source_id` and `.version` (lesson 01's
    Passage or this lesson's Record), in rank order. Labels are strings: keep them as
    written, each once, in the order first seen; never sort them, never convert them
    to numbers. A source whose passages all carry the same label is not listed.

    >>> multi_version_sources([Record("a", "hours", "2", "t", "x"), Record("b", "hours", "1", "t", "y")])
    {'hours': ('2', '1')}
    """
    raise NotImplementedError("multi_version_sources: write your answer here, then run: python3 -B methods.py check versions")


def valid_on(records, as_of: str) -> tuple:
    """Task 2. Return the records (a tuple, order kept) that are valid on the day `as_of`.

    Days are ISO strings 'YYYY-MM-DD'. A record is valid from `valid_from` up to and
    including `valid_until` (its last day); `valid_until` None means it has no end.
    So a record with valid_until '2026-06-30' is still valid on '2026-06-30' and
    expired on '2026-07-01'. Use the `as_of` you are given, never today's date.
    Raise ValueError if `as_of` is not of the form 'YYYY-MM-DD'.
    """
    raise NotImplementedError("valid_on: write your answer here, then run: python3 -B methods.py check versions")


def resolve_or_abstain(records, supersedes: dict) -> dict:
    """Task 3. Select one record only if the declared `supersedes` map leaves exactly one standing.

    `records` are the current, valid records that answer one question (they may come
    from several sources). `supersedes` maps a record id to a collection of the ids it
    replaces; a link counts only if the replacing record is among `records`. A record
    is standing if no present record replaces it.

    If exactly one record is standing, return
        {"decision": "selected", "selected_id": <its id>, "presented_ids": [<its id>], "reason": <text>}
    otherwise present every standing record (all records if none stands) and return
        {"decision": "abstain-and-review", "selected_id": None,
         "presented_ids": [<ids, in the order of records>], "reason": <text>}

    Never use scores, amounts, dates or version labels to break the tie: the largest
    of them is not evidence of approval.
    """
    raise NotImplementedError("resolve_or_abstain: write your answer here, then run: python3 -B methods.py check versions")


# Task 4 (quiz). Two current sources give a key deposit of 500 and 600 crowns. The
# reranker scores the 500-crown passage 0.91 and the 600-crown passage 0.84. Why can
# the higher score not decide which amount is in force?
#   "a"  0.91 and 0.84 are too close; a gap of 0.2 or more would settle it
#   "b"  the score measures how well a passage matches the question, not which record
#        was approved or replaced; only a declared rule (or review) can say that
#   "c"  scores must be normalised first; after normalisation the larger one wins
#   "d"  it can decide: the better-matching passage is the more trustworthy one
# Set SCORE_QUIZ to one letter.
SCORE_QUIZ = None  # TODO: your answer


__all__ = ["Record", "multi_version_sources", "valid_on", "resolve_or_abstain", "SCORE_QUIZ"]
