"""`update`: bring a learner's copy to the course's new version without losing an answer.

    python3 -B methods.py update                 a clone of the course: fetch and take its new commits
    python3 -B methods.py update --from DIR      a student release: take the newer release in DIR
    python3 -B methods.py update --git REF       a clone: take REF (a commit, a tag, a branch)

The learner edits exercises/NAME.py, and the course changes the stub that file was written
from. A plain `git pull` meets the learner's edit of a tracked stub as a merge conflict, in the
middle of the learner's code. `update` merges task by task instead, with three versions of each
file: the stub the learner started from (the base), the learner's file, and the new stub. Each
top-level definition (a task's function, a quiz constant, a constant or `__all__` the stub
holds, the module docstring) is one unit:

- unchanged by the course: the learner's version stays, byte for byte;
- changed by the course and untouched by the learner: the new version arrives;
- changed by both: the new version arrives and the learner's is kept in a backup, named;
- new in the course: added; gone from the course: the learner's stays (it is not graded).

The learner's own helpers and imports stay; an import the new stub needs is added. Any edited
file is backed up before it is rewritten, whatever happens.

Where the base comes from. In a student release (`dev release`), the course keeps its stubs in
.lab/stubs/ and never writes a learner's exercises/NAME.py once it exists, so a class repository
that tracks exercises/ never gets a conflict from the course; .lab/started/NAME.py remembers the
stub each file started from. In a clone of the course itself (which tracks its stubs in
exercises/, for the maintainers), the base is the committed exercises/NAME.py: `update` backs
up the edited files, puts the committed stubs back, fast-forwards, and merges.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from labtools import course, files
from labtools.registry import RUN
from labtools.render import fit


# ------------------------------------------------------------------ the merge of one file

def units(text: str) -> dict[str, tuple[int, int]] | None:
    """{unit name: (first line index, end line index exclusive)} of a Python file's top-level
    definitions and assignments (decorators included; the module docstring is "__doc__"), or
    None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found: dict[str, tuple[int, int]] = {}
    for index, node in enumerate(tree.body):
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        span = (start, node.end_lineno)
        if index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            found["__doc__"] = span
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[node.name] = span
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name):
                found[targets[0].id] = span
    return found


def imports(text: str) -> list[str]:
    """The top-level import statements of a parsable file, as written."""
    lines = text.splitlines()
    tree = ast.parse(text)
    return ["\n".join(lines[node.lineno - 1:node.end_lineno]) for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom))]


def _segment(text: str, span: tuple[int, int]) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()[span[0]:span[1]])


@dataclass
class Merged:
    text: str                                            # the file to write
    kept: list[str] = field(default_factory=list)        # the learner's units left as they were
    arrived: list[str] = field(default_factory=list)     # the course's new or changed units taken
    conflicts: list[str] = field(default_factory=list)   # changed by both: the course's taken, the learner's backed up
    whole_file: bool = False                             # the learner's file did not parse: replaced whole


def merge(base: str, mine: str, new: str) -> Merged:
    """The learner's file `mine`, written from stub `base`, brought to stub `new` (see above)."""
    if base == new:
        return Merged(mine)
    if mine == base:
        return Merged(new, arrived=["the whole stub"])
    base_units, mine_units, new_units = units(base), units(mine), units(new)
    if mine_units is None or base_units is None or new_units is None:
        return Merged(new, conflicts=["the whole file"], whole_file=True)
    result = Merged("")
    replace: dict[str, str] = {}  # unit name in mine -> the course's new text
    added: list[str] = []
    for name, span in new_units.items():
        fresh = _segment(new, span)
        then = _segment(base, base_units[name]) if name in base_units else None
        now = _segment(mine, mine_units[name]) if name in mine_units else None
        if now is None:
            added.append(fresh)
            result.arrived.append(name)
        elif fresh == then or now == fresh:
            result.kept.append(name)
        elif now == then:
            replace[name] = fresh
            result.arrived.append(name)
        else:
            replace[name] = fresh
            result.conflicts.append(name)
    lines = mine.splitlines()
    for name, span in sorted(((n, mine_units[n]) for n in replace), key=lambda item: -item[1][0]):
        lines[span[0]:span[1]] = replace[name].splitlines()
    have = set("\n".join(lines).splitlines())
    needed = [statement for statement in imports(new) if not set(statement.splitlines()) <= have]
    if needed:  # after the learner's last top-level import (or the docstring), so they run first
        tree_units = units("\n".join(lines) + "\n") or {}
        after = max([tree_units["__doc__"][1]] if "__doc__" in tree_units else [0])
        try:
            tree = ast.parse("\n".join(lines))
            after = max([after] + [node.end_lineno for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))])
        except SyntaxError:
            pass
        lines[after:after] = [line for statement in needed for line in statement.splitlines()]
    text = "\n".join(lines).rstrip("\n") + "\n"
    if added:
        text += "\n\n" + "\n\n\n".join(added) + "\n"
    result.text = text
    return result


