"""Lesson 03, dedupe: remove redundancy without merging identities carelessly.

Four kinds of repetition, each with its own rule:

* the same id twice: identical copies collapse to the first-ranked one; two
  different chunks under one id are an error, because one of them is mislabelled;
* the same text under different ids: keep the first-ranked, record the others.
  Exact means exact: overlapping chunks whose text differs stay distinct, and
  keeping the first says nothing about which source has authority;
* copies of one canonical document (primary site, mirror, export): keep one and
  say which and why, so three copies are not counted as three agreeing sources;
* overlapping line ranges of one file: keep the higher-ranked chunk, reject the
  other with a reason naming the chunk it overlaps. Line ranges are 1-based and
  inclusive, as displayed: 12-24 and 25-33 are adjacent, not overlapping.

Ranking is by score, highest first, ties broken by id, so the selection never
depends on the order the candidates arrived in. Crowding is the last case: near
copies at the top of a ranking push the rest of the answer below the cutoff.
"""

from __future__ import annotations

from collections import namedtuple

from modules.common.checks import sequence_of

__all__ = [
    "Chunk", "IdConflict", "TextDedupe", "CanonicalDedupe", "OverlapSelection", "COPY_KINDS",
    "dedupe_ids", "dedupe_text", "canonical_key", "dedupe_canonical", "lines_overlap", "ranked",
    "select_non_overlapping", "distinct_texts", "ID_CASE", "ID_CONFLICT", "TEXT_CASE", "CANONICAL_CASE",
    "OVERLAP_CASE", "CROWDING_CASE", "CROWDING_LABELS", "trace",
]

COPY_KINDS = ("primary", "mirror", "export")
# What must agree for two chunks with one id to be the same chunk. The score may differ:
# two channels can rank one chunk differently without it becoming another chunk.
IDENTITY_FIELDS = ("text", "source", "canonical_id", "copy", "start_line", "end_line")


# Immutable records as validated named tuples, not frozen dataclasses: just as immutable,
# and the lesson command then never imports dataclasses (about 6 ms of every run).

class Chunk(namedtuple("Chunk", "id source text score canonical_id copy start_line end_line",
                       defaults=(0.0, "", "primary", 1, 1))):
    """A retrieved chunk: where it lives, what it says, and (optionally) whose copy it is.

    `canonical_id` names the document this copy reproduces ("" means it declares
    no copy relation, and canonical dedupe leaves it alone). Lines are 1-based and
    inclusive. Defaults: score 0.0, canonical_id "", copy "primary", lines 1 to 1.
    """

    __slots__ = ()

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls, *args, **kwargs)
        for name in ("id", "source", "text", "canonical_id", "copy"):
            value = getattr(self, name)
            if not isinstance(value, str):
                raise TypeError(f"Chunk.{name} must be a str, got {type(value).__name__} {value!r}")
        for name in ("id", "source"):
            if not getattr(self, name).strip():
                raise ValueError(f"Chunk.{name} must not be empty, got {getattr(self, name)!r}")
        if self.copy not in COPY_KINDS:
            raise ValueError(f"Chunk.copy must be one of {', '.join(COPY_KINDS)}, got {self.copy!r}")
        if isinstance(self.score, bool) or not isinstance(self.score, (int, float)) or self.score != self.score:
            raise TypeError(f"Chunk.score must be a number, got {type(self.score).__name__} {self.score!r}")
        for name in ("start_line", "end_line"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Chunk.{name} must be an int, got {type(value).__name__} {value!r}")
            if value < 1:
                raise ValueError(f"Chunk.{name} must be >= 1 (lines are 1-based), got {value}")
        if self.end_line < self.start_line:
            raise ValueError(f"Chunk {self.id!r}: end_line {self.end_line} is before start_line {self.start_line}")
        return self


class IdConflict(ValueError):
    """Two different chunks carry one id; `field` is the first one that differs."""

    def __init__(self, chunk_id: str, field_name: str, first: object, second: object) -> None:
        super().__init__(f"id {chunk_id!r} appears twice with a different {field_name}: {first!r} vs {second!r}")
        self.chunk_id, self.field = chunk_id, field_name


class TextDedupe(namedtuple("TextDedupe", "kept duplicate_text_ids duplicate_of")):
    """kept: tuple of Chunk; duplicate_text_ids: tuple of ids; duplicate_of: duplicate id -> kept id."""

    __slots__ = ()

    def __new__(cls, kept: tuple, duplicate_text_ids: tuple, duplicate_of: dict | None = None):
        return super().__new__(cls, kept, duplicate_text_ids, {} if duplicate_of is None else duplicate_of)


class CanonicalDedupe(namedtuple("CanonicalDedupe", "kept dropped reasons")):
    """kept: tuple of Chunk; dropped: dropped id -> kept id; reasons: kept id -> why this copy."""

    __slots__ = ()

    def __new__(cls, kept: tuple, dropped: dict, reasons: dict | None = None):
        return super().__new__(cls, kept, dropped, {} if reasons is None else reasons)


class OverlapSelection(namedtuple("OverlapSelection", "selected rejected")):
    """selected: tuple of Chunk in rank order; rejected: rejected id -> reason."""

    __slots__ = ()

    @property
    def selected_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.selected)


