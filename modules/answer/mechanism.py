"""Lesson 10, answer: an honest, inspectable answer stage.

The answer stage here is a template, not a model: it may only repeat quotes that
are in the packet, and every sentence that states something names the packet id
it came from. What the packet lacks, the answer says it lacks; where the packet
holds two disagreeing versions, the answer shows both and picks neither.

The question's facets are its declared sub-questions, matched to passages by the
facet model lesson 02's coverage objective uses (modules/common/facets.py): never
hand-picked phrases, never the evaluation labels.

Three checks keep it honest. A declared output schema (fields, types, a citation on
every sentence that states something) is checked by code before anything is shown.
A citation check separates *presence* (the cited id is in the packet) from *support*
(the quoted words occur in the cited source's own text). And an evaluation counts
four outcomes apart, naming every no-answer by its cause (window overflow, conflict,
budget skip, missing facet), because one accuracy figure lumps them all together as
"wrong". The trace and view are in modules/answer/trace.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.answer.schema import ANSWER_SCHEMA, KINDS, STATING, STATUSES, check_output, shown_answer
from modules.budget.window import SYSTEM_PROMPT, WORKED, request_fits
from modules.common.checks import sequence_of, short, text_of
from modules.common.facets import Facet, covers, declared_facets
from modules.common.units import lab_tokens
from modules.context.mechanism import (CANDIDATES, SUB_QUESTIONS, ContextRecord, Passage, VersionConflict,
                                       as_passage, check_ids, select_context)
from modules.versions.mechanism import COLLECTION, current_public

__all__ = [
    "Facet", "Sentence", "Answer", "OUTCOMES", "NO_ANSWER_CAUSES", "STATUSES", "KINDS", "ANSWER_SCHEMA",
    "covers", "compose_answer", "answer_output", "check_output", "shown_answer", "check_citations",
    "is_grounded", "classify_outcome", "no_answer_cause", "request_text", "run_query", "FACETS", "CONFLICT_CANDIDATES",
    "CORPUS", "SOURCE_TEXTS", "EvalQuery", "QUERIES", "DEFAULT_BUDGETS",
]

OUTCOMES = ("right", "wrong_record", "wrong_source", "no_answer")
# In the order they are decided: an overflowing request never reached the answer stage.
NO_ANSWER_CAUSES = ("window overflow", "conflict", "budget skip", "missing facet")


@dataclass(frozen=True)
class Sentence:
    """One sentence of the answer.

    kind: "claim" (a packet quote), "disputed" (one side of a disagreement),
    "conflict" (says that sources disagree), "gap" (names a missing part) or
    "abstain". Only claim and disputed sentences carry a `quote` and a `cite`.
    """

    kind: str
    text: str
    quote: str = ""
    cite: str = ""

    def __post_init__(self) -> None:
        for name in ("kind", "text", "quote", "cite"):
            text_of(getattr(self, name), f"Sentence.{name}")


@dataclass(frozen=True)
class Answer:
    """status: full, partial, conflict or abstain. missing: facet names the packet could
    not answer. disputed: facet names on which the packet disagrees with itself."""

    status: str
    sentences: tuple[Sentence, ...]
    missing: tuple[str, ...] = ()
    disputed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        text_of(self.status, "Answer.status")
        for name, kind in (("sentences", Sentence), ("missing", str), ("disputed", str)):
            if not isinstance(getattr(self, name), tuple):
                raise TypeError(f"Answer.{name} must be a tuple, got {type(getattr(self, name)).__name__}")
            sequence_of(getattr(self, name), kind, f"Answer.{name}")

    @property
    def text(self) -> str:
        return " ".join(s.text + (f" [{s.cite}]" if s.cite else "") for s in self.sentences)

    @property
    def cited_ids(self) -> tuple[str, ...]:
        return tuple(s.cite for s in self.sentences if s.cite)


def _facets(facets) -> tuple[Facet, ...]:
    found = sequence_of(facets, Facet, "facets")
    if not found:
        raise ValueError("facets must name at least one part of the question, got ()")
    return found


def _answer(answer: object) -> Answer:
    if not isinstance(answer, Answer):
        raise TypeError(f"answer must be an Answer, got {type(answer).__name__} {short(answer)}")
    return answer


# ---------------------------------------------------------------- assembly

def request_text(question: str, packet, conflicts=()) -> str:
    """The whole request as the answer stage would send it: system text, question, each
    quote in an evidence wrapper and each recorded conflict in a conflict wrapper (its
    quotes travel, marked unresolved, never as evidence). Lesson 02's rule: recount this,
    not an estimate."""
    quotes = [f'<evidence id="{p.id}">{p.text}</evidence>' for p in sequence_of(packet, Passage, "packet")]
    disputes = [f'<conflict source="{c.source_id}" state="{c.state}">'
                + "".join(f'<quote id="{i}" version="{v}">{q}</quote>' for i, v, q in zip(c.ids, c.versions, c.quotes))
                + "</conflict>" for c in sequence_of(conflicts, VersionConflict, "conflicts")]
    return "\n".join([SYSTEM_PROMPT, f"Question: {text_of(question, 'question')}", *quotes, *disputes])


# ---------------------------------------------------------------- the answer

def compose_answer(facets, packet, conflicts=()) -> Answer:
    """Build the answer from the packet only, one facet at a time.

    `packet` is the evidence; `conflicts` the packet's recorded version conflicts
    (ContextRecord.unresolved), whose quotes are never evidence. No passage for a
    facet: a gap sentence names it. One wording: the quote, citing the first id that
    carries it. Two or more different wordings, or a recorded conflict on the facet: a
    conflict sentence, then every wording with its id, and no single value.
    """
    facets, packet = _facets(facets), sequence_of(packet, Passage, "packet")
    conflicts = sequence_of(conflicts, VersionConflict, "conflicts")
    sentences: list[Sentence] = []
    missing, disputed, answered = [], [], 0
    for facet in facets:
        by_text: dict[str, tuple[str, str]] = {}   # text -> (id, who says it)
        for passage in packet:
            if covers(facet, passage.text) and passage.text not in by_text:
                by_text[passage.text] = (passage.id, f"{passage.source_id} version {passage.version}")
        recorded = [c for c in conflicts if any(covers(facet, quote) for quote in c.quotes)]
        for conflict in recorded:
            for cid, version, quote in zip(conflict.ids, conflict.versions, conflict.quotes):
                by_text.setdefault(quote, (cid, f"{conflict.source_id} version {version} ({conflict.state})"))
        if not by_text:
            missing.append(facet.name)
        elif len(by_text) == 1 and not recorded:
            answered += 1
            (text, (cid, _)), = by_text.items()
            sentences.append(Sentence(kind="claim", text=text, quote=text, cite=cid))
        else:
            disputed.append(facet.name)
            ids = ", ".join(cid for cid, _ in by_text.values())
            sentences.append(Sentence(kind="conflict", text=f"The packet's sources disagree on {facet.name} ({ids}); "
                                                       f"no single value is given and the sources go to content "
                                                       f"review."))
            sentences.extend(Sentence(kind="disputed", text=f"{who} says: {text}", quote=text, cite=cid)
                             for text, (cid, who) in by_text.items())
    if not answered and not disputed:
        nothing = Sentence(kind="abstain", text=f"The packet holds nothing on {' or '.join(missing)}, "
                                                f"so no answer is given.")
        return Answer(status="abstain", sentences=(nothing,), missing=tuple(missing))
    sentences.extend(Sentence(kind="gap", text=f"The packet holds nothing on {name}, so that part is not answered.")
                     for name in missing)
    status = "conflict" if disputed else ("partial" if missing else "full")
    return Answer(status=status, sentences=tuple(sentences), missing=tuple(missing), disputed=tuple(disputed))


# ---------------------------------------------------------------- output, checks and outcomes

def answer_output(answer: Answer) -> dict:
    """The answer as the JSON object the output schema describes (modules/answer/schema.py)."""
    answer = _answer(answer)
    return {"status": answer.status,
            "sentences": [{"kind": s.kind, "text": s.text, "quote": s.quote, "cite": s.cite}
                          for s in answer.sentences],
            "missing": list(answer.missing), "disputed": list(answer.disputed)}


def check_citations(answer: Answer, packet_ids, source_texts) -> list[dict]:
    """Presence and support, checked apart for every sentence that cites an id.

    Present: the id is one of `packet_ids` (a collection of ids; a str is refused, not
    read as its characters). Supported: the sentence's quote occurs in
    `source_texts[id]`, the source's own text (an unknown id supports nothing). A
    citation can be present and unsupported, or the reverse. One dict per citing
    sentence: sentence (its position), cite, present, supported.
    """
    answer = _answer(answer)
    packet = set(check_ids(packet_ids, "packet_ids"))
    if not isinstance(source_texts, dict):
        raise TypeError(f"source_texts must be a dict of id -> text, got {type(source_texts).__name__}")
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
    for sentence in _answer(answer).sentences:
        if (sentence.kind in STATING) != bool(sentence.cite and sentence.quote):
            return False
    return all(c["present"] and c["supported"] for c in check_citations(answer, packet_ids, source_texts))


def _corpus(corpus: object) -> dict:
    if not isinstance(corpus, dict):
        raise TypeError(f"corpus must be a dict of id -> Passage, got {type(corpus).__name__} {short(corpus)}")
    for key, value in corpus.items():
        if not isinstance(value, Passage):
            raise TypeError(f"corpus[{short(key)}] must be a Passage, got {type(value).__name__} {short(value)}")
    return corpus


def classify_outcome(answer: Answer, gold_id: str, corpus: dict) -> str:
    """One of OUTCOMES: what the answer's claims cite, compared with the evaluation label."""
    answer, corpus = _answer(answer), _corpus(corpus)
    if text_of(gold_id, "gold_id") not in corpus:
        raise ValueError(f"gold_id {short(gold_id)} must be an id of the corpus")
    claims = [s.cite for s in answer.sentences if s.kind == "claim"]
    if answer.status in ("abstain", "conflict") or not claims:
        return "no_answer"
    gold_source = corpus[gold_id].source_id
    if gold_id in claims:
        return "right"
    if any(corpus[cite].source_id == gold_source for cite in claims if cite in corpus):
        return "wrong_record"
    return "wrong_source"


