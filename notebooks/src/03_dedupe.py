# %% [markdown]
# # Lesson 03 · dedupe: remove redundancy without merging identities carelessly
#
# Retrieval returns repeats. The same chunk arrives from two channels, a news post quotes
# a policy word for word, a mirror site serves a copy of the intranet, and two chunks of
# one file share a few lines. Sending all of them wastes budget, and worse, it can make
# one source look like several that agree.
#
# But "remove duplicates" is not one operation. Each kind of repeat needs its own rule,
# and each rule has a way to go wrong: merging two things that only look alike, or
# keeping a different copy depending on the order the candidates happened to arrive in.
# The notebook calls `modules/dedupe.py`, the code behind `python3 -B methods.py dedupe`.

# %%
import pathlib
import sys

ROOT = next(p for p in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools.render import render_plain
from modules import dedupe

record = dedupe.trace()
blocks = dedupe.view(record)


def show(title_start):
    """Print the trace's table whose title starts with `title_start`."""
    print(render_plain([b for b in blocks if "table" in b and (b["table"]["title"] or "").startswith(title_start)]))

# %% [markdown]
# ## 1. The same id
#
# An id is a promise: one id, one chunk. When it arrives twice with identical content,
# the copies collapse to the first-ranked one, which keeps its place in the ranking.

# %%
show("1. Same id")
print("kept:", [c.id for c in dedupe.dedupe_ids(dedupe.ID_CASE)])

# %% [markdown]
# When the same id arrives with *different* content, the promise is broken: one copy is
# stale or mislabelled, and the code has no way to tell which. Picking either would hide
# the problem, so the lab raises an error that names the id and the first field that
# differs. The score is not part of the comparison: two channels may score one chunk
# differently without it becoming another chunk.

# %%
try:
    dedupe.dedupe_ids(dedupe.ID_CONFLICT)
except dedupe.IdConflict as error:
    print("caught:", type(error).__name__, "| id:", error.chunk_id, "| field:", error.field)
    print(error)

# %% [markdown]
# ## 2. The same text under another id
#
# `news-17` quotes the help-desk hours word for word. Exact-text dedupe keeps the
# first-ranked copy and records the other in `duplicate_text_ids`.

# %%
show("2. Same text")
result = dedupe.dedupe_text(dedupe.TEXT_CASE)
print("kept:", [c.id for c in result.kept])
print("duplicate_text_ids:", result.duplicate_text_ids, "duplicate_of:", result.duplicate_of)

# %% [markdown]
# Exact means exact. `hours-w1` and `hours-w2` are overlapping windows of one guide and
# share a sentence, but their texts differ, so both stay: each carries something the
# other does not. A fuzzy rule (lower-casing, "one contains the other") would start
# merging text that says different things.
#
# Keeping the first-ranked copy is a tie rule. It does not decide which source has
# authority: the news post could have ranked first, and it would have been kept.

# %% [markdown]
# ## 3. Copies of one canonical document
#
# The returns policy lives on the intranet (the primary copy), on a mirror site and in a
# text export. All three carry the canonical id `policy:returns`. Their chunk ids and
# places differ, so id dedupe keeps all three, and the export's added header even defeats
# exact-text dedupe.

# %%
show("3. Copies")

# %% [markdown]
# Canonical dedupe keeps one chunk per canonical document: the primary copy when it was
# retrieved, otherwise the first-ranked copy. It records which copy it kept and why.

# %%
show("Kept, one per canonical document")
canonical = record["canonical"]
print("dropped:", {d["id"]: d["kept_id"] for d in canonical["dropped"]})
for key, copies in canonical["copies_per_source"].items():
    print(f"{key}: {copies} cop{'y' if copies == 1 else 'ies'} -> 1 source")

# %% [markdown]
# Before: six chunks from six places, three canonical sources. Deduplicating by chunk id
# alone would hand the answer stage three returns chunks, and a report could say "three
# sources agree". They do not: one document was copied twice. After canonical dedupe the
# packet holds three chunks for three sources.

# %% [markdown]
# ## 4. Overlapping lines
#
# Five full-text candidates for "production release" come from three files. Line ranges
# here are **1-based and inclusive**, exactly as displayed: `12-24` means lines 12 through
# 24, thirteen lines.

# %%
show("4. Overlapping lines")

# %% [markdown]
# `chunk-0001` (12-29) and `chunk-0002` (26-34) share lines 26 to 29. The higher-ranked
# one stays; the other is rejected with a reason that names the chunk it overlaps.
# The two `deployment-guide.md` chunks end at 24 and start at 25: adjacent, nothing
# shared, so both stay. Treating "touching" as "overlapping" would throw away half of a
# guide that was split cleanly.

# %%
selection = dedupe.select_non_overlapping(dedupe.OVERLAP_CASE)
print("selected:", selection.selected_ids)
print("rejected:", selection.rejected)
a, b = dedupe.OVERLAP_CASE[2], dedupe.OVERLAP_CASE[3]
print(f"{a.start_line}-{a.end_line} vs {b.start_line}-{b.end_line} overlap?", dedupe.lines_overlap(a, b))

# %% [markdown]
# The selection must not depend on the order the candidates arrived in. The lab ranks by
# score, highest first, and breaks ties by id, so any order gives the same result:

# %%
reverse = dedupe.select_non_overlapping(tuple(reversed(dedupe.OVERLAP_CASE)))
print("reversed input:", reverse.selected_ids, reverse.rejected)
print("same selection:", reverse == selection)

# %% [markdown]
# A loop that keeps "whichever came first" would pass on this input when it happens to
# arrive sorted, and fail the day two channels merge their results in another order.

# %% [markdown]
# ## 5. Crowding
#
# The question needs two facts: where to return books when the desk is closed, and when
# it opens. Three top chunks repeat the return-box sentence from three pages; the hours
# rank fourth.

# %%
show("5. Crowding")
show("Question:")

# %% [markdown]
# With a cutoff of two, the packet's scores look excellent (mean 0.935) and it holds half
# the answer. Counting distinct texts exposes it at once: two chunks, one sentence. Here
# exact-text dedupe before the cutoff brings the hours back in.
#
# No single diversity rule is right for every question. Some answers genuinely need
# several passages from one source, and a rule such as "at most one chunk per source"
# would starve them. What always helps is measuring: distinct texts, distinct canonical
# sources, and which parts of the answer the packet covers, judged with evaluation labels
# that the selector never sees.

# %% [markdown]
# ## Your turn
#
# Open `exercises/dedupe.py` and write `dedupe_ids`, `dedupe_text`, `dedupe_canonical`,
# `lines_overlap`, `select_non_overlapping` and the quiz `CANONICAL_QUIZ`. Check with
# `python3 -B methods.py check dedupe`; ask for a hint with
# `python3 -B methods.py hint dedupe`.
