"""Lesson 09's trace and view: what `python3 -B methods.py grounding` prints.

modules/grounding/mechanism.py runs the pipeline and builds the records; this module arranges them
into the lesson's record and printable blocks. It imports no lesson module.
"""

from __future__ import annotations

from modules.catalogue import QUERIES, opaque_ref, query_by_id
from modules.catalogue.policy import POLICY_VERSION
from modules.grounding.mechanism import (CHECKS, GATE_CODES, LAYERS, LISTINGS, NOTHING_QUERY, VARIANTS, _gate, count_exclusions, first_failing_layer, locate, permission_gate, run_query, run_variant, trace_record)
from modules.common.tables import table_block

PERMISSION_CODES = ("PERMISSION_DENIED", "PERMISSION_UNKNOWN", "DUPLICATE_ID_CONFLICT")


def query_row(record: dict) -> dict:
    """One query as this lesson shows it; the agreement test compares it with lessons 07 and 08."""
    gate, ranking, assembly, decision = (record["permission/freshness"], record["ranking"], record["assembly"],
                                         record["decision"])
    gate_rows = [[d["subject"], d["state"], d["reason_codes"]] for d in gate.get("withheld", ())]
    return {"query_id": record["query_id"], "original": record["query"], "fingerprint": record["fingerprint"],
            "contract_state": record["input"]["state"], "stopped": record["input"]["stopped"],
            "state": decision["state"], "reason_codes": decision["reason_codes"], "empty_cause": decision["empty_cause"],
            "gate": gate_rows,
            "ranking": [[f["cluster"], f["shown"], f["ordering_score"]] for f in ranking.get("fused", ())],
            "exclusions": gate_rows + [[d["subject"], d["state"], d["reason_codes"]] for d in assembly.get("excluded", ())],
            "packet": [f["field_id"] for f in assembly.get("packet", ())],
            "user_state": record["presentation"]["state"]}


def _contrast(record: dict) -> dict:
    return {"query_id": record["query_id"], "query": record["query"], "state": record["decision"]["state"],
            "cause": record["decision"]["empty_cause"],
            "permission_exclusions": sum(code in PERMISSION_CODES for d in record["permission/freshness"]["withheld"]
                                         for code in d["reason_codes"]),
            "user_view": record["presentation"]}


def record(detail: dict, records: list, nothing: dict, walks: list, counts: dict, where: list, checks: list) -> dict:
    """The lesson's record: every query, one record in full, the contrast, the walks, the aggregate."""
    denied = next(r for r in records if r["decision"]["empty_cause"] == "all_unauthorized")
    before, after = counts["before"], counts["after"]
    return {
        "lesson": "grounding",
        "layers": [c[0] for c in checks],
        "queries": [query_row(r) for r in records],
        "detail": detail,
        "detail_checks": [{"layer": layer, "held": held, "why": why} for layer, held, why in checks],
        "where_each_listing_went": [{"listing": name, "where": where_is} for name, where_is in where],
        "user_view": detail["presentation"],
        "denied_versus_nothing_matched": {
            "retrieved_then_denied": _contrast(denied), "nothing_matched": _contrast(nothing),
            "user_views_equal_apart_from_the_query":
                dict(denied["presentation"], query="") == dict(nothing["presentation"], query="")},
        "variants": [{"name": w["variant"].name, "change": list(w["variant"].change), "query_id": w["variant"].query,
                      "symptom": w["variant"].symptom, "seen_at": w["variant"].seen_at,
                      "state_before": w["before"]["decision"]["state"], "state_after": w["after"]["decision"]["state"],
                      "packet_before": w["before"]["assembly"].get("listings", []),
                      "packet_after": w["after"]["assembly"].get("listings", []),
                      "user_view_before": w["before"]["presentation"]["state"],
                      "user_view_after": w["after"]["presentation"]["state"],
                      "user_message_after": w["after"]["presentation"]["message"],
                      "checks": [{"layer": layer, "held": held, "why": why} for layer, held, why in w["checks"]],
                      "checks_before": [{"layer": layer, "held": held, "why": why}
                                        for layer, held, why in w["checks_before"]],
                      "first_failing_layer": w["first"] and w["first"][0]} for w in walks],
        "exclusions_by_reason": {
            "query_count": len(records), "before": before, "after": after,
            "permission_before": sum(before[c] for c in PERMISSION_CODES),
            "permission_after": sum(after[c] for c in PERMISSION_CODES),
            "source_version": [detail["change"]["baseline"]["source"], walks[1]["variant"].change[1]],
            "policy_version": [POLICY_VERSION, walks[1]["after"]["permission/freshness"]["policy"]],
            "first_failing_layer": walks[1]["first"] and walks[1]["first"][0],
            "reading": "Permission exclusions rose while the policy did not change: metadata was lost on the way "
                       "into the index, so the layer to repair is the one that holds the index's records. Repair "
                       "the rebuild; never relax fail-closed to make the count drop."},
    }


