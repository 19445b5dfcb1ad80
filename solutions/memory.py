"""Lesson 13 exercises: memory is data, with every obligation data has.

Task 1  withhold_reason        the memory gate: whose, which permission, still kept, still true
Task 2  current_versus_memory  explicit current input wins; a disagreement is shown
Task 3  delete_everywhere      a deletion reaches the index, the cached packets and the traces
Task 4  replay_blockers        what in a replay must stop a change before anyone sees it
Task 5  ONLY_MEMORY_QUIZ       why "it is only memory" changes none of the data questions
Task 6  NEXT_DAY_PREDICTION    predict session S1 served one day later

The items are modules/memory/mechanism.py's MemoryItem records (MEM-A1 ... MEM-B4 in ITEMS); the
stores are those of modules/memory/store.py.

Check your work:  python3 -B methods.py check memory
Stuck?            python3 -B methods.py hint memory
"""

from dataclasses import replace

from modules.common import ann
from modules.catalogue import PROHIBITED_FAMILIES, opaque_ref
from modules.catalogue.policy import FRESHNESS, day_number


def withhold_reason(item, buyer: str, as_of: str):
    """Task 1. The first reason that keeps a remembered `item` out of `buyer`'s context on the
    ISO date `as_of`, or None when it may be used. Check in this order and stop at the first:

        1. item.owner is not exactly `buyer`          -> "MEMORY_OTHER_OWNER"
           (another buyer's item is not read any further)
        2. item.permission is not exactly "allowed"    -> "PERMISSION_DENIED" when it is "denied",
                                                          else "PERMISSION_UNKNOWN" (None too)
        3. item.visibility is not "owner"              -> "MEMORY_NOT_VISIBLE"
        4. age = day_number(as_of) - day_number(item.as_of), in days:
           age < 0                                     -> "MEMORY_NOT_YET_RECORDED"
           age > item.retention_days                   -> "MEMORY_EXPIRED"
           (age counts days after the day of recording, which is day 0, as lesson 08
           counts a field's age: recorded on 2025-11-01 and kept 365 days, the item is
           still usable on 2026-11-01, its age 365, and expired on 2026-11-02)
        5. item.field == "family" and item.value is in PROHIBITED_FAMILIES
                                                       -> "PROHIBITED_FAMILY"
        6. a rule in FRESHNESS has rule.field == item.field and age > rule.max_days
                                                       -> "STALE_FIELD"

    These are the catalogue's own rules (fail-closed permission, prohibited families,
    per-field freshness against the as-of date) plus memory's scope, visibility and retention.

    MEM-A1 belongs to BUYER-A, so asked for BUYER-B on any day it gives "MEMORY_OTHER_OWNER".
    """
    # BEGIN SOLUTION
    if item.owner != buyer:
        return "MEMORY_OTHER_OWNER"
    if item.permission != "allowed":
        return "PERMISSION_DENIED" if item.permission == "denied" else "PERMISSION_UNKNOWN"
    if item.visibility != "owner":
        return "MEMORY_NOT_VISIBLE"
    age = day_number(as_of) - day_number(item.as_of)
    if age < 0:
        return "MEMORY_NOT_YET_RECORDED"
    if age > item.retention_days:
        return "MEMORY_EXPIRED"
    if item.field == "family" and item.value in PROHIBITED_FAMILIES:
        return "PROHIBITED_FAMILY"
    for rule in FRESHNESS:
        if rule.field == item.field and age > rule.max_days:
            return "STALE_FIELD"
    return None
    # END SOLUTION


def current_versus_memory(today, remembered, ambiguous: bool = False) -> tuple:
    """Task 2. Decide one field between today's input and memory; return (action, value, conflict).

    `today`: what the current request says about the field (exact text such as "18"), or
    None when it says nothing. `remembered`: the remembered value, or None. `ambiguous`:
    True when today gave the field in a form that cannot be used as it stands (a bare
    number with no unit).

        today is given                     -> ("follow_today", today, conflict) where conflict
                                              is True when a remembered value differs from it
        ambiguous, and something remembered -> ("ask", None, False): memory may suggest the
                                              answer to the question, it never gives it
        only memory has a value            -> ("memory", remembered, False): used, marked as memory
        neither                            -> ("none", None, False)

    >>> current_versus_memory("18", "16")
    ('follow_today', '18', True)
    """
    # BEGIN SOLUTION
    if today is not None:
        return "follow_today", today, remembered is not None and remembered != today
    if ambiguous and remembered is not None:
        return "ask", None, False
    if remembered is not None:
        return "memory", remembered, False
    return "none", None, False
    # END SOLUTION


