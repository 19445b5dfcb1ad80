"""The approximate index: deterministic, measured against the exact reference, deletes at once."""

import random
from fractions import Fraction

import pytest

from modules.common import ann
from modules.common.vectors import Vector, cosine, dot, unit
from modules.context import recall_at_k


def _items(n, dim=4, seed=3, version="v1"):
    rng = random.Random(seed)
    return tuple((f"i{k:05d}", Vector(tuple(rng.uniform(-1, 1) for _ in range(dim)), version)) for k in range(n))


def test_unit_inner_product_is_the_cosine():
    rng = random.Random(5)
    for _ in range(200):
        a = tuple(rng.uniform(-1e3, 1e3) for _ in range(3))
        b = tuple(rng.uniform(-1e3, 1e3) for _ in range(3))
        assert dot(unit(a), unit(b)) == pytest.approx(cosine(a, b), abs=1e-12)
    assert dot(unit((1e200,) * 3), unit((1.0,) * 3)) == pytest.approx(1.0)


def test_every_vector_is_filed_once_and_the_build_is_deterministic():
    items = _items(300)
    first, second = ann.build(items, 12, seed=9), ann.build(items, 12, seed=9)
    assert first == second
    assert sorted(first.ids()) == sorted(i for i, _ in items)


def test_probing_every_list_is_exact_and_fewer_lists_compare_fewer_vectors():
    items = _items(400)
    index = ann.build(items, 16, seed=1)
    query = Vector((0.3, -0.2, 0.9, 0.1), "v1")
    exact = ann.exact_search(items, query, 10)
    assert ann.search(index, query, 10, nprobe=16).ids == exact.ids
    narrow = ann.search(index, query, 10, nprobe=2)
    assert narrow.compared < exact.compared
    assert 0 <= recall_at_k(narrow.ids, exact.ids, 10) <= 1


def test_index_recall_is_lesson_01s_recall_against_the_exact_ids():
    assert recall_at_k(["a", "x"], ["a", "b"], 2) == Fraction(1, 2)
    # found ids count once, ids outside the exact top k not at all
    assert recall_at_k(["a", "x", "a"], ("a", "b", "c"), 3) == Fraction(1, 3)
    with pytest.raises(ValueError, match="relevant_ids"):
        recall_at_k(["a"], [], 1)


def test_delete_removes_the_vector_from_its_list_and_the_store():
    items = _items(50)
    index = ann.build(items, 5, seed=2)
    gone = ann.delete(index, "i00007")
    assert "i00007" not in gone.ids() and "i00007" not in dict(gone.vectors) and len(gone) == 49
    with pytest.raises(ValueError, match="i00007"):
        ann.delete(gone, "i00007")


@pytest.mark.parametrize("bad, error, words", [
    (lambda items: ann.build(items + (("i00000", items[1][1]),), 4, 1), ValueError, "filed twice"),
    (lambda items: ann.build(items + (("z", Vector((1.0, 0.0, 0.0, 0.0), "v2")),), 4, 1), ValueError, "one vector space"),
    (lambda items: ann.build(items, 0, 1), ValueError, "n_lists"),
    (lambda items: ann.build(items, 4, -1), ValueError, "seed"),
    (lambda items: ann.build(set(items), 4, 1), TypeError, "items"),
    (lambda items: ann.search(ann.build(items, 4, 1), Vector((1.0, 0, 0, 0), "v2"), 3, 1), ValueError, "re-encode"),
    (lambda items: ann.search(ann.build(items, 4, 1), Vector((1.0, 0, 0, 0), "v1"), 3, 0), ValueError, "nprobe"),
])
def test_bad_input_is_refused_by_name(bad, error, words):
    with pytest.raises(error, match=words):
        bad(_items(20))
