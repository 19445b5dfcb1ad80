# %% [markdown]
# # Lesson 05 · order: position is a hypothesis to measure
#
# Lesson 01's selector handed its packet to a **quote copier**, a reader that copies
# every chunk it is given, in order. Move a chunk from the first place to the middle and
# the copier does exactly the same work: it has no position effect at all.
#
# That tells us something about the copier and nothing about any other reader. Liu et
# al., *Lost in the Middle: How Language Models Use Long Contexts* (TACL 2024), measured
# language models on multi-document question answering over 20 documents and found
# accuracy highest when the answer sat at the start or the end of the context and lowest
# in the middle, for the models and tasks they tested. Later models need not behave the
# same way. Position is a hypothesis about a particular reader, to be measured on that
# reader.
#
# This lab ships no model. The lesson measures a **fictional reader simulator**: the
# published teaching simulator, rebuilt in our own code from its specification, so that
# it prints the published tables digit for digit. Everything in it is invented: the help
# documents of a water utility that does not exist, the questions, the embedding and the
# reader. What carries over to a real reader is the *method*: how to measure a position
# effect, how to tell it from the reader's own run-to-run variation, and what to write
# down so that the measurement can be repeated.

# %%
import pathlib
import sys
import textwrap

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import charts, display
from labtools.render import block, blocks_between
from modules import order
from modules.order import experiments
from modules.order import trace as order_trace

record = order_trace.trace()   # the whole lesson, as `python3 -B methods.py order` prints it
blocks = order_trace.view(record)


def show(first, last=None):
    """Show the view's block keyed `first` (or the blocks from `first` to `last`)."""
    display.show(blocks_between(blocks, first, last) if last else block(blocks, first))


show("opening", "label")

# %% [markdown]
# ## The simulated world
#
# The simulator builds its world from one seed (20260218) with its own small random
# number generator (`order.Rng`): 200 help documents in five classes (tariff, fault,
# meter, outage, maintenance), each with two to five paragraphs. A paragraph names one
# topic of its class, a common word (entry, area, term, ...) and the document's main
# topic. Every paragraph is a chunk; a chunk carries its document's code, so two chunks
# of one document share a code. Forty questions each ask about a document's main topic
# in the question's own words, ending in a common word: the *record* the answer needs.
#
# A chunk is **relevant** to a question when it names the question's topic and holds its
# record word. That is an evaluation label: the retriever and the reader never see it.

# %%
fixture = order.build_fixture()
query = fixture.queries[0]
print(len(fixture.documents), "documents,", len(fixture.chunks), "chunks,", len(fixture.queries), "questions")
print("Question 0:", repr(query.text), "| topic:", query.concept.key, "| record word:", query.record)
ranking = order.retrieve(query, fixture.chunks, 5)
for place, chunk in enumerate(ranking, 1):
    print(f"  {place}. [{chunk.code}] {chunk.text}  relevant: {order.is_relevant(query, chunk)}")

# %% [markdown]
# Retrieval scores each chunk by the cosine of the fictional embeddings plus half the
# share of lab tokens the question and the chunk have in common; ties keep chunk order.
#
# ## The reader
#
# The prompt is an instruction, then each chunk as `[CODE] text .`, then the question.
# Over 240 lab tokens the request overflows: no answer, counted wrong. Otherwise each
# chunk scores its place's weight (first 1.0, last 0.8, every other place 0.45) times
# (0.3 + the share of the question's lab tokens found in the chunk), and one draw from a
# generator seeded with the reader seed XOR the prompt's FNV-1a hash picks a chunk, with
# odds exp(score / 0.12). The prompt's exact text seeds the draw: the same prompt and seed
# always pick the same chunk, and another order is another prompt.

# %%
show("rule", "example")
prompt = order.build_prompt(query, ranking[:3])
print(textwrap.fill(prompt.text, 80))  # one long line, wrapped here for reading
print("lab tokens:", prompt.tokens, "| FNV-1a:", prompt.fnv)
for seed in range(20260218, 20260224):
    print(f"  reader seed {seed}: cites {order.read(prompt, seed).code}")

# %% [markdown]
# ## The budget line and the k sweep
#
# First the arithmetic: how many chunks fit the window on average?

# %%
show("budget")

