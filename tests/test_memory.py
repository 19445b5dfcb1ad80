"""Lesson 13's figures and contracts, asserted on the mechanism and on the command."""

import json
from dataclasses import replace

import pytest

from helpers import ROOT, failed_tasks, figures_missing, methods
from modules.memory import mechanism as m
from modules.memory import store as ms
from modules.common import ann
from modules.context import recall_at_k
from modules.catalogue import LISTINGS, QUERIES, opaque_ref, query_by_id
from modules.catalogue.policy import POLICY_VERSION, permission_gate
from modules.eligibility import CATALOGUE, evaluate

ON, DAY_AFTER = "2026-11-01", "2026-11-02"
BY_ID = {item.id: item for item in m.ITEMS}


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("memory", "--json").stdout)


@pytest.fixture(scope="module")
def morning():
    return ms.build(m.ITEMS, m.ASSISTANT_MEMORY)


@pytest.fixture(scope="module")
def served(morning):
    state, runs = morning, {}
    for session in m.SESSIONS:
        runs[session.id], state = ms.serve(state, session)
    return state, runs


def _memory_values(run) -> str:
    """What a session's output may show of memory: the gate's decisions (not its internal id list) and
    the memory context."""
    gate = run.output("memory-gate", None)
    return repr((gate and gate.decisions, gate and gate.passed, run.output("memory-context", None)))


# ---------------------------------------------------------------- the default and the feature

def test_the_default_keeps_no_memory_and_an_incomplete_feature_is_refused():
    assert m.FIRST_RELEASE is None
    assert m.feature_gaps(m.ASSISTANT_MEMORY) == []
    gaps = m.feature_gaps(m.DRAFT_FEATURE)
    assert gaps[:6] == ["visibility", "consent", "retention_days", "correction", "encoder", "replay_cases"]
    assert gaps[-1] == "deletion_reaches misses index, packet-cache, trace-payloads"
    with pytest.raises(ValueError, match="is not allowed; it leaves undefined: visibility; consent"):
        m.with_memory(m.DRAFT_FEATURE)
    hidden = replace(m.ASSISTANT_MEMORY, visibility="internal", owner_scope="household",
                                 encoder="mem-vec-9")
    assert m.feature_gaps(hidden) == ["owner_scope 'household' is not one of ('owner-only',)",
                                      "visibility 'internal': the buyer must see every item",
                                      "encoder 'mem-vec-9' is not one of ('mem-vec-1', 'mem-vec-2')"]
    run = m.run_session(m.SESSIONS[0])
    assert run.output("memory-recall").status == "off" and run.output("memory-context").fields == ()
    assert run.output("memory-recall").note == "no cross-session memory (the default)"


def test_a_store_refuses_what_its_feature_does_not_keep():
    narrow = replace(m.ASSISTANT_MEMORY, purposes=("fit-advice",), retention_days=730)
    with pytest.raises(ValueError, match="item 'MEM-A3': purpose 'reorder' is not one the feature keeps"):
        ms.build(m.ITEMS, narrow)
    with pytest.raises(ValueError, match="retention_days 3650 exceeds the feature's 730"):
        ms.build([i for i in m.ITEMS if i.purpose == "fit-advice"], narrow)
    with pytest.raises(ValueError, match="'MEM-A1@v1' is recorded twice"):
        ms.build(m.ITEMS + m.ITEMS[:1], m.ASSISTANT_MEMORY)
    with pytest.raises(ValueError, match="not allowed"):
        ms.build(m.ITEMS, m.DRAFT_FEATURE)


def test_the_memory_pipeline_extends_the_catalogue_and_copies_no_stage():
    assert m.MEMORY.names() == ("source", "contract", "query-scope", "lexical", "structured", "vector",
                                "memory-recall", "gate", "memory-gate", "fusion", "evidence", "packet",
                                "memory-context", "decision")
    assert all(m.MEMORY.stage(name) is CATALOGUE.stage(name) for name in CATALOGUE.names())
    assert m.MEMORY.stage("memory-gate").version == f"{POLICY_VERSION}+memory-policy/1"
    assert m.MEMORY.stage("memory-recall").kind == "memory"


# ---------------------------------------------------------------- the store's records

