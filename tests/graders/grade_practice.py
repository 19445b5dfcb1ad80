"""Grader for lesson 11, practice (the capstone). Run: python3 -B methods.py check practice"""

from dataclasses import replace
from labtools.grading.harness import manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load, Shown
from modules.dedupe import dedupe_canonical
from modules.practice.mechanism import AS_OF, BUDGET, CANDIDATES, EXAMPLE_RULE, SCOPE, TIGHT_BUDGET, Conflict, Plan, as_chunk

LESSON = "practice"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

BY_ID = {c.id: c for c in CANDIDATES}
ALL = tuple(c.id for c in CANDIDATES)

# The reference decisions: (decision, reason, packet order) per candidate.
REFERENCE = {
    "A1": ("keep", "evidence", 1),
    "E1": ("discard", "off_topic", None),
    "B1": ("discard", "copy", None),
    "C1": ("discard", "expired", None),
    "D2": ("keep", "disputed", 3),
    "D1": ("keep", "disputed", 4),
    "F1": ("keep", "evidence", 5),
    "A2": ("keep", "adjacent", 2),
}
WHY = {
    "A1": "A1 is current, in scope and original: the conclusion, first in the packet",
    "E1": "E1 reads alike but is about staff travel: scope 'staff conference travel' is not the question's",
    "B1": "B1 is a mirror copy (document intranet-mirror/travel-policy) of A1's passage (#3 of travel-policy), "
          "which is present: lesson 03's canonical dedupe drops the copy",
    "C1": "C1's validity ended on 2025-12-31, before the as-of date 2026-06-01; freshness removes it first",
    "D2": "D2 (600 euros) and D1 (500 euros) disagree and no rule is declared: both stay as disputed evidence, "
          "entering together at D2's rank",
    "D1": "D1 (500 euros) disagrees with D2 (600 euros); a higher authority score is not a declared rule, so "
          "D1 stays beside D2, not instead of it",
    "F1": "F1 is an independent current source in scope: kept as evidence",
    "A2": "A2 is chunk 4 of travel-policy, right after A1 (chunk 3): the exception travels with its conclusion, "
          "right after it, whatever its similarity",
}


def _cands(ids):
    return tuple(BY_ID[i] for i in ids)


def _named(candidates) -> Shown:
    return Shown(f"<{', '.join(c.id for c in candidates)}>", candidates)


def _plan(fn, candidates, as_of=AS_OF, scope=SCOPE, budget=BUDGET, rules=(), label="the lesson's eight candidates"):
    # rules is passed by position and shown by name: an empty () would not say what it is.
    plan, shown = call_shown(fn, Shown(f"<{label}>", candidates), as_of, scope, budget,
                             Shown(f"rules={rules!r}", rules))
    expect_true(isinstance(plan, Plan), f"called {shown}\n  got a {type(plan).__name__}\n  expected: a Plan")
    rows = {d.id: (d.decision, d.reason, d.order) for d in plan.decisions}
    expect([d.id for d in plan.decisions], [c.id for c in candidates], shown + " -> decision ids",
           why="one Decision per candidate, in rank order")
    return plan, rows, shown


# ---------------------------------------------------------------- Task 1

def _current(fn, cid, as_of, want, why, candidate=None):
    candidate = candidate or BY_ID[cid]
    window = f"<{cid}: valid {candidate.valid_from or 'open'} to {candidate.valid_until or 'open'}>"
    expect_call(fn, Shown(window, candidate), as_of, want=want, why=why)


def test_task1_lesson_as_of_date():
    fn = function(load(LESSON), "is_current")
    _current(fn, "C1", AS_OF, False, "C1's window closed on 2025-12-31, before 2026-06-01")
    for cid in ("A1", "A2", "D1", "D2", "F1"):
        _current(fn, cid, AS_OF, True, f"{cid} is valid from 2026-01-01 with no end")


def test_task1_both_ends_inclusive():
    fn = function(load(LESSON), "is_current")
    _current(fn, "C1", "2025-12-31", True, "the last valid day is still valid")
    _current(fn, "C1", "2025-01-01", True, "the first valid day is valid")
    _current(fn, "C1", "2026-01-01", False, "the day after the last valid day is not")


