"""Lesson 11's trace and view: the scenario `python3 -B methods.py practice` prints, and with
`--solution` the reference decision table (task 4's answer) and the answers to tasks 5 to 7, each
table in one row order.

The mechanism and the fixture are in modules/practice/mechanism.py, whose trace() and view() call these.
"""

from __future__ import annotations
from dataclasses import replace

from modules.common.tables import table_block
from modules.common.units import lab_tokens
from modules.dedupe import dedupe_canonical
from modules.practice.mechanism import (AS_OF, BUDGET, CANDIDATES, CAPSTONE_QUESTIONS, D2_SPELLINGS, EXAMPLE_RULE, QUESTION,
                              RULES, SCOPE, TIGHT_BUDGET, _candidates, _layers, as_chunk, decision_table,
                              settle_conflict)

UNIT = "lab tokens (modules/common/units.py): whitespace pieces, each ceil(len / 5)"


def _amount(cid: str, amount) -> dict:
    return {"id": cid, "value": amount.value, "unit": amount.unit, "written": amount.written}


def _plan_record(plan, candidates) -> dict:
    tokens = {c.id: lab_tokens(c.text) for c in candidates}
    rows = [{"rank": rank, "id": d.id, "decision": d.decision, "reason": d.reason, "order": d.order,
             "tokens": tokens[d.id]} for rank, d in enumerate(plan.decisions, start=1)]
    packet, total = [], 0
    for order, pid in enumerate(plan.packet, start=1):
        total += tokens[pid]
        packet.append({"order": order, "id": pid, "tokens": tokens[pid], "running_total": total})
    matched = dedupe_canonical([as_chunk(c) for c in candidates if c.id in plan.dedupe or
                                c.id in plan.dedupe.values()]).matched
    documents: dict[str, list] = {}
    for c in candidates:
        if c.canonical in {by.canonical for by in candidates if by.id in plan.dedupe} and c.id not in plan.dedupe:
            documents.setdefault(c.canonical, []).append(c.id)
    cf = plan.conflict
    return {
        "decisions": rows,
        "packet": packet,
        "selection_order": list(plan.packet),
        "dedupe": {"mechanism": "lesson 03's dedupe_canonical, applied to the survivors of freshness and scope",
                   "dropped": [{"id": cid, "kept_id": kept, "matched": matched.get(cid, "")}
                               for cid, kept in plan.dedupe.items()],
                   "kept_per_document": documents},
        "conflict": {"ids": list(cf.ids), "amounts": [_amount(i, a) for i, a in zip(cf.ids, cf.amounts)],
                     "state": cf.state, "kept": list(cf.kept), "rule": cf.rule},
        "used_tokens": plan.used_tokens,
        "budget": plan.budget,
    }


def _walk(budget: int) -> dict:
    """The budget walk unit by unit, in the order it runs."""
    candidates = _candidates(CANDIDATES)
    _, _, _, units = _layers(candidates, AS_OF, SCOPE, RULES)
    steps, used = [], 0
    for step, unit in enumerate(units, start=1):
        size = sum(lab_tokens(c.text) for c in unit)
        fits = used + size <= budget
        used += size if fits else 0
        steps.append({"step": step, "unit": [c.id for c in unit], "tokens": size, "fits": fits, "used_after": used})
    plan = decision_table(CANDIDATES, AS_OF, SCOPE, budget, RULES)
    return {"budget": budget, "steps": steps, "packet": list(plan.packet), "used_tokens": plan.used_tokens,
            "discarded": {d.id: d.reason for d in plan.decisions if d.decision == "discard"}}


def _reader() -> list[dict]:
    """D2's amount written other ways, against D1's 500 euros, through the same conflict check."""
    by_id = {c.id: c for c in CANDIDATES}
    rows = []
    for written in D2_SPELLINGS:
        d2 = replace(by_id["D2"], text=by_id["D2"].text.replace("600 euros", written))
        conflict = settle_conflict([d2, by_id["D1"]], RULES)
        amount = conflict.amounts[0]
        rows.append({"written": written, "value": amount.value, "unit": amount.unit, "state": conflict.state,
                     "kept": list(conflict.kept)})
    return rows


