"""Lesson 02's trace and view: what `python3 -B methods.py budget` prints.

The mechanism and the fixture are in modules/budget/mechanism.py, whose trace() and view() call
these. The coverage labels are read through that module at call time, so a test that
swaps them sees its own.
"""

from __future__ import annotations

from modules.budget import mechanism as lesson
from modules.budget.mechanism import (COVERAGE_BUDGET, COVERAGE_FACETS, COVERAGE_QUESTION, COVERAGE_RANKED, NON_ASCII,
                            OVERFULL, PLANS, POLICIES, RANKED, REQUESTS, SKIP_BUDGET, SKIP_BUDGET_LAB_TOKENS, SWEEP_KS,
                            WINDOW_TOKENS, WORKED, WORKED_FINAL_INPUT, BudgetWalk, RankedPassage, chunks_that_fit,
                            evidence_budget, facets_covered, fill_budget, request_fits, select_for_coverage,
                            topk_sweep, window_bar)
from modules.common.units import chars, lab_tokens, utf8_bytes
from modules.common.tables import table_block

LAB_TOKEN_NOTE = ("A lab token is a teaching unit (whitespace pieces, each ceil(len/5)), not a model token. "
                  "A real model adapter counts the whole input with the model's own tokenizer and reserves "
                  "room for the output; the lab ships no tokenizer and never converts units with a ratio.")
BAR_WIDTH = 40
# Published simulator figures the lesson echoes (not recomputed here: another fixture, another unit).
PUBLISHED = {"window": 240, "queries": 40, "average_chunks_that_fit": 13.4, "k": 11, "overflows": 6,
             "average": 206.4, "largest": 246}


def _walk_record(walk: BudgetWalk, originals: dict[str, RankedPassage], counter) -> dict:
    steps, running, stopped = [], 0, False
    kept = {c.id: c for c in walk.kept}
    for rank, chunk in enumerate(originals.values(), start=1):
        size = counter(chunk.text)
        if chunk.id in kept:
            running += counter(kept[chunk.id].text)
            decision = "cut to fit" if chunk.id in walk.cut_ids else "kept"
        elif stopped:
            decision = "never considered"
        elif chunk.id == walk.stopped_at:
            decision, stopped = "does not fit: walk stops", True
        else:
            decision = "skipped: does not fit"
        steps.append({"rank": rank, "id": chunk.id, "size": size, "decision": decision, "running_total": running})
    record = {"policy": walk.policy, "unit": walk.unit, "budget": walk.budget, "used": walk.used,
              "kept_ids": list(walk.kept_ids), "skipped_ids": list(walk.skipped_ids), "steps": steps}
    for chunk_id in walk.cut_ids:
        record["cut"] = {"id": chunk_id, "handed_on": kept[chunk_id].text,
                         "lost": originals[chunk_id].text[len(kept[chunk_id].text):]}
    return record


def _window() -> dict:
    plans = []
    for label, plan in PLANS:
        row = dict(label=label, **plan, evidence=evidence_budget(**plan))
        row["evidence_taken_by_history_and_tools"] = plan["history"] + plan["tools"]
        plans.append(row)
    try:
        evidence_budget(**OVERFULL)
    except ValueError as error:
        overfull = {"history": OVERFULL["history"], "error": f"ValueError: {error}"}
    else:  # pragma: no cover - OVERFULL is built to overflow
        raise AssertionError("OVERFULL should not fit")
    return {
        "unit": "lab_tokens",
        "equation": "window = base_input + history + tools + evidence + output_reserve + margin",
        "base_input_holds": "system text, question and message wrapping",
        "test_settings": {"window": WORKED["window"], "output_reserve": WORKED["output_reserve"]},
        "plans": plans,
        "negative_remainder": overfull,
        "final_input": WORKED_FINAL_INPUT,
        "final_input_holds": "system text, question, chat template, source headers, wrappers and evidence",
        "final_input_plus_reserve": WORKED_FINAL_INPUT + WORKED["output_reserve"],
        "fits": request_fits(WORKED_FINAL_INPUT, WORKED["output_reserve"], WORKED["window"]),
    }


