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
    """Display the figure in a notebook with its caption (what to see) under it."""
    from IPython.display import SVG, Markdown, display
    display(SVG(svg(fig)))
    display(Markdown(f"*{caption}*"))


def save(fig, path) -> None:
    """Write the figure as an SVG file (the README's chart), only if its bytes changed."""
    from pathlib import Path
    text = svg(fig)
    path = Path(path)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
