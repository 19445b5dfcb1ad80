# %% [markdown]
# # Lesson 09 · grounding: traces that explain every inclusion and exclusion
#
# A shopper asks a parts assistant for a *carbon ceramic pump seal, 16 mm*. Two listings
# come back. A colleague asks the questions every support desk eventually asks: why those
# two? Why not the one that looked closest? Was anything left out, and on what rule? Would
# the same query give the same answer tomorrow?
#
# Lessons 07 and 08 built the path that produces the answer: a query contract, candidate
# channels, a permission and freshness gate, ranking and a packet. This lesson records that
# path, one **trace record** per query, and then uses the records for two jobs: telling a
# user only what they may know, and telling an engineer which layer broke.
#
# Everything is synthetic: a fictional catalogue of pump seals, no model, no network. The
# notebook calls `modules/grounding.py`, the same code `python3 -B methods.py grounding`
# runs.

# %%
import pathlib
import sys

ROOT = next(p for p in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools.render import plain_table, render_plain
from modules import grounding
from modules.catalogue import query_by_id

index = grounding.build_index()
record = grounding.run_query(query_by_id("PW-Q002"), grounding.HEALTHY, index)
print(record["query_id"], "-", record["query"])
print("record fields:", ", ".join(record))

# %% [markdown]
# ## One query, one record
#
# The record holds one field per question a reviewer asks:
#
# | field | answers |
# | --- | --- |
# | `fingerprint`, `versions` | which request, on which pipeline? (for replay) |
# | `transformations` | what did the query become, by which named, versioned step? |
# | `candidates`, `vector_rejected` | what did each channel propose, with which score and evidence? |
# | `exclusions` | what was removed, at which layer, on which category, reason code and rule version? |
# | `clusters` | which copies collapsed into one canonical listing? |
# | `ranking` | why does each survivor sit where it does? |
# | `packet` | which field ids were handed on? |
# | `state`, `cause`, `fallback` | what was decided, why, and what the product does instead |
#
# ### The fingerprint
#
# The fingerprint is a sha256 digest of a canonical JSON text: the normalised query
# (case-folded, whitespace collapsed) and the version of every component. Two spellings of
# the same request on the same pipeline share it; the same request on a rebuilt index does
# not. That is what makes a replay honest: "same fingerprint" means "same question to the
# same system", and a changed fingerprint points at what changed.

# %%
versions = grounding.BASELINE_VERSIONS
rebuilt = dict(versions, index="pw-index/2026-11-02-rebuild")
for text, used in (("carbon ceramic pump seal 16 mm", versions),
                   ("  Carbon CERAMIC   pump seal 16 mm", versions),
                   ("carbon ceramic pump seal 16 mm", rebuilt)):
    print(f"{grounding.query_fingerprint(text, used)[:16]}  {text!r:40} index={used['index']}")

# %% [markdown]
# ## Reading the record of PW-Q002
#
# The transformations keep the original text and name every step with its version. The
# size parser read `16 mm` as 16 in a millimetre field, so the structured filter could
# apply: only 16 mm listings reach the channels.

# %%
blocks = grounding.view(grounding.trace())
def show(title_start):
    """Print the trace table whose title starts with the given words."""
    for block in blocks:
        if "table" in block and block["table"]["title"].startswith(title_start):
            print(plain_table(block["table"]))

show("Input")

# %% [markdown]
# Each channel keeps its own evidence: the lexical channel shows the query words it found
# (title words count three times, description words once), the vector channel its cosine.
# Some refs are not listing ids but `ref-...` values. Those are listings the index does not
# positively allow for assisted use; even the internal trace names them only by an opaque
# reference that does not spell the id, title or text. The top vector candidate is one of
# them: the closest neighbour is a listing the assistant may not use.

# %%
show("Retrieval")

# %% [markdown]
# ## Exclusions carry a category, a reason code and a rule version
#
# Every retrieved listing passes the gate once. Three leave the path here, each for a
# different reason, and each exclusion records which rule removed it and in which version.
# The reason is a *code* from a closed list, never free text: free text could quote a title
# that must stay hidden, and a code can be counted.

# %%
show("Exclusions")
print("\nsafe reason codes:", grounding.REASON_CODES)

# %% [markdown]
# ### Ranks are recounted after the gate
#
# The gate runs *before* ranking. Reciprocal rank fusion then adds `1 / (60 + rank)` per
# channel, over the ranks among the listings that passed. `PW-L001` was second in the
# vector channel behind the denied neighbour; after the gate it is first, so its
# `ordering_score` is `2/61`, not `1/61 + 1/62`. Keeping the old rank would leave a hole in
# every survivor's score, and a hole is information about what was removed.

# %%
show("Ranking")
print("\n2/61 =", round(2 / 61, 6), "| 1/61 + 1/62 =", round(1 / 61 + 1 / 62, 6))

# %% [markdown]
# `PW-L002` does not appear in the ranking: it is a relisted copy of `PW-L001` (same
# canonical cluster `C-01`) and collapsed into it. `PW-L007` ranks third yet never reaches
# the packet: its title says 18 mm while its structured field says 16 mm, and a listing
# that contradicts itself cannot be quoted as evidence, so assembly excludes it with the
# reason `field_conflict`.

# %% [markdown]
# ## Not retrieved is not the same as retrieved, then denied
#
# Internally, the two are different facts with different fixes. A listing that was never
# retrieved points at the query, the filter or the channels; a listing that was retrieved
# and then denied points at permission data. The record keeps them apart, one line per
# listing in the index:

# %%
show("Where each listing went")

# %% [markdown]
# ## What the shopper sees
#
# The user view is built from four things only: the request, a user state, a fixed message
# for that state, and the cited answer lines. It never reads the exclusions, so a denied
# listing cannot change a single character of it: not its title, not its ref, not how many
# there were, not even the fact that something was withheld.

# %%
seen = grounding.user_view(record)
print(f"[{seen['state']}] {seen['message']}")
for line in seen["answer"]:
    print("-", line["text"], line["cites"][:2], "...")

# %% [markdown]
# The hard case is an answer that lost *everything* to permission. `PW-Q005` asks for a
# 22 mm marine stern seal; both 22 mm listings are retrieved and both fail the gate, so the
# internal cause is `all_unauthorized`. A second query with the same words and a size no
# listing has retrieves nothing at all (`no_permitted_match`). Internally they differ; to
# the shopper they must be indistinguishable. "You may not see these" is itself a leak: it
# tells the shopper that matching listings exist.

# %%
denied = grounding.run_query(query_by_id("PW-Q005"), grounding.HEALTHY, index)
nothing = grounding.run_query(grounding.NOTHING_QUERY, grounding.HEALTHY, index)
for case in (denied, nothing):
    print(f"{case['query']:26} internal: {case['state']} ({case['cause']}), "
          f"{len(case['exclusions'])} exclusion(s)")
    print(f"{'':26} shopper:  {grounding.user_view(case)['state']}: {grounding.user_view(case)['message']}")
same = dict(grounding.user_view(denied), query="") == dict(grounding.user_view(nothing), query="")
print("\nuser views identical apart from the query text:", same)

# %% [markdown]
# ## Regression localisation: walk the layers in order
#
# When an outcome goes bad, the trace is walked in a fixed order and the **first** layer
# whose check fails is the one to fix:
#
# input > source > retrieval > permission/freshness > ranking > assembly > decision >
# presentation > generation > change
#
# Each check is an invariant read from the record and the index it ran on: sizes with a
# written unit keep it; every index record carries valid permission and freshness metadata;
# everything that passed the gate is allowed, in scope and current; scores fall down the
# ranking; the packet holds only ranked listings; the state matches the evidence; the user
# view leaks nothing; the answer cites only packet fields; every version change is logged.
#
# The lab breaks the pipeline three ways, one part each:

# %%
traced = grounding.trace()
for v in traced["variants"]:
    print(f"{v['name']:42} {v['change'][0]} -> {v['change'][1]}")
print()
show("Where the symptom showed")

# %% [markdown]
# In every case the symptom appears at a different layer from the one that broke:
#
# * **The unit parser drops the unit.** The shopper typed `16 mm`; the assistant asks which
#   unit. The decision looks guilty, but it behaves correctly for a size without a unit. The
#   walk stops at *input*: the transformation lost a unit it was given.
# * **The index is rebuilt without permission fields.** No single answer changes much, but
#   permission exclusions triple. The gate looks guilty, and it is working exactly as
#   designed: an empty permission field fails closed. The walk stops at *source*.
# * **The freshness rule is switched off.** A seal from the 2024 price list ranks first and
#   is offered as current. The ranker looks guilty; the walk stops at
#   *permission/freshness*, which let a stale record through.

# %%
show("freshness rule disabled")

# %% [markdown]
# This is why nobody tunes the ranker before the trace names its layer. An age penalty in
# the ranker would bury the stale seal for this query and leave it eligible for the next
# one, and the real defect, a disabled rule, would ship on.

# %% [markdown]
# ## Aggregates by safe reason code
#
# Single traces explain single answers. Drift shows in aggregates: count the exclusions of
# every query by reason code, before and after a change. Because the codes are a closed,
# safe list, the dashboard can be shown to anyone without quoting a restricted title.

# %%
show("Over the")
agg = traced["exclusions_by_reason"]
print(f"\npermission exclusions {agg['permission_before']} -> {agg['permission_after']}, "
      f"policy {agg['policy_version'][0]} -> {agg['policy_version'][1]}, "
      f"index {agg['index_version'][0]} -> {agg['index_version'][1]}")

# %% [markdown]
# Permission exclusions go from 6 to 18 overnight while the policy version stays
# `assist-policy/4`. The policy did not get stricter, so the data it reads must have
# changed: every `permission_denied` has become `permission_unknown`, the signature of a
# field that no longer arrives. The rebuild read some listings from a feed export that has
# no permission column. It is a metadata propagation defect, and the fix is to repair the
# rebuild and re-run, not to treat unknown permission as allowed until the count looks
# normal again. Fail-closed did its job: nothing the index could not vouch for reached a
# shopper.

# %% [markdown]
# ## Your turn
#
# Open `exercises/grounding.py` and write the five tasks: `first_failing_layer` (the walk,
# which may not skip a layer), `user_view` (nothing about a denied listing, not even a
# count), `count_exclusions` (by safe reason code, zeros included) and the quizzes
# `REBUILD_QUIZ` and `RANKER_QUIZ`. Then run `python3 -B methods.py check grounding`; ask
# for a nudge with `python3 -B methods.py hint grounding`.
