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

from modules.catalogue import (CATALOGUE_AS_OF, LISTINGS, PERMISSIONS, PROHIBITED_FAMILIES, QUERIES,
                               RESTRICTED_IDS, RESTRICTED_STRINGS, VECTOR_VERSION, Query, opaque_ref,
                               query_by_id)

__all__ = [
    "LAYERS", "REASON_CODES", "USER_STATES", "USER_MESSAGES", "BASELINE_VERSIONS", "Pipeline", "HEALTHY",
    "VARIANTS", "normalise_query", "query_fingerprint", "parse_sizes", "build_index", "run_query",
    "locate", "user_view", "count_exclusions", "layer_checks", "first_failing_layer", "trace", "view",
]

# The order a regression walk follows. "permission/freshness" is one layer: the gate.
LAYERS = ("input", "source", "retrieval", "permission/freshness", "ranking", "assembly", "decision",
          "presentation", "generation", "change")

# Safe reason codes: the only words an exclusion may carry into an aggregate. Never free text,
# which could quote a restricted title. Code -> category.
REASON_CODES = {
    "permission_denied": "permission",
    "permission_unknown": "permission",
    "prohibited_family": "scope",
    "stale": "freshness",
    "field_conflict": "evidence",
}

BASELINE_VERSIONS = {
    "parser": "size-parser/1", "index": "pw-index/2026-11-01", "vector": VECTOR_VERSION,
    "policy": "assist-policy/4", "scope": "scope/1", "freshness": "freshness/2", "ranker": "rrf-60/1",
    "assembler": "packet/1",
}
RULE_OF = {"permission": "policy", "scope": "scope", "freshness": "freshness", "evidence": "assembler"}

# What the user is told for each internal state. Every empty result, whatever its cause,
# reads the same: "all denied" must look exactly like "nothing matched".
USER_STATES = {"respond": "answer", "clarify": "clarify", "prohibited": "out_of_scope", "empty": "no_match"}
USER_MESSAGES = {
    "answer": "These listings match your request.",
    "clarify": "Which unit is that size in: millimetres or inches?",
    "out_of_scope": "This part is outside what the assistant may recommend; please ask a qualified technician.",
    "no_match": "No listing matches your request. Try another size or describe the part differently.",
}

LEXICAL_WEIGHTS = {"title": 3, "description": 1}
CHANNEL_TOP_K = 5
RRF_K = 60
PACKET_LISTINGS = 3
PACKET_FIELDS = ("title", "diameter_mm", "family", "updated_on")
MM_PER_INCH = (254, 1)    # 25.4 as (digits, decimal places): exact, no floats

_UNIT_WORDS = {"mm": "mm", "inch": "inch", "inches": "inch"}
_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?:\s*(mm|inches|inch)\b)?")
_WORD = re.compile(r"[a-z]+")
_STOPWORDS = frozenset({"a", "an", "the", "for", "of", "or", "and", "with", "to", "mm", "inch", "inches"})
_FAMILY_PHRASES = (("safety relief valve", "safety-relief-valve"), ("lip seal", "lip-seal"),
                   ("mechanical seal", "mechanical-seal"), ("o-ring", "o-ring"), ("gasket", "gasket"))


# ---------------------------------------------------------------- fingerprint

def normalise_query(text: str) -> str:
    """Case-folded, whitespace collapsed: two spellings of one request share a fingerprint."""
    if not isinstance(text, str):
        raise TypeError(f"query text must be a str, got {type(text).__name__} {text!r}")
    normal = " ".join(text.casefold().split())
    if not normal:
        raise ValueError(f"query text must not be blank, got {text!r}")
    return normal


_sha256 = None


def _sha256_hex(data: bytes) -> str:
    # The interpreter's built-in sha256 gives the same digest as hashlib without loading OpenSSL,
    # which would cost more start-up time than this whole lesson. Looked up once.
    global _sha256
    if _sha256 is None:
        try:
            from _sha2 import sha256 as found          # CPython 3.12+
        except ImportError:
            try:
                from _sha256 import sha256 as found    # CPython 3.10, 3.11
            except ImportError:                        # another interpreter
                from hashlib import sha256 as found
        _sha256 = found
    return _sha256(data).hexdigest()


