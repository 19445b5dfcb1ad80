"""Lesson 10's trace and view: what `python3 -B methods.py answer` prints.

The mechanism and the fixture are in modules/answer/mechanism.py, whose trace() and view() call
these. Every answer shown here passed the output schema check first.
"""

from __future__ import annotations

from modules.answer.mechanism import (CONFLICT_BUDGET, CONFLICT_CANDIDATES, CORPUS, DEFAULT_BUDGETS, FACETS,
                                      NO_ANSWER_CAUSES, OUTCOMES, OUTPUT_RESERVE, QUERIES, SOURCE_TEXTS, Answer,
                                      Sentence, answer_output, check_citations, check_output, classify_outcome,
                                      compose_answer, is_grounded, no_answer_cause, run_query, shown_answer)
from modules.common.facets import declared_facets
from modules.context import CANDIDATES, QUESTION, ContextRecord, select_context
from modules.context.trace import conflict_row, selection
from modules.common.tables import table_block

OUTCOME_LABELS = {"right": "right source, right answer", "wrong_record": "right source, wrong record",
                  "wrong_source": "wrong source", "no_answer": "no answer"}


def _answer_record(answer: Answer, packet: ContextRecord) -> dict:
    ids, output = packet.handed_ids, answer_output(answer)
    problems = check_output(output)
    return {"max_quote_chars": packet.max_quote_chars, "packet_ids": list(packet.packet_ids),
            "unresolved": [conflict_row(c) for c in packet.unresolved],
            "used_quote_chars": packet.used_quote_chars, **output,
            "citations": check_citations(answer, ids, SOURCE_TEXTS), "grounded": is_grounded(answer, ids, SOURCE_TEXTS),
            "schema_problems": problems, "shown": None if problems else shown_answer(output)}


def _forged_citations(packet_ids) -> list[dict]:
    """An honest sentence, one citing an id the packet lacks, one quoting words its source never said."""
    hours, returns = SOURCE_TEXTS["hours-v2"], SOURCE_TEXTS["returns-v1"]
    cases = ("honest quote", "cites an id the packet lacks", "quote its source never said")
    forged = Answer("full", (Sentence("claim", returns, returns, "returns-v1"), Sentence("claim", hours, hours, "hours-v2"),
                             Sentence("claim", "", returns.replace("north", "south"), "returns-v1")))
    checks = check_citations(forged, packet_ids, SOURCE_TEXTS)
    return [{"case": case, **check} for case, check in zip(cases, checks)]


def _malformed(good: dict) -> list[dict]:
    """Outputs an answer writer could hand over, each breaking the schema in one way."""
    claim = good["sentences"][0]
    cases = [
        ("a claim without a citation", dict(good, sentences=[dict(claim, cite="", quote="")])),
        ("a status the schema lacks", dict(good, status="done")),
        ("full, yet a facet is missing", dict(good, missing=["opening hours"])),
        ("cite given as a list", dict(good, sentences=[dict(claim, cite=[claim["cite"]])])),
        ("a field missing, one undeclared", {k: v for k, v in dict(good, confidence=0.9).items() if k != "disputed"}),
    ]
    return [{"case": case, "problems": check_output(output)} for case, output in cases]


def _evaluate() -> dict:
    rows = []
    for query in QUERIES:
        name, asks = query.sub_question
        packet, answer, final_input, fits = run_query(query)
        outcome = classify_outcome(answer, query.gold_id, CORPUS)
        skipped = [CORPUS[pid] for pid in packet.budget_skipped_ids]
        checks = check_citations(answer, packet.handed_ids, SOURCE_TEXTS)
        citations = "none" if not checks else "ok" if all(c["present"] and c["supported"] for c in checks) \
            else "failed"
        rows.append({"query": query.id, "asks": name, "question": asks, "situation": query.situation,
                     "ranking": list(query.ranking), "max_quote_chars": query.max_quote_chars,
                     "packet_ids": list(packet.packet_ids),
                     "conflicts": [c.source_id for c in packet.unresolved], "final_input": final_input,
                     "window": query.window, "fits_window": fits, "cited": list(answer.cited_ids),
                     "gold_id": query.gold_id,
                     "citations": citations, "outcome": outcome, "schema_problems": check_output(answer_output(answer)),
                     "cause": no_answer_cause(answer, skipped, declared_facets((query.sub_question,)), fits)
                     if outcome == "no_answer" else ""})
    counts = {k: sum(r["outcome"] == k for r in rows) for k in OUTCOMES}
    causes = {cause: sum(r["cause"] == cause for r in rows) for cause in NO_ANSWER_CAUSES}
    return {"queries": rows, "counts": counts, "no_answer_causes": causes,
            "citations": {k: sum(r["citations"] == k for r in rows) for k in ("ok", "failed", "none")},
            "accuracy": f"{counts['right']}/{len(rows)}", "reserve": OUTPUT_RESERVE}