def _sweep() -> dict:
    fits = [chunks_that_fit(r, WINDOW_TOKENS) for r in REQUESTS]
    return {
        "unit": "lab_tokens",
        "window": WINDOW_TOKENS,
        "requests": [{"id": r.id, "base": r.base_tokens, "chunk_tokens": list(r.chunk_tokens),
                      "chunks_that_fit": fit, "prompt_at_fit": r.base_tokens + sum(r.chunk_tokens[:fit])}
                     for r, fit in zip(REQUESTS, fits)],
        "average_chunks_that_fit": round(sum(fits) / len(fits), 1),
        "fewest_chunks_that_fit": min(fits),
        "rows": topk_sweep(REQUESTS, WINDOW_TOKENS, SWEEP_KS),
    }


def _coverage() -> dict:
    covers = {c.id: facets_covered(COVERAGE_FACETS, c.text) for c in COVERAGE_RANKED}
    walk = fill_budget(COVERAGE_RANKED, COVERAGE_BUDGET)
    chosen = select_for_coverage(COVERAGE_RANKED, COVERAGE_FACETS, COVERAGE_BUDGET)
    labels = lesson.COVERAGE_LABELS
    seen, repeats = set(), []   # kept by the walk although an earlier kept chunk covers the same
    for cid in walk.kept_ids:
        repeats += [cid] if covers[cid] and set(covers[cid]) <= seen else []
        seen.update(covers[cid])
    step = {cid: number for number, cid in enumerate(chosen.pick_order, start=1)}
    return {
        "question": COVERAGE_QUESTION, "budget": COVERAGE_BUDGET, "unit": "chars",
        "facets": [{"name": f.name, "asks": f.asks, "terms": list(f.terms)} for f in COVERAGE_FACETS],
        "ranked": [{"rank": rank, "id": c.id, "chars": chars(c.text), "covers": list(covers[c.id]),
                    "walk": "kept" if c.id in walk.kept_ids else "skipped", "pick": step.get(c.id)}
                   for rank, c in enumerate(COVERAGE_RANKED, start=1)],
        "walk": {"kept_ids": list(walk.kept_ids), "used": walk.used,
                 "covered": [f.name for f in COVERAGE_FACETS if f.name in seen], "repeats": repeats,
                 "missed": [cid for cid in walk.skipped_ids if set(covers[cid]) - seen],
                 "labelled_in_packet": f"{len(set(walk.kept_ids) & set(labels))}/{len(labels)}"},
        "coverage_aware": {"kept_ids": list(chosen.kept_ids), "used": chosen.used, "covered": list(chosen.covered),
                           "pick_order": list(chosen.pick_order),
                           "labelled_in_packet": f"{len(set(chosen.kept_ids) & set(labels))}/{len(labels)}"},
        "labels": {"relevant_ids": sorted(labels), "note": "for evaluation only: neither selection reads them"},
    }


def trace() -> dict:
    """Every figure of the lesson as one JSON-ready record."""
    originals = {c.id: c for c in RANKED}
    walks = [_walk_record(fill_budget(RANKED, SKIP_BUDGET, chars, policy), originals, chars) for policy in POLICIES]
    in_tokens = _walk_record(fill_budget(RANKED, SKIP_BUDGET_LAB_TOKENS, lab_tokens), originals, lab_tokens)
    return {
        "lesson": "budget",
        "ranked": [{"rank": rank, "id": c.id, "chars": len(c.text), "lab_tokens": lab_tokens(c.text)}
                   for rank, c in enumerate(RANKED, start=1)],
        "walks": walks,
        "walk_in_lab_tokens": in_tokens,
        "window": _window(),
        "sweep": _sweep(),
        "units": {"id": NON_ASCII.id, "text": NON_ASCII.text, "chars": chars(NON_ASCII.text),
                  "utf8_bytes": utf8_bytes(NON_ASCII.text), "lab_tokens": lab_tokens(NON_ASCII.text),
                  "note": LAB_TOKEN_NOTE},
        "coverage": _coverage(),
    }


