"""The gradebook as the files `grade` writes: CSV (one row per student), JSON (everything),
JUnit XML (one test case per task). Gradescope's results.json is gradescope.py's."""

from __future__ import annotations

import csv
import io
import json


def _cell(value) -> str:
    from labtools.grading.records import escaped
    text = str(value)
    # A spreadsheet reads a leading = + - @ (or a TAB or CR before one) as a formula: a student's
    # folder name or message must stay text. Control characters are escaped, so a CR or TAB in a
    # folder name never starts a new row or cell in a spreadsheet that splits on them.
    formula = text[:1] in ("=", "+", "-", "@", "\t", "\r")
    text = escaped(text)
    return "'" + text if formula else text


def csv_text(book: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    lessons = book["lessons"]
    writer.writerow(["student", *lessons, "total", "max", "status", "errors", "copied", "name", "notes"])
    for student in book["students"]:
        done = {r["lesson"]: r["done"] for r in student["lessons"]}
        writer.writerow([_cell(student["student"]), *(done.get(lesson, 0) for lesson in lessons),
                         student["score"], student["max_score"], student["status"],
                         _cell(" | ".join(student["errors"])), _cell(" | ".join(student.get("copied", []))),
                         _cell(student.get("name", student["student"])), _cell(" | ".join(student.get("notes", [])))])
    return out.getvalue()


def points(student: dict) -> tuple[float, float]:
    """(points earned, points possible) of a student, each task weighted by course.json's points."""
    from labtools import manifest
    earned = possible = 0.0
    for lesson in student["lessons"]:
        for task in lesson["tasks"]:
            try:
                weight = manifest.task_settings(lesson["lesson"], task["number"])[0]
            except (KeyError, manifest.ManifestError):
                weight = 1
            possible += weight
            earned += weight if task["passed"] else 0
    return earned, possible


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


ASSIGNMENT = "Context Lab"  # the grade column's name: Canvas makes an assignment of a new column


def lms_csv(book: dict) -> str:
    """gradebook-lms.csv: the columns the class's LMS imports by. Canvas's gradebook import (a
    class from Canvas, or one folder per student): Student, ID, SIS User ID, SIS Login ID,
    Section, then the grade; Canvas matches ID (its user id) or, where ID is empty, SIS Login
    ID (a folder's name, as GitHub Classroom names them by login). Moodle's assignment grading
    worksheet (a class from Moodle): Identifier ("Participant N"), Full name, Grade, Maximum
    Grade, Feedback comments."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    students = book["students"]
    kinds = {student.get("lms", "folders") for student in students}
    if kinds == {"moodle"}:
        writer.writerow(["Identifier", "Full name", "Grade", "Maximum Grade", "Feedback comments"])
        for student in students:
            earned, possible = points(student)
            writer.writerow([f"Participant {student['student']}", _cell(student.get("name", student["student"])),
                             _number(earned), _number(possible), _cell(_feedback(student))])
        return out.getvalue()
    possible = max([points(student)[1] for student in students] or [0])
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{ASSIGNMENT} ({_number(possible)})"])
    writer.writerow(["Points Possible", "", "", "", "", _number(possible)])
    for student in students:
        canvas = student.get("lms") == "canvas"
        writer.writerow([_cell(student.get("name", student["student"])), student["student"] if canvas else "", "",
                         "" if canvas else _cell(student["student"]), "", _number(points(student)[0])])
    return out.getvalue()


def _feedback(student: dict) -> str:
    return f"{student['score']} of {student['max_score']} tasks pass ({student['status']})"


def _xml_text(text: str) -> str:
    # XML 1.0 has no place for most control characters: a learner's output may hold any.
    return "".join(ch if ch in "\t\n\r" or (ord(ch) >= 0x20 and ord(ch) not in (0xFFFE, 0xFFFF)
                                            and not 0xD800 <= ord(ch) <= 0xDFFF) else "\ufffd" for ch in text)


def junit_xml(book: dict) -> str:
    """One <testsuite> per student, one <testcase> per task: <failure> for a failing task,
    <error> for a lesson that could not be graded (or is missing)."""
    from xml.etree import ElementTree as ET
    suites = ET.Element("testsuites", name="Context Lab")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    total_seconds = 0.0
    for student in book["students"]:
        suite = ET.SubElement(suites, "testsuite", name=_xml_text(student["student"]))
        counts = {"tests": 0, "failures": 0, "errors": 0}
        seconds = 0.0
        for lesson in student["lessons"]:
            for task in lesson["tasks"]:
                case = ET.SubElement(suite, "testcase", classname=_xml_text(f"{student['student']}.{lesson['lesson']}"),
                                     name=_xml_text(f"task {task['number']}: {task['name']}"),
                                     time=f"{task.get('seconds', 0.0):.3f}")
                seconds += task.get("seconds", 0.0)
                counts["tests"] += 1
                if task["passed"]:
                    continue
                kind = "error" if lesson["status"] in ("error", "missing") else "failure"
                counts["errors" if kind == "error" else "failures"] += 1
                message = task["message"] or "failed"
                element = ET.SubElement(case, kind, message=_xml_text(message.splitlines()[0]),
                                        type=lesson.get("kind", lesson["status"]) if kind == "error" else "failing")
                element.text = _xml_text(message)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", f"{seconds:.3f}")
        total_seconds += seconds
    for key, value in totals.items():
        suites.set(key, str(value))
    suites.set("time", f"{total_seconds:.3f}")
    ET.indent(suites) if hasattr(ET, "indent") else None
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def json_text(book: dict) -> str:
    return json.dumps(book, indent=1, ensure_ascii=False) + "\n"


# GitHub Classroom's autograding (.github/classroom/autograding.json, run by the
# education/autograding action): one test per task; a test with no expected output passes
# when its command exits 0, which `check --target . LESSON TASK` does exactly when that task
# passes. "timeout" is in minutes.
CLASSROOM_TIMEOUT_MINUTES = 2


def classroom_json(lessons: list[str]) -> str:
    """autograding.json for `lessons`: one test per task, worth its course.json points."""
    from labtools import manifest
    tests = []
    for lesson in lessons:
        number = manifest.number(lesson)
        for task, name, _kind, title in manifest.tasks(lesson):
            points, _visibility = manifest.task_settings(lesson, task)
            tests.append({"name": f"{number} {lesson}, task {task}: {title} ({name})", "setup": "",
                          "run": f"python3 -B methods.py check --target . {lesson} {task}",
                          "input": "", "output": "", "comparison": "included",
                          "timeout": CLASSROOM_TIMEOUT_MINUTES, "points": points})
    return json.dumps({"tests": tests}, indent=2, ensure_ascii=False) + "\n"
