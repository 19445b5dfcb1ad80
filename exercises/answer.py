# TODO: fill in each answer, then run: python3 -B methods.py check answer
"""Lesson 10 exercises: an answer stage that says only what its packet says.

Task 1  check_citation        is the cited id in the packet, and is the quote in that source's text?
Task 2  compose_answer        the lab's answer, quoting only the sentence that answers each facet
Task 3  classify_outcome      right, wrong record, wrong source, no answer, or a claim without citation
Task 4  CITATION_QUIZ         what a passing citation check does and does not prove
Task 5  CONFLICT_QUIZ         what the answer does with two current versions that disagree
Task 6  cause_by_facet        why each unanswered part went unanswered, in a partial answer too
Task 7  SMALLEST_FULL_BUDGET  predict: the smallest quote budget that gives a full answer

Check your work:  python3 -B methods.py check answer
Stuck?            python3 -B methods.py hint answer
"""

import re

from modules.answer import Answer, Facet, Sentence, covers
from modules.context import Passage


def check_citation(cite: str, quote: str, packet_ids, source_texts: dict) -> tuple:
    """Task 1. Return a tuple (present, supported), two bools, for one cited sentence.

    present:   `cite` is one of `packet_ids` (the ids handed to the answer stage).
    supported: `quote` is non-empty and occurs exactly as written (the same
               characters: case, spaces and punctuation too) inside
               `source_texts[cite]`, the cited source's own text. An id that
               `source_texts` does not know supports nothing (False, no error).

    The two are independent: an id can be in the packet while the quote was
    altered, and a quote can be true to a source the packet never held.

    >>> check_citation("returns-v1", "drop box", ["returns-v1"], {"returns-v1": "... the drop box ..."})
    (True, True)
    """
    raise NotImplementedError("check_citation: write your answer here, then run: python3 -B methods.py check answer")


def compose_answer(facets, packet) -> Answer:
    """Task 2. The lab's template answer, quoting only the SENTENCE that answers each facet.

    The lab's compose_answer (modules/answer/mechanism.py) quotes a whole passage. A passage
    often says more than the question asked ("Welcome! The help desk opens at 9:00 on
    weekdays."), and everything quoted is stated. Yours quotes one sentence per passage.

    `facets` is a sequence of Facet (the question's declared sub-questions), `packet` a
    sequence of Passage in packet order. A passage's sentences: its text split after each
    ".", "!" or "?" that is followed by whitespace (re.split with a lookbehind does it).
    A passage ANSWERS a facet when one of its sentences s has covers(facet, s) (lesson
    02's facet rule, applied to one sentence: terms spread over two sentences do not
    count); its QUOTE for that facet is the first such sentence. For each facet, in
    order, collect the answering passages in packet order, keeping only the first
    passage of each distinct quote (two passages whose answering sentences are the same
    words agree, whatever else they say). Then:

    * none:     the facet is missing; add its name to `missing`.
    * one:      Sentence("claim", quote, quote, p.id).
    * several:  the packet disagrees with itself; add the facet's name to `disputed`,
                then Sentence("conflict", <a sentence naming the facet and saying no
                single value is given>), then for every passage
                Sentence("disputed", f"{p.source_id} version {p.version} says: {quote}", quote, p.id).

    After ALL facets, one Sentence("gap", <a sentence containing the facet's name>) per
    missing facet: the claims come first, then the gaps. Status: "conflict" if any facet
    is disputed, else "full" if nothing is missing, else "partial". If nothing was
    answered or disputed, return Answer("abstain", (Sentence("abstain", <a sentence
    naming every missing facet>),), missing, ()) instead. Otherwise return
    Answer(status, sentences, missing, disputed), each a tuple.
    """
    raise NotImplementedError("compose_answer: write your answer here, then run: python3 -B methods.py check answer")


