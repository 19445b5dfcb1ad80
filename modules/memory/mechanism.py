"""Lesson 13, memory: retained context with obligations.

A buyer told the shop in September that their water pump takes a 16 mm seal. Keeping that
between tasks is convenient, and it is data like any other: it has a purpose, a source, an
expected accuracy, an owner, a scope (this buyer only), a visibility, a retention period,
a version and an as-of date, and it answers to the same eligibility gate as a catalogue
listing. "It is only memory" changes none of the data questions.

The catalogue's first release keeps no memory between sessions. A memory feature is
allowed only once it defines everything in MemoryFeature (`feature_gaps` lists what is
missing); `with_memory` refuses an incomplete one. The allowed feature extends lesson 08's
catalogue pipeline with three stages and copies none:

  memory-recall   (after the channels; kind "memory", so the catalogue gate and fusion
                  never read it) the buyer's query, encoded by the store's encoder version,
                  searched in lesson 12's approximate index (modules/common/ann.py), which
                  holds every buyer's items: scope is the gate's job, and it is tested
  memory-gate     (after the catalogue gate) the same assisted-use policy: owner scope,
                  fail-closed permission through the policy's own permission_gate,
                  visibility, retention (usable through its last day, never after), the
                  prohibited families and per-field freshness against the run's as-of date
  memory-context  (after the packet) each usable item against today's input: explicit
                  current input wins and a disagreement is recorded and shown; a bare
                  number asks (memory may suggest, never decide); what today does not say
                  enters the packet marked as memory, never as catalogue evidence

Memory never changes the catalogue's candidates, exclusions, packet or state: with memory
switched off a catalogue query gets exactly what lessons 07-09 give it. Deletion,
correction, migration and replay live in modules/memory/store.py, the trace and its tables
in modules/memory/trace.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.common import ann
from modules.catalogue import (CATALOGUE_AS_OF, LISTINGS, PERMISSIONS, PROHIBITED_FAMILIES, Query, opaque_ref,
                               query_by_id)
from modules.common.checks import short, whole_number
from modules.common.pipeline import Pipeline, Stage
from modules.common.vectors import dot, unit
from modules.catalogue.policy import (FRESHNESS, POLICY_VERSION, Decision, FieldAge, GateResult, day_number,
                                      decide_state, permission_gate)
from modules.eligibility import CATALOGUE
from modules.memory.feature import (ACCURACIES, ASSISTANT_MEMORY, DRAFT_FEATURE, ENCODERS, FIELDS,  # noqa: F401
                                    FIRST_RELEASE, KINDS, PURPOSES, SCOPES, VISIBILITIES, MemoryFeature,
                                    _text, encode, feature_gaps)

__all__ = [
    "MEMORY_POLICY", "GATE_VERSION", "MEMORY_CLAUSES", "CODES", "KINDS", "FIELDS", "PURPOSES", "ACCURACIES",
    "SCOPES", "VISIBILITIES", "ENCODERS", "MemoryItem", "Session", "MemoryFeature", "ITEMS", "SESSIONS",
    "ASSISTANT_MEMORY", "DRAFT_FEATURE", "FIRST_RELEASE", "feature_gaps", "encode", "gate_item", "resolve",
    "today_value", "recall", "memory_gate", "memory_context", "with_memory", "MEMORY", "run_session",
]

MEMORY_POLICY = "memory-policy/1"
GATE_VERSION = f"{POLICY_VERSION}+{MEMORY_POLICY}"
MEMORY_CLAUSES = {
    "M1": "only the owner's context uses an item; another buyer's is withheld unread",
    "M2": "an item the buyer cannot see (so cannot correct or delete) is not used",
    "M3": "an item is usable from the day it is recorded through its last retained day",
    "M4": "explicit current input wins over memory; a disagreement is shown",
    "M5": "memory enters the packet marked as memory, never as catalogue evidence",
    "M6": "deletion removes the item and all derived from it; an opaque record stays",
    "M7": "a correction adds a version that supersedes the old; both are recorded",
    "M8": "two encoder versions are never compared; a migration re-encodes all",
}
# reason code -> (state, clause), in the order the gate checks them
CODES = {
    "MEMORY_OTHER_OWNER": ("unauthorized", "M1"), "MEMORY_NO_RECORD": ("unauthorized", "M6"),
    "PERMISSION_DENIED": ("unauthorized", "P2"), "PERMISSION_UNKNOWN": ("unauthorized", "P2.1"),
    "DUPLICATE_ID_CONFLICT": ("unauthorized", "P2.2"), "MEMORY_NOT_VISIBLE": ("unauthorized", "M2"),
    "MEMORY_NOT_YET_RECORDED": ("unauthorized", "M3"), "MEMORY_EXPIRED": ("unauthorized", "M3"),
    "PROHIBITED_FAMILY": ("prohibited_scope", "P1"), "STALE_FIELD": ("degraded", "P6"),
}
RECALL_K, N_LISTS, NPROBE, SEED = 5, 3, 2, 13     # the approximate index's settings (lesson 12)


@dataclass(frozen=True)
class MemoryItem:
    """One retained item about one buyer; a correction is a new version of the same id. A
    frozen record, checked when made (and by dataclasses.replace)."""
    id: str
    version: int
    owner: str            # the buyer it belongs to; scope says who else may see it: nobody
    kind: str             # machine, purchase or preference
    field: str            # what it says something about, e.g. diameter_mm
    value: str            # exact text, e.g. "16" (millimetres, as the contract writes them)
    text: str             # the item as recorded: what the encoder reads
    purpose: str          # why it is kept
    source: str           # where it came from
    accuracy: str         # expected accuracy: stated, recorded or inferred
    scope: str            # owner-only
    visibility: str       # owner (on the buyer's memory page) or internal
    retention_days: int   # usable through as_of + retention_days, never after
    as_of: str            # ISO date it was recorded or last confirmed
    permission: str | None  # the buyer's consent to assisted use: allowed, denied, unknown or None

    def __post_init__(self):
        for name in ("id", "owner", "value", "text", "source"):
            _text("MemoryItem", name, getattr(self, name))
        for name, choices in (("kind", KINDS), ("field", FIELDS), ("purpose", PURPOSES),
                              ("accuracy", ACCURACIES), ("scope", SCOPES), ("visibility", VISIBILITIES)):
            _text("MemoryItem", name, getattr(self, name), choices)
        whole_number(self.version, "MemoryItem.version", minimum=1)
        whole_number(self.retention_days, "MemoryItem.retention_days", minimum=1)
        day_number(self.as_of, "MemoryItem.as_of")
        if self.permission is not None and self.permission not in PERMISSIONS:
            raise ValueError(f"MemoryItem.permission must be one of {PERMISSIONS} or None, got {short(self.permission)}")

    @property
    def key(self) -> str:
        return f"{self.id}@v{self.version}"


@dataclass(frozen=True)
class Session:
    """One task of one buyer: who asks, what, on which day (a frozen, checked record)."""
    id: str
    buyer: str
    query: Query
    as_of: str = CATALOGUE_AS_OF

    def __post_init__(self):
        _text("Session", "id", self.id)
        _text("Session", "buyer", self.buyer)
        if not isinstance(self.query, Query):
            raise TypeError(f"Session.query must be a Query, got {type(self.query).__name__} {short(self.query)}")
        day_number(self.as_of, "Session.as_of")


# ---------------------------------------------------------------- the gate, one item at a time

def gate_item(item: MemoryItem, buyer: str, as_of: str) -> tuple:
    """The reason codes that withhold `item` from `buyer`'s context on `as_of`, in check order;
    () when it may be used. Another buyer's item is not read further, nor is one whose
    permission is not exactly "allowed" (the catalogue's own permission_gate decides that)."""
    if not isinstance(item, MemoryItem):
        raise TypeError(f"item must be a MemoryItem, got {type(item).__name__} {short(item)}")
    _text("gate_item", "buyer", buyer)
    today = day_number(as_of, "as_of")
    if item.owner != buyer:
        return ("MEMORY_OTHER_OWNER",)
    _permitted, refused = permission_gate([(item.id, item.permission)])
    if refused:
        return (refused[0][1],)
    codes = []
    if item.visibility != "owner":
        codes.append("MEMORY_NOT_VISIBLE")
    age = today - day_number(item.as_of, "item.as_of")
    if age < 0:
        codes.append("MEMORY_NOT_YET_RECORDED")
    elif age > item.retention_days:
        codes.append("MEMORY_EXPIRED")
    if item.field == "family" and item.value in PROHIBITED_FAMILIES:
        codes.append("PROHIBITED_FAMILY")
    if any(rule.field == item.field and age > rule.max_days for rule in FRESHNESS):
        codes.append("STALE_FIELD")
    return tuple(codes)


def _decision(subject: str, codes: tuple) -> Decision:
    state = decide_state([CODES[code][0] for code in codes])
    return Decision(subject, state, codes, tuple(dict.fromkeys(CODES[code][1] for code in codes)),
                    (f"{subject}:memory",), ("leave the item out of the context", "do not mention it"))


# ---------------------------------------------------------------- current input against memory

def today_value(contract, field: str) -> tuple:
    """(what today's query contract says about `field`, or None; whether it gave a number without a unit)."""
    if field == "diameter_mm":
        return (contract.diameter.value_mm if contract.diameter else None), contract.state == "clarify"
    if field == "family":
        return contract.family, False
    return None, False


def resolve(today, remembered, ambiguous: bool = False) -> tuple:
    """(action, value used, conflict) for one field. Explicit current input always wins, and a
    remembered value that differs is a conflict to show; an ambiguous input asks (memory may
    suggest the answer, never give it); only what today does not say comes from memory."""
    for name, value in (("today", today), ("remembered", remembered)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a str or None, got {type(value).__name__} {short(value)}")
    if not isinstance(ambiguous, bool):
        raise TypeError(f"ambiguous must be a bool, got {short(ambiguous)}")
    if today is not None:
        return "follow_today", today, remembered is not None and remembered != today
    if ambiguous and remembered is not None:
        return "ask", None, False
    if remembered is not None:
        return "memory", remembered, False
    return "none", None, False


# ---------------------------------------------------------------- the three stages

@dataclass(frozen=True)
class MemoryRecall:
    """What stage `memory-recall` found: the nearest items in the shared index, whoever owns them."""
    status: str
    note: str
    ids: tuple[str, ...]
    scores: tuple[float, ...]
    compared: int
    encoder: str | None
    index_version: str | None


@dataclass(frozen=True)
class MemoryEntry:
    """One usable memory item against today's input: the action taken and whether the two disagree."""
    item: str
    action: str
    today: str | None
    remembered: str
    conflict: bool


@dataclass(frozen=True)
class MemoryContext:
    """What stage `memory-context` packs: the memory fields, marked as memory, with the conflicts
    and next actions."""
    status: str
    entries: tuple[MemoryEntry, ...]
    # ("memory:MEM-A1@v1#machine_model", value, "memory", source, accuracy, as_of)
    fields: tuple[tuple[str, str, str, str, str, str], ...]
    conflicts: tuple[tuple[str, str, str, str], ...]   # (item, field, today, remembered)
    next_actions: tuple[str, ...]


def recall(so_far) -> MemoryRecall:
    """Stage `memory-recall`: the nearest items in the shared memory index, whoever owns them."""
    state, buyer = so_far.inputs.get("memory"), so_far.inputs.get("buyer")
    if state is None:
        return MemoryRecall(status="off", note="no cross-session memory (the default)", ids=(), scores=(),
                            compared=0, encoder=None, index_version=None)
    if not isinstance(buyer, str) or not buyer.strip():
        return MemoryRecall(status="off", note="no buyer on this session: memory stays off", ids=(), scores=(),
                            compared=0, encoder=state.encoder, index_version=state.label)
    try:
        probe = encode(so_far.inputs["query"].text, state.encoder)
    except ValueError:
        return MemoryRecall(status="not run", note=f"the query has no direction in {state.encoder}", ids=(),
                            scores=(), compared=0, encoder=state.encoder, index_version=state.label)
    found = ann.search(state.index, probe, k=RECALL_K, nprobe=NPROBE)
    # the index's own score: the inner product of unit vectors is their cosine
    scores = tuple(round(dot(unit(probe.values), state.index.units[i]), 4) for i in found.ids)
    return MemoryRecall(status="ran", note=f"top {RECALL_K} of {len(state.index)} by cosine, {NPROBE} of {N_LISTS} "
                        f"lists", ids=found.ids, scores=scores, compared=found.compared, encoder=state.encoder,
                        index_version=state.label)


def memory_gate(so_far) -> GateResult:
    """Stage `memory-gate`: every recalled item through the same policy. A withheld item of another
    buyer (or one with no record left) is named only by its opaque ref, never by its id."""
    as_of, buyer, found = so_far.inputs["as_of"], so_far.inputs.get("buyer"), so_far.output("memory-recall")
    day_number(as_of, "as_of")
    current = so_far.inputs["memory"].current() if found.ids else {}
    passed, withheld, decisions, ages = [], [], [], []
    for item_id in found.ids:
        item = current.get(item_id)
        codes = ("MEMORY_NO_RECORD",) if item is None else gate_item(item, buyer, as_of)
        own = item is not None and item.owner == buyer and item.permission == "allowed"
        if own:   # only the buyer's own permitted items are read any further, as in the catalogue gate
            age = day_number(as_of) - day_number(item.as_of)
            ages += [(item_id, FieldAge(rule.field, item.as_of, age, rule.max_days, True, age <= rule.max_days))
                     for rule in FRESHNESS if rule.field == item.field]
        if not codes:
            passed.append(item_id)
            continue
        withheld.append(item_id)
        mine = item is not None and item.owner == buyer
        decisions.append(_decision(item_id if mine else opaque_ref(item_id), codes))
    return GateResult(GATE_VERSION, as_of, True, tuple(passed), tuple(withheld), tuple(decisions), tuple(ages), ())


def memory_context(so_far) -> MemoryContext:
    """Stage `memory-context`: each usable item against today's input; what goes in is marked memory."""
    gate = so_far.output("memory-gate")
    if not gate.passed:
        return MemoryContext(so_far.output("memory-recall").status, (), (), (), ())
    contract, current = so_far.output("contract"), so_far.inputs["memory"].current()
    entries, fields, conflicts, actions = [], [], [], []
    for item_id in gate.passed:
        item = current[item_id]
        today, ambiguous = today_value(contract, item.field)
        action, value, conflict = resolve(today, item.value, ambiguous)
        entries.append(MemoryEntry(item=item.key, action=action, today=today, remembered=item.value,
                                   conflict=conflict))
        if action == "memory":
            fields.append((f"memory:{item.key}#{item.field}", value, "memory", item.source, item.accuracy,
                           item.as_of))
        elif conflict:
            conflicts.append((item.key, item.field, today, item.value))
            actions.append(f"say that today's {item.field} {today} is used, not the {item.value} remembered on "
                           f"{item.as_of}; offer to correct the memory")
        elif action == "ask":
            actions.append(f"ask which {item.field} is meant; memory may suggest {item.value} (recorded "
                           f"{item.as_of}), the buyer decides")
    return MemoryContext(status="ran", entries=tuple(entries), fields=tuple(fields), conflicts=tuple(conflicts),
                         next_actions=tuple(actions))


RECALL = Stage("memory-recall", f"memory-recall/1 ({ann.INDEX_VERSION})", "retrieval", recall, kind="memory")
MEMORY_GATE = Stage("memory-gate", GATE_VERSION, "permission/freshness", memory_gate)
CONTEXT = Stage("memory-context", f"memory-context/1 ({MEMORY_POLICY})", "assembly", memory_context)


def with_memory(feature: MemoryFeature, pipeline: Pipeline = CATALOGUE) -> Pipeline:
    """`pipeline` with the three memory stages, only for a feature that defines everything."""
    gaps = feature_gaps(feature)
    if gaps:
        raise ValueError(f"memory feature {feature.name!r} is not allowed; it leaves undefined: {'; '.join(gaps)}")
    return (pipeline.insert(RECALL, after="vector").insert(MEMORY_GATE, after="gate")
            .insert(CONTEXT, after="packet", as_name=f"{pipeline.name}, with memory"))


# ---------------------------------------------------------------- the fixture

def _item(id, owner, kind, field, value, text, purpose, source, accuracy, retention, as_of, permission="allowed",
          visibility="owner", version=1):
    return MemoryItem(id, version, owner, kind, field, value, text, purpose, source, accuracy, "owner-only",
                      visibility, retention, as_of, permission)


ITEMS = (
    _item("MEM-A1", "BUYER-A", "machine", "machine_model", "Aquaro WP-40", "my water pump is an Aquaro WP-40 with a mechanical seal",
          "fit-advice", "buyer, in chat", "stated", 730, "2026-09-12"),
    _item("MEM-A2", "BUYER-A", "machine", "diameter_mm", "16", "the pump shaft takes a 16 mm seal",
          "fit-advice", "buyer, in chat", "stated", 730, "2026-09-12"),
    _item("MEM-A3", "BUYER-A", "purchase", "listing_id", "PW-L001", "bought mechanical seal PW-L001 for the pump",
          "reorder", "order history", "recorded", 365, "2025-11-01"),
    _item("MEM-A4", "BUYER-A", "preference", "faces", "carbon/ceramic", "often views carbon ceramic seal faces",
          "fit-advice", "browsing history", "inferred", 90, "2026-10-20", visibility="internal"),
    _item("MEM-A5", "BUYER-A", "purchase", "listing_id", "PW-L012", "ordered a gasket for the pump housing",
          "reorder", "order history", "recorded", 180, "2025-05-01"),
    _item("MEM-A6", "BUYER-A", "preference", "units", "mm", "wants seal sizes in mm", "fit-advice",
          "old CRM import", "recorded", 365, "2026-06-01", permission=None),
    _item("MEM-B1", "BUYER-B", "machine", "machine_model", "raw-water pump, boat engine",
          "the boat engine has a raw water pump", "fit-advice", "buyer, in chat", "stated", 730,
          "2026-08-20"),
    _item("MEM-B2", "BUYER-B", "machine", "diameter_mm", "22", "the stern shaft seal is 22 mm", "fit-advice",
          "buyer, on the phone", "stated", 3650, "2020-05-01"),
    _item("MEM-B3", "BUYER-B", "preference", "family", "safety-relief-valve", "asked about relief valve seat seals",
          "fit-advice", "buyer, in chat", "stated", 365, "2026-10-02"),
    _item("MEM-B4", "BUYER-B", "purchase", "listing_id", "PW-L009", "ordered nitrile lip seal PW-L009", "reorder",
          "order history", "recorded", 365, "2026-07-15", permission="denied"),
)

MEMORY = with_memory(ASSISTANT_MEMORY)


def _session(id, buyer, query_id):
    return Session(id=id, buyer=buyer, query=query_by_id(query_id))


SESSIONS = (_session("S1", "BUYER-A", "PW-Q001"), _session("S2", "BUYER-A", "PW-Q004"),
            _session("S3", "BUYER-A", "PW-Q006"), _session("S4", "BUYER-B", "PW-Q009"))


def run_session(session: Session, state=None, pipeline: Pipeline = MEMORY):
    """One session through the pipeline with memory (state None: memory switched off)."""
    if not isinstance(session, Session):
        raise TypeError(f"session must be a Session, got {type(session).__name__} {short(session)}")
    return pipeline.run({"query": session.query, "listings": LISTINGS, "as_of": session.as_of, "memory": state,
                         "buyer": session.buyer})
