"""Lab commands run at the same moment lose nothing: the concurrency probes, a few rounds each.

The full probes (200 reset trials, 50 hint rounds) are `python3 -B methods.py dev probe`;
here they run briefly, on scratch copies (devtools/probe.py never touches the checkout).
Before the lock, the private scratch file and exclusive backup names, one reset trial in
ten went wrong (4 of 200 lost the learner's work) and every hint round lost entries.
"""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from labtools import cli, course, workflow
from devtools import probe

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the probes fork processes")

FIRST = course.lessons()[0]


def test_twelve_resets_at_once_keep_the_work_and_one_backup():
    for _ in range(20):
        trial = probe.reset_trial(FIRST, workers=12)
        assert trial["problems"] == [] and trial["backups"] == 1, trial


def test_eight_hints_at_once_keep_every_entry():
    for _ in range(5):
        outcome = probe.hint_round(workers=8)
        assert outcome["problems"] == [], outcome


def _reset_when(go, lesson: str) -> None:
    with open(os.devnull, "w") as quiet:  # the child's report is not this test's output
        os.dup2(quiet.fileno(), 1)
    go.wait(30)
    os._exit(workflow.reset([lesson, "--yes"]))


def test_a_reset_waits_while_another_command_holds_the_lock(tmp_path):
    # Deterministic: the test holds the lock; a reset in another process must wait, then go
    # ahead. (The child is forked before the lock is taken: a lock is shared with children
    # forked while it is held.)
    with probe._Scratch(tmp_path):
        path = course.EXERCISES / f"{FIRST}.py"
        path.write_text("# mine\n", encoding="utf-8")
        context = multiprocessing.get_context("fork")
        go = context.Event()
        child = context.Process(target=_reset_when, args=(go, FIRST))
        child.start()
        with course.locked():
            go.set()
            time.sleep(0.5)
            assert child.is_alive() and path.read_text(encoding="utf-8") == "# mine\n"
            assert not course.BACKUPS.exists()
        child.join(30)
        assert child.exitcode == 0
        assert path.read_text(encoding="utf-8") == course.generated_stub(FIRST)
        assert [p.read_text(encoding="utf-8") for p in course.BACKUPS.iterdir()] == ["# mine\n"]


def test_the_probe_command_reports_its_figures(capsys):
    assert probe.main(["--trials", "2", "--saves", "3", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80, out
    out = " ".join(out.split())
    assert "2 trials, work lost in 0, any problem in 0" in out and "2 rounds, state lost or damaged in 0" in out
    assert "reset against an editor's save: 3 trials, work lost in 0, any problem in 0" in out


def test_a_few_editor_save_races_lose_nothing():
    for pause in (0.0, 0.001, 0.002, 0.004, 0.008):
        trial = probe.editor_trial(FIRST, pause)
        assert trial["problems"] == [], trial


def _editor_save(path, text: str) -> None:
    """What an editor does on save: write a temporary file beside the target, rename it over."""
    temporary = path.with_name(f".{path.name}.editor-save")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def _every_version_kept(path, versions) -> list[str]:
    kept = [copy.read_text(encoding="utf-8") for copy in course.BACKUPS.iterdir()] if course.BACKUPS.is_dir() else []
    now = path.read_text(encoding="utf-8")
    return [version for version in versions if version not in kept and version != now]


def test_an_editor_save_between_the_backup_and_the_replace_is_never_lost(tmp_path, monkeypatch, capsys):
    # Deterministic interleaving: the save lands while reset is making its backup, after it
    # read the file and before it replaces it (the window that lost 2 saves in 100 trials).
    with probe._Scratch(tmp_path):
        path = course.EXERCISES / f"{FIRST}.py"
        path.write_text("# first version\n", encoding="utf-8")
        real_backup = course.backup
        saves = []

        def backup_then_save(target, data=None):
            copy = real_backup(target, data)
            if not saves:
                saves.append(True)
                _editor_save(path, "# saved during the reset\n")
            return copy

        monkeypatch.setattr(course, "backup", backup_then_save)
        assert workflow.reset([FIRST, "--yes"]) == 0
        assert saves
        lost = _every_version_kept(path, ["# first version\n", "# saved during the reset\n"])
        assert lost == [], f"reset lost {lost}; it said:\n{capsys.readouterr().out}"


def test_an_editor_save_just_before_the_stub_goes_in_stays_in_place(tmp_path, monkeypatch, capsys):
    with probe._Scratch(tmp_path):
        path = course.EXERCISES / f"{FIRST}.py"
        path.write_text("# first version\n", encoding="utf-8")
        real_link = os.link

        def save_then_link(source, destination, *args, **kwargs):
            if os.path.abspath(destination) == str(path):
                _editor_save(path, "# saved at the last moment\n")
            return real_link(source, destination, *args, **kwargs)

        monkeypatch.setattr(os, "link", save_then_link)
        assert workflow.reset([FIRST, "--yes"]) == 0
        out = capsys.readouterr().out
        assert path.read_text(encoding="utf-8") == "# saved at the last moment\n"
        assert _every_version_kept(path, ["# first version\n"]) == []
        assert "was saved while reset ran" in out
        assert [p.name for p in course.EXERCISES.iterdir()] == [path.name]  # no scratch file left


# ------------------------------------------------------------------ odd files never block

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


def _within(seconds: float, function, *args):
    """function(*args) in a forked child; its exit status, or None when it is still blocked."""
    context = multiprocessing.get_context("fork")
    child = context.Process(target=lambda: os._exit(function(*args)))
    child.start()
    child.join(seconds)
    if child.exitcode is None:
        child.kill()
        child.join()
        return None
    return child.exitcode


@needs_fifo
def test_a_fifo_as_the_hint_state_gets_a_message_and_frees_the_lock(tmp_path, capfd):
    with probe._Scratch(tmp_path):
        os.mkfifo(cli.HINT_STATE)
        assert _within(10, cli.hint, [FIRST, "1"]) == 1  # on the code before: blocked forever
        err = capfd.readouterr().err
        assert "named pipe" in err and "Traceback" not in err
        with course.locked():  # nobody holds the lock now
            pass


@needs_fifo
def test_a_fifo_as_an_exercise_file_gets_a_message_from_reset(tmp_path, capfd):
    with probe._Scratch(tmp_path):
        os.mkfifo(course.EXERCISES / f"{FIRST}.py")
        assert _within(10, workflow.reset, [FIRST, "--yes"]) == 1
        err = capfd.readouterr().err
        assert "named pipe" in err and "Traceback" not in err


def test_reset_where_hard_links_are_refused_still_restores_the_stub(tmp_path, monkeypatch, capsys):
    # Some shared folders refuse os.link: the stub is then created exclusively instead.
    def no_links(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    with probe._Scratch(tmp_path):
        path = course.EXERCISES / f"{FIRST}.py"
        path.write_text("# mine\n", encoding="utf-8")
        monkeypatch.setattr(os, "link", no_links)
        assert workflow.reset([FIRST, "--yes"]) == 0
        assert path.read_text(encoding="utf-8") == course.generated_stub(FIRST)
        assert [p.read_text(encoding="utf-8") for p in course.BACKUPS.iterdir()] == ["# mine\n"]
        assert [p.name for p in course.EXERCISES.iterdir()] == [path.name]
