"""Lesson 05, order: position is a hypothesis to measure.

Lesson 01's quote copier has no position effect: it copies its packet in order, whatever
the order is. Position effects belong to particular readers (Liu et al., "Lost in the
Middle", TACL 2024, measured some models on some tasks), so this lesson measures one: the
FICTIONAL reader simulator of simulator.py and reader.py, the published teaching simulator rebuilt from
its specification. Nothing here describes a real model.

This file holds the lesson's own mechanisms, which work on any reader:

- reorder_lost_in_middle(items): best first, second best last, alternating inward; and
  reorder_parity_variant(items), the order two frameworks produce (best last for an even count);
- good_and_bad(query, ranking, j) and build_layout(good, bad, layout): one relevant chunk
  at the head, in the middle or at the tail of j irrelevant ones;
- share_of_change(before, after) and order_effect(first, reordered, reseeded): how many
  picks a change of order moved, against how many a change of seed moved.

The experiments are in experiments.py, the trace and its view in trace.py.
"""

from __future__ import annotations

from collections.abc import Mapping, MappingView, Set
from dataclasses import dataclass
from fractions import Fraction

from modules.common.checks import sequence_of, short, whole_number
from modules.order.reader import (INSTRUCTION, POSITION_WEIGHTS, SHARE_FLOOR, TEMPERATURE, WINDOW, Prompt, Reading,
                                  build_prompt, fnv1a, position_weight, read, reader_chances, reader_scores)
from modules.order.simulator import (CLASSES, COMMON_WORDS, CONCEPTS, LABEL, SEED, Concept, Document,
                                     DocumentClass, Fixture, Paragraph, Query, Rng, build_fixture, embed,
                                     is_relevant, pick, retrieval_score, retrieve, token_bag, tokens)

__all__ = [
    # the simulator (simulator.py: the world and retrieval; reader.py: the reader)
    "LABEL", "SEED", "WINDOW", "INSTRUCTION", "POSITION_WEIGHTS", "SHARE_FLOOR", "TEMPERATURE", "CONCEPTS",
    "CLASSES", "COMMON_WORDS", "Rng", "pick", "tokens", "token_bag", "Concept", "DocumentClass", "Document",
    "Paragraph", "Query", "Fixture", "build_fixture", "embed", "retrieval_score", "retrieve", "is_relevant",
    "Prompt", "build_prompt", "fnv1a", "position_weight", "reader_scores", "reader_chances", "Reading", "read",
    # this lesson's mechanisms
    "LAYOUTS", "OrderEffect", "reorder_lost_in_middle", "reorder_parity_variant", "good_and_bad",
    "build_layout", "count_changes", "share_of_change", "order_effect",
]

LAYOUTS = ("head", "middle", "tail")


def _ordered(items: object, name: str) -> list:
    """`items` as a list if it has an order of its own (list, tuple, range, generator); a set,
    dict or dict view is refused (its order depends on the hash seed), and so is a str."""
    if isinstance(items, (str, bytes, Set, Mapping, MappingView)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{name} must be an ordered sequence (list, tuple, range or generator), "
                        f"got {type(items).__name__} {short(items)}")
    return list(items)


# ---------------------------------------------------------------- reorder policies


def reorder_lost_in_middle(items) -> list:
    """Items given best first -> best first, second best last, alternating inward: ten items
    as ranks 1 3 5 7 9 10 8 6 4 2, four as 1 3 4 2 (Haystack's order). The odd ranks walk in
    from the front, the even ranks from the back: two slices, linear time."""
    items = _ordered(items, "items")
    return items[0::2] + items[1::2][::-1]


def reorder_parity_variant(items) -> list:
    """LangChain's and LlamaIndex's order: ascending, then insert at the front and append in
    turn. Written as slices with the same result: four items give ranks 2 4 3 1 (the best
    last), five give 1 3 5 4 2 (the best first): where the best lands depends on the parity."""
    ascending = _ordered(items, "items")[::-1]
    return ascending[0::2][::-1] + ascending[1::2]


# ---------------------------------------------------------------- layouts


