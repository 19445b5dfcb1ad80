"""Lesson 05's trace() and view(): the experiments of experiments.py as a record and as blocks.

Every number is a property of the FICTIONAL reader simulator and its fictional water
utility's help documents, never of a real model.
"""

from __future__ import annotations

from modules.common.checks import whole_number
from modules.common.tables import table_block
from modules.order.experiments import (FRAMEWORKS, POLICIES, RETRIEVED, SECOND_RUN_J, budget_line, k_sweep,
                                       layout_experiment, one_question, policy_experiment, rankings)
from modules.order.reader import (POSITION_WEIGHTS, SHARE_FLOOR, TEMPERATURE, WINDOW, build_prompt, reader_chances,
                                  reader_scores)
from modules.order.simulator import DOCUMENTS, LABEL, SEED, build_fixture, is_relevant

EXAMPLE_QUERY, EXAMPLE_K = 0, 3  # the worked example: query 0's top 3 chunks

OPENING = ("What this shows, over 40 questions: more chunks raise recall yet lower right citations (k "
           "sweep); a relevant chunk in the middle is cited less than at the ends, against a run-to-run "
           "baseline (layouts); what the reorders do here.")
FICTION = ("An invented water utility's help documents, read by the published teaching simulator rebuilt "
           "from its specification; no figure describes a real model.")
COPIER = ("Lesson 01's quote copier has no position effect: it copies every chunk in order. That proves "
          "nothing about other readers. Liu et al., \"Lost in the Middle: How Language Models Use Long "
          "Contexts\" (TACL 2024) found accuracy highest with the answer at the start or end and lowest in "
          "the middle, for the models and tasks they tested (multi-document QA over 20 documents); a later "
          "model must be measured again, as this simulator is measured here.")
DECISION = ("The order of the context is a design decision: the packet records its policy (here: rank "
            "order, best first), or a measurement made on it cannot be repeated.")


def trace(seed: int = SEED) -> dict:
    """The whole lesson, read with reader seed `seed` (the fixture always uses SEED): the
    budget line, one reading, the k sweep over all 40 questions, one question laid out at
    j = 4, the layouts at j = 0, 2, 4 and 8 with their run-to-run baseline (seed + 1) and a
    second run at j = 4 (reader seed + 1, its baseline seed + 2), the reorder policies at
    k = 4 and 5 and the frameworks' reorders."""
    whole_number(seed, "seed")
    fixture = build_fixture()
    ranked = rankings(fixture)
    query, ranking = fixture.queries[EXAMPLE_QUERY], ranked[EXAMPLE_QUERY]
    layouts, second = layout_experiment(fixture, ranked, seed)
    return {
        "lesson": "order",
        "simulator": {"label": LABEL, "fiction": FICTION, "fixture_seed": fixture.seed, "reader_seed": seed,
                      "window_lab_tokens": WINDOW, "position_weights": dict(POSITION_WEIGHTS),
                      "share_floor": SHARE_FLOOR, "temperature": TEMPERATURE},
        "fixture": {"documents": len(fixture.documents), "chunks": len(fixture.chunks),
                    "queries": len(fixture.queries), "retrieved_per_query": RETRIEVED},
        "example": example(query, ranking),
        "budget": budget_line(fixture),
        "k_sweep": k_sweep(fixture, ranked, seed),
        "one_question": {"query": query.text, "j": SECOND_RUN_J,
                         "rows": one_question(query, ranking, SECOND_RUN_J, seed)},
        "layouts": layouts,
        "second_run": second,
        "policies": policy_experiment(fixture, ranked, seed),
        "frameworks": [dict(f, ten=POLICIES[f["same_as"]](range(1, 11)), four=POLICIES[f["same_as"]](range(1, 5)))
                       for f in FRAMEWORKS],
        "context_order": {"policy": "rank order", "recorded_in": "the packet", "note": DECISION},
        "copier": COPIER,
    }


