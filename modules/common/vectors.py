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

`unit` divides a vector by its largest component before squaring, so (1e200, 1e200, 1e200)
against (1, 1, 1) has cosine 1.0, not 0.0 after an overflowing norm. The approximate index
(ann.py) stores each vector as its `unit` once and scores with `dot`: the inner product of
two unit vectors is their cosine.
"""

from __future__ import annotations

import math
import sys
from dataclasses import InitVar, dataclass
from operator import mul

from modules.common.checks import short

__all__ = ["Vector", "vector_problem", "unit", "dot", "cosine", "checked_cosine"]

_SMALLEST_NORMAL = sys.float_info.min


def vector_problem(values, version, expect_version=None, dimension=None):
    """None when the vector is usable (and matches the index, if one is given), else
    (error type, reason): the reason is what a channel records when it rejects the vector."""
    if not isinstance(values, tuple):
        return TypeError, f"malformed: expected a tuple of numbers, got {type(values).__name__} {values!r}"
    if not isinstance(version, str) or not version:
        return TypeError, f"malformed: version must be a non-empty str, got {version!r}"
    if not values:
        return ValueError, "malformed: no numbers at all"
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


@dataclass(frozen=True)
class Vector:
    """A usable vector: values (a tuple of finite numbers, not all zero) and its version label.
    `name` (not a field) is what the refusal calls it: Vector(values, version, name="query")."""
    values: tuple
    version: str
    name: InitVar[str] = "vector"

    def __post_init__(self, name):
        problem = vector_problem(self.values, self.version)
        if problem:
            error, reason = problem
            raise error(f"{name} {short(self.values, 60)} rejected: {reason}")


def _scaled(values: tuple) -> list:
    """The values divided by their largest component: squaring them can then neither
    overflow nor underflow (1e200 squared is not a float)."""
    largest = max(map(abs, values))
    return [v / largest for v in values]


def unit(values: tuple) -> tuple:
    """The vector scaled to length 1 (through _scaled, so huge or tiny values are safe). A
    vector of zeros (an empty list's centroid in the index) stays zeros: it scores 0 with
    everything."""
    if not any(values):
        return tuple(0.0 for _ in values)
    scaled = _scaled(values)
    norm = math.sqrt(dot(scaled, scaled))
    return tuple(v / norm for v in scaled)


def dot(a: tuple, b: tuple) -> float:
    """The inner product, exactly rounded (math.fsum), so it cannot depend on the order of
    the components; of two unit vectors it is their cosine."""
    return math.fsum(map(mul, a, b))


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


def checked_cosine(a: tuple, b: tuple) -> float:
    """The cosine of two value tuples that vector_problem has already accepted, with one
    dimension: a.b / (|a| |b|), each first divided by its largest component (kept within [-1, 1])."""
    x, y = _scaled(a), _scaled(b)
    value = dot(x, y) / math.sqrt(dot(x, x) * dot(y, y))
    return max(-1.0, min(1.0, value))
