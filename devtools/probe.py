"""`methods.py dev probe`: race lab commands against each other and count what is lost.

Everything happens on scratch copies in a temporary folder; the checkout's exercises/,
.backups/ and .hints-seen.json are never touched.

reset   WORKERS processes (default 12), forked and held behind a barrier, all run
        `reset LESSON --yes` on one edited exercise file. A trial loses work when no
        backup holds the edited bytes afterwards; it fails when the file is not the stub,
        a process exits non-zero or prints a traceback, or a temporary file is left.
editor  one `reset LESSON --yes` against an editor saving the same file (writing a
        temporary file and renaming it over the exercise), released together, the save
        delayed by a seeded random pause within the time a trial takes. A trial loses
        work when the saved bytes are neither in the file nor in a backup afterwards
        (the bytes before the save may be gone: the editor replaced them, not reset).
        Before reset renamed the file aside and linked the stub in, 35 of 200 saves
        were lost this way.
hint    WORKERS processes (default 8) behind a barrier each ask for the next hint of a
        different task, on a state file that already holds other entries. A round fails
        when the file afterwards is not valid JSON, lacks an entry (old or new), holds a
        wrong level, or a process fails.

    python3 -B methods.py dev probe [--trials 200] [--saves 100] [--rounds 50]
                                    [--reset-workers 12] [--hint-workers 8]
    python3 -B methods.py dev probe --grading [--attack NAME]...

--grading runs instead the attack suite of devtools/attacks.py: every attack on `grade`, with
and without --sandbox (where bwrap can run), and on the pytest route; one line per attack and
mode with the time, the attacker's score and what it must be, then whether grading held.

Needs os.fork (Linux, macOS). Exit status 0 when nothing was lost or failed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from labtools import cli, course, workflow


class _Scratch:
    """Point the workflow at a scratch folder (exercises, backups, lock, hint state) for a while."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.saved = {}

    def __enter__(self):
        places = {(course, "EXERCISES"): self.folder / "exercises", (course, "BACKUPS"): self.folder / "backups",
                  (course, "LOCK"): self.folder / "lab.lock", (cli, "HINT_STATE"): self.folder / "hints.json"}
        for (module, name), value in places.items():
            self.saved[(module, name)] = getattr(module, name, None)
            setattr(module, name, value)
        (self.folder / "exercises").mkdir(exist_ok=True)
        return self

    def __exit__(self, *exc):
        for (module, name), value in self.saved.items():
            setattr(module, name, value)


