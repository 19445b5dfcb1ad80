"""Gradescope: its `results.json` for one student, and the autograder zip (`dev gradescope`).

Gradescope's autograder specification (gradescope-autograders.readthedocs.io, "Autograder
Specifications"): the zip holds `setup.sh` (run once, as root, when the image is built) and an
executable `run_autograder` at its root; it is unpacked into /autograder/source, the student's
files arrive in /autograder/submission, and run_autograder must leave
/autograder/results/results.json. FIELDS below is that file's documented format; validate()
checks a results dict against it. Each task is one Gradescope test worth one point.

    python3 -B methods.py dev gradescope [--lesson NAME ...] [--out FILE] [--overwrite]

--lesson (repeatable) makes an assignment's zip: run_autograder grades only those lessons,
so a week's assignment scores that week's tasks. The zip is written outside the checkout
(by default into the system's temporary folder), never as an untracked file in it.
"""

from __future__ import annotations

import argparse
import io
import sys
import zipfile
from pathlib import Path

from labtools import course

VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")
FORMATS = ("text", "html", "simple_format", "md", "ansi")
STATUS = ("passed", "failed")
NUMBER = (int, float)
# The documented fields: name -> allowed types (a tuple of values means one of those strings).
FIELDS = {
    "score": NUMBER, "execution_time": NUMBER, "output": str, "output_format": FORMATS,
    "test_output_format": FORMATS, "test_name_format": FORMATS, "visibility": VISIBILITY,
    "stdout_visibility": VISIBILITY, "extra_data": dict, "tests": list, "leaderboard": list,
}
TEST_FIELDS = {
    "score": NUMBER, "max_score": NUMBER, "status": STATUS, "name": str, "name_format": FORMATS,
    "number": str, "output": str, "output_format": FORMATS, "tags": list, "visibility": VISIBILITY,
    "extra_data": dict,
}


def _problems(record: dict, fields: dict, where: str) -> list[str]:
    found = []
    for key, value in record.items():
        if key not in fields:
            found.append(f"{where}: {key!r} is not a documented field")
            continue
        allowed = fields[key]
        if isinstance(allowed, tuple) and allowed and isinstance(allowed[0], str):
            if value not in allowed:
                found.append(f"{where}: {key} is {value!r}, not one of {', '.join(allowed)}")
        elif isinstance(value, bool) or not isinstance(value, allowed):
            found.append(f"{where}: {key} is {type(value).__name__}, expected "
                         f"{' or '.join(t.__name__ for t in (allowed if isinstance(allowed, tuple) else (allowed,)))}")
    return found


def validate(results: dict) -> list[str]:
    """Everything in `results` that Gradescope's documented format does not allow (empty: valid)."""
    if not isinstance(results, dict):
        return [f"results must be a JSON object, got {type(results).__name__}"]
    found = _problems(results, FIELDS, "results")
    tests = results.get("tests", [])
    if "score" not in results and (not tests or any(not isinstance(t, dict) or "score" not in t for t in tests)):
        found.append("results: a top-level score is required unless every test has one")
    for index, test in enumerate(tests if isinstance(tests, list) else []):
        where = f"tests[{index}]"
        if not isinstance(test, dict):
            found.append(f"{where}: must be an object")
            continue
        found += _problems(test, TEST_FIELDS, where)
        if isinstance(test.get("tags", []), list) and not all(isinstance(tag, str) for tag in test.get("tags", [])):
            found.append(f"{where}: tags must be strings")
        score, top = test.get("score"), test.get("max_score")
        if isinstance(score, NUMBER) and isinstance(top, NUMBER) and not 0 <= score <= top:
            found.append(f"{where}: score {score} is not between 0 and max_score {top}")
    return found


def _relative(text: str, root: str | None) -> str:
    """`text` with the submissions folder's absolute path taken out, so a student reads
    `context.py` (or `alice/context.py`), never the instructor's own folders."""
    if not root:
        return text
    root = root.rstrip("/\\")
    for separator in ("/", "\\"):
        text = text.replace(root + separator, "")
    return text.replace(root, ".")


def results(student: dict, book: dict) -> dict:
    """One student's gradebook entry (gradebook.py) as Gradescope's results.json, with
    paths relative to the submissions folder."""
    made = _results(student, book)
    root = book.get("submissions")
    made["output"] = _relative(made["output"], root)
    for test in made["tests"]:
        test["output"] = _relative(test["output"], root)
    return made


