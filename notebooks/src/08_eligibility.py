# %% [markdown]
# # Lesson 08 · eligibility: permission, freshness and evidence states
#
# Lesson 07's channels propose candidates by similarity. Similarity says nothing about
# whether a listing **may** be used, whether what it says is still current, or whether
# its own fields agree. This lesson adds the controls to the same pipeline lesson 07
# runs, and makes every outcome a recorded decision rather than a sentence.
#
# The rules, in one line each:
#
# * A **gate** runs before ranking. Permission: only `allowed` passes; `unknown` or a
#   missing value fails closed; two copies of one id that disagree fail closed. Scope:
#   a prohibited family never passes. Freshness: checked **per field** against an
#   explicit as-of date. A withheld listing never reaches the ranker.
# * After ranking, **evidence checks**: a listing of the wrong family or size is
#   incompatible; one whose title and structured field disagree is a conflict.
# * States have a fixed precedence, and each decision records a state, reason codes,
#   policy clause ids, evidence references and next actions.
# * An empty result names its cause, and nothing is ever invented to fill it.
#
# The notebook calls `modules/eligibility/mechanism.py` and the policy in
# `modules/catalogue/policy.py`, the code behind `python3 -B methods.py eligibility`.

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import display
from labtools.render import block, blocks_between
from modules.eligibility import mechanism as eligibility
from modules.eligibility import trace as eligibility_lesson
from modules.catalogue import VECTOR_VERSION, Query, listing_by_id, opaque_ref, query_by_id

record = eligibility_lesson.trace()
view = eligibility_lesson.view(record)


def show(*keys):
    display.show([block(view, key) for key in keys])


show("policy", "precedence")

# %% [markdown]
# One version id, `assisted-use-policy/4`, is recorded by the query-scope check, the gate
# and the decision alike, and lessons 07 and 09 record the same one.
#
# ## States and their precedence
#
# Several controls can fire on the same candidate or the same query. The decision does
# not depend on which fired first: the strongest state wins, by a fixed order.

# %%
for given in (["degraded", "conflict"], ["clarify", "incompatible", "respond"],
              ["unauthorized", "prohibited_scope"], []):
    print(f"decide_state({given}) -> {eligibility.decide_state(given)!r}")

# %% [markdown]
# ## Freshness is a property of a field, on a date
#
# A price goes stale in weeks; a shaft diameter stays true for years. So the policy keeps
# one limit per field and checks it against the run's as-of date: a stale **required**
# field (the diameter, limit 1,826 days) withholds the listing; a stale **optional**
# field (the price, limit 60 days) is only left out of the packet, and the omission is
# named. `PW-L006` was last checked in 2020: both fields are stale. `PW-L010`'s diameter
# was checked in 2023 and is still valid, but its price is 104 days old.

# %%
show("freshness", "freshness-what-if")

# %% [markdown]
# ## Trace 1: ordinary explicit evidence
#
# *mechanical seal 16 mm for a water pump*. The channels propose fifteen listings. The
# gate withholds five before ranking; ten pass and form nine clusters. After ranking,
# the evidence checks find two clusters usable (`PW-L001` and `PW-L003`), one conflict
# (`PW-L007`) and six incompatible listings (wrong family or size). The packet holds the
# fields of the two usable listings.

# %%
display.show(blocks_between(view, "trace-1", "trace-1-decision"))

# %% [markdown]
# ## Trace 2: the closest neighbour is not permitted
#
# *carbon ceramic pump seal 16 mm*. The vector channel's nearest neighbour is a listing
# whose permission is denied. The gate withholds it **before ranking**: it never enters
# reciprocal rank fusion, so the permitted listings close up behind it. Similarity never
# restores permission. In the output it is only an opaque reference, never its id,
# title or text.
#
# The gate withholds the same five listings as in trace 1: the channels propose almost
# the whole catalogue for any query about a seal, so every listing the gate stops is
# among the candidates again. The trace says so in one line instead of repeating the
# table. What differs is further down: four listings are usable this time, and the packet
# holds at most three (the best three by `ordering_score`), so the fourth is left out.

# %%
display.show(blocks_between(view, "trace-2", "trace-2-decision"))

# %% [markdown]
# The gate itself fails closed: only the exact value `allowed` passes, and an id whose
# copies disagree is withheld whatever their order.

# %%
pairs = [("PW-L001", "allowed"), ("PW-X1", "denied"), ("PW-X2", "unknown"), ("PW-X3", None),
         ("PW-X4", "ALLOWED"), ("PW-X5", "allowed"), ("PW-X5", "denied")]
permitted, withheld = eligibility.permission_gate(pairs)
print("permitted:", permitted)
for ref, reason in withheld:
    print("withheld: ", ref, reason)

# %% [markdown]
# ## Trace 3: stale and conflicting evidence, so abstain
#
# *graphite mechanical seal 18 mm*. Two listings could answer. `PW-L006` is 18 mm, but
# its diameter was last checked in 2020, past the five-year limit: the gate withholds it
# with a degraded reason. `PW-L007` is current, but its own fields disagree: the title
# says 18 mm, the structured field 16 mm.

