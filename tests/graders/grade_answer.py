"""Grader for lesson 10, answer. Run: python3 -B methods.py check answer"""

import re

from labtools.grading.harness import manifest_tasks, call_shown, constant, expect, expect_call, expect_true, function, load, Shown
from modules.answer import (CORPUS, FACETS, QUERIES, SOURCE_TEXTS, Answer, Facet, Sentence, compose_answer, covers,
                            run_query)
from modules.common.facets import declared_facets
from modules.context import CANDIDATES, Passage, select_context

LESSON = "answer"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

BY_ID = {p.id: p for p in CANDIDATES}
HOURS, RETURNS = FACETS


def _packet(budget: int, candidates=CANDIDATES) -> tuple:
    return select_context(candidates, budget).packet


def _ids(passages) -> Shown:
    return Shown("[" + ", ".join(p.id for p in passages) + "]", passages)


# ---------------------------------------------------------------- Task 1

def _cite(fn, cite, quote, packet_ids, want, why):
    expect_call(fn, cite, quote, packet_ids, Shown("SOURCE_TEXTS from modules.answer", SOURCE_TEXTS), want=want,
                why=why)


def test_task1_present_and_supported():
    fn = function(load(LESSON), "check_citation")
    _cite(fn, "returns-v1", BY_ID["returns-v1"].text, ["returns-v1"], (True, True),
          "the id is in the packet and the quote is the source's own text; return a tuple (present, supported)")
    _cite(fn, "returns-v1", "drop box beside the north entrance", ["returns-v1"], (True, True),
          "a quote may be part of the source text, as long as it occurs word for word")


def test_task1_id_outside_the_packet():
    fn = function(load(LESSON), "check_citation")
    _cite(fn, "hours-v2", BY_ID["hours-v2"].text, ["returns-v1"], (False, True),
          "at 120 characters the packet holds only returns-v1: the quote is true to hours-v2, "
          "but hours-v2 was never handed to the answer stage, so the citation is not present")
    _cite(fn, "returns", BY_ID["returns-v1"].text, ["returns-v1"], (False, False),
          "'returns' is not an id in the packet (a part of an id does not count), and no source is called 'returns'")


def test_task1_quote_not_in_the_cited_source():
    fn = function(load(LESSON), "check_citation")
    altered = BY_ID["returns-v1"].text.replace("north", "south")
    _cite(fn, "returns-v1", altered, ["returns-v1"], (True, False),
          "the id is present, but its source says 'north entrance': presence is not support")
    _cite(fn, "returns-v1", BY_ID["hours-v2"].text, ["returns-v1", "hours-v2"], (True, False),
          "the quote is true to hours-v2, but the sentence cites returns-v1, whose text does not contain it")
    _cite(fn, "returns-v1", "Drop Box beside the North entrance", ["returns-v1"], (True, False),
          "the source writes 'drop box beside the north entrance': a quote keeps its source's case exactly")
    _cite(fn, "returns-v1", "drop box  beside the north entrance", ["returns-v1"], (True, False),
          "two spaces where the source has one: a quote is the source's own characters, spacing included")


def test_task1_unknown_id_and_empty_quote():
    fn = function(load(LESSON), "check_citation")
    _cite(fn, "ghost-v9", "anything", ["ghost-v9"], (True, False),
          "an id no source text is known for supports nothing; return False instead of raising")
    _cite(fn, "returns-v1", "", ["returns-v1"], (True, False),
          "an empty quote is in every text and so supports nothing")


# ---------------------------------------------------------------- Task 2

def _compose(fn, facets, packet, label):
    answer, shown = call_shown(fn, Shown(f"<{len(facets)} facet(s)>", facets), _ids(packet))
    shown += f"  [{label}]"
    expect_true(isinstance(answer, Answer), f"called {shown}\n  got a {type(answer).__name__}\n  expected: an Answer")
    return answer, shown


