"""Every command reads on an 80-column terminal (issue 28).

Plain: every lesson command, the audit demo and the workflow commands (overview, help,
check, hint, reset, watch, grade, dev messages) print no line over 80 columns, and no
command to copy is split across two lines. Rich, forced at 80 columns: every table of every
lesson view shows every column title whole (words may wrap inside the header), or is
stacked row by row; no cell is cropped with an ellipsis.

"""

from __future__ import annotations

import io
import os
import re
import shutil

import pytest

from helpers import ROOT, built_lessons, methods
from labtools import cli, course, workflow
from devtools import dev
from labtools.grading import integrity

WIDTH = 80
LESSONS = built_lessons()
WITH_ALL = [name for name in ("order", "channels", "memory", "operate") if name in LESSONS]   # lessons with --all
PLAIN = {"NO_COLOR": "1", "COLUMNS": "80"}


def too_wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > WIDTH]


def split_commands(text: str) -> list[str]:
    """Lines that end inside a `python3 -B methods.py ...` command (the rest on the next line)."""
    return [line for line in text.splitlines() if re.search(r"(^|\s)(python3|python3 -B|python3 -B methods\.py)$",
                                                              line.rstrip())]


def assert_fits(text: str, what: str) -> None:
    wide = too_wide(text)
    assert not wide, f"{what} prints {len(wide)} line(s) over {WIDTH} columns, e.g. ({len(wide[0])}):\n{wide[0]}"
    split = split_commands(text)
    assert not split, f"{what} splits a command across lines:\n{split[0]}"


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_command_fits_80_columns(lesson):
    assert_fits(methods(lesson, "--plain").stdout.decode("utf-8"), f"methods.py {lesson} --plain")


@pytest.mark.parametrize("lesson", WITH_ALL)
def test_a_lesson_command_with_all_fits_80_columns(lesson):
    assert_fits(methods(lesson, "--all", "--plain").stdout.decode("utf-8"), f"methods.py {lesson} --all --plain")


def test_the_audit_demo_fits_80_columns():
    assert_fits(methods("audit", "--plain").stdout.decode("utf-8"), "methods.py audit --plain")


FIRST = course.lessons()[0]
COMMANDS = [(), ("help",), ("check", FIRST), ("check",), ("check", FIRST, "3"), ("check", "--target", "solutions"),
            ("check", FIRST, "--target", "solutions"), ("hint", FIRST, "1", "--level", "1"),
            ("hint", FIRST, "1", "--level", "3"), ("watch", FIRST, "--once"), ("dev", "probe", "--trials", "1",
                                                                               "--rounds", "1")]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda args: " ".join(args) or "overview")
def test_a_workflow_command_fits_80_columns(args):
    done = methods(*args, check=False, env=PLAIN)
    for stream in (done.stdout, done.stderr):
        assert_fits(stream.decode("utf-8"), f"methods.py {' '.join(args)}")


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """The learner's files in a short-named scratch folder inside the checkout's shape."""
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    for lesson in course.lessons():
        (exercises / f"{lesson}.py").write_text(dev.generated_stub(lesson), encoding="utf-8")
    monkeypatch.setattr(course, "EXERCISES", exercises)
    monkeypatch.setattr(course, "BACKUPS", tmp_path / "backups")
    monkeypatch.setattr(course, "LOCK", tmp_path / "lab.lock")
    monkeypatch.setattr(cli, "HINT_STATE", tmp_path / "hints.json")
    monkeypatch.setattr(integrity, "shipped", integrity.current)
    # Paths shown as they are in a checkout (exercises/NAME.py): a scratch folder's long
    # absolute path is not what a learner sees.
    monkeypatch.setattr(course, "shown", lambda path: os.path.relpath(path, tmp_path))
    monkeypatch.setattr("labtools.files.shown", lambda path: os.path.relpath(path, tmp_path))
    return exercises


