"""Lesson 08 exercises: decide states in order, fail closed, and name every empty result.

Task 1  query_state         the state of a whole query: precedence only when nothing is usable
Task 2  listing_and_seller_gate  the lesson's gate with a second permission, the seller's
Task 3  rank_permitted      filter permission (a cluster fails closed as one product) before ranking
Task 4  empty_cause_from_codes  say why a result is empty from the recorded reason codes
Task 5  EXPIRED_FIRST_QUIZ  which layer failed first when a stale listing ranks first
Task 6  PW_Q002_ON_2027_06_01  predict the state and packet of a query seven months later

Check your work:  python3 -B methods.py check eligibility
Stuck?            python3 -B methods.py hint eligibility
"""

from modules.catalogue import opaque_ref
from modules.catalogue.policy import decide_state
from modules.hybrid import reciprocal_rank_fusion


def query_state(usable, matched_states, stale_left_out: bool) -> str:
    """Task 1. The state of a whole query (its contract ready), from what the controls did to its
    candidates: the rule of the lesson's decision stage, which decide_state alone does not give.

    `usable`: the ids of the candidates that passed every control (a list or a tuple; may be empty).
    `matched_states`: the states of the candidates that were withheld or excluded but would have
    fitted the request (PW-Q001's denied 16 mm seal is one: "unauthorized"); any iterable (a
    list, a tuple, or an iterator that can be read only once), any order, repeats allowed, may
    be empty.
    `stale_left_out`: True when a stale optional field (a price) of a packed listing was left out.

    1. Some evidence is usable: "degraded" if a stale optional field was left out, else
       "respond". The excluded candidates' states do not stop an answer from permitted
       evidence: a denied neighbour is never a reason to refuse what may be used.
    2. Nothing is usable: the strongest of `matched_states` by the precedence
           prohibited_scope > unauthorized > incompatible > conflict > clarify > degraded
       or "incompatible" when nothing matched at all (nothing in the catalogue fits).

    A state name that is not one of the lesson's seven raises ValueError, even when some
    evidence is usable (a typo must not be ignored).

    >>> query_state(["PW-L001"], ["unauthorized"], False)
    'respond'
    >>> query_state([], ["degraded", "conflict"], False)
    'conflict'
    """
    # BEGIN SOLUTION
    order = ("prohibited_scope", "unauthorized", "incompatible", "conflict", "clarify", "degraded", "respond")
    given = set(matched_states)
    for state in given:
        if state not in order:
            raise ValueError(f"unknown state {state!r}")
    if usable:
        return "degraded" if stale_left_out else "respond"
    for state in order:
        if state in given:
            return state
    return "incompatible"
    # END SOLUTION


def listing_and_seller_gate(pairs, seller_of: dict, seller_permission: dict) -> tuple:
    """Task 2. The lesson's permission gate with a second permission: the seller's.

    A marketplace suspends sellers: a suspended seller's listings may not be offered,
    whatever each listing says. Real retrieval has this shape often: a passage is usable
    only when its document and the collection that holds it both allow it.

    `pairs`: (listing_id, permission) pairs, as the lesson's permission_gate takes them
    (modules/catalogue/policy.py); one id may come more than once.
    `seller_of`: {listing id: seller id}. `seller_permission`: {seller id: permission}.

    A listing id passes only when both levels say exactly "allowed":
      1. its own copies, by the lesson's rule: copies that disagree give
         "DUPLICATE_ID_CONFLICT", "denied" gives "PERMISSION_DENIED", any other value
         than "allowed" gives "PERMISSION_UNKNOWN";
      2. then its seller: "denied" gives "SELLER_DENIED"; a listing with no seller in
         `seller_of`, a seller missing from `seller_permission`, or any other value than
         "allowed" gives "SELLER_UNKNOWN" (fail closed: nobody vouched for the seller).
    When both levels fail, the listing's own reason is the one recorded (step 1 first).

    Return (permitted, withheld) as the lesson's gate does: the permitted ids, and
    (opaque_ref(listing_id), reason) pairs; each id once, in the order of its first pair;
    each of the two a list or a tuple (either is accepted). A withheld id never appears.

    >>> listing_and_seller_gate([("PW-L001", "allowed"), ("PW-L003", "allowed")],
    ...                         {"PW-L001": "S1", "PW-L003": "S2"}, {"S1": "allowed", "S2": "denied"})
    (['PW-L001'], [('ref-769e54d0cb04', 'SELLER_DENIED')])
    """
    # BEGIN SOLUTION
    given = {}
    for listing_id, permission in pairs:
        given.setdefault(listing_id, []).append(permission)
    permitted, withheld = [], []
    for listing_id, permissions in given.items():
        seller = seller_permission.get(seller_of[listing_id]) if listing_id in seller_of else None
        if any(p != permissions[0] for p in permissions):
            reason = "DUPLICATE_ID_CONFLICT"
        elif permissions[0] == "denied":
            reason = "PERMISSION_DENIED"
        elif permissions[0] != "allowed":
            reason = "PERMISSION_UNKNOWN"
        elif seller == "denied":
            reason = "SELLER_DENIED"
        elif seller != "allowed":
            reason = "SELLER_UNKNOWN"
        else:
            permitted.append(listing_id)
            continue
        withheld.append((opaque_ref(listing_id), reason))
    return permitted, withheld
    # END SOLUTION


