"""Lesson 07's query-design section: its record and blocks (modules/hybrid/trace.py wraps its
trace and view to end with them). The mechanism is modules/hybrid/query_design.py."""

from __future__ import annotations

from modules.catalogue import RESTRICTED_IDS, opaque_ref
from modules.common.tables import table_block
from modules.hybrid import query_design as qd

__all__ = ["query_design_record", "query_design_blocks"]


def _safe(listing_id: str) -> str:
    return opaque_ref(listing_id) if listing_id in RESTRICTED_IDS else listing_id


def query_design_record() -> dict:
    """The four query designs on their new queries, each against the contract as it is."""
    pipelines = qd.design_pipelines()
    runs = {}
    for name, qid in (("aliases", "PW-Q010"), ("rewrite", "PW-Q011"), ("identifier", "PW-Q012"),
                      ("identifier, no rule", "PW-Q012")):
        query = qd.design_query_by_id(qid)
        runs[name] = tuple(qd.run(p, query) for p in pipelines[name])

    def lexical(run):
        return [_safe(i) for i in next(c for c in run.of_kind("channel") if c.channel == "lexical").ranking]

    def step(run, name):
        return next({"name": t.name, "version": t.version, "input": t.input, "output": t.output, "status": t.status}
                    for t in run.output("contract").transformations if t.name == name)

    out = {"rows": []}
    for name in ("aliases", "rewrite"):
        before, after = runs[name]
        moved = qd.gained_and_lost(before, after)
        qid = before.inputs["query"].id
        out[name] = {"query_id": qid, "original": before.inputs["query"].text, "step": step(after, name),
                     "lexical_before": lexical(before), "lexical_after": lexical(after),
                     "gained": [_safe(x) for x in moved["gained"]], "lost": [_safe(x) for x in moved["lost"]],
                     "lost_relevance": {_safe(i): qd.RELEVANCE[qid].get(i, 0) for i in moved["lost"]},
                     "ranked": [len(qd.ranked(before)), len(qd.ranked(after))]}
    raw, ruled = runs["identifier"]
    unruled = runs["identifier, no rule"][1]
    vector = next(c for c in ruled.of_kind("channel") if c.channel == "vector")
    exact = sorted(qd.identified(ruled))
    fused = [f.listing_id for f in unruled.output("fusion").candidates]
    out["identifier"] = {
        "query_id": raw.inputs["query"].id, "original": raw.inputs["query"].text,
        "raw_state": raw.output("contract").state, "raw_reason": raw.output("contract").reason,
        "step": step(ruled, "identifier"), "state": ruled.output("contract").state,
        "identifier_proposed": exact, "vector_first": _safe(vector.hits[0].listing_id),
        "vector_first_score": round(vector.hits[0].score, 4),
        "fused_first": fused[0], "fused_first_score": round(unruled.output("fusion").candidates[0].ordering_score, 6),
        "identified_fused_position": fused.index(exact[0]) + 1 if exact else None,
        "identified_score": round(next(f.ordering_score for f in unruled.output("fusion").candidates
                                       if exact and exact[0] in f.members), 6) if exact else None,
        "decided_first": ruled.output("fusion").candidates[0].listing_id, "rule": qd.IDENTIFIER_VERSION,
        "judgements": [qd.judgements(ruled, f.listing_id, qd.RELEVANCE["PW-Q012"])
                       for f in ruled.output("fusion").candidates[:3]]}
    tolerance = qd.design_query_by_id("PW-Q013")
    base = qd.run(pipelines["aliases"][0], tolerance)   # lesson 07's RETRIEVAL as it is
    permitted = [x for x in base.output("source").records if x.id in set(base.output("gate").passed)]
    structured = next(c for c in base.of_kind("channel") if c.channel == "structured")
    out["conditions"] = {
        "query_id": tolerance.id, "original": tolerance.text,
        "declared": [[c.field, c.kind, c.rule] for c in qd.CONDITIONS],
        "rule": {"name": "seal-shaft/1", "families": list(qd.DOMAIN_RULES["seal-shaft/1"].families),
                 "plus_minus": qd.DOMAIN_RULES["seal-shaft/1"].plus_minus},
        "exact_hits": len(structured.hits),
        "verdicts": [[i, ok, [list(f) for f in found]]
                     for i, ok, found in qd.condition_verdicts(base.output("contract"), permitted) if ok]}
    # the rank feature orders what the gate admitted (cheapest first, ties by id); the facet only counts
    out["conditions"]["verdicts"].sort(key=lambda v: (float(v[2][2][2]), v[0]))
    facets = {}
    for v in out["conditions"]["verdicts"]:
        facets[v[2][1][2]] = facets.get(v[2][1][2], 0) + 1
    out["conditions"]["facet_counts"] = facets
    for qid in [q.id for q in qd.DESIGN_QUERIES]:
        run = qd.run(pipelines["aliases"][0], qd.design_query_by_id(qid))
        out["rows"].append({"query_id": qid, "contract_state": run.output("contract").state,
                            "ranking": [[f.cluster_id, f.listing_id, round(f.ordering_score, 6)]
                                        for f in run.output("fusion").candidates]})
    return out


