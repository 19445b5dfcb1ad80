# %% [markdown]
# # Lesson 03 · dedupe: remove redundancy without merging identities carelessly
#
# Retrieval returns repeats. The same chunk arrives from two channels, a news post quotes
# a policy word for word, a mirror site serves a copy of the policy, and two chunks of
# one file share a few lines. Sending all of them wastes budget, and worse, it can make
# one source look like several that agree.
#
# But "remove duplicates" is not one operation. Each kind of repeat needs its own rule,
# and each rule has a way to go wrong: merging two things that only look alike, or
# keeping a different copy depending on the order the candidates happened to arrive in.
# The notebook calls `modules/dedupe/mechanism.py`, the code behind `python3 -B methods.py dedupe`.

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import charts, display
from labtools.render import block
from modules.dedupe import mechanism as dedupe
from modules.dedupe import trace as dedupe_trace

record = dedupe_trace.trace()
blocks = dedupe_trace.view(record)


def show(*keys):
    """Show the trace's blocks with these keys (every block of the view has a stable key)."""
    display.show([block(blocks, key) for key in keys])

# %% [markdown]
# ## 1. The same id
#
# An id is a promise: one id, one chunk. When it arrives twice with identical content,
# the copies collapse to the first-ranked one, which keeps its place in the ranking.

# %%
show("ids")
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
    display.say(str(error))

# %% [markdown]
# ## 2. The same text under another id
#
# `news-17` quotes the help-desk hours word for word. Exact-text dedupe keeps the
# first-ranked copy and records the other in `duplicate_text_ids`.

# %%
show("text")
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
# ## 3. Copies of one passage across primary, mirror and export
#
# The returns policy's primary copy is the help desk's own record, `returns-v1` (source
# `returns-policy`, the same id and text as in lessons 01, 04 and 10). It has two passages: the
# drop-box rule (anchor `§1`) and an exception for laptops (anchor `§2`). A mirror site
# copied the rule with a line break in another place, and a text export put a header in
# front of it. Every copy carries the canonical id `policy:returns`. Their chunk ids and
# places differ, so id dedupe keeps them all, and the line break and the header even
# defeat exact-text dedupe.

# %%
show("canonical")

# %% [markdown]
# Canonical dedupe keeps **one copy of each passage**, not one chunk of each document.
# Two chunks are copies of one passage when they share a canonical document and either
# declare the same anchor (the passage's place in the document) or have the same text
# once normalised (Unicode NFC, case folded, whitespace collapsed). Copies of copies are
# copies: the primary shares its anchor with the export and its text with the mirror,
# so all three are one passage, even though the mirror and the export match each other
# by neither. The primary copy is kept when it was retrieved, otherwise the first-ranked
# copy, and the trace records which copy stayed, why, and how each dropped copy matched.

# %%
show("canonical-rule", "canonical-kept", "canonical-dropped")

# %% [markdown]
# The laptop exception shares the canonical document with the rule, but it is another
# passage: another anchor, another text. It stays. A rule that kept one chunk per
# canonical document would hand the answer stage "return books to the drop box" and
# silently lose "laptops never go in the drop box". Lesson 11 applies this same
# function to its capstone, where the exception A2 must travel with its conclusion A1.

# %%
show("canonical-counts")
a = dedupe.CANONICAL_CASE[3]   # returns-v1, §1
for other in dedupe.CANONICAL_CASE:
    if other is not a and other.canonical_id == a.canonical_id:
        print(f"same_passage({a.id}, {other.id}) = {dedupe.same_passage(a, other)}")

# %% [markdown]
# Before: seven chunks from six places, three canonical documents. Counting chunk ids
# would let a report say "three sources agree" about the drop box; one document was
# copied twice. After canonical dedupe the packet holds four chunks from three
# canonical documents: one copy of each of the four passages.

# %% [markdown]
# ## 4. Overlapping lines
#
# Five full-text candidates for "production release" come from three files. Line ranges
# here are **1-based and inclusive**, exactly as displayed: `12-24` means lines 12 through
# 24, thirteen lines.

# %%
show("overlap")

# %% [markdown]
# `chunk-0001` (12-29) and `chunk-0002` (26-34) share lines 26 to 29. The higher-ranked
# one stays; the other is rejected with the reason code `overlapping_lines_with:chunk-0001`,
# which names the chunk it overlaps, and the trace prints the lines they share.
# The two `deployment-guide.md` chunks end at 24 and start at 25: adjacent, nothing
# shared, so both stay. Treating "touching" as "overlapping" would throw away half of a
# guide that was split cleanly.

# %%
selection = dedupe.select_non_overlapping(dedupe.OVERLAP_CASE)
print("selected:", selection.selected_ids)
print("rejected:", selection.rejected)
a, b = dedupe.OVERLAP_CASE[2], dedupe.OVERLAP_CASE[3]
print(f"{a.start_line}-{a.end_line} vs {b.start_line}-{b.end_line} overlap?",
      dedupe.lines_overlap(a, b))

# %% [markdown]
# The selection must not depend on the order the candidates arrived in. The lab ranks by
# score, highest first, and breaks ties by id, so any order gives the same result:

# %%
reverse = dedupe.select_non_overlapping(tuple(reversed(dedupe.OVERLAP_CASE)))
print("reversed input, selected:", reverse.selected_ids)
print("reversed input, rejected:", reverse.rejected)
print("same selection:", reverse == selection)

# %% [markdown]
# A loop that keeps "whichever came first" would pass on this input when it happens to
# arrive sorted, and fail the day two channels merge their results in another order.
#
# The cost of the selection follows the number of chunks, never their line numbers: each
# candidate, in rank order, is compared by the ends of its range with the chunks already
# kept in its own file. A chunk spanning lines 1 to 1,000,000,000 costs what a five-line
# chunk costs:

# %%
import time

huge = [dedupe.RetrievedChunk(id="whole", source="big.md", text="w", score=0.9, start_line=1, end_line=10 ** 9),
        dedupe.RetrievedChunk(id="tail", source="big.md", text="t", score=0.8, start_line=10 ** 9,
                              end_line=10 ** 9 + 5)]
began = time.perf_counter()
result = dedupe.select_non_overlapping(huge)
print(result.selected_ids, result.rejected, "fast:", time.perf_counter() - began < 0.1)

# %% [markdown]
# ## 5. Crowding
#
# The question needs two facts: where to return books when the desk is closed, and when
# it opens. Three top chunks repeat the return-box sentence from three pages; the hours
# rank fourth.

# %%
show("crowding", "crowding-question", "crowding-packets")
charts.show(charts.crowding(record),
            "The top 2 spends both places on one return-box sentence and has the best mean score, "
            "yet answers half the question; removing the duplicate text first frees a place for "
            "the hours.")

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
# Open `exercises/dedupe.py`. Each function task changes one rule of this lesson:
# `id_conflicts` reports every conflicting id (not only the first one `dedupe_ids` stops
# at); `dedupe_text` keeps the copy of the most authoritative source, declared, instead of
# the first-ranked; `same_passage` lets two declared anchors outrank equal words;
# `dedupe_canonical` keeps the copy its declared preference of copy kinds names;
# `overlap_share` measures how much two chunks overlap; `merge_overlapping` merges
# overlapping chunks into spans instead of rejecting them. The quiz `CANONICAL_QUIZ` asks
# why three copies are not three sources, and `SELECTED_WITH_0006` asks you to predict
# the selection when a sixth chunk of release-policy.md joins, before you run it. Check with
# `python3 -B methods.py check dedupe`; ask for a hint with
# `python3 -B methods.py hint dedupe`.
