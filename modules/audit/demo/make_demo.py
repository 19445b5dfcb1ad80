"""Write the audit demo: a small BEIR-layout folder and a TREC run, built from the lab's fixtures.

    python3 -B modules/audit/demo/make_demo.py      rewrite the five files beside this script

Passages keep their lesson ids and texts: the help desk of lessons 01 and 04 and the
conference-travel capstone of lesson 11. Three passages are new here: two line windows of
the help-desk guide and an export copy of lesson 01's returns passage (lesson 03's
canonical case, under lesson 03's id returns-export). The run also names hours-v3, which the corpus lacks, and q8, which
nobody judged. Each judged query makes one cause of loss visible; packets.jsonl is what a
system sent (`--packets`: it truncates, sends another version and splits A1 from A2);
tests/test_audit.py
checks the ledger by hand and that these files are exactly what this script writes.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from modules.context import mechanism as context  # noqa: E402
from modules.practice import mechanism as practice  # noqa: E402
from modules.versions import mechanism as versions  # noqa: E402

TRAVEL_UNIT = "travel-policy#3-4"   # the conclusion (A1) and its exception (A2): one unit
GUIDE = ("The help desk opens at 8:30 on weekdays.", "On Saturdays it opens at 10:00.",
         "It is closed on Sundays.")


def _lesson_01(pid: str) -> dict:
    p = next(p for p in context.CANDIDATES if p.id == pid)
    return {"_id": p.id, "title": p.title, "text": p.text, "metadata": {"source": p.source_id, "version": p.version}}


def _lesson_04(record) -> dict:
    meta = {"source": record.source_id, "version": record.version}
    if record.valid_from != "2026-01-01" or record.valid_until:   # 2026-01-01 is Record's default, not data
        meta["valid_from"] = record.valid_from
    if record.valid_until:
        meta["valid_until"] = record.valid_until
    return {"_id": record.id, "title": record.title, "text": record.text, "metadata": meta}


def _capstone(pid: str, **extra) -> dict:
    c = next(c for c in practice.CANDIDATES if c.id == pid)
    meta = {"source": c.document, "position": c.chunk}   # its place in its document: it orders, nothing more
    if c.valid_until:
        meta.update(valid_from=c.valid_from, valid_until=c.valid_until)
    meta.update(extra)
    return {"_id": c.id, "title": c.document, "text": c.text, "metadata": meta}


def corpus() -> list[dict]:
    returns = _lesson_01("returns-v1")
    returns["metadata"].update(canonical_id="policy:returns#1", copy="primary")
    passages = [returns] + [_lesson_01(pid) for pid in ("hours-v2", "returns-faq", "wifi-v1", "printing-v1",
                                                         "printing-v2", "parking-v1", "card-v1")]
    passages += [_lesson_04(versions.HOURS_V1)] + [_lesson_04(r) for r in versions.LATE_FEES]
    passages += [
        {"_id": "guide-w1", "title": "Help desk guide", "text": " ".join(GUIDE[0:2]),
         "metadata": {"source": "help-desk-guide.md", "start_line": 1, "end_line": 2}},
        {"_id": "guide-w2", "title": "Help desk guide", "text": " ".join(GUIDE[1:3]),
         "metadata": {"source": "help-desk-guide.md", "start_line": 2, "end_line": 3}},
        {"_id": "returns-export", "title": "Returning books (export)",
         "text": "Returns policy (export of 2024-03-01). " + returns["text"],
         "metadata": {"source": "exports/returns-policy.txt", "canonical_id": "policy:returns#1", "copy": "export"}},
    ]
    # The capstone: B1 mirrors the travel policy from its conclusion on, so it is declared a
    # copy of A1's passage; A1 and A2 are distinct passages of one document and both stay, and
    # they declare one unit (lesson 11: the conclusion travels with its exception).
    passages += [_capstone("A1", canonical_id="travel-policy#3", copy="primary", unit=TRAVEL_UNIT),
                 _capstone("B1", canonical_id="travel-policy#3", copy="mirror"),
                 _capstone("C1"), _capstone("F1"),
                 _capstone("A2", canonical_id="travel-policy#4", copy="primary", unit=TRAVEL_UNIT)]
    return passages


# query id, text, the run's ranking (best first), the judged-relevant ids
QUERIES = (
    ("q1", context.QUESTION, [p.id for p in context.CANDIDATES], sorted(context.RELEVANT_IDS)),
    ("q2", "When does the help desk open on Saturdays?",
     ["hours-v2", "hours-v1", "hours-v3", "card-v1", "wifi-v1"], ["hours-v2"]),
    ("q3", "Where can I return books when the help desk is closed?",
     ["returns-faq", "returns-v1", "wifi-v1", "hours-v2"], ["returns-v1"]),
    ("q4", "Is the help desk open on Sundays?",
     ["guide-w1", "guide-w2", "wifi-v1", "card-v1"], ["guide-w2", "hours-v2"]),
    ("q5", "How much is the late fee for a laptop?",
     ["late-fee-2025", "late-fee-2026", "printing-v1", "card-v1"], ["late-fee-2025", "late-fee-2026"]),
    ("q6", "Where can I read the returns policy?",
     ["returns-export", "returns-v1", "parking-v1"], ["returns-export"]),
    ("q7", practice.QUESTION, ["A1", "B1", "C1", "F1", "A2"], ["A1", "A2"]),
    ("q8", "Can I bring food into the reading room?", ["card-v1", "wifi-v1"], []),
)

# Declared sub-questions (queries.jsonl's metadata.sub_questions): the facets lesson 02's
# coverage-aware choice covers under `--policy`. q1 asks the two parts of lesson 01's
# question; q7 asks for the claim route (A1) and the approval rule (A2).
SUB_QUESTIONS = {
    "q1": [["hours", "When does the help desk open?"],
           ["returns", "Where can books be returned when it is closed?"]],
    "q7": [["claims", "Where do claims go?"],
           ["approval", "Is travel booked before the trip is approved reimbursed?"]],
}


def _query(qid: str, text: str) -> dict:
    record = {"_id": qid, "text": text}
    if qid in SUB_QUESTIONS:
        record["metadata"] = {"sub_questions": SUB_QUESTIONS[qid]}
    return record


def packets() -> list[dict]:
    """What a system of the usual kind sent: it fills q1's packet with long off-topic passages,
    keeps a stale version's text under the new id (q2), cuts a passage to fit (q3), sends the
    expired fee (q5) and a conclusion without the exception next to it (q7)."""
    text = {p["_id"]: p["text"] for p in corpus()}
    return [
        {"qid": "q1", "docids": ["parking-v1", "card-v1"], "texts": [text["parking-v1"], text["card-v1"]]},
        {"qid": "q2", "docids": ["hours-v2"], "texts": [text["hours-v1"]]},            # another version's text
        {"qid": "q3", "docids": ["returns-v1"], "texts": [text["returns-v1"][:60] + "..."]},   # truncated
        {"qid": "q5", "docids": ["late-fee-2025"], "texts": [text["late-fee-2025"]]},   # the expired fee
        {"qid": "q7", "docids": ["A1", "F1"], "texts": [text["A1"], text["F1"]]},        # A1 without A2
    ]


def files() -> dict[str, str]:
    """File name (relative to the demo folder) -> its exact text."""
    def jsonl(rows):
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)

    run, qrels = [], ["query-id\tcorpus-id\tscore\n"]
    for qid, _text, ranking, needed in QUERIES:
        run += [f"{qid} Q0 {pid} {rank} {20 - rank / 2:.2f} demo\n" for rank, pid in enumerate(ranking, start=1)]
        qrels += [f"{qid}\t{pid}\t1\n" for pid in needed]
    return {"corpus.jsonl": jsonl(corpus()),
            "queries.jsonl": jsonl(_query(qid, text) for qid, text, _r, _n in QUERIES),
            "qrels/test.tsv": "".join(qrels),
            "run.trec": "".join(run),
            "packets.jsonl": jsonl(packets())}


def main() -> None:
    for name, text in files().items():
        path = os.path.join(HERE, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
