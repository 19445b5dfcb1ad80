"""The learner's workflow commands: check and hint here; reset and watch in
labtools/workflow.py; `dev` (maintainers) in devtools/dev.py.

`check` grades each lesson in a fresh interpreter (side by side), then shows the
course: one row per lesson with the tasks passed, the first failing task in the
grader's own words, and the one command to run next.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from labtools import course, files
from labtools.registry import LESSONS, RUN, wants_rich, write  # write: UTF-8 whatever the locale
from modules.common.checks import short

HINT_STATE = course.ROOT / ".hints-seen.json"


# ------------------------------------------------------------------ small helpers

def lesson_argument(parser: argparse.ArgumentParser, name: str) -> str:
    """`name` if it is a lesson with exercises; otherwise a usage error (exit 2) that helps."""
    known = course.lessons()
    if name in known:
        return name
    from labtools.registry import lesson_named
    if lesson_named(name) in known:  # `check 01`, `hint 3`: the lesson list numbers them
        return lesson_named(name)
    listing = "lessons with exercises: " + (", ".join(known) or "none yet")
    if not name.strip():
        parser.error(f"the lesson name is empty ({name!r}); leave it out for every lesson. {listing}")
    if name in LESSONS or lesson_named(name):
        parser.error(f"lesson '{lesson_named(name)}' has no exercises yet; {listing}")
    import difflib
    close = difflib.get_close_matches(name, list(LESSONS), n=1)
    parser.error(f"there is no lesson {short(name)}.{f' Did you mean {close[0]!r}?' if close else ''} {listing}")
    raise AssertionError("unreachable")  # parser.error exits


def folder_argument(text: str) -> Path:
    """An argparse type for --target: a non-empty path (an empty one would mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a folder, got an empty path {text!r}")
    return Path(text)


def number_argument(minimum: int = 1):
    """An argparse type for a whole number in ASCII digits, at least `minimum`."""
    def whole_number(text: str) -> int:
        from modules.common.checks import parse_whole_number
        try:
            return parse_whole_number(text, "the value", minimum)
        except (TypeError, ValueError) as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return whole_number


def _bar(done: int, total: int, width: int = 20) -> str:
    filled = round(width * done / total) if total else 0
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _folder(target: Path | None) -> Path:
    return course.EXERCISES if target is None else target


def _folder_label(target: Path | None) -> str:
    return course.shown(_folder(target)).rstrip("/") + "/"


def _notebook(lesson: str) -> str | None:
    number = LESSONS[lesson][0]
    path = course.ROOT / "notebooks" / f"{number}_{lesson}.ipynb"
    return course.shown(path) if path.is_file() else None


# ------------------------------------------------------------------ grading records

def summarize(result: dict, target: Path | None = None) -> dict:
    """One lesson's grading result as a gradebook record (see labtools/grading/records.py)."""
    from labtools import grading
    return grading.summarize(result, _folder(target))


def unreadable(path: Path) -> str | None:
    """Why the lesson file at `path` cannot be graded (not a regular file, not readable), or
    None: a missing file is no problem here (it is reported as missing)."""
    odd = files.odd_file(path)
    if odd:
        return odd
    if not path.is_file():
        return None
    import os
    try:
        os.close(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)))
    except OSError as error:
        return str(files.describe(error, path, "read"))
    return None


def _blocked(lesson: str, folder: Path, problem: str) -> dict:
    """The record of a lesson whose file the lab cannot open: an error, with the reason."""
    return {"lesson": lesson, "number": LESSONS[lesson][0], "file": course.shown(folder / f"{lesson}.py"),
            "status": "error", "kind": "file", "error": problem, "done": 0, "total": 0, "tasks": [], "tests": []}


def grade(lessons: list[str], target: Path | None = None, limits=None) -> list[dict]:
    """Grade `lessons` (side by side) against exercises/ or `target`; one record each. A file
    that cannot be opened is an error record saying why; a missing one names any file found
    with nearly its name (files.near_misses)."""
    # The folder is always passed on explicitly, so the graders read what this process means
    # by exercises/ (tests point course.EXERCISES at a scratch folder).
    from labtools import grading
    folder = _folder(target)
    blocked = {lesson: unreadable(folder / f"{lesson}.py") for lesson in lessons}
    graded = [lesson for lesson in lessons if blocked[lesson] is None]
    results = grading.grade_many(graded, folder, limits=limits or grading.Limits()) if graded else []
    records = {lesson: summarize(result, target) for lesson, result in zip(graded, results)}
    for record in records.values():
        if record["status"] == "missing":
            found = files.near_miss_note(folder, record["lesson"])
            if found:
                record["found"] = found
    for lesson, record in records.items():
        if record["status"] in ("passed", "failing"):
            record["python_problems"] = python_problems(lesson, target)
    return [records[lesson] if lesson in records else _blocked(lesson, folder, blocked[lesson])
            for lesson in lessons]


