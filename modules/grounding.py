"""Lesson 09, grounding: traces that explain every inclusion and exclusion.

One query, one trace record. The record joins what the pipeline did at every
layer: the query's fingerprint (a digest of the normalised query and of every
component version, so a run can be replayed and compared), the transformations
applied to the query, each channel's candidates with their scores, every
exclusion with its category and rule version, the canonical clusters that
collapsed, why each survivor got its rank, the packet's field ids, and the
final state with its fallback.

Two audiences read it. The internal view keeps "retrieved, then denied" apart
from "never retrieved", but names a denied listing only by an opaque reference.
The user view shows neither the content nor the existence of a denied listing:
not its title, not its reference, not even how many there were. An answer that
lost everything to permission reads exactly like one that found nothing.

When an outcome is bad, the trace is walked layer by layer in a fixed order
(input, source, retrieval, permission/freshness, ranking, assembly, decision,
presentation, generation, change) and the first layer whose check fails is the
one to fix. The lesson breaks the pipeline three ways (a size parser that drops
the unit, an index rebuilt without permission fields, a freshness rule switched
off) and lets the walk name each layer, which is rarely where the symptom shows.
Nobody tunes the ranker before the trace has named its layer.
"""

from __future__ import annotations

import re
from collections import namedtuple

from modules.catalogue import (LISTINGS, PERMISSIONS, PROHIBITED_FAMILIES, QUERIES, RESTRICTED_IDS,
                               RESTRICTED_STRINGS, VECTOR_VERSION, Query, opaque_ref, query_by_id)

__all__ = [
    "LAYERS", "REASON_CODES", "USER_STATES", "USER_MESSAGES", "BASELINE_VERSIONS", "Pipeline", "HEALTHY",
    "VARIANTS", "NOTHING_QUERY", "normalise_query", "query_fingerprint", "parse_sizes", "build_index",
    "run_query", "locate", "user_view", "count_exclusions", "layer_checks", "first_failing_layer", "trace", "view",
]

# The order a regression walk follows. "permission/freshness" is one layer: the gate.
LAYERS = ("input", "source", "retrieval", "permission/freshness", "ranking", "assembly", "decision",
          "presentation", "generation", "change")

# Safe reason codes, the only words an exclusion carries into an aggregate (free text could quote a
# restricted title), each with its category.
REASON_CODES = {"permission_denied": "permission", "permission_unknown": "permission",
                "prohibited_family": "scope", "stale": "freshness", "field_conflict": "evidence"}
RULE_OF = {"permission": "policy", "scope": "scope", "freshness": "freshness", "evidence": "assembler"}
BASELINE_VERSIONS = {"parser": "size-parser/1", "index": "pw-index/2026-11-01", "vector": VECTOR_VERSION,
                     "policy": "assist-policy/4", "scope": "scope/1", "freshness": "freshness/2",
                     "ranker": "rrf-60/1", "assembler": "packet/1"}

# What the shopper is told. Every empty result reads the same, whatever its internal cause:
# "all denied" must look exactly like "nothing matched".
USER_STATES = {"respond": "answer", "clarify": "clarify", "prohibited": "out_of_scope", "empty": "no_match"}
USER_MESSAGES = {
    "answer": "These listings match your request.",
    "clarify": "Which unit is that size in: millimetres or inches?",
    "out_of_scope": "This part is outside what the assistant may recommend; please ask a qualified technician.",
    "no_match": "No listing matches your request. Try another size or describe the part differently.",
}

TITLE_WEIGHT, TEXT_WEIGHT = 3, 1   # lexical field weights, declared
CHANNEL_TOP_K, RRF_K, PACKET_LISTINGS = 5, 60, 3
PACKET_FIELDS = ("title", "diameter_mm", "family", "updated_on")
REQUIRED_METADATA = ("permission", "stale", "updated_on", "vector_version")

_UNITS = {"mm": "mm", "inch": "inch", "inches": "inch"}
_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*(mm|inches|inch)\b)?")
_WORD = re.compile(r"[a-z]+")
_STOPWORDS = {"a", "an", "the", "for", "of", "or", "and", "with", "to", "mm", "inch", "inches"}
_FAMILIES = (("safety relief valve", "safety-relief-valve"), ("lip seal", "lip-seal"),
             ("mechanical seal", "mechanical-seal"), ("o-ring", "o-ring"), ("gasket", "gasket"))


