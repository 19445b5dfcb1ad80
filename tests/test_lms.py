"""Class folders as Canvas and Moodle deliver them, read into one student id each (labtools/grading/lms.py);
the names are the ones those systems write into their bulk downloads."""

from __future__ import annotations

from pathlib import Path

from labtools.grading import lms

LESSONS = ["context", "budget", "dedupe"]


def write(path: Path, text: str = "x = 1\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_canvas_flat_download_reads_one_student_per_user_id(tmp_path):
    write(tmp_path / "doejane_12345_67890_context.py")
    write(tmp_path / "doejane_12345_67891_budget-1.py")          # handed in again
    write(tmp_path / "doejane_12345_67892_helpers.py")
    write(tmp_path / "smithjohn_LATE_23456_67893_context.py")    # late
    write(tmp_path / "login_id_34567_67894_Context.py")          # a near-miss name
    students, notes = lms.read_class(tmp_path, LESSONS)
    assert [(s.id, s.name, s.lms) for s in students] == [("12345", "doejane", "canvas"),
                                                         ("23456", "smithjohn", "canvas"),
                                                         ("34567", "login_id", "canvas")]
    jane, john, near = students
    assert jane.files == {"context": tmp_path / "doejane_12345_67890_context.py",
                          "budget": tmp_path / "doejane_12345_67891_budget-1.py"}
    assert any("budget-1.py read as budget.py" in note for note in jane.notes)
    assert any("helpers.py is not graded" in note for note in jane.notes)
    assert list(john.files) == ["context"] and notes == []
    assert near.files == {} and near.folder is None and any("must be context.py" in n for n in near.notes)
    header, cells = lms.identity_columns(students)
    assert header[:2] == ["Student", "ID"] and cells["12345"][:2] == ["doejane", "12345"]


def test_moodle_folders_and_flat_files_read_the_participant_id(tmp_path):
    write(tmp_path / "John Doe_12345_assignsubmission_file_" / "context.py")
    write(tmp_path / "John Doe_12345_assignsubmission_file_" / "budget (1).py")
    write(tmp_path / "John Doe_12345_assignsubmission_onlinetext_" / "onlinetext.html", "<p>hi</p>")
    write(tmp_path / "Zoë 学生_23456_assignsubmission_file_context.py")
    students, notes = lms.read_class(tmp_path, LESSONS)
    assert [(s.id, s.name, s.lms) for s in students] == [("12345", "John Doe", "moodle"),
                                                         ("23456", "Zoë 学生", "moodle")]
    john, zoe = students
    assert sorted(john.files) == ["budget", "context"] and any("budget (1).py read as" in n for n in john.notes)
    assert list(zoe.files) == ["context"]
    header, cells = lms.identity_columns(students)
    assert header == ["Identifier", "Full name"] and cells["12345"] == ["Participant 12345", "John Doe"]


def test_a_stray_top_level_stub_does_not_hide_a_solved_exercises_folder(tmp_path):
    for lesson in LESSONS:
        write(tmp_path / "ann" / "exercises" / f"{lesson}.py")
    write(tmp_path / "ann" / "context.py")   # a stray stub beside the solved exercises/
    students, _notes = lms.read_class(tmp_path, LESSONS)
    (ann,) = students
    assert ann.folder == tmp_path / "ann" / "exercises" and sorted(ann.files) == sorted(LESSONS)
    assert any("graded exercises/" in note and "context.py, not graded" in note for note in ann.notes)


# ------------------------------------------------------------------ grade, on those layouts

import csv  # noqa: E402
import io  # noqa: E402

from helpers import ROOT, methods  # noqa: E402


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_grade_reads_a_canvas_download_into_user_ids_with_notes_and_an_import_file(tmp_path):
    solved = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8")
    root = tmp_path / "canvas"
    write(root / "doejane_12345_67890_context-1.py", solved)          # a resubmission's name
    write(root / "doejane_12345_67891_helpers.py")
    write(root / "smithjohn_LATE_23456_67892_Context.py", solved)     # a near-miss name
    out = tmp_path / "out"
    done = methods("grade", str(root), "--out", str(out), "--lesson", "context", "--plain")
    rows = _rows(out / "gradebook.csv")
    assert [(r["student"], r["name"]) for r in rows] == [("12345", "doejane"), ("23456", "smithjohn")]
    jane, john = rows
    assert jane["status"] == "complete" and "context-1.py read as context.py" in jane["notes"]
    assert "helpers.py is not graded" in jane["notes"]
    assert john["status"] == "missing" and "must be context.py" in (john["errors"] + john["notes"])
    lms_rows = list(csv.reader(io.StringIO((out / "gradebook-lms.csv").read_text(encoding="utf-8"))))
    assert lms_rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert lms_rows[2][:2] == ["doejane", "12345"] and lms_rows[2][5] == lms_rows[1][5]  # full marks
    assert str(root) not in done.stdout.decode()  # paths relative to the class folder


def test_grade_reads_moodle_folders_into_participant_ids(tmp_path):
    solved = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8")
    root = tmp_path / "moodle"
    write(root / "John Doe_12345_assignsubmission_file_" / "context.py", solved)
    write(root / "Zoë 学生_23456_assignsubmission_file_" / "exercises" / "context.py", solved)
    write(root / "Zoë 学生_23456_assignsubmission_file_" / "context.py",
          (ROOT / "exercises" / "context.py").read_text(encoding="utf-8"))   # a stray stub on top
    out = tmp_path / "out"
    methods("grade", str(root), "--out", str(out), "--lesson", "01", "--plain")  # a number works as the name
    rows = _rows(out / "gradebook.csv")
    assert [(r["student"], r["name"], r["status"]) for r in rows] == [("12345", "John Doe", "complete"),
                                                                     ("23456", "Zoë 学生", "complete")]
    assert "graded exercises/" in rows[1]["notes"]
    lms_rows = list(csv.reader(io.StringIO((out / "gradebook-lms.csv").read_text(encoding="utf-8"))))
    assert lms_rows[0][:2] == ["Identifier", "Full name"] and lms_rows[1][:2] == ["Participant 12345", "John Doe"]
