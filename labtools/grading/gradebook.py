"""`methods.py grade`: grade a whole class and write the gradebook.

    python3 -B methods.py grade SUBMISSIONS_DIR --out DIR [--junit FILE] [--overwrite]
                                [--jobs N] [--seconds S] [--memory MB] [--sandbox] [--single]

SUBMISSIONS_DIR holds one folder per student, named by the student's id. Each folder's lesson
files (`context.py`, ...) are graded where they are, or in a nested `exercises/` folder (a
whole checkout handed in works). With --single, SUBMISSIONS_DIR is one student's folder (what
Gradescope's autograder does). Nothing is written into SUBMISSIONS_DIR; DIR receives:

    gradebook.csv    one row per student: tasks passed per lesson, total, status, errors,
                     and the tasks whose function is a copy of one in modules/ or solutions/
    gradebook.json   every task of every student (a copied one with "copied": where from),
                     with the time, the lab's commit, the grader manifest's SHA-256, the
                     Python version and the limits used
    gradescope/ID/results.json   Gradescope's results format, one per student
                     (with --single: DIR/results.json, where Gradescope reads it)

and --junit FILE a JUnit XML report (one test case per task). An existing file is never
replaced unless --overwrite, and then only after a copy to NAME.YYYYMMDD-HHMMSS.bak. Every
file is written once, atomically, after every process the grading started has ended.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from labtools import course, grading
from labtools.grading import exports, integrity
from labtools.files import (SKIPPED_FOLDERS, FileProblem, backup_name, existing, lesson_folder, make_folder,
                            near_miss_note, replace_bytes)

STATUSES = ("complete", "incomplete", "error", "missing")
WIDTH = 80  # grade's terminal summary, as every plain output (labtools/render.py)


# ------------------------------------------------------------------ finding the submissions

def find_exercises(folder: Path, lessons: list[str]) -> tuple[Path | None, str]:
    """The folder holding a submission's lesson files, and why none was found: the one rule
    every command uses (labtools/files.py, lesson_folder)."""
    return lesson_folder(folder, lessons)


def find_submissions(root: Path, lessons: list[str], single: bool = False):
    """[(student id, folder or None, why none)] for the class folder `root` (sorted by id), and
    notes on what was passed over."""
    if single:
        folder, why = find_exercises(root, lessons)
        return [(root.resolve().name or "submission", folder, why)], []
    rows, notes = [], []
    for entry in sorted(root.iterdir(), key=lambda path: path.name):
        if entry.name.startswith(".") or entry.name in SKIPPED_FOLDERS:
            continue
        if entry.is_symlink() or not entry.is_dir():
            notes.append(f"{entry.name}: not a folder, passed over")
            continue
        folder, why = find_exercises(entry, lessons)
        rows.append((entry.name, folder, why))
    return rows, notes


# ------------------------------------------------------------------ records

def _own_files(person, folder: Path) -> tuple:
    """(lesson, path) for each lesson file of `person` not named FOLDER/LESSON.py."""
    if person is None:
        return ()
    return tuple((lesson, path) for lesson, path in sorted(person.files.items())
                 if path != folder / f"{lesson}.py" and path.parent == folder)


def write_outputs(files: dict[Path, str], earlier: set[Path]) -> tuple[list[str], list[str]]:
    """Write the gradebook files, each atomically, from this (trusted) process, whatever is at
    their paths now: a file an earlier run left (`earlier`, checked before grading) and one that
    appeared while grading (a submission writing into --out) are each moved to NAME.STAMP.bak
    first. Returns (one line on the backups kept, the names of the files that appeared)."""
    kept, foreign = [], []
    for path, text in files.items():
        make_folder(path.parent)
        if path.exists() or path.is_symlink():
            copy = backup_name(path)
            os.replace(path, copy)
            kept.append(copy)
            if path not in earlier:
                foreign.append(path.name)
        replace_bytes(path, text if isinstance(text, bytes) else text.encode("utf-8"))
    lines = []
    if kept:
        lines.append(f"kept {len(kept)} earlier file(s) beside them as NAME.STAMP.bak (e.g. {kept[0].name})")
    return lines, foreign


def student_record(student: str, root: Path, folder: Path | None, why: str, records: list[dict],
                   person=None) -> dict:
    """One student's gradebook entry from their lesson records (grading.summarize); `person`:
    what lms.read_class found of them (their LMS name and notes), when it did."""
    score = sum(r["done"] for r in records)
    maximum = sum(r["total"] for r in records)
    statuses = {r["status"] for r in records}
    if folder is None or statuses <= {"missing"}:
        status = "missing"
    elif "error" in statuses:
        status = "error"
    elif statuses == {"passed"}:
        status = "complete"
    else:
        status = "incomplete"
    errors = [f"{r['lesson']}: {r['error'].splitlines()[0]}" for r in records if r["status"] == "error"]
    if folder is None:
        errors.insert(0, why)
    for r in records:  # a near-miss name (Context.py) is named in grade as in check
        near = near_miss_note(folder, r["lesson"]) if folder is not None and r["status"] == "missing" else None
        if near and not (person and r["lesson"] in person.files):
            errors.append(f"{r['lesson']}: missing; {near}")
    notes = list(person.notes) if person is not None else []
    forged = sum(r.get("forged_lines", 0) for r in records)
    if forged:
        errors.append(f"{forged} result line(s) without this run's key were ignored (forged or printed results)")
    copied = [f"{r['lesson']} task {t['number']} ({t['name']}): {t['copied']}" for r in records for t in r["tasks"]
              if t.get("copied")]
    seconds = round(sum(t.get("seconds", 0.0) for r in records for t in r["tasks"]), 3)
    return {"student": student, "folder": _relative(folder, root) if folder else None, "status": status,
            "score": score, "max_score": maximum, "errors": errors, "copied": copied, "seconds": seconds,
            "notes": notes, "lms": person.lms if person else "folders", "name": person.name if person else student,
            "lessons": records}


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


def lab_commit() -> tuple[str | None, bool]:
    """The checkout's commit and whether it has uncommitted changes; outside git, the commit a
    builder recorded in .lab/release.json (dev gradescope, dev release), or None."""
    import subprocess
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=course.ROOT, capture_output=True, text=True, timeout=20)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=course.ROOT,
                               capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):  # no git at all (Gradescope's image may have none)
        return _built_from(), False
    if head.returncode != 0:
        return _built_from(), False
    return head.stdout.strip(), bool(dirty.stdout.strip())


def _built_from() -> str | None:
    """Outside git (a Gradescope autograder, a student release): the commit the builder recorded."""
    for where in (course.ROOT / ".lab" / "release.json", course.ROOT / "labtools" / "grading" / "built.json"):
        try:
            record = json.loads(where.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        commit = record.get("course_commit") if isinstance(record, dict) else None
        if isinstance(commit, str):
            return commit
    return None


def gradebook(students: list[dict], lessons: list[str], limits: grading.Limits, sandbox: bool,
              seconds: float, root: Path, isolation: str = "", namespaces: bool = False) -> dict:
    commit, dirty = lab_commit()
    return {"format": "context-lab gradebook", "version": 1,
            "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "lab_commit": commit, "lab_uncommitted_changes": dirty,
            "grader_manifest_sha256": integrity.manifest_sha256(),
            "graders_changed": integrity.differences(),
            "python": ".".join(map(str, sys.version_info[:3])),
            "limits": {"seconds_per_task": limits.seconds, "memory_mb": limits.memory_mb,
                       "output_chars": limits.output_chars, "sandbox": sandbox, "isolation": isolation,
                       "namespaces": namespaces},
            "submissions": str(root), "lessons": lessons, "grading_seconds": round(seconds, 3),
            "students": students}


# ------------------------------------------------------------------ writing

def outputs(out: Path, students: list[str], single: bool, junit: Path | None) -> dict[str, Path]:
    """Where each file goes: csv, json, junit, and gradescope:ID per student."""
    places = {"csv": out / "gradebook.csv", "json": out / "gradebook.json", "lms": out / "gradebook-lms.csv"}
    if single:
        places[f"gradescope:{students[0]}"] = out / "results.json"
    else:
        places.update({f"gradescope:{student}": out / "gradescope" / student / "results.json" for student in students})
    if junit is not None:
        places["junit"] = junit
    return places


def stale_junit(out: Path) -> list[Path]:
    """The JUnit report an earlier grade into `out` wrote (gradebook.json names it), if it is still
    there, and out/junit.xml: a regrade without --junit must not leave it looking current."""
    found = []
    try:
        named = json.loads((out / "gradebook.json").read_text(encoding="utf-8")).get("junit")
    except (OSError, ValueError, AttributeError):
        named = None
    for path in ([Path(named)] if isinstance(named, str) and named else []) + [out / "junit.xml"]:
        if (path.is_file() and not path.is_symlink()) and path not in found:
            found.append(path)
    return found


# ------------------------------------------------------------------ progress

class Progress:
    """On a terminal, one line that updates in place: rich's bar when rich is installed (and
    colour is wanted), else a plain line rewritten with a carriage return. Off a terminal (or
    with --plain), a count line at each tenth, for a log."""

    def __init__(self, total: int, plain: bool):
        self.total, self.bar, self.step = total, None, max(1, total // 10)
        self.inline = not plain and sys.stderr.isatty()
        if self.inline and not os.environ.get("NO_COLOR"):
            try:
                from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, \
                    TimeElapsedColumn
            except ImportError:
                pass
            else:
                from rich.console import Console
                self.bar = Bar(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                               console=Console(stderr=True), transient=True)
                self.task = self.bar.add_task("grading", total=total)
                self.bar.start()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done)
        elif self.inline:
            sys.stderr.write(f"\rgraded {done}/{total} submission(s)")
            self.shown = True
            sys.stderr.flush()
        elif done == total or done % self.step == 0:
            sys.stderr.write(f"graded {done}/{total} submission(s)\n")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
        elif self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()


# ------------------------------------------------------------------ the command

def summary(book: dict, wrote: list[str], notes: list[str], rows: int = 20) -> str:
    """The terminal's account of a run: counts, one row per student (padded by display width, the
    id escaped, the first problem in full, wrapped under its column), what was written, notes."""
    from labtools.grading.records import escaped
    from labtools.render import columns, fit, pad
    students = book["students"]
    counts = {status: sum(s["status"] == status for s in students) for status in STATUSES}
    lines = [f"Graded {len(students)} submission(s), {len(book['lessons'])} lesson(s) each, in "
             f"{book['grading_seconds']:.1f} s:", "  " + ", ".join(f"{counts[s]} {s}" for s in STATUSES), ""]
    names = [escaped(s["student"], 40) for s in students[:rows]]
    width = min(24, max([columns("student")] + [columns(name) for name in names]))
    lines.append(f"  {pad('student', width)}  {'tasks':>7}  {'status':<10}  first problem")
    for student, name in zip(students[:rows], names):
        problem = escaped(student["errors"][0] if student["errors"] else _first_failure(student), 400)
        text = f"  {pad(name, width)}  {student['score']:>3}/{student['max_score']:<3}  {student['status']:<10}  "
        # In full: wrapped under its own column rather than cut (the column starts at most 44 in).
        lines.append(fit(text + problem, WIDTH, hang=min(columns(text), 44)))
    if len(students) > rows:
        lines.append(f"  ... {len(students) - rows} more: every row is in gradebook.csv")
    lines += ["", "Wrote:"] + [f"  {line}" for line in wrote] + [f"  note: {escaped(note, 400)}" for note in notes]
    return fit("\n".join(lines), WIDTH) + "\n"


def _first_failure(student: dict) -> str:
    for lesson in student["lessons"]:
        if lesson["status"] == "missing":
            return f"{lesson['lesson']}: missing"
        for task in lesson["tasks"]:
            if not task["passed"] and lesson["status"] == "failing":
                return f"{lesson['lesson']} task {task['number']}: {task['message'].splitlines()[0]}"
    return ""


WRITES = """files written (nothing is ever written into SUBMISSIONS):
  DIR/gradebook.csv     one row per student: tasks passed per lesson, status
  DIR/gradebook.json    every task of every student, with times and limits
  DIR/gradescope/ID/results.json
                        Gradescope's format, one per student
                        (with --single: DIR/results.json)
  FILE                  with --junit FILE: a JUnit XML report, one test case
                        per task, with its time
  NAME.STAMP.bak        with --overwrite: each earlier file, kept beside it;
                        without --junit, an earlier JUnit report is moved so

