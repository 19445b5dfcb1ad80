"""The graders reject small changes to the answers: the mutation pass, and the machinery under it.

`python3 -B methods.py dev mutants` prints the same report this test asserts on.
"""

import ast
import functools

import pytest

from labtools import course, dev, mutate

LESSONS = course.lessons()


@functools.lru_cache(maxsize=None)
def _results() -> dict:
    # Every lesson at once, two worker processes side by side: one pass serves every test below.
    return {result["lesson"]: result for result in mutate.run_all(LESSONS, jobs=2)}


@pytest.mark.parametrize("lesson", LESSONS)
def test_graders_reject_at_least_90_percent_of_mutants(lesson):
    result = _results()[lesson]
    assert "error" not in result, result.get("error")
    assert result["mutants"] >= 5, f"only {result['mutants']} mutants of solutions/{lesson}.py: are its answer regions marked?"
    assert result["share"] >= mutate.TARGET, (
        f"the graders of {lesson} reject {result['rejected']} of {result['mutants'] - result['equivalent']} mutants "
        f"({result['share']:.1%}, below {mutate.TARGET:.0%}).\n" + mutate.report([result]))


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_listed_equivalent_mutant_still_exists_and_has_a_reason(lesson):
    result = _results()[lesson]
    assert not result.get("stale_equivalents"), (
        f"EQUIVALENT_MUTANTS of tests/wrong_answers/{lesson}.py lists mutants that no longer survive (remove them): "
        + "; ".join(result["stale_equivalents"]))
    for entry in mutate.equivalent(lesson):
        assert len(entry.get("why", "").split()) >= 4, f"equivalent mutant without a reviewed reason: {entry}"


SAMPLE = '''"""A sample lesson file."""

def pick(items, limit, flag=True):
    """Task 1."""
    # BEGIN SOLUTION
    kept, used = [], 0
    for item in items[:limit]:
        if item < 0 or not flag:
            continue
        if used + item <= limit and item in items:
            kept.append(item)
            used += item * 2
        else:
            break
    return min(kept), kept[1:limit], "tag"
    # END SOLUTION


def untouched(x):
    return x + 1 < 2


# BEGIN SOLUTION
QUIZ = "b"
# END SOLUTION
'''


def test_every_operator_makes_mutants_inside_answer_regions_only():
    made = mutate.mutants("sample", SAMPLE)
    kinds = {m.kind for m in made}
    assert kinds == {"compare", "arith", "logic", "constant", "slice", "call", "flow", "return", "delete"}, kinds
    region = range(6, 15 + 1)
    original = SAMPLE.splitlines()
    for mutant in made:
        ast.parse(mutant.source)
        assert mutant.source != SAMPLE and mutant.before != mutant.after
        assert mutant.line in region or mutant.where == "<module>", mutant.shown()
        # Outside the answer regions nothing changes: the line before `def untouched` onwards
        # (up to the quiz) is the same text.
        assert "def untouched(x):\n    return x + 1 < 2\n" in mutant.source
    pairs = {(m.kind, m.after) for m in made}
    assert ("compare", "if used + item < limit and item in items:") in pairs
    assert ("compare", "if used + item <= limit and item not in items:") in pairs
    assert ("arith", "used -= item * 2") in pairs and ("arith", "used += item / 2") in pairs
    assert ("logic", "if item < 0 and (not flag):") in pairs or ("logic", "if item < 0 and not flag:") in pairs
    assert ("flow", "break") in pairs and ("flow", "continue") in pairs
    assert ("slice", "for item in items[:limit + 1]:") in pairs
    assert ("call", 'return max(kept), kept[1:limit], "tag"') in pairs
    assert ("return", "return None") in pairs
    assert ("constant", "QUIZ = 'XXbXX'") in pairs
    assert len({m.source for m in made}) == len(made), "the same mutant was made twice"
    assert original == SAMPLE.splitlines()