def _sentences(text: str) -> list:
    return re.split(r"(?<=[.!?])\s+", text)


def _expect_only_packet_quotes(answer, packet, shown):
    texts = {p.id: p.text for p in packet}
    for sentence in answer.sentences:
        if sentence.kind in ("claim", "disputed"):
            expect_true(sentence.cite in texts,
                        f"called {shown}\n  a {sentence.kind} sentence cites {sentence.cite!r}, which is not in the "
                        f"packet {sorted(texts)}: the answer may only use what it was handed")
            expect_true(sentence.quote in _sentences(texts[sentence.cite]),
                        f"called {shown}\n  the sentence citing {sentence.cite!r} quotes {sentence.quote!r}\n"
                        f"  expected one whole sentence of that passage, word for word (its sentences: "
                        f"{_sentences(texts[sentence.cite])!r}), so the citation check can verify it")
        else:
            expect_true(not sentence.cite and not sentence.quote,
                        f"called {shown}\n  a {sentence.kind!r} sentence carries cite={sentence.cite!r} "
                        f"quote={sentence.quote!r}; only claim and disputed sentences quote and cite")


def _kinds(answer):
    return [(s.kind, s.cite) for s in answer.sentences]


def test_task2_full_answer_at_400():
    fn = function(load(LESSON), "compose_answer")
    packet = _packet(400)
    answer, shown = _compose(fn, FACETS, packet, "lesson 01's packet at 400")
    expect(answer.status, "full", shown + " -> status", why="both facets have exactly one passage in the packet")
    expect(_kinds(answer), [("claim", "hours-v2"), ("claim", "returns-v1")], shown + " -> (kind, cite) per sentence",
           why="one claim per facet, in facet order; wifi-v1 and card-v1 answer nothing and are not quoted")
    expect(answer.missing, (), shown + " -> missing")
    _expect_only_packet_quotes(answer, packet, shown)


def test_task2_partial_answer_names_the_missing_part():
    fn = function(load(LESSON), "compose_answer")
    packet = _packet(120)
    answer, shown = _compose(fn, FACETS, packet, "lesson 01's packet at 120")
    expect(answer.status, "partial", shown + " -> status",
           why="the hours did not fit: an answer that calls itself full would hide the missing part")
    expect(answer.missing, ("opening hours",), shown + " -> missing")
    _expect_only_packet_quotes(answer, packet, shown)
    claims = [s.cite for s in answer.sentences if s.kind == "claim"]
    expect(claims, ["returns-v1"], shown + " -> ids cited by claims",
           why="the returns part is answered from returns-v1; nothing may be said about the hours")
    gaps = [s.text for s in answer.sentences if s.kind == "gap"]
    expect_true(len(gaps) == 1 and "opening hours" in gaps[0],
                f"called {shown}\n  gap sentences: {gaps}\n  expected one gap sentence that names 'opening hours', "
                f"so the reader knows which part is missing")
    expect(_kinds(answer), [("claim", "returns-v1"), ("gap", "")], shown + " -> (kind, cite) per sentence",
           why="the hours facet comes first in the question, but its gap sentence comes after every claim: what "
               "is known first, then what is missing")


def test_task2_abstains_when_nothing_answers():
    fn = function(load(LESSON), "compose_answer")
    packet = _packet(80)
    answer, shown = _compose(fn, FACETS, packet, "lesson 01's packet at 80")
    expect(answer.status, "abstain", shown + " -> status", why="neither facet has a passage in the packet")
    expect(answer.missing, ("opening hours", "book returns"), shown + " -> missing")
    expect([s.kind for s in answer.sentences], ["abstain"], shown + " -> sentence kinds",
           why="one abstain sentence and nothing else: wifi-v1 and card-v1 answer nothing")
    text = answer.sentences[0].text
    expect_true("opening hours" in text and "book returns" in text,
                f"called {shown}\n  the abstain sentence is {text!r}\n  expected it to name both missing facets")
    _expect_only_packet_quotes(answer, packet, shown)