def test_items_are_frozen_and_validated(morning):
    item = m.ITEMS[0]
    for record, name in ((item, "value"), (m.SESSIONS[0], "buyer"), (m.ASSISTANT_MEMORY, "retention_days"),
                         (morning, "index")):
        with pytest.raises(AttributeError):
            setattr(record, name, None)
    with pytest.raises(TypeError, match="items must be a sequence of MemoryItem, got MemoryItem"):
        ms.build(item, m.ASSISTANT_MEMORY)   # one record is not a list of them
    with pytest.raises(TypeError, match="MemoryFeature.kinds must be a tuple of str"):
        replace(m.ASSISTANT_MEMORY, kinds=["machine"])
    with pytest.raises(ValueError, match="MemoryState.encoder must be one of"):
        replace(morning, encoder="mem-vec-9")
    for change, error, words in (({"owner": ""}, TypeError, "MemoryItem.owner"),
                                 ({"scope": "household"}, ValueError, "MemoryItem.scope must be one of"),
                                 ({"visibility": "public"}, ValueError, "MemoryItem.visibility"),
                                 ({"retention_days": 0}, ValueError, "MemoryItem.retention_days"),
                                 ({"retention_days": True}, TypeError, "MemoryItem.retention_days"),
                                 ({"version": 1.0}, TypeError, "MemoryItem.version"),
                                 ({"as_of": "2026-13-01"}, ValueError, "MemoryItem.as_of"),
                                 ({"permission": "yes"}, ValueError, "MemoryItem.permission"),
                                 ({"accuracy": "certain"}, ValueError, "MemoryItem.accuracy")):
        with pytest.raises(error, match=words):
            replace(item, **change)
    with pytest.raises(TypeError, match="Session.query must be a Query"):
        m.Session("S9", "BUYER-A", "PW-Q001")
    with pytest.raises(TypeError, match="MemoryFeature.purposes must be a tuple of str"):
        m.MemoryFeature("x", purposes=["fit-advice"])
    assert {i.scope for i in m.ITEMS} == {"owner-only"} and len(m.ITEMS) == 10
    for item in m.ITEMS:   # every obligation is recorded on every item
        assert all(getattr(item, f) not in (None, "") for f in ("purpose", "source", "accuracy", "owner", "scope",
                                                                "visibility", "retention_days", "version", "as_of"))


# ---------------------------------------------------------------- the same gate

def test_memory_meets_the_catalogue_gate_rules_and_its_own():
    codes = {item.id: m.gate_item(item, item.owner, ON) for item in m.ITEMS}
    assert codes == {"MEM-A1": (), "MEM-A2": (), "MEM-A3": (), "MEM-A4": ("MEMORY_NOT_VISIBLE",),
                     "MEM-A5": ("MEMORY_EXPIRED",), "MEM-A6": ("PERMISSION_UNKNOWN",), "MEM-B1": (),
                     "MEM-B2": ("STALE_FIELD",), "MEM-B3": ("PROHIBITED_FAMILY",), "MEM-B4": ("PERMISSION_DENIED",)}
    # the permission step is the catalogue's own function, with its codes
    for item in m.ITEMS:
        _permitted, refused = permission_gate([(item.id, item.permission)])
        if refused:
            assert m.gate_item(item, item.owner, ON) == (refused[0][1],)
    both = replace(BY_ID["MEM-A4"], as_of="2020-01-01", retention_days=3650, field="diameter_mm")
    assert m.gate_item(both, "BUYER-A", ON) == ("MEMORY_NOT_VISIBLE", "STALE_FIELD")
    assert m.CODES["STALE_FIELD"] == ("degraded", "P6") and m.CODES["PROHIBITED_FAMILY"] == ("prohibited_scope", "P1")


def test_expiry_keeps_the_last_day_of_retention():
    purchase = BY_ID["MEM-A3"]   # recorded 2025-11-01, kept 365 days
    assert m.gate_item(purchase, "BUYER-A", ON) == ()
    assert m.gate_item(purchase, "BUYER-A", DAY_AFTER) == ("MEMORY_EXPIRED",)
    assert m.gate_item(purchase, "BUYER-A", "2025-10-31") == ("MEMORY_NOT_YET_RECORDED",)
    late = m.run_session(m.Session("S9", "BUYER-A", query_by_id("PW-Q001"), DAY_AFTER), ms.build(m.ITEMS,
                                                                                                 m.ASSISTANT_MEMORY))
    gate = late.output("memory-gate")
    assert "MEM-A3" in gate.withheld and "MEM-A3" not in gate.passed
    assert not any(f.startswith("memory:MEM-A3") for f, *_ in late.output("memory-context").fields)


