"""Lesson 09's answer stage, and the catalogue pipeline it completes (GROUNDED).

GROUNDED is lesson 08's CATALOGUE plus one stage, the template answer: the pipeline lesson
09 traces and lesson 12 extends. It lives apart from the trace record (modules/grounding/mechanism.py,
which re-exports every name here), so a lesson that only runs the pipeline loads only this.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, Query
from modules.common.checks import short
from modules.common.pipeline import Run, Stage
from modules.eligibility import CATALOGUE

__all__ = ["Answer", "compose", "GROUNDED", "BASELINE", "run_query"]

@dataclass(frozen=True)
class Answer:
    """The templated answer: one line per packet listing with the field ids it cites."""
    lines: tuple[tuple[str, tuple[str, ...]], ...]   # (text, the field ids it cites), one per line
    from_fields: tuple[str, ...]                      # every field id of the packet


def compose(so_far: Run) -> Answer:
    """Stage `answer`: one templated line per packet listing, citing the fields it quotes."""
    decision = so_far.output("decision").decision
    packet = so_far.output("packet", None)
    fields = dict(packet.fields) if packet else {}
    if decision.state not in ("respond", "degraded") or not packet:
        return Answer(lines=(), from_fields=tuple(fields))
    lines = []
    for listing_id in packet.listings:
        cited = [f"{listing_id}#{name}" for name in ("title", "diameter_mm", "family", "price_eur")
                 if f"{listing_id}#{name}" in fields]
        price = fields.get(f"{listing_id}#price_eur")
        text = (f"{fields[cited[0]]}: {fields[f'{listing_id}#diameter_mm']} mm, {fields[f'{listing_id}#family']}, "
                + (f"{price} EUR." if price else "price not current."))
        lines.append((text, tuple(cited)))
    return Answer(lines=tuple(lines), from_fields=tuple(fields))


GROUNDED = CATALOGUE.extend(Stage("answer", "template/1", "generation", compose, after_halt=True),
                            name="catalogue, grounded")
BASELINE = GROUNDED.versions()


def run_query(query: Query, pipeline=GROUNDED, listings=LISTINGS, as_of: str = CATALOGUE_AS_OF) -> Run:
    """The catalogue pipeline and the answer for one query: the run a trace record is read from."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    return pipeline.run({"query": query, "listings": listings, "as_of": as_of})
