"""Plausible mistakes get a called/got/expected message whose "why" fits the mistake (issue 28).

Each case edits the reference solution the way a learner might get it wrong, grades it with
`check --target --json` and reads the failing task's message.
"""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, methods

CASES = [
    # (lesson, task, old text, new text, words the message must hold)
    ("context", 3, "if used + len(passage.text) <= max_quote_chars:", "if used + len(passage.text) < max_quote_chars:",
     ["fits exactly", "<= budget, not <"]),
    ("budget", 2, "if used + size <= budget:", "if used + size < budget:", ["fits exactly", "<= budget, not <"]),
    ("context", 3, "record = ContextRecord(packet=tuple(packet), ",
     "record = ContextRecord(packet=tuple(p.id for p in packet), ",
     ["called fill_quote_budget(", "got:", "expected: the Passages themselves"]),
]


@pytest.mark.parametrize("lesson, task, old, new, words", CASES,
                         ids=["context-strict-less", "budget-strict-less", "context-ids-not-passages"])
def test_a_plausible_mistake_gets_a_message_that_fits_it(tmp_path, lesson, task, old, new, words):
    solution = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
    assert solution.count(old) == 1, f"solutions/{lesson}.py no longer holds {old!r} once"
    (tmp_path / f"{lesson}.py").write_text(solution.replace(old, new), encoding="utf-8")
    done = methods("check", lesson, "--target", str(tmp_path), "--json", check=False)
    record = json.loads(done.stdout)["lessons"][0]
    failing = [t for t in record["tasks"] if not t["passed"]]
    assert [t["number"] for t in failing] == [task], record["tasks"]
    message = " ".join(failing[0]["message"].split())
    assert "Traceback" not in message and "Error:" not in message.split("called")[0], message
    for word in words:
        assert word in message, f"{word!r} is not in the message:\n{failing[0]['message']}"
