"""Lesson 01, context: retrieval succeeded, the packet failed.

A retriever ranks the two passages a question needs first and second, so its
recall@2 is perfect. The selector then copies whole passages into a quote budget
measured in characters. With a small budget the packet holds neither needed
passage, with a medium one it holds one, and only a large one carries both:
the ranking never changed, the evidence handed onward did.

Unit contract: `max_quote_chars` is the sum of Python `len()` over quote text
only. Ids, titles, instructions, JSON and the question are not counted. It is
not a byte, message or model-token limit, and nothing here converts it.

The relevant ids are an evaluation label. They live apart from the candidates
and the selector never receives them: a selector that could see them would be
graded on an answer key it was handed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from modules.common.checks import sequence_of, short, whole_number
from modules.helpdesk import entry

__all__ = [
    "Passage", "VersionConflict", "ContextRecord", "select_context", "as_passage", "RANKING", "fill_quote_budget",
    "packet_coverage", "recall_at_k", "check_budget", "check_ids", "QUESTION", "SUB_QUESTIONS", "CANDIDATES",
    "RELEVANT_IDS", "DEFAULT_BUDGETS",
]


@dataclass(frozen=True)
class Passage:
    """One retrieved passage. `version` is a label, never a number to compare."""

    id: str
    source_id: str
    version: str
    title: str
    text: str

    def __post_init__(self) -> None:
        for name in ("id", "source_id", "version", "title", "text"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"Passage.{name} must be a str, got {type(value).__name__} {short(value)}")
        for name in ("id", "source_id", "version"):
            if not getattr(self, name).strip():
                raise ValueError(f"Passage.{name} must not be empty, got {short(getattr(self, name))}")


@dataclass(frozen=True)
class VersionConflict:
    """A blocked source, as the packet carries it: a finding for review, never evidence.

    ids, versions and quotes: every blocked passage of the source, its version label and
    its text, in rank order. Nothing here is paid from max_quote_chars, and nothing here
    may be quoted as the answer: a reader sees that the source disagrees with itself, and
    on what, and the state says nobody has settled it.
    """

    source_id: str
    ids: tuple[str, ...]
    versions: tuple[str, ...]
    quotes: tuple[str, ...]
    state: str = "unresolved"

    def __post_init__(self) -> None:
        for name in ("ids", "versions", "quotes"):
            sequence_of(getattr(self, name), str, f"VersionConflict.{name}")
        if not len(self.ids) == len(self.versions) == len(self.quotes) or len(self.labels) < 2:
            raise ValueError(f"VersionConflict of {short(self.source_id)} needs one version and quote per id "
                             f"and two labels, got {short(self.versions)}")

    @property
    def labels(self) -> tuple[str, ...]:
        """The source's version labels, first seen first."""
        return tuple(dict.fromkeys(self.versions))


@dataclass(frozen=True)
class ContextRecord:
    """What the selector decided: the packet and every reason something was left out.

    conflicts: source id -> its version labels (first seen first); duplicate_of:
    duplicate id -> the id of the first-ranked passage with the same text; unresolved:
    each blocked source with both quotes (VersionConflict), carried beside the evidence.
    """

    packet: tuple[Passage, ...]
    budget_skipped_ids: tuple[str, ...]
    duplicate_text_ids: tuple[str, ...]
    conflicts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    used_quote_chars: int = 0
    max_quote_chars: int = 0
    duplicate_of: dict[str, str] = field(default_factory=dict)
    unresolved: tuple[VersionConflict, ...] = ()

    @property
    def packet_ids(self) -> tuple[str, ...]:
        """The evidence ids, in rank order (a blocked source's ids are not among them)."""
        return tuple(p.id for p in self.packet)

    @property
    def handed_ids(self) -> tuple[str, ...]:
        """Every id the next stage receives: the evidence, then each recorded conflict's ids."""
        return self.packet_ids + tuple(i for c in self.unresolved for i in c.ids)


def check_budget(max_quote_chars: object) -> int:
    """A budget is a whole number of characters, at least 0 (True is not a 1)."""
    return whole_number(max_quote_chars, "max_quote_chars")


def check_passages(candidates: object) -> tuple[Passage, ...]:
    return sequence_of(candidates, Passage, "candidates")


def collapse_repeated_ids(passages: tuple[Passage, ...]) -> tuple[Passage, ...]:
    """Step 1: keep the first-ranked copy of each id; refuse two different passages under one id."""
    first_by_id: dict[str, Passage] = {}
    kept = []
    for passage in passages:
        earlier = first_by_id.get(passage.id)
        if earlier is None:
            first_by_id[passage.id] = passage
            kept.append(passage)
            continue
        for name in ("text", "source_id", "version", "title"):
            if getattr(earlier, name) != getattr(passage, name):
                raise ValueError(
                    f"id {passage.id!r} appears twice with a different {name}: "
                    f"{getattr(earlier, name)!r} vs {getattr(passage, name)!r}"
                )
    return tuple(kept)


def version_conflicts(passages: tuple[Passage, ...]) -> dict[str, tuple[str, ...]]:
    """Step 2: sources that appear with more than one version label, labels in first-seen order."""
    labels: dict[str, list[str]] = {}
    for passage in passages:
        seen = labels.setdefault(passage.source_id, [])
        if passage.version not in seen:
            seen.append(passage.version)
    return {source: tuple(found) for source, found in labels.items() if len(found) > 1}