def query_fingerprint(text: str, versions: dict) -> str:
    """sha256 over canonical JSON of the normalised query and every component version.

    Same request and same pipeline -> same fingerprint, on any machine and hash seed. A
    changed component changes it, so a replay can tell "same query, new index" apart.
    """
    import json
    if not isinstance(versions, dict) or not versions:
        raise TypeError(f"versions must be a non-empty dict of component -> version, got {versions!r}")
    for name, value in versions.items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f"versions[{name!r}] must map a str to a str, got {value!r}")
    canonical = json.dumps({"query": normalise_query(text), "versions": versions},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return _sha256_hex(canonical.encode("ascii"))


# ---------------------------------------------------------------- input: the query contract

def _to_mm(number: str, unit: str) -> str:
    whole, _, frac = number.partition(".")
    digits, places = int(whole + frac), len(frac)
    if unit == "inch":
        digits, places = digits * MM_PER_INCH[0], places + MM_PER_INCH[1]
    text = str(digits).rjust(places + 1, "0")
    whole, frac = (text[:-places], text[-places:].rstrip("0")) if places else (text, "")
    return f"{whole}.{frac}" if frac else whole


def parse_sizes(text: str) -> list:
    """Every size in the query: explicit units are kept and converted, bare numbers stay unresolved."""
    steps = []
    for number, word in _SIZE.findall(text):
        written = f"{number} {word}".strip()
        if word:
            unit = _UNIT_WORDS[word]
            steps.append({"from": written, "value_mm": _to_mm(number, unit), "unit": unit,
                          "state": "converted" if unit == "inch" else "parsed"})
        else:
            steps.append({"from": written, "value_mm": None, "unit": None, "state": "unresolved"})
    return steps


def parse_sizes_dropping_unit(text: str) -> list:
    """Broken variant: reads the number and loses the unit it was given (a refactor's regression)."""
    return [{"from": f"{number} {word}".strip(), "value_mm": None, "unit": None, "state": "parsed"}
            for number, word in _SIZE.findall(text)]


def _contract(query: Query, pipeline) -> dict:
    normal = normalise_query(query.text)
    sizes = pipeline.parse(normal)
    family = next((fam for phrase, fam in _FAMILY_PHRASES if phrase in normal), None)
    terms = list(dict.fromkeys(w for w in _WORD.findall(_SIZE.sub(" ", normal)) if w not in _STOPWORDS))
    steps = [{"name": "normalise", "version": "normalise/1", "from": query.text, "to": normal}]
    version = pipeline.versions["parser"]
    steps += [{"name": "size", "version": version, "from": s["from"],
               "to": f"{s['value_mm']} mm" if s["value_mm"] else "(no unit)", "state": s["state"]} for s in sizes]
    if family:
        steps.append({"name": "family", "version": "family-terms/1", "from": normal, "to": family})
    steps.append({"name": "terms", "version": "terms/1", "from": normal, "to": " ".join(terms)})
    return {"normal": normal, "sizes": sizes, "family": family, "terms": terms, "steps": steps}


# ---------------------------------------------------------------- source: the index

IndexRecord = namedtuple("IndexRecord", "listing_id cluster_id title description family diameter_mm "
                                        "permission stale updated_on vector vector_version ref title_words "
                                        "description_words")
REQUIRED_METADATA = ("permission", "stale", "updated_on", "vector_version")


def _indexed(listing_id, cluster_id, title, description, family, diameter_mm, permission, stale, updated_on,
             vector, vector_version) -> IndexRecord:
    # The ref is how every trace names the record: its id only when the index positively allows
    # it, an opaque ref otherwise (fail closed in the trace as in the gate).
    ref = listing_id if permission == "allowed" else opaque_ref(listing_id)
    return IndexRecord(listing_id, cluster_id, title, description, family, diameter_mm, permission, stale,
                       updated_on, vector, vector_version, ref, frozenset(_WORD.findall(title.lower())),
                       frozenset(_WORD.findall(description.lower())))


def build_index(listings=LISTINGS) -> tuple:
    """Copy every listing into the search index, metadata included."""
    return tuple(_indexed(l.id, l.cluster_id, l.title, l.description, l.family, l.diameter_mm, l.permission,
                          l.stale, l.updated_on, l.vector, l.vector_version) for l in listings)


REBUILD_FEED_SINCE = "2026-10-18"


def build_index_without_permission(listings=LISTINGS) -> tuple:
    """Broken variant: the rebuild read the feed export of every listing updated since
    REBUILD_FEED_SINCE, and that export had no permission column. The field arrives empty."""
    return tuple(_indexed(*r[:6], None, *r[7:11]) if r.updated_on >= REBUILD_FEED_SINCE else r
                 for r in build_index(listings))


# ---------------------------------------------------------------- retrieval: two channels, one filter

def _size_filter(contract: dict):
    """The structured filter: exact millimetre values, only when every size kept its unit."""
    sizes = contract["sizes"]
    if not sizes or any(s["value_mm"] is None for s in sizes):
        return None
    return {s["value_mm"] for s in sizes}


def _cosine(a: tuple, b: tuple) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = (sum(x * x for x in a) * sum(y * y for y in b)) ** 0.5
    return dot / norm


def _vector_problem(record: IndexRecord, version: str):
    vector = record.vector
    if record.vector_version != version:
        return "wrong_version"
    if len(vector) != 3 or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vector):
        return "malformed"
    if not any(vector):
        return "zero"
    return None