# ------------------------------------------------------------------ applying it to a copy

@dataclass
class Plan:
    lesson: str
    path: Path
    base: str | None
    mine: bytes | None


def _decode(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _backup(root: Path, path: Path, data: bytes) -> Path:
    """The learner's file saved in ROOT/.backups/ under a name no other backup has."""
    return files.backup_bytes(data, root / ".backups", path.stem, path.suffix)


def apply(plans: list[Plan], new_stubs: dict[str, str], started: Path | None, root: Path) -> list[str]:
    """Merge each learner file with its new stub and write it (the learner's file backed up first
    when it changes); record the new stub as the one the file now starts from. The lines to print."""
    lines = []
    for plan in plans:
        new = new_stubs.get(plan.lesson)
        mine = _decode(plan.mine)
        if new is None:
            continue
        if plan.mine is None:
            files.make_folder(plan.path.parent)
            files.replace_text(plan.path, new)
            lines.append(f"{plan.lesson}: new exercise file {course.shown(plan.path)}")
        elif mine is None or plan.base is None:
            if files.read_bytes(plan.path) != plan.mine:
                files.replace_bytes(plan.path, plan.mine)
            lines.append(f"{plan.lesson}: {course.shown(plan.path)} is left as it is (it is not UTF-8 text, or the "
                         f"stub it started from is unknown); the new stub is in {course.shown(_stub_copy(plan, new))}")
            continue
        else:
            merged = merge(plan.base, mine, new)
            if merged.text != mine:
                copy = _backup(root, plan.path, plan.mine) if mine != plan.base else None
                files.replace_text(plan.path, merged.text)
                lines += _said(plan, merged, copy)

        if started is not None:
            files.make_folder(started)
            files.replace_text(started / f"{plan.lesson}.py", new)
    return lines


def _stub_copy(plan: Plan, new: str) -> Path:
    copy = plan.path.with_name(f"{plan.lesson}.new-stub.py.txt")
    files.replace_text(copy, new)
    return copy


def _said(plan: Plan, merged: Merged, copy: Path | None) -> list[str]:
    name = course.shown(plan.path)
    if merged.whole_file:
        return [f"{plan.lesson}: {name} does not parse, so it could not be merged task by task: it is now the new "
                f"stub, and your version is kept in {course.shown(copy)}"]
    kept = [unit for unit in merged.kept if not unit.startswith("__")]  # tasks, not __doc__ or __all__
    lines = [f"{plan.lesson}: " + "; ".join(part for part in (
        f"kept your {', '.join(kept)}" if kept else "",
        f"new from the course: {', '.join(merged.arrived)}" if merged.arrived else "") if part)]
    if merged.conflicts:
        lines.append(f"  changed by the course and by you: {', '.join(merged.conflicts)}. The course's version is "
                     f"in {name}; yours is kept in {course.shown(copy)}")
    elif copy is not None:
        lines.append(f"  (your file before the update: {course.shown(copy)})")
    return lines


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=120)


def _committed(root: Path, name: str) -> str | None:
    done = _git(root, "show", f"HEAD:{name}")
    return _decode(done.stdout) if done.returncode == 0 else None


