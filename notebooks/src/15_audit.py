# %% [markdown]
# # 15 · audit: where does your own run lose evidence?
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
# lesson 11, and then the packets a system actually sent for the same run. Your own
# folder works the same way (last section).

# %%
import pathlib
import sys
import textwrap

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import charts, display
from labtools.render import block
from modules.audit import mechanism as audit
from modules.audit.trace import trace, view
from modules.audit.view import share

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
#
# Each cause has a kind, because the fixes differ. *retrieval* is a retrieval defect;
# *input* means the ids do not meet; *judgement* means the qrels call relevant a passage
# that a stated rule excludes (here the expired 2025 fee): check the judgement before
# blaming the pipeline; *policy* is a choice the lessons' rules made on purpose. The notes
# under the ledger say what to do next for each cause booked.

# %%
display.show([block(blocks, "ledger"), block(blocks, "notes"), block(blocks, "copies")])

# %% [markdown]
# ## One query per cause
#
# The demo's seven judged queries each make a cause visible. They reuse the lessons'
# ids, and the lessons' decisions hold here too:
#
# * **q1** is lesson 01's question with lesson 01's ranking: coverage 0/2, 1/2, 2/2 at
#   80, 120 and 400 characters, exactly as in lesson 01. Only the budget loses evidence.
# * **q2** retrieves `hours-v2` together with `hours-v1`, the record lesson 04 found still
#   marked current. The source shows two version labels and neither declares that it
#   supersedes the other (`metadata.supersedes`, lesson 04's remedy), so the whole source
#   is held back: a policy choice, booked as one.
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
#   without harm. `A1` and its exception `A2` declare one unit, `travel-policy#3-4`
#   (`metadata.unit`), so they travel together, 489 characters, as lesson 11
#   requires: at 400 characters neither goes (never the conclusion without its
#   exception), and at 1,000 both go.

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
# every removed id, its cause, an explanation and the passage that won it, and the units
# left for the walk. Each step is a call into a lesson module (`versions.valid_on`,
# `versions.multi_version_sources`, `versions.resolve_or_abstain`,
# `dedupe.dedupe_canonical`, `dedupe.dedupe_text`, `dedupe.select_non_overlapping`,
# lesson 11's units); the walk that follows is `budget.fill_budget`. Here is q2's top 10,
# decision by decision.

# %%
from modules.audit import readers as audit_io

ranking = ["hours-v2", "hours-v1", "hours-v3", "card-v1", "wifi-v1"]
passages = audit_io.read_corpus(audit.DEMO + "/corpus.jsonl", audit.UNITS["chars"], "corpus.jsonl", set(ranking))
corpus = audit.Corpus(passages, audit.DEMO_AS_OF)
selection = audit.select_candidates(ranking, corpus)
for pid in ranking:
    cause = selection.causes.get(pid)
    said = cause[0] + ": " + cause[1] if cause else "goes on to the budget walk"
    print(textwrap.fill(f"{pid:<9} {said}", 80, subsequent_indent=" " * 10))

# %% [markdown]
# `hours-v3` is in the run but not in the corpus: a stale index entry. It keeps its rank
# (it counts for recall@10, as trec_eval counts it) but can never enter a packet, and the
# input checks count it. The other reported problem is q8, a query in the run that nobody
# judged: it is counted and not audited, because recall of nothing is undefined.

# %%
display.show([block(blocks, "checks"), block(blocks, "handling")])

# %% [markdown]
# ## The packets a system actually sent
#
# Everything above audits the packet the lessons would build. Your system built its own.
# `--packets FILE` reads what it sent, one JSON line per query: the passage ids in the
# order sent and, optionally, the exact text of each. The demo's `packets.jsonl` comes
# from a system with the usual habits: it fills q1's packet with long off-topic
# passages, sends the text of `hours-v1` under the id `hours-v2` (q2), cuts the returns
# passage to fit (q3), sends the expired fee (q5) and sends `A1` without `A2` (q7).
#
# Each needed passage is booked where it ended: sent whole, truncated, a piece from
# inside it, split across calls, another version, a split unit, a cut "not", otherwise
# altered, not sent (with the lab's diagnosis of
# why its rules would drop it, marked as a diagnosis), or never retrieved. Beside it
# runs the counterfactual: the lessons' walk on the same run and the same budget (each
# packet's own size).

# %%
sent = trace(packets=audit.DEMO + "/packets.jsonl")
sent_blocks = view(sent)
display.show([block(sent_blocks, key) for key in ("sent-summary", "sent-ledger", "sent-queries", "sent-why")])

# %% [markdown]
# Three habits, three causes: q3's truncation, q2's stale version and q7's split unit
# are each booked under their own name, and none of them is a retrieval defect: the run
# had found every one of those passages. q1 shows the counterfactual at work: on the
# 221 characters the system spent on parking and library cards, the lessons' walk
# would have sent both needed passages.

# %%
for q in sent["sent"]["per_query"]:
    print(f"{q['query']}: sent {q['sent']} ({share(q['coverage'])});")
    print(f"    the lessons' walk: {q['lab_packet']} ({share(q['lab_coverage'])})")

# %% [markdown]
# ## Audit your own run
#
# Point the command at a BEIR folder: `corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`
# (or the only `.tsv` in `qrels/`; BEIR or TREC qrels) and a run: TREC, JSON lines, or
# the `{qid: {docid: score}}` JSON of pytrec_eval and ranx, in any line order; any file
# may be gzipped. Metadata the steps use sits under `"metadata"` in each passage: `source`,
# `version` and `supersedes`, `position` (it orders), `unit` (its members travel
# together), `canonical_id` with `copy`,
# `valid_from`/`valid_until`, `start_line`/`end_line`. A step whose metadata a corpus
# lacks simply removes nothing. `--tokenizer MODULE:FUNCTION` counts budgets with your own
# tokenizer, `--policy` compares the lessons' walks and, for a query whose `"metadata"`
# declares `sub_questions` (q1 and q7 here), lesson 02's coverage-aware choice, and
# `docs/audit_packets.md` shows how to record the prompts each LLM call received in
# LangChain, LlamaIndex or Haystack (`--prompts`), so the audit reads what reached the model.
#
# ```sh
# python3 -B methods.py audit path/to/folder --budget 2000 --budget 4000 --k 20 --as-of 2026-07-01
# python3 -B methods.py audit path/to/folder --packets sent.jsonl --tokenizer mytok:count
# python3 -B methods.py audit path/to/folder --unit lab-tokens --json > audit.json
# ```
#
# A malformed line stops the audit with one line naming the file, line and field at
# fault (exit 2); so do ids that do not meet (most run entries unknown to the corpus, or
# no judged query in the run), where an all-clear would be about nothing. Everything
# else that looks wrong is counted and shown, and nothing is written anywhere. The
# recall@k it reports agrees exactly with ir-measures' `R@k` on the same run and qrels
# (the test suite checks it): the ranking follows the scores, equal scores in trec_eval's
# order, whatever the rank column says.