def _retrieve(contract: dict, query: Query, index: tuple) -> tuple:
    wanted = _size_filter(contract)
    pool = [r for r in index if wanted is None or r.diameter_mm in wanted]
    terms = set(contract["terms"])
    lexical = []
    for r in pool:
        matched = sorted(terms & r.title_words)
        also = sorted(terms & r.description_words)
        score = LEXICAL_WEIGHTS["title"] * len(matched) + LEXICAL_WEIGHTS["description"] * len(also)
        if score:
            lexical.append((-score, r.listing_id, r, sorted(set(matched + also))))
    lexical.sort(key=lambda row: row[:2])
    vector, rejected = [], []
    for r in pool:
        problem = _vector_problem(r, query.vector_version)
        if problem:
            rejected.append({"ref": r.ref, "reason": problem})
        else:
            vector.append((-_cosine(query.vector, r.vector), r.listing_id, r))
    vector.sort(key=lambda row: row[:2])
    channels = {
        "lexical": [{"rank": n, "record": r, "score": -s, "evidence": "matched " + " ".join(words)}
                    for n, (s, _, r, words) in enumerate(lexical[:CHANNEL_TOP_K], start=1)],
        "vector": [{"rank": n, "record": r, "score": round(-s, 4), "evidence": f"cosine ({r.vector_version})"}
                   for n, (s, _, r) in enumerate(vector[:CHANNEL_TOP_K], start=1)],
    }
    return channels, rejected, wanted


# ---------------------------------------------------------------- permission/freshness: the gate

def _gate(record: IndexRecord, freshness_rule: bool):
    """The first rule a retrieved listing breaks, as a safe reason code, or None when it may pass."""
    if record.permission != "allowed":   # unknown, missing or denied: fail closed
        return "permission_denied" if record.permission == "denied" else "permission_unknown"
    if record.family in PROHIBITED_FAMILIES:
        return "prohibited_family"
    if freshness_rule and record.stale is not False:
        return "stale"
    return None


# ---------------------------------------------------------------- assembly helpers

_TITLE_MM = re.compile(r"(\d+(?:\.\d+)?)\s*mm\b")


def _title_conflicts(record: IndexRecord) -> bool:
    """A title that states a millimetre size other than the structured field's cannot be quoted as evidence."""
    stated = set(_TITLE_MM.findall(record.title.lower()))
    return bool(stated) and record.diameter_mm not in stated


# ---------------------------------------------------------------- the pipeline and its broken variants

# A pipeline is the set of parts a run uses. Each broken variant changes one part, ships it with a
# change-log entry, and shows its symptom on one query, far from where it broke.
Pipeline = namedtuple("Pipeline", "name parse build_index freshness_rule versions change symptom_query symptom seen_at")

