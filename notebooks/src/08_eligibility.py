# %% [markdown]
# # Lesson 08 · eligibility: permission, freshness and evidence states
#
# Lesson 07's channels propose candidates by similarity. Similarity says nothing about
# whether a listing **may** be used, whether it is still current, or whether its own
# fields agree. This lesson puts a set of controls between the channels and the
# ranking, and makes every outcome a recorded decision rather than a sentence.
#
# The rules, in one line each:
#
# * Permission is checked **before ranking**. Only `allowed` passes; `unknown` fails
#   closed. A withheld listing never reaches the ranker or the output, and is recorded
#   only by an opaque reference.
# * An expired record is kept off the assisted path, with a *degraded* reason.
# * States have a fixed precedence, and each decision records a state, reason codes,
#   policy clause ids, evidence references and next actions.
# * An empty result names its cause, and nothing is ever invented to fill it.
#
# The notebook calls `modules/eligibility.py`, the code behind
# `python3 -B methods.py eligibility`.

# %%
import pathlib
import sys

ROOT = next(p for p in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools.render import plain_table, render_plain
from modules import eligibility
from modules.catalogue import Query, VECTOR_VERSION, listing_by_id, query_by_id
from modules.hybrid import parse_query

record = eligibility.trace()
blocks = eligibility.view(record)
print(render_plain(blocks[1:3]))

# %% [markdown]
# ## States and their precedence
#
# Several controls can fire on the same candidate or the same query. The decision does
# not depend on which fired first: the strongest state wins, by a fixed order. A
# prohibited scope outranks everything; a missing permission outranks any question of
# fit; a deterministic incompatibility (wrong family, a size that no field matches)
# outranks a conflict; a conflict outranks a missing unit; and a stale record only
# degrades.

# %%
for given in (["degraded", "conflict"], ["clarify", "incompatible", "respond"], ["unauthorized", "prohibited_scope"], []):
    print(f"decide_state({given}) -> {eligibility.decide_state(given)!r}")

# %% [markdown]
# ## Trace 1: ordinary explicit evidence
#
# *mechanical seal 16 mm for a water pump*. The channels propose fifteen listings.
# Twelve are withheld, each by a recorded decision (most are simply incompatible: wrong
# family or wrong size). The three that remain form two clusters (a listing and its
# copy are one product); they are ranked by reciprocal rank fusion over what is left,
# and the answer may rest on them.

# %%
def trace_blocks(number):
    """The blocks of one trace in the lesson's view (trace numbers start at 1)."""
    starts = [i for i, b in enumerate(blocks) if b.get("text", "").startswith("Trace ")]
    end = starts[number] if number < len(starts) else next(
        i for i, b in enumerate(blocks) if b.get("table", {}).get("title", "").startswith("Every catalogue"))
    return blocks[starts[number - 1]:end]


print(render_plain(trace_blocks(1)))

# %% [markdown]
# ## Trace 2: the closest neighbour is not permitted
#
# *carbon ceramic pump seal 16 mm*. The vector channel's nearest neighbour is a listing
# whose permission is denied. It is withheld **before ranking**: it never enters
# reciprocal rank fusion, so the permitted listings below it close up and take ranks 1,
# 2, 3. Similarity never restores permission. In the output it is only an opaque
# reference, never its id, title or text.

# %%
print(render_plain(trace_blocks(2)))

# %% [markdown]
# Filtering **after** ranking would not be the same thing: the withheld listing would
# still have occupied rank 1 in the vector channel, and every permitted listing's
# score would carry the trace of it. The gate itself fails closed: only the exact
# value `allowed` passes.

# %%
pairs = [("PW-L001", "allowed"), ("PW-X1", "denied"), ("PW-X2", "unknown"), ("PW-X3", None), ("PW-X4", "ALLOWED")]
permitted, withheld = eligibility.permission_gate(pairs)
print("permitted:", permitted)
for ref, reason in withheld:
    print("withheld: ", ref, reason)

# %% [markdown]
# ## Trace 3: stale and conflicting evidence, so abstain
#
# *graphite mechanical seal 18 mm*. Two listings could answer. One is an expired record
# from an old price list: it is kept off the assisted path with a degraded reason. The
# other is current, but its own fields disagree: the title says 18 mm, the structured
# field says 16 mm.

# %%
for listing_id in ("PW-L006", "PW-L007"):
    listing = listing_by_id(listing_id)
    print(listing_id, "readings:", eligibility.diameter_readings(listing), "| stale:", listing.stale)

# %% [markdown]
# The newer-looking phrase is not allowed to win. Nothing is eligible, and the query's
# state is the strongest of the withheld candidates' states: `conflict` outranks
# `degraded`. The next actions are to abstain and ask the seller to confirm.

# %%
print(render_plain(trace_blocks(3)))

# %% [markdown]
# ## Trace 4: empty after controls
#
# *marine stern seal 22 mm*. Only two listings are 22 mm stern seals: one is denied and
# the other's permission is unknown, which fails closed. Everything else the channels
# proposed has the wrong size, so it could not have answered anyway. The result is
# empty, its cause is `all_unauthorized`, and no listing is invented to fill the gap.

# %%
print(render_plain(trace_blocks(4)))

# %% [markdown]
# ## Empty is never one bucket
#
# The cause of an empty result decides who can fix it: a customer who should name a
# size, a catalogue missing a part, a permission feed that is wrong, or a stale feed
# that needs a refresh. The summary runs every catalogue query through the controls.

# %%
print(render_plain(blocks[-2:]))

# %% [markdown]
# Two causes do not occur among the catalogue's queries, so here they are on purpose:
# a size nobody stocks, and a pool holding only the expired record.

# %%
bearing = Query("PW-T001", "ball bearing 40 mm", (0.1, 0.1, 0.9), VECTOR_VERSION)
nothing = eligibility.evaluate(bearing)
print("ball bearing 40 mm ->", nothing.decision.state, nothing.decision.reason_codes, nothing.empty_cause)
stale_only = eligibility.evaluate(query_by_id("PW-Q004"), [listing_by_id("PW-L006")])
print("only the expired record ->", stale_only.decision.state, stale_only.decision.reason_codes, stale_only.empty_cause)

# %% [markdown]
# ## Which layer failed first?
#
# Suppose an expired listing shows up first in the ranked results. It is tempting to
# tune the fusion. But the ranker only orders what it is given: the first layer that
# failed is the freshness control that should have withheld the record before ranking.
# Fix the layer that failed first; lesson 09 turns this into a procedure.

# %% [markdown]
# ## Your turn
#
# Open `exercises/eligibility.py` and write `decide_state` (the precedence),
# `permission_gate` (fail closed, opaque references), `rank_permitted` (filter, then
# rank), `empty_cause` (six named causes) and the quiz `EXPIRED_FIRST_QUIZ`. Then run
# `python3 -B methods.py check eligibility`; ask for a nudge with
# `python3 -B methods.py hint eligibility`.
