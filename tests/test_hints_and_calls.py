"""Hints as learner-facing data (exercises/hints/NAME.md) and calls shown from the arguments passed.

The hints left the graders so that editing one is a change to course text, not to grading
code: no grader manifest to regenerate. The graders build each displayed call
(`called f(...)`) from the very arguments they pass.
"""

import ast
import shutil

import pytest

from labtools.grading import harness as _lab, hints as hint_files
from labtools import cli, course, workflow
from devtools import dev
from labtools.grading import integrity

LESSONS = course.lessons()

# Hint levels per task when the hints moved out of the graders (lessons 12 and 13 came later).
LEVELS_WHEN_MOVED = {
    "context": [4, 3, 5, 3, 3],
    "budget": [4, 4, 4, 3, 5, 3],
    "dedupe": [3, 4, 4, 4, 3, 4, 3, 3],
    "versions": [4, 3, 3, 3, 2],
    "order": [4, 3, 4, 4, 3, 2],
    "packet": [3, 3, 4, 3, 4, 4, 2, 2, 3],
    "hybrid": [4, 3, 4, 2, 4, 3],
    "eligibility": [3, 3, 3, 3, 2, 3],
    "grounding": [3, 4, 4, 3, 3, 4, 3, 2, 2, 3],
    "answer": [4, 4, 4, 2, 2, 4, 3],
    "practice": [4, 4, 4, 4, 2, 2, 2, 3],
}


# ------------------------------------------------------------------ hints

@pytest.mark.parametrize("lesson", LESSONS)
def test_every_task_reads_its_hints_from_the_lessons_file(lesson):
    path = hint_files.HINTS / f"{lesson}.md"
    assert path.is_file(), f"{course.shown(path)} is missing"
    tasks = _lab.grader_module(lesson).TASKS
    sections = hint_files.read_hints(path)
    assert [(task, name) for _line, task, name, _hints in sections] == [(t.number, t.name) for t in tasks]
    for task in tasks:
        assert len(task.hints) >= 2, f"{lesson} task {task.number} has {len(task.hints)} hint level(s)"
        assert task.hints[0].rstrip().endswith("?"), f"{lesson} task {task.number}: the first level is a question"
        assert all(hint == " ".join(hint.split()) for hint in task.hints)
    if lesson in LEVELS_WHEN_MOVED:
        assert [len(t.hints) for t in tasks] == LEVELS_WHEN_MOVED[lesson]


