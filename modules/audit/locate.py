"""Find a passage in a prompt: whole, or as the verbatim pieces of it that the prompt holds.

A framework does not always send a passage as the corpus stores it: a template truncates it,
a "compact" step re-splits the retrieved text to fill each call, a refine loop spreads it
over several calls. What reached the model is then a set of pieces, each a run of the
passage's characters found word for word in a prompt. `pieces` finds them: the longest run
that starts at each place, left to right, no shorter than MIN_PIECE characters (shorter
runs are common phrases, not evidence that the passage was sent).

Passage and prompt are compared in a normal form: every run of whitespace is one space, and
the escapes a repr or JSON string writes (\\n, \\t, \\", \\') are read as what they stand
for. A template that joins passages with other whitespace, or a synthesizer that formats a
Python list into the prompt (LlamaIndex 0.14's simple_summarize does), still shows each
passage where it went; offsets are mapped back to the corpus text's characters.
"""

from __future__ import annotations

__all__ = ["MIN_PIECE", "grams", "pieces", "occurrences", "normal_form"]

MIN_PIECE = 40


ESCAPES = {"n": " ", "t": " ", "r": " ", "'": "'", '"': '"', "\\": "\\"}


def normal_form(text: str) -> tuple[str, list[int]]:
    """The text with whitespace runs as one space and string escapes undone, and for each of its
    characters (and its end) the place in `text` it comes from."""
    out: list[str] = []
    where: list[int] = []
    i = 0
    while i < len(text):
        c, step = text[i], 1
        if c == "\\" and i + 1 < len(text) and text[i + 1] in ESCAPES:
            c, step = ESCAPES[text[i + 1]], 2
        if c.isspace():
            c = " "
        if not (c == " " and out and out[-1] == " "):
            out.append(c)
            where.append(i)
        i += step
    where.append(len(text))
    return "".join(out), where


def grams(prompt: str, size: int = MIN_PIECE) -> frozenset:
    """Every run of `size` characters in the prompt: one look-up then tells whether a piece may
    start at a place of the passage."""
    return frozenset(prompt[i:i + size] for i in range(len(prompt) - size + 1))


def occurrences(text: str, prompt: str) -> list[int]:
    """Where the whole text starts in the prompt, each place once, left to right, not overlapping."""
    found, start = [], prompt.find(text) if text else -1
    while start >= 0:
        found.append(start)
        start = prompt.find(text, start + len(text))
    return found


def pieces(text: str, prompt: str, starts: frozenset | None = None, least: int = MIN_PIECE) -> list[tuple[int, int]]:
    """The verbatim pieces of `text` in `prompt`, as (start, end) character offsets of `text`:
    at each place, the longest run the prompt holds (found by halving, since every shorter run
    of a run the prompt holds is held too), then on from its end. `starts` is grams(prompt)."""
    if len(text) < least:
        return [(0, len(text))] if text and text in prompt else []
    starts = grams(prompt, least) if starts is None else starts
    found, i = [], 0
    while i + least <= len(text):
        if text[i:i + least] not in starts:
            i += 1
            continue
        low, high = i + least, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            if text[i:middle] in prompt:
                low = middle
            else:
                high = middle - 1
        found.append((i, low))
        i = low
    return found
