"""Lesson 02's figures and contracts, asserted on the mechanism and on the command."""

import json

import pytest

from helpers import methods
from modules import budget
from modules.budget import (RANKED, REQUESTS, WINDOW_TOKENS, WORKED, Chunk, Request, count_overflows,
                            evidence_budget, fill_budget, prompt_sizes, request_fits)
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
    exact = fill_budget([Chunk("a", "x" * 50), Chunk("b", "y" * 30), Chunk("c", "z")], 80)
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
    assert window["equation"] == "window = system + history + tools + evidence + output_reserve + margin"
    worked = window["plans"][0]
    assert (worked["window"], worked["system"], worked["output_reserve"], worked["evidence"]) == (1024, 124, 128, 772)
    assert worked["history"] == 0 and worked["tools"] == 0 and worked["margin"] == 0
    assert (window["final_input"], window["final_input_plus_reserve"], window["fits"]) == (723, 851, True)
    assert window["evidence_used"] == 723 - 124 == 599 <= worked["evidence"]
    assert "final input 723" in methods("budget").stdout.decode()
    assert evidence_budget(**WORKED) == 772 and request_fits(723, 128, 1024)
    assert not request_fits(897, 128, 1024) and request_fits(896, 128, 1024)


def test_history_and_tools_take_evidence_room(record):
    follow_up = record["window"]["plans"][1]
    assert follow_up["history"] > 0 and follow_up["tools"] > 0
    assert follow_up["evidence"] == 772 - follow_up["history"] - follow_up["tools"] == 532
    assert follow_up["evidence_taken_by_history_and_tools"] == 240
    assert record["window"]["plans"][2]["evidence"] == 500
    text = methods("budget").stdout.decode()
    for term in ("system", "history", "tools", "output reserve", "margin", "evidence"):
        assert term in text


def test_negative_remainder_is_an_error_naming_the_terms(record):
    with pytest.raises(ValueError) as caught:
        evidence_budget(1024, 124, 700, 90, 128, 32)
    message = str(caught.value)
    for words in ("window 1024", "system 124", "history 700", "tools 90", "output_reserve 128", "margin 32", "= -50"):
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
    assert "not a model token" in methods("budget").stdout.decode()


def test_exact_fit_in_the_overflow_count():
    requests = [Request("exact", "?", 20, (40, 40)), Request("over", "?", 21, (40, 40))]
    assert count_overflows(requests, 2, 100) == 1


@pytest.mark.parametrize("call, error, words", [
    (lambda: fill_budget(RANKED, -1), ValueError, "budget must be >= 0, got -1"),
    (lambda: fill_budget(RANKED, True), TypeError, "budget must be an int, got bool True"),
    (lambda: fill_budget(RANKED, 80.0), TypeError, "budget must be an int, got float 80.0"),
    (lambda: fill_budget(RANKED, 80, policy="cut"), ValueError, "policy must be one of skip, stop, truncate, got 'cut'"),
    (lambda: fill_budget(RANKED, 80, counter="chars"), TypeError, "counter must be a function str -> int"),
    (lambda: fill_budget(RANKED, 80, counter=lambda t: 1.5), TypeError, "must return an int >= 0, got float 1.5"),
    (lambda: fill_budget(["text"], 80), TypeError, "chunks[0] must be a Chunk, got str"),
    (lambda: Chunk("", "x"), ValueError, "Chunk.id must not be empty"),
    (lambda: Chunk("a", 3), TypeError, "Chunk.text must be a str, got int 3"),
    (lambda: evidence_budget(1024, -1, 0, 0, 128, 0), ValueError, "system must be >= 0, got -1"),
    (lambda: evidence_budget(0, 0, 0, 0, 0, 0), ValueError, "window must be >= 1, got 0"),
    (lambda: evidence_budget(1024, 124, False, 0, 128, 0), TypeError, "history must be an int, got bool False"),
    (lambda: evidence_budget(1024, 124, 0, 0, 128.0, 0), TypeError, "output_reserve must be an int, got float 128.0"),
    (lambda: count_overflows(REQUESTS, 0, 160), ValueError, "k must be >= 1, got 0"),
    (lambda: count_overflows(REQUESTS, 4, 0), ValueError, "window must be >= 1, got 0"),
    (lambda: Request("q", "?", -3, (1,)), ValueError, "Request 'q' base_tokens must be >= 0, got -3"),
    (lambda: Request("q", "?", 3, [1]), TypeError, "Request.chunk_tokens must be a tuple, got list"),
    (lambda: Request(7, "?", 3, (1,)), TypeError, "Request.id must be a str, got int 7"),
    (lambda: count_overflows([(10, (1, 2))], 1, 100), TypeError, "requests[0] must be a Request, got tuple"),
    (lambda: prompt_sizes(5, 1), TypeError, "requests must be a sequence of Request, got int"),
])
def test_bad_input_names_the_field_and_value(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)
