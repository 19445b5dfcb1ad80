"""Grader for lesson 08, eligibility. Run: python3 -B methods.py check eligibility"""

from itertools import combinations, permutations

from labtools.grading.harness import (manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load,
                  redacting, Shown)
from modules.catalogue.fixture import LISTINGS, QUERIES, RESTRICTED_IDS, opaque_ref, withheld_replacements
from modules.eligibility import STATES, evaluate
from modules.hybrid import reciprocal_rank_fusion

LESSON = "eligibility"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them


# Grading messages of permission tasks speak in refs: a withheld id becomes its opaque ref.
_safe = redacting(withheld_replacements())


# ---------------------------------------------------------------- Task 1

def test_task1_every_pair_follows_the_precedence():
    fn = function(load(LESSON), "decide_state")
    for stronger, weaker in combinations(STATES, 2):
        for given in ([stronger, weaker], [weaker, stronger]):
            expect_call(fn, given, want=stronger,
                        why=f"{stronger} comes before {weaker} in the precedence, whatever order they are given in")


def test_task1_single_states_and_nothing():
    fn = function(load(LESSON), "decide_state")
    for state in STATES:
        expect_call(fn, [state], want=state)
    expect_call(fn, [], want="respond", why="no control fired, so the evidence may be used")
    expect_call(fn, ("degraded", "degraded"), want="degraded", why="repeats change nothing")


def test_task1_many_states_in_any_order():
    fn = function(load(LESSON), "decide_state")
    tail = ["respond", "degraded", "clarify", "conflict", "incompatible"]
    for order in list(permutations(tail))[::17]:
        expect_call(fn, list(order), want="incompatible")
    once = iter(["clarify", "unauthorized", "degraded"])
    expect_call(fn, Shown("iter(['clarify', 'unauthorized', 'degraded'])", once),
                want="unauthorized", why="any iterable of states works, even one you can read only once")


def test_task1_unknown_state_is_an_error():
    fn = function(load(LESSON), "decide_state")
    expect_call(fn, ["conflict", "stale"], raises=ValueError,
                why="'stale' is not a state name (the state is 'degraded'): a typo must not be ignored")
    expect_call(fn, ["Respond"], raises=ValueError, why="names are exact")


# ---------------------------------------------------------------- Task 2

def test_task2_only_allowed_passes():
    fn = function(load(LESSON), "permission_gate")
    pairs = [("PW-L001", "allowed"), ("X-1", "denied"), ("X-2", "unknown"), ("PW-L003", "allowed")]
    want = (["PW-L001", "PW-L003"], [(opaque_ref("X-1"), "PERMISSION_DENIED"),
                                     (opaque_ref("X-2"), "PERMISSION_UNKNOWN")])
    expect_call(fn, pairs, want=want, why="unknown permission fails closed, exactly like denied (with its own reason)")


def test_task2_odd_values_fail_closed():
    fn = function(load(LESSON), "permission_gate")
    for value in (None, "", "ALLOWED", "allowed ", "yes"):
        pairs = [("PW-L009", value)]
        expect_call(fn, pairs, want=([], [(opaque_ref("PW-L009"), "PERMISSION_UNKNOWN")]),
                    why="only the exact value 'allowed' passes; anything else is unknown and fails closed")


def test_task2_withheld_ids_never_appear():
    fn = function(load(LESSON), "permission_gate")
    pairs = [(listing.id, listing.permission) for listing in LISTINGS]
    (permitted, withheld), shown = call_shown(fn, Shown("<the 16 catalogue listings>", pairs))
    text = repr(withheld)
    for listing_id in RESTRICTED_IDS:
        expect_true(listing_id not in text and listing_id not in permitted,
                    f"called {shown}\n  the id of a withheld listing appears in the result\n"
                    "  a withheld listing must be named only by its opaque_ref(...)")
    expect(len(permitted), 13, shown + " -> number permitted")
    expect([reason for _, reason in withheld], ["PERMISSION_DENIED", "PERMISSION_UNKNOWN", "PERMISSION_DENIED"],
           shown + " -> reasons", why="two catalogue listings are denied and one has unknown permission")
    expect_call(fn, [], want=([], []))


