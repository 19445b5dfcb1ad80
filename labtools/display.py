"""Show a lesson's view blocks in a notebook: tables as HTML, which GitHub renders, and
text as short lines.

The blocks are the same ones `methods.py NAME` prints (see labtools/render.py); a
notebook calls `show(view)` or `show(block(view, key))` instead of printing plain text.
Outside IPython (a plain `python` run of a notebook source) `show` prints the plain
rendering, so a notebook source still reads top to bottom as a script.

The HTML is made from the blocks alone, with every value escaped, one element a line
(no line of the saved notebook grows with the table), and no ids or timestamps, so a
rebuilt notebook has the same bytes.
"""

from __future__ import annotations

import html

from labtools.render import _cell, _numeric, render_plain, wrap

TEXT_WIDTH = 88
_RIGHT = ' style="text-align:right"'


def _as_blocks(blocks) -> list[dict]:
    if isinstance(blocks, dict):
        return [blocks]
    if isinstance(blocks, (list, tuple)) and all(isinstance(b, dict) for b in blocks):
        return list(blocks)
    raise TypeError(f"show() takes a view block or a list of them, got {type(blocks).__name__}")


def table_html(spec: dict) -> str:
    """One table block as an HTML table: title as caption, legend under it, numbers right."""
    columns = [str(c) for c in spec["columns"]]
    rows = spec["rows"]
    numeric = [bool(rows) and all(_numeric(r[i]) or r[i] is None for r in rows) for i in range(len(columns))]
    out = ["<table>"]
    if spec.get("title"):
        out.append(f"<caption style=\"text-align:left\"><b>{html.escape(spec['title'])}</b></caption>")
    out.append("<thead><tr>")
    out += [f"<th{_RIGHT if n else ''}>{html.escape(c)}</th>"
            for c, n in zip(columns, numeric)]
    out.append("</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        out.append("<tr>")
        out += [f"<td{_RIGHT if n else ''}>{html.escape(_cell(v))}</td>"
                for v, n in zip(row, numeric)]
        out.append("</tr>")
    out.append("</tbody></table>")
    if spec.get("legend"):
        out.append(f"<p><i>{html.escape(spec['legend'])}</i></p>")
    return "\n".join(out)


def blocks_html(blocks) -> str:
    parts = []
    for item in _as_blocks(blocks):
        if "heading" in item:
            parts.append(f"<h4>{html.escape(item['heading'])}</h4>")
        elif "text" in item:
            parts += [f"<p>{html.escape(p)}</p>" for p in item["text"].split("\n") if p.strip()]
        elif "table" in item:
            parts.append(table_html(item["table"]))
        elif "chart" in item:
            parts.append(f"<pre>{html.escape(render_plain([item]).rstrip())}</pre>")
        else:
            raise ValueError(f"unknown block kind: {sorted(item)}")
    return "\n".join(parts)


def _in_ipython() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    return get_ipython() is not None


def show(blocks) -> None:
    """Display view blocks: HTML in a notebook, plain text elsewhere."""
    if _in_ipython():
        from IPython.display import HTML, display
        display(HTML(blocks_html(blocks)))
    else:
        print(render_plain(_as_blocks(blocks)), end="")


def say(text: str) -> None:
    """Print a sentence or two wrapped to the lesson width (a notebook's own remarks)."""
    print("\n".join(wrap(p, TEXT_WIDTH) for p in text.split("\n")))
