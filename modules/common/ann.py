"""An approximate nearest-neighbour index (inverted file, IVF) next to exact cosine search.

Build: pick `n_lists` centroids with a seeded k-means over the vectors, then file every
vector in the list of its nearest centroid. Search: compare the query with the centroids,
open the `nprobe` nearest lists, and rank only the vectors filed there. The search compares
n_lists + (the vectors in the opened lists) instead of every vector, which is the point and
also the risk: a true neighbour filed in an unopened list is missed.

Everything is deterministic: the seed drives the training sample and the first centroids,
ties break by item id, and nothing costs in proportion to a value. Building costs at
most KMEANS_ROUNDS k-means rounds over a bounded sample (fewer when the centroids stop
moving: every later round would repeat the last), then one pass that files each
vector: n_lists comparisons a vector, linear in the vectors for a given n_lists. A search
costs n_lists + the vectors in the `nprobe` opened lists; with n_lists grown like the
square root of the catalogue that is sublinear (and filing then costs n * sqrt(n): the
trade-off production indexes meet with a second, coarser quantizer).

Public names (stable: lessons 12 and 13 use them; add, never rename)

    index = build(items, n_lists=8, seed=7)       items: ((id, Vector), ...) of one version
    found = search(index, query, k=5, nprobe=2)   -> Search(ids, compared)
    exact = exact_search(items, query, k=5)       -> Search(ids, compared = len(items));
                                                     `items` may also be an Index (all it holds)
    (recall of the exact top-k: lesson 01's modules.context.recall_at_k(found.ids, exact.ids, k))
    delete(index, item_id)                        -> a new index without the item
    Index                                         a frozen record: version, n_lists, seed, centroids,
                                                  lists, vectors, index_version; len() = vectors
                                                  filed; ids(); equal when the fields are equal

Scores are inner products of unit vectors (modules/common/vectors.py's `unit` and `dot`),
which is their cosine: the index keeps each stored vector scaled to length 1 beside the
vector itself, as an IVF index for cosine search does, so a search never rescales one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from modules.common.checks import sequence_of, whole_number
from modules.common.vectors import Vector, dot, unit

INDEX_VERSION = "ivf/1"
KMEANS_ROUNDS = 6


@dataclass(frozen=True)
class Search:
    """What a search found: ids best first; compared: how many vectors it scored."""
    ids: tuple
    compared: int


@dataclass(frozen=True)
class Index:
    """Centroids, the ids filed under each, and the vectors themselves, all of one version.

    version: the vectors' version (a query of another is refused); centroids: one unit value
    tuple per list; lists: the item ids filed under each; vectors: ((id, Vector), ...) in build
    order. units ({id: the vector scaled to length 1}) is made from the vectors, not given."""
    version: str
    n_lists: int
    seed: int
    centroids: tuple
    lists: tuple
    vectors: tuple
    index_version: str = INDEX_VERSION
    units: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "units", {item_id: unit(vector.values) for item_id, vector in self.vectors})

    def __repr__(self) -> str:
        return (f"Index(version={self.version!r}, n_lists={self.n_lists}, seed={self.seed}, "
                f"vectors={len(self.vectors)}, index_version={self.index_version!r})")

    def __len__(self) -> int:
        return sum(len(ids) for ids in self.lists)

    def ids(self) -> tuple:
        return tuple(item_id for ids in self.lists for item_id in ids)


def _items(items) -> tuple:
    found, seen, version = sequence_of(items, None, "items", "(id, Vector) pairs"), set(), None
    for position, pair in enumerate(found):
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)
                and isinstance(pair[1], Vector)):
            raise TypeError(f"items[{position}] must be an (id, Vector) pair, got {pair!r}")
        item_id, vector = pair
        if item_id in seen:
            raise ValueError(f"items[{position}]: the id {item_id!r} is filed twice")
        seen.add(item_id)
        if version is None:
            version = vector.version
        elif vector.version != version:
            raise ValueError(f"items[{position}] ({item_id!r}) has vector version {vector.version!r}, the "
                             f"others {version!r}: one index holds one vector space")
        if len(vector.values) != len(found[0][1].values):
            raise ValueError(f"items[{position}] ({item_id!r}) has {len(vector.values)} numbers, the first "
                             f"{len(found[0][1].values)}")
    return found


def _nearest(values: tuple, centroids: tuple) -> int:
    # Highest cosine; max() keeps the first of equal scores, so the lower list number wins a
    # tie and filing never depends on chance.
    return max(range(len(centroids)), key=lambda number: dot(values, centroids[number]))


def _mean(rows: list) -> tuple:
    return unit(tuple(sum(column) / len(rows) for column in zip(*rows)))


def build(items, n_lists: int, seed: int) -> Index:
    """A seeded IVF index over (id, Vector) items of one version."""
    found = _items(items)
    whole_number(n_lists, "n_lists", minimum=1)
    whole_number(seed, "seed", minimum=0, maximum=2**32 - 1)
    if not found:
        raise ValueError("items must not be empty: an index needs vectors to place its centroids")
    n_lists = min(n_lists, len(found))
    rng = random.Random(seed)
    units = [unit(vector.values) for _item_id, vector in found]
    # k-means learns the centroids from a seeded sample of at most 64 vectors a list (as
    # production IVF indexes train on a sample), so building stays linear in the vectors.
    training = [units[i] for i in sorted(rng.sample(range(len(units)), min(len(units), 64 * n_lists)))]
    centroids = tuple(training[i] for i in sorted(rng.sample(range(len(training)), n_lists)))
    for _round in range(KMEANS_ROUNDS):
        members = [[] for _ in centroids]
        for values in training:
            members[_nearest(values, centroids)].append(values)
        # A list left empty keeps its centroid rather than dividing by zero.
        moved = tuple(_mean(rows) if rows else old for rows, old in zip(members, centroids))
        if moved == centroids:   # converged: the same lists again, so the same centroids for ever
            break
        centroids = moved
    lists = [[] for _ in centroids]
    for (item_id, _vector), values in zip(found, units):
        lists[_nearest(values, centroids)].append(item_id)
    return Index(found[0][1].version, n_lists, seed, centroids, tuple(tuple(ids) for ids in lists), found)


def _best(scored, k: int) -> tuple:
    """The ids of the k best (score, id) pairs: highest score first, ties by id."""
    return tuple(item_id for _score, item_id in sorted(scored, key=lambda pair: (-pair[0], pair[1]))[:k])


def exact_search(items, query: Vector, k: int) -> Search:
    """The exact top-k by cosine: the reference an approximate search is measured against.
    `items` is a sequence of (id, Vector) pairs, or an Index (every vector it holds)."""
    whole_number(k, "k", minimum=1)
    if isinstance(items, Index):
        probe = unit(_query(query, items.version).values)
        return Search(_best([(dot(probe, values), item_id) for item_id, values in items.units.items()], k),
                      len(items.units))
    found = _items(items)
    probe = unit(_query(query, found[0][1].version if found else query.version).values)
    # The same score as search() (inner product of unit vectors), so a tie is a tie in both.
    return Search(_best([(dot(probe, unit(vector.values)), item_id) for item_id, vector in found], k), len(found))


def _query(query, version: str) -> Vector:
    if not isinstance(query, Vector):
        raise TypeError(f"query must be a Vector, got {type(query).__name__} {query!r}")
    if query.version != version:
        raise ValueError(f"query vector version {query.version!r}, the index holds {version!r}: "
                         f"re-encode the query (or rebuild the index) in one space")
    return query


def search(index: Index, query: Vector, k: int, nprobe: int) -> Search:
    """The approximate top-k: open the `nprobe` lists whose centroids are nearest the query."""
    if not isinstance(index, Index):
        raise TypeError(f"index must be an Index, got {type(index).__name__}")
    _query(query, index.version)
    whole_number(k, "k", minimum=1)
    whole_number(nprobe, "nprobe", minimum=1)
    probe = unit(query.values)
    closeness = [dot(probe, centroid) for centroid in index.centroids]
    nearest = sorted(range(len(closeness)), key=lambda number: (-closeness[number], number))
    opened = [item_id for number in nearest[:nprobe] for item_id in index.lists[number]]
    scored = [(dot(probe, index.units[item_id]), item_id) for item_id in opened]
    return Search(_best(scored, k), len(index.centroids) + len(scored))


def delete(index: Index, item_id: str) -> Index:
    """The index without `item_id`: its vector leaves its list and the stored vectors at once."""
    if not isinstance(item_id, str):
        raise TypeError(f"item_id must be a str, got {type(item_id).__name__} {item_id!r}")
    if item_id not in dict(index.vectors):
        raise ValueError(f"item_id {item_id!r} is not in the index")
    return Index(index.version, index.n_lists, index.seed, index.centroids,
                 tuple(tuple(i for i in ids if i != item_id) for ids in index.lists),
                 tuple(pair for pair in index.vectors if pair[0] != item_id))