def test_task2_conflict_presents_both_and_picks_neither():
    fn = function(load(LESSON), "compose_answer")
    packet = (BY_ID["returns-v1"], CORPUS["hours-v2"], CORPUS["leaflet-v1"], BY_ID["wifi-v1"])
    answer, shown = _compose(fn, FACETS, packet, "two sources that disagree on the hours")
    expect(answer.status, "conflict", shown + " -> status",
           why="8:30 and 9:00 cannot both be the opening time, and nothing in the packet says which is right")
    expect(answer.disputed, ("opening hours",), shown + " -> disputed")
    kinds = _kinds(answer)
    hours_claims = [c for k, c in kinds if k == "claim" and c.startswith("hours")]
    expect_true(not hours_claims,
                f"called {shown}\n  sentences: {kinds}\n  a claim cites {hours_claims}: that picks one of two "
                f"disagreeing versions. Present every version as a 'disputed' sentence instead")
    expect(kinds, [("conflict", ""), ("disputed", "hours-v2"), ("disputed", "leaflet-v1"), ("claim", "returns-v1")],
           shown + " -> (kind, cite) per sentence",
           why="the conflict sentence, then each version with its source in packet order, then the returns claim")
    for sentence in answer.sentences:
        if sentence.kind == "disputed":
            passage = CORPUS[sentence.cite]
            expect_true(passage.source_id in sentence.text and passage.version in sentence.text,
                        f"called {shown}\n  disputed sentence {sentence.text!r}\n  expected it to name its source "
                        f"{passage.source_id!r} and version {passage.version!r}")
    _expect_only_packet_quotes(answer, packet, shown)


def test_task2_quotes_only_the_sentence_that_answers():
    # The lab's compose_answer quotes whole passages; the task's quotes the answering sentence.
    fn = function(load(LESSON), "compose_answer")
    leaflet = CORPUS["leaflet-v1"]
    answer, shown = _compose(fn, (HOURS,), (leaflet,), "leaflet-v1: 'Welcome! The help desk opens at 9:00 ...'")
    expect([(s.kind, s.quote, s.cite) for s in answer.sentences],
           [("claim", "The help desk opens at 9:00 on weekdays.", "leaflet-v1")], shown + " -> (kind, quote, cite)",
           why="'Welcome!' answers nothing: quote the first sentence that covers the facet, and only it")
    notice = Passage("notice-v1", "notices", "1", "Notice",
                     "Books are due back in three weeks. The help desk opens at 9:00 on weekdays.")
    answer, shown = _compose(fn, (HOURS,), (leaflet, notice), "leaflet-v1 and a notice whose hours sentence is "
                                                              "the same words")
    expect(_kinds(answer), [("claim", "leaflet-v1")], shown + " -> (kind, cite) per sentence",
           why="the two answering sentences are the same words: they agree, whatever else each passage says")
    expect(answer.status, "full", shown + " -> status")
    twice = Passage("week-v1", "week-hours", "1", "Week",
                    "The help desk opens at 9:00 on weekdays. On Saturdays the help desk opens at 11:00.")
    answer, shown = _compose(fn, (HOURS,), (twice,), "a passage with two sentences that cover the hours")
    expect([(s.kind, s.quote) for s in answer.sentences], [("claim", "The help desk opens at 9:00 on weekdays.")],
           shown + " -> (kind, quote)", why="the quote is the FIRST sentence that covers the facet")
    spread = Passage("desk-v1", "desk-guide", "1", "Desk", "The help desk is in the main hall. It opens at 9:00.")
    answer, shown = _compose(fn, (HOURS,), (spread,), "a passage whose hours terms are spread over two sentences")
    expect(answer.status, "abstain", shown + " -> status",
           why="no single sentence says when the help desk opens ('help desk' in one, 'opens' in the next), so no "
               "sentence can be quoted as the answer")
    _expect_only_packet_quotes(answer, (spread,), shown)
    decimal = Passage("desk-v2", "desk-hours", "1", "Desk", "From May, the help desk opens at 8.30 on weekdays.")
    answer, shown = _compose(fn, (HOURS,), (decimal,), "a passage that writes the time as 8.30")
    expect([(s.kind, s.quote) for s in answer.sentences],
           [("claim", "From May, the help desk opens at 8.30 on weekdays.")], shown + " -> (kind, quote)",
           why="a sentence ends at '.', '!' or '?' FOLLOWED BY WHITESPACE: the '.' in 8.30 ends nothing")


