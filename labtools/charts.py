"""Charts for the notebooks and the README, drawn with matplotlib as SVG that has the
same bytes on every build.

matplotlib is a notebook dependency only (the `notebooks` group); no lesson command
imports this module. Three things would make an SVG differ between builds, and each is
pinned here: the random ids matplotlib gives clip paths and glyphs (`svg.hashsalt`),
the date and the creator line with matplotlib's version (metadata), and text drawn as
font outlines (kept as text instead, which is also smaller and searchable).

    fig, ax = charts.figure()
    ax.plot(...)
    charts.show(fig, "what to see in this chart")

Below the helpers, one function per lesson chart. Each takes the lesson's own trace
record (`modules.NAME.trace()`) and draws from it alone, so a chart can never disagree
with the table beside it; the tests compare the plotted values with the record.
`write_readme_charts()` writes the README's chart, `docs/k_sweep.svg`, from lesson 05's
record; `methods.py dev notebooks` calls it, and a test fails when the committed file
is stale.
"""

from __future__ import annotations

import io

WIDTH_INCHES, HEIGHT_INCHES = 7.0, 3.4
COLOURS = ("#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6c4f77")


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")  # no display, no GUI toolkit: the same everywhere
    import matplotlib.pyplot as plt
    matplotlib.rcParams.update({
        "svg.hashsalt": "context-lab",
        "svg.fonttype": "none",
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": matplotlib.cycler(color=list(COLOURS)),
    })
    return plt


def figure(ncols: int = 1, width: float = WIDTH_INCHES, height: float = HEIGHT_INCHES):
    """A new figure with `ncols` axes side by side; returns (figure, axes or list of axes)."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), layout="constrained")
    return fig, axes


def svg(fig) -> str:
    """The figure as SVG text, with no date, no version and fixed ids; the figure is closed."""
    plt = _pyplot()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buffer.getvalue()


def show(fig, caption: str) -> None:
    """Display the figure in a notebook with its caption (what to see) under it. Outside
    IPython (a notebook source run as a script) only the caption is printed."""
    from labtools import display as text
    if not text._in_ipython():
        _pyplot().close(fig)
        text.say(f"[chart] {caption}")
        return
    from IPython.display import SVG, Markdown, display
    display(SVG(svg(fig)))
    display(Markdown(f"*{caption}*"))


def _percent_axis(ax, label: str, top: float = 1.05) -> None:
    ax.set_ylim(-0.02, top)
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel(label)
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)


# ------------------------------------------------------------------ lesson 05: order

K_SWEEP_SERIES = (("recall", "recall@k: a relevant chunk among the k"),
                  ("generation", "generation: the picked chunk is relevant"),
                  ("cite_concept", "cited concept: the pick holds the topic"),
                  ("cite_record", "cited record: the pick holds the record word"))


def k_sweep(record: dict):
    """Lesson 05's k sweep: recall, generation and the two citation checks by k, with the
    ks where some prompts overflow the window shaded."""
    rows = record["k_sweep"]
    ks = [row["k"] for row in rows]
    questions = record["fixture"]["queries"]
    fig, ax = figure()
    overflowing = [row["k"] for row in rows if row["overflow"]]
    if overflowing:
        ax.axvspan(overflowing[0] - 0.5, ks[-1] + 0.5, color="#f1e4e4", linewidth=0)
        ax.text((overflowing[0] + ks[-1]) / 2, 0.25, f"some prompts\nover the\n{record['simulator']['window_lab_tokens']}"
                "-token\nwindow", fontsize=8, color="#8a3b3b", ha="center", va="center")
    # generation and cited record coincide (that is the lesson): generation is drawn wide and
    # pale underneath, so the cited record stays visible on top of it
    styles = {"recall": dict(marker="o"), "generation": dict(marker="s", linewidth=5, alpha=0.35),
              "cite_concept": dict(marker="^"), "cite_record": dict(marker="v", linestyle="--")}
    for field, label in K_SWEEP_SERIES:
        style = dict(dict(markersize=4, linewidth=1.6), **styles[field])
        ax.plot(ks, [row[field] for row in rows], label=label, **style)
    ax.set_xticks(ks)
    ax.set_xlim(ks[0] - 0.5, ks[-1] + 0.5)
    ax.set_xlabel("k: chunks handed to the reader, in rank order")
    _percent_axis(ax, f"share of the {questions} questions")
    ax.set_title("Lesson 05, fictional reader simulator: more context, more recall, fewer right picks",
                 fontsize=10, loc="left")
    ax.legend(loc="lower left", fontsize=8, frameon=False)
    return fig


LAYOUT_STYLES = (("head", COLOURS[0]), ("middle", COLOURS[1]), ("tail", COLOURS[2]))


def layouts(record: dict):
    """Lesson 05's layout experiment: generation by j irrelevant chunks for head, middle and
    tail with the reader seed, and the second run's three values at its j as open markers."""
    rows, second = record["layouts"], record["second_run"]
    js = [row["j"] for row in rows]
    fig, ax = figure()
    for layout, colour in LAYOUT_STYLES:
        ax.plot(js, [row[layout] for row in rows], marker="o", markersize=4, color=colour,
                label=f"{layout} (seed {rows[0]['seed']})")
        ax.plot([second["j"]], [second[layout]], marker="o", markersize=7, color=colour, linestyle="none",
                markerfacecolor="none", label=f"{layout} (seed {second['seed']})")
    ax.set_xticks(js)
    ax.set_xlabel("j: irrelevant chunks beside the one relevant chunk")
    _percent_axis(ax, "generation: share picked relevant")
    ax.set_title("Lesson 05, fictional reader simulator: where the relevant chunk sits", fontsize=10, loc="left")
    ax.legend(loc="upper right", fontsize=8, frameon=False, ncol=2)
    return fig


