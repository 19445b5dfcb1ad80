"""The graders reject small changes to the answers: the mutation pass, and the machinery under it.

`python3 -B methods.py dev mutants` prints the same report this test asserts on.
"""

import ast
import functools
import hashlib
import json

import pytest

from labtools import course, stubgen
from devtools import dev, mutate

LESSONS = course.lessons()


@functools.lru_cache(maxsize=None)
def _results() -> dict:
    # Every lesson at once, two worker processes side by side: one pass serves every test below.
    return {result["lesson"]: result for result in mutate.run_all(LESSONS, jobs=2)}


# Every lesson's mutants (about 2,200, 45 s of one core): a probe, run by `dev mutants` and
# `dev test --probes`; the pinned mutants below keep a quick check in every run.
@pytest.mark.probe
@pytest.mark.parametrize("lesson", LESSONS)
def test_graders_reject_at_least_90_percent_of_mutants(lesson):
    result = _results()[lesson]
    assert "error" not in result, result.get("error")
    assert result["mutants"] >= 5, f"only {result['mutants']} mutants of solutions/{lesson}.py: are its answer regions marked?"
    assert result["share"] >= mutate.TARGET, (
        f"the graders of {lesson} reject {result['rejected']} of {result['mutants'] - result['equivalent']} mutants "
        f"({result['share']:.1%}, below {mutate.TARGET:.0%}).\n" + mutate.report([result]))


@pytest.mark.probe
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
    from devtools import bench
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


RICH_SAMPLE = '''"""Every kind of edit, and the places no edit may touch."""

LIMIT = 3  # outside any answer region: never mutated


def walk(items, budget, flags=(), label="café"):
    """Docstrings are prose: never mutated."""
    # BEGIN SOLUTION
    used, kept, seen = 0, [], set()
    total = sum(items) % 7 // 2 ** 1 & 5 | 6 ^ 1 << 2 >> 1
    for index, item in enumerate(items[index_of(items):len(items) - 1]):
        if item is None or item is not item or not flags and item in seen:
            continue
        if used + item > budget and used - item >= 0 or item != 0.5 and item == -1:
            break
        if item not in seen and label == "café" and len(label) < 10 <= 20:
            seen.add(item); kept.append(item)
        used += item
        used -= 1.5
        used *= 1
        used /= 2
        used //= 1
    while used > LIMIT and any(kept) and all(kept):
        used = min(used, max(kept)) - True + False
    if not kept:
        raise ValueError(f"no item fits {budget} (label {label})")
    assert kept, "at least one item is kept"
    "a bare string"
    pass
    return kept[used:used + 2], {"key": kept[-1]}, [x for x in kept if x], lambda y: y * 2
    # END SOLUTION


def index_of(items):
    # BEGIN SOLUTION
    try:
        return items.index(max(items))
    except ValueError:
        return None
    # END SOLUTION


class Box:
    def size(self):
        # BEGIN SOLUTION
        return len(self.__dict__) + 1
        # END SOLUTION


# BEGIN SOLUTION
QUIZ = "b"
SCORE = 0.25
ON = True
# END SOLUTION
'''


def _mutant_digest(made) -> str:
    # (line, where, kind, before, after) of every mutant in order, and its file unless reprinted
    # (ast.unparse may spell a file differently on another Python version).
    rows = [(m.line, m.where, m.kind, m.before, m.after,
             "" if m.after == "(whole file reprinted)" else hashlib.sha256(m.source.encode()).hexdigest())
            for m in made]
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def test_the_edit_table_makes_the_mutants_the_if_chain_made():
    # Pinned from the mutation pass before its edits became a table keyed by node type: the
    # same mutants, in the same order, of a file that holds every kind of edit (and 8 mutants
    # that need the whole file reprinted).
    made = mutate.mutants("sample", RICH_SAMPLE)
    assert len(made) == 136 and sum(m.after == "(whole file reprinted)" for m in made) == 8
    assert {m.kind for m in made} == {"compare", "arith", "logic", "constant", "slice", "call", "flow", "return",
                                      "delete"}
    assert _mutant_digest(made) == "67570cfe5b39e7e27cda8b1cfbe28330a7975ea27f8609ec87c0c262fc9733f0"


