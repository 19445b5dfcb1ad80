"""One validated vector type and one cosine, for every channel that compares vectors.

A vector is a tuple of finite numbers with a version label. It is refused, with a message
naming the field and the value, when it is

    malformed   not a tuple, empty, or holding something that is not an int or float
                (a bool is not a number here), NaN or an infinity;
    zero        every component 0: it has no direction, so its cosine is undefined;
    denormal    its largest component is below the smallest normal float (2.2e-308):
                at that magnitude the direction is no longer represented reliably;
    foreign     (against an index) another version or another dimension: coordinates of
                two versions do not mean the same thing, so they are never compared.

`cosine` divides each vector by its largest component before squaring, so (1e200, 1e200,
1e200) against (1, 1, 1) is 1.0, not 0.0 after an overflowing norm.
"""

from __future__ import annotations

import math
import sys
from collections import namedtuple
from functools import lru_cache
from operator import mul

from modules.common.checks import short

__all__ = ["Vector", "vector_problem", "cosine", "checked_cosine"]

_SMALLEST_NORMAL = sys.float_info.min
_FLOATS = {float}   # finite floats and nothing else: no value needs a closer look


def vector_problem(values, version, expect_version=None, dimension=None):
    """None when the vector is usable (and matches the index, if one is given), else
    (error type, reason): the reason is what a channel records when it rejects the vector."""
    if not isinstance(values, tuple):
        return TypeError, f"malformed: expected a tuple of numbers, got {type(values).__name__} {values!r}"
    if not isinstance(version, str) or not version:
        return TypeError, f"malformed: version must be a non-empty str, got {version!r}"
    if not values:
        return ValueError, "malformed: no numbers at all"
    if not (set(map(type, values)) == _FLOATS and all(map(math.isfinite, values))):   # the usual case, in C
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return TypeError, f"malformed: {value!r} is not a number"
            if isinstance(value, float) and not math.isfinite(value):
                return ValueError, f"malformed: {value!r} is not a finite number"
    largest = max(map(abs, values))
    if largest == 0:
        return ValueError, "zero vector: it has no direction, so its cosine is undefined"
    if largest < _SMALLEST_NORMAL:
        return ValueError, (f"denormal: its largest component {largest!r} is below the smallest normal "
                            f"float {_SMALLEST_NORMAL!r}")
    if expect_version is not None and version != expect_version:
        return ValueError, f"vector version {version!r}, the index expects {expect_version!r}"
    if dimension is not None and len(values) != dimension:
        return ValueError, f"malformed: expected {dimension} numbers, got {len(values)}"
    return None


class Vector(namedtuple("Vector", "values version")):
    """A usable vector: values (a tuple of finite numbers, not all zero) and its version label."""

    __slots__ = ()

    def __new__(cls, values, version, name: str = "vector"):
        problem = vector_problem(values, version)
        if problem:
            error, reason = problem
            raise error(f"{name} {short(values, 60)} rejected: {reason}")
        return super().__new__(cls, values, version)

    @classmethod
    def _make(cls, iterable):
        return cls(*iterable)


@lru_cache(maxsize=4096)
def _scaled(values: tuple) -> tuple:
    """(the values divided by their largest component, the exactly rounded sum of their squares);
    remembered (bounded): one query vector meets every stored vector, and each stored vector
    every query."""
    largest = max(map(abs, values))
    scaled = tuple([value / largest for value in values])
    return scaled, math.fsum(map(mul, scaled, scaled))


def cosine(a, b) -> float:
    """Cosine of two vectors of one version and one dimension (Vector, or plain tuples)."""
    found = []
    for name, vector in (("a", a), ("b", b)):
        if not isinstance(vector, Vector):
            vector = Vector(vector, "-", name=name)
        found.append(vector)
    a, b = found
    if a.version != b.version and "-" not in (a.version, b.version):
        raise ValueError(f"vectors a and b have versions {a.version!r} and {b.version!r}: never compared")
    if len(a.values) != len(b.values):
        raise ValueError(f"vectors a and b have {len(a.values)} and {len(b.values)} numbers: never compared")
    return checked_cosine(a.values, b.values)


@lru_cache(maxsize=4096)
def checked_cosine(a: tuple, b: tuple) -> float:
    """The cosine of two value tuples that vector_problem has already accepted, with one
    dimension: each is divided by its largest component before squaring (no overflow).
    Remembered (bounded): every run of a query compares the same stored vectors."""
    (x, xx), (y, yy) = _scaled(a), _scaled(b)
    dot = math.fsum(map(mul, x, y))
    value = dot / math.sqrt(xx * yy)
    return max(-1.0, min(1.0, value))