def _results(student: dict, book: dict) -> dict:
    from labtools import manifest
    tests = []
    for lesson in student["lessons"]:
        for task in lesson["tasks"]:
            try:
                points, visibility = manifest.task_settings(lesson["lesson"], task["number"])
            except (KeyError, manifest.ManifestError):
                points, visibility = 1, "visible"
            if task["passed"]:
                output = "passed"
            elif lesson["status"] in ("missing", "error"):
                output = lesson["error"]
            else:
                output = task["message"] or "failed"
            tests.append({"name": f"{lesson['number']} {lesson['lesson']}, task {task['number']}: {task['title']} "
                                  f"({task['name']})",
                          "number": f"{int(lesson['number'])}.{task['number']}",
                          "score": float(points) if task["passed"] else 0.0, "max_score": float(points),
                          "status": "passed" if task["passed"] else "failed",
                          "output": output, "output_format": "text", "tags": [lesson["lesson"]],
                          "visibility": visibility})
    sandboxed = bool(book.get("limits", {}).get("sandbox"))
    lines = [f"{student['score']} of {student['max_score']} tasks pass ({student['status']}); "
             f"graded with Python {book['python']}, "
             + ("the submission's code in a bubblewrap sandbox." if sandboxed else
                "without a sandbox (bubblewrap could not run here).")]
    lines += [f"- {error}" for error in student["errors"]]
    if book.get("graders_changed"):
        lines.append("Warning: these grading files differ from the course's manifest: "
                     + ", ".join(row["file"] for row in book["graders_changed"]))
    return {"score": float(sum(test["score"] for test in tests)), "execution_time": round(student.get("seconds", 0.0), 3),
            "output": "\n".join(lines), "output_format": "text", "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests,
            "extra_data": {"lab_commit": book["lab_commit"], "grader_manifest_sha256": book["grader_manifest_sha256"],
                           "python": book["python"], "status": student["status"], "sandbox": sandboxed,
                           "isolation": book.get("limits", {}).get("isolation", "")}}


# ------------------------------------------------------------------ the autograder zip

# The first Python 3.10+ on the image (the lab's minimum); both scripts choose the same way.
FIND_PYTHON = """find_python() {
    for candidate in python3.13 python3.12 python3.11 python3.10 python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
           "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    return 1
}
"""

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image.
set -uo pipefail
""" + FIND_PYTHON + """
if ! find_python >/dev/null; then
    # The package lists of a fresh image are empty: update them before installing.
    apt-get update && apt-get install -y python3
fi
if ! PYTHON="$(find_python)"; then
    echo "Context Lab needs Python 3.10 or newer, and this image has $(python3 --version 2>&1 || echo no python3)." >&2
    echo "On Configure Autograder, choose the base image Ubuntu 22.04 (Python 3.10) or newer, then rebuild." >&2
    exit 1
fi
echo "Context Lab will grade with $PYTHON ($("$PYTHON" --version 2>&1))."
# The learner's code runs under bubblewrap where the image lets it (run_autograder checks each
# time): without it, that code runs with the grader's own rights and could set its own score.
if ! command -v bwrap >/dev/null 2>&1; then
    apt-get install -y bubblewrap >/dev/null 2>&1 || { apt-get update && apt-get install -y bubblewrap; } \
        || echo "Context Lab: could not install bubblewrap; submissions will be graded without a sandbox." >&2
fi
if command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --unshare-all --cap-drop ALL -- true >/dev/null 2>&1; then
    echo "Context Lab will grade each submission in a bubblewrap sandbox."
else
    echo "Context Lab: bubblewrap cannot make a sandbox on this image; submissions will be graded without one" >&2
    echo "(each results.json says so). See docs/instructors.md, Gradescope." >&2
fi
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission. The lab is in $ROOT/source (this zip), the
# student's files in $ROOT/submission; results.json must end up in $ROOT/results.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
""" + FIND_PYTHON + """
PYTHON="$(find_python)" || { echo "no Python 3.10+ on this image (see setup.sh)" >&2; exit 1; }
cd "$ROOT/source"
# --sandbox exactly when grade itself finds that bubblewrap works here (labtools/grading/sandbox.py).
SANDBOX=""
if "$PYTHON" -B -c 'import sys; from labtools.grading.sandbox import sandbox_problem; sys.exit(1 if sandbox_problem() else 0)' \
        >/dev/null 2>&1; then
    SANDBOX="--sandbox"
