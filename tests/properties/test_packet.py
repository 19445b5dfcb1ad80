"""Lesson 06's public functions on generated inputs (hypothesis).

Every input either gives a result that keeps the lesson's invariants, or raises
ValueError/TypeError: a span holds end - start characters, escaping round-trips and
leaves no markup, the rendered packet parses back to the same evidence after any
Unicode normalisation, the parser accepts only what the renderer writes, the seal
ignores dict and set order, adjacent expansion stays within its budget, and no
evidence ever changes the allowed tools.
"""

from __future__ import annotations

import tempfile
import unicodedata
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, assume, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.packet import (TRUST_TIERS, Document, Evidence, admit_by_trust, cap_per_document, chunks_of,  # noqa: E402
                            cite, expand_adjacent, extract_span, nfc, packet_seal, revalidate)
from modules.packet.fidelity import KINDS, fidelity_check, naive_compress, words  # noqa: E402
from modules.packet.wrapper import (TOOLS, TaskPolicy, assemble_packet, authorize_tool_call,  # noqa: E402
                                    escape_text, parse_evidence, render_evidence, unescape_text, wire_record)

FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
FORMS = ("NFC", "NFD", "NFKC", "NFKD")
ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
HOSTILE = st.sampled_from(["</evidence>", '<evidence id="x">', "</evidence_set>", '" trust="official', "'", "&",
                           "&amp;", "&lt;", "&#x338;", "\u0338", "\u0301", "\uff1c", "\uff1e", "\uff06lt;", "\ufe64",
                           "\u226e", "\u226f", "\u00e9", "e\u0301", "\ufb01", "\u00b2", "\n", "open_door(", "＂"])
TEXT = st.lists(st.one_of(ANY_TEXT, HOSTILE), max_size=6).map("".join)


def _evidence(draw, index: int) -> Evidence:
    text = nfc(draw(TEXT))
    start = draw(st.integers(min_value=0, max_value=1000))
    located = draw(st.booleans())
    return Evidence(f"{nfc(draw(TEXT))}#{index}", nfc(draw(TEXT)), nfc(draw(TEXT)), nfc(draw(TEXT)),
                    nfc(draw(TEXT)), start, start + len(text), text,
                    draw(st.sampled_from(["retrieved", "adjacent_to:x#0"])), draw(st.sampled_from(TRUST_TIERS)),
                    "parsed-element" if located else "canonical",
                    "page=3/table=1" if located else "whole-text")


@st.composite
def evidence_lists(draw):
    return [_evidence(draw, index) for index in range(draw(st.integers(min_value=0, max_value=4)))]


# ---------------------------------------------------------------- spans

@FAST
@given(ANY_TEXT, st.integers(min_value=-5, max_value=50), st.integers(min_value=-5, max_value=50))
def test_a_span_holds_end_minus_start_characters_or_is_refused(text, start, end):
    try:
        quote = extract_span(text, start, end)
    except ValueError:
        assert not 0 <= start <= end <= len(text)
    else:
        assert len(quote) == end - start and text.startswith(quote, start)


@FAST
@given(TEXT, TEXT, TEXT)
def test_revalidation_reports_ok_moved_or_drifted_truthfully(before, quote, after):
    doc = Document("d", "t", "r1", "2026-01-01", before + quote + after)
    text = nfc(doc.text)
    start = len(nfc(before))
    assume(text[start:start + len(nfc(quote))] == nfc(quote))
    span = cite(doc, start, start + len(nfc(quote)))
    assert revalidate(span, doc)["status"] == "ok"
    edited = Document("d", "t", "r2", "2026-02-01", "x" + doc.text)
    found = revalidate(span, edited)
    if found["status"] == "drifted":
        assert nfc(edited.text).count(span["quote"]) != 1
    else:
        assert nfc(edited.text)[found["start"]:found["end"]] == span["quote"]


@FAST
@given(TEXT)
def test_chunks_cover_the_nfc_text_line_by_line(text):
    doc = Document("d", "t", "r1", "2026-01-01", text)
    chunks = chunks_of(doc)
    assert "\n".join(c.text for c in chunks) == nfc(text)
    assert all(nfc(text)[c.start:c.end] == c.text for c in chunks)


# ---------------------------------------------------------------- the wrapper

@FAST
@given(TEXT)
def test_escaping_round_trips_and_leaves_no_markup(text):
    escaped = escape_text(text)
    assert unescape_text(escaped) == text
    assert not set(escaped) & set("<>\"'")
    for form in FORMS:  # no character of the escaped text changes, or turns into markup, under normalisation
        assert unicodedata.normalize(form, escaped).count("&") == escaped.count("&")


@FAST
@given(evidence_lists(), st.sampled_from(FORMS))
def test_the_rendered_packet_parses_to_the_same_evidence_after_any_normalisation(items, form):
    assume(len({i.id for i in items}) == len(items))
    rendered = render_evidence(items)
    assert parse_evidence(unicodedata.normalize(form, rendered)) == [wire_record(i) for i in items]
    inner = rendered[rendered.index("\n") + 1:-len("</evidence_set>")]
    assert inner.count("<") == 2 * len(items) and inner.count(">") == 2 * len(items)


@FAST
@given(evidence_lists(), st.integers(min_value=0, max_value=2000), st.sampled_from(["", "x", "<", ">", '"', "&", "\n",
                                                                                   " ", "=", "\u0338", "0", "\uff1c"]),
       st.integers(min_value=0, max_value=3))
def test_the_parser_accepts_only_what_the_renderer_writes(items, at, insert, cut):
    assume(len({i.id for i in items}) == len(items))
    rendered = render_evidence(items)
    at = at % (len(rendered) + 1)
    edited = rendered[:at] + insert + rendered[at + cut:]
    try:
        parsed = parse_evidence(edited)
    except ValueError:
        return
    again = [Evidence(**{name: r[name] for name in Evidence.__dataclass_fields__}) for r in parsed]
    assert render_evidence(again) == nfc(edited), "the parser accepted text the renderer cannot write"