def test_task2_copies_that_disagree_fail_closed():
    fn = function(load(LESSON), "permission_gate")
    for pairs in ([("PW-L004", "allowed"), ("PW-L004", "denied")], [("PW-L004", "denied"), ("PW-L004", "allowed")]):
        expect_call(fn, pairs, want=([], [(opaque_ref("PW-L004"), "DUPLICATE_ID_CONFLICT")]),
                    why="two copies of one id disagree: neither can vouch for the other, in either order")
    pairs = [("A", "allowed"), ("B", "unknown"), ("A", "allowed"), ("B", "unknown"), ("C", None), ("C", "allowed")]
    expect_call(fn, pairs, want=(["A"], [(opaque_ref("B"), "PERMISSION_UNKNOWN"),
                                         (opaque_ref("C"), "DUPLICATE_ID_CONFLICT")]),
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
    got, shown = call_shown(fn, rankings, permission_of, 60)
    _expect_fused(got, [("A", 2 / 61), ("B", 1 / 62)], shown,
                  why="after the filter A is rank 1 in both rankings and B rank 2: D was never ranked")


def test_task3_unknown_and_missing_fail_closed():
    fn = function(load(LESSON), "rank_permitted")
    rankings = [["U", "M", "A"]]
    permission_of = {"U": "unknown", "A": "allowed"}
    got, shown = call_shown(fn, rankings, permission_of, 60)
    _expect_fused(got, [("A", 1 / 61)], shown,
                  why="U is unknown and M has no permission at all: both fail closed")


def test_task3_lesson_query_two():
    fn = function(load(LESSON), "rank_permitted")
    rankings = [list(c.ranking) for c in evaluate(QUERIES[1]).of_kind("channel")]
    permission_of = {listing.id: listing.permission for listing in LISTINGS}
    got, shown = call_shown(fn, Shown("<PW-Q002's three channel rankings>", rankings),
                            Shown("<catalogue permissions>", permission_of), 60)
    want = reciprocal_rank_fusion([[i for i in r if permission_of[i] == "allowed"] for r in rankings], 60)
    _expect_fused(got, want, shown, why="the closest vector neighbour is denied and must not be ranked")
    expect_true(all(i not in RESTRICTED_IDS for i, _ in got), f"called {shown}\n  a restricted id was ranked: {got!r}")


# ---------------------------------------------------------------- Task 4

def test_task4_each_cause_has_its_name():
    fn = function(load(LESSON), "empty_cause_from_codes")
    cases = [
        ((True, False, []), "out_of_scope"), ((False, True, []), "transformation_failed"),
        ((False, False, []), "no_permitted_match"),
        ((False, False, [("PERMISSION_UNKNOWN",), ("PERMISSION_DENIED",)]), "all_unauthorized"),
        ((False, False, [("STALE_FIELD",)]), "all_stale"),
        ((False, False, [("TITLE_FIELD_CONFLICT",), ("STALE_FIELD",)]), "all_excluded"),
        ((False, False, [("LISTING_UNIT_MISSING",)]), "all_excluded"),
        ((False, False, [("PROHIBITED_FAMILY",)]), "all_excluded"),
        ((False, False, [("FAMILY_MISMATCH",), ("DIAMETER_MISMATCH",)]), "all_excluded"),
        ((False, False, [("DIAMETER_MISMATCH", "FAMILY_MISMATCH"), ("PERMISSION_DENIED",)]), "all_excluded"),
    ]
    for args, want in cases:
        expect_call(fn, *args, want=want)


def test_task4_rules_apply_in_order():
    fn = function(load(LESSON), "empty_cause_from_codes")
    expect_call(fn, True, True, [("PERMISSION_DENIED",)], want="out_of_scope",
                why="a prohibited scope is named before anything else")
    expect_call(fn, False, True, [("STALE_FIELD",)], want="transformation_failed",
                why="a failed transformation comes before the withheld candidates")


def test_task4_every_permission_code_is_unauthorized():
    fn = function(load(LESSON), "empty_cause_from_codes")
    for code in ("PERMISSION_DENIED", "PERMISSION_UNKNOWN", "DUPLICATE_ID_CONFLICT"):
        expect_call(fn, False, False, [(code,)], want="all_unauthorized",
                    why=f"{code} withholds a candidate for permission: its state is unauthorized")
    expect_call(fn, False, False, [("DUPLICATE_ID_CONFLICT",), ("PERMISSION_UNKNOWN",), ("PERMISSION_DENIED",)],
                want="all_unauthorized", why="three different permission codes: every candidate is unauthorized")


def test_task4_all_means_all():
    fn = function(load(LESSON), "empty_cause_from_codes")
    expect_call(fn, False, False, [("PERMISSION_DENIED",), ("STALE_FIELD",)], want="all_excluded",
                why="one unauthorized candidate among others is not 'all unauthorized'")
    expect_call(fn, False, False, [("STALE_FIELD",), ("PERMISSION_UNKNOWN",), ("STALE_FIELD",)],
                want="all_excluded", why="nor is a mixture 'all stale'")
    expect_call(fn, False, False, (("STALE_FIELD",), ("STALE_FIELD",)), want="all_stale",
                why="any sequence of code tuples works, a tuple too")


def test_task4_a_candidate_counts_as_its_strongest_code():
    fn = function(load(LESSON), "empty_cause_from_codes")
    why = ("on 2032-06-01 PW-L008 is of a prohibited family and stale: prohibited_scope is stronger than degraded, "
           "so it is not a stale candidate")
    for both in (("PROHIBITED_FAMILY", "STALE_FIELD"), ("STALE_FIELD", "PROHIBITED_FAMILY")):
        expect_call(fn, False, False, [both], want="all_excluded", why=why)
        expect_call(fn, False, False, [("STALE_FIELD",), both], want="all_excluded", why=why)
    expect_call(fn, False, False, [("STALE_FIELD", "STALE_FIELD")], want="all_stale",
                why="a code given twice is still one stale candidate")


def test_task4_unknown_codes_are_errors():
    fn = function(load(LESSON), "empty_cause_from_codes")
    expect_call(fn, False, False, [("STALE",)], raises=ValueError,
                why="'STALE' is not a reason code (the code is 'STALE_FIELD'): a typo must not be ignored")
    expect_call(fn, False, False, [("PERMISSION_DENIED",), ("permission_denied",)], raises=ValueError,
                why="codes are exact")
    expect_call(fn, False, False, [()], raises=ValueError,
                why="a withheld candidate with no reason code was withheld for no recorded reason")


# Runs of the lesson's pipeline whose result is empty: (query, pool of listing ids or None for the
# whole catalogue, as-of date). The expected cause is the one the lesson's decision names.
_EMPTY_RUNS = [(query.id, None, "2026-11-01") for query in QUERIES] + [
    ("PW-Q001", ("PW-L005",), "2026-11-01"), ("PW-Q001", ("PW-L004", "PW-L007"), "2026-11-01"),
    ("PW-Q002", ("PW-L008", "PW-L011"), "2026-11-01"), ("PW-Q004", ("PW-L006",), "2026-11-01"),
    ("PW-Q005", ("PW-L005", "PW-L016"), "2026-11-01"), ("PW-Q002", ("PW-L001",), "2032-06-01"),
    ("PW-Q002", ("PW-L001", "PW-L008"), "2032-06-01"),
]


def test_task4_lesson_runs():
    fn = function(load(LESSON), "empty_cause_from_codes")
    by_id = {listing.id: listing for listing in LISTINGS}
    for query_id, pool, as_of in _EMPTY_RUNS:
        query = next(q for q in QUERIES if q.id == query_id)
        listings = LISTINGS if pool is None else [by_id[i] for i in pool]
        decided = evaluate(query, listings, as_of).output("decision")
        if decided.empty_cause in (None, "out_of_scope", "transformation_failed"):
            continue
        codes = [codes for subject, _state, codes in decided.because if subject != query.id]
        where = f"  # {query_id}" + ("" if pool is None else f" with only {', '.join(pool)}") + f", as of {as_of}"
        got, shown = call_shown(fn, False, False, codes)
        expect(got, decided.empty_cause, shown + where)


# ---------------------------------------------------------------- Task 5

def test_task5_expired_first_quiz():
    expect_choice(LESSON, "EXPIRED_FIRST_QUIZ", "d", 5, "Walk the layers in the order the data flows")


# Every test speaks in refs: a failure message never names a withheld listing, whatever the answer did.
for _name, _test in list(globals().items()):
    if _name.startswith("test_") and callable(_test):
        globals()[_name] = _safe(_test)