def example(query, ranking) -> dict:
    """One query's top chunks as the reader sees them: place weight, share, score, chance."""
    prompt = build_prompt(query, ranking[:EXAMPLE_K])
    rows = []
    for place, (chunk, score, chance) in enumerate(zip(prompt.chunks, reader_scores(prompt),
                                                       reader_chances(prompt)), 1):
        rows.append({"place": place, "code": chunk.code, "text": chunk.text, "relevant": is_relevant(query, chunk),
                     "score": score, "chance": chance,
                     "weight": [POSITION_WEIGHTS["first"], POSITION_WEIGHTS["other"],
                                POSITION_WEIGHTS["last"]][0 if place == 1 else 2 if place == EXAMPLE_K else 1]})
    return {"query": query.text, "record": query.record, "concept": query.concept.key, "k": EXAMPLE_K,
            "tokens": prompt.tokens, "rows": rows}


def _f4(value: float) -> str:
    return f"{value:.4f}"


def _rule(record: dict) -> str:
    sim = record["simulator"]
    weights = sim["position_weights"]
    return (f"The reader: the prompt is an instruction, the chunks as '[CODE] text .' and the question. "
            f"Over {sim['window_lab_tokens']} lab tokens it overflows: no answer, counted wrong. Otherwise "
            f"each chunk scores its place's weight (first {weights['first']}, last {weights['last']}, others "
            f"{weights['other']}) x ({sim['share_floor']} + the share of the question's lab tokens in the "
            f"chunk), and one draw seeded with the reader seed ({sim['reader_seed']}) XOR the prompt's FNV-1a "
            f"hash picks a chunk with odds exp(score / {sim['temperature']}); it cites that chunk's code. "
            "Another order is another prompt, so another draw.")


def view(record: dict) -> list[dict]:
    """Turn the trace record into printable blocks; every block has a stable key."""
    sim, budget, ex = record["simulator"], record["budget"], record["example"]
    return [
        {"key": "title", "heading": "Lesson 05 - order: position is a hypothesis to measure"},
        {"key": "opening", "text": OPENING},
        {"key": "label", "text": f"{sim['label']}. {sim['fiction']}"},
        {"key": "rule", "text": _rule(record)},
        table_block(
            "example", f"One reading: the top {ex['k']} chunks for '{ex['query']}'",
            "weight: the place's weight; score = weight x (0.3 + share of the question's lab tokens "
            "in the chunk); chance: exp(score / 0.12), scaled to sum to 1; relevant: holds the "
            f"concept's phrase and the record word '{ex['record']}'. Prompt: {ex['tokens']} lab "
            "tokens. Texts: " + "; ".join(f"{r['place']} '{r['text']}'" for r in ex["rows"]) + ".",
            ["place", "code", "relevant", "weight", "score", "chance"],
            [[r["place"], r["code"], r["relevant"], f"{r['weight']:.2f}", _f4(r["score"]), _f4(r["chance"])]
             for r in ex["rows"]]),
        {"key": "budget", "text":
            f"Budget line: window {budget['window']}; instruction {budget['instruction']} + query "
            f"{budget['query']:.1f} + per chunk {budget['per_chunk']:.1f} tokens; chunks that fit "
            f"{budget['fit']:.1f}. (Lab tokens; query and per chunk are means over the "
            f"{record['fixture']['queries']} questions and the {record['fixture']['chunks']} chunks of "
            f"{DOCUMENTS} documents.)"},
        *_k_sweep(record),
        *_one_question(record),
        *_layouts(record),
        *_policies(record),
        {"key": "copier", "text": record["copier"]},
        {"key": "decision", "text": record["context_order"]["note"]},
    ]