def test_a_cross_buyer_attempt_fails_closed(morning):
    a_only = ms.build([i for i in m.ITEMS if i.owner == "BUYER-A"], m.ASSISTANT_MEMORY)
    for buyer in ("BUYER-B", "buyer-a", "BUYER-A ", "", None):
        run = m.MEMORY.run({"query": query_by_id("PW-Q001"), "listings": LISTINGS, "as_of": ON, "memory": a_only,
                            "buyer": buyer})
        gate, context = run.output("memory-gate"), run.output("memory-context")
        assert gate.passed == () and context.fields == () and context.entries == ()
        assert all(d.subject.startswith("ref-") for d in gate.decisions)
        shown = _memory_values(run)
        for item in a_only.items:
            assert item.value not in shown and item.id not in shown
    # the shared index does propose BUYER-A's items to BUYER-B's query; the gate withholds every one
    run = m.run_session(m.Session("S9", "BUYER-B", query_by_id("PW-Q001")), morning)
    recalled = run.output("memory-recall").ids
    assert {BY_ID[i].owner for i in recalled} == {"BUYER-A", "BUYER-B"}
    gate = run.output("memory-gate")
    assert all(BY_ID[i].owner == "BUYER-B" for i in gate.passed)
    assert [d.reason_codes for d in gate.decisions if d.subject.startswith("ref-")] == [("MEMORY_OTHER_OWNER",)] * 4


def test_memory_is_marked_and_never_changes_the_catalogue_path(served):
    _state, runs = served
    for session in m.SESSIONS:
        run, off = runs[session.id], m.run_session(session)
        for stage in ("gate", "fusion", "evidence", "packet", "decision"):
            assert run.output(stage) == off.output(stage), (session.id, stage)
        catalogue_fields = [f for f, _ in run.output("packet").fields]
        assert not any(f.startswith("memory:") for f in catalogue_fields)
        for field_id, _value, marked, *_ in run.output("memory-context").fields:
            assert field_id.startswith("memory:") and marked == "memory"
    for query in QUERIES:   # every catalogue query, for either buyer, memory on or off
        off = evaluate(query)
        for buyer in ("BUYER-A", "BUYER-B"):
            on = m.run_session(m.Session("S9", buyer, query), _state)
            assert on.output("decision") == off.output("decision")
            assert on.output("packet", None) == off.output("packet", None)


# ---------------------------------------------------------------- current input against memory

def test_current_input_wins_and_the_conflict_is_shown(served):
    _state, runs = served
    conflict = runs["S2"].output("memory-context")   # today 18 mm, remembered 16 mm
    assert conflict.conflicts == (("MEM-A2@v1", "diameter_mm", "18", "16"),)
    assert not any("diameter_mm" in f for f, *_ in conflict.fields)
    assert conflict.next_actions == ("say that today's diameter_mm 18 is used, not the 16 remembered on 2026-09-12; "
                                     "offer to correct the memory",)
    assert runs["S2"].output("contract").diameter.value_mm == "18"
    asks = runs["S3"].output("memory-context")   # a bare 16: ask, memory only suggests
    assert [(e.item, e.action) for e in asks.entries][0] == ("MEM-A2@v1", "ask")
    assert runs["S3"].output("decision").decision.state == "clarify"
    agree = runs["S1"].output("memory-context")
    assert [e.conflict for e in agree.entries] == [False, False, False]
    assert [f for f, *_ in agree.fields] == ["memory:MEM-A1@v1#machine_model", "memory:MEM-A3@v1#listing_id"]
    table = {("18", "16", False): ("follow_today", "18", True), ("16", "16", False): ("follow_today", "16", False),
             (None, "16", True): ("ask", None, False), (None, None, True): ("none", None, False),
             (None, "16", False): ("memory", "16", False), ("18", None, True): ("follow_today", "18", False)}
    for args, want in table.items():
        assert m.resolve(*args) == want
    with pytest.raises(TypeError, match="today must be a str or None"):
        m.resolve(18, "16")
    with pytest.raises(TypeError, match="ambiguous must be a bool"):
        m.resolve(None, "16", 1)


