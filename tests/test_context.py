"""Lesson 01's figures and contracts, asserted on the mechanism and on the command."""

import json
from fractions import Fraction

import pytest

from helpers import ROOT, methods
from modules.context import mechanism as context
from modules.context import trace as context_trace
from modules.context import CANDIDATES, RELEVANT_IDS, Passage, packet_coverage, recall_at_k, select_context


def test_recall_stays_one_while_coverage_climbs():
    record = json.loads(methods("context", "--json").stdout)
    rows = [(r["max_quote_chars"], r["recall_at_2"], r["coverage"]) for r in record["runs"]]
    assert rows == [(80, "1", "0/2"), (120, "1", "1/2"), (400, "1", "2/2")]


@pytest.mark.parametrize("budget, packet, coverage", [
    (80, ("wifi-v1", "card-v1"), Fraction(0)),
    (120, ("returns-v1",), Fraction(1, 2)),
    (400, ("returns-v1", "hours-v2", "wifi-v1", "card-v1"), Fraction(1)),
])
def test_budgets(budget, packet, coverage):
    record = select_context(CANDIDATES, budget)
    assert record.packet_ids == packet
    assert packet_coverage(record.packet_ids, RELEVANT_IDS) == coverage
    assert record.used_quote_chars == sum(len(p.text) for p in record.packet) <= budget
    assert record.duplicate_text_ids == ("returns-faq",)
    assert record.conflicts == {"printing-prices": ("1", "2")}


def test_at_120_the_hours_do_not_fit_after_the_returns_passage():
    by_id = {p.id: p for p in CANDIDATES}
    assert len(by_id["returns-v1"].text) <= 120 < len(by_id["returns-v1"].text) + len(by_id["hours-v2"].text)
    assert len(by_id["returns-v1"].text) > 80 and len(by_id["hours-v2"].text) > 80


def test_recall_at_2_is_one_on_the_fixed_ranking():
    assert recall_at_k([p.id for p in CANDIDATES], RELEVANT_IDS, 2) == 1
    assert [p.id for p in CANDIDATES][:2] == ["returns-v1", "hours-v2"]
    assert "hours-v1" not in {p.id for p in CANDIDATES}


def test_trace_shows_each_candidate_with_decision_and_running_total():
    run = context_trace.trace((400,))["runs"][0]
    assert [s["decision"] for s in run["steps"]] == [
        "selected", "selected", "skipped: duplicate text", "selected", "blocked: version conflict",
        "blocked: version conflict", "skipped: budget", "selected"]
    assert [s["running_total"] for s in run["steps"]] == [100, 191, 191, 221, 221, 221, 221, 260]


def test_labels_are_printed_apart_from_candidates():
    text = methods("context").stdout.decode()
    assert "Labels, for evaluation only" in text
    assert "relevant" not in context.Passage.__dataclass_fields__


def test_budget_option_replaces_the_defaults():
    record = json.loads(methods("context", "--json", "--budget", "191", "--budget", "190").stdout)
    assert [(r["max_quote_chars"], r["coverage"]) for r in record["runs"]] == [(191, "2/2"), (190, "1/2")]
    done = methods("context", "--budget", "-1", check=False)
    assert done.returncode == 2 and b"must be at least 0, got -1" in done.stderr


def test_identical_copies_collapse_and_different_ones_raise():
    a = Passage("x", "s", "1", "t", "same text")
    assert select_context([a, a], 100).packet_ids == ("x",)
    with pytest.raises(ValueError, match=r"id 'x' appears twice with a different text"):
        select_context([a, Passage("x", "s", "1", "t", "other text")], 100)
    with pytest.raises(ValueError, match=r"different version"):
        select_context([a, Passage("x", "s", "2", "t", "same text")], 100)


