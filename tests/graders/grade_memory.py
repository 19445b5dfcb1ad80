"""Grader for lesson 13, memory. Run: python3 -B methods.py check memory"""

import copy
from dataclasses import replace

from labtools.grading.harness import (manifest_tasks, call, call_shown, constant, expect, expect_call, expect_true, function, load,
                  shown_call, Shown)
from modules.memory import ASSISTANT_MEMORY, ITEMS, SESSIONS, gate_item, resolve, run_session
from modules.memory.store import CacheEntry, TracePayload, build, correct, delete, migrate, purge, replay, \
    recall_rows, serve

LESSON = "memory"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

ON, DAY_AFTER = "2026-11-01", "2026-11-02"


def _shown(item) -> str:
    return (f"<{item.id}: {item.field} {item.value!r} of {item.owner}, permission {item.permission!r}, visibility "
            f"{item.visibility!r}, recorded {item.as_of}, kept {item.retention_days} days>")


def _first(item, buyer, as_of):
    return (gate_item(item, buyer, as_of) or (None,))[0]


def _check_reason(fn, item, buyer, as_of, why=""):
    expect_call(fn, Shown(_shown(item), item), buyer, as_of, want=_first(item, buyer, as_of), why=why)


# ---------------------------------------------------------------- Task 1

def test_task1_every_item_for_its_own_buyer():
    fn = function(load(LESSON), "withhold_reason")
    for item in ITEMS:
        _check_reason(fn, item, item.owner, ON)


def test_task1_another_buyer_never_gets_an_item():
    fn = function(load(LESSON), "withhold_reason")
    for item in ITEMS:
        other = "BUYER-B" if item.owner == "BUYER-A" else "BUYER-A"
        _check_reason(fn, item, other, ON, why="one buyer's memory never reaches another buyer's context, "
                                               "whatever else is true of the item")
    for buyer in ("buyer-a", "BUYER-A ", "BUYER", "BUYER-AB"):
        _check_reason(fn, ITEMS[1], buyer, ON, why="owners compare exactly: a similar id is another buyer")


def test_task1_retention_counts_its_last_day():
    fn = function(load(LESSON), "withhold_reason")
    purchase = next(item for item in ITEMS if item.id == "MEM-A3")
    _check_reason(fn, purchase, "BUYER-A", ON, why="recorded 2025-11-01 and kept 365 days: 2026-11-01 is its last day")
    _check_reason(fn, purchase, "BUYER-A", DAY_AFTER, why="the day after its last day it is expired")
    _check_reason(fn, purchase, "BUYER-A", "2025-10-31", why="it was not recorded yet on that day")
    _check_reason(fn, purchase, "BUYER-A", "2025-11-01", why="usable from the day it is recorded")
    short = replace(purchase, retention_days=1, as_of="2026-10-31")
    _check_reason(fn, short, "BUYER-A", ON, why="kept one day: usable on the day after it was recorded")
    _check_reason(fn, short, "BUYER-A", DAY_AFTER)


def test_task1_permission_fails_closed():
    fn = function(load(LESSON), "withhold_reason")
    machine = ITEMS[0]
    for permission in (None, "unknown", "denied"):
        _check_reason(fn, replace(machine, permission=permission), "BUYER-A", ON,
                      why="only the exact value 'allowed' passes; anything else fails closed, with its own code")


def test_task1_checks_in_order():
    fn = function(load(LESSON), "withhold_reason")
    old = next(item for item in ITEMS if item.id == "MEM-A5")   # expired
    cases = [
        (replace(old, permission="denied", owner="BUYER-B"), "BUYER-A", "another buyer's item is not read further"),
        (replace(old, permission="unknown", visibility="internal"), "BUYER-A", "permission before visibility"),
        (replace(old, visibility="internal"), "BUYER-A", "visibility before retention"),
        (replace(ITEMS[7], retention_days=30), "BUYER-B", "retention before freshness"),
        (replace(ITEMS[8], as_of="2026-11-05"), "BUYER-B", "a future record before the family"),
        (replace(ITEMS[8], retention_days=10, as_of="2026-10-02"), "BUYER-B", "retention before the family"),
    ]
    for item, buyer, why in cases:
        _check_reason(fn, item, buyer, ON, why=why)


