"""Maintainer tools, apart from the product: `python3 -B methods.py dev ...` reaches them.

    dev.py        the `dev` command: sync, check, golden, new, and the tools below
    scaffold.py   `dev new`: a lesson's course.json entry and starter files
    notebooks.py  `dev notebooks`: build and execute notebooks/NN_NAME.ipynb
    mutate.py     `dev mutants`: the share of mutated answers the graders reject
    bench.py      `dev bench`: start-up, mechanism and grading times
    probe.py      `dev probe`: races on the learner's files; --grading: attacks.py
    attacks.py    the attack suite on `grade`, in both modes
    devenv.py     `dev test`: a .venv with the test dependencies, then pytest

Neither a student release nor the Gradescope zip carries this folder (labtools/ and
modules/ never import it); the learner's commands, `check` and `grade` never need it.
"""
