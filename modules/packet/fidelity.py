"""Lesson 06, packet: compression risk and the fidelity check.

A naive compressor shortens a passage by keeping its first clause without stop
words. It drops exactly what changes an answer: a "not", a fee, a date, an "if",
a place name, an "except". The fidelity check compares whole tokens of the
original and the compressed text, kind by kind:

  numbers     tokens that start with a digit ("8", "8:30"), unless shaped as a date;
  dates       "2026-12-24" or "24/12/2026", month and day names ("Saturdays");
  negations   not, no, never, ... and every contraction ending in n't;
  exceptions  except, unless, only, but, excluding;
  conditions  if, when, provided, until, before, after, ...;
  entities    a capitalised word that does not open a sentence ("Harbour", "Café").

Citations always resolve to the original span (packet.resolve_citation), never to
the summary. A deterministic check like this one catches what it lists; it cannot
prove that a compression kept the meaning.

A compression is recorded with the compressor's name and revision (a summary made by
another revision of the compressor is another summary), and judged twice: by the
fidelity check, and by asking the same question of the original and of the compressed
text (kind_reader, a fixed rule standing in for a reader: no model) and comparing the
two answers.
"""

from __future__ import annotations

import re

from modules.common.checks import text_of, whole_number

__all__ = ["KINDS", "STOP_WORDS", "NEGATIONS", "EXCEPTIONS", "CONDITIONS", "DATE_WORDS", "DATE", "tokens", "words",
           "NAIVE_COMPRESSOR", "naive_compress", "fidelity_check", "kind_reader", "compression_check"]

KINDS = ("negations", "numbers", "dates", "conditions", "entities", "exceptions")
STOP_WORDS = frozenset("a an the is are be may at on of to in it its by not no only".split())
NEGATIONS = frozenset("not no never none nobody nothing cannot without".split())
EXCEPTIONS = frozenset("except unless only but excluding".split())
CONDITIONS = frozenset("if when whenever provided providing until before after while".split())
_DAYS = "monday tuesday wednesday thursday friday saturday sunday weekday weekend".split()
# "may" is left out: it is far more often the verb; a capitalised "May" inside a sentence
# still counts, as a named entity.
DATE_WORDS = frozenset("january february march april june july august september october november december".split()
                       + _DAYS + [day + "s" for day in _DAYS])
DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}")
_SENTENCE_ENDS = frozenset(".!?\n")  # what may stand between the end of a sentence and the next word
_WORD = re.compile(r"\d+(?:[.:,/-]\d+)*|[^\W\d_]+(?:'[^\W\d_]+)?")


def tokens(text: str) -> list[tuple[str, bool]]:
    """Whole tokens, lower-cased, each with True when it may name an entity: it is capitalised
    and does not open a sentence (the text's start, or after . ! ? or a line break).
    Numbers keep their inner . : , / - ("8:30"), words their apostrophe ("can't")."""
    found, opens, at = [], True, 0
    for match in _WORD.finditer(text_of(text, "text")):
        opens = opens or not _SENTENCE_ENDS.isdisjoint(text[at:match.start()])
        word = match.group()
        found.append((word.lower(), word[0].isupper() and not opens))
        opens, at = False, match.end()
    return found


def words(text: str) -> list[str]:
    """The lower-case tokens of `text`, without the entity flag."""
    return [token for token, _ in tokens(text)]


# The compressor's name and revision: recorded with every summary it makes.
NAIVE_COMPRESSOR = ("naive-first-clause", "r2")


def naive_compress(text: str, max_words: int = 6) -> str:
    """A deliberately naive compressor: first clause, stop words dropped, first few words kept."""
    whole_number(max_words, "max_words", minimum=1)
    clause = text_of(text, "text").replace(";", ",").split(",", 1)[0]
    kept = [w for w in clause.rstrip(".").split() if w.lower() not in STOP_WORDS]
    return " ".join(kept[:max_words]) + "."


def _kind(token: str, entity: bool) -> str | None:
    if token[0].isdigit():
        return "dates" if DATE.fullmatch(token) else "numbers"
    if token in NEGATIONS or token.endswith("n't"):
        return "negations"
    if token in EXCEPTIONS:
        return "exceptions"
    if token in CONDITIONS:
        return "conditions"
    if token in DATE_WORDS:
        return "dates"
    return "entities" if entity else None


def fidelity_check(original: str, compressed: str) -> dict:
    """What `compressed` lost of `original`, per kind (each token once, in order), and "ok"."""
    have = set(words(compressed))
    missing = {kind: [] for kind in KINDS}
    for token, entity in tokens(original):
        kind = _kind(token, entity)
        if kind and token not in have and token not in missing[kind]:
            missing[kind].append(token)
    return {**missing, "ok": not any(missing.values())}


def kind_reader(kind: str, text: str) -> str:
    """A fixed rule standing in for a reader (no model), asked the question one kind of fact
    answers. For "negations", "exceptions" and "conditions" the question is a yes/no one whose
    answer that word turns ("May a laptop leave overnight?"): "no" when the text holds a word of
    the kind, else "yes". For "numbers", "dates" and "entities" it asks for the value: the
    text's tokens of that kind, or "not stated"."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {list(KINDS)}, got {kind!r}")
    found = [token for token, entity in tokens(text) if _kind(token, entity) == kind]
    if kind in ("negations", "exceptions", "conditions"):
        return "no" if found else "yes"
    return " ".join(dict.fromkeys(found)) or "not stated"


def compression_check(original: str, compressed: str, compressor: tuple, kind: str) -> dict:
    """One compression, recorded and judged: the compressor (name, revision) that made it, what
    the fidelity check finds lost, and the answer to `kind`'s question before and after."""
    if not (isinstance(compressor, tuple) and len(compressor) == 2 and all(isinstance(p, str) and p
                                                                          for p in compressor)):
        raise TypeError(f"compressor must be a (name, revision) tuple of str, got {compressor!r}")
    check = fidelity_check(original, compressed)
    before, after = kind_reader(kind, original), kind_reader(kind, compressed)
    return {"compressor": compressor[0], "revision": compressor[1], "lost": {k: check[k] for k in KINDS if check[k]},
            "fidelity_ok": check["ok"], "answer_before": before, "answer_after": after,
            "answer_same": before == after}
