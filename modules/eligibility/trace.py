"""Lesson 08's trace record and view: what `python3 -B methods.py eligibility` prints.

modules/eligibility/mechanism.py runs the catalogue pipeline and hands the runs over; this module
turns them into a JSON-ready record and printable blocks. It imports no lesson module.
"""

from __future__ import annotations

from dataclasses import asdict, replace

from modules.catalogue import LISTINGS, QUERIES, opaque_ref, ref_key_label
from modules.common.runs import catalogue_row as query_row  # noqa: F401 (lesson 12's tests read it here)
from modules.catalogue.policy import CLAUSES, FRESHNESS, POLICY_VERSION, STATES, field_ages, names_of
from modules.eligibility.mechanism import PACKET_LISTINGS, enumerate_refs, evaluate, unkeyed_ref
from modules.common.tables import table_block

TRACES = (("ordinary explicit evidence", "PW-Q001"), ("unauthorized closest neighbour", "PW-Q002"),
          ("stale and conflicting evidence: abstain", "PW-Q004"), ("empty after controls", "PW-Q005"))
TOP = 5
EMPTY_CAUSES = ("out_of_scope", "transformation_failed", "no_permitted_match", "all_unauthorized",
                "all_stale", "all_excluded")


def _decision(d) -> dict:
    return {"subject": d.subject, "state": d.state, "reason_codes": list(d.reason_codes),
            "clause_ids": list(d.clause_ids), "evidence_refs": list(d.evidence_refs),
            "next_actions": list(d.next_actions)}




def _run(name: str, run) -> dict:
    gate = run.output("gate")
    names, passed = names_of(gate), set(gate.passed)
    channels = [{"channel": c.channel, "top": [{"rank": n, "candidate": names[h.listing_id],
                                                "withheld": h.listing_id not in passed}
                                               for n, h in enumerate(c.hits[:TOP], start=1)]}
                for c in run.of_kind("channel")]
    vector = next(c for c in run.of_kind("channel") if c.channel == "vector")
    fused = run.output("fusion").candidates
    near = vector.hits[0].listing_id if vector.hits else None
    evidence, packet, q = run.output("evidence"), run.output("packet"), run.output("decision")
    by_id = run.output("source").by_id
    return {
        "name": name, "query_id": run.output("contract").query_id, "original": run.output("contract").original,
        "contract_state": run.output("contract").state, "channels": channels,
        "proposed": len({h.listing_id for c in run.of_kind("channel") for h in c.hits}),
        "catalogue_size": len(by_id), "usable": [names[i] for i in evidence.usable],
        "packet_listings": list(packet.listings), "packet_cap": PACKET_LISTINGS,
        "withheld": [_decision(d) for d in gate.decisions],
        "ranked": [{"position": n, "cluster_id": f.cluster_id, "listing_id": f.listing_id,
                    "ordering_score": round(f.ordering_score, 6),
                    "evidence": "usable" if f.listing_id in evidence.usable else next(
                        d.state for d in evidence.decisions if d.subject == f.listing_id)}
                   for n, f in enumerate(fused, start=1)],
        "excluded": [_decision(d) for d in evidence.decisions],
        "packet": [{"field_id": f, "value": v} for f, v in packet.fields], "omitted": list(packet.omitted),
        "packet_titles": [by_id[i].title for i in packet.listings],
        "closest_neighbour": None if near is None else {
            "candidate": names[near], "withheld": near not in passed,
            "state": next((d.state for d in gate.decisions if d.subject == names[near]), "passed"),
            "reached_ranking": any(near in f.members for f in fused)},
        "decision": _decision(q.decision), "empty_cause": q.empty_cause,
    }


def _freshness(as_of: str) -> dict:
    shown = ("PW-L003", "PW-L006", "PW-L010")
    rows = [{"listing_id": x.id, **asdict(r)} for x in LISTINGS if x.id in shown for r in field_ages(x, as_of)]
    earlier = "2026-08-01"
    l010 = next(x for x in LISTINGS if x.id == "PW-L010")
    return {"as_of": as_of, "rules": [asdict(r) for r in FRESHNESS], "rows": rows,
            "what_if": {"as_of": earlier, "listing_id": "PW-L010",
                        "rows": [asdict(r) for r in field_ages(l010, earlier)]}}


