"""Lesson 13's trace and view: what `python3 -B methods.py memory` prints.

`trace()` runs modules/memory/store.py's `day` (the store and the four sessions served with
memory, every catalogue query with memory switched off, the buyer's requests, an embedding
migration, and the replays that check the requests and the migration on the frozen sessions
before they are exposed) and turns what it produced into a JSON-ready record; `view()` makes
the printable blocks. The mechanism never imports this module (labtools.registry.lesson_module
finds it), so the import graph has no cycle.
"""

from __future__ import annotations

import datetime
from dataclasses import asdict

from modules.common import ann
from modules.catalogue import ref_key_label
from modules.catalogue.policy import CLAUSES, STATES, day_number
from modules.context import recall_at_k   # lesson 01's recall: the waiting index against exact search
from modules.memory import store as memory_store
from modules.common.runs import catalogue_row as query_row
from modules.eligibility.trace import wrapped_rows
from modules.common.tables import table_block

USED_CLAUSES = ("P1", "P2", "P2.1", "P2.2", "P6")


def _decision(d) -> dict:
    return {"subject": d.subject, "state": d.state, "reason_codes": list(d.reason_codes),
            "clause_ids": list(d.clause_ids)}




def _session(session, run, off_row: dict | None) -> dict:
    """One session served with memory; `off_row`: its query with memory switched off."""
    found, gate, context = run.output("memory-recall"), run.output("memory-gate"), run.output("memory-context")
    names = dict(zip(gate.withheld, (d.subject for d in gate.decisions)))
    codes = dict(zip(gate.withheld, (d.reason_codes for d in gate.decisions)))
    row = query_row(run)
    catalogue = {"state": row["state"], "packet": row["packet"],
                 "same_with_memory_off": all(row[k] == off_row[k] for k in ("state", "exclusions", "packet", "ranking",
                                                                            "gate"))}
    return {
        "session": session.id, "buyer": session.buyer, "query_id": session.query.id, "query": session.query.text,
        "recall": {"status": found.status, "note": found.note, "compared": found.compared,
                   "hits": [{"rank": n, "candidate": names.get(i, i), "cosine": score,
                             "gate": list(codes.get(i, ())) or ["passed"]}
                            for n, (i, score) in enumerate(zip(found.ids, found.scores), start=1)]},
        "withheld": [_decision(d) for d in gate.decisions],
        "entries": [asdict(e) for e in context.entries],
        "memory_packet": [{"field_id": f, "value": v, "marked": mark, "source": src, "accuracy": acc, "as_of": day}
                          for f, v, mark, src, acc, day in context.fields],
        "conflicts": [{"item": i, "field": f, "today": t, "remembered": r} for i, f, t, r in context.conflicts],
        "next_actions": list(context.next_actions),
        "catalogue": catalogue,
    }


def _store(state, gates: dict) -> list:
    rows = []
    for item in state.current().values():
        last = datetime.date.fromordinal(day_number(item.as_of) + item.retention_days).isoformat()
        rows.append({**{k: getattr(item, k) for k in ("id", "version", "owner", "kind", "field", "value", "purpose",
                                                      "source", "accuracy", "scope", "visibility", "retention_days",
                                                      "as_of", "permission")},
                     "last_day": last, "gate": list(gates[item.id][0]), "gate_tomorrow": list(gates[item.id][1])})
    return rows


def _replay(name: str, change: str, old, new, old_rows: dict, new_rows: dict, diff: dict, checks: list) -> dict:
    return {"name": name, "change": change, "old": f"{old.label} over {old.encoder}",
            "new": f"{new.label} over {new.encoder}", "diff": diff,
            "memory": {case: {"old": old_rows[case]["memory"], "new": new_rows[case]["memory"]} for case in old_rows},
            "checks": [{"check": c, "held": held, "detail": detail} for c, held, detail in checks]}


def trace() -> dict:
    """One day of the memory feature as the lesson's record (memory_store.day)."""
    return record(memory_store.day())


