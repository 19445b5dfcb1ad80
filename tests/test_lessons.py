"""Every built lesson command: golden plain output, JSON, determinism, stdlib only, no files written.

A new lesson is covered by adding its golden file (python3 -B methods.py dev golden NAME).
"""

import json
import os
import subprocess
import sys

import pytest

from helpers import GOLDEN, ROOT, built_lessons, methods, tree_state
from devtools.dev import golden_runs

LESSONS = built_lessons()


GOLDEN_RUNS = [run for lesson in LESSONS for run in golden_runs(lesson)]


@pytest.mark.parametrize("file_name, arguments", GOLDEN_RUNS, ids=[name for name, _ in GOLDEN_RUNS])
def test_plain_output_matches_golden(file_name, arguments):
    golden = GOLDEN / file_name
    lesson = arguments[0]
    assert golden.is_file(), f"no golden output {file_name}: run `python3 -B methods.py dev golden {lesson}`"
    got = methods(*arguments).stdout.decode("utf-8")
    assert got == golden.read_text(encoding="utf-8"), (
        f"`methods.py {' '.join(arguments)}` no longer prints tests/golden/{file_name}; if the change is "
        f"intended, run `python3 -B methods.py dev golden {lesson}` and review the diff")


def test_every_lesson_with_all_has_a_golden_for_it():
    # The shortened default traces leave the rest to --all: that output is pinned as well.
    with_all = [arguments[0] for _name, arguments in GOLDEN_RUNS if "--all" in arguments]
    assert {"order", "channels", "memory", "operate"} <= set(with_all), with_all


@pytest.mark.parametrize("lesson", LESSONS)
def test_plain_is_the_default_off_a_terminal(lesson):
    assert methods(lesson).stdout == methods(lesson, "--plain").stdout


@pytest.mark.parametrize("lesson", LESSONS)
def test_json_is_the_trace_record(lesson):
    record = json.loads(methods(lesson, "--json").stdout)
    assert isinstance(record, dict) and record.get("lesson") == lesson


@pytest.mark.parametrize("lesson", LESSONS)
def test_same_bytes_under_any_hash_seed(lesson):
    outputs = {seed: (methods(lesson, env={"PYTHONHASHSEED": seed}).stdout,
                      methods(lesson, "--json", env={"PYTHONHASHSEED": seed}).stdout)
               for seed in ("0", "1", "12345")}
    assert len(set(outputs.values())) == 1, f"{lesson} prints different bytes under different PYTHONHASHSEED"


@pytest.mark.parametrize("lesson", LESSONS)
def test_runs_on_the_standard_library_alone(lesson):
    # -I -S: no site-packages (so no rich) and no script folder on sys.path.
    done = methods(lesson, flags=("-I", "-S", "-B"))
    assert done.stdout == (GOLDEN / f"{lesson}.txt").read_bytes()


@pytest.mark.parametrize("mode", ["--json", "--plain"])
@pytest.mark.parametrize("lesson", LESSONS)
def test_plain_and_json_never_import_rich(lesson, mode):
    probe = ("import runpy, sys, io, contextlib; sys.argv = ['methods.py', %r, %r]\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        runpy.run_path('methods.py', run_name='__main__')\n"
             "    except SystemExit:\n        pass\n"
             "assert 'rich' not in sys.modules, 'rich was imported'" % (lesson, mode))
    done = subprocess.run([sys.executable, "-B", "-c", probe], cwd=ROOT, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


def _on_a_terminal(*args: str, env: dict) -> str:
    """Run methods.py with stdout on a pseudo-terminal, as a person in class would."""
    import pty
    main, secondary = pty.openpty()
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", COLUMNS="120", TERM="xterm")
    environment.update(env)
    process = subprocess.Popen([sys.executable, "-B", str(ROOT / "methods.py"), *args], stdout=secondary,
                               stderr=subprocess.PIPE, cwd=ROOT, env=environment)
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the terminal closed: the process has finished writing
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(main)
    return b"".join(chunks).decode("utf-8", errors="replace")


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_rich_tables_on_a_terminal_and_plain_with_no_color():
    pytest.importorskip("rich")
    pretty = _on_a_terminal("context", env={})
    assert "\u2501" in pretty or "\u2500" in pretty, "expected rich's box-drawing table on a terminal"
    assert "returns-v1" in pretty
    plain = _on_a_terminal("context", env={"NO_COLOR": "1"})
    assert "\u2500" not in plain and "\u2501" not in plain and "-----------" in plain


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_command_writes_no_files(lesson):
    before = tree_state()
    methods(lesson, flags=())  # even without -B
    methods(lesson, "--json", flags=())
    assert tree_state() == before, f"methods.py {lesson} changed files in the project"


@pytest.mark.parametrize("lesson", LESSONS)
def test_a_lesson_imports_only_its_own_module(lesson):
    probe = ("import runpy, sys, io, contextlib\nsys.argv = ['methods.py', %r, '--plain']\n"
             "with contextlib.redirect_stdout(io.StringIO()):\n"
             "    try:\n        runpy.run_path('methods.py', run_name='__main__')\n"
             "    except SystemExit:\n        pass\n"
             "print(sorted(m for m in sys.modules if m.startswith('modules.')))" % lesson)
    done = subprocess.run([sys.executable, "-B", "-c", probe], cwd=ROOT, capture_output=True, text=True)
    loaded = eval(done.stdout.strip().splitlines()[-1])
    assert f"modules.{lesson}" in loaded
    # A lesson may build on earlier lessons' mechanisms, never on later ones.
    order = list(__import__("methods").LESSONS)
    later = [m for m in loaded if m.split(".")[1] in order and order.index(m.split(".")[1]) > order.index(lesson)]
    assert not later, f"{lesson} imports later lessons: {later}"


def test_unknown_command_and_bad_option_exit_2():
    done = methods("contxt", check=False)
    assert done.returncode == 2 and b"Did you mean 'context'" in done.stderr
    done = methods("context", "--budget", "ten", check=False)
    assert done.returncode == 2 and b"--budget" in done.stderr and b"'ten'" in done.stderr


def test_bare_command_lists_every_lesson():
    text = methods().stdout.decode()
    from methods import LESSONS
    for name, (number, about, _options) in LESSONS.items():
        assert f"{number} {name}" in text
