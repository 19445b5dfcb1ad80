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
import re

from labtools.render import cell, numeric, render_plain, wrap

TEXT_WIDTH = 80  # the course's terminal width (labtools/render.py WRAP)
_RIGHT = ' style="text-align:right"'
# A number a lesson formats itself ("114.7", "1,024", "3/10"): aligned like a number.
_NUMBER_TEXT = re.compile(r"[-+]?\d[\d,]*(\.\d+)?(/\d+)?")
# The glyphs of render.bar and of lesson 02's window bar: a text bar needs a fixed-width
# font, or its cells stop lining up.
_BAR_GLYPHS = frozenset("#.|!")


def _number_like(value) -> bool:
    return value is None or numeric(value) or (isinstance(value, str) and bool(_NUMBER_TEXT.fullmatch(value)))


def _bar_like(value) -> bool:
    return isinstance(value, str) and len(value) >= 5 and set(value) <= _BAR_GLYPHS


def _as_blocks(blocks) -> list[dict]:
    if isinstance(blocks, dict):
        return [blocks]
    if isinstance(blocks, (list, tuple)) and all(isinstance(b, dict) for b in blocks):
        return list(blocks)
    raise TypeError(f"show() takes a view block or a list of them, got {type(blocks).__name__}")


def table_html(spec: dict) -> str:
    """One table block as an HTML table: title as caption, legend under it, numbers (and
    numbers the lesson formatted as text) right-aligned, text bars in a fixed-width font."""
    columns = [str(c) for c in spec["columns"]]
    rows = spec["rows"]
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"table {spec.get('title')!r}: a row has {len(row)} cells for {len(columns)} columns")
    right_aligned = [bool(rows) and all(_number_like(r[i]) for r in rows) for i in range(len(columns))]
    bars = [bool(rows) and all(_bar_like(r[i]) for r in rows) for i in range(len(columns))]
    out = ["<table>"]
    if spec.get("title"):
        out.append(f"<caption style=\"text-align:left\"><b>{html.escape(spec['title'])}</b></caption>")
    out.append("<thead><tr>")
    out += [f"<th{_RIGHT if n else ''}>{html.escape(c)}</th>"
            for c, n in zip(columns, right_aligned)]
    out.append("</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        out.append("<tr>")
        for value, number, bar in zip(row, right_aligned, bars):
            text = html.escape(cell(value))
            out.append(f"<td{_RIGHT if number else ''}>{f'<code>{text}</code>' if bar else text}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    if spec.get("legend"):
        out.append(f"<p><i>{html.escape(spec['legend'])}</i></p>")
    return "\n".join(out)


_NUMBERED = re.compile(r"(\d+)\. ")


def text_html(text: str) -> str:
    """A text block as HTML: a line is a paragraph, "- " lines a list, "1. " lines a numbered
    list, and an indented line (a quotation under its label) a block quote."""
    out, open_list = [], None
    for line in text.split("\n"):
        if not line.strip():
            continue
        numbered = _NUMBERED.match(line)
        kind = "ul" if line.startswith("- ") else "ol" if numbered else None
        if open_list and kind != open_list:
            out.append(f"</{open_list}>")
            open_list = None
        if kind and not open_list:
            out.append("<ul>" if kind == "ul" else f'<ol start="{int(numbered.group(1))}">')
            open_list = kind
        if kind == "ul":
            out.append(f"<li>{html.escape(line[2:])}</li>")
        elif kind == "ol":
            out.append(f"<li>{html.escape(line[numbered.end():])}</li>")
        elif line.startswith(" "):
            out.append(f"<blockquote>{html.escape(line.strip())}</blockquote>")
        else:
            out.append(f"<p>{html.escape(line)}</p>")
    if open_list:
        out.append(f"</{open_list}>")
    return "\n".join(out)


def blocks_html(blocks) -> str:
    parts = []
    for item in _as_blocks(blocks):
        if "heading" in item:
            parts.append(f"<h4>{html.escape(item['heading'])}</h4>")
        elif "text" in item:
            parts.append(text_html(item["text"]))
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
