"""What a failing task says (issue 36 item 5, issue 38 item 8): a time-out says the task was too
slow for its limit and repeats the cost its docstring names; a crash in the learner's code names
their file and line; an answer that cannot be printed is described, never a traceback."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, methods


def _task(tmp_path, lesson: str, source: str, number: int, *extra: str) -> dict:
    (tmp_path / f"{lesson}.py").write_text(source, encoding="utf-8")
    done = methods("check", lesson, "--target", str(tmp_path), "--json", *extra, check=False)
    record = json.loads(done.stdout)["lessons"][0]
    return next(task for task in record["tasks"] if task["number"] == number)


def test_a_time_out_says_too_slow_and_repeats_the_docstrings_cost(tmp_path):
    stub = (ROOT / "exercises" / "order.py").read_text(encoding="utf-8")
    marker = 'raise NotImplementedError("reorder_for_edges'
    slow = stub.replace(marker, "while True:\n        pass\n    " + marker, 1)
    task = _task(tmp_path, "order", slow, 1, "--seconds", "1")
    message = " ".join(task["message"].split())
    assert "too slow" in message and "Run in linear time" in message
    assert "loop that never ends?" not in message


def test_a_crash_names_the_learners_line_and_an_answer_too_big_to_print_is_described(tmp_path):
    solution = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8")
    helper = "\n\ndef _share(a, b):\n    return a / 0\n"
    crashing = solution.replace("def packet_coverage(", "def packet_coverage(*args):\n    return _share(*args)"
                                                        "\n\n\ndef _unused(", 1)
    crashing = crashing.replace("def recall_at_k(", "def recall_at_k(*args, **kwargs):\n    return 10 ** 5000"
                                                    "\n\n\ndef _unused_too(", 1) + helper
    line = crashing.splitlines().index("    return a / 0") + 1
    (tmp_path / "context.py").write_text(crashing, encoding="utf-8")
    done = methods("check", "context", "--target", str(tmp_path), "--json", check=False)
    tasks = {task["number"]: task for task in json.loads(done.stdout)["lessons"][0]["tasks"]}
    assert "it raised" in tasks[1]["message"] and f"context.py, line {line}: return a / 0" in tasks[1]["message"]
    assert "Traceback" not in tasks[2]["message"] and "too long to print" in tasks[2]["message"]


def test_the_copied_mark_survives_renamed_variables():
    from labtools.grading import harness
    harness.set_references({"modules/x/mechanism.py": "def share(found, needed):\n    hits = [i for i in needed "
                                                      "if i in found]\n    total = len(hits)\n    return total\n"})
    try:
        renamed = "def share(got, want):\n    '''Mine.'''\n    ok = [x for x in want if x in got]\n    n = len(ok)\n    return n\n"
        assert harness.analyse(renamed) == {"share": "modules/x/mechanism"}
        changed = "def share(got, want):\n    ok = [x for x in want if x not in got]\n    return len(ok)\n"
        assert harness.analyse(changed) == {}
    finally:
        harness.set_references({})


def test_one_container_rule_a_list_or_a_tuple_and_any_other_type_named():
    from labtools.grading import harness
    harness.expect([1, 2], (1, 2), "f()")  # either sequence is accepted
    harness.expect((1, 2), [1, 2], "f()")
    try:
        harness.expect({1, 2}, (1, 2), "f()")
    except harness.LabFailure as failure:
        assert "got a set; the task returns a list or a tuple (either is accepted)" in str(failure)
    else:
        raise AssertionError("a set passed for a sequence")
    with pytest.raises(harness.LabFailure, match="got:      \\[1, 3\\]"):
        harness.expect([1, 3], (1, 2), "f()")  # a wrong answer in either sequence still fails
