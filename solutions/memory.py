"""Lesson 13 exercises: memory is data, with every obligation data has.

Task 1  withhold_reason        the memory gate: whose, which permission, still kept, still true
Task 2  current_versus_memory  explicit current input wins; a disagreement is shown
Task 3  delete_everywhere      a deletion reaches the index, the cached packets and the traces
Task 4  replay_diff            what a change does to frozen cases, before anyone sees it
Task 5  ONLY_MEMORY_QUIZ       why "it is only memory" changes none of the data questions

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


def replay_diff(old: dict, new: dict) -> dict:
    """Task 4. Compare two replays of the same frozen cases, before a change is exposed.

    `old` and `new` map each case id to a row: {"candidates": [memory candidates, best
    first], "exclusions": [[subject, reason code, ...], ...], "packet": [field ids],
    "state": the query's state}. Both must hold the same case ids in the same order,
    otherwise raise ValueError (a replay compares like with like).

    Return {case id: diff}, every case present, each diff:
        "gained"              candidates in new but not in old, in new's order
        "lost"                candidates in old but not in new, in old's order
        "moved"               [[candidate, old rank, new rank], ...] for candidates in both whose
                              rank (1 = first) changed, in old's order
        "exclusions_added"    exclusions in new but not in old (compare whole entries), new's order
        "exclusions_removed"  exclusions in old but not in new, old's order
        "packet_added"        field ids in new but not in old, new's order
        "packet_removed"      field ids in old but not in new, old's order
        "state"               None when unchanged, else [old state, new state]
    """
    # BEGIN SOLUTION
    if list(old) != list(new):
        raise ValueError("old and new must replay the same cases")
    diff = {}
    for case in old:
        a, b = old[case], new[case]
        rank_a = {c: n for n, c in enumerate(a["candidates"], start=1)}
        rank_b = {c: n for n, c in enumerate(b["candidates"], start=1)}
        diff[case] = {
            "gained": [c for c in b["candidates"] if c not in rank_a],
            "lost": [c for c in a["candidates"] if c not in rank_b],
            "moved": [[c, rank_a[c], rank_b[c]] for c in a["candidates"] if c in rank_b and rank_a[c] != rank_b[c]],
            "exclusions_added": [e for e in b["exclusions"] if e not in a["exclusions"]],
            "exclusions_removed": [e for e in a["exclusions"] if e not in b["exclusions"]],
            "packet_added": [f for f in b["packet"] if f not in a["packet"]],
            "packet_removed": [f for f in a["packet"] if f not in b["packet"]],
            "state": None if a["state"] == b["state"] else [a["state"], b["state"]],
        }
    return diff
    # END SOLUTION


# Task 5 (quiz). A colleague proposes: "It is only memory, and the buyer told us themselves,
# so it can skip the permission check, keep no expiry, and need no deletion path." Which reply
# holds for this lab's store?
#   "a"  they are right: the buyer is the source, so a remembered item is trustworthy as it is
#   "b"  every data question still applies: whose item it is and who may see it, whether
#        consent allows this use, how long it is kept and whether it is still true, how it is
#        corrected and deleted everywhere it was copied (index, cached packets, traces), and
#        which encoder produced its vectors; memory passes the same gate as catalogue evidence
#   "c"  memory only needs a relevance check, because it never counts as catalogue evidence
#   "d"  once the store is encrypted at rest, none of those checks is needed
# Set ONLY_MEMORY_QUIZ to one letter.
# BEGIN SOLUTION
ONLY_MEMORY_QUIZ = "b"
# END SOLUTION


__all__ = ["withhold_reason", "current_versus_memory", "delete_everywhere", "replay_diff", "ONLY_MEMORY_QUIZ"]
