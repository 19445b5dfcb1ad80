"""Grade one lesson in a process of its own and print one JSON line.

    python3 -B tests/graders/run.py LESSON [--target DIR]

`methods.py check` runs this with a time limit, so a learner's endless loop or
crash cannot take the checker down with it.

    python3 -B tests/graders/run.py LESSON --batch [--seconds S]

grades many versions of the lesson's file in this one process (the maintainer
check's wrong answers, the mutation pass's mutants): stdin holds one JSON object
per line, {"path": where the file would live, "source": its text, and optionally
"first_failure": true to stop at the first failing test, "tasks": [numbers] to run only
those tasks' tests}; stdout gets one
JSON result per line, in order, as soon as each is graded. Each version has S
seconds (a mutant may loop forever); the caller also watches from outside, for a
loop that a signal cannot interrupt.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True

import _lab  # noqa: E402  (after dont_write_bytecode, so nothing is cached in the graded folder)


class _Overtime(BaseException):
    # A BaseException, so neither the graded code nor _lab.call() can swallow it.
    pass


def _on_alarm(signum, frame):
    raise _Overtime()


def _limit_memory() -> None:
    # A mutant such as `[x] * (n + 1) ** 9` must fail with MemoryError, not swap the machine.
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.RLIM_INFINITY))
    except (ImportError, ValueError, OSError):
        pass


def batch(lesson: str, seconds: float) -> None:
    import signal
    from pathlib import Path

    items = [json.loads(line) for line in sys.stdin.read().splitlines() if line.strip()]
    # The results go to a private copy of stdout; whatever the graded code prints goes to stderr.
    results = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    timed = hasattr(signal, "setitimer")
    if timed:
        signal.signal(signal.SIGALRM, _on_alarm)
    _limit_memory()
    for item in items:
        _lab._sources[lesson] = (Path(item["path"]), item["source"])
        _lab._loaded.clear()
        try:
            if timed:
                signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                outcome = _lab.run(lesson, first_failure=bool(item.get("first_failure")), only_tasks=item.get("tasks"))
            finally:
                if timed:
                    signal.setitimer(signal.ITIMER_REAL, 0)
        except _Overtime:
            outcome = {"lesson": lesson, "error": f"grading took over {seconds:g} s: is there a loop that never ends?",
                       "overtime": True}
        except _lab.LabFailure as failure:
            outcome = {"lesson": lesson, "error": str(failure)}
        except (Exception, SystemExit) as error:  # a grader crash, or graded code calling sys.exit()
            outcome = {"lesson": lesson, "error": f"the grader could not run: {type(error).__name__}: {error}"}
        results.write(json.dumps(outcome) + "\n")
        results.flush()
    _lab._sources.pop(lesson, None)


parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("lesson")
parser.add_argument("--target", help="folder holding the exercise files (default: LAB_TARGET or exercises)")
parser.add_argument("--batch", action="store_true", help="grade many versions given as JSON lines on stdin")
parser.add_argument("--seconds", type=float, default=10.0, help="time limit per version in --batch mode")
args = parser.parse_args()
if args.batch:
    batch(args.lesson, args.seconds)
    sys.exit(0)
if args.target:
    os.environ["LAB_TARGET"] = args.target
try:
    outcome = _lab.run(args.lesson)
except _lab.LabFailure as failure:
    outcome = {"lesson": args.lesson, "error": str(failure)}
sys.stdout.write(json.dumps(outcome) + "\n")