def _child(barrier, log: str, function, argv: list[str]) -> None:
    # The child's output goes to its own log file; the exit status is the command's.
    handle = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(handle, 1)
    os.dup2(handle, 2)
    sys.stdout = os.fdopen(1, "w", closefd=False)
    sys.stderr = os.fdopen(2, "w", closefd=False)
    try:
        barrier.wait(timeout=60)
        code = function(argv)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:  # noqa: BLE001 - a traceback is exactly what the probe looks for
        traceback.print_exc()
        code = 70
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _race(function, argvs: list[list[str]], folder: Path) -> list[tuple[int, str]]:
    """Run function(argv) for each argv in its own forked process, all released at once;
    (exit status, output) of each."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(len(argvs))
    logs = [str(folder / f"log-{index}.txt") for index in range(len(argvs))]
    processes = [context.Process(target=_child, args=(barrier, log, function, argv))
                 for log, argv in zip(logs, argvs)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(120)
    results = []
    for process, log in zip(processes, logs):
        if process.exitcode is None:
            process.kill()
            process.join()
        results.append((process.exitcode, Path(log).read_text(encoding="utf-8", errors="replace")))
    return results


def reset_trial(lesson: str, workers: int = 12) -> dict:
    """One trial of the reset race; {"lost": bool, "problems": [...], "backups": N}."""
    stub = course.generated_stub(lesson).encode("utf-8")
    with tempfile.TemporaryDirectory(prefix="lab-probe-") as name, _Scratch(Path(name)) as scratch:
        path = course.EXERCISES / f"{lesson}.py"
        # A learner's file of realistic size: the solution, plus a line that is theirs alone.
        work = (course.SOLUTIONS / f"{lesson}.py").read_bytes() + f"# my notes {time.time_ns()}\n".encode()
        path.write_bytes(work)
        results = _race(workflow.reset, [[lesson, "--yes"]] * workers, scratch.folder)
        backups = sorted(course.BACKUPS.iterdir()) if course.BACKUPS.is_dir() else []
        kept = [copy for copy in backups if copy.read_bytes() == work]
        problems = []
        if not kept:
            problems.append("no backup holds the learner's work")
        if path.read_bytes() != stub:
            problems.append("the exercise file is not the stub")
        for code, log in results:
            if code != 0 or "Traceback" in log:
                problems.append(f"a reset exited {code}: {log.strip().splitlines()[-1] if log.strip() else ''}")
        left = [p.name for p in course.EXERCISES.iterdir() if p != path]
        if left:
            problems.append(f"left behind in exercises/: {', '.join(left)}")
        return {"lost": not kept, "problems": problems, "backups": len(backups)}


def _reset_or_save(argv: list[str]) -> int:
    """A racer of the editor trial: `reset LESSON --yes`, or ["save", PATH, SECONDS, TEXT]:
    wait, then save as an editor does (a temporary file renamed over the target)."""
    if argv[0] != "save":
        return workflow.reset(argv)
    _, path, pause, text = argv
    time.sleep(float(pause))
    temporary = f"{path}.editor-{os.getpid()}~"
    with open(temporary, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(temporary, path)
    return 0


def editor_trial(lesson: str, pause: float) -> dict:
    """One reset racing one editor save that lands `pause` seconds after both start;
    {"lost": bool, "problems": [...], "kept": "save" | "stub"} (what the file holds after)."""
    with tempfile.TemporaryDirectory(prefix="lab-probe-") as name, _Scratch(Path(name)) as scratch:
        path = course.EXERCISES / f"{lesson}.py"
        before = (course.SOLUTIONS / f"{lesson}.py").read_text(encoding="utf-8") + "# before the save\n"
        saved = before + f"# saved {time.time_ns()}\n"
        path.write_text(before, encoding="utf-8")
        results = _race(_reset_or_save, [[lesson, "--yes"], ["save", str(path), f"{pause:.6f}", saved]],
                        scratch.folder)
        backups = [copy.read_text(encoding="utf-8") for copy in sorted(course.BACKUPS.iterdir())] \
            if course.BACKUPS.is_dir() else []
        now = path.read_text(encoding="utf-8")
        # The version before the save may be gone: the editor replaced it, not reset.
        problems = [] if saved == now or saved in backups else ["the editor's save is neither in the file nor in a backup"]
        for code, log in results:
            if code != 0 or "Traceback" in log:
                problems.append(f"a racer exited {code}: {log.strip().splitlines()[-1] if log.strip() else ''}")
        left = [p.name for p in course.EXERCISES.iterdir() if p != path]
        if left:
            problems.append(f"left behind in exercises/: {', '.join(left)}")
        return {"lost": any("neither" in p for p in problems), "problems": problems,
                "kept": "save" if now == saved else "stub" if now == course.generated_stub(lesson) else "other"}


def hint_round(workers: int = 8) -> dict:
    """One round of the hint race; {"failed": bool, "problems": [...]}."""
    keys = _hint_keys(workers)
    with tempfile.TemporaryDirectory(prefix="lab-probe-") as name, _Scratch(Path(name)) as scratch:
        earlier = {"earlier:1": 2, "earlier:2": 1}  # entries from before: they must survive too
        cli.HINT_STATE.write_text(json.dumps(earlier), encoding="utf-8")
        results = _race(cli.hint, [[lesson, str(task)] for lesson, task in keys], scratch.folder)
        problems = []
        try:
            state = json.loads(cli.HINT_STATE.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            state = {}
            problems.append(f"the state file is unreadable: {error}")
        want = dict(earlier, **{f"{lesson}:{task}": 1 for lesson, task in keys})
        missing = sorted(set(want) - set(state))
        if missing:
            problems.append(f"entries lost: {', '.join(missing)}")
        wrong = sorted(key for key in want if key in state and state[key] != want[key])
        if wrong:
            problems.append(f"wrong levels: {', '.join(wrong)}")
        for code, log in results:
            if code != 0 or "Traceback" in log:
                problems.append(f"a hint exited {code}: {log.strip().splitlines()[-1] if log.strip() else ''}")
        aside = [p.name for p in scratch.folder.iterdir() if ".corrupt" in p.name]
        if aside:
            problems.append(f"state set aside as corrupt: {', '.join(aside)}")
        return {"failed": bool(problems), "problems": problems}


def all_hint_keys() -> list[tuple[str, int]]:
    """Every (lesson, task): task 1 of each lesson first, then task 2, ..."""
    from labtools.grading import harness
    tasks = {lesson: sorted(t.number for t in harness.grader_module(lesson).TASKS) for lesson in course.lessons()}
    return [(lesson, numbers[level]) for level in range(max(map(len, tasks.values())))
            for lesson, numbers in tasks.items() if level < len(numbers)]


def _hint_keys(workers: int) -> list[tuple[str, int]]:
    keys = all_hint_keys()
    if len(keys) < workers:
        raise ValueError(f"only {len(keys)} tasks to ask hints for, fewer than {workers} workers")
    return keys[:workers]


def _count(text: str) -> int:
    from modules.common.checks import parse_whole_number
    try:
        return parse_whole_number(text, "the value", 1, 100_000)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def grading_attacks(names=None) -> int:
    """`dev probe --grading`: every attack of devtools/attacks.py in each mode; 0 when all held."""
    from devtools import attacks
    started = time.monotonic()
    rows = attacks.run_all(names=names, progress=lambda row: print(attacks.report_line(row), flush=True))
    failed = [row for row in rows if row["problems"]]
    modes = sorted({row["mode"] for row in rows})
    forged = sum(1 for row in rows if row["mode"] in ("plain", "namespaces") and row["expected"] is None
                 and row["mallory"] == attacks.TASKS)
    print(f"{len(rows)} attack runs ({', '.join(modes)}) in {time.monotonic() - started:.0f} s: "
          f"{len(rows) - len(failed)} held, {len(failed)} did not; without the sandbox {forged} forged the "
          f"attacker's own grade (the documented gap)")
    if names:
        return 0 if not failed else 1
    same = attacks.agreement()
    figures = ", ".join(f"{mode} {value:.0f} s" for mode, value in same["seconds"].items())
    print(f"the same verdicts in both modes: {same['versions']} versions (the catalogued wrong answers and the "
          f"reference answers of every lesson; {figures}): {len(same['problems'])} disagreement(s)")
    for problem in same["problems"][:5]:
        print(f"  {problem}")
    return 0 if not failed and not same["problems"] else 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="methods.py dev probe", description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=_count, default=200, help="reset trials (default 200)")
    parser.add_argument("--saves", type=_count, default=None,
                        help="editor-save trials (default 100, or --trials when that is smaller)")
    parser.add_argument("--rounds", type=_count, default=50, help="hint rounds (default 50)")
    parser.add_argument("--reset-workers", type=_count, default=12, help="resets per trial (default 12)")
    parser.add_argument("--hint-workers", type=_count, default=8, help="hints per round (default 8)")
    parser.add_argument("--lesson", default=None, help="the lesson whose file the resets race on (default: the first)")
    parser.add_argument("--grading", action="store_true", help="run the attack suite on grading instead")
    parser.add_argument("--attack", action="append", metavar="NAME", help="with --grading: only this attack")
    args = parser.parse_args(argv)
    if args.grading:
        return grading_attacks(args.attack)
    if not hasattr(os, "fork"):
        parser.error("the probe forks processes, and this system has no os.fork")
    lesson = cli.lesson_argument(parser, args.lesson) if args.lesson is not None else course.lessons()[0]
    if args.hint_workers > len(all_hint_keys()):
        parser.error(f"--hint-workers is at most {len(all_hint_keys())} (one task each)")

    started = time.monotonic()
    lost = failed = backups = 0
    examples = []
    for _ in range(args.trials):
        trial = reset_trial(lesson, args.reset_workers)
        lost += trial["lost"]
        failed += bool(trial["problems"])
        backups += trial["backups"]
        examples += trial["problems"][:1]
    reset_seconds = time.monotonic() - started
    print(f"reset x{args.reset_workers} on one edited file: {args.trials} trials, work lost in {lost},\n"
          f"    any problem in {failed}; {backups / args.trials:.2f} backups per trial ({reset_seconds:.1f} s)")

    import random
    saves = args.saves if args.saves is not None else min(100, args.trials)
    pauses = random.Random(28)  # seeded: the same pauses on every run
    started = time.monotonic()
    editor_trial(lesson, 0.0)  # once to time it: the pauses then spread over that time
    window = time.monotonic() - started
    started = time.monotonic()
    save_lost = save_failed = saves_kept = 0
    for _ in range(saves):
        trial = editor_trial(lesson, pauses.uniform(0, window))
        save_lost += trial["lost"]
        save_failed += bool(trial["problems"])
        saves_kept += trial["kept"] == "save"
        examples += trial["problems"][:1]
    failed += save_failed
    print(f"reset against an editor's save: {saves} trials, work lost in {save_lost}, any problem\n"
          f"    in {save_failed}; the save stayed in the file in {saves_kept}, was backed up in "
          f"{saves - saves_kept}\n    (pauses up to {window * 1000:.0f} ms; {time.monotonic() - started:.1f} s)")

    started = time.monotonic()
    bad = 0
    for _ in range(args.rounds):
        outcome = hint_round(args.hint_workers)
        bad += outcome["failed"]
        examples += outcome["problems"][:1]
    print(f"hint x{args.hint_workers}, each a different task: {args.rounds} rounds, state lost or damaged\n"
          f"    in {bad} ({time.monotonic() - started:.1f} s)")
    for example in sorted(set(examples))[:5]:
        from labtools.render import fit
        print(fit(f"  e.g. {example}"))
    return 0 if not (failed or bad) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