def test_task1_family_and_freshness():
    fn = function(load(LESSON), "withhold_reason")
    valve, size = ITEMS[8], ITEMS[7]   # MEM-B3 (a prohibited family), MEM-B2 (a diameter from 2020)
    _check_reason(fn, valve, "BUYER-B", ON, why="memory of a prohibited family is not used either")
    _check_reason(fn, replace(valve, value="lip-seal"), "BUYER-B", ON)
    _check_reason(fn, replace(valve, field="faces", value="safety-relief-valve"), "BUYER-B", ON,
                  why="only a family field names a family")
    _check_reason(fn, size, "BUYER-B", ON, why="a diameter is fresh for 1826 days (FRESHNESS), whatever the retention")
    for recorded in ("2021-11-01", "2021-10-31", "2021-11-02"):   # 1826, 1827, 1825 days before 2026-11-01
        _check_reason(fn, replace(size, as_of=recorded), "BUYER-B", ON, why="an age equal to the limit is fresh")
    _check_reason(fn, replace(size, field="units", as_of="2018-01-01"), "BUYER-B", ON,
                  why="a field with no freshness rule never goes stale")


def test_task1_over_many_days():
    fn = function(load(LESSON), "withhold_reason")
    days = ("2020-04-30", "2025-04-30", "2025-10-28", "2025-10-29", "2026-06-01", "2026-09-11", "2026-09-12",
            "2027-01-18", "2027-01-19", "2028-09-11", "2028-09-12", "2030-04-30")
    for item in ITEMS:
        for day in days:
            _check_reason(fn, item, item.owner, day)


# ---------------------------------------------------------------- Task 2

def _check_resolve(fn, today, remembered, ambiguous, why=""):
    expect_call(fn, today, remembered, ambiguous, want=resolve(today, remembered, ambiguous), why=why)


def test_task2_today_wins_and_the_conflict_is_shown():
    fn = function(load(LESSON), "current_versus_memory")
    _check_resolve(fn, "18", "16", False, why="explicit current input wins; the remembered 16 is a conflict to show")
    _check_resolve(fn, "16", "16", False, why="today and memory agree: no conflict")
    _check_resolve(fn, "18", None, False, why="nothing remembered, nothing to disagree with")
    _check_resolve(fn, "mechanical-seal", "lip-seal", False)
    _check_resolve(fn, "18", "16", True, why="an explicit value today wins even if another part was ambiguous")


def test_task2_ambiguous_input_asks():
    fn = function(load(LESSON), "current_versus_memory")
    _check_resolve(fn, None, "16", True, why="a bare number asks: memory may suggest 16, the buyer decides")
    _check_resolve(fn, None, None, True, why="nothing to suggest: there is no memory of the field")


def test_task2_memory_fills_only_silence():
    fn = function(load(LESSON), "current_versus_memory")
    _check_resolve(fn, None, "Aquaro WP-40", False, why="today says nothing about the machine: memory, marked")
    _check_resolve(fn, None, None, False)
    expect_call(fn, "18", "16", want=("follow_today", "18", True), why="ambiguous defaults to False")


# ---------------------------------------------------------------- Task 3

def _served(prompt=True):
    state = build(ITEMS, ASSISTANT_MEMORY, prompt_index=prompt)
    for session in SESSIONS:
        _run, state = serve(state, session)
    return state


