"""The context contract review: each question answered by a pointer into the course itself.

A pointer names the stage that enforces the answer, the lesson that teaches it and the test
that shows it holds. `review` checks every pointer against the pipeline's own definition
(the stage must be one of its stages) and against the test files (the test must exist), so
an answer is never a sentence nobody can check. A question the course cannot answer that
way is marked as a gap, with what is missing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from modules.common.checks import short
from modules.common.pipeline import Pipeline

__all__ = ["Pointer", "QUESTIONS", "GAPS", "answer", "review", "has_test"]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LESSONS = {"07": "hybrid", "08": "eligibility", "09": "grounding", "12": "channels", "13": "memory",
           "14": "operate"}


@dataclass(frozen=True)
class Pointer:
    """Where one review question is answered: a stage, a lesson ("08") and a test ("file::name")."""
    question: str
    stage: str
    lesson: str
    test: str

    def __post_init__(self):
        for name in ("question", "stage", "lesson", "test"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise TypeError(f"Pointer.{name} must be a non-empty str, got {short(getattr(self, name))}")
        if self.lesson not in LESSONS:
            raise ValueError(f"Pointer.lesson must be one of {sorted(LESSONS)}, got {self.lesson!r}")
        if "::" not in self.test:
            raise ValueError(f"Pointer.test must read 'tests/test_X.py::test_name', got {self.test!r}")


QUESTIONS = (
    Pointer("does every transformation keep its source and uncertainty?", "contract", "07",
            "tests/test_hybrid.py::test_every_transformation_is_named_and_versioned"),
    Pointer("is permission enforced before restricted content moves?", "gate", "08",
            "tests/test_eligibility.py::test_denied_closest_neighbour_never_reaches_ranking"),
    Pointer("which fields can go stale, and what follows?", "gate", "08",
            "tests/test_eligibility.py::test_stale_required_field_withholds_and_stale_optional_field_is_left_out"),
    Pointer("how are conflicts kept?", "evidence", "08",
            "tests/test_eligibility.py::test_conflicting_listing_is_never_picked"),
    Pointer("where are scores valid?", "fusion", "07", "tests/test_hybrid.py::test_fused_value_is_an_ordering_score"),
    Pointer("does dedupe respect canonical links?", "fusion", "07",
            "tests/test_hybrid.py::test_copy_collapses_into_its_canonical_cluster"),
    Pointer("which packet fields are required, optional, prohibited?", "packet", "08",
            "tests/test_eligibility.py::test_stale_required_field_withholds_and_stale_optional_field_is_left_out"),
    Pointer("what happens at each empty cause?", "decision", "08",
            "tests/test_eligibility.py::test_other_empty_causes_on_small_pools"),
    Pointer("can generation be removed?", "answer", "12",
            "tests/test_channels.py::test_without_generation_the_state_and_the_packet_stay"),
    Pointer("can a record be deleted with its derived traces?", "memory-recall", "13",
            "tests/test_memory.py::test_deletion_propagates_and_leaves_an_opaque_record"),
    Pointer("does every component have a version and an owner?", "source", "14",
            "tests/test_operate.py::test_every_stage_has_a_version_and_an_owner"),
    Pointer("which changes need replay?", "memory-recall", "13",
            "tests/test_memory.py::test_the_replay_shows_the_requests_on_the_frozen_sessions"),
)
# What the pointers above do not cover, said plainly.
GAPS = {
    "which packet fields are required, optional, prohibited?":
        "required and optional are declared (the freshness rules); prohibited fields are not: the packet "
        "copies a fixed field list, and no declared list or test keeps seller text out",
    "can a record be deleted with its derived traces?":
        "memory items can; a catalogue listing can only be withdrawn (permission), not deleted with its traces",
}


def has_test(test: str, root: str = ROOT) -> bool:
    """Whether 'tests/test_X.py::test_name' names a test function in that file."""
    path, _, name = test.partition("::")
    full = os.path.join(root, *path.split("/"))
    if not os.path.isfile(full):
        return False
    with open(full, encoding="utf-8") as handle:
        return re.search(rf"^def {re.escape(name)}\(", handle.read(), re.MULTILINE) is not None


def answer(pointer: Pointer, pipeline: Pipeline, root: str = ROOT) -> tuple:
    """(status, note) for one question: "answered" when its stage is one of the pipeline's and its
    test exists, "gap" otherwise (or when GAPS says what the pointer leaves open)."""
    if not isinstance(pointer, Pointer):
        raise TypeError(f"pointer must be a Pointer, got {type(pointer).__name__} {short(pointer)}")
    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"pipeline must be a Pipeline, got {type(pipeline).__name__} {short(pipeline)}")
    if pointer.stage not in pipeline.names():
        return "gap", f"the pipeline has no stage {pointer.stage!r}"
    if not has_test(pointer.test, root):
        return "gap", f"no test {pointer.test}"
    if pointer.question in GAPS:
        return "gap", GAPS[pointer.question]
    version = pipeline.stage(pointer.stage).version
    return "answered", f"stage {pointer.stage} ({version}), lesson {pointer.lesson} {LESSONS[pointer.lesson]}"


def review(pipelines, questions=QUESTIONS, root: str = ROOT) -> list:
    """[(pointer, status, note)]: each question against the first of `pipelines` that has its stage."""
    out = []
    for pointer in questions:
        holding = [p for p in pipelines if pointer.stage in p.names()] or list(pipelines)[:1]
        out.append((pointer, *answer(pointer, holding[0], root)))
    return out
