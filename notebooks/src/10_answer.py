# %% [markdown]
# # Lesson 10 · answer: an honest, inspectable answer stage
#
# Lessons 01 to 09 decided what goes into the evidence packet. This lesson looks at the
# last step: the answer built from that packet. A model is not needed to see what can go
# wrong there, so the lab uses a **template answer stage** with three rules:
#
# 1. every sentence that states something is a quote from the packet, word for word;
# 2. that sentence names the packet id it came from;
# 3. nothing else is stated: a missing part is named as missing, and a disagreement is
#    shown as a disagreement.
#
# The template is deliberately dull. Its value is that every sentence can be checked, and
# that its failures are the packet's failures, not the writer's imagination.

# %%
import pathlib
import sys

ROOT = next(p for p in [pathlib.Path.cwd(), *pathlib.Path.cwd().parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools.render import render_plain
from modules import answer
from modules.context import CANDIDATES, QUESTION, select_context

print(QUESTION)
for facet in answer.FACETS:
    print(f"facet {facet.name!r}: answered by a passage containing {facet.cue!r}")

# %% [markdown]
# ## Facets: what the question asks, not which passage is right
#
# The question has two parts, so the answer stage looks for two **facets**. A facet is read
# from the question: a name, and the phrase a passage must contain to speak to it. It is
# not an evaluation label. It says *what* is asked, never *which record* answers it, so the
# answer stage stays as blind to the answer key as lesson 01's selector.

# %% [markdown]
# ## Lesson 01's three budgets, answered
#
# The packets are exactly lesson 01's: `select_context` at 80, 120 and 400 characters. The
# answer stage only reads them.

# %%
for budget in (80, 120, 400):
    packet = answer.assemble(CANDIDATES, budget, answer.FACETS)
    reply = answer.compose_answer(answer.FACETS, packet.packet)
    print(f"{budget:>3} chars | packet {', '.join(packet.packet_ids)}")
    print(f"    {reply.status}: {reply.text}\n")

# %% [markdown]
# * At **400** both facets have a passage: a full answer, two quotes, two ids.
# * At **120** only `returns-v1` fitted. The answer says where to return books and then
#   says, in so many words, that the packet holds nothing on the opening hours. A "full"
#   answer here would be a small lie: the reader cannot tell a missing part from a part
#   that does not exist.
# * At **80** neither needed passage is in the packet. The packet is not empty (it holds
#   `wifi-v1` and `card-v1`), but nothing in it speaks to either facet, so the answer
#   abstains rather than fill the space with what it has.

# %% [markdown]
# ## Two current versions that disagree
#
# Now add `hours-v3`, a second *current* version of the `help-desk-hours` source with other
# hours (9:00 instead of 8:30). Lesson 01's selector blocks a source seen with two version
# labels, and records the labels:

# %%
record = select_context(answer.CONFLICT_CANDIDATES, 400)
print("blocked:", record.conflicts)
print("packet :", record.packet_ids)

# %% [markdown]
# Blocking is right for the selector, but an answer stage that only saw this packet would
# report the hours as *missing*, which is not true either: the sources hold two answers and
# nobody has said which one holds. So for the answer stage the conflicting versions of a
# source **that the question needs** travel together, as one unit at the rank of the first
# one: both enter the packet or neither does. `printing-prices` is also in conflict, but no
# facet needs it, so it stays blocked.

# %%
packet = answer.assemble(answer.CONFLICT_CANDIDATES, 400, answer.FACETS)
reply = answer.compose_answer(answer.FACETS, packet.packet)
print("packet:", packet.packet_ids, f"({packet.used_quote_chars} chars)")
print(reply.status)
for sentence in reply.sentences:
    print(f"  [{sentence.kind}] {sentence.text}" + (f"  <- {sentence.cite}" if sentence.cite else ""))

# %% [markdown]
# Both hours appear, each with its source and version, and the answer gives no single
# value. The larger label `3` proves nothing about which record was approved (lesson 04):
# choosing would be guessing, and the right next step is content review of the source.

# %% [markdown]
# ## A citation check that separates presence from support
#
# A cited id can be checked in two independent ways:
#
# * **present**: the id is one of the ids handed to the answer stage;
# * **supported**: the quoted words occur in the cited source's own text.
#
# Here are three one-sentence answers over the 120-character packet, which holds only
# `returns-v1`:

# %%
trace = answer.trace()
print(render_plain([{"table": {
    "title": "",
    "columns": ["case", "cites", "present", "supported"],
    "rows": [[r["case"], r["cite"], r["present"], r["supported"]] for r in trace["citation_check"]]}}]))

# %% [markdown]
# The second sentence quotes `hours-v2` faithfully, but `hours-v2` never reached the
# packet: the answer stage used something it was not given. The third cites an id that is
# present, but its source says *north* entrance, not *south*. Each check catches what the
# other misses, so both are needed.
#
# And both together still prove less than it seems: that an answer repeats a record it was
# given, not that the record was the right one.

# %% [markdown]
# ## The four outcomes a single accuracy hides
#
# Six small queries, each with its own ranking and budget, and an evaluation label (the
# record that answers it) kept apart from the answer stage. Each answer falls into one of
# four outcomes:

# %%
blocks = answer.view(trace)
titles = ("A small query set", "Counted apart")
print(render_plain([b for b in blocks if "table" in b and b["table"]["title"].startswith(titles)]))

# %% [markdown]
# Accuracy alone reports 2 of 6. That single number puts four different situations in one
# bucket, and each needs a different fix:
#
# * **right source, wrong record** (q3): the index held only the superseded `hours-v1`.
#   The citation passes both checks; the fix is in versions and freshness, not in the
#   answer stage.
# * **wrong source** (q4): a similar-looking cafe passage ranked first and the hours did
#   not fit after it. The fix is in scope and selection.
# * **no answer: overflow** (q5): the needed passage was retrieved but did not fit the
#   budget. The fix is in the budget or the packet's composition.
# * **no answer: abstention** (q6): two current versions disagree. The answer did the
#   right thing; the fix is content review.
#
# The first two are confident wrong answers that pass the citation check; the last two
# are honest refusals. Count them apart.

# %% [markdown]
# ## Your turn
#
# Open `exercises/answer.py`: `check_citation` (presence and support), `compose_answer`
# (full, partial, conflict or abstain), `classify_outcome` (the four outcomes) and two
# quizzes. Check with `python3 -B methods.py check answer`; ask for a nudge with
# `python3 -B methods.py hint answer`.