# %%
for listing_id in ("PW-L006", "PW-L007"):
    print(listing_id, "readings:", eligibility.diameter_readings(listing_by_id(listing_id)))

# %% [markdown]
# The newer-looking phrase is not allowed to win. Nothing is usable, and the query's
# state is the strongest of the states of the candidates that would have fitted:
# `conflict` outranks `degraded`. The next actions are to abstain and ask the seller to
# confirm.

# %%
display.show(blocks_between(view, "trace-3", "trace-3-decision"))

# %% [markdown]
# ## Trace 4: empty after controls
#
# *marine stern seal 22 mm*. Only two listings are 22 mm stern seals: one is denied and
# the other's permission is unknown, which fails closed. Everything else the channels
# proposed has the wrong size, so it could not have answered anyway. The result is
# empty, its cause is `all_unauthorized`, and no listing is invented to fill the gap.

# %%
display.show(blocks_between(view, "trace-4", "trace-4-decision"))

# %% [markdown]
# ## Two fail-closed holes, closed
#
# **Two copies of one id.** A feed can deliver the same listing twice. If one copy says
# `allowed` and the other `denied`, taking either one is a guess, and "the later one
# wins" lets a denied listing in. The gate withholds the id, and no channel lists an id
# twice.
#
# **Opaque references must be opaque.** A reference that is a plain hash of the id (even
# with a public salt) is reversed by hashing every id anyone could guess: `PW-L000` to
# `PW-L999` is a thousand tries. The lab's refs are HMAC-SHA256 of the id under a secret
# key. The lab ships a public demo key, labelled as such; a deployment sets its own in
# the environment variable `CONTEXT_LAB_REF_KEY`.

# %%
show("duplicates", "opaque-refs")

# %%
guesses = [f"PW-L{n:03d}" for n in range(1000)]
allowed = listing_by_id("PW-L001").id                      # a permitted id: safe to show
unkeyed = eligibility.unkeyed_ref(allowed)
found = eligibility.enumerate_refs([unkeyed], eligibility.unkeyed_ref, guesses)
print("unkeyed", unkeyed, "->", found[unkeyed])
found = eligibility.enumerate_refs([opaque_ref(allowed)], eligibility.unkeyed_ref, guesses)
print("keyed  ", opaque_ref(allowed), "->", found[opaque_ref(allowed)])

# %% [markdown]
# ## Empty is never one bucket
#
# The cause of an empty result decides who can fix it: a customer who should name a
# size, a catalogue missing a part, a permission feed that is wrong, or a stale feed
# that needs a refresh. The summary runs every catalogue query through the same
# pipeline. Two queries stop before retrieval: one names a prohibited family, one names
# two sizes. `PW-Q003` is answered but `degraded`: its only listing's price is stale and
# left out.

# %%
show("summary", "summary-reasons", "empty-causes")

# %% [markdown]
# Two causes do not occur among the catalogue's queries, so here they are on purpose:
# a size nobody stocks, and a pool holding only the listing whose diameter is stale.

# %%
bearing = Query("PW-T001", "ball bearing 40 mm", (0.1, 0.1, 0.9), VECTOR_VERSION)
nothing = eligibility.evaluate(bearing).output("decision")
print("ball bearing 40 mm ->", nothing.decision.state, nothing.decision.reason_codes,
      nothing.empty_cause)
stale_only = eligibility.evaluate(query_by_id("PW-Q004"), [listing_by_id("PW-L006")])
stale_only = stale_only.output("decision")
print("only PW-L006 ->", stale_only.decision.state, stale_only.decision.reason_codes,
      stale_only.empty_cause)

# %% [markdown]
# ## Which layer failed first?
#
# Suppose a listing whose permission is `denied` shows up in a packet. It is tempting to
# blame the answer stage for using it, or the ranker for placing it high. But each of
# those only works on what it is given: the first layer that failed is the permission
# gate, which should have withheld the listing before ranking. Ask which control owns
# the rule that was broken, and fix that layer first; lesson 09 turns this into a
# procedure.

# %% [markdown]
# ## Your turn
#
# Open `exercises/eligibility.py`. Task 1, `query_state`, asks for the rule the decision
# stage adds on top of the precedence (trace 1 answers although a denied seal matched);
# Task 2, `listing_and_seller_gate`, adds a second permission the lesson's gate does not
# have, the seller's; then `rank_permitted` (filter, then rank, with a canonical cluster
# failing closed as one product, which the lesson's gate does not do), `empty_cause_from_codes`
# (six named causes, read from the reason codes the controls recorded), the quiz
# `EXPIRED_FIRST_QUIZ`, and a prediction, `PW_Q002_ON_2027_06_01`: what the same query
# decides seven months later, written down before you run it. Then run
# `python3 -B methods.py check eligibility`; ask for a nudge with
# `python3 -B methods.py hint eligibility`.
