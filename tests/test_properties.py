"""Invariants of the lessons' mechanisms, checked on generated inputs (hypothesis).

Each property is something every input must satisfy, not one worked example: a
selection never exceeds its budget, keeps rank order and never cuts a passage;
dedupe is idempotent; a reorder is a permutation; fusion ignores the order of its
rankings. Runs are short and reproducible (derandomized, no example database), and
a later lesson's properties are skipped until its module exists.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

# Hypothesis caches what it learns in .hypothesis/; keep that out of the project folder.
set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.context import mechanism as context  # noqa: E402
from modules.context import trace as context_trace
from modules.context.mechanism import Passage, collapse_repeated_ids, fill_quote_budget, select_context  # noqa: E402

FAST = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def lesson_module(name: str):
    """The lesson's module, or skip: other lessons land while this file already tests lesson 01."""
    if importlib.util.find_spec(f"modules.{name}") is None:
        pytest.skip(f"modules/{name}.py does not exist yet")
    return importlib.import_module(f"modules.{name}")


# ---------------------------------------------------------------- lesson 01: select_context

WORDS = st.text(alphabet="ab é\n", max_size=24)
IDS = [f"p{i}" for i in range(10)]


@st.composite
def passages(draw, min_size: int = 0, max_size: int = 8) -> list[Passage]:
    """Distinct ids; a few sources with one or two version labels, so conflicts and duplicate texts occur."""
    ids = draw(st.lists(st.sampled_from(IDS), unique=True, min_size=min_size, max_size=max_size))
    found = []
    for pid in ids:
        text = draw(st.one_of(WORDS, st.sampled_from(["shared text", "other shared text"])))
        found.append(Passage(pid, draw(st.sampled_from(["s1", "s2", "s3", "s4", "s5"])),
                             draw(st.sampled_from(["1", "1", "1", "2"])), f"title {pid}", text))
    return found


BUDGETS = st.integers(min_value=0, max_value=120)


def _positions(candidates, record) -> list[int]:
    where = {p.id: index for index, p in enumerate(candidates)}
    return [where[p.id] for p in record.packet]


@FAST
@given(passages(), BUDGETS)
def test_select_context_stays_in_budget_keeps_rank_order_and_never_cuts(candidates, budget):
    record = select_context(candidates, budget)
    # Never over budget, and the count is of the passages actually handed on.
    assert record.used_quote_chars == sum(len(p.text) for p in record.packet) <= budget
    assert record.max_quote_chars == budget
    # Rank order kept, each passage whole and unchanged.
    positions = _positions(candidates, record)
    assert positions == sorted(positions) and len(set(positions)) == len(positions), "rank order changed"
    for passage, position in zip(record.packet, positions):
        assert passage == candidates[position], "a passage was changed (cut?)"
    # Every candidate has exactly one fate: selected, skipped for budget, duplicate text, or blocked.
    blocked = [p.id for p in candidates if p.source_id in record.conflicts]
    groups = [list(record.packet_ids), list(record.budget_skipped_ids), list(record.duplicate_text_ids), blocked]
    assert sorted(itertools.chain.from_iterable(groups)) == sorted(p.id for p in candidates), groups
    # Deterministic: equal inputs (new objects, a tuple instead of a list) give an equal record.
    again = tuple(Passage(p.id, p.source_id, p.version, p.title, p.text) for p in candidates)
    assert select_context(again, budget) == record


@FAST
@given(passages(), BUDGETS)
def test_skipping_never_truncates_and_each_skip_did_not_fit(candidates, budget):
    record = fill_quote_budget(candidates, budget)
    used = 0
    kept = iter(record.packet)
    skipped = iter(record.budget_skipped_ids)
    for passage in candidates:
        if used + len(passage.text) <= budget:
            assert next(kept) is passage, "a passage that fitted was not copied whole"
            used += len(passage.text)
        else:
            assert next(skipped) == passage.id, "a passage that did not fit was not skipped"
    assert next(kept, None) is None and next(skipped, None) is None


@FAST
@given(st.lists(st.sampled_from([p.id for p in context.CANDIDATES]), min_size=1, max_size=4),
       st.lists(st.integers(min_value=0, max_value=500), min_size=1, max_size=3))
def test_packets_do_not_depend_on_the_labels(labels, budgets):
    honest = context_trace.trace(budgets)
    saved = context.RELEVANT_IDS
    try:
        context.RELEVANT_IDS = tuple(labels)
        relabelled = context_trace.trace(budgets)
    finally:
        context.RELEVANT_IDS = saved
    for before, after in zip(honest["runs"], relabelled["runs"]):
        assert before["packet_ids"] == after["packet_ids"] and before["steps"] == after["steps"]


