"""Lesson 09's layer checks and what is built on them: the walk, the user view, the counts.

Each check reads one section of a trace record (modules/grounding/mechanism.py builds the record, one
section per layer) and returns (held, why). A check never reads another layer's section:
a layer is judged by what it received and what it produced, so a walk that names a layer
names the one whose own output was wrong.
"""

from __future__ import annotations

import json

from modules.catalogue import RESTRICTED_IDS, RESTRICTED_STRINGS
from modules.common.checks import short
from modules.catalogue.policy import decide_state
from modules.hybrid.mechanism import UNIT_WORDS

__all__ = [
    "LAYERS", "SAFE_CODES", "GATE_CODES", "USER_STATES", "USER_MESSAGES", "USER_KEYS", "UNIT_WORDS", "CHECKS",
    "check_input",
    "check_source", "check_retrieval", "check_permission_freshness", "check_ranking", "check_assembly",
    "check_decision", "check_presentation", "check_generation", "check_change", "first_failing_layer",
    "user_view", "failure_counts", "count_exclusions", "exclusions",
]

LAYERS = ("input", "source", "retrieval", "permission/freshness", "ranking", "assembly", "decision",
          "presentation", "generation", "change")
# Safe reason codes: the only words an exclusion carries into an aggregate (free text could quote
# a restricted title).
SAFE_CODES = ("PERMISSION_DENIED", "PERMISSION_UNKNOWN", "DUPLICATE_ID_CONFLICT", "PROHIBITED_FAMILY",
              "STALE_FIELD", "FAMILY_MISMATCH", "DIAMETER_MISMATCH", "TITLE_FIELD_CONFLICT", "LISTING_UNIT_MISSING")
GATE_CODES = SAFE_CODES[:5]   # the codes the gate gives; the rest come from the evidence checks
# What the shopper is told. Every empty result reads the same, whatever its internal cause.
USER_STATES = {"respond": "answer", "degraded": "answer_partial", "clarify": "clarify",
               "prohibited_scope": "out_of_scope", "unauthorized": "no_match", "incompatible": "no_match",
               "conflict": "no_match"}
USER_MESSAGES = {
    "answer": "These listings match your request.",
    "answer_partial": "These listings match your request; details that are not current are left out.",
    "clarify": "Which size do you mean, and in which unit: millimetres or inches?",
    "out_of_scope": "This part is outside what the assistant may recommend; please ask a qualified technician.",
    "no_match": "No listing matches your request. Try another size or describe the part differently.",
    "unavailable": "The assistant cannot answer this right now. Please try again later.",
}
USER_KEYS = ("query", "state", "message", "answer")
def exclusions(record: dict) -> list:
    """Every exclusion of a record, gate then evidence: [subject, layer, reason codes]."""
    gate, assembly = record["permission/freshness"], record["assembly"]
    return ([[d["subject"], "permission/freshness", d["reason_codes"]] for d in gate.get("withheld", ())]
            + [[d["subject"], "assembly", d["reason_codes"]] for d in assembly.get("excluded", ())])


# ---------------------------------------------------------------- checks: one per layer, own section only

def check_input(record: dict) -> tuple:
    """The original is kept, every step is named and versioned, and no size written with its unit was
    left unresolved (a step may fail: two sizes in one query are a reason to ask, not a bug)."""
    section = record["input"]
    steps = section["transformations"]
    if not steps or steps[0]["input"] != section["original"]:
        return False, "the first transformation does not start from the original text"
    unnamed = [s["name"] for s in steps if not s["name"] or "/" not in s["version"]]
    if unnamed:
        return False, f"steps without a name and version: {unnamed}"
    for step in steps:
        written = step["input"].split()
        if step["name"] == "unit-to-mm" and written and written[-1] in UNIT_WORDS and step["status"] == "unresolved":
            return False, f"size {step['input']!r} was written with a unit, but {step['version']} left it {step['status']}"
    return True, f"original kept; {len(steps)} steps named and versioned; no written unit lost"


