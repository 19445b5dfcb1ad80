"""Maintainer commands: `methods.py dev sync | check | notebooks | golden | mutants | bench | probe | test`.

new         start a lesson: its course.json entry and its starter files
sync        regenerate exercises/ from solutions/ (never overwrites a learner's edits
            without --force, and then only after a backup)
check       prove the course is consistent: stubs in sync, signatures equal, every
            solution passes, every stub fails every test of its tasks, every task
            has hints and tests, every catalogued wrong answer is caught
notebooks   build notebooks/NN_NAME.ipynb from notebooks/src/NN_NAME.py and execute them
golden      rewrite the golden outputs the tests compare (review the diff!)
mutants     mutate the solutions' answer regions; report the share the graders reject
bench       time the lesson commands against the standard-library floor, and the mechanisms
gradescope  build the Gradescope autograder zip (setup.sh, run_autograder, the lab)
probe       race concurrent resets and hints on scratch copies and count what was lost
test        set up .venv with the test dependencies and run the whole test suite
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from labtools import course, files, stubgen
from labtools.registry import RUN
from labtools.render import fit


generated_stub = course.generated_stub  # the stub of solutions/LESSON.py as it is now


def committed_stub(lesson: str) -> str | None:
    """The stub the generator makes from the last commit's solutions/LESSON.py (None outside git)."""
    solution = course.committed_text(course.SOLUTIONS / f"{lesson}.py")
    try:
        return None if solution is None else stubgen.make_stub(solution, lesson)
    except ValueError:
        return None


# ------------------------------------------------------------------ sync

def sync(force: bool = False, lessons: list[str] | None = None) -> list[str]:
    """Write the stubs; return what was done, one line each. (No hash manifest to refresh:
    what `check` compares the grading files against is derived, see integrity.py.)

    An exercise file is replaced without a backup only when it is exactly a generated
    stub: from the solution as it is now (then there is nothing to do) or as it was last
    committed (an older stub). Anything else is a learner's or maintainer's edit, even a
    committed one: kept, unless --force, and then backed up first. A symbolic link is
    never written through, even with --force. Runs under the lab's lock."""
    done = []
    with course.locked():
        for lesson in lessons or course.lessons():
            path = course.EXERCISES / f"{lesson}.py"
            stub = generated_stub(lesson)
            if path.is_symlink():
                done.append(f"kept {course.shown(path)}: it is a symbolic link (to {os.readlink(path)}), and sync "
                            f"never writes through a link, even with --force; remove the link, then rerun")
                continue
            present = files.read_bytes(path)
            if present == stub.encode("utf-8"):
                continue
            if present is not None:
                earlier = committed_stub(lesson)
                if earlier is None or present != earlier.encode("utf-8"):
                    odd = "" if files.is_utf8(present) else " (and it is not UTF-8 text)"
                    if not force:
                        done.append(f"kept {course.shown(path)}: it has edits that are not a generated stub{odd} "
                                    f"(rerun with --force to back it up and replace it)")
                        continue
                    done.append(f"backed up {course.shown(path)}{odd} to "
                                f"{course.shown(course.backup(path, present))}")
            else:
                files.make_folder(path.parent)
            files.replace_text(path, stub)
            done.append(f"wrote {course.shown(path)}")
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