def _ids(ids) -> str:
    return ", ".join(ids) or "none"


def query_design_blocks(qd: dict) -> list:
    """The printable blocks of the query-design section."""
    a, rw, i, c = qd["aliases"], qd["rewrite"], qd["identifier"], qd["conditions"]
    judged = i["judgements"]
    return [
        {"key": "design-heading", "heading": "Query design: aliases, rewrites, identifiers, conditions"},
        {"key": "design-aliases", "text": (
            f"Aliases ({a['step']['version']}, authorised by the catalogue): {a['query_id']} \"{a['original']}\". "
            f"The step keeps its input \"{a['step']['input']}\" and writes {a['step']['output']}. Lexical "
            f"candidates before: {_ids(a['lexical_before'])}; after: {_ids(a['lexical_after'])}. Gained at "
            f"ranking: {_ids(a['gained'])}; lost: {_ids(a['lost'])}.")},
        {"key": "design-rewrite", "text": (
            f"A rewrite that narrows ({rw['step']['version']}): {rw['query_id']} \"{rw['original']}\", "
            f"{rw['step']['input']} -> {rw['step']['output']}, and the category filters every channel. Ranked "
            f"{rw['ranked'][0]} -> {rw['ranked'][1]}; gained: {_ids(rw['gained'])}; lost: "
            + (", ".join(f"{k} (graded {v})" for k, v in rw["lost_relevance"].items()) or "none")
            + ". Nothing in the contract says the intent narrowed, yet "
            + _ids([k for k, v in rw["lost_relevance"].items() if v == 2])
            + ", graded a fit for what the shopper typed, is gone.")},
        {"key": "design-identifier", "text": (
            f"An exact identifier: {i['query_id']} \"{i['original']}\". Read as it is, the contract is "
            f"{i['raw_state']} ({i['raw_reason']}). With {i['step']['version']} first, the part number "
            f"{i['step']['input']} is kept as a step and the contract is {i['state']}. The lexical channel's "
            f"identifier field proposed {_ids(i['identifier_proposed'])}; the vector channel's first was "
            f"{i['vector_first']} (cosine {i['vector_first_score']}); rank fusion alone put {i['fused_first']} first "
            f"({i['fused_first_score']}) and {_ids(i['identifier_proposed'])} at {i['identified_fused_position']} "
            f"({i['identified_score']}). The declared rule ({i['rule']}) decides: {i['decided_first']} first, "
            "never the larger score.")},
        table_block(
            "design-judgements", f"Five judgements, kept apart: the first three of {i['query_id']}",
            "similarity: the candidate's rank in each channel that proposed it (its own scale); "
            "relevance: hand grade (2 fits, 0 not judged relevant); evidence and compatible: judged "
            "by lesson 08's checks, not here (lesson 14 shows them); eligibility: the gate's decision.",
            ["candidate", "similarity", "relevance", "evidence", "compatible", "eligibility"],
            [[j["listing_id"], " ".join(f"{k[:3]}#{v}" for k, v in j["channel_similarity"].items()),
              j["candidate_relevance"], j["evidence_sufficiency"], j["compatibility_control"],
              j["behaviour_eligibility"]] for j in judged]),
        table_block(
            "design-conditions", f"Declared conditions for {c['query_id']} \"{c['original']}\"",
            "kind: gate (must hold), facet (shown, never filters), rank feature (orders, never "
            f"filters); the diameter gate's tolerance is the domain rule {c['rule']['name']}: "
            f"+-{c['rule']['plus_minus']} mm for {', '.join(c['rule']['families'])}.",
            ["field", "kind", "rule"],
            [[f, k, r or "-"] for f, k, r in c["declared"]]),
        table_block(
            "design-conditions-verdicts",
            f"What the declared gate admits for {c['query_id']} (the exact structured filter finds {c['exact_hits']})",
            f"listing: a permitted listing the gate admits, in the rank feature's order (price, lowest first); "
            f"diameter: its diameter in mm against 15.9 +-{c['rule']['plus_minus']}, in or out; price: EUR.",
            ["listing", "diameter", "price"],
            [[v[0], v[2][0][2], v[2][2][2]] for v in c["verdicts"]]),
        {"key": "design-conditions-finding", "text": (
            "The family facet counts them (" + ", ".join(f"{k} {n}" for k, n in c["facet_counts"].items())
            + ") and filters nothing. The tolerance is the rule's, never a margin retrieval picked. Lesson 08's "
              "compatibility control compares exactly: adopting the rule there is a policy change, replayed on "
              "the frozen cases first (lesson 13).")},
    ]
