"""Grader for lesson 14, operate. Run: python3 -B methods.py check operate"""

from dataclasses import replace

from labtools.grading.harness import call, constant, expect, expect_call, expect_true, function, load, manifest_tasks, shown_call, Shown
from modules.catalogue import QUERIES
from modules.catalogue.policy import index_listings
from modules.common.pipeline import Stage
from modules.grounding import GROUNDED
from modules.operate import mechanism as m
from modules.operate.signals import aggregate, signal_map

LESSON = "operate"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

# Invented ids, so no grading message names a listing the catalogue withholds.
SECRET = "XX-R900"
RESTRICTED = (SECRET, "XX-R901")


# ---------------------------------------------------------------- Task 1

def _expect_pairs(fn, pairs, restricted, want, why):
    """safe_signal's result as the docstring allows it: a list or a tuple of (label, total) pairs."""
    shown = shown_call(fn, pairs, restricted)
    got = call(fn, pairs, restricted, shown=shown)
    expect_true(isinstance(got, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in got),
                f"{shown} returned {type(got).__name__} {got!r}: return a list or a tuple of (label, total) pairs")
    expect(tuple(tuple(p) for p in got), want, shown, why=why)


def test_task1_counts_merge_by_label():
    fn = function(load(LESSON), "safe_signal")
    _expect_pairs(fn, [("PERMISSION_DENIED", 2), ("STALE_FIELD", 1), ("PERMISSION_DENIED", 3)], RESTRICTED,
                  want=(("PERMISSION_DENIED", 5), ("STALE_FIELD", 1)),
                  why="one total per label, sorted by label; nothing withheld, so no 'withheld' pair")
    _expect_pairs(fn, [], RESTRICTED, want=(), why="no counts, an empty signal")


def test_task1_the_exact_id_is_withheld():
    fn = function(load(LESSON), "safe_signal")
    _expect_pairs(fn, [("PERMISSION_DENIED", 2), (SECRET, 4)], RESTRICTED,
                  want=(("PERMISSION_DENIED", 2), ("withheld", 4)),
                  why="a label naming a restricted id is never shown: its count goes to 'withheld', last")


def test_task1_every_spelling_is_withheld():
    fn = function(load(LESSON), "safe_signal")
    spellings = {"lower-cased": SECRET.lower(), "a look-alike hyphen (U+2010)": SECRET.replace("-", "\u2010"),
                 "a space for the hyphen": SECRET.replace("-", " "), "no hyphen": SECRET.replace("-", ""),
                 "an underscore": SECRET.replace("-", "_"),
                 "full-width letters": "".join(chr(ord(c) + 0xFEE0) for c in SECRET),
                 "inside a longer label": f"top excluded: {SECRET.lower()}"}
    for what, label in spellings.items():
        _expect_pairs(fn, [(label, 1), ("PERMISSION_UNKNOWN", 2)], RESTRICTED,
                      want=(("PERMISSION_UNKNOWN", 2), ("withheld", 1)),
                      why=f"the label {label!r} ({what}) contains the restricted id {SECRET}: compare folded "
                          f"forms (NFKC, casefold, letters and digits only), and look for the id anywhere in "
                          f"the label")


def test_task1_other_ids_and_refs_are_shown():
    fn = function(load(LESSON), "safe_signal")
    _expect_pairs(fn, [("XX-R902", 1), ("ref-0123456789ab", 2), ("XX-R900", 1), ("XX-R901", 1)], RESTRICTED,
                  want=(("XX-R902", 1), ("ref-0123456789ab", 2), ("withheld", 2)),
                  why="only the restricted ids are withheld; another id and an opaque ref stay")


# ---------------------------------------------------------------- Task 2

HEALTHY = {"parser_failures": 1, "lexical": 98, "vector": 35, "permission_exclusions": 21,
           "index_version": "source/1", "policy_version": "assisted-use-policy/4", "ranker_version": "rrf-60/1"}


def _after(**changes) -> dict:
    return dict(HEALTHY, **changes)


def test_task2_the_lessons_rebuild_is_the_source_layer():
    fn = function(load(LESSON), "name_the_layer")
    expect_call(fn, HEALTHY, _after(permission_exclusions=63, index_version="source/2-rebuild"),
                want="source",
                why="exclusions tripled, the policy did not change, the index did: index construction lost the "
                    "permission fields (lesson 09's layer 'source'), and fail-closed worked")
    expect_call(fn, HEALTHY, _after(permission_exclusions=63), want=None,
                why="exclusions rose but the index version did not change: no rebuild to blame, and no other "
                    "rule holds")