CHANGE_SERIES = (("run_to_run", "run to run: head, next seed (baseline)", "#9a9a9a"),
                 ("change_middle", "order: head to middle, same seed", COLOURS[1]),
                 ("change_tail", "order: head to tail, same seed", COLOURS[2]))


def share_of_change(record: dict):
    """Lesson 05's order effect: the share of picks that change when only the order changes,
    beside the share that changes when only the seed does, by j."""
    rows = record["layouts"]
    fig, ax = figure()
    width = 0.26
    for offset, (field, label, colour) in zip((-width, 0, width), CHANGE_SERIES):
        ax.bar([i + offset for i in range(len(rows))], [row[field] for row in rows], width, color=colour,
               label=label)
    ax.set_xticks(range(len(rows)), [f"j = {row['j']}" for row in rows])
    _percent_axis(ax, "share of picked chunks that change")
    ax.set_title("Lesson 05, fictional reader simulator: order against the run-to-run baseline", fontsize=10,
                 loc="left")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    return fig


# ------------------------------------------------------------------ lesson 02: budget

def prompt_vs_window(record: dict):
    """Lesson 02's top-k sweep: the average and the largest prompt by k against the window,
    with the requests over the window counted at each k."""
    sweep = record["sweep"]
    rows, window = sweep["rows"], sweep["window"]
    ks = [row["k"] for row in rows]
    fig, ax = figure()
    top = max(row["largest"] for row in rows)
    ax.axhspan(window, top * 1.12, color="#f1e4e4", linewidth=0)
    ax.axhline(window, color="#8a3b3b", linewidth=1.2, linestyle="--")
    ax.text(ks[0] - 0.3, top * 1.08, f"over the window ({window} {sweep['unit'].replace('_', ' ')}): "
            "no answer", fontsize=8, color="#8a3b3b", va="top")
    ax.plot(ks, [row["largest"] for row in rows], marker="o", markersize=4, color=COLOURS[1],
            label="largest prompt of the requests")
    ax.plot(ks, [row["average"] for row in rows], marker="s", markersize=4, color=COLOURS[0],
            label="average prompt")
    for row in rows:
        if row["overflows"]:
            ax.annotate(f"{row['overflows']}/{row['requests']} over", (row["k"], row["largest"]),
                        textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7, color="#8a3b3b")
    ax.set_xticks(ks)
    ax.set_xlim(ks[0] - 0.5, ks[-1] + 0.5)
    ax.set_ylim(0, top * 1.12)
    ax.set_xlabel("k: chunks in every request")
    ax.set_ylabel(f"prompt ({sweep['unit'].replace('_', ' ')})")
    ax.grid(axis="y", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.set_title(f"Lesson 02: {len(sweep['requests'])} requests, a fixed top-k: the average fits while "
                 "the largest overflows", fontsize=10, loc="left")
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    return fig


# ------------------------------------------------------------------ lesson 03: dedupe

def crowding(record: dict):
    """Lesson 03's crowding: each packet as a strip of its chunks, as wide as their characters
    and coloured by the answer part the evaluation labels give them, with the packet's mean
    score, distinct texts and answer parts beside it."""
    crowd = record["crowding"]
    chars = {c["id"]: c["chars"] for c in crowd["candidates"]}
    parts = crowd["labels"]["answer_parts"]
    colour_of = {part: colour for part, colour in zip(parts, COLOURS[:1] + COLOURS[3:])}
    part_of = {cid: part for part, ids in parts.items() for cid in ids}
    rows = crowd["rows"]
    fig, ax = figure(height=2.2 + 0.35 * len(rows))
    for y, row in enumerate(rows):
        left = 0
        for cid in row["ids"]:
            ax.barh(y, chars[cid], left=left, height=0.6, color=colour_of[part_of[cid]], edgecolor="white",
                    linewidth=1.5)
            ax.text(left + chars[cid] / 2, y, cid, ha="center", va="center", fontsize=7, color="white")
            left += chars[cid]
        texts = "text" if row["distinct_texts"] == 1 else "texts"
        ax.text(left + 8, y, f"mean score {row['mean_score']:.3f}, {row['distinct_texts']} distinct {texts},\n"
                f"answer parts {row['answer_parts']}", va="center", fontsize=8)
    ax.set_yticks(range(len(rows)), [row["label"] for row in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, max(sum(chars[cid] for cid in row["ids"]) for row in rows) * 1.75)
    ax.set_xlabel("characters in the packet")
    ax.spines["left"].set_visible(False)
    ax.tick_params(axis="y", length=0)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=colour_of[part], label=f"answers: {part}") for part in parts],
              loc="lower right", fontsize=8, frameon=False)
    ax.set_title("Lesson 03: one sentence three times crowds the hours out of a top 2", fontsize=10,
                 loc="left")
    return fig