def test_task1_not_yet_valid_and_open_ends():
    fn = function(load(LESSON), "is_current")
    _current(fn, "A1", "2025-06-01", False, "A1 starts on 2026-01-01: on 2025-06-01 it is not valid yet")
    _current(fn, "C1", "2024-12-31", False, "C1 starts on 2025-01-01")
    open_both = replace(BY_ID["F1"], valid_from="", valid_until="")
    _current(fn, "F1 (both ends open)", "1999-01-01", True, "empty ends are open", open_both)
    _current(fn, "F1 (both ends open)", "2099-12-31", True, "empty ends are open", open_both)


# ---------------------------------------------------------------- Task 2

def _dedupe(fn, ids, want, why, candidates=None):
    candidates = candidates or _cands(ids)
    expect_call(fn, _named(candidates), want=want, why=why)


def test_task2_copy_dropped_passages_kept():
    fn = function(load(LESSON), "canonical_dedupe")
    _dedupe(fn, ALL, {"B1": "A1"},
            "B1 is a mirror copy of A1's passage (#3 of travel-policy); A1 and A2 are two passages of one "
            "document, not copies, so both stay")
    _dedupe(fn, ("A1", "A2", "D2", "D1", "F1"), {}, "no copies: nothing to drop, and A2 is not a copy of A1")
    _dedupe(fn, ("A1", "A2"), {}, "one chunk per canonical document would drop A2, the exception: it is a "
                                  "passage of its own (#4)")


def test_task2_original_wins_even_when_the_mirror_ranks_higher():
    fn = function(load(LESSON), "canonical_dedupe")
    _dedupe(fn, ("B1", "A1", "A2"), {"B1": "A1"},
            "A1 is the original (its document is its canonical document): a mirror never displaces it, "
            "whatever its rank")
    _dedupe(fn, ("A2", "B1"), {}, "B1 copies A1's passage, which is not here; A2 is another passage")


def test_task2_only_copies():
    fn = function(load(LESSON), "canonical_dedupe")
    _dedupe(fn, ("B1", "F1"), {}, "with A1 absent, the mirror is the only copy of its passage and stays")
    other = replace(BY_ID["B1"], id="B2", document="archive-mirror/travel-policy")
    _dedupe(fn, (), {"B1": "B2"}, "two mirrors of one passage and no original: keep the best-ranked (B2)",
            candidates=(other, BY_ID["B1"]))


def test_task2_same_decision_as_lesson_03():
    fn = function(load(LESSON), "canonical_dedupe")
    a3 = replace(BY_ID["A2"], id="A3", chunk=5, text="Receipts are kept for a year.")
    b3 = replace(BY_ID["B1"], id="B3", chunk=9, text=a3.text.upper())   # a copy found by its text alone
    for candidates in (CANDIDATES, CANDIDATES + (a3, b3), tuple(reversed(CANDIDATES)), (b3, a3, BY_ID["A2"])):
        want = dedupe_canonical([as_chunk(c) for c in candidates]).dropped
        _dedupe(fn, (), want, "lesson 11 applies lesson 03's rule: the same candidate gets the same decision",
                candidates=candidates)


# ---------------------------------------------------------------- Task 3

def _settle(fn, ids, rules, want, why):
    got, shown = call_shown(fn, _named(_cands(ids)), rules)
    expect_true(isinstance(got, Conflict), f"called {shown}\n  got a {type(got).__name__}\n  expected: a Conflict")
    amounts = tuple(a.value for a in got.amounts)
    expect((got.ids, amounts, got.state, got.kept), want, shown + " -> (ids, amount values, state, kept)", why=why)
    if got.state == "resolved":
        winner = BY_ID[got.kept[0]].source
        expect_true(got.rule.startswith(f"{winner} over "),
                    f"called {shown}\n  rule = {got.rule!r}\n  expected it to start with '{winner} over ': "
                    f"say which declared rule settled it")
    else:
        expect(got.rule, "", shown + " -> rule", why="no declared rule settled anything")
    return got


def test_task3_no_rule_keeps_both():
    fn = function(load(LESSON), "settle_conflict")
    _settle(fn, ("D2", "D1"), (), (("D2", "D1"), (600, 500), "unresolved", ("D2", "D1")),
            "600 and 500 euros disagree and no priority is declared: D1's authority 0.9 is a score, not a rule")
    _settle(fn, ("A1", "D2", "D1", "F1", "A2"), (), (("D2", "D1"), (600, 500), "unresolved", ("D2", "D1")),
            "only members that state an amount take part; A1, A2 and F1 state none")


