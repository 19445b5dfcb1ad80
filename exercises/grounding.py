# TODO: fill in each answer, then run: python3 -B methods.py check grounding
"""Lesson 09 exercises: judge each layer from its own record, fingerprint the contract, then walk.

A trace record (modules/grounding/mechanism.py trace_record) has one section per layer, each holding
what that layer received and produced. You write three of the layer checks, the query
fingerprint, and then the walk, the user view and the dashboard counts on top of your own
checks.

Task 1  check_input                 did the input layer keep the original and every written unit?
Task 2  check_permission_freshness  did the gate let through only what is permitted and fresh?
Task 3  check_ranking               did the ranker rank only what the gate passed, by RRF?
Task 4  query_fingerprint           the hash of the contract's canonical form
Task 5  first_failing_layer         walk the layers with your checks; name the first that failed
Task 6  user_view                   what the shopper may see, and nothing from a broken run
Task 7  failure_counts              a dashboard: records by their first failing layer
Task 8  REBUILD_QUIZ                permission exclusions tripled overnight: what do you fix?
Task 9  RANKER_QUIZ                 a stale seal is offered: why not start with the ranker?

Check your work:  python3 -B methods.py check grounding
Stuck?            python3 -B methods.py hint grounding
"""

from modules.common.checks import canonical_json, sha256_hex
from modules.grounding import CHECKS as LAB_CHECKS
from modules.grounding import LAYERS, SAFE_CODES, UNIT_WORDS, USER_MESSAGES, USER_STATES


def check_input(record: dict) -> tuple:
    """Task 1. Judge the input layer from record["input"] alone; return (held, why).

    The section holds "original" (the text the shopper typed) and "transformations", a
    list of steps, each {"name", "version", "input", "output", "status"}. The layer did
    NOT hold (return False and a sentence saying why) when:

      - there are no steps, or the first step's "input" is not the original text;
      - a step has an empty name, or a version without a "/" (such as "parser" instead
        of "unit-to-mm/1");
      - a "unit-to-mm" step whose "input" ends with a unit word (its last word is a key
        of UNIT_WORDS, as in "16 mm" or "0.625 inch") has status "unresolved": the
        shopper wrote a unit and the step lost it. (Status "failed" is fine: two sizes
        in one query are a reason to ask, not a defect.)

    Otherwise return True and a sentence. Read no other section of the record: a check
    that reads another layer's fields can blame this layer for that layer's fault.
    """
    raise NotImplementedError("check_input: write your answer here, then run: python3 -B methods.py check grounding")


def check_permission_freshness(record: dict) -> tuple:
    """Task 2. Judge the gate from record["permission/freshness"] alone; return (held, why).

    When section["ran"] is False (the query stopped before retrieval) the layer held.
    Otherwise the section holds "passed" (a list of {"candidate", "permission"}),
    "withheld" (decisions, each with "subject" and "reason_codes") and "fields" (one row
    per field of each permitted candidate: "candidate", "field", "age_days", "max_days",
    "required"). The layer did NOT hold when:

      - a passed candidate's permission is not exactly "allowed";
      - a row of a PASSED candidate is required and its age_days is None, negative or
        greater than max_days (age_days == max_days is still fresh). Rows of withheld
        candidates, and optional fields, do not count: the gate withholds the first and
        leaves the second out of the packet;
      - a withheld decision has no reason code, or one that is not in SAFE_CODES.
    """
    raise NotImplementedError("check_permission_freshness: write your answer here, then run: python3 -B methods.py check grounding")


def check_ranking(record: dict) -> tuple:
    """Task 3. Judge the ranker from record["ranking"] alone; return (held, why).

    When section["ran"] is False the layer held. Otherwise the section holds "k",
    "received" (the ids the gate passed to the ranker) and "fused": rows best first, each
    with "cluster", "members" (listing ids), "ordering_score" (rounded to 6 decimals) and
    "channel_ranks" ({channel: rank}, ranks from 1). The layer did NOT hold when:

      - a member of a row is not in "received" (the ranker ranked something the gate
        never passed);
      - a row's ordering_score is not round(sum of 1 / (k + rank) over its channel
        ranks, 6);
      - a cluster appears in two rows;
      - an ordering_score is higher than the one above it.
    """
    raise NotImplementedError("check_ranking: write your answer here, then run: python3 -B methods.py check grounding")


