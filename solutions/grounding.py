"""Lesson 09 exercises: judge each layer from its own record, fingerprint the contract, then walk.

A trace record (modules/grounding/mechanism.py trace_record) has one section per layer, each holding
what that layer received and produced. You write three of the layer checks, the query
fingerprint, and then the walk, the user view and the dashboard counts on top of your own
checks.

Each check is stricter than the lab's check of the same name (modules/grounding/checks.py):
its docstring says what yours must catch that the lab's lets through.

Task 1   check_input                 the lab's input check, and a "failed" step on one size
Task 2   check_permission_freshness  the lab's gate check, and no raw id of a denied listing
Task 3   check_ranking               the lab's ranking check, and one cluster per listing
Task 4   request_fingerprint         one request across component upgrades: no versions
Task 5   first_failing_layer         walk the layers with your checks; name the first that failed
Task 6   user_view                   what the shopper may see: nothing from a broken run or answer
Task 7   regression_counts           a dashboard: queries that held before and fail now, by layer
Task 8   REBUILD_QUIZ                family exclusions vanished after the rebuild: why?
Task 9   RANKER_QUIZ                 a stale seal is offered: why not start with the ranker?
Task 10  REBUILT_PACKET              predict: PW-Q002's packet through the rebuilt index

Check your work:  python3 -B methods.py check grounding
Stuck?            python3 -B methods.py hint grounding
"""

import unicodedata

from modules.common.checks import canonical_json, sha256_hex
from modules.grounding import CHECKS as LAB_CHECKS
from modules.grounding import LAYERS, SAFE_CODES, UNIT_WORDS, USER_MESSAGES, USER_STATES


def check_input(record: dict) -> tuple:
    """Task 1. Judge the input layer from record["input"] alone; return a tuple (held, why):
    held a bool, why a non-empty sentence.

    The section holds "original" (the text the shopper typed) and "transformations", a
    list of steps, each {"name", "version", "input", "output", "status"}. The layer did
    NOT hold (return False and a sentence saying why) when:

      - there are no steps, or the first step's "input" is not the original text;
      - a step has an empty name, or a version without a "/" (such as "parser" instead
        of "unit-to-mm/1");
      - a "unit-to-mm" step whose "input" ends with a unit word (its last word is a key
        of UNIT_WORDS, as in "16 mm" or "0.625 inch") has status "unresolved": the
        shopper wrote a unit and the step lost it;
      - (what the lab's check_input lets through) a "unit-to-mm" step has status
        "failed" while its "input" holds fewer than two numbers (a word w is a number
        when w.replace(".", "", 1).isdigit()). "failed" is the step's answer to two
        sizes in one query ("16 mm 18 mm": a reason to ask, not a defect); on one size,
        as in "16 mm" failed, the step gave up on a size it should have read.

    Otherwise return True and a sentence. Read no other section of the record: a check
    that reads another layer's fields can blame this layer for that layer's fault.
    """
    # BEGIN SOLUTION
    section = record["input"]
    steps = section["transformations"]
    if not steps or steps[0]["input"] != section["original"]:
        return False, "the first step does not start from the original text"
    for step in steps:
        if not step["name"] or "/" not in step["version"]:
            return False, f"step {step['name']!r} has no versioned name ({step['version']!r})"
        if step["name"] != "unit-to-mm":
            continue
        words = step["input"].split()
        if words and words[-1] in UNIT_WORDS and step["status"] == "unresolved":
            return False, f"{step['input']!r} was written with a unit, and {step['version']} lost it"
        numbers = [w for w in words if w.replace(".", "", 1).isdigit()]
        if step["status"] == "failed" and len(numbers) < 2:
            return False, f"{step['version']} failed on {step['input']!r}, which holds one size, not two"
    return True, "the original is kept, every step is versioned, no written size was lost"
    # END SOLUTION