# ---------------------------------------------------------------- deletion, correction, migration

def test_deletion_propagates_and_leaves_an_opaque_record(served):
    state, _runs = served
    assert ms.propagation(state, "MEM-A3") == {"store": 1, "index": 1, "packet-cache": 3, "trace-payloads": 3,
                                               "deletion-record": 0}
    after, record = ms.delete(state, "MEM-A3", ON)
    assert ms.propagation(after, "MEM-A3") == {"store": 0, "index": 0, "packet-cache": 0, "trace-payloads": 0,
                                               "deletion-record": 1}
    assert record == ms.DeletionRecord(opaque_ref("MEM-A3"), ON, (("store", 1), ("index", 1), ("packet-cache", 3),
                                                                  ("trace-payloads", 3)))
    text = repr((after.items, after.cache, after.traces, after.deletions, after.index))
    assert "MEM-A3" not in text and "PW-L001 for the pump" not in text
    assert sum(pair == (record.ref, "deleted") for p in after.traces for pair in p.memory) == 3
    with pytest.raises(ValueError, match="'MEM-A3' is not in the memory store"):
        ms.delete(after, "MEM-A3", ON)


def test_an_index_that_waits_for_a_rebuild_fails_the_contract_and_the_fix_holds(served):
    state, _runs = served
    lazy, _ = ms.requests(replace(state, prompt_index=False))
    fixed, _ = ms.requests(state)
    assert ms.propagation(lazy, "MEM-A3")["index"] == 1 and ms.propagation(fixed, "MEM-A3")["index"] == 0
    probe = m.encode(m.SESSIONS[0].query.text, lazy.encoder)
    found = ann.search(lazy.index, probe, k=m.RECALL_K, nprobe=m.NPROBE)
    assert "MEM-A3" in found.ids
    assert recall_at_k(found.ids, ann.exact_search(lazy.index.vectors, probe, m.RECALL_K).ids, m.RECALL_K) == 1
    run = m.run_session(m.SESSIONS[0], lazy)   # the gate still fails closed on a recalled id with no record
    decision = dict(zip(run.output("memory-gate").withheld, run.output("memory-gate").decisions))["MEM-A3"]
    assert decision.reason_codes == ("MEMORY_NO_RECORD",) and decision.subject == opaque_ref("MEM-A3")
    owners = {i.id: i.owner for i in m.ITEMS}
    held = {check: ok for check, ok, _ in ms.verify(lazy, ms.replay(m.SESSIONS, lazy, owners), ("MEM-A3",),
                                                    ("MEM-A1",), ("MEM-A2",))}
    assert list(held.values()) == [False, False, True, False]
    assert all(ok for _c, ok, _d in ms.verify(fixed, ms.replay(m.SESSIONS, fixed, owners), ("MEM-A3",),
                                              ("MEM-A1",), ("MEM-A2",)))


def test_a_correction_records_both_versions_and_drops_derived_copies(served):
    state, _runs = served
    corrected = ms.correct(state, "MEM-A2", ON, value="18", text="new pump: the shaft takes an 18 mm seal now")
    assert [(i.version, i.value, i.as_of) for i in corrected.history("MEM-A2")] == [(1, "16", "2026-09-12"),
                                                                                  (2, "18", ON)]
    assert corrected.current()["MEM-A2"].version == 2 and corrected.label == "mem-index/2"
    assert dict(corrected.index.vectors)["MEM-A2"] == m.encode("new pump: the shaft takes an 18 mm seal now",
                                                               "mem-vec-1")
    assert all("MEM-A2" not in e.items for e in corrected.cache) and len(corrected.cache) == 1
    run = m.run_session(m.SESSIONS[0], corrected)   # today 16 against the corrected 18
    assert run.output("memory-context").conflicts == (("MEM-A2@v2", "diameter_mm", "16", "18"),)
    withdrawn = ms.correct(state, "MEM-A1", ON, permission="denied")
    assert withdrawn.index is state.index and withdrawn.label == state.label   # same text: same vector
    with pytest.raises(ValueError, match="changes must name value, text, permission or visibility"):
        ms.correct(state, "MEM-A1", ON, owner="BUYER-B")


