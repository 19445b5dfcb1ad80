"""Grader for lesson 14, operate. Run: python3 -B methods.py check operate"""

from labtools.grading.harness import manifest_tasks, expect_call, expect_choice, function, load, Shown
from modules.grounding import GROUNDED

LESSON = "operate"

TASKS = manifest_tasks(LESSON)  # course.json lists them, exercises/hints/LESSON.md hints them

# Invented ids, so no grading message names a listing the catalogue withholds.
SECRET = "XX-R900"
RESTRICTED = (SECRET, "XX-R901")


# ---------------------------------------------------------------- Task 1

def test_task1_counts_merge_by_label():
    fn = function(load(LESSON), "safe_signal")
    expect_call(fn, [("PERMISSION_DENIED", 2), ("STALE_FIELD", 1), ("PERMISSION_DENIED", 3)], RESTRICTED,
                want=(("PERMISSION_DENIED", 5), ("STALE_FIELD", 1)),
                why="one total per label, sorted by label; nothing withheld, so no 'withheld' pair")
    expect_call(fn, [], RESTRICTED, want=(), why="no counts, an empty signal")


def test_task1_the_exact_id_is_withheld():
    fn = function(load(LESSON), "safe_signal")
    expect_call(fn, [("PERMISSION_DENIED", 2), (SECRET, 4)], RESTRICTED,
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
        expect_call(fn, [(label, 1), ("PERMISSION_UNKNOWN", 2)], RESTRICTED,
                    want=(("PERMISSION_UNKNOWN", 2), ("withheld", 1)),
                    why=f"{what} still names the restricted listing: compare folded forms (NFKC, casefold, "
                        f"letters and digits only)")


def test_task1_other_ids_and_refs_are_shown():
    fn = function(load(LESSON), "safe_signal")
    expect_call(fn, [("XX-R902", 1), ("ref-0123456789ab", 2), ("XX-R900", 1), ("XX-R901", 1)], RESTRICTED,
                want=(("XX-R902", 1), ("ref-0123456789ab", 2), ("withheld", 2)),
                why="only the restricted ids are withheld; another id and an opaque ref stay")


# ---------------------------------------------------------------- Task 2

HEALTHY = {"parser_failures": 1, "lexical": 98, "vector": 35, "permission_exclusions": 21,
           "index_version": "source/1", "policy_version": "assisted-use-policy/4", "ranker_version": "rrf-60/1"}


def _after(**changes) -> dict:
    return dict(HEALTHY, **changes)


def test_task2_the_lessons_rebuild_is_index_construction():
    fn = function(load(LESSON), "name_the_layer")
    expect_call(fn, HEALTHY, _after(permission_exclusions=63, index_version="source/2-rebuild"),
                want="index construction",
                why="exclusions tripled, the policy did not change, the index did: fail-closed worked, the "
                    "index lost its permission fields")


def test_task2_the_ranker_is_named_last():
    fn = function(load(LESSON), "name_the_layer")
    expect_call(fn, HEALTHY, _after(ranker_version="rrf-60/2"), want="ranking",
                why="only the ranker changed")
    expect_call(fn, HEALTHY, _after(ranker_version="rrf-60/2", permission_exclusions=63,
                                    index_version="source/2-rebuild"), want="index construction",
                why="the index broke before the ranker: the layer ahead of it is named first")
    expect_call(fn, HEALTHY, _after(ranker_version="rrf-60/2", vector=20), want="retrieval",
                why="the vector channel's count moved before anything reached the ranker")


def test_task2_other_layers_and_nothing():
    fn = function(load(LESSON), "name_the_layer")
    expect_call(fn, HEALTHY, dict(HEALTHY), want=None, why="nothing moved: no layer to blame")
    expect_call(fn, HEALTHY, _after(parser_failures=4, permission_exclusions=63, index_version="x"),
                want="query transformation", why="the parser comes first")
    expect_call(fn, HEALTHY, _after(policy_version="assisted-use-policy/5", permission_exclusions=63),
                want="permission policy", why="the policy itself changed, with the index as it was")
    expect_call(fn, HEALTHY, _after(permission_exclusions=63, index_version="source/2-rebuild",
                                    policy_version="assisted-use-policy/5"), want="permission policy",
                why="with the policy changed too, the rise is not the index's alone: name the policy")
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

def test_task6_one_number_quiz():
    expect_choice(LESSON, "ONE_NUMBER_QUIZ", "a", 6, "Reread the lesson's two rebuilds and its dashboard")
