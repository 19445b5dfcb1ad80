"""Without the sandbox, learner code in namespaces of its own (issue 38, item 1;
labtools/grading/isolate.py): no other process to name, no network, no file to write but its
work folder, no checkout or classmate to read, and nothing of this it can undo. Skipped where
the system makes no namespaces (isolate.probe() is None), which `grade` then says."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from helpers import ROOT
from labtools import grading
from labtools.grading import isolate

ISOLATED = isolate.probe() == []
needs_namespaces = pytest.mark.skipif(not ISOLATED, reason="this system makes no user, PID and mount namespaces")

# Appended to the reference answers: each reach it tries is printed "allowed" or "refused".
REACHES = '''
import os as _os
def _reach(what, attempt):
    try:
        attempt()
        print(what, "allowed")
    except OSError:
        print(what, "refused")
def _write(path):
    with open(path, "w") as handle:
        handle.write("planted")
_reach("signal the grading process", lambda: _os.kill(GRADER, 0))
_reach("read the grading process's fds", lambda: _os.listdir(f"/proc/{GRADER}/fd"))
_reach("read solutions/", lambda: open(SOLUTION).read())
_reach("read a classmate's file", lambda: open(CLASSMATE).read())
_reach("write the checkout", lambda: _write(PLANTED))
_reach("write a classmate's file", lambda: _write(CLASSMATE))
_reach("write its work folder", lambda: _write("mine.txt"))
print("processes", sorted(int(name) for name in _os.listdir("/proc") if name.isdigit()))
print("interfaces", sorted(line.split(":")[0].strip() for line in open("/proc/self/net/dev").readlines()[2:]))
'''


@needs_namespaces
def test_without_the_sandbox_the_learners_code_reaches_nothing_but_its_own_work_folder(tmp_path):
    solution = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8")
    classmate = tmp_path / "class" / "bob" / "context.py"
    planted = ROOT / "planted-by-a-submission.txt"
    header = (f"GRADER = {os.getpid()}\nSOLUTION = {str(ROOT / 'solutions' / 'context.py')!r}\n"
              f"CLASSMATE = {str(classmate)!r}\nPLANTED = {str(planted)!r}\n")
    submissions = []
    for student, text in (("bob", solution), ("eve", solution + header + REACHES)):
        folder = tmp_path / "class" / student
        folder.mkdir(parents=True)
        (folder / "context.py").write_text(text, encoding="utf-8")
        submissions.append(grading.Submission(student, folder, student))
    about: dict = {}
    try:
        results = grading.grade_submissions(submissions, ["context"], workers=2, about=about)
    finally:
        planted_too = planted.exists()
        planted.unlink(missing_ok=True)
    output = results["eve"][0].get("output", "")
    for reach in ("signal the grading process", "read the grading process's fds", "read solutions/",
                  "read a classmate's file", "write the checkout", "write a classmate's file"):
        assert f"{reach} refused" in output, output
    assert "write its work folder allowed" in output, output
    assert "processes [1]" in output and "interfaces ['lo']" in output, output
    assert not planted_too and classmate.read_text(encoding="utf-8") == solution
    assert all(task["passed"] for result in (results["eve"][0], results["bob"][0]) for task in result["tasks"])
    assert about["isolation"].startswith("own PID, network and mount namespaces"), about


def _in_namespaces_as_a_user(work, hidden, parent: int) -> dict:
    """What code in enter()'s namespaces can still do, as a user who is not root (as root, the
    child first becomes user 65534, so the user-namespace path is the one tested)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        seen = {}
        try:
            os.close(read_end)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setresgid(65534, 65534, 65534)
                os.setresuid(65534, 65534, 65534)
            missing = isolate.enter(str(work), [str(hidden)])
            seen["missing"] = missing
            libc = ctypes.CDLL(None, use_errno=True)
            seen["unmount the hidden folder"] = libc.umount2(str(hidden).encode(), 2) == 0
            try:
                isolate._set_read_only("/", recursive=True, read_only=False)
                seen["make / writable again"] = True
            except OSError:
                seen["make / writable again"] = False
            status = open("/proc/self/status").read()
            seen["capabilities"] = [line.split()[1] for line in status.splitlines() if line.startswith("CapEff")][0]
            seen["no_new_privs"] = [line.split()[1] for line in status.splitlines() if line.startswith("NoNewPrivs")][0]
            try:
                os.kill(parent, 0)
                seen["signal the parent"] = True
            except OSError:
                seen["signal the parent"] = False
            seen["hidden holds"] = os.listdir(hidden)
            try:
                with open(os.path.join(os.path.dirname(str(work)), "outside.txt"), "w") as handle:
                    handle.write("x")
                seen["write outside the work folder"] = True
            except OSError:
                seen["write outside the work folder"] = False
            with open("inside.txt", "w") as handle:
                handle.write("x")
            seen["wrote inside"] = True
        except BaseException as error:  # noqa: B902 - reported to the test
            seen["error"] = f"{type(error).__name__}: {error}"
        finally:
            os.write(write_end, json.dumps(seen).encode())
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as said:
        answer = json.loads(said.read() or b"{}")
    os.waitpid(pid, 0)
    return answer


@needs_namespaces
def test_code_in_the_namespaces_cannot_undo_them():
    base = Path(tempfile.mkdtemp(prefix="lab-isolation-"))  # pytest's own folder is 0700 to other users
    try:
        work, hidden = base / "work", base / "hidden"
        work.mkdir()
        hidden.mkdir()
        (hidden / "secret.txt").write_text("solutions", encoding="utf-8")
        if os.geteuid() == 0:
            os.chown(work, 65534, 65534)
            os.chmod(base, 0o755)
        seen = _in_namespaces_as_a_user(work, hidden, os.getpid())
        assert "error" not in seen, seen
        assert seen == {"missing": [], "unmount the hidden folder": False, "make / writable again": False,
                        "capabilities": "0000000000000000", "no_new_privs": "1", "signal the parent": False,
                        "hidden holds": [], "write outside the work folder": False, "wrote inside": True}
        assert not (base / "outside.txt").exists() and (work / "inside.txt").exists()
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_where_no_namespace_can_be_made_grade_says_so():
    said = grading.pool.isolation(sandbox=False, fork=True, missing=None)
    assert said.startswith("none") and "same user" in said
    assert grading.pool.isolation(sandbox=False, fork=True, missing=[]).endswith("the checkout and the class hidden")
    assert "not done: a /proc of its own" in grading.pool.isolation(False, True, ["a /proc of its own"])
