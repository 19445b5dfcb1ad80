"""One pipeline, one answer: every parts-catalogue lesson that shows a query shows the same
contract state, stop, gate decisions, ranking, exclusions, state and packet for it.

Each lesson's `--json` record carries a "queries" list, one row per catalogue query, with
whichever of the AGREED keys the lesson shows. A lesson that extends the pipeline (12
channels, 13 memory) joins by adding its name to LESSONS once its command is built.
"""

import ast
import json
from itertools import combinations

import pytest

from helpers import ROOT, methods
from modules.catalogue import QUERIES

LESSONS = ["hybrid", "eligibility", "grounding", "channels", "memory"]
BUILT = [name for name in LESSONS if (ROOT / "modules" / name / "trace.py").is_file()]
AGREED = ("contract_state", "stopped", "gate", "ranking", "state", "empty_cause", "reason_codes", "exclusions",
          "packet")


@pytest.fixture(scope="module")
def rows() -> dict:
    """{lesson: {query id: row}} read from each built lesson's --json output."""
    found = {}
    for lesson in BUILT:
        record = json.loads(methods(lesson, "--json").stdout)
        found[lesson] = {row["query_id"]: row for row in record["queries"]}
    return found


def disagreements(rows: dict) -> list:
    """Every (query, key, lesson, lesson) whose values differ, for keys both lessons show."""
    found = []
    for first, second in combinations(sorted(rows), 2):
        for query_id in sorted(set(rows[first]) & set(rows[second])):
            a, b = rows[first][query_id], rows[second][query_id]
            for key in AGREED:
                if key in a and key in b and a[key] != b[key]:
                    found.append((query_id, key, first, second))
    return found


def test_the_catalogue_lessons_are_built():
    assert BUILT[:3] == ["hybrid", "eligibility", "grounding"]


def test_every_lesson_shows_every_catalogue_query(rows):
    for lesson, by_id in rows.items():
        assert list(by_id) == [q.id for q in QUERIES], lesson


def test_every_query_gets_the_same_answer_in_every_lesson(rows):
    assert disagreements(rows) == []


def test_the_lessons_share_enough_to_be_compared(rows):
    shared = {key for key in AGREED if sum(key in next(iter(r.values())) for r in rows.values()) >= 2}
    assert shared == set(AGREED)
    assert {"contract_state", "stopped", "gate", "ranking"} <= set(next(iter(rows["hybrid"].values())))


def test_a_planted_disagreement_is_found(rows):
    planted = json.loads(json.dumps(rows))
    planted["grounding"]["PW-Q007"]["state"] = "respond"     # what lesson 09 said before
    planted["hybrid"]["PW-Q001"]["ranking"][0][2] = 0.032787
    found = sorted(disagreements(planted))
    assert {("PW-Q001", "ranking", "eligibility", "hybrid"), ("PW-Q001", "ranking", "grounding", "hybrid"),
            ("PW-Q007", "state", "eligibility", "grounding")} <= set(found)
    # every other built lesson that shows the planted key disagrees too (12 channels, 13 memory), and nothing else
    expected = [(query, key, *sorted((lesson, other))) for query, key, lesson in
                (("PW-Q001", "ranking", "hybrid"), ("PW-Q007", "state", "grounding"))
                for other in rows if other != lesson and key in rows[other][query]]
    assert found == sorted(expected)


# ---------------------------------------------------------------- one presentation contract

def _view(lesson: str) -> list:
    from labtools.registry import lesson_module
    module = lesson_module(lesson)
    return module.view(module.trace())


@pytest.mark.parametrize("lesson", BUILT)
def test_plain_output_fits_88_columns(lesson):
    text = methods(lesson, "--plain").stdout.decode()
    wide = [line for line in text.splitlines() if len(line) > 88]
    assert not wide, f"{lesson}: {len(wide)} lines over 88 columns, e.g. {wide[0]!r}"


@pytest.mark.parametrize("lesson", BUILT)
def test_every_block_has_a_key_and_every_table_a_legend(lesson):
    blocks = _view(lesson)
    keys = [b.get("key") for b in blocks]
    assert None not in keys and len(set(keys)) == len(keys), lesson
    for block in blocks:
        spec = block.get("table") or block.get("chart")
        if spec:
            assert spec.get("legend"), f"{lesson}: table {spec['title']!r} has no legend"


def _module_imports() -> dict:
    """{module: the modules.* and labtools.* modules it imports anywhere in its text}."""
    graph = {}
    for path in sorted((ROOT / "modules").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found |= {f"{node.module}.{alias.name}" for alias in node.names}
        graph[name] = found
    return {name: {m for m in found if m in graph or m.startswith("labtools")} for name, found in graph.items()}


def test_nothing_in_modules_imports_labtools():
    upward = {name: sorted(m for m in found if m.startswith("labtools")) for name, found in _module_imports().items()}
    assert not {name: found for name, found in upward.items() if found}


# ---------------------------------------------------------------- lesson 14 reads the same pipeline

def test_lesson_14_shows_every_id_as_lessons_07_to_13_do(rows):
    """Lesson 14 adds no mechanism: its rows agree with every other lesson's on every key they
    share, and every listing, query and ref it names is one lessons 07-13 name too."""
    import re
    record = json.loads(methods("operate", "--json").stdout)
    mine = {row["query_id"]: row for row in record["queries"]}
    assert list(mine) == [q.id for q in QUERIES]
    found = disagreements(dict(rows, operate=mine))
    assert [d for d in found if "operate" in d[2:]] == []
    ids = re.compile(r"\b(?:PW-L\d{3}|PW-Q\d{3}|CH-Q\d{3}|GR-Q\d{3}|ref-[0-9a-f]{12})\b")
    elsewhere = set()
    for lesson in BUILT:
        elsewhere |= set(ids.findall(methods(lesson, "--json").stdout.decode()))
    shown = set(ids.findall(json.dumps(record)))
    withdrawn = record["counterfactuals"]["withdraw"]["ref"]   # the ref of the listing lesson 14 withdraws
    assert shown - {withdrawn} <= elsewhere, sorted(shown - elsewhere)
    states = {c["query_id"]: c["state"] for c in record["cases"]}
    assert all(states[q] == row["state"] for q, row in rows["grounding"].items())


def test_the_new_lesson_07_queries_agree_with_lesson_08():
    """Lesson 07's query-design queries are new ids: lesson 07 shows each with the contract state and
    the ranking lesson 08's pipeline gives it, and no existing query id is reused."""
    from modules.catalogue.fixture import DESIGN_QUERIES
    from modules.eligibility import evaluate
    record = json.loads(methods("hybrid", "--json").stdout)["query_design"]
    assert not {q.id for q in DESIGN_QUERIES} & {q.id for q in QUERIES}
    assert [r["query_id"] for r in record["rows"]] == [q.id for q in DESIGN_QUERIES]
    for row, query in zip(record["rows"], DESIGN_QUERIES):
        run = evaluate(query)
        assert row["contract_state"] == run.output("contract").state, row
        assert row["ranking"] == [[f.cluster_id, f.listing_id, round(f.ordering_score, 6)]
                                  for f in run.output("fusion").candidates], row
