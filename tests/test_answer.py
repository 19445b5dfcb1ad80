"""Lesson 10's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import methods
from modules import answer
from modules.answer import (CONFLICT_CANDIDATES, CORPUS, FACETS, SOURCE_TEXTS, Answer, Facet, Sentence, assemble,
                            check_citations, classify_outcome, compose_answer, is_grounded)
from modules.context import CANDIDATES, Passage, select_context


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("answer", "--json").stdout)


def test_full_partial_abstain_over_lesson_01_budgets(record):
    rows = [(r["max_quote_chars"], r["status"], r["missing"], [c["cite"] for c in r["citations"]])
            for r in record["runs"]]
    assert rows == [
        (80, "abstain", ["opening hours", "returns when closed"], []),
        (120, "partial", ["opening hours"], ["returns-v1"]),
        (400, "full", [], ["hours-v2", "returns-v1"]),
    ]
    assert all(r["grounded"] for r in record["runs"])
    assert "nothing on opening hours" in record["runs"][1]["answer"]


def test_packets_are_lesson_01s_when_no_needed_source_conflicts():
    for budget in (80, 120, 400):
        assert assemble(CANDIDATES, budget, FACETS) == select_context(CANDIDATES, budget)


def test_every_stating_sentence_is_a_packet_quote_with_its_id():
    for budget in (80, 120, 400):
        packet = assemble(CANDIDATES, budget, FACETS).packet
        texts = {p.id: p.text for p in packet}
        for sentence in compose_answer(FACETS, packet).sentences:
            if sentence.kind in ("claim", "disputed"):
                assert sentence.quote == texts[sentence.cite]
            else:
                assert not sentence.cite and not sentence.quote


def test_conflict_presents_both_hours_and_picks_neither(record):
    c = record["conflict"]
    assert c["lesson01_conflicts"] == {"help-desk-hours": ["2", "3"], "printing-prices": ["1", "2"]}
    assert c["packet_ids"] == ["returns-v1", "hours-v2", "hours-v3", "wifi-v1", "card-v1"]
    assert c["used_quote_chars"] == 351 and c["status"] == "conflict" and c["disputed"] == ["opening hours"]
    kinds = [(s["kind"], s["cite"]) for s in c["sentences"]]
    assert kinds == [("conflict", ""), ("disputed", "hours-v2"), ("disputed", "hours-v3"), ("claim", "returns-v1")]
    assert "8:30" in c["answer"] and "9:00" in c["answer"] and c["grounded"]


def test_a_needed_conflict_enters_whole_or_not_at_all():
    for budget in range(0, 500, 7):
        ids = assemble(CONFLICT_CANDIDATES, budget, FACETS).packet_ids
        assert ("hours-v2" in ids) == ("hours-v3" in ids), budget
        assert "printing-v1" not in ids and "printing-v2" not in ids


def test_citation_check_separates_presence_from_support(record):
    rows = [(r["case"], r["cite"], r["present"], r["supported"]) for r in record["citation_check"]]
    assert rows == [("honest quote", "returns-v1", True, True),
                    ("cites an id the packet lacks", "hours-v2", False, True),
                    ("quote its source never said", "returns-v1", True, False)]


def test_grounded_rejects_outside_ids_and_unsupported_quotes():
    quote = CORPUS["hours-v2"].text
    outside = Answer("full", (Sentence("claim", quote, quote, "hours-v2"),))
    assert not is_grounded(outside, ["returns-v1"], SOURCE_TEXTS)
    assert is_grounded(outside, ["hours-v2"], SOURCE_TEXTS)
    altered = Answer("full", (Sentence("claim", "opens at 7:00", "opens at 7:00", "hours-v2"),))
    assert not is_grounded(altered, ["hours-v2"], SOURCE_TEXTS)
    uncited = Answer("full", (Sentence("claim", quote, quote, ""),))
    assert not is_grounded(uncited, ["hours-v2"], SOURCE_TEXTS)
    assert check_citations(outside, ["hours-v2"], {}) == [
        {"sentence": 0, "cite": "hours-v2", "present": True, "supported": False}]


def test_four_outcomes_counted_apart(record):
    o = record["outcomes"]
    assert o["counts"] == {"right": 2, "wrong_record": 1, "wrong_source": 1, "no_answer": 2}
    assert o["accuracy"] == "2/6" and o["citations_pass"] == "5/6"
    assert [(q["query"], q["outcome"], q["reason"]) for q in o["queries"]] == [
        ("q1", "right", ""), ("q2", "right", ""), ("q3", "wrong_record", ""), ("q4", "wrong_source", ""),
        ("q5", "no_answer", "overflow"), ("q6", "no_answer", "abstention: conflict")]
    # The wrong answers pass the citation check: presence and support are not correctness.
    assert [q["citations_pass"] for q in o["queries"]][2:4] == [True, True]


def test_the_command_prints_each_answer_and_the_outcomes():
    text = methods("answer").stdout.decode()
    for words in ("At 120 (partial)", "Answer (conflict)", "right source, wrong record", "Accuracy alone: 2/6"):
        assert words in text


@pytest.mark.parametrize("call, error, words", [
    (lambda: Facet("", "x"), ValueError, "Facet.name must not be empty, got ''"),
    (lambda: Facet("hours", 3), TypeError, "Facet.cue must be a str, got int 3"),
    (lambda: compose_answer([], CANDIDATES), ValueError, "facets must name at least one part"),
    (lambda: compose_answer(["hours"], CANDIDATES), TypeError, "facets[0] must be a Facet, got str 'hours'"),
    (lambda: compose_answer(FACETS, "hours-v2"), TypeError, "packet must be a sequence of Passage, got str"),
    (lambda: compose_answer(FACETS, [CANDIDATES[0], "x"]), TypeError, "packet[1] must be a Passage, got str 'x'"),
    (lambda: assemble(CANDIDATES, -1, FACETS), ValueError, "max_quote_chars must be >= 0, got -1"),
    (lambda: assemble(CANDIDATES, True, FACETS), TypeError, "max_quote_chars must be an int, got bool"),
    (lambda: check_citations("answer", [], SOURCE_TEXTS), TypeError, "answer must be an Answer, got str"),
    (lambda: check_citations(Answer("full", ()), [], [1]), TypeError, "source_texts must be a dict"),
    (lambda: classify_outcome(Answer("full", ()), "nope", CORPUS), ValueError, "gold_id 'nope' must be an id"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_solution_and_mechanism_agree():
    import importlib.util
    from helpers import ROOT
    spec = importlib.util.spec_from_file_location("solution_answer", ROOT / "solutions" / "answer.py")
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    packets = [assemble(CANDIDATES, b, FACETS).packet for b in (80, 120, 400)]
    packets.append(assemble(CONFLICT_CANDIDATES, 400, FACETS).packet)
    for packet in packets:
        mine, theirs = compose_answer(FACETS, packet), solution.compose_answer(FACETS, packet)
        assert (mine.status, mine.missing, mine.disputed) == (theirs.status, theirs.missing, theirs.disputed)
        assert [(s.kind, s.quote, s.cite) for s in mine.sentences] == [(s.kind, s.quote, s.cite) for s in theirs.sentences]
    extra = Passage("x", "s", "1", "t", "The help desk opens at 6:00.")
    for packet in ([extra], [extra, CORPUS["hours-v2"]]):
        assert compose_answer(FACETS, packet).status == solution.compose_answer(FACETS, packet).status
