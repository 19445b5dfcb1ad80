"""The facet model of a question, shared by lesson 02 (the coverage objective) and
lesson 10 (what the answer covers and what it lacks).

A question declares its sub-questions as (name, sub-question) pairs; each becomes a
*facet*: a short name and the sub-question as asked. A facet's terms are derived from the sub-question's own words,
never from the passages and never from evaluation labels: fold the case, normalise to
NFC, split on anything that is not a letter or digit, drop a declared list of function
words, and strip one plain suffix ("ing", "ed", or a final "s" not after another "s")
when at least three letters remain. A passage covers a facet when its text, read the
same way, holds every one of the facet's terms.

    "When does the help desk open?"   -> terms help, desk, open
    "The help desk opens at 8:30 ..." -> covers it ("opens" reads as "open")

It is a declared teaching rule, not a language model: it misses paraphrases and can be
fooled by a passage that uses the same words about something else (lesson 10 shows one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from modules.common.checks import nfc, sequence_of, short, text_of

__all__ = ["STOPWORDS", "Facet", "content_terms", "covers", "facets_covered", "declared_facets"]

# Function words a sub-question needs but an answering passage need not repeat.
STOPWORDS = frozenset("""
    a about an and are as at be by can could do does for from has have how i if in is it its many may
    much must my of on or should that the their them there they this to was we what when where which
    who why will with would you your
""".split())

_SUFFIXES = ("ing", "ed", "s")
_WORD = re.compile(r"[^\W_]+")   # a run of letters and digits: exactly the str.isalnum() characters


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            return word[:-len(suffix)]
    return word


def content_terms(text: str) -> tuple[str, ...]:
    """The text's content terms, each once, in first-seen order (see the module's rule)."""
    folded = nfc(nfc(text_of(text, "text")).casefold())   # casefolding can leave a composed text decomposed
    return tuple(dict.fromkeys(_stem(w) for w in _WORD.findall(folded) if w not in STOPWORDS))


@dataclass(frozen=True)
class Facet:
    """One declared sub-question: `name` says what it is about in an answer ("opening
    hours"), `asks` is the sub-question itself. Its terms come from `asks`."""

    name: str
    asks: str
    terms: tuple[str, ...] = field(init=False, repr=False, compare=False)   # read from `asks`, once

    def __post_init__(self) -> None:
        for field_name in ("name", "asks"):
            value = text_of(getattr(self, field_name), f"Facet.{field_name}")
            if not value.strip():
                raise ValueError(f"Facet.{field_name} must not be empty, got {short(value)}")
        object.__setattr__(self, "terms", content_terms(self.asks))   # frozen: set once, here
        if not self.terms:
            raise ValueError(f"Facet.asks must hold at least one content word, got {short(self.asks)}")


def covers(facet: Facet, text: str) -> bool:
    """True when `text` holds every term of `facet` (both read by the same rule)."""
    if not isinstance(facet, Facet):
        raise TypeError(f"facet must be a Facet, got {type(facet).__name__} {facet!r}")
    return set(facet.terms) <= set(content_terms(text))


def declared_facets(sub_questions) -> tuple[Facet, ...]:
    """A question's facets from its declaration: a tuple or list of (name, sub-question)
    pairs, at least one, each name once."""
    if not isinstance(sub_questions, (tuple, list)):
        raise TypeError(f"sub_questions must be a tuple of (name, sub-question) pairs, "
                        f"got {type(sub_questions).__name__} {short(sub_questions)}")
    if not sub_questions:
        raise ValueError("sub_questions must declare at least one (name, sub-question) pair, got ()")
    facets = []
    for index, pair in enumerate(sub_questions):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"sub_questions[{index}] must be a (name, sub-question) pair, got {short(pair)}")
        facets.append(Facet(*pair))
        if [f.name for f in facets].count(facets[-1].name) > 1:
            raise ValueError(f"sub_questions names {facets[-1].name!r} twice; each needs its own name")
    return tuple(facets)


def facets_covered(facets, text: str) -> tuple[str, ...]:
    """The names of the facets that `text` covers, in declared order."""
    found = set(content_terms(text))
    return tuple(f.name for f in sequence_of(facets, Facet, "facets") if set(f.terms) <= found)