def rank_permitted(rankings, permission_of: dict, cluster_of: dict, k: int = 60) -> list:
    """Task 3. Remove every listing that may not be used from every ranking, then fuse by rank.

    `rankings` is a list of channel rankings (lists of listing ids, best first);
    `permission_of` maps a listing id to its permission; `cluster_of` maps a listing id to
    its canonical cluster (a listing and its copy share one). A listing passes only if its
    permission is exactly "allowed"; a listing missing from `permission_of` has unknown
    permission and fails closed.

    One change from the lesson's gate, which judges each id on its own: this deployment
    treats a canonical cluster as one product. A listing passes only if every listing of
    its cluster (every id `cluster_of` maps to that cluster) passes too: when one copy is
    denied or unknown, the product is withheld in all its listings. A listing missing from
    `cluster_of` is a cluster of its own.

    Filter first, rank second: after the filter, the permitted listings of each
    ranking close up (they take ranks 1, 2, 3...), so a withheld neighbour leaves
    no trace in any score. Then return reciprocal_rank_fusion(filtered, k): (id, ordering_score)
    pairs, best first (a list or a tuple, either is accepted).
    """
    # BEGIN SOLUTION
    allowed = {listing_id for listing_id, permission in permission_of.items() if permission == "allowed"}
    blocked = {cluster for listing_id, cluster in cluster_of.items() if listing_id not in allowed}
    filtered = [[listing_id for listing_id in ranking
                 if listing_id in allowed and (listing_id not in cluster_of or cluster_of[listing_id] not in blocked)]
                for ranking in rankings]
    return reciprocal_rank_fusion(filtered, k)
    # END SOLUTION


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

    A candidate counts as the strongest state among its codes (the lesson's decide_state,
    imported above): a listing that is stale and also of a prohibited family is not merely
    stale. Any other code, or a candidate with no code at all, raises ValueError, whatever
    the two flags say. Then the first rule that applies wins:

        1. scope_prohibited                             -> "out_of_scope"
        2. transformation_failed                        -> "transformation_failed"
        3. no withheld candidate matched                -> "no_permitted_match"
        4. every candidate counts as "unauthorized"     -> "all_unauthorized"
        5. every candidate counts as "degraded" (stale) -> "all_stale"
        6. otherwise                                    -> "all_excluded"

    >>> empty_cause_from_codes(False, False, [("PERMISSION_UNKNOWN",), ("PERMISSION_DENIED",)])
    'all_unauthorized'
    """
    # BEGIN SOLUTION
    state_of = {"PROHIBITED_FAMILY": "prohibited_scope", "PERMISSION_DENIED": "unauthorized",
                "PERMISSION_UNKNOWN": "unauthorized", "DUPLICATE_ID_CONFLICT": "unauthorized",
                "FAMILY_MISMATCH": "incompatible", "DIAMETER_MISMATCH": "incompatible",
                "TITLE_FIELD_CONFLICT": "conflict", "LISTING_UNIT_MISSING": "clarify", "STALE_FIELD": "degraded"}
    counted = set()  # the state each candidate counts as
    for codes in withheld_codes:
        if not codes:
            raise ValueError("a withheld candidate must carry at least one reason code")
        for code in codes:
            if code not in state_of:
                raise ValueError(f"unknown reason code {code!r}")
        counted.add(decide_state([state_of[code] for code in codes]))
    if scope_prohibited:
        return "out_of_scope"
    if transformation_failed:
        return "transformation_failed"
    if not counted:
        return "no_permitted_match"
    if counted == {"unauthorized"}:
        return "all_unauthorized"
    if counted == {"degraded"}:
        return "all_stale"
    return "all_excluded"
    # END SOLUTION


# Task 5 (quiz). PW-L006's diameter was last checked on 2020-06-15, 2330 days before the
# lesson's as-of date 2026-11-01 (the policy allows 1826 days for a diameter). Suppose a
# build shows PW-L006 first in the ranked results for "graphite mechanical seal 18 mm".
# Before anyone tunes anything: which layer failed first?
#   "a"  ranking: the fusion gave the stale listing too much weight
#   "b"  retrieval: the channels should never have proposed it
#   "c"  generation: the answer stage should have checked the date
#   "d"  the freshness control: it should have withheld it
# Set EXPIRED_FIRST_QUIZ to one letter.
# BEGIN SOLUTION
EXPIRED_FIRST_QUIZ = "d"
# END SOLUTION


# Task 6 (predict). Before running anything: the trace runs PW-Q002 ("carbon ceramic pump
# seal 16 mm") as of 2026-11-01, and its packet holds PW-L001, PW-L003 and PW-L009 (the cap
# is 3 listings; PW-L012 is the fourth usable one). Run the same query, over the same
# catalogue (no field is checked again in between), as of 2027-06-01, 212 days later.
# Read the freshness table (a diameter stays fresh for 1826 days, a price for 60; a stale
# diameter withholds a listing, a stale price is only left out of the packet; the table
# lists every field last checked before 2025, and no field was checked after the as-of
# date) and predict the decision's state and the listings its packet holds, in packet
# order. Set PW_Q002_ON_2027_06_01 to (state, (listing id, ...)), for example
# ("respond", ("PW-L001", "PW-L003", "PW-L009")); a list is accepted for the ids too.
# BEGIN SOLUTION
PW_Q002_ON_2027_06_01 = ("degraded", ("PW-L001", "PW-L009", "PW-L012"))
# END SOLUTION


__all__ = ["query_state", "listing_and_seller_gate", "rank_permitted", "empty_cause_from_codes",
           "EXPIRED_FIRST_QUIZ", "PW_Q002_ON_2027_06_01"]