def test_task3_a_declared_rule_settles_it():
    fn = function(load(LESSON), "settle_conflict")
    _settle(fn, ("D2", "D1"), EXAMPLE_RULE, (("D2", "D1"), (600, 500), "resolved", ("D1",)),
            "the rule (finance-office, finance-faq) was declared in advance: D1's source wins")
    _settle(fn, ("D2", "D1"), (("finance-faq", "finance-office"),),
            (("D2", "D1"), (600, 500), "resolved", ("D2",)),
            "a rule is one-way: this one puts the FAQ first, whatever the authority scores say")
    _settle(fn, ("D2", "D1"), (("finance-office", "volunteer-office"),),
            (("D2", "D1"), (600, 500), "unresolved", ("D2", "D1")),
            "a rule about other sources settles nothing here")


def test_task3_agreement_is_not_a_conflict():
    fn = function(load(LESSON), "settle_conflict")
    same = replace(BY_ID["D2"], id="D3", source="volunteer-office", text=BY_ID["D2"].text.replace("600", "500"))
    got, shown = call_shown(fn, Shown("<D1, D3 (another source, also 500 euros)>", (BY_ID["D1"], same)), ())
    expect((got.ids, tuple(a.value for a in got.amounts), got.state, got.kept),
           (("D1", "D3"), (500, 500), "none", ("D1", "D3")),
           shown + " -> (ids, amount values, state, kept)", why="two sources stating the same amount corroborate each other")
    _settle(fn, ("D1",), (), (("D1",), (500,), "none", ("D1",)), "one amount alone cannot disagree")


def test_task3_first_amount_and_every_loser():
    fn = function(load(LESSON), "settle_conflict")
    two = replace(BY_ID["D1"], id="D5", text="The allowance is 500 euros per trip, and at most 2000 euros a year.")
    got, shown = call_shown(fn, Shown("<D5: '500 euros per trip, ... 2000 euros a year', D2: 600 euros>",
                                      (two, BY_ID["D2"])), ())
    expect(tuple(a.value for a in got.amounts), (500, 600), shown + " -> amount values",
           why="each member's first stated amount is the one compared")
    third = replace(BY_ID["D2"], id="D4", source="volunteer-office", text="The allowance is 700 euros per trip.")
    got, shown = call_shown(fn, Shown("<D1 500, D2 600, D4 700 (volunteer-office)>", (BY_ID["D1"], BY_ID["D2"], third)),
                            EXAMPLE_RULE)
    expect((got.state, got.kept), ("unresolved", ("D1", "D2", "D4")), shown + " -> (state, kept)",
           why="the rule puts finance-office over finance-faq, but nothing is declared about volunteer-office: "
               "a winner needs a rule over every member that disagrees with it")


def _d2_writes(written: str):
    return replace(BY_ID["D2"], text=BY_ID["D2"].text.replace("600 euros", written))


def test_task3_amounts_however_written():
    fn = function(load(LESSON), "settle_conflict")
    for written, value in (("1,600 euros", 1600), ("600 EUR", 600), ("EUR 600", 600), ("\u20ac600", 600),
                           ("600 euro", 600)):
        both = (_d2_writes(written), BY_ID["D1"])
        got, shown = call_shown(fn, Shown(f"<D2 writing '{written}', D1: 500 euros>", both), ())
        expect((tuple(a.value for a in got.amounts), got.state), ((value, 500), "unresolved"),
               shown + " -> (amount values, state)",
               why=f"lesson 04's reader reads '{written}' as {value} euros, which is not 500 euros")


def test_task3_an_unread_amount_never_agrees():
    fn = function(load(LESSON), "settle_conflict")
    for written in ("six hundred euros", "\u0666\u0660\u0660 euros"):
        both = (_d2_writes(written), BY_ID["D1"])
        got, shown = call_shown(fn, Shown(f"<D2 writing {written!r}, D1: 500 euros>", both), EXAMPLE_RULE)
        expect((got.ids, got.state, got.kept), (("D2", "D1"), "unreadable", ("D2", "D1")),
               shown + " -> (ids, state, kept)",
               why="the reader cannot read that amount: both stay and go to review, before any rule is "
                   "applied; an unread amount never counts as agreement")
    both = (_d2_writes("500 crowns"), BY_ID["D1"])
    got, shown = call_shown(fn, Shown("<D2 writing '500 crowns', D1: 500 euros>", both), ())
    expect(got.state, "unresolved", shown + " -> state", why="500 crowns and 500 euros are not the same amount")
    alone = _d2_writes("six hundred euros")
    got, shown = call_shown(fn, Shown("<D2 writing 'six hundred euros'>", (alone,)), ())
    expect((got.ids, got.state), (("D2",), "none"), shown + " -> (ids, state)",
           why="one amount alone disagrees with nobody")


