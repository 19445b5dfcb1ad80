#!/usr/bin/env python3
"""Context Lab: select and assemble the context of a RAG answer without losing evidence.

    python3 -B methods.py                 list the lessons and the workflow commands
    python3 -B methods.py context         print lesson 01's trace (any lesson name works)
    python3 -B methods.py check [LESSON]  grade your exercises
    python3 -B methods.py hint LESSON     the next hint for your first unfinished task

Standard library only; a lesson command imports nothing but its own module.
"""

import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
if ROOT not in sys.path:  # also under `python3 -I`, which leaves the script's folder off sys.path
    sys.path.insert(0, ROOT)


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        import argparse  # already loaded: only a parser calls this
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


# name -> (number, one-line description, lesson-specific options as (flags, argparse keywords))
LESSONS = {
    "context": ("01", "retrieval succeeded, the packet failed: one question at quote budgets 80, 120, 400",
                [(("--budget",), dict(dest="budgets", type=_whole_number, action="append", metavar="N",
                                      help="max_quote_chars to run (repeatable); replaces 80, 120 and 400"))]),
    "budget": ("02", "keep the units explicit: skip vs truncate, the window equation, top-k overflow", []),
    "dedupe": ("03", "remove redundancy without merging identities: ids, text, canonical documents, overlaps", []),
    "versions": ("04", "surface version conflicts instead of guessing which record is fresh",
                 [(("--as-of",), dict(dest="as_of", metavar="YYYY-MM-DD",
                                      help="the day the validity filter checks (default: 2026-07-01)"))]),
    "order": ("05", "position is a hypothesis to measure, with a labelled fictional reader",
              [(("--seed",), dict(type=_whole_number, metavar="N", help="simulator seed (default: the lesson's own)"))]),
    "packet": ("06", "a sealed, sourced, safely wrapped evidence packet", []),
    "hybrid": ("07", "candidate channels, the query contract and rank fusion", []),
    "eligibility": ("08", "permission, freshness and evidence states before anything is ranked", []),
    "grounding": ("09", "traces that explain every inclusion and exclusion: fingerprint, exclusions, layer walk",
                  [(("--query",), dict(metavar="ID", help="catalogue query to show in detail (default PW-Q002)"))]),
    "answer": ("10", "an honest answer stage that cites only its packet", []),
    "practice": ("11", "the capstone: eight candidates, one packet, every decision explained",
                 [(("--solution",), dict(action="store_true", help="also print the reference decision table"))]),
    "memory": ("13", "retained context with obligations, under the same gate as evidence", []),
}

WORKFLOW = {
    "check": "grade your exercises: progress per lesson, the first failure, the next step",
    "hint": "the next hint for a task, one level at a time",
    "reset": "restore an exercise file to its stub (your file is backed up first)",
    "watch": "re-grade whenever you save an exercise file",
    "dev": "maintainer commands: sync, check, notebooks, test, bench",
    "audit": "find where your own retrieval run (BEIR folder + TREC run) loses evidence; no PATH: the demo",
}


def overview() -> str:
    lines = [__doc__.splitlines()[0], "", "Lessons (python3 -B methods.py NAME [--plain | --json]):"]
    for name, (number, about, _options) in LESSONS.items():
        ready = os.path.exists(os.path.join(ROOT, "modules", name + ".py"))
        lines.append(f"  {number} {name:<12} {about}{'' if ready else '  (not built yet)'}")
    lines += ["", "Workflow:"]
    lines += [f"  {name:<15} {about}" for name, about in WORKFLOW.items()]
    lines += ["", "Start with: python3 -B methods.py context, then python3 -B methods.py check context"]
    return "\n".join(lines) + "\n"


def write(text: str) -> None:
    # UTF-8 bytes whatever the locale, so the output is the same everywhere.
    stream = getattr(sys.stdout, "buffer", None)
    if stream is None:
        sys.stdout.write(text)
    else:
        stream.write(text.encode("utf-8"))
    sys.stdout.flush()


def wants_rich(plain: bool, as_json: bool) -> bool:
    if plain or as_json or os.environ.get("NO_COLOR") or not sys.stdout.isatty():
        return False
    import importlib.util
    return importlib.util.find_spec("rich") is not None


def lesson_parser(name: str):
    import argparse  # here, not at the top: the usual calls below never need it (about 2 ms)
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
        # The usual calls need no parser: importing argparse and building one costs 3-4 ms (its
        # messages go through gettext, which loads locale), a third of a lesson's whole budget.
        parser, plain, as_json, settings = None, argv == ["--plain"], argv == ["--json"], {}
    else:
        parser = lesson_parser(name)
        args = parser.parse_args(argv)
        plain, as_json = args.plain, args.json
        settings = {key: value for key, value in vars(args).items()
                    if key not in ("plain", "json") and value not in (None, False)}
    if not os.path.exists(os.path.join(ROOT, "modules", name + ".py")):
        (parser or lesson_parser(name)).error(f"lesson '{name}' is not built yet")
    module = __import__(f"modules.{name}", fromlist=["trace"])
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
        render.render_rich(module.view(record))
    else:
        write(render.render_plain(module.view(record)))
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        write(overview())
        return 0
    command, rest = argv[0], argv[1:]
    if command in LESSONS:
        return run_lesson(command, rest)
    if command == "audit":  # not a lesson: it reads your files, so it parses its own options
        from modules.audit_trace import main as audit
        return audit(rest)
    if command in WORKFLOW:
        from labtools import cli
        return cli.main(command, rest)
    import difflib
    close = difflib.get_close_matches(command, list(LESSONS) + list(WORKFLOW), n=1)
    suggestion = f" Did you mean '{close[0]}'?" if close else ""
    sys.stderr.write(f"methods.py: error: unknown command '{command}'.{suggestion} "
                     f"Run 'python3 -B methods.py' to list the commands.\n")
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `methods.py context | head` is fine
        sys.stderr.close()
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)