def trace() -> dict:
    """The answer stage over lesson 01's budgets, one version conflict, forged citations, a
    schema check and a query set."""
    runs, selections = [], []
    for budget in DEFAULT_BUDGETS:
        packet = select_context(CANDIDATES, budget)
        selections.append(selection(CANDIDATES, packet))
        runs.append(_answer_record(compose_answer(FACETS, packet.packet, packet.unresolved), packet))
    packet = select_context(CONFLICT_CANDIDATES, CONFLICT_BUDGET)
    selections.append(selection(CONFLICT_CANDIDATES, packet))
    conflict = _answer_record(compose_answer(FACETS, packet.packet, packet.unresolved), packet)
    conflict["candidates"] = [p.id for p in CONFLICT_CANDIDATES]
    conflict["lesson01_conflicts"] = {k: list(v) for k, v in packet.conflicts.items()}
    for query in QUERIES:
        record = run_query(query)[0]
        selections.append(selection([CORPUS[i] for i in query.ranking], record))
    full = {k: runs[-1][k] for k in ("status", "sentences", "missing", "disputed")}
    return {"lesson": "answer", "question": QUESTION,
            "facets": [{"name": f.name, "asks": f.asks, "terms": list(f.terms)} for f in FACETS],
            "runs": runs, "conflict": conflict, "citation_check": _forged_citations(runs[1]["packet_ids"]),
            "schema_check": _malformed(full), "outcomes": _evaluate(), "outcome_labels": dict(OUTCOME_LABELS),
            "selections": selections}


# ---------------------------------------------------------------- the view

def _ids(ids) -> str:
    return ", ".join(ids) or "-"


def _checks(run: dict) -> str:
    failed = (["schema"] if run["schema_problems"] else []) + ([] if run["grounded"] else ["grounding"])
    return ", ".join(failed) + " failed" if failed else "ok"


def _answer_blocks(record: dict) -> list[dict]:
    c = record["conflict"]
    return [
        table_block(
            "facets", "The question's declared sub-questions (facets)",
            "asks: the declared sub-question; terms: read from it by lesson 02's facet rule; a passage "
            "answers a facet when it holds all of them. Never hand-picked phrases, never the labels.",
            ["facet", "asks", "terms"],
            [[f["name"], f["asks"], " ".join(f["terms"])] for f in record["facets"]]),
        table_block(
            "runs", "The template answer over lesson 01's packets",
            "budget: max_quote_chars; missing: facets the packet does not answer; cited: ids the "
            "answer cites; checks: 'ok' when the output passed the schema check (run before anything "
            "is shown) and every citation is present in the packet and supported by its source, "
            "else which check failed.",
            ["budget", "status", "missing", "cited", "checks"],
            [[r["max_quote_chars"], r["status"], _ids(r["missing"]), _ids(x["cite"] for x in r["citations"]),
              _checks(r)] for r in record["runs"]]),
        *({"key": f"answer-{r['max_quote_chars']}",
           "text": f"At {r['max_quote_chars']}, packet {_ids(r['packet_ids'])} ({r['status']}): {r['shown']}"}
          for r in record["runs"]),
        {"key": "conflict-heading", "heading": "A version conflict: present both, choose neither"},
        {"key": "conflict", "text":
            f"Lesson 04's candidates, where hours-v1 was left marked current beside hours-v2, at "
            f"{c['max_quote_chars']} characters: {_ids(c['candidates'])}. select_context blocks "
            + _ids(f"{k} (versions {', '.join(v)})" for k, v in c["lesson01_conflicts"].items())
            + ": neither source enters as evidence, as in lesson 04. Packet "
            + _ids(c["packet_ids"]) + f" ({c['used_quote_chars']} chars), the same as lesson 04's at "
            f"{c['max_quote_chars']}; beside it the packet carries each conflict, unresolved, with both "
            "quotes. The answer stage reads the conflict on the facet it needs, shows both quotes and "
            "gives neither value."},
        {"key": "conflict-answer", "text": f"Answer ({c['status']}): {c['shown']}"},
    ]


