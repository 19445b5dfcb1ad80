#!/usr/bin/env python3
"""Context Lab: select and assemble the context of a RAG answer without losing evidence.

    python3 -B methods.py                 list the lessons and the workflow commands
    python3 -B methods.py setup           once: compile the lab's modules so lessons start fast
    python3 -B methods.py context         print lesson 01's trace (any lesson name works)
    python3 -B methods.py check [LESSON]  grade your exercises
    python3 -B methods.py hint LESSON     the next hint for your first unfinished task

Standard library only. A lesson command loads its own module, the earlier lessons'
mechanisms it builds on, and the renderer; never the workflow (labtools/cli.py and
friends), which only the workflow commands load. The lessons and commands are listed in
labtools/registry.py.
"""

# This file must parse under Python 3.6 (no walrus, match or `X | Y` outside functions), and
# nothing before the check may need more: an older interpreter gets the message below, not a
# SyntaxError or a wrong grade. The rest of the lab is imported only after it.
import sys

if sys.version_info < (3, 10):
    sys.stderr.write("Context Lab needs Python 3.10 or newer; this is Python %s (%s).\n"
                     "Run it with a newer interpreter, for example: %s\n"
                     % (".".join(str(part) for part in sys.version_info[:3]), sys.executable or "python",
                        " ".join(["python3.12", "-B", "methods.py"] + sys.argv[1:2])))
    sys.exit(1)

import os  # noqa: E402

ROOT = os.path.dirname(os.path.abspath(__file__))
if ROOT not in sys.path:  # also under `python3 -I`, which leaves the script's folder off sys.path
    sys.path.insert(0, ROOT)

from labtools.registry import LESSONS, RUN, WORKFLOW, built, lesson_module, write, wants_rich  # noqa: E402


def overview() -> str:
    lines = [__doc__.splitlines()[0], "", "Lessons (python3 -B methods.py NAME [--plain | --json]):"]
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


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        if argv[1:]:
            return usage_error(f"'{argv[0]}' takes no arguments (got {len(argv) - 1}); "
                               f"a command's own options: {RUN} COMMAND --help.")
        write(overview())
        return 0
    command, rest = argv[0], argv[1:]
    if command in LESSONS:
        return run_lesson(command, rest)
    if command in WORKFLOW:
        module, function = WORKFLOW[command][1].split(":")
        return getattr(__import__(module, fromlist=[function]), function)(rest)
    import difflib
    close = difflib.get_close_matches(command, list(LESSONS) + list(WORKFLOW), n=1)
    from modules.common.checks import short
    return usage_error(f"unknown command {short(command)}." + (f" Did you mean '{close[0]}'?" if close else ""))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `methods.py context | head` is fine
        sys.stderr.close()
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)