@pytest.mark.parametrize("call, error, words", [
    (lambda: select_context(CANDIDATES, -1), ValueError, "max_quote_chars must be at least 0, got -1"),
    (lambda: select_context(CANDIDATES, 80.0), TypeError, "max_quote_chars must be an int, got float"),
    (lambda: select_context(CANDIDATES, True), TypeError, "max_quote_chars must be an int, got bool"),
    (lambda: select_context(["not a passage"], 80), TypeError, "candidates[0] must be a Passage"),
    (lambda: Passage("x", "s", "1", "t", 42), TypeError, "Passage.text must be a str, got int 42"),
    (lambda: Passage("", "s", "1", "t", "x"), ValueError, "Passage.id must not be empty"),
    (lambda: packet_coverage(["a"], []), ValueError, "relevant_ids must not be empty"),
    (lambda: packet_coverage("ab", ["a"]), TypeError, "packet_ids must be a collection of ids"),
    (lambda: recall_at_k(["a"], ["a"], 0), ValueError, "k must be at least 1, got 0"),
    (lambda: recall_at_k(["a"], "a", 1), TypeError, "relevant_ids must be a collection of ids, got str"),
    (lambda: context_trace.trace(()), ValueError, "budgets must name at least one"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_skip_not_truncate_on_the_mechanism():
    long, short, mid = (Passage(i, i, "1", i, "x" * n) for i, n in (("long", 150), ("short", 30), ("mid", 40)))
    record = select_context([long, short, mid], 80)
    assert record.packet == (short, mid) and record.budget_skipped_ids == ("long",)
    assert record.used_quote_chars == 70


def test_plain_output_names_what_a_duplicate_repeats_and_what_a_conflict_holds():
    text = " ".join(methods("context").stdout.decode().split())
    assert "returns-faq repeats returns-v1" in text
    assert "(printing-prices 1, 2)" in text
    assert 'printing-prices (1, 2), unresolved: printing-v1 "Printing costs 10 cents a page."' in text
    record = select_context(CANDIDATES, 400)
    assert record.duplicate_of == {"returns-faq": "returns-v1"}
    step = context_trace.trace((400,))["runs"][0]["steps"][2]
    assert (step["decision"], step["duplicate_of"]) == ("skipped: duplicate text", "returns-v1")


def test_the_quiz_premise_holds_on_the_fixture():
    # The quiz says a label-reading selector gets 1/2 at 120 like the honest one, because the
    # two needed passages take 100 + 91 = 191 characters. Check each figure it states.
    by_id = {p.id: p for p in CANDIDATES}
    assert (len(by_id["returns-v1"].text), len(by_id["hours-v2"].text)) == (100, 91)
    honest = select_context(CANDIDATES, 120)
    cheat = context_trace.reads_the_labels(CANDIDATES, RELEVANT_IDS, 120)
    assert packet_coverage(honest.packet_ids, RELEVANT_IDS) == packet_coverage(cheat.packet_ids, RELEVANT_IDS) \
        == Fraction(1, 2)


def test_reading_the_labels_inflates_coverage_on_another_ranking_only():
    rows = [(r["ranking"], r["max_quote_chars"], r["honest"], r["reads_labels"])
            for r in context_trace.trace()["label_reader"]]
    assert rows == [("the lesson's", 80, "0/2", "0/2"), ("the lesson's", 120, "1/2", "1/2"),
                    ("the lesson's", 400, "2/2", "2/2"), ("distractors first", 200, "1/2", "2/2")]
    assert sorted(context_trace.OTHER_RANKING) == sorted(p.id for p in CANDIDATES)


def test_plain_output_fits_80_columns_and_every_table_has_a_legend():
    for args in ((), ("--budget", "0", "--budget", "191", "--budget", "100000")):
        text = methods("context", *args).stdout.decode()
        assert max(len(line) for line in text.splitlines()) <= 80
    blocks = context_trace.view(context_trace.trace())
    assert all("key" in b for b in blocks) and len({b["key"] for b in blocks}) == len(blocks)
    for b in blocks:
        if "table" in b:
            assert b["table"].get("legend"), b["table"]["title"]


def test_recall_refuses_a_set_as_the_ranking():
    # Issue 27.4: a set has no first k; its order (and so the result) depended on PYTHONHASHSEED.
    with pytest.raises(TypeError, match="ranked_ids must be a sequence of str, got set"):
        recall_at_k({"hours-v2", "returns-v1"}, ["hours-v2"], 1)
    assert recall_at_k(["hours-v2", "returns-v1"], ["hours-v2"], 1) == 1


def test_a_blocked_source_travels_as_a_recorded_conflict_not_as_evidence():
    record = select_context(CANDIDATES, 400)
    (printing,) = record.unresolved
    assert (printing.source_id, printing.ids, printing.labels, printing.state) == (
        "printing-prices", ("printing-v1", "printing-v2"), ("1", "2"), "unresolved")
    assert printing.quotes == ("Printing costs 10 cents a page.", "Printing costs 15 cents a page.")
    assert not set(printing.ids) & set(record.packet_ids)
    assert record.handed_ids == record.packet_ids + printing.ids


def test_lesson_01_draws_its_candidates_from_the_help_desk_world():
    from modules.helpdesk import entry
    for passage in CANDIDATES:
        found = entry(passage.id)
        assert (passage.source_id, passage.version, passage.title, passage.text) == (
            found.source_id, found.version, found.title, found.text)
    assert [len(p.text) for p in CANDIDATES[:2]] == [100, 91] and "hours-v1" not in [p.id for p in CANDIDATES]


def test_the_modules_own_functions_fail_the_tasks(tmp_path):
    # Issue 36: a task the reading already answers teaches typing. Paste modules/context's
    # packet_coverage, recall_at_k and fill_quote_budget in as the answers: each task fails.
    from helpers import passed_tasks, pasted_text
    passed = passed_tasks("context", pasted_text(
        "context", [(getattr(context, name), name) for name in ("packet_coverage", "recall_at_k", "fill_quote_budget")],
        preamble="from modules.context.mechanism import check_budget, check_passages, coverage_counts, recall_counts",
        in_place=True))
    assert passed == {"packet_coverage": False, "recall_at_k": False, "fill_quote_budget": False,
                      "LABELS_QUIZ": True, "PACKET_AT_190": True}


# Every figure curriculum.md lists for lesson 01, as the default trace prints it: the table
# cells (budget, recall@2, coverage, used) and each candidate's rank, id, chars and decisions.
CURRICULUM_FIGURES = [
    "    80  1         0/2         69", "   120  1         1/2        100", "   400  1         2/2        260",
    "   1  returns-v1     100  budget 0     selected 100   selected 100",
    "   2  hours-v2        91  budget 0     budget 100     selected 191",
    "   3  returns-faq    100  duplicate 0  duplicate 100  duplicate 191",
    "   5  printing-v1     31  blocked 30   blocked 100    blocked 221",
    "   8  card-v1         39  selected 69  budget 100     selected 260",
    "hours-v2, returns-v1", "help-desk-hours  2",
]


def test_the_default_trace_prints_every_curriculum_figure():
    text = methods("context", "--plain").stdout.decode()
    missing = [figure for figure in CURRICULUM_FIGURES if figure not in text]
    assert missing == []
    assert "--all" not in text
