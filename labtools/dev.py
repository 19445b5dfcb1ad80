"""Maintainer commands: `methods.py dev sync | check | notebooks | golden | mutants | bench | test`.

sync        regenerate exercises/ from solutions/ (never overwrites a learner's edits
            without --force, and then only after a backup)
check       prove the course is consistent: stubs in sync, signatures equal, every
            solution passes, every stub fails every test of its tasks, every task
            has hints and tests, every catalogued wrong answer is caught, the grader
            manifest is current
notebooks   build notebooks/NN_NAME.ipynb from notebooks/src/NN_NAME.py and execute them
golden      rewrite the golden outputs the tests compare (review the diff!)
mutants     mutate the solutions' answer regions; report the share the graders reject
bench       time the lesson commands against the standard-library floor, and the mechanisms
gradescope  build the Gradescope autograder zip (setup.sh, run_autograder, the lab)
test        set up .venv with the test dependencies and run the whole test suite
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

from labtools import course, integrity, stubgen


def generated_stub(lesson: str) -> str:
    return stubgen.make_stub((course.SOLUTIONS / f"{lesson}.py").read_text(encoding="utf-8"), lesson)


# ------------------------------------------------------------------ sync

def sync(force: bool = False, lessons: list[str] | None = None) -> list[str]:
    """Write stubs and the grader manifest; return what was done, one line each."""
    done = []
    for lesson in lessons or course.lessons():
        path = course.EXERCISES / f"{lesson}.py"
        stub = generated_stub(lesson)
        if path.is_file():
            present = path.read_text(encoding="utf-8")
            if present == stub:
                continue
            if present != course.committed_text(path):
                if not force:
                    done.append(f"kept {course.shown(path)}: it has edits that are not a generated stub "
                                f"(rerun with --force to back it up and replace it)")
                    continue
                done.append(f"backed up {course.shown(path)} to "
                            f"{course.shown(course.backup(path))}")
        path.parent.mkdir(exist_ok=True)
        path.write_text(stub, encoding="utf-8")
        done.append(f"wrote {course.shown(path)}")
    done += integrity.refresh(force=force)  # never silently over an uncommitted grader edit
    return done


# ------------------------------------------------------------------ check

def _load_catalogue(lesson: str):
    path = course.ROOT / "tests" / "wrong_answers" / f"{lesson}.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"wrong_answers_{lesson}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.WRONG_ANSWERS


def apply_wrong_answer(solution: str, wrong: dict) -> str:
    text = solution
    for old, new in wrong["replace"]:
        count = text.count(old)
        if count != 1:
            raise ValueError(f"wrong answer {wrong['name']!r}: the text to replace occurs {count} times in the "
                             f"solution (needs exactly 1): {old!r}")
        text = text.replace(old, new)
    return text


def _grade_text(lesson: str, text: str) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"lab-{lesson}-") as folder:
        (Path(folder) / f"{lesson}.py").write_text(text, encoding="utf-8")
        from labtools import grading
        return grading.grade(lesson, Path(folder))


def problems(lesson: str) -> list[str]:
    """Everything wrong with one lesson's exercises, each line naming its fix."""
    found = []
    solution_path, exercise_path = course.SOLUTIONS / f"{lesson}.py", course.EXERCISES / f"{lesson}.py"
    solution = solution_path.read_text(encoding="utf-8")
    try:
        stub = stubgen.make_stub(solution, lesson)
    except ValueError as error:
        return [f"solutions/{lesson}.py: {error}; fix the answer markers"]

    present = exercise_path.read_text(encoding="utf-8") if exercise_path.is_file() else None
    if stub not in (present, course.committed_text(exercise_path)):
        found.append(f"exercises/{lesson}.py is not the stub generated from solutions/{lesson}.py: "
                     f"run `python3 -B methods.py dev sync` and commit it")
    if stubgen.signatures(stub) != stubgen.signatures(solution):
        found.append(f"exercises/{lesson}.py and solutions/{lesson}.py define different names or signatures: "
                     f"run `python3 -B methods.py dev sync`")

    catalogue = _load_catalogue(lesson)
    missing_catalogue = catalogue is None
    texts, labels, unusable = [stub], [], []
    for wrong in catalogue or ():
        try:
            texts.append(apply_wrong_answer(solution, wrong))
            labels.append(wrong)
        except ValueError as error:
            unusable.append(f"{error}: update tests/wrong_answers/{lesson}.py")

    # The solution, the stub and every wrong answer are graded in two worker processes (many
    # files, few start-ups), each opening and closing with the solution. The solution's first
    # grading, in a fresh process, is the reference. If it fails there, or passes first but
    # not last (some wrong answer changed state shared with the others, or the grader reads
    # files), the learner's path decides instead: one process per file, as `check` grades.
    # The stub runs every test (it must fail each); a wrong answer only its task's tests, up to
    # the first that fails: the verdict is the same, and a slow wrong answer stops early.
    from labtools import mutate
    shown_exercise = str(exercise_path)
    items = [(shown_exercise, stub)] + [(shown_exercise, text, {"tasks": [wrong["task"]], "first_failure": True})
                                        for text, wrong in zip(texts[1:], labels)]
    outcomes, status, reference = mutate.grade_checked(lesson, items, (str(solution_path), solution),
                                                       seconds=course.GRADE_SECONDS, jobs=2)
    if status != "ok":
        from labtools import grading
        reference = grading.grade(lesson, course.SOLUTIONS)
        outcomes = None
    if "error" in reference:
        return found + [f"solutions/{lesson}.py cannot be graded: {reference['error']}"]
    for test in reference["tests"]:
        if not test["passed"]:
            first = test["message"].splitlines()[0] if test["message"] else ""
            found.append(f"solutions/{lesson}.py fails {test['test']}: {first} -- fix the solution or the grader")
    for task in reference["tasks"]:
        if task["tests"] == 0:
            found.append(f"task {task['number']} of {lesson} has no test: add test_task{task['number']}_... "
                         f"to tests/graders/grade_{lesson}.py")
        if task["hints"] < 2:
            found.append(f"task {task['number']} of {lesson} has {task['hints']} hint(s): give it at least two, "
                         f"from a nudge to nearly the answer")
        if task["name"] not in stubgen.signatures(solution):
            found.append(f"task {task['number']} of {lesson} names {task['name']}, which solutions/{lesson}.py "
                         f"does not define: fix the Task entry")
    numbers = {t["number"] for t in reference["tasks"]}
    for test in reference["tests"]:
        if test["task"] not in numbers:
            found.append(f"{test['test']} belongs to task {test['task']}, which TASKS does not declare")

    if missing_catalogue:
        found.append(f"tests/wrong_answers/{lesson}.py does not exist: write it, with WRONG_ANSWERS = "
                     f"[{{'name', 'task', 'replace': [(old, new)]}}, ...] holding the plausible mistakes "
                     f"for each task of {lesson} (see tests/wrong_answers/context.py)")
    covered = {wrong.get("task") for wrong in catalogue or ()}
    for task in reference["tasks"]:
        if catalogue and task["number"] not in covered:
            found.append(f"task {task['number']} of {lesson} has no wrong answer in tests/wrong_answers/{lesson}.py: "
                         f"add the mistake a learner would most plausibly make there")
    found += unusable
    if outcomes is None:
        outcomes = [_grade_text(lesson, text) for text in texts]

    unsolved = outcomes[0]
    if "error" in unsolved:
        found.append(f"the stub of {lesson} cannot be graded: {unsolved['error']}")
    for test in unsolved.get("tests", []):
        if test["passed"]:
            found.append(f"the stub passes {test['test']}: the test does not need the learner's answer; "
                         f"make it call the task's function or read its constant")

    for wrong, outcome in zip(labels, outcomes[1:]):
        if not mutate.rejected(outcome, wrong["task"]):
            found.append(f"wrong answer {wrong['name']!r} (task {wrong['task']}) passes every grader test: "
                         f"add a test to tests/graders/grade_{lesson}.py that rejects it")
    return found


