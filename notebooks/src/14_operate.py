# %% [markdown]
# # Lesson 14 · operate: signals, the layered evaluation and the context contract review
#
# Lessons 07 to 13 built one pipeline for the fictional parts catalogue and then made it
# fail, one stage at a time. This lesson adds no stage. It reads the pipeline the way an
# operator has to: from signals per stage, from an evaluation in layers, from checks on
# what an explanation says about the packet, and from a review whose every answer points
# at a stage, a lesson and a test.
#
# Everything runs over the **frozen cases** the course already has: the nine catalogue
# queries, lesson 09's query that matches nothing, and lesson 13's four memory sessions.
# The notebook calls `modules/operate/`, the code behind `python3 -B methods.py operate`.

# %%
import pathlib
import sys

HERE = pathlib.Path.cwd()
ROOT = next(p for p in [HERE, *HERE.parents] if (p / "methods.py").exists())
sys.path.insert(0, str(ROOT))

from labtools import charts, display
from labtools.render import block
from modules.operate import faithfulness as fa
from modules.operate import mechanism as operate
from modules.operate import trace as operate_trace

record = operate_trace.trace()   # every section, as `methods.py operate` prints
view = operate_trace.view(record)


def show(*keys):
    """Show the blocks of the lesson's view with these keys."""
    display.show([block(view, key) for key in keys])


show("cases")

# %% [markdown]
# ## Signals, never per user
#
# A signal is a count over the frozen cases, labelled by a safe reason code, a channel, a
# state or a version. The aggregator refuses a label that names a restricted listing in
# any spelling, lower-cased or with a look-alike hyphen included: a dashboard is
# user-facing output too. Each signal also says who owns it, what to do first when it
# moves, how long it is kept, who may see it, and what it cannot tell you.

# %%
show("signals", "signals-owners", "signals-actions")

# %% [markdown]
# The exclusions are easier to read as bars than as a list: most of them are evidence
# checks (a size or a family that does not match), and the permission codes are the
# ones the next section watches.

# %%
counts = next(s for s in record["signals"] if s["name"] == "exclusions")["counts"]
fig, ax = charts.figure()
labels = [label for label, _n in counts]
ax.barh(range(len(counts)), [n for _label, n in counts], color=["#b04a4a" if label.startswith("PERMISSION")
                                                               else "#4a78b0" for label in labels])
ax.set_yticks(range(len(counts)))
ax.set_yticklabels(labels, fontsize=8)
ax.invert_yaxis()
ax.set_xlabel("exclusions over the ten frozen catalogue cases (one per candidate, per code)")
ax.grid(axis="x", color="#dddddd", linewidth=0.6)
ax.set_axisbelow(True)
ax.set_title("Lesson 14: exclusions by safe reason code", fontsize=10, loc="left")
charts.show(fig, "Red: permission codes; blue: the gate's other codes and the evidence checks. No bar names a "
                 "listing: a count by code is all a dashboard needs to see a layer move.")

# %% [markdown]
# ## Two rebuilds, one symptom, two layers
#
# Lesson 09 rebuilt the index from a feed export without the permission column; lesson 12
# rebuilt the image index with other parameters. Both show falling counts afterwards. For
# lesson 09's rebuild the symptom is the curriculum's: the assisted results of the
# explicit-unit segment fall from 55 to 25, while the answered count holds at 4. The
# signals alone say where it came from: parser and channel counts stable, permission
# exclusions tripled, the policy unchanged, the index version changed. In lesson 09's
# layers that is the **source** layer (index construction lost the permission fields), and
# fail-closed did its job. The image rebuild moved only the image channel's candidates,
# with the same vectors and the same permission metadata: the **retrieval** layer (the
# approximate index). Its one permission exclusion fewer is one restricted candidate no
# longer proposed, not a permission change. Neither is the ranker, which orders what
# reaches it.

# %%
show("anomaly-rebuild", "anomaly-rebuild-layer", "anomaly-image", "anomaly-image-layer")

# %%
before, after = record["anomalies"]["rebuild"]["permission"]
rows = {r[1]: (r[2], r[3]) for r in record["anomalies"]["image"]["rows"] if r[0] == "candidates"}
fig, (left, right) = charts.figure(ncols=2)
left.bar(["before", "after"], [before, after], color=["#4a78b0", "#b04a4a"])
left.set_title("Lesson 09's rebuild: permission exclusions", fontsize=9, loc="left")
left.set_ylabel("exclusions over the nine queries")
channels = list(rows)
right.bar([i - 0.2 for i in range(len(channels))], [rows[c][0] for c in channels], 0.4, label="before")
right.bar([i + 0.2 for i in range(len(channels))], [rows[c][1] for c in channels], 0.4, label="after")
right.set_xticks(range(len(channels)))
right.set_xticklabels(channels, fontsize=8)
right.set_title("Lesson 12's rebuild: candidates by channel", fontsize=9, loc="left")
right.legend(fontsize=8, frameon=False)
for ax in (left, right):
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
charts.show(fig, f"Left: {before} -> {after} with the policy unchanged, so the index lost metadata. Right: only "
                 "the image channel moved, with the same vectors, so the approximate index lost neighbours.")

# %% [markdown]
# ## The layered evaluation report
#
# Four sections, and no single number among them: a figure that averaged retrieval,
# ranking, context and behaviour together could stay flat while one layer broke (the
# rebuild keeps 4 of 9 queries answered) and could not say which layer moved when it did.
# The ranking section reads lesson 12's relevance labels; the behaviour section reruns
# every case with generation removed.

# %%
show("evaluation-retrieval", "evaluation-ranking", "evaluation-context", "evaluation-behaviour",
     "evaluation-limits")

# %% [markdown]
# ## Faithful downstream use
#
# A citation shows where a value came from, not that the sentence around it is true. The
# seven checks read an explanation against the packet and the state. The template passes
# all seven; each plausible unfaithful explanation, one edit of the template, fails
# exactly the check it should; a reworded faithful variant passes.

# %%
show("faithfulness-PW-Q002", "faithfulness-PW-Q004", "faithfulness-mistakes")

# %%
runs = operate.frozen_runs(cases=tuple(q for q in operate.CASES if q.id == "PW-Q002"))
brief = fa.brief_of(runs["PW-Q002"])
for name, held, why in fa.run_checks(brief, fa.reworded(brief)):
    print(f"{name:22} {'held' if held else 'FAILED'}: {why}")

# %% [markdown]
# ## The context contract review and its artifacts
#
# Each question is answered by a pointer: the stage that enforces it, the lesson that
# teaches it and the test that shows it. A pointer to a stage the pipeline does not have,
# or to a test nobody wrote, is a gap; two questions are gaps on purpose, said plainly.
# The artifacts are generated from the pipeline object, so they change when a stage does.

# %%
show("review", "artifact-contract", "artifact-contract-fields", "artifact-decision", "artifact-schema",
     "artifact-states", "artifact-report")

# %% [markdown]
# ## Forced counterfactuals, ownership and the six failure patterns

# %%
show("counterfactual-vector", "counterfactual-vector-fallback", "counterfactual-generation",
     "counterfactual-withdraw", "ownership", "patterns", "closing")
