"""Counting units shared by the lessons: characters, UTF-8 bytes and lab tokens.

A *lab token* is a declared teaching unit, not a model token: split the text on
whitespace, then count each piece as ceil(len(piece) / 5). "help desk" is 2 lab
tokens; "returned" (8 characters) is 2. A real model counts its whole input with its
own tokenizer; the lab ships none and never converts between units with a ratio.

Every counter is a function str -> int, so a budget walk can take any of them.
"""

from __future__ import annotations

LAB_TOKEN_MAX_CHARS = 5


def _text(text: object, name: str = "text") -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__} {text!r}")
    return text


def chars(text: str) -> int:
    """Python len(): Unicode code points."""
    return len(_text(text))


def utf8_bytes(text: str) -> int:
    return len(_text(text).encode("utf-8"))


def lab_tokens(text: str) -> int:
    """Whitespace pieces, each counted as ceil(len / 5)."""
    return sum(-(-len(piece) // LAB_TOKEN_MAX_CHARS) for piece in _text(text).split())


COUNTERS = {"chars": chars, "utf8_bytes": utf8_bytes, "lab_tokens": lab_tokens}
