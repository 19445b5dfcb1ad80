"""Project-wide leak test: restricted catalogue content never reaches user-facing output.

A listing whose assisted-use permission is not "allowed" (denied, or unknown, which
fails closed) may be recorded internally only by an opaque reference. Its title and
seller text must never appear in what a person sees: the output of any lesson
command (plain text or --json), any committed notebook, or the grading of a learner's
answers (messages of permission tasks speak in refs or counts, even when the learner's
own code lets a withheld listing through). Its display id must not appear either: an id
reveals that the listing exists.
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


@pytest.mark.skipif("memory" not in LESSONS, reason="lesson 13 is not built")
def test_another_buyers_memory_never_reaches_a_session():
    # Lesson 13: one buyer's remembered items (their ids, values and texts) appear in no other buyer's
    # session, in the --json record or in the printed tables and packets; another buyer's item is only a ref.
    from labtools.registry import lesson_module
    from labtools.render import block
    from modules.memory import mechanism as memory
    from modules.catalogue import opaque_ref
    record = json.loads(methods("memory", "--json").stdout)
    lesson = lesson_module("memory")
    view = lesson.view(lesson.trace())
    printed = {row[0]: [] for row in block(view, "recall")["table"]["rows"] if row[0]}
    current = None
    for name in ("recall", "context"):
        for row in block(view, name)["table"]["rows"]:
            current = row[0] or current
            printed[current].append(" ".join(map(str, row)))
    for line in block(view, "packets")["text"].split("\n"):
        head = line.split(",")[0]
        current = head if head in printed else current   # a session's packet starts with its name
        printed[current].append(line)
    assert sorted(printed) == sorted(s["session"] for s in record["sessions"])
    refs_seen = 0
    for session in record["sessions"]:
        shown = json.dumps(session, ensure_ascii=False) + "\n".join(printed[session["session"]])
        for item in memory.ITEMS:
            if item.owner != session["buyer"]:
                leaked = [x for x in (item.id, item.text, f"= {item.value} (", f'"remembered": "{item.value}"')
                          if x in shown]
                assert not leaked, f"session {session['session']} of {session['buyer']} shows {item.owner}'s {leaked}"
                refs_seen += opaque_ref(item.id) in shown
    assert refs_seen >= 3, "the sessions should show other buyers' recalled items, by ref only"


def test_there_is_something_to_scan():
    assert "context" in LESSONS and "hybrid" in LESSONS and "eligibility" in LESSONS
    assert NOTEBOOKS, "no committed notebooks found under notebooks/"
    # The notebook reader sees both the sources and the executed outputs.
    lesson_one = _notebook_text(ROOT / "notebooks" / "01_context.ipynb")
    assert "from modules.context import" in lesson_one and "returns-v1" in lesson_one


# Learner answers that let withheld listings through: grading must say so without naming them.
LEAKY = {
    "eligibility": [
        ("    return reciprocal_rank_fusion(filtered, k)\n", "    return reciprocal_rank_fusion(rankings, k)\n"),
        ("        withheld.append((opaque_ref(listing_id), reason))",
         "        withheld.append((listing_id, reason))"),
    ],
    "grounding": [
        ('    return {"query": record["query"], "state": state, "message": USER_MESSAGES[state],',
         '    from modules.catalogue import LISTINGS\n'
         '    return {"query": record["query"], "state": state, "message": " / ".join(x.title for x in LISTINGS),'),
    ],
    "channels": [   # an answer that echoes the neighbour lists it was given
        ("    found = set(list(approximate)[:k])\n",
         "    raise ValueError(f\"cannot compare {list(approximate)} with {list(exact)}\")\n"),
    ],
}


@pytest.fixture(scope="module")
def leaky_submission(tmp_path_factory):
    folder = tmp_path_factory.mktemp("leaky")
    for lesson, edits in LEAKY.items():
        text = (ROOT / "solutions" / f"{lesson}.py").read_text(encoding="utf-8")
        for old, new in edits:
            assert text.count(old) == 1, (lesson, old)
            text = text.replace(old, new)
        (folder / f"{lesson}.py").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize("mode", [(), ("--json",)], ids=["plain", "json"])
@pytest.mark.parametrize("lesson", sorted(LEAKY))
def test_grading_a_leaky_answer_names_no_restricted_listing(leaky_submission, lesson, mode):
    done = methods("check", lesson, "--target", str(leaky_submission), *mode, check=False)
    text = done.stdout.decode("utf-8") + done.stderr.decode("utf-8")
    assert done.returncode == 1 and ("failing" in text or "FAIL" in text.upper()), text[-2000:]
    if mode:
        record = json.loads(done.stdout)
        text += json.dumps(record, ensure_ascii=False)
        messages = [t.get("message") or "" for lesson_record in record["lessons"] for t in lesson_record["tasks"]]
        assert any("ref-" in m or "withheld" in m for m in messages), messages
    assert not _leaks(text, RESTRICTED_IDS), f"grading {lesson} names restricted listings: {_leaks(text, RESTRICTED_IDS)}"
    assert not _leaks(text, RESTRICTED_STRINGS), f"grading {lesson} shows restricted text"
