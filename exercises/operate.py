# TODO: fill in each answer, then run: python3 -B methods.py check operate
"""Lesson 14 exercises: operate the context path from its signals.

Task 1  safe_signal             merge signal counts by label, never showing a restricted id
Task 2  name_the_layer          name the layer an anomaly comes from, from two sets of signals
Task 3  check_support           faithfulness: every cite exists and every number is in a cited value
Task 4  check_non_amplification faithfulness: never say more than "listed for"
Task 5  review_answer           answer a review question from the pipeline's own definition
Task 6  ONE_NUMBER_QUIZ         why one end-to-end number cannot locate a stage
Task 7  TOTAL_LOSS_PREDICTION   predict the dashboard when a rebuild loses every permission field

Check your work:  python3 -B methods.py check operate
Stuck?            python3 -B methods.py hint operate
"""

import re
import unicodedata

from modules.common.pipeline import Pipeline


def safe_signal(pairs, restricted) -> tuple:
    """Task 1. Merge (label, count) pairs into one signal that shows no restricted listing.

    `pairs` is an iterable of (label, count): label a str (a reason code, a channel, or, by a
    mistake upstream, a listing id), count an int. `restricted` is a collection of restricted
    listing ids ("XX-R900"). Sum the counts per label. A label that contains a restricted id in
    any spelling, anywhere in the label (any case; look-alike hyphens, spaces or underscores
    for the hyphen, or no hyphen at all; full-width letters) is never shown: add its count to
    one ("withheld", total) pair instead. Compare folded forms: NFKC, casefold, letters and
    digits only; the label contains the id when its folded form contains the id's.

    Return a list or a tuple (either is accepted) of (label, total) pairs sorted by label,
    then ("withheld", total) last when any count was withheld.

    >>> safe_signal([("PERMISSION_DENIED", 2), ("xx-r900", 1), ("PERMISSION_DENIED", 1)], ["XX-R900"])
    (('PERMISSION_DENIED', 3), ('withheld', 1))
    """
    raise NotImplementedError("safe_signal: write your answer here, then run: python3 -B methods.py check operate")


def name_the_layer(before: dict, after: dict):
    """Task 2. Name the layer an anomaly comes from, reading two signal dicts only.

    Each dict has the keys "parser_failures", "lexical", "vector" (candidate counts),
    "permission_exclusions", "index_version", "policy_version" and "ranker_version". Name
    the layer with lesson 09's layer names, checking them in lesson 09's order (the order a
    change reaches the pipeline), and return the first whose rule holds:

      "input"                 parser_failures changed (the query transformation)
      "source"                permission_exclusions rose, policy_version stayed the same
                              and index_version changed: index construction lost the
                              permission fields, and fail-closed worked
      "retrieval"             lexical or vector counts changed
      "permission/freshness"  policy_version changed
      "ranking"               ranker_version changed
      None                    no rule holds (a rise in exclusions with the index version
                              unchanged names no layer on its own)
    """
    raise NotImplementedError("name_the_layer: write your answer here, then run: python3 -B methods.py check operate")


_ID = re.compile(r"[A-Za-z]+-[A-Za-z]+\d+(?:#\w+|:\S+)?")   # PW-L001, PW-L001#title: ids, not claims
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def check_support(fields: dict, lines) -> bool:
    """Task 3. Whether an explanation is supported by the packet.

    `fields` maps field ids to values ({"PW-L001#diameter_mm": "16", ...}). `lines` is a
    sequence of (text, cites), cites a tuple of field ids. Supported means: every cite is a
    key of `fields`, and every number written in a line's text (ids such as PW-L001 or
    PW-L001#title removed first, with _ID) appears among the numbers of the values that
    line cites. A citation alone proves nothing: the value must say what the line says.
    """
    raise NotImplementedError("check_support: write your answer here, then run: python3 -B methods.py check operate")


AMPLIFYING = ("fits", "compatible", "guaranteed", "suitable", "certified")


def check_non_amplification(lines) -> bool:
    """Task 4. Whether no line claims more than the evidence.

    The packet says a listing is "listed for" a size; it never says the part fits. A line
    amplifies when one of its words (lower-cased, split on anything that is not a letter, so
    "fits." and "FITS," are the word "fits") is in AMPLIFYING. "fits" is amplifying; "listed
    for" and "refits" are not. Return True when no line of `lines` ((text, cites) pairs)
    amplifies.
    """
    raise NotImplementedError("check_non_amplification: write your answer here, then run: python3 -B methods.py check operate")


def review_answer(pointer, pipeline: Pipeline, tests) -> str:
    """Task 5. Answer one review question from the pipeline's own definition.

    `pointer` is (question, stage, lesson, test): the stage that should enforce the answer
    and the test ("tests/test_x.py::test_y") that should show it. `tests` is the collection
    of tests that exist. Return "answered" when the stage is one of the pipeline's stages
    (pipeline.names()) and the test exists, else "gap": an answer pointing at a stage the
    pipeline does not have, or at a test nobody wrote, is no answer.
    """
    raise NotImplementedError("review_answer: write your answer here, then run: python3 -B methods.py check operate")


# Task 6 (quiz). After lesson 09's index rebuild, 4 of the nine catalogue queries get an answer
# (respond or degraded), as before the rebuild; yet the assisted results of the explicit-unit
# segment went 55 -> 25. Why can one end-to-end number not locate a stage?
#   "a"  the queries were too few: with more of them the answered count would have moved too
#   "b"  the answered count was wrong: a correct end-to-end figure always falls when a stage breaks
#   "c"  it sums over every layer: it held here, and when it moves it cannot say which layer moved
#   "d"  it can: when the answered count holds, the ranker is the stage to check first
# Set ONE_NUMBER_QUIZ to one letter.
ONE_NUMBER_QUIZ = None  # TODO: your answer


# Task 7 (predict). Lesson 09's rebuild lost the permission field of the listings updated since
# 2026-10-11, and the dashboard read assisted results 55 -> 25 and answered 4 -> 4 for the
# explicit-unit segment. Suppose a worse rebuild loses the permission field of EVERY listing
# (the policy unchanged). Over the nine catalogue queries, predict before you run anything:
# (assisted results of the explicit-unit segment, answered of the explicit-unit segment,
#  the number of queries whose state is "unauthorized").
# Set TOTAL_LOSS_PREDICTION to a tuple of three ints.
TOTAL_LOSS_PREDICTION = None  # TODO: your answer


__all__ = ["safe_signal", "name_the_layer", "check_support", "check_non_amplification", "review_answer",
           "AMPLIFYING", "ONE_NUMBER_QUIZ", "TOTAL_LOSS_PREDICTION"]