def check_source(record: dict) -> tuple:
    section = record["source"]
    gaps = [f"{n} of {section['records']} records have no {field}" for field, n in section["missing"].items() if n]
    return (not gaps, "; ".join(gaps) or f"all {section['records']} records carry their metadata")


def check_retrieval(record: dict) -> tuple:
    section = record["retrieval"]
    for channel in section["channels"]:
        names = [h["candidate"] for h in channel["hits"]]
        if [h["rank"] for h in channel["hits"]] != list(range(1, len(names) + 1)) or len(set(names)) != len(names):
            return False, f"the {channel['channel']} channel's ranks are not 1..n over distinct candidates"
        if any(not h["evidence"] for h in channel["hits"]):
            return False, f"the {channel['channel']} channel proposed a candidate without evidence"
    if section["stopped"] and section["channels"]:
        return False, "the query was stopped before retrieval, yet channels ran"
    return True, "stopped before retrieval" if section["stopped"] else "every channel ranked distinct candidates with evidence"


def check_permission_freshness(record: dict) -> tuple:
    """Whatever passed the gate is permitted and fresh; whatever it withheld carries a safe code."""
    section = record["permission/freshness"]
    if not section["ran"]:
        return True, "the gate did not run: nothing was retrieved"
    passed = {p["candidate"] for p in section["passed"]}
    for p in section["passed"]:
        if p["permission"] != "allowed":
            return False, f"{p['candidate']} passed the gate with permission {p['permission']!r}"
    for row in section["fields"]:
        age = row["age_days"]
        if row["candidate"] in passed and row["required"] and (age is None or not 0 <= age <= row["max_days"]):
            return False, (f"{row['candidate']} passed the gate with {row['field']} checked {age} days before "
                           f"{section['as_of']} (limit {row['max_days']})")
    unsafe = [d["subject"] for d in section["withheld"] if not d["reason_codes"]
              or any(code not in SAFE_CODES for code in d["reason_codes"])]
    if unsafe:
        return False, f"withheld without a safe reason code: {unsafe}"
    return True, f"{len(passed)} passed, permitted and fresh as of {section['as_of']}; {len(section['withheld'])} withheld"


def check_ranking(record: dict) -> tuple:
    """Only what the gate passed is ranked, once per cluster, by scores RRF gives its channel ranks."""
    section = record["ranking"]
    if not section["ran"]:
        return True, "nothing was ranked: the query stopped before retrieval"
    received, scores, clusters = set(section["received"]), [], []
    for row in section["fused"]:
        outside = [m for m in row["members"] if m not in received]
        if outside:
            return False, f"{outside[0]} was ranked, but the gate did not pass it"
        want = round(sum(1 / (section["k"] + r) for r in row["channel_ranks"].values()), 6)
        if row["ordering_score"] != want:
            return False, f"{row['cluster']} has ordering_score {row['ordering_score']}, its channel ranks give {want}"
        scores.append(row["ordering_score"])
        clusters.append(row["cluster"])
    if len(set(clusters)) != len(clusters):
        return False, "a canonical cluster is ranked twice"
    if scores != sorted(scores, reverse=True):
        return False, "ordering_score rises down the ranking"
    return True, f"{len(clusters)} clusters, each once, in ordering_score order"


def check_assembly(record: dict) -> tuple:
    section = record["assembly"]
    if not section["ran"]:
        return True, "nothing to assemble: the query stopped before retrieval"
    listings = section["listings"]
    if listings and listings != section["usable"][:len(listings)]:
        return False, f"the packet holds {listings}, not the best usable {section['usable'][:len(listings)]}"
    if len(listings) > section["limit"]:
        return False, f"{len(listings)} listings exceed the limit of {section['limit']}"
    stale = set(section["omitted"]) & {f["field_id"] for f in section["packet"]}
    if stale:
        return False, f"stale fields in the packet: {sorted(stale)}"
    return True, f"usable listings packed: {len(listings)}; stale fields left out: {len(section['omitted'])}"


