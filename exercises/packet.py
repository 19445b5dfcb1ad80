# TODO: replace each `raise NotImplementedError` and `= None` below, then run: python3 -B methods.py check packet
"""Lesson 06 exercises: spans that stay checkable, a wrapper that holds, a seal that is stable.

Task 1  extract_span     cut a half-open [start, end) span out of canonical text
Task 2  check_drift      revalidate a stored span against an edited text
Task 3  escape_text      escape (and unescape_text) evidence so it cannot leave its wrapper
Task 4  expand_adjacent  add capped neighbouring chunks, marked and paid from the budget
Task 5  packet_seal      a SHA-256 over canonical JSON, the same whatever the dict or set order
Task 6  fidelity_check   what a compressed text lost: negations, numbers, exceptions
Task 7  SEAL_QUIZ        what a valid seal does and does not prove

Check your work:  python3 -B methods.py check packet
Stuck?            python3 -B methods.py hint packet
"""

import hashlib
import json
from dataclasses import replace

from modules.packet import EXCEPTIONS, NEGATIONS, Evidence, words


def extract_span(text: str, start: int, end: int) -> str:
    """Task 1. Return the characters of `text` in the half-open span [start, end).

    `text` is already canonical (NFC); offsets count its code points, so the
    span holds end - start characters: start is included, end is not, and
    start == end is an empty span. Raise ValueError unless
    0 <= start <= end <= len(text): never clip a span silently, never count
    from the end with a negative offset.

    >>> extract_span("opens at 8:30", 9, 13)
    '8:30'
    """
    raise NotImplementedError("extract_span: write your answer here, then run: python3 -B methods.py check packet")


def check_drift(span: dict, text: str) -> dict:
    """Task 2. Revalidate a stored span against the (possibly edited) canonical `text`.

    `span` holds "start", "end", "quote" (the exact text cited) and "quote_sha256"
    (hashlib.sha256 of the quote's UTF-8 bytes, hex). Return one of
        {"status": "ok", "start": start, "end": end}   the span still holds the quote
        {"status": "moved", "start": s, "end": e}      the quote occurs exactly once, elsewhere
        {"status": "drifted", "start": None, "end": None}  otherwise (gone, changed, or ambiguous)
    A span that now falls past the end of `text` must not raise: it is moved or drifted.
    """
    raise NotImplementedError("check_drift: write your answer here, then run: python3 -B methods.py check packet")


def escape_text(text: str) -> str:
    """Task 3 (with unescape_text). Escape evidence text for the inside of an <evidence> element.

    The result must contain none of the characters < > " ' so a passage can neither
    close its element nor break out of an attribute, and unescape_text(escape_text(t))
    must give back t exactly, for every string t (including ones that already look
    like entities, such as "&lt;"). Use the entities &amp; &lt; &gt; &quot; &#39;.
    """
    raise NotImplementedError("escape_text: write your answer here, then run: python3 -B methods.py check packet")


def unescape_text(text: str) -> str:
    """Task 3. Undo escape_text exactly."""
    raise NotImplementedError("unescape_text: write your answer here, then run: python3 -B methods.py check packet")


def expand_adjacent(hits, chunks, before: int, after: int, max_quote_chars: int) -> tuple:
    """Task 4. Add up to `before`/`after` neighbouring chunks of each hit, paid from the budget.

    `hits` are retrieved Evidence items in rank order. `chunks` holds every chunk of
    the documents (any order, each id once); a hit's neighbours are the chunks of the same doc_id
    just before and after it when that document's chunks are sorted by start (a hit
    that is not among `chunks` has no neighbours, and is still added on its own).
    The budget counts len(text) of every item in the result. Walk the hits in rank
    order:
      * a hit that is already in the packet, or does not fit, is skipped (with its neighbours);
      * after paying for a hit, consider its neighbours nearest first (up to `before`
        preceding ones, then up to `after` following ones); add each one that fits,
        is not already in the packet and is not itself one of the hits;
      * a neighbour is a copy of the chunk with relation "adjacent_to:<hit id>"
        (use dataclasses.replace): it was not retrieved, and must never look retrieved;
      * add the hit's group (its kept neighbours and the hit) sorted by start.
    Return the packet as a tuple. Raise ValueError if before, after or the budget is negative
    (a budget of 0 is allowed: nothing fits, the packet is empty).
    """
    raise NotImplementedError("expand_adjacent: write your answer here, then run: python3 -B methods.py check packet")


def packet_seal(fields: dict) -> str:
    """Task 5. Return the packet's seal: the SHA-256 hex digest of its canonical JSON.

    Canonical JSON: json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False), encoded as UTF-8. Before dumping, replace every set or
    frozenset (at any depth, inside dicts and lists too) by a sorted list; the sets
    here hold strings. Tuples dump as lists. The same fields built in another key
    order, or with sets filled in another order, must give the same seal; any
    change to a value must give another.
    """
    raise NotImplementedError("packet_seal: write your answer here, then run: python3 -B methods.py check packet")


def fidelity_check(original: str, compressed: str) -> dict:
    """Task 6. Report which negations, numbers and exception words `compressed` lost.

    Compare whole tokens from `words(text)` (imported above: lower-case words and
    numbers such as "8:30"), never substrings: "note" does not keep "not", "18"
    does not keep "8". A token of `original` is
        a number      if it starts with a digit,
        a negation    if it is in NEGATIONS or ends with "n't",
        an exception  if it is in EXCEPTIONS.
    It is lost if it does not occur among the tokens of `compressed`. Return
        {"negations": [...], "numbers": [...], "exceptions": [...], "ok": <nothing lost>}
    with each lost token listed once, in the order it first appears in `original`.
    """
    raise NotImplementedError("fidelity_check: write your answer here, then run: python3 -B methods.py check packet")


# Task 7 (quiz). A packet is replayed a month later and its seal matches the one in
# the log. What does that establish?
#   "a"  the evidence in the packet is true
#   "b"  the packet is byte-for-byte the same packet that was logged, so the answer
#        can be replayed and audited; whether its evidence is right is another question
#   "c"  the sources have not changed since the packet was built
#   "d"  no passage in the packet contains an injected instruction
# Set SEAL_QUIZ to one letter.
SEAL_QUIZ = None  # TODO: your answer


__all__ = ["Evidence", "extract_span", "check_drift", "escape_text", "unescape_text", "expand_adjacent",
           "packet_seal", "fidelity_check", "SEAL_QUIZ"]