# The walk uses your three checks and the lab's checks for the other layers.
CHECKS = dict(LAB_CHECKS, **{"input": check_input, "permission/freshness": check_permission_freshness,
                             "ranking": check_ranking})


def query_fingerprint(contract: dict) -> str:
    """Task 4. The fingerprint of a query contract: the hash of its canonical form.

    `contract` is a dict with str keys whose values are str, None, lists of str or a dict
    of str to str (for example {"query": "lip seal 0.625 inch", "family": "lip-seal",
    "diameter_mm": "15.875", "state": "ready", "terms": ["lip", "seal"], "versions":
    {...}}). Its canonical form: every str in it (keys and values, inside lists and
    dicts too) in Unicode normal form NFC (unicodedata.normalize("NFC", s)), then
    canonical_json(...), which sorts the keys. Return sha256_hex(<that canonical text>).

    So one request gives one fingerprint, however its dict was ordered and whichever
    Unicode spelling its text used ("é" as one code point, or "e" plus a combining accent).
    """
    raise NotImplementedError("query_fingerprint: write your answer here, then run: python3 -B methods.py check grounding")


def first_failing_layer(record: dict):
    """Task 5. Walk LAYERS in order; return (layer, why) for the first layer whose check in
    CHECKS (the dict above: your checks plus the lab's) returns held False, or None when
    every layer held. Stop at the first failure: a later layer's failure is often a
    consequence, and naming it would send someone to fix the wrong thing.
    """
    raise NotImplementedError("first_failing_layer: write your answer here, then run: python3 -B methods.py check grounding")


def user_view(record: dict) -> dict:
    """Task 6. What the shopper may see of one trace record: a dict with exactly the keys
    "query", "state", "message", "answer", in that order.

      - If first_failing_layer(record) names a layer from "input" up to and including
        "decision" (LAYERS[:7]), the run cannot be trusted: state "unavailable".
      - Otherwise the state is USER_STATES[record["decision"]["state"]]; if that is
        "answer" or "answer_partial" but record["generation"]["answer"] is empty, it is
        "no_match".
      - "query" is record["query"]; "message" is USER_MESSAGES[state]; "answer" holds a
        copy of each line of record["generation"]["answer"] ({"text", "cites"}) when the
        state starts with "answer", else [].

    Nothing else: no cause, no count, no ref. A record whose candidates were all denied
    must read exactly like one where nothing matched.
    """
    raise NotImplementedError("user_view: write your answer here, then run: python3 -B methods.py check grounding")


def failure_counts(records) -> dict:
    """Task 7. A regression dashboard over an iterable of trace records.

    Return a dict whose keys are "all_held" and then every layer of LAYERS, in that order,
    zeros included. Each record counts once: under the layer first_failing_layer(record)
    names, or under "all_held" when it names none.
    """
    raise NotImplementedError("failure_counts: write your answer here, then run: python3 -B methods.py check grounding")


# Task 8 (quiz). After the nightly index rebuild, permission exclusions over the same nine
# queries go from 21 to 63. The policy version is assisted-use-policy/4 before and after,
# and PERMISSION_DENIED has turned into PERMISSION_UNKNOWN. What is the fix?
#   "a"  treat an unknown permission as allowed until the index settles, so answers come back
#   "b"  repair the rebuild so every record carries its permission field again, then re-run
#   "c"  raise the policy version so the dashboards reset
#   "d"  lower the ranker's threshold so more permitted listings reach the packet
# Set REBUILD_QUIZ to one letter.
REBUILD_QUIZ = None  # TODO: your answer


# Task 9 (quiz). With the freshness rule switched off, PW-L006 (its diameter last checked in
# 2020) enters the packet for "graphite mechanical seal 18 mm". A colleague wants to add an
# age penalty to the ranker. Why do you walk the trace first?
#   "a"  the walk names permission/freshness, which let a stale record through; a ranker
#        penalty would only bury it here and leave it eligible everywhere else
#   "b"  an age penalty is fine; the walk is only needed when the packet is empty
#   "c"  the ranker is the first layer in the walk, so it must be checked first anyway
#   "d"  the walk names the source layer, because the index lost the dates
# Set RANKER_QUIZ to one letter.
RANKER_QUIZ = None  # TODO: your answer


__all__ = ["check_input", "check_permission_freshness", "check_ranking", "CHECKS", "query_fingerprint",
           "first_failing_layer", "user_view", "failure_counts", "REBUILD_QUIZ", "RANKER_QUIZ"]
