"""Grader for lesson 08, eligibility. Run: python3 -B methods.py check eligibility"""

import functools
from itertools import combinations, permutations

from _lab import LabFailure, Task, call, expect, expect_choice, expect_error, expect_true, function, load
from modules.common.catalogue import LISTINGS, QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS, opaque_ref
from modules.eligibility import STATES, evaluate
from modules.hybrid import reciprocal_rank_fusion

LESSON = "eligibility"

TASKS = (
    Task(1, "decide_state", "Decide the state by a fixed precedence", hints=(
        "Several controls can fire at once. Should the answer depend on the order they fired in, or on a "
        "ranking of the states themselves?",
        "Walk the seven states from strongest to weakest and return the first one that was given. What do you "
        "return when nothing was given, and what when a name is misspelled?",
        "order = ('prohibited_scope', 'unauthorized', 'incompatible', 'conflict', 'clarify', 'degraded', "
        "'respond'); check every given name is in order (else ValueError), then return the first of order "
        "that is in set(states), or 'respond'.",
    )),
    Task(2, "permission_gate", "Fail closed on permission", hints=(
        "Which permission values may pass? Is 'unknown' closer to yes or to no when nobody can ask?",
        "Test for the one value that passes (== 'allowed'), not for the values that fail: a missing or "
        "misspelled value must fail too.",
        "Two copies of one id, one 'allowed' and one 'denied': which copy do you believe, and does the order in "
        "which they arrive change your answer?",
        "Group the permissions by id first (a dict of lists keeps first-seen order). Copies that disagree give "
        "(opaque_ref(id), 'DUPLICATE_ID_CONFLICT'); otherwise 'allowed' passes, 'denied' gives 'PERMISSION_DENIED' "
        "and anything else 'PERMISSION_UNKNOWN'. Never record the id itself.",
    )),
    Task(3, "rank_permitted", "Filter permission before ranking", hints=(
        "If a denied listing sat at rank 1 of a channel and you remove it after fusing, what rank did the "
        "listing below it get in the scores?",
        "Filter each ranking first, keeping only ids whose permission is exactly 'allowed' (a missing id is "
        "unknown), then fuse the filtered rankings.",
        "filtered = [[i for i in r if permission_of.get(i) == 'allowed'] for r in rankings]; "
        "return reciprocal_rank_fusion(filtered, k).",
    )),
    Task(4, "empty_cause", "Name the cause of an empty result", hints=(
        "An empty result has six possible causes here. Why would 'no results' as one bucket hurt the person "
        "who has to fix it?",
        "Apply the rules in the order of the docstring. 'All unauthorized' means every withheld state is "
        "'unauthorized': is one enough?",
        "Check scope_prohibited, then transformation_failed, then an empty list (no_permitted_match), then "
        "all(s == 'unauthorized'), then all(s == 'degraded'), else 'all_excluded'.",
    )),
    Task(5, "EXPIRED_FIRST_QUIZ", "Quiz: which layer failed first", hints=(
        "Walk the layers in the order the data flows. Where should a listing with a stale diameter have stopped?",
        "If a listing that must never be ranked reaches the ranker, is the ranker the first thing that went wrong?",
    )),
)


_SECRETS = tuple((secret, opaque_ref(secret)) for secret in RESTRICTED_IDS) + tuple(
    (text, "<a withheld listing's text>") for text in RESTRICTED_STRINGS)


def _safe(test):
    """Grading messages of permission tasks speak in refs: a withheld id becomes its opaque ref."""
    @functools.wraps(test)
    def run():
        try:
            test()
        except LabFailure as failure:
            message = str(failure)
            for secret, shown in _SECRETS:
                message = message.replace(secret, shown)
            raise LabFailure(message) from None
    return run


# ---------------------------------------------------------------- Task 1

def test_task1_every_pair_follows_the_precedence():
    fn = function(load(LESSON), "decide_state")
    for stronger, weaker in combinations(STATES, 2):
        for given in ([stronger, weaker], [weaker, stronger]):
            shown = f"decide_state({given!r})"
            expect(call(fn, given, shown=shown), stronger, shown,
                   why=f"{stronger} comes before {weaker} in the precedence, whatever order they are given in")


def test_task1_single_states_and_nothing():
    fn = function(load(LESSON), "decide_state")
    for state in STATES:
        expect(call(fn, [state], shown=f"decide_state([{state!r}])"), state, f"decide_state([{state!r}])")
    expect(call(fn, [], shown="decide_state([])"), "respond", "decide_state([])",
           why="no control fired, so the evidence may be used")
    expect(call(fn, ("degraded", "degraded"), shown="decide_state(('degraded', 'degraded'))"), "degraded",
           "decide_state(('degraded', 'degraded'))", why="repeats change nothing")