def _check_lines(checks: list) -> str:
    return "\n".join(f"{c['layer']}: {'held' if c['held'] else 'FAILED'} - {c['why']}" for c in checks)


def _walk_text(n: int, v: dict) -> str:
    """One broken pipeline: its change, its symptom and the layer the walk names, then the checks:
    every failed one, each held one whose figures moved, and the held, unchanged layers named once."""
    was = {c["layer"]: c["why"] for c in v["checks_before"]}
    failed = [f"  {c['layer']}: FAILED - {c['why']}" for c in v["checks"] if not c["held"]]
    moved = [f"  {c['layer']}: held, figures moved - {c['why']}" for c in v["checks"]
             if c["held"] and c["why"] != was[c["layer"]]]
    same = [c["layer"] for c in v["checks"] if c["held"] and c["why"] == was[c["layer"]]]
    return "\n".join([f"{n}. {v['name']} ({v['change'][0]} -> {v['change'][1]}), on {v['query_id']}. "
                      f"Symptom, internal only: {v['symptom']}. First failing layer: {v['first_failing_layer']}."]
                     + failed + moved + [f"  held, as in the healthy run: {', '.join(same) or '-'}."])


def _ranks(row: dict) -> str:
    return ", ".join(f"{channel} #{rank}" for channel, rank in row["channel_ranks"].items())


