"""Signals per stage, aggregated over the frozen cases, and the layer an anomaly names.

A signal is a count over cases, labelled by a safe code, a channel, a state or a version:
never by a listing id, a title or a user. `aggregate` reads lesson 09's trace records (the
pipeline's own record of each run), so a signal is never recomputed another way; every
label passes `safe_label`, which refuses a restricted id or title in any spelling a
dashboard might carry (lower-cased, look-alike hyphens, spaces or underscores for the
hyphen, full-width letters).

`name_layer(before, after)` compares two sets of signals and names the layer that changed
first, with lesson 09's ten layers, in the order a change reaches the pipeline: input (the
query transformation), source (index construction: the listings and their metadata as the
index holds them), retrieval (a representation or an approximate index), permission/freshness
(the policy), ranking. Its "why" says which part of the layer moved.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from modules.catalogue import RESTRICTED_IDS, RESTRICTED_STRINGS, VECTOR_VERSION
from modules.catalogue.images import IMAGE_VERSION
from modules.common.checks import short
from modules.grounding.checks import count_exclusions
from modules.operate.mechanism import SEGMENTS, segment_of

__all__ = ["Signal", "SIGNAL_SPECS", "STAGES", "fold", "leaks", "safe_label", "aggregate", "signal_map",
           "name_layer", "PERMISSION_CODES"]

PERMISSION_CODES = ("PERMISSION_DENIED", "PERMISSION_UNKNOWN", "DUPLICATE_ID_CONFLICT")
STAGES = ("query transformation", "retrieval", "eligibility", "ranking", "context", "product", "change")


def fold(text: str) -> str:
    """Compatibility-normalised, case-folded, letters and digits only: 'PW‐L004', 'pw_l004' and
    'ＰＷ－Ｌ００４' all fold to 'pwl004'."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {short(text)}")
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


_SECRETS = tuple(sorted({fold(s) for s in RESTRICTED_IDS + RESTRICTED_STRINGS}))


def leaks(text: str) -> list:
    """The restricted ids and titles `text` carries in any spelling (as folded forms), else []."""
    folded = fold(text)
    return [secret for secret in _SECRETS if secret in folded]


def safe_label(label: str) -> str:
    """`label` unchanged, or ValueError when it contains a restricted id or title in any
    spelling (folded as `fold` does, anywhere inside the label)."""
    if not isinstance(label, str) or not label:
        raise TypeError(f"label must be a non-empty str, got {short(label)}")
    if leaks(label):
        raise ValueError("a signal label contains a restricted listing's id or title; aggregate by safe reason "
                         "code instead")
    return label


@dataclass(frozen=True)
class Spec:
    """Who owns a signal, what to do first when it moves, how long it is kept, who may see it and
    its limit."""
    owner: str
    first_action: str
    retention: str
    access: str
    limitation: str


@dataclass(frozen=True)
class Signal:
    """One aggregated signal: its stage, name, counts (label, value) and its operating facts."""
    stage: str
    name: str
    counts: tuple[tuple[str, int | float | str], ...]
    owner: str
    first_action: str
    retention: str
    access: str
    limitation: str

    def __post_init__(self):
        if self.stage not in STAGES:
            raise ValueError(f"Signal.stage must be one of {STAGES}, got {short(self.stage)}")
        if not isinstance(self.counts, tuple):
            raise TypeError(f"Signal.counts must be a tuple of (label, value), got {short(self.counts)}")
        for pair in self.counts:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise TypeError(f"Signal.counts must hold (label, value) pairs, got {short(pair)}")
            safe_label(pair[0])
            if isinstance(pair[1], str):
                safe_label(pair[1])

    @property
    def value(self) -> str:
        return ", ".join(f"{label} {value}" for label, value in self.counts) or "none"


