"""Properties of lesson 12's public functions (hypothesis): the metrics stay within their bounds
and ignore what ids are called, the index is exact when it opens every list, a fallback never
weakens a state and never answers from listings without permission, and bad input is refused
with ValueError/TypeError naming the argument."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.channels import IMAGE_INDEX, image_channel  # noqa: E402
from modules.channels.failures import FAILURES, fallback  # noqa: E402
from modules.channels.metrics import hit_at_k, ndcg_at_k, precision_at_k, reciprocal_rank  # noqa: E402
from modules.common import ann  # noqa: E402
from modules.catalogue import LISTINGS, QUERIES  # noqa: E402
from modules.catalogue.images import IMAGE_VERSION  # noqa: E402
from modules.catalogue.policy import STATES  # noqa: E402
from modules.common.vectors import Vector  # noqa: E402
from modules.context import recall_at_k  # noqa: E402
from modules.hybrid import parse_query  # noqa: E402

FAST = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow])
IDS = [f"d{i}" for i in range(10)]
RANKINGS = st.lists(st.sampled_from(IDS), unique=True, max_size=10)
GRADES = st.dictionaries(st.sampled_from(IDS), st.integers(min_value=0, max_value=3), max_size=10)
K = st.integers(min_value=1, max_value=12)
NUMBER = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)


@FAST
@given(RANKINGS, GRADES, K)
def test_metrics_stay_within_their_bounds(ranking, grades, k):
    p, rr, ndcg, hit = (precision_at_k(ranking, grades, k), reciprocal_rank(ranking, grades, k),
                        ndcg_at_k(ranking, grades, k), hit_at_k(ranking, grades, k))
    for value in (p, rr, ndcg, hit):
        assert 0.0 <= value <= 1.0 + 1e-12
    assert (hit == 1.0) == (rr > 0) == (p > 0)
    assert rr == 0.0 or rr >= 1 / k
    assert ndcg == 0.0 or hit == 1.0


@FAST
@given(GRADES, K)
def test_the_ideal_ranking_scores_one(grades, k):
    ideal = sorted(grades, key=lambda i: (-grades[i], i))
    if any(g >= 1 for g in grades.values()):
        assert ndcg_at_k(ideal, grades, k) == pytest.approx(1.0)
        assert reciprocal_rank(ideal, grades, k) == 1.0


@FAST
@given(RANKINGS, GRADES, K, st.permutations(IDS))
def test_metrics_ignore_what_the_ids_are_called(ranking, grades, k, renamed):
    alias = dict(zip(IDS, renamed))
    ranking2, grades2 = [alias[i] for i in ranking], {alias[i]: g for i, g in grades.items()}
    for metric in (precision_at_k, reciprocal_rank, ndcg_at_k, hit_at_k):
        assert metric(ranking2, grades2, k) == pytest.approx(metric(ranking, grades, k))


@FAST
@given(st.one_of(st.sets(st.sampled_from(IDS)), st.text(max_size=3), st.integers(), st.none()))
def test_a_ranking_that_is_not_a_sequence_is_refused(bad):
    with pytest.raises(TypeError, match="ranking"):
        ndcg_at_k(bad, {"d1": 1}, 3)


@FAST
@given(st.lists(st.tuples(NUMBER, NUMBER, NUMBER), min_size=1, max_size=40), st.integers(1, 6),
       st.integers(0, 2**16), st.tuples(NUMBER, NUMBER, NUMBER), st.integers(1, 8))
def test_opening_every_list_is_the_exact_search(values, n_lists, seed, query, k):
    items = tuple((f"i{n:03d}", Vector(v, "t")) for n, v in enumerate(values) if any(v))
    if not items or not any(query):
        return
    index = ann.build(items, n_lists, seed)
    probe = Vector(query, "t")
    found = ann.search(index, probe, k, index.n_lists)
    exact = ann.exact_search(items, probe, k)
    assert found.ids == exact.ids == ann.exact_search(index, probe, k).ids
    narrow = ann.search(index, probe, k, 1)
    assert 0 <= recall_at_k(narrow.ids, exact.ids, len(exact.ids)) <= 1 and narrow.compared <= index.n_lists + len(items)


@FAST
@given(st.sampled_from([f.name for f in FAILURES]), st.sampled_from(STATES))
def test_a_fallback_never_weakens_the_state(failure, state):
    after, visible = fallback(failure, state)
    assert after in STATES and STATES.index(after) <= STATES.index(state) and visible
    if failure == "permission_missing":
        assert after in ("prohibited_scope", "unauthorized")
    if failure in ("generator_failed", "no_eligible_evidence"):
        assert after == state


@FAST
@given(st.one_of(st.text(max_size=8), st.integers(), st.none()), st.sampled_from(STATES))
def test_an_unknown_failure_is_refused_by_name(failure, state):
    if failure in [f.name for f in FAILURES]:
        return
    with pytest.raises((TypeError, ValueError), match="failure"):
        fallback(failure, state)


@FAST
@given(st.lists(st.one_of(NUMBER, st.integers(-3, 3), st.booleans(), st.text(max_size=2)), max_size=6),
       st.sampled_from([IMAGE_VERSION, "pw-img-0", ""]))
def test_any_query_photo_is_searched_or_declined_with_a_reason(values, version):
    contract = parse_query(QUERIES[0])
    result = image_channel(contract, (tuple(values), version), LISTINGS, IMAGE_INDEX)
    if result.status == "ran":
        assert len(result.hits) == 3 and version == IMAGE_VERSION and len(values) == 4
    else:
        assert result.status == "not run" and "unusable" in result.note and not result.hits
