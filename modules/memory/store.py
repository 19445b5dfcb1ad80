"""Lesson 13's obligations over time: the memory store and everything derived from it.

    MemoryState   every recorded version of every item, the encoder version, the approximate
                  index (lesson 12's modules/common/ann.py) built over the current versions,
                  the packet cache, the trace payloads and the deletion records
    build         a state for a memory feature (an item the feature does not allow is refused)
    serve         one session: its run, and the state with its cached packet and trace payload
    correct       a new version supersedes the old; both are recorded; derived copies of the
                  old value (cached packets) are dropped; a changed text is re-encoded
    delete        the item (every version) leaves the store; `purge` takes its vector out of
                  the index at once (ann.delete), drops its cached packets and replaces its
                  trace payloads by its opaque ref; a DeletionRecord (keyed ref, counts) remains.
                  `prompt_index=False` is the broken index that takes changes only at its
                  next rebuild: it keeps a deleted item, its search quality is perfect, and
                  the permission contract fails
    migrate       re-encode every item in one encoder version and rebuild the index;
                  `mixing` shows what the index refuses when two versions meet
    replay        frozen cases through a state (`row` per case; `recall_rows` replays the
                  recall stage alone); `replay_diff` compares two states' rows (candidates,
                  rank, exclusions, packet, state) and `verify` checks that deletions,
                  withdrawn consent and corrections reached every derived store
    memory_off    catalogue queries run with memory switched off
    requests, morning, day
                  the lesson's scenario: the buyer's three requests; the store and the
                  four sessions served (lesson 14 reuses them); everything the trace shows
                  (modules/memory/trace.py formats it)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from modules.common import ann
from modules.catalogue import QUERIES, opaque_ref
from modules.common.checks import sequence_of, short
from modules.catalogue.policy import day_number
from modules.common.vectors import Vector
from modules.common.pipeline import Pipeline
from modules.memory import mechanism as m
from modules.memory.mechanism import N_LISTS, RECALL, SEED, MemoryItem, Session, run_session
from modules.memory.feature import DERIVED_STORES, ENCODERS, MemoryFeature, encode, feature_gaps

__all__ = ["MemoryState", "CacheEntry", "TracePayload", "DeletionRecord", "build", "serve", "correct", "delete",
           "purge", "migrate", "mixing", "propagation", "replay", "row", "recall_rows", "replay_diff", "verify",
           "requests", "memory_off", "morning", "day"]

@dataclass(frozen=True)
class CacheEntry:
    """One cached packet: the session and buyer it served and the memory items whose data it holds."""
    session: str
    buyer: str
    query_id: str
    items: tuple[str, ...]    # ids whose data it holds
    packet: tuple[str, ...]   # its field ids, catalogue then memory


@dataclass(frozen=True)
class TracePayload:
    """The memory values one session's trace recorded (a deleted item's data must leave them too)."""
    session: str
    buyer: str
    query_id: str
    memory: tuple[tuple[str, str | None], ...]   # (id or ref, value)


@dataclass(frozen=True)
class DeletionRecord:
    """What a deletion leaves behind: the item's keyed ref, the day and how many entries each store
    lost."""
    ref: str
    on: str
    removed: tuple[tuple[str, int], ...]   # (store, count)


@dataclass(frozen=True)
class MemoryState:
    """The store and its derived stores at one moment; every operation returns a new state
    (a frozen record, checked when made and by dataclasses.replace)."""
    items: tuple[MemoryItem, ...]   # every recorded version of every item, in the order recorded
    encoder: str
    index: ann.Index      # an ann.Index of the encoder's vectors
    label: str            # the index version: "mem-index/N", N counting builds
    cache: tuple[CacheEntry, ...] = ()
    traces: tuple[TracePayload, ...] = ()
    deletions: tuple[DeletionRecord, ...] = ()
    prompt_index: bool = True   # False: the index takes changes only when it is next rebuilt

    def __post_init__(self):
        sequence_of(self.items, MemoryItem, "MemoryState.items")
        if self.encoder not in ENCODERS:
            raise ValueError(f"MemoryState.encoder must be one of {tuple(ENCODERS)}, got {short(self.encoder)}")
        if not isinstance(self.index, ann.Index) or self.index.version != self.encoder:
            raise ValueError(f"MemoryState.index must be an ann.Index of {self.encoder}, got {short(self.index)}")

    def current(self) -> dict:
        """{item id: its newest version}, in the order the ids were first recorded."""
        return _newest(self.items)

    def history(self, item_id: str) -> tuple:
        return tuple(item for item in self.items if item.id == item_id)


def _newest(items) -> dict:
    found: dict = {}
    for item in items:
        if item.id not in found or item.version > found[item.id].version:
            found[item.id] = item
    return found


def _index(items: dict, encoder: str) -> ann.Index:
    return ann.build(tuple((i, encode(item.text, encoder)) for i, item in items.items()), n_lists=N_LISTS, seed=SEED)


def _next_label(label: str) -> str:
    name, _, number = label.rpartition("/")
    return f"{name}/{int(number) + 1}"


def build(items, feature: MemoryFeature, prompt_index: bool = True) -> MemoryState:
    """A state for `feature` over `items`; an item the feature does not allow is refused."""
    items = sequence_of(items, MemoryItem, "items")
    gaps = feature_gaps(feature)
    if gaps:
        raise ValueError(f"memory feature {feature.name!r} is not allowed: {'; '.join(gaps)}")
    seen = set()
    for item in items:
        for name, allowed in (("purpose", feature.purposes), ("kind", feature.kinds)):
            if getattr(item, name) not in allowed:
                raise ValueError(f"item {item.id!r}: {name} {getattr(item, name)!r} is not one the feature keeps")
        if item.retention_days > feature.retention_days:
            raise ValueError(f"item {item.id!r}: retention_days {item.retention_days} exceeds the feature's "
                             f"{feature.retention_days}")
        if item.key in seen:
            raise ValueError(f"item {item.key!r} is recorded twice")
        seen.add(item.key)
    return MemoryState(items, feature.encoder, _index(_newest(items), feature.encoder), "mem-index/1",
                       prompt_index=prompt_index)


def serve(state: MemoryState, session: Session) -> tuple:
    """(run, state with this session's cached packet and trace payload)."""
    run = run_session(session, state)
    context, gate = run.output("memory-context", None), run.output("memory-gate", None)
    if context is None or gate is None:
        return run, state
    packet = tuple(f for f, _ in run.output("packet").fields) + tuple(f[0] for f in context.fields)
    names = dict(zip(gate.withheld, (d.subject for d in gate.decisions)))
    current = state.current()
    memory = tuple((i, current[i].value) for i in gate.passed) + tuple((names[i], None) for i in gate.withheld)
    entry = CacheEntry(session=session.id, buyer=session.buyer, query_id=session.query.id, items=gate.passed,
                       packet=packet)
    payload = TracePayload(session=session.id, buyer=session.buyer, query_id=session.query.id, memory=memory)
    return run, replace(state, cache=state.cache + (entry,), traces=state.traces + (payload,))


def _known(state: MemoryState, item_id: str) -> MemoryItem:
    if not isinstance(item_id, str):
        raise TypeError(f"item_id must be a str, got {type(item_id).__name__} {short(item_id)}")
    current = state.current()
    if item_id not in current:
        raise ValueError(f"item_id {item_id!r} is not in the memory store")
    return current[item_id]


def correct(state: MemoryState, item_id: str, on: str, **changes) -> MemoryState:
    """The buyer corrects an item: version n+1 recorded on `on` supersedes version n, which is kept."""
    old = _known(state, item_id)
    day_number(on, "on")
    unknown = sorted(set(changes) - {"value", "text", "permission", "visibility"})
    if unknown or not changes:
        raise ValueError(f"changes must name value, text, permission or visibility, got {unknown or 'none'}")
    new = replace(old, version=old.version + 1, as_of=on, **changes)
    items = state.items + (new,)
    cache = tuple(e for e in state.cache if item_id not in e.items)
    if new.text == old.text or not state.prompt_index:
        return replace(state, items=items, cache=cache)
    current = dict(state.current(), **{item_id: new})
    return replace(state, items=items, cache=cache, index=_index(current, state.encoder),
                   label=_next_label(state.label))


def purge(index: ann.Index, cache, traces, item_id: str) -> tuple:
    """(index, cache, traces, ref) with nothing derived from `item_id` left: its vector out of the
    index (ann.delete), every cached packet that used it dropped, each of its trace payload
    entries replaced by (its opaque ref, "deleted"). Everything else is kept, in order."""
    if not isinstance(item_id, str):
        raise TypeError(f"item_id must be a str, got {type(item_id).__name__} {short(item_id)}")
    ref = opaque_ref(item_id)
    if item_id in dict(index.vectors):
        index = ann.delete(index, item_id)
    cache = tuple(entry for entry in sequence_of(cache, CacheEntry, "cache") if item_id not in entry.items)
    traces = tuple(replace(p, memory=tuple((ref, "deleted") if i == item_id else (i, v) for i, v in p.memory))
                   for p in sequence_of(traces, TracePayload, "traces"))
    return index, cache, traces, ref


def delete(state: MemoryState, item_id: str, on: str) -> tuple:
    """(state without the item anywhere, its DeletionRecord). Every version leaves the store; an
    index that takes changes only when rebuilt keeps the vector (the failure the lesson shows)."""
    _known(state, item_id)
    day_number(on, "on")
    index, cache, traces, ref = purge(state.index, state.cache, state.traces, item_id)
    index = index if state.prompt_index else state.index
    record = DeletionRecord(ref, on, (("store", len(state.history(item_id))), ("index", int(index is not state.index)),
                                      ("packet-cache", len(state.cache) - len(cache)),
                                      ("trace-payloads", sum(p != q for p, q in zip(state.traces, traces)))))
    kept = tuple(item for item in state.items if item.id != item_id)
    return replace(state, items=kept, index=index, cache=cache, traces=traces,
                   deletions=state.deletions + (record,)), record


def migrate(state: MemoryState, encoder: str) -> MemoryState:
    """Every current item re-encoded in `encoder` and a new index; queries follow the state's encoder."""
    if encoder not in ENCODERS:
        raise ValueError(f"encoder must be one of {tuple(ENCODERS)}, got {short(encoder)}")
    return replace(state, encoder=encoder, index=_index(state.current(), encoder), label=_next_label(state.label),
                   cache=())


def mixing(state: MemoryState, query_text: str, encoder: str) -> dict:
    """What happens when vectors of two versions meet: the index refuses a half-migrated build and
    a query of another version; compared anyway (the old numbers relabelled, as an index without
    a version check would), the new query's nearest item is another one."""
    current = state.current()
    old = tuple((i, encode(item.text, state.encoder)) for i, item in current.items())
    new = tuple((i, encode(item.text, encoder)) for i, item in current.items())
    half = tuple(pair if n % 2 == 0 else new[n] for n, pair in enumerate(old))
    refused = {}
    for what, attempt in (("build", lambda: ann.build(half, n_lists=N_LISTS, seed=SEED)),
                          ("search", lambda: ann.search(state.index, encode(query_text, encoder), k=1, nprobe=N_LISTS))):
        try:
            attempt()
            refused[what] = None
        except ValueError as error:
            refused[what] = str(error)
    probe = encode(query_text, encoder)
    relabelled = tuple((i, Vector(v.values, encoder)) for i, v in old)
    return {"refused": refused, "mixed_first": ann.exact_search(relabelled, probe, 1).ids[0],
            "one_space_first": ann.exact_search(new, probe, 1).ids[0],
            "old_first": ann.exact_search(old, encode(query_text, state.encoder), 1).ids[0]}


def propagation(state: MemoryState, item_id: str) -> dict:
    """{store: what of `item_id` it still holds}; all zero and a record present when a deletion propagated."""
    if not isinstance(item_id, str):
        raise TypeError(f"item_id must be a str, got {type(item_id).__name__} {short(item_id)}")
    return {"store": len(state.history(item_id)), "index": int(item_id in dict(state.index.vectors)),
            "packet-cache": sum(item_id in e.items for e in state.cache),
            "trace-payloads": sum(i == item_id for p in state.traces for i, _ in p.memory),
            "deletion-record": sum(r.ref == opaque_ref(item_id) for r in state.deletions)}


def replay(cases, state: MemoryState, owners: dict | None = None) -> dict:
    """{case id: row} for frozen sessions run through `state` (see `row`)."""
    owners = dict(owners or {}, **{i: item.owner for i, item in state.current().items()})
    return {session.id: row(session, run_session(session, state), owners)
            for session in sequence_of(cases, Session, "cases")}


def row(session: Session, run, owners: dict) -> dict:
    """One replayed case: memory candidates in rank order, exclusions (memory gate, catalogue gate,
    evidence checks), packet field ids (catalogue, then memory) and the query's state. A memory
    item is named by its id in its owner's sessions and by its opaque ref in any other; `owners`
    ({item id: owner}) also names items a state no longer holds, so names stay stable."""
    found, gate = run.output("memory-recall", None), run.output("memory-gate", None)
    context, packet = run.output("memory-context", None), run.output("packet", None)
    names = {i: i if owners.get(i) == session.buyer else opaque_ref(i) for i in (found.ids if found else ())}
    excluded = [[names[i], *d.reason_codes] for i, d in zip(gate.withheld, gate.decisions)] if gate else []
    if run.output("gate", None) is not None:
        excluded += [[d.subject, *d.reason_codes] for d in run.output("gate").decisions
                     + run.output("evidence").decisions]
    return {"candidates": [names[i] for i in (found.ids if found else ())], "exclusions": excluded,
            "packet": ([f for f, _ in packet.fields] if packet else []) + ([f[0] for f in context.fields]
                                                                          if context else []),
            "state": run.output("decision").decision.state,
            "memory": [[e.item, e.action] + ([e.today, e.remembered] if e.conflict else [])
                       for e in (context.entries if context else ())]}


def recall_rows(cases, state: MemoryState, owners: dict) -> dict:
    """{case id: {"candidates": [...], "packet": []}}: the memory-recall stage alone, replayed on the
    frozen sessions (an index change reaches the pipeline there first), named as `row` names them."""
    alone = Pipeline("memory recall", (RECALL,))
    rows = {}
    for session in sequence_of(cases, Session, "cases"):
        ids = alone.run({"query": session.query, "memory": state, "buyer": session.buyer}).output("memory-recall").ids
        rows[session.id] = {"candidates": [i if owners.get(i) == session.buyer else opaque_ref(i) for i in ids],
                            "packet": []}
    return rows


def replay_diff(old: dict, new: dict) -> dict:
    """Per case: candidates gained, lost and moved (id, old rank, new rank), exclusions added and
    removed, packet fields added and removed, and the state before and after when it changed."""
    for name, rows in (("old", old), ("new", new)):
        if not isinstance(rows, dict):
            raise TypeError(f"{name} must be a dict of case id -> row, got {type(rows).__name__}")
    if list(old) != list(new):
        raise ValueError(f"old and new must replay the same cases, got {list(old)} and {list(new)}")
    diff = {}
    for case in old:
        a, b = old[case], new[case]
        rank_a = {c: n for n, c in enumerate(a["candidates"], start=1)}
        rank_b = {c: n for n, c in enumerate(b["candidates"], start=1)}
        ex_a, ex_b = [tuple(e) for e in a["exclusions"]], [tuple(e) for e in b["exclusions"]]
        diff[case] = {
            "gained": [c for c in b["candidates"] if c not in rank_a],
            "lost": [c for c in a["candidates"] if c not in rank_b],
            "moved": [[c, rank_a[c], rank_b[c]] for c in a["candidates"] if c in rank_b and rank_a[c] != rank_b[c]],
            "exclusions_added": [list(e) for e in ex_b if e not in ex_a],
            "exclusions_removed": [list(e) for e in ex_a if e not in ex_b],
            "packet_added": [f for f in b["packet"] if f not in a["packet"]],
            "packet_removed": [f for f in a["packet"] if f not in b["packet"]],
            "state": None if a["state"] == b["state"] else [a["state"], b["state"]]}
    return diff


def verify(state: MemoryState, rows: dict, deleted=(), withdrawn=(), corrected=()) -> list:
    """[(check, held, detail)]: each deleted id gone from every store and from every replayed case,
    each withdrawn id in no packet and no cached packet, each corrected item's current text in
    the index."""
    checks = []
    for item_id in deleted:
        ref, held = opaque_ref(item_id), propagation(state, item_id)
        left = [store for store in DERIVED_STORES if held[store]]
        checks.append((f"deletion of {ref} reached every store", not left and held["deletion-record"] == 1,
                       "still held by: " + ", ".join(left) if left else "store, index, packet-cache and "
                       "trace-payloads hold nothing of it; one opaque record remains"))
        seen = [case for case, r in rows.items() if any(item_id in c or ref in c for c in r["candidates"] + r["packet"])]
        checks.append((f"no replayed case recalls or packs {ref}", not seen,
                       "recalled again in " + ", ".join(seen) if seen else "no case recalls it"))
    for item_id in withdrawn:
        packed = [case for case, r in rows.items() if any(f.startswith(f"memory:{item_id}@") for f in r["packet"])]
        cached = [e.session for e in state.cache if item_id in e.items]
        checks.append((f"withdrawn consent of {item_id} reached packets and cache", not packed and not cached,
                       "still packed in " + ", ".join(packed + cached) if packed or cached
                       else "withheld in every case that recalls it; no cached packet holds it"))
    vectors = dict(state.index.vectors)
    for item_id in corrected:
        current = _known(state, item_id)
        fresh = vectors.get(item_id) == encode(current.text, state.encoder)
        checks.append((f"correction of {item_id} reached the index", fresh,
                       f"the index holds version {current.version}'s text" if fresh
                       else f"the index still ranks by an older version's text, not version {current.version}'s"))
    return checks


# ---------------------------------------------------------------- the lesson's day

REQUESTS_ON, DELETED, WITHDRAWN, CORRECTED = "2026-11-01", "MEM-A3", "MEM-A1", "MEM-A2"
CORRECTION = {"value": "18", "text": "new pump: the shaft takes an 18 mm seal now"}


def requests(state: MemoryState, on: str = REQUESTS_ON) -> tuple:
    """The buyer's requests of the day, in order: delete MEM-A3 (a purchase), withdraw consent for
    MEM-A1 (the machine model), correct MEM-A2 (the shaft is 18 mm now). Returns (state, record)."""
    state, record = delete(state, DELETED, on)
    state = correct(state, WITHDRAWN, on, permission="denied")
    return correct(state, CORRECTED, on, **CORRECTION), record


def memory_off(queries) -> dict:
    """{query id: run} for catalogue queries with memory switched off, each as a session of
    BUYER-A numbered by the query's place in the catalogue (C1 for its first query)."""
    return {q.id: run_session(Session(f"C{QUERIES.index(q) + 1}", "BUYER-A", q)) for q in queries}


def morning() -> dict:
    """The store as the day begins and the four sessions served with it (lesson 14 serves them too)."""
    state = build(m.ITEMS, m.ASSISTANT_MEMORY)
    served, sessions = state, []
    for session in m.SESSIONS:
        run, served = serve(served, session)
        sessions.append((session, run))
    tomorrow = "2026-11-02"
    return {
        "constants": {name: getattr(m, name) for name in ("FIRST_RELEASE", "ASSISTANT_MEMORY", "DRAFT_FEATURE",
                                                          "GATE_VERSION", "MEMORY_CLAUSES", "CODES", "N_LISTS",
                                                          "NPROBE", "RECALL_K", "SEED")},
        "draft_gaps": feature_gaps(m.DRAFT_FEATURE), "pipeline": list(m.MEMORY.names()), "on": REQUESTS_ON,
        "store_gate": {i: (m.gate_item(item, item.owner, REQUESTS_ON), m.gate_item(item, item.owner, tomorrow))
                       for i, item in state.current().items()},
        "sessions": sessions, "states": {"morning": state, "served": served},
    }


def day() -> dict:
    """Everything the lesson's trace shows: the morning; every catalogue query with memory switched
    off (so each session's catalogue answer can be compared with it); the buyer's requests, also
    on the index that waits for a rebuild; the migration; and the replay of the requests and of
    the migration on the frozen sessions (memory_trace formats it)."""
    found = morning()
    morning_state, served = found["states"]["morning"], found["states"]["served"]
    owners = {item.id: item.owner for item in morning_state.items}
    rows = {"morning": {session.id: row(session, run, owners) for session, run in found["sessions"]}}
    after, record = requests(served)
    lazy, _ = requests(replace(served, prompt_index=False))
    rows["after"] = replay(m.SESSIONS, after, owners)
    migrated = migrate(morning_state, "mem-vec-2")
    rows["migrated"] = replay(m.SESSIONS, migrated, owners)
    probe = encode(m.SESSIONS[0].query.text, lazy.encoder)
    found_lazy = ann.search(lazy.index, probe, k=m.RECALL_K, nprobe=m.NPROBE)
    exact = ann.exact_search(lazy.index, probe, k=m.RECALL_K)   # every vector the index holds
    return dict(found, **{
        "off": memory_off(QUERIES), "states": dict(found["states"], after=after, lazy=lazy, migrated=migrated),
        "rows": rows,
        "deleted": DELETED, "withdrawn": WITHDRAWN, "corrected": CORRECTED, "deletion": record,
        "propagation": {"after": propagation(after, DELETED), "lazy": propagation(lazy, DELETED)},
        "lazy_search": (found_lazy.ids, exact.ids,
                        list(found_lazy.ids).index(DELETED) + 1 if DELETED in found_lazy.ids else None),
        "mixing": mixing(morning_state, m.SESSIONS[0].query.text, "mem-vec-2"),
        "diffs": {"after": replay_diff(rows["morning"], rows["after"]),
                  "migrated": replay_diff(rows["morning"], rows["migrated"])},
        "checks": {"after": verify(after, rows["after"], (DELETED,), (WITHDRAWN,), (CORRECTED,)),
                   "migrated": verify(migrated, rows["migrated"]),
                   "lazy": verify(lazy, recall_rows(m.SESSIONS, lazy, owners), (DELETED,), (), (CORRECTED,))},
    })