def test_task2_the_ranker_is_named_last():
    fn = function(load(LESSON), "name_the_layer")
    expect_call(fn, HEALTHY, _after(ranker_version="rrf-60/2"), want="ranking",
                why="only the ranker changed")
    expect_call(fn, HEALTHY, _after(ranker_version="rrf-60/2", permission_exclusions=63,
                                    index_version="source/2-rebuild"), want="source",
                why="the index broke before the ranker: the layer ahead of it is named first")
    expect_call(fn, HEALTHY, _after(ranker_version="rrf-60/2", vector=20), want="retrieval",
                why="the vector channel's count moved before anything reached the ranker")


def test_task2_other_layers_and_nothing():
    fn = function(load(LESSON), "name_the_layer")
    expect_call(fn, HEALTHY, dict(HEALTHY), want=None, why="nothing moved: no layer to blame")
    expect_call(fn, HEALTHY, _after(parser_failures=4, permission_exclusions=63, index_version="x"),
                want="input", why="the parser (lesson 09's input layer) comes first")
    expect_call(fn, HEALTHY, _after(policy_version="assisted-use-policy/5", permission_exclusions=63),
                want="permission/freshness", why="the policy itself changed, with the index as it was")
    expect_call(fn, HEALTHY, _after(permission_exclusions=63, index_version="source/2-rebuild",
                                    policy_version="assisted-use-policy/5"), want="permission/freshness",
                why="with the policy changed too, the rise is not the index's alone: name the policy's layer")
    expect_call(fn, HEALTHY, _after(policy_version="assisted-use-policy/5", vector=20), want="retrieval",
                why="lesson 09's order: retrieval comes before permission/freshness")
    expect_call(fn, HEALTHY, _after(permission_exclusions=10, index_version="source/2"), want=None,
                why="fewer exclusions after a rebuild is no permission-loss anomaly, and nothing else moved")
    same = HEALTHY["permission_exclusions"]
    expect_call(fn, HEALTHY, _after(permission_exclusions=same, index_version="source/2-rebuild", lexical=3),
                want="retrieval", why="a rebuild whose exclusions did not rise lost no permission fields: the "
                                      "lexical count moved, so the layer is retrieval")


# ---------------------------------------------------------------- Task 3

FIELDS = {"PW-L001#title": "Mechanical seal 16 mm, carbon/ceramic faces", "PW-L001#diameter_mm": "16",
          "PW-L001#price_eur": "38.50", "PW-L007#title": "Mechanical seal 18 mm, graphite/EPDM"}


def test_task3_supported_lines():
    fn = function(load(LESSON), "check_support")
    fields = Shown("FIELDS", FIELDS)
    expect_call(fn, fields, [("PW-L001 is listed for 16 mm shafts; 38.50 EUR.",
                              ("PW-L001#diameter_mm", "PW-L001#price_eur"))], want=True,
                why="16 and 38.50 are in the cited values; the digits of PW-L001 are an id, not a claim")
    expect_call(fn, fields, [("These listings are offered.", ())], want=True, why="no number, nothing to support")


def test_task3_a_citation_alone_is_not_support():
    fn = function(load(LESSON), "check_support")
    fields = Shown("FIELDS", FIELDS)
    expect_call(fn, fields, [("PW-L001 is listed for 18 mm shafts.", ("PW-L001#diameter_mm",))], want=False,
                why="the line cites a real field, but the field says 16, not 18")
    expect_call(fn, fields, [("PW-L001 costs 38.50 EUR.", ("PW-L001#diameter_mm",))], want=False,
                why="38.50 is in the packet, but not in the value this line cites")
    expect_call(fn, fields, [("PW-L001 is listed for 16 mm.", ("PW-L012#diameter_mm",))], want=False,
                why="the cited field is not in the packet")
    expect_call(fn, fields, [("ok", ("PW-L001#title",)), ("PW-L007 says 16 mm.", ("PW-L007#title",))], want=False,
                why="every line is checked, not only the first: PW-L007's title says 18 mm")


# ---------------------------------------------------------------- Task 4