def test_migration_refuses_mixed_versions_and_re_encodes_everything(morning, record):
    migration = record["migration"]
    assert migration["refused"]["build"].endswith("one index holds one vector space")
    assert "re-encode the query (or rebuild the index) in one space" in migration["refused"]["search"]
    assert (migration["mixed_first"], migration["one_space_first"], migration["old_first"]) == ("MEM-A5", "MEM-A1",
                                                                                                 "MEM-A1")
    migrated = ms.migrate(morning, "mem-vec-2")
    assert migrated.encoder == "mem-vec-2" and {v.version for _i, v in migrated.index.vectors} == {"mem-vec-2"}
    with pytest.raises(ValueError, match="query vector version 'mem-vec-2', the index holds 'mem-vec-1'"):
        ann.search(morning.index, m.encode("pump seal", "mem-vec-2"), k=1, nprobe=1)
    with pytest.raises(ValueError, match="MemoryState.index must be an ann.Index of mem-vec-2"):
        replace(morning, encoder="mem-vec-2")
    assert m.run_session(m.SESSIONS[0], migrated).output("memory-recall").encoder == "mem-vec-2"
    blind = m.run_session(m.Session("S0", "BUYER-A", replace(query_by_id("PW-Q001"), 
        text="my order history please")), morning)
    assert blind.output("memory-recall").status == "not run"
    with pytest.raises(ValueError, match="version must be one of"):
        m.encode("pump", "mem-vec-3")
    with pytest.raises(TypeError, match="text must be a str"):
        m.encode(None, "mem-vec-1")


def test_an_encoding_is_the_same_every_time_and_a_refusal_too(morning):
    text = BY_ID["MEM-A2"].text
    first = m.encode(text, "mem-vec-1")
    assert m.encode(text, "mem-vec-1") == first and dict(morning.index.vectors)["MEM-A2"] == first
    assert m.encode(text, "mem-vec-2") != first and sum(first.values) == 5   # shaft 16 mm seal pump
    for _ in range(2):   # every call that cannot be encoded is refused again
        with pytest.raises(ValueError, match=r"encode\('my order history please'\) .* rejected: zero vector"):
            m.encode("my order history please", "mem-vec-1")


# ---------------------------------------------------------------- replay

def test_the_replay_shows_the_requests_on_the_frozen_sessions(record):
    replay, migration = record["replays"]
    assert migration["change"] == "migration" and migration["new"].endswith("mem-vec-2")
    assert [case for case, d in migration["diff"].items() if any(d.values())] == ["S4"]
    assert replay["change"] == "requests" and replay["old"] == "mem-index/1 over mem-vec-1"
    assert replay["new"] == "mem-index/2 over mem-vec-1"
    for case in ("S1", "S2", "S3"):
        assert replay["diff"][case]["packet_removed"] == ["memory:MEM-A1@v1#machine_model",
                                                          "memory:MEM-A3@v1#listing_id"]
        assert replay["diff"][case]["lost"] == ["MEM-A3"]
        assert ["MEM-A1", "PERMISSION_DENIED"] in replay["diff"][case]["exclusions_added"]
    assert all(d["state"] is None for d in replay["diff"].values())
    assert all(c["held"] for c in replay["checks"]) and len(replay["checks"]) == 4
    lazy = record["deletion"]["lazy_checks"]
    assert [c["held"] for c in lazy] == [False, False, False]
    assert lazy[1]["detail"] == "recalled again in S1, S2, S3"


def test_the_migration_replay_changes_one_session(morning):
    owners = {i.id: i.owner for i in m.ITEMS}
    diff = ms.replay_diff(ms.replay(m.SESSIONS, morning, owners),
                          ms.replay(m.SESSIONS, ms.migrate(morning, "mem-vec-2"), owners))
    assert {c: d for c, d in diff.items() if any(d.values())} == {"S4": {
        "gained": ["MEM-B3"], "lost": [opaque_ref("MEM-A1")], "moved": [],
        "exclusions_added": [["MEM-B3", "PROHIBITED_FAMILY"]],
        "exclusions_removed": [[opaque_ref("MEM-A1"), "MEMORY_OTHER_OWNER"]],
        "packet_added": [], "packet_removed": [], "state": None}}


