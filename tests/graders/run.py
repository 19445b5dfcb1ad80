"""Grade one lesson in a process of its own and print one JSON line.

    python3 -B tests/graders/run.py LESSON [--target DIR]

`methods.py check` runs this with a time limit, so a learner's endless loop or
crash cannot take the checker down with it.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True

import _lab  # noqa: E402  (after dont_write_bytecode, so nothing is cached in the graded folder)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("lesson")
parser.add_argument("--target", help="folder holding the exercise files (default: LAB_TARGET or exercises)")
args = parser.parse_args()
if args.target:
    os.environ["LAB_TARGET"] = args.target
try:
    outcome = _lab.run(args.lesson)
except _lab.LabFailure as failure:
    outcome = {"lesson": args.lesson, "error": str(failure)}
sys.stdout.write(json.dumps(outcome) + "\n")