def trace(solution: bool = False) -> dict:
    """The scenario; with solution=True also the reference decision table."""
    if not isinstance(solution, bool):
        raise TypeError(f"solution must be a bool, got {type(solution).__name__} {solution!r}")
    record = {
        "lesson": "practice",
        "question": QUESTION,
        "as_of": AS_OF,
        "scope": SCOPE,
        "budget": BUDGET,
        "unit": UNIT,
        "declared_rules": [list(r) for r in RULES],
        "evidence_wording_note": EVIDENCE_WORDING_NOTE,
        "candidates": [{"rank": rank, "id": c.id, "similarity": c.similarity, "document": c.document,
                        "chunk": c.chunk, "canonical": c.canonical, "source": c.source, "scope": c.scope,
                        "valid_from": c.valid_from, "valid_until": c.valid_until, "authority": c.authority,
                        "tokens": lab_tokens(c.text), "text": c.text}
                       for rank, c in enumerate(CANDIDATES, start=1)],
        "questions": list(CAPSTONE_QUESTIONS),
        # The curriculum's figures, by default: they show the lab's rules at work on cases
        # other than task 4's table (another spelling of D2's amount, a budget that binds).
        "amount_reader": _reader(),
        "tight_run": _walk(TIGHT_BUDGET),
        "budget_only": {"packet": [c.id for c in CANDIDATES], "tokens": sum(lab_tokens(c.text) for c in CANDIDATES)},
    }
    if not solution:
        return record
    plan = decision_table(CANDIDATES, AS_OF, SCOPE, BUDGET, RULES)
    with_rule = decision_table(CANDIDATES, AS_OF, SCOPE, BUDGET, EXAMPLE_RULE)
    reference = _plan_record(plan, CANDIDATES)
    reference["with_declared_rule"] = {
        "rule": [list(r) for r in EXAMPLE_RULE], "conflict_state": with_rule.conflict.state,
        "packet": list(with_rule.packet),
        "discarded": {d.id: d.reason for d in with_rule.decisions if d.decision == "discard"}}
    reference["answers"] = [
        "The answer keeps A1's conclusion without its exception: it tells a volunteer who booked before "
        "approval that the trip is reimbursed. Every citation still checks out, so nothing flags it.",
        "Freshness, before ranking: C1 expired on 2025-12-31 and the validity filter should have removed it "
        "before any reranker saw it. Tuning the reranker would treat the symptom.",
        "No. Authority 0.9 against 0.6 is a score, not a priority. Only a rule declared in advance (for "
        "example: the finance office's allowance table takes priority over the finance FAQ, or a supersedes "
        "link) may settle it; without one, both stay, the answer gives no single amount, and the sources go "
        "to content review.",
    ]
    record["reference"] = reference
    return record




# A1's text points at "the current allowance table" and D1 is titled "Allowance table 2026",
# yet no rule is declared: a sentence inside retrieved evidence is data, not a rule the
# pipeline was given before retrieval.
EVIDENCE_WORDING_NOTE = (
    "A1 says claims go \"up to the amount set in the current allowance table\" and D1 is titled "
    "\"Allowance table 2026\", but that is wording inside retrieved evidence, not a declared rule: "
    "evidence is data, and a rule that settles a conflict is set by the application before "
    "retrieval, never read out of the passages it would judge (a passage could name itself the "
    "authority). So D1 and D2 stay in conflict until such a rule is declared.")