def no_answer_cause(answer: Answer, skipped, facets, fits_window: bool = True) -> str:
    """One of NO_ANSWER_CAUSES, decided in that order, for an answer that gives no answer.

    window overflow: the request did not fit its window, so no answer stage ran;
    conflict: the packet disagrees with itself on a facet; budget skip: a passage the
    budget skipped (`skipped`) covers a missing facet; missing facet: nothing retrieved
    covers it. An abstention after a budget skip is not an overflow.
    """
    answer, facets = _answer(answer), _facets(facets)
    skipped = sequence_of(skipped, Passage, "skipped")
    if not isinstance(fits_window, bool):
        raise TypeError(f"fits_window must be a bool, got {type(fits_window).__name__} {short(fits_window)}")
    if not fits_window:
        return "window overflow"
    if answer.status == "conflict":
        return "conflict"
    if answer.status != "abstain" and any(s.kind == "claim" for s in answer.sentences):
        raise ValueError(f"answer gives an answer (status {answer.status!r} with a claim): only a no-answer "
                         f"has a cause")
    missing = [f for f in facets if f.name in answer.missing]
    if any(covers(f, p.text) for f in missing for p in skipped):
        return "budget skip"
    return "missing facet"


# ---------------------------------------------------------------- the fixture

# The question's declared sub-questions (lesson 01's fixture), read by the facet model.
FACETS = declared_facets(SUB_QUESTIONS)
_HOURS, _RETURNS = SUB_QUESTIONS