def update_git(root: Path, ref: str | None) -> list[str]:
    """A clone of the course: fast-forward to `ref` (default: fetch, then the branch's upstream),
    with the learner's exercise files merged task by task (see the module docstring)."""
    plans = []
    for lesson in _lessons_at(root):
        path = root / "exercises" / f"{lesson}.py"
        plans.append(Plan(lesson, path, _committed(root, f"exercises/{lesson}.py"), files.read_bytes(path)))
    if ref is None:
        fetched = _git(root, "fetch", "--quiet")
        if fetched.returncode != 0:
            raise files.FileProblem("git fetch failed (" + _last(fetched) + "); nothing was changed")
        ref = "@{upstream}"
    edited = [plan for plan in plans if plan.mine is not None and _decode(plan.mine) != plan.base]
    for plan in edited:  # the learner's work, safe before git touches anything
        _backup(root, plan.path, plan.mine)
        if plan.base is not None:
            files.replace_text(plan.path, plan.base)
    moved = _git(root, "merge", "--ff-only", "--quiet", ref)
    if moved.returncode != 0:
        for plan in edited:
            files.replace_bytes(plan.path, plan.mine)
        raise files.FileProblem(f"git could not fast-forward to {ref} ({_last(moved)}); your exercise files are "
                                f"back as they were (and backed up in {course.shown(root / '.backups')}/)")
    # The files git just wrote are the new stubs: merge the learner's work back into them.
    new_stubs = {plan.lesson: _decode(files.read_bytes(plan.path)) for plan in edited}
    gone = [plan for plan in edited if new_stubs[plan.lesson] is None]
    for plan in gone:  # the course dropped the lesson (or its stub is not text): the learner's file stays
        files.replace_bytes(plan.path, plan.mine)
    return apply([plan for plan in edited if plan not in gone], new_stubs, None, root)


def _lessons_at(root: Path) -> list[str]:
    return [path.stem for path in sorted((root / "exercises").glob("*.py"))]


def _last(done: subprocess.CompletedProcess) -> str:
    return ((done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]


def update_release(root: Path, source: Path | None) -> list[str]:
    """A student release: take the newer release in `source` (if given), then merge every
    exercise file whose stub changed since it was written."""
    from labtools import release
    lines = []
    if source is not None:
        record = release.read_record(source)
        if record is None:
            raise files.FileProblem(f"{source} is not a release of the course (no {release.RECORD.as_posix()})")
        names = [name for name in record["files"] if not name.startswith(".lab/")]
        sources = {name: source / name for name in names if (source / name).is_file()}
        stubs = {path.stem: files.read_text(path) for path in sorted((source / ".lab" / "stubs").glob("*.py"))}
        # Course files only; a lesson new to this copy gets its exercise file, no other is written.
        lines += release.install(root, sources, {}, record)
        for lesson, text in stubs.items():
            files.replace_text(course.STUBS / f"{lesson}.py", text)
    plans, new_stubs = [], {}
    for stub in sorted(course.STUBS.glob("*.py")):
        lesson = stub.stem
        path = course.EXERCISES / f"{lesson}.py"
        started = files.read_bytes(course.STARTED / f"{lesson}.py")
        new_stubs[lesson] = files.read_text(stub)
        plans.append(Plan(lesson, path, _decode(started), files.read_bytes(path)))
    return lines + apply(plans, new_stubs, course.STARTED, root)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py update",
        description="Bring your copy to the course's new version, task by task: a task the course did not "
                    "change keeps your code untouched, a changed or new task arrives, and anything that "
                    f"cannot be merged is kept in {course.shown(course.BACKUPS)}/ and named.")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--from", dest="source", type=Path, metavar="DIR",
                        help="a student release: the newer release (unpacked) to take")
    source.add_argument("--git", metavar="REF", help="a clone of the course: the commit to take "
                                                    "(default: fetch, then the branch's upstream)")
    args = parser.parse_args(argv)
    try:
        with course.locked():
            if course.is_release():
                if args.git:
                    parser.error("this is a student release: update it with --from DIR (or git pull, then update)")
                lines = update_release(course.ROOT, args.source)
            else:
                if args.source is not None:
                    parser.error("this is a clone of the course: update it with --git REF, or with no option")
                lines = update_git(course.ROOT, args.git)
    except files.FileProblem as problem:
        sys.stderr.write(fit(f"methods.py update: {problem}") + "\n")
        return 1
    for line in lines or ["Nothing to update: every exercise file already starts from the course's current stub."]:
        print(fit(line))
    print(fit(f"Next: {RUN} check"))
    return 0
