"""Mutation pass: do the graders reject small changes to the reference answers?

    python3 -B methods.py dev mutants [LESSON ...] [--jobs N] [--json]

Every answer region of solutions/NAME.py (between `# BEGIN SOLUTION` and
`# END SOLUTION`) is mutated one change at a time, on its syntax tree:

    compare    <  <=  >  >=  ==  !=  in  not in  is  is not   (each to its neighbour)
    arith      + -, * /, // /, % //, ** *, & |, ^ |, << >>   (also in `x += ...`)
    logic      and <-> or, `not x` -> `x`
    constant   whole numbers n -> n + 1 and n - 1, True <-> False, a string s -> "XX" + s + "XX"
               (only strings without spaces, such as keys, labels and quiz letters: error
               messages and other prose are for people and are not graded word by word)
    slice      x[a:b] -> x[a + 1:b], x[a - 1:b], x[a:b + 1], x[a:b - 1] (bounds that are not constants)
    call       min <-> max, any <-> all
    flow       continue <-> break
    return     `return x` -> `return None`
    delete     any other statement -> `pass`

Each mutant is graded by the lesson's graders, many per process (labtools/grading/worker.py
--batch) with a time limit per mutant; a mutant is *rejected* when some grader test
fails (or grading errors or runs out of time). The share rejected is reported per
lesson and overall, with every survivor as `line: before -> after`, so a grader author
can add the test that rejects it. A survivor that no test can reject (an equivalent
mutant: same behaviour, different code) goes, reviewed and with its reason, into
EQUIVALENT_MUTANTS in tests/wrong_answers/NAME.py, and is then left out of the share:

    EQUIVALENT_MUTANTS = [{"where": "function", "before": "line as printed", "after": "mutated line",
                           "why": "why no test can tell them apart"}]

An entry that no longer matches a survivor is reported as stale (tests/test_mutants.py fails).
"""

from __future__ import annotations

import ast
import copy
import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass

from labtools import course, stubgen

RUNNER = course.ROOT / "labtools" / "grading" / "worker.py"
TARGET = 0.90
LIMIT_SECONDS = 5.0  # per mutant: a reference grades in well under a second, a mutant may loop forever


# ------------------------------------------------------------------ grading many versions in one process