def good_and_bad(query: Query, ranking, j: int) -> tuple[Paragraph, tuple[Paragraph, ...]]:
    """From a ranking, best first: the first relevant chunk (good) and the first j irrelevant
    ones (bad), in rank order. Relevance is the evaluation label is_relevant(query, chunk)."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    ranking = sequence_of(ranking, Paragraph, "ranking")
    whole_number(j, "j")
    relevant = [chunk for chunk in ranking if is_relevant(query, chunk)]
    irrelevant = [chunk for chunk in ranking if not is_relevant(query, chunk)]
    if not relevant:
        raise ValueError(f"ranking holds no chunk relevant to query {query.number} ({query.text!r})")
    if len(irrelevant) < j:
        raise ValueError(f"j must be at most the {len(irrelevant)} irrelevant chunks of the ranking, got {j}")
    return relevant[0], tuple(irrelevant[:j])


def build_layout(good: Paragraph, bad, layout: str) -> tuple[Paragraph, ...]:
    """One relevant chunk among the irrelevant ones, which keep their order:
    head = good then bad; tail = bad then good; middle = bad[:j // 2] + good + bad[j // 2:]
    (for an odd j, the good chunk takes the earlier of the two middle places)."""
    if not isinstance(good, Paragraph):
        raise TypeError(f"good must be a Paragraph, got {type(good).__name__} {short(good)}")
    bad = sequence_of(bad, Paragraph, "bad")
    if layout == "head":
        return (good,) + bad
    if layout == "tail":
        return bad + (good,)
    if layout == "middle":
        half = len(bad) // 2
        return bad[:half] + (good,) + bad[half:]
    raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {short(layout)}")


# ---------------------------------------------------------------- share of change and the baseline


@dataclass(frozen=True)
class OrderEffect:
    """Share of picks moved by a change of order, share moved by a change of seed (the
    run-to-run baseline), and whether the first is larger: only then is the change an order
    effect rather than the reader's own run-to-run variation."""

    order_share: Fraction
    seed_share: Fraction
    exceeds: bool

    def __post_init__(self) -> None:
        for name in ("order_share", "seed_share"):
            value = getattr(self, name)
            if type(value) is not Fraction or not 0 <= value <= 1:
                raise TypeError(f"OrderEffect.{name} must be a Fraction from 0 to 1, got "
                                f"{type(value).__name__} {short(value)}")
        if not isinstance(self.exceeds, bool):
            raise TypeError(f"OrderEffect.exceeds must be a bool, got {type(self.exceeds).__name__} "
                            f"{short(self.exceeds)}")


def count_changes(before, after, names: tuple = ("before", "after")) -> int:
    """How many paired picks differ, after checking that the two runs pair up and are not
    empty. A pick is whatever the runs hold: a Paragraph (the same chunk, not merely the same
    code: chunks of one document share a code) or None for an overflow."""
    first, second = _ordered(before, names[0]), _ordered(after, names[1])
    if len(first) != len(second):
        raise ValueError(f"{names[0]} and {names[1]} must pair up, got {len(first)} and {len(second)} items")
    if not first:
        raise ValueError(f"{names[0]} must not be empty: the share of nothing is undefined")
    changed = 0
    for a, b in zip(first, second):
        if a != b:
            changed += 1
    return changed


def share_of_change(before, after) -> Fraction:
    """The share of paired picks that differ, as an exact Fraction. `before` and `after` are
    the picks of the same queries in the same order (lists, tuples or generators, each read
    once); sets and dict views are refused, since their order depends on the hash seed."""
    first = _ordered(before, "before")
    return Fraction(count_changes(first, after), len(first))


def order_effect(first, reordered, reseeded) -> OrderEffect:
    """Is the change of order bigger than the run-to-run baseline?

    `first`: the picks of one run; `reordered`: the same seed, only the order changed;
    `reseeded`: the same order, only the seed changed (seed + 1). Both shares are measured
    against `first`; exceeds is order_share > seed_share (equal is not more).
    """
    first = _ordered(first, "first")
    order_share = Fraction(count_changes(first, reordered, ("first", "reordered")), len(first))
    seed_share = Fraction(count_changes(first, reseeded, ("first", "reseeded")), len(first))
    return OrderEffect(order_share=order_share, seed_share=seed_share, exceeds=order_share > seed_share)