def view(record: dict) -> list[dict]:
    tight = record["tight_run"]
    blocks = [
        {"key": "heading", "heading": "Lesson 11 - practice: the capstone"},
        {"key": "intro", "text": "What this shows: one question and the eight candidates it retrieved, each "
                                 "testing a rule of an earlier lesson (freshness, scope, copies, conflict, units, "
                                 "budget). Deciding them is your exercise; the scenario is all you need. Then two of the "
                                 "lab's rules at work on other cases: the conflict check reading an amount however "
                                 "it is written, and the budget walk at 160 lab tokens."},
        {"key": "scenario",
         "text": f"Question: {record['question']}\nAs of {record['as_of']}; the question's scope: "
                 f"{record['scope']}; evidence budget: {record['budget']:,} {record['unit']}. Declared priority "
                 f"rules between sources: {', '.join(' over '.join(r) for r in record['declared_rules']) or 'none'}. "
                 f"{record['evidence_wording_note']}"},
        table_block("candidates", "Eight candidates, as the retriever ranked them",
               "score: the retriever's similarity score; authority: the source's reputation score (not a "
               "rule); tokens: lab tokens of the text; valid from/until: ISO days, 'open' = no limit.",
               ["rank", "id", "score", "authority", "tokens", "source", "valid from", "valid until"],
               [[c["rank"], c["id"], c["similarity"], c["authority"], c["tokens"], c["source"],
                 c["valid_from"] or "open", c["valid_until"] or "open"] for c in record["candidates"]]),
        table_block("provenance", "Where each one comes from",
               "document#chunk: the document it was cut from and the passage's place in its canonical "
               "document (the same in every copy); copy of: the canonical document a copy repeats ('-': "
               "the chunk is from the canonical document itself); scope: whom and what it is about.",
               ["id", "document#chunk", "copy of", "scope"],
               [[c["id"], f"{c['document']}#{c['chunk']}", "-" if c["canonical"] == c["document"] else c["canonical"],
                 c["scope"]] for c in record["candidates"]]),
        {"key": "texts", "text": "\n".join(f"{c['id']}: {c['text']}" for c in record["candidates"])},
        table_block("amount-reader", "D2's amount written other ways, against D1's 500 euros",
               "read as: lesson 04's reader ('-' = cannot read: the pair goes to review, never counted "
               "as agreement); state: the conflict check's outcome with no declared rule; kept: who stays.",
               ["D2 writes", "read as", "state", "kept"],
               [[r["written"], "-" if r["value"] is None else f"{r['value']} {r['unit']}", r["state"],
                 ", ".join(r["kept"])] for r in record["amount_reader"]]),
        table_block("tight-walk", f"A second run at {tight['budget']} lab tokens, where the budget binds",
               "The budget walk in the order it runs: units (what survives the earlier layers) in order of "
               "their best rank; tokens: the unit's lab "
               "tokens; used after: the running total once the step is decided.",
               ["step", "unit", "tokens", "fits", "used after"],
               [[s["step"], ", ".join(s["unit"]), s["tokens"], s["fits"], s["used_after"]] for s in tight["steps"]]),
        {"key": "tight-result",
         "text": f"Packet at {tight['budget']}: {', '.join(tight['packet'])} ({tight['used_tokens']} lab tokens); "
                 + ", ".join(k for k, v in tight["discarded"].items() if v == "budget") + " discarded for the "
                 "budget. D2 alone would fit, but the conflict enters whole or not at all; the walk skips it and "
                 "still takes F1: skip, never stop."},
        {"key": "budget-only",
         "text": f"For contrast: a budget-only selector keeps all eight ({record['budget_only']['tokens']} lab "
                 f"tokens fit in {record['budget']:,}): the budget is not a freshness, scope, copy or conflict "
                 "check."},
        {"key": "exercise",
         "text": "Your exercise (exercises/practice.py): produce the decision table (task 4) - selection order, "
                 "a reason for every discarded candidate, the canonical dedupe, the conflict state and the final "
                 "packet - then answer (tasks 5 to 7):\n"
                 + "\n".join(f"{i}. {q}" for i, q in enumerate(record["questions"], start=1))},
    ]
    ref = record.get("reference")
    if ref is None:
        blocks.append({"key": "hint", "text": "Task 4's answer, the reference decision table, and the answers "
                                              "to these questions print only with --solution."})
        return blocks
    cf, rule = ref["conflict"], ref["with_declared_rule"]
    blocks += [
        {"key": "reference", "heading": "Reference decision table (--solution)"},
        table_block("decisions", "One decision per candidate, in rank order",
               "order: position in the packet ('-' = discarded); tokens: lab tokens of the candidate.",
               ["rank", "id", "decision", "reason", "order", "tokens"],
               [[d["rank"], d["id"], d["decision"], d["reason"], d["order"], d["tokens"]] for d in ref["decisions"]]),
        table_block("packet", f"The packet, in packet order ({ref['used_tokens']} of {ref['budget']:,} lab tokens)",
               "running total: lab tokens used once this candidate is in.",
               ["order", "id", "tokens", "running total"],
               [[p["order"], p["id"], p["tokens"], p["running_total"]] for p in ref["packet"]]),
        {"key": "dedupe",
         "text": f"Canonical dedupe ({ref['dedupe']['mechanism']}): " + "; ".join(
             f"{d['id']} is a copy of {d['kept_id']} ({d['matched']}), dropped" for d in ref["dedupe"]["dropped"])
            + ". " + "; ".join(f"{doc}: {', '.join(ids)} kept, distinct passages"
                               for doc, ids in ref["dedupe"]["kept_per_document"].items())
            + ". Chunks of one document are not copies of each other; a mirror of a passage is."},
        {"key": "conflict",
         "text": f"Conflict: {', '.join(f'''{a['id']} states {a['written']}''' for a in cf['amounts'])}; state "
                 f"{cf['state']}, kept {', '.join(cf['kept'])}. No declared rule: both stay as disputed "
                 f"evidence, the answer gives no single amount, and the sources go to content review."},
        {"key": "selection",
         "text": f"Selection order and final packet: {', '.join(ref['selection_order'])}. A2 ranked last by "
                 f"similarity but enters right after A1: an exception travels with its conclusion."},
        {"key": "declared-rule",
         "text": f"With a rule declared in advance ({' over '.join(rule['rule'][0])}): conflict "
                 f"{rule['conflict_state']}, packet {', '.join(rule['packet'])}, discarded "
                 + ", ".join(f"{k} ({v})" for k, v in rule["discarded"].items()) + "."},
    ]
    blocks += [{"key": f"answer-{i}", "text": f"{i}. {q} {a}"}
               for i, (q, a) in enumerate(zip(record["questions"], ref["answers"]), start=1)]
    return blocks