def view(record: dict) -> list:
    """Printable blocks: every query, the internal record, what the shopper sees, the walks, the aggregate."""
    d = record["detail"]
    channels = d["retrieval"]["channels"]
    depth = max((len(c["hits"]) for c in channels), default=0)
    gate, ranking, assembly, decision = d["permission/freshness"], d["ranking"], d["assembly"], d["decision"]
    stale = [r for r in gate.get("fields", ()) if r["age_days"] is None or r["age_days"] > r["max_days"]]
    contrast, agg = record["denied_versus_nothing_matched"], record["exclusions_by_reason"]
    seen = record["user_view"]
    blocks = [
        {"key": "heading", "heading": "Lesson 09 - grounding: traces that explain every inclusion and exclusion"},
        {"key": "intro", "text": "What this shows: every catalogue query traced, one layer per section; one "
                                 "record in full and what the shopper may see of it; then three broken pipelines, "
                                 "each walked to the first layer that failed, and the gate's exclusions before and "
                                 "after an index rebuild."},
        {"key": "layers", "text": "One record per query, with one section per layer: " + " > ".join(record["layers"])
                                  + ". It is the record of the same pipeline run lessons 07 and 08 show."},
        table_block(
            "queries", "Every catalogue query, one record each",
            "state: the decision; user sees: the state shown to the shopper; packet: the listings "
            "whose fields were packed; fingerprint: sha256 of the contract's canonical form, first "
            "12 hex digits.",
            ["query", "state", "user sees", "packet", "fingerprint"],
            [[q["query_id"], q["state"], q["user_state"],
              " ".join(dict.fromkeys(f.split("#")[0] for f in q["packet"])) or "-", q["fingerprint"][:12]]
             for q in record["queries"]]),
        {"key": "stopped", "text": "Stopped before retrieval, so no channel ran, nothing was retrieved and no "
                                   "packet was assembled: " + ", ".join(
            f"{q['query_id']} ({q['stopped']})" for q in record["queries"] if q["stopped"]) + "."},
        {"key": "detail", "heading": f"The internal record of {d['query_id']}: {d['query']}"},
        {"key": "fingerprint", "text": f"Fingerprint {d['fingerprint']}\nAs of {d['as_of']}; versions "
                                       + ", ".join(f"{k}={v}" for k, v in d["change"]["versions"].items())},
        {"key": "input", "text": f"input: \"{d['input']['original']}\", every transformation named and "
                                 "versioned (step, version, status: what it wrote):\n"
                                 + "\n".join(f"  {t['name']} ({t['version']}, {t['status']}): "
                                             + (f"{t['input']} -> {t['output']}" if t["name"] == "unit-to-mm"
                                                else t["output"]) for t in d["input"]["transformations"])},
    ]
    if channels:
        blocks.append(table_block(
            "retrieval", "retrieval: each channel's candidates, before the gate",
            "one column pair per channel: the candidate (id, or opaque ref when its permission is not "
            "'allowed') and that channel's own raw score; rank 1 = best.",
            ["rank"] + [x for c in channels for x in (c["channel"], "score")],
            [[n] + [x for c in channels for x in ((c["hits"][n - 1]["candidate"], c["hits"][n - 1]["score"])
                                                  if n <= len(c["hits"]) else ("-", None))]
             for n in range(1, depth + 1)]))
    if gate.get("ran"):
        rows = [[w["subject"], w["state"], code, " ".join(w["clause_ids"])] for w in gate["withheld"]
                for code in w["reason_codes"][:1]]
        blocks += [
            table_block(
                "gate", f"permission/freshness: {gate['policy']}, as of {gate['as_of']}",
                "withheld before ranking; subject: id, or opaque ref when the permission is not "
                "'allowed'; reason code: the first safe code (all are in --json).",
                ["subject", "state", "reason code", "clauses"],
                rows),
            {"key": "gate-fields", "text": f"Passed: {', '.join(p['candidate'] for p in gate['passed'])}. Stale fields: "
                                           + "; ".join(f"{r['candidate']} {r['field']} {r['age_days']} days "
                                                       f"(limit {r['max_days']})" for r in stale) + "."},
            table_block(
                "ranking",
                f"ranking: reciprocal rank fusion (k = {ranking['k']}) over ranks recounted after the gate",
                "shown: the cluster's lowest listing id; reason: the channels and the ranks the cluster "
                "held in them after the gate.",
                ["pos", "cluster", "shown", "ordering_score", "reason"],
                [[r["position"], r["cluster"], r["shown"], f"{r['ordering_score']:.6f}", _ranks(r)]
                 for r in ranking["fused"]]),
            {"key": "assembly", "text": "assembly: excluded by the evidence checks: "
                                        + "; ".join(f"{x['subject']} {' '.join(x['reason_codes'])}"
                                                    for x in assembly["excluded"])
                                        + ".\nPacket field ids: " + (", ".join(f["field_id"] for f in assembly["packet"])
                                                                     or "none") + "."},
        ]
    blocks += [
        {"key": "decision", "text": f"decision: {decision['state']}; reason codes {' '.join(decision['reason_codes'])}; "
                                    f"clauses {' '.join(decision['clause_ids'])}; empty cause "
                                    f"{decision['empty_cause'] or '-'}; fallback {decision['fallback'] or '-'}."},
        {"key": "where", "text": "Where each listing went (internal; a listing whose permission is not 'allowed' "
                                 "by its opaque ref; 'not retrieved' and 'retrieved, then excluded' differ here, "
                                 "though the shopper sees neither):\n"
                                 + "\n".join(f"  {w['listing']}: {w['where']}" for w in record["where_each_listing_went"])},
        {"key": "detail-checks", "text": "Every layer's check on this record:\n" + _check_lines(record["detail_checks"])},
        {"key": "shopper", "heading": "What the shopper sees"},
        {"key": "user-view", "text": "\n".join([f"Request: {seen['query']}", f"[{seen['state']}] {seen['message']}"]
                                               + [f"- {line['text']} [{', '.join(line['cites'])}]"
                                                  for line in seen["answer"]])},
        table_block(
            "contrast", "Retrieved, then denied, is not nothing matched - internally",
            f"{contrast['retrieved_then_denied']['query_id']} \"{contrast['retrieved_then_denied']['query']}\" "
            f"against {contrast['nothing_matched']['query_id']} \"{contrast['nothing_matched']['query']}\"; "
            "state: the internal decision; permission: how many candidates the gate withheld for "
            "permission; user sees: the state shown to the shopper.",
            ["case", "state", "empty cause", "permission", "user sees"],
            [[label, c["state"], c["cause"], c["permission_exclusions"], c["user_view"]["state"]]
             for label, c in (("retrieved, then denied", contrast["retrieved_then_denied"]),
                              ("nothing matched", contrast["nothing_matched"]))]),
        {"key": "contrast-verdict", "text": "User views identical apart from the query text: "
                                            + ("yes" if contrast["user_views_equal_apart_from_the_query"] else "NO")
                                            + ". The shopper is told: "
                                            + contrast["nothing_matched"]["user_view"]["message"]},
        {"key": "walks", "heading": "Regression localisation: walk the layers, name the first that failed"},
        table_block(
            "broken-runs", "Three broken pipelines, one replaced stage each: what they decided",
            "walk: the number used below (its query there); state and packet: the internal decision "
            "and the listings packed, healthy -> broken; user sees: the state shown to the shopper.",
            ["walk", "state", "packet", "user sees"],
            [[n, f"{v['state_before']} -> {v['state_after']}",
              f"{' '.join(v['packet_before']) or '-'} -> {' '.join(v['packet_after']) or '-'}",
              f"{v['user_view_before']} -> {v['user_view_after']}"]
             for n, v in enumerate(record["variants"], start=1)]),
        {"key": "walks-shown", "text": "Every broken run fails a check at or before the decision, so the user view "
                                       "withholds it; the shopper is told: "
                                       + record["variants"][0]["user_message_after"]
                                       + " Each walk below names the layer to repair."},
    ]
    for n, v in enumerate(record["variants"], start=1):
        blocks.append({"key": f"walk-{n}", "text": _walk_text(n, v)})
    blocks += [
        table_block(
            "walk-summary", "Where the symptom showed, and where the walk points",
            "walk: the broken pipeline's number above; replaced: the one stage it replaced; seen "
            "at: the layer of the internal record where someone noticed; first failing layer: the "
            "layer to repair.",
            ["walk", "replaced", "seen at", "first failing layer"],
            [[n, v["change"][0], v["seen_at"], v["first_failing_layer"]]
             for n, v in enumerate(record["variants"], start=1)]),
        {"key": "aggregate-heading", "heading": "The gate's exclusions by safe reason code, before and after the rebuild"},
        table_block(
            "aggregate", f"Over the {agg['query_count']} catalogue queries",
            "before: the healthy index; after: the index rebuilt from the feed export without permission; "
            "counts are the gate's exclusions (one per candidate, per query, per code).",
            ["reason code", "before", "after"],
            [[code, agg["before"][code], agg["after"][code]] for code in agg["before"]]),
        {"key": "aggregate-chart", "chart": {
            "title": "Permission exclusions", "width": 30,
            "legend": "# = exclusions; the bar's full width is the count after the rebuild.",
            "rows": [[f"before ({agg['source_version'][0]})", agg["permission_before"], agg["permission_after"]],
                     [f"after ({agg['source_version'][1]})", agg["permission_after"], agg["permission_after"]]]}},
        {"key": "aggregate-reading", "text": f"Permission exclusions {agg['permission_before']} -> "
                                             f"{agg['permission_after']}; policy version {agg['policy_version'][0]} -> "
                                             f"{agg['policy_version'][1]}. {agg['reading']} First failing layer of "
                                             f"the rebuild: {agg['first_failing_layer']} (walk 2)."},
    ]
    return blocks