def test_no_hint_is_left_in_grading_code():
    # Every grader takes its tasks from course.json and their hints from exercises/hints/: no
    # Task(...) with hint text is written in a grader.
    for path in sorted(course.GRADERS.glob("grade_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tasks = [node for node in ast.walk(tree) if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Task"]
        assert not tasks, course.shown(path)
        assert "TASKS = manifest_tasks(LESSON)" in path.read_text(encoding="utf-8"), course.shown(path)


def _edited_hints(tmp_path, monkeypatch):
    copy = tmp_path / "hints"
    shutil.copytree(hint_files.HINTS, copy)
    path = copy / "context.md"
    text = path.read_text(encoding="utf-8")
    first = _lab.grader_module("context").TASKS[0].hints[0]
    head, tail = first.split(" ", 1)[0], first.rsplit(" ", 1)[-1]
    start, end = text.index(f"- {head}"), text.index(tail, text.index(f"- {head}")) + len(tail)
    path.write_text(text[:start] + "- Which ids did the question need?" + text[end:], encoding="utf-8")
    monkeypatch.setattr(hint_files, "HINTS", copy)


def test_editing_a_hint_changes_what_the_learner_sees(tmp_path, monkeypatch, capsys):
    before = integrity.current()
    _edited_hints(tmp_path, monkeypatch)
    assert _lab.grader_module("context").TASKS[0].hints[0] == "Which ids did the question need?"
    assert integrity.current() == before
    # The shipped hints are in the grader manifest (a grade reads them), so an edit of the
    # real file is warned about; this test edited a copy.
    assert "exercises/hints/context.md" in before
    assert course.GRADERS not in hint_files.HINTS.parents
    monkeypatch.setattr(cli, "HINT_STATE", tmp_path / "hints.json")
    cli.hint(["context", "1", "--level", "1"])
    levels = len(_lab.grader_module("context").TASKS[0].hints)
    assert f"hint 1/{levels}: Which ids did the question need?" in capsys.readouterr().out


def test_sync_and_reset_write_exercise_files_only(tmp_path, monkeypatch):
    exercises = tmp_path / "exercises"
    shutil.copytree(hint_files.HINTS, exercises / "hints")
    (exercises / "context.py").write_text("# my work\n", encoding="utf-8")
    monkeypatch.setattr(course, "EXERCISES", exercises)
    monkeypatch.setattr(course, "BACKUPS", tmp_path / "backups")
    monkeypatch.setattr(course, "committed_text", lambda path: None)
    hints = sorted((p.name, p.read_bytes(), p.stat().st_mtime_ns) for p in (exercises / "hints").iterdir())
    dev.sync(force=True)
    assert workflow.reset(["--all", "--yes"]) == 0
    assert sorted((p.name, p.read_bytes(), p.stat().st_mtime_ns) for p in (exercises / "hints").iterdir()) == hints
    assert sorted(p.name for p in exercises.iterdir()) == sorted([f"{lesson}.py" for lesson in LESSONS] + ["hints"])


GOOD = "# Hints: demo\n\nA note.\n\n## Task 1: first\n\n- Is it?\n- Do it\n  in two lines.\n\n## Task 2: QUIZ\n\n- Why?\n- Because.\n"
DEMO = (_lab.Task(1, "first", "First"), _lab.Task(2, "QUIZ", "Quiz"))


def _demo(tmp_path, monkeypatch, text):
    monkeypatch.setattr(hint_files, "HINTS", tmp_path)
    (tmp_path / "demo.md").write_text(text, encoding="utf-8")
    return hint_files.hinted("demo", DEMO)


def test_a_hint_may_span_lines(tmp_path, monkeypatch):
    tasks = _demo(tmp_path, monkeypatch, GOOD)
    assert [t.hints for t in tasks] == [("Is it?", "Do it in two lines."), ("Why?", "Because.")]
    assert [(t.number, t.name, t.title) for t in tasks] == [(1, "first", "First"), (2, "QUIZ", "Quiz")]


@pytest.mark.parametrize("text, words", [
    (None, "demo.md does not exist"),
    (GOOD.replace("- Why?\n- Because.\n", ""), "demo.md, line 11: task 2 (QUIZ) has no hints"),
    (GOOD.replace("## Task 2: QUIZ", "## Task 3: QUIZ"), "demo.md, line 11: 'Task 3: QUIZ' is not a task of demo "
                                                         "(Task 1: first, Task 2: QUIZ)"),
    (GOOD.replace("## Task 2: QUIZ", "## Task 2: quiz"), "line 11: 'Task 2: quiz' is not a task of demo"),
    (GOOD.replace("## Task 2: QUIZ", "## Task two: QUIZ"), "demo.md, line 11: a task heading reads"),
    (GOOD.replace("- Because.", "Because."), "demo.md, line 14: under a task heading, write each hint as one '- '"),
    (GOOD.replace("  in two lines.", "* in two lines."), "demo.md, line 9: under a task heading"),
    (GOOD.replace("## Task 2: QUIZ", "## Task 1: first"), "demo.md, line 11: task 1 has a second heading"),
    (GOOD.split("## Task 2")[0], "has no '## Task 2: QUIZ' section"),
    (GOOD.replace("- Is it?", "-"), "demo.md, line 7: under a task heading"),
])
def test_a_malformed_hints_file_names_file_and_line(tmp_path, monkeypatch, text, words):
    if text is None:
        monkeypatch.setattr(hint_files, "HINTS", tmp_path)
        with pytest.raises(ValueError, match="demo.md does not exist"):
            hint_files.hinted("demo", DEMO)
        return
    with pytest.raises(ValueError) as error:
        _demo(tmp_path, monkeypatch, text)
    assert words in str(error.value)


# ------------------------------------------------------------------ calls shown as written

def _f(*args, **kwargs):
    return args, kwargs


def test_a_call_is_shown_from_the_arguments_passed():
    assert _lab.shown_call(_f, ["a", "b"], 3, k=None) == "_f(['a', 'b'], 3, k=None)"
    assert _lab.shown_call(_f, ("x",), {"a": (1, 2)}, frozenset()) == "_f(('x',), {'a': (1, 2)}, frozenset())"
    assert _lab.shown_call(_f, _lab.Shown("CANDIDATES", [1] * 500), len) == "_f(CANDIDATES, len)"


def test_long_arguments_are_shortened_with_their_size():
    many = [f"id-{number:03d}" for number in range(40)]
    shown = _lab.shown_value(many)
    assert shown.startswith("['id-000', 'id-001', ") and shown.endswith("', ...] (40 items)")
    assert _lab.shown_value("x" * 500) == "'" + "x" * 105 + "...(502 chars)"
    assert _lab.shown_value(["x" * 300]).endswith("...(302 chars)]")
    nested = _lab.shown_value({"k": list(range(1000))})
    assert nested.startswith("{'k': [0, 1, 2, ") and nested.endswith(", ...] (1000 items)}")
    assert _lab.shown_value((["a"] * 3, "b")) == "(['a', 'a', 'a'], 'b')" and _lab.shown_value(("a",)) == "('a',)"
    for value in (many, "x" * 500, {"k": list(range(1000))}, list(range(10 ** 5))):
        assert len(_lab.shown_value(value)) <= _lab.SHOWN_CHARS, value


def test_sets_are_shown_in_one_order_and_addresses_never():
    assert _lab.shown_value({"b", "c", "a"}) == "{'a', 'b', 'c'}"
    assert _lab.shown_value({1, "x"}) == "{1, 'x'}"
    assert _lab.shown_value(object()) == "<object>"
    assert _lab.shown_value(x for x in "ab") == "<generator>"


def test_expect_call_compares_like_expect_and_names_the_call():
    assert _lab.expect_call(_f, 1, want=((1,), {})) == ((1,), {})
    with pytest.raises(_lab.LabFailure) as failure:
        _lab.expect_call(_f, [1, 2], key="v", want=((1.0,), {}), why="a reason")
    assert str(failure.value).startswith("called _f([1, 2], key='v')\n  got:      (([1, 2],), {'key': 'v'})")
    assert "why: a reason" in str(failure.value)
    with pytest.raises(_lab.LabFailure, match="expected"):
        _lab.expect_call(lambda x: 1.0, 1, want=1)  # equal but another type fails, as in expect()
    passed = []
    _lab.expect_call(lambda value: passed.append(value), _lab.Shown("NAME", [7]), want=None)
    assert passed == [[7]], "a Shown argument is passed as its value"


def test_expect_call_with_raises():
    def refuse(x):
        raise ValueError("no")
    _lab.expect_call(refuse, 1, raises=ValueError)
    with pytest.raises(_lab.LabFailure, match=r"called _f\(1\)\n  it returned normally\n  expected: it raises "
                                              r"ValueError \(why\)"):
        _lab.expect_call(_f, 1, raises=ValueError, why="why")
    with pytest.raises(TypeError):
        _lab.expect_call(_f, 1)  # neither want nor raises


def test_a_stub_is_named_with_the_call_it_got():
    def stub(items):
        raise NotImplementedError
    with pytest.raises(_lab.LabFailure, match=r"stub is not written yet: it still raises NotImplementedError "
                                              r"\(called stub\(<the lesson's 8 passages>\)\)"):
        _lab.expect_call(stub, _lab.Shown("<the lesson's 8 passages>", []), want=[])


def test_the_call_is_shown_as_it_was_before_the_function_ran():
    def consume(items):
        items.clear()
        return 0
    with pytest.raises(_lab.LabFailure, match=r"called consume\(\[1, 2\]\)"):
        _lab.expect_call(consume, [1, 2], want=1)
