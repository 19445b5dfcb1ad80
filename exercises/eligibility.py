# TODO: fill in each answer, then run: python3 -B methods.py check eligibility
"""Lesson 08 exercises: decide states in order, fail closed, and name every empty result.

Task 1  decide_state        the strongest state wins, by a fixed precedence
Task 2  permission_gate     only "allowed" passes; the rest leave as opaque references
Task 3  rank_permitted      filter permission before ranking, then fuse by rank
Task 4  empty_cause_from_codes  say why a result is empty from the recorded reason codes
Task 5  EXPIRED_FIRST_QUIZ  which layer failed first when a stale listing ranks first

Check your work:  python3 -B methods.py check eligibility
Stuck?            python3 -B methods.py hint eligibility
"""

from modules.catalogue import opaque_ref
from modules.hybrid import reciprocal_rank_fusion


def decide_state(states) -> str:
    """Task 1. Return the strongest of `states` by this precedence, strongest first:

        prohibited_scope > unauthorized > incompatible > conflict > clarify > degraded > respond

    `states` is any collection of those names (repeats allowed, in any order).
    With no states at all, return "respond". A name that is not one of the seven
    raises ValueError (a typo must not be silently ignored).

    >>> decide_state(["degraded", "conflict"])
    'conflict'
    """
    raise NotImplementedError("decide_state: write your answer here, then run: python3 -B methods.py check eligibility")


def permission_gate(pairs) -> tuple:
    """Task 2. Split (listing_id, permission) pairs into what may be used and what is withheld.

    Only the exact value "allowed" passes. Everything else fails closed: "denied"
    is withheld with reason "PERMISSION_DENIED"; "unknown", None, "" or any other
    value is withheld with reason "PERMISSION_UNKNOWN".

    One id may come more than once (two copies of one listing in a feed). Copies that
    agree count once. Copies that disagree about permission fail closed, whatever the
    order: the id is withheld with reason "DUPLICATE_ID_CONFLICT" (no copy can vouch
    for the other).

    Return (permitted, withheld): `permitted` is the list of permitted ids, `withheld` a
    list of (opaque_ref(listing_id), reason); each id appears once, in the order of its
    first pair. A withheld id never appears in the result: only its opaque reference.

    >>> permission_gate([("PW-L001", "allowed"), ("X-1", "denied")])
    (['PW-L001'], [('ref-38088e820ca0', 'PERMISSION_DENIED')])
    """
    raise NotImplementedError("permission_gate: write your answer here, then run: python3 -B methods.py check eligibility")


def rank_permitted(rankings, permission_of: dict, k: int = 60) -> list:
    """Task 3. Remove every listing that is not permitted from every ranking, then fuse by rank.

    `rankings` is a list of channel rankings (lists of listing ids, best first);
    `permission_of` maps a listing id to its permission. A listing passes only if
    its permission is exactly "allowed"; a listing missing from `permission_of`
    has unknown permission and fails closed.

    Filter first, rank second: after the filter, the permitted listings of each
    ranking close up (they take ranks 1, 2, 3...), so a withheld neighbour leaves
    no trace in any score. Then return reciprocal_rank_fusion(filtered, k).
    """
    raise NotImplementedError("rank_permitted: write your answer here, then run: python3 -B methods.py check eligibility")


def empty_cause_from_codes(scope_prohibited: bool, transformation_failed: bool, withheld_codes) -> str:
    """Task 4. Name the cause of an empty result from the reason codes the controls recorded.

    `scope_prohibited`: the query asks about a prohibited family.
    `transformation_failed`: the query could not be transformed (nothing was retrieved).
    `withheld_codes`: one entry per withheld candidate that matched the request: the tuple
    of reason codes recorded for it, as the trace prints them (for example
    [("PERMISSION_DENIED",), ("STALE_FIELD",)]); the list may be empty.

    Each code belongs to one state (state: its codes):

        prohibited_scope  PROHIBITED_FAMILY
        unauthorized      PERMISSION_DENIED, PERMISSION_UNKNOWN, DUPLICATE_ID_CONFLICT
        incompatible      FAMILY_MISMATCH, DIAMETER_MISMATCH
        conflict          TITLE_FIELD_CONFLICT
        clarify           LISTING_UNIT_MISSING
        degraded          STALE_FIELD

    A candidate counts as the strongest state among its codes (Task 1's precedence): a
    listing that is stale and also of a prohibited family is not merely stale. Any other
    code, or a candidate with no code at all, raises ValueError. Then the first rule that
    applies wins:

        1. scope_prohibited                             -> "out_of_scope"
        2. transformation_failed                        -> "transformation_failed"
        3. no withheld candidate matched                -> "no_permitted_match"
        4. every candidate counts as "unauthorized"     -> "all_unauthorized"
        5. every candidate counts as "degraded" (stale) -> "all_stale"
        6. otherwise                                    -> "all_excluded"

    >>> empty_cause_from_codes(False, False, [("PERMISSION_UNKNOWN",), ("PERMISSION_DENIED",)])
    'all_unauthorized'
    """
    raise NotImplementedError("empty_cause_from_codes: write your answer here, then run: python3 -B methods.py check eligibility")


# Task 5 (quiz). PW-L006's diameter was last checked on 2020-06-15, 2330 days before the
# lesson's as-of date 2026-11-01 (the policy allows 1826 days for a diameter). Suppose a
# build shows PW-L006 first in the ranked results for "graphite mechanical seal 18 mm".
# Before anyone tunes anything: which layer failed first?
#   "a"  ranking: its fusion gave the stale listing too much weight
#   "b"  retrieval: the vector channel should not have proposed it
#   "c"  generation: the answer stage should have noticed the date
#   "d"  the freshness control: a listing whose required field is stale must be withheld
#        before ranking, so it should never have reached the ranker at all
# Set EXPIRED_FIRST_QUIZ to one letter.
EXPIRED_FIRST_QUIZ = None  # TODO: your answer


__all__ = ["decide_state", "permission_gate", "rank_permitted", "empty_cause_from_codes", "EXPIRED_FIRST_QUIZ"]