def course_problems() -> list[str]:
    """What course.json and the files disagree on across the course, each line naming its fix:
    a lesson with a solution, grader or hints file the manifest gives no tasks, or the reverse."""
    from labtools import manifest
    found = []
    listed = {entry["name"]: bool(entry.get("tasks")) for entry in manifest.lessons()}
    for folder, pattern, what in ((course.SOLUTIONS, "*.py", "solutions/{}.py"),
                                  (course.GRADERS, "grade_*.py", "tests/graders/grade_{}.py"),
                                  (course.EXERCISES / "hints", "*.md", "exercises/hints/{}.md")):
        for path in sorted(folder.glob(pattern)):
            name = path.stem.removeprefix("grade_")
            if not listed.get(name):
                found.append(f"{what.format(name)} belongs to no lesson with tasks in course.json: add the "
                             f"lesson's tasks there, or remove the file")
    numbers = {entry["name"]: f"{position:02d}" for position, entry in enumerate(manifest.lessons(), 1)}
    for path in sorted((course.ROOT / "notebooks" / "src").glob("[0-9][0-9]_*.py")):
        number, _, name = path.stem.partition("_")
        if name in numbers and numbers[name] != number:
            found.append(f"notebooks/src/{path.name}: course.json makes {name} lesson {numbers[name]}: rename it "
                         f"to notebooks/src/{numbers[name]}_{name}.py")
    for name, number in numbers.items():
        if not (course.ROOT / "notebooks" / "src" / f"{number}_{name}.py").is_file():
            found.append(f"lesson {number} {name} has no notebook source: write notebooks/src/{number}_{name}.py")
    for name, has_tasks in listed.items():
        if not has_tasks:
            continue
        for path, what in ((course.SOLUTIONS / f"{name}.py", "its solution"),
                           (course.GRADERS / f"grade_{name}.py", "its grader"),
                           (course.EXERCISES / "hints" / f"{name}.md", "its hints")):
            if not path.is_file():
                found.append(f"course.json lists tasks for {name}, but {course.shown(path)} ({what}) is "
                             f"missing: write it")
    return found


def manifest_task_problems(lesson: str, solution: str) -> list[str]:
    """Where course.json's tasks of `lesson` and its solution's answers disagree."""
    from labtools import manifest
    found = []
    defined = stubgen.signatures(solution)
    answers = stubgen.answer_names(solution)
    tasks = manifest.tasks(lesson)
    for number, name, kind, _title in tasks:
        if name not in defined:
            found.append(f"course.json: task {number} of {lesson} is {name}, which solutions/{lesson}.py does "
                         f"not define: fix the name in course.json or write it")
        elif name not in answers:
            found.append(f"course.json: task {number} of {lesson} is {name}, but solutions/{lesson}.py has no "
                         f"answer region (# BEGIN SOLUTION) for it: mark its answer")
        constant = name.isupper()
        if (kind in ("quiz", "predict")) != constant:
            found.append(f"course.json: task {number} of {lesson} ({name}) has kind {kind!r}; a quiz or a "
                         f"prediction is an UPPER_CASE constant and a function a def: fix its kind")
    for name in sorted(answers - manifest.answer_names(lesson)):
        found.append(f"solutions/{lesson}.py has an answer region for {name}, which course.json does not list "
                     f"as a task of {lesson}: add the task")
    return found


def problems(lesson: str) -> list[str]:
    """Everything wrong with one lesson's exercises, each line naming its fix."""
    found = []
    solution_path, exercise_path = course.SOLUTIONS / f"{lesson}.py", course.EXERCISES / f"{lesson}.py"
    solution = files.read_text(solution_path)
    try:
        stub = stubgen.make_stub(solution, lesson)
    except ValueError as error:
        return [f"solutions/{lesson}.py: {error}; fix the answer markers"]
    found += manifest_task_problems(lesson, solution)

    present = exercise_path.read_bytes() if exercise_path.is_file() else None
    committed = course.committed_text(exercise_path)
    if stub.encode("utf-8") not in (present, None if committed is None else committed.encode("utf-8")):
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
    from devtools import mutate
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

    for wrong, outcome, text in zip(labels, outcomes[1:], texts[1:]):
        if not mutate.rejected(outcome, wrong["task"]):
            found.append(f"wrong answer {wrong['name']!r} (task {wrong['task']}) passes every grader test: "
                         f"add a test to tests/graders/grade_{lesson}.py that rejects it")
        elif wrong.get("hash_seeds"):
            found += _seed_escapes(lesson, wrong, (shown_exercise, text, {"tasks": [wrong["task"]]}))
    return found