def _k_sweep(record: dict) -> list[dict]:
    """The k sweep and what it shows: recall against generation, the window, the citation."""
    seed = record["simulator"]["reader_seed"]
    total = record["fixture"]["queries"]
    by_k = {row["k"]: row for row in record["k_sweep"]}
    first_overflow = next((row for row in record["k_sweep"] if row["overflow"]), None)
    steady = record["k_sweep"][0]["k"]   # the last k before the cited concept first moves
    for row in record["k_sweep"]:
        if row["cite_concept"] != by_k[1]["cite_concept"]:
            break
        steady = row["k"]
    window = ("No k overflows the window." if first_overflow is None else
              "The window collides with the largest request, not the average: at "
              f"k = {first_overflow['k']} the average prompt is {first_overflow['context_avg']:.1f} lab tokens "
              f"and the largest {first_overflow['largest']}, so {first_overflow['overflow']} of {total} overflow.")
    return [
        table_block(
            "k-sweep", f"k sweep: the top k in rank order (reader seed {seed})",
            f"avg and max: the prompt's size in lab tokens, mean and largest over the {total} questions. "
            f"over: prompts above the {WINDOW}-token window (no answer, counted wrong). The rest are "
            f"shares of the {total} questions: recall, a relevant chunk among the k; gen, the picked chunk "
            "is relevant; concept, it holds the question's concept; record, it holds the "
            "question's record word.",
            ["k", "avg", "max", "over", "recall", "gen", "concept", "record"],
            [[r["k"], f"{r['context_avg']:.1f}", r["largest"], r["overflow"], _f4(r["recall"]),
              _f4(r["generation"]), _f4(r["cite_concept"]), _f4(r["cite_record"])]
             for r in record["k_sweep"]]),
        {"key": "k-sweep-notes", "text":
            f"From k = 1 to 10 recall rises {_f4(by_k[1]['recall'])} -> {_f4(by_k[10]['recall'])} while "
            f"generation goes {_f4(by_k[1]['generation'])} -> {_f4(by_k[10]['generation'])}: every added chunk "
            f"is one more candidate to pick. {window} The cited concept stays {_f4(by_k[1]['cite_concept'])} "
            f"up to k = {steady} while the cited record falls with generation "
            f"({_f4(by_k[1]['cite_record'])} -> {_f4(by_k[10]['cite_record'])}): the reader finds the topic "
            "and picks a chunk with the wrong record word. The error is in the record, and only the citation "
            "shows it."},
    ]


def _one_question(record: dict) -> list[dict]:
    """The example question laid out at head, middle and tail: chance and picks with two seeds."""
    one = record["one_question"]
    seed = record["simulator"]["reader_seed"]
    rows = {row["layout"]: row for row in one["rows"]}

    def picked(read):
        return f"{read['code']} " + ("relevant" if read["relevant"] else "other")

    def hits(index):
        return sum(row["reads"][index]["relevant"] for row in one["rows"])

    return [
        table_block(
            "one-question", f"One question, '{one['query']}', laid out three ways",
            f"Its first relevant chunk and its first {one['j']} irrelevant ones, the relevant one at the "
            f"head, in the middle or at the tail. at: its place among the {one['j'] + 1}; chance: its "
            f"chance of being picked; seed {seed}, seed {seed + 1}: the code the reader picks with that "
            "seed, and whether it is the relevant chunk (relevant) or an irrelevant one (other).",
            ["layout", "at", "chance", f"seed {seed}", f"seed {seed + 1}"],
            [[r["layout"], r["place"], _f4(r["chance"]), picked(r["reads"][0]), picked(r["reads"][1])]
             for r in one["rows"]]),
        {"key": "one-question-notes", "text":
            f"The place alone moves the relevant chunk's chance ({_f4(rows['head']['chance'])} at the head, "
            f"{_f4(rows['middle']['chance'])} in the middle, {_f4(rows['tail']['chance'])} at the tail), yet "
            f"each layout is one draw: seed {seed} picks the relevant chunk in {hits(0)} of 3 layouts, seed "
            f"{seed + 1} in {hits(1)}. One question cannot tell an order effect from the reader's run-to-run "
            "variation; the layouts below take all the questions and a baseline."},
    ]


