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
WITH_ALL = ()   # lessons whose --all output shows what the default leaves out
BUILT = [name for name in LESSONS if (ROOT / "modules" / name / "trace.py").is_file()]
AGREED = ("contract_state", "stopped", "gate", "ranking", "state", "empty_cause", "reason_codes", "exclusions",
          "packet")


@pytest.fixture(scope="module")
def rows() -> dict:
    """{lesson: {query id: row}} read from each built lesson's --json output (with --all where it has one)."""
    found = {}
    for lesson in BUILT:
        record = json.loads(methods(lesson, *(("--all",) if lesson in WITH_ALL else ()), "--json").stdout)
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


# ---------------------------------------------------------------- one world, one truth per id
# Issue 27.1: every id the course shows (help desk, capstone, catalogue) has one text, one
# source and one version everywhere: in every lesson's fixtures and in every --json record.
# And one decision: lessons 01, 04 and 10 hand on the same packet for the same candidates
# and budget.

# Lesson 03's point is that one id arriving with another text is refused: the planted copy
# in ID_CONFLICT is that refused input (its trace prints the error), not a record of the world.
PLANTED = {"ID_CONFLICT"}
SOURCE_FIELDS, VERSION_FIELDS = ("source_id", "source", "doc_id"), ("version", "revision")


def _fixture_modules() -> list:
    import importlib
    names = ["modules.helpdesk.passages", "modules.catalogue.fixture"]
    for folder in sorted((ROOT / "modules").iterdir()):
        for part in ("mechanism", "fixture", "trace"):
            if (folder / f"{part}.py").is_file() and folder.name not in ("audit", "helpdesk", "catalogue"):
                names.append(f"modules.{folder.name}.{part}")
    return [importlib.import_module(name) for name in names]