# Lesson 04's situation, exactly: its collection after the current/public filter, where the
# superseded hours-v1 was left marked current beside hours-v2.
CONFLICT_CANDIDATES = tuple(r.as_passage() for r in current_public(COLLECTION))

# Every help-desk record the query set below draws on (modules/helpdesk). The cafe passage
# holds the words of the hours sub-question (help, desk, open) although it is about another place.
CORPUS = {p.id: p for p in CONFLICT_CANDIDATES + (as_passage("cafe-v1"), as_passage("leaflet-v1"))}
# The sources' own texts: what a citation's quote is checked against.
SOURCE_TEXTS = {pid: p.text for pid, p in CORPUS.items()}

DEFAULT_BUDGETS = (80, 120, 400)
CONFLICT_BUDGET = 400
WINDOW, OUTPUT_RESERVE = WORKED["window"], WORKED["output_reserve"]   # lesson 02's test settings
SMALL_WINDOW = 240   # a smaller model's window, in lab tokens, with the same reserve

@dataclass(frozen=True)
class EvalQuery:
    """One query of the evaluation set: it asks one declared sub-question of lesson 01's
    question. The gold id is an evaluation label, the record that answers it; the answer
    stage never sees it."""

    id: str
    sub_question: tuple[str, str]   # (facet name, what it asks): one of lesson 01's SUB_QUESTIONS
    situation: str
    ranking: tuple[str, ...]        # the retriever's ranking, ids of CORPUS
    max_quote_chars: int
    window: int                     # the model's window, in lab tokens
    gold_id: str