def _chunks(chunks: object) -> tuple[Chunk, ...]:
    return sequence_of(chunks, Chunk, "chunks")


def dedupe_ids(chunks) -> tuple[Chunk, ...]:
    """Keep the first-ranked copy of each id; raise IdConflict if a later copy differs."""
    first: dict[str, Chunk] = {}
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
    return TextDedupe(tuple(kept), tuple(duplicates), duplicates)


def canonical_key(chunk: Chunk) -> str:
    """The document a chunk is a copy of; a chunk that declares none stands for itself."""
    return chunk.canonical_id or chunk.id


def dedupe_canonical(chunks) -> CanonicalDedupe:
    """One chunk per canonical document: its primary copy if ranked, else its first-ranked copy."""
    chunks = dedupe_ids(chunks)
    chosen: dict[str, Chunk] = {}
    for chunk in chunks:
        key = canonical_key(chunk)
        if key not in chosen or (chunk.copy == "primary" and chosen[key].copy != "primary"):
            chosen[key] = chunk
    copies: dict[str, int] = {}
    for chunk in chunks:
        copies[canonical_key(chunk)] = copies.get(canonical_key(chunk), 0) + 1
    kept, dropped, reasons = [], {}, {}
    for chunk in chunks:
        winner = chosen[canonical_key(chunk)]
        if chunk is winner:
            kept.append(chunk)
            count = copies[canonical_key(chunk)]
            if count == 1:
                reasons[chunk.id] = "only copy"
            elif chunk.copy == "primary":
                reasons[chunk.id] = f"primary copy, preferred over {count - 1} other(s)"
            else:
                reasons[chunk.id] = f"first-ranked copy; no primary among the {count} copies"
        else:
            dropped[chunk.id] = winner.id
    return CanonicalDedupe(tuple(kept), dropped, reasons)


def lines_overlap(a: Chunk, b: Chunk) -> bool:
    """Same file and at least one shared line; ranges are 1-based and inclusive."""
    return a.source == b.source and a.start_line <= b.end_line and b.start_line <= a.end_line


def ranked(chunks) -> tuple[Chunk, ...]:
    """Highest score first; equal scores in id order, so the input order never matters."""
    return tuple(sorted(_chunks(chunks), key=lambda c: (-c.score, c.id)))


def select_non_overlapping(chunks) -> OverlapSelection:
    """Walk in rank order; reject a chunk sharing a line with an already selected chunk of its file.

    Selected ranges of one file never overlap, so each line has at most one owner:
    marking owned lines keeps the cost proportional to the lines covered, not to
    pairs of chunks.
    """
    order = dedupe_ids(ranked(chunks))   # rank first: a repeated id keeps its best score, in any input order
    owner: dict[tuple[str, int], int] = {}          # (file, line) -> rank of the selected chunk holding it
    selected, rejected = [], {}
    for rank, chunk in enumerate(order):
        lines = range(chunk.start_line, chunk.end_line + 1)
        clashes = [owner[(chunk.source, line)] for line in lines if (chunk.source, line) in owner]
        if clashes:
            rejected[chunk.id] = f"overlapping_lines_with:{order[min(clashes)].id}"   # the best-ranked one
            continue
        selected.append(chunk)
        for line in lines:
            owner[(chunk.source, line)] = rank
    return OverlapSelection(tuple(selected), rejected)


def distinct_texts(chunks) -> int:
    return len({c.text for c in _chunks(chunks)})


# ---------------------------------------------------------------- the fixture

RETURNS = "When the help desk is closed, return books to the drop box beside the north entrance."
HOURS = "The help desk opens at 8:30 on weekdays and at 10:00 on Saturdays; it is closed on Sundays."