def _layouts(record: dict) -> list[dict]:
    """The layout experiment, its second run and the baseline it is judged against."""
    seed = record["simulator"]["reader_seed"]
    total = record["fixture"]["queries"]
    by_j = {row["j"]: row for row in record["layouts"]}
    second = record["second_run"]
    j = second["j"]
    return [
        table_block(
            "layouts", f"Layouts: one relevant chunk and j irrelevant ones (reader seed {seed})",
            "head: the relevant chunk first; middle: after the first j // 2 irrelevant ones; tail: "
            f"last. head, middle, tail: generation, the share of the {total} questions whose picked chunk "
            "is relevant. moved mid, moved tail: the share whose picked chunk (the same chunk, not "
            f"the same code) differs from head's, same seed. reseed: head read with seed {seed + 1} "
            f"against seed {seed}, the run-to-run baseline. > base: each move exceeds it (mid/tail).",
            ["j", "head", "middle", "tail", "moved mid", "moved tail", "reseed", "> base"],
            [[r["j"], _f4(r["head"]), _f4(r["middle"]), _f4(r["tail"]), _f4(r["change_middle"]),
              _f4(r["change_tail"]), _f4(r["run_to_run"]),
              "/".join("yes" if r[f] else "no" for f in ("middle_exceeds", "tail_exceeds"))]
             for r in record["layouts"]]),
        {"key": "second-run", "text":
            f"Second run, seed {second['seed']}, j = {j}: head {_f4(second['head'])}, middle "
            f"{_f4(second['middle'])}, tail {_f4(second['tail'])}; moved to the middle "
            f"{_f4(second['change_middle'])} against a run-to-run baseline of {_f4(second['run_to_run'])} "
            f"(seed {second['baseline_seed']})."},
        {"key": "baseline", "text":
            f"The run-to-run column is large in this simulator: at j = {j} the next seed alone moves "
            f"{_f4(by_j[j]['run_to_run'])} of the picks. An order effect is judged against that, never "
            f"against zero: at j = {j} the middle moves {_f4(by_j[j]['change_middle'])} with seed {seed} and "
            f"{_f4(second['change_middle'])} with seed {second['seed']}, against {_f4(by_j[j]['run_to_run'])} "
            f"and {_f4(second['run_to_run'])}: "
            + ("an order effect on both seeds." if by_j[j]["middle_exceeds"] and second["middle_exceeds"]
               else "not an order effect on both seeds.")
            + " A move under the baseline is none, however far from zero (the > base column)."
            + (" With j = 0 every layout is the same prompt, so nothing moves." if 0 in by_j else "")},
    ]


def _policies(record: dict) -> list[dict]:
    """The reorder policies measured, then what the frameworks' reorders do."""
    seed = record["simulator"]["reader_seed"]
    total = record["fixture"]["queries"]
    return [
        table_block(
            "policies", f"Reorder policies over the same top k (reader seed {seed})",
            "order: the ranks placed first to last (1 = best); best at: the place the best chunk "
            f"gets; gen: the share of the {total} questions whose picked chunk is relevant.",
            ["k", "policy", "order", "best at", "gen"],
            [[r["k"], r["policy"], " ".join(map(str, r["order"])), r["best_at"], _f4(r["generation"])]
             for r in record["policies"]]),
        table_block(
            "frameworks", "What the frameworks' reorders do to ten and four items (ranks, 1 = best)",
            "framework: the component, in the version whose source was read: LangChain's and "
            "LlamaIndex's LongContextReorder order like the parity variant, Haystack's "
            "LostInTheMiddleRanker like the lab's lost in the middle.",
            ["framework", "version read", "ten items", "four"],
            [[f["name"].split()[0], f["version"], " ".join(map(str, f["ten"])), " ".join(map(str, f["four"]))]
             for f in record["frameworks"]]),
        {"key": "policy-notes", "text":
            "Lost in the middle puts the best first and the second best last, alternating inward. The parity "
            "variant sorts ascending and alternates from the front, so for an even count the best lands last, "
            "where this reader's weight is 0.8 instead of 1.0; for an odd count the two orders coincide. "
            + _policy_finding(record["policies"])
            + " Another reader needs its own measurement."},
    ]


def _policy_finding(rows: list) -> str:
    """What the policies table measured: each k's generation, then what placing the best last
    cost where the two reorders differ, and whether any reorder beat rank order."""
    by_k = {}
    for row in rows:
        by_k.setdefault(row["k"], {})[row["policy"]] = row
    sentences = [f"At k = {k}: " + ", ".join(f"{name} {_f4(row['generation'])}" for name, row in by_k[k].items())
                 + "." for k in sorted(by_k)]
    for k in sorted(by_k):
        first, last = by_k[k]["lost in the middle"], by_k[k]["parity variant"]
        if first["order"] != last["order"]:
            cost = round(first["generation"] - last["generation"], 9)
            effect = "costs nothing" if cost == 0 else f"costs {_f4(cost)}" if cost > 0 else f"gains {_f4(-cost)}"
            sentences.append(f"Measured, not asserted: at k = {k} the best placed last {effect} against lost in "
                             "the middle on these questions.")
    behind = [k for k in sorted(by_k) if any(row["generation"] > by_k[k]["rank order"]["generation"]
                                             for row in by_k[k].values())]
    sentences.append("No reorder beats rank order here." if not behind else
                     "A reorder beats rank order at k = " + ", ".join(map(str, behind)) + ".")
    return " ".join(sentences)


__all__ = ["trace", "view"]