QUERIES = (
    EvalQuery(id="q1", sub_question=_HOURS, situation="as in lesson 01", ranking=("hours-v2", "wifi-v1"),
              max_quote_chars=400, window=WINDOW, gold_id="hours-v2"),
    EvalQuery(id="q2", sub_question=_RETURNS, situation="a copy ranks second",
              ranking=("returns-v1", "returns-faq", "card-v1"), max_quote_chars=400, window=WINDOW,
              gold_id="returns-v1"),
    EvalQuery(id="q3", sub_question=_HOURS, situation="stale index", ranking=("hours-v1", "wifi-v1"),
              max_quote_chars=400, window=WINDOW, gold_id="hours-v2"),
    EvalQuery(id="q4", sub_question=_HOURS, situation="similar source first", ranking=("cafe-v1", "hours-v2"),
              max_quote_chars=120, window=WINDOW, gold_id="hours-v2"),
    EvalQuery(id="q5", sub_question=_RETURNS, situation="small quote budget", ranking=("returns-v1",),
              max_quote_chars=80, window=WINDOW, gold_id="returns-v1"),
    EvalQuery(id="q6", sub_question=_HOURS, situation="both versions current", ranking=("hours-v2", "hours-v1"),
              max_quote_chars=400, window=WINDOW, gold_id="hours-v2"),
    EvalQuery(id="q7", sub_question=_HOURS, situation="smaller window", ranking=("hours-v2", "parking-v1", "card-v1"),
              max_quote_chars=400, window=SMALL_WINDOW, gold_id="hours-v2"),
    EvalQuery(id="q8", sub_question=_RETURNS, situation="nothing retrieved", ranking=("wifi-v1", "card-v1"),
              max_quote_chars=400, window=WINDOW, gold_id="returns-v1"),
)


def run_query(query: EvalQuery) -> tuple[ContextRecord, Answer, int, bool]:
    """One query of QUERIES through the whole stage: (packet, answer, final input in lab
    tokens, fits the window). A request that overflows its window never reaches the answer
    stage; its answer is an abstention that says so."""
    name, asks = query.sub_question
    facets = declared_facets((query.sub_question,))
    packet = select_context([CORPUS[pid] for pid in query.ranking], query.max_quote_chars)
    final_input = lab_tokens(request_text(asks, packet.packet, packet.unresolved))
    fits = request_fits(final_input, OUTPUT_RESERVE, query.window)
    if not fits:
        overflow = Sentence(kind="abstain", text="The request does not fit its window; no answer was generated.")
        return packet, Answer(status="abstain", sentences=(overflow,), missing=(name,)), final_input, fits
    return packet, compose_answer(facets, packet.packet, packet.unresolved), final_input, fits