def test_task2_identical_copies_are_not_a_conflict():
    fn = function(load(LESSON), "compose_answer")
    packet = (BY_ID["returns-v1"], BY_ID["returns-faq"], BY_ID["hours-v2"])
    answer, shown = _compose(fn, FACETS, packet, "returns-v1 and its word-for-word copy returns-faq")
    expect(answer.status, "full", shown + " -> status", why="two ids with the same words do not disagree")
    expect(_kinds(answer), [("claim", "hours-v2"), ("claim", "returns-v1")], shown + " -> (kind, cite) per sentence",
           why="the first passage of each distinct text is quoted once")


def test_task2_uses_the_packet_it_is_given():
    fn = function(load(LESSON), "compose_answer")
    other = Passage("hours-x", "other-hours", "1", "Other", "The help desk opens at 6:00 on weekdays.")
    packet = (other,)
    answer, shown = _compose(fn, FACETS, packet, "an invented hours passage")
    expect(_kinds(answer), [("claim", "hours-x"), ("gap", "")], shown + " -> (kind, cite) per sentence",
           why="the answer quotes whatever the packet holds, and says that the returns part is missing")
    expect(answer.status, "partial", shown + " -> status")
    _expect_only_packet_quotes(answer, packet, shown)
    one = (Facet("card price", "How much does a replacement library card cost?"),)
    answer, shown = _compose(fn, one, (BY_ID["card-v1"], BY_ID["wifi-v1"]), "one facet: card price")
    expect(_kinds(answer), [("claim", "card-v1")], shown + " -> (kind, cite) per sentence")
    expect(answer.status, "full", shown + " -> status")


# ---------------------------------------------------------------- Task 3

def _claim(pid):
    text = CORPUS[pid].text
    return Sentence("claim", text, text, pid)


def _outcome(fn, answer, gold, want, why, label):
    expect_call(fn, Shown(f"<{label}>", answer), gold, Shown("CORPUS", CORPUS), want=want, why=why)


def test_task3_right_wrong_record_wrong_source():
    fn = function(load(LESSON), "classify_outcome")
    _outcome(fn, Answer("full", (_claim("hours-v2"),)), "hours-v2", "right", "the claim cites the gold record",
             "a full answer citing hours-v2")
    _outcome(fn, Answer("full", (_claim("hours-v1"),)), "hours-v2", "wrong_record",
             "hours-v1 is the right source (help-desk-hours) but a superseded record", "a full answer citing hours-v1")
    _outcome(fn, Answer("full", (_claim("cafe-v1"),)), "hours-v2", "wrong_source",
             "cafe-v1 belongs to cafe-hours, not to help-desk-hours", "a full answer citing cafe-v1")
    gap = Sentence("gap", "The packet holds nothing on opening hours.")
    _outcome(fn, Answer("partial", (_claim("returns-v1"), gap)), "hours-v2", "wrong_source",
             "the only claim cites returns-policy, another source than the gold record's",
             "a partial answer citing returns-v1")


