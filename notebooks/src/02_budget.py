# %% [markdown]
# # Lesson 02 · budget: keep the units explicit
#
# Lesson 01 filled a quote budget measured in characters. This lesson looks at budgets
# more closely, because four different mistakes hide inside the word "fits":
#
# 1. **The policy for a misfit.** When a ranked chunk does not fit, the selector can skip
#    it and go on, stop, or cut it down. Only one of these keeps the evidence true.
# 2. **The arithmetic of the window.** The evidence budget is not the window. It is what
#    is left after everything else that shares the window has been paid for.
# 3. **The request that breaks.** A fixed top-k is tuned on typical requests, but the one
#    that overflows is the largest, and it gets no answer at all.
# 4. **The wrong objective.** A walk in rank order fills the budget; it does not ask whether
#    the packet answers every part of the question.
#
# Underneath all four sits the question of units: characters, bytes and tokens are
# different numbers for the same text. The notebook calls the lab's code in
# `modules/budget/mechanism.py`, the same code behind `python3 -B methods.py budget`.

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

import textwrap

from labtools import charts, display
from labtools.render import block
from modules.budget import mechanism as budget
from modules.budget import trace as budget_trace
from modules.common import units

record = budget_trace.trace()
blocks = budget_trace.view(record)


def show(*keys):
    """Show the trace's blocks with these keys."""
    display.show([block(blocks, key) for key in keys])


for rank, chunk in enumerate(budget.RANKED, start=1):
    print(f"{rank}. {chunk.id} ({len(chunk.text)} chars)")
    print(textwrap.indent(textwrap.fill(chunk.text, 80), "   "))

# %% [markdown]
# ## Skip, stop or truncate
#
# Three chunks arrive ranked, 150, 30 and 40 characters long, and the budget is 80. The
# first one cannot fit. Here is what each policy does with exactly the same input:

# %%
show("policies", "policy-steps")

# %% [markdown]
# * **skip** leaves the long chunk out whole and keeps walking: the two short chunks fit,
#   70 of 80 characters are used, and `laptop-loans` is listed as skipped, so nothing
#   vanishes without a record.
# * **stop** gives up at the first misfit. The packet is empty even though 80 characters
#   of room were free.
# * **truncate** fills the budget to the last character, which looks efficient. Look at
#   what it handed on:

# %%
cut = next(w["cut"] for w in record["walks"] if "cut" in w)
print("handed on:", repr(cut["handed_on"]))
print("dropped:  ", repr(cut["lost"]))

# %% [markdown]
# The source says loan laptops may go home *except* the reference-room ones. The cut
# quote keeps the rule and loses the exception, so the evidence now says something its
# source never said. An answer built on it would be confidently wrong, and would cite a
# real passage as its proof. That is why the lab skips.
#
# One caution about skipping: the short chunks that survive are not better evidence than
# the one that was left out. Keeping them is a declared policy for using the room, and
# the trace records the skip so a reader can see what was given up.

# %% [markdown]
# ## A counter is a parameter
#
# The walk never calls `len()` directly. It takes a counter, any function from text to a
# whole number, so the same code runs in characters, UTF-8 bytes or lab tokens:

# %%
for counter, limit in ((units.chars, 80), (units.utf8_bytes, 80), (units.lab_tokens, 20)):
    walk = budget.fill_budget(budget.RANKED, limit, counter=counter)
    sizes = [counter(c.text) for c in budget.RANKED]
    print(f"{counter.__name__:<11} sizes {sizes}  budget {limit:>3}  kept {walk.kept_ids}  "
          f"used {walk.used}")

# %% [markdown]
# The units are not interchangeable. For plain ASCII text, characters and bytes agree;
# for almost anything else they do not:

# %%
show("units")
print(budget.NON_ASCII.text)

# %% [markdown]
# A **lab token** is a teaching unit defined in `modules/common/units.py`: split on whitespace
# and count each piece as ceil(length / 5). It is *not* a model token. A real model counts
# its whole input, instructions and wrapping included, with its own tokenizer, and a real
# adapter would reserve room for the output in that same count. The lab ships no
# tokenizer, and it never converts characters to tokens with a ratio: a budget is only as
# trustworthy as the counter that enforces it.

# %% [markdown]
# ## The window equation
#
# Everything a request sends, and everything the model writes back, shares one window:
#
# `window = base input + history + tools + evidence + output reserve + margin`
#
# The **base input** is the system text, the question and the message wrapping. Evidence is
# the unknown. In the worked example, counted in lab tokens, the window is 1,024, the base
# input 124, and 128 is reserved for the answer. Those two settings, 1,024 and 128, are the
# lesson's test values, not the capacity of any model. History and tool schemas are empty
# this time, but they are still terms of the equation, set to 0:

# %%
show("plans")

# %% [markdown]
# The second row is the same assistant one turn later: 150 of conversation history and a
# 90-long tool schema take 240 out of the evidence room, leaving 532. Code that computed
# the budget once, without those terms, would keep promising 772 and overflow. The third
# row adds a margin for counting error (the lab's count and the model's count are never
# quite the same), which costs another 32.
#
# Once the packet is assembled, the whole request is counted again as one text: system
# text, question, chat template, source headers, the wrappers around each passage, and the
# evidence itself. In the worked example that final input is 723. It is not "124 plus the
# evidence": the recount exists because the template and the wrappers are easy to forget
# in an estimate made before assembly. With the reserve, 723 + 128 = 851, within 1,024.

