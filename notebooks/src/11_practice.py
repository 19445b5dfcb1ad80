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
# decisions with the lab's own code (`modules/practice.py`), the same code that
# `python3 -B methods.py practice --solution` prints.

# %%
import pathlib
import sys

ROOT = next(p for p in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools.render import render_plain
from modules import practice
from modules.common.units import lab_tokens

scenario = practice.trace()
print(render_plain(practice.view(scenario)[1:4]))

# %% [markdown]
# The texts:

# %%
for c in practice.CANDIDATES:
    print(f"{c.id} ({lab_tokens(c.text)} lab tokens): {c.text}\n")

# %% [markdown]
# Before reading on, decide for each candidate: keep or discard, and why. Look at the
# metadata, not the similarity column: it ranks E1 second and A2 last.

# %% [markdown]
# ## Layer 1, freshness: the as-of date decides
#
# The hard filter compares each validity window with an explicit as-of date, 2026-06-01.
# Not today's clock: a replay a year from now must decide the same way.

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
# B1 is a copy of the travel policy on an intranet mirror, with a header in front. Its text
# is not identical to A1's, so exact-text dedupe would keep it; its canonical document is
# `travel-policy`, which is present, so canonical dedupe drops it. A1 and A2 share that
# canonical document too, but they are different chunks of the original: two pieces of
# evidence, not one piece twice.

# %%
survivors = [c for c in practice.CANDIDATES if practice.is_current(c, practice.AS_OF) and c.scope == practice.SCOPE]
print("survivors so far:", [c.id for c in survivors])
print("dropped as mirrors:", practice.canonical_dedupe(survivors))

# %% [markdown]
# ## Layer 4, conflict: a score is not a rule
#
# D1 says 500 euros, D2 says 600 euros. Both are current and in scope. D1's source has the
# higher authority score, which is exactly why it is tempting. But a score is not a
# decision anyone made about these two sources. Only a priority declared in advance, such
# as "the finance office's allowance table takes priority over the finance FAQ" or an
# explicit supersedes link, may settle it. None is declared, so both stay, the answer gives
# no single amount, and the sources go to content review.

# %%
by_id = {c.id: c for c in practice.CANDIDATES}
print(practice.settle_conflict([by_id["D2"], by_id["D1"]]))
print(practice.settle_conflict([by_id["D2"], by_id["D1"]], practice.EXAMPLE_RULE))

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
# in chunk order. Units are then copied whole, in order, while they fit.

# %%
plan = practice.decision_table(practice.CANDIDATES, practice.AS_OF, practice.SCOPE, practice.BUDGET)
print(render_plain([{"table": {
    "title": f"packet: {', '.join(plan.packet)} ({plan.used_tokens} of {plan.budget} lab tokens)",
    "columns": ["id", "decision", "reason", "packet order"],
    "rows": [[d.id, d.decision, d.reason, d.order] for d in plan.decisions]}}]))

# %% [markdown]
# The budget does not remove anything here: the packet uses 202 of 1,000 lab tokens. That
# is a point in itself. All eight candidates together are only 408 lab tokens, so a
# selector that checks nothing but the budget would keep the mirror, the expired policy
# and the staff policy, and hand the answer stage three amounts (300, 500 or 600, and 800)
# with nothing to tell them apart. A budget is not a freshness, scope, copy or conflict
# check. When the budget does bind, units still travel whole:

# %%
for budget in (100, 143, 202):
    small = practice.decision_table(practice.CANDIDATES, practice.AS_OF, practice.SCOPE, budget)
    print(budget, "->", small.packet)

# %% [markdown]
# At 100, A1 and A2 (118 together) leave together. At 143, 25 tokens remain after A1 and
# A2: D2 alone would fit, but the conflict enters whole or not at all.

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
# Open `exercises/practice.py`: `is_current`, `canonical_dedupe`, `settle_conflict`,
# `decision_table` and the three quiz constants. The grader checks every decision and its
# reason, not only the final packet: `python3 -B methods.py check practice`.