def test_mutant_text_keeps_the_file_shape_except_the_change():
    made = mutate.mutants("context")
    text = (course.SOLUTIONS / "context.py").read_text(encoding="utf-8")
    for mutant in made:
        if mutant.kind not in ("delete",):
            assert len(mutant.source.splitlines()) == len(text.splitlines()), mutant.shown()


def _solution():
    path = course.SOLUTIONS / "context.py"
    return str(path), path.read_text(encoding="utf-8")


def test_batch_grading_tells_right_from_wrong_and_survives_loops_and_crashes():
    path, text = _solution()
    looping = text.replace("    relevant = set(relevant_ids)\n    if not relevant:",
                           "    relevant = set(relevant_ids)\n    while True:\n        pass\n    if not relevant:")
    dying = text.replace("    relevant = set(relevant_ids)\n    if k < 1:",
                         "    relevant = set(relevant_ids)\n    import os; os._exit(3)\n    if k < 1:")
    harmless = text.replace("packet, skipped, used = [], [], 0", "packet, skipped, used = list(), [], 0")
    assert looping != text and dying != text and harmless != text
    outcomes = mutate.grade_sources("context", [(path, text), (path, looping), (path, dying), (path, harmless),
                                                (path, dev.generated_stub("context"))], seconds=1.0)
    assert not mutate.rejected(outcomes[0])
    assert mutate.rejected(outcomes[1]) and outcomes[1].get("overtime"), outcomes[1]
    assert mutate.rejected(outcomes[2]) and "died" in outcomes[2]["error"], outcomes[2]
    assert not mutate.rejected(outcomes[3]), "a change that alters nothing must pass"
    assert mutate.rejected(outcomes[4]) and all(not t["passed"] for t in outcomes[4]["tests"])


def test_batch_grading_agrees_with_one_process_per_file():
    path, text = _solution()
    wrongs = dev._load_catalogue("context")[:3]
    variants = [dev.apply_wrong_answer(text, wrong) for wrong in wrongs]
    batched = mutate.grade_sources("context", [(path, variant) for variant in variants])
    for wrong, variant, together in zip(wrongs, variants, batched):
        alone = dev._grade_text("context", variant)
        assert [(t["test"], t["passed"]) for t in alone["tests"]] == \
               [(t["test"], t["passed"]) for t in together["tests"]], wrong["name"]
    # rejected(outcome, task) looks at that task's tests only.
    assert wrongs[0]["task"] == 1 and mutate.rejected(batched[0], 1) and not mutate.rejected(batched[0], 2)
    # Only one task's tests, up to the first failure: the same verdict from fewer tests.
    only = mutate.grade_sources("context", [(path, variants[0], {"tasks": [1], "first_failure": True})])[0]
    assert mutate.rejected(only, 1) and {t["task"] for t in only["tests"]} == {1}
    # Stopping at the first failure keeps the verdict and runs fewer tests.
    quick = mutate.grade_sources("context", [(path, variants[0])], first_failure=True)[0]
    assert mutate.rejected(quick) and len(quick["tests"]) <= len(batched[0]["tests"])
    assert not quick["tests"][-1]["passed"] and all(t["passed"] for t in quick["tests"][:-1])


def test_a_learner_dataclass_loads_in_a_batch():
    # @dataclass with postponed annotations looks its module up in sys.modules while it runs.
    path, text = _solution()
    with_class = text.replace("from fractions import Fraction\n",
                              "from __future__ import annotations\nfrom dataclasses import dataclass\n"
                              "from fractions import Fraction\n\n\n@dataclass(frozen=True)\nclass Note:\n"
                              "    words: str\n", 1)
    assert with_class != text
    assert not mutate.rejected(mutate.grade_sources("context", [(path, with_class)])[0])