# %%
plan = budget.WORKED
print(plan)
print("evidence budget:", budget.evidence_budget(**plan))
# The request as assembled: template, system text, question, and each evidence chunk in
# its source header and wrapper. 723 is its count in lab tokens, not a typed number.
from modules.common.units import lab_tokens

request = budget.WORKED_REQUEST
for line in request.splitlines()[:6] + ["..."] + request.splitlines()[-2:]:
    print(textwrap.shorten(line, 88, placeholder=" ..."))
final = lab_tokens(request)
evidence_only = sum(lab_tokens(c.text) for c in budget.WORKED_EVIDENCE)
print(f"{len(budget.WORKED_EVIDENCE)} chunks; evidence alone {evidence_only}, the whole request {final}")
print(f"{final} + {plan['output_reserve']} =", final + plan["output_reserve"],
      "fits:", budget.request_fits(final, plan["output_reserve"], plan["window"]))

# %% [markdown]
# If the fixed terms already exceed the window, there is no evidence budget at all. The
# lab treats that as an error, never as a budget of 0, because a zero would quietly
# produce an empty packet and a request that still overflows:

# %%
try:
    budget.evidence_budget(**budget.OVERFULL)
except ValueError as error:
    print(textwrap.fill(f"ValueError: {error}", 88))

# %% [markdown]
# ## Top-k against the window
#
# A published simulator (a 240-token window, 40 queries) found that about 13.4 chunks fit
# on average, yet at k = 11 six of the forty requests overflowed: the average prompt was
# 206.4 tokens, the largest 246. An overflowing request returns no answer and counts as
# wrong.
#
# The lab's own query set shows the same shape in lab tokens. Each of ten requests has a
# base input (the system prompt and its question) and eight ranked chunks of different
# sizes; the window is 160.

# %%
show("topk")

# %% [markdown]
# Each bar draws the largest prompt of its row on one scale, from 0 to the largest prompt
# of the whole sweep (308): `#` is the part inside the window, `|` marks the window edge at
# 160, `!` is the part beyond it, and `.` is unused scale. The same two columns as a chart:

# %%
charts.show(charts.prompt_vs_window(record),
            "The average prompt (blue) stays under the window up to k = 6, while the largest "
            "(red) crosses it already at k = 4: a k tuned on the average fails the largest "
            "request.")

# %% [markdown]
# At k = 4 the average request uses 114.7 of 160 lab tokens, comfortably inside, and one
# request (176) already overflows. At k = 6 the average still fits while three requests
# do not. Averages hide the tail.
#
# The trace also says that "on average 6.1 chunks fit". That figure is the mean of each
# request's own largest k, the one that still fits its window:

# %%
show("fits", "topk-note")

# %% [markdown]
# The mean, 6.1, would be a bad k: three of the ten requests fit fewer than six chunks, and
# the tightest (`q07`, whose chunks are large) fits only 3. Size k, or better, fill by
# budget, for the largest request you must serve, and count overflows per request.

# %%
for k in (3, 4, 6):
    overflows = budget.count_overflows(budget.REQUESTS, k, budget.WINDOW_TOKENS)
    print(f"k={k}: overflows {overflows} of {len(budget.REQUESTS)}")

# %% [markdown]
# ## The objective: cover the question
#
# Every walk so far answers one question: what fits? None asks whether the packet answers
# the question. Take a two-part question that declares its parts as sub-questions, its
# **facets**. A facet's terms are read from the sub-question's own words by a declared
# rule (`modules/common/facets.py`, the same rule lesson 10's answer stage uses): fold the
# case, drop function words, strip one plain suffix. A chunk covers a facet when it holds
# all of its terms. Nothing here looks at the evaluation labels.

# %%
show("coverage-question", "coverage-facets", "coverage-ranked")

# %% [markdown]
# This retriever favours the laptops: two chunks about returning loan laptops rank first
# and second, the Wi-Fi chunk third. The rank walk takes both laptop chunks (321
# characters), then has 9 left, too few for `guest-wifi` (40) and for `copier-pin` (30).
# Same budget, two objectives:

# %%
show("coverage-compare")

# %% [markdown]
# Choosing for coverage is a **budgeted maximum-coverage** problem: pick chunks whose total
# cost stays within the budget so that as many facets as possible are covered. The greedy
# rule takes, at each step, the chunk with the most *new* facets per character, and a chunk
# that adds nothing is never taken. The pick column above shows its steps: first
# `guest-wifi` (1 new facet for 40 characters, the best ratio), then `laptop-loans` (1 for
# 150, better than `laptop-faq`'s 1 for 171); by then `laptop-faq` adds nothing. Both
# sub-questions are covered with 190 characters, far less than the walk used, and the
# packet keeps rank order.
#
# Two cautions. The facet rule is only as good as its terms: a text can hold the words
# "loan", "laptop" and "back" and still not say when the laptop is due. And the 140
# characters left over are a choice too; filling them in rank order would be a second,
# declared step.

# %% [markdown]
# ## Your turn
#
# Open `exercises/budget.py`. Each function task goes one step past the reading:
# `evidence_budget_of_plan` takes a plan whose every term declares its unit (a missing
# term or a second unit is refused, a negative remainder is an error), `skip_walk` pays for
# each chunk as it is sent, wrapper included, `safe_top_k` finds the largest k at which no
# request overflows once the answer's reserve is counted, and `cover_facets` chooses by
# coverage per unit of cost (ties to the better rank, a free chunk first). The quiz
# `RESERVE_QUIZ` asks why the reserve stays in the equation, and `WALK_AT_200` asks you to
# predict the rank walk at a budget the trace does not run. Check with
# `python3 -B methods.py check budget`, and ask for a hint with
# `python3 -B methods.py hint budget`.