def record(day: dict) -> dict:
    """The lesson's record from what memory_store.day() produced."""
    m, morning = day["constants"], day["states"]["morning"]
    off = {query_id: query_row(run) for query_id, run in day["off"].items()}
    served, after, migrated = day["states"]["served"], day["states"]["after"], day["states"]["migrated"]
    rows, deleted, corrected = day["rows"], day["deleted"], day["corrected"]
    versions = after.history(corrected)
    approximate, exact, rank = day["lazy_search"]
    deletion = day["deletion"]
    return {
        "lesson": "memory",
        "default": {"first_release": m["FIRST_RELEASE"], "feature": asdict(m["ASSISTANT_MEMORY"]),
                    "draft": m["DRAFT_FEATURE"].name, "draft_gaps": day["draft_gaps"], "pipeline": day["pipeline"]},
        "policy": {"version": m["GATE_VERSION"], "clauses": {**{c: CLAUSES[c] for c in USED_CLAUSES},
                                                             **m["MEMORY_CLAUSES"]},
                   "codes": {code: list(pair) for code, pair in m["CODES"].items()}, "precedence": list(STATES)},
        "as_of": day["on"], "store": _store(morning, day["store_gate"]),
        "index": {"version": ann.INDEX_VERSION, "label": morning.label, "encoder": morning.encoder,
                  "items": len(morning.index), "n_lists": m["N_LISTS"], "nprobe": m["NPROBE"], "k": m["RECALL_K"],
                  "seed": m["SEED"], "ref_key": ref_key_label()},
        "sessions": [_session(session, run, off[session.query.id]) for session, run in day["sessions"]],
        "correction": {"item": corrected, "versions": [{"version": v.version, "value": v.value, "as_of": v.as_of,
                                                        "current": v is versions[-1]} for v in versions]},
        "withdrawn": day["withdrawn"],
        "deletion": {"item": deleted, "ref": deletion.ref, "on": deletion.on, "removed": dict(deletion.removed),
                     "prompt": day["propagation"]["after"], "lazy": day["propagation"]["lazy"],
                     "lazy_recall_at_k": float(recall_at_k(approximate, exact, len(exact))), "lazy_rank": rank,
                     "lazy_checks": [{"check": c, "held": held, "detail": detail} for c, held, detail in
                                     day["checks"]["lazy"]],
                     "records": [{"ref": r.ref, "on": r.on} for r in after.deletions]},
        "migration": dict(day["mixing"], migrated_versions=sorted({v.version for _i, v in migrated.index.vectors})),
        "replays": [
            _replay("the buyer's requests", "requests", served, after, rows["morning"], rows["after"],
                    day["diffs"]["after"], day["checks"]["after"]),
            _replay("the migration to mem-vec-2", "migration", morning, migrated, rows["morning"], rows["migrated"],
                    day["diffs"]["migrated"], day["checks"]["migrated"]),
        ],
        "queries": list(off.values()),
    }


# ---------------------------------------------------------------- view

def _entry(entry: list) -> str:
    item, action, *conflict = entry
    agrees = " (agrees with today)" if action == "follow_today" else ""
    return f"{item} {action}" + (f" (today {conflict[0]}, remembered {conflict[1]})" if conflict else agrees)


def _count(values: list) -> str:
    return str(len(values)) if values else "-"


def _session_text(s: dict, earlier: dict) -> str:
    """One session; memory packed exactly as an earlier session's is named, not repeated."""
    catalogue = s["catalogue"]
    listings = " ".join(dict.fromkeys(f.split("#")[0] for f in catalogue["packet"]))
    packed = "; ".join(f"{f['field_id']} = {f['value']} ({f['source']}, {f['accuracy']}, {f['as_of']})"
                       for f in s["memory_packet"]) or "none"
    if packed != "none" and packed in earlier:
        packed = f"the same fields as {earlier[packed]}"
    else:
        earlier.setdefault(packed, s["session"])
    lines = [f"{s['session']}, {s['buyer']}, {s['query_id']} \"{s['query']}\": catalogue state "
             f"{catalogue['state']}; catalogue evidence: " + (f"{len(catalogue['packet'])} fields of {listings}"
                                                             if listings else "none")
             + f"; marked as memory: {packed}."]
    lines += [f"  Conflict shown: today's {c['field']} {c['today']} against the remembered {c['remembered']} "
              f"({c['item']}); today's input is followed." for c in s["conflicts"]]
    lines += [f"  Next action: {a}." for a in s["next_actions"]]
    if not catalogue["same_with_memory_off"]:
        lines.append("  State, exclusions, ranking and packet the same with memory switched off: NO.")
    return "\n".join(lines)


