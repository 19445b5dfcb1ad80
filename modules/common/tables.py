"""One table helper for the lessons' views.

table_block() wraps columns and rows as the block the renderer prints; table() builds
one from a list of JSON rows, where `keys` names the columns as "key=header key ...": each row's value under `key` is shown
under `header` (the key itself, underscores as spaces, when no header is given). A list
is joined with ", ", an empty list or None is shown as "-". The legend says what each
column means and in which unit; the renderer prints it next to the table.
"""

from __future__ import annotations

__all__ = ["table", "table_block", "cell"]


def cell(value: object) -> object:
    """A row value as a table shows it: lists joined, nothing shown as '-'."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "-"
    return "-" if value is None else value


def table_block(key: str, title: str, legend: str, columns: list, rows: list) -> dict:
    """A view block {"key", "table": {title, legend, columns, rows}}; the legend is required."""
    if not legend:
        raise ValueError(f"table {title!r} needs a legend: what each column means, and its unit")
    return {"key": key, "table": {"title": title, "legend": legend, "columns": columns, "rows": rows}}


def table(key: str, title: str, legend: str, items: list, keys: str) -> dict:
    """A table block from dict rows, one column per `keys` entry."""
    pairs = [spec.partition("=")[::2] for spec in keys.split()]
    rows = [[cell(item[name]) for name, _ in pairs] for item in items]
    columns = [(header or name).replace("_", " ") for name, header in pairs]
    return table_block(key, title, legend, columns, rows)