# Id dedupe: a second channel returned returns-v1 again, unchanged.
ID_CASE = (
    Chunk("returns-v1", "returns-policy", RETURNS, 0.91),
    Chunk("hours-v2", "help-desk-hours", HOURS, 0.88),
    Chunk("returns-v1", "returns-policy", RETURNS, 0.74),
)
# ...and a stale index holds another text under the same id.
ID_CONFLICT = ID_CASE + (
    Chunk("returns-v1", "returns-policy", RETURNS.replace("north", "south"), 0.52),
)

# Exact text: a news post quotes the hours word for word; two overlapping windows differ slightly.
TEXT_CASE = (
    Chunk("hours-v2", "help-desk-hours", HOURS, 0.90),
    Chunk("news-17", "intranet-news", HOURS, 0.86),
    Chunk("hours-w1", "help-desk-guide", "The help desk opens at 8:30 on weekdays. On Saturdays it opens at 10:00.", 0.80),
    Chunk("hours-w2", "help-desk-guide", "On Saturdays it opens at 10:00. It is closed on Sundays.", 0.77),
)

# Canonical documents: three copies of the returns policy, two of the printing policy.
_EXPORTED = "Returns policy (export of 2024-03-01). " + RETURNS
CANONICAL_CASE = (
    Chunk("returns-mirror", "mirror.example.org/returns", RETURNS, 0.93, "policy:returns", "mirror"),
    Chunk("returns-export", "exports/returns-policy.txt", _EXPORTED, 0.90, "policy:returns", "export"),
    Chunk("printing-export", "exports/printing-prices.txt", "Printing costs 10 cents a page.", 0.84,
          "policy:printing", "export"),
    Chunk("returns-primary", "intranet/returns", RETURNS, 0.83, "policy:returns", "primary"),
    Chunk("printing-mirror", "mirror.example.org/printing", "Printing: 10 cents a page.", 0.71,
          "policy:printing", "mirror"),
    Chunk("hours-primary", "intranet/hours", HOURS, 0.66, "policy:hours", "primary"),
)

# Five full-text candidates for "production release", as retrieved (score order).
OVERLAP_QUERY = "production release"
OVERLAP_CASE = (
    Chunk("chunk-0001", "release-policy.md", "Production releases need two approvals and a rollback plan ...",
          7.4, start_line=12, end_line=29),
    Chunk("chunk-0002", "release-policy.md", "... a rollback plan. Freeze windows: no production release on ...",
          6.9, start_line=26, end_line=34),
    Chunk("chunk-0003", "deployment-guide.md", "To release to production, tag the build and run the deploy job ...",
          6.1, start_line=12, end_line=24),
    Chunk("chunk-0004", "deployment-guide.md", "After the production release, watch the error rate for 30 minutes ...",
          5.8, start_line=25, end_line=33),
    Chunk("chunk-0005", "service-config.md", "release.channel = production; release.approvals = 2",
          4.2, start_line=32, end_line=35),
)

# Crowding: three near-identical chunks lead; the other half of the answer ranks fourth.
CROWDING_QUESTION = "When does the help desk open, and where can books be returned when it is closed?"
CROWDING_CASE = (
    Chunk("returns-v1", "returns-policy", RETURNS, 0.94),
    Chunk("faq-returns", "faq", RETURNS, 0.93),
    Chunk("sign-returns", "door-signage", RETURNS, 0.92),
    Chunk("hours-v2", "help-desk-hours", HOURS, 0.81),
)
# Evaluation label: which chunks carry which half of the answer. Never given to a selector.
CROWDING_LABELS = {"where to return": ("faq-returns", "returns-v1", "sign-returns"), "when it opens": ("hours-v2",)}
CROWDING_CUTOFF = 2

LINE_RANGES = "Line ranges are 1-based and inclusive, as displayed: 12-24 is lines 12 through 24 (13 lines)."


# ---------------------------------------------------------------- the trace

def _rows(chunks) -> list[dict]:
    return [{"rank": rank, "id": c.id, "source": c.source, "score": c.score, "chars": len(c.text)}
            for rank, c in enumerate(chunks, start=1)]


def _parts_covered(chunks) -> str:
    ids = {c.id for c in chunks}
    found = sum(1 for members in CROWDING_LABELS.values() if ids & set(members))
    return f"{found}/{len(CROWDING_LABELS)}"


def _crowding_row(label: str, chunks) -> dict:
    chunks = tuple(chunks)
    return {"label": label, "ids": [c.id for c in chunks], "distinct_texts": distinct_texts(chunks),
            "mean_score": round(sum(c.score for c in chunks) / len(chunks), 3), "answer_parts": _parts_covered(chunks)}


