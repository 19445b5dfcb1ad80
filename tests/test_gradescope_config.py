"""Gradescope as an instructor configures it (issue 37 item 4): the zip's manifest covers exactly
what it ships, so an untouched course grades with no tampering warning; results.json names the
course commit and the Python; each task's points and visibility come from course.json."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile

import pytest

from helpers import ROOT, methods
from labtools import manifest
from labtools.grading import gradescope, integrity
from labtools.grading.snapshot import is_grading_input

LESSON = "context"


def _autograde(tmp_path, archive, submission: dict[str, str]) -> dict:
    """Unpack the zip as Gradescope does (/autograder/source, submission, results) and run it."""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(root / "source")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, text in submission.items():
        (root / "submission" / name).write_text(text, encoding="utf-8")
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, timeout=300,
                          env=dict(os.environ, AUTOGRADER_ROOT=str(root)))
    assert done.returncode == 0, done.stderr.decode()
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def test_an_untouched_zip_grades_a_correct_submission_with_no_warning(tmp_path):
    archive = tmp_path / "week1.zip"
    methods("dev", "gradescope", "--lesson", LESSON, "--out", str(archive))
    with zipfile.ZipFile(archive) as bundle:
        names = set(bundle.namelist())
        listed = {line.split("  ", 1)[1] for line in bundle.read(integrity.MANIFEST_NAME).decode().splitlines()}
    assert listed == {name for name in names if is_grading_input(name)}  # exactly what it ships
    results = _autograde(tmp_path, archive, {f"{LESSON}.py": (ROOT / "solutions" / f"{LESSON}.py").read_text()})
    assert gradescope.validate(results) == []
    assert "Warning" not in results["output"], results["output"]
    assert all(test["status"] == "passed" for test in results["tests"])
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    assert results["extra_data"]["lab_commit"] == commit
    assert "graded with Python 3." in results["output"]
    from labtools.grading.sandbox import sandbox_problem  # the sandbox exactly where bubblewrap works
    assert results["extra_data"]["sandbox"] is (sandbox_problem() is None)


def test_points_and_visibility_come_from_course_json():
    data = manifest.load()
    entry = manifest.lesson(LESSON, data)
    entry["tasks"][0]["points"] = 2.5
    entry["tasks"][1]["visibility"] = "after_due_date"
    entry["tasks"][2]["visibility"] = "hidden"
    task = {"number": 1, "name": "t", "title": "T", "passed": True, "message": ""}
    student = {"score": 2, "max_score": 3, "status": "incomplete", "errors": [], "seconds": 0.1,
               "lessons": [{"lesson": LESSON, "number": "01", "status": "failing", "error": "",
                            "tasks": [task, dict(task, number=2), dict(task, number=3, passed=False)]}]}
    book = {"graders_changed": [], "lab_commit": "abc", "grader_manifest_sha256": "d", "python": "3.10.12",
            "submissions": "/x"}
    original = manifest.load
    try:
        manifest.load = lambda path=manifest.PATH: data
        made = gradescope.results(student, book)
    finally:
        manifest.load = original
    assert [(t["max_score"], t["visibility"]) for t in made["tests"]] == [(2.5, "visible"), (1.0, "after_due_date"),
                                                                          (1.0, "hidden")]
    assert made["score"] == 3.5 and gradescope.validate(made) == []


def test_course_json_refuses_a_visibility_gradescope_does_not_know():
    data = manifest.load()
    manifest.lesson(LESSON, data)["tasks"][0]["visibility"] = "secret"
    with pytest.raises(manifest.ManifestError, match="visibility"):
        manifest.check(data)
