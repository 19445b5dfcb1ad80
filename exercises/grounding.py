# TODO: replace each `raise NotImplementedError` and `= None` below, then run: python3 -B methods.py check grounding
"""Lesson 09 exercises: walk a trace, hide what must stay hidden, count what was left out.

Task 1  first_failing_layer  walk the layers in order and name the first whose check failed
Task 2  user_view            what the shopper may see of an internal trace record
Task 3  count_exclusions     exclusions per safe reason code, over many records
Task 4  REBUILD_QUIZ         permission exclusions tripled overnight: what do you fix?
Task 5  RANKER_QUIZ          a stale seal ranks first: why not start with the ranker?

Check your work:  python3 -B methods.py check grounding
Stuck?            python3 -B methods.py hint grounding
"""

from modules.grounding import LAYERS, REASON_CODES, USER_MESSAGES, USER_STATES


def first_failing_layer(results: dict):
    """Task 1. Return the first layer, in the order of LAYERS, whose check failed.

    `results` maps layer names to True (the check passed) or False (it failed),
    in any order. LAYERS is the fixed walk: input, source, retrieval,
    permission/freshness, ranking, assembly, decision, presentation,
    generation, change. Walk it from the start and return the first layer whose
    result is False; return None when every layer passed.

    A walk may not skip a layer: if you reach a layer that has no result before
    finding a failure, raise ValueError naming it. Layers after the first
    failure may be missing. Raise ValueError if `results` names a layer that
    is not in LAYERS, and TypeError if a result is not exactly True or False
    (a string such as "failed" is not a result).

    >>> first_failing_layer({layer: True for layer in LAYERS} | {"source": False, "ranking": False})
    'source'
    """
    raise NotImplementedError("first_failing_layer: write your answer here, then run: python3 -B methods.py check grounding")


def user_view(record: dict) -> dict:
    """Task 2. Build the shopper's view of one internal trace record.

    The record is what `modules.grounding.run_query` returns. The view is a
    dict with exactly four keys:

        "query"    record["query"], the text the shopper typed
        "state"    USER_STATES[record["state"]]  (every "empty" becomes "no_match")
        "message"  USER_MESSAGES[<that user state>]
        "answer"   a list with one {"text": ..., "cites": [...]} per line of
                   record["answer"], in order (copies, not the record's own lists)

    Nothing else: no exclusions, refs, counts, causes, candidates or packet
    fields. A denied listing must change nothing the shopper can see, so a
    record whose candidates were all denied gives the same view (apart from the
    query text) as one that retrieved nothing at all.
    """
    raise NotImplementedError("user_view: write your answer here, then run: python3 -B methods.py check grounding")


def count_exclusions(records) -> dict:
    """Task 3. Count exclusions per safe reason code over an iterable of trace records.

    Each record has an "exclusions" list; each exclusion a "reason" code. Return
    a dict with every code of REASON_CODES as a key, in that order, zeros
    included, mapped to how many exclusions carry it. Count every exclusion of
    every record: the same listing excluded for two queries counts twice. Only
    "exclusions" count (not collapsed clusters, not rejected vectors, not
    listings that were never retrieved).

    A reason that is not a safe code (for example free text that could quote a
    restricted title) raises ValueError naming it: it must never reach a
    dashboard.

    >>> count_exclusions([{"exclusions": [{"reason": "stale"}]}])["stale"]
    1
    """
    raise NotImplementedError("count_exclusions: write your answer here, then run: python3 -B methods.py check grounding")


# Task 4 (quiz). After the nightly index rebuild, permission exclusions over the same nine
# queries go from 6 to 18. The policy version is assist-policy/4 before and after, and
# "permission_denied" has turned into "permission_unknown". What is the fix?
#   "a"  treat an unknown permission as allowed until the index settles, so answers come back
#   "b"  repair the rebuild so every record carries its permission field again, then re-run
#   "c"  raise the policy version so the dashboards reset
#   "d"  lower the ranker's threshold so more permitted listings reach the packet
# Set REBUILD_QUIZ to one letter.
REBUILD_QUIZ = None  # TODO: your answer


# Task 5 (quiz). With the freshness rule switched off, the 2024 seal ranks first for
# "graphite mechanical seal 18 mm". A colleague wants to add an age penalty to the ranker.
# Why do you walk the trace first?
#   "a"  the ranker is the first layer in the walk, so it must be checked first anyway
#   "b"  an age penalty is fine; the walk is only needed when the packet is empty
#   "c"  the walk names permission/freshness, which let a stale record through; a ranker
#        penalty would only bury it here and leave it eligible everywhere else
#   "d"  the walk names the source layer, because the index lost the stale flag
# Set RANKER_QUIZ to one letter.
RANKER_QUIZ = None  # TODO: your answer


__all__ = ["first_failing_layer", "user_view", "count_exclusions", "REBUILD_QUIZ", "RANKER_QUIZ"]
