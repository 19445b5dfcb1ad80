# %% [markdown]
# # Lesson 06 · packet: a sealed, sourced, safely wrapped evidence packet
#
# The earlier lessons decided *which* passages go forward. This one decides *how* they
# travel: what each evidence item must say about where it came from, how a citation
# stays checkable after its source is edited, how retrieved text is kept from posing as
# instructions, and how a packet gets a name that a replay can check.
#
# Everything is synthetic; the notebook calls the lab's code in `modules/packet.py`.

# %%
import pathlib
import sys

ROOT = next(p for p in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools.render import render_plain
from modules import packet

record = packet.trace()
blocks = packet.view(record)
print(packet.chunk("laptop-loans#2"))

# %% [markdown]
# ## What an evidence item carries
#
# Each item has a chunk id, the canonical document id, a title, the document revision,
# the date it took effect, a span and the text. The span is only meaningful together
# with its contract, which the lab declares once:
#
# * offsets are **half-open** `[start, end)`: `start` is included, `end` is not, and
#   `end - start` is the length of the quote;
# * they count **Unicode code points of the NFC-normalised text** (layer `canonical`),
#   at a named revision.
#
# The hours document below was typed with a decomposed `é` (an `e` followed by a
# combining accent). NFC composes it into one code point, which is why raw offsets,
# canonical offsets and UTF-8 byte offsets of the same sentence all differ.

# %%
print(render_plain(blocks[1:3]))

# %% [markdown]
# Offsets alone are not a citation. The span also stores the exact quote and its
# SHA-256. After each edit the lab revalidates: in `r8` the first line was rewritten, the
# quote is found exactly once further on, and the span is reported as **moved**; in `r9`
# the hour itself changed, the quote no longer exists, and the span is reported as
# **drifted**. Neither case is silently "fixed".

# %% [markdown]
# ## Instructions and evidence live in separate fields
#
# The packet has an `instructions` field and an `evidence` field. The evidence is
# rendered inside an `evidence_set` wrapper whose note says what it is: quoted data.

# %%
print(render_plain(blocks[3:5]))

# %% [markdown]
# ## A passage that tries to escape
#
# Retrieved text is untrusted. The guest notes contain a closing tag, a fake opening tag
# with `id="admin"`, a quote character meant to break out of an attribute, and an
# instruction: *ignore the rules above*. Rendering escapes `& < > " '`, so the text
# cannot close its element or forge a new one, and parsing the rendered block gives
# back the exact original.

# %%
print(render_plain(blocks[5:7]))
item = packet.chunks_of(packet.GUEST)[0]
parsed = packet.parse_evidence(packet.render_evidence([item]))
print(len(parsed), parsed[0]["text"] == item.text)

# %% [markdown]
# Without escaping, the same text would parse as two items, the second one an
# `admin` item nobody retrieved. Escaping keeps the structure intact. It does not make a
# reader obey: a model can still be swayed by quoted text, which is why the instructions
# also say that evidence is data, and why later lessons check the answer against the
# packet.

# %% [markdown]
# ## Adjacent chunks: the condition sat one chunk earlier
#
# *Can a visitor take a laptop home?* The retriever's hit says a lent laptop may be
# taken home for up to three days. The condition, that laptops are lent only to
# registered students, sits in the chunk before it. A fixed keyword rule stands in for
# a reader here (no model is involved) so that the change is visible.

# %%
print(render_plain(blocks[7:8]))

# %% [markdown]
# With one chunk before, the answer flips from *yes* to *no*. The neighbour is marked
# `adjacent_to:laptop-loans#2`: it was not retrieved and must never be presented as if
# it had been. It is also paid from the same budget: with one chunk before *and* after,
# the neighbours use enough characters that the visitor guide no longer fits. And when
# the budget is too small for the neighbour, the hit goes alone. Expansion is a cost to
# cap, not a free improvement.

# %% [markdown]
# ## A per-document cap, shown both ways
#
# Three near-identical FAQ chunks can crowd a renewals policy out of a top-3 packet.
# A cap of one chunk per document fixes that, but breaks a multi-hop question that
# needs two passages of the laptop-loans document (which form, and where to get it).

# %%
print(render_plain(blocks[8:9]))

# %% [markdown]
# No single cap is right for every question; it is a policy to tune and to report,
# like the budget itself. (The coverage column uses evaluation labels that the
# selection never sees.)

# %% [markdown]
# ## The seal: identity, not truth
#
# The seal is SHA-256 over canonical JSON of the packet's versioned fields
# (`question@1`, `instructions@1`, `flags@1`, `evidence@1`): keys sorted, sets turned
# into sorted lists, no spaces, UTF-8. Building the same fields in another dict or set
# order gives the same seal; changing one evidence byte gives another.

# %%
print(render_plain(blocks[9:10]))
fields = {"b@1": {"y", "x"}, "a@1": "Café"}
print(packet.packet_seal(fields) == packet.packet_seal({"a@1": "Café", "b@1": {"x", "y"}}))

# %% [markdown]
# A matching seal says "this is the packet that was logged", which is what a replay or
# an audit needs. It says nothing about whether the evidence inside is correct: a
# packet quoting the stale hours from lesson 04 seals just as well.

# %% [markdown]
# ## Compression can change what the evidence says
#
# A naive compressor (first clause, stop words dropped, six words kept) loses a
# negation, a fee and an exception in turn. The fidelity check compares whole tokens:
# negations, numbers and exception words of the original that the compressed text no
# longer has. Citations always point at the original span, never at the summary.

# %%
print(render_plain(blocks[10:11]))
print(packet.fidelity_check("Laptops may not leave the building overnight.",
                            packet.naive_compress("Laptops may not leave the building overnight.")))

# %% [markdown]
# ## Your turn
#
# Open `exercises/packet.py`: `extract_span`, `check_drift`, `escape_text` with
# `unescape_text`, `expand_adjacent`, `packet_seal`, `fidelity_check` and the quiz
# `SEAL_QUIZ`. Check with `python3 -B methods.py check packet`; hints with
# `python3 -B methods.py hint packet`.
