"""Project-wide leak test: restricted catalogue content never reaches user-facing output.

A listing whose assisted-use permission is not "allowed" (denied, or unknown, which
fails closed) may be recorded internally only by an opaque reference. Its title and
seller text must never appear in what a person sees: the output of any lesson
command (plain text or --json) or any committed notebook. Its display id must not
appear either: an id reveals that the listing exists.
"""

import json

import pytest

from helpers import ROOT, built_lessons, methods
from modules.catalogue import LISTINGS, RESTRICTED_IDS, RESTRICTED_STRINGS

LESSONS = built_lessons()
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _leaks(text: str, needles) -> list:
    return sorted(needle for needle in needles if needle in text)


def _notebook_text(path) -> str:
    # Every cell's source and every output, decoded from JSON so escaped characters compare as written.
    notebook = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in notebook.get("cells", []):
        parts.append("".join(cell.get("source", [])))
        for output in cell.get("outputs", []):
            parts.append("".join(output.get("text", [])))
            for value in output.get("data", {}).values():
                parts.append("".join(value) if isinstance(value, list) else json.dumps(value, ensure_ascii=False))
    return "\n".join(parts)


def test_the_restricted_set_is_what_the_catalogue_says():
    # The scan is only as good as its list: every non-allowed listing's title and text are in it.
    restricted = [listing for listing in LISTINGS if listing.permission != "allowed"]
    assert {listing.id for listing in restricted} == set(RESTRICTED_IDS) and len(restricted) >= 3
    for listing in restricted:
        assert listing.title in RESTRICTED_STRINGS and listing.description in RESTRICTED_STRINGS


def test_the_scan_finds_a_planted_leak():
    # A scanner that never fires proves nothing: plant one string and see it caught.
    planted = f"... {RESTRICTED_STRINGS[0]} ..."
    assert _leaks(planted, RESTRICTED_STRINGS) == [RESTRICTED_STRINGS[0]]
    assert _leaks(planted, RESTRICTED_IDS) == []
    assert _leaks(f"withheld {RESTRICTED_IDS[-1]}", RESTRICTED_IDS) == [RESTRICTED_IDS[-1]]


@pytest.mark.parametrize("mode", ["plain", "json"])
@pytest.mark.parametrize("lesson", LESSONS)
def test_no_lesson_command_shows_restricted_content(lesson, mode):
    args = (lesson, "--plain") if mode == "plain" else (lesson, "--json")
    text = methods(*args).stdout.decode("utf-8")
    if mode == "json":
        text += "\n" + json.dumps(json.loads(text), ensure_ascii=False)  # unescaped too
    found = _leaks(text, RESTRICTED_STRINGS)
    assert not found, f"methods.py {' '.join(args)} shows restricted text: {found}"
    ids = _leaks(text, RESTRICTED_IDS)
    assert not ids, f"methods.py {' '.join(args)} names restricted listings (use opaque refs): {ids}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_no_committed_notebook_shows_restricted_content(path):
    text = _notebook_text(path)
    found = _leaks(text, RESTRICTED_STRINGS)
    assert not found, f"notebooks/{path.name} shows restricted text: {found}"
    ids = _leaks(text, RESTRICTED_IDS)
    assert not ids, f"notebooks/{path.name} names restricted listings (use opaque refs): {ids}"


def test_there_is_something_to_scan():
    assert "context" in LESSONS and "hybrid" in LESSONS and "eligibility" in LESSONS
    assert NOTEBOOKS, "no committed notebooks found under notebooks/"
    # The notebook reader sees both the sources and the executed outputs.
    lesson_one = _notebook_text(ROOT / "notebooks" / "01_context.ipynb")
    assert "from modules import context" in lesson_one and "returns-v1" in lesson_one