# ------------------------------------------------------------------ the progress view

def _first_problem(records: list[dict]) -> dict | None:
    for status in (("failing", "error"), ("missing",)):
        for record in records:
            if record["status"] in status:
                return record
    return None


def next_steps(records: list[dict], target: Path | None = None, narrowed: bool = False,
               watching: str | None = None, task_number: int | None = None) -> list[str]:
    """What to read and what to run next, in the order a learner (or an instructor,
    with a target) needs it. `watching` is "save" or "enter" when `watch` re-grades.
    `task_number` (with one lesson's record): that task's result, whatever the tasks
    before it do."""
    known = course.lessons()
    problem = _first_problem(records)
    if (task_number is not None and len(records) == 1 and records[0]["status"] in ("passed", "failing")
            and any(t["number"] == task_number for t in records[0]["tasks"])):
        return _one_task(records[0], task_number, target)
    if problem is None:
        if not narrowed:
            return [f"Every task of every lesson passes ({len(records)} lesson(s) with exercises so far). Well done."]
        lesson = records[0]["lesson"]
        lines = [f"Every task of '{lesson}' passes."]
        later = known[known.index(lesson) + 1:] if lesson in known else []
        if target is None and later:
            lines.append(f"Next lesson: read it with `{RUN} {later[0]}`, then run "
                         f"`{RUN} {'watch' if watching else 'check'} {later[0]}`.")
        else:
            lines.append(f"The whole course: {RUN} check" + (f" --target {course.shown(target)}" if target else ""))
        return lines

    lesson, number = problem["lesson"], problem["number"]
    if problem.get("kind") in ("grader", "harness"):  # never the learner's fault
        return [f"Lesson {number} {lesson} could not be graded: {problem['error']}",
                f"Nothing needs fixing in {problem['file']} for this. "
                + ("Use Python 3.10 or newer." if sys.version_info < (3, 10) else
                   f"Restore the graders (git checkout -- tests/graders) and run `{RUN} check {lesson}` again.")]
    if target is not None:  # an instructor reading a submission
        lines = []
        if problem["status"] == "error":
            lines += [f"Lesson {number} {lesson} could not be graded: {problem['error']}", ""]
        elif problem["status"] == "failing":
            task = next(t for t in problem["tasks"] if not t["passed"])
            lines += [f"First failure: {lesson}, task {task['number']} of {problem['total']}: {task['title']} "
                      f"({task['name']} in {problem['file']})", ""]
            lines += ["  " + line for line in task["message"].splitlines()] + [""]
        missing = [f"{r['lesson']}.py" for r in records if r["status"] == "missing"]
        if missing:
            lines.append(f"Not in the folder: {', '.join(missing)}; "
                         f"{'that lesson counts' if len(missing) == 1 else 'those lessons count'} as failed.")
        found = [r["found"] for r in records if r.get("found")]
        lines += [f"  ({note})" for note in found]
        lines += [f"One lesson only: {RUN} check {lesson} --target {course.shown(target)}",
                  "A per-task record: add --json"]
        return lines

    if problem["status"] == "missing":
        if problem.get("found"):
            return [f"{problem['file']} is missing: {problem['found']}.",
                    f"Rename your file to {lesson}.py, then run `{RUN} check {lesson}` again."]
        return [f"{problem['file']} is missing. Restore the stub: {RUN} reset {lesson}"]
    if problem.get("kind") == "file":
        return [f"Lesson {number} {lesson} could not be graded: {problem['error']}.",
                f"Then run `{RUN} check {lesson}` again."]
    if problem["status"] == "error":
        again = {"save": "save it (this window re-grades)", "enter": "press Enter here"}.get(
            watching, f"run `{RUN} check {lesson}` again")
        return [f"Lesson {number} {lesson} could not be graded: {problem['error']}",
                f"Fix {problem['file']} and {again}, or start over from the stub "
                f"(your file is backed up first): {RUN} reset {lesson}"]
    task = next(t for t in problem["tasks"] if not t["passed"])
    lines = []
    passed = [f"task {t['number']} ({t['name']})" for t in problem["tasks"] if t["passed"]]
    if passed:
        lines.append(f"Passing in {lesson}: {', '.join(passed)}.")
    lines += [f"Next: {lesson}, task {task['number']} of {problem['total']}: {task['title']} ({task['name']})", ""]
    lines += ["  " + line for line in task["message"].splitlines()]
    lines.append("")
    if problem["done"] == 0:
        notebook = _notebook(lesson)
        lines.append(f"New to this lesson? Read it first: {RUN} {lesson}"
                     + (f"  (or open {notebook})" if notebook else ""))
    if watching == "save":
        lines.append(f"Edit {problem['file']} ({task['name']}) and save it: this window re-grades.")
    elif watching == "enter":
        lines.append(f"Edit {problem['file']} ({task['name']}), save it, then press Enter here to re-grade.")
    else:
        lines += [f"Edit {problem['file']} ({task['name']}), then run: {RUN} check {lesson}",
                  f"Re-grade on every save instead: {RUN} watch {lesson}"]
    lines.append(f"Stuck? {RUN} hint {lesson} {task['number']}")
    return lines


