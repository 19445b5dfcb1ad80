# %% [markdown]
# # 14 · audit: where does your own run lose evidence?
#
# The lessons measured coverage on fixtures the lab wrote. The question you bring back
# from them is about your own pipeline: *my retriever finds the right passages, so where
# do they go missing before the answer stage sees them?*
#
# An IR evaluation tool (trec_eval, ir-measures, ranx) stops at the ranking and reports
# recall@k. `methods.py audit` goes one step further. It replays a run through the
# lessons' own selection steps, imported from their modules, and books every needed
# passage that misses the packet under exactly one cause: the first step that removed
# it. No model judges anything; every loss has a reason you can check.
#
# This notebook audits the demo that ships with the lab (`modules/audit/demo`): a BEIR
# folder and a TREC run built from the help desk of lessons 01 and 04 and the capstone of
# lesson 11. Your own folder works the same way (last section).

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import charts, display
from labtools.render import block
from modules.audit import mechanism as audit
from modules.audit.trace import trace, view

record = trace()            # no path: the demo, as of 2026-07-01
blocks = view(record)
display.show([block(blocks, "data"), block(blocks, "settings"), block(blocks, "pipeline")])

# %% [markdown]
# ## Recall against coverage
#
# Recall@10 is what an IR tool would report: the share of each query's needed passages
# (qrels score 1 or more) found among its top 10. Coverage is the share that reached
# the packet. Recall does not depend on the budget; coverage does, and it stays below
# recall at every budget here, even at 1,000 characters where the budget costs nothing
# on these queries.

# %%
display.show(block(blocks, "summary"))
charts.show(charts.recall_coverage(record),
            "Recall (blue) is the same at every budget; coverage (orange) grows with the budget "
            "but stays far below recall even at 1,000 characters: the gap is evidence the "
            "packet lost after retrieval found it.")

# %% [markdown]
# ## The loss ledger
#
# Each needed passage that misses the packet is counted once, under the step that
# removed it. The rows add up: total lost plus in the packet equals needed, at every
# budget. Only the budget-skip row changes with the budget; the other losses are
# decisions the selection rules make whatever the room.

# %%
display.show([block(blocks, "ledger"), block(blocks, "copies")])

# %% [markdown]
# ## One query per cause
#
# The demo's seven judged queries each make a cause visible. They reuse the lessons'
# ids, and the lessons' decisions hold here too:
#
# * **q1** is lesson 01's question with lesson 01's ranking: coverage 0/2, 1/2, 2/2 at
#   80, 120 and 400 characters, exactly as in lesson 01. Only the budget loses evidence.
# * **q2** retrieves `hours-v2` together with `hours-v1`, the record lesson 04 found still
#   marked current. The source shows two version labels, so the whole source is blocked.
# * **q3** ranks the FAQ copy of the returns text above `returns-v1`: exact-text dedupe
#   keeps the first-ranked copy, and the judged id is gone.
# * **q4** shows two losses at once: `guide-w2` shares line 2 of the help-desk guide with
#   the higher-ranked `guide-w1` (the overlap rule of lesson 03), and `hours-v2` was
#   never retrieved for this query at all.
# * **q5** judges both late-fee records relevant, but on 2026-07-01 the 2025 fee has
#   expired (lesson 04's validity filter).
# * **q6** judges the export copy of the returns policy; canonical dedupe prefers the
#   primary copy, `returns-v1`.
# * **q7** is the capstone's question: the mirror `B1` and the expired `C1` are removed
#   without harm, but at 400 characters the exception `A2` does not fit after `A1`.

# %%
queries = {q["query"]: q for q in record["queries"]}
for qid in ("q1", "q7"):
    display.show([block(blocks, f"{part}-{qid}") for part in ("query", "lost", "why")])

# %% [markdown]
# ## Lost by id, delivered in content
#
# Two of the losses are not what they seem. In q3 and q6 the packet does carry the
# returns text, under another id (`returns-faq`, `returns-v1`): the qrels judged one copy
# and the selector kept another. The ledger says so ("kept ..., in the packet"), because
# the fix is different: not a pipeline change but judgements that know about copies, or
# a canonical id on every copy.

# %%
for qid in ("q3", "q6"):
    at_400 = next(step for step in queries[qid]["budgets"] if step["budget"] == 400)
    for loss in at_400["lost"]:
        print(f"{qid}: {loss['id']} lost to {loss['cause']}; kept {loss['kept']}, in the packet: "
              f"{loss['kept_in_packet']}")

# %% [markdown]
# ## The steps are the lessons' own
#
# `select_candidates` runs the budget-free steps over a query's top k and returns, for
# every removed id, its cause, an explanation and the passage that won it. Each step is a
# call into a lesson module (`versions.valid_on`, `versions.multi_version_sources`,
# `dedupe.dedupe_canonical`, `dedupe.dedupe_text`, `dedupe.select_non_overlapping`);
# the walk that follows is `budget.fill_budget`. Here is q2's top 10, decision by decision.

# %%
from modules.audit import readers as audit_io

passages = audit_io.read_corpus(audit.DEMO + "/corpus.jsonl", audit.UNITS["chars"])
corpus = audit.Corpus(passages, audit.DEMO_AS_OF)
ranking = ["hours-v2", "hours-v1", "hours-v3", "card-v1", "wifi-v1"]
selection = audit.select_candidates(ranking, corpus)
for pid in ranking:
    cause = selection.causes.get(pid)
    print(f"{pid:<9} {cause[0] + ': ' + cause[1] if cause else 'goes on to the budget walk'}")

# %% [markdown]
# `hours-v3` is in the run but not in the corpus: a stale index entry. It keeps its rank
# (it counts for recall@10, as trec_eval counts it) but can never enter a packet, and the
# input checks count it. The other reported problem is q8, a query in the run that nobody
# judged: it is counted and not audited, because recall of nothing is undefined.

# %%
display.show([block(blocks, "checks"), block(blocks, "handling")])

# %% [markdown]
# ## Audit your own run
#
# Point the command at a BEIR folder: `corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`
# (or the only `.tsv` in `qrels/`) and a run, `run.trec` (`qid Q0 docid rank score tag`)
# or `run.jsonl`. Metadata the steps use sits under `"metadata"` in each passage: `source`,
# `version`, `canonical_id` with `copy`, `valid_from`/`valid_until`, `start_line`/`end_line`.
# A step whose metadata a corpus lacks simply removes nothing.
#
# ```sh
# python3 -B methods.py audit path/to/folder --budget 2000 --budget 4000 --k 20 --as-of 2026-07-01
# python3 -B methods.py audit path/to/folder --unit lab-tokens --json > audit.json
# ```
#
# A malformed line stops the audit with the file, line and field at fault; everything
# else that looks wrong is counted and shown, and nothing is written anywhere. The
# recall@k it reports agrees exactly with ir-measures' `R@k` on the same run and qrels
# (the test suite checks it): the ranking follows the scores, equal scores in trec_eval's
# order, whatever the rank column says.
