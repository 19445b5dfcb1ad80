"""Grader for lesson 10, answer. Run: python3 -B methods.py check answer"""

from labtools.grading.harness import manifest_tasks, call_shown, expect, expect_call, expect_choice, expect_true, function, load, Shown
from modules.answer import CORPUS, FACETS, QUERIES, SOURCE_TEXTS, Answer, Facet, Sentence, run_query
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


def _expect_only_packet_quotes(answer, packet, shown):
    texts = {p.id: p.text for p in packet}
    for sentence in answer.sentences:
        if sentence.kind in ("claim", "disputed"):
            expect_true(sentence.cite in texts,
                        f"called {shown}\n  a {sentence.kind} sentence cites {sentence.cite!r}, which is not in the "
                        f"packet {sorted(texts)}: the answer may only use what it was handed")
            expect_true(sentence.quote == texts[sentence.cite],
                        f"called {shown}\n  the sentence citing {sentence.cite!r} quotes {sentence.quote!r}\n"
                        f"  expected the passage's own text {texts[sentence.cite]!r}: a template answer repeats "
                        f"its quote word for word, so the citation check can verify it")
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


def test_task3_lesson_query_set_counts():
    fn = function(load(LESSON), "classify_outcome")
    counts = {}
    for query in QUERIES:
        _packet_record, composed, _size, _fits = run_query(query)
        qid, gold_id = query[0], query[-1]
        got, _shown = call_shown(fn, Shown(f"<{qid}'s answer>", composed), gold_id, Shown("CORPUS", CORPUS))
        counts[got] = counts.get(got, 0) + 1
    expect(counts, {"right": 2, "wrong_record": 1, "wrong_source": 1, "no_answer": 4},
           "classify_outcome over the lesson's eight queries -> counts",
           why="q1 q2 right, q3 a stale record, q4 the cafe; q5 (budget skip), q6 (conflict), q7 (window "
               "overflow) and q8 (missing facet) are no answer")


# ---------------------------------------------------------------- Tasks 4 and 5

def _quiz(name, want, task):
    expect_choice(LESSON, name, want, task, "Reread the lesson's part on it")


def test_task4_citation_quiz():
    _quiz("CITATION_QUIZ", "c", 4)


def test_task5_conflict_quiz():
    _quiz("CONFLICT_QUIZ", "b", 5)


# ---------------------------------------------------------------- Task 6

def _cause(fn, answer, skipped, fits, want, why, label):
    # fits is passed by position and shown by name: a bare True or False would not say what it means.
    expect_call(fn, Shown(f"<{label}>", answer), _ids(tuple(skipped)), Shown("FACETS", FACETS),
                Shown(f"fits_window={fits}", fits), want=want, why=why)


ABSTAIN_BOTH = Answer("abstain", (Sentence("abstain", "Nothing on opening hours or book returns."),),
                      ("opening hours", "book returns"))
ABSTAIN_RETURNS = Answer("abstain", (Sentence("abstain", "Nothing on book returns."),), ("book returns",))


def test_task6_a_budget_skip_is_not_an_overflow():
    fn = function(load(LESSON), "no_answer_cause")
    _cause(fn, ABSTAIN_RETURNS, [BY_ID["returns-v1"]], True, "budget skip",
           "q5: the request fitted its window; returns-v1 was skipped by the quote budget and it covers the "
           "missing book returns", "q5's abstention")
    _cause(fn, ABSTAIN_RETURNS, [BY_ID["returns-v1"]], False, "window overflow",
           "when the request does not fit its window no answer stage ran: that decides first",
           "an abstention whose request overflowed")


def test_task6_missing_facet_when_nothing_skipped_covers_it():
    fn = function(load(LESSON), "no_answer_cause")
    _cause(fn, ABSTAIN_RETURNS, [], True, "missing facet", "nothing was skipped: nothing retrieved covers it",
           "q8's abstention")
    _cause(fn, ABSTAIN_RETURNS, [BY_ID["hours-v2"], BY_ID["parking-v1"]], True, "missing facet",
           "hours-v2 and parking-v1 were skipped, but neither covers book returns (the missing facet)",
           "an abstention on book returns")
    _cause(fn, ABSTAIN_RETURNS, [BY_ID["hours-v2"]], True, "missing facet",
           "hours-v2 covers opening hours, which is not missing here: only the missing facets count",
           "an abstention missing only book returns")
    _cause(fn, ABSTAIN_BOTH, [BY_ID["hours-v2"]], True, "budget skip",
           "opening hours is missing and the skipped hours-v2 covers it", "an abstention missing both facets")


def test_task6_conflict_before_budget():
    fn = function(load(LESSON), "no_answer_cause")
    conflict = Answer("conflict", (Sentence("conflict", "The sources disagree on opening hours."),
                                   Sentence("disputed", "v2 says", CORPUS["hours-v2"].text, "hours-v2"),
                                   Sentence("disputed", "v1 says", CORPUS["hours-v1"].text, "hours-v1")),
                      ("book returns",), ("opening hours",))
    _cause(fn, conflict, [BY_ID["returns-v1"]], True, "conflict",
           "the status is conflict: the packet disagrees with itself, whatever else was skipped",
           "a conflict answer")
    _cause(fn, conflict, [], False, "window overflow", "an overflowing request decides first", "a conflict answer")


def test_task6_the_lesson_query_set():
    fn = function(load(LESSON), "no_answer_cause")
    from modules.common.facets import declared_facets
    found = []
    for query in QUERIES:
        packet, composed, _size, fits = run_query(query)
        if composed.status not in ("abstain", "conflict"):
            continue
        skipped = tuple(CORPUS[i] for i in packet.budget_skipped_ids)
        facets = declared_facets((query[1],))
        got, _shown = call_shown(fn, Shown(f"<{query[0]}'s answer>", composed), _ids(skipped),
                                 Shown(f"<{query[0]}'s facets>", facets), Shown(f"fits_window={fits}", fits))
        found.append((query[0], got))
    expect(found, [("q5", "budget skip"), ("q6", "conflict"), ("q7", "window overflow"), ("q8", "missing facet")],
           "no_answer_cause over the lesson's no-answers",
           why="four no-answers, four causes: each needs its own fix")


def test_task2_normalises_before_matching():
    fn = function(load(LESSON), "compose_answer")
    import unicodedata
    text = unicodedata.normalize("NFD", "The café beside the help desk opens at 7:45.")
    facet = Facet("cafe hours", unicodedata.normalize("NFC", "When does the café open?"))
    packet = (Passage("cafe-nfd", "cafe", "1", "Cafe", text),)
    answer, shown = _compose(fn, (facet,), packet, "an NFD passage, an NFC sub-question")
    expect(answer.status, "full", shown + " -> status",
           why="covers() reads both texts in one Unicode form: 'café' written two ways is one word")
