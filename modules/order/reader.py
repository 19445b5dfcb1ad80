"""Lesson 05's FICTIONAL reader (the last part of the published teaching simulator, after
simulator.py's world and retrieval): the prompt, its FNV-1a hash, and the seeded pick.

No model: a chunk's odds depend on its place in the prompt and on how many of the
question's lab tokens it holds, and one draw from Rng(reader seed XOR the prompt's hash)
picks the chunk the reader cites. Its numbers describe this simulator, never a real model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from modules.common.checks import sequence_of, short, whole_number
from modules.order.simulator import MASK, SEED, Paragraph, Query, Rng, _check_text, pick, tokens

INSTRUCTION = "Answer by looking at the chunks below and write the code of the chunk you used . "
WINDOW = 240                     # lab tokens of the whole prompt
POSITION_WEIGHTS = {"first": 1.0, "last": 0.8, "other": 0.45}
SHARE_FLOOR = 0.3                # score = position weight x (0.3 + share of the query's tokens)
TEMPERATURE = 0.12               # odds exp(score / 0.12): 0.12 more score, e (2.7) times the odds
FNV_OFFSET, FNV_PRIME = 2166136261, 16777619
QUESTION = " Question: "           # between the chunks and the query
FIXED_TOKENS = len(tokens(INSTRUCTION)) + len(tokens(QUESTION))   # 20 + 2 lab tokens in every prompt


def fnv1a(text: str) -> int:
    """32-bit FNV-1a over the text's characters' code points: start at the offset, and for each
    code point xor it in, multiply by the prime and keep the low 32 bits (& 0xFFFFFFFF). The
    loop runs once per character of every prompt, so its constants are written out."""
    value = 2166136261                                      # FNV_OFFSET
    for code in map(ord, text):
        value = ((value ^ code) * 16777619) & 0xFFFFFFFF    # FNV_PRIME, and the low 32 bits
    return value


@dataclass(frozen=True)
class Prompt:
    """What the reader receives: the text, its size in lab tokens and the text's FNV-1a hash
    (which seeds the reader's draw), with the query and the chunks it was built from."""

    query: Query
    chunks: tuple[Paragraph, ...]
    text: str
    tokens: int
    fnv: int

    def __post_init__(self) -> None:
        if not isinstance(self.query, Query):
            raise TypeError(f"Prompt.query must be a Query, got {type(self.query).__name__} {short(self.query)}")
        if not sequence_of(self.chunks, Paragraph, "Prompt.chunks"):
            raise ValueError("Prompt.chunks must hold at least one Paragraph, got none")
        _check_text(self.text, "Prompt.text")
        whole_number(self.tokens, "Prompt.tokens", 1)
        whole_number(self.fnv, "Prompt.fnv", 0, MASK - 1)


def build_prompt(query: Query, chunks) -> Prompt:
    """The instruction, then each chunk as "[CODE] text ." joined by single spaces, then
    " Question: " and the query. Its lab tokens are the sum of its parts' (tokens split on
    whitespace, and the parts are joined by spaces), so each chunk's count is counted once."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    chunks = sequence_of(chunks, Paragraph, "chunks")
    if not chunks:
        raise ValueError("chunks must hold at least one Paragraph, got none")
    text = INSTRUCTION + " ".join(chunk.entry for chunk in chunks) + QUESTION + query.text
    count = FIXED_TOKENS + sum(chunk.tokens for chunk in chunks) + query.tokens
    return Prompt(query=query, chunks=chunks, text=text, tokens=count, fnv=fnv1a(text))


def position_weight(index: int, count: int) -> float:
    """Place `index` (from 0) among `count` chunks: first 1.0, last 0.8, others 0.45; a single
    chunk is first."""
    whole_number(count, "count", 1)
    if whole_number(index, "index") >= count:
        raise ValueError(f"index must be below count ({count}), got {index}")
    return _weight(index, count)


def _weight(index: int, count: int) -> float:
    """position_weight without the checks, for the chunks of a Prompt (always in range)."""
    if index == 0:
        return POSITION_WEIGHTS["first"]
    if index == count - 1:
        return POSITION_WEIGHTS["last"]
    return POSITION_WEIGHTS["other"]


def reader_scores(prompt: Prompt) -> list[float]:
    """Per chunk, in prompt order: position weight x (0.3 + the share of the query's lab
    tokens found in the chunk)."""
    if not isinstance(prompt, Prompt):
        raise TypeError(f"prompt must be a Prompt, got {type(prompt).__name__} {short(prompt)}")
    asked = prompt.query.bag
    count = len(prompt.chunks)
    return [_weight(i, count) * (SHARE_FLOOR + len(asked & chunk.bag) / len(asked))
            for i, chunk in enumerate(prompt.chunks)]


def reader_chances(prompt: Prompt) -> list[float]:
    """The chance of each chunk being picked: exp(score / 0.12), scaled to sum to 1."""
    odds = [math.exp(score / TEMPERATURE) for score in reader_scores(prompt)]
    total = sum(odds)
    return [value / total for value in odds]


@dataclass(frozen=True)
class Reading:
    """What the reader did with one prompt: the chunk it picked and cited (None when the
    prompt overflowed the window: no answer, counted wrong), and the prompt's lab tokens."""

    chunk: Paragraph | None
    tokens: int
    overflow: bool

    def __post_init__(self) -> None:
        if self.chunk is not None and not isinstance(self.chunk, Paragraph):
            raise TypeError(f"Reading.chunk must be a Paragraph or None, got {type(self.chunk).__name__} "
                            f"{short(self.chunk)}")
        whole_number(self.tokens, "Reading.tokens", 1)
        if not isinstance(self.overflow, bool) or self.overflow != (self.chunk is None):
            raise ValueError(f"Reading.overflow must be True exactly when chunk is None, got {short(self.overflow)}")

    @property
    def code(self) -> str | None:
        """The code the reader cites (its chunk's document code), None on overflow."""
        return None if self.chunk is None else self.chunk.code


def read(prompt: Prompt, seed: int = SEED, window: int = WINDOW) -> Reading:
    """The FICTIONAL reader. Over the window the request overflows. Otherwise one draw from
    Rng(seed XOR the prompt's FNV-1a hash) picks a chunk by reader_chances(prompt): the same
    prompt and seed always pick the same chunk; another order is another prompt, so another
    draw as well as other chances."""
    if not isinstance(prompt, Prompt):
        raise TypeError(f"prompt must be a Prompt, got {type(prompt).__name__} {short(prompt)}")
    whole_number(seed, "seed")
    if prompt.tokens > whole_number(window, "window", 1):
        return Reading(chunk=None, tokens=prompt.tokens, overflow=True)
    r = Rng(seed ^ prompt.fnv)
    return Reading(chunk=prompt.chunks[pick(r(), reader_chances(prompt))], tokens=prompt.tokens, overflow=False)
