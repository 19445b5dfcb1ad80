"""Lesson 10, answer: an honest, inspectable answer stage.

The answer stage here is a template, not a model: it may only repeat quotes that
are in the packet, and every sentence that states something names the packet id
it came from. What the packet lacks, the answer says it lacks; where the packet
holds two disagreeing versions, the answer shows both and picks neither.

Two checks keep it honest. A citation check separates *presence* (the cited id
is in the packet) from *support* (the quoted words occur in the cited source's
own text): one can hold without the other. And an evaluation over a small query
set counts four outcomes apart, because a single accuracy figure lumps a wrong
record of the right source, a wrong source and a refusal together as "wrong".
"""

from __future__ import annotations

from collections import namedtuple

from modules.common.checks import sequence_of
from modules.context import (CANDIDATES, QUESTION, ContextRecord, Passage, check_passages, collapse_repeated_ids,
                             select_context)

__all__ = [
    "Facet", "Sentence", "Answer", "OUTCOMES",
    "matches", "assemble", "compose_answer", "check_citations", "is_grounded", "classify_outcome",
    "FACETS", "CONFLICT_CANDIDATES", "CORPUS", "SOURCE_TEXTS", "QUERIES", "DEFAULT_BUDGETS", "trace",
]

OUTCOMES = ("right", "wrong_record", "wrong_source", "no_answer")
OUTCOME_LABELS = {"right": "right source, right answer", "wrong_record": "right source, wrong record",
                  "wrong_source": "wrong source", "no_answer": "no answer (overflow or abstention)"}

# The three value types are immutable named tuples rather than frozen dataclasses:
# a dataclass builds its methods with exec() on every import, and this lesson's
# command must start within 1.3x of a bare interpreter.


class Facet(namedtuple("Facet", "name cue")):
    """One part of the question, and the phrase a passage must contain to answer it.

    Facets come from reading the question, not from evaluation labels: they say
    what is asked, never which passage is right.
    """

    __slots__ = ()

    def __new__(cls, name: str, cue: str):
        for field_name, value in (("name", name), ("cue", cue)):
            if not isinstance(value, str):
                raise TypeError(f"Facet.{field_name} must be a str, got {type(value).__name__} {value!r}")
            if not value.strip():
                raise ValueError(f"Facet.{field_name} must not be empty, got {value!r}")
        return super().__new__(cls, name, cue)


class Sentence(namedtuple("Sentence", "kind text quote cite", defaults=("", ""))):
    """One sentence of the answer.

    kind: "claim" (a packet quote), "disputed" (one side of a disagreement),
    "conflict" (says that sources disagree), "gap" (names a missing part) or
    "abstain". Only claim and disputed sentences carry a `quote` and a `cite`.
    """

    __slots__ = ()


class Answer(namedtuple("Answer", "status sentences missing disputed", defaults=((), ()))):
    """status: full, partial, conflict or abstain. missing: facet names the packet could
    not answer. disputed: facet names on which the packet disagrees with itself."""

    __slots__ = ()

    @property
    def text(self) -> str:
        return " ".join(s.text + (f" [{s.cite}]" if s.cite else "") for s in self.sentences)

    @property
    def cited_ids(self) -> tuple[str, ...]:
        return tuple(s.cite for s in self.sentences if s.cite)


def _facets(facets) -> tuple:
    found = sequence_of(facets, Facet, "facets")
    if not found:
        raise ValueError("facets must name at least one part of the question, got ()")
    return found


def matches(facet: Facet, passage: Passage) -> bool:
    """A passage answers a facet when its text contains the facet's cue (any case)."""
    return facet.cue.lower() in passage.text.lower()


# ---------------------------------------------------------------- assembly

def assemble(candidates, max_quote_chars: int, facets) -> ContextRecord:
    """Lesson 01's selector, plus one change for the answer stage's sake.

    select_context blocks a source seen with two version labels. When such a
    source answers a facet of the question, silently dropping it would let the
    answer claim the facet is simply missing. Instead its versions travel as one
    unit at the rank of the first one: all of them enter the packet, or none does.
    Other conflicting sources stay blocked. Without a relevant conflict the record
    is exactly lesson 01's.
    """
    facets = _facets(facets)
    record = select_context(candidates, max_quote_chars)   # validates, dedupes, finds conflicts
    passages = collapse_repeated_ids(check_passages(candidates))
    relevant = {p.source_id for p in passages
                if p.source_id in record.conflicts and any(matches(f, p) for f in facets)}
    if not relevant:
        return record
    dropped = set(record.duplicate_text_ids)
    units: dict[tuple, list[Passage]] = {}   # insertion order is rank order of each unit's first member
    for p in passages:
        if p.source_id in relevant:
            units.setdefault(("source", p.source_id), []).append(p)
        elif p.id not in dropped and p.source_id not in record.conflicts:
            units[("id", p.id)] = [p]
    packet, skipped, used = [], [], 0
    for unit in units.values():
        size = sum(len(p.text) for p in unit)
        if used + size <= record.max_quote_chars:
            packet.extend(unit)
            used += size
        else:
            skipped.extend(p.id for p in unit)
    return ContextRecord(tuple(packet), tuple(skipped), record.duplicate_text_ids, record.conflicts, used,
                         record.max_quote_chars)


