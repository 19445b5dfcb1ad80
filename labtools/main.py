"""The command line behind methods.py: list the commands, print a lesson, or hand a workflow
command to its module.

methods.py is kept to the version gate and this one import, because Python compiles the
script it is given on every run and reads its modules from their compiled cache: the less
methods.py holds, the less every command compiles. Nothing here imports methods.py.
"""

import os
import sys

from labtools.registry import LESSONS, ROOT, RUN, WORKFLOW, built, lesson_module, lesson_named, wants_rich, write

# The commands that read the learner's exercise files: in a student release, a lesson released
# since the last run gets its exercises/NAME.py first (labtools/course.py).
LEARNER_FILES = ("check", "hint", "reset", "watch")


def _new_exercises() -> None:
    from labtools import course, files
    try:
        lines = course.write_missing_exercises()
    except files.FileProblem as problem:
        lines = [f"note: {problem}"]
    for line in lines:  # on stderr: `check --json` keeps its stdout for the record
        sys.stderr.write(line + "\n")


def overview(doc: str) -> str:
    """The list of lessons and commands, under the first line of `doc` (methods.py's docstring)."""
    lines = [doc.splitlines()[0], "", "Lessons (python3 -B methods.py NAME [--plain | --json]):"]
    for name, (number, about, _options) in LESSONS.items():
        lines.append(f"  {number} {name:<12} {about}{'' if built(name) else '  (not built yet)'}")
    lines += ["", "Workflow:"]
    lines += [f"  {name:<15} {about}" for name, (about, _target) in WORKFLOW.items()]
    lines += ["", f"Start with: {RUN} setup      (once; lessons then start fast)",
              f"            {RUN} context    (then: check context)"]
    from labtools.render import fit
    return fit("\n".join(lines), hang=18) + "\n"  # a long description wraps under its own column


def lesson_parser(name: str):
    # Imported here, not at the top: the usual calls below never build a parser. Importing
    # argparse, building one and parsing cost about 4 ms (median 4.5 ms CPU over 21 runs on
    # the busy 2-core machine; argparse's messages go through gettext), a tenth of a start-up.
    import argparse
    number, about, options = LESSONS[name]
    parser = argparse.ArgumentParser(prog=f"methods.py {name}", description=f"Lesson {number}: {about}.")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="plain text even on a terminal (what the tests compare)")
    mode.add_argument("--json", action="store_true", help="print the trace record as JSON")
    for flags, keywords in options:
        parser.add_argument(*flags, **keywords)
    return parser


def run_lesson(name: str, argv: list) -> int:
    if argv in ([], ["--plain"], ["--json"]):
        # The usual calls need no parser (see lesson_parser).
        parser, plain, as_json, settings = None, argv == ["--plain"], argv == ["--json"], {}
    else:
        parser = lesson_parser(name)
        args = parser.parse_args(argv)
        plain, as_json = args.plain, args.json
        settings = {key: value for key, value in vars(args).items()
                    if key not in ("plain", "json") and value not in (None, False)}
    if not built(name):
        (parser or lesson_parser(name)).error(f"lesson '{name}' is not built yet")
    module = lesson_module(name)
    try:
        record = module.trace(**settings)
    except (ValueError, TypeError) as error:
        (parser or lesson_parser(name)).error(str(error))
    if as_json:
        import json
        write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        return 0
    from labtools import render
    if wants_rich(plain, as_json):
        from labtools.terminal import render_rich
        render_rich(module.view(record))
    else:
        write(render.render_plain(module.view(record)))
    return 0


def usage_error(message: str) -> int:
    sys.stderr.write(f"methods.py: error: {message} Run '{RUN}' to list the commands.\n")
    return 2


def main(argv=None, doc: str = "") -> int:
    """The command line: `argv` as after `methods.py`; `doc` is methods.py's docstring."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        if argv[1:]:
            return usage_error(f"'{argv[0]}' takes no arguments (got {len(argv) - 1}); "
                               f"a command's own options: {RUN} COMMAND --help.")
        write(overview(doc))
        return 0
    command, rest = argv[0], argv[1:]
    if command not in LESSONS and lesson_named(command):  # `methods.py 01`: the list numbers them
        command = lesson_named(command)
    if command in LESSONS:
        return run_lesson(command, rest)
    if command in WORKFLOW:
        if command in LEARNER_FILES:
            _new_exercises()
        module, function = WORKFLOW[command][1].split(":")
        try:
            target = __import__(module, fromlist=[function])
        except ModuleNotFoundError as error:
            if error.name != module.split(".")[0]:
                raise
            # devtools/ (the maintainer tools) is left out of a student release and the autograder
            return usage_error(f"'{command}' is a maintainer command, and this copy of the lab has no "
                               f"{error.name}/ folder: it needs a clone of the course's repository.")
        return getattr(target, function)(rest)
    import difflib
    close = difflib.get_close_matches(command, list(LESSONS) + list(WORKFLOW), n=1)
    from modules.common.checks import short
    return usage_error(f"unknown command {short(command)}." + (f" Did you mean '{close[0]}'?" if close else ""))
