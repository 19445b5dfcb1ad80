# %% [markdown]
# # Lesson 13 · memory: retained context with obligations
#
# A buyer told the shop in September that their water pump takes a 16 mm seal. Keeping
# that between sessions saves them from repeating it. It also makes the shop the keeper
# of data about a person: who it belongs to, who may see it, whether they agreed to its
# use, how long it is kept, whether it is still true, how it is corrected, and how it is
# deleted everywhere it was copied to. None of those questions goes away because the data
# is called "memory".
#
# The catalogue's first release keeps **no** memory between sessions. This lesson shows
# what a memory feature has to define before it is allowed, and then runs one: the same
# parts-catalogue pipeline as lessons 07 to 09, extended with three stages (none copied),
# where remembered items pass the **same eligibility gate** as catalogue evidence.
#
# The notebook calls `modules/memory/mechanism.py` (the items, the gate, the three stages),
# `modules/memory/feature.py` (what a feature defines, the encoder),
# `modules/memory/store.py` (deletion, correction, migration, replay) and
# `modules/memory/trace.py` (the record and its tables), the code behind
# `python3 -B methods.py memory`.

# %%
import pathlib
import sys
from dataclasses import replace

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import charts, display
from labtools.render import block
from modules.memory import mechanism as memory
from modules.memory import store as memory_store
from modules.memory import trace as memory_trace
from modules.common import ann
from modules.catalogue import LISTINGS, query_by_id
from modules.catalogue.policy import day_number

record = memory_trace.trace()   # every section, as `methods.py memory` prints
view = memory_trace.view(record)


def show(*keys):
    """Show the blocks of the lesson's view with these keys."""
    display.show([block(view, key) for key in keys])


show("default", "feature", "pipeline")

# %% [markdown]
# The draft feature wanted to remember a buyer's pump and said nothing about who sees
# the item, how consent is asked, how long it is kept, how it is corrected, which encoder
# makes its vectors or which cases a change is replayed on; its deletion reached only the
# store. `with_memory` refuses it. The allowed feature defines every item, and the
# pipeline it builds is lesson 08's pipeline with three stages inserted:
#
# * `memory-recall`, after the catalogue channels. Its kind is `memory`, not `channel`,
#   so the catalogue gate and rank fusion never read it.
# * `memory-gate`, after the catalogue gate: the same policy, applied to memory.
# * `memory-context`, after the packet: memory against today's input.

# %%
try:
    memory.with_memory(memory.DRAFT_FEATURE)
except ValueError as error:
    display.say(f"ValueError: {error}")

# %% [markdown]
# ## The same policy, and memory's own clauses
#
# The P clauses are the catalogue's assisted-use policy: the memory gate calls the same
# `permission_gate` (only the exact value `allowed` passes; unknown or missing consent
# fails closed), the same list of prohibited families, and the same per-field freshness
# rules against the run's as-of date. The M clauses are what memory adds.

# %%
show("policy")

# %% [markdown]
# ## What is remembered, and what it obliges
#
# Ten items about two buyers: machines, purchases, preferences. Each carries its purpose,
# its source and expected accuracy, its owner, its scope (this buyer only), its
# visibility, its retention, its version and the date it was recorded.

# %%
show("store", "obligations")

# %% [markdown]
# Retention and freshness are different clocks. Retention is how long the shop may keep
# and use an item; freshness is how long its value stays true. `MEM-B2` (a 22 mm shaft,
# told on the phone in 2020) may be kept for ten years, but a diameter is only trusted
# for 1,826 days (the catalogue's own rule for `diameter_mm`), so it is stale already.

# %%
store = record["store"]
as_of = day_number(record["as_of"])
fig, ax = charts.figure(height=3.6)
for row, item in enumerate(reversed(store)):
    start, end = day_number(item["as_of"]), day_number(item["last_day"])
    usable = not item["gate"]
    ax.barh(row, end - start + 1, left=start - as_of, color=charts.COLOURS[2 if usable else 1], height=0.6)
    if item["field"] == "diameter_mm":
        ax.plot([start + 1826 - as_of], [row], marker="|", markersize=16, markeredgewidth=3,
                color=charts.COLOURS[4])
ax.axvline(0, color="black", linewidth=1)
ax.set_yticks(range(len(store)), [f"{s['id']} ({' '.join(s['gate']) or 'usable'})" for s in reversed(store)],
              fontsize=8)
ax.set_xlim(-2450, 1850)
ax.set_xlabel("days from the as-of date 2026-11-01 (the black line)")
charts.show(fig, "Each bar runs from the day an item was recorded to its last retained day; green items "
                 "pass the gate today, red ones do not (the reason is in the label). The purple tick on "
                 "a diameter item is where its freshness ends (1,826 days). MEM-A3's bar ends exactly "
                 "on the line: today is its last day. MEM-A5's ended over a year ago; MEM-B2's runs to 2030 "
                 "but its diameter went stale in 2025.")