fi
exec "$PYTHON" -B methods.py grade "$ROOT/submission" --single --out "$ROOT/results" --overwrite $SANDBOX{lessons}
"""


def run_script(lessons: list[str] | None = None) -> str:
    """run_autograder, grading only `lessons` when given (an assignment of those lessons)."""
    return RUN.replace("{lessons}", "".join(f" --lesson {name}" for name in lessons or []))


# What the autograder needs of the lab to run `methods.py grade`: the command line (methods.py
# and the few labtools modules `grade` imports), this package, the lesson modules the graders
# import, the graders and the hints they read (exercises/hints). No solutions, exercise files,
# notebooks, other tests, learner commands or maintainer tools (devtools/).
INCLUDE = ("methods.py", "course.json", "pyproject.toml", "labtools/__init__.py", "labtools/course.py",
           "labtools/files.py", "labtools/main.py", "labtools/manifest.py", "labtools/registry.py",
           "labtools/render.py", "labtools/grading/*.py", "modules/**/*.py", "tests/graders/*.py",
           "exercises/hints/*.md")
RECORD_NAME = "labtools/grading/built.json"  # the course commit it was built from (the gradebook's lab_commit)


def files() -> list[str]:
    found = set()
    for pattern in INCLUDE:
        found.update(path.relative_to(course.ROOT).as_posix() for path in course.ROOT.glob(pattern)
                     if path.is_file() and "__pycache__" not in path.parts)
    return sorted(found)


def build_record(names: list[str]) -> str:
    from labtools import release
    import json
    # No lesson list: run_autograder says what it grades, and the rest of the zip stays the same
    # bytes for every assignment.
    record = {"course_commit": release.commit(), "files": names, "kind": "gradescope"}
    return json.dumps(record, indent=1, sort_keys=True) + "\n"


def autograder_zip(lessons: list[str] | None = None) -> bytes:
    """The zip Gradescope takes: setup.sh and run_autograder at its root, the lab beside them;
    with `lessons`, run_autograder grades only those. The same bytes for the same files
    (fixed dates, sorted names). It carries its own manifest (labtools/grading/SHA256SUMS,
    integrity.py) of the grading files it ships, as shipped: results.json warns of any edit."""
    from labtools.grading import integrity
    shipped = {name: (course.ROOT / name).read_bytes() for name in files()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        def add(name: str, data: bytes, mode: int) -> None:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
        add("setup.sh", SETUP.encode(), 0o755)
        add("run_autograder", run_script(lessons).encode(), 0o755)
        for name, data in sorted({**shipped, integrity.MANIFEST_NAME: integrity.manifest_for(shipped).encode()}.items()):
            add(name, data, 0o644)
        add(RECORD_NAME, build_record(sorted(shipped) + [integrity.MANIFEST_NAME]).encode(), 0o644)
    return buffer.getvalue()


def default_out(lessons: list[str] | None) -> Path:
    """Where the zip goes without --out: the system's temporary folder, outside the checkout."""
    import tempfile
    name = "context-lab-autograder" + "".join(f"-{lesson}" for lesson in lessons or []) + ".zip"
    return Path(tempfile.gettempdir()) / name


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py dev gradescope",
        description="Build the Gradescope autograder zip (setup.sh, run_autograder, the lab). With --lesson, "
                    "an assignment's zip that grades only those lessons.")
    parser.add_argument("--lesson", action="append", dest="lessons", metavar="NAME",
                        help="grade only this lesson (repeatable; default: every lesson with a grader)")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE",
                        help="where to write it, outside the checkout (default: the system's temporary "
                             "folder, e.g. /tmp/context-lab-autograder-context.zip)")
    parser.add_argument("--overwrite", action="store_true", help="replace FILE (it is first kept as FILE.STAMP.bak)")
    args = parser.parse_args(argv)
    from labtools import grading
    from labtools.files import write_files
    from labtools.render import fit
    known = grading.lessons_with_graders()
    lessons = None
    if args.lessons:  # a lesson's number works as its name (`--lesson 01`)
        from labtools.registry import lesson_named
        args.lessons = [lesson_named(name) or name for name in args.lessons]
        unknown = [name for name in args.lessons if name not in known]
        if unknown:
            parser.error(f"no grader for {', '.join(unknown)}; lessons with graders: {', '.join(known)}")
        lessons = [name for name in known if name in args.lessons]  # course order, once each
    out = (args.out or default_out(lessons)).resolve()
    if out == course.ROOT or course.ROOT in out.parents:
        parser.error(f"--out {args.out} is inside the checkout, where it would show up as an untracked file; "
                     f"write it elsewhere (default: {default_out(lessons)})")
    data = autograder_zip(lessons)
    try:
        kept = write_files({out: data}, overwrite=args.overwrite)
    except FileExistsError:
        sys.stderr.write(fit(f"methods.py dev gradescope: {out} exists; add --overwrite (it is kept as "
                             f"{out.name}.STAMP.bak first)") + "\n")
        return 2
    for line in kept:
        print(fit(line))
    graded = ", ".join(lessons) if lessons else f"all {len(known)} lessons"
    print(f"wrote {out}")
    print(fit(f"({len(data):,} bytes, {len(files())} lab files; it grades {graded}). Upload it as the "
              f"assignment's autograder: Configure Autograder, zip file upload, base image Ubuntu 22.04 or newer."))
    return 0