# solutions/NAME.py (SHA-256) -> the digest of its mutants, pinned from the if-chain version.
PINNED_MUTANTS = {
    # Re-pinned after this round's solution edits, on Python 3.11 as the test and CI run it (3.10
    # agrees; 3.12+ prints some deleted-branch mutants' `before` with other f-string quotes).
    "answer": ("8559d753061462a12d22a968fa6e3c712e54c1b69f75b3ee3ba5e8fd402ed991",
        "4383f7a8eaafce926a3119f67e1f871d6523d472fd220ab936fc27a2826ef873"),
    "budget": ("727a026e5f6d7a59c2f64c2a9b0faf5158bd0e8c0d89e84965db6dfd21afa3e0",
        "fe1ede117259215675d68e00be3565508044936ae922aaf7defbf70533766d54"),
    "channels": ("15dd7ad0da6cbe25d7f0c9ccb9fea14b0f0c6fda7bd24f0aafd64a726a572a30",
        "45ee930c549cfffd929ec864671033034ffb43f647bcb77ce84b862f62606002"),
    "context": ("916b428a0c67933a1762f038e086eb642512fa6153fc28fd8673c89d9ba92fc1",
        "376dadadf9d79241c9a1037f381260258ccfc1f2d11c9d270aeaef8c5843be67"),
    "dedupe": ("facb6c8c6c0784a1cb9c791019d557381bd7ce9fdc22f50295654e10220ac4e8",
        "d6149de8feb533c80fd482639f7ea970b5757a676934d538e28c71dc8ba50af5"),
    "eligibility": ("4c679ff87b50567d701aab20a4262f1f217a80cd6d863ff65bd2a25c27d4624f",
        "3f4a5eeaf0925c7e995e55657372c1d6ba772a8aae1b93a1459579f66ca4a3d9"),
    "grounding": ("44d4b5fa95a858c218a798ba2b48294740dff2be09dfcf7a0384e75bbedbf82c",
        "fcee472299b2df970889465604fb4c9053df5babea6d518cfae9e294aa1a4ad7"),
    "hybrid": ("91dbe5d0f953c452a3d5fbad86c84b2e060b1e6a11bff1954b1be81014aefd38",
        "b6ac9fdf820fb10efbae27a906381aa4add37f4fa179cf52ab3864b85a08f052"),
    "memory": ("d58b9ec54c621fcdb50195138b75e1d0fd5e1524a111471110aa59e488e083bb",
        "7ef763e6a4bc99da420b9a4ae215d2fae80469ad3f85901b907b2a44ae316090"),
    "operate": ("96762ff28278048f0290c971c37ab81fcce762164779c5ae969ea99ae9226247",
        "93beeba97dea4483aaae689afc5494531153c4b281fb3ee9a00d135792734215"),
    "order": ("b83e1c13b9deea1e6deb73e37e9e538b860654e5dd35814d75b42db7535c110d",
        "1048258b6bfca6d3bd3c25322d271df548333f00473923a6e96b093eb8808174"),
    "packet": ("eca6a1bb92769a57855d4a1da1a7005b365f394972f70afac97157a9567735f0",
        "465506495485885ee0e8f6f4fe4d88a6f6b4fee594ee119b343de135ea015818"),
    "practice": ("a74f13ba473d8cb8ad7f72d1c2e742f6a5ca373412ceae3b2c7c1c1d31e71646",
        "5086fb2b034511474d16e6808e72b40d34857c90232fa6966bd67a61dc9075e3"),
    "versions": ("c9890308a1a96e06edd91a231d9e3d898fdfb7c7e94392bc27230955fd50a665",
        "675509096bb566b9d9fb35fbcc7cb6d76ef33bc31f32d853e3455ee30f62f98d"),
}