@FAST
@given(ANY_TEXT)
def test_parsing_any_text_gives_records_or_a_value_error(text):
    try:
        parsed = parse_evidence(text)
    except ValueError:
        return
    assert all(isinstance(r["start"], int) and isinstance(r["end"], int) for r in parsed)


# ---------------------------------------------------------------- trust and tools

@FAST
@given(evidence_lists(), st.sampled_from(TRUST_TIERS), st.lists(st.sampled_from(TOOLS), unique=True, max_size=3),
       st.text(max_size=20))
def test_no_evidence_changes_the_allowed_tools(items, floor, tools, tool):
    assume(len({i.id for i in items}) == len(items))
    policy = TaskPolicy("task", tuple(tools), floor)
    built = assemble_packet(policy, "q", items)
    assert built["allowed_tools"] == tools
    assert authorize_tool_call(policy, tool) == (tool in tools)
    kept, excluded = admit_by_trust(items, floor)
    assert [r["id"] for r in parse_evidence(built["evidence"])] == [i.id for i in kept]
    assert len(kept) + len(excluded) == len(items)
    assert all(TRUST_TIERS.index(i.trust) <= TRUST_TIERS.index(floor) for i in kept)


# ---------------------------------------------------------------- selection

@st.composite
def documents_and_hits(draw):
    docs = [Document(f"d{n}", "t", "r1", "2026-01-01",
                     "\n".join(draw(st.lists(st.text(alphabet="abc ", max_size=12), min_size=1, max_size=5))))
            for n in range(draw(st.integers(min_value=1, max_value=3)))]
    chunks = [c for doc in docs for c in chunks_of(doc)]
    hits = draw(st.lists(st.sampled_from(chunks), max_size=5))
    return chunks, hits


@FAST
@given(documents_and_hits(), st.integers(min_value=0, max_value=3), st.integers(min_value=0, max_value=3),
       st.integers(min_value=0, max_value=40))
def test_adjacent_expansion_stays_within_budget_and_marks_neighbours(pool, before, after, budget):
    chunks, hits = pool
    packet = expand_adjacent(hits, chunks[::-1], before, after, budget)
    assert sum(len(i.text) for i in packet) <= budget
    assert len({i.id for i in packet}) == len(packet)
    hit_ids = [h.id for h in hits]
    for item in packet:
        if item.relation == "retrieved":
            assert item.id in hit_ids
        else:
            owner = item.relation.split(":", 1)[1]
            assert item.id not in hit_ids and owner in hit_ids and item.doc_id == owner.split("#")[0]


@FAST
@given(documents_and_hits(), st.one_of(st.none(), st.integers(min_value=1, max_value=3)),
       st.integers(min_value=1, max_value=5))
def test_the_cap_keeps_rank_order_and_its_limits(pool, cap, k):
    _, hits = pool
    found = cap_per_document(hits, cap, k)
    assert len(found["kept"]) <= k and len(set(found["kept"] + found["capped"])) == len(found["kept"] + found["capped"])
    order = [h.id for h in hits]
    assert found["kept"] == sorted(found["kept"], key=order.index)
    for doc in {h.doc_id for h in hits}:
        assert cap is None or sum(i.startswith(f"{doc}#") for i in found["kept"]) <= cap


# ---------------------------------------------------------------- the seal

KEYS = st.text(max_size=6)
VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8)
                      | st.frozensets(st.text(max_size=5), max_size=5),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                      max_leaves=12)


def _rebuilt(value):
    """The same value, every dict filled in reverse order and every set rebuilt in reverse."""
    if isinstance(value, dict):
        return {key: _rebuilt(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_rebuilt(item) for item in value]
    if isinstance(value, frozenset):
        return set(sorted(value, reverse=True))
    return value


@FAST
@given(st.dictionaries(KEYS, VALUES, max_size=4))
def test_the_seal_ignores_dict_and_set_order(fields):
    seal = packet_seal(fields)
    assert packet_seal(_rebuilt(fields)) == seal and len(seal) == 64


@FAST
@given(st.dictionaries(KEYS, st.recursive(st.floats() | st.integers() | st.text(max_size=3)
                                          | st.sets(st.integers() | st.text(max_size=2), max_size=3),
                                          lambda inner: st.lists(inner, max_size=2), max_leaves=6), max_size=3))
def test_a_seal_or_a_clear_error(fields):
    try:
        assert len(packet_seal(fields)) == 64
    except (TypeError, ValueError) as error:
        assert "fields" in str(error) or "value" in str(error)


# ---------------------------------------------------------------- compression

@FAST
@given(TEXT, TEXT)
def test_the_fidelity_check_reports_exactly_the_lost_tokens(original, extra):
    assert fidelity_check(original, original)["ok"]
    assert fidelity_check(original, extra + " " + original)["ok"]
    found = fidelity_check(original, extra)
    kept = set(words(extra))
    lost = [token for kind in KINDS for token in found[kind]]
    assert all(token in words(original) and token not in kept for token in lost)
    assert len(lost) == len(set(lost)) and found["ok"] == (not lost)


@FAST
@given(TEXT, st.integers(min_value=1, max_value=8))
def test_naive_compression_only_drops_words(text, max_words):
    compressed = naive_compress(text, max_words)
    assert compressed.endswith(".") and len(compressed[:-1].split()) <= max_words
    assert set(compressed[:-1].split()) <= set(text.replace(";", ",").split(",", 1)[0].split()) | {""} | {
        w.rstrip(".") for w in text.split()}
