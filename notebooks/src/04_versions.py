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
# `modules/versions/mechanism.py` (which reuses lesson 01's `select_context`).

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import display
from labtools.render import block
from modules.versions import mechanism as versions
from modules.versions import trace as versions_trace
from modules.context import RELEVANT_IDS, packet_coverage, select_context

for record in versions.COLLECTION:
    print(f"{record.id:<12} source={record.source_id:<16} v{record.version:<2} "
          f"{record.status}/{record.audience}")

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
        display.say(f"{record.id} -> {record.text}")
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
    print(f"{budget} characters: packet {chosen.packet_ids}, coverage "
          f"{packet_coverage(chosen.packet_ids, RELEVANT_IDS)}")
    print("    blocked:", chosen.conflicts)
    for conflict in chosen.unresolved:
        print(f"    carried as a conflict ({conflict.state}): {conflict.source_id} {conflict.ids}")

# %% [markdown]
# That drop is the honest price of not guessing. The alternatives would pass both
# schedules on as evidence, as if either could answer, or silently pick one. Instead no
# blocked passage enters as evidence, and the packet carries the conflict itself: the
# source, its labels and both quotes, marked unresolved (lesson 10's answer stage shows
# both and gives neither). The right reaction to the flag is a review of the sources
# (mark `hours-v1` superseded), not a relaxed rule.

# %% [markdown]
# ## Why not just take the largest version?
#
# Because a version label is a label. It might be an integer, a date, a release name or
# an id from some other system. Compared as strings, `"10"` sorts before `"9"`; compared
# as integers, 10 wins, but only because someone typed a larger number. Neither says
# which record an editor approved.

# %%
record = versions_trace.trace()
blocks = versions_trace.view(record)


def show(*keys):
    """Show the trace's blocks with these keys (every block of the view has a stable key)."""
    display.show([block(blocks, key) for key in keys])


show("trap")

# %% [markdown]
# In every row the maximum (of either kind) disagrees with the approval register, or has
# no meaning at all. The second row is a quieter trap: `"09"` and `"9"` are one integer
# written twice, so "the largest integer" has to break a tie, and a careless maximum
# would break it by whichever label arrived first. The lab's `version_maxima` breaks it
# by the larger string, so its answer is the same in any input order:

# %%
print(versions.version_maxima(["9", "09"]), versions.version_maxima(["09", "9"]))

# %% [markdown]
# Being order-independent makes the maximum repeatable, not right: it still only says
# which label sorts last, and nothing about which record an editor approved. The
# selector therefore never compares labels; it only notices that there is more than one.

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
show("limits")

# %% [markdown]
# Catching these needs other tools: comparing the claims themselves across sources (the
# amount check below does that for one kind of claim), and governance of who may publish
# what under which label.

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
show("validity")

# %% [markdown]
# The expired rule ranks first, so leaving it for a generator to "notice" would put the
# wrong fee at the top of the packet. Without the filter, both fee records reach the
# selector and the version rule blocks the whole source: no answer at all.
# `python3 -B methods.py versions --as-of 2025-06-01` adds another day to the table.

# %% [markdown]
# ## Two sources, two amounts: resolve by a declared rule or abstain
#
# The room-booking rules say the key deposit is 500 crowns; a facilities notice says 600.
# Different sources, so the version rule does not fire. The amounts are read by one
# reader, `stated_amounts`, which lesson 11 uses as well: ASCII digits next to a
# currency, whichever way round (`600 crowns`, `EUR 600`, `€600`, `1,600 euros`). An
# amount it cannot read, such as `six hundred crowns` or digits of another script, comes
# back with the value `None`: unreadable, for review, never guessed and never counted as
# agreement.

# %%
for text in ("the deposit is 600 crowns", "the deposit is EUR 1,600", "the deposit is €600",
             "the deposit is six hundred crowns"):
    print(f"{text!r:38} -> {[(a.value, a.unit, a.written) for a in versions.stated_amounts(text)]}")
show("deposit-records")

# %% [markdown]
# Then the checks run in a fixed order, each one a function whose result is recorded,
# and the first that decides ends the run. The first three ask whether there is a
# conflict at all: can every amount be read, is there one unit, is there one scope? The
# last four ask what may establish priority: a declared authority order between the
# sources, a declared rule that the later publication wins, validity on the as-of date,
# and a declared supersedes map. With the map that says `deposit-notice` replaces
# `deposit-rules`, the first six checks pass without deciding and the seventh decides:

# %%
show("deposit-checks")

# %% [markdown]
# Note what the fifth check does not do: the notice was published later, but nobody
# declared that the later publication wins, so the date alone decides nothing. Change one
# thing about the pair and another check decides, or none does:

# %%
show("deposit-cases")

# %% [markdown]
# Without a declared rule, no check decides and the outcome is `abstain-and-review`:
# present both amounts, draw no single conclusion, and route the pair to content review.
# On 30 April the notice is not yet valid, so validity decides before the supersedes map
# is even read. A declared precedence that puts the room-booking rules first decides at
# the authority check, before the supersedes map: the order of the checks is part of
# the rule, and it is written down. An amount in another unit or one that cannot be
# read stops the run early, at review.
#
# The last check on its own is `resolve_or_abstain`:

# %%
for links in (versions.SUPERSEDES, {}):
    outcome = versions.resolve_or_abstain(versions.DEPOSITS, links)
    print(f"supersedes={links}: {outcome['decision']}, presented {outcome['presented_ids']}")

# %% [markdown]
# Note what the reranker would have done: it scores the 500-crown passage higher
# (`deposit-rules` 0.91, `deposit-notice` 0.84), so "take the best score" picks exactly
# the record the declared rule says was replaced. A score measures how well a passage
# matches the question, not whether it is in force.

# %% [markdown]
# ## Your turn
#
# Open `exercises/versions.py`. Each task starts from a function above and asks for what
# it does not do:
#
# 1. `reused_labels`: the rule's blind spot from the limits table, one label carried by
#    passages with different texts (hours-v2 and hours-draft).
# 2. `valid_during`: the records valid on any day of a period, so that a change inside
#    the period (the late fee on 1 July) reaches the packet and is flagged.
# 3. `resolve_with_chains`: a declared supersedes map followed through records that are no
#    longer present (c replaced b, b replaced a), with a cycle reported as an error.
# 4. `PUBLICATION_RULE_OUTCOME`: predict which check decides the deposit pair when the later
#    publication is declared to win (a case the trace does not print).
# 5. `SCORE_QUIZ`: why the highest score cannot settle the conflict.
#
# Check with `python3 -B methods.py check versions`; hints with
# `python3 -B methods.py hint versions`.