def _check_delete(fn, index, cache, traces, item_id, stores):
    want = purge(index, cache, traces, item_id)
    got, shown = call_shown(fn, Shown(f"<index of {len(index)} vectors>", index),
                            Shown(f"<{len(cache)} cached packets{stores}>", cache),
                            Shown(f"<{len(traces)} trace payloads{stores}>", traces), item_id)
    expect_true(isinstance(got, tuple) and len(got) == 4,
                f"called {shown}\n  got: {type(got).__name__}\n  expected: a tuple (index, cache, traces, ref)")
    new_index, new_cache, new_traces, ref = got
    expect_true(item_id not in new_index.ids() and item_id not in dict(new_index.vectors),
                f"called {shown}\n  the index still holds {item_id}'s vector\n  a deletion that leaves the vector "
                f"lets the item be recalled, and its vector is data derived from it: ann.delete(index, item_id)")
    expect(new_index, want[0], shown + " -> index", why="only the deleted item leaves the index")
    expect(tuple(new_cache), want[1], shown + " -> cache",
           why="every cached packet that used the item is dropped, every other one kept in order")
    expect(tuple(new_traces), want[2], shown + " -> traces",
           why="each payload stays, with (ref, 'deleted') where the item was")
    expect(ref, want[3], shown + " -> ref", why="the keyed opaque_ref(item_id), never the id itself")


def test_task3_deletion_reaches_index_cache_and_traces():
    fn = function(load(LESSON), "delete_everywhere")
    state = _served()
    for item_id in ("MEM-A3", "MEM-A1", "MEM-B1", "MEM-B4"):
        _check_delete(fn, state.index, state.cache, state.traces, item_id, "")


def test_task3_an_item_no_longer_indexed():
    fn = function(load(LESSON), "delete_everywhere")
    state = _served()
    state, _record = delete(state, "MEM-A3", ON)
    before = copy.deepcopy((state.cache, state.traces))
    _check_delete(fn, state.index, state.cache, state.traces, "MEM-A3", ", after MEM-A3 was deleted")
    expect_true((state.cache, state.traces) == before, "delete_everywhere changed the stores it was given")


def test_task3_ids_compare_exactly():
    fn = function(load(LESSON), "delete_everywhere")
    state = _served()
    cache = state.cache + (CacheEntry("S9", "BUYER-A", "PW-Q001", ("MEM-A10",), ("memory:MEM-A10@v1#units",)),)
    traces = state.traces + (TracePayload("S9", "BUYER-A", "PW-Q001", (("MEM-A10", "mm"), ("MEM-A1", "x"))),)
    _check_delete(fn, state.index, cache, traces, "MEM-A1", ", one of them holding an item 'MEM-A10'")


def test_task3_the_record_is_opaque():
    fn = function(load(LESSON), "delete_everywhere")
    state = _served()
    (_index, _cache, traces, ref), shown = call_shown(fn, Shown("<index>", state.index), Shown("<cache>", state.cache),
                                                      Shown("<traces>", state.traces), "MEM-A2")
    text = repr(traces) + repr(ref)
    expect_true("MEM-A2" not in text and "'16'" not in text,
                f"called {shown}\n  the traces or the ref still name MEM-A2 or its value\n  keep (opaque_ref(item_id), "
                f"'deleted') in its place")


# ---------------------------------------------------------------- Task 4

def _rows():
    owners = {item.id: item.owner for item in ITEMS}
    morning = build(ITEMS, ASSISTANT_MEMORY)
    after, _ = delete(morning, "MEM-A3", ON)
    after = correct(correct(after, "MEM-A1", ON, permission="denied"), "MEM-A2", ON, value="18",
                    text="new pump: the shaft takes an 18 mm seal now")
    lazy, _ = delete(replace(morning, prompt_index=False), "MEM-A3", ON)
    rows = {name: replay(SESSIONS, state, owners) for name, state in
            (("morning", morning), ("after", after), ("migrated", migrate(morning, "mem-vec-2")))}
    # the index that waits for its rebuild: its recall stage alone replayed, as the lesson replays it
    for name, state in (("recall", morning), ("lazy", lazy)):
        rows[name] = {case: dict(row, exclusions=[], state="-") for case, row in
                      recall_rows(SESSIONS, state, owners).items()}
    return rows