@pytest.mark.parametrize("lesson", sorted(PINNED_MUTANTS))
def test_every_lesson_keeps_its_mutants(lesson):
    text = (course.SOLUTIONS / f"{lesson}.py").read_text(encoding="utf-8")
    solution, digest = PINNED_MUTANTS[lesson]
    if hashlib.sha256(text.encode()).hexdigest() != solution:
        pytest.skip(f"solutions/{lesson}.py changed since its mutants were pinned (the sample above still holds)")
    assert _mutant_digest(mutate.mutants(lesson, text)) == digest


def test_stubgen_and_mutate_read_the_same_answer_regions():
    regions = stubgen.answer_regions(RICH_SAMPLE)
    assert mutate.answer_lines(RICH_SAMPLE) == [(begin + 2, end) for begin, end in regions]
    assert len(regions) == 4
    unclosed = RICH_SAMPLE + "# BEGIN SOLUTION\nLATE = 1\n"
    with pytest.raises(ValueError, match="never closed"):
        mutate.mutants("sample", unclosed)
    with pytest.raises(ValueError, match="never closed"):
        stubgen.make_stub(unclosed, "sample")


def test_the_pass_reports_unbalanced_markers(tmp_path, monkeypatch):
    (tmp_path / "context.py").write_text("# BEGIN SOLUTION\nQUIZ = 'a'\n", encoding="utf-8")
    monkeypatch.setattr(course, "SOLUTIONS", tmp_path)
    result = mutate.run("context")
    assert "never closed" in result["error"] and "solutions/context.py" in result["error"], result


@pytest.mark.parametrize("jobs", [1, 2, 3])
@pytest.mark.parametrize("count", [0, 1, 2, 5])
def test_checked_grading_opens_and_closes_every_worker_with_the_reference(jobs, count, monkeypatch):
    # grade_checked rides on grade_sources: each worker's share starts and ends with the
    # reference (running every test), and the items keep their order and their worker.
    chunks = []

    def fake_chunk(lesson, items, seconds, first_failure, hash_seed=None):
        chunks.append([item[1] for item in items])
        return [{"tests": [], "source": item[1]} for item in items]

    monkeypatch.setattr(mutate, "_grade_chunk", fake_chunk)
    items = [("p", f"v{i}") for i in range(count)]
    results, status, reference = mutate.grade_checked("demo", items, ("p", "ref"), jobs=jobs)
    assert status == "ok" and reference["source"] == "ref"
    assert [r["source"] for r in results] == [f"v{i}" for i in range(count)]
    workers = max(1, min(jobs, count))
    assert len(chunks) == workers
    for index, chunk in enumerate(sorted(chunks, key=lambda c: c[1:2])):
        assert chunk[0] == chunk[-1] == "ref" and len(chunk) >= 2
        assert chunk[1:-1] == [f"v{i}" for i in range(index, count, workers)]


def test_checked_grading_tells_a_failing_reference_from_a_polluted_one(monkeypatch):
    def graded(fail_first, fail_last):
        def fake_chunk(lesson, items, seconds, first_failure, hash_seed=None):
            results = [{"tests": [{"task": 1, "passed": True}]} for _ in items]
            if fail_first:
                results[0] = {"error": "reference fails"}
            if fail_last:
                results[-1] = {"error": "reference fails after the others"}
            return results
        monkeypatch.setattr(mutate, "_grade_chunk", fake_chunk)
        return mutate.grade_checked("demo", [("p", "v0"), ("p", "v1")], ("p", "ref"), jobs=2)[1]
    assert graded(False, False) == "ok"
    assert graded(True, False) == "reference fails"
    assert graded(False, True) == "polluted"


@pytest.mark.parametrize("seed", [None, 0, 244])
def test_a_hash_seed_reaches_the_grading_worker(seed, monkeypatch):
    # The maintainer check grades set-order wrong answers under chosen seeds: the worker's
    # environment must carry the seed, or the check would grade under a random one.
    seen = []

    class FakeProcess:
        stdout = iter(())
        stdin = None

        def __init__(self, command, **options):
            seen.append(options["env"])

    monkeypatch.setattr(mutate.subprocess, "Popen", FakeProcess)
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    mutate._worker("context", 1.0, seed)
    assert seen[0]["PYTHONHASHSEED"] == ("random" if seed is None else str(seed))