def test_reset_messages_fit_80_columns(scratch, monkeypatch, capsys):
    path = scratch / f"{FIRST}.py"
    path.write_text("# mine\n", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert workflow.reset([FIRST]) == 2  # no terminal: refuses, says how to go ahead
    assert workflow.reset([FIRST, "--yes"]) == 0
    shutil.move(path, scratch / f"{FIRST.capitalize()}.py")
    assert workflow.reset([FIRST, "--yes"]) == 0  # a near-miss name, reported
    captured = capsys.readouterr()
    assert_fits(captured.out, "reset")
    assert_fits(captured.err, "reset (refusing)")


def test_check_and_hint_messages_fit_80_columns(scratch, capsys):
    cli.check([FIRST])
    cli.check([FIRST, "2"])
    cli.hint([FIRST, "1"])
    os.replace(scratch / f"{FIRST}.py", scratch / f"{FIRST} (1).py")
    cli.check([FIRST])
    captured = capsys.readouterr()
    assert_fits(captured.out, "check / hint")
    assert_fits(captured.err, "check / hint (stderr)")


def test_grade_terminal_output_fits_80_columns(tmp_path):
    for student in ("alice", "bob"):
        shutil.copytree(ROOT / "exercises", tmp_path / "class" / student)
    shutil.copy(ROOT / "solutions" / f"{FIRST}.py", tmp_path / "class" / "alice" / f"{FIRST}.py")
    done = methods("grade", str(tmp_path / "class"), "--out", str(tmp_path / "book"), "--lesson", FIRST,
                   "--plain", check=False, env=PLAIN)
    assert done.returncode in (0, 1), done.stderr.decode()
    for stream in (done.stdout, done.stderr):
        assert_fits(stream.decode("utf-8").replace(str(tmp_path), "/tmp/x"), "methods.py grade")


# ------------------------------------------------------------------ rich, forced to 80 columns

def _rich_output(blocks) -> str:
    from rich.console import Console
    from labtools import terminal
    console = Console(width=WIDTH, record=True, force_terminal=True, color_system=None, file=io.StringIO())
    terminal.render_rich(blocks, console)
    return console.export_text()


@pytest.mark.parametrize("lesson, full", [(name, False) for name in LESSONS] + [(name, True) for name in WITH_ALL])
def test_rich_at_80_columns_shows_every_column_of_every_table(lesson, full):
    pytest.importorskip("rich")
    from labtools.registry import lesson_module
    from labtools.render import cell
    module = lesson_module(lesson)
    for block in module.view(module.trace(full=True) if full else module.trace()):
        if "table" not in block:
            continue
        spec = block["table"]
        text = _rich_output([block])
        assert too_wide(text) == [], f"{lesson}: rich drew {spec.get('title')!r} wider than {WIDTH} columns"
        assert "\u2026" not in text, f"{lesson}: rich cropped a cell of {spec.get('title')!r} with an ellipsis"
        words = {word.strip(":") for word in text.split()}
        lost = [column for column in spec["columns"] if not {w.strip(":") for w in str(column).split()} <= words]
        assert not lost, f"{lesson}: table {spec.get('title')!r} lost column(s) {lost} at {WIDTH} columns"
        cut = sorted({word for row in spec["rows"] for value in row for word in cell(value).split()
                      if len(word) <= 44 and word.strip(":") not in words})
        assert not cut, f"{lesson}: table {spec.get('title')!r} cut these values at {WIDTH} columns: {cut[:5]}"


def test_a_table_too_wide_for_rich_is_stacked_not_cut():
    pytest.importorskip("rich")
    columns = [f"column {n}" for n in range(9)]
    spec = {"title": "wide", "columns": columns, "rows": [[f"value-{n}-abcdefgh" for n in range(9)]]}
    text = _rich_output([{"table": spec}])
    assert "-- row 1 of 1" in text and all(column in text for column in columns)
    assert all(f"value-{n}-abcdefgh" in text for n in range(9)) and too_wide(text) == []


def test_check_under_rich_wraps_at_80_columns(scratch):
    pytest.importorskip("rich")
    from rich.console import Console
    console = Console(width=WIDTH, record=True, force_terminal=True, color_system=None, file=io.StringIO())
    records = cli.grade([FIRST])
    cli.render_rich(cli.report(records, narrowed=True), console)
    text = console.export_text()
    assert_fits(text, "check under rich")
    assert f"{FIRST}, task 1 of" in text


def test_watch_messages_fit_80_columns(scratch, capsys):
    def interrupted(seconds):
        raise KeyboardInterrupt

    workflow.watch([FIRST], sleep=interrupted)
    workflow.watch([], sleep=interrupted)
    assert_fits(capsys.readouterr().out, "watch")
    done = methods("watch", FIRST, "--manual", check=False, env=PLAIN)  # no input: it stops at once
    assert_fits(done.stdout.decode("utf-8"), "watch --manual")


def test_dev_gradescope_messages_fit_80_columns(tmp_path):
    archive = tmp_path / "a.zip"
    for overwrite in ((), ("--overwrite",)):
        done = methods("dev", "gradescope", "--lesson", FIRST, "--out", str(archive), *overwrite, env=PLAIN)
        assert_fits(done.stdout.decode("utf-8").replace(str(tmp_path), "/tmp/x"), "dev gradescope")
    done = methods("dev", "gradescope", "--lesson", FIRST, "--out", str(archive), check=False, env=PLAIN)
    assert done.returncode == 2
    assert_fits(done.stderr.decode("utf-8").replace(str(tmp_path), "/tmp/x"), "dev gradescope (exists)")