# ---------------------------------------------------------------- Task 4

def test_task4_each_decision_and_reason():
    fn = function(load(LESSON), "decision_table")
    plan, rows, shown = _plan(fn, CANDIDATES)
    for cid, want in REFERENCE.items():
        expect(rows[cid], want, f"{shown} -> {cid}: (decision, reason, packet order)", why=WHY[cid])


def test_task4_packet_dedupe_conflict_and_tokens():
    fn = function(load(LESSON), "decision_table")
    plan, rows, shown = _plan(fn, CANDIDATES)
    for bad in ("B1", "C1", "E1"):
        expect_true(bad not in plan.packet, f"called {shown}\n  the packet {plan.packet} keeps {bad}: {WHY[bad]}")
    expect_true("A2" in plan.packet, f"called {shown}\n  the packet {plan.packet} drops A2: {WHY['A2']}")
    expect_true(("D1" in plan.packet) == ("D2" in plan.packet),
                f"called {shown}\n  the packet {plan.packet} keeps one of D1/D2 without a declared rule: {WHY['D1']}")
    expect(plan.packet, ("A1", "A2", "D2", "D1", "F1"), shown + " -> packet (selection order)")
    expect(plan.dedupe, {"B1": "A1"}, shown + " -> dedupe")
    expect((plan.conflict.state, plan.conflict.kept), ("unresolved", ("D2", "D1")), shown + " -> conflict (state, kept)")
    expect((plan.used_tokens, plan.budget), (205, 1000), shown + " -> (used_tokens, budget)",
           why="69 + 49 + 25 + 23 + 39 lab tokens, counted with modules.common.units.lab_tokens")


def test_task4_with_a_declared_rule():
    fn = function(load(LESSON), "decision_table")
    plan, rows, shown = _plan(fn, CANDIDATES, rules=EXAMPLE_RULE)
    expect(rows["D2"], ("discard", "superseded_by_rule", None), shown + " -> D2",
           why="the declared rule puts finance-office over finance-faq")
    expect(rows["D1"], ("keep", "evidence", 3), shown + " -> D1", why="the rule's winner is ordinary evidence")
    expect(plan.packet, ("A1", "A2", "D1", "F1"), shown + " -> packet")
    expect(plan.conflict.state, "resolved", shown + " -> conflict.state")


def test_task4_units_travel_whole():
    fn = function(load(LESSON), "decision_table")
    plan, rows, shown = _plan(fn, CANDIDATES, budget=100)
    expect((rows["A1"], rows["A2"]), (("discard", "budget", None), ("discard", "budget", None)),
           shown + " -> (A1, A2)", why="A1 + A2 need 118 lab tokens: the conclusion never enters without its exception")
    expect(plan.packet, ("D2", "D1", "F1"), shown + " -> packet", why="the next units still fit: 48 + 39 = 87")
    plan, rows, shown = _plan(fn, CANDIDATES, budget=143)
    expect((rows["D2"], rows["D1"]), (("discard", "budget", None), ("discard", "budget", None)),
           shown + " -> (D2, D1)", why="after A1 + A2 (118), 25 tokens remain: D2 alone would fit, but a conflict "
                                       "enters whole or not at all, or the packet would silently pick 600 euros")
    expect(plan.packet, ("A1", "A2"), shown + " -> packet")


def test_task4_exact_fit_and_long_runs():
    fn = function(load(LESSON), "decision_table")
    plan, rows, shown = _plan(fn, CANDIDATES, budget=205)
    expect(plan.packet, ("A1", "A2", "D2", "D1", "F1"), shown + " -> packet",
           why="the five kept candidates need exactly 205 lab tokens, and exactly full is allowed")
    plan, rows, shown = _plan(fn, CANDIDATES, budget=204)
    expect(rows["F1"], ("discard", "budget", None), shown + " -> F1", why="one token short: F1 (39) no longer fits")
    a3 = replace(BY_ID["A2"], id="A3", chunk=5, text="Chunk five of the travel policy: receipts are kept for a year.")
    plan, rows, shown = _plan(fn, CANDIDATES + (a3,), label="the eight candidates plus A3 (travel-policy chunk 5)")
    expect((rows["A2"], rows["A3"]), (("keep", "adjacent", 2), ("keep", "adjacent", 3)), shown + " -> (A2, A3)",
           why="chunks 3, 4 and 5 form one run: each joins if it follows the last chunk already in the unit")


