"""Colour output of a lesson view through `rich`, for a terminal that wants it.

methods.py (and the audit) import this only when
stdout is a terminal, colour is not switched off and rich is installed.

A table either fits the terminal's width or is stacked, one row at a time as
`column: value` lines (as the plain view stacks a table wider than 80 columns): rich
would otherwise shrink a table too wide for the terminal by cutting its columns, and
the one cut may be the column the lesson is about.
"""

from __future__ import annotations

from labtools.render import cell, numeric, plain_chart, wrap


def rich_table(spec: dict, compact: bool = False):
    """The rich Table for a table block (columns never cropped with an ellipsis); `compact`
    draws no box, which leaves more of the width to the columns."""
    from rich.table import Table
    from rich.text import Text  # cells as Text, so '[...]' in data is never read as markup

    frame = {"box": None, "pad_edge": False} if compact else {}
    table = Table(title=Text(spec.get("title") or ""), title_justify="left", **frame)
    for i, column in enumerate(spec["columns"]):
        is_number = bool(spec["rows"]) and all(numeric(r[i]) for r in spec["rows"])
        # Wrap, never crop with an ellipsis: reason codes such as permission_denied and
        # permission_unknown differ only at their end, and that difference is the lesson.
        # The column is at least as wide as its longest word (ids, codes, up to a
        # fingerprint's 44 of 64; a text bar whole), so a narrow terminal wraps between words, not inside one.
        words = [len(w) for r in spec["rows"] for w in cell(r[i]).split()] + [len(w) for w in str(column).split()]
        table.add_column(str(column), justify="right" if is_number else "left", overflow="fold",
                         min_width=min(max(words or [1]), 44))
    for row in spec["rows"]:
        table.add_row(*(Text(cell(v)) for v in row))
    return table


def needed_width(table) -> int:
    """The columns a table made by rich_table needs with every column at its minimum (its
    longest word): the cells, one space of padding each side, and the box's rules."""
    count = len(table.columns)
    cells = sum(column.min_width for column in table.columns)
    if table.box is None:
        return cells + 2 * count - (0 if table.pad_edge else 2)
    return cells + 2 * count + count + 1


def fits(console, table) -> bool:
    """Whether rich can draw `table` within the console's width without squeezing a column
    below its longest word (rich would cut or fold the words of every column to fit)."""
    return needed_width(table) <= console.width


def stacked_lines(spec: dict, width: int) -> list[str]:
    """A table as rows of `column: value` lines within `width`, each row under a rule."""
    columns = [str(c) for c in spec["columns"]]
    name_width = max((len(c) for c in columns), default=0)
    out = []
    rows = spec["rows"]
    for number, row in enumerate(rows, start=1):
        label = f"-- row {number} of {len(rows)} "
        out.append(label + "-" * max(0, width - len(label)))
        for column, value in zip(columns, row):
            lead = f"{column.rjust(name_width)}: "
            text = cell(value)
            lines = wrap(text, max(20, width - len(lead))).split("\n") if text else [""]
            out.append((lead + lines[0]).rstrip())
            out += [" " * len(lead) + line.strip() for line in lines[1:]]
    return out


def share_width(console, table, spec: dict) -> None:
    """Give a table that fits only when squeezed explicit column widths: each column its
    longest word, and the room left shared out in proportion to what each column lacks of
    its natural width. (rich's own squeezing can cut the last column even when every
    column's longest word would fit.)"""
    natural = [max([len(str(column))] + [len(cell(row[i])) for row in spec["rows"]])
               for i, column in enumerate(spec["columns"])]
    least = [column.min_width for column in table.columns]
    room = console.width - needed_width(table)
    if sum(natural) - sum(least) <= room:
        return  # fits at its natural width: rich lays it out
    wants = [max(0, n - m) for n, m in zip(natural, least)]
    total = sum(wants)
    extra = [room * want // total for want in wants]
    left = room - sum(extra)
    for index in sorted(range(len(wants)), key=lambda i: -wants[i]):
        if left <= 0:
            break
        if extra[index] < wants[index]:
            extra[index] += 1
            left -= 1
    for column, width, more in zip(table.columns, least, extra):
        column.width = width + more


def print_table(console, spec: dict) -> None:
    from rich.text import Text
    table = rich_table(spec)
    if not fits(console, table):
        table = rich_table(spec, compact=True)
    if fits(console, table):
        share_width(console, table, spec)
        console.print(table)
    else:
        if spec.get("title"):
            console.print(Text(spec["title"], style="bold"))
        console.print(Text(f"(too wide for {console.width} columns: one row at a time)", style="dim"))
        for line in stacked_lines(spec, console.width):
            console.print(Text(line, style="dim" if line.startswith("-- row ") else ""), overflow="fold")
    if spec.get("legend"):
        console.print(Text(spec["legend"], style="dim"))


def render_rich(blocks: list[dict], console=None) -> None:
    from rich.console import Console
    from rich.text import Text

    console = console or Console()
    for block in blocks:
        if "heading" in block:
            console.rule(Text(block["heading"], style="bold"))
        elif "text" in block:
            console.print(block["text"], highlight=False, markup=False)
        elif "table" in block:
            print_table(console, block["table"])
        elif "chart" in block:
            console.print(plain_chart(block["chart"]), highlight=False, markup=False)
        console.print()