def trace() -> dict:
    """Every case of the lesson as one JSON-ready record."""
    ids_kept = dedupe_ids(ID_CASE)
    try:
        dedupe_ids(ID_CONFLICT)
    except IdConflict as error:
        conflict = {"event": "caught IdConflict (a ValueError)", "id": error.chunk_id, "field": error.field,
                    "message": str(error),
                    "explained": "one id, two different texts: one copy is stale or mislabelled, and picking "
                                 "either would hide that; the selector stops and names the id and the field"}
    else:  # pragma: no cover - ID_CONFLICT is built to conflict
        raise AssertionError("ID_CONFLICT should raise")

    text = dedupe_text(TEXT_CASE)
    canonical = dedupe_canonical(CANONICAL_CASE)
    after_text = dedupe_text(CANONICAL_CASE).kept
    copies: dict[str, int] = {}
    for chunk in CANONICAL_CASE:
        copies[chunk.canonical_id] = copies.get(chunk.canonical_id, 0) + 1
    overlap = select_non_overlapping(OVERLAP_CASE)
    reverse = select_non_overlapping(tuple(reversed(OVERLAP_CASE)))
    return {
        "lesson": "dedupe",
        "line_ranges": LINE_RANGES,
        "ids": {"candidates": _rows(ID_CASE), "kept_ids": [c.id for c in ids_kept],
                "collapsed": len(ID_CASE) - len(ids_kept), "conflict": conflict},
        "text": {"candidates": _rows(TEXT_CASE), "kept_ids": [c.id for c in text.kept],
                 "duplicate_text_ids": list(text.duplicate_text_ids), "duplicate_of": text.duplicate_of,
                 "overlapping_but_distinct": ["hours-w1", "hours-w2"]},
        "canonical": {
            "candidates": [dict(row, canonical_id=c.canonical_id, copy=c.copy)
                           for row, c in zip(_rows(CANONICAL_CASE), CANONICAL_CASE)],
            "kept": [{"id": c.id, "canonical_id": canonical_key(c), "copy": c.copy, "why": canonical.reasons[c.id]}
                     for c in canonical.kept],
            "dropped": [{"id": cid, "kept_id": kept} for cid, kept in canonical.dropped.items()],
            "copies_per_source": copies,
            "apparent_sources_before": len({c.source for c in CANONICAL_CASE}),
            "canonical_sources_before": len({c.canonical_id or c.source for c in CANONICAL_CASE}),
            "chunks_after_exact_text": len(after_text),
            "chunks_after": len(canonical.kept),
            "canonical_sources_after": len({c.canonical_id or c.source for c in canonical.kept}),
        },
        "overlap": {
            "query": OVERLAP_QUERY,
            "candidates": [dict(row, lines=f"{c.start_line}-{c.end_line}")
                           for row, c in zip(_rows(OVERLAP_CASE), OVERLAP_CASE)],
            "selected_ids": list(overlap.selected_ids),
            "rejected": [{"id": cid, "reason": reason} for cid, reason in overlap.rejected.items()],
            "reversed_input_selected_ids": list(reverse.selected_ids),
            "reversed_input_rejected": [{"id": cid, "reason": reason} for cid, reason in reverse.rejected.items()],
            "order_invariant": overlap == reverse,
        },
        "crowding": {
            "question": CROWDING_QUESTION,
            "candidates": _rows(CROWDING_CASE),
            "labels": {"answer_parts": {part: list(ids) for part, ids in CROWDING_LABELS.items()},
                       "note": "for evaluation only: no selector receives them"},
            "rows": [_crowding_row(f"top {CROWDING_CUTOFF}", CROWDING_CASE[:CROWDING_CUTOFF]),
                     _crowding_row(f"top {len(CROWDING_CASE)}", CROWDING_CASE),
                     _crowding_row(f"exact-text dedupe, then top {CROWDING_CUTOFF}",
                                   dedupe_text(CROWDING_CASE).kept[:CROWDING_CUTOFF])],
        },
    }