def _sessions_text(sessions: list) -> str:
    earlier: dict = {}   # memory packed -> the first session that packed it
    same = [s["session"] for s in sessions if s["catalogue"]["same_with_memory_off"]]
    return "\n".join(_session_text(s, earlier) for s in sessions) + (
        f"\nIn {', '.join(same)}: state, exclusions, ranking and packet the same with memory switched off: yes."
        if same else "")


def _checks(checks: list) -> str:
    return "\n".join(f"  {'held' if c['held'] else 'FAILED'}: {c['check']} - {c['detail']}" for c in checks)


def _replay_details(r: dict) -> str:
    lines: dict = {}
    for case, d in r["diff"].items():
        found = [f"{label}: {' '.join(d[key])}" for key, label in (
            ("gained", "gained"), ("lost", "lost"), ("packet_added", "packed"), ("packet_removed", "unpacked"))
            if d[key]]
        found += [f"{label}: " + ", ".join(" ".join(e) for e in d[key]) for key, label in (
            ("exclusions_added", "newly excluded"), ("exclusions_removed", "no longer excluded")) if d[key]]
        if d["moved"]:
            found.append("moved: " + ", ".join(f"{c} {a}->{b}" for c, a, b in d["moved"]))
        old, new = r["memory"][case]["old"], r["memory"][case]["new"]
        if old != new:
            found.append("memory now: " + ", ".join(_entry(e) for e in new))
        for line in found:   # a change several sessions share prints once, naming them all
            lines.setdefault(line, []).append(case)
    lines = [f"  {', '.join(cases)} {line}" for line, cases in lines.items()]
    return ("In detail:\n" + ("\n".join(lines) or "  no change")
            + ("\nPropagation checks:\n" + _checks(r["checks"]) if r["checks"] else ""))


def _replay_blocks(replay: dict, n: int) -> list:
    """One replay's table (the legend once, on the first) and its details."""
    legend = ("Per frozen session: memory candidates gained, lost and moved in rank; exclusions (memory gate, "
              "catalogue gate, evidence checks) added and removed; packet field ids added and removed; state: "
              "the query's decision before -> after (- = unchanged)." if n == 0 else
              "Columns as in the replay above.")
    diff = replay["diff"]
    blocking = [case for case, d in diff.items() if d["state"] or d["packet_added"] or d["packet_removed"]]
    return [
        table_block(
            f"replay-{replay['change']}", f"Replay of {replay['name']}",
            f"old: {replay['old']}; new: {replay['new']}. " + legend,
            ["case", "gained", "lost", "moved", "excl +", "excl -", "packet +", "packet -", "state"],
            [[case, _count(d["gained"]), _count(d["lost"]), _count(d["moved"]),
              _count(d["exclusions_added"]), _count(d["exclusions_removed"]), _count(d["packet_added"]),
              _count(d["packet_removed"]), " -> ".join(d["state"]) if d["state"] else "-"]
             for case, d in diff.items()]),
        {"key": f"replay-{replay['change']}-details", "text": _replay_details(replay) + (
            f"\nPackets or states change in {', '.join(blocking)}: each change is read before exposure."
            if blocking else "\nNo packet and no state changes on the frozen sessions: the change may be "
                             "exposed.")},
    ]