def _worker(lesson: str, seconds: float, hash_seed: int | None = None) -> tuple[subprocess.Popen, queue.Queue]:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    if hash_seed is not None:   # str and bytes hashes, so set order, are this seed's in the worker
        env["PYTHONHASHSEED"] = str(hash_seed)
    process = subprocess.Popen([sys.executable, "-B", str(RUNNER), lesson, "--batch", "--seconds", str(seconds)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               cwd=course.ROOT, env=env, text=True, encoding="utf-8")
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put(line)
        lines.put(None)  # the worker ended

    threading.Thread(target=read, daemon=True).start()
    return process, lines


def _grade_chunk(lesson: str, items: list[tuple], seconds: float, first_failure: bool,
                 hash_seed: int | None = None) -> list[dict]:
    """Grade (path, source) items in one worker; a worker that hangs or dies is replaced."""
    results: list[dict] = []
    while len(results) < len(items):
        rest = items[len(results):]
        process, lines = _worker(lesson, seconds, hash_seed)
        feed = "".join(json.dumps({"path": item[0], "source": item[1], "first_failure": first_failure,
                                   **(item[2] if len(item) > 2 else {})}) + "\n" for item in rest)
        threading.Thread(target=_write_and_close, args=(process, feed), daemon=True).start()
        # Start-up and imports come before the first result; after that each has `seconds`
        # plus slack, for a loop that the worker's own alarm cannot interrupt (inside C code).
        wait = seconds + 30.0
        while len(results) < len(items):
            try:
                line = lines.get(timeout=wait)
            except queue.Empty:
                line = "hung"
            if line is None or line == "hung":
                process.kill()
                process.wait()
                why = ("grading ran past its time limit and had to be stopped" if line == "hung"
                       else "the grading process died")
                results.append({"lesson": lesson, "error": why, "overtime": line == "hung"})
                break
            results.append(json.loads(line))
            wait = seconds + 10.0
        else:
            process.wait()
    return results


def _write_and_close(process: subprocess.Popen, text: str) -> None:
    try:
        process.stdin.write(text)
        process.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass  # the worker died or was stopped; the reader notices


def grade_sources(lesson: str, items: list[tuple], seconds: float = 10.0, jobs: int = 1,
                  first_failure: bool = False, hash_seed: int | None = None) -> list[dict]:
    """Grade many versions of solutions/LESSON.py, given as (path to show, source text), in order.

    An item may add a third element, options for that version alone: {"tasks": [numbers]}
    runs only those tasks' tests, {"first_failure": bool} overrides the argument below.

    Each result is what `course.grade` returns for a file: {"tasks", "tests"} or {"error"}.
    With jobs > 1 the items are shared among that many worker processes. With
    first_failure, grading a version stops at its first failing test. hash_seed: the
    workers' PYTHONHASHSEED (default: inherited, usually random).
    """
    if not items:
        return []
    jobs = max(1, min(jobs, len(items)))
    if jobs == 1:
        return _grade_chunk(lesson, items, seconds, first_failure, hash_seed)
    chunks = [items[start::jobs] for start in range(jobs)]
    outcomes: list[list[dict]] = [[] for _ in chunks]

    def grade(index: int) -> None:
        outcomes[index] = _grade_chunk(lesson, chunks[index], seconds, first_failure, hash_seed)

    threads = [threading.Thread(target=grade, args=(index,)) for index in range(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    merged: list[dict] = [{}] * len(items)
    for start, outcome in enumerate(outcomes):
        merged[start::jobs] = outcome
    return merged


def grade_checked(lesson: str, items: list[tuple], reference: tuple[str, str], seconds: float = 10.0,
                  jobs: int = 1, first_failure: bool = False) -> tuple[list[dict], str, dict]:
    """Grade `items` as grade_sources does, each worker starting and ending with the reference.

    Returns (results, status, the reference's own full result from a fresh process). Status
    is "ok"; "reference fails" when the reference does not pass in a fresh process (the
    verdicts mean nothing); or "polluted" when it passes first but not last (some version
    changed state shared with the ones after it: regrade them apart).
    """
    jobs = max(1, min(jobs, len(items) or 1))
    whole = (*reference[:2], {"first_failure": False})  # the reference always runs every test
    # grade_sources deals item i to worker i % jobs, in order: with `jobs` references before the
    # items and `jobs` after them, every worker grades one reference first and one last.
    results = grade_sources(lesson, [whole] * jobs + list(items) + [whole] * jobs, seconds, jobs, first_failure)
    firsts, lasts = results[:jobs], results[len(results) - jobs:]
    status = "ok"
    if any(rejected(outcome) for outcome in firsts):
        status = "reference fails"
    elif any(rejected(outcome) for outcome in lasts):
        status = "polluted"
    return results[jobs:len(results) - jobs], status, firsts[0]


def rejected(outcome: dict, task: int | None = None) -> bool:
    """True when grading failed: an error, or a failing test (of `task`, when given)."""
    if "error" in outcome:
        return True
    return any(not t["passed"] for t in outcome["tests"] if task is None or t["task"] == task)


# ------------------------------------------------------------------ making mutants

@dataclass(frozen=True)
class Mutant:
    lesson: str
    line: int          # first line changed, in solutions/LESSON.py
    where: str         # enclosing function, or "<module>" for a quiz constant
    kind: str          # compare, arith, logic, constant, slice, call, flow, return, delete
    before: str        # the changed line(s) as written, whitespace collapsed
    after: str         # the same line(s) in the mutant
    source: str        # the whole mutated file

    def shown(self) -> str:
        before, after = _around_change(self.before, self.after)
        return f"line {self.line} ({self.where}, {self.kind}): {before}  ->  {after}"


def _around_change(before: str, after: str, width: int = 100) -> tuple[str, str]:
    """Both texts clipped to a window around where they differ, so a long line still shows its change."""
    if max(len(before), len(after)) <= width:
        return before, after
    prefix = 0
    while prefix < min(len(before), len(after)) and before[prefix] == after[prefix]:
        prefix += 1
    start = max(0, prefix - width // 3)

    def clip(text: str) -> str:
        part = text[start:start + width]
        return ("..." if start else "") + part + ("..." if start + width < len(text) else "")
    return clip(before), clip(after)


_COMPARE = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
            ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_ARITH = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
          ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
          ast.BitXor: ast.BitOr, ast.LShift: ast.RShift, ast.RShift: ast.LShift}
_SWAPS = {"min": "max", "max": "min", "any": "all", "all": "any"}
_TOKEN = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
          ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
          ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
          ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
          ast.And: "and", ast.Or: "or"}


def answer_lines(text: str) -> list[tuple[int, int]]:
    """(first, last) line numbers strictly inside each answer region (ValueError on unbalanced markers)."""
    return [(begin + 2, end) for begin, end in stubgen.answer_regions(text)]


class _Text:
    """Source text with ast positions (line, UTF-8 byte column) turned into string offsets."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0]
        for line in text.splitlines(True):
            self.starts.append(self.starts[-1] + len(line))
        self.lines = text.splitlines(True)

    def offset(self, line: int, column: int) -> int:
        raw = self.lines[line - 1].encode("utf-8")[:column]
        return self.starts[line - 1] + len(raw.decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    found = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            found[child] = node
    return found


def _whole_lines(text: str, start: int, end: int) -> str:
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    return " ".join(text[first:len(text) if last < 0 else last].split())


def _enclosing(node: ast.AST, parents: dict) -> str:
    while node in parents:
        node = parents[node]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node.name
    return "<module>"


def _inside(node: ast.AST, kinds, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, kinds):
            return True
    return False


# One function per node type: each yields (kind, apply(copied node, its parent) -> None,
# [text edit, ...]) for one node. A text edit is (start, end, replacement), or a list of them
# applied together (`a and b and c`); they are tried in order, and the first whose parse equals
# the mutated tree is used. _EDITS maps a node's type to its functions, in order; a statement
# of any other type is deleted (replaced by `pass`).

def _compare(node: ast.Compare, text: _Text, parents: dict):
    left = [node.left, *node.comparators]
    for position, op in enumerate(node.ops):
        new = _COMPARE.get(type(op))
        if new is None:
            continue
        a, b = text.span(left[position])[1], text.span(left[position + 1])[0]
        gap = text.text[a:b].replace(_TOKEN[type(op)], _TOKEN[new], 1)

        def apply(copied, parent, position=position, new=new):
            copied.ops[position] = new()
        yield "compare", apply, [(a, b, gap)]


def _arith(node: ast.BinOp | ast.AugAssign, text: _Text, parents: dict):
    new = _ARITH.get(type(node.op))
    if new is None:
        return
    if isinstance(node, ast.BinOp):
        a, b = text.span(node.left)[1], text.span(node.right)[0]
    else:
        a, b = text.span(node.target)[1], text.span(node.value)[0]
    gap = text.text[a:b].replace(_TOKEN[type(node.op)], _TOKEN[new], 1)

    def apply(copied, parent, new=new):
        copied.op = new()
    yield "arith", apply, [(a, b, gap)]


def _logic(node: ast.BoolOp, text: _Text, parents: dict):
    new = ast.Or if isinstance(node.op, ast.And) else ast.And
    edits = []
    for first, second in zip(node.values, node.values[1:]):
        a, b = text.span(first)[1], text.span(second)[0]
        edits.append((a, b, text.text[a:b].replace(_TOKEN[type(node.op)], _TOKEN[new], 1)))

    def apply(copied, parent, new=new):
        copied.op = new()
    yield "logic", apply, [edits]


def _not(node: ast.UnaryOp, text: _Text, parents: dict):
    if not isinstance(node.op, ast.Not):
        return
    a, b = text.span(node)
    operand = text.text.__getitem__(slice(*text.span(node.operand)))

    def apply(copied, parent):
        _replace_child(parent, copied, copied.operand)
    yield "logic", apply, [(a, b, operand), (a, b, f"({operand})")]


def _constant(node: ast.Constant, text: _Text, parents: dict):
    if _inside(node, (ast.Raise, ast.JoinedStr), parents) or isinstance(parents.get(node), ast.Expr):
        return  # error messages and docstrings
    a, b = text.span(node)
    if isinstance(node.value, bool):
        values = [not node.value]
    elif isinstance(node.value, int):
        values = [node.value + 1, node.value - 1]
    elif isinstance(node.value, float):
        values = [node.value + 1.0, node.value - 1.0]
    elif isinstance(node.value, str) and not any(c.isspace() for c in node.value):
        values = ["XX" + node.value + "XX"]  # a key, label or token; prose is not graded word by word
    else:
        values = []
    for value in values:
        def apply(copied, parent, value=value):
            copied.value = value
        shown = repr(value)
        yield "constant", apply, [(a, b, shown), (a, b, f"({shown})")]


def _slice(node: ast.Slice, text: _Text, parents: dict):
    for field in ("lower", "upper"):
        bound = getattr(node, field)
        if bound is None or isinstance(bound, ast.Constant):
            continue  # constants already move by one on their own
        a, b = text.span(bound)
        for op, sign in ((ast.Add, "+"), (ast.Sub, "-")):
            def apply(copied, parent, field=field, op=op):
                setattr(copied, field, ast.BinOp(getattr(copied, field), op(), ast.Constant(1)))
            yield "slice", apply, [(a, b, f"{text.text[a:b]} {sign} 1"), (a, b, f"({text.text[a:b]}) {sign} 1")]


def _call(node: ast.Call, text: _Text, parents: dict):
    if not (isinstance(node.func, ast.Name) and node.func.id in _SWAPS):
        return
    a, b = text.span(node.func)
    new_name = _SWAPS[node.func.id]

    def apply(copied, parent, new_name=new_name):
        copied.func.id = new_name
    yield "call", apply, [(a, b, new_name)]


def _flow(node: ast.Continue | ast.Break, text: _Text, parents: dict):
    a, b = text.span(node)
    new = ast.Break if isinstance(node, ast.Continue) else ast.Continue

    def apply(copied, parent, new=new):
        _replace_child(parent, copied, new())
    yield "flow", apply, [(a, b, "break" if new is ast.Break else "continue")]


def _return(node: ast.Return, text: _Text, parents: dict):
    if node.value is None or (isinstance(node.value, ast.Constant) and node.value.value is None):
        return
    a, b = text.span(node)

    def apply(copied, parent):
        copied.value = ast.Constant(None)
    yield "return", apply, [(a, b, "return None")]


def _delete(node: ast.stmt, text: _Text, parents: dict):
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return  # a docstring or a bare constant
    a, b = text.span(node)

    def apply(copied, parent):
        _replace_child(parent, copied, ast.Pass())
    yield "delete", apply, [(a, b, "pass")]


_EDITS = {ast.Compare: (_compare,), ast.BinOp: (_arith,), ast.AugAssign: (_arith, _delete), ast.BoolOp: (_logic,),
          ast.UnaryOp: (_not,), ast.Constant: (_constant,), ast.Slice: (_slice,), ast.Call: (_call,),
          ast.Continue: (_flow,), ast.Break: (_flow,), ast.Return: (_return,), ast.Pass: ()}


def _edits(node: ast.AST, text: _Text, parents: dict):
    """Every edit of one node, in order: its type's entry in _EDITS; a statement of another type is deleted."""
    for edit in _EDITS.get(type(node), (_delete,) if isinstance(node, ast.stmt) else ()):
        yield from edit(node, text, parents)


def _replace_child(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for name, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, name, new)
            return
        if isinstance(value, list):
            for position, item in enumerate(value):
                if item is old:
                    value[position] = new
                    return
    raise AssertionError("child not found in its parent")


def _spliced(source: str, edits) -> str:
    # A single edit is (start, end, text); a group (for `a and b and c`) is a list of them.
    group = edits if isinstance(edits, list) else [edits]
    for start, end, replacement in sorted(group, reverse=True):
        source = source[:start] + replacement + source[end:]
    return source


def _edit_span(choices) -> tuple[int, int]:
    group = choices[0] if isinstance(choices[0], list) else [choices[0]]
    return min(e[0] for e in group), max(e[1] for e in group)


def _piece(text: str, positions: _Text, statement: ast.stmt, grow: int = 0) -> str:
    # The statement's lines, from the start of its first line, without their common indent.
    first = positions.starts[statement.lineno - 1]
    return textwrap.dedent(text[first:positions.span(statement)[1] + grow])


def _first_verified(text: str, choices, extract, wanted: str) -> str | None:
    """The first text edit whose result parses (as far as `extract` cuts it) to the wanted tree."""
    for edits in choices:
        candidate = _spliced(text, edits)
        try:
            if ast.dump(extract(candidate)) == wanted:
                return candidate
        except (SyntaxError, IndexError):
            continue
    return None


def _small_check(text, positions, node, parents, apply, choices):
    """Verify a mutant on the smallest statement around the change (cheap; most mutants).

    The edit lies inside that statement and every other line is unchanged, so if the
    statement's new text parses to the mutated statement, the file is the mutant.
    """
    scope = parents.get(node) if isinstance(node, ast.stmt) else node
    while scope is not None and not isinstance(scope, ast.stmt):
        scope = parents.get(scope)
    if scope is None:
        return None
    piece = _piece(text, positions, scope)
    try:
        copied = ast.parse(piece).body[0]
    except (SyntaxError, IndexError):
        return None
    original = list(ast.walk(scope))
    copied_nodes = list(ast.walk(copied))
    if type(copied) is not type(scope) or len(copied_nodes) != len(original):
        return None  # the statement shares its first line with another: not cut cleanly
    holder = ast.Module(body=[copied], type_ignores=[])
    target = copied_nodes[original.index(node)]
    apply(target, _parents(holder).get(target))
    wanted = ast.dump(ast.parse(ast.unparse(holder)).body[0])
    source = _first_verified(text, choices, lambda c: ast.parse(
        _piece(c, positions, scope, len(c) - len(text))).body[0], wanted)
    if source is None:
        return None
    return (source, *_edit_span(choices), False)


def _top_level_check(text, positions, tree, top, index, apply, choices):
    """Verify on the whole top-level statement; if no text edit fits, reprint the file from its tree."""
    statement = tree.body[top]
    first_line = min([statement.lineno] + [d.lineno for d in getattr(statement, "decorator_list", [])])
    stmt_start, stmt_end = positions.starts[first_line - 1], positions.span(statement)[1]
    holder = ast.Module(body=[ast.parse(text[stmt_start:stmt_end]).body[0]], type_ignores=[])
    target = list(ast.walk(holder.body[0]))[index]
    apply(target, _parents(holder).get(target))
    wanted = ast.dump(ast.parse(ast.unparse(holder)).body[0])
    source = _first_verified(text, choices, lambda c: ast.parse(
        c[stmt_start:stmt_end + len(c) - len(text)]).body[0], wanted)
    if source is not None:
        return (source, *_edit_span(choices), False)
    whole = copy.deepcopy(tree)
    whole.body[top] = holder.body[0]
    return (ast.unparse(whole) + "\n", 0, 0, True)


def mutants(lesson: str, text: str | None = None) -> list[Mutant]:
    """Every single-change mutant of the answer regions of solutions/LESSON.py, in source order."""
    if text is None:
        text = (course.SOLUTIONS / f"{lesson}.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    positions = _Text(text)
    regions = answer_lines(text)
    parents = _parents(tree)
    found: list[Mutant] = []
    seen: set[str] = set()
    for top, statement in enumerate(tree.body):
        nodes = list(ast.walk(statement))
        for index, node in enumerate(nodes):
            if not hasattr(node, "lineno") or not any(first <= node.lineno and node.end_lineno <= last
                                                      for first, last in regions):
                continue
            for kind, apply, choices in _edits(node, positions, parents):
                made = (_small_check(text, positions, node, parents, apply, choices)
                        or _top_level_check(text, positions, tree, top, index, apply, choices))
                source, start, end, reprinted = made
                if reprinted:
                    before, after = " ".join(ast.unparse(node).split()), "(whole file reprinted)"
                else:
                    before = _whole_lines(text, start, end)
                    after = _whole_lines(source, start, end + len(source) - len(text))
                if source in seen or source == text:
                    continue
                seen.add(source)
                found.append(Mutant(lesson, node.lineno, _enclosing(node, parents), kind, before, after, source))
    return sorted(found, key=lambda m: (m.line, m.kind, m.after))


# ------------------------------------------------------------------ the pass

def equivalent(lesson: str) -> list[dict]:
    """Reviewed equivalent mutants of a lesson: EQUIVALENT_MUTANTS in tests/wrong_answers/LESSON.py."""
    path = course.ROOT / "tests" / "wrong_answers" / f"{lesson}.py"
    if not path.is_file():
        return []
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return list(namespace.get("EQUIVALENT_MUTANTS", []))


def _matches(mutant: Mutant, entry: dict) -> bool:
    return (entry.get("where", mutant.where) == mutant.where
            and " ".join(entry["before"].split()) == mutant.before
            and " ".join(entry["after"].split()) == mutant.after)


# run_all grades lessons in threads. CPython 3.11 can fail when two threads build or compile
# syntax trees at once ("AST constructor recursion depth mismatch", gh-106905), so making
# mutants and reading the equivalents take turns; the grading itself runs in processes.
_AST_LOCK = threading.Lock()


def run(lesson: str, jobs: int = 1) -> dict:
    """Grade every mutant of one lesson (in `jobs` worker processes); return a JSON-ready report."""
    started = time.perf_counter()
    text = (course.SOLUTIONS / f"{lesson}.py").read_text(encoding="utf-8")
    try:
        with _AST_LOCK:
            made = mutants(lesson, text)
    except ValueError as error:  # unbalanced answer markers
        return {"lesson": lesson, "error": f"solutions/{lesson}.py: {error}; fix the answer markers"}
    shown_path = str(course.SOLUTIONS / f"{lesson}.py")
    # The reference goes first and last: it must pass in the fresh process and still pass after
    # every mutant, or some mutant left shared state changed and the verdicts in between are void.
    items = [(shown_path, m.source) for m in made]
    outcomes, status, _reference = grade_checked(lesson, items, (shown_path, text), seconds=LIMIT_SECONDS,
                                                 jobs=jobs, first_failure=True)
    if status == "reference fails":
        return {"lesson": lesson, "error": "the reference solution does not pass its graders in a batch "
                                           "(run `python3 -B methods.py dev check " + lesson + "`)"}
    if status == "polluted":
        # Grade each mutant beside a fresh reference instead (slow, but sound).
        outcomes = []
        for item in items:
            pair = grade_sources(lesson, [item, (shown_path, text)], seconds=LIMIT_SECONDS, first_failure=True)
            outcomes.append(pair[0] if not rejected(pair[1]) else
                            {"lesson": lesson, "error": "this mutant changes state shared with later gradings"})
    with _AST_LOCK:
        known = equivalent(lesson)
    survivors, equivalents, overtime, used = [], [], 0, set()
    for mutant, outcome in zip(made, outcomes):
        if "has a syntax error" in outcome.get("error", ""):
            # A mutant must be valid Python; one that is not is a bug here, not a grader's win.
            raise AssertionError(f"mutate.py made a mutant that does not parse: {mutant.shown()}")
        if rejected(outcome):
            overtime += bool(outcome.get("overtime"))
            continue
        entry = next((e for e in known if _matches(mutant, e)), None)
        if entry is not None:
            equivalents.append({"mutant": mutant.shown(), "why": entry.get("why", "")})
            used.add(id(entry))
        else:
            survivors.append(mutant)
    stale = [e for e in known if id(e) not in used]
    counted = len(made) - len(equivalents)
    killed = counted - len(survivors)
    return {
        "lesson": lesson, "mutants": len(made), "equivalent": len(equivalents), "rejected": killed,
        "share": (killed / counted) if counted else 1.0, "overtime": overtime,
        "survivors": [{"line": m.line, "where": m.where, "kind": m.kind, "before": m.before, "after": m.after}
                      for m in survivors],
        "survivor_lines": [m.shown() for m in survivors],
        "equivalents": equivalents,
        "stale_equivalents": [f"{e.get('before')!r} -> {e.get('after')!r}" for e in stale],
        "seconds": round(time.perf_counter() - started, 2),
    }


def run_all(lessons: list[str], jobs: int | None = None) -> list[dict]:
    """Run the pass for several lessons side by side (one worker per lesson, `jobs` at a time)."""
    jobs = jobs or max(1, min(2, os.cpu_count() or 1))
    if jobs == 1 or len(lessons) <= 1:
        return [run(lesson, jobs=jobs) for lesson in lessons]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(run, lessons))


def report(results: list[dict]) -> str:
    lines = ["Mutation pass: share of mutants of the answer regions that the graders reject", ""]
    total = counted = 0
    for result in results:
        if "error" in result:
            lines.append(f"  {result['lesson']:<12} cannot run: {result['error']}")
            continue
        share = result["share"]
        counted_here = result["mutants"] - result["equivalent"]
        total += result["rejected"]
        counted += counted_here
        mark = "ok" if share >= TARGET else f"below {TARGET:.0%}"
        lines.append(f"  {result['lesson']:<12} {result['rejected']:>4}/{counted_here:<4} rejected  {share:6.1%}  "
                     f"({result['equivalent']} known equivalent, {result['overtime']} by time limit, "
                     f"{result['seconds']:.1f} s)  {mark}")
    if counted:
        lines += ["", f"  {'overall':<12} {total:>4}/{counted:<4} rejected  {total / counted:6.1%}"]
    for result in results:
        if result.get("survivor_lines"):
            lines += ["", f"Surviving mutants of {result['lesson']} (add a test to tests/graders/grade_"
                          f"{result['lesson']}.py that rejects each, or, if it cannot be rejected, list it "
                          f"with its reason in EQUIVALENT_MUTANTS of tests/wrong_answers/{result['lesson']}.py):"]
            lines += [f"  {line}" for line in result["survivor_lines"]]
        if result.get("stale_equivalents"):
            lines += ["", f"EQUIVALENT_MUTANTS of {result['lesson']} that match no surviving mutant "
                          f"(remove them): " + "; ".join(result["stale_equivalents"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    import argparse
    parser = argparse.ArgumentParser(prog="methods.py dev mutants", description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", help="lessons to mutate (default: every lesson with exercises)")
    parser.add_argument("--jobs", type=int, default=None, help="lessons graded side by side (default: 2)")
    parser.add_argument("--json", action="store_true", help="print the full report as JSON")
    args = parser.parse_args(argv)
    lessons = [course.require_lesson(name) for name in args.lessons] or course.lessons()
    results = run_all(lessons, args.jobs)
    if args.json:
        sys.stdout.write(json.dumps(results, indent=2) + "\n")
    else:
        sys.stdout.write(report(results))
    ok = all("error" not in r and r["share"] >= TARGET for r in results)
    return 0 if ok else 1