def _seed_escapes(lesson: str, wrong: dict, item: tuple) -> list[str]:
    """A wrong answer whose behaviour follows set order (the hash seed) is graded again under
    each seed of its "hash_seeds": the seeds that once let it pass, so that an unlucky seed
    in CI can never be the first to find a grader that rejects it only by luck."""
    from concurrent.futures import ThreadPoolExecutor
    from devtools import mutate
    seeds = wrong["hash_seeds"]
    if not (isinstance(seeds, list) and all(type(s) is int and 0 <= s <= 4294967295 for s in seeds)):
        return [f"wrong answer {wrong['name']!r}: hash_seeds must be a list of whole numbers from 0 to "
                f"4294967295 (PYTHONHASHSEED), got {seeds!r}: fix tests/wrong_answers/{lesson}.py"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda seed: mutate.grade_sources(lesson, [item], course.GRADE_SECONDS,
                                                                   first_failure=True, hash_seed=seed)[0], seeds))
    lucky = [seed for seed, outcome in zip(seeds, outcomes) if not mutate.rejected(outcome, wrong["task"])]
    return [f"wrong answer {wrong['name']!r} (task {wrong['task']}) passes every grader test under "
            f"PYTHONHASHSEED={', '.join(map(str, lucky))}: the grader rejects it only for some set orders; "
            f"add cases to tests/graders/grade_{lesson}.py until every seed rejects it"] if lucky else []


def check(lessons: list[str] | None = None) -> list[str]:
    found = [] if lessons else course_problems()
    for lesson in lessons or course.lessons():
        found += problems(lesson)
    return found


def golden_names() -> list[str]:
    """What has a golden file: every built lesson, and the audit (`methods.py audit --plain`)."""
    from labtools.registry import built_lessons
    return built_lessons() + (["audit"] if (course.ROOT / "modules" / "audit").is_dir() else [])


def golden_runs(name: str) -> list[tuple[str, list[str]]]:
    """(golden file, arguments) for one name: NAME.txt from its default trace and, for a lesson
    with an --all option, NAME--all.txt from the full one, so neither can drift unseen."""
    from labtools.registry import LESSONS
    runs = [(f"{name}.txt", [name, "--plain"])]
    options = LESSONS[name][2] if name in LESSONS else []
    if any("--all" in flags for flags, _keywords in options):
        runs.append((f"{name}--all.txt", [name, "--all", "--plain"]))
    return runs


def golden(names: list[str] | None = None) -> list[str]:
    written = []
    for name in names or golden_names():
        for file_name, arguments in golden_runs(name):
            shown = "`methods.py " + " ".join(arguments) + "`"
            done = subprocess.run([sys.executable, "-B", str(course.ROOT / "methods.py"), *arguments],
                                  capture_output=True, cwd=course.ROOT)
            if done.returncode != 0:
                detail = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
                raise files.FileProblem(f"{shown} exited {done.returncode} ({detail}), so "
                                        f"tests/golden/{file_name} is left as it was")
            path = course.ROOT / "tests" / "golden" / file_name
            files.replace_bytes(path, done.stdout)
            written.append(f"wrote {course.shown(path)}")
    return written


# ------------------------------------------------------------------ main

# Their arguments go on to pytest, devtools/bench.py, devtools/mutate.py and devtools/probe.py,
# which parse them strictly themselves.
PASSED_ON = ("test", "bench", "mutants", "probe", "gradescope", "release")