# ---------------------------------------------------------------- the view

def _ids(ids) -> str:
    return ", ".join(ids) or "(none)"


def _walk_blocks(record: dict) -> list[dict]:
    walks = record["walks"]
    blocks = [
        table_block(
            "ranked", "Ranked evidence",
            "rank: 1 = best; chars: len() of the text; lab tokens: see the last table.",
            ["rank", "id", "chars", "lab tokens"],
            [[c["rank"], c["id"], c["chars"], c["lab_tokens"]] for c in record["ranked"]]),
        table_block(
            "policies", f"One input, three policies, budget {walks[0]['budget']} chars",
            "kept: handed on (a cut chunk counts as kept); skipped or not reached: left out whole; "
            "used: chars handed on.",
            ["policy", "kept", "skipped or not reached", "used"],
            [[w["policy"], _ids(w["kept_ids"]), _ids(w["skipped_ids"]), w["used"]] for w in walks]),
    ]
    short = {"kept": "kept", "cut to fit": "cut", "skipped: does not fit": "skipped",
             "does not fit: walk stops": "stops here", "never considered": "not reached"}
    unit = walks[0]["unit"]
    blocks.append(table_block(
        "policy-steps", "Each chunk under each policy, in rank order",
        f"{unit}: the chunk's size; each policy column: the decision, then the running total of {unit} "
        f"handed on. kept: whole; cut: handed on cut to the room left; skipped: left out whole, the "
        f"walk goes on; stops here: the first misfit ends the walk; not reached: after a stop.",
        ["rank", "id", unit] + [w["policy"] for w in walks],
        [[step["rank"], step["id"], step["size"]]
         + [f"{short[w['steps'][i]['decision']]} {w['steps'][i]['running_total']}" for w in walks]
         for i, step in enumerate(walks[0]["steps"])]))
    cut = next(w["cut"] for w in walks if "cut" in w)
    blocks.append({"key": "truncation", "text": f"What truncation handed on as {cut['id']}:\n  \"{cut['handed_on']}\"\n"
                   f"What it dropped:\n  \"{cut['lost']}\"\nThe cut quote says every loan laptop may go home; "
                   f"the source says the reference-room ones may not. Skipping keeps the evidence true; that "
                   f"a lower-ranked chunk survives is the declared policy, not proof that it is better evidence."})
    tokens = record["walk_in_lab_tokens"]
    blocks.append({"key": "counter", "text": f"The counter is a parameter: the same skip walk in lab tokens with "
                   f"a budget of {tokens['budget']} keeps {', '.join(tokens['kept_ids'])} and skips "
                   f"{', '.join(tokens['skipped_ids'])} ({tokens['used']} lab tokens used)."})
    return blocks