# ---------------------------------------------------------------- the fingerprint

def normalise_query(text: str) -> str:
    """Case-folded, whitespace collapsed: two spellings of one request share a fingerprint."""
    if not isinstance(text, str):
        raise TypeError(f"query text must be a str, got {type(text).__name__} {text!r}")
    normal = " ".join(text.casefold().split())
    if not normal:
        raise ValueError(f"query text must not be blank, got {text!r}")
    return normal


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _json_str(text: str) -> str:
    # Exactly what json.dumps(text, ensure_ascii=True) writes, without importing json on every run.
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'   # nothing to escape: the common case
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code < 0x10000:
            out.append(f"\\u{code:04x}")
        else:
            code -= 0x10000
            out.append(f"\\u{0xD800 | code >> 10:04x}\\u{0xDC00 | code & 0x3FF:04x}")
    return '"' + "".join(out) + '"'


_sha256 = None


def query_fingerprint(text: str, versions: dict) -> str:
    """sha256 of the canonical JSON {"query": <normalised>, "versions": {...}} (keys sorted, no spaces).

    Same request and same pipeline give the same fingerprint on any machine and hash seed; a
    changed component changes it, so a replay can tell "same query, new index" apart."""
    global _sha256
    if not isinstance(versions, dict) or not versions:
        raise TypeError(f"versions must be a non-empty dict of component -> version, got {versions!r}")
    for name, value in versions.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"versions[{name!r}] must map a str to a str, got {value!r}")
    pairs = ",".join(f"{_json_str(k)}:{_json_str(v)}" for k, v in sorted(versions.items()))
    canonical = f'{{"query":{_json_str(normalise_query(text))},"versions":{{{pairs}}}}}'
    if _sha256 is None:
        # The interpreter's built-in sha256: the same digest as hashlib without loading OpenSSL,
        # which costs more start-up time than this whole lesson.
        try:
            from _sha2 import sha256              # CPython 3.12+
        except ImportError:
            try:
                from _sha256 import sha256        # CPython 3.10, 3.11
            except ImportError:
                from hashlib import sha256
        _sha256 = sha256
    return _sha256(canonical.encode("ascii")).hexdigest()


# ---------------------------------------------------------------- input: the query contract

def parse_sizes(text: str) -> list:
    """Every size in the query: explicit units are kept and converted, bare numbers stay unresolved."""
    sizes = []
    for number, word in _SIZE.findall(text):
        mm = None
        if word:   # exact decimal arithmetic: "0.625 inch" -> 0.625 * 25.4 = "15.875"
            whole, _, frac = number.partition(".")
            digits, places = int(whole + frac), len(frac)
            if _UNITS[word] == "inch":
                digits, places = digits * 254, places + 1
            text_ = str(digits).rjust(places + 1, "0")
            mm = (text_[:-places] + "." + text_[-places:]).rstrip("0").rstrip(".") if places else text_
        sizes.append({"from": f"{number} {word}".strip(), "value_mm": mm, "unit": _UNITS.get(word)})
    return sizes


def parse_sizes_dropping_unit(text: str) -> list:
    """Broken variant: reads the number, loses the unit it was given (a refactor's regression)."""
    return [{"from": f"{number} {word}".strip(), "value_mm": None, "unit": None}
            for number, word in _SIZE.findall(text)]


# ---------------------------------------------------------------- source: the index

def _indexed(listing, permission) -> dict:
    # A record's ref is its id only when the index positively allows it; anything else is shown
    # by opaque ref (fail closed in the trace as in the gate).
    return {"id": listing.id, "cluster": listing.cluster_id, "title": listing.title, "family": listing.family,
            "diameter_mm": listing.diameter_mm, "permission": permission, "stale": listing.stale,
            "updated_on": listing.updated_on, "vector": listing.vector, "vector_version": listing.vector_version,
            "ref": listing.id if permission == "allowed" else opaque_ref(listing.id),
            "title_words": set(_WORD.findall(listing.title.lower())),
            "text_words": set(_WORD.findall(listing.description.lower()))}


def build_index(listings=LISTINGS) -> tuple:
    """Copy every listing into the search index, metadata included."""
    return tuple(_indexed(listing, listing.permission) for listing in listings)


REBUILD_FEED_SINCE = "2026-10-18"