def test_task3_refusals_are_no_answer():
    fn = function(load(LESSON), "classify_outcome")
    _outcome(fn, Answer("abstain", (Sentence("abstain", "Nothing on opening hours."),)), "hours-v2", "no_answer",
             "an abstention states nothing", "an abstention")
    conflict = Answer("conflict", (Sentence("conflict", "The sources disagree."),
                                   Sentence("disputed", "v2 says", CORPUS["hours-v2"].text, "hours-v2"),
                                   Sentence("disputed", "v1 says", CORPUS["hours-v1"].text, "hours-v1")),
                      (), ("opening hours",))
    _outcome(fn, conflict, "hours-v2", "no_answer",
             "a conflict answer shows both versions and gives no value: citing the gold record among the "
             "disputed ones is not answering", "a conflict answer citing hours-v2 and hours-v1")


def test_task3_status_decides_before_claims():
    fn = function(load(LESSON), "classify_outcome")
    conflict = Answer("conflict", (Sentence("conflict", "The sources disagree on opening hours."),
                                   Sentence("disputed", "v2 says", CORPUS["hours-v2"].text, "hours-v2"),
                                   Sentence("disputed", "v1 says", CORPUS["hours-v1"].text, "hours-v1"),
                                   _claim("returns-v1")), (), ("opening hours",))
    _outcome(fn, conflict, "hours-v2", "no_answer",
             "the status is 'conflict': the hours were not answered, even though another facet has a claim",
             "a conflict answer on the hours that also claims returns-v1")
    odd = Answer("abstain", (Sentence("abstain", "No answer."), _claim("hours-v2")), ("opening hours",), ())
    _outcome(fn, odd, "hours-v2", "no_answer", "the status says abstain; the outcome follows the status",
             "an answer whose status is 'abstain'")


def test_task3_any_claim_from_the_gold_source_is_a_wrong_record():
    fn = function(load(LESSON), "classify_outcome")
    mixed = Answer("full", (_claim("hours-v1"), _claim("cafe-v1")))
    _outcome(fn, mixed, "hours-v2", "wrong_record",
             "one claim cites hours-v1, a stale record of the gold record's source: that is enough for a wrong record",
             "a full answer citing hours-v1 and cafe-v1")
    _outcome(fn, Answer("full", (_claim("cafe-v1"), _claim("hours-v2"))), "hours-v2", "right",
             "the gold record is among the claims", "a full answer citing cafe-v1 and hours-v2")


def test_task3_a_claim_without_citation_is_counted_apart():
    # The lab's classify_outcome has no "uncited"; the task's counts such an answer on its own.
    fn = function(load(LESSON), "classify_outcome")
    text = CORPUS["hours-v2"].text
    _outcome(fn, Answer("full", (Sentence("claim", text, text, ""),)), "hours-v2", "uncited",
             "nobody can check a claim without a citation: count it apart, neither right nor wrong",
             "a full answer whose claim quotes hours-v2 and cites nothing")
    _outcome(fn, Answer("full", (_claim("hours-v2"), Sentence("claim", "Returns go to the box.", "", ""))), "hours-v2",
             "uncited", "one claim without a citation is enough: the answer states something nobody can check",
             "a full answer citing hours-v2, with a second claim that cites nothing")
    _outcome(fn, Answer("abstain", (Sentence("abstain", "No answer."), Sentence("claim", text, text, "")),
                        ("opening hours",)), "hours-v2", "no_answer",
             "the status decides first: an abstention is no answer", "an abstention with an uncited claim")


def test_task3_lesson_query_set_counts():
    fn = function(load(LESSON), "classify_outcome")
    counts = {}
    for query in QUERIES:
        _packet_record, composed, _size, _fits = run_query(query)
        qid, gold_id = query.id, query.gold_id
        got, _shown = call_shown(fn, Shown(f"<{qid}'s answer>", composed), gold_id, Shown("CORPUS", CORPUS))
        counts[got] = counts.get(got, 0) + 1
    expect(counts, {"right": 2, "wrong_record": 1, "wrong_source": 1, "no_answer": 4},
           "classify_outcome over the lesson's eight queries -> counts",
           why="q1 q2 right, q3 a stale record, q4 the cafe; q5 (budget skip), q6 (conflict), q7 (window "
               "overflow) and q8 (missing facet) are no answer")


