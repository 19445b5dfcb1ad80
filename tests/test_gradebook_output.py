"""The gradebook, whatever a submission does (issue 38 items 4 and 8): always written, atomically,
by the trusted process, even over a file a submission planted in --out; a full disk is a
message; every message is capped and escaped in the terminal, CSV, JSON and JUnit; an answer
that cannot be printed is described, never a traceback."""

from __future__ import annotations

import csv
import errno
import io
import json
from pathlib import Path

import pytest

from helpers import methods
from labtools.grading import gradebook, records

HOSTILE = '''
def packet_coverage(packet_ids, needed_ids):
    return 10 ** 5000


def recall_at_k(*args, **kwargs):
    deep = []
    for _ in range(200000):
        deep = [deep]
    return deep


def fill_quote_budget(*args, **kwargs):
    return list(range(400000))


LABELS_QUIZ = "z"
'''


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    root, out = base / "class", base / "out"
    (root / "hostile").mkdir(parents=True)
    (root / "hostile" / "context.py").write_text(HOSTILE, encoding="utf-8")
    (root / "\r=4+5\x1b[31m").mkdir()
    (root / "\r=4+5\x1b[31m" / "context.py").write_text("LABELS_QUIZ = 'a'\n", encoding="utf-8")
    done = methods("grade", str(root), "--out", str(out), "--lesson", "context", "--junit", str(out / "junit.xml"),
                   "--plain", "--seconds", "5", check=False)
    return done, out


def test_a_file_planted_in_out_while_grading_never_stops_the_gradebook(tmp_path, monkeypatch, capsys):
    """A file appears at OUT/gradebook.csv while the class is graded (a submission run as the
    same user can write there; as root its code runs as a user of its own, which cannot)."""
    root, out = tmp_path / "class", tmp_path / "out"
    (root / "ann").mkdir(parents=True)
    (root / "ann" / "context.py").write_text("LABELS_QUIZ = 'a'\n", encoding="utf-8")
    real = gradebook.grading.grade_submissions

    def planting(*args, **kwargs):
        out.mkdir(parents=True, exist_ok=True)
        (out / "gradebook.csv").write_text("forged\n", encoding="utf-8")
        return real(*args, **kwargs)

    monkeypatch.setattr(gradebook.grading, "grade_submissions", planting)
    assert gradebook.main([str(root), "--out", str(out), "--lesson", "context", "--plain"]) == 0
    assert (out / "gradebook.csv").read_text(encoding="utf-8").startswith("student,")
    planted = list(out.glob("gradebook.csv.*.bak"))
    assert len(planted) == 1 and planted[0].read_text() == "forged\n"
    assert "appeared in" in " ".join(capsys.readouterr().out.split())


def test_messages_are_capped_escaped_and_an_unprintable_answer_is_described(graded):
    done, out = graded
    assert b"\x1b" not in done.stdout and b"\r" not in done.stdout
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    odd = next(row for row in rows if "4+5" in row[0])
    assert odd[0].startswith("'") and "\r" not in odd[0] and "\x1b" not in odd[0]
    book = json.loads((out / "gradebook.json").read_text(encoding="utf-8"))
    hostile = next(s for s in book["students"] if s["student"] == "hostile")
    messages = [task["message"] for lesson in hostile["lessons"] for task in lesson["tasks"]]
    assert all(len(message) <= records.MESSAGE_CHARS + 60 for message in messages)
    text = json.dumps(book)
    assert "Traceback" not in text and "digits, too long to print" in text
    assert (out / "gradebook.json").stat().st_size < 200_000
    assert "\x1b" not in (out / "junit.xml").read_text(encoding="utf-8")


def test_a_message_that_is_not_text_is_described():
    result = {"lesson": "context", "tasks": [{"number": 1, "name": "packet_coverage", "title": "t", "passed": False}],
              "tests": [{"task": 1, "test": "t", "passed": False, "message": {"forged": True}}]}
    record = records.summarize(result, Path("."))
    assert record["tasks"][0]["message"] == "(a dict where a message belongs, not shown)"


def test_a_full_disk_at_out_is_a_message_not_a_traceback(tmp_path, monkeypatch, capsys):
    root = tmp_path / "class"
    (root / "ann").mkdir(parents=True)
    (root / "ann" / "context.py").write_text("LABELS_QUIZ = 'a'\n", encoding="utf-8")

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(gradebook, "replace_bytes", full)
    status = gradebook.main([str(root), "--out", str(tmp_path / "out"), "--lesson", "context", "--plain"])
    err = " ".join(capsys.readouterr().err.split())
    assert status == 1 and "No space left on device" in err and "Traceback" not in err


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_is_one_line_updated_in_place(monkeypatch):
    import sys
    screen = _Terminal()
    monkeypatch.setattr(sys, "stderr", screen)
    monkeypatch.setitem(sys.modules, "rich.progress", None)  # as where rich is not installed
    progress = gradebook.Progress(34, plain=False)
    for done in range(1, 35):
        progress(done, 34)
    progress.close()
    assert screen.getvalue().count("\n") == 1 and screen.getvalue().count("\r") == 34
    assert screen.getvalue().endswith("\rgraded 34/34 submission(s)\n")


def test_the_summary_pads_by_display_width_and_shows_the_first_problem_in_full():
    from labtools.render import columns
    problem = "context: " + "a long failure message that must reach the instructor whole " * 3 + "END"
    students = [{"student": name, "score": 1, "max_score": 4, "status": "error", "errors": [problem], "lessons": []}
                for name in ("Zoë 学生", "ann")]
    text = gradebook.summary({"students": students, "lessons": ["context"], "grading_seconds": 1.0}, [], [])
    lines = text.splitlines()
    assert all(columns(line) <= 80 for line in lines)
    rows = [line for line in lines if line.startswith(("  Zoë", "  ann"))]
    assert len({columns(row.split("1/4")[0]) for row in rows}) == 1  # the tasks column lines up
    assert "END" in text and text.count("END") == 2