def _one_task(record: dict, number: int, target: Path | None) -> list[str]:
    """`check LESSON N`: task N's result, and what to run next."""
    lesson = record["lesson"]
    task = next(t for t in record["tasks"] if t["number"] == number)
    there = f" --target {course.shown(target)}" if target is not None else ""
    head = f"{lesson}, task {task['number']} of {record['total']}: {task['title']} ({task['name']})"
    if task["passed"]:
        lines = [f"Passes: {head}."]
        failing = [t for t in record["tasks"] if not t["passed"]]
        if failing:
            lines.append(f"Still failing in {lesson}: "
                         + ", ".join(f"task {t['number']} ({t['name']})" for t in failing) + ".")
            lines.append(f"See one: {RUN} check {lesson} {failing[0]['number']}{there}")
        else:
            lines.append(f"Every task of '{lesson}' passes.")
        return lines
    lines = [f"Failing: {head}", ""]
    lines += ["  " + line for line in task["message"].splitlines()]
    lines.append("")
    if target is None:
        lines.append(f"Edit {record['file']} ({task['name']}), then run: {RUN} check {lesson} {number}")
        lines.append(f"Stuck? {RUN} hint {lesson} {number}")
    return lines


def printed_lines(records: list[dict]) -> int:
    """How many lines the learner's own code printed while graded (what --verbose shows)."""
    count = 0
    for record in records:
        texts = [record.get("output"), record.get("process_output")]
        texts += [test.get("output") for test in record.get("tests", [])]
        count += sum(len(text.rstrip("\n").splitlines() or [""]) for text in texts if text)
    return count


def report(records: list[dict], target: Path | None = None, narrowed: bool = False,
           watching: str | None = None, verbose: bool = False, task_number: int | None = None) -> dict:
    """Everything the progress view shows, as data (the plain and rich views draw it)."""
    problem = _first_problem(records)
    rows = []
    for record in records:
        if record["status"] == "missing":
            note = f"missing: {record['file']}"
        elif record["status"] == "error":
            note = "cannot grade: see below" if record is problem else "cannot grade"
        elif record["status"] == "passed":
            note = "done"
        else:
            note = "<- next" if record is problem else ""
        rows.append({"number": record["number"], "lesson": record["lesson"], "done": record["done"],
                     "total": record["total"], "note": note})
    printed = []
    if verbose:
        printed = learner_prints(records)
    elif printed_lines(records):
        count = printed_lines(records)
        again = f"{RUN} check" + (f" {records[0]['lesson']}" if len(records) == 1 else "")
        printed = ["", f"Your code printed {count} line{'' if count == 1 else 's'} while it was graded: "
                       f"`{again} --verbose` shows them."]
    from labtools.grading import integrity
    return {"title": f"Context Lab progress, grading {_folder_label(target)}",
            "python": python_lines(records, target),
            "rows": rows,
            "summary": (f"{sum(r['done'] for r in records)}/{sum(r['total'] for r in records)} tasks, "
                        f"{sum(r['status'] == 'passed' for r in records)} of {len(records)} lesson(s) complete"),
            "next": next_steps(records, target, narrowed, watching, task_number) + printed,
            "warnings": integrity.warnings()}


