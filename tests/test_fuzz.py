"""Every command, with random argument lists: an answer or a clear usage error, never a traceback.

The commands run in this process (methods.main), which takes a few seconds for hundreds of
argument lists where subprocesses would take minutes. They run on scratch copies
(exercises, backups, hint state, grader manifest in a temporary folder), and the work
behind the slow commands is replaced by stand-ins: grading, the maintainer check, notebook
execution, golden files, pytest, the benchmark, the mutation pass and the probes. Their
argument parsing and error handling are real. A few argument lists also go through a
real `python3 methods.py` at the end.

Exit statuses allowed: 0 (done), 1 (done, something failed or needs attention) and 2
(usage error); stderr never holds "Traceback".
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

import methods  # noqa: E402
from helpers import ROOT  # noqa: E402
from labtools import cli, course, registry, workflow  # noqa: E402
from devtools import bench, dev, devenv, mutate, notebooks, probe  # noqa: E402
from labtools.grading import integrity  # noqa: E402

LESSONS = list(registry.LESSONS)
GRADED = course.lessons()
FUZZ = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))

WORDS = [
    "", " ", "x", "help", "-h", "--help", "--", "-", "--json", "--plain", "--yes", "-y", "--all", "--force",
    "--froce", "--target", "TARGET", "/no/such/folder", "--level", "--budget", "--seed", "--as-of",
    "2026-07-01", "2026-13-40", "--query", "PW-Q002", "PW-Q999", "--solution", "--manual", "--once",
    "--interval", "0.3", "0", "1", "2", "3", "99", "-1", "1_000", " 5 ", "\u0665", "1e3", "nan", "inf",
    "9" * 5000, "18446744073709551621", "4294967295", "\u00e9t\u00e9", "\udcff", "--jobs", "--runs",
    "--trials", "--rounds", "--full", "--lesson", "-x", "-q",
] + LESSONS + list(registry.WORKFLOW)
# Values for options and positionals: plausible ones and odd ones.
VALUES = ["1", "2", "3", "5", "80", "120", "400", "0", "-1", "-0", "1_000", " 5 ", "\u0665", "9" * 5000,
          "4294967295", "4294967296", "2026-07-01", "2026-02-30", "PW-Q002", "PW-Q001", "PW-Q999", "0.3",
          "0.01", "nan", "", " ", "x", "TARGET", "/no/such/folder", "01_context", "\udcff"] + LESSONS
NOTEBOOKS = [path.stem for path in notebooks.sources()]

# Each command's words: positionals (drawn from VALUES, lessons or notebooks) and options; the
# options in TAKES_VALUE are followed by a value most of the time. A command registered without
# an entry here gets random words only. (A new command whose work is slow needs a stand-in in
# `sandbox` as well.)
GRAMMAR = {
    "check": (LESSONS, ["--target", "--json", "--plain"]),
    "hint": (LESSONS + ["1", "2", "3", "9"], ["--level"]),
    "reset": (LESSONS, ["--all", "--yes", "-y"]),
    "watch": (LESSONS, ["--manual", "--once", "--interval", "--plain"]),
    **{lesson: ([], ["--plain", "--json"] + [flag for flags, _ in registry.LESSONS[lesson][2] for flag in flags])
       for lesson in LESSONS},
    "dev sync": ([], ["--force"]),
    "dev check": (LESSONS, []),
    "dev notebooks": (NOTEBOOKS, []),
    "dev golden": (LESSONS, []),
    "dev mutants": (LESSONS, ["--jobs", "--json"]),
    "dev bench": ([], ["--runs", "--full", "--notebooks", "--tests", "--startup"]),
    "dev probe": ([], ["--trials", "--rounds", "--reset-workers", "--hint-workers", "--lesson"]),
    "dev test": ([], ["-x", "-q", "--co"]),
}
TAKES_VALUE = {"--target", "--level", "--interval", "--budget", "--seed", "--as-of", "--query", "--jobs", "--runs",
               "--trials", "--rounds", "--reset-workers", "--hint-workers", "--lesson", "--startup"}
DEV = [command.split()[1] for command in GRAMMAR if command.startswith("dev ")] + ["nosuch", "", "-h"]


@st.composite
def command_line(draw, command: str) -> list[str]:
    """`command` with words drawn from its grammar, mixed with odd ones."""
    positionals, options = GRAMMAR.get(command, ([], []))
    words = command.split()
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["positional", "positional", "option", "option", "option", "odd"]))
        if kind == "positional" and positionals:
            words.append(draw(st.sampled_from(positionals) if draw(st.integers(0, 2)) else st.sampled_from(VALUES)))
        elif kind == "option" and options:
            option = draw(st.sampled_from(options))
            words.append(option)
            if option in TAKES_VALUE and draw(st.integers(0, 9)):
                words.append(draw(st.sampled_from(VALUES[:8]) if draw(st.integers(0, 1)) else st.sampled_from(VALUES)))
        else:
            words.append(draw(token))
    return words


token = st.one_of(st.sampled_from(WORDS), st.text(st.characters(blacklist_characters="\x00"), max_size=6))
arguments = st.lists(token, max_size=5)


def _record(lesson: str, target=None) -> dict:
    """What grading a fresh stub gives, without grading: every task failing."""
    number = registry.LESSONS[lesson][0]
    return {"lesson": lesson, "number": number, "file": f"exercises/{lesson}.py", "status": "failing",
            "done": 0, "total": 2, "tests": [],
            "tasks": [{"number": n, "name": f"task{n}", "title": "a task", "passed": False,
                       "message": "called f(), got None, expected 1", "test": f"test_task{n}"} for n in (1, 2)]}


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    """Scratch places and stand-ins for the slow work, for the whole module."""
    folder = tmp_path_factory.mktemp("fuzz")
    patch = pytest.MonkeyPatch()
    exercises = folder / "exercises"
    exercises.mkdir()
    for lesson in GRADED:
        (exercises / f"{lesson}.py").write_text(course.generated_stub(lesson), encoding="utf-8")
    for module, name, value in [
        (course, "EXERCISES", exercises), (course, "BACKUPS", folder / "backups"),
        (course, "LOCK", folder / "lab.lock"), (cli, "HINT_STATE", folder / "hints.json"),
        (integrity, "MANIFEST", folder / "SHA256SUMS"),
        (cli, "grade", lambda lessons, target=None, limits=None: [_record(lesson, target) for lesson in lessons]),
        (workflow, "poll", lambda *args, **kwargs: 0), (workflow, "manual", lambda *args, **kwargs: 0),
        (dev, "check", lambda lessons=None: []), (dev, "golden", lambda names=None: ["wrote (stand-in)"]),
        (notebooks, "build", lambda names=None: []), (devenv, "run_tests", lambda args: 0),
        (mutate, "run_all", lambda lessons, jobs=None: []), (mutate, "report", lambda results: "(stand-in)\n"),
        (bench, "report", lambda *args: "(stand-in)\n"),
        (probe, "reset_trial", lambda lesson, workers=12: {"lost": False, "problems": [], "backups": 1}),
        (probe, "hint_round", lambda workers=8: {"failed": False, "problems": []}),
    ]:
        patch.setattr(module, name, value)
    yield folder
    patch.undo()


def run(argv: list[str], folder) -> tuple[int, str, str]:
    """methods.main(argv) in this process: (exit status, stdout, stderr)."""
    argv = [str(folder) if word == "TARGET" else word for word in argv]
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = methods.main(argv)
        except SystemExit as stop:
            code = stop.code
    out.flush()
    return code, out.buffer.getvalue().decode("utf-8"), err.getvalue()


def verdict(argv: list[str], folder) -> None:
    code, out, err = run(argv, folder)
    assert code in (0, 1, 2), (argv, code, err)
    assert "Traceback" not in err, (argv, err)
    if code == 2:
        assert "error" in err, (argv, err)  # a usage error says what is wrong


@FUZZ
@given(data=st.data(), lesson=st.sampled_from(LESSONS))
def test_lesson_commands(sandbox, data, lesson):
    verdict(data.draw(command_line(lesson)), sandbox)


@FUZZ
@given(data=st.data(), command=st.sampled_from([name for name in registry.WORKFLOW if name != "dev"]))
def test_workflow_commands(sandbox, data, command):
    verdict(data.draw(command_line(command)), sandbox)


@FUZZ
@given(data=st.data(), command=st.sampled_from(DEV))
def test_dev_commands(sandbox, data, command):
    argv = data.draw(command_line(f"dev {command}")) if f"dev {command}" in GRAMMAR else ["dev", command]
    verdict(argv, sandbox)


@settings(FUZZ, max_examples=60)
@given(argv=arguments)
def test_anything_at_all(sandbox, argv):
    verdict(argv, sandbox)


@pytest.mark.parametrize("argv", [
    ["context", "--budget", "\u0665"], ["check", "\u00e9t\u00e9"], ["hint", "context", "9" * 300],
    ["dev", "golden", "nolesson"], ["reset", "--all"], ["help", "me"], ["order", "--seed", "-0"],
])
def test_a_real_process_never_shows_a_traceback(argv):
    done = subprocess.run([sys.executable, "-B", str(ROOT / "methods.py"), *argv], capture_output=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode in (0, 1, 2) and b"Traceback" not in done.stderr, done.stderr.decode()