def check(lessons: list[str] | None = None) -> list[str]:
    found = []
    for lesson in lessons or course.lessons():
        found += problems(lesson)
    for name in integrity.changed():
        found.append(f"{name} differs from tests/graders/SHA256SUMS: "
                     f"run `python3 -B methods.py dev sync` and commit the manifest")
    return found


def golden(names: list[str] | None = None) -> list[str]:
    from methods import LESSONS
    written = []
    for name in names or [n for n in LESSONS if (course.ROOT / "modules" / f"{n}.py").is_file()]:
        done = subprocess.run([sys.executable, "-B", str(course.ROOT / "methods.py"), name, "--plain"],
                              capture_output=True, check=True, cwd=course.ROOT)
        path = course.ROOT / "tests" / "golden" / f"{name}.txt"
        path.write_bytes(done.stdout)
        written.append(f"wrote {course.shown(path)}")
    return written


# ------------------------------------------------------------------ main

def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="methods.py dev", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sync_parser = sub.add_parser("sync", help="regenerate exercises/ and the grader manifest")
    sync_parser.add_argument("--force", action="store_true",
                             help="replace edited exercise files (after a backup); record uncommitted grader "
                                  "edits in the manifest")
    check_parser = sub.add_parser("check", help="prove stubs, solutions, graders and hints agree")
    check_parser.add_argument("lesson", nargs="*")
    nb_parser = sub.add_parser("notebooks", help="build and execute the notebooks")
    nb_parser.add_argument("names", nargs="*", help="notebook names such as 01_context (default: all)")
    golden_parser = sub.add_parser("golden", help="rewrite tests/golden/NAME.txt from the lesson commands")
    golden_parser.add_argument("names", nargs="*")
    sub.add_parser("test", help="create .venv with the test dependencies and run the whole suite")
    sub.add_parser("bench", help="time the lesson commands and mechanisms")
    sub.add_parser("mutants", help="mutate the answer regions and report the share the graders reject")
    sub.add_parser("gradescope", help="build the Gradescope autograder zip")
    args, rest = parser.parse_known_args(argv)

    if args.command == "sync":
        for line in sync(force=args.force) or ["everything is in sync"]:
            print(line)
        return 0
    if args.command == "check":
        found = check(args.lesson or None)
        for line in found:
            print(f"- {line}")
        print("maintainer check: " + (f"{len(found)} problem(s)" if found else "all good"))
        return 1 if found else 0
    if args.command == "notebooks":
        from labtools import notebooks
        for path in notebooks.build(args.names or None):
            print(f"wrote {course.shown(path)}")
        return 0
    if args.command == "golden":
        for line in golden(args.names or None):
            print(line)
        return 0
    if args.command == "test":
        from labtools import devenv
        return devenv.run_tests(rest)
    if args.command == "mutants":
        from labtools import mutate
        return mutate.main(rest)
    if args.command == "gradescope":
        from labtools import gradescope
        return gradescope.main(rest)
    if args.command == "bench":
        from labtools import bench
        return bench.main(rest)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