def _window_blocks(window: dict) -> list[dict]:
    worked, other = window["plans"][0], window["plans"][1]
    settings = window["test_settings"]
    return [
        {"key": "equation", "text": f"The window equation, in lab tokens: {window['equation']}, where base "
                                    f"input is the {window['base_input_holds']}. Every term is declared, even "
                                    f"when it is 0; evidence is what remains."},
        table_block(
            "plans", "Evidence budget from its parts (lab tokens)",
            f"All in lab tokens. base input: {window['base_input_holds']}; reserve: the output "
            f"reserve, room kept for the answer; evidence: the window minus every other "
            f"term. A follow-up turn adds history and tool schemas; the last plan also keeps a margin "
            f"for counting error. A window of {settings['window']:,} and a reserve of "
            f"{settings['output_reserve']} are this lesson's test settings, not any model's capacity.",
            ["plan", "window", "base input", "history", "tools", "reserve", "margin", "evidence"],
            [[p["label"], p["window"], p["base_input"], p["history"], p["tools"], p["output_reserve"],
              p["margin"], p["evidence"]] for p in window["plans"]]),
        {"key": "worked-example", "text":
            f"Worked example: {worked['window']:,} - {worked['base_input']} - {worked['output_reserve']} = "
            f"{worked['evidence']} for evidence. History and tool schemas take "
            f"{other['evidence_taken_by_history_and_tools']} of that room on a follow-up turn ({other['evidence']} "
            f"left); leaving them out of the sum would promise evidence room that is not there.\n"
            f"Once assembled, the whole request is counted again as one text ({window['final_input_holds']}): "
            f"that final input is {window['final_input']}, and {window['final_input']} + reserve {worked['output_reserve']} = {window['final_input_plus_reserve']}, "
            f"within {worked['window']:,}: {'fits' if window['fits'] else 'overflows'}. {window['final_input']} is "
            f"the whole input, not the evidence alone; the recount exists because an estimate made before "
            f"assembly misses the template and the wrappers."},
        {"key": "negative", "text": f"With history {window['negative_remainder']['history']} the remainder is "
                                    f"negative. The lab raises instead of calling it 0 (caught here to show the "
                                    f"message):"},
        {"key": "negative-error", "text": window["negative_remainder"]["error"]},
    ]


def _sweep_blocks(sweep: dict) -> list[dict]:
    scale = max(row["largest"] for row in sweep["rows"])
    first = next(row for row in sweep["rows"] if row["overflows"])
    return [
        table_block(
            "topk", f"Top-k over {len(sweep['requests'])} requests, window {sweep['window']} lab tokens",
            f"average, largest: prompt size (base input + top k chunks) in lab tokens; overflows: "
            f"requests over the window. Bar: the largest prompt on a scale of 0 to {scale}, "
            f"{BAR_WIDTH} cells: '#' inside the window, '|' the window edge ({sweep['window']}), "
            f"'!' beyond it (overflow), '.' unused scale.",
            ["k", "average", "largest", "overflows", "largest vs window"],
            [[row["k"], f"{row['average']:.1f}", row["largest"], f"{row['overflows']}/{row['requests']}",
              window_bar(row["largest"], sweep["window"], scale, BAR_WIDTH)] for row in sweep["rows"]]),
        table_block(
            "fits", "How many chunks fit each request",
            f"base: system prompt and question in lab tokens; chunks: the ranked chunks' sizes; fit: "
            f"the largest k whose prompt stays within {sweep['window']}; prompt: its size at that k.",
            ["request", "base", "chunks", "fit", "prompt"],
            [[r["id"], r["base"], " ".join(str(s) for s in r["chunk_tokens"]), r["chunks_that_fit"],
              r["prompt_at_fit"]] for r in sweep["requests"]]),
        {"key": "topk-note", "text":
            f"On average {sweep['average_chunks_that_fit']} chunks fit: the mean of the fit column, each "
            f"request's own largest k. That mean is no safe k: the tightest request fits only "
            f"{sweep['fewest_chunks_that_fit']}, and at k={first['k']} the average prompt ({first['average']}) is "
            f"well inside {sweep['window']} while the largest ({first['largest']}) overflows. An overflowing "
            f"request returns no answer and counts as wrong: size k for the largest request, not the average. "
            f"A published simulator shows the same at scale: with a {PUBLISHED['window']}-token window and "
            f"{PUBLISHED['queries']} queries about {PUBLISHED['average_chunks_that_fit']} chunks fit on average, "
            f"yet at k={PUBLISHED['k']}, {PUBLISHED['overflows']} of the {PUBLISHED['queries']} requests overflow "
            f"(average {PUBLISHED['average']}, largest {PUBLISHED['largest']})."},
    ]