# ---------------------------------------------------------------- the answer

def compose_answer(facets, packet) -> Answer:
    """Build the answer from packet quotes only, one facet at a time.

    No passage for a facet: a gap sentence names it. One wording: the quote,
    citing the first id that carries it. Two or more different wordings: a
    conflict sentence, then every wording with its source, and no single value.
    """
    facets, packet = _facets(facets), sequence_of(packet, Passage, "packet")
    sentences: list[Sentence] = []
    missing, disputed, answered = [], [], 0
    for facet in facets:
        by_text: dict[str, Passage] = {}
        for passage in packet:
            if matches(facet, passage) and passage.text not in by_text:
                by_text[passage.text] = passage
        found = list(by_text.values())
        if not found:
            missing.append(facet.name)
        elif len(found) == 1:
            answered += 1
            sentences.append(Sentence("claim", found[0].text, found[0].text, found[0].id))
        else:
            disputed.append(facet.name)
            ids = ", ".join(p.id for p in found)
            sentences.append(Sentence("conflict", f"The packet's sources disagree on {facet.name} ({ids}); "
                                                  f"no single value is given and the sources go to content review."))
            sentences.extend(Sentence("disputed", f"{p.source_id} version {p.version} says: {p.text}", p.text, p.id)
                             for p in found)
    if not answered and not disputed:
        return Answer("abstain", (Sentence("abstain", f"The packet holds nothing on {' or '.join(missing)}, "
                                                      f"so no answer is given."),), tuple(missing), ())
    sentences.extend(Sentence("gap", f"The packet holds nothing on {name}, so that part is not answered.")
                     for name in missing)
    status = "conflict" if disputed else ("partial" if missing else "full")
    return Answer(status, tuple(sentences), tuple(missing), tuple(disputed))


def check_citations(answer: Answer, packet_ids, source_texts) -> list[dict]:
    """Presence and support, checked apart for every sentence that cites an id.

    Present: the id is one of `packet_ids`. Supported: the sentence's quote
    occurs in `source_texts[id]`, the source's own text (an unknown id supports
    nothing). A citation can be present and unsupported, or the reverse.
    One dict per citing sentence: sentence (its position), cite, present, supported.
    """
    if not isinstance(answer, Answer):
        raise TypeError(f"answer must be an Answer, got {type(answer).__name__} {answer!r}")
    if not isinstance(source_texts, dict):
        raise TypeError(f"source_texts must be a dict of id -> text, got {type(source_texts).__name__}")
    packet = set(packet_ids)
    checks = []
    for index, sentence in enumerate(answer.sentences):
        if not sentence.cite:
            continue
        source = source_texts.get(sentence.cite)
        supported = bool(sentence.quote) and isinstance(source, str) and sentence.quote in source
        checks.append({"sentence": index, "cite": sentence.cite, "present": sentence.cite in packet,
                       "supported": supported})
    return checks


def is_grounded(answer: Answer, packet_ids, source_texts) -> bool:
    """Every stating sentence cites a present, supporting id; the rest state nothing."""
    for sentence in answer.sentences:
        if (sentence.kind in ("claim", "disputed")) != bool(sentence.cite and sentence.quote):
            return False
    return all(c["present"] and c["supported"] for c in check_citations(answer, packet_ids, source_texts))


def classify_outcome(answer: Answer, gold_id: str, corpus: dict) -> str:
    """One of OUTCOMES: what the answer's claims cite, compared with the evaluation label."""
    if not isinstance(answer, Answer):
        raise TypeError(f"answer must be an Answer, got {type(answer).__name__} {answer!r}")
    if not isinstance(corpus, dict) or gold_id not in corpus:
        raise ValueError(f"gold_id {gold_id!r} must be an id of the corpus")
    claims = [s.cite for s in answer.sentences if s.kind == "claim"]
    if answer.status in ("abstain", "conflict") or not claims:
        return "no_answer"
    gold_source = corpus[gold_id].source_id
    if gold_id in claims:
        return "right"
    if any(corpus[cite].source_id == gold_source for cite in claims if cite in corpus):
        return "wrong_record"
    return "wrong_source"