def _check_blocks(record: dict) -> list[dict]:
    return [
        {"key": "citation-heading", "heading": "Citation check: presence is not support"},
        table_block(
            "citation-check", "One-sentence answers checked against the 120-character packet (returns-v1)",
            "present in packet: the cited id was handed to the answer stage; quote in the source: the "
            "quoted words occur in the cited source's own text.",
            ["case", "cites", "present in packet", "quote in the source"],
            [[r["case"], r["cite"], r["present"], r["supported"]] for r in record["citation_check"]]),
        {"key": "schema-heading", "heading": "Output schema: checked before display"},
        {"key": "schema-check", "text":
            "The answer is handed over as a declared JSON object (status, sentences of kind, text, quote and "
            "cite, missing, disputed) and shown only when code finds nothing wrong with it. Five outputs a "
            "writer could hand over instead of the full answer at 400, each refused:\n"
            + "\n".join(f"- {r['case']}: {'; '.join(r['problems'])}" for r in record["schema_check"])},
    ]


def _outcome_blocks(o: dict, labels: dict) -> list[dict]:
    queries = o["queries"]
    small = next(q for q in queries if not q["fits_window"])
    rows = [[labels[k], v] for k, v in o["counts"].items() if k != "no_answer"]
    rows += [[f"{labels['no_answer']}: {cause}", n] for cause, n in o["no_answer_causes"].items() if n]
    return [
        {"key": "outcomes-heading", "heading": "Four outcomes a single accuracy hides"},
        table_block(
            "queries", "A small query set, each asking one sub-question",
            "q: the query; asks: the facet it asks about; budget: max_quote_chars (characters of "
            "quote text); packet: the evidence lesson 01's selector handed on (a blocked source is "
            "carried beside it as a conflict, never as evidence: q6 carries help-desk-hours).",
            ["q", "asks", "situation", "budget", "packet"],
            [[q["query"], q["asks"], q["situation"], q["max_quote_chars"], _ids(q["packet_ids"])]
             for q in queries]),
        table_block(
            "outcomes", "What each answer cites, against the evaluation label",
            f"q: the query; cited: the ids its answer cites; gold: the record that answers the query "
            f"(an evaluation label, unseen by the answer stage); cites: ok, failed, or none when "
            f"nothing is cited; window: whether the recounted request plus the {o['reserve']} lab "
            f"tokens reserved for the answer fits the query's window (fits or over).",
            ["q", "cited", "gold", "cites", "window", "outcome"],
            [[q["query"], _ids(q["cited"]), q["gold_id"], q["citations"],
              "fits" if q["fits_window"] else "over", q["outcome"] + (q["cause"] and f": {q['cause']}")]
             for q in queries]),
        table_block(
            "counts", "Counted apart",
            "queries: how many of the query set end that way.",
            ["outcome", "queries"],
            rows),
        {"key": "summary", "text":
            f"Accuracy alone: {o['accuracy']}. Citations are ok on {o['citations']['ok']}, failed on "
            f"{o['citations']['failed']}, and {o['citations']['none']} answers cite nothing, counted on their own. "
            f"The stale record of the right source (q3) and the similar wrong source (q4) are quoted faithfully "
            f"and still answer wrongly. The four no-answers have four causes: q5's only passage was skipped by "
            f"the budget, then the answer stage abstained (not an overflow); q6's sources disagree; "
            f"{small['query']}'s request, recounted, is {small['final_input']} lab tokens and with the reserve "
            f"needs {small['final_input'] + o['reserve']} of a {small['window']} window, so no answer stage ran; "
            f"q8's packet holds nothing on it. Each needs a different fix, which one number cannot say."},
    ]


def view(record: dict) -> list[dict]:
    """Printable blocks, each with a key."""
    return [
        {"key": "heading", "heading": "Lesson 10 - answer: an honest, inspectable answer stage"},
        {"key": "intro", "text": "What this shows: a template answer built only from packet quotes at lesson "
                                 "01's three budgets (abstain, partial, full); a version conflict shown, not "
                                 "settled; citations checked for presence and support; the output schema; and "
                                 "eight queries counted by outcome, each no-answer by its cause."},
        {"key": "question", "text": "Question: " + record["question"]},
        *_answer_blocks(record),
        *_check_blocks(record),
        *_outcome_blocks(record["outcomes"], record["outcome_labels"]),
    ]
