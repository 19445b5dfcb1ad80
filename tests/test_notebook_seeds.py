"""Every notebook tells the same lesson under every hash seed (issue 35 item 5).

The stale-notebook test compares a committed notebook with a fresh execution, so an output
that follows a set's order fails it one run in two. This test finds such an output before
it is committed: it runs every notebook source (notebooks/src/NN_NAME.py, the cells as one
script; outside IPython, labtools.display prints the plain rendering) under two hash seeds
and compares what each prints. No kernel is started, and one interpreter per seed runs the
sources one after the other (runpy), so the imports are paid once: about 2 s of CPU per
seed, the two seeds in parallel. Seeds 0 and 2 order {'a', 'b'} differently (seed 1 happens
to agree with 0), so a printed two-item set is caught.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT

SOURCES = sorted((ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py"))
SEEDS = ("0", "2")


# Runs each source given on the command line as __main__, capturing what it prints; writes
# {source: printed text} as JSON. A source that raises stops the run with its traceback.
DRIVER = """
import contextlib, io, json, runpy, sys
printed = {}
for path in sys.argv[1:]:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        runpy.run_path(path, run_name="__main__")
    printed[path] = buffer.getvalue()
sys.stdout.write(json.dumps(printed))
"""


@pytest.fixture(scope="module")
def outputs() -> dict:
    runs = {}
    for seed in SEEDS:   # started together, waited for together: the two seeds run in parallel
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg")
        runs[seed] = subprocess.Popen([sys.executable, "-B", "-c", DRIVER, *map(str, SOURCES)], cwd=ROOT, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found = {}
    for seed, process in runs.items():
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, f"the notebook sources under PYTHONHASHSEED={seed} failed:\n{err[-3000:]}"
        found.update(((os.path.basename(path), seed), text) for path, text in json.loads(out).items())
    return found


def test_there_are_notebook_sources():
    assert len(SOURCES) >= 14, [p.name for p in SOURCES]


@pytest.mark.parametrize("name", [p.name for p in SOURCES])
def test_a_notebook_prints_the_same_under_two_hash_seeds(outputs, name):
    first, second = (outputs[(name, seed)].splitlines() for seed in SEEDS)
    differ = next((n for n, (a, b) in enumerate(zip(first, second)) if a != b), None)
    if differ is None and len(first) != len(second):
        differ = min(len(first), len(second))
    assert differ is None, (f"{name} prints differently under PYTHONHASHSEED={SEEDS[0]} and {SEEDS[1]} at line "
                            f"{differ + 1}:\n  {first[differ] if differ < len(first) else '<end>'}\n  "
                            f"{second[differ] if differ < len(second) else '<end>'}\n(a set or dict order reached "
                            f"the output: sort it where it is made)")