def view(record: dict) -> list:
    """Printable blocks: the default, the policy, the store, the sessions, the buyer's requests
    (deletion with the index that waits for its rebuild), the migration, the two replays and the
    catalogue queries with memory off."""
    default, policy, index = record["default"], record["policy"], record["index"]
    feature, sessions = default["feature"], record["sessions"]
    blocks = [
        {"key": "heading", "heading": "Lesson 13 - memory: retained context with obligations"},
        {"key": "opening", "text": (
            "What this lesson shows: what a memory feature must define before it is allowed, its store and "
            "the gate every item passes, four sessions served with memory, then the buyer's requests "
            "(a correction, withdrawn consent, a deletion that an index waiting for its rebuild breaks), an "
            "embedding migration, and the replay of each change on the frozen sessions before exposure.")},
        {"key": "default", "text": (
            "The catalogue's first release keeps no memory between sessions. A memory feature is allowed only "
            "when it defines each of: " + ", ".join(k for k in feature if k != "name") + f". The draft "
            f"\"{default['draft']}\" is refused; it leaves undefined: " + "; ".join(default["draft_gaps"]) + ".")},
        table_block(
            "feature", f"The allowed feature, {feature['name']}",
            "Each definition the feature makes; a store built for it refuses any item of another "
            "purpose or kind, or kept longer than its retention.",
            ["definition", "value"],
            [[k, ", ".join(v) if isinstance(v, (list, tuple)) else v] for k, v in feature.items()
             if k != "name"]),
        {"key": "pipeline", "text": "It extends lesson 08's pipeline with three stages and copies none: "
                                    + " > ".join(default["pipeline"]) + "."},
        table_block(
            "policy", f"Policy {policy['version']}",
            "P: the catalogue's clauses that memory meets too, applied by the same functions; M: "
            "the clauses of memory's own.",
            ["clause", "rule"],
            wrapped_rows(policy["clauses"].items(), 70)),
        table_block(
            "store", f"The store as of {record['as_of']}: what is remembered",
            "item@v: the item and its version; owner: the buyer it is about; kind: what sort of "
            "thing is kept; field and value: what the item says (sizes in mm).",
            ["item@v", "owner", "kind", "field", "value"],
            [[f"{s['id']}@v{s['version']}", s["owner"], s["kind"], s["field"], s["value"]]
             for s in record["store"]]),
        table_block(
            "obligations", "Its obligations",
            "purpose: what it may be used for; source: where it came from; accuracy: stated by the "
            "buyer, recorded by a system, or inferred; seen by: owner = on the buyer's memory page; "
            "consent: the buyer's permission for assisted use (- = none recorded). Every item's scope "
            "is owner-only.",
            ["item", "purpose", "source", "accuracy", "seen by", "consent"],
            [[s["id"], s["purpose"], s["source"], s["accuracy"], s["visibility"], s["permission"]]
             for s in record["store"]]),
        table_block(
            "store-gate", f"Each item through the gate for its own buyer, on {record['as_of']} and the day after",
            "kept: retention in days, counted after the day of recording (that day is day 0, "
            "as lesson 08 counts a field's age), so an item kept N days is usable on N + 1 calendar "
            "days; recorded: its as-of date; last day: recorded + kept, the last day it may be used "
            "(expired once its age in days is greater than kept); the two dates: the reason codes "
            "that withhold it that day (- = usable).",
            ["item", "kept", "recorded", "last day", record["as_of"], "the day after"],
            [[s["id"], s["retention_days"], s["as_of"], s["last_day"], " ".join(s["gate"]) or "-",
              " ".join(s["gate_tomorrow"]) or "-"] for s in record["store"]]),
        {"key": "index", "text": (
            f"Every item's text is encoded in {index['encoder']} and filed in one approximate index "
            f"({index['version']}, {index['n_lists']} lists, seed {index['seed']}, {index['items']} vectors) "
            f"shared by every buyer: recall takes the top {index['k']} from {index['nprobe']} lists, whoever "
            f"owns them, and scope is the gate's job. Refs are keyed with {index['ref_key']}.")},
        {"key": "sessions", "heading": f"{len(sessions)} sessions with memory"},
        table_block(
            "recall", "memory-recall and memory-gate, per session",
            "candidate: the item id, or its opaque ref in another buyer's session; cosine: similarity "
            "to the query in the store's encoder space; gate: passed, or the reason codes that "
            "withheld it.",
            ["session", "buyer", "rank", "candidate", "cosine", "gate"],
            [[s["session"] if h["rank"] == 1 else "", s["buyer"] if h["rank"] == 1 else "", h["rank"],
              h["candidate"], f"{h['cosine']:.4f}", " ".join(h["gate"])]
             for s in sessions for h in s["recall"]["hits"]]),
        table_block(
            "context", "memory-context: each usable item against today's input",
            "today: what the query's contract says about the field (- = nothing); action: "
            "follow_today (explicit input wins), ask (a bare number), memory (packed, marked as "
            "memory); conflict: today and memory disagree, and the buyer is told.",
            ["session", "item", "today", "remembered", "action", "conflict"],
            [[s["session"] if n == 0 else "", e["item"], e["today"], e["remembered"], e["action"],
              e["conflict"]] for s in sessions for n, e in enumerate(s["entries"])]),
        {"key": "packets", "text": _sessions_text(sessions)},
    ]
    deletion, migration = record["deletion"], record["migration"]
    versions = record["correction"]["versions"]
    prompt, lazy = deletion["prompt"], deletion["lazy"]
    return blocks + [
        {"key": "changes", "heading": "The buyer's requests, then an embedding migration"},
        table_block(
            "correction", f"Correction of {record['correction']['item']}: both versions recorded",
            "current: the version the gate reads; the older one is kept as history and no longer used.",
            ["version", "value", "recorded", "current"],
            [[v["version"], v["value"], v["as_of"], v["current"]] for v in versions]),
        {"key": "withdrawal", "text": f"{record['withdrawn']}: consent withdrawn, recorded as a new version with "
                                      "permission 'denied'; cached packets that used it are dropped."},
        table_block(
            "deletion", f"Deletion of {deletion['item']}: what each store still holds afterwards",
            "counts: versions in the store, vectors in the index, cached packets and trace payloads "
            "naming the item, deletion records carrying its keyed ref. At once: ann.delete when the "
            "request arrives; at rebuild: an index that takes changes only when next rebuilt.",
            ["store", "at once", "at rebuild"],
            [[k, prompt[k], lazy[k]] for k in prompt]),
        {"key": "deletion-record", "text": (
            f"What remains is an opaque record: {deletion['ref']} deleted on {deletion['on']}, removed "
            + ", ".join(f"{k} {v}" for k, v in deletion["removed"].items()) + ". The id, its value and its text "
            "appear in no store. The index that waits for a rebuild still returns the deleted item at rank "
            f"{deletion['lazy_rank']} for S1's query, and its recall@{index['k']} against exact search over its "
            f"own contents is {deletion['lazy_recall_at_k']:.3f}: perfect search quality, and a broken permission "
            "contract. The fix is to delete the vector when the request arrives, not at the next rebuild.")},
        {"key": "deletion-checks", "text": "The replay's propagation checks on the index that waits for a rebuild "
                                           "(its recall stage replayed on the frozen sessions):\n"
                                           + _checks(deletion["lazy_checks"])},
        {"key": "migration", "text": (
            "Embedding migration mem-vec-1 -> mem-vec-2. Half the items re-encoded: the index refuses to build ("
            f"{migration['refused']['build']}). A mem-vec-2 query against the mem-vec-1 index: refused ("
            f"{migration['refused']['search']}). Compared anyway, number by number, the new query's nearest "
            f"item would be {migration['mixed_first']}; in one space it is {migration['one_space_first']} "
            f"({migration['old_first']} before the migration). The migration re-encodes every item in "
            "mem-vec-2 and rebuilds the index, and every query is encoded by the store's own version, so both "
            "sides are in one space: the migrated index holds " + ", ".join(migration["migrated_versions"])
            + " vectors only. Like any change it is replayed on the frozen sessions before exposure: the "
            "second replay below.")},
        {"key": "replays", "heading": "Replay on the frozen sessions before anything is exposed"},
    ] + [block for n, replay in enumerate(record["replays"]) for block in _replay_blocks(replay, n)] + [
        table_block(
            "queries", "Every catalogue query with memory switched off",
            "state and packet as lessons 07-09 give them (the agreement test compares every key).",
            ["query", "state", "empty cause", "packet"],
            [[q["query_id"], q["state"], q["empty_cause"],
              " ".join(dict.fromkeys(f.split("#")[0] for f in q["packet"])) or "-"]
             for q in record["queries"]]),
    ]