def record(runs: dict, doubled, attack: dict) -> dict:
    """The lesson's record: the policy, four traces, the fail-closed holes and every query."""
    gate = doubled.output("gate")
    l004 = next(d for i, d in zip(gate.withheld, gate.decisions) if i == "PW-L004")
    rankings = [c.ranking for c in doubled.of_kind("channel")]
    first = runs["PW-Q001"].output("gate")
    return {
        "lesson": "eligibility",
        "policy": {"version": POLICY_VERSION, "clauses": dict(CLAUSES)},
        "freshness": _freshness(first.as_of),
        "precedence": list(STATES),
        "traces": [_run(name, runs[query_id]) for name, query_id in TRACES],
        "duplicate_ids": {
            "query_id": "PW-Q002", "copies": 2, "decision": _decision(l004),
            "every_ranking_lists_an_id_once": all(len(set(r)) == len(r) for r in rankings),
            "reached_ranking": any("PW-L004" in f.members for f in doubled.output("fusion").candidates),
            "state": doubled.output("decision").decision.state},
        "opaque_refs": {
            "key": ref_key_label(), "guesses": attack["guesses"], "restricted": attack["restricted"],
            "unkeyed_reversed": sum(v is not None for v in attack["unkeyed"].values()),
            "keyed_reversed": sum(v is not None for v in attack["keyed"].values())},
        "queries": [query_row(run) for run in runs.values()],
        "empty_causes": list(EMPTY_CAUSES),
    }


def wrapped_rows(pairs, width: int) -> list:
    """[[key, text], ...] with each text cut at spaces into lines of at most `width` characters,
    one table row per line (the key on the first), so a long rule stays in a table that fits."""
    rows = []
    for key, text in pairs:
        lines, line = [], ""
        for word in str(text).split():
            if line and len(line) + 1 + len(word) > width:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
        rows += [[key if n == 0 else "", part] for n, part in enumerate(lines)]
    return rows


def _lines(d: dict, cause) -> str:
    return "\n".join([f"  state: {d['state']}", f"  reason codes: {' '.join(d['reason_codes'])}",
                      f"  clause ids: {' '.join(d['clause_ids'])}",
                      f"  evidence refs: {' '.join(d['evidence_refs']) or '-'}",
                      f"  next actions: {'; '.join(d['next_actions'])}", f"  empty cause: {cause or '-'}"])


def _codes_table(key: str, title: str, legend: str, decisions: list) -> dict:
    rows = []
    for d in decisions:
        for n, code in enumerate(d["reason_codes"]):
            rows.append([d["subject"] if n == 0 else "", d["state"] if n == 0 else "", code,
                         " ".join(d["clause_ids"]) if n == 0 else ""])
    return table_block(key, title, legend, ["subject", "state", "reason code", "clauses"], rows)


def _gate_text(n: int, run: dict, first: dict) -> dict:
    """The gate's table in full for the first trace; later traces say only how theirs differs."""
    if n == 1:
        return _codes_table("trace-1-withheld", f"The gate withheld {len(run['withheld'])} before ranking",
                            "state: the strongest state the candidate's reasons give; reason code: each "
                            "control that fired; clauses: the policy clauses they rest on.", run["withheld"])
    key = lambda d: (d["subject"], d["state"], tuple(d["reason_codes"]))  # noqa: E731
    mine, theirs = {key(d) for d in run["withheld"]}, {key(d) for d in first["withheld"]}
    if mine == theirs:
        text = (f"The gate withheld the same {len(mine)} as in trace 1, with the same codes: the channels "
                f"proposed {run['proposed']} of the {run['catalogue_size']} listings, and those {len(mine)} "
                f"were among them again.")
    else:
        text = ("The gate withheld, beyond trace 1: "
                + ("; ".join(f"{s} {st} {' '.join(c)}" for s, st, c in sorted(mine - theirs)) or "none")
                + ". Not withheld here: " + (", ".join(s for s, _, _ in sorted(theirs - mine)) or "none") + ".")
    return {"key": f"trace-{n}-withheld", "text": text}


def _packet_text(run: dict) -> str:
    """The packet, and the cap on it wherever the cap decides what is left out."""
    if not run["packet"]:
        return f"Packet: none. Empty cause: {run['empty_cause']}. No listing is invented."
    cap, usable, packed = run["packet_cap"], run["usable"], run["packet_listings"]
    text = "Packet: " + ", ".join(f["field_id"] for f in run["packet"]) + "."
    if run["omitted"]:
        text += " Left out as stale: " + ", ".join(run["omitted"]) + "."
    if len(usable) > cap:
        text += (f" The packet holds at most {cap} listings: {len(usable)} are usable, so "
                 f"{', '.join(usable[cap:])} (ranked below the first {cap}) is left out.")
    else:
        text += f" {len(packed)} usable, under the packet's cap of {cap} listings."
    return text