# %% [markdown]
# On average 13.4 chunks fit. Now hand the reader the top k chunks in rank order, for
# k = 1, 3, 5, 8, 10, 11, 12 and 13. Recall@k asks whether a relevant chunk is among
# the k; generation whether the picked chunk is relevant; the two citation columns split
# it: does the pick hold the question's topic (cited concept) and its record word (cited
# record)?

# %%
show("k-sweep", "k-sweep-notes")
charts.show(charts.k_sweep(record),
            "Recall climbs while generation falls, and the cited record falls with generation while "
            "the cited concept stays at 1.0 until k = 10; from k = 11 some prompts overflow the window.")

# %%
by_k = {row["k"]: row for row in record["k_sweep"]}
print("recall@k", by_k[1]["recall"], "->", by_k[10]["recall"], "| generation", by_k[1]["generation"], "->",
      by_k[10]["generation"], "(k 1 -> 10)")
print("k = 11: average prompt", round(by_k[11]["context_avg"], 1), "| largest", by_k[11]["largest"],
      "| overflow", by_k[11]["overflow"], "of 40")

# %% [markdown]
# Recall rises from 0.775 to 0.975 as k goes from 1 to 10, while generation falls from
# 0.775 to 0.575: every added chunk is one more candidate for the draw, and the last
# place, weighted 0.8, always holds one. The window collides with the **largest**
# request, not the average: at k = 11 the average prompt, 206.4 lab tokens, fits easily,
# yet six of the forty overflow. And the cited concept stays at 1.0 until k = 10 while the
# cited record falls with generation: the reader finds the right topic and picks a chunk
# of it with the wrong record word. The error is in the record, and only the citation
# shows it.

# %% [markdown]
# ## One question in three layouts
#
# Before the layout experiment over the forty questions, question 0 again, with its first relevant
# chunk and its first four irrelevant ones, the relevant chunk placed at the head, in the
# middle and at the tail.

# %%
show("one-question", "one-question-notes")

# %% [markdown]
# The place moves the relevant chunk's chance a long way, yet a single draw per layout
# says little: the next seed changes every pick. Measuring an order effect takes many
# questions and a run-to-run baseline, which is what the rest of the lesson does.

# %% [markdown]
# ## The controlled layout experiment
#
# The k sweep mixes how much context there is with where the relevant chunk sits. To
# isolate position, each question gets its first relevant chunk (from its top 40) and
# its first j irrelevant ones, for j = 0, 2, 4 and 8, in three layouts: **head** (the
# relevant chunk first), **middle** (after the first j // 2 irrelevant ones) and **tail**
# (last). Only the place of one chunk changes.

# %%
ranked = experiments.rankings(fixture)
good, bad = order.good_and_bad(query, ranked[0], 4)
for layout in order.LAYOUTS:
    print(f"{layout:<7}", [chunk.code for chunk in order.build_layout(good, bad, layout)])

# %% [markdown]
# A random reader changes some picks even when nothing changes. So before calling a
# change an order effect, measure the **run-to-run baseline**: the head layout read
# again with the next seed. A change of order counts only when it moves more picks than
# that. "Moves" means the picked chunk differs: the same chunk, not merely the same code,
# since two chunks of one document share a code.

# %%
show("layouts", "baseline")
charts.show(charts.layouts(record),
            "Head stays highest and the middle collapses as soon as irrelevant chunks surround it; the "
            "open circles, the second run at j = 4, keep the same order.")
charts.show(charts.share_of_change(record),
            "The grey bars, the run-to-run baseline, are far from zero; moving the relevant chunk to the "
            "middle still moves more picks at every j >= 2.")

# %%
j4 = next(row for row in record["layouts"] if row["j"] == 4)
second = record["second_run"]
print(f"j = 4, seed {j4['seed']}: middle moved {j4['change_middle']:.4f}, baseline {j4['run_to_run']:.4f}")
print(f"j = 4, seed {second['seed']}: head {second['head']:.4f}, middle {second['middle']:.4f}, "
      f"tail {second['tail']:.4f}; middle moved {second['change_middle']:.4f}, baseline {second['run_to_run']:.4f}")

# %% [markdown]
# The middle is far below head and tail at every j >= 2. At j = 4 moving the relevant
# chunk to the middle changes 0.700 of the picks against a run-to-run baseline of 0.425,
# and on the second seed 0.900 against 0.425: the order effect exceeds the baseline on
# both. The baseline is large in this simulator, which is why an order effect is judged
# against it and never against zero. Not every move passes: at j = 8 the tail moves
# 0.550 of the picks while reseeding alone moves 0.600, so that move is no order effect.
#
# `order.order_effect` makes the decision from the picks:

