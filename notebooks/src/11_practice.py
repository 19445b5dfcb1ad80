# %% [markdown]
# # Lesson 11 · practice: the capstone
#
# One question, eight retrieved candidates, an evidence budget of 1,000 lab tokens. Each
# candidate is here to test one rule from the earlier lessons. Your job is the decision
# table: the order in which candidates enter the packet, a reason for every candidate that
# is left out, the canonical dedupe, the state of the conflict and the final packet. Then
# three questions about what would go wrong if a rule were skipped.
#
# Try it on paper first. The second half of this notebook walks through the reference
# decisions with the lab's own code (`modules/practice/mechanism.py`), the same code that
# `python3 -B methods.py practice --solution` prints.

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import display
from labtools.render import block
from modules.practice import mechanism as practice
from modules.practice import trace as practice_trace
from modules.common.units import lab_tokens

reference = practice_trace.trace(solution=True)
blocks = practice_trace.view(reference)


def show(*keys):
    """Show the trace's blocks with these keys (every block of the view has a stable key)."""
    display.show([block(blocks, key) for key in keys])


show("scenario", "candidates", "provenance")

# %% [markdown]
# The texts:

# %%
for c in practice.CANDIDATES:
    display.say(f"{c.id} ({lab_tokens(c.text)} lab tokens): {c.text}\n")

# %% [markdown]
# Before reading on, decide for each candidate: keep or discard, and why. Look at the
# metadata, not the similarity column: it ranks E1 second and A2 last.

# %% [markdown]
# ## Layer 1, freshness: the as-of date decides
#
# The hard filter compares each validity window with an explicit as-of date, 2026-06-01.
# Not today's clock: a replay a year from now must decide the same way. The window is
# lesson 04's, checked by the same function as its records: both ends inclusive, and a
# candidate whose window ends before it starts is refused when it is made.

# %%
for c in practice.CANDIDATES:
    print(c.id, c.valid_from, "to", c.valid_until or "open", "->",
          "current" if practice.is_current(c, practice.AS_OF) else "not current")

# %% [markdown]
# C1 ended on 2025-12-31. It leaves here, before anything is ranked. If a reranker ever
# puts C1 first, the reranker is not the first thing that failed: the freshness filter let
# an expired policy through, and tuning the ranker would only hide that.

# %% [markdown]
# ## Layer 2, scope: similar is not relevant
#
# E1 reads almost like A1 and scores 0.91. But it is about **staff** travel, and the
# question is about volunteers. A high similarity says the words look alike; the scope
# says who the rule is for.

# %%
for c in practice.CANDIDATES:
    print(c.id, c.scope, "->", "in scope" if c.scope == practice.SCOPE else "off topic")

# %% [markdown]
# ## Layer 3, canonical dedupe: a mirror is the same evidence twice
#
# B1 is a copy of A1's passage on an intranet mirror, with a header in front. Its text is
# not identical to A1's, so exact-text dedupe would keep it. The capstone does not write
# a rule of its own here: it hands the survivors to lesson 03's `dedupe_canonical`, each
# described as a lesson 03 chunk. The canonical document is `travel-policy`; a chunk is
# the primary copy when its document is that canonical document; and the passage's place
# in it (`#3` for A1 and its mirror B1, `#4` for A2) is the anchor.

# %%
survivors = [c for c in practice.CANDIDATES
             if practice.is_current(c, practice.AS_OF) and c.scope == practice.SCOPE]
print("survivors so far:", [c.id for c in survivors])
for c in survivors:
    chunk = practice.as_chunk(c)
    print(f"{c.id}: canonical {chunk.canonical_id}, copy {chunk.copy}, anchor {chunk.anchor}")
print("dropped copies (id -> copy kept instead):", practice.canonical_dedupe(survivors))

# %% [markdown]
# B1 goes: it is another copy of A1's passage, and A1 is the original. A1 and A2 share
# the canonical document too, but they are two passages of it, the conclusion and its
# exception: one copy of *each passage* stays, so both do. A rule keeping one chunk per
# canonical document would have dropped A2, the one sentence that stops the answer from
# promising money it must not promise.