@FAST
@given(passages(), st.lists(st.integers(min_value=0, max_value=7), max_size=5), BUDGETS)
def test_id_and_text_dedupe_are_idempotent(candidates, repeats, budget):
    # Exact repeats of an id collapse to its first-ranked copy; doing it twice changes nothing.
    with_repeats = candidates + [candidates[i] for i in repeats if i < len(candidates)]
    once = collapse_repeated_ids(tuple(with_repeats))
    assert collapse_repeated_ids(once) == once == tuple(candidates)
    assert select_context(with_repeats, budget) == select_context(candidates, budget)
    # Selecting again from a packet keeps that packet whole: nothing left to dedupe or skip.
    record = select_context(candidates, budget)
    again = select_context(record.packet, record.used_quote_chars)
    assert again.packet == record.packet
    assert again.duplicate_text_ids == () and again.budget_skipped_ids == () and again.conflicts == {}


def test_a_repeated_id_with_different_text_is_refused():
    first = Passage("p1", "s1", "1", "t", "one text")
    with pytest.raises(ValueError, match="p1"):
        select_context([first, Passage("p1", "s1", "1", "t", "another text")], 100)


# ---------------------------------------------------------------- shared units

@FAST
@given(st.lists(st.text(alphabet="abcdefgh é", max_size=14), max_size=6))
def test_lab_tokens_add_up_over_whitespace_and_bytes_never_undercount(pieces):
    from modules.common.units import chars, lab_tokens, utf8_bytes
    joined = " ".join(pieces)
    assert lab_tokens(joined) == sum(lab_tokens(p) for p in pieces)
    assert utf8_bytes(joined) >= chars(joined) and lab_tokens(joined) <= chars(joined)



@FAST
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=12) | st.text(alphabet="Caf\u00e9e\u0301\u01f0j\u030c ", max_size=12))
def test_the_shared_nfc_is_unicodedatas_nfc(text):
    # checks.nfc skips unicodedata for ASCII text: that shortcut must never change a result.
    import unicodedata
    from modules.common.checks import nfc
    assert nfc(text) == unicodedata.normalize("NFC", text)


def test_the_shared_nfc_names_a_value_that_is_not_text():
    from modules.common.checks import nfc
    with pytest.raises(TypeError, match=r"query.text must be a str, got bytes b'seal'"):
        nfc(b"seal", "query.text")

# ---------------------------------------------------------------- lesson 02: budget walks

@st.composite
def budget_chunks(draw):
    budget = lesson_module("budget")
    ids = draw(st.lists(st.sampled_from(IDS), unique=True, max_size=8))
    return [budget.RankedPassage(cid, draw(st.text(alphabet="abc dé", max_size=30))) for cid in ids]


@FAST
@given(budget_chunks(), BUDGETS, st.sampled_from(["chars", "utf8_bytes", "lab_tokens"]),
       st.sampled_from(["skip", "stop", "truncate"]))
def test_budget_walks_never_exceed_and_only_truncate_cuts(chunks, limit, unit, policy):
    budget = lesson_module("budget")
    from modules.common import units
    counter = getattr(units, unit)
    walk = budget.fill_budget(chunks, limit, counter, policy)
    assert walk.used == sum(counter(c.text) for c in walk.kept) <= limit
    originals = {c.id: c for c in chunks}
    order = [c.id for c in chunks]
    kept_positions = [order.index(c.id) for c in walk.kept]
    assert kept_positions == sorted(kept_positions), "the walk changed the rank order"
    assert sorted(walk.kept_ids + walk.skipped_ids) == sorted(order), "a chunk is neither kept nor skipped"
    for chunk in walk.kept:
        if chunk.id in walk.cut_ids:
            assert policy == "truncate" and originals[chunk.id].text.startswith(chunk.text)
            assert chunk.text != originals[chunk.id].text
        else:
            assert chunk == originals[chunk.id]
    if policy == "stop":
        assert list(walk.kept_ids) == order[:len(walk.kept_ids)], "stop keeps a prefix of the ranking"
    if policy != "truncate":
        assert walk.cut_ids == ()


# ---------------------------------------------------------------- lesson 03: dedupe

@st.composite
def dedupe_chunks(draw):
    dedupe = lesson_module("dedupe")
    ids = draw(st.lists(st.sampled_from(IDS), unique=True, max_size=8))
    found = []
    for cid in ids:
        start = draw(st.integers(min_value=1, max_value=12))
        found.append(dedupe.RetrievedChunk(
            cid, draw(st.sampled_from(["a.md", "b.md", "c.md"])), draw(st.sampled_from(["x", "y", "z", "w"])),
            score=draw(st.sampled_from([0.5, 0.7, 0.9])), canonical_id=draw(st.sampled_from(["", "doc-1", "doc-2"])),
            copy=draw(st.sampled_from(dedupe.COPY_KINDS)), start_line=start,
            end_line=start + draw(st.integers(min_value=0, max_value=5))))
    return found


@FAST
@given(dedupe_chunks(), st.randoms(use_true_random=False))
def test_non_overlapping_selection_has_no_overlap_and_ignores_input_order(chunks, rng):
    dedupe = lesson_module("dedupe")
    chosen = dedupe.select_non_overlapping(chunks)
    for a, b in itertools.combinations(chosen.selected, 2):
        assert not dedupe.lines_overlap(a, b), (a.id, b.id)
    assert sorted(chosen.selected_ids + tuple(chosen.rejected)) == sorted(c.id for c in chunks)
    shuffled = list(chunks)
    rng.shuffle(shuffled)
    assert dedupe.select_non_overlapping(shuffled) == chosen