def delete_everywhere(index, cache, traces, item_id: str) -> tuple:
    """Task 3. Honour a deletion request for `item_id` in every store derived from the item.

    `index`: the approximate index (modules/common/ann.py Index); `cache`: a tuple of
    CacheEntry(session, buyer, query_id, items, packet), `items` being the ids of the memory
    items the cached packet used; `traces`: a tuple of TracePayload(session, buyer, query_id,
    memory), `memory` being ((item id or ref, value), ...).

    Return (index, cache, traces, ref):
        index   without the item's vector (ann.delete(index, item_id)) when the index holds
                it (`item_id in dict(index.vectors)`); unchanged otherwise
        cache   every entry whose `items` contains item_id dropped; the others kept, in order
        traces  every payload kept, each (item_id, value) pair in its `memory` replaced by
                (ref, "deleted"): the trace keeps a record that something was deleted, not what
        ref     opaque_ref(item_id): the keyed ref that stands for the item from now on
    Build new records (dataclasses.replace makes a changed copy); change nothing you were given.
    """
    # BEGIN SOLUTION
    ref = opaque_ref(item_id)
    if item_id in dict(index.vectors):
        index = ann.delete(index, item_id)
    cache = tuple(entry for entry in cache if item_id not in entry.items)
    traces = tuple(replace(payload, memory=tuple((ref, "deleted") if i == item_id else (i, v)
                                                 for i, v in payload.memory)) for payload in traces)
    return index, cache, traces, ref
    # END SOLUTION


def replay_blockers(old: dict, new: dict, forgotten) -> list:
    """Task 4. Read two replays of the same frozen cases and list what must stop the change.

    The lesson's replay_diff lists every difference; an operator still has to decide whether
    the change may be exposed. `old` and `new` map each case id to a row: {"candidates":
    [memory candidates, best first], "exclusions": [[subject, reason code, ...], ...],
    "packet": [field ids], "state": the query's state}. `forgotten` is a collection of item
    ids that must be gone (deleted, or consent withdrawn). Both replays must hold the same
    case ids in the same order, otherwise raise ValueError.

    For each case of `old`, in order, these are blockers (as strings, in this order):
        f"{case}: state {old state} -> {new state}"   the state changed
        f"{case}: packet changed"                     the packet's field ids differ (as a
                                                      list: order counts)
        f"{case}: recalls {item}"                     a forgotten item is among new's
                                                      candidates (one line per item, in
                                                      new's candidate order)
        f"{case}: packs {item}"                       a forgotten item has a field in new's
                                                      packet (a field id that starts with
                                                      f"memory:{item}@"), once per item, in
                                                      packet order
    Candidates that only move in rank, and exclusions that are added or removed, are read but
    never block. Return a list or a tuple (either is accepted); empty means the change may be
    exposed.

    >>> replay_blockers({"S1": {"candidates": ["A"], "exclusions": [], "packet": [], "state": "respond"}},
    ...                 {"S1": {"candidates": ["B", "A"], "exclusions": [], "packet": [], "state": "respond"}},
    ...                 ["B"])
    ['S1: recalls B']
    """
    # BEGIN SOLUTION
    if list(old) != list(new):
        raise ValueError("old and new must replay the same cases")
    gone = set(forgotten)
    blockers = []
    for case in old:
        a, b = old[case], new[case]
        if a["state"] != b["state"]:
            blockers.append(f"{case}: state {a['state']} -> {b['state']}")
        if list(a["packet"]) != list(b["packet"]):
            blockers.append(f"{case}: packet changed")
        blockers += [f"{case}: recalls {item}" for item in b["candidates"] if item in gone]
        packed = [item for field in b["packet"] for item in sorted(gone) if field.startswith(f"memory:{item}@")]
        blockers += [f"{case}: packs {item}" for item in dict.fromkeys(packed)]
    return blockers
    # END SOLUTION


# Task 5 (quiz). A colleague proposes: "It is only memory, and the buyer told us themselves,
# so it can skip the permission check, keep no expiry, and need no deletion path." Which reply
# holds for this lab's store?
#   "a"  they are right: the buyer is the source, so what the buyer said can be trusted as is
#   "b"  every data question applies: owner, consent, expiry, truth, correction, deletion
#   "c"  it needs a relevance check only, since memory never counts as catalogue evidence
#   "d"  once the store is encrypted at rest, those checks are no longer needed at all
# Set ONLY_MEMORY_QUIZ to one letter.
# BEGIN SOLUTION
ONLY_MEMORY_QUIZ = "b"
# END SOLUTION


# Task 6 (predict). The trace serves session S1 (BUYER-A, "mechanical seal 16 mm for a water
# pump") on 2026-11-01 and packs two memory fields. Serve the same session on 2026-11-02, from
# the same store, before any of the buyer's requests. Before you run anything, predict: how
# many memory fields are packed, and what is the catalogue state?
# Set NEXT_DAY_PREDICTION to a tuple (int, str): (memory fields packed, state).
# BEGIN SOLUTION
NEXT_DAY_PREDICTION = (1, "respond")
# END SOLUTION


__all__ = ["withhold_reason", "current_versus_memory", "delete_everywhere", "replay_blockers", "ONLY_MEMORY_QUIZ",
           "NEXT_DAY_PREDICTION"]