Each submission is graded from a private copy of its lesson files, in a process
of its own with limits; see README, For instructors."""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="methods.py grade", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=WRITES)
    parser.add_argument("submissions", type=Path, help="folder with one subfolder per student (named by id)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="where the gradebook files go")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="also write a JUnit XML report there")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace existing gradebook files (each is first kept as NAME.STAMP.bak)")
    parser.add_argument("--single", action="store_true", help="SUBMISSIONS is one student's folder (Gradescope)")
    parser.add_argument("--jobs", type=int, default=None, metavar="N", help="grading processes (default: one per core)")
    parser.add_argument("--sandbox", action="store_true",
                        help="run each submission under bubblewrap: no network, read-only files but its scratch")
    parser.add_argument("--lesson", action="append", metavar="NAME", dest="lessons",
                        help="grade only this lesson (repeatable; default: every lesson with a grader)")
    parser.add_argument("--plain", action="store_true", help="plain progress counts even on a terminal")
    grading.add_limit_options(parser)
    args = parser.parse_args(argv)
    root = args.submissions
    if not root.is_dir():
        parser.error(f"{root} is not a folder")
    if args.jobs is not None and args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    root = root.resolve()
    out = args.out.resolve()
    if out == root or root in out.parents:
        parser.error(f"--out {args.out} is inside the submissions folder, which grading never writes to")
    if args.sandbox:
        problem = grading.sandbox_problem()
        if problem:
            sys.stderr.write(f"methods.py grade: {problem}\n")
            return 2
    lessons = grading.lessons_with_graders()
    if args.lessons:  # a lesson's number works as its name (`--lesson 01`)
        from labtools.registry import lesson_named
        args.lessons = [lesson_named(name) or name for name in args.lessons]
        unknown = [name for name in args.lessons if name not in lessons]
        if unknown:
            parser.error(f"no grader for {', '.join(unknown)}; lessons with graders: {', '.join(lessons)}")
        lessons = [name for name in lessons if name in args.lessons]  # in course order
    if args.single:
        found, notes = find_submissions(root, lessons, single=True)
        people = {}
    else:  # one folder per student, or an LMS's bulk download (labtools/grading/lms.py)
        from labtools.grading import lms
        listed, notes = lms.read_class(root, lessons)
        found = [(person.id, person.folder, person.why) for person in listed]
        people = {person.id: person for person in listed}
    if not found:
        one, _why = lesson_folder(root, lessons)
        if one is not None:
            parser.error(f"{root} holds lesson files ({_relative(one, root)}) but no student folders: to grade it "
                         f"as one student's submission, add --single")
        parser.error(f"{root} holds no student folders")
    places = outputs(out, [student for student, _folder, _why in found], args.single, args.junit)
    clash = existing(list(places.values()))
    if "junit" not in places and stale_junit(out) and not args.overwrite:
        clash += stale_junit(out)
    if clash and not args.overwrite:
        from labtools.render import fit
        sys.stderr.write(fit(f"methods.py grade: nothing graded: {len(clash)} of its files exist already in "
                             f"{out}: " + ", ".join(_relative(path, out) for path in clash[:5])
                             + (" ..." if len(clash) > 5 else "")
                             + ". Choose another --out, or add --overwrite (each is kept as NAME.STAMP.bak "
                               "first).", WIDTH) + "\n")
        return 2
    earlier = set(clash)  # what an earlier run left (replaced only with --overwrite, after a backup)
    limits = grading.limits_from(parser, args)
    before = integrity.current()
    # A student whose lesson files were not found is graded from the folder itself: every
    # lesson is then "missing", with the grader's tasks, so every row has the same maximum.
    where = {student: folder or (root if args.single else root / student) for student, folder, _why in found}
    # Paths in messages are relative to the class folder (`alice/context.py`); Gradescope's
    # single submission keeps its folder's name, which results.json then takes out.
    submissions = [grading.Submission(student, where[student],
                                      _relative(where[student], root.parent if args.single else root),
                                      _own_files(people.get(student), where[student]))
                   for student, _folder, _why in found]
    progress = Progress(len(found), args.plain)
    about: dict = {}
    started = time.perf_counter()
    try:
        results = grading.grade_submissions(submissions, lessons, limits, workers=args.jobs, sandbox=args.sandbox,
                                            progress=progress, about=about)
    except grading.HarnessError as error:
        sys.stderr.write(f"methods.py grade: {error}\n")
        return 2
    finally:
        progress.close()
    elapsed = time.perf_counter() - started
    students = []
    for student, folder, why in found:
        records = [grading.summarize(result, where[student]) for result in results[student]]
        students.append(student_record(student, root, folder, why, records, people.get(student)))
    noted = [f"{student['student']}: {note}" for student in students for note in student["notes"]]
    if noted:  # resubmission names read as lesson files, modules not graded: each row says which
        notes += noted[:3] + ([f"... {len(noted) - 3} more in gradebook.csv's notes column"] if len(noted) > 3 else [])
    book = gradebook(students, lessons, limits, args.sandbox, elapsed, root, about.get("isolation", ""),
                     about.get("namespaces", False))
    if not args.sandbox and not about.get("namespaces"):
        notes.append(f"learner code isolation: {about.get('isolation', '')}")
    from labtools.grading import gradescope
    files = {places["csv"]: exports.csv_text(book), places["json"]: exports.json_text(book),
             places["lms"]: exports.lms_csv(book)}
    for student in students:
        files[places[f"gradescope:{student['student']}"]] = json.dumps(
            gradescope.results(student, book), indent=1, ensure_ascii=False) + "\n"
    if "junit" in places:
        files[places["junit"]] = exports.junit_xml(book)
        book["junit"] = str(places["junit"])
    files[places["json"]] = exports.json_text(book)
    stale = [] if "junit" in places else stale_junit(out)
    try:
        backups, foreign = write_outputs(files, earlier)
        for path in stale:  # a JUnit report of an earlier run must not pass for this one's
            copy = backup_name(path)
            os.replace(path, copy)
            notes.append(f"this run wrote no JUnit report (no --junit): the earlier {path} was moved to {copy}")
    except (OSError, FileProblem) as error:
        from labtools.render import fit
        reason = getattr(error, "strerror", None) or str(error)
        sys.stderr.write(fit(f"methods.py grade: graded {len(students)} submission(s), but the gradebook could not "
                             f"be written into {out}: {reason}. Nothing in the class folder changed: make room "
                             f"there (or choose another --out) and grade again.", WIDTH) + "\n")
        return 1
    if foreign:
        notes.append(f"{len(foreign)} file(s) appeared in {out} while grading ({', '.join(foreign[:3])}): a "
                     f"submission may have written them. Each is kept as NAME.STAMP.bak; the gradebook is this "
                     f"run's. Grade with --sandbox to keep submissions away from --out.")
    wrote = [str(places["csv"]), str(places["json"])]
    wrote.append(str(places[f"gradescope:{found[0][0]}"]) if args.single
                 else f"{out / 'gradescope'}/ID/results.json ({len(students)} of them)")
    if "junit" in places:
        wrote.append(str(places["junit"]))
    copying = [student["student"] for student in students if student.get("copied")]
    if copying:
        notes.append(f"{len(copying)} submission(s) hold a function whose syntax tree equals one in modules/ or "
                     f"solutions/ (marked \"copied\" per task in gradebook.csv and .json; scores unchanged)")
    after = integrity.current()
    if after != before:
        notes.append("WARNING: grading files changed while grading (" + ", ".join(
            sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name)))
            + "): a submission may have written into the checkout. Restore them, then grade again with --sandbox.")
    sys.stdout.write(summary(book, wrote + backups, notes))
    warnings = integrity.warnings()
    if warnings:
        from labtools.render import fit
        sys.stdout.write(fit("\n".join(warnings), WIDTH) + "\n")
    return 0