def python_problems(lesson: str, target: Path | None = None) -> list[dict]:
    """What the lesson file uses that the course's grading Python lacks (labtools/compat.py):
    [{"line": N, "message": ...}, ...], empty when it uses nothing newer (or cannot be read)."""
    from labtools import compat, manifest
    try:
        source = (_folder(target) / f"{lesson}.py").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    return [{"line": line, "message": message}
            for line, message in compat.problems(source, manifest.grading_python())]


def python_lines(records: list[dict], target: Path | None = None) -> list[str]:
    """The progress view's lines on the grading Python: one per use of something it lacks."""
    from labtools import compat, manifest
    version = compat.version_text(manifest.grading_python())
    lines = []
    for record in records:
        for problem in record.get("python_problems", []):
            lines.append(f"  {record['file']}, line {problem['line']}: {problem['message']}")
    if not lines:
        return []
    import platform
    return ["", f"The course is graded with Python {version} (this is {platform.python_version()}), "
                f"which lacks what these lines use: a task that passes here would fail there. "
                f"Rewrite them for Python {version}:"] + lines


def learner_prints(records: list[dict]) -> list[str]:
    """`check --verbose`: what the learner's own code printed while it was graded (bounded)."""
    from labtools import grading
    return grading.learner_prints(records)


def render_plain(view: dict) -> str:
    lines = [view["title"], ""]
    for row in view["rows"]:
        tasks = f"{row['done']}/{row['total']} tasks" if row["total"] else "?/? tasks"
        lines.append(f"  {row['number']} {row['lesson']:<12} {_bar(row['done'], row['total'])}  "
                     f"{tasks:<11}  {row['note']}".rstrip())
    if len(view["rows"]) > 1:
        lines += ["", f"Course: {view['summary']}"]
    lines += [""] + view["next"] + view.get("python", []) + view["warnings"]
    from labtools.render import fit
    return fit("\n".join(lines)) + "\n"