def test_task4_listed_for_is_not_fits():
    fn = function(load(LESSON), "check_non_amplification")
    expect_call(fn, [("PW-L001 is listed for 16 mm shafts.", ())], want=True, why="'listed for' is what the packet says")
    for word in ("fits", "compatible", "guaranteed"):
        expect_call(fn, [("Offered.", ()), (f"PW-L001 {word} 16 mm shafts.", ())], want=False,
                    why=f"'{word}' claims more than the evidence, in any line")
    expect_call(fn, [("PW-L001 FITS 16 mm shafts.", ())], want=False, why="case does not matter")
    expect_call(fn, [("Listed for 16 mm shafts; sold for pump refits.", ())], want=True,
                why="words, not substrings: 'refits' is not 'fits'")
    expect_call(fn, [("The seal fits.", ())], want=False,
                why="split on anything that is not a letter: 'fits.' is the word 'fits' and a full stop")
    expect_call(fn, [("Compatible, and guaranteed!", ())], want=False,
                why="'Compatible,' is the word 'compatible' and a comma")


# ---------------------------------------------------------------- Task 5

TEST = "tests/test_channels.py::test_without_generation_the_state_and_the_packet_stay"


def test_task5_answered_and_gaps():
    fn = function(load(LESSON), "review_answer")
    pipeline = Shown("GROUNDED", GROUNDED)
    tests = Shown("{TEST, ...}", {TEST, "tests/test_hybrid.py::test_fused_value_is_an_ordering_score"})
    expect_call(fn, ("can generation be removed?", "answer", "12", TEST), pipeline, tests, want="answered",
                why="the stage exists in the pipeline and the test exists")
    expect_call(fn, ("can generation be removed?", "generator", "12", TEST), pipeline, tests, want="gap",
                why="the pipeline has no stage 'generator': a pointer to a stage that does not exist answers nothing")
    expect_call(fn, ("where are scores valid?", "fusion", "07", "tests/test_hybrid.py::test_nobody_wrote"),
                pipeline, tests, want="gap", why="the test does not exist")
    expect_call(fn, ("can generation be removed?", "answer", "12", TEST), Shown("GROUNDED without answer",
                GROUNDED.without("answer")), tests, want="gap", why="this pipeline has no answer stage")


# ---------------------------------------------------------------- Task 6

QUIZ_MISCONCEPTIONS = {
    "a": "more queries would not help: the answered count held because the other layers absorbed the loss, "
         "not because nine queries are few",
    "b": "the answered count was right: the states held while fewer listings reached the assistant",
    "d": "a steady answered count names no stage, least of all the ranker: the signals named the source layer",
}


def test_task6_one_number_quiz():
    answer = constant(load(LESSON), "ONE_NUMBER_QUIZ")
    expect_true(answer in ("a", "b", "c", "d"),
                f"ONE_NUMBER_QUIZ is {answer!r}; set it to one letter: 'a', 'b', 'c' or 'd'")
    expect_true(answer == "c", f"ONE_NUMBER_QUIZ = {answer!r}: {QUIZ_MISCONCEPTIONS.get(answer, '')}. Reread the "
                               f"two rebuilds' dashboards in `python3 -B methods.py operate`, then try again (hint: "
                               f"python3 -B methods.py hint {LESSON} 6)")


# ---------------------------------------------------------------- Task 7

def _total_loss() -> tuple:
    """What the lesson's own mechanism gives when a rebuild loses every listing's permission field."""
    lost = GROUNDED.replace("source", Stage("source", "source/3-rebuild", "source", lambda so_far: index_listings(
        tuple(replace(x, permission=None) for x in so_far.inputs["listings"]))))
    signals = signal_map(aggregate(m.frozen_records(m.frozen_runs(lost, cases=QUERIES))))
    return (signals["assisted results"]["explicit unit"], signals["answered"]["explicit unit"],
            signals["states"].get("unauthorized", 0))


def test_task7_total_loss_prediction():
    predicted = constant(load(LESSON), "TOTAL_LOSS_PREDICTION")
    expect_true(isinstance(predicted, (tuple, list)) and len(predicted) == 3
                and all(isinstance(x, int) and not isinstance(x, bool) for x in predicted),
                f"TOTAL_LOSS_PREDICTION is {predicted!r}; set it to a tuple of three ints: (assisted results, "
                f"answered, unauthorized queries)")
    want = _total_loss()
    names = ("assisted results of the explicit-unit segment", "answered of the explicit-unit segment",
             "queries in state unauthorized")
    for name, got, right in zip(names, predicted, want):
        expect_true(got == right, f"TOTAL_LOSS_PREDICTION predicts {got} {name}; the pipeline gives another "
                                  f"number. Fail-closed withholds every listing whose permission is unknown: "
                                  f"which states does precedence still put before unauthorized? (hint: "
                                  f"python3 -B methods.py hint {LESSON} 7)")