def check_permission_freshness(record: dict) -> tuple:
    """Task 2. Judge the gate from record["permission/freshness"] alone; return a tuple
    (held, why): held a bool, why a non-empty sentence.

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
      - a withheld decision has no reason code, or one that is not in SAFE_CODES;
      - (what the lab's check lets through) a withheld decision with a reason code that
        starts with "PERMISSION_" names its subject by anything but an opaque ref: "ref-"
        followed by 12 lowercase hex digits (0-9, a-f). An internal record that carries
        the id of a listing its reader may not see leaks it to every log and dashboard.
    """
    # BEGIN SOLUTION
    section = record["permission/freshness"]
    if not section["ran"]:
        return True, "the gate did not run"
    passed = set()
    for row in section["passed"]:
        if row["permission"] != "allowed":
            return False, f"{row['candidate']} passed with permission {row['permission']!r}"
        passed.add(row["candidate"])
    for row in section["fields"]:
        age = row["age_days"]
        if row["candidate"] in passed and row["required"] and (age is None or age < 0 or age > row["max_days"]):
            return False, f"{row['candidate']} passed with {row['field']} {age} days old (limit {row['max_days']})"
    for decision in section["withheld"]:
        codes = decision["reason_codes"]
        if not codes or any(code not in SAFE_CODES for code in codes):
            return False, f"{decision['subject']} was withheld without a safe reason code"
        subject = decision["subject"]
        opaque = (len(subject) == 16 and subject.startswith("ref-")
                  and all(c in "0123456789abcdef" for c in subject[4:]))
        if any(code.startswith("PERMISSION_") for code in codes) and not opaque:
            return False, "a listing withheld for permission is named by its id, not by an opaque ref"
    return True, "everything that passed is permitted and fresh; everything withheld has a safe code and a safe name"
    # END SOLUTION


def check_ranking(record: dict) -> tuple:
    """Task 3. Judge the ranker from record["ranking"] alone; return a tuple (held, why):
    held a bool, why a non-empty sentence.

    When section["ran"] is False the layer held. Otherwise the section holds "k",
    "received" (the ids the gate passed to the ranker) and "fused": rows best first, each
    with "cluster", "shown" (the listing the row shows), "members" (listing ids),
    "ordering_score" (rounded to 6 decimals) and "channel_ranks" ({channel: rank}, ranks
    from 1). The layer did NOT hold when:

      - a member of a row is not in "received" (the ranker ranked something the gate
        never passed);
      - a row's ordering_score is not round(sum of 1 / (k + rank) over its channel
        ranks, 6);
      - a cluster appears in two rows;
      - an ordering_score is higher than the one above it (a tie is not a rise);
      - (what the lab's check lets through) a listing is a member of two rows: one
        listing belongs to one cluster, or it is ranked, and packed, twice;
      - (also let through) a row's "shown" is not the lowest of its members (min() of
        the ids), the listing lesson 03's canonical rule shows for a cluster.
    """
    # BEGIN SOLUTION
    section = record["ranking"]
    if not section["ran"]:
        return True, "nothing was ranked"
    received = set(section["received"])
    seen, members, previous = set(), set(), None
    for row in section["fused"]:
        for member in row["members"]:
            if member not in received:
                return False, f"{member} was ranked, but the gate did not pass it"
            if member in members:
                return False, f"{member} is a member of two clusters"
            members.add(member)
        if row["shown"] != min(row["members"]):
            return False, f"{row['cluster']} shows {row['shown']}, not its lowest member {min(row['members'])}"
        want = round(sum(1 / (section["k"] + rank) for rank in row["channel_ranks"].values()), 6)
        if row["ordering_score"] != want:
            return False, f"{row['cluster']} scores {row['ordering_score']}, its ranks give {want}"
        if row["cluster"] in seen:
            return False, f"{row['cluster']} is ranked twice"
        if previous is not None and row["ordering_score"] > previous:
            return False, f"{row['cluster']} scores more than the row above it"
        seen.add(row["cluster"])
        previous = row["ordering_score"]
    return True, "only what the gate passed is ranked, each listing in one cluster, by its RRF score"
    # END SOLUTION


# The walk uses your three checks and the lab's checks for the other layers.
CHECKS = dict(LAB_CHECKS, **{"input": check_input, "permission/freshness": check_permission_freshness,
                             "ranking": check_ranking})