def view(record: dict) -> list[dict]:
    """The trace as printable blocks."""
    ids, text, canonical = record["ids"], record["text"], record["canonical"]
    overlap, crowding = record["overlap"], record["crowding"]
    columns = ["rank", "id", "source", "score", "chars"]

    def rows(candidates):
        return [[c["rank"], c["id"], c["source"], f"{c['score']:.2f}", c["chars"]] for c in candidates]

    conflict = ids["conflict"]
    blocks = [
        {"heading": "Lesson 03 - dedupe: remove redundancy without merging identities carelessly"},
        {"table": {"title": "1. Same id", "columns": columns, "rows": rows(ids["candidates"])}},
        {"text": f"Identical copies collapse to the first-ranked: kept {', '.join(ids['kept_ids'])} "
                 f"({ids['collapsed']} copy collapsed). Then a stale copy of returns-v1 arrives with "
                 f"another text, and dedupe_ids refuses:"},
        {"table": {"title": "", "columns": ["event", "id", "differing field"],
                   "rows": [[conflict["event"], conflict["id"], conflict["field"]]]}},
        {"text": f"Message: {conflict['message']}\nWhy: {conflict['explained']}."},
        {"table": {"title": "2. Same text, other id", "columns": columns, "rows": rows(text["candidates"])}},
        {"text": f"Kept {', '.join(text['kept_ids'])}; duplicate_text_ids: {', '.join(text['duplicate_text_ids'])} "
                 f"(same text as {text['duplicate_of'][text['duplicate_text_ids'][0]]}). "
                 f"{' and '.join(text['overlapping_but_distinct'])} share a sentence but their texts differ, "
                 f"so both stay: exact means exact. Keeping the first-ranked copy is a tie rule, not a "
                 f"judgement about which source has authority."},
        {"table": {"title": "3. Copies of one canonical document",
                   "columns": ["rank", "id", "source", "canonical id", "copy"],
                   "rows": [[c["rank"], c["id"], c["source"], c["canonical_id"], c["copy"]]
                            for c in canonical["candidates"]]}},
        {"table": {"title": "Kept, one per canonical document", "columns": ["id", "canonical id", "copy", "why"],
                   "rows": [[k["id"], k["canonical_id"], k["copy"], k["why"]] for k in canonical["kept"]]}},
        {"text": "Dropped: " + ", ".join(f"{d['id']} (kept {d['kept_id']})" for d in canonical["dropped"])
                 + f".\nBefore: {len(canonical['candidates'])} chunks from {canonical['apparent_sources_before']} "
                 f"places, but only {canonical['canonical_sources_before']} canonical sources; exact-text "
                 f"dedupe alone leaves {canonical['chunks_after_exact_text']} chunks, because an export adds a "
                 f"header. After: {canonical['chunks_after']} chunks, {canonical['canonical_sources_after']} "
                 f"sources.\n" + "\n".join(f"{key}: {n} {'copy is' if n == 1 else 'copies is'} 1 source"
                                          for key, n in canonical["copies_per_source"].items())
                 + "\nCounting chunk ids would report three sources that agree about returns; there is one."},
        {"table": {"title": f"4. Overlapping lines: five full-text candidates for \"{overlap['query']}\"",
                   "columns": ["rank", "id", "file", "lines", "score"],
                   "rows": [[c["rank"], c["id"], c["source"], c["lines"], f"{c['score']:.1f}"]
                            for c in overlap["candidates"]]}},
        {"text": f"{record['line_ranges']}\nSelected ({len(overlap['selected_ids'])} of "
                 f"{len(overlap['candidates'])}): {', '.join(overlap['selected_ids'])}.\n"
                 + "\n".join(f"Rejected: {r['id']} {r['reason']}" for r in overlap["rejected"])
                 + "\nThe two deployment-guide.md chunks are adjacent (24 then 25), so both stay.\n"
                 f"Same candidates in reversed input order: {', '.join(overlap['reversed_input_selected_ids'])} "
                 f"({'the same selection' if overlap['order_invariant'] else 'A DIFFERENT SELECTION'}; "
                 f"rank is score, ties broken by id)."},
        {"table": {"title": "5. Crowding", "columns": columns, "rows": rows(crowding["candidates"])}},
        {"table": {"title": f"Question: {crowding['question']}",
                   "columns": ["packet", "ids", "mean score", "distinct texts", "answer parts"],
                   "rows": [[r["label"], ", ".join(r["ids"]), f"{r['mean_score']:.3f}", r["distinct_texts"],
                             r["answer_parts"]] for r in crowding["rows"]]}},
        {"text": "Answer parts use evaluation labels (" + "; ".join(
            f"{part}: {', '.join(ids_)}" for part, ids_ in crowding["labels"]["answer_parts"].items())
                 + "), for evaluation only. The top two look excellent by score and hold half the answer; "
                   "counting distinct texts shows one sentence twice. No diversity rule fits every question: "
                   "some answers need several passages from one source."},
    ]
    return blocks