def build_index_without_permission(listings=LISTINGS) -> tuple:
    """Broken variant: the rebuild read every listing updated since REBUILD_FEED_SINCE from a new feed
    export that has no permission column, so their permission arrives empty."""
    return tuple(_indexed(l, None if l.updated_on >= REBUILD_FEED_SINCE else l.permission) for l in listings)


# ---------------------------------------------------------------- the pipeline and its broken variants

# Each broken variant changes one part, ships it with a change-log entry, and shows its symptom on
# one query, at a layer other than the one that broke.
Pipeline = namedtuple("Pipeline", "name parse build_index freshness_rule versions change symptom_query symptom seen_at")
HEALTHY = Pipeline("healthy", parse_sizes, build_index, True, BASELINE_VERSIONS, None, None, None, None)
VARIANTS = (
    Pipeline("unit parser drops the unit", parse_sizes_dropping_unit, build_index, True,
             dict(BASELINE_VERSIONS, parser="size-parser/2"), ("parser", "size-parser/2", "size parser refactor"),
             "PW-Q001", "the assistant asks which unit, though the shopper typed 16 mm", "decision"),
    Pipeline("index rebuilt without permission fields", parse_sizes, build_index_without_permission, True,
             dict(BASELINE_VERSIONS, index="pw-index/2026-11-02-rebuild"),
             ("index", "pw-index/2026-11-02-rebuild", "nightly rebuild from the new feed export"),
             "PW-Q001", "permission exclusions triple overnight; the policy version is unchanged",
             "permission/freshness"),
    Pipeline("freshness rule disabled", parse_sizes, build_index, False,
             dict(BASELINE_VERSIONS, freshness="freshness/2-off"),
             ("freshness", "freshness/2-off", "freshness rule switched off for a load test"),
             "PW-Q004", "a seal from the 2024 price list ranks first and is offered as current", "ranking"),
)
CHANGE_LOG = tuple(p.change for p in VARIANTS)


def _vector_problem(r: dict, version: str):
    v = r["vector"]
    if r["vector_version"] != version:
        return "wrong_version"
    if len(v) != 3 or not all(type(x) in (int, float) for x in v):
        return "malformed"
    return None if any(v) else "zero"


def _gate(r: dict, freshness_rule: bool):
    """The first rule a retrieved listing breaks, as a safe reason code; None when it may pass."""
    if r["permission"] != "allowed":   # denied, unknown or missing: fail closed
        return "permission_denied" if r["permission"] == "denied" else "permission_unknown"
    if r["family"] in PROHIBITED_FAMILIES:
        return "prohibited_family"
    if freshness_rule and r["stale"] is not False:
        return "stale"
    return None


