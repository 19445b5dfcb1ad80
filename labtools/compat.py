"""What a learner's file uses that the course's grading Python lacks.

A class is graded where the instructor grades it (Gradescope's Ubuntu 22.04 image: Python
3.10), not where the learner runs `check`. course.json names that Python ("grading_python");
`check` lists, line by line, the syntax and standard-library names of a newer Python that the
file uses, so "passes here, 0 there" is found before the learner submits.

    problems(source, (3, 10)) -> [(line, message), ...]

Syntax is checked by the parser itself (`ast.parse(..., feature_version=...)`) and by the node
types that only newer Pythons build (a `type` statement, `def f[T]`, `except*`); the standard
library by a table of the modules and names added since 3.10, which is the oldest Python the
lab supports, so the table has nothing older to list.
"""

from __future__ import annotations

import ast

# Modules and module attributes added after Python 3.10, with the version that added them.
NEW_MODULES = {"tomllib": (3, 11), "wsgiref.types": (3, 11)}
NEW_NAMES = {
    "asyncio": {"TaskGroup": (3, 11), "timeout": (3, 11), "Runner": (3, 11), "Barrier": (3, 11)},
    "contextlib": {"chdir": (3, 11)},
    "copy": {"replace": (3, 13)},
    "datetime": {"UTC": (3, 11)},
    "enum": {"StrEnum": (3, 11), "ReprEnum": (3, 11), "verify": (3, 11), "member": (3, 11),
             "nonmember": (3, 11), "global_enum": (3, 11)},
    "hashlib": {"file_digest": (3, 11)},
    "itertools": {"batched": (3, 12)},
    "math": {"cbrt": (3, 11), "exp2": (3, 11), "sumprod": (3, 12), "fma": (3, 13)},
    "operator": {"call": (3, 11)},
    "typing": {"Self": (3, 11), "LiteralString": (3, 11), "Never": (3, 11), "assert_never": (3, 11),
               "assert_type": (3, 11), "reveal_type": (3, 11), "Required": (3, 11), "NotRequired": (3, 11),
               "TypeVarTuple": (3, 11), "Unpack": (3, 11), "dataclass_transform": (3, 11),
               "override": (3, 12), "TypeAliasType": (3, 12), "ReadOnly": (3, 13), "TypeIs": (3, 13),
               "get_protocol_members": (3, 13), "is_protocol": (3, 13)},
    "warnings": {"deprecated": (3, 13)},
}


def version_text(version: tuple[int, int]) -> str:
    return ".".join(str(part) for part in version)


def parse_version(text: str) -> tuple[int, int]:
    """"3.10" -> (3, 10); ValueError naming the text otherwise."""
    parts = text.split(".") if isinstance(text, str) else []
    if len(parts) != 2 or not all(part.isascii() and part.isdigit() for part in parts):
        raise ValueError(f"a Python version is written like \"3.10\", got {text!r}")
    return int(parts[0]), int(parts[1])


def _syntax(tree: ast.AST) -> list[tuple[int, str, tuple[int, int]]]:
    found = []
    for node in ast.walk(tree):
        if type(node).__name__ == "TypeAlias":
            found.append((node.lineno, f"a `type {node.name.id} = ...` statement", (3, 12)))
        elif type(node).__name__ == "TryStar":
            found.append((node.lineno, "`except*` (an exception group)", (3, 11)))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and getattr(node, "type_params", None):
            found.append((node.lineno, f"type parameters in brackets (`{node.name}[...]`)", (3, 12)))
    return found


def _library(tree: ast.AST) -> list[tuple[int, str, tuple[int, int]]]:
    found, aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in NEW_MODULES:
                    found.append((node.lineno, f"`import {alias.name}`", NEW_MODULES[alias.name]))
                aliases[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in NEW_MODULES:
                found.append((node.lineno, f"`from {node.module} import ...`", NEW_MODULES[node.module]))
            for alias in node.names:
                added = NEW_NAMES.get(node.module, {}).get(alias.name)
                if added:
                    found.append((node.lineno, f"`{node.module}.{alias.name}`", added))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            added = NEW_NAMES.get(aliases[node.value.id], {}).get(node.attr)
            if added:
                found.append((node.lineno, f"`{aliases[node.value.id]}.{node.attr}`", added))
    return found


def problems(source: str, version: tuple[int, int]) -> list[tuple[int, str]]:
    """(line, message) for each use in `source` of what Python `version` lacks, by line. A file
    this Python cannot parse gives none: its syntax error is the grader's to report."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    syntax = [(line, what, added) for line, what, added in _syntax(tree) if added > version]
    found = syntax + [(line, what, added) for line, what, added in _library(tree) if added > version]
    try:
        ast.parse(source, feature_version=version)
    except SyntaxError as error:  # what the checks above do not name, in the parser's words
        if not syntax:
            found.append((error.lineno or 1, f"syntax Python {version_text(version)} does not have ({error.msg})",
                          None))
    shown = []
    for line, what, added in sorted(set(found), key=lambda item: (item[0], item[1])):
        since = f" needs Python {version_text(added)}" if added else ""
        shown.append((line, f"{what}{since}"))
    return shown