def _coverage_blocks(cov: dict) -> list[dict]:
    walk, aware = cov["walk"], cov["coverage_aware"]
    facets = "\n".join(f"  {f['name']}: \"{f['asks']}\" (terms: {', '.join(f['terms'])})" for f in cov["facets"])
    return [
        {"key": "coverage-heading", "heading": "The objective: cover the question, not the ranking"},
        {"key": "coverage-question", "text": f"Question: {cov['question']}"},
        table_block(
            "coverage-facets", "Its declared sub-questions (facets)",
            "terms: the sub-question's content words after the facet rule (case folded, function "
            "words dropped, one plain suffix stripped); a text covers a facet when it holds them all.",
            ["facet", "asks", "terms"],
            [[f["name"], f["asks"], ", ".join(f["terms"])] for f in cov["facets"]]),
        {"key": "coverage-labels", "text": "Labels, for evaluation only (neither selection reads them): "
                                           + ", ".join(cov["labels"]["relevant_ids"])},
        table_block(
            "coverage-ranked", f"A ranking that favours the laptops, budget {cov['budget']} chars",
            "covers: the facets whose terms the text holds; rank walk: the skip walk above; pick: "
            "the step at which the coverage-aware choice took the chunk, most new facets per char "
            "first, ties to the better rank (- = not taken).",
            ["rank", "id", "chars", "covers", "rank walk", "pick"],
            [[c["rank"], c["id"], c["chars"], ", ".join(c["covers"]) or "-", c["walk"], c["pick"]]
             for c in cov["ranked"]]),
        table_block(
            "coverage-compare", "Same budget, two objectives",
            "used: chars of the packet; facets: sub-questions covered; labelled: labelled chunks in "
            "the packet (evaluation only).",
            ["selection", "packet", "used", "facets", "labelled"],
            [[name, _ids(s["kept_ids"]), s["used"], f"{len(s['covered'])}/{len(cov['facets'])}",
              s["labelled_in_packet"]] for name, s in (("rank walk", walk), ("coverage", aware))]),
        {"key": "coverage-note", "text":
            f"The rank walk keeps {_ids(walk['repeats'])} although an earlier chunk already answers the same "
            f"sub-question, so {_ids(walk['missed'])} no longer fits and the walk covers "
            f"{len(walk['covered'])} of {len(cov['facets'])} sub-questions. The coverage-aware choice is budgeted "
            f"maximum coverage, solved greedily by new facets per char: it covers {len(aware['covered'])} of {len(cov['facets'])} with "
            f"{aware['used']} of the same {cov['budget']} chars. It stops when no chunk adds a facet; filling the "
            f"rest would be a second, declared step. Its facets come from the question's own sub-questions, never "
            f"from the labels, and a facet is only as good as its terms: a passage can hold the words and still "
            f"not answer."},
    ]


def view(record: dict) -> list[dict]:
    """The trace as printable blocks, each with a key."""
    units = record["units"]
    return [
        {"key": "heading", "heading": "Lesson 02 - budget: keep the units explicit"},
        {"key": "plan", "text": "Four measurements, each in a declared unit: one ranked input under three "
                                "budget policies; the window equation that leaves room for evidence; a fixed "
                                "top-k against a window; one passage in three units. Then the objective: "
                                "cover the question's sub-questions, not the ranking."},
        *_walk_blocks(record),
        *_window_blocks(record["window"]),
        *_sweep_blocks(record["sweep"]),
        table_block(
            "units", "One passage, three units",
            "chars: Python len(), code points; UTF-8 bytes: the encoded length; lab tokens: "
            "whitespace pieces, each ceil(len/5).",
            ["id", "chars", "UTF-8 bytes", "lab tokens"],
            [[units["id"], units["chars"], units["utf8_bytes"], units["lab_tokens"]]]),
        {"key": "units-note", "text": f"\"{units['text']}\"\n{units['note']}"},
        *_coverage_blocks(record["coverage"]),
    ]