# %%
picks = {}
for layout, seed in (("head", 20260218), ("middle", 20260218), ("head", 20260219)):
    picks[layout, seed] = [order.read(order.build_prompt(q, order.build_layout(*order.good_and_bad(q, r, 4), layout)),
                                      seed).chunk for q, r in zip(fixture.queries, ranked)]
print(order.order_effect(picks["head", 20260218], picks["middle", 20260218], picks["head", 20260219]))

# %% [markdown]
# ## Reorder policies: how the frameworks fill the ends
#
# If a reader neglects the middle, one remedy is to reorder the ranked chunks so that the
# strongest sit at both ends. The lab's `reorder_lost_in_middle(items)` takes items best
# first and puts the best first, the second best last, the third second, and so on inward
# (ten items: ranks 1 3 5 7 9 10 8 6 4 2). The frameworks do not all agree. We read the
# source of three of them, in the versions named below:
#
# * LangChain's `LongContextReorder` (langchain-community 0.4.2) reverses the list it is
#   given (best first in, so ascending), then inserts the next item at the front and
#   appends the one after, in turn.
# * LlamaIndex's `LongContextReorder` (llama-index-core 0.14.25) sorts the nodes by score,
#   ascending, then does the same.
# * Haystack's `LostInTheMiddleRanker` (haystack-ai 3.4.1) takes the given order as the
#   ranking and inserts each next document into the middle of those already placed (it
#   also drops duplicate ids and can stop at a `top_k` or a word count).
#
# Side by side, in ranks (1 = best):

# %%
show("frameworks")
for count in (4, 5, 10):
    ranks = list(range(1, count + 1))
    print(f"{count:>2} items  lost in the middle: {order.reorder_lost_in_middle(ranks)}")
    print(f"{'':>9}parity variant:     {order.reorder_parity_variant(ranks)}")

# %% [markdown]
# LangChain and LlamaIndex give what the lab calls the **parity variant**: for an even
# count (four items: 2 4 3 1) the best item goes last, for an odd count first. Haystack
# keeps the best first at any count, as the lab's reorder does. The paper's curves were
# U-shaped for the models it tested; where a reader favours the start over the end, the
# parity quirk moves the best evidence to the weaker edge. This simulator weights the
# first place 1.0 and the last 0.8, so the cost can be measured rather than asserted:

# %%
show("policies")
show("policy-notes")

# %% [markdown]
# Read the numbers for what they are: a property of this simulator and this ranking. A
# reorder that helps one reader may cost another; measure it on the reader you use.
#
# ## Write the order down
#
# The same chunks in another order gave other picks above. So the order of the context is
# a design decision, like the budget in lesson 02: the packet must record which policy
# produced it, or nobody can repeat a measurement made on it.

# %%
context_order = record["context_order"]
print("policy:", context_order["policy"], "| recorded in:", context_order["recorded_in"])
show("decision")

# %% [markdown]
# ## Your turn
#
# Open `exercises/order.py`. Each task starts from a function above and asks for what it
# does not do:
#
# 1. `reorder_for_edges(items, first_weight, last_weight)`: the lab's reorder always puts
#    the best first; put it at whichever edge the reader weighs more (for a reader whose
#    end is stronger, ten items become 2 4 6 8 10 9 7 5 3 1), in linear time.
# 2. `place_at(good, bad, position)`: the relevant chunk at any place from 1 to j + 1, the
#    places a position sweep needs beyond head, middle and tail.
# 3. `classify_changes(before, after, good)`: split the changed picks into lost, gained and
#    other, which the share of change counts alike.
# 4. `order_effect_over_seeds(first, reordered, reseeded_runs)`: judge a change of order
#    against the largest of several reseeded runs, not against one.
# 5. `J1_MIDDLE_CHANGE`: predict, before running anything, the middle layout's share of
#    change at j = 1 (the trace stops at j = 0, 2, 4 and 8).
# 6. `COPIER_QUIZ`: what the copier's missing position effect proves.
#
# Then run `python3 -B methods.py check order`; ask for a nudge with
# `python3 -B methods.py hint order`.