def test_task4_a_mirror_never_joins_the_conflict():
    fn = function(load(LESSON), "decision_table")
    mirror = replace(BY_ID["D1"], id="D1m", document="intranet-mirror/allowance-table-2026", source="intranet-mirror")
    plan, rows, shown = _plan(fn, CANDIDATES + (mirror,), label="the eight candidates plus D1m, a mirror of D1")
    expect(rows["D1m"], ("discard", "copy", None), shown + " -> D1m")
    expect(plan.conflict.ids, ("D2", "D1"), shown + " -> conflict.ids",
           why="the conflict is weighed among the survivors of the earlier layers: a dropped mirror takes no part")


def test_task4_a_budget_that_binds():
    fn = function(load(LESSON), "decision_table")
    plan, rows, shown = _plan(fn, CANDIDATES, budget=TIGHT_BUDGET)
    expect(plan.packet, ("A1", "A2", "F1"), shown + " -> packet",
           why="A1 + A2 (118) fit; the conflict D2 + D1 (48) would make 166 and is skipped whole; F1 (39) "
               "still fits at 157: skip, never stop")
    expect((rows["D2"], rows["D1"]), (("discard", "budget", None), ("discard", "budget", None)), shown + " -> (D2, D1)")
    expect(plan.used_tokens, 157, shown + " -> used_tokens")


def test_task4_an_unreadable_amount_is_disputed():
    fn = function(load(LESSON), "decision_table")
    d2 = replace(BY_ID["D2"], text="FAQ: the allowance is six hundred euros per trip, lodging included.")
    candidates = tuple(d2 if c.id == "D2" else c for c in CANDIDATES)
    plan, rows, shown = _plan(fn, candidates, rules=EXAMPLE_RULE, label="the eight, D2 writing 'six hundred euros'")
    expect((rows["D2"], rows["D1"]), (("keep", "disputed", 3), ("keep", "disputed", 4)), shown + " -> (D2, D1)",
           why="an amount that cannot be read is never agreement and is not settled by a rule: both travel "
               "together as disputed evidence, for review")
    expect(plan.conflict.state, "unreadable", shown + " -> conflict.state")


def test_task4_adjacency_follows_chunks_not_rank():
    fn = function(load(LESSON), "decision_table")
    order = ("A2", "F1", "A1", "D1")
    plan, rows, shown = _plan(fn, _cands(order), label="A2, F1, A1, D1")
    expect(plan.packet, ("A1", "A2", "F1", "D1"), shown + " -> packet",
           why="A1 and A2 form one unit placed at A2's rank; inside it, chunk 3 comes before chunk 4")
    expect((rows["A1"], rows["A2"]), (("keep", "evidence", 1), ("keep", "adjacent", 2)), shown + " -> (A1, A2)")
    expect(rows["D1"], ("keep", "evidence", 4), shown + " -> D1", why="alone, D1 disagrees with nobody")


def test_task4_freshness_runs_first():
    fn = function(load(LESSON), "decision_table")
    plan, rows, shown = _plan(fn, CANDIDATES, as_of="2025-06-01")
    expect(rows["C1"], ("keep", "evidence", 1), shown + " -> C1", why="on 2025-06-01 C1 is the policy in force")
    for cid in ("A1", "E1", "B1", "D2", "D1", "F1", "A2"):
        expect(rows[cid], ("discard", "not_yet_valid", None), f"{shown} -> {cid}",
               why=f"{cid} is valid only from 2026-01-01; freshness decides before scope or copies")
    plan, rows, shown = _plan(fn, CANDIDATES, scope="staff conference travel")
    expect(rows["E1"], ("keep", "evidence", 1), shown + " -> E1", why="for a question about staff, E1 is the evidence")
    expect(rows["C1"], ("discard", "expired", None), shown + " -> C1", why="C1 fails freshness before scope")
    expect(rows["B1"], ("discard", "off_topic", None), shown + " -> B1", why="B1 fails scope before the copy check")


# ---------------------------------------------------------------- Tasks 5 to 7

def _quiz(name, want, task):
    expect_choice(LESSON, name, want, task, "Reread the scenario and the lessons it draws on")


def test_task5_a2_quiz():
    _quiz("A2_QUIZ", "a", 5)


def test_task6_c1_quiz():
    _quiz("C1_QUIZ", "d", 6)


def test_task7_d_quiz():
    _quiz("D_QUIZ", "c", 7)