def request_fingerprint(contract: dict) -> str:
    """Task 4. The fingerprint of a REQUEST: the same question, whatever components answered it.

    The lab's query_fingerprint (modules/grounding/mechanism.py) hashes the whole contract,
    its "versions" included, so a run after a component upgrade gets a new fingerprint:
    right for replaying one run, wrong for finding yesterday's runs of the same question
    to compare with today's. Yours leaves the "versions" key out (the contract may also
    come without it) and hashes the rest the same way.

    `contract` is a dict with str keys whose values are str, None, lists of str or a dict
    of str to str (for example {"query": "lip seal 0.625 inch", "family": "lip-seal",
    "diameter_mm": "15.875", "state": "ready", "terms": ["lip", "seal"], "versions":
    {...}}). Its canonical form: the contract without "versions", every str in it (keys
    and values, inside lists and dicts too) in Unicode normal form NFC
    (unicodedata.normalize("NFC", s)), then canonical_json(...), which sorts the keys.
    Return sha256_hex(<that canonical text>). Do not change the dict you are given.

    So one request gives one fingerprint, however its dict was ordered, whichever Unicode
    spelling its text used ("é" as one code point, or "e" plus a combining accent), and
    whichever component versions ran it; another size or another query text gives another.
    """
    # BEGIN SOLUTION
    def nfc(value):
        if isinstance(value, str):
            return unicodedata.normalize("NFC", value)
        if isinstance(value, dict):
            return {nfc(key): nfc(item) for key, item in value.items()}
        if isinstance(value, list):
            return [nfc(item) for item in value]
        return value

    request = {key: value for key, value in contract.items() if key != "versions"}
    return sha256_hex(canonical_json(nfc(request)))
    # END SOLUTION


def first_failing_layer(record: dict):
    """Task 5. Walk LAYERS in order; return a tuple (layer, why) for the first layer whose check in
    CHECKS (the dict above: your checks plus the lab's) returns held False, or None when
    every layer held. Stop at the first failure: a later layer's failure is often a
    consequence, and naming it would send someone to fix the wrong thing.
    """
    # BEGIN SOLUTION
    for layer in LAYERS:
        held, why = CHECKS[layer](record)
        if not held:
            return layer, why
    return None
    # END SOLUTION


def user_view(record: dict) -> dict:
    """Task 6. What the shopper may see of one trace record: a dict with exactly the keys
    "query", "state", "message", "answer", in that order.

      - If first_failing_layer(record) names a layer from "input" up to and including
        "decision" (LAYERS[:7]), the run cannot be trusted: state "unavailable".
      - (What the lab's user_view lets through) If CHECKS["generation"](record) fails
        (an answer line cites a field outside the packet, or cites nothing), the answer
        cannot be shown either: state "unavailable". The lab's view shows such a line,
        because the generation layer comes after the decision in the walk.
      - Otherwise the state is USER_STATES[record["decision"]["state"]]; if that is
        "answer" or "answer_partial" but record["generation"]["answer"] is empty, it is
        "no_match".
      - "query" is record["query"]; "message" is USER_MESSAGES[state]; "answer" holds a
        copy of each line of record["generation"]["answer"] ({"text", "cites"}, cites a
        list) when the state starts with "answer", else [].

    Nothing else: no cause, no count, no ref. A record whose candidates were all denied
    must read exactly like one where nothing matched. The stored record["presentation"]
    is not read: the view is rebuilt from the layers.
    """
    # BEGIN SOLUTION
    found = first_failing_layer(record)
    generated, _why = CHECKS["generation"](record)
    if (found is not None and found[0] in LAYERS[:7]) or not generated:
        state = "unavailable"
    else:
        state = USER_STATES[record["decision"]["state"]]
        if state in ("answer", "answer_partial") and not record["generation"]["answer"]:
            state = "no_match"
    lines = record["generation"]["answer"] if state.startswith("answer") else []
    return {"query": record["query"], "state": state, "message": USER_MESSAGES[state],
            "answer": [{"text": line["text"], "cites": list(line["cites"])} for line in lines]}
    # END SOLUTION