def classify_outcome(answer: Answer, gold_id: str, corpus: dict) -> str:
    """Task 3. Name the outcome of one answer against its evaluation label, with one
    outcome the lab's classify_outcome does not have: "uncited".

    `corpus` maps every id to its Passage; `gold_id` is the record that answers the
    query. Look only at the "claim" sentences, and decide in this order:

    * "no_answer"     the status is "abstain" or "conflict", or there is no claim
    * "uncited"       a claim has an empty cite: an answer with a claim nobody can check
                      is counted on its own, neither right nor wrong (the lab's function
                      calls it a wrong source)
    * "right"         a claim cites `gold_id`
    * "wrong_record"  otherwise, a claim cites another record of the gold record's
                      source (same `source_id`, different id: a stale version, say)
    * "wrong_source"  otherwise (the claims cite some other source, or an id the corpus
                      does not hold)
    """
    raise NotImplementedError("classify_outcome: write your answer here, then run: python3 -B methods.py check answer")


# Task 4 (quiz). In the lesson's query set, q3 cites hours-v1: the id is in the packet
# and its quote occurs word for word in hours-v1's text. The answer is still wrong.
# What does a passing citation check prove?
#   "a"  that the answer is correct, since every claim is backed by a source
#   "b"  that the retriever ranked the gold record first among those it found
#   "c"  nothing useful: a check that a wrong answer passes should be dropped
#   "d"  only that the quote is in a record it was given, not the right one
# Set CITATION_QUIZ to one letter.
CITATION_QUIZ = None  # TODO: your answer

# Task 5 (quiz). The trace answers lesson 04's candidates at 400 characters, where
# help-desk-hours is blocked: hours-v1 ("opens at 9:00") was left marked current beside
# hours-v2 ("opens at 8:30"). Take the same candidates at 80 characters: returns-v1 no
# longer fits, so the packet holds only wifi-v1 and card-v1, and it still carries
# help-desk-hours as an unresolved conflict with both quotes. What does the answer say?
#   "a"  both hours as disputed with their ids, and book returns as missing
#   "b"  the 8:30 hours, as version 2 is the larger label; returns missing
#   "c"  nothing at all: it abstains, as no evidence answers either facet
#   "d"  both hours as disputed, and a wifi-v1 quote for the returns part
# Set CONFLICT_QUIZ to one letter.
CONFLICT_QUIZ = None  # TODO: your answer


def cause_by_facet(answer: Answer, skipped, facets, fits_window: bool = True) -> dict:
    """Task 6. Why each part of the question went unanswered: {facet name: cause}.

    The lab's no_answer_cause names one cause for an answer that gives no answer, and
    refuses a partial one. But the partial answer at 120 characters leaves the opening
    hours unanswered for a reason too, and a conflict on one facet can sit beside a
    budget skip on another. Name the cause of every unanswered facet.

    For each facet of `facets` (a sequence of Facet), in that order:

    * `fits_window` is False: the request never reached the answer stage, so every
      facet is unanswered: "window overflow";
    * its name is in `answer.disputed`: "conflict";
    * its name is in `answer.missing`: "budget skip" when a passage in `skipped` (the
      passages the budget left out) covers it (covers(facet, passage.text)), else
      "missing facet": nothing retrieved covers it;
    * otherwise it was answered and is not a key.

    Return a dict (empty when every facet was answered).
    """
    raise NotImplementedError("cause_by_facet: write your answer here, then run: python3 -B methods.py check answer")


# Task 7 (predict). The lesson runs lesson 01's candidates at quote budgets of 80, 120 and
# 400 characters: abstain, partial, full. Somewhere between 120 and 400 the answer turns
# full. Before you run anything: what is the smallest max_quote_chars (a whole number) at
# which select_context(CANDIDATES, budget) hands compose_answer a packet that answers both
# facets (status "full")? The candidates' lengths are in lesson 01's trace
# (python3 -B methods.py context). Set SMALLEST_FULL_BUDGET to that number.
SMALLEST_FULL_BUDGET = None  # TODO: your answer


__all__ = ["Passage", "Facet", "check_citation", "compose_answer", "classify_outcome",
           "CITATION_QUIZ", "CONFLICT_QUIZ", "cause_by_facet", "SMALLEST_FULL_BUDGET"]
