"""The grading Python (course.json "grading_python", 3.10): `check` names each line that uses
syntax or a standard-library name it lacks, so "passes here, 0 on Gradescope" shows before a
learner submits."""

from __future__ import annotations

import json
import sys

import pytest

from helpers import ROOT, methods
from labtools import compat, manifest


def test_newer_syntax_and_library_names_are_named_by_line():
    source = ("import tomllib\nimport itertools as it\nfrom typing import Self\n\n"
              "def pairs(x):\n    return list(it.batched(x, 2))\n\n"
              "try:\n    pass\nexcept* ValueError:\n    pass\n\n"
              "match 1:\n    case 1:\n        pass\n")
    found = compat.problems(source, (3, 10))
    assert [line for line, _message in found] == [1, 3, 6, 8]
    assert "3.11" in found[0][1] and "3.12" in found[2][1] and "except*" in found[3][1]
    assert compat.problems(source, (3, 12)) == []  # all of it is fine where it is graded with 3.12
    assert compat.problems("match 1:\n    case 1:\n        pass\n", (3, 10)) == []  # match is 3.10


@pytest.mark.skipif(sys.version_info < (3, 12), reason="a `type` statement parses only on Python 3.12+")
def test_type_statements_and_generic_functions_are_named():
    found = compat.problems("type Ids = list[str]\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n",
                            (3, 10))
    assert [line for line, _message in found] == [1, 3] and all("3.12" in message for _line, message in found)


def test_the_manifest_declares_the_grading_python():
    assert manifest.grading_python() == (3, 10)
    data = manifest.load()
    with pytest.raises(manifest.ManifestError, match="grading_python"):
        manifest.check(dict(data, grading_python="3.9"))


def test_check_flags_a_passing_file_that_the_grading_python_would_fail(tmp_path):
    # tomllib in a helper that no task calls: the file passes here, and would not import on 3.10.
    solution = (ROOT / "solutions" / "context.py").read_text(encoding="utf-8") + \
        "\n\ndef _settings(path):\n    import tomllib\n    return tomllib.loads(path.read_text())\n"
    (tmp_path / "context.py").write_text(solution, encoding="utf-8")
    record = json.loads(methods("check", "context", "--target", str(tmp_path), "--json").stdout)
    assert record["grading_python"] == "3.10"
    line = next(n for n, text in enumerate(solution.splitlines(), 1) if text.strip() == "import tomllib")
    assert record["lessons"][0]["python_problems"] == [{"line": line, "message": "`import tomllib` needs Python 3.11"}]
    plain = " ".join(methods("check", "context", "--target", str(tmp_path), "--plain").stdout.decode().split())
    assert f"context.py, line {line}: `import tomllib` needs Python 3.11" in plain