# %% [markdown]
# ## Layer 4, conflict: a score is not a rule
#
# D1 says 500 euros, D2 says 600 euros. Both are current and in scope. The amounts are
# read by lesson 04's reader, which reads an amount however it is written next to its
# currency, or says it cannot:

# %%
show("amount-reader")

# %% [markdown]
# An amount the reader cannot read (in words, or in another script's digits) is never
# taken as agreement: the pair is kept whole and goes to review, before any rule is
# applied, the same order as lesson 04's checks.
#
# D1's source has the higher authority score, which is exactly why it is tempting. But a
# score is not a decision anyone made about these two sources. Only a priority declared
# in advance, such as "the finance office's allowance table takes priority over the
# finance FAQ" or an explicit supersedes link, may settle it. None is declared, so both
# stay, the answer gives no single amount, and the sources go to content review.

# %%
by_id = {c.id: c for c in practice.CANDIDATES}
for rules in ((), practice.EXAMPLE_RULE):
    conflict = practice.settle_conflict([by_id["D2"], by_id["D1"]], rules)
    print(f"declared rules {list(rules) or 'none'}:\n    {conflict.state}, kept {conflict.kept}, "
          f"rule {conflict.rule!r}")

# %% [markdown]
# With the example rule declared, D1 wins and D2 leaves with the reason
# `superseded_by_rule`. Without it, the conflict is `unresolved` and the two travel
# together: all of the conflict enters the packet, or none of it, so a tight budget can
# never quietly pick 600 euros by dropping D1.

# %% [markdown]
# ## Layers 5 and 6, units and budget: an exception travels with its conclusion
#
# A2 is the exception to A1's conclusion: travel booked before written approval is not
# reimbursed. Its similarity is the lowest of all, because it shares few words with the
# question. Dropped, it would leave an answer that promises reimbursement to exactly the
# people the policy excludes, and every citation in that answer would still check out.
#
# So adjacent chunks of one document form a unit, placed at the rank of its best member,
# in chunk order. Units are then copied whole, in order, while they fit. The decision
# table keeps the retriever's rank order; the packet has a table of its own, in packet
# order, with the running total:

# %%
show("decisions", "packet")

# %% [markdown]
# The budget does not remove anything here: the packet uses 205 of 1,000 lab tokens. That
# is a point in itself. All eight candidates together are only 362 lab tokens, so a
# selector that checks nothing but the budget would keep the mirror, the expired policy
# and the staff policy, and hand the answer stage three amounts (300, 500 or 600, and 800)
# with nothing to tell them apart. A budget is not a freshness, scope, copy or conflict
# check.
#
# A second run at 160 lab tokens shows the walk at work when the budget binds:

# %%
show("tight-walk", "tight-result")

# %% [markdown]
# A1 and A2 (118 together) enter first. The conflict unit would bring the total to 166,
# so it is skipped whole: D2 alone (25) would fit, but taking it would silently answer
# "600 euros". The walk does not stop there; F1 (39) still fits, at 157.

# %% [markdown]
# ## The three questions
#
# 1. **If A2 is dropped**, the answer states the conclusion without its exception. It
#    becomes confidently wrong for travel booked before approval, and nothing in the
#    citation check notices.
# 2. **If C1 ranks first after reranking**, the first failing layer is freshness, which
#    comes before ranking: the validity filter should have removed C1 before the reranker
#    saw it.
# 3. **D1 against D2** cannot be settled by the higher authority score. It needs a priority
#    rule declared before the query (a source precedence or supersedes link); without one,
#    keep both, give no single amount, and route to content review.
#
# ## Your turn
#
# Open `exercises/practice.py`. Each task asks for something the lesson's module does
# not do: `validity` names the state of a validity window and warns before a policy
# expires; `canonical_dedupe` applies lesson 03's `dedupe_canonical` to candidates that
# arrive out of rank order; `settle_conflict` follows declared priority rules in a chain
# and refuses rules that contradict themselves; `decision_table` counts each passage's
# evidence wrapper against the budget; then the three quiz constants and one prediction
# (the packet with the declared rule at 160 lab tokens). The grader checks every decision
# and its reason, not only the final packet: `python3 -B methods.py check practice`.
