"""Lab commands run at the same moment lose nothing: the concurrency probes, a few rounds each.

The full probes (200 reset trials, 50 hint rounds) are `python3 -B methods.py dev probe`;
here they run briefly, on scratch copies (labtools/probe.py never touches the checkout).
Before the lock, the private scratch file and exclusive backup names, one reset trial in
ten went wrong (4 of 200 lost the learner's work) and every hint round lost entries.
"""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from labtools import course, probe, workflow

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
    assert probe.main(["--trials", "2", "--rounds", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 trials, work lost in 0, any problem in 0" in out and "2 rounds, state lost or damaged in 0" in out
