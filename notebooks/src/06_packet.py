# %% [markdown]
# # Lesson 06 · packet: a sealed, sourced, safely wrapped evidence packet
#
# The earlier lessons decided *which* passages go forward. This one decides *how* they
# travel: what each evidence item must say about where it came from, how a citation stays
# checkable after its source is edited, how retrieved text is kept from posing as
# instructions or granting itself tools, and how a packet gets a name a replay can check.
#
# Everything is synthetic. The notebook calls the lab's code: `modules/packet/mechanism.py` (records,
# spans, selection, seal), `modules/packet/wrapper.py` (rendering, parsing, tools and trust)
# and `modules/packet/fidelity.py` (compression), the code behind
# `python3 -B methods.py packet`.

# %%
import pathlib
import sys
import unicodedata

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import display
from labtools.render import blocks_between
from modules.packet import mechanism as packet
from modules.packet import fidelity as packet_fidelity
from modules.packet import wrapper as packet_wrapper
from modules.packet import trace as packet_trace

record = packet_trace.trace()
blocks = packet_trace.view(record)


def show(first, last=None):
    """Show the view's blocks from the one keyed `first` to the one keyed `last`."""
    display.show(blocks_between(blocks, first, last or first))


for name, value in vars(packet.chunk("lending#2")).items():
    print(f"{name}: {value!r}")

# %% [markdown]
# ## What an evidence item carries
#
# Each item has a chunk id, the canonical document id, a title, the document revision, the
# date it took effect, the trust tier of its source, a span and the text. The span is only
# meaningful with its contract:
#
# * offsets are **half-open** `[start, end)`: `start` is included, `end` is not, and
#   `end - start` is the length of the quote;
# * they count **Unicode code points of NFC-normalised text**, at a named **revision**, in
#   a named **layer**: `canonical` (the whole document, locator `whole-text`) or
#   `parsed-element` (one element of a long document, named by its locator).
#
# The hours document was typed with a decomposed `é` (an `e` followed by a combining
# accent). NFC composes it into one code point, which is why raw offsets, canonical offsets
# and UTF-8 byte offsets of the same sentence differ.

# %%
show("span", "revalidation")

# %% [markdown]
# Offsets alone are not a citation. The span also stores the exact quote and its SHA-256.
# After each edit the lab revalidates: in `r8` the first line was rewritten, the quote is
# found exactly once further on, and the span is reported as **moved**; in `r9` the hour
# itself changed, the quote no longer exists, and the span is **drifted**. Neither case is
# silently "fixed". A span missing its revision, layer, space or locator is refused:

# %%
span = packet.cite(packet.HOURS, 36, 103)
try:
    packet.revalidate({k: v for k, v in span.items() if k != "layer"}, packet.HOURS)
except ValueError as error:
    print("ValueError:", error)

# %% [markdown]
# A long document is not given an invented global offset. The fees schedule is a 40-page
# PDF; its fee sits in row 3 of table 2 on page 14. The citation names that element and the
# file's revision, and counts offsets inside the element only.

# %%
show("contract")

# %% [markdown]
# ## The packet's fields, and the wrapper
#
# The packet keeps the task, the allowed tools, the instructions, the question and the
# evidence in separate fields. The evidence is rendered inside an `evidence_set` wrapper
# whose note says what it is: quoted data. Every item's tag carries the whole span contract
# (revision, layer, space, locator, start, end and the quote's hash), one group of
# attributes per line.

# %%
show("packet", "evidence")

# %% [markdown]
# ## A passage that tries to escape
#
# Retrieved text is untrusted. The guest notes contain a closing tag, a fake opening tag
# with `id="admin"`, a quote character meant to break out of an attribute, and an
# instruction: *ignore the rules above*. Rendering escapes `& < > " '`, so the text cannot
# close its element or forge a new one, and parsing gives back the exact original.

# %%
show("injection", "injected")
item = packet.chunks_of(packet.GUEST)[0]
parsed = packet_wrapper.parse_evidence(packet_wrapper.render_evidence([item]))
print(len(parsed), parsed[0]["text"] == item.text, type(parsed[0]["start"]).__name__)

# %% [markdown]
# ## The wrapper must survive Unicode normalisation
#
# A packet may be normalised on its way to a reader (NFC, NFD, NFKC, NFKD). Escaping the
# five characters is not enough then:
#
# * a **combining mark** at the start of a passage (U+0338) merges under NFC with a tag's
#   `>` into `≯`, and the boundary is gone;
# * **full-width look-alikes** (`＜/evidence＞`, `＆lt;`) become real markup under NFKC;
# * `≮` and `≯` **decompose** into `<` and `>` plus a mark under NFD.
#
# The lab's escaping writes each of these as a numeric reference (`&#x338;`, `&#xff1c;`,
# `&#x226e;`), so the packet reads the same after any normalisation. The table runs the
# lesson's malicious samples through both: the five entities alone, in a one-line layout,
# and the lab's wrapper.

# %%
show("normalisation")
print(packet_wrapper.escape_text("\u0338 starts here"),
      packet_wrapper.escape_text("\uff1c/evidence\uff1e"))

# %% [markdown]
# The parser is the other half: it accepts only what the renderer writes. An attribute
# given twice, one the renderer does not know, one missing, or a quote that no longer
# matches its hash: each is refused with the reason, never read in some best-effort way
# (nor is a repeated id, or a number written `00`), never a silent "last one wins".

# %%
show("forgeries")

