"""Lesson 03's trace and view: the tables `python3 -B methods.py dedupe` prints.

The mechanism and the fixture are in modules/dedupe/mechanism.py, whose trace() and view()
call these; lesson 11 imports that module and so never compiles this one.
"""

from __future__ import annotations

from modules.common.tables import table_block
from modules.dedupe.mechanism import (CANONICAL_CASE, CROWDING_CASE, CROWDING_CUTOFF, CROWDING_LABELS, CROWDING_QUESTION,
                            ID_CASE, ID_CONFLICT, LINE_RANGES, OVERLAP_CASE, OVERLAP_QUERY,
                            TEXT_CASE, IdConflict, canonical_key, canonical_sources, dedupe_canonical, dedupe_ids,
                            dedupe_text, distinct_texts, line_count, select_non_overlapping)

RANKED = ("rank: the retrieval order, 1 = best; score: the retriever's score (higher ranks first); "
          "chars: the length of the text in characters.")


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


def _canonical() -> dict:
    result = dedupe_canonical(CANONICAL_CASE)
    passages: dict[str, int] = {}
    for chunk in result.kept:
        passages[canonical_key(chunk)] = passages.get(canonical_key(chunk), 0) + 1
    copies: dict[str, int] = {}
    for chunk in CANONICAL_CASE:
        copies[canonical_key(chunk)] = copies.get(canonical_key(chunk), 0) + 1
    return {
        "rule": "one copy of each passage: copies share a canonical document and the same anchor or the same "
                "normalised text (NFC, case-folded, whitespace collapsed); the primary copy is kept if retrieved, "
                "else the first-ranked copy",
        "candidates": [dict(row, canonical_id=c.canonical_id, copy=c.copy, anchor=c.anchor)
                       for row, c in zip(_rows(CANONICAL_CASE), CANONICAL_CASE)],
        "kept": [{"id": c.id, "canonical_id": canonical_key(c), "copy": c.copy, "anchor": c.anchor,
                  "why": result.reasons[c.id]} for c in result.kept],
        "dropped": [{"id": cid, "kept_id": kept, "matched": result.matched[cid]}
                    for cid, kept in result.dropped.items()],
        "copies_per_document": copies,
        "passages_kept_per_document": passages,
        "chunks_before": len(CANONICAL_CASE),
        "places_before": len({c.source for c in CANONICAL_CASE}),
        "canonical_sources_before": canonical_sources(CANONICAL_CASE),
        "chunks_after_exact_text": len(dedupe_text(CANONICAL_CASE).kept),
        "chunks_after": len(result.kept),
        "canonical_sources_after": canonical_sources(result.kept),
    }


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
        "canonical": _canonical(),
        "overlap": {
            "query": OVERLAP_QUERY,
            "candidates": [dict(row, lines=f"{c.start_line}-{c.end_line}", line_count=line_count(c))
                           for row, c in zip(_rows(OVERLAP_CASE), OVERLAP_CASE)],
            "selected_ids": list(overlap.selected_ids),
            "rejected": [{"id": cid, "reason": reason, "shared_lines": "{}-{}".format(*overlap.shared_lines[cid])}
                         for cid, reason in overlap.rejected.items()],
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
                     _crowding_row(f"deduped {CROWDING_CUTOFF}",
                                   dedupe_text(CROWDING_CASE).kept[:CROWDING_CUTOFF])],
        },
    }