def render_rich(view: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text  # Text, so '[...]' in a message is never read as markup

    console = console or Console()
    table = Table(title=Text(view["title"], style="bold"), title_justify="left", box=None, pad_edge=False)
    for name, justify in (("#", "right"), ("lesson", "left"), ("progress", "left"), ("tasks", "right"),
                          ("", "left")):
        table.add_column(name, justify=justify)
    for row in view["rows"]:
        done, total = row["done"], row["total"]
        style = "green" if total and done == total else ("yellow" if row["note"] == "<- next" else "")
        # The plain bar's glyphs ('#' done, '-' to do), coloured: done and not done differ by
        # shape as well as colour, so NO_COLOR and colour-blind readers see the same thing.
        table.add_row(row["number"], Text(row["lesson"], style=style),
                      Text(_bar(done, total), style="green" if total and done == total else "yellow"),
                      f"{done}/{total}" if total else "?/?", Text(row["note"], style=style))
    console.print(table)
    if len(view["rows"]) > 1:
        console.print(Text(f"Course: {view['summary']}"))
    console.print()
    # Wrapped here as the plain view wraps (a command to copy stays on one line), then printed
    # as is: rich's own wrapping would split a command, and soft_wrap alone never wraps.
    from labtools.render import fit
    for line in view["next"]:
        style = ("bold" if line.startswith(("Next:", "First failure:", "Every task", "Failing:", "Passes:"))
                 else "green" if line.startswith("Passing in") else "")
        console.print(Text(fit(line, console.width), style=style), soft_wrap=True)
    for line in view.get("python", []):
        console.print(Text(fit(line, console.width), style="yellow"), soft_wrap=True)
    for line in view["warnings"]:
        console.print(Text(fit(line, console.width), style="bold red" if line.startswith("Warning") else "red"),
                      soft_wrap=True)


def show(records: list[dict], target: Path | None = None, narrowed: bool = False, plain: bool = False,
         watching: str | None = None, verbose: bool = False, task_number: int | None = None) -> None:
    view = report(records, target, narrowed, watching, verbose, task_number)
    if wants_rich(plain):
        render_rich(view)
    else:
        write(render_plain(view))


def gradebook(records: list[dict], target: Path | None = None) -> dict:
    from labtools import manifest
    from labtools.grading import integrity
    return {"target": _folder_label(target),
            "grading_python": ".".join(map(str, manifest.grading_python())),
            "passed": all(r["status"] == "passed" for r in records),
            "tasks_passed": sum(r["done"] for r in records),
            "tasks_total": sum(r["total"] for r in records),
            "graders_changed": integrity.differences(),
            "lessons": records}


# ------------------------------------------------------------------ check

def check(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py check",
        description="Grade exercises and show the course: tasks passed per lesson, the first failing task "
                    "and what to do next. Exit status 0 only when every graded task passes.")
    parser.add_argument("lesson", nargs="?", help="only this lesson (default: every lesson with exercises)")
    parser.add_argument("task", nargs="?", type=number_argument(),
                        help="only this task's result (a number, as for hint), even when earlier tasks fail")
    parser.add_argument("--target", type=folder_argument, metavar="DIR",
                        help="grade the exercise files in DIR instead of exercises/ (DIR is never written to)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--json", action="store_true", help="print a per-task record for a gradebook")
    mode.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    from labtools import grading
    grading.add_limit_options(parser)
    parser.add_argument("--verbose", action="store_true", help="also show what your own code printed (bounded)")
    args = parser.parse_args(argv)
    try:
        is_folder = args.target is None or args.target.is_dir()
    except OSError as error:  # a name too long for the file system, say
        parser.error(f"--target {short(str(args.target))}: {error.strerror}")
    if not is_folder:
        parser.error(f"--target {short(str(args.target))} is not a folder")
    target = args.target.resolve() if args.target is not None else None
    if target is not None:  # a whole checkout handed in: its exercises/, as grade finds it
        found, _why = files.lesson_folder(target, course.lessons())
        from labtools.render import fit
        if found is not None and found != target:
            sys.stderr.write(fit(f"check: grading {course.shown(found)}, where {course.shown(target)} keeps its "
                                 f"lesson files") + "\n")
        if found is not None:
            passed = files.passed_over(target, found, course.lessons())
            if passed:
                sys.stderr.write(fit(f"check: {passed}") + "\n")
            for name in files.stray_modules(found, course.lessons()):
                sys.stderr.write(fit(f"check: {name} is not graded: only lesson files are, and a lesson file "
                                     f"cannot import a module beside it") + "\n")
            target = found
    names = [lesson_argument(parser, args.lesson)] if args.lesson is not None else course.lessons()
    if not names:
        parser.error("no lesson has exercises yet")
    if args.task is not None:
        numbers = sorted(task_numbers(names[0]))
        if args.task not in numbers:
            parser.error(f"lesson '{names[0]}' has tasks {', '.join(map(str, numbers))}; got task {args.task}")
    records = grade(names, target, grading.limits_from(parser, args))
    if args.json:
        write(json.dumps(gradebook(records, target), indent=2, ensure_ascii=False) + "\n")
    else:
        show(records, target, narrowed=args.lesson is not None, plain=args.plain, verbose=args.verbose,
             task_number=args.task)
    focused = [t for t in records[0]["tasks"] if t["number"] == args.task] if args.task is not None else []
    if focused and records[0]["status"] in ("passed", "failing"):
        return 0 if focused[0]["passed"] else 1
    return 0 if all(r["status"] == "passed" for r in records) else 1


def task_numbers(lesson: str) -> list[int]:
    """The task numbers the lesson's grader declares."""
    from labtools.grading import harness
    return [t.number for t in harness.grader_module(lesson).TASKS]


# ------------------------------------------------------------------ hint

def _hint_level(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def load_state() -> tuple[dict, str | None]:
    """The hint levels seen, by "lesson:task", and a note when the file held something else.

    A file that is not a JSON object of whole numbers is never silently emptied: it is
    moved aside (.hints-seen.json.corrupt-...), the note says where, and the entries
    that were valid carry on. Call it under the lock (course.locked)."""
    data = files.read_bytes(HINT_STATE)
    if data is None:
        return {}, None
    try:
        state = json.loads(data.decode("utf-8"))
        problem = None if isinstance(state, dict) else f"it holds a {type(state).__name__}, not an object"
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        state, problem = {}, f"it is not valid JSON ({short(str(error), 80)})"
    if problem is None:
        bad = [key for key, value in state.items() if not _hint_level(value)]
        if bad:
            problem = (f"{len(bad)} {'entry holds' if len(bad) == 1 else 'entries hold'} no hint level "
                       f"({short(bad[0])}: {short(state[bad[0]])})")
        state = {key: value for key, value in state.items() if _hint_level(value)}
    else:
        state = {}
    if problem is None:
        return state, None
    aside = files.set_aside(HINT_STATE, "corrupt")
    kept = f"; carrying on with its {len(state)} valid entr{'y' if len(state) == 1 else 'ies'}" if state else ""
    return state, (f"note: {course.shown(HINT_STATE)} was not a record of hint levels: {problem}. It is kept as "
                   f"{course.shown(aside)}{kept}.")


def save_state(state: dict) -> None:
    """Write the hint state atomically (a reader never sees half a file). Under the lock."""
    files.replace_text(HINT_STATE, json.dumps(state, indent=1, sort_keys=True) + "\n")


def next_level(key: str, levels: int) -> tuple[int, str | None]:
    """Remember one more hint level seen for `key` (at most `levels`); (that level, a note or None)."""
    with course.locked():
        state, note = load_state()
        level = min(state.get(key, 0) + 1, levels)
        state[key] = level
        save_state(state)
    return level, note


def hint(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py hint",
        description="Show hints one level at a time, from a nudge to nearly the answer. Each call shows the "
                    "next level for the task; the levels seen are remembered in .hints-seen.json "
                    "(delete it, or use --level, to start over).")
    parser.add_argument("lesson", nargs="?", help="the lesson (default: the first with an unfinished task)")
    parser.add_argument("task", nargs="?", type=number_argument(), help="task number (default: your first unfinished task)")
    parser.add_argument("--level", type=number_argument(), help="show this level and every level before it, without remembering")
    args = parser.parse_args(argv)
    records = None
    if args.lesson is None:
        records = grade(course.lessons())
        problem = _first_problem(records)
        if problem is None:
            write(f"Every task passes; ask for a task's hints with: {RUN} hint LESSON N\n")
            return 0
        lesson = problem["lesson"]
    else:
        lesson = lesson_argument(parser, args.lesson)
    from labtools.grading import harness
    tasks = {t.number: t for t in harness.grader_module(lesson).TASKS}
    number = args.task
    if number is None:
        record = next(r for r in records if r["lesson"] == lesson) if records else grade([lesson])[0]
        failing = [t["number"] for t in record["tasks"] if not t["passed"]]
        if record["status"] == "passed":
            write(f"Every task of '{lesson}' passes; ask for a task's hints by number: "
                  f"{RUN} hint {lesson} N (N from {min(tasks)} to {max(tasks)})\n")
            return 0
        number = failing[0] if failing else min(tasks)
    if number not in tasks:
        parser.error(f"lesson '{lesson}' has tasks {', '.join(map(str, sorted(tasks)))}; got task {short(number)}")
    task = tasks[number]
    if args.level is not None:  # stateless: the file is neither read nor written
        if not 1 <= args.level <= len(task.hints):
            parser.error(f"task {number} has hint levels 1 to {len(task.hints)}; got --level {short(args.level)}")
        level = args.level
    else:
        try:
            level, note = next_level(f"{lesson}:{number}", len(task.hints))
        except files.FileProblem as problem:
            from labtools.render import fit
            sys.stderr.write(fit(f"methods.py hint: {problem}. The hint levels you have seen cannot be "
                                 f"remembered; `{RUN} hint {lesson} {number} --level N` shows levels 1 to N "
                                 f"without remembering anything.") + "\n")
            return 1
        if note:
            from labtools.render import fit
            sys.stderr.write(fit(note) + "\n")
    lines = [f"{lesson}, task {number}: {task.title} ({task.name})"]
    for shown in range(1, level + 1):
        lines.append(f"  hint {shown}/{len(task.hints)}: {task.hints[shown - 1]}")
    if level < len(task.hints):
        # With --level nothing is remembered, so the same command would show the same hints.
        lines.append(f"Hint {level + 1}: {RUN} hint {lesson} {number} --level {level + 1}" if args.level is not None
                     else f"Run the same command again for hint {level + 1}.")
    elif (course.SOLUTIONS / f"{lesson}.py").is_file():
        lines.append(f"That was the last hint. The reference answer is in solutions/{lesson}.py, "
                     f"when you are ready to compare.")
    else:  # a student release ships no answers
        lines.append("That was the last hint.")
    lines.append(f"Then check your answer: {RUN} check {lesson}")
    from labtools.render import fit
    write(fit("\n".join(lines)) + "\n")
    return 0
