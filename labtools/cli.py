"""The learner's workflow commands: check, hint, reset, watch (and `dev` for maintainers)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from labtools import course

HINT_STATE = course.ROOT / ".hints-seen.json"


def _bar(done: int, total: int, width: int = 20) -> str:
    filled = round(width * done / total) if total else 0
    return "[" + "#" * filled + "-" * (width - filled) + "]"


def _first_failure(results: list[dict]) -> tuple[dict, dict] | None:
    for result in results:
        if "error" in result:
            return result, {}
        for task in result["tasks"]:
            if not task["passed"]:
                test = next(t for t in result["tests"] if t["task"] == task["number"] and not t["passed"])
                return result, dict(task, message=test["message"], test=test["test"])
    return None


def _target_label(target: Path | None) -> str:
    return "exercises/" if target is None else str(target)


def check(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="methods.py check", description="Grade exercises and show progress.")
    parser.add_argument("lesson", nargs="?", help="only this lesson (default: every lesson)")
    parser.add_argument("--target", type=Path, help="grade this folder instead of exercises/ (it is never written to)")
    parser.add_argument("--json", action="store_true", help="print a per-task record for a gradebook")
    parser.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    args = parser.parse_args(argv)
    if args.target is not None and not args.target.is_dir():
        parser.error(f"--target {args.target} is not a folder")
    target = args.target.resolve() if args.target is not None else None
    names = [course.require_lesson(args.lesson)] if args.lesson else course.lessons()
    results = [course.grade(name, target) for name in names]
    passed_all = all("error" not in r and all(t["passed"] for t in r["tasks"]) for r in results)
    if args.json:
        sys.stdout.write(json.dumps({"target": _target_label(target), "passed": passed_all,
                                     "lessons": results}, indent=2) + "\n")
        return 0 if passed_all else 1
    from methods import LESSONS
    lines = [f"Context Lab progress, grading {_target_label(target)}", ""]
    for result in results:
        number = LESSONS[result["lesson"]][0]
        if "error" in result:
            lines.append(f"  {number} {result['lesson']:<12} {_bar(0, 1)}  cannot grade: see below")
            continue
        done = sum(t["passed"] for t in result["tasks"])
        total = len(result["tasks"])
        lines.append(f"  {number} {result['lesson']:<12} {_bar(done, total)}  {done}/{total} tasks")
    failure = _first_failure(results)
    lines.append("")
    if failure is None:
        lines.append(f"Every task of '{args.lesson}' passes. See the whole course: python3 -B methods.py check"
                     if args.lesson else "Every task passes. Well done.")
    else:
        result, task = failure
        lesson = result["lesson"]
        where = _target_label(target).rstrip("/")
        if not task:
            lines += [f"Lesson {lesson}: {result['error']}"]
        else:
            lines += [f"Next: {lesson}, task {task['number']}: {task['title']} ({task['name']})", ""]
            lines += ["  " + line for line in task["message"].splitlines()]
            lines += ["", f"Edit {where}/{lesson}.py ({task['name']}), then run: python3 -B methods.py check {lesson}",
                      f"Stuck? python3 -B methods.py hint {lesson} {task['number']}"]
    from labtools import integrity
    lines += integrity.warnings()
    sys.stdout.write("\n".join(lines) + "\n")
    return 0 if passed_all else 1


def _load_state() -> dict:
    try:
        state = json.loads(HINT_STATE.read_text(encoding="utf-8"))
        return state if isinstance(state, dict) else {}
    except (OSError, ValueError):
        return {}


def hint(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py hint",
        description="Show hints one level at a time. Each call shows the next level for the task; "
                    "the levels seen are remembered in .hints-seen.json (delete it, or use --level, to start over).")
    parser.add_argument("lesson")
    parser.add_argument("task", nargs="?", type=int, help="task number (default: your first unfinished task)")
    parser.add_argument("--level", type=int, help="show this level and every level before it, without remembering")
    args = parser.parse_args(argv)
    lesson = course.require_lesson(args.lesson)
    sys.path.insert(0, str(course.GRADERS))
    import _lab
    tasks = {t.number: t for t in _lab.grader_module(lesson).TASKS}
    number = args.task
    if number is None:
        result = course.grade(lesson)
        failing = [t["number"] for t in result.get("tasks", []) if not t["passed"]]
        if "error" not in result and not failing:
            sys.stdout.write(f"Every task of '{lesson}' passes; ask for a task's hints by number: "
                             f"python3 -B methods.py hint {lesson} N (N from {min(tasks)} to {max(tasks)})\n")
            return 0
        number = failing[0] if failing else min(tasks)
    if number not in tasks:
        parser.error(f"lesson '{lesson}' has tasks {', '.join(map(str, sorted(tasks)))}; got task {number}")
    task = tasks[number]
    state = _load_state()
    key = f"{lesson}:{number}"
    if args.level is not None:
        if not 1 <= args.level <= len(task.hints):
            parser.error(f"task {number} has hint levels 1 to {len(task.hints)}; got --level {args.level}")
        level = args.level
    else:
        level = min(int(state.get(key, 0)) + 1, len(task.hints))
        state[key] = level
        HINT_STATE.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    lines = [f"{lesson}, task {number}: {task.title} ({task.name})"]
    for shown in range(1, level + 1):
        lines.append(f"  hint {shown}/{len(task.hints)}: {task.hints[shown - 1]}")
    if level < len(task.hints):
        lines.append(f"Run the same command again for hint {level + 1}.")
    else:
        lines.append(f"That was the last hint. The reference answer is in solutions/{lesson}.py, "
                     f"when you are ready to compare.")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def main(command: str, argv: list[str]) -> int:
    if command == "check":
        return check(argv)
    if command == "hint":
        return hint(argv)
    if command in ("reset", "watch"):
        from labtools import workflow
        return getattr(workflow, command)(argv)
    if command == "dev":
        from labtools import dev
        return dev.main(argv)
    raise SystemExit(f"methods.py: error: unknown command {command!r}")