def fill_quote_budget(candidates, max_quote_chars: int) -> ContextRecord:
    """Step 4 alone: copy every whole passage that still fits, in rank order.

    A passage that does not fit is skipped (never cut) and the walk goes on, so a
    shorter passage further down may still enter.
    """
    passages = check_passages(candidates)
    budget = check_budget(max_quote_chars)
    packet, skipped, used = [], [], 0
    for passage in passages:
        if used + len(passage.text) <= budget:
            packet.append(passage)
            used += len(passage.text)
        else:
            skipped.append(passage.id)
    return ContextRecord(packet=tuple(packet), budget_skipped_ids=tuple(skipped), duplicate_text_ids=(),
                         conflicts={}, used_quote_chars=used, max_quote_chars=budget)


def select_context(candidates, max_quote_chars: int) -> ContextRecord:
    """Select whole passages for the packet. The selector is never given labels."""
    passages = collapse_repeated_ids(check_passages(candidates))
    budget = check_budget(max_quote_chars)
    conflicts = version_conflicts(passages)
    first_with_text: dict[str, str] = {}
    duplicate_of, eligible = {}, []
    for passage in passages:
        if passage.source_id in conflicts:
            continue
        if passage.text in first_with_text:
            duplicate_of[passage.id] = first_with_text[passage.text]
            continue
        first_with_text[passage.text] = passage.id
        eligible.append(passage)
    walked = fill_quote_budget(eligible, budget)
    return ContextRecord(packet=walked.packet, budget_skipped_ids=walked.budget_skipped_ids,
                         duplicate_text_ids=tuple(duplicate_of), conflicts=conflicts,
                         used_quote_chars=walked.used_quote_chars, max_quote_chars=budget,
                         duplicate_of=duplicate_of, unresolved=recorded_conflicts(passages, conflicts))


def recorded_conflicts(passages: tuple[Passage, ...],
                       conflicts: dict[str, tuple[str, ...]]) -> tuple[VersionConflict, ...]:
    """Step 2's record: each blocked source with its labels and every blocked quote, unresolved."""
    found = []
    for source in conflicts:
        blocked = [p for p in passages if p.source_id == source]
        found.append(VersionConflict(source_id=source, ids=tuple(p.id for p in blocked),
                                     versions=tuple(p.version for p in blocked), quotes=tuple(p.text for p in blocked)))
    return tuple(found)


def check_ids(ids: object, name: str) -> list[str]:
    """A collection of str ids (any order: callers only test membership or count). A str is
    refused: "hours-v2" would otherwise read as the set of its characters."""
    if isinstance(ids, (str, bytes, dict)) or not hasattr(ids, "__iter__"):
        raise TypeError(f"{name} must be a collection of ids, got {type(ids).__name__} {short(ids)}")
    found = list(ids)
    for item in found:
        if not isinstance(item, str):
            raise TypeError(f"{name} must hold str ids, got {type(item).__name__} {short(item)}")
    return found


def coverage_counts(packet_ids, relevant_ids) -> tuple[int, int]:
    """(found, needed): how many relevant ids reached the packet, out of how many."""
    packet = set(check_ids(packet_ids, "packet_ids"))
    relevant = set(check_ids(relevant_ids, "relevant_ids"))
    if not relevant:
        raise ValueError("relevant_ids must not be empty: coverage of nothing is undefined")
    return len(packet & relevant), len(relevant)


def recall_counts(ranked_ids, relevant_ids, k: int) -> tuple[int, int]:
    """(found, needed): how many relevant ids the first k ranked ids hold, out of how many."""
    ranked = list(sequence_of(ranked_ids, str, "ranked_ids"))   # a ranking has an order: no set
    relevant = set(check_ids(relevant_ids, "relevant_ids"))
    whole_number(k, "k", minimum=1)
    if not relevant:
        raise ValueError("relevant_ids must not be empty: recall of nothing is undefined")
    return len(set(ranked[:k]) & relevant), len(relevant)


def packet_coverage(packet_ids, relevant_ids) -> Fraction:
    """Share of the relevant ids that reached the packet, as an exact fraction."""
    return Fraction(*coverage_counts(packet_ids, relevant_ids))


def recall_at_k(ranked_ids, relevant_ids, k: int) -> Fraction:
    """Share of the relevant ids found among the first k ranked ids (`ranked_ids` is an
    ordered sequence: a set has no first k and is refused)."""
    return Fraction(*recall_counts(ranked_ids, relevant_ids, k))


# ---------------------------------------------------------------- the fixture

QUESTION = "When does the help desk open, and where can books be returned when it is closed?"
# The sub-questions the question declares, as (name, sub-question) pairs. Lesson 02's coverage
# objective and lesson 10's answer stage match them to passages with one facet model
# (modules/common/facets.py); this lesson's selector never reads them.
SUB_QUESTIONS = (("opening hours", "When does the help desk open?"),
                 ("book returns", "Where can books be returned when it is closed?"))

# The retriever's ranking, best first, drawn from the help-desk world (modules/helpdesk).
# `hours-v1` (superseded) is not a candidate.
RANKING = ("returns-v1", "hours-v2", "returns-faq", "wifi-v1", "printing-v1", "printing-v2", "parking-v1",
           "card-v1")


def as_passage(entry_id: str) -> Passage:
    """A help-desk record as this lesson's Passage."""
    found = entry(entry_id)
    return Passage(id=found.id, source_id=found.source_id, version=found.version, title=found.title,
                   text=found.text)


CANDIDATES = tuple(as_passage(i) for i in RANKING)

# Evaluation label: which passages the answer needs. Kept apart; never passed to a selector.
RELEVANT_IDS = ("hours-v2", "returns-v1")

DEFAULT_BUDGETS = (80, 120, 400)


# ---------------------------------------------------------------- the trace