# ---------------------------------------------------------------- the fixture

FACETS = (Facet("opening hours", "opens at"), Facet("returns when closed", "return books"))

# Lesson 04's situation: a second *current* version of the hours with other hours.
# Its larger label proves nothing about which one was approved.
HOURS_V3 = Passage("hours-v3", "help-desk-hours", "3", "Help desk hours",
                   "The help desk opens at 9:00 on weekdays and at 11:00 on Saturdays; it is closed on Sundays.")
CONFLICT_CANDIDATES = CANDIDATES + (HOURS_V3,)

# Further records the query set below draws on.
HOURS_V1 = Passage("hours-v1", "help-desk-hours", "1", "Help desk hours (superseded)",
                   "The help desk opens at 9:30 on weekdays and is closed at weekends.")
CAFE_V1 = Passage("cafe-v1", "cafe-hours", "1", "Cafe hours", "The cafe opens at 7:45 on weekdays.")

CORPUS = {p.id: p for p in CONFLICT_CANDIDATES + (HOURS_V1, CAFE_V1)}
# The sources' own texts: what a citation's quote is checked against.
SOURCE_TEXTS = {pid: p.text for pid, p in CORPUS.items()}

DEFAULT_BUDGETS = (80, 120, 400)
CONFLICT_BUDGET = 400


_HOURS, _RETURNS = FACETS
# (id, question, facet, the retriever's ranking, max_quote_chars, gold id). The gold id
# is an evaluation label: the record that answers the query. The answer stage never sees it.
QUERIES = (
    ("q1", "When does the help desk open?", _HOURS, ("hours-v2", "wifi-v1"), 400, "hours-v2"),
    ("q2", "Where can books go when the desk is closed?", _RETURNS, ("returns-v1", "returns-faq", "card-v1"), 400,
     "returns-v1"),
    ("q3", "When does the help desk open? (stale index)", _HOURS, ("hours-v1", "wifi-v1"), 400, "hours-v2"),
    ("q4", "When does the help desk open? (similar source first)", _HOURS, ("cafe-v1", "hours-v2"), 120, "hours-v2"),
    ("q5", "Where can books go when the desk is closed? (small budget)", _RETURNS, ("returns-v1",), 80, "returns-v1"),
    ("q6", "When does the help desk open? (two current versions)", _HOURS, ("hours-v2", "hours-v3"), 400, "hours-v2"),
)


# ---------------------------------------------------------------- the trace

def _answer_record(answer: Answer, packet: ContextRecord) -> dict:
    ids = packet.packet_ids
    return {"max_quote_chars": packet.max_quote_chars, "packet_ids": list(ids),
            "used_quote_chars": packet.used_quote_chars, "status": answer.status, "missing": list(answer.missing),
            "disputed": list(answer.disputed),
            "sentences": [{"kind": s.kind, "text": s.text, "cite": s.cite} for s in answer.sentences],
            "citations": check_citations(answer, ids, SOURCE_TEXTS),
            "grounded": is_grounded(answer, ids, SOURCE_TEXTS), "answer": answer.text}


def _forged_citations(packet_ids) -> list[dict]:
    """An honest sentence, one citing an id the packet lacks, one quoting words its source never said."""
    hours, returns = SOURCE_TEXTS["hours-v2"], SOURCE_TEXTS["returns-v1"]
    cases = ("honest quote", "cites an id the packet lacks", "quote its source never said")
    forged = Answer("full", (Sentence("claim", returns, returns, "returns-v1"), Sentence("claim", hours, hours, "hours-v2"),
                             Sentence("claim", "", returns.replace("north", "south"), "returns-v1")))
    checks = check_citations(forged, packet_ids, SOURCE_TEXTS)
    return [{"case": case, **check} for case, check in zip(cases, checks)]


def _evaluate(queries) -> dict:
    rows, counts = [], dict.fromkeys(OUTCOMES, 0)
    for qid, question, facet, candidate_ids, budget, gold_id in queries:
        packet = assemble([CORPUS[pid] for pid in candidate_ids], budget, (facet,))
        answer = compose_answer((facet,), packet.packet)
        outcome = classify_outcome(answer, gold_id, CORPUS)
        counts[outcome] += 1
        reason = ""
        if outcome == "no_answer" and answer.status == "conflict":
            reason = "abstention: conflict"
        elif outcome == "no_answer":
            overflow = any(matches(facet, CORPUS[pid]) for pid in packet.budget_skipped_ids)
            reason = "overflow" if overflow else "abstention: nothing on it"
        checks = check_citations(answer, packet.packet_ids, SOURCE_TEXTS)
        rows.append({"query": qid, "question": question, "max_quote_chars": budget,
                     "packet_ids": list(packet.packet_ids), "cited": list(answer.cited_ids), "gold_id": gold_id,
                     "citations_pass": bool(checks) and all(c["present"] and c["supported"] for c in checks),
                     "outcome": outcome, "reason": reason})
    return {"queries": rows, "counts": counts, "accuracy": f"{counts['right']}/{len(rows)}",
            "citations_pass": f"{sum(r['citations_pass'] for r in rows)}/{len(rows)}"}