def _evidence_cell(row: dict, run: dict) -> str:
    """`usable`, or the evidence state with its reason codes and clauses."""
    if row["evidence"] == "usable":
        return "usable"
    d = next(d for d in run["excluded"] if d["subject"] == row["listing_id"])
    return " ".join([d["state"], *d["reason_codes"], *d["clause_ids"]])


def _ranked_blocks(n: int, run: dict) -> list:
    """The ranked candidates: one row each, except that the incompatible ones (the most common
    verdict, and the least interesting) are summarised in one line under the table."""
    rows = [r for r in run["ranked"] if r["evidence"] != "incompatible"]
    wrong = [r for r in run["ranked"] if r["evidence"] == "incompatible"]
    legend = ("pos: fused rank; cluster: the canonical cluster (a listing and its copy share one); "
              "ordering_score: the RRF sum, an order, not a probability; evidence: usable, or the state "
              "the evidence checks gave with its reason codes and clauses." if n == 1 else
              "the same columns as in trace 1.")
    blocks = []
    if rows:
        blocks.append(table_block(
            f"trace-{n}-ranked", f"Ranked: what passed the gate, fused by rank ({len(run['ranked'])} clusters)",
            legend, ["pos", "cluster", "listing", "ordering_score", "evidence"],
            [[r["position"], r["cluster_id"], r["listing_id"], f"{r['ordering_score']:.6f}", _evidence_cell(r, run)]
             for r in rows]))
    if wrong:
        lead = ("Also ranked, each" if rows else
                f"Ranked: what passed the gate, fused by rank ({len(run['ranked'])} clusters), every one")
        blocks.append({"key": f"trace-{n}-incompatible", "text": (
            f"{lead} incompatible (P3: wrong family or size), as pos listing ordering_score: "
            + ", ".join(f"{r['position']} {r['listing_id']} {r['ordering_score']:.6f}" for r in wrong) + ".")})
    return blocks


def _trace_blocks(n: int, run: dict, first: dict) -> list:
    q = run["query_id"]
    tops = [c["top"] for c in run["channels"]]
    legend = ("one column per channel, best first; a listing whose permission is not 'allowed' is shown by its "
              "opaque ref; [w] = withheld by the gate before ranking." if n == 1 else
              "the same columns as in trace 1; [w] = withheld by the gate.")
    blocks = [
        {"key": f"trace-{n}", "text": f"Trace {n}, {run['name']}: {q} \"{run['original']}\" "
                                      f"(query contract state: {run['contract_state']})"},
        table_block(
            f"trace-{n}-channels", f"What the channels proposed (top {TOP})", legend,
            ["rank"] + [c["channel"] for c in run["channels"]],
            [[r] + [(f"{t[r - 1]['candidate']}{' [w]' if t[r - 1]['withheld'] else ''}" if r <= len(t)
                     else "-") for t in tops] for r in range(1, TOP + 1)]),
        _gate_text(n, run, first),
        *_ranked_blocks(n, run),
        {"key": f"trace-{n}-packet", "text": _packet_text(run)},
    ]
    near = run["closest_neighbour"]
    if near and near["withheld"]:
        moral = " Similarity never restores permission." if near["state"] == "unauthorized" else ""
        blocks.append({"key": f"trace-{n}-neighbour",
                       "text": f"Closest vector neighbour: {near['candidate']}, withheld ({near['state']}); "
                               f"reached ranking: {'yes' if near['reached_ranking'] else 'no'}.{moral}"})
    d = run["decision"]
    blocks.append({"key": f"trace-{n}-decision", "text": f"Decision for {d['subject']}: {d['state']}\n"
                                                         + _lines(d, run["empty_cause"])})
    return blocks


