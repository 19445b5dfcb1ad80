"""Print a lesson's view: a list of blocks, each one of

    {"heading": str}
    {"text": str}
    {"table": {"title": str, "columns": [str, ...], "rows": [[cell, ...], ...],
               "legend": str (optional: what the columns mean, and their units)}}
    {"chart": {"title": str, "rows": [[label, value, maximum], ...], "width": int,
               "legend": str (optional)}}

Any block may also carry "key": a stable name that notebooks and tests use to pick the
block (`block(view, key)`), so reordering a view never puts the wrong table in a notebook.

Plain text is the default and what the golden tests compare: no colour, no
terminal width, the same bytes everywhere. `rich` is imported only by
`render_rich`, which methods.py calls only for a terminal that wants colour.
"""

from __future__ import annotations

WRAP = 80


def wrap(paragraph: str, width: int = WRAP) -> str:
    """Greedy word wrap on spaces; a word longer than the width keeps its own line, and
    ids such as `assist-policy/4` are never split at a hyphen. Leading spaces are kept.

    textwrap would do, but importing it costs about a millisecond on every lesson run.
    """
    indent = paragraph[:len(paragraph) - len(paragraph.lstrip(" "))]
    lines, line = [], indent
    for word in paragraph.split():
        if line.strip() and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line.strip() else line + word
    lines.append(line)
    return "\n".join(lines)


def columns(text: str) -> int:
    """The columns `text` takes on a terminal: two for a wide or full-width character (CJK),
    none for a combining mark or a zero-width one, one for the rest; len() for ASCII."""
    if text.isascii():
        return len(text)
    import unicodedata  # only for non-ASCII text: the lessons print ASCII, and start fast
    return sum(0 if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf")
               else 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in text)


def pad(text: str, width: int, align: str = "<") -> str:
    """`text` padded with spaces to `width` display columns (str.ljust counts code points, so
    "Zoë 学生" would come out two columns too wide)."""
    gap = " " * max(0, width - columns(text))
    return text + gap if align == "<" else gap + text


COMMAND = "python3 -B methods.py "  # registry.RUN and a space: where a command to copy starts


def _break_points(text: str) -> list[int]:
    """Positions of the spaces a line may break at: not inside a `quoted command`, nor inside
    an unquoted one (from `python3 -B methods.py` to two spaces, a semicolon or the line's
    end), so a command a learner copies never spans two lines."""
    inside, command, found = False, False, []
    for position, char in enumerate(text):
        if char == "`":
            inside = not inside
            command = False
        elif not inside and not command and text.startswith(COMMAND, position):
            command = True
        elif command and (text.startswith("  ", position) or char == ";"):
            command = False
        if char == " " and not inside and not command:
            found.append(position)
    return found


def _split(text: str, width: int) -> tuple[str, str]:
    """(the longest head of `text` that fits `width` and ends at a break point, the rest);
    a text with no break point that fits keeps its first word whole."""
    points = [p for p in _break_points(text) if p > len(text) - len(text.lstrip(" "))]
    fitting = [p for p in points if (p if text.isascii() else columns(text[:p])) <= width]
    cut = fitting[-1] if fitting else (points[0] if points else len(text))
    return text[:cut].rstrip(), text[cut:].strip()


def fit(text: str, width: int = WRAP, hang: int | None = None) -> str:
    """Every line of `text` within `width` display columns (labtools.render.columns) where it
    can be. A longer line breaks at
    its last space that fits (what comes before is kept as written, columns included; a
    `quoted command` is never split); the rest goes on lines indented `hang` spaces (default:
    four past the line's own indent), so a wrapped message still reads as one item."""
    out = []
    for line in text.split("\n"):
        if columns(line) <= width:
            out.append(line)
            continue
        margin = " " * ((len(line) - len(line.lstrip(" ")) + 4) if hang is None else hang)
        head, rest = _split(line, width)
        out.append(head)
        while rest:
            if len(margin) + columns(rest) <= width:
                out.append(margin + rest)
                break
            head, rest = _split(margin + rest, width)
            out.append(head)
    return "\n".join(out)


def cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def bar(value: float, maximum: float, width: int = 30) -> str:
    """A text bar: '#' for the value, '.' for the rest of the scale."""
    if maximum <= 0:
        return "." * width
    filled = round(width * min(max(value, 0), maximum) / maximum)
    return "#" * filled + "." * (width - filled)


def block(blocks: list[dict], key: str) -> dict:
    """The one block of a view whose "key" is `key`."""
    found = [b for b in blocks if b.get("key") == key]
    if len(found) != 1:
        keys = [b["key"] for b in blocks if "key" in b]
        raise KeyError(f"{len(found)} blocks have key {key!r}; keys in this view: {keys}")
    return found[0]


def blocks_between(blocks: list[dict], first: str, last: str) -> list[dict]:
    """The blocks from the one keyed `first` to the one keyed `last`, both included."""
    start, end = blocks.index(block(blocks, first)), blocks.index(block(blocks, last))
    if end < start:
        raise KeyError(f"block {last!r} comes before {first!r}")
    return blocks[start:end + 1]


def _legend(spec: dict) -> list[str]:
    legend = spec.get("legend")
    return wrap(legend).split("\n") if legend else []


def plain_table(table: dict) -> str:
    """Columns two spaces apart; a column whose cells are all numbers (or None) is right-aligned."""
    columns = [str(c) for c in table["columns"]]
    rows = [[cell(v) for v in row] for row in table["rows"]]
    widths, right = [len(c) for c in columns], [bool(rows)] * len(columns)
    for values, row in zip(table["rows"], rows):
        if len(row) != len(columns):
            raise ValueError(f"table {table.get('title')!r}: a row has {len(row)} cells for {len(columns)} columns")
        for i, value in enumerate(values):
            widths[i] = max(widths[i], len(row[i]))
            right[i] = right[i] and (numeric(value) or value is None)
    out = ([table["title"]] if table.get("title") else []) + _legend(table)
    if sum(widths) + 2 * (len(widths) - 1) > WRAP:
        return "\n".join(out + _stacked(columns, rows))
    for cells in (columns, ["-" * w for w in widths], *rows):  # the rule line pads to itself
        out.append("  ".join(c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right)).rstrip())
    return "\n".join(out)


def _stacked(columns: list[str], rows: list[list[str]]) -> list[str]:
    """A table too wide for the terminal, one row at a time as `column: value` lines
    (long values wrapped under their column name), rows separated by a rule."""
    name_width = max(len(c) for c in columns)
    out = []
    for number, row in enumerate(rows, start=1):
        out.append(f"-- row {number} of {len(rows)} " + "-" * max(0, WRAP - 16 - len(str(number)) - len(str(len(rows)))))
        for column, value in zip(columns, row):
            lead = f"{column.rjust(name_width)}: "
            lines = wrap(value, WRAP - len(lead)).split("\n") if value else [""]
            out.append((lead + lines[0]).rstrip())
            out += [" " * len(lead) + line.strip() for line in lines[1:]]
    return out


def plain_chart(chart: dict) -> str:
    width = chart.get("width", 30)
    rows = chart["rows"]
    label_width = max(len(str(r[0])) for r in rows)
    out = ([chart["title"]] if chart.get("title") else []) + _legend(chart)
    for label, value, maximum in rows:
        out.append(f"{str(label).ljust(label_width)}  |{bar(value, maximum, width)}| {cell(value)}")
    return "\n".join(out)


def render_plain(blocks: list[dict]) -> str:
    parts = []
    for block in blocks:
        if "heading" in block:
            parts.append(f"{block['heading']}\n{'=' * len(block['heading'])}")
        elif "text" in block:
            parts.append("\n".join(wrap(p) for p in block["text"].split("\n")))
        elif "table" in block:
            parts.append(plain_table(block["table"]))
        elif "chart" in block:
            parts.append(plain_chart(block["chart"]))
        else:
            raise ValueError(f"unknown block kind: {sorted(block)}")
    return "\n\n".join(parts) + "\n"