def trace() -> dict:
    """The answer stage over lesson 01's budgets, one version conflict, forged citations and a query set."""
    runs = []
    for budget in DEFAULT_BUDGETS:
        packet = assemble(CANDIDATES, budget, FACETS)
        runs.append(_answer_record(compose_answer(FACETS, packet.packet), packet))
    packet = assemble(CONFLICT_CANDIDATES, CONFLICT_BUDGET, FACETS)
    conflict = _answer_record(compose_answer(FACETS, packet.packet), packet)
    conflict["added"] = {"id": HOURS_V3.id, "source_id": HOURS_V3.source_id, "version": HOURS_V3.version}
    conflict["lesson01_conflicts"] = {k: list(v) for k, v in packet.conflicts.items()}
    return {"lesson": "answer", "question": QUESTION, "facets": [{"name": f.name, "cue": f.cue} for f in FACETS],
            "runs": runs, "conflict": conflict, "citation_check": _forged_citations(runs[1]["packet_ids"]),
            "outcomes": _evaluate(QUERIES), "outcome_labels": dict(OUTCOME_LABELS)}


def _ids(ids) -> str:
    return ", ".join(ids) or "-"


def view(record: dict) -> list[dict]:
    c, o, labels = record["conflict"], record["outcomes"], record["outcome_labels"]
    blocks = [
        {"heading": "Lesson 10 - answer: an honest, inspectable answer stage"},
        {"text": "Question: " + record["question"] + "\nFacets, read from the question (not labels): "
                 + "; ".join(f"{f['name']} (a passage containing {f['cue']!r})" for f in record["facets"])},
        {"table": {"title": "The template answer over lesson 01's packets",
                   "columns": ["max_quote_chars", "packet", "status", "missing", "cited", "grounded"],
                   "rows": [[r["max_quote_chars"], _ids(r["packet_ids"]), r["status"], _ids(r["missing"]),
                             _ids([x["cite"] for x in r["citations"]]), r["grounded"]] for r in record["runs"]]}},
    ]
    blocks += [{"text": f"At {r['max_quote_chars']} ({r['status']}): {r['answer']}"} for r in record["runs"]]
    blocks += [
        {"heading": "A version conflict: present both, choose neither"},
        {"text": f"Lesson 01's candidates plus {c['added']['id']} ({c['added']['source_id']} version "
                 f"{c['added']['version']}), at {c['max_quote_chars']} characters. select_context blocks "
                 + _ids(f"{k} (versions {', '.join(v)})" for k, v in c["lesson01_conflicts"].items())
                 + ". The answer stage lets the versions of the source it needs travel together: packet "
                 + _ids(c["packet_ids"]) + f" ({c['used_quote_chars']} chars)."},
        {"text": f"Answer ({c['status']}): {c['answer']}"},
        {"heading": "Citation check: presence is not support"},
        {"table": {"title": "One-sentence answers checked against the 120-character packet (returns-v1)",
                   "columns": ["case", "cites", "present in packet", "quote in the source"],
                   "rows": [[r["case"], r["cite"], r["present"], r["supported"]] for r in record["citation_check"]]}},
        {"heading": "Four outcomes a single accuracy hides"},
        {"table": {"title": "A small query set (gold ids are evaluation labels, unseen by the answer stage)",
                   "columns": ["query", "budget", "packet", "cited", "gold", "citations ok", "outcome"],
                   "rows": [[q["query"], q["max_quote_chars"], _ids(q["packet_ids"]), _ids(q["cited"]), q["gold_id"],
                             q["citations_pass"], q["outcome"] + (q["reason"] and f" ({q['reason']})")]
                            for q in o["queries"]]}},
        {"table": {"title": "Counted apart", "columns": ["outcome", "queries"],
                   "rows": [[labels[k], v] for k, v in o["counts"].items()]}},
        {"text": f"Accuracy alone: {o['accuracy']}, and citation checks pass on {o['citations_pass']}. The "
                 "stale record of the right source (q3) and the similar wrong source (q4) are quoted faithfully and "
                 "still answer wrongly; q5 (overflow) and q6 (conflict) refuse for different reasons. Each needs a "
                 "different fix, which one number cannot say."},
    ]
    return blocks
