"""Colour output of a lesson view through `rich`, for a terminal that wants it.

methods.py (and the audit) import this only when
stdout is a terminal, colour is not switched off and rich is installed.
"""

from __future__ import annotations

from labtools.render import cell, numeric, plain_chart


def render_rich(blocks: list[dict]) -> None:  # pragma: no cover - needs a terminal
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text  # cells as Text, so '[...]' in data is never read as markup

    console = Console()
    for block in blocks:
        if "heading" in block:
            console.rule(Text(block["heading"], style="bold"))
        elif "text" in block:
            console.print(block["text"], highlight=False, markup=False)
        elif "table" in block:
            spec = block["table"]
            table = Table(title=Text(spec.get("title") or ""), title_justify="left")
            for i, column in enumerate(spec["columns"]):
                is_number = bool(spec["rows"]) and all(numeric(r[i]) for r in spec["rows"])
                # Wrap, never crop with an ellipsis: reason codes such as permission_denied and
                # permission_unknown differ only at their end, and that difference is the lesson.
                # The column is at least as wide as its longest word (ids, codes, up to a
                # fingerprint's 32), so a narrow terminal wraps between words, not inside one.
                words = [len(w) for r in spec["rows"] for w in cell(r[i]).split()] or [1]
                table.add_column(str(column), justify="right" if is_number else "left", overflow="fold",
                                 min_width=min(max(words), 32))
            for row in spec["rows"]:
                table.add_row(*(Text(cell(v)) for v in row))
            console.print(table)
            if spec.get("legend"):
                console.print(Text(spec["legend"], style="dim"))
        elif "chart" in block:
            console.print(plain_chart(block["chart"]), highlight=False, markup=False)
        console.print()