def check_decision(record: dict) -> tuple:
    section = record["decision"]
    want = decide_state([b["state"] for b in section["because"]])
    if section["state"] != want:
        return False, f"state {section['state']!r}, but its reasons decide {want!r}"
    if not section["reason_codes"] or not section["clause_ids"]:
        return False, "a decision without reason codes or clause ids"
    n = len(section["because"])
    return True, f"{section['state']}, decided by precedence from {n} reason{'s' * (n != 1)}"


def check_presentation(record: dict) -> tuple:
    seen = record["presentation"]
    text = json.dumps(seen, ensure_ascii=False)
    leaks = [s for s in ("ref-", *RESTRICTED_IDS, *RESTRICTED_STRINGS) if s in text]
    if tuple(seen) != USER_KEYS or leaks:
        return False, f"the user view has keys {list(seen)} and shows {len(leaks)} withheld traces"
    return True, "the user view shows the request, a state, a fixed message and cited lines only"


def check_generation(record: dict) -> tuple:
    section = record["generation"]
    loose = [c for line in section["answer"] for c in line["cites"] if c not in section["from_fields"]]
    uncited = [line["text"] for line in section["answer"] if not line["cites"]]
    if loose or uncited:
        return False, f"cites outside the packet: {loose}; lines without a citation: {len(uncited)}"
    return True, f"answer lines: {len(section['answer'])}, each citing packet fields only"


def check_change(record: dict) -> tuple:
    section = record["change"]
    logged = {(c["stage"], c["version"]) for c in section["change_log"]}
    silent = [f"{s}={v}" for s, v in section["versions"].items() if v != section["baseline"].get(s) and (s, v) not in logged]
    return (not silent, f"changed without a change-log entry: {silent}" if silent else "every changed version is logged")


CHECKS = {"input": check_input, "source": check_source, "retrieval": check_retrieval,
          "permission/freshness": check_permission_freshness, "ranking": check_ranking,
          "assembly": check_assembly, "decision": check_decision, "presentation": check_presentation,
          "generation": check_generation, "change": check_change}


def first_failing_layer(record: dict, checks: dict = CHECKS, layers: tuple = LAYERS):
    """Walk the layers in order: (layer, why) for the first whose check fails, or None."""
    for layer in layers:
        held, why = checks[layer](record)
        if not held:
            return layer, why
    return None


def user_view(record: dict) -> dict:
    """What the shopper sees. A run whose layers up to the decision did not all hold is not
    shown at all ("unavailable"); otherwise the request, a user state, its fixed message and the
    cited lines. Built only from fields a denied listing cannot touch."""
    broken = first_failing_layer(record, layers=LAYERS[:LAYERS.index("decision") + 1])
    lines = record["generation"]["answer"]
    state = "unavailable" if broken else USER_STATES[record["decision"]["state"]]
    if state in ("answer", "answer_partial") and not lines:
        state = "no_match"
    shown = [{"text": line["text"], "cites": list(line["cites"])} for line in lines] if state.startswith("answer") else []
    return {"query": record["query"], "state": state, "message": USER_MESSAGES[state], "answer": shown}


def failure_counts(records) -> dict:
    """How many records first fail at each layer ("all_held" for the rest); every key, zeros too."""
    counts = dict.fromkeys(("all_held",) + LAYERS, 0)
    for record in records:
        found = first_failing_layer(record)
        counts["all_held" if found is None else found[0]] += 1
    return counts


def count_exclusions(records) -> dict:
    """Exclusions per safe reason code over many records, every code listed (zeros too)."""
    counts = dict.fromkeys(SAFE_CODES, 0)
    for record in records:
        for _subject, _layer, codes in exclusions(record):
            for code in codes:
                if code not in counts:
                    raise ValueError(f"exclusion reason {short(code)} is not a safe reason code")
                counts[code] += 1
    return counts