def run_query(query: Query, pipeline: Pipeline = HEALTHY, index: tuple | None = None) -> dict:
    """Run one query through every layer; return its internal trace record (JSON-ready)."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a catalogue Query, got {type(query).__name__} {query!r}")
    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"pipeline must be a Pipeline, got {type(pipeline).__name__} {pipeline!r}")
    index = pipeline.build_index() if index is None else index
    versions = pipeline.versions

    # Input: keep the original, record each transformation with its version.
    normal = normalise_query(query.text)
    sizes = pipeline.parse(normal)
    family = next((fam for phrase, fam in _FAMILIES if phrase in normal), None)
    terms = list(dict.fromkeys(w for w in _WORD.findall(_SIZE.sub(" ", normal)) if w not in _STOPWORDS))
    steps = [{"name": "normalise", "version": "normalise/1", "from": query.text, "to": normal}]
    steps += [{"name": "size", "version": versions["parser"], "from": s["from"],
               "to": f"{s['value_mm']} mm" if s["value_mm"] else "(no unit)"} for s in sizes]
    if family:
        steps.append({"name": "family", "version": "family-terms/1", "from": normal, "to": family})
    steps.append({"name": "terms", "version": "terms/1", "from": normal, "to": " ".join(terms)})

    # Retrieval: an exact millimetre filter only when every size kept its unit, then two channels.
    unresolved = any(s["value_mm"] is None for s in sizes)
    wanted = None if unresolved or not sizes else {s["value_mm"] for s in sizes}
    pool = [r for r in index if wanted is None or r["diameter_mm"] in wanted]
    words = set(terms)
    lexical, vector, rejected = [], [], []
    for r in pool:
        score = TITLE_WEIGHT * len(words & r["title_words"]) + TEXT_WEIGHT * len(words & r["text_words"])
        if score:
            lexical.append((-score, r["id"], r, " ".join(sorted(words & (r["title_words"] | r["text_words"])))))
        problem = _vector_problem(r, query.vector_version)
        if problem:
            rejected.append({"ref": r["ref"], "reason": problem})
            continue
        a, b = query.vector, r["vector"]
        cosine = sum(x * y for x, y in zip(a, b)) / (sum(x * x for x in a) * sum(y * y for y in b)) ** 0.5
        vector.append((-cosine, r["id"], r, f"cosine ({r['vector_version']})"))
    channels = {"lexical": sorted(lexical, key=lambda row: row[:2])[:CHANNEL_TOP_K],
                "vector": sorted(vector, key=lambda row: row[:2])[:CHANNEL_TOP_K]}

    # Permission/freshness: gate every retrieved listing once, in order of first retrieval.
    found_by: dict = {}
    for name, hits in channels.items():
        for hit in hits:
            found_by.setdefault(hit[1], (hit[2], []))[1].append(name)
    exclusions, passed = [], set()
    for listing_id, (r, by) in found_by.items():
        reason = _gate(r, pipeline.freshness_rule)
        if reason is None:
            passed.add(listing_id)
        else:
            category = REASON_CODES[reason]
            exclusions.append({"ref": r["ref"], "layer": "permission/freshness", "category": category,
                               "reason": reason, "rule_version": versions[RULE_OF[category]], "found_by": by})

    # Ranking: ranks recounted after the gate (so no score keeps the hole a denied listing left),
    # reciprocal rank fusion, then one listing per canonical cluster.
    fused: dict = {}
    for name, hits in channels.items():
        for rank, hit in enumerate((h for h in hits if h[1] in passed), start=1):
            entry = fused.setdefault(hit[1], [0.0, hit[2], []])
            entry[0] += 1 / (RRF_K + rank)
            entry[2].append(f"{name} #{rank}")
    clusters: dict = {}
    ranking = []
    for score, r, why in sorted(fused.values(), key=lambda e: (-e[0], e[1]["id"])):
        members = clusters.setdefault(r["cluster"], [])
        members.append(r["id"])
        if len(members) == 1:
            ranking.append({"rank": len(ranking) + 1, "ref": r["id"], "cluster": r["cluster"],
                            "ordering_score": round(score, 6), "reason": ", ".join(why), "record": r})

    # Assembly: whole fields of the best listings, each with its own id; a title that states another
    # millimetre size than the structured field contradicts itself and is left out.
    packet, chosen = [], []
    for entry in ranking:
        r = entry.pop("record")   # the index record rode along for assembly; the trace keeps the ref only
        if len(chosen) == PACKET_LISTINGS:
            continue
        stated = {n for n, unit in _SIZE.findall(r["title"].lower()) if unit == "mm"}
        if stated and r["diameter_mm"] not in stated:
            exclusions.append({"ref": r["id"], "layer": "assembly", "category": "evidence", "reason": "field_conflict",
                               "rule_version": versions["assembler"], "found_by": found_by[r["id"]][1]})
            continue
        chosen.append(r)
        packet += [{"field_id": f"{r['id']}#{field}", "value": r[field]} for field in PACKET_FIELDS]

    # Decision, by precedence: prohibited scope > missing unit (clarify) > evidence.
    if family in PROHIBITED_FAMILIES:
        state, cause, fallback = "prohibited", "prohibited_scope", "refer_to_technician"
    elif unresolved:
        state, cause, fallback = "clarify", "missing_unit", "ask_for_unit"
    elif chosen:
        state, cause, fallback = "respond", None, None
    else:   # named internally; the shopper sees "no match" whatever the cause
        categories = {e["category"] for e in exclusions}
        cause = ("no_permitted_match" if not found_by else "all_unauthorized" if categories == {"permission"}
                 else "all_stale" if categories == {"freshness"} else "all_excluded")
        state, fallback = "empty", "suggest_other_search"
    answer = [{"text": f"{r['title']}: {r['diameter_mm']} mm, {r['family']}, listed {r['updated_on']}.",
               "cites": [f"{r['id']}#{field}" for field in PACKET_FIELDS]} for r in chosen if state == "respond"]
    return {
        "query_id": query.id, "query": query.text, "fingerprint": query_fingerprint(query.text, versions),
        "versions": dict(versions), "transformations": steps,
        "size_filter_mm": sorted(wanted) if wanted is not None else None,
        "candidates": {name: [{"rank": n, "ref": h[2]["ref"], "score": -h[0] if name == "lexical" else round(-h[0], 4),
                               "evidence": h[3] if name == "vector" else "matched " + h[3]}
                              for n, h in enumerate(hits, start=1)] for name, hits in channels.items()},
        "vector_rejected": rejected, "exclusions": exclusions,
        "clusters": [{"cluster": c, "kept": m[0], "collapsed": m[1:]} for c, m in clusters.items() if len(m) > 1],
        "ranking": ranking, "packet": packet, "state": state, "cause": cause, "fallback": fallback, "answer": answer,
    }


# ---------------------------------------------------------------- reading records

def locate(record: dict, listing_id: str) -> str:
    """Internal only: where one listing went. "Not retrieved" and "retrieved, then excluded" are
    different answers here, though the user view shows neither."""
    refs = (listing_id, opaque_ref(listing_id))
    for e in record["exclusions"]:
        if e["ref"] in refs:
            return f"retrieved, then excluded at {e['layer']}: {e['reason']}"
    for c in record["clusters"]:
        if listing_id in c["collapsed"]:
            return f"retrieved, then collapsed into {c['kept']} (cluster {c['cluster']})"
    if any(f["field_id"].startswith(listing_id + "#") for f in record["packet"]):
        return "in the packet"
    if any(r["ref"] == listing_id for r in record["ranking"]):
        return "ranked below the packet"
    if any(r["ref"] in refs for r in record["vector_rejected"]):
        return "not retrieved: vector rejected"
    return "not retrieved"


def user_view(record: dict) -> dict:
    """What the shopper sees: the request, a state, a fixed message and the cited answer. Built only
    from fields a denied listing cannot touch."""
    state = USER_STATES[record["state"]]
    return {"query": record["query"], "state": state, "message": USER_MESSAGES[state],
            "answer": [{"text": line["text"], "cites": list(line["cites"])} for line in record["answer"]]}


def count_exclusions(records) -> dict:
    """Exclusions per safe reason code over many records, every code listed (zeros too)."""
    counts = dict.fromkeys(REASON_CODES, 0)
    for record in records:
        for exclusion in record["exclusions"]:
            code = exclusion.get("reason")
            if code not in counts:
                raise ValueError(f"exclusion reason {code!r} is not a safe reason code; known: {sorted(REASON_CODES)}")
            counts[code] += 1
    return counts


# ---------------------------------------------------------------- the regression walk

def first_failing_layer(results: dict):
    """Walk LAYERS in order; return the first whose check failed, or None when all passed.

    A layer with no result stops the walk with an error: skipping it would let a later failure
    take the blame for an earlier one."""
    if not isinstance(results, dict):
        raise TypeError(f"results must be a dict of layer -> bool, got {type(results).__name__} {results!r}")
    unknown = sorted(set(results) - set(LAYERS))
    if unknown:
        raise ValueError(f"results names unknown layer(s) {unknown}; the layers are {list(LAYERS)}")
    for layer in LAYERS:
        if layer not in results:
            raise ValueError(f"layer {layer!r} has no check result: a walk cannot skip a layer")
        passed = results[layer]
        if not isinstance(passed, bool):
            raise TypeError(f"results[{layer!r}] must be True or False, got {type(passed).__name__} {passed!r}")
        if not passed:
            return layer
    return None


def layer_checks(record: dict, index: tuple) -> list:
    """One check per layer, each an invariant read from the record and the index it ran on."""
    by_ref = {r["ref"]: r for r in index}
    sizes = [s for s in record["transformations"] if s["name"] == "size"]
    ranked_refs = [r["ref"] for r in record["ranking"]]
    ranked = [by_ref[ref] for ref in ranked_refs]
    packet_ids = {f["field_id"] for f in record["packet"]}
    packed = {f.split("#")[0] for f in packet_ids}
    gated = {e["ref"] for e in record["exclusions"] if e["layer"] == "permission/freshness"}
    wanted = record["size_filter_mm"]
    scores = [r["ordering_score"] for r in record["ranking"]]
    clusters = [r["cluster"] for r in record["ranking"]]
    family = [s["to"] for s in record["transformations"] if s["name"] == "family"]
    expected = ("prohibited" if family and family[0] in PROHIBITED_FAMILIES else "clarify"
                if any(not s["to"].endswith(" mm") for s in sizes) else "respond" if packed else "empty")
    seen = user_view(record)
    hidden = user_view(dict(record, exclusions=[e for e in record["exclusions"] if e["category"] != "permission"]))
    leaks = [e["ref"] for e in record["exclusions"] if e["category"] == "permission"]
    problems = {
        "input": [f"size {s['from']!r} lost its unit (-> {s['to']})" for s in sizes
                  if s["from"].split()[-1] in _UNITS and not s["to"].endswith(" mm")],
        "source": [f"{n} of {len(index)} index records have no valid {field}" for field, n in (
            ("permission", sum(r["permission"] not in PERMISSIONS for r in index)),
            ("stale", sum(type(r["stale"]) is not bool for r in index)),
            ("updated_on", sum(not r["updated_on"] for r in index)),
            ("vector_version", sum(not r["vector_version"] for r in index))) if n],
        "retrieval": [f"{h['ref']} ({name}) is outside the size filter" for name, hits in record["candidates"].items()
                      for h in hits if wanted and by_ref[h["ref"]]["diameter_mm"] not in wanted],
        "permission/freshness": [f"{r['ref']} passed the gate while {why}" for r in ranked for why in (
            r["permission"] != "allowed" and f"its permission is {r['permission']}",
            r["family"] in PROHIBITED_FAMILIES and "its family is prohibited",
            r["stale"] is not False and "it is stale") if why]
        + [f"exclusion of {e['ref']} has no safe reason or rule version" for e in record["exclusions"]
           if e["reason"] not in REASON_CODES or not e["rule_version"]],
        "ranking": [f"{ref} was ranked after the gate excluded it" for ref in ranked_refs if ref in gated]
        + ["ordering_score rises down the ranking"] * (scores != sorted(scores, reverse=True))
        + ["a canonical cluster is ranked twice"] * (len(set(clusters)) != len(clusters)),
        "assembly": [f"{ref} is in the packet but was not ranked" for ref in sorted(packed - set(ranked_refs))]
        + [f"{len(packed)} listings exceed {PACKET_LISTINGS}"] * (len(packed) > PACKET_LISTINGS),
        "decision": [f"state {record['state']!r} where the record supports {expected!r}"] * (record["state"] != expected),
        "presentation": [f"the user view shows {leak!r}" for leak in (*leaks, *RESTRICTED_IDS, *RESTRICTED_STRINGS)
                         if leak in repr(seen)] + ["denied listings change the user view"] * (hidden != seen),
        "generation": [f"cites {c}, which is not in the packet" for line in record["answer"] for c in line["cites"]
                       if c not in packet_ids],
        "change": [f"{name} is {version}, with no change-log entry" for name, version in record["versions"].items()
                   if version != BASELINE_VERSIONS.get(name) and (name, version) not in {c[:2] for c in CHANGE_LOG}],
    }
    return [{"layer": layer, "passed": not problems[layer], "evidence": "; ".join(problems[layer]) or "ok"}
            for layer in LAYERS]


# ---------------------------------------------------------------- the trace

DETAIL_QUERY, DENIED_QUERY = "PW-Q002", "PW-Q005"
# The words of PW-Q005 with a size no listing has: nothing is retrieved at all.
NOTHING_QUERY = Query("GR-Q001", "marine stern seal 24 mm", (0.61, 0.30, 0.69), VECTOR_VERSION)


def _packed(record: dict) -> list:
    return list(dict.fromkeys(f["field_id"].split("#")[0] for f in record["packet"]))


def _contrast(record: dict) -> dict:
    return {"query": record["query"], "state": record["state"], "cause": record["cause"],
            "exclusions": [[e["ref"], e["reason"]] for e in record["exclusions"]], "user_view": user_view(record)}


def trace(query: str = DETAIL_QUERY) -> dict:
    """Every catalogue query through the healthy pipeline, one in detail, then the three broken ones."""
    detail_query = query_by_id(query)
    index = build_index()
    records = [run_query(q, HEALTHY, index) for q in QUERIES]
    detail = records[QUERIES.index(detail_query)]
    denied = _contrast(records[QUERIES.index(query_by_id(DENIED_QUERY))])
    nothing = _contrast(run_query(NOTHING_QUERY, HEALTHY, index))
    variants = []
    for pipeline in VARIANTS:
        broken_index = pipeline.build_index()
        before = records[QUERIES.index(query_by_id(pipeline.symptom_query))]
        after = run_query(query_by_id(pipeline.symptom_query), pipeline, broken_index)
        checks = layer_checks(after, broken_index)
        variants.append({"name": pipeline.name, "change": list(pipeline.change),
                         "symptom_query": pipeline.symptom_query, "symptom": pipeline.symptom,
                         "seen_at": pipeline.seen_at, "state_before": before["state"], "state_after": after["state"],
                         "packet_before": _packed(before), "packet_after": _packed(after), "checks": checks,
                         "first_failing_layer": first_failing_layer({c["layer"]: c["passed"] for c in checks})})
    rebuilt = VARIANTS[1]
    rebuilt_index = rebuilt.build_index()
    before = count_exclusions(records)
    after = count_exclusions(run_query(q, rebuilt, rebuilt_index) for q in QUERIES)
    return {
        "lesson": "grounding",
        "layers": list(LAYERS),
        "queries": [{"query_id": r["query_id"], "query": r["query"], "fingerprint": r["fingerprint"],
                     "state": r["state"], "cause": r["cause"], "packet": _packed(r),
                     "exclusions": [e["reason"] for e in r["exclusions"]]} for r in records],
        "detail": detail,
        "detail_checks": layer_checks(detail, index),
        "where_each_listing_went": [{"ref": r["ref"], "where": locate(detail, r["id"])} for r in index],
        "user_view": user_view(detail),
        "denied_versus_not_retrieved": {
            "retrieved_then_denied": denied, "not_retrieved": nothing,
            "user_views_equal_apart_from_the_query":
                dict(denied["user_view"], query="") == dict(nothing["user_view"], query="")},
        "variants": variants,
        "exclusions_by_reason": {
            "query_count": len(QUERIES), "before": before, "after": after,
            "permission_before": before["permission_denied"] + before["permission_unknown"],
            "permission_after": after["permission_denied"] + after["permission_unknown"],
            "index_version": [BASELINE_VERSIONS["index"], rebuilt.versions["index"]],
            "policy_version": [BASELINE_VERSIONS["policy"], rebuilt.versions["policy"]],
            "reading": "Permission exclusions rose while the policy did not change: metadata was lost on the way "
                       "into the index. Repair the rebuild; never relax fail-closed to make the count drop."},
    }


# ---------------------------------------------------------------- the view

def _table(title: str, columns: list, rows: list) -> dict:
    return {"table": {"title": title, "columns": columns, "rows": rows}}


def _either(items, empty: str = "-") -> str:
    return ", ".join(items) or empty


def view(record: dict) -> list:
    """Printable blocks: the internal record first, then what the shopper sees, then the walks."""
    d, contrast, agg = record["detail"], record["denied_versus_not_retrieved"], record["exclusions_by_reason"]
    seen = record["user_view"]
    blocks = [
        {"heading": "Lesson 09 - grounding: traces that explain every inclusion and exclusion"},
        {"text": "Every query runs through the same layers: " + " > ".join(record["layers"]) + ". One record per "
                 "query joins them; denied listings appear in it only as opaque refs."},
        _table("Nine queries, healthy pipeline (fingerprint: sha256 of the normalised query and every component "
               "version, first 12 hex shown)", ["query", "text", "fingerprint", "state", "packet", "exclusions"],
               [[q["query_id"], q["query"], q["fingerprint"][:12], q["state"] + (f" ({q['cause']})" * bool(q["cause"])),
                 _either(q["packet"]), _either(q["exclusions"])] for q in record["queries"]]),
        {"text": "The packet is assembled before the decision; a clarify or out-of-scope state answers without it."},
        {"heading": f"The internal record of {d['query_id']}: {d['query']}"},
        {"text": f"Fingerprint {d['fingerprint']}; versions " + _either(f"{k}={v}" for k, v in d["versions"].items())},
        _table("Input: transformations, each named and versioned", ["name", "version", "from", "to"],
               [[s["name"], s["version"], s["from"], s["to"]] for s in d["transformations"]]),
        _table(f"Retrieval: candidates per channel, before the gate (size filter: "
               f"{_either(d['size_filter_mm'] or [], 'none')} mm)", ["channel", "rank", "ref", "score", "evidence"],
               [[name, h["rank"], h["ref"], f"{h['score']:g}", h["evidence"]]
                for name, hits in d["candidates"].items() for h in hits]),
        _table("Exclusions, each with its category and rule version",
               ["ref", "layer", "category", "reason", "rule version", "found by"],
               [[e["ref"], e["layer"], e["category"], e["reason"], e["rule_version"], _either(e["found_by"])]
                for e in d["exclusions"]]),
        {"text": "Canonical clusters: " + _either((f"{c['cluster']} kept {c['kept']}, collapsed "
                                                   + _either(c["collapsed"]) for c in d["clusters"]), "none")
                 + ". Vectors rejected: " + _either((f"{r['ref']} ({r['reason']})" for r in d["vector_rejected"]),
                                                    "none") + "."},
        _table(f"Ranking: reciprocal rank fusion (k = {RRF_K}) over ranks recounted after the gate",
               ["rank", "ref", "cluster", "ordering_score", "reason"],
               [[r["rank"], r["ref"], r["cluster"], f"{r['ordering_score']:.6f}", r["reason"]] for r in d["ranking"]]),
        {"text": "Packet field ids: " + _either((f["field_id"] for f in d["packet"]), "none") + "."},
        {"text": f"State: {d['state']}; cause: {d['cause'] or '-'}; fallback: {d['fallback'] or '-'}."},
        _table("Where each listing went (internal: denied listings by ref only)", ["ref", "where"],
               [[w["ref"], w["where"]] for w in record["where_each_listing_went"]]),
        {"heading": "What the shopper sees"},
        {"text": "\n".join([f"Request: {seen['query']}", f"[{seen['state']}] {seen['message']}"]
                           + [f"- {line['text']} [{_either(line['cites'])}]" for line in seen["answer"]])},
        _table("Retrieved then denied is not the same as not retrieved - internally",
               ["case", "query", "internal state", "internal exclusions", "user state"],
               [[label, c["query"], f"{c['state']} ({c['cause']})", _either(" ".join(e) for e in c["exclusions"]),
                 c["user_view"]["state"]] for label, c in (("retrieved, then denied", contrast["retrieved_then_denied"]),
                                                          ("not retrieved", contrast["not_retrieved"]))]),
        {"text": "User views identical apart from the query text: "
                 + ("yes" if contrast["user_views_equal_apart_from_the_query"] else "NO")
                 + ". The shopper is told: " + contrast["not_retrieved"]["user_view"]["message"]},
        {"heading": "Regression localisation: walk the layers, name the first that failed"},
    ]
    for v in record["variants"]:
        blocks.append(_table(f"{v['name']} ({v['change'][0]} -> {v['change'][1]}). Symptom on {v['symptom_query']}: "
                             f"{v['symptom']}; seen at {v['seen_at']}. First failing layer: {v['first_failing_layer']}",
                             ["layer", "passed", "evidence"],
                             [[c["layer"], c["passed"], c["evidence"]] for c in v["checks"]]))
    blocks += [
        _table("Where the symptom showed, and where the walk points",
               ["variant", "query", "state before -> after", "seen at", "first failing layer"],
               [[v["name"], v["symptom_query"], f"{v['state_before']} -> {v['state_after']}", v["seen_at"],
                 v["first_failing_layer"]] for v in record["variants"]]),
        {"heading": "Exclusions by safe reason code, before and after the index rebuild"},
        _table(f"Over the {agg['query_count']} catalogue queries", ["reason code", "category", "before", "after"],
               [[code, REASON_CODES[code], agg["before"][code], agg["after"][code]] for code in agg["before"]]),
        {"chart": {"title": "Permission exclusions", "width": 30, "rows": [
            [f"before ({agg['index_version'][0]})", agg["permission_before"], agg["permission_after"]],
            [f"after ({agg['index_version'][1]})", agg["permission_after"], agg["permission_after"]]]}},
        {"text": f"Permission exclusions {agg['permission_before']} -> {agg['permission_after']}; policy version "
                 f"{agg['policy_version'][0]} -> {agg['policy_version'][1]}. {agg['reading']}"},
    ]
    return blocks
