"""Lesson 02's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import methods
from modules.budget import mechanism as budget
from modules.budget import trace as budget_trace
from modules.budget.mechanism import (COVERAGE_BUDGET, COVERAGE_FACETS, COVERAGE_RANKED, RANKED, REQUESTS, WINDOW_TOKENS,
                            WORKED, Facet, RankedPassage, Request, count_overflows, evidence_budget, fill_budget,
                            prompt_sizes, request_fits, select_for_coverage, window_bar)
from modules.common.units import chars, lab_tokens, utf8_bytes


@pytest.fixture(scope="module")
def record():
    return json.loads(methods("budget", "--json").stdout)


def test_ranked_lengths_are_150_30_40():
    assert [len(c.text) for c in RANKED] == [150, 30, 40]


def test_three_policies_side_by_side(record):
    walks = {w["policy"]: w for w in record["walks"]}
    assert [w["budget"] for w in walks.values()] == [80, 80, 80]
    assert walks["skip"]["kept_ids"] == ["copier-pin", "guest-wifi"]
    assert walks["skip"]["skipped_ids"] == ["laptop-loans"] and walks["skip"]["used"] == 70
    assert walks["stop"]["kept_ids"] == [] and walks["stop"]["used"] == 0
    assert [s["decision"] for s in walks["stop"]["steps"]] == [
        "does not fit: walk stops", "never considered", "never considered"]
    assert walks["truncate"]["kept_ids"] == ["laptop-loans"] and walks["truncate"]["used"] == 80


def test_truncation_drops_the_exception(record):
    cut = next(w["cut"] for w in record["walks"] if w["policy"] == "truncate")
    original = RANKED[0].text
    assert cut["handed_on"] + cut["lost"] == original and len(cut["handed_on"]) == 80
    assert "not" in original.split() and "not" not in cut["handed_on"].split()
    assert "does not apply" in cut["lost"]
    text = methods("budget").stdout.decode()
    assert "does not apply to reference-room laptops" in text and "One input, three policies" in text


def test_skip_walk_on_the_mechanism_with_exact_fit():
    walk = fill_budget(RANKED, 80)
    assert walk.kept == RANKED[1:] and walk.skipped_ids == ("laptop-loans",) and walk.used == 70
    exact = fill_budget([RankedPassage("a", "x" * 50), RankedPassage("b", "y" * 30), RankedPassage("c", "z")], 80)
    assert exact.kept_ids == ("a", "b") and exact.used == 80 and exact.skipped_ids == ("c",)


def test_counters_are_pluggable(record):
    assert record["walk_in_lab_tokens"]["unit"] == "lab_tokens"
    assert record["walk_in_lab_tokens"]["kept_ids"] == ["copier-pin", "guest-wifi"]
    assert record["walk_in_lab_tokens"]["used"] == 17 == lab_tokens(RANKED[1].text) + lab_tokens(RANKED[2].text)
    assert fill_budget(RANKED, 2, counter=lambda text: 1).kept_ids == ("laptop-loans", "copier-pin")
    assert fill_budget(RANKED, 80, counter=utf8_bytes).used == 70


def test_truncate_respects_any_counter():
    walk = fill_budget(RANKED, 20, counter=lab_tokens, policy="truncate")
    assert walk.cut_ids == ("laptop-loans",) and walk.used == 20 == lab_tokens(walk.kept[0].text)
    assert RANKED[0].text.startswith(walk.kept[0].text)


def test_window_equation_worked_example(record):
    window = record["window"]
    assert window["equation"] == "window = base_input + history + tools + evidence + output_reserve + margin"
    worked = window["plans"][0]
    assert (worked["window"], worked["base_input"], worked["output_reserve"], worked["evidence"]) == (1024, 124, 128, 772)
    assert worked["history"] == 0 and worked["tools"] == 0 and worked["margin"] == 0
    assert (window["final_input"], window["final_input_plus_reserve"], window["fits"]) == (723, 851, True)
    assert evidence_budget(**WORKED) == 772 and request_fits(723, 128, 1024)
    assert not request_fits(897, 128, 1024) and request_fits(896, 128, 1024)


def test_the_worked_example_says_what_723_is():
    # 723 is the whole assembled input recounted, not base input + evidence; 1,024 and 128
    # are test settings; the base-input column is named for what it holds.
    text = methods("budget").stdout.decode()
    flat = " ".join(text.split())
    assert "124 base + 599" not in flat and "evidence_used" not in json.dumps(budget_trace.trace())
    for figure in ("723 + reserve 128 = 851", "within 1,024", "1,024 - 124 - 128 = 772"):
        assert figure in flat
    columns = next(b["table"]["columns"] for b in budget_trace.view(budget_trace.trace()) if b["key"] == "plans")
    assert "base input" in columns and "system" not in columns


def test_723_is_counted_from_an_assembled_request():
    # Issue 27.4: the final input was a typed constant. It is now the lab-token count of the
    # request as assembled: chat template, system text, question, and every evidence chunk in
    # its source header and wrapper.
    from modules.budget.mechanism import (SYSTEM_PROMPT, WORKED_EVIDENCE, WORKED_FINAL_INPUT, WORKED_QUESTION,
                                          WORKED_REQUEST, assemble_request)
    from modules.common.units import lab_tokens
    assert WORKED_FINAL_INPUT == lab_tokens(WORKED_REQUEST) == 723
    assert WORKED_FINAL_INPUT + WORKED["output_reserve"] == 851
    for part in ("<|system|>", SYSTEM_PROMPT, f"Question: {WORKED_QUESTION}", "<|assistant|>"):
        assert part in WORKED_REQUEST
    for chunk in WORKED_EVIDENCE:
        assert f'<source id="{chunk.id}">{chunk.text}</source>' in WORKED_REQUEST
    evidence_only = sum(lab_tokens(c.text) for c in WORKED_EVIDENCE)
    assert evidence_only < WORKED_FINAL_INPUT      # the wrappers and the template are counted too
    assert lab_tokens(assemble_request(SYSTEM_PROMPT, WORKED_QUESTION, WORKED_EVIDENCE[:-1])) < 723
    assert budget_trace.trace()["window"]["final_input"] == 723


def test_history_and_tools_take_evidence_room(record):
    follow_up = record["window"]["plans"][1]
    assert follow_up["history"] > 0 and follow_up["tools"] > 0
    assert follow_up["evidence"] == 772 - follow_up["history"] - follow_up["tools"] == 532
    assert follow_up["evidence_taken_by_history_and_tools"] == 240
    assert record["window"]["plans"][2]["evidence"] == 500
    text = methods("budget").stdout.decode()
    for term in ("base input", "history", "tools", "output reserve", "margin", "evidence"):
        assert term in text


def test_negative_remainder_is_an_error_naming_the_terms(record):
    with pytest.raises(ValueError) as caught:
        evidence_budget(1024, 124, 700, 90, 128, 32)
    message = str(caught.value)
    for words in ("window 1024", "base_input 124", "history 700", "tools 90", "output_reserve 128", "margin 32",
                  "= -50"):
        assert words in message
    assert record["window"]["negative_remainder"]["error"].startswith("ValueError: evidence budget is negative")
    assert evidence_budget(100, 60, 0, 0, 40, 0) == 0


def test_topk_sweep_average_fits_largest_overflows(record):
    sweep = record["sweep"]
    assert sweep["unit"] == "lab_tokens" and sweep["window"] == WINDOW_TOKENS == 160
    rows = {row["k"]: row for row in sweep["rows"]}
    assert [(rows[k]["average"], rows[k]["largest"], rows[k]["overflows"]) for k in (3, 4, 5, 6)] == [
        (94.2, 143, 0), (114.7, 176, 1), (133.6, 207, 2), (153.1, 243, 3)]
    assert rows[6]["average"] < 160 < rows[6]["largest"]
    first = min(k for k, row in rows.items() if row["overflows"])
    assert first == 4 and rows[first]["average"] <= sweep["window"] < rows[first]["largest"]
    assert sweep["average_chunks_that_fit"] == 6.1
    for k, row in rows.items():
        assert row["overflows"] == count_overflows(REQUESTS, k, 160)
        assert row["largest"] == max(prompt_sizes(REQUESTS, k))


def test_the_window_is_drawn(record):
    text = methods("budget").stdout.decode()
    lines = [line for line in text.splitlines() if line.startswith("4  114.7")]
    assert len(lines) == 1 and "|" in lines[0] and "!" in lines[0]
    three = next(line for line in text.splitlines() if line.startswith("3  94.2"))
    assert "|" in three and "!" not in three
    assert budget.window_bar(160, 160, 320, 40) == "#" * 20 + "|" + "." * 20


def test_units_for_a_non_ascii_passage(record):
    units = record["units"]
    assert (units["chars"], units["utf8_bytes"], units["lab_tokens"]) == (66, 73, 15)
    assert units["chars"] == chars(units["text"]) < units["utf8_bytes"] == utf8_bytes(units["text"])
    assert "not a model token" in units["note"] and "ships no tokenizer" in units["note"]
    assert "not a model token" in " ".join(methods("budget").stdout.decode().split())


def test_exact_fit_in_the_overflow_count():
    requests = [Request("exact", "?", 20, (40, 40)), Request("over", "?", 21, (40, 40))]
    assert count_overflows(requests, 2, 100) == 1


@pytest.mark.parametrize("call, error, words", [
    (lambda: fill_budget(RANKED, -1), ValueError, "budget must be at least 0, got -1"),
    (lambda: fill_budget(RANKED, True), TypeError, "budget must be an int, got bool True"),
    (lambda: fill_budget(RANKED, 80.0), TypeError, "budget must be an int, got float 80.0"),
    (lambda: fill_budget(RANKED, 80, policy="cut"), ValueError, "policy must be one of skip, stop, truncate, got 'cut'"),
    (lambda: fill_budget(RANKED, 80, counter="chars"), TypeError, "counter must be a function str -> int"),
    (lambda: fill_budget(RANKED, 80, counter=lambda t: 1.5), TypeError, "must return an int >= 0, got float 1.5"),
    (lambda: fill_budget(["text"], 80), TypeError, "chunks[0] must be a RankedPassage, got str"),
    (lambda: RankedPassage("", "x"), ValueError, "RankedPassage.id must not be empty"),
    (lambda: RankedPassage("a", 3), TypeError, "RankedPassage.text must be a str, got int 3"),
    (lambda: evidence_budget(1024, -1, 0, 0, 128, 0), ValueError, "base_input must be at least 0, got -1"),
    (lambda: evidence_budget(0, 0, 0, 0, 0, 0), ValueError, "window must be at least 1, got 0"),
    (lambda: evidence_budget(1024, 124, False, 0, 128, 0), TypeError, "history must be an int, got bool False"),
    (lambda: evidence_budget(1024, 124, 0, 0, 128.0, 0), TypeError, "output_reserve must be an int, got float 128.0"),
    (lambda: count_overflows(REQUESTS, 0, 160), ValueError, "k must be at least 1, got 0"),
    (lambda: count_overflows(REQUESTS, 4, 0), ValueError, "window must be at least 1, got 0"),
    (lambda: Request("q", "?", -3, (1,)), ValueError, "Request 'q' base_tokens must be at least 0, got -3"),
    (lambda: Request("q", "?", 3, [1]), TypeError, "Request.chunk_tokens must be a tuple, got list"),
    (lambda: Request(7, "?", 3, (1,)), TypeError, "Request.id must be a str, got int 7"),
    (lambda: count_overflows([(10, (1, 2))], 1, 100), TypeError, "requests[0] must be a Request, got tuple"),
    (lambda: prompt_sizes(5, 1), TypeError, "requests must be a sequence of Request, got int"),
    (lambda: window_bar(1, 1, 0), ValueError, "scale must be at least 1, got 0"),
    (lambda: window_bar(1, 0, 10), ValueError, "window must be at least 1, got 0"),
    (lambda: window_bar(11, 5, 10), ValueError, "value must be at most 10, got 11"),
    (lambda: window_bar(1, 5, 10, 0), ValueError, "width must be at least 1, got 0"),
    (lambda: select_for_coverage(RANKED, ["hours"], 80), TypeError, "facets[0] must be a Facet, got str"),
    (lambda: select_for_coverage(RANKED, COVERAGE_FACETS, -5), ValueError, "budget must be at least 0"),
    (lambda: select_for_coverage({RANKED[0]}, COVERAGE_FACETS, 5), TypeError, "chunks must be a sequence"),
    (lambda: Facet("hours", "Is it?"), ValueError, "Facet.asks must hold at least one content word"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_the_bar_glyphs_are_defined_next_to_the_chart():
    text = " ".join(methods("budget").stdout.decode().split())
    legend = next(b["table"]["legend"] for b in budget_trace.view(budget_trace.trace()) if b["key"] == "topk")
    assert all(glyph in legend for glyph in ("'#'", "'|'", "'!'", "'.'", "308", "160"))
    assert "#####################|!!!!!!!!!!!!!!!!!!!" in text
    assert window_bar(308, 160, 308, 40) == "#" * 21 + "|" + "!" * 19


def test_average_chunks_that_fit_is_explained_per_request(record):
    sweep = record["sweep"]
    fits = [r["chunks_that_fit"] for r in sweep["requests"]]
    assert fits == [6, 6, 8, 4, 8, 6, 3, 7, 5, 8] and sum(fits) / len(fits) == 6.1
    for request, row in zip(REQUESTS, sweep["requests"]):
        k = row["chunks_that_fit"]
        assert row["prompt_at_fit"] == prompt_sizes([request], k)[0] <= 160
        assert k == len(request.chunk_tokens) or prompt_sizes([request], k + 1)[0] > 160
    assert (sweep["average_chunks_that_fit"], sweep["fewest_chunks_that_fit"]) == (6.1, 3)


def test_rank_walk_repeats_a_facet_where_coverage_covers_both(record):
    cov = record["coverage"]
    assert [(c["id"], c["chars"], c["covers"]) for c in cov["ranked"]] == [
        ("laptop-loans", 150, ["laptop return"]), ("laptop-faq", 171, ["laptop return"]),
        ("guest-wifi", 40, ["guest network"]), ("copier-pin", 30, [])]
    assert cov["walk"] == {"kept_ids": ["laptop-loans", "laptop-faq"], "used": 321, "covered": ["laptop return"],
                           "repeats": ["laptop-faq"], "missed": ["guest-wifi"], "labelled_in_packet": "1/2"}
    assert cov["coverage_aware"] == {"kept_ids": ["laptop-loans", "guest-wifi"], "used": 190,
                                     "covered": ["laptop return", "guest network"],
                                     "pick_order": ["guest-wifi", "laptop-loans"], "labelled_in_packet": "2/2"}
    assert [c["pick"] for c in cov["ranked"]] == [2, None, 1, None]
    assert cov["budget"] == COVERAGE_BUDGET == 330
    # The chunks are the lesson's own: the same ids carry the same text as in the skip example.
    ranked = {c.id: c for c in RANKED}
    assert all(ranked[c.id] == c for c in COVERAGE_RANKED if c.id in ranked)


def test_coverage_never_reads_the_labels(monkeypatch):
    before = select_for_coverage(COVERAGE_RANKED, COVERAGE_FACETS, COVERAGE_BUDGET)
    monkeypatch.setattr(budget, "COVERAGE_LABELS", ("copier-pin", "laptop-faq"))
    assert select_for_coverage(COVERAGE_RANKED, COVERAGE_FACETS, COVERAGE_BUDGET) == before
    cov = budget_trace.trace()["coverage"]
    assert cov["coverage_aware"]["kept_ids"] == ["laptop-loans", "guest-wifi"]
    assert cov["labels"]["relevant_ids"] == ["copier-pin", "laptop-faq"]


def test_coverage_greedy_is_exact_and_keeps_rank_order():
    alpha, beta = Facet("alpha", "alpha?"), Facet("beta", "beta?")
    chunks = [RankedPassage("a", "alpha " + "." * 94), RankedPassage("b", "beta"), RankedPassage("c", "alpha")]
    chosen = select_for_coverage(chunks, [alpha, beta], 200)
    assert chosen.pick_order == ("b", "c") and chosen.kept_ids == ("b", "c") and chosen.used == 9
    assert chosen.covered == ("alpha", "beta") and chosen.missing == ()
    ties = [RankedPassage(f"t{i:02d}", "alpha") for i in range(40)]
    assert select_for_coverage(ties, [alpha], 100).kept_ids == ("t00",)
    nothing = select_for_coverage(chunks, [alpha, beta], 3)
    assert nothing.kept == () and nothing.missing == ("alpha", "beta") and nothing.unit == "chars"


def test_plain_output_fits_80_columns_and_every_table_has_a_legend():
    text = methods("budget").stdout.decode()
    assert max(len(line) for line in text.splitlines()) <= 80
    blocks = budget_trace.view(budget_trace.trace())
    assert all("key" in b for b in blocks) and len({b["key"] for b in blocks}) == len(blocks)
    for b in blocks:
        if "table" in b:
            assert b["table"].get("legend"), b["table"]["title"]


def test_records_are_frozen_dataclasses():
    import dataclasses
    for kind in (RankedPassage, budget.BudgetWalk, Request, budget.CoverageSelection):
        assert dataclasses.is_dataclass(kind) and kind.__dataclass_params__.frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        RANKED[0].text = "changed"


def test_the_modules_own_functions_fail_the_tasks(tmp_path):
    # Issue 36: paste the function each task obviously copies (evidence_budget, fill_budget,
    # count_overflows and chunks_that_fit, select_for_coverage), renamed to the task's name:
    # every function task fails.
    from helpers import passed_tasks, pasted_text
    copies = {"evidence_budget_of_plan": budget.evidence_budget, "skip_walk": budget.fill_budget,
              "safe_top_k": budget.count_overflows, "cover_facets": budget.select_for_coverage}
    helpers = ("from modules.budget.mechanism import *\nfrom modules.budget.mechanism import _chunks, _counter, "
               "_measure, _longest_prefix\nfrom modules.common.checks import sequence_of, short, whole_number")
    passed = passed_tasks("budget", pasted_text("budget", [(function, name) for name, function in copies.items()],
                                                 preamble=helpers, in_place=True))
    assert passed == {"evidence_budget_of_plan": False, "skip_walk": False, "safe_top_k": False,
                      "RESERVE_QUIZ": True, "cover_facets": False, "WALK_AT_200": True}
    passed = passed_tasks("budget", pasted_text("budget", [(budget.chunks_that_fit, "safe_top_k")], preamble=helpers,
                                                 in_place=True))
    assert passed["safe_top_k"] is False


# Every figure curriculum.md lists for lesson 02, as the default trace prints it.
CURRICULUM_FIGURES = [
    "   1  laptop-loans    150", "   2  copier-pin       30", "   3  guest-wifi       40",      # 150, 30, 40
    "skip      copier-pin, guest-wifi  laptop-loans                            70",              # 70 used
    "stop      (none)", "stops here 0", "truncate  laptop-loans", "cut 80",                        # stop 0, a cut
    "worked example    1024         124        0      0      128       0       772",             # 1,024 - 124 - 128
    "723 + reserve 128 = 851",                                                                   # the recount
    "4  114.7        176  1/10",                                                                 # average fits, largest not
    "13.4", "k=11", "206.4", "246",                                                              # the published figures
    "returns-de     66           73          15",                                               # three units
    "rank walk  laptop-loans, laptop-faq   321  1/2", "coverage   laptop-loans, guest-wifi   190  2/2",
]


def test_the_default_trace_prints_every_curriculum_figure():
    text = methods("budget", "--plain").stdout.decode()
    assert [figure for figure in CURRICULUM_FIGURES if figure not in text] == []