def test_task1_many_states_in_any_order():
    fn = function(load(LESSON), "decide_state")
    tail = ["respond", "degraded", "clarify", "conflict", "incompatible"]
    for order in list(permutations(tail))[::17]:
        shown = f"decide_state({list(order)!r})"
        expect(call(fn, list(order), shown=shown), "incompatible", shown)
    shown = "decide_state(iter(['clarify', 'unauthorized', 'degraded']))"
    expect(call(fn, iter(["clarify", "unauthorized", "degraded"]), shown=shown), "unauthorized", shown,
           why="any iterable of states works, even one you can read only once")


def test_task1_unknown_state_is_an_error():
    fn = function(load(LESSON), "decide_state")
    expect_error(ValueError, fn, ["conflict", "stale"], shown="decide_state(['conflict', 'stale'])",
                 why="'stale' is not a state name (the state is 'degraded'): a typo must not be ignored")
    expect_error(ValueError, fn, ["Respond"], shown="decide_state(['Respond'])", why="names are exact")


# ---------------------------------------------------------------- Task 2

def test_task2_only_allowed_passes():
    fn = function(load(LESSON), "permission_gate")
    pairs = [("PW-L001", "allowed"), ("X-1", "denied"), ("X-2", "unknown"), ("PW-L003", "allowed")]
    shown = f"permission_gate({pairs!r})"
    got = call(fn, pairs, shown=shown)
    want = (["PW-L001", "PW-L003"], [(opaque_ref("X-1"), "PERMISSION_DENIED"),
                                     (opaque_ref("X-2"), "PERMISSION_UNKNOWN")])
    expect(got, want, shown, why="unknown permission fails closed, exactly like denied (with its own reason)")


def test_task2_odd_values_fail_closed():
    fn = function(load(LESSON), "permission_gate")
    for value in (None, "", "ALLOWED", "allowed ", "yes"):
        pairs = [("PW-L009", value)]
        shown = f"permission_gate({pairs!r})"
        expect(call(fn, pairs, shown=shown), ([], [(opaque_ref("PW-L009"), "PERMISSION_UNKNOWN")]), shown,
               why="only the exact value 'allowed' passes; anything else is unknown and fails closed")


def test_task2_withheld_ids_never_appear():
    fn = function(load(LESSON), "permission_gate")
    pairs = [(listing.id, listing.permission) for listing in LISTINGS]
    shown = "permission_gate(<the 16 catalogue listings>)"
    permitted, withheld = call(fn, pairs, shown=shown)
    text = repr(withheld)
    for listing_id in RESTRICTED_IDS:
        expect_true(listing_id not in text and listing_id not in permitted,
                    f"called {shown}\n  the id of a withheld listing appears in the result\n"
                    "  a withheld listing must be named only by its opaque_ref(...)")
    expect(len(permitted), 13, shown + " -> number permitted")
    expect([reason for _, reason in withheld], ["PERMISSION_DENIED", "PERMISSION_UNKNOWN", "PERMISSION_DENIED"],
           shown + " -> reasons", why="two catalogue listings are denied and one has unknown permission")
    expect(call(fn, [], shown="permission_gate([])"), ([], []), "permission_gate([])")


def test_task2_copies_that_disagree_fail_closed():
    fn = function(load(LESSON), "permission_gate")
    for pairs in ([("PW-L004", "allowed"), ("PW-L004", "denied")], [("PW-L004", "denied"), ("PW-L004", "allowed")]):
        shown = f"permission_gate({pairs!r})"
        expect(call(fn, pairs, shown=shown), ([], [(opaque_ref("PW-L004"), "DUPLICATE_ID_CONFLICT")]), shown,
               why="two copies of one id disagree: neither can vouch for the other, in either order")
    pairs = [("A", "allowed"), ("B", "unknown"), ("A", "allowed"), ("B", "unknown"), ("C", None), ("C", "allowed")]
    shown = f"permission_gate({pairs!r})"
    expect(call(fn, pairs, shown=shown), (["A"], [(opaque_ref("B"), "PERMISSION_UNKNOWN"),
                                                  (opaque_ref("C"), "DUPLICATE_ID_CONFLICT")]), shown,
           why="copies that agree count once; each id appears once, in the order of its first pair")


# ---------------------------------------------------------------- Task 3

def _expect_fused(got, want, shown, why=""):
    ok = isinstance(got, list) and len(got) == len(want) and all(
        isinstance(g, tuple) and len(g) == 2 and g[0] == w[0] and abs(g[1] - w[1]) < 1e-12 for g, w in zip(got, want))
    expect_true(ok, f"called {shown}\n  got:      {got!r}\n  expected: {want!r}" + (f"\n  why: {why}" if why else ""))


