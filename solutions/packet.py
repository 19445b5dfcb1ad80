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
    # BEGIN SOLUTION
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"span [{start}, {end}) is not within 0..{len(text)}")
    return text[start:end]
    # END SOLUTION


def check_drift(span: dict, text: str) -> dict:
    """Task 2. Revalidate a stored span against the (possibly edited) canonical `text`.

    `span` holds "start", "end", "quote" (the exact text cited) and "quote_sha256"
    (hashlib.sha256 of the quote's UTF-8 bytes, hex). Return one of
        {"status": "ok", "start": start, "end": end}   the span still holds the quote
        {"status": "moved", "start": s, "end": e}      the quote occurs exactly once, elsewhere
        {"status": "drifted", "start": None, "end": None}  otherwise (gone, changed, or ambiguous)
    A span that now falls past the end of `text` must not raise: it is moved or drifted.
    """
    # BEGIN SOLUTION
    start, end, quote = span["start"], span["end"], span["quote"]
    here = text[start:end] if end <= len(text) else None
    if here is not None and hashlib.sha256(here.encode("utf-8")).hexdigest() == span["quote_sha256"]:
        return {"status": "ok", "start": start, "end": end}
    if text.count(quote) == 1:
        found = text.index(quote)
        return {"status": "moved", "start": found, "end": found + len(quote)}
    return {"status": "drifted", "start": None, "end": None}
    # END SOLUTION


def escape_text(text: str) -> str:
    """Task 3 (with unescape_text). Escape evidence text for the inside of an <evidence> element.

    The result must contain none of the characters < > " ' so a passage can neither
    close its element nor break out of an attribute, and unescape_text(escape_text(t))
    must give back t exactly, for every string t (including ones that already look
    like entities, such as "&lt;"). Use the entities &amp; &lt; &gt; &quot; &#39;.
    """
    # BEGIN SOLUTION
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))
    # END SOLUTION


def unescape_text(text: str) -> str:
    """Task 3. Undo escape_text exactly."""
    # BEGIN SOLUTION
    return (text.replace("&#39;", "'").replace("&quot;", '"').replace("&gt;", ">")
            .replace("&lt;", "<").replace("&amp;", "&"))
    # END SOLUTION


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
    # BEGIN SOLUTION
    if before < 0 or after < 0 or max_quote_chars < 0:
        raise ValueError(f"before, after and max_quote_chars must be >= 0, got {before}, {after}, {max_quote_chars}")
    rows, position = {}, {}
    for item in sorted(chunks, key=lambda c: (c.doc_id, c.start)):
        row = rows.setdefault(item.doc_id, [])
        position[item.id] = len(row)  # index of each chunk in its document, found once
        row.append(item)
    hit_ids = {h.id for h in hits}
    packet, taken, used = [], set(), 0
    for hit in hits:
        if hit.id in taken or used + len(hit.text) > max_quote_chars:
            continue
        used += len(hit.text)
        taken.add(hit.id)
        row, at = rows.get(hit.doc_id, []), position.get(hit.id)
        near = []
        if at is not None:
            near = row[max(at - before, 0):at][::-1] + row[at + 1:at + 1 + after]
        group = [hit]
        for item in near:
            if item.id in hit_ids or item.id in taken or used + len(item.text) > max_quote_chars:
                continue
            used += len(item.text)
            taken.add(item.id)
            group.append(replace(item, relation=f"adjacent_to:{hit.id}"))
        packet.extend(sorted(group, key=lambda c: c.start))
    return tuple(packet)
    # END SOLUTION


def packet_seal(fields: dict) -> str:
    """Task 5. Return the packet's seal: the SHA-256 hex digest of its canonical JSON.

    Canonical JSON: json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False), encoded as UTF-8. Before dumping, replace every set or
    frozenset (at any depth, inside dicts and lists too) by a sorted list; the sets
    here hold strings. Tuples dump as lists. The same fields built in another key
    order, or with sets filled in another order, must give the same seal; any
    change to a value must give another.
    """
    # BEGIN SOLUTION
    def canonical(value):
        if isinstance(value, dict):
            return {key: canonical(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [canonical(item) for item in value]
        if isinstance(value, (set, frozenset)):
            return sorted(canonical(item) for item in value)
        return value

    text = json.dumps(canonical(fields), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
    # END SOLUTION


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
    # BEGIN SOLUTION
    kept = set(words(compressed))
    lost = {"negations": [], "numbers": [], "exceptions": []}
    for token in words(original):
        if token[0].isdigit():
            kind = "numbers"
        elif token in NEGATIONS or token.endswith("n't"):
            kind = "negations"
        elif token in EXCEPTIONS:
            kind = "exceptions"
        else:
            continue
        if token not in kept and token not in lost[kind]:
            lost[kind].append(token)
    return {**lost, "ok": not any(lost.values())}
    # END SOLUTION


# Task 7 (quiz). A packet is replayed a month later and its seal matches the one in
# the log. What does that establish?
#   "a"  the evidence in the packet is true
#   "b"  the packet is byte-for-byte the same packet that was logged, so the answer
#        can be replayed and audited; whether its evidence is right is another question
#   "c"  the sources have not changed since the packet was built
#   "d"  no passage in the packet contains an injected instruction
# Set SEAL_QUIZ to one letter.
# BEGIN SOLUTION
SEAL_QUIZ = "b"
# END SOLUTION


__all__ = ["Evidence", "extract_span", "check_drift", "escape_text", "unescape_text", "expand_adjacent",
           "packet_seal", "fidelity_check", "SEAL_QUIZ"]