def test_report_names_each_survivor_and_the_files_to_edit():
    result = {"lesson": "demo", "mutants": 20, "equivalent": 1, "rejected": 17, "share": 17 / 19, "overtime": 0,
              "seconds": 0.1, "survivor_lines": ["line 9 (f, compare): if a < b:  ->  if a <= b:"],
              "equivalents": [], "stale_equivalents": []}
    text = mutate.report([result])
    assert "17/19" in text and "below 90%" in text
    assert "line 9 (f, compare): if a < b:  ->  if a <= b:" in text
    assert "tests/graders/grade_demo.py" in text and "EQUIVALENT_MUTANTS of tests/wrong_answers/demo.py" in text


def test_long_lines_show_the_change():
    line = "return Record(" + ", ".join(f"field{i}" for i in range(30)) + ")"
    before, after = mutate._around_change(line, line.replace("field25", "XXfield25XX"))
    assert "field25" in before and "XXfield25XX" in after and len(before) < len(line)


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_has_a_wrong_answer_catalogue(lesson):
    path = course.ROOT / "tests" / "wrong_answers" / f"{lesson}.py"
    assert path.is_file(), f"{course.shown(path)} does not exist: write the plausible wrong answers of {lesson}"


def test_the_maintainer_check_fails_without_a_catalogue(monkeypatch):
    monkeypatch.setattr(dev, "_load_catalogue", lambda lesson: None)
    found = dev.problems("context")
    assert any("tests/wrong_answers/context.py does not exist" in line for line in found), found


def test_the_maintainer_check_wants_a_wrong_answer_for_every_task(monkeypatch):
    only_quiz = [{"name": "quiz: a", "task": 4, "replace": [('LABELS_QUIZ = "b"', 'LABELS_QUIZ = "a"')]}]
    monkeypatch.setattr(dev, "_load_catalogue", lambda lesson: only_quiz)
    found = dev.problems("context")
    for number in (1, 2, 3):
        assert any(f"task {number} of context has no wrong answer" in line for line in found), found
    assert not any("task 4 of context has no wrong answer" in line for line in found)


def test_the_maintainer_check_names_a_failing_solution(tmp_path, monkeypatch):
    # A solution with a mistake inside an answer region: same stub, but a grader test fails.
    text = (course.SOLUTIONS / "context.py").read_text(encoding="utf-8")
    (tmp_path / "context.py").write_text(text.replace("if used + len(passage.text) <= max_quote_chars:",
                                                      "if used + len(passage.text) < max_quote_chars:"), encoding="utf-8")
    monkeypatch.setattr(course, "SOLUTIONS", tmp_path)
    monkeypatch.setattr(dev, "_load_catalogue", lambda lesson: [])  # the solution is the point here
    found = dev.problems("context")
    assert any(line.startswith("solutions/context.py fails test_task3_exact_fit_is_kept") for line in found), found


def test_the_benchmark_still_runs_on_small_inputs():
    # `dev bench` is a benchmark, not a timed test: this only proves it still runs against the
    # lessons as they are now (a renamed mechanism or a changed record type would break it).
    from labtools import bench
    rows = bench.scaling(10 ** 3)
    mechanisms = {row["mechanism"] for row in rows}
    assert bench.BASELINE in mechanisms and "select_context (lesson 01)" in mechanisms
    assert all(row["ms"] >= 0 and row["n"] == 1000 for row in rows)
    reorder = {row["reorder"]: row for row in bench.reorders(100)}
    assert any(name.startswith("lab:") for name in reorder)
    # The insert-loop comparison builds the same order as the lab's reorder (only slower).
    if (course.ROOT / "modules" / "order.py").is_file():
        from modules.order import reorder_lost_in_middle
        for count in range(12):
            assert bench.insert_loop_reorder(list(range(count))) == reorder_lost_in_middle(list(range(count)))
    assert bench.insert_loop_reorder(list(range(10))) == [0, 2, 4, 6, 8, 9, 7, 5, 3, 1]