# ---------------------------------------------------------------- Tasks 4 and 5

def _choice(name: str, best: str, task: int, misreads: dict) -> None:
    """A quiz constant: one letter, the best one; a wrong letter is told the misconception it holds."""
    answer = constant(load(LESSON), name)
    expect_true(answer in ("a", "b", "c", "d"), f"{name} is {answer!r}; set it to one letter: 'a', 'b', 'c' or 'd'")
    expect_true(answer == best, f"{name} = {answer!r} is not the best answer: {misreads.get(answer, '')} "
                                f"(hint: python3 -B methods.py hint {LESSON} {task})")


def test_task4_citation_quiz():
    _choice("CITATION_QUIZ", "d", 4, {
        "a": "q3's claim is backed by hours-v1 and is still wrong: a source behind a claim is not the right source.",
        "b": "the check compares the answer with its packet; it says nothing about how the retriever ranked.",
        "c": "the check still catches an id the packet lacks and a quote its source never said; keep it, and "
             "know what it cannot see."})


def test_task5_conflict_quiz():
    _choice("CONFLICT_QUIZ", "a", 5, {
        "b": "a larger version label does not prove which record was approved; hours-v1 was left marked current.",
        "c": "the conflict travels beside the evidence with both quotes: the hours are disputed, not missing.",
        "d": "wifi-v1 says nothing about returns: a facet no passage covers is named as missing, never filled."})


# ---------------------------------------------------------------- Task 6

def _causes(fn, answer, skipped, facets, fits, want, why, label):
    # fits is passed by position and shown by name: a bare True or False would not say what it means.
    expect_call(fn, Shown(f"<{label}>", answer), _ids(tuple(skipped)), Shown("FACETS", facets),
                Shown(f"fits_window={fits}", fits), want=want, why=why)


ABSTAIN_BOTH = Answer("abstain", (Sentence("abstain", "Nothing on opening hours or book returns."),),
                      ("opening hours", "book returns"))
ABSTAIN_RETURNS = Answer("abstain", (Sentence("abstain", "Nothing on book returns."),), ("book returns",))


def test_task6_a_partial_answer_names_the_cause_of_its_gap():
    # The lab's no_answer_cause refuses a partial answer; the task names its gap's cause.
    fn = function(load(LESSON), "cause_by_facet")
    record = select_context(CANDIDATES, 120)
    skipped = [BY_ID[i] for i in record.budget_skipped_ids]
    partial = compose_answer(FACETS, record.packet)
    _causes(fn, partial, skipped, FACETS, True, {"opening hours": "budget skip"},
            "at 120 the returns part is answered; hours-v2 was retrieved and skipped by the budget",
            "the partial answer at 120")
    full = compose_answer(FACETS, select_context(CANDIDATES, 400).packet)
    _causes(fn, full, [BY_ID["parking-v1"]], FACETS, True, {}, "every facet was answered: nothing to explain",
            "the full answer at 400")


def test_task6_a_conflict_beside_a_budget_skip():
    fn = function(load(LESSON), "cause_by_facet")
    conflict = Answer("conflict", (Sentence("conflict", "The sources disagree on opening hours."),
                                   Sentence("disputed", "v2 says", CORPUS["hours-v2"].text, "hours-v2"),
                                   Sentence("disputed", "v1 says", CORPUS["hours-v1"].text, "hours-v1")),
                      ("book returns",), ("opening hours",))
    _causes(fn, conflict, [BY_ID["returns-v1"]], FACETS, True, {"opening hours": "conflict", "book returns": "budget skip"},
            "two facets, two causes: the hours are disputed, the returns passage was skipped by the budget",
            "a conflict on the hours, the returns missing")
    _causes(fn, conflict, [], FACETS, True, {"opening hours": "conflict", "book returns": "missing facet"},
            "nothing skipped covers book returns: nothing retrieved does", "the same answer, nothing skipped")
    _causes(fn, conflict, [BY_ID["returns-v1"]], FACETS, False,
            {"opening hours": "window overflow", "book returns": "window overflow"},
            "an overflowing request reached no answer stage: that decides every facet", "the same, over its window")