_DAYS = "90 days"
_OPS = "operations, stage owner"
SIGNAL_SPECS = {
    "parser failures": Spec("catalogue/domain", "read the failed transformations' versions", _DAYS, _OPS,
                            "counts what the parser refused, not what it misread"),
    "unresolved units": Spec("catalogue/domain", "compare with the bare-number segment's share", _DAYS, _OPS,
                             "a rise can be shoppers, not the parser"),
    "rewrite rate": Spec("catalogue/domain", "diff the normalised text against the original", _DAYS, _OPS,
                         "a rewrite can narrow intent and keep the count"),
    "empty sets": Spec("search/platform", "run the empty channel alone on a frozen case", _DAYS, _OPS,
                       "'not run' by design (no size) is not a failure"),
    "candidates": Spec("search/platform", "compare per segment before and after the last change", _DAYS, _OPS,
                       "a stable count can hide different candidates"),
    "timeouts": Spec("operations", "check the channel's latency budget and fallback", "30 days", _OPS,
                     "the frozen cases simulate no latency: 0 proves nothing"),
    "index version": Spec("release", "match against the change log", "1 year", "the whole team",
                          "a version names a build, not its quality"),
    "contribution": Spec("search/platform", "remove the channel on the frozen cases (counterfactual)", _DAYS,
                         _OPS, "packed listings only; a channel matters below too"),
    "exclusions": Spec("privacy/security", "compare the policy and index versions", "1 year",
                       "privacy/security, operations", "a count by code; the subjects stay in the trace"),
    "duplicates collapsed": Spec("search/platform", "check the canonical links of the source", _DAYS, _OPS,
                                 "counts collapses, not wrong merges"),
    "top score": Spec("search/platform", "compare by ranker version and segment", _DAYS, _OPS,
                      "an ordering score, not a probability: order only"),
    "ranked": Spec("search/platform", "compare the gate's exclusions for the same cases", _DAYS, _OPS,
                   "how many reach ranking, not whether they should"),
    "tie rate": Spec("search/platform", "check the tie-break rule is by id", _DAYS, _OPS,
                     "ties are common with few channels; no quality"),
    "top withheld": Spec("privacy/security", "confirm the gate ran before ranking", "1 year",
                         "privacy/security, operations", "counts channel tops withheld, not why"),
    "packet fields": Spec("combined behaviour", "compare with the packet limit", _DAYS, _OPS,
                          "size, not usefulness"),
    "omissions": Spec("data", "request a feed refresh for the field", _DAYS, _OPS,
                      "stale optional fields; a stale required one withholds"),
    "conflicts kept": Spec("catalogue/domain", "ask the seller to confirm the field", _DAYS, _OPS,
                           "only title-against-field conflicts are seen"),
    "provenance": Spec("combined behaviour", "find the answer line citing outside the packet", _DAYS, _OPS,
                       "a citation shows origin, not correctness"),
    "states": Spec("product/design", "walk lesson 09's layers for the changed state", _DAYS,
                   "product, operations, owners", "a share per state, never one success figure"),
    "assisted results": Spec("combined behaviour", "split by segment, then walk one changed case's layers",
                             _DAYS, "product, operations, owners",
                             "a pool size: answered can hold while it halves"),
    "answered": Spec("combined behaviour", "compare with assisted results for the same segment", _DAYS,
                     "product, operations, owners", "answered is not answered well"),
    "fallbacks": Spec("operations", "check the fallback matches the state", _DAYS, _OPS,
                      "names the fallback, not whether the shopper took it"),
    "versions": Spec("release", "replay the frozen cases on any changed version", "1 year",
                     "the whole team", "lists versions; whether one was replayed is in the log"),
    "memory withheld": Spec("privacy/security", "check the memory gate's clause for the code", "1 year",
                            "privacy/security", "four frozen sessions; codes only, never a buyer"),
}


def _signal(stage: str, name: str, counts) -> Signal:
    s = SIGNAL_SPECS[name]
    return Signal(stage=stage, name=name, counts=tuple(counts), owner=s.owner, first_action=s.first_action,
                  retention=s.retention, access=s.access, limitation=s.limitation)


def _count(labels) -> list:
    found: dict = {}
    for label in labels:
        found[label] = found.get(label, 0) + 1
    return sorted(found.items())