# ------------------------------------------------------------------ lesson 07: hybrid

def rank_changes(record: dict):
    """Lesson 07's raw scores against rank: each cluster's place before and after one channel
    (the vector cosine) changes scale, when the channels' raw scores are added (left) and
    under reciprocal rank fusion (right). A moved cluster is drawn in colour."""
    study = record["raw_versus_rank"]
    if study["rrf_changed_by_rescaling"]:
        raise ValueError("the record says rescaling changed the RRF order; this chart draws RRF as unchanged")
    rows, scale = study["rows"], study["scale"]
    fig, (summed, fused) = figure(ncols=2, height=HEIGHT_INCHES + 0.4)
    panels = ((summed, "position_plain", "position_scaled",
               f"Raw scores added: {study['moved_by_rescaling']} of {len(rows)} clusters move"),
              (fused, "position_rrf", "position_rrf",
               f"Reciprocal rank fusion (k = {record['declared']['rrf_k']}): none move"))
    for ax, before, after, title in panels:
        for row in rows:
            moved = row[before] != row[after]
            ax.plot([0, 1], [row[before], row[after]], marker="o", markersize=4,
                    color=COLOURS[1] if moved else "#9a9a9a", linewidth=2 if moved else 1, zorder=3 if moved else 2)
            ax.text(-0.06, row[before], row["cluster_id"], ha="right", va="center", fontsize=8)
            ax.text(1.06, row[after], row["cluster_id"], ha="left", va="center", fontsize=8)
        ax.set_xlim(-0.35, 1.35)
        ax.set_ylim(len(rows) + 0.6, 0.4)
        ax.set_xticks([0, 1], ["cosine as it is", f"cosine x {scale}"])
        ax.set_yticks(range(1, len(rows) + 1))
        ax.set_ylabel("place in the fused list (1 = first)")
        ax.set_title(title, fontsize=9, loc="left")
    fused.set_ylabel("")
    return fig


# ------------------------------------------------------------------ 14: audit

def recall_coverage(record: dict):
    """The audit's recall@k against coverage by budget: recall does not move, coverage does,
    and the gap between them is what the packet lost after retrieval."""
    rows, k, unit = record["budgets"], record["settings"]["k"], record["settings"]["unit"]
    fig, ax = figure()
    width = 0.36
    xs = range(len(rows))
    ax.bar([x - width / 2 for x in xs], [row["recall_at_k"] for row in rows], width, color=COLOURS[0],
           label=f"recall@{k}: found in the top {k}")
    ax.bar([x + width / 2 for x in xs], [row["coverage"] for row in rows], width, color=COLOURS[3],
           label="coverage: reached the packet")
    for x, row in zip(xs, rows):
        ax.annotate(f"gap {row['gap']:.3f}", (x, row["recall_at_k"]), textcoords="offset points",
                    xytext=(0, 3), ha="center", fontsize=8)
    ax.set_xticks(list(xs), [f"{row['budget']:,} {unit}" for row in rows])
    ax.set_xlabel("quote budget")
    _percent_axis(ax, f"mean share of needed passages\n({record['counts']['audited_queries']} queries)",
                  top=1.3)
    ax.set_title("Audit demo: retrieval finds the passages; the packet loses them", fontsize=10, loc="left")
    ax.legend(loc="upper center", fontsize=8, frameon=False, ncol=2)
    return fig


# ------------------------------------------------------------------ the README's chart

# path: (lesson, the trace's arguments, the chart); lesson 05's k sweep is in its --all trace only
README_CHARTS = {"docs/k_sweep.svg": ("order", {"full": True}, k_sweep)}


def readme_charts() -> dict:
    """{path relative to the project root: SVG text} for every chart the README shows."""
    out = {}
    for path, (lesson, arguments, draw) in README_CHARTS.items():
        from labtools.registry import lesson_module
        module = lesson_module(lesson)
        out[path] = svg(draw(module.trace(**arguments)))
    return out


def write_readme_charts(root) -> list:
    """Write the README's charts under `root`; returns the paths whose bytes changed."""
    from pathlib import Path
    written = []
    for relative, text in readme_charts().items():
        path = Path(root) / relative
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written