def trace(query: str = "PW-Q002") -> dict:
    """Every catalogue query through the healthy pipeline, one in detail, then the three broken ones."""
    permitted, _ = permission_gate([(x.id, x.permission) for x in LISTINGS])
    records = [trace_record(run_query(q)) for q in QUERIES]
    detail = records[QUERIES.index(query_by_id(query))]
    walks = []
    for variant in VARIANTS:
        before = records[QUERIES.index(query_by_id(variant.query))]
        after = trace_record(run_variant(variant, query_by_id(variant.query)))
        walks.append({"variant": variant, "before": before, "after": after,
                      "checks": [(layer, *CHECKS[layer](after)) for layer in LAYERS],
                      "checks_before": [(layer, *CHECKS[layer](before)) for layer in LAYERS],
                      "first": first_failing_layer(after)})
    # The aggregate counts the gate's exclusions: the rebuilt pipeline runs up to the gate, and only
    # the gate's section of each record is built.
    rebuilt = [{"permission/freshness": _gate(run), "assembly": {}}
               for run in (run_variant(VARIANTS[1], q, until="gate") for q in QUERIES)]
    healthy = [{"permission/freshness": r["permission/freshness"], "assembly": {}} for r in records]
    return record(
        detail, records, trace_record(run_query(NOTHING_QUERY)), walks,
        {when: {code: n for code, n in count_exclusions(rows).items() if code in GATE_CODES}
         for when, rows in (("before", healthy), ("after", rebuilt))},
        [(x.id if x.id in permitted else opaque_ref(x.id), locate(detail, x.id)) for x in LISTINGS],
        [(layer, *CHECKS[layer](detail)) for layer in LAYERS])