def _reference(old, new, forgotten) -> list:
    """The blockers as the docstring defines them (the lesson's own replay reads the same rows)."""
    out = []
    for case in old:
        a, b = old[case], new[case]
        if a["state"] != b["state"]:
            out.append(f"{case}: state {a['state']} -> {b['state']}")
        if list(a["packet"]) != list(b["packet"]):
            out.append(f"{case}: packet changed")
        out += [f"{case}: recalls {item}" for item in b["candidates"] if item in forgotten]
        packed = [item for field in b["packet"] for item in sorted(forgotten) if field.startswith(f"memory:{item}@")]
        out += [f"{case}: packs {item}" for item in dict.fromkeys(packed)]
    return out


def _check_blockers(fn, old, new, forgotten, shown_old, shown_new, want=None, why=""):
    shown = shown_call(fn, Shown(shown_old, old), Shown(shown_new, new), forgotten)
    got = call(fn, copy.deepcopy(old), copy.deepcopy(new), forgotten, shown=shown)
    expect_true(isinstance(got, (list, tuple)), f"{shown} returned {type(got).__name__} {got!r}: return a list or "
                                                f"a tuple of blocker strings")
    expect(list(got), _reference(old, new, forgotten) if want is None else want, shown, why=why)


def test_task4_the_lab_replays():
    fn = function(load(LESSON), "replay_blockers")
    rows = _rows()
    _check_blockers(fn, rows["morning"], rows["migrated"], (), "<morning replay>", "<migrated replay>", want=[],
                    why="the migration moves S4's candidates and exclusions only: no packet and no state change, "
                        "so it may be exposed")
    _check_blockers(fn, rows["morning"], rows["after"], ("MEM-A3", "MEM-A1"), "<morning replay>",
                    "<after the requests>", why="the requests change S1-S3's packets (MEM-A3 deleted, MEM-A1 withdrawn)")
    _check_blockers(fn, rows["recall"], rows["lazy"], ("MEM-A3",), "<morning recall replay>",
                    "<the index that waits for its rebuild>",
                    want=["S1: recalls MEM-A3", "S2: recalls MEM-A3", "S3: recalls MEM-A3"],
                    why="the waiting index still recalls the deleted item: the change must not be exposed")


def _row(candidates, exclusions=(), packet=(), state="respond"):
    return {"candidates": list(candidates), "exclusions": [list(e) for e in exclusions], "packet": list(packet),
            "state": state}


def test_task4_rank_moves_and_exclusions_never_block():
    fn = function(load(LESSON), "replay_blockers")
    old = {"S1": _row(["A", "B", "C"], [["A", "MEMORY_EXPIRED"]]), "S2": _row(["X"])}
    new = {"S1": _row(["C", "B", "A"], [["A", "STALE_FIELD"], ["D", "MEMORY_OTHER_OWNER"]]), "S2": _row(["X"])}
    _check_blockers(fn, old, new, (), "<S1: A B C>", "<S1: C B A, other exclusions>", want=[],
                    why="rank moves and changed exclusions are read, but the packet and the state held")


def test_task4_state_packet_recalls_and_packs():
    fn = function(load(LESSON), "replay_blockers")
    old = {"S1": _row(["A"], packet=["PW-L001#title", "memory:A@v1#machine_model"], state="respond"),
           "S2": _row(["B"], packet=["p1", "p2"])}
    new = {"S1": _row(["F", "A", "G"], packet=["PW-L001#title", "memory:F@v2#diameter_mm", "memory:F@v2#faces"],
                      state="clarify"),
           "S2": _row(["B"], packet=["p2", "p1"])}
    _check_blockers(fn, old, new, ["G", "F"], "<S1 respond, S2 p1 p2>", "<S1 clarify recalling F and G, S2 p2 p1>",
                    want=["S1: state respond -> clarify", "S1: packet changed", "S1: recalls F", "S1: recalls G",
                          "S1: packs F", "S2: packet changed"],
                    why="state first, then the packet, then each forgotten item recalled (in new's order), then "
                        "each forgotten item packed once; S2's packet order changed, which counts")
    near = {"S1": _row(["MEM-A30"], packet=["memory:MEM-A30@v1#faces"])}
    _check_blockers(fn, near, near, ["MEM-A3"], "<S1 packing memory:MEM-A30@v1#faces>", "<the same>", want=[],
                    why="MEM-A30 is another item: a field belongs to MEM-A3 only when it starts with 'memory:MEM-A3@'")
    two = {"S1": _row(["G", "F"], packet=["memory:G@v1#faces", "memory:F@v1#faces"])}
    _check_blockers(fn, two, two, ["F", "G"], "<S1 recalling G, F and packing G, F>", "<the same>",
                    want=["S1: recalls G", "S1: recalls F", "S1: packs G", "S1: packs F"],
                    why="recalled items in new's candidate order and packed items in packet order, not in the "
                        "order of `forgotten`")
    _check_blockers(fn, old, old, ["A"], "<S1 recalling and packing A>", "<the same>",
                    want=["S1: recalls A", "S1: packs A"],
                    why="a forgotten item still recalled and packed blocks even when nothing else changed")


