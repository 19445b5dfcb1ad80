"""Lesson 03, dedupe: remove redundancy without merging identities carelessly.

Four kinds of repetition, each with its own rule:

* the same id twice: identical copies collapse to the first-ranked one; two
  different chunks under one id are an error, because one of them is mislabelled;
* the same text under different ids: keep the first-ranked, record the others.
  Exact means exact: overlapping chunks whose text differs stay distinct, and
  keeping the first says nothing about which source has authority;
* copies of one passage across the primary site, a mirror and an export: keep one
  copy of each passage (the primary if retrieved) and say which and why, so three
  copies are not counted as three agreeing sources. Copies are matched by their
  canonical document plus the passage's anchor (its place in that document) or its
  normalised text. The distinct passages of one document all stay: an exception in
  the next chunk is not a copy of the rule before it (lesson 11 applies this rule);
* overlapping line ranges of one file: keep the higher-ranked chunk, reject the
  other with a reason naming the chunk it overlaps. Line ranges are 1-based and
  inclusive, as displayed: 12-24 and 25-33 are adjacent, not overlapping.

Ranking is by score, highest first, ties broken by id, so the selection never
depends on the order the candidates arrived in. Crowding is the last case: near
copies at the top of a ranking push the rest of the answer below the cutoff.
The trace and its tables are in modules/dedupe/trace.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from modules.common.checks import nfc, sequence_of
from modules.helpdesk import entry

__all__ = [
    "RetrievedChunk", "IdConflict", "TextDedupe", "CanonicalDedupe", "OverlapSelection", "COPY_KINDS",
    "dedupe_ids", "dedupe_text", "normalised_text", "same_passage", "canonical_key", "canonical_sources",
    "dedupe_canonical", "lines_overlap", "shared_line_range", "line_count", "ranked", "select_non_overlapping",
    "distinct_texts", "ID_CASE", "ID_CONFLICT", "TEXT_CASE", "CANONICAL_CASE", "OVERLAP_CASE",
    "CROWDING_CASE", "CROWDING_LABELS",
]

COPY_KINDS = ("primary", "mirror", "export")
# What must agree for two chunks with one id to be the same chunk. The score may differ:
# two channels can rank one chunk differently without it becoming another chunk.
IDENTITY_FIELDS = ("text", "source", "canonical_id", "copy", "start_line", "end_line", "anchor")


@dataclass(frozen=True)
class RetrievedChunk:
    """A retrieved chunk: where it lives, what it says, and (optionally) whose copy it is.

    `canonical_id` names the document this copy reproduces ("" means it declares
    no copy relation, and canonical dedupe leaves it alone); `anchor` names the
    passage's place in that document, the same in every copy ("" when not
    declared). Lines are 1-based and inclusive. Defaults: score 0.0, canonical_id
    "", copy "primary", lines 1 to 1, anchor "". A changed copy,
    `dataclasses.replace(chunk, ...)`, is checked like a new one.
    """

    id: str
    source: str
    text: str
    score: float = 0.0
    canonical_id: str = ""
    copy: str = "primary"
    start_line: int = 1
    end_line: int = 1
    anchor: str = ""

    def __post_init__(self) -> None:
        for name in ("id", "source", "text", "canonical_id", "copy", "anchor"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"RetrievedChunk.{name} must be a str, got {type(value).__name__} {value!r}")
        for name in ("id", "source"):
            if not getattr(self, name).strip():
                raise ValueError(f"RetrievedChunk.{name} must not be empty, got {getattr(self, name)!r}")
        for name in ("canonical_id", "anchor"):  # "" declares nothing; blanks would merge unrelated chunks
            value = getattr(self, name)
            if value and not value.strip():
                raise ValueError(f"RetrievedChunk.{name} must be '' (none declared) or a non-blank id, got {value!r}")
        if self.copy not in COPY_KINDS:
            raise ValueError(f"RetrievedChunk.copy must be one of {', '.join(COPY_KINDS)}, got {self.copy!r}")
        if isinstance(self.score, bool) or not isinstance(self.score, (int, float)) or self.score != self.score:
            raise TypeError(f"RetrievedChunk.score must be a number, got {type(self.score).__name__} {self.score!r}")
        for name in ("start_line", "end_line"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"RetrievedChunk.{name} must be an int, got {type(value).__name__} {value!r}")
            if value < 1:
                raise ValueError(f"RetrievedChunk.{name} must be >= 1 (lines are 1-based), got {value}")
        if self.end_line < self.start_line:
            raise ValueError(f"RetrievedChunk {self.id!r}: end_line {self.end_line} is before "
                             f"start_line {self.start_line}")


class IdConflict(ValueError):
    """Two different chunks carry one id; `field` is the first one that differs."""

    def __init__(self, chunk_id: str, field_name: str, first: object, second: object) -> None:
        super().__init__(f"id {chunk_id!r} appears twice with a different {field_name}: {first!r} vs {second!r}")
        self.chunk_id, self.field = chunk_id, field_name


@dataclass(frozen=True)
class TextDedupe:
    """kept: the kept chunks in rank order; duplicate_text_ids: the dropped ids in rank order;
    duplicate_of: dropped id -> id of the kept chunk with that text."""

    kept: tuple[RetrievedChunk, ...]
    duplicate_text_ids: tuple[str, ...]
    duplicate_of: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CanonicalDedupe:
    """kept: the kept chunks in rank order; dropped: dropped id -> id of the copy kept instead;
    reasons: kept id -> why this copy; matched: dropped id -> how it matched the kept copy."""

    kept: tuple[RetrievedChunk, ...]
    dropped: dict[str, str]
    reasons: dict[str, str] = field(default_factory=dict)
    matched: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OverlapSelection:
    """selected: the selected chunks in rank order; rejected: rejected id -> reason code
    ("overlapping_lines_with:<kept id>"); shared_lines: for each rejected id, the first and last
    line it shares with the kept chunk (1-based, inclusive)."""

    selected: tuple[RetrievedChunk, ...]
    rejected: dict[str, str]
    shared_lines: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def selected_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.selected)


def _chunks(chunks: object) -> tuple[RetrievedChunk, ...]:
    return sequence_of(chunks, RetrievedChunk, "chunks")


def dedupe_ids(chunks) -> tuple[RetrievedChunk, ...]:
    """Keep the first-ranked copy of each id; raise IdConflict if a later copy differs."""
    first: dict[str, RetrievedChunk] = {}
    kept = []
    for chunk in _chunks(chunks):
        earlier = first.get(chunk.id)
        if earlier is None:
            first[chunk.id] = chunk
            kept.append(chunk)
            continue
        for name in IDENTITY_FIELDS:
            if getattr(earlier, name) != getattr(chunk, name):
                raise IdConflict(chunk.id, name, getattr(earlier, name), getattr(chunk, name))
    return tuple(kept)


def dedupe_text(chunks) -> TextDedupe:
    """Keep the first-ranked chunk of each exact text; record the later ones."""
    first: dict[str, str] = {}
    kept, duplicates = [], {}
    for chunk in _chunks(chunks):
        if chunk.text in first:
            duplicates[chunk.id] = first[chunk.text]
        else:
            first[chunk.text] = chunk.id
            kept.append(chunk)
    return TextDedupe(kept=tuple(kept), duplicate_text_ids=tuple(duplicates), duplicate_of=duplicates)


# ---------------------------------------------------------------- canonical documents

def normalised_text(text: str) -> str:
    """What copying may change and a reader would not notice: Unicode composition (NFC),
    letter case and runs of whitespace."""
    return " ".join(nfc(text).casefold().split())


def _passage_keys(chunk: RetrievedChunk) -> tuple:
    """The keys under which a copy of this passage could be found; none without a canonical id."""
    if not chunk.canonical_id:
        return ()
    by_text = ("text", chunk.canonical_id, normalised_text(chunk.text))
    return (("anchor", chunk.canonical_id, chunk.anchor), by_text) if chunk.anchor else (by_text,)


def same_passage(a: RetrievedChunk, b: RetrievedChunk) -> bool:
    """Copies of one passage: one canonical document, and the same declared anchor or the same
    normalised text. Chunks that declare no canonical document are never copies."""
    if not isinstance(a, RetrievedChunk) or not isinstance(b, RetrievedChunk):
        raise TypeError(f"same_passage needs two RetrievedChunks, got {type(a).__name__} and {type(b).__name__}")
    return bool(set(_passage_keys(a)) & set(_passage_keys(b)))


def canonical_key(chunk: RetrievedChunk) -> str:
    """The document a chunk reproduces: its canonical id, or its own source when it declares none."""
    return chunk.canonical_id or chunk.source


def canonical_sources(chunks) -> int:
    """How many distinct canonical documents the chunks come from: copies count once."""
    return len({canonical_key(c) for c in _chunks(chunks)})


def _why_kept(winner: RetrievedChunk, copies: int) -> str:
    if copies == 1:
        return "only copy"
    if winner.copy == "primary":
        return f"primary, preferred over {copies - 1} other {'copy' if copies == 2 else 'copies'}"
    return f"first-ranked of {copies} copies, none primary"


def _how_matched(copy: RetrievedChunk, winner: RetrievedChunk) -> str:
    if copy.anchor and copy.anchor == winner.anchor:
        return f"same anchor {copy.anchor}"
    if normalised_text(copy.text) == normalised_text(winner.text):
        return "same normalised text"
    return "linked through another copy"


def dedupe_canonical(chunks) -> CanonicalDedupe:
    """One copy of each passage: its primary copy if ranked, else its first-ranked copy.

    Copies of copies are copies: a primary that shares its anchor with an export and its
    text with a mirror joins all three. Found with one dict of keys and a union-find, so
    the cost grows with the number of chunks. Distinct passages of one document all stay.
    """
    chunks = dedupe_ids(chunks)
    parent = list(range(len(chunks)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with_key: dict[tuple, int] = {}
    for i, chunk in enumerate(chunks):
        for key in _passage_keys(chunk):
            a, b = root(first_with_key.setdefault(key, i)), root(i)
            parent[max(a, b)] = min(a, b)   # the root is the group's first-ranked chunk
    winner: dict[int, int] = {}
    size: dict[int, int] = {}
    for i, chunk in enumerate(chunks):
        group = root(i)
        size[group] = size.get(group, 0) + 1
        if group not in winner or (chunk.copy == "primary" and chunks[winner[group]].copy != "primary"):
            winner[group] = i
    kept, dropped, reasons, matched = [], {}, {}, {}
    for i, chunk in enumerate(chunks):
        group = root(i)
        best = chunks[winner[group]]
        if chunk is best:
            kept.append(chunk)
            reasons[chunk.id] = _why_kept(chunk, size[group])
        else:
            dropped[chunk.id] = best.id
            matched[chunk.id] = _how_matched(chunk, best)
    return CanonicalDedupe(kept=tuple(kept), dropped=dropped, reasons=reasons, matched=matched)


# ---------------------------------------------------------------- overlapping lines

def lines_overlap(a: RetrievedChunk, b: RetrievedChunk) -> bool:
    """Same file and at least one shared line; ranges are 1-based and inclusive."""
    return a.source == b.source and a.start_line <= b.end_line and b.start_line <= a.end_line


def shared_line_range(a: RetrievedChunk, b: RetrievedChunk) -> tuple[int, int] | None:
    """The first and last line two chunks of one file share (inclusive), or None if they share none."""
    if not lines_overlap(a, b):
        return None
    return max(a.start_line, b.start_line), min(a.end_line, b.end_line)


def line_count(chunk: RetrievedChunk) -> int:
    """Lines a chunk spans, both ends included: 12-29 is 18 lines."""
    return chunk.end_line - chunk.start_line + 1


def ranked(chunks) -> tuple[RetrievedChunk, ...]:
    """Highest score first; equal scores in id order, so the input order never matters."""
    return tuple(sorted(_chunks(chunks), key=lambda c: (-c.score, c.id)))


def select_non_overlapping(chunks) -> OverlapSelection:
    """Walk in rank order; reject a chunk sharing a line with an already selected chunk of its
    file, naming the best-ranked one it overlaps. Adjacent ranges (12-24, 25-33) share no line.

    The order is ranked(): score, then id, so the input order never changes the result.
    """
    order = dedupe_ids(ranked(chunks))   # rank first: a repeated id keeps its best score, in any input order
    selected: list[RetrievedChunk] = []
    kept_in: dict[str, list[RetrievedChunk]] = {}   # file -> its selected chunks: only those can overlap
    rejected: dict[str, str] = {}
    shared: dict[str, tuple[int, int]] = {}
    for chunk in order:
        same_file = kept_in.setdefault(chunk.source, [])
        clash = next((kept for kept in same_file if lines_overlap(kept, chunk)), None)
        if clash is None:
            selected.append(chunk)
            same_file.append(chunk)
        else:
            rejected[chunk.id] = f"overlapping_lines_with:{clash.id}"   # kept in rank order
            shared[chunk.id] = shared_line_range(clash, chunk)
    return OverlapSelection(selected=tuple(selected), rejected=rejected, shared_lines=shared)


def distinct_texts(chunks) -> int:
    return len({c.text for c in _chunks(chunks)})


# ---------------------------------------------------------------- the fixture

RETURNS = entry("returns-v1").text   # the help-desk world's texts (modules/helpdesk)
LAPTOPS = "Laptops never go in the drop box: return them at the desk, which signs for them."
HOURS = entry("hours-v2").text

# Id dedupe: a second channel returned returns-v1 again, unchanged.
ID_CASE = (
    RetrievedChunk(id="returns-v1", source="returns-policy", text=RETURNS, score=0.91),
    RetrievedChunk(id="hours-v2", source="help-desk-hours", text=HOURS, score=0.88),
    RetrievedChunk(id="returns-v1", source="returns-policy", text=RETURNS, score=0.74),
)
# ...and a stale index holds another text under the same id.
ID_CONFLICT = ID_CASE + (
    RetrievedChunk(id="returns-v1", source="returns-policy", text=RETURNS.replace("north", "south"), score=0.52),
)

# Exact text: a news post quotes the hours word for word; two overlapping windows differ slightly.
TEXT_CASE = (
    RetrievedChunk(id="hours-v2", source="help-desk-hours", text=HOURS, score=0.90),
    RetrievedChunk(id="news-17", source="intranet-news", text=HOURS, score=0.86),
    RetrievedChunk(id="hours-w1", source="help-desk-guide",
                   text="The help desk opens at 8:30 on weekdays. On Saturdays it opens at 10:00.", score=0.80),
    RetrievedChunk(id="hours-w2", source="help-desk-guide",
                   text="On Saturdays it opens at 10:00. It is closed on Sundays.", score=0.77),
)

# Canonical documents: the returns policy (a rule, §1, and its exception for laptops, §2) at its
# primary home, the help-desk world's returns-policy source (returns-v1 is the help-desk record
# itself); a mirror site that copied the rule with its line breaks, and an export with a header;
# the printing prices in an export and a mirror, no primary retrieved; the hours (hours-v2) once.
_EXPORTED = "Returns policy (export of 2024-03-01). " + RETURNS
_MIRRORED = RETURNS.replace(" return books", "\nreturn books")
CANONICAL_CASE = (
    RetrievedChunk(id="returns-mirror", source="mirror.example.org/returns", text=_MIRRORED, score=0.93,
                   canonical_id="policy:returns", copy="mirror"),
    RetrievedChunk(id="returns-export", source="exports/returns-policy.txt", text=_EXPORTED, score=0.90,
                   canonical_id="policy:returns", copy="export", anchor="§1"),
    RetrievedChunk(id="printing-export", source="exports/printing-prices.txt", text="Printing costs 10 cents a page.",
                   score=0.84, canonical_id="policy:printing", copy="export", anchor="§1"),
    RetrievedChunk(id="returns-v1", source="returns-policy", text=RETURNS, score=0.83, canonical_id="policy:returns",
                   copy="primary", anchor="§1"),
    RetrievedChunk(id="printing-mirror", source="mirror.example.org/printing", text="Printing: 10 cents a page.",
                   score=0.71, canonical_id="policy:printing", copy="mirror", anchor="§1"),
    RetrievedChunk(id="hours-v2", source="help-desk-hours", text=HOURS, score=0.66, canonical_id="policy:hours",
                   copy="primary", anchor="§1"),
    RetrievedChunk(id="returns-laptops", source="returns-policy", text=LAPTOPS, score=0.58,
                   canonical_id="policy:returns", copy="primary", anchor="§2"),
)

# Five full-text candidates for "production release", as retrieved (score order).
OVERLAP_QUERY = "production release"
OVERLAP_CASE = (
    RetrievedChunk(id="chunk-0001", source="release-policy.md",
                   text="Production releases need two approvals and a rollback plan ...",
                   score=7.4, start_line=12, end_line=29),
    RetrievedChunk(id="chunk-0002", source="release-policy.md",
                   text="... a rollback plan. Freeze windows: no production release on ...",
                   score=6.9, start_line=26, end_line=34),
    RetrievedChunk(id="chunk-0003", source="deployment-guide.md",
                   text="To release to production, tag the build and run the deploy job ...",
                   score=6.1, start_line=12, end_line=24),
    RetrievedChunk(id="chunk-0004", source="deployment-guide.md",
                   text="After the production release, watch the error rate for 30 minutes ...",
                   score=5.8, start_line=25, end_line=33),
    RetrievedChunk(id="chunk-0005", source="service-config.md",
                   text="release.channel = production; release.approvals = 2",
                   score=4.2, start_line=32, end_line=35),
)

# Crowding: three near-identical chunks lead; the other half of the answer ranks fourth.
CROWDING_QUESTION = "When does the help desk open, and where can books be returned when it is closed?"
CROWDING_CASE = (
    RetrievedChunk(id="returns-v1", source="returns-policy", text=RETURNS, score=0.94),
    RetrievedChunk(id="returns-faq", source="faq", text=RETURNS, score=0.93),   # the help-desk world's FAQ copy
    RetrievedChunk(id="sign-returns", source="door-signage", text=RETURNS, score=0.92),
    RetrievedChunk(id="hours-v2", source="help-desk-hours", text=HOURS, score=0.81),
)
# Evaluation label: which chunks carry which half of the answer. Never given to a selector.
CROWDING_LABELS = {"where to return": ("returns-faq", "returns-v1", "sign-returns"), "when it opens": ("hours-v2",)}
CROWDING_CUTOFF = 2

LINE_RANGES = "Line ranges are 1-based and inclusive, as displayed: 12-24 is lines 12 through 24 (13 lines)."
