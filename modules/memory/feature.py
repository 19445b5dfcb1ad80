"""What a memory feature must define before it is allowed, and the encoder versions it may use.

The catalogue's first release keeps no memory between sessions (FIRST_RELEASE). A feature
that wants to keep anything must say why (purposes), what (kinds), for whom (owner_scope:
this buyer only), who sees it (visibility: the buyer sees every item), how consent is asked
and withdrawn, how long anything is kept, which stores a deletion must reach, how a
correction is recorded, which encoder makes its vectors, and on which frozen cases every
change is replayed first. `feature_gaps` lists what a feature leaves undefined;
modules/memory/mechanism.py's `with_memory` refuses a feature with any gap.

An encoder version is a tuple of axes, each a tuple of words; a vector component counts the
text's words on its axis. The lab has no model: this is the whole encoder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from modules.common.checks import short, whole_number
from modules.common.vectors import Vector

__all__ = ["KINDS", "FIELDS", "PURPOSES", "ACCURACIES", "SCOPES", "VISIBILITIES", "ENCODERS", "DERIVED_STORES",
           "MemoryFeature", "feature_gaps", "encode", "ASSISTANT_MEMORY", "DRAFT_FEATURE", "FIRST_RELEASE"]

KINDS = ("machine", "purchase", "preference")
FIELDS = ("machine_model", "diameter_mm", "listing_id", "family", "faces", "units")
PURPOSES = ("fit-advice", "reorder")
ACCURACIES = ("stated", "recorded", "inferred")   # said by the buyer; from a system of record; guessed
SCOPES = ("owner-only",)
VISIBILITIES = ("owner", "internal")               # on the buyer's memory page, or hidden from them
# mem-vec-2 reads "seals" as "seal", adds "marine", and orders its axes
# differently: same dimension, so its numbers look comparable with mem-vec-1's and mean other things.
_VOCABULARY = ("seal seals shaft mm 16 18 22 pump water mechanical lip nitrile carbon ceramic graphite faces bought "
               "ordered boat engine relief valve gasket sizes").split()
ENCODERS = {
    "mem-vec-1": tuple((word,) for word in _VOCABULARY),
    "mem-vec-2": tuple((word,) for word in reversed(_VOCABULARY[2:])) + (("seal", "seals"), ("marine",)),
}
_AXIS = {version: {word: n for n, axis in enumerate(axes) for word in axis} for version, axes in ENCODERS.items()}
_WORDS = re.compile(r"[a-z0-9]+")


def _text(owner: str, name: str, value, choices=None) -> None:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{owner}.{name} must be a non-empty str, got {type(value).__name__} {short(value)}")
    if choices is not None and value not in choices:
        raise ValueError(f"{owner}.{name} must be one of {choices}, got {short(value)}")


@dataclass(frozen=True)
class MemoryFeature:
    """What a memory feature must define before it is allowed; None or () means undefined.

        purposes          why items are kept (an item of another purpose is not stored)
        kinds             what is kept
        owner_scope       whose context may use an item
        visibility        can the buyer see every item?
        consent           how permission is asked and withdrawn
        retention_days    the longest any item is kept
        deletion_reaches  every store a deletion must clear
        correction        how a correction is recorded
        encoder           the encoder version that makes its vectors
        replay_cases      frozen cases every change is replayed on first

    A frozen record, like the catalogue's records, checked when it is made and when
    dataclasses.replace makes a changed copy."""
    name: str
    purposes: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    owner_scope: str | None = None
    visibility: str | None = None
    consent: str | None = None
    retention_days: int | None = None
    deletion_reaches: tuple[str, ...] = ()
    correction: str | None = None
    encoder: str | None = None
    replay_cases: tuple[str, ...] = ()

    def __post_init__(self):
        _text("MemoryFeature", "name", self.name)
        for field, value in (("purposes", self.purposes), ("kinds", self.kinds),
                             ("deletion_reaches", self.deletion_reaches), ("replay_cases", self.replay_cases)):
            if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
                raise TypeError(f"MemoryFeature.{field} must be a tuple of str, got {short(value)}")
        for field, value in (("owner_scope", self.owner_scope), ("visibility", self.visibility),
                             ("consent", self.consent), ("correction", self.correction), ("encoder", self.encoder)):
            if value is not None:
                _text("MemoryFeature", field, value)
        if self.retention_days is not None:
            whole_number(self.retention_days, "MemoryFeature.retention_days", minimum=1)


DERIVED_STORES = ("store", "index", "packet-cache", "trace-payloads")


def feature_gaps(feature: MemoryFeature) -> list:
    """What the feature leaves undefined (or defines against the rules); [] means it may ship."""
    if not isinstance(feature, MemoryFeature):
        raise TypeError(f"feature must be a MemoryFeature, got {type(feature).__name__} {short(feature)}")
    gaps = [name for name in ("purposes", "kinds", "owner_scope", "visibility", "consent", "retention_days",
                              "correction", "encoder", "replay_cases") if getattr(feature, name) in (None, ())]
    if feature.owner_scope not in (None,) + SCOPES:
        gaps.append(f"owner_scope {feature.owner_scope!r} is not one of {SCOPES}")
    if feature.visibility not in (None, "owner"):
        gaps.append(f"visibility {feature.visibility!r}: the buyer must see every item")
    missing = [store for store in DERIVED_STORES if store not in feature.deletion_reaches]
    if missing:
        gaps.append("deletion_reaches misses " + ", ".join(missing))
    if feature.encoder is not None and feature.encoder not in ENCODERS:
        gaps.append(f"encoder {feature.encoder!r} is not one of {tuple(ENCODERS)}")
    return gaps


def encode(text: str, version: str) -> Vector:
    """The text as a Vector of `version`: one word count per axis (ValueError when no word counts)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {short(text)}")
    if version not in ENCODERS:
        raise ValueError(f"version must be one of {tuple(ENCODERS)}, got {short(version)}")
    axis, values = _AXIS[version], [0] * len(ENCODERS[version])
    for word in _WORDS.findall(text.lower()):
        if word in axis:
            values[axis[word]] += 1
    return Vector(tuple(values), version, name=f"encode({short(text)})")


ASSISTANT_MEMORY = MemoryFeature(
    "assistant memory/1", purposes=PURPOSES, kinds=KINDS, owner_scope="owner-only", visibility="owner",
    consent="asked when an item is saved; withdrawable on the memory page", retention_days=3650,
    deletion_reaches=DERIVED_STORES, correction="a new version supersedes the old; both are recorded",
    encoder="mem-vec-1", replay_cases=("S1", "S2", "S3", "S4"))
DRAFT_FEATURE = MemoryFeature("remember the buyer's pump (draft)", purposes=("fit-advice",), kinds=("machine",),
                              owner_scope="owner-only", deletion_reaches=("store",))
FIRST_RELEASE = None   # the catalogue's first release: no memory between sessions at all
