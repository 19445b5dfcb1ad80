"""`reset` and `watch`: start an exercise over without losing work, and re-grade on save.

reset   puts the generated stub back (course.generated_stub), but only after a
        yes at a terminal (or --yes), and only after copying the learner's file to a
        timestamped backup in .backups/. A file that already equals the stub needs no
        backup and no question.
watch   grades, then polls the exercise files (time, size and content; standard library
        only) and re-grades the lessons whose file was saved, once the file has been
        quiet for a moment (editors often write a file in several steps). --manual
        re-grades on Enter instead of polling.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from collections.abc import Callable, Iterable

from labtools import cli, course, files
from labtools.render import fit
from labtools.registry import RUN


# ------------------------------------------------------------------ reset

def _interactive() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def _ask(question: str) -> bool:
    try:
        return input(question).strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _state(path: Path, stub: str) -> tuple[str, bytes | None]:
    """(missing | stub | edited, the file's bytes). Bytes, not text: a file that is not UTF-8
    is the learner's work too, and is backed up byte for byte."""
    data = files.read_bytes(path)
    if data is None:
        return "missing", None
    return ("stub" if data == stub.encode("utf-8") else "edited"), data


def _restore(path: Path, stub: str, planned: str, confirmed: bool) -> list[str]:
    """Back up and restore one file, under the lock; the lines to print. A file found edited
    that was not edited when the question was asked is replaced only with --yes."""
    state, data = _state(path, stub)  # again: another command may have changed it meanwhile
    if state == "stub":
        return [f"{course.shown(path)} is already the stub: nothing to do."]
    if state == "edited" and planned != "edited" and not confirmed:
        return [f"{course.shown(path)} was edited while this command ran, so it is left as it is: "
                f"run {RUN} reset {path.stem} again."]
    lines = []
    found = files.near_miss_note(path.parent, path.stem) if state == "missing" else None
    if found:  # the learner's work is probably there under another name: left alone, and said so
        lines.append(f"{course.shown(path)} was missing; {found}. That file is left as it is: "
                     f"rename it to {path.name} (over the stub) to grade your own work.")
    copy = None
    if state == "edited":
        copy = course.backup(path, data)
        note = "" if files.is_utf8(data) else " (it is not UTF-8 text; the copy keeps its bytes as they were)"
        lines.append(f"Saved your {course.shown(path)} to {course.shown(copy)}{note}")
    try:
        if not path.parent.is_dir():
            files.make_folder(path.parent)
        placed, extra = files.swap_in(path, stub.encode("utf-8"), data, lambda later: course.backup(path, later))
    except files.FileProblem as problem:
        saved = f" Your work is safe in {course.shown(copy)}." if copy is not None else ""
        raise files.FileProblem(f"{problem}.{saved}") from None
    for later in extra:
        lines.append(f"{course.shown(path)} was saved again meanwhile: that version is in {course.shown(later)}")
    if not placed:
        lines.append(f"{course.shown(path)} was saved while reset ran, so that save is kept as it is "
                     f"(not the stub): run {RUN} reset {path.stem} again to start over.")
        return lines
    lines.append(f"Restored {course.shown(path)} to the stub.")
    return lines


def reset(argv: list[str], ask: Callable[[str], bool] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py reset",
        description="Restore exercise files to their generated stubs. Your file is copied to .backups/ "
                    "(timestamped) first, and you are asked before anything is replaced.")
    parser.add_argument("lesson", nargs="?", help="the lesson whose exercise file to restore")
    parser.add_argument("--all", action="store_true", help="restore every lesson's exercise file")
    parser.add_argument("--yes", "-y", action="store_true", help="do not ask (the backup is still made)")
    args = parser.parse_args(argv)
    if args.all == (args.lesson is not None):
        parser.error("name one lesson (reset LESSON) or use --all")

    names = course.lessons() if args.all else [cli.lesson_argument(parser, args.lesson)]
    try:
        plan = []  # (path, stub, state) with state: missing | stub | edited
        for lesson in names:
            path = course.EXERCISES / f"{lesson}.py"
            stub = course.generated_stub(lesson)
            plan.append((path, stub, _state(path, stub)[0]))
    except files.FileProblem as problem:
        sys.stderr.write(fit(f"methods.py reset: {problem}. Nothing was changed.") + "\n")
        return 1

    edited = [course.shown(path) for path, _stub, state in plan if state == "edited"]
    if edited and not args.yes:
        question = (f"Replace {', '.join(edited)} with the stub? Your version is copied to "
                    f"{course.shown(course.BACKUPS)}/ first. [y/N] ")
        if ask is None:
            if not _interactive():
                again = f"{RUN} reset {'--all' if args.all else names[0]} --yes"
                sys.stderr.write(fit(f"methods.py reset: nothing changed. Reset replaces your work in "
                                     f"{', '.join(edited)}, so it asks first, and only a terminal can answer "
                                     f"(piped input such as `echo y |` is not read as a yes). To go ahead, "
                                     f"your file still backed up first:") + f"\n    {again}\n")
                return 2
            ask = _ask
        if not ask(question):
            cli.write("Nothing changed.\n")
            return 1

    # The question is asked without the lock (a person may take their time); the files are
    # read again and changed under it, so two resets at once back up and restore in turn.
    lines = []
    try:
        with course.locked():
            for path, stub, state in plan:
                lines += _restore(path, stub, state, confirmed=args.yes)
    except files.FileProblem as problem:
        cli.write("".join(fit(line) + "\n" for line in lines))
        sys.stderr.write(fit(f"methods.py reset: {problem}") + "\n")
        if edited:
            sys.stderr.write(fit("Nothing of your work was lost: a file is replaced only after its backup "
                                 "is saved.") + "\n")
        return 1
    if edited:
        lines.append(f"Your earlier work is in {course.shown(course.BACKUPS)}/: copy back whatever you want to keep.")
    lines.append(f"Next: {RUN} check" + ("" if args.all else f" {names[0]}"))
    cli.write(fit("\n".join(lines)) + "\n")
    return 0


# ------------------------------------------------------------------ watch

def snapshot(paths: Iterable[Path]) -> dict[Path, tuple[int, int, str] | None]:
    """(modification time in ns, size, SHA-256 of the content) of each file; None for a missing
    one. The content too: a save within the file system's clock tick, or one that an editor
    dates back, keeps the time and maybe the size, never the content (exercise files are small)."""
    import hashlib
    seen = {}
    for path in paths:
        try:
            stat = path.stat()
            data = files.read_bytes(path)
        except (OSError, files.FileProblem):
            seen[path] = None
            continue
        seen[path] = None if data is None else (stat.st_mtime_ns, stat.st_size, hashlib.sha256(data).hexdigest())
    return seen


def poll(paths: list[Path], on_save: Callable[[list[Path]], None], *, interval: float = 0.3,
         quiet: float = 0.25, sleep: Callable[[float], None] = time.sleep,
         clock: Callable[[], float] = time.monotonic, max_polls: int | None = None,
         graded: dict | None = None) -> int:
    """Call `on_save(changed paths)` after files change and then stay unchanged for
    `quiet` seconds (a debounce: one re-grade per save, however the editor writes).
    Polls every `interval` seconds, forever or `max_polls` times; returns how many
    times it called on_save. `graded`: the snapshot of the files as the caller last graded
    them (default: as they are now), so a save made during that grading is seen at the first
    poll. Each call of on_save grades the files as snapshotted just before it, and the
    next poll compares with that, so a save made during a re-grade is never lost either.
    `sleep` and `clock` are injectable for tests."""
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or interval <= 0:
        raise ValueError(f"interval must be a positive number of seconds, got {interval!r}")
    if isinstance(quiet, bool) or not isinstance(quiet, (int, float)) or quiet < 0:
        raise ValueError(f"quiet must be a number of seconds >= 0, got {quiet!r}")
    seen = snapshot(paths) if graded is None else graded
    pending: set[Path] = set()
    last_change = clock()
    polls = calls = 0
    while max_polls is None or polls < max_polls:
        sleep(interval)
        polls += 1
        now = snapshot(paths)
        changed = {path for path in paths if now[path] != seen[path]}
        if changed:
            pending |= changed
            seen, last_change = now, clock()
            if quiet > 0:
                continue  # wait for the file to settle
        if pending and clock() - last_change >= quiet:
            seen = snapshot(paths)  # what this re-grade reads: a later save differs from it
            on_save(sorted(pending, key=paths.index))
            pending.clear()
            calls += 1
    return calls


def manual(on_enter: Callable[[], None], read_line: Callable[[], str] = input) -> int:
    """Call `on_enter()` for each empty line read; stop at 'q', end of input or Ctrl-D."""
    calls = 0
    while True:
        try:
            line = read_line()
        except EOFError:
            return calls
        if line.strip().lower() in ("q", "quit", "exit"):
            return calls
        on_enter()
        calls += 1


def _seconds(text: str) -> float:
    # ASCII digits with an optional decimal part: float() would also take '1_0', ' 5 ', 'nan'
    # and other scripts' digits.
    import re
    from modules.common.checks import short
    if not re.fullmatch(r"[0-9]{1,6}(\.[0-9]{1,6})?|\.[0-9]{1,6}", text):
        raise argparse.ArgumentTypeError(f"expected a number of seconds such as 0.3, got {short(text)}")
    value = float(text)
    if not 0.05 <= value <= 60:
        raise argparse.ArgumentTypeError(f"expected between 0.05 and 60 seconds, got {short(text)}")
    return value


def watch(argv: list[str], sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
          max_polls: int | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="methods.py watch",
        description="Grade, then re-grade every time you save an exercise file (polling its modification "
                    "time). Ctrl-C quits. --manual re-grades when you press Enter instead.")
    parser.add_argument("lesson", nargs="?", help="watch only this lesson (default: every lesson with exercises)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--manual", action="store_true", help="no polling: re-grade when you press Enter")
    mode.add_argument("--once", action="store_true", help="grade once and stop (what `check` does)")
    parser.add_argument("--interval", type=_seconds, default=0.3, metavar="SECONDS",
                        help="how often to look at the files (default 0.3)")
    parser.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    args = parser.parse_args(argv)
    names = [cli.lesson_argument(parser, args.lesson)] if args.lesson is not None else course.lessons()
    if not names:
        parser.error("no lesson has exercises yet")
    narrowed = args.lesson is not None
    paths = [course.EXERCISES / f"{name}.py" for name in names]
    graded = snapshot(paths)  # before the first grading: a save during it is seen at the first poll
    records = dict(zip(names, cli.grade(names)))

    def show() -> None:
        cli.show([records[name] for name in names], narrowed=narrowed, plain=args.plain,
                 watching=None if args.once else "enter" if args.manual else "save")

    def regrade(lessons: list[str]) -> None:
        records.update(zip(lessons, cli.grade(lessons)))
        show()

    show()
    if args.once:
        return 0 if all(r["status"] == "passed" for r in records.values()) else 1
    files = ", ".join(course.shown(path) for path in paths) if len(paths) <= 3 else f"{len(paths)} files in exercises/"
    try:
        if args.manual:
            cli.write("\n" + fit(f"Press Enter to re-grade {files}; type q and Enter (or press Ctrl-C) to quit.")
                      + "\n")

            def on_enter() -> None:
                cli.write(f"\n--- re-grading at {time.strftime('%H:%M:%S')} ---\n")
                regrade(names)
                cli.write("\nEnter re-grades; q and Enter (or Ctrl-C) quits.\n")

            manual(on_enter)
        else:
            cli.write("\n" + fit(f"Watching {files}: save to re-grade. Press Ctrl-C to quit.") + "\n"
                      + f"No polling wanted? {RUN} watch{' ' + args.lesson if args.lesson else ''} --manual\n")

            def on_save(changed: list[Path]) -> None:
                saved = ", ".join(course.shown(path) for path in changed)
                cli.write("\n" + fit(f"--- {saved} saved at {time.strftime('%H:%M:%S')}: re-grading ---") + "\n")
                regrade([path.stem for path in changed])
                cli.write("\nWatching: save to re-grade, Ctrl-C to quit.\n")

            poll(paths, on_save, interval=args.interval, sleep=sleep, clock=clock, max_polls=max_polls,
                 graded=graded)
    except KeyboardInterrupt:
        cli.write("\nStopped watching.\n")
    return 0