# ---------------------------------------------------------------- lesson 05: reorder

@FAST
@given(st.integers(min_value=0, max_value=40))
def test_reorders_are_permutations_that_place_the_best_at_an_edge(count):
    order = lesson_module("order")
    items = list(range(count))
    placed = order.reorder_lost_in_middle(items)
    assert sorted(placed) == items, "reorder_lost_in_middle lost or repeated an item"
    if count:
        assert placed[0] == 0, "the best item must stay first"
    if count >= 2:
        assert placed[-1] == 1, "the second best item must go last"
    # The middle holds the worst: rank r sits no nearer an edge than rank r - 2.
    edge = [min(i, count - 1 - i) for i in range(count)]
    distance = {item: edge[i] for i, item in enumerate(placed)}
    assert all(distance[r] >= distance[r - 2] for r in range(2, count))
    assert sorted(order.reorder_parity_variant(items)) == items


# ---------------------------------------------------------------- lesson 07: fusion

@st.composite
def rankings(draw):
    pool = [f"d{i}" for i in range(8)]
    return [draw(st.permutations(pool)).__getitem__(slice(0, draw(st.integers(min_value=0, max_value=8))))
            for _ in range(draw(st.integers(min_value=1, max_value=4)))]


@FAST
@given(rankings(), st.randoms(use_true_random=False), st.integers(min_value=1, max_value=80))
def test_rank_fusion_ignores_the_order_of_its_rankings(lists, rng, k):
    hybrid = lesson_module("hybrid")
    fused = hybrid.reciprocal_rank_fusion(lists, k)
    shuffled = list(lists)
    rng.shuffle(shuffled)
    again = hybrid.reciprocal_rank_fusion(shuffled, k)
    assert [item for item, _ in again] == [item for item, _ in fused], (lists, shuffled)
    assert sorted(item for item, _ in fused) == sorted({item for ranking in lists for item in ranking})
    top = [ranking[0] for ranking in lists if ranking]
    if top and len(set(top)) == 1 and len(top) == len(lists):
        assert fused[0][0] == top[0], "an item ranked first everywhere must fuse first"




# ---------------------------------------------------------------- lesson 04: versions

@FAST
@given(st.integers(min_value=1, max_value=9999), st.integers(min_value=0, max_value=13),
       st.integers(min_value=0, max_value=32))
def test_check_day_accepts_exactly_the_calendar_days(year, month, day):
    import datetime
    versions = lesson_module("versions")
    text = f"{year:04d}-{month:02d}-{day:02d}"
    try:
        datetime.date.fromisoformat(text)
        real = True
    except ValueError:
        real = False
    if real:
        assert versions.check_day(text, "day") == text
    else:
        with pytest.raises(ValueError, match="day"):
            versions.check_day(text, "day")


@st.composite
def version_records(draw):
    versions = lesson_module("versions")
    found = []
    for number in range(draw(st.integers(min_value=0, max_value=6))):
        start = draw(st.sampled_from(["2026-01-01", "2026-03-01", "2026-06-30", "2026-07-01"]))
        until = draw(st.sampled_from([None, "2026-06-30", "2026-07-01", "2026-12-31"]))
        if until is not None and until < start:
            until = None
        found.append(versions.Record(f"r{number}", draw(st.sampled_from(["s1", "s2"])),
                                     draw(st.sampled_from(["1", "2", "10"])), "t", f"text {number}",
                                     valid_from=start, valid_until=until))
    return found


@FAST
@given(version_records(), st.sampled_from(["2026-06-30", "2026-07-01", "2026-07-02"]))
def test_valid_on_keeps_exactly_the_records_whose_window_holds_the_day(records, day):
    versions = lesson_module("versions")
    kept = versions.valid_on(records, day)
    assert list(kept) == [r for r in records if r.valid_from <= day and (r.valid_until is None or day <= r.valid_until)]


@FAST
@given(version_records(), st.data(), st.randoms(use_true_random=False))
def test_resolve_or_abstain_ignores_order_and_version_labels(records, data, rng):
    versions = lesson_module("versions")
    ids = [r.id for r in records]
    supersedes = {}
    if ids:
        for new in data.draw(st.lists(st.sampled_from(ids), unique=True, max_size=3)):
            olds = data.draw(st.lists(st.sampled_from([i for i in ids if i != new] or ["none"]), unique=True, max_size=2))
            supersedes[new] = tuple(olds)
    decided = versions.resolve_or_abstain(records, supersedes)
    shuffled = list(records)
    rng.shuffle(shuffled)
    relabelled = [versions.Record(r.id, r.source_id, "99" if r.version == "1" else "1", r.title, r.text,
                                  valid_from=r.valid_from, valid_until=r.valid_until) for r in records]
    for other in (versions.resolve_or_abstain(shuffled, supersedes), versions.resolve_or_abstain(relabelled, supersedes)):
        assert other["decision"] == decided["decision"] and other["selected_id"] == decided["selected_id"]
        assert sorted(other["presented_ids"]) == sorted(decided["presented_ids"])