def aggregate(records: dict, memory: dict | None = None) -> tuple:
    """Every signal over the frozen cases' trace records {case id: record} (and lesson 13's
    memory runs {session id: (session, Run)}, when given): counts by safe label only."""
    if not isinstance(records, dict) or not records:
        raise TypeError(f"records must be a non-empty dict of case id -> trace record, got {short(records)}")
    rows = list(records.values())
    n = len(rows)
    inputs = [r["input"] for r in rows]
    channels: dict = {}
    for r in rows:
        for c in r["retrieval"]["channels"]:
            channels.setdefault(c["channel"], []).append(c)
    ranked = [r["ranking"].get("fused", []) for r in rows]
    pairs = [(a["ordering_score"], b["ordering_score"]) for f in ranked for a, b in zip(f, f[1:])]
    withheld = [w for r in rows for w in r["permission/freshness"].get("withheld", ())]
    excluded = [e for r in rows for e in r["assembly"].get("excluded", ())]
    gone = {w["subject"] for w in withheld}
    packed = [r for r in rows if r["assembly"].get("listings")]
    lines = [line for r in rows for line in r["generation"]["answer"]]
    packet_ids = {r["query_id"]: {f["field_id"] for f in r["assembly"].get("packet", ())} for r in rows}
    contribution = {}
    for r in packed:
        by_cluster = {f["shown"]: f["channel_ranks"] for f in r["ranking"]["fused"]}
        for listing in r["assembly"]["listings"]:
            for channel in by_cluster.get(listing, {}):
                contribution[channel] = contribution.get(channel, 0) + 1
    versions = rows[0]["change"]["versions"]
    by_segment = {seg: [r for r in rows if segment_of(r) == seg] for seg in SEGMENTS}
    present = [seg for seg in SEGMENTS if by_segment[seg]]
    signals = [
        _signal("query transformation", "parser failures", [("failed", sum(i["state"] == "failed" for i in inputs)),
                                                           ("of", n)]),
        _signal("query transformation", "unresolved units", [("clarify", sum(i["state"] == "clarify" for i in inputs)),
                                                            ("of", n)]),
        _signal("query transformation", "rewrite rate", [
            ("rewritten", sum(i["transformations"][0]["output"] != i["original"] for i in inputs)), ("of", n)]),
        _signal("retrieval", "empty sets", [(name, sum(c["status"] != "ran" or not c["hits"] for c in cs))
                                            for name, cs in channels.items()]),
        _signal("retrieval", "candidates", [(name, sum(len(c["hits"]) for c in cs)) for name, cs in channels.items()]),
        _signal("retrieval", "timeouts", [(name, sum(c["status"] == "timed out" for c in cs))
                                          for name, cs in channels.items()]),
        _signal("retrieval", "index version", _index_versions(versions)),
        _signal("retrieval", "contribution", sorted(contribution.items())),
        _signal("eligibility", "exclusions", [(code, k) for code, k in count_exclusions(rows).items() if k]),
        _signal("eligibility", "duplicates collapsed", [("clusters", sum(len(f["members"]) > 1 for f in sum(ranked, [])))]),
        _signal("ranking", "top score", [(f"{versions['fusion']} {seg}", max(
            r["ranking"]["fused"][0]["ordering_score"] for r in by_segment[seg] if r["ranking"].get("fused")))
            for seg in present if any(r["ranking"].get("fused") for r in by_segment[seg])]),
        _signal("ranking", "ranked", [(seg, sum(len(r["ranking"].get("fused", ())) for r in by_segment[seg]))
                                      for seg in present]),
        _signal("ranking", "tie rate", [("tied pairs", sum(a == b for a, b in pairs)), ("of", len(pairs))]),
        _signal("ranking", "top withheld", [("queries", sum(any(c["hits"] and c["hits"][0]["candidate"] in gone
                                                                for c in r["retrieval"]["channels"]) for r in rows))]),
        _signal("context", "packet fields", [("fields", sum(len(r["assembly"].get("packet", ())) for r in rows)),
                                             ("packets", len(packed))]),
        _signal("context", "omissions", [("required", sum(o.endswith("#diameter_mm") for r in rows
                                                          for o in r["assembly"].get("omitted", ()))),
                                         ("optional", sum(not o.endswith("#diameter_mm") for r in rows
                                                          for o in r["assembly"].get("omitted", ())))]),
        _signal("context", "conflicts kept", [("recorded", sum("TITLE_FIELD_CONFLICT" in e["reason_codes"]
                                                               for e in excluded)),
                                              ("packed", sum(e["subject"] in r["assembly"].get("listings", ())
                                                             for r in rows for e in excluded
                                                             if "TITLE_FIELD_CONFLICT" in e["reason_codes"]))]),
        _signal("context", "provenance", [("lines citing the packet only", sum(
            all(c in packet_ids[r["query_id"]] for c in line["cites"]) for r in rows
            for line in r["generation"]["answer"])), ("of", len(lines))]),
        _signal("product", "states", _count(r["decision"]["state"] for r in rows)),
        _signal("product", "assisted results", [(seg, sum(len(r["permission/freshness"].get("passed", ()))
                                                          for r in by_segment[seg])) for seg in present]),
        _signal("product", "answered", [(seg, sum(r["decision"]["state"] in ("respond", "degraded")
                                                  for r in by_segment[seg])) for seg in present]),
        _signal("product", "fallbacks", _count(r["decision"]["fallback"] or "none" for r in rows)),
        _signal("change", "versions", sorted(versions.items())),
    ]
    if memory:   # beside the other eligibility signals
        codes = [code for _s, run in memory.values() for d in run.output("memory-gate").decisions
                 for code in d.reason_codes[:1]]
        at = [s.name for s in signals].index("duplicates collapsed") + 1
        signals.insert(at, _signal("eligibility", "memory withheld", _count(codes)))
    return tuple(signals)