def test_replay_diff_compares_like_with_like(served):
    state, _runs = served
    rows = ms.replay(m.SESSIONS, state)
    assert all(not any(d.values()) for d in ms.replay_diff(rows, rows).values())
    with pytest.raises(ValueError, match="must replay the same cases"):
        ms.replay_diff(rows, dict(list(rows.items())[:2]))
    with pytest.raises(TypeError, match="old must be a dict"):
        ms.replay_diff(list(rows.values()), rows)


# ---------------------------------------------------------------- the command

# Every figure the curriculum lists for lesson 13, as the default trace prints it.
FIGURES = (
    # what a memory feature must define; the draft is refused
    "purposes, kinds, owner_scope, visibility, consent, retention_days, deletion_reaches", "is refused",
    # the store with purpose, source, accuracy, owner, scope, visibility, retention, version, as-of
    "MEM-A1@v1 BUYER-A machine machine_model Aquaro WP-40", "MEM-A6 fit-advice old CRM import recorded owner -",
    "MEM-A3 365 2025-11-01 2026-11-01 - MEMORY_EXPIRED", "MEM-A5 180 2025-05-01 2025-10-28 MEMORY_EXPIRED",
    # the sessions: the gate, scope (another buyer's item withheld), memory marked as memory
    "ref-f10c86c1f5f1 0.4082 MEMORY_OTHER_OWNER", "marked as memory: memory:MEM-A1@v1#machine_model",
    # current input wins: a remembered 16 mm against today's 18 mm
    "MEM-A2@v1 18 16 follow_today yes", "today's diameter_mm 18 against the remembered 16",
    "the same with memory switched off: yes",
    # correction: both versions recorded
    "1 16 2026-09-12 no", "2 18 2026-11-01 yes",
    # withdrawn consent
    "MEM-A1: consent withdrawn",
    # deletion, and the index that waits for its rebuild
    "index 0 1", "deletion-record 1 1", "ref-1750588c5287 deleted on 2026-11-01",
    "still returns the deleted item at rank 3", "recall@5 against exact search over its own contents is 1.000",
    "FAILED: no replayed case recalls or packs ref-1750588c5287 - recalled again in S1, S2, S3",
    # migration: mixing refused, one space
    "Embedding migration mem-vec-1 -> mem-vec-2", "the index refuses to build", "would be MEM-A5",
    # replay before exposure: the requests and the migration, with the propagation checks
    "Replay of the buyer's requests", "S1 1 1 2 2 - - 2 -",
    "held: deletion of ref-1750588c5287 reached every store", "Packets or states change in S1, S2, S3",
    "Replay of the migration to mem-vec-2", "S4 1 1 - 1 1 - - -", "the change may be exposed",
    # the catalogue queries with memory off
    "PW-Q004 conflict all_excluded -",
)


def test_the_default_trace_prints_every_curriculum_figure():
    assert figures_missing("memory", FIGURES) == []
    assert methods("memory", "--all", check=False).returncode == 2   # no option left: the default is the lesson


def test_the_modules_replay_diff_fails_task_4():
    """The lesson's replay_diff lists differences; the task asks which of them block a change."""
    solution = (ROOT / "solutions" / "memory.py").read_text(encoding="utf-8")
    pasted = solution + "\nfrom modules.memory.store import replay_diff as replay_blockers\n"
    assert failed_tasks("memory", pasted) == {4}


def test_the_command_record(record):
    assert record["lesson"] == "memory" and [q["query_id"] for q in record["queries"]] == [q.id for q in QUERIES]
    assert [s["session"] for s in record["sessions"]] == ["S1", "S2", "S3", "S4"]
    assert all(s["catalogue"]["same_with_memory_off"] for s in record["sessions"])
    assert record["deletion"]["removed"] == {"store": 1, "index": 1, "packet-cache": 3, "trace-payloads": 3}
    assert record["deletion"]["lazy_recall_at_k"] == 1.0 and record["deletion"]["lazy_rank"] == 3
    assert record["correction"]["versions"] == [{"version": 1, "value": "16", "as_of": "2026-09-12", "current": False},
                                                {"version": 2, "value": "18", "as_of": ON, "current": True}]
    gate = {s["id"]: (s["gate"], s["gate_tomorrow"]) for s in record["store"]}
    assert gate["MEM-A3"] == ([], ["MEMORY_EXPIRED"])