def test_task6_only_the_missing_facets_count():
    fn = function(load(LESSON), "cause_by_facet")
    _causes(fn, ABSTAIN_RETURNS, [BY_ID["hours-v2"], BY_ID["parking-v1"]], (RETURNS,), True,
            {"book returns": "missing facet"},
            "hours-v2 and parking-v1 were skipped, but neither covers book returns", "an abstention on book returns")
    _causes(fn, ABSTAIN_BOTH, [BY_ID["hours-v2"]], FACETS, True,
            {"opening hours": "budget skip", "book returns": "missing facet"},
            "the skipped hours-v2 covers the hours; nothing skipped covers the returns", "an abstention on both facets")
    _causes(fn, ABSTAIN_RETURNS, [BY_ID["returns-v1"]], (HOURS, RETURNS), True, {"book returns": "budget skip"},
            "opening hours is not missing in this answer, so it gets no cause", "an abstention missing book returns")


def test_task6_the_lesson_query_set():
    fn = function(load(LESSON), "cause_by_facet")
    found = []
    for query in QUERIES:
        packet, composed, _size, fits = run_query(query)
        skipped = tuple(CORPUS[i] for i in packet.budget_skipped_ids)
        facets = declared_facets((query.sub_question,))
        got, _shown = call_shown(fn, Shown(f"<{query.id}'s answer>", composed), _ids(skipped),
                                 Shown(f"<{query.id}'s facets>", facets), Shown(f"fits_window={fits}", fits))
        found.append((query.id, got))
    expect(found, [("q1", {}), ("q2", {}), ("q3", {}), ("q4", {}), ("q5", {"book returns": "budget skip"}),
                   ("q6", {"opening hours": "conflict"}), ("q7", {"opening hours": "window overflow"}),
                   ("q8", {"book returns": "missing facet"})],
           "cause_by_facet over the lesson's eight queries",
           why="q1-q4 answer their facet (rightly or not); the four no-answers have four causes")


# ---------------------------------------------------------------- Task 7

def test_task7_smallest_full_budget_prediction():
    predicted = constant(load(LESSON), "SMALLEST_FULL_BUDGET")
    expect_true(isinstance(predicted, int) and not isinstance(predicted, bool),
                f"SMALLEST_FULL_BUDGET is {predicted!r}; set it to a whole number of characters, such as 250")
    want = next(b for b in range(1, 401) if compose_answer(FACETS, select_context(CANDIDATES, b).packet).status == "full")
    expect_true(predicted == want,
                f"SMALLEST_FULL_BUDGET = {predicted!r} is not the smallest max_quote_chars that gives a full answer. "
                "Which two passages must both fit, and how many characters does each take? "
                f"(hint: python3 -B methods.py hint {LESSON} 7)")


def test_task2_normalises_before_matching():
    fn = function(load(LESSON), "compose_answer")
    import unicodedata
    text = unicodedata.normalize("NFD", "The café beside the help desk opens at 7:45.")
    facet = Facet("cafe hours", unicodedata.normalize("NFC", "When does the café open?"))
    packet = (Passage("cafe-nfd", "cafe", "1", "Cafe", text),)
    answer, shown = _compose(fn, (facet,), packet, "an NFD passage, an NFC sub-question")
    expect(answer.status, "full", shown + " -> status",
           why="covers() reads both texts in one Unicode form: 'café' written two ways is one word")