def test_task3_denied_neighbour_leaves_no_trace():
    fn = function(load(LESSON), "rank_permitted")
    rankings = [["D", "A", "B"], ["A", "D"]]
    permission_of = {"A": "allowed", "B": "allowed", "D": "denied"}
    shown = f"rank_permitted({rankings!r}, {permission_of!r}, 60)"
    got = call(fn, rankings, permission_of, 60, shown=shown)
    _expect_fused(got, [("A", 2 / 61), ("B", 1 / 62)], shown,
                  why="after the filter A is rank 1 in both rankings and B rank 2: D was never ranked")


def test_task3_unknown_and_missing_fail_closed():
    fn = function(load(LESSON), "rank_permitted")
    rankings = [["U", "M", "A"]]
    permission_of = {"U": "unknown", "A": "allowed"}
    shown = f"rank_permitted({rankings!r}, {permission_of!r}, 60)"
    _expect_fused(call(fn, rankings, permission_of, 60, shown=shown), [("A", 1 / 61)], shown,
                  why="U is unknown and M has no permission at all: both fail closed")


def test_task3_lesson_query_two():
    fn = function(load(LESSON), "rank_permitted")
    rankings = [list(c.ranking) for c in evaluate(QUERIES[1]).of_kind("channel")]
    permission_of = {listing.id: listing.permission for listing in LISTINGS}
    shown = "rank_permitted(<PW-Q002's three channel rankings>, <catalogue permissions>, 60)"
    got = call(fn, rankings, permission_of, 60, shown=shown)
    want = reciprocal_rank_fusion([[i for i in r if permission_of[i] == "allowed"] for r in rankings], 60)
    _expect_fused(got, want, shown, why="the closest vector neighbour is denied and must not be ranked")
    expect_true(all(i not in RESTRICTED_IDS for i, _ in got), f"called {shown}\n  a restricted id was ranked: {got!r}")


# ---------------------------------------------------------------- Task 4

def _cause(fn, *args):
    shown = f"empty_cause({', '.join(repr(a) for a in args)})"
    return call(fn, *args, shown=shown), shown


def test_task4_each_cause_has_its_name():
    fn = function(load(LESSON), "empty_cause")
    cases = [
        ((True, False, []), "out_of_scope"), ((False, True, []), "transformation_failed"),
        ((False, False, []), "no_permitted_match"), ((False, False, ["unauthorized", "unauthorized"]), "all_unauthorized"),
        ((False, False, ["degraded"]), "all_stale"), ((False, False, ["degraded", "conflict"]), "all_excluded"),
        ((False, False, ["conflict"]), "all_excluded"),
    ]
    for args, want in cases:
        got, shown = _cause(fn, *args)
        expect(got, want, shown)


def test_task4_rules_apply_in_order():
    fn = function(load(LESSON), "empty_cause")
    got, shown = _cause(fn, True, True, ["unauthorized"])
    expect(got, "out_of_scope", shown, why="a prohibited scope is named before anything else")
    got, shown = _cause(fn, False, True, ["degraded"])
    expect(got, "transformation_failed", shown, why="a failed transformation comes before the withheld states")


def test_task4_all_means_all():
    fn = function(load(LESSON), "empty_cause")
    got, shown = _cause(fn, False, False, ["unauthorized", "degraded"])
    expect(got, "all_excluded", shown, why="one unauthorized candidate among others is not 'all unauthorized'")
    got, shown = _cause(fn, False, False, ["degraded", "unauthorized", "degraded"])
    expect(got, "all_excluded", shown, why="nor is a mixture 'all stale'")
    got, shown = _cause(fn, False, False, ("degraded", "degraded"))
    expect(got, "all_stale", shown, why="any sequence of states works, a tuple too")


def test_task4_lesson_queries():
    fn = function(load(LESSON), "empty_cause")
    for query in QUERIES:
        decided = evaluate(query).output("decision")
        if decided.empty_cause in (None, "out_of_scope", "transformation_failed"):
            continue
        states = [state for subject, state, _codes in decided.because if subject != query.id]
        got, shown = _cause(fn, False, False, states)
        expect(got, decided.empty_cause, shown + f"  # {query.id}")


# ---------------------------------------------------------------- Task 5

def test_task5_expired_first_quiz():
    expect_choice(LESSON, "EXPIRED_FIRST_QUIZ", "c", 5, "Walk the layers in the order the data flows")


# Every test speaks in refs: a failure message never names a withheld listing, whatever the answer did.
for _name, _test in list(globals().items()):
    if _name.startswith("test_") and callable(_test):
        globals()[_name] = _safe(_test)