def _records_in(value, seen: set, depth: int = 0):
    """Every object with an `id` and a `text` inside value (tuples, lists, dict values)."""
    if depth > 4 or id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(getattr(value, "id", None), str) and isinstance(getattr(value, "text", None), str):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _records_in(item, seen, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _records_in(item, seen, depth + 1)


def _first(obj, names):
    for name in names:
        value = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
        if isinstance(value, str):
            return value
    return None


def fixture_facts() -> dict:
    """{id: {"text": {...}, "source": {...}, "version": {...}, "where": {...}}} from every fixture."""
    facts: dict = {}
    for module in _fixture_modules():
        seen: set = set()
        for name, value in sorted(vars(module).items()):
            if name.startswith("__") or name in PLANTED:
                continue
            for record in _records_in(value, seen):
                row = facts.setdefault(record.id, {"text": set(), "chars": set(), "source": set(),
                                                   "version": set(), "where": set()})
                row["text"].add(record.text)
                row["chars"].add(len(record.text))
                for key, fields in (("source", SOURCE_FIELDS), ("version", VERSION_FIELDS)):
                    found = _first(record, fields)
                    if found is not None:
                        row[key].add(found)
                row["where"].add(f"{module.__name__}.{name}")
    return facts


def one_passage_two_ids(facts: dict) -> list:
    """(source, text, ids) for every passage text that one source carries under two ids, in any
    world or lesson fixture: one passage has one id (issue 35). Records without a source (queries,
    bare ranked chunks) name no passage and are left out."""
    ids_of: dict = {}
    for key, row in facts.items():
        for text in row["text"]:
            for source in row["source"]:
                ids_of.setdefault((source, text), set()).add(key)
    return sorted((source, text, sorted(ids)) for (source, text), ids in ids_of.items() if len(ids) > 1)


def test_one_passage_has_one_id_in_every_world():
    # Read from the fixture modules directly (no lesson is run): the help-desk world, the parts
    # catalogue and every lesson's mechanism, fixture and trace. The audit's demo corpus is
    # another product's data and is not read here.
    assert one_passage_two_ids(fixture_facts()) == []


def test_a_planted_second_id_is_found():
    facts = fixture_facts()
    returns = facts["returns-faq"]
    facts["faq-returns"] = {"text": set(returns["text"]), "chars": set(returns["chars"]), "source": {"faq"},
                            "version": set(), "where": {"planted"}}     # what lesson 03 once called it
    found = [(source, ids) for source, _text, ids in one_passage_two_ids(facts)]
    assert found == [("faq", ["faq-returns", "returns-faq"])]
    facts["faq-returns"]["source"] = {"faq-archive"}                    # another source: a copy, not this rule's
    assert one_passage_two_ids(facts) == []


def _json_rows(value, lesson: str, path: str = ""):
    if isinstance(value, dict):
        if isinstance(value.get("id"), str) and any(k in value for k in ("text", "chars", *SOURCE_FIELDS,
                                                                          *VERSION_FIELDS)):
            yield lesson, path, value
        for key, item in value.items():
            yield from _json_rows(item, lesson, f"{path}.{key}")
    elif isinstance(value, list):
        for item in value:
            yield from _json_rows(item, lesson, f"{path}[]")


@pytest.fixture(scope="module")
def records() -> dict:
    from labtools.registry import built_lessons
    return {lesson: json.loads(methods(lesson, "--json").stdout) for lesson in built_lessons()}


def id_disagreements(facts: dict, records: dict) -> list:
    """(id, field, values) for every id shown with two texts, lengths, sources or versions."""
    merged = {key: {k: set(v) for k, v in row.items()} for key, row in facts.items()}
    for lesson, path, row in (r for name, record in records.items() for r in _json_rows(record, name)):
        if row["id"] not in merged:
            continue    # ids of other kinds (queries, runs, steps of lesson 12's pipeline)
        known = merged[row["id"]]
        if isinstance(row.get("text"), str):
            known["text"].add(row["text"])
            known["chars"].add(len(row["text"]))
        if isinstance(row.get("chars"), int) and "#" not in row["id"]:
            known["chars"].add(row["chars"])
        for key, fields in (("source", SOURCE_FIELDS), ("version", VERSION_FIELDS)):
            found = _first(row, fields)
            if found is not None:
                known[key].add(found)
        known["where"].add(f"{lesson}{path}")
    return sorted((key, field, sorted(map(str, row[field]))) for key, row in merged.items()
                  for field in ("text", "chars", "source", "version") if len(row[field]) > 1)


def test_every_id_has_one_text_source_and_version(records):
    facts = fixture_facts()
    assert {"hours-v1", "hours-v2", "returns-v1", "laptop-loans", "A1", "D1"} <= set(facts)
    assert id_disagreements(facts, records) == []


def test_a_planted_second_text_is_found(records):
    facts = fixture_facts()
    facts["hours-v1"]["text"].add("The help desk opens at 9:30 on weekdays and is closed at weekends.")
    planted = json.loads(json.dumps(records))
    planted["context"]["candidates"][0]["chars"] = 85          # what lesson 03 said of returns-v1
    found = {(key, field) for key, field, _ in id_disagreements(facts, planted)}
    assert {("hours-v1", "text"), ("returns-v1", "chars")} <= found


def selection_disagreements(records: dict) -> list:
    """((candidates, budget), lessons) for every selection two lessons decide differently."""
    decided: dict = {}
    for lesson, record in sorted(records.items()):
        for row in record.get("selections", []):
            key = (tuple(row["candidates"]), row["max_quote_chars"])
            decided.setdefault(key, {})[lesson] = (row["packet_ids"], row["unresolved"])
    return sorted((key, sorted(by)) for key, by in decided.items() if len({json.dumps(v) for v in by.values()}) > 1)


def test_the_same_candidates_and_budget_get_the_same_packet(records):
    shared = {}
    for lesson in ("context", "versions", "answer"):
        for row in records[lesson]["selections"]:
            shared.setdefault((tuple(row["candidates"]), row["max_quote_chars"]), set()).add(lesson)
    # lesson 01's three budgets are lesson 10's; lesson 04's 400-character run is lesson 10's conflict
    assert sum(lessons >= {"context", "answer"} for lessons in shared.values()) == 3
    assert sum(lessons >= {"versions", "answer"} for lessons in shared.values()) == 1
    assert selection_disagreements(records) == []
    planted = json.loads(json.dumps(records))
    conflict = next(r for r in planted["answer"]["selections"] if r["candidates"][2:3] == ["hours-v1"])
    conflict["packet_ids"].insert(1, "hours-v2")             # what lesson 10 did before: versions together
    assert [lessons for _, lessons in selection_disagreements(planted)] == [["answer", "versions"]]


def test_a_blocked_source_never_reaches_a_packet_as_evidence(records):
    for lesson in ("context", "versions", "answer"):
        for row in records[lesson]["selections"]:
            blocked = {i for c in row["unresolved"] for i in c["ids"]}
            assert not blocked & set(row["packet_ids"]), (lesson, row["max_quote_chars"])
            assert all(c["state"] == "unresolved" and len(c["quotes"]) == len(c["ids"]) >= 2
                       for c in row["unresolved"])


HELP_DESK_LESSONS = ("context", "budget", "dedupe", "versions", "packet", "answer", "practice")


@pytest.mark.parametrize("lesson", HELP_DESK_LESSONS)
def test_help_desk_lessons_print_tables_that_fit_80_columns(lesson):
    # Issue 27.7: the renderer stacks a table wider than 80 columns as "column: value" lines;
    # these lessons' tables fit instead (measured in UTF-8 bytes too, as `awk 'length > 80'` does).
    text = methods(lesson, "--plain").stdout.decode()
    assert not [line for line in text.splitlines() if len(line.encode("utf-8")) > 80]
    assert "-- row 1 of" not in text


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
        elsewhere |= set(ids.findall(methods(lesson, *(("--all",) if lesson in WITH_ALL else ()),
                                             "--json").stdout.decode()))
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


# ---------------------------------------------------------------- one rebuild, one layer

def rebuild_layers(records: dict) -> dict:
    """{the version a rebuild produces: {lesson: the layer it names}} from lessons 09, 12 and 14."""
    found: dict = {}
    for variant in records["grounding"]["variants"]:
        found.setdefault(variant["change"][1], {})["grounding"] = variant["first_failing_layer"]
    anomaly = records["channels"]["anomaly"]
    found.setdefault(anomaly["image_versions"][1], {})["channels"] = anomaly["layer"]
    for rebuild in records["operate"]["anomalies"].values():
        for _label, _before, after in rebuild["changed_versions"]:
            found.setdefault(after, {})["operate"] = rebuild["layer"]
    return found


def layer_disagreements(records: dict) -> list:
    """(rebuild version, {lesson: layer}) for every rebuild named by two layers, or by a layer that is
    not one of lesson 09's ten."""
    from modules.grounding.checks import LAYERS
    return sorted((version, by) for version, by in rebuild_layers(records).items()
                  if len(set(by.values())) > 1 or not set(by.values()) <= set(LAYERS))


def test_one_rebuild_is_named_by_one_of_lesson_09s_layers_in_every_lesson(records):
    found = rebuild_layers(records)
    assert found["source/2-rebuild"] == {"grounding": "source", "operate": "source"}
    assert found["image/1+ivf/1:9x2"] == {"channels": "retrieval", "operate": "retrieval"}
    assert layer_disagreements(records) == []
    # one statement about the image rebuild's permission: the same exclusions, the same lost candidate
    image = records["operate"]["anomalies"]["image"]
    assert records["channels"]["anomaly"]["permission_exclusions"] == image["permission"] == [14, 13]
    assert records["channels"]["anomaly"]["restricted_proposed"] == image["restricted_proposed"]


def test_a_rebuild_named_by_two_layers_is_found(records):
    planted = json.loads(json.dumps(records))
    planted["operate"]["anomalies"]["rebuild"]["layer"] = "index construction"   # what lesson 14 said before
    planted["channels"]["anomaly"]["layer"] = "ranking"
    assert [version for version, _by in layer_disagreements(planted)] == ["image/1+ivf/1:9x2", "source/2-rebuild"]
