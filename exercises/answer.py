# TODO: fill in each answer, then run: python3 -B methods.py check answer
"""Lesson 10 exercises: an answer stage that says only what its packet says.

Task 1  check_citation    is the cited id in the packet, and is the quote in that source's text?
Task 2  compose_answer    full, partial, conflict or abstain, built from packet quotes only
Task 3  classify_outcome  right, wrong record, wrong source or no answer
Task 4  CITATION_QUIZ     what a passing citation check does and does not prove
Task 5  CONFLICT_QUIZ     what the answer does with two current versions that disagree
Task 6  no_answer_cause   why an answer gives no answer: window overflow, conflict, budget skip or missing facet

Check your work:  python3 -B methods.py check answer
Stuck?            python3 -B methods.py hint answer
"""

from modules.answer import Answer, Facet, Sentence, covers
from modules.context import Passage


def check_citation(cite: str, quote: str, packet_ids, source_texts: dict) -> tuple:
    """Task 1. Return (present, supported) for one cited sentence.

    present:   `cite` is one of `packet_ids` (the ids handed to the answer stage).
    supported: `quote` is non-empty and occurs, word for word, inside
               `source_texts[cite]`, the cited source's own text. An id that
               `source_texts` does not know supports nothing (False, no error).

    The two are independent: an id can be in the packet while the quote was
    altered, and a quote can be true to a source the packet never held.

    >>> check_citation("returns-v1", "drop box", ["returns-v1"], {"returns-v1": "... the drop box ..."})
    (True, True)
    """
    raise NotImplementedError("check_citation: write your answer here, then run: python3 -B methods.py check answer")


def compose_answer(facets, packet) -> Answer:
    """Task 2. Build a template answer from the packet's quotes, facet by facet.

    `facets` is a sequence of Facet (the question's declared sub-questions), `packet`
    a sequence of Passage in packet order. For each facet, collect the packet
    passages for which `covers(facet, passage.text)` is true (lesson 02's facet rule),
    keeping only the first passage of each distinct text (an identical copy adds
    nothing). Then:

    * none:     the facet is missing; add its name to `missing`.
    * one:      add Sentence("claim", p.text, p.text, p.id): the quote, citing its id.
    * several:  the packet disagrees with itself; add the facet's name to
                `disputed`, then Sentence("conflict", <a sentence naming the facet
                and saying no single value is given>), then for every passage
                Sentence("disputed", f"{p.source_id} version {p.version} says: {p.text}", p.text, p.id).
                Never keep just one of them.

    After all facets, add Sentence("gap", <a sentence containing the facet's
    name>) for each missing facet. Status: "conflict" if any facet is disputed,
    else "full" if nothing is missing, else "partial" if something was
    answered. If nothing was answered or disputed, return instead
    Answer("abstain", (Sentence("abstain", <a sentence naming every missing
    facet>),), missing, ()). Return Answer(status, sentences, tuple(missing), tuple(disputed)).
    """
    raise NotImplementedError("compose_answer: write your answer here, then run: python3 -B methods.py check answer")


def classify_outcome(answer: Answer, gold_id: str, corpus: dict) -> str:
    """Task 3. Name the outcome of one answer against its evaluation label.

    `corpus` maps every id to its Passage; `gold_id` is the record that answers
    the query. Look only at the ids cited by "claim" sentences.

    * "no_answer"     the status is "abstain" or "conflict", or no claim cites anything
    * "right"         a claim cites `gold_id`
    * "wrong_record"  otherwise, a claim cites another record of the gold record's
                      source (same `source_id`, different id: a stale version, say)
    * "wrong_source"  otherwise (the claims cite some other source)
    """
    raise NotImplementedError("classify_outcome: write your answer here, then run: python3 -B methods.py check answer")


# Task 4 (quiz). In the lesson's query set, q3 cites hours-v1: the id is in the packet
# and its quote occurs word for word in hours-v1's text. The answer is still wrong.
# What does a passing citation check prove?
#   "a"  that the answer is correct, since every claim is backed by a source
#   "b"  only that the answer repeats a record it was given; not that the record is
#        the right one, current, or from the right source
#   "c"  nothing at all; citation checks should be dropped
#   "d"  that the retriever ranked the gold record first
# Set CITATION_QUIZ to one letter.
CITATION_QUIZ = None  # TODO: your answer

# Task 5 (quiz). The packet holds hours-v2 ("opens at 8:30") and hours-v3 ("opens at
# 9:00"), both current versions of help-desk-hours. What should the answer say?
#   "a"  the 9:00 hours, because version 3 is the larger label
#   "b"  the 8:30 hours, because hours-v2 ranked higher
#   "c"  both hours, each with its source, say that it cannot choose, and route the
#        source to content review
#   "d"  nothing about this conflict: state only the returns part as if hours were absent
# Set CONFLICT_QUIZ to one letter.
CONFLICT_QUIZ = None  # TODO: your answer


def no_answer_cause(answer: Answer, skipped, facets, fits_window: bool = True) -> str:
    """Task 6. Name the cause of a no-answer, checking in this order:

    * "window overflow"  `fits_window` is False: the request never reached the answer stage
    * "conflict"         the answer's status is "conflict": the packet disagrees with itself
    * "budget skip"      a passage in `skipped` (the passages the budget left out) covers
                         one of the facets named in `answer.missing`
                         (use covers(facet, passage.text))
    * "missing facet"    otherwise: nothing that was retrieved covers it

    `facets` is the sequence of Facet the question declared; `answer.missing` holds the
    names of those the packet did not answer. An abstention after a budget skip is not an
    overflow: the request fitted, the evidence did not.
    """
    raise NotImplementedError("no_answer_cause: write your answer here, then run: python3 -B methods.py check answer")


__all__ = ["Passage", "Facet", "check_citation", "compose_answer", "classify_outcome",
           "CITATION_QUIZ", "CONFLICT_QUIZ", "no_answer_cause"]
