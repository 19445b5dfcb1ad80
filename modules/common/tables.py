"""One table helper for the lessons' views: a table block from a list of JSON rows.

`keys` names the columns as "key=header key ...": each row's value under `key` is shown
under `header` (the key itself, underscores as spaces, when no header is given). A list
is joined with ", ", an empty list or None is shown as "-". The legend says what each
column means and in which unit; the renderer prints it next to the table.
"""

from __future__ import annotations

__all__ = ["table", "cell"]


def cell(value: object) -> object:
    """A row value as a table shows it: lists joined, nothing shown as '-'."""
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "-"
    return "-" if value is None else value


def table(key: str, title: str, legend: str, items: list, keys: str) -> dict:
    """A view block {"key", "table": {title, legend, columns, rows}} from dict rows."""
    pairs = [spec.partition("=")[::2] for spec in keys.split()]
    rows = [[cell(item[name]) for name, _ in pairs] for item in items]
    columns = [(header or name).replace("_", " ") for name, header in pairs]
    return {"key": key, "table": {"title": title, "legend": legend, "columns": columns, "rows": rows}}
