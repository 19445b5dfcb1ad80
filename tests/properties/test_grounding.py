"""Properties of lesson 09's public functions (hypothesis): one fingerprint per request, every
healthy run holds at every layer, and the user view never shows a withheld listing."""

from __future__ import annotations

import json
import tempfile
import unicodedata
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.catalogue import LISTINGS, QUERIES, RESTRICTED_IDS, RESTRICTED_STRINGS  # noqa: E402
from modules.common.checks import canonical_json, sha256_hex  # noqa: E402
from modules.grounding import (LAYERS, first_failing_layer, query_fingerprint, run_query, trace_record,  # noqa: E402
                               user_view)

FAST = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=8)
CONTRACTS = st.dictionaries(TEXT, st.one_of(st.none(), TEXT, st.lists(TEXT, max_size=3),
                                            st.dictionaries(TEXT, TEXT, max_size=3)), max_size=5)


def _nfc(value):
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {_nfc(k): _nfc(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nfc(v) for v in value]
    return value


def _respell(value, form):
    if isinstance(value, str):
        return unicodedata.normalize(form, value)
    if isinstance(value, dict):
        return {_respell(k, form): _respell(v, form) for k, v in reversed(list(value.items()))}
    if isinstance(value, list):
        return [_respell(v, form) for v in value]
    return value


@FAST
@given(CONTRACTS)
def test_one_fingerprint_per_request(contract):
    value = query_fingerprint(contract)
    assert value == sha256_hex(canonical_json(_nfc(contract)))
    if len(_nfc(contract)) == len(contract):   # two keys that NFC makes one would be one request
        assert query_fingerprint(_respell(contract, "NFD")) == value


@FAST
@given(st.one_of(st.text(max_size=3), st.integers(), st.lists(st.integers(), max_size=2),
                 st.dictionaries(st.integers(), st.integers(), min_size=1, max_size=2),
                 st.dictionaries(TEXT, st.sets(st.integers(), min_size=1, max_size=2), min_size=1, max_size=2)))
def test_a_fingerprint_refuses_what_is_not_a_contract(value):
    with pytest.raises((TypeError, ValueError)) as caught:
        query_fingerprint(value)
    assert "contract" in str(caught.value) or "value" in str(caught.value)


@st.composite
def pools(draw):
    chosen = draw(st.lists(st.sampled_from(LISTINGS), unique_by=lambda x: x.id, min_size=1, max_size=16))
    draw(st.randoms(use_true_random=False)).shuffle(chosen)
    return tuple(chosen)


@FAST
@given(pools(), st.sampled_from(QUERIES), st.sampled_from(["2026-11-01", "2026-07-25", "2030-01-01"]))
def test_a_healthy_run_holds_everywhere_and_shows_nothing_withheld(listings, query, as_of):
    record = trace_record(run_query(query, listings=listings, as_of=as_of))
    assert first_failing_layer(record) is None, first_failing_layer(record)
    seen = user_view(record)
    text = json.dumps(seen)
    assert "ref-" not in text and not any(s in text for s in (*RESTRICTED_IDS, *RESTRICTED_STRINGS))
    assert seen["state"] != "unavailable" and tuple(seen) == ("query", "state", "message", "answer")
    assert list(record)[:3] == ["query_id", "query", "as_of"] and all(layer in record for layer in LAYERS)
