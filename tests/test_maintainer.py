"""The maintainer check, lesson by lesson, plus the stub generator's own contract."""

import pytest

from labtools import course, dev, stubgen


@pytest.mark.parametrize("lesson", course.lessons())
def test_maintainer_check(lesson):
    found = dev.problems(lesson)
    assert not found, "\n".join(found)


def test_grader_manifest_is_current():
    from labtools import integrity
    assert not integrity.changed(), "run `python3 -B methods.py dev sync` and commit tests/graders/SHA256SUMS"


def test_a_wrong_answer_that_passes_is_reported(monkeypatch):
    # A "wrong answer" that changes nothing must be flagged as uncaught.
    harmless = {"name": "renamed local", "task": 3, "replace": [("packet, skipped, used = [], [], 0",
                                                                 "packet, skipped, used = list(), [], 0")]}
    monkeypatch.setattr(dev, "_load_catalogue", lambda lesson: [harmless])
    found = dev.problems("context")
    assert any("'renamed local' (task 3) passes every grader test" in line for line in found), found


def test_stub_generator_replaces_answers_and_keeps_the_rest():
    solution = ('"""Doc."""\n\ndef f(x):\n    """Task 1."""\n    # BEGIN SOLUTION\n    return x + 1\n'
                '    # END SOLUTION\n\n# BEGIN SOLUTION\nQUIZ = "b"\n# END SOLUTION\n')
    stub = stubgen.make_stub(solution, "demo")
    assert stub.splitlines()[0].startswith("# TODO:")
    assert '    raise NotImplementedError("f: write your answer here' in stub
    assert 'QUIZ = None  # TODO: your answer' in stub
    assert "return x + 1" not in stub and '"b"' not in stub and '"""Task 1."""' in stub
    assert stubgen.signatures(stub) == stubgen.signatures(solution)


@pytest.mark.parametrize("text, words", [
    ("def f():\n    # BEGIN SOLUTION\n    pass\n", "never closed"),
    ("# END SOLUTION\n", "without a matching"),
    ("def f():\n    pass\n", "no answer region"),
    ("# BEGIN SOLUTION\nprint(1)\n# END SOLUTION\n", "only `NAME = value`"),
])
def test_stub_generator_rejects_bad_markers(text, words):
    with pytest.raises(ValueError, match=words):
        stubgen.make_stub(text, "demo")


def test_sync_keeps_a_learners_edits_unless_forced(tmp_path, monkeypatch):
    exercises = tmp_path / "exercises"
    exercises.mkdir()
    edited = exercises / "context.py"
    edited.write_text("# my work\n", encoding="utf-8")
    monkeypatch.setattr(course, "EXERCISES", exercises)
    monkeypatch.setattr(course, "BACKUPS", tmp_path / "backups")
    monkeypatch.setattr(course, "committed_text", lambda path: "something else")
    monkeypatch.setattr(dev.integrity, "MANIFEST", tmp_path / "SHA256SUMS")
    lines = dev.sync(lessons=["context"])
    assert edited.read_text(encoding="utf-8") == "# my work\n" and any("kept" in l for l in lines)
    lines = dev.sync(force=True, lessons=["context"])
    backups = list((tmp_path / "backups").iterdir())
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == "# my work\n"
    assert edited.read_text(encoding="utf-8") == dev.generated_stub("context")