# %% [markdown]
# ## The gate, one item at a time
#
# The checks run in a fixed order. Another buyer's item is withheld unread: not even its
# permission is looked at. An item whose consent is not exactly `allowed` is withheld
# next. Then visibility (an item the buyer cannot see on their memory page is one they
# cannot correct or delete, so it is not used), retention, prohibited families and
# freshness.
#
# Retention is counted the way lesson 08 counts a field's age: in whole days after the
# day of recording, which is day 0. An item kept N days is usable while its age is at
# most N, on N + 1 calendar days, the recording day included. `MEM-A3` was recorded on
# 2025-11-01 and is kept 365 days: its age on 2026-11-01 is 365, so the as-of date is its
# last day (the 366th calendar day counting 2025-11-01 itself), and on 2026-11-02 it is
# expired. The comparison is `age > retention_days`; with this counting, `>=` would
# expire it on 2026-11-01 and cut the last day off.

# %%
show("store-gate")
purchase = next(item for item in memory.ITEMS if item.id == "MEM-A3")
for day in ("2025-10-31", "2025-11-01", "2026-11-01", "2026-11-02"):
    print(f"MEM-A3 for BUYER-A on {day}: {memory.gate_item(purchase, 'BUYER-A', day) or 'usable'}")
print(f"MEM-A3 for BUYER-B on 2026-11-01: {memory.gate_item(purchase, 'BUYER-B', '2026-11-01')}")

# %% [markdown]
# ## Four sessions with memory
#
# Every item's text is encoded by the feature's encoder (`mem-vec-1`, a word count per
# axis: the lab has no model) and filed in lesson 12's approximate index. The index holds
# **every** buyer's items. That is deliberate here: it makes scope the gate's job, and the
# sessions show the gate doing it.

# %%
show("index", "recall", "context")

# %% [markdown]
# Read the recall table with the gate column:
#
# * **S1** (BUYER-A, *mechanical seal 16 mm for a water pump*): the machine model, the
#   remembered 16 mm and the previous purchase pass. `MEM-A6` (imported from an old CRM
#   with no consent recorded) fails closed. A BUYER-B item was recalled too and is named
#   only by its ref.
# * **S2** (*graphite mechanical seal 18 mm*): today says 18 mm, memory says 16 mm.
#   Today wins, and the disagreement is recorded and shown to the buyer, never silently
#   resolved in memory's favour.
# * **S3** (*pump seal 16*): a bare 16 has no unit. The catalogue asks (state `clarify`),
#   and memory does not answer for the buyer: it may suggest 16 mm in the question.
# * **S4** (BUYER-B, *nitrile lip seal 16 mm*): three of the five nearest items are
#   BUYER-A's, among them the remembered 16 mm seal. All three are withheld unread. BUYER-B's
#   own order of that very lip seal (`MEM-B4`) was not consented to, and the 22 mm from
#   2020 is stale: nothing of memory reaches this session.

# %%
show("packets")

# %% [markdown]
# What memory contributes goes into the packet **marked as memory**, under field ids of
# its own (`memory:MEM-A1@v1#machine_model`), with its source, accuracy and date. It is
# never mixed into the catalogue evidence, and the last line of each session checks the
# promise the lesson makes: with memory switched off, the catalogue's state, exclusions,
# ranking and packet are exactly the same.
#
# ## A cross-buyer attempt fails closed
#
# Here BUYER-B searches a store that holds only BUYER-A's items, then the same with the
# buyer id spelled differently. Nothing of BUYER-A reaches the context: owner ids compare
# exactly, and a session with no buyer gets no memory at all.

# %%
a_only = memory_store.build([i for i in memory.ITEMS if i.owner == "BUYER-A"], memory.ASSISTANT_MEMORY)
for buyer in ("BUYER-B", "buyer-a", None):
    run = memory.MEMORY.run({"query": query_by_id("PW-Q001"), "listings": LISTINGS, "as_of": "2026-11-01",
                             "memory": a_only, "buyer": buyer})
    gate = run.output("memory-gate")
    codes = sorted({code for d in gate.decisions for code in d.reason_codes})
    print(f"buyer {buyer!r}: recall {run.output('memory-recall').status}, passed {len(gate.passed)}, "
          f"withheld {len(gate.withheld)} {codes}, packed {len(run.output('memory-context').fields)}")

# %% [markdown]
# ## Current input against memory
#
# The rule for one field, in the lab's `resolve`: explicit current input wins, and a
# remembered value that differs is a conflict to show; an ambiguous input asks; memory
# fills only what today does not say.

# %%
for today, remembered, ambiguous in (("18", "16", False), ("16", "16", False), (None, "16", True),
                                     (None, "Aquaro WP-40", False), (None, None, False)):
    print(f"today {today!r:8} remembered {remembered!r:15} ambiguous {ambiguous!s:5} -> "
          f"{memory.resolve(today, remembered, ambiguous)}")

