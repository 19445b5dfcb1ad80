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