def view(record: dict) -> list[dict]:
    """The trace as printable blocks, each with a stable key."""
    ids, text, canonical = record["ids"], record["text"], record["canonical"]
    overlap, crowding = record["overlap"], record["crowding"]
    columns = ["rank", "id", "source", "score", "chars"]

    def rows(candidates):
        return [[c["rank"], c["id"], c["source"], f"{c['score']:.2f}", c["chars"]] for c in candidates]

    conflict = ids["conflict"]
    shared = [doc for doc, n in canonical["passages_kept_per_document"].items() if n > 1]
    kept_of = {k["id"]: k for k in canonical["kept"]}
    blocks = [
        {"key": "heading", "heading": "Lesson 03 - dedupe: remove redundancy without merging identities carelessly"},
        {"key": "plan", "text": "Five kinds of repetition, each with its own rule: one id twice, one text under "
                                "two ids, copies of one passage on a primary site, a mirror and an export, "
                                "overlapping line ranges of one file, and near copies crowding a cutoff. Each "
                                "case shows its candidates, then what the rule keeps, drops and why."},
        table_block("ids", "1. Same id", RANKED, columns, rows(ids["candidates"])),
        {"key": "ids-result",
         "text": f"Identical copies collapse to the first-ranked: kept {', '.join(ids['kept_ids'])} "
                 f"({ids['collapsed']} copy collapsed). Then a stale copy of returns-v1 arrives with "
                 f"another text, and dedupe_ids refuses:"},
        table_block("id-conflict", "", "The first field in which the two chunks under one id differ.",
               ["event", "id", "differing field"], [[conflict["event"], conflict["id"], conflict["field"]]]),
        {"key": "id-conflict-why", "text": f"Message: {conflict['message']}\nWhy: {conflict['explained']}."},
        table_block("text", "2. Same text, other id", RANKED, columns, rows(text["candidates"])),
        {"key": "text-result",
         "text": f"Kept {', '.join(text['kept_ids'])}; duplicate_text_ids: {', '.join(text['duplicate_text_ids'])} "
                 f"(same text as {text['duplicate_of'][text['duplicate_text_ids'][0]]}). "
                 f"{' and '.join(text['overlapping_but_distinct'])} share a sentence but their texts differ, "
                 f"so both stay: exact means exact. Keeping the first-ranked copy is a tie rule, not a "
                 f"judgement about which source has authority."},
        table_block("canonical", "3. Copies of one passage across primary, mirror and export",
               "canonical id: the document a chunk copies; copy: primary, mirror or export; at: the "
               "passage's anchor, its place in that document ('-' = none declared); #: the rank, 1 = best.",
               ["#", "id", "source", "canonical id", "copy", "at"],
               [[c["rank"], c["id"], c["source"], c["canonical_id"], c["copy"], c["anchor"] or "-"]
                for c in canonical["candidates"]]),
        {"key": "canonical-rule", "text": f"Rule: {canonical['rule']}."},
        table_block("canonical-kept", "Kept: one copy of each passage",
               "document: the canonical document; at: the passage's anchor in it; why: which copy of the "
               "passage was kept, and over how many copies.",
               ["id", "document", "at", "why"],
               [[k["id"], k["canonical_id"], k["anchor"] or "-", k["why"]] for k in canonical["kept"]]),
        table_block("canonical-dropped", "Dropped: copies of a kept passage",
               "kept instead: the copy of the same passage that stays; matched by: how the two were "
               "found to be one passage.",
               ["id", "copy", "kept instead", "matched by"],
               [[d["id"], next(c["copy"] for c in canonical["candidates"] if c["id"] == d["id"]), d["kept_id"],
                 d["matched"]] for d in canonical["dropped"]]),
        {"key": "canonical-counts",
         "text": f"Before: {canonical['chunks_before']} chunks from {canonical['places_before']} places, but "
                 f"{canonical['canonical_sources_before']} canonical documents; exact-text dedupe alone leaves "
                 f"{canonical['chunks_after_exact_text']} chunks (a header and a line break are enough to "
                 f"differ). After: {canonical['chunks_after']} chunks from {canonical['canonical_sources_after']} "
                 f"canonical documents.\n"
                 + "\n".join(f"{doc}: {n} {'chunk' if n == 1 else 'chunks'}, "
                             f"{canonical['passages_kept_per_document'][doc]} "
                             f"{'passage' if canonical['passages_kept_per_document'][doc] == 1 else 'passages'} kept"
                             for doc, n in canonical["copies_per_document"].items())
                 + "\nCounting chunk ids would report three sources that agree about the drop box; there is "
                   "one. " + "".join(
                     f"Both passages of {doc} stay ({', '.join(i for i in kept_of if kept_of[i]['canonical_id'] == doc)}): "
                     "keeping one chunk per canonical document would drop the laptop exception."
                     for doc in shared)},
        table_block("overlap", f"4. Overlapping lines: five full-text candidates for \"{overlap['query']}\"",
               "lines: first-last line of the chunk in its file, 1-based and inclusive; score: the "
               "full-text score (higher ranks first).",
               ["rank", "id", "file", "lines", "score"],
               [[c["rank"], c["id"], c["source"], c["lines"], f"{c['score']:.1f}"] for c in overlap["candidates"]]),
        {"key": "overlap-result",
         "text": f"{record['line_ranges']}\n{len(overlap['candidates'])} candidates, "
                 f"{len(overlap['selected_ids'])} selected, {len(overlap['rejected'])} rejected.\n"
                 f"Selected: {', '.join(overlap['selected_ids'])}.\n"
                 + "\n".join(f"Rejected: {r['id']} {r['reason']} (shares lines {r['shared_lines']})"
                             for r in overlap["rejected"])
                 + "\nThe two deployment-guide.md chunks are adjacent (24 then 25), so both stay.\n"
                 f"Same candidates in reversed input order: {', '.join(overlap['reversed_input_selected_ids'])} "
                 f"({'the same selection' if overlap['order_invariant'] else 'A DIFFERENT SELECTION'}; "
                 f"rank is score, ties broken by id)."},
        table_block("crowding", "5. Crowding", RANKED, columns, rows(crowding["candidates"])),
        {"key": "crowding-question", "text": f"Question: {crowding['question']}"},
        table_block("crowding-packets", "Three packets for that question",
               f"packet: the top {CROWDING_CUTOFF} or {len(CROWDING_CASE)} as ranked, or 'deduped "
               f"{CROWDING_CUTOFF}': the top {CROWDING_CUTOFF} after exact-text dedupe; mean: mean score of the "
               "packet's chunks; texts: distinct texts among them; parts: answer parts covered, judged with "
               "evaluation labels.",
               ["packet", "ids", "mean", "texts", "parts"],
               [[r["label"], ", ".join(r["ids"]), f"{r['mean_score']:.3f}", r["distinct_texts"], r["answer_parts"]]
                for r in crowding["rows"]]),
        {"key": "crowding-note",
         "text": "Answer parts use evaluation labels (" + "; ".join(
             f"{part}: {', '.join(ids_)}" for part, ids_ in crowding["labels"]["answer_parts"].items())
                 + "), for evaluation only. The top two look excellent by score and hold half the answer; "
                   "counting distinct texts shows one sentence twice. No diversity rule fits every question: "
                   "some answers need several passages from one source."},
    ]
    return blocks