def test_task4_like_with_like():
    fn = function(load(LESSON), "replay_blockers")
    a, b = {"S1": _row(["A"]), "S2": _row([])}, {"S2": _row([]), "S1": _row(["A"])}
    expect_call(fn, Shown("<cases S1, S2>", a), Shown("<case S1>", {"S1": _row(["A"])}), (), raises=ValueError,
                why="a replay compares the same frozen cases")
    expect_call(fn, Shown("<cases S1, S2>", a), Shown("<cases S2, S1>", b), (), raises=ValueError,
                why="in the same order")


# ---------------------------------------------------------------- Task 5

QUIZ_MISCONCEPTIONS = {
    "a": "the buyer being the source answers none of the questions: consent can be withdrawn, facts go stale, "
         "and another buyer must never see it",
    "c": "relevance is not permission: MEM-B4 was relevant and withheld for PERMISSION_DENIED",
    "d": "encryption at rest protects the disk, not the use: it answers no question of consent, expiry or deletion",
}


def test_task5_only_memory_quiz():
    answer = constant(load(LESSON), "ONLY_MEMORY_QUIZ")
    expect_true(answer in ("a", "b", "c", "d"), f"ONLY_MEMORY_QUIZ is {answer!r}; set it to one letter: 'a', 'b', "
                                                f"'c' or 'd'")
    expect_true(answer == "b", f"ONLY_MEMORY_QUIZ = {answer!r}: {QUIZ_MISCONCEPTIONS.get(answer, '')}. Reread the "
                               f"store's obligations table and the gate's codes, then try again (hint: python3 -B "
                               f"methods.py hint {LESSON} 5)")


# ---------------------------------------------------------------- Task 6

def _next_day() -> tuple:
    """The lesson's own pipeline: S1 served on 2026-11-02 from the morning's store."""
    run = run_session(replace(SESSIONS[0], as_of=DAY_AFTER), build(ITEMS, ASSISTANT_MEMORY))
    return len(run.output("memory-context").fields), run.output("decision").decision.state


def test_task6_next_day_prediction():
    predicted = constant(load(LESSON), "NEXT_DAY_PREDICTION")
    expect_true(isinstance(predicted, (tuple, list)) and len(predicted) == 2 and isinstance(predicted[0], int)
                and not isinstance(predicted[0], bool) and isinstance(predicted[1], str),
                f"NEXT_DAY_PREDICTION is {predicted!r}; set it to a tuple (int, str): (memory fields packed, state)")
    fields, state = _next_day()
    expect_true(predicted[0] == fields, f"NEXT_DAY_PREDICTION predicts {predicted[0]} memory fields packed; the "
                                        f"pipeline packs another number. Which of S1's items does the gate withhold "
                                        f"the day after? (hint: python3 -B methods.py hint {LESSON} 6)")
    expect_true(predicted[1] == state, f"NEXT_DAY_PREDICTION predicts the state {predicted[1]!r}; the pipeline "
                                       f"decides another. Does memory decide the catalogue state? (hint: python3 -B "
                                       f"methods.py hint {LESSON} 6)")