def _index_versions(versions: dict) -> list:
    found = [("source", versions["source"]), ("vector", VECTOR_VERSION)]
    if "image" in versions:
        found += [("image representation", IMAGE_VERSION), ("image index", versions["image"])]
    return found


def signal_map(signals) -> dict:
    """{signal name: {label: value}} for comparing two dashboards."""
    return {s.name: dict(s.counts) for s in signals}


def _permission(counts: dict) -> int:
    return sum(v for k, v in counts.get("exclusions", {}).items() if k in PERMISSION_CODES)


def name_layer(before: dict, after: dict) -> tuple:
    """(layer, why) from two signal maps (signal_map), the layer one of lesson 09's ten, or
    (None, why) when no rule holds. Checked in the order a change reaches the pipeline: input,
    source, retrieval, permission/freshness, ranking; the ranker is named only when everything
    before it held."""
    changed = sorted(name for name in before if before.get(name) != after.get(name))
    b, a = before, after

    def moved(name, key=None):
        return b.get(name, {}).get(key) != a.get(name, {}).get(key) if key else b.get(name) != a.get(name)

    if moved("parser failures") or moved("unresolved units"):
        return "input", "query transformation: the parser's counts changed"
    policy = b.get("versions", {}).get("gate"), a.get("versions", {}).get("gate")
    source = b.get("versions", {}).get("source"), a.get("versions", {}).get("source")
    if _permission(a) > _permission(b) and policy[0] == policy[1] and source[0] != source[1]:
        return "source", (f"index construction: permission exclusions {_permission(b)} -> {_permission(a)} with the "
                          f"policy unchanged ({policy[0]}) and the index rebuilt ({source[0]} -> {source[1]}): "
                          f"permission fields were lost on the way into the index, and fail-closed worked")
    for key in ("vector", "image representation"):
        if key in b.get("index version", {}) and moved("index version", key):
            return "retrieval", f"representation: the {key} version changed, so the space itself moved"
    params = b.get("index version", {}).get("image index"), a.get("index version", {}).get("image index")
    if params[0] != params[1] and moved("candidates") and policy[0] == policy[1]:
        return "retrieval", (f"approximate index: candidates fell with the same vectors and the index parameters "
                             f"changed ({params[0]} -> {params[1]})")
    if policy[0] != policy[1]:
        return "permission/freshness", f"permission policy: the policy changed ({policy[0]} -> {policy[1]})"
    if b.get("versions", {}).get("fusion") != a.get("versions", {}).get("fusion"):
        return "ranking", "the ranker's version changed"
    return (None, "nothing changed") if not changed else (None, f"changed: {', '.join(changed)}; no layer rule holds")