def _names(parser: argparse.ArgumentParser, names: list[str], known: list[str], what: str) -> list[str]:
    """`names` if every one is in `known`; otherwise a usage error (exit 2) listing `known`."""
    from modules.common.checks import short
    unknown = [name for name in names if name not in known]
    if unknown:
        parser.error(f"there is no {what} {short(unknown[0])}; the {what}s: {', '.join(known) or 'none yet'}")
    return names


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="methods.py dev", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sync_parser = sub.add_parser("sync", help="regenerate exercises/ from solutions/")
    sync_parser.add_argument("--force", action="store_true",
                             help="replace edited exercise files (after a backup)")
    check_parser = sub.add_parser("check", help="prove stubs, solutions, graders and hints agree")
    check_parser.add_argument("lesson", nargs="*", help="lessons to check (default: every lesson with exercises)")
    nb_parser = sub.add_parser("notebooks", help="build and execute the notebooks")
    nb_parser.add_argument("names", nargs="*", help="notebook names such as 01_context (default: all)")
    golden_parser = sub.add_parser("golden", help="rewrite tests/golden/NAME.txt from the lesson commands")
    golden_parser.add_argument("names", nargs="*", help="lessons or audit (default: every built lesson and the audit)")
    new_parser = sub.add_parser("new", help="start a lesson: its course.json entry and starter files")
    new_parser.add_argument("name", help="the lesson's name, a lower-case Python name")
    new_parser.add_argument("--title", required=True, help="one line: what the lesson shows")
    new_parser.add_argument("--world", default="own", help="the fixture world it uses (default: own)")
    sub.add_parser("test", help="create .venv with the test dependencies and run the suite, long "
                                "probes left out (--probes runs them too; other arguments go to pytest)")
    sub.add_parser("bench", help="time the lesson commands and mechanisms (see: dev bench --help)")
    sub.add_parser("mutants", help="mutate the answer regions and report the share the graders reject "
                                   "(see: dev mutants --help)")
    sub.add_parser("gradescope", help="build the Gradescope autograder zip (see: dev gradescope --help)")
    sub.add_parser("release", help="build the learner's copy of some lessons, without solutions "
                                   "(see: dev release --help)")
    sub.add_parser("probe", help="race concurrent resets and hints on scratch copies, count losses "
                                 "(see: dev probe --help)")
    if argv and argv[0] in PASSED_ON:
        args, rest = parser.parse_args(argv[:1]), argv[1:]
    else:
        args, rest = parser.parse_args(argv), []  # strict: `dev sync --froce` is an error

    try:
        if args.command == "sync":
            lines = sync(force=args.force)
            for line in lines or ["everything is in sync"]:
                print(fit(line))
            return 1 if any(line.startswith("kept ") for line in lines) else 0
        if args.command == "check":
            found = check(_names(check_parser, args.lesson, course.lessons(), "lesson") or None)
            for line in found:
                print(fit(f"- {line}"))
            print("maintainer check: " + (f"{len(found)} problem(s)" if found else "all good"))
            return 1 if found else 0
        if args.command == "notebooks":
            from devtools import notebooks
            known = [path.stem for path in notebooks.sources()]
            for path in notebooks.build(_names(nb_parser, args.names, known, "notebook") or None):
                print(f"wrote {course.shown(path)}")
            return 0
        if args.command == "new":
            from devtools import scaffold
            try:
                lines = scaffold.new_lesson(course.ROOT, args.name, args.title, args.world)
            except ValueError as error:
                new_parser.error(str(error))
            for line in lines:
                print(line)
            print(fit(f"next: write the lesson in those files, then `{RUN} dev sync`, `{RUN} dev golden "
                  f"{args.name}` and `{RUN} dev check {args.name}`"))
            return 0
        if args.command == "golden":
            for line in golden(_names(golden_parser, args.names, golden_names(), "golden output") or None):
                print(line)
            return 0
    except files.FileProblem as problem:
        sys.stderr.write(f"methods.py dev {args.command}: {problem}\n")
        return 1
    if args.command == "test":
        from devtools import devenv
        return devenv.run_tests(rest)
    if args.command == "mutants":
        from devtools import mutate
        return mutate.main(rest)
    if args.command == "gradescope":
        from labtools.grading import gradescope
        return gradescope.main(rest)
    if args.command == "release":
        from labtools import release
        return release.main(rest)
    if args.command == "probe":
        from devtools import probe
        return probe.main(rest)
    from devtools import bench
    return bench.main(rest)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
