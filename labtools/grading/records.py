"""A lesson's grading result as the gradebook record `check` and `grade` print and write:
every text that came from learner code escaped for a terminal."""

from __future__ import annotations

from pathlib import Path

from labtools import course, manifest

_CONTROL = {code: f"\\x{code:02x}" for code in (*range(0x00, 0x0a), *range(0x0b, 0x20), 0x7f)}
_CONTROL[0x09] = "\\t"
MESSAGE_CHARS = 2000  # a message or a print, as the gradebook keeps it (a 400,000-item answer made 12 MB)
_CONTROL.update({code: f"\\x{code:02x}" for code in range(0x80, 0xa0)})
_CONTROL.update({code: f"\\u{code:04x}" for code in (0x200e, 0x200f, *range(0x202a, 0x202f), *range(0x2066, 0x206a))})


def escaped(text, limit: int = MESSAGE_CHARS) -> str:
    """Text that came from learner code, safe for a terminal, a spreadsheet, JSON and JUnit:
    control characters (TAB, CR, ESC, BEL, backspace, bidi overrides...) written as escapes,
    newlines kept; at most `limit` characters, then how many more there were. Anything but a
    string (a forged result's dict, say) is described as what it is, never passed on."""
    if not isinstance(text, str):
        kind = type(text).__name__
        text = f"(a {kind} where a message belongs, not shown)" if text is not None else ""
    text = text.translate(_CONTROL)
    if len(text) > limit:
        text = text[:limit] + f" ... ({len(text) - limit:,} more characters not shown)"
    return text


def summarize(result: dict, folder: Path) -> dict:
    """One lesson's grading result as a gradebook record: status (passed, failing, missing,
    error), counts, and per task whether it passed and the first failing test's message.
    Every message and print is escaped (see escaped()); a task whose function's syntax tree
    equals one in modules/ or solutions/ is marked "copied" (its score is unchanged)."""
    lesson = result["lesson"]
    path = Path(folder) / f"{lesson}.py"
    record = {"lesson": lesson, "number": manifest.number(lesson), "file": course.shown(path)}
    if result.get("kind") == "missing":
        record["status"] = "missing"
        record["error"] = f"{course.shown(path)} is missing"
    elif "error" in result:
        record["status"] = "error"
        record["error"] = escaped(result["error"])
        record["kind"] = result.get("kind", "error")
    tests = [dict(test, **{key: escaped(test[key]) for key in ("message", "output") if key in test})
             for test in result.get("tests", [])]
    copied = result.get("copied") or {}
    tasks = []
    for task in result.get("tasks", []):
        failing = [t for t in tests if t["task"] == task["number"] and not t["passed"]]
        message = failing[0]["message"] if failing else ""
        if "error" in record:
            message = record["error"]
        seconds = sum(t.get("seconds", 0.0) for t in tests if t["task"] == task["number"]
                      and isinstance(t.get("seconds"), (int, float)) and not isinstance(t.get("seconds"), bool))
        entry = {"number": task["number"], "name": task["name"], "title": task["title"],
                 "passed": task["passed"] and "error" not in record, "message": message,
                 "test": failing[0]["test"] if failing else "", "seconds": round(seconds, 3)}
        if task["name"] in copied:
            entry["copied"] = f"copied from {copied[task['name']]}"
        tasks.append(entry)
    record["done"] = sum(t["passed"] for t in tasks)
    record["total"] = len(tasks)
    if "status" not in record and not tasks:
        record["status"] = "error"
        record["kind"] = "grader"
        record["error"] = f"the grader for '{lesson}' declares no tasks"
    elif "status" not in record:
        record["status"] = "passed" if record["done"] == record["total"] else "failing"
    for key in ("output", "process_output"):
        if result.get(key):
            record[key] = escaped(result[key])
    forged = result.get("forged_lines")
    if isinstance(forged, int) and not isinstance(forged, bool) and forged > 0:
        record["forged_lines"] = forged
    record["tasks"] = tasks
    record["tests"] = tests
    return record


PRINT_LINES = 40  # of the learner's prints shown by `check --verbose`


def learner_prints(records: list[dict], max_lines: int = PRINT_LINES) -> list[str]:
    """What the learner's own code printed while graded, lesson by lesson and test by test,
    at most `max_lines` lines in all (each test's prints were already cut to a bounded size)."""
    pieces = []
    for record in records:
        if record.get("output"):
            pieces.append((f"{record['lesson']}, while importing {record['file']}", record["output"]))
        for test in record.get("tests", []):
            if test.get("output"):
                pieces.append((f"{record['lesson']}, {test['test']}", test["output"]))
        if record.get("process_output"):
            pieces.append((f"{record['lesson']}, written straight to the terminal", record["process_output"]))
    if not pieces:
        return ["", "Your code printed nothing while it was graded."]
    lines = ["", "What your code printed while it was graded:"]
    shown = 0
    for where, text in pieces:
        body = text.rstrip("\n").splitlines() or [""]
        room = max_lines - shown - 1
        if room < 1:
            lines.append(f"  ... (more not shown: at most {max_lines} lines)")
            break
        lines.append(f"  {where}:")
        lines += [f"    {line}" for line in body[:room]]
        shown += 1 + min(len(body), room)
        if len(body) > room:
            lines.append(f"    ... ({len(body) - room} more lines not shown: at most {max_lines} lines in all)")
            break
    return lines