# %% [markdown]
# ## The buyer's requests
#
# Later that day BUYER-A deletes the purchase record `MEM-A3`, withdraws consent for the
# machine model `MEM-A1`, and corrects the shaft size `MEM-A2`: a new pump, 18 mm now.
#
# A correction adds a version; the old one stays in the history and is no longer read.
# Cached packets built from the old value are dropped, and the new text is re-encoded.
# A withdrawal is recorded the same way, with permission `denied`.

# %%
show("correction", "withdrawal")

# %% [markdown]
# A deletion has to reach everything derived from the item: its vector in the index, the
# packets cached with it, the trace payloads that recorded it. What may remain is an
# opaque record that a deletion happened: the item's keyed ref (HMAC of the id, the same
# mechanism as lesson 08's refs), the date and the counts.
#
# The second column is an index that takes changes only when it is next rebuilt, a
# common design for approximate indexes. Its search quality is perfect, and it still
# holds and returns the deleted item: that is a failure of the permission contract. The
# fix is to delete the vector when the request arrives (`ann.delete`).

# %%
show("deletion", "deletion-record", "deletion-checks")

# %% [markdown]
# ## Embedding migration
#
# A new encoder version, `mem-vec-2`, orders its axes differently: its vectors have the
# same length and look comparable, and their numbers mean other things. The index refuses
# to mix them, in a build and in a search, so the migration re-encodes every item and
# every query in one space.

# %%
show("migration")
migrated = memory_store.migrate(memory_store.build(memory.ITEMS, memory.ASSISTANT_MEMORY), "mem-vec-2")
print("versions in the migrated index:", sorted({v.version for _i, v in migrated.index.vectors}))
print("S1's query in mem-vec-2 finds:", ann.search(migrated.index, memory.encode(memory.SESSIONS[0].query.text,
                                                                                  "mem-vec-2"), k=3, nprobe=3).ids)

# %% [markdown]
# ## Replay before exposure
#
# Each change is replayed on the frozen sessions before anyone sees it. The replay
# compares candidate inclusion, rank, exclusions, packet and state, then checks that the
# deletion and the withdrawn consent reached every store and that the correction reached
# the index. Here are the buyer's requests, with the index that deletes on request: the
# packets lose the withdrawn and the deleted item, the corrected 18 mm now conflicts with
# S1's 16 mm, every check holds, and no session's state changes: memory never decided one.

# %%
show("replays", "replay-requests", "replay-requests-details")

# %% [markdown]
# The same replay with the index that waits for its rebuild. Its packets look just as
# clean, because the gate withholds an id that has no record left; but the deleted item
# is still among the candidates of S1, S2 and S3 (no session *loses* it), which is how
# the replay's checks catch the index before exposure.

# %%
owners = {item.id: item.owner for item in memory.ITEMS}
morning = memory_store.build(memory.ITEMS, memory.ASSISTANT_MEMORY)
served = morning
for session in memory.SESSIONS:
    _run, served = memory_store.serve(served, session)
frozen = memory_store.replay(memory.SESSIONS, morning, owners)


def diff_table(title, diff):
    """A replay diff as a table of counts, like the lesson's own."""
    return {"table": {
        "title": title,
        "legend": "per frozen session: memory candidates gained, lost and moved in rank; exclusions added "
                  "and removed; packet field ids added and removed; state before -> after (- = unchanged).",
        "columns": ["case", "gained", "lost", "moved", "excl +", "excl -", "packet +", "packet -", "state"],
        "rows": [[case] + [len(d[k]) or "-" for k in ("gained", "lost", "moved", "exclusions_added",
                                                      "exclusions_removed", "packet_added", "packet_removed")]
                 + [" -> ".join(d["state"]) if d["state"] else "-"] for case, d in diff.items()]}}


waiting, _record = memory_store.requests(replace(served, prompt_index=False))
display.show(diff_table("The requests, with the index that waits for a rebuild",
                        memory_store.replay_diff(frozen, memory_store.replay(memory.SESSIONS, waiting, owners))))

# %% [markdown]
# The migration is a change too, and the lesson replays it on the same frozen sessions.
# It changes one: in S4, BUYER-B's prohibited-family item `MEM-B3` is now recalled (the
# new encoder reads "seals" as "seal") and withheld by the gate, and one of BUYER-A's items
# drops out of the top five. No packet and no state changes, so the migration may ship.

# %%
show("replay-migration", "replay-migration-details")

# %% [markdown]
# ## With memory switched off
#
# Every catalogue query through the memory pipeline with no memory gets what lessons 07
# to 09 give it; the agreement test compares every key with those lessons.

# %%
show("queries")

# %% [markdown]
# ## Exercises
#
# `exercises/memory.py` asks for the memory gate, current input against memory, a
# deletion that reaches every derived store, the blockers a replay must find before a
# change is exposed, a quiz on why "it is only memory" changes none of the data questions,
# and a prediction of session S1 served one day later. Check them with
# `python3 -B methods.py check memory`; `python3 -B methods.py hint memory` gives hints.
