"""The forced counterfactuals and the six failure patterns.

The counterfactuals run the frozen cases through the pipeline with one part taken away
(lesson 12's removals and a withdrawn permission). Each failure pattern is refuted by a
figure an earlier lesson measures, read here from the same runs (lesson 12's segments and
labels, lesson 13's store).
"""

from __future__ import annotations

from modules.catalogue import LISTINGS, QUERIES, opaque_ref
from modules.channels.failures import FAILURES
from modules.channels.metrics import RELEVANCE, SEGMENTS, precision_at_k
from modules.grounding import NOTHING_QUERY
from modules.memory import mechanism as memory_lesson
from modules.memory.store import WITHDRAWN as WITHDRAWN_ITEM, correct, replay, verify
from modules.operate.mechanism import frozen_records, frozen_runs, with_permission

__all__ = ["remove_vector", "remove_generation", "withdraw", "failure_patterns", "WITHDRAWN"]

WITHDRAWN = "PW-L003"   # an allowed listing in two packets: the source whose permission is withdrawn


def _segments(qid: str) -> list:
    return [name for name, ids in SEGMENTS.items() if qid in ids] or ["other"]


def remove_vector(base: dict, without: dict) -> dict:
    """What removing the vector channel changes: per segment the cases that lose ranked candidates,
    the states that change, and the fallback lesson 12 declares for a lost vector channel."""
    lost: dict = {}
    for qid, run in base.items():
        before = {m for f in run.output("fusion").candidates for m in f.members} if run.output("fusion", None) else set()
        after = ({m for f in without[qid].output("fusion").candidates for m in f.members}
                 if without[qid].output("fusion", None) else set())
        for seg in _segments(qid):
            row = lost.setdefault(seg, {"cases": 0, "losing": 0, "lost": 0, "states_changed": 0})
            row["cases"] += 1
            row["losing"] += bool(before - after)
            row["lost"] += len(before - after)
            row["states_changed"] += (run.output("decision").decision.state
                                      != without[qid].output("decision").decision.state)
    spec = next(f for f in FAILURES if f.name == "vector_unavailable")
    return {"segments": lost, "fallback": spec.behaviour, "fallback_state": spec.state}


def remove_generation(base: dict, without: dict) -> dict:
    """Generation removed: states and packets per case are unchanged; only the answer lines go."""
    same = [qid for qid, run in base.items()
            if run.output("decision").decision.state == without[qid].output("decision").decision.state
            and run.output("packet", None) == without[qid].output("packet", None)]
    lines = sum(len(run.output("answer").lines) for run in base.values())
    return {"cases": len(base), "unchanged": len(same), "answer_lines_before": lines, "answer_lines_after": 0}


def withdraw(base_records: dict, served, listing_id: str = WITHDRAWN) -> dict:
    """Withdraw one source's permission: the cases that retrieved the listing, run again with it
    denied, then where it still shows. Its id must leave every packet, ranking and record (it
    appears as an opaque ref); lesson 13's withdrawn memory item, on the store `served` (its
    sessions served, packets cached), shows the cache and trace side. A case that never
    retrieved the listing cannot change."""
    retrieved = {q for q, r in base_records.items()
                 if any(h["candidate"] == listing_id for c in r["retrieval"]["channels"] for h in c["hits"])}
    cases = tuple(q for q in QUERIES + (NOTHING_QUERY,) if q.id in retrieved)
    after = frozen_records(frozen_runs(listings=with_permission(LISTINGS, listing_id, "denied"), cases=cases))
    text = repr(after)
    packed = [q for q, r in base_records.items() if listing_id in r["assembly"].get("listings", ())]
    return {"listing": listing_id, "ref": opaque_ref(listing_id), "packed_before": packed,
            "packed_after": [q for q, r in after.items() if listing_id in r["assembly"].get("listings", ())],
            "id_in_records_after": text.count(listing_id), "ref_in_records_after": text.count(opaque_ref(listing_id)),
            "states_after": {q: after[q]["decision"]["state"] for q in packed}, "cases": sorted(retrieved),
            "memory": _memory_withdrawal(served)}


def _memory_withdrawal(served) -> list:
    state = correct(served, WITHDRAWN_ITEM, "2026-11-01", permission="denied")
    return [[name, held, detail] for name, held, detail
            in verify(state, replay(memory_lesson.SESSIONS, state), withdrawn=(WITHDRAWN_ITEM,))]


def failure_patterns(records: dict, without_vector: dict, memory: dict, mistakes: list) -> list:
    """[(pattern, lesson, figure)]: each refuted by what the frozen runs measure; `mistakes` is the
    faithfulness record [{"failed": [check, ...]}, ...] of the unfaithful explanations."""
    q2 = records["PW-Q002"]
    vec = next(c for c in q2["retrieval"]["channels"] if c["channel"] == "vector")
    hose = next(h for h in vec["hits"] if h["candidate"] == "PW-L015")
    hose_fate = next(e["reason_codes"][0] for e in q2["assembly"]["excluded"] if e["subject"] == "PW-L015")
    nothing = records["GR-Q001"]
    packet = q2["assembly"]["listings"]
    p2, p3 = precision_at_k(packet, RELEVANCE["PW-Q002"], 2), precision_at_k(packet, RELEVANCE["PW-Q002"], 3)
    changed = sum(v["states_changed"] for k, v in without_vector["segments"].items() if k != "other")
    supported = sum("support" not in x["failed"] for x in mistakes)
    packed = [(r, i) for r in records.values() for i in r["assembly"].get("listings", ())]
    by_lexical = sum("lexical" in next(f["channel_ranks"] for f in r["ranking"]["fused"] if f["shown"] == i)
                     for r, i in packed)
    session, run = next((s, run) for s, run in memory.values()
                        if any(e.conflict for e in run.output("memory-context").entries))
    clash = next(e for e in run.output("memory-context").entries if e.conflict)
    return [
        ("similarity equals relevance", "07 hybrid",
         f"PW-L015, a hose connector, is the vector channel's #{hose['rank']} for PW-Q002 (cosine {hose['score']}); "
         f"the evidence check excludes it: {hose_fate}"),
        ("citation equals correctness", "14 operate",
         f"{supported} of the {len(mistakes)} unfaithful explanations pass the support check (every cite real, "
         f"every number in a cited value), and each still fails another check"),
        ("dense always beats lexical", "12 channels",
         f"removing the vector channel changes {changed} states over the frozen cases; lexical proposed "
         f"{by_lexical} of the {len(packed)} packed listings"),
        ("more context is better", "12 channels",
         f"PW-Q002's packet: precision {p2:.3f} at 2, {p3:.3f} at 3 (lesson 12's labels): the third listing "
         f"adds nothing relevant"),
        ("memory is magic", "13 memory",
         f"{session.id}: remembered {clash.remembered} mm, typed {clash.today} mm today: {clash.action}, the "
         f"conflict shown; state {run.output('decision').decision.state}, without memory "
         f"{memory_lesson.run_session(session).output('decision').decision.state}"),
        ("an empty result triggers generation", "09 grounding",
         f"{nothing['query_id']} matches nothing: empty cause {nothing['decision']['empty_cause']}, "
         f"{len(nothing['generation']['answer'])} answer lines"),
    ]
