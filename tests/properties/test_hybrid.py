"""Properties of lesson 07's public functions (hypothesis): any input either keeps the lesson's
invariants or raises ValueError/TypeError naming the argument."""

from __future__ import annotations

import math
import tempfile
from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.catalogue import LISTINGS  # noqa: E402
from modules.hybrid import (RRF_K_MAX, cluster_rankings, cosine, parse_diameter, parse_query,  # noqa: E402
                            reciprocal_rank_fusion, to_mm)
from modules.catalogue import QUERIES  # noqa: E402

FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
ANYTHING = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), st.text(max_size=6),
                     st.lists(st.integers(), max_size=3), st.sets(st.text(max_size=2), max_size=3),
                     st.dictionaries(st.text(max_size=2), st.integers(), max_size=2))
IDS = [f"d{i}" for i in range(8)]


@st.composite
def rankings(draw):
    return [draw(st.permutations(IDS))[:draw(st.integers(min_value=0, max_value=8))]
            for _ in range(draw(st.integers(min_value=0, max_value=4)))]


@FAST
@given(rankings(), st.integers(min_value=1, max_value=RRF_K_MAX), st.randoms(use_true_random=False))
def test_rrf_fuses_every_id_once_by_rank_alone(lists, k, rng):
    fused = reciprocal_rank_fusion(lists, k)
    ids = [item for item, _ in fused]
    assert sorted(ids) == sorted({item for ranking in lists for item in ranking}) and len(ids) == len(set(ids))
    assert [score for _, score in fused] == sorted((score for _, score in fused), reverse=True)
    shuffled = list(lists)
    rng.shuffle(shuffled)
    assert reciprocal_rank_fusion(shuffled, k) == fused
    tuples = [tuple(ranking) for ranking in lists]
    assert reciprocal_rank_fusion(tuples, k) == fused
    if len(lists) == 1 and len(lists[0]) > 1:
        assert ids == list(lists[0]), "one ranking fuses to itself, whatever k"


@FAST
@given(st.one_of(ANYTHING, st.lists(ANYTHING, max_size=3)), st.one_of(ANYTHING, st.integers()))
def test_rrf_refuses_what_is_not_rankings_or_k(lists, k):
    try:
        fused = reciprocal_rank_fusion(lists, k)
    except (TypeError, ValueError) as error:
        assert "rankings" in str(error) or "k must" in str(error)
    else:
        assert isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= RRF_K_MAX
        assert all(isinstance(item, str) for item, _ in fused)


@FAST
@given(st.lists(st.lists(st.sampled_from(IDS), unique=True, max_size=8), max_size=4))
def test_cluster_rankings_keep_each_cluster_once_in_first_member_order(lists):
    cluster_of = {i: f"c{int(i[1:]) // 2}" for i in IDS}
    for ranking, clusters in zip(lists, cluster_rankings(lists, cluster_of)):
        assert list(clusters) == list(dict.fromkeys(cluster_of[i] for i in ranking))


VECTORS = st.tuples(*[st.floats(min_value=-1e300, max_value=1e300, allow_nan=False)] * 3)


@FAST
@given(VECTORS, VECTORS, st.sampled_from([1e-250, 1e-3, 1.0, 7.0, 1e250]))
def test_cosine_is_bounded_symmetric_and_scale_free(a, b, scale):
    try:
        value = cosine(a, b)
    except ValueError as error:
        assert "zero vector" in str(error) or "denormal" in str(error)
        return
    assert -1.0 <= value <= 1.0 and value == cosine(b, a)
    scaled = tuple(x * scale for x in a)
    if all(math.isfinite(x) for x in scaled) and max(abs(x) for x in scaled) > 1e-300:
        assert math.isclose(cosine(scaled, b), value, rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(cosine(a, a), 1.0, rel_tol=1e-12)


@FAST
@given(ANYTHING, VECTORS)
def test_cosine_refuses_what_is_not_a_vector(a, b):
    try:
        cosine(a, b if any(b) else (1.0, 0.0, 0.0))
    except (TypeError, ValueError) as error:
        assert "vector" in str(error) or "rejected" in str(error)
    else:
        assert isinstance(a, tuple)


@FAST
@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=0, max_value=10**6),
       st.integers(min_value=0, max_value=6), st.sampled_from(["mm", "inch"]))
def test_to_mm_is_exact(whole, frac, places, unit):
    text = f"{whole}.{str(frac).zfill(places)[:places]}" if places else str(whole)
    want = Decimal(text) * (Decimal("25.4") if unit == "inch" else 1)
    assert Decimal(to_mm(text, unit)) == want


@FAST
@given(st.text(max_size=40))
def test_parse_diameter_reads_any_text(text):
    state, diameter, reason = parse_diameter(text)
    assert state in ("ready", "clarify", "failed") and isinstance(reason, str)
    assert (diameter is not None) <= (state == "ready")


@FAST
@given(st.text(alphabet="abc 16mé\u0301.", min_size=1, max_size=30).filter(str.strip))
def test_a_query_contract_keeps_its_original_and_versions_every_step(text):
    contract = parse_query(replace(QUERIES[0], text=text))
    assert contract.original == text and contract.transformations[0].input == text
    assert all("/" in step.version for step in contract.transformations)
    assert len(LISTINGS) == 16
