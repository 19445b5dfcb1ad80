"""Make a learner's stub from a solution file, so the two can never drift.

An answer region is the lines between `# BEGIN SOLUTION` and `# END SOLUTION`:

* inside a function, the region becomes one `raise NotImplementedError(...)`
  naming the function and the command that checks it;
* at module level (a quiz answer), each `NAME = ...` in the region becomes
  `NAME = None` with a TODO comment.

Everything else (imports, signatures, docstrings, comments) is kept as written,
and a one-line TODO (within 80 columns) heads the file.
"""

from __future__ import annotations

import ast
import re

BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)\s*\(")


def header(lesson: str) -> list[str]:
    # Within 80 columns for every lesson name (eligibility, the longest, makes 78): the file
    # opens in an 80-column editor without wrapping. Each answer says what to replace.
    return [f"# TODO: fill in each answer, then run: python3 -B methods.py check {lesson}"]


def _enclosing_function(lines: list[str], index: int, indent: int) -> str:
    for line in reversed(lines[:index]):
        match = _DEF.match(line)
        if match and len(match.group(1)) < indent:
            return match.group(2)
    raise ValueError(f"line {index + 1}: an indented answer region must sit inside a def")


def _quiz_lines(region: list[str], first_line: int) -> list[str]:
    try:
        tree = ast.parse("\n".join(region))
    except SyntaxError as error:
        raise ValueError(f"line {first_line}: module-level answer region does not parse: {error.msg}") from None
    names = []
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            raise ValueError(f"line {first_line + node.lineno - 1}: a module-level answer region may hold only "
                             f"`NAME = value` assignments")
        names.append(node.targets[0].id)
    return [f"{name} = None  # TODO: your answer" for name in names]


def answer_regions(text: str) -> list[tuple[int, int]]:
    """(begin, end) line indexes, from 0, of each answer region's two marker lines, in order.

    Raises ValueError naming the line for a region opened inside another, an end without a
    begin, a region never closed, or a file with no region at all."""
    regions, start = [], None
    for index, line in enumerate(text.splitlines()):
        marker = line.strip()
        if marker == BEGIN:
            if start is not None:
                raise ValueError(f"line {index + 1}: {BEGIN} inside another answer region (opened at line {start + 1})")
            start = index
        elif marker == END:
            if start is None:
                raise ValueError(f"line {index + 1}: {END} without a matching {BEGIN}")
            regions.append((start, index))
            start = None
    if start is not None:
        raise ValueError(f"line {start + 1}: {BEGIN} is never closed by {END}")
    if not regions:
        raise ValueError("the solution file has no answer region (# BEGIN SOLUTION ... # END SOLUTION)")
    return regions


def answer_names(solution_text: str) -> set[str]:
    """The names whose answer sits in a region: the def around an indented region, and each
    `NAME = ...` of a module-level one (what course.json must list as the lesson's tasks)."""
    lines = solution_text.splitlines()
    names = set()
    for begin, end in answer_regions(solution_text):
        indent = len(lines[begin]) - len(lines[begin].lstrip())
        if indent:
            names.add(_enclosing_function(lines, begin, indent))
        else:
            names |= {line.split("=", 1)[0].strip() for line in _quiz_lines(lines[begin + 1:end], begin + 2)}
    return names


def make_stub(solution_text: str, lesson: str) -> str:
    """Return the exercise file for `solution_text`; raise ValueError on unbalanced markers."""
    lines = solution_text.splitlines()
    out = header(lesson)
    after = 0  # the first line not yet copied
    for begin, end in answer_regions(solution_text):
        out.extend(lines[after:begin])
        indent = len(lines[begin]) - len(lines[begin].lstrip())
        if indent:
            name = _enclosing_function(lines, begin, indent)
            out.append(" " * indent + f'raise NotImplementedError("{name}: write your answer here, '
                                      f'then run: python3 -B methods.py check {lesson}")')
        else:
            out.extend(_quiz_lines(lines[begin + 1:end], begin + 2))
        after = end + 1
    out.extend(lines[after:])
    return "\n".join(out) + "\n"


def signatures(source: str) -> dict[str, str]:
    """Top-level function signatures and constant names, to compare stub with solution."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = f"({ast.unparse(node.args)})" + (f" -> {ast.unparse(node.returns)}" if node.returns else "")
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = "constant"
    return found