def view(record: dict) -> list:
    """Printable blocks: policy, freshness, precedence, four traces, the holes, the summary."""
    fresh, dup, refs = record["freshness"], record["duplicate_ids"], record["opaque_refs"]
    blocks = [
        {"key": "heading", "heading": "Lesson 08 - eligibility: permission, freshness and evidence states"},
        {"key": "intro", "text": (
            "What this shows: one versioned policy decides, before anything is ranked, which listings may be "
            "used (permission, scope, freshness per field); four traces end in a recorded state; then two "
            "fail-closed holes and every catalogue query's state, with the cause of each empty result.")},
        table_block(
            "policy", f"Policy {record['policy']['version']}",
            "One version id, recorded by the gate and the decision alike. "
            "clause: the id decisions cite; rule: what it requires.",
            ["clause", "rule"],
            wrapped_rows(record["policy"]["clauses"].items(), 72)),
        table_block(
            "freshness", f"Freshness per field, as of {fresh['as_of']} (clause P6)",
            "checked_on: when the field's value was last verified; age: days from then to the "
            "as-of date; limit: the most days the policy allows for that field; required: a stale "
            "required field withholds the listing, a stale optional one is left out of the packet.",
            ["listing", "field", "checked_on", "age", "limit", "required", "fresh"],
            [[r["listing_id"], r["field"], r["checked_on"], r["age_days"], r["max_days"], r["required"],
              r["fresh"]] for r in fresh["rows"]]),
        {"key": "freshness-what-if",
         "text": f"The as-of date is explicit: as of {fresh['what_if']['as_of']}, {fresh['what_if']['listing_id']}'s "
                 + " and ".join(f"{r['field']} was {r['age_days']} days old ({'fresh' if r['fresh'] else 'stale'})"
                                for r in fresh["what_if"]["rows"]) + ". One global 'stale' flag could not say that."},
        {"key": "precedence", "text": "State precedence, strongest first: " + " > ".join(record["precedence"])
                                      + ". A listing whose permission is not 'allowed' appears only as an "
                                        "opaque reference."},
    ]
    for n, run in enumerate(record["traces"], start=1):
        blocks += _trace_blocks(n, run, record["traces"][0])
    blocks += [
        {"key": "duplicates", "text": (
            f"Two copies of one id, one marked allowed: {dup['query_id']} run over the catalogue plus an allowed "
            f"copy of the listing behind {dup['decision']['subject']}. The gate withholds it "
            f"({' '.join(dup['decision']['reason_codes'])}, clause {' '.join(dup['decision']['clause_ids'])}); "
            f"reached ranking: {'yes' if dup['reached_ranking'] else 'no'}; every channel lists each id once: "
            f"{'yes' if dup['every_ranking_lists_an_id_once'] else 'no'}; state {dup['state']}.")},
        {"key": "opaque-refs", "text": (
            f"Opaque refs must be keyed. Hashing the {refs['guesses']:,} guessable ids PW-L000 to PW-L999 with "
            f"the old unkeyed scheme (sha256 of a public salt and the id) reverses {refs['unkeyed_reversed']} of "
            f"the {refs['restricted']} restricted listings' refs; the same enumeration reverses "
            f"{refs['keyed_reversed']} of the keyed refs shown here, which are HMAC-SHA256 of the id under "
            f"{refs['key']}.")},
        table_block(
            "summary", "Every catalogue query, through the same pipeline",
            "original: the shopper's words; state: the query's decision; stopped: stopped before retrieval "
            "(prohibited scope, or a failed transformation).",
            ["query", "original", "state", "stopped"],
            [[q["query_id"], q["original"], q["state"], bool(q["stopped"])] for q in record["queries"]]),
        table_block(
            "summary-reasons", "Their reasons, and what was packed or why nothing was",
            "reason codes: the decision's own; packet or empty cause: the listings whose fields were packed, "
            "or the named cause of an empty result (- where the query asked first).",
            ["query", "reason codes", "packet or empty cause"],
            [[q["query_id"], " ".join(q["reason_codes"]),
              " ".join(dict.fromkeys(f.split("#")[0] for f in q["packet"])) or q["empty_cause"] or "-"]
             for q in record["queries"]]),
        {"key": "empty-causes", "text": "Empty results are never one bucket: " + ", ".join(record["empty_causes"])
                                        + ". An empty result is reported with its cause; it is never filled "
                                          "with an invented listing."},
    ]
    return blocks


def trace() -> dict:
    """The four traces in detail, the fail-closed holes, and every catalogue query's decision."""
    runs = {query.id: evaluate(query) for query in QUERIES}
    l004 = next(x for x in LISTINGS if x.id == "PW-L004")
    doubled = evaluate(QUERIES[1], (replace(l004, permission="allowed"),) + LISTINGS)
    restricted = [x.id for x in LISTINGS if x.permission != "allowed"]
    guesses = [f"PW-L{n:03d}" for n in range(1000)]
    shown = [unkeyed_ref(i) for i in restricted] + [opaque_ref(i) for i in restricted]
    found = enumerate_refs(shown, unkeyed_ref, guesses)
    attack = {"guesses": len(guesses), "restricted": len(restricted),
              "unkeyed": {ref: found[ref] for ref in shown[:len(restricted)]},
              "keyed": {ref: found[ref] for ref in shown[len(restricted):]}}
    return record(runs, doubled, attack)