HEALTHY = Pipeline("healthy", parse_sizes, build_index, True, dict(BASELINE_VERSIONS), None, None, None, None)
VARIANTS = (
    Pipeline("unit parser drops the unit", parse_sizes_dropping_unit, build_index, True,
             dict(BASELINE_VERSIONS, parser="size-parser/2"),
             ("parser", "size-parser/2", "size parser refactor"),
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


def run_query(query: Query, pipeline: Pipeline = HEALTHY, index: tuple | None = None) -> dict:
    """Run one query through every layer; return its internal trace record (JSON-ready)."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a catalogue Query, got {type(query).__name__} {query!r}")
    if not isinstance(pipeline, Pipeline):
        raise TypeError(f"pipeline must be a Pipeline, got {type(pipeline).__name__} {pipeline!r}")
    index = pipeline.build_index() if index is None else index
    versions = pipeline.versions
    contract = _contract(query, pipeline)
    channels, rejected, wanted = _retrieve(contract, query, index)

    # Gate every retrieved listing once, in order of first retrieval (lexical, then vector).
    first_seen: dict = {}
    for name in ("lexical", "vector"):
        for hit in channels[name]:
            first_seen.setdefault(hit["record"].listing_id, (hit["record"], []))[1].append(name)
    exclusions, passed = [], set()
    for listing_id, (record, found_by) in first_seen.items():
        reason = _gate(record, pipeline.freshness_rule)
        if reason is None:
            passed.add(listing_id)
            continue
        category = REASON_CODES[reason]
        exclusions.append({"ref": record.ref, "layer": "permission/freshness", "category": category,
                           "reason": reason, "rule_version": versions[RULE_OF[category]], "found_by": found_by})

    # Ranking: ranks are recounted after the gate, so no survivor's score keeps the hole a denied
    # listing left; then reciprocal rank fusion, then one listing per canonical cluster.
    fused: dict = {}
    for name in ("lexical", "vector"):
        survivors = [hit for hit in channels[name] if hit["record"].listing_id in passed]
        for rank, hit in enumerate(survivors, start=1):
            entry = fused.setdefault(hit["record"].listing_id, {"record": hit["record"], "score": 0.0, "why": []})
            entry["score"] += 1 / (RRF_K + rank)
            entry["why"].append(f"{name} #{rank}")
    ordered = sorted(fused.values(), key=lambda e: (-e["score"], e["record"].listing_id))
    kept, clusters = [], {}
    for entry in ordered:
        members = clusters.setdefault(entry["record"].cluster_id, [])
        members.append(entry["record"].listing_id)
        if len(members) == 1:
            kept.append(entry)
    ranking = [{"rank": n, "ref": e["record"].listing_id, "cluster": e["record"].cluster_id,
                "ordering_score": round(e["score"], 6), "reason": ", ".join(e["why"])}
               for n, e in enumerate(kept, start=1)]

    # Assembly: whole fields of the best listings, each with its own id; a self-contradicting title is left out.
    packet, chosen = [], []
    for entry in kept:
        record = entry["record"]
        if len(chosen) == PACKET_LISTINGS:
            break
        if _title_conflicts(record):
            exclusions.append({"ref": record.listing_id, "layer": "assembly", "category": "evidence",
                               "reason": "field_conflict", "rule_version": versions["assembler"],
                               "found_by": first_seen[record.listing_id][1]})
            continue
        chosen.append(record)
        packet += [{"field_id": f"{record.listing_id}#{field}", "value": getattr(record, field)}
                   for field in PACKET_FIELDS]

    state, cause, fallback = _decide(contract, first_seen, exclusions, chosen)
    answer = [{"text": f"{r.title}: {r.diameter_mm} mm, {r.family}, listed {r.updated_on}.",
               "cites": [f"{r.listing_id}#{field}" for field in PACKET_FIELDS]}
              for r in chosen] if state == "respond" else []
    return {
        "query_id": query.id,
        "query": query.text,
        "fingerprint": query_fingerprint(query.text, versions),
        "versions": dict(versions),
        "transformations": contract["steps"],
        "size_filter_mm": sorted(wanted) if wanted is not None else None,
        "candidates": {name: [{"rank": h["rank"], "ref": h["record"].ref, "score": h["score"],
                               "evidence": h["evidence"]} for h in hits] for name, hits in channels.items()},
        "vector_rejected": rejected,
        "exclusions": exclusions,
        "clusters": [{"cluster": c, "kept": m[0], "collapsed": m[1:]} for c, m in clusters.items() if len(m) > 1],
        "ranking": ranking,
        "packet": packet,
        "state": state,
        "cause": cause,
        "fallback": fallback,
        "answer": answer,
    }


def _decide(contract: dict, retrieved: dict, exclusions: list, chosen: list) -> tuple:
    """(state, cause, fallback), by precedence: scope, then missing unit, then evidence."""
    if contract["family"] in PROHIBITED_FAMILIES:
        return "prohibited", "prohibited_scope", "refer_to_technician"
    if any(s["value_mm"] is None for s in contract["sizes"]):
        return "clarify", "missing_unit", "ask_for_unit"
    if chosen:
        return "respond", None, None
    if not retrieved:
        return "empty", "no_permitted_match", "suggest_other_search"
    # Everything retrieved was excluded. Internally the cause is named; the user sees "no match" for all.
    categories = sorted({e["category"] for e in exclusions})
    single = {"permission": "all_unauthorized", "freshness": "all_stale"}
    cause = single.get(categories[0], "all_excluded") if len(categories) == 1 else "all_excluded"
    return "empty", cause, "suggest_other_search"


# ---------------------------------------------------------------- reading a record

def locate(record: dict, listing_id: str) -> str:
    """Internal only: where one listing went in this run. "not retrieved" and "retrieved,
    then excluded" are different answers, though the user view shows neither."""
    refs = {listing_id, opaque_ref(listing_id)}
    for exclusion in record["exclusions"]:
        if exclusion["ref"] in refs:
            return f"retrieved, then excluded at {exclusion['layer']}: {exclusion['reason']}"
    for cluster in record["clusters"]:
        if listing_id in cluster["collapsed"]:
            return f"retrieved, then collapsed into {cluster['kept']} (cluster {cluster['cluster']})"
    if any(f["field_id"].startswith(listing_id + "#") for f in record["packet"]):
        return "in the packet"
    if any(r["ref"] == listing_id for r in record["ranking"]):
        return "ranked below the packet"
    if any(r["ref"] in refs for r in record["vector_rejected"]):
        return "not retrieved: vector rejected"
    return "not retrieved"


def user_view(record: dict) -> dict:
    """What the shopper sees: the request, a state, a fixed message and the cited answer.

    Built only from fields a denied listing cannot touch, so a run whose candidates were all
    denied and a run that retrieved nothing read the same."""
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

    A layer with no result stops the walk with an error: skipping a layer would let a later
    failure take the blame for an earlier one."""
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


def _check(layer: str, problems: list) -> dict:
    return {"layer": layer, "passed": not problems, "evidence": "; ".join(problems) or "ok"}


def layer_checks(record: dict, index: tuple) -> list:
    """One check per layer, each an invariant read from the record and the index it ran on."""
    by_ref = {r.ref: r for r in index}
    steps = [s for s in record["transformations"] if s["name"] == "size"]
    excluded = {e["ref"] for e in record["exclusions"]}
    ranked = [by_ref[r["ref"]] for r in record["ranking"]]
    packet_ids = {f["field_id"] for f in record["packet"]}
    packet_listings = sorted({f.split("#")[0] for f in packet_ids})
    checks = [
        _check("input", [f"size {s['from']!r} lost its unit (-> {s['to']})" for s in steps
                         if s["from"].split()[-1] in _UNIT_WORDS and not s["to"].endswith(" mm")]),
        _check("source", [f"{n} of {len(index)} index records have no valid {field}" for field, n in
                          ((field, sum(1 for r in index if not _valid_metadata(r, field))) for field in REQUIRED_METADATA)
                          if n]),
    ]
    wanted = set(record["size_filter_mm"] or ())
    checks.append(_check("retrieval", [
        f"{h['ref']} ({name}) fails the size filter" for name, hits in record["candidates"].items()
        for h in hits if wanted and by_ref[h["ref"]].diameter_mm not in wanted] + [
        f"{h['ref']} (vector) has version {by_ref[h['ref']].vector_version}" for h in record["candidates"]["vector"]
        if by_ref[h["ref"]].vector_version != VECTOR_VERSION]))
    checks.append(_check("permission/freshness", [
        f"{r.listing_id} passed the gate while {why}" for r in ranked for why in
        (("permission is " + str(r.permission)) if r.permission != "allowed" else None,
         "its family is prohibited" if r.family in PROHIBITED_FAMILIES else None,
         "it is stale" if r.stale is not False else None) if why] + [
        f"exclusion of {e['ref']} lacks a safe reason or rule version" for e in record["exclusions"]
        if e["reason"] not in REASON_CODES or not e["rule_version"]]))
    scores = [r["ordering_score"] for r in record["ranking"]]
    clusters = [r["cluster"] for r in record["ranking"]]
    gated = {e["ref"] for e in record["exclusions"] if e["layer"] == "permission/freshness"}
    checks.append(_check("ranking", [f"{r['ref']} was ranked after the gate excluded it" for r in record["ranking"]
                                     if r["ref"] in gated] +
                         (["ordering_score rises down the ranking"] if scores != sorted(scores, reverse=True) else []) +
                         (["a canonical cluster is ranked twice"] if len(set(clusters)) != len(clusters) else [])))
    ranked_refs = [r["ref"] for r in record["ranking"]]
    checks.append(_check("assembly", [f"{l} is in the packet but not ranked" for l in packet_listings
                                      if l not in ranked_refs] +
                         [f"{l} is in the packet after being excluded" for l in packet_listings if l in excluded] +
                         ([f"{len(packet_listings)} listings exceed {PACKET_LISTINGS}"]
                          if len(packet_listings) > PACKET_LISTINGS else [])))
    expected = ("prohibited" if any(s["name"] == "family" and s["to"] in PROHIBITED_FAMILIES
                                    for s in record["transformations"])
                else "clarify" if any(not s["to"].endswith(" mm") for s in steps)
                else "respond" if packet_ids else "empty")
    checks.append(_check("decision", [] if record["state"] == expected
                         else [f"state {record['state']!r} where the record supports {expected!r}"]))
    shown = repr(user_view(record))
    denied = [e["ref"] for e in record["exclusions"] if e["category"] == "permission"]
    hidden = dict(record, exclusions=[e for e in record["exclusions"] if e["category"] != "permission"])
    checks.append(_check("presentation", [f"the user view shows {leak!r}" for leak in
                                          (*denied, *RESTRICTED_IDS, *RESTRICTED_STRINGS) if leak in shown] +
                         ([] if user_view(hidden) == user_view(record) else ["denied listings change the user view"])))
    checks.append(_check("generation", [f"cites {c}, which is not in the packet" for line in record["answer"]
                                        for c in line["cites"] if c not in packet_ids]))
    logged = {(component, version) for component, version, _note in CHANGE_LOG}
    checks.append(_check("change", [f"{component} is {version}, with no change-log entry"
                                    for component, version in record["versions"].items()
                                    if version != BASELINE_VERSIONS.get(component) and (component, version) not in logged]))
    return checks


def _valid_metadata(record: IndexRecord, field: str) -> bool:
    value = getattr(record, field)
    if field == "permission":
        return value in PERMISSIONS
    if field == "stale":
        return isinstance(value, bool)
    return isinstance(value, str) and bool(value)


# ---------------------------------------------------------------- the trace

DETAIL_QUERY = "PW-Q002"
DENIED_QUERY = "PW-Q005"
# The same words as PW-Q005 with a size no listing has: nothing is retrieved at all.
NOTHING_QUERY = Query("GR-Q001", "marine stern seal 24 mm", (0.61, 0.30, 0.69), VECTOR_VERSION)


def _where(record: dict, index: tuple) -> list:
    return [{"ref": r.ref, "where": locate(record, r.listing_id)} for r in index]


def _contrast(record: dict) -> dict:
    return {"query_id": record["query_id"], "query": record["query"], "state": record["state"],
            "cause": record["cause"], "exclusions": [[e["ref"], e["reason"]] for e in record["exclusions"]],
            "user_view": user_view(record)}


def trace(query: str = DETAIL_QUERY) -> dict:
    """Every catalogue query through the healthy pipeline, one in detail, then the three broken ones."""
    detail_query = query_by_id(query)
    index = build_index()
    records = [run_query(q, HEALTHY, index) for q in QUERIES]
    detail = records[QUERIES.index(detail_query)]
    denied = records[QUERIES.index(query_by_id(DENIED_QUERY))]
    nothing = run_query(NOTHING_QUERY, HEALTHY, index)
    seen_denied, seen_nothing = user_view(denied), user_view(nothing)

    variants = []
    for pipeline in VARIANTS:
        broken_index = pipeline.build_index()
        symptom = QUERIES.index(query_by_id(pipeline.symptom_query))
        broken = run_query(QUERIES[symptom], pipeline, broken_index)
        checks = layer_checks(broken, broken_index)
        variants.append({
            "name": pipeline.name, "change": list(pipeline.change), "symptom_query": pipeline.symptom_query,
            "symptom": pipeline.symptom, "seen_at": pipeline.seen_at,
            "state_before": records[symptom]["state"], "state_after": broken["state"],
            "packet_before": _packet_listings(records[symptom]), "packet_after": _packet_listings(broken),
            "checks": checks,
            "first_failing_layer": first_failing_layer({c["layer"]: c["passed"] for c in checks}),
        })

    # The aggregate needs every query again, on the rebuilt index.
    rebuilt = VARIANTS[1]
    rebuilt_index = rebuilt.build_index()
    before = count_exclusions(records)
    after = count_exclusions(run_query(q, rebuilt, rebuilt_index) for q in QUERIES)
    permission_before = sum(n for code, n in before.items() if REASON_CODES[code] == "permission")
    permission_after = sum(n for code, n in after.items() if REASON_CODES[code] == "permission")
    return {
        "lesson": "grounding",
        "layers": list(LAYERS),
        "versions": dict(BASELINE_VERSIONS),
        "catalogue_as_of": CATALOGUE_AS_OF,
        "queries": [{"query_id": r["query_id"], "query": r["query"], "fingerprint": r["fingerprint"],
                     "state": r["state"], "cause": r["cause"], "packet": _packet_listings(r),
                     "exclusions": [e["reason"] for e in r["exclusions"]]} for r in records],
        "detail": detail,
        "detail_checks": layer_checks(detail, index),
        "where_each_listing_went": _where(detail, index),
        "user_view": user_view(detail),
        "denied_versus_not_retrieved": {
            "retrieved_then_denied": _contrast(denied),
            "not_retrieved": _contrast(nothing),
            "user_views_equal_apart_from_the_query": dict(seen_denied, query="") == dict(seen_nothing, query=""),
        },
        "variants": variants,
        "exclusions_by_reason": {
            "query_count": len(QUERIES),
            "before": before, "after": after,
            "permission_before": permission_before, "permission_after": permission_after,
            "index_version": [BASELINE_VERSIONS["index"], rebuilt.versions["index"]],
            "policy_version": [BASELINE_VERSIONS["policy"], rebuilt.versions["policy"]],
            "reading": "permission exclusions rose while the policy did not change: metadata was lost on the way "
                       "into the index. Repair the rebuild; never relax fail-closed to make the count drop.",
        },
    }


def _packet_listings(record: dict) -> list:
    return list(dict.fromkeys(f["field_id"].split("#")[0] for f in record["packet"]))


# ---------------------------------------------------------------- the view

def _rows(items: list, keys: tuple) -> list:
    return [[item[k] if not isinstance(item[k], list) else ", ".join(item[k]) or "-" for k in keys] for item in items]


def view(record: dict) -> list:
    """Printable blocks: the internal trace first, then what the user sees, then the walks."""
    d = record["detail"]
    blocks = [
        {"heading": "Lesson 09 - grounding: traces that explain every inclusion and exclusion"},
        {"text": "Every query below ran through the same layers: " + " > ".join(record["layers"]) + ". "
                 "One record per query joins them; denied listings appear in it only as opaque refs."},
        {"table": {"title": "Nine queries, healthy pipeline (fingerprint: sha256 of the normalised query and "
                            "every component version, first 12 hex shown)",
                   "columns": ["query", "text", "fingerprint", "state", "packet", "exclusions"],
                   "rows": [[q["query_id"], q["query"], q["fingerprint"][:12],
                             q["state"] + (f" ({q['cause']})" if q["cause"] else ""),
                             ", ".join(q["packet"]) or "-", ", ".join(q["exclusions"]) or "-"]
                            for q in record["queries"]]}},
        {"heading": f"The internal record of {d['query_id']}: {d['query']}"},
        {"text": f"Fingerprint {d['fingerprint']}; versions "
                 + ", ".join(f"{k}={v}" for k, v in d["versions"].items()) + "."},
        {"table": {"title": "Input: transformations, each named and versioned",
                   "columns": ["name", "version", "from", "to"],
                   "rows": [[s["name"], s["version"], s["from"], s["to"]] for s in d["transformations"]]}},
        {"table": {"title": "Retrieval: candidates per channel, before the gate (size filter "
                            f"{', '.join(d['size_filter_mm'] or ['none'])} mm)",
                   "columns": ["channel", "rank", "ref", "score", "evidence"],
                   "rows": [[name, h["rank"], h["ref"], f"{h['score']:g}", h["evidence"]]
                            for name, hits in d["candidates"].items() for h in hits]}},
        {"table": {"title": "Exclusions, with category and rule version",
                   "columns": ["ref", "layer", "category", "reason", "rule version", "found by"],
                   "rows": _rows(d["exclusions"], ("ref", "layer", "category", "reason", "rule_version",
                                                   "found_by"))}},
        {"text": "Canonical clusters: " + ("; ".join(f"{c['cluster']} kept {c['kept']}, collapsed "
                                                    + ", ".join(c["collapsed"]) for c in d["clusters"]) or "none")
                 + ". Vectors rejected: " + (", ".join(f"{r['ref']} ({r['reason']})" for r in d["vector_rejected"])
                                             or "none") + "."},
        {"table": {"title": f"Ranking: reciprocal rank fusion (k = {RRF_K}) over ranks recounted after the gate",
                   "columns": ["rank", "ref", "cluster", "ordering_score", "reason"],
                   "rows": [[r["rank"], r["ref"], r["cluster"], f"{r['ordering_score']:.6f}", r["reason"]]
                            for r in d["ranking"]]}},
        {"text": "Packet field ids: " + (", ".join(f["field_id"] for f in d["packet"]) or "none") + "."},
        {"text": f"State: {d['state']}; cause: {d['cause'] or '-'}; fallback: {d['fallback'] or '-'}."},
        {"table": {"title": "Where each listing went (internal: denied listings by ref only)",
                   "columns": ["ref", "where"], "rows": _rows(record["where_each_listing_went"], ("ref", "where"))}},
        {"heading": "What the shopper sees"},
        {"text": _user_text(record["user_view"])},
    ]
    contrast = record["denied_versus_not_retrieved"]
    pair = (("retrieved, then denied", contrast["retrieved_then_denied"]), ("not retrieved", contrast["not_retrieved"]))
    blocks += [
        {"table": {"title": "Retrieved then denied is not the same as not retrieved - internally",
                   "columns": ["case", "query", "internal state", "internal exclusions", "user state"],
                   "rows": [[label, c["query"], f"{c['state']} ({c['cause']})",
                             ", ".join(f"{ref} {why}" for ref, why in c["exclusions"]) or "-", c["user_view"]["state"]]
                            for label, c in pair]}},
        {"text": "User views identical apart from the query text: "
                 + ("yes" if contrast["user_views_equal_apart_from_the_query"] else "NO") + ". The shopper is told: "
                 + contrast["retrieved_then_denied"]["user_view"]["message"]},
        {"heading": "Regression localisation: walk the layers, name the first that failed"},
    ]
    for v in record["variants"]:
        blocks.append({"table": {
            "title": f"{v['name']} ({v['change'][0]} -> {v['change'][1]}). Symptom on {v['symptom_query']}: "
                     f"{v['symptom']}; seen at {v['seen_at']}. First failing layer: {v['first_failing_layer']}",
            "columns": ["layer", "passed", "evidence"],
            "rows": [[c["layer"], c["passed"], c["evidence"]] for c in v["checks"]]}})
    blocks.append({"table": {"title": "Where the symptom showed, and where the walk points",
                             "columns": ["variant", "query", "state before -> after", "seen at", "first failing layer"],
                             "rows": [[v["name"], v["symptom_query"], f"{v['state_before']} -> {v['state_after']}",
                                       v["seen_at"], v["first_failing_layer"]] for v in record["variants"]]}})
    agg = record["exclusions_by_reason"]
    blocks += [
        {"heading": "Exclusions by safe reason code, before and after the index rebuild"},
        {"table": {"title": f"Over the {agg['query_count']} catalogue queries",
                   "columns": ["reason code", "category", "before", "after"],
                   "rows": [[code, REASON_CODES[code], agg["before"][code], agg["after"][code]]
                            for code in agg["before"]]}},
        {"chart": {"title": "Permission exclusions", "width": 30,
                   "rows": [[f"before ({agg['index_version'][0]})", agg["permission_before"], agg["permission_after"]],
                            [f"after ({agg['index_version'][1]})", agg["permission_after"], agg["permission_after"]]]}},
        {"text": f"Permission exclusions {agg['permission_before']} -> {agg['permission_after']}; policy version "
                 f"{agg['policy_version'][0]} -> {agg['policy_version'][1]}. {agg['reading'][0].upper()}"
                 f"{agg['reading'][1:]}"},
    ]
    return blocks


def _user_text(seen: dict) -> str:
    lines = [f"Request: {seen['query']}", f"[{seen['state']}] {seen['message']}"]
    lines += [f"- {line['text']} [{', '.join(line['cites'])}]" for line in seen["answer"]]
    return "\n".join(lines)