def regression_counts(before, after) -> dict:
    """Task 7. A regression dashboard: what a change broke, by the layer to repair.

    `before` and `after` are iterables (a list, a tuple or a generator) of trace records of
    the same queries, before and after a change, each record naming its query in
    record["query_id"]; the two may list them in different orders. A query REGRESSED when
    its record before held at every layer (first_failing_layer returns None) and its
    record after fails: it counts once, under the layer first_failing_layer(after record)
    names. A query that already failed before is not a regression, wherever it fails
    after. (The lab's failure_counts counts one run's records; this compares two.)

    Return a dict with every layer of LAYERS as a key, in the order of LAYERS, zeros
    included (no other key). Raise ValueError naming the query id when a query id occurs
    twice on one side, or on one side only (then the first such id in sorted order).
    """
    # BEGIN SOLUTION
    def by_query(records) -> dict:
        found = {}
        for record in records:
            if record["query_id"] in found:
                raise ValueError(f"query_id {record['query_id']!r} occurs twice on one side")
            found[record["query_id"]] = record
        return found

    was, now = by_query(before), by_query(after)
    one_side = sorted(set(was) ^ set(now))
    if one_side:
        raise ValueError(f"query_id {one_side[0]!r} is on one side only")
    counts = dict.fromkeys(LAYERS, 0)
    for query_id in sorted(now):
        failed = first_failing_layer(now[query_id])
        if first_failing_layer(was[query_id]) is None and failed is not None:
            counts[failed[0]] += 1
    return counts
    # END SOLUTION


# Task 8 (quiz). The lesson's table of the gate's exclusions over the nine queries shows,
# after the nightly index rebuild, PROHIBITED_FAMILY going from 7 to 0 and PERMISSION_DENIED
# from 14 to 0, while STALE_FIELD stays at 7. The trace does not say why. Read gate() in
# modules/catalogue/policy.py: why did the family exclusions disappear?
#   "a"  the rebuild dropped each listing's family, so no family is prohibited now
#   "b"  with no permission, those listings stop at the permission check, before family
#   "c"  the policy version changed overnight, so family rules are counted another way
#   "d"  the prohibited listings left the index, so no query proposes them any more
# Set REBUILD_QUIZ to one letter.
# BEGIN SOLUTION
REBUILD_QUIZ = "b"
# END SOLUTION


# Task 9 (quiz). With the freshness rule switched off, PW-L006 (its diameter last checked in
# 2020) enters the packet for "graphite mechanical seal 18 mm". A colleague adds an age
# penalty to the ranker instead, and PW-L006 falls out of that packet; the freshness rule
# stays off. Predict: which layer does the walk of that run name first?
#   "a"  none: PW-L006 is out of the packet, so every layer's check holds again
#   "b"  ranking: the penalty is a ranking change, so the walk now stops at ranking
#   "c"  permission/freshness: its check reads what passed the gate, not the packet
#   "d"  assembly: the packet is what changed, so the assembly's check fails first
# Set RANKER_QUIZ to one letter.
# BEGIN SOLUTION
RANKER_QUIZ = "c"
# END SOLUTION


# Task 10 (predict). Walk 2 of the lesson runs PW-Q001 through the index rebuilt from the
# feed export without a permission column: every listing updated on or after 2026-10-11
# (REBUILD_SINCE) arrives with no permission, and the gate fails closed on it. The trace
# does not run PW-Q002 ("carbon ceramic pump seal 16 mm") through that index. Before you
# run anything: which listings end up in PW-Q002's packet (internally; the shopper sees
# "unavailable")? Read the listings' updated_on dates in modules/catalogue/fixture.py and
# PW-Q002's ranking in the trace. Set REBUILT_PACKET to a tuple of listing ids in packet
# order, such as ("PW-L001", "PW-L002").
# BEGIN SOLUTION
REBUILT_PACKET = ("PW-L003", "PW-L009", "PW-L012")
# END SOLUTION


__all__ = ["check_input", "check_permission_freshness", "check_ranking", "CHECKS", "request_fingerprint",
           "first_failing_layer", "user_view", "regression_counts", "REBUILD_QUIZ", "RANKER_QUIZ", "REBUILT_PACKET"]
