"""A weekly Gradescope assignment (issue 28): `dev gradescope --lesson NAME` builds a zip that,
unpacked in Gradescope's layout, grades only that lesson; setup.sh updates the package lists
before installing and says plainly when it cannot reach Python 3.10; no student reads an
instructor's absolute path; the zip is never written into the checkout."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest

from helpers import ROOT, methods
from labtools import course
from labtools.grading import gradescope

FIRST = course.lessons()[0]


def _task_count(lesson: str) -> int:
    from labtools.grading import harness
    return len(harness.grader_module(lesson).TASKS)


def _unpack(archive, root):
    """The zip as Gradescope lays it out: /autograder/source, submission, results (under root)."""
    source = root / "source"
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(source)
    for name in ("run_autograder", "setup.sh"):
        (source / name).chmod(0o755)
    (root / "submission").mkdir()
    (root / "results").mkdir()
    return source


def _run_autograder(root) -> dict:
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, timeout=300,
                          env=dict(os.environ, AUTOGRADER_ROOT=str(root)))
    assert done.returncode == 0, done.stderr.decode()
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def test_a_one_lesson_assignment_scores_only_its_lesson(tmp_path):
    archive = tmp_path / "week1.zip"
    done = methods("dev", "gradescope", "--lesson", FIRST, "--out", str(archive))
    assert str(archive) in done.stdout.decode()
    root = tmp_path / "autograder"
    _unpack(archive, root)
    shutil.copy(ROOT / "solutions" / f"{FIRST}.py", root / "submission" / f"{FIRST}.py")
    results = _run_autograder(root)
    assert gradescope.validate(results) == []
    assert {tag for test in results["tests"] for tag in test["tags"]} == {FIRST}
    assert len(results["tests"]) == _task_count(FIRST)
    assert results["score"] == _task_count(FIRST) and all(test["status"] == "passed" for test in results["tests"])
    assert f"{_task_count(FIRST)} of {_task_count(FIRST)} tasks pass" in results["output"]
    assert "Warning" not in results["output"]  # the zip's own manifest: an untouched autograder warns of nothing


def test_a_student_never_reads_an_absolute_instructor_path(tmp_path):
    archive = tmp_path / "week1.zip"
    methods("dev", "gradescope", "--lesson", FIRST, "--out", str(archive))
    root = tmp_path / "autograder"
    _unpack(archive, root)
    (root / "submission" / "notes.txt").write_text("no lesson file here\n", encoding="utf-8")
    results = _run_autograder(root)
    text = json.dumps(results)
    assert str(tmp_path) not in text, [t["output"] for t in results["tests"]][:2]
    assert results["score"] == 0 and len(results["tests"]) == _task_count(FIRST)


def test_the_zip_is_never_written_into_the_checkout(tmp_path):
    done = methods("dev", "gradescope", "--out", str(ROOT / "autograder.zip"), check=False)
    assert done.returncode == 2 and b"inside the checkout" in done.stderr
    assert not (ROOT / "autograder.zip").exists()
    assert not gradescope.default_out([FIRST]).resolve().is_relative_to(ROOT)
    with pytest.raises(SystemExit):
        gradescope.main(["--lesson", "no-such-lesson", "--out", str(tmp_path / "x.zip")])


def test_the_zips_for_all_lessons_and_for_one_differ_only_in_run_autograder():
    everything, one = gradescope.autograder_zip(), gradescope.autograder_zip([FIRST])
    import io
    with zipfile.ZipFile(io.BytesIO(everything)) as a, zipfile.ZipFile(io.BytesIO(one)) as b:
        assert a.namelist() == b.namelist()
        differ = [name for name in a.namelist() if a.read(name) != b.read(name)]
        assert differ == ["run_autograder"] and f"--lesson {FIRST}" in b.read("run_autograder").decode()


def test_setup_updates_the_package_lists_before_installing():
    setup = gradescope.SETUP
    assert "apt-get update" in setup and setup.index("apt-get update") < setup.index("apt-get install")


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_setup_says_plainly_when_it_cannot_reach_python_3_10(tmp_path):
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    # An old image: python3 is 3.8, and apt-get installs nothing newer.
    (bin_folder / "python3").write_text("#!/bin/sh\ncase \"$1\" in --version) echo 'Python 3.8.10';; "
                                        "*) exit 1;; esac\n", encoding="utf-8")
    (bin_folder / "apt-get").write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path / 'apt.log'}\n", encoding="utf-8")
    for tool in ("python3", "apt-get"):
        (bin_folder / tool).chmod(0o755)
    script = tmp_path / "setup.sh"
    script.write_text(gradescope.SETUP, encoding="utf-8")
    shell = shutil.which("bash")
    done = subprocess.run([shell, str(script)], capture_output=True, timeout=60,
                          env={"PATH": str(bin_folder), "HOME": str(tmp_path)})  # only the fakes
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert "needs Python 3.10 or newer" in err and "Python 3.8.10" in err and "Ubuntu 22.04" in err
    assert (tmp_path / "apt.log").read_text().splitlines() == ["update", "install -y python3"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_setup_finds_this_machines_python(tmp_path):
    script = tmp_path / "setup.sh"
    script.write_text(gradescope.SETUP, encoding="utf-8")
    done = subprocess.run(["bash", str(script)], capture_output=True, timeout=60,
                          env={"PATH": os.path.dirname(sys.executable) + ":/usr/bin:/bin"})
    assert done.returncode == 0 and b"will grade with" in done.stdout, done.stderr.decode()


def test_the_zip_holds_what_grading_needs_and_no_maintainer_tool_or_answer():
    # What the autograder carries, file by file: the command line `grade` needs, the grading
    # package, the lab modules, the graders and their hints. Never devtools/ (the attack
    # suite, bench, mutants, probe, scaffolding), solutions/, the stubs, notebooks or tests.
    with zipfile.ZipFile(io.BytesIO(gradescope.autograder_zip())) as bundle:
        names = bundle.namelist()
    allowed = ("setup.sh", "run_autograder", "methods.py", "course.json", "pyproject.toml")
    kinds = {name for name in names if name not in allowed
             and not name.startswith(("labtools/", "modules/", "tests/graders/grade_", "exercises/hints/"))}
    assert kinds <= {"tests/graders/conftest.py"}, sorted(kinds)
    assert not [name for name in names if name.startswith(("devtools/", "solutions/", "notebooks/"))]
    labtools = sorted(name for name in names if name.startswith("labtools/") and "/grading/" not in name)
    assert labtools == ["labtools/__init__.py", "labtools/course.py", "labtools/files.py", "labtools/main.py",
                        "labtools/manifest.py", "labtools/registry.py", "labtools/render.py"]
    assert {f"labtools/grading/{path.name}" for path in (ROOT / "labtools" / "grading").glob("*.py")} <= set(names)
    assert {f"tests/graders/grade_{lesson}.py" for lesson in course.lessons()} <= set(names)
    assert all(name.endswith(".md") for name in names if name.startswith("exercises/"))


def test_dev_in_a_copy_without_the_maintainer_tools_says_so(tmp_path):
    with zipfile.ZipFile(io.BytesIO(gradescope.autograder_zip())) as bundle:
        bundle.extractall(tmp_path)
    done = subprocess.run([sys.executable, "-B", "methods.py", "dev", "check"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "maintainer command" in done.stderr and "Traceback" not in done.stderr
