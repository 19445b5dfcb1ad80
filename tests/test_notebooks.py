"""The committed notebooks are valid and are exactly what their sources execute to."""

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")

from devtools import notebooks  # noqa: E402


def test_every_lesson_with_a_module_has_a_notebook():
    from helpers import built_lessons
    from methods import LESSONS
    for lesson in built_lessons():
        name = f"{LESSONS[lesson][0]}_{lesson}"
        assert (notebooks.SOURCES / f"{name}.py").is_file(), f"notebooks/src/{name}.py is missing"


def test_committed_notebooks_are_valid_and_current():
    paths = notebooks.sources()
    fresh = notebooks.executed_texts(paths)
    stale = []
    for path, text in fresh.items():
        assert path.is_file(), f"{path.name} is not built: run `python3 -B methods.py dev notebooks`"
        committed = path.read_text(encoding="utf-8")
        nbformat.validate(nbformat.reads(committed, as_version=4))
        if committed != text:
            stale.append(path.name)
    assert not stale, f"stale notebooks {stale}: run `python3 -B methods.py dev notebooks` and commit them"


def test_no_errors_in_committed_outputs():
    for path in sorted(notebooks.OUTPUT.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                assert output.get("output_type") != "error", f"{path.name} has an error output"
