"""One catalogue run in the keys every lesson of the catalogue shows and the agreement test
compares (tests/test_agreement.py): lessons 08, 12 and 13 call this instead of each keeping
its own copy, so "the same query, the same state" holds by construction as well as by test."""

from __future__ import annotations


def catalogue_row(run) -> dict:
    """A pipeline Run of the catalogue as a JSON-ready row: contract, stop, state and reasons,
    the gate's decisions, the fused ranking, every exclusion and the packet's field ids."""
    contract, q = run.output("contract"), run.output("decision")
    gate, fusion = run.output("gate", None), run.output("fusion", None)
    evidence, packet = run.output("evidence", None), run.output("packet", None)
    gate_rows = [[d.subject, d.state, list(d.reason_codes)] for d in gate.decisions] if gate else []
    return {"query_id": contract.query_id, "original": contract.original, "contract_state": contract.state,
            "stopped": run.halt and run.halt.reason, "state": q.decision.state,
            "reason_codes": list(q.decision.reason_codes), "empty_cause": q.empty_cause, "gate": gate_rows,
            "ranking": [[f.cluster_id, f.listing_id, round(f.ordering_score, 6)] for f in fusion.candidates]
            if fusion else [],
            "exclusions": gate_rows + ([[d.subject, d.state, list(d.reason_codes)] for d in evidence.decisions]
                                       if evidence else []),
            "packet": [field for field, _ in packet.fields] if packet else []}