# %% [markdown]
# ## Trust tiers, and tools no passage can grant
#
# Every item records its source's trust tier: official, reviewed or unreviewed (an item
# that does not say counts as unreviewed). A task states, before retrieval, the lowest tier
# it accepts and the tools it may call. The guest notes are unreviewed: the question-
# answering task excludes them; a task that reads guest notes admits them. Their second
# line asks for `open_door` and `send_email`. That request is recorded, as quoted data, and
# changes nothing: the allowed tools after the packet is built are the ones fixed before,
# and a call to `open_door` is refused either way.

# %%
show("trust", "tools")

# %% [markdown]
# ## Least privilege, and a person confirms every action
#
# A task is given only the tools it needs: answering a question needs `search_catalogue`,
# which only reads. The one task that may act, `renew-loan`, holds `renew_loan` and nothing
# else, and reads only official sources. A tool that acts on the world (a loan, a door, an
# inbox) runs only after a person confirms that one call: until then it waits. A passage
# that asks for `send_email` under `renew-loan` is refused even with a confirmation, since
# the task was never given that tool.

# %%
show("privilege", "defence")

# %% [markdown]
# ## Adjacent chunks: the condition sat one chunk earlier
#
# *Can a visitor take a laptop home?* The retriever's hit says a lent laptop may be taken
# home overnight, back by noon. The condition, that laptops are lent only to registered
# students, sits in the chunk before it. A fixed keyword rule stands in for a reader here
# (no model is involved) so that the change is visible.

# %%
show("adjacent", "adjacent_items")

# %% [markdown]
# With one chunk before (run 2), the answer flips from *yes* to *no*. The neighbour is
# marked `adjacent_to:lending#2`: it was not retrieved and is never presented as if it
# had been. It is also paid from the same budget: with one chunk before *and* after (run 3),
# the neighbours use enough characters that the visitor guide no longer fits. And when the
# budget is too small for the neighbour (run 4), the hit goes alone. Expansion is a cost to
# cap, not a free improvement. Task 4 asks for the other policy: pay for every hit first
# and give the neighbours only what is left, so that run 3 would keep the visitor guide.

# %% [markdown]
# ## A per-document cap, shown both ways
#
# Three near-identical FAQ chunks crowd the renewals policy out of a top-3 packet (Q1). A
# cap of one chunk per document fixes that, but breaks Q2, which needs two passages of the
# lending document (which form, and where to get it). A cap of two serves both here.

# %%
show("cap")

# %% [markdown]
# No single cap is right for every question; it is a policy to tune and to report, like the
# budget itself. (The coverage column uses evaluation labels that the selection never sees.)

# %% [markdown]
# ## The seal: identity, not truth
#
# The seal is SHA-256 over the lab's canonical JSON of the packet's versioned fields: keys
# sorted, sets written as sorted lists, no spaces, non-ASCII as `\u` escapes. Building the
# same fields in another dict or set order gives the same seal; changing one evidence byte
# gives another. A set that cannot be sorted is refused with the field named.

# %%
show("seal")
one_order = packet.packet_seal({"b@1": {"y", "x"}, "a@1": "Café"})
print(one_order == packet.packet_seal({"a@1": "Café", "b@1": {"x", "y"}}))
try:
    packet.packet_seal({"a": {1, "x"}})
except TypeError as error:
    print("TypeError:", error)

# %% [markdown]
# A matching seal says "this is the packet that was logged", which is what a replay or an
# audit needs. It says nothing about whether the evidence inside is correct: a packet
# quoting the stale hours from lesson 04 seals just as well.

# %% [markdown]
# ## Compression can change what the evidence says
#
# A naive compressor (first clause, stop words dropped, six words kept) loses, in turn, a
# negation, a fee, a date, a condition, a place name and an exception. Every summary is
# recorded with the compressor's name and revision, so a replay can tell which compressor
# made it. The fidelity check compares whole tokens of six kinds between the original and
# the compressed text; the careful summary in the last row keeps them all. Then the same
# question is put to the original and to the summary (a fixed rule stands in for the reader,
# no model): each loss the check flags also changes the answer. Citations always point at
# the original span, never at the summary.

# %%
show("compression", "citations")
line = packet.chunk("library-services#1").text
print(line)
found = packet_fidelity.fidelity_check(line, packet_fidelity.naive_compress(line))
print("ok:", found["ok"], {kind: lost for kind, lost in found.items() if kind != "ok" and lost})

# %% [markdown]
# The check catches what it lists. It cannot prove that a compression kept the meaning: a
# summary that swaps two numbers keeps every token the check compares.

# %%
swapped = packet_fidelity.fidelity_check("Opens at 8, closes at 6.", "Opens at 6, closes at 8.")
print("ok:", swapped["ok"])

# %% [markdown]
# ## Your turn
#
# Open `exercises/packet.py`. `span_from_utf8` takes a span an extractor reported in UTF-8
# bytes of the raw text into the contract's NFC code points (the lesson only says never to
# mix them); `check_drift` first refuses a stored span whose quote and hash disagree;
# `expand_after_hits` pays for every hit before any neighbour; `escape_text` with
# `unescape_text` also escapes the control characters that act on a terminal (a reviewer
# reads packets too), `packet_seal` adds one rule the lesson's seal lacks (no floats), and
# `fidelity_check` looks both ways (what a summary added, too). Then the quizzes
# `SEAL_QUIZ` and `TOOL_QUIZ`, and a prediction, `ADJACENT_1_1_150`: a fifth expansion run,
# written down before you run it. Check with `python3 -B methods.py check packet`; hints
# with `python3 -B methods.py hint packet`.
