# %% [markdown]
# # Lesson 04 · versions: surface ambiguity instead of guessing freshness
#
# Lesson 01's selector had a rule that looked fussy: if one source shows up with two
# different version labels, block every passage of that source. This lesson shows why
# the rule exists, what it costs, what it cannot see, and what may legitimately decide
# between two records instead of a guess.
#
# The setting is the same help desk. Someone published new opening hours as
# `hours-v2` but never marked the old `hours-v1` as superseded. Both records are now
# *current* and *public*, and they disagree.
#
# As always, everything is synthetic and the notebook only calls the lab's code in
# `modules/versions.py` (which reuses lesson 01's `select_context`).

# %%
import pathlib
import sys

ROOT = next(p for p in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools.render import render_plain
from modules import versions
from modules.context import RELEVANT_IDS, packet_coverage, select_context

for record in versions.COLLECTION:
    print(f"{record.id:<12} source={record.source_id:<16} v{record.version:<2} {record.status}/{record.audience}")

# %% [markdown]
# ## Two current records: the filter lets both through
#
# The hard filter of the earlier lessons keeps what is current and public. It removes
# the staff rota, and it keeps both hour records: from the filter's point of view
# nothing is wrong with either of them.

# %%
kept = versions.current_public(versions.COLLECTION)
for record in kept:
    if record.source_id == "help-desk-hours":
        print(record.id, "->", record.text)
print("sources with more than one label:", versions.multi_version_sources(kept))

# %% [markdown]
# ## The policy blocks the source, and coverage pays for it
#
# `select_context` sees `help-desk-hours` with labels `2` and `1` and blocks every
# candidate of that source, recording the labels. The question from lesson 01 needs the
# hours, so the packet now covers only half of what the answer needs, **even at 400
# characters**, where lesson 01 reached 2/2.

# %%
passages = [r.as_passage() for r in kept]
for budget in (120, 400):
    chosen = select_context(passages, budget)
    print(budget, chosen.packet_ids, "coverage", packet_coverage(chosen.packet_ids, RELEVANT_IDS),
          "| blocked:", chosen.conflicts)

# %% [markdown]
# That drop is the honest price of not guessing. The alternative would hand the answer
# stage two contradicting schedules, or silently pick one. The right reaction to the
# flag is a review of the sources (mark `hours-v1` superseded), not a relaxed rule.

# %% [markdown]
# ## Why not just take the largest version?
#
# Because a version label is a label. It might be an integer, a date, a release name or
# an id from some other system. Compared as strings, `"10"` sorts before `"9"`; compared
# as integers, 10 wins, but only because someone typed a larger number. Neither says
# which record an editor approved.

# %%
record = versions.trace()
print(render_plain(versions.view(record)[4:5]))

# %% [markdown]
# In every row the maximum (of either kind) disagrees with the approval register, or has
# no meaning at all. The selector therefore never compares labels; it only notices that
# there is more than one.

# %% [markdown]
# ## What the rule cannot see
#
# The rule compares version labels *within one source*. Two consequences follow, and
# both are real gaps, not corner cases:
#
# * a welcome leaflet (another source) can state other hours, and nothing is flagged;
# * a draft filed under the same source and the **same** label `2` looks like a second
#   passage of one version, and nothing is flagged either.

# %%
print(render_plain(versions.view(record)[5:6]))

# %% [markdown]
# Catching these needs other tools: comparing the claims themselves (lesson 09 traces
# help to audit them) and governance of who may publish what under which label.

# %% [markdown]
# ## Validity first: an expired rule never reaches ranking
#
# The late fee for laptops changed on 1 July 2026. The old rule's `valid_until` is
# `2026-06-30`, and in this lab an end date is **inclusive**: it names the last day the
# record applies. The filter takes an explicit as-of date; it never reads the clock, so
# the same inputs always give the same packet.

# %%
for day in ("2026-06-30", "2026-07-01"):
    print(day, [r.id for r in versions.valid_on(versions.LATE_FEES, day)])
print(render_plain(versions.view(record)[6:7]))

# %% [markdown]
# The expired rule ranks first, so leaving it for a generator to "notice" would put the
# wrong fee at the top of the packet. Without the filter, both fee records reach the
# selector and the version rule blocks the whole source: no answer at all.
# `python3 -B methods.py versions --as-of 2025-06-01` adds another day to the table.

# %% [markdown]
# ## Two sources, two amounts: resolve by a declared rule or abstain
#
# The room-booking rules say the key deposit is 500 crowns; a facilities notice says 600.
# Different sources, so the version rule does not fire. The checks come in order:
# do the amounts parse, are the units the same, is the scope the same? Here they are.
# Then what could establish priority: authority, publication time, validity,
# supersedes links. Only a **declared, deterministic** rule may pick one.

# %%
for r in versions.DEPOSITS:
    print(r.id, versions.parse_amount(r.text), "score", versions.DEPOSIT_SCORES[r.id])
print(versions.resolve_or_abstain(versions.DEPOSITS, versions.SUPERSEDES))
print(versions.resolve_or_abstain(versions.DEPOSITS, {}))

# %% [markdown]
# With the supersedes map (`deposit-notice` replaces `deposit-rules`) the answer is
# 600 crowns. Without it, the honest outcome is `abstain-and-review`: present both
# amounts, draw no single conclusion, and route the pair to content review.
#
# Note what the reranker would have done: it scores the 500-crown passage higher, so
# "take the best score" picks exactly the record the declared rule says was replaced.
# A score measures how well a passage matches the question, not whether it is in force.

# %% [markdown]
# ## Your turn
#
# Open `exercises/versions.py`: `multi_version_sources`, `valid_on` (mind the last
# day), `resolve_or_abstain`, and the quiz `SCORE_QUIZ`. Check with
# `python3 -B methods.py check versions`; hints with `python3 -B methods.py hint versions`.
