"""Lesson 05's trace() and view(): the experiments of order_experiments.py as a record and as blocks.

Every number is a property of the FICTIONAL reader simulator and the ferry fixture.
"""

from __future__ import annotations

import math

from modules.common.checks import whole_number
from modules.order import CHUNKS, LABEL, POSITION_WEIGHTS, QUERIES, SEED, SHARE_FLOOR, TEMPERATURE, WINDOW
from modules.order.experiments import (FRAMEWORKS, POLICIES, Reader, Run, gold_chunks, k_sweep, layout_experiment,
                                       policy_experiment, rankings, worked_example)


PUBLISHED = ("The published teaching simulator, with the same rule, reported recall@k 0.775 -> 0.975 "
             "while generation fell 0.775 -> 0.575 as k went 1 -> 10, the right concept cited in every "
             "answer until k = 10, and at j = 2 head 0.825, middle 0.225, tail 0.500. Our fixture and seed "
             "differ, so our numbers do too; the shapes are what carry over.")
COPIER = ("Lesson 01's quote copier has no position effect: it copies every chunk in order. That proves "
          "nothing about other readers. Position effects belong to particular readers: Liu et al., "
          "\"Lost in the Middle: How Language Models Use Long Contexts\" (TACL 2024) found accuracy "
          "highest with the answer at the start or end and lowest in the middle for the models and "
          "tasks they tested; a new reader must be measured again.")
DECISION = ("The order of the context is a design decision: the packet records its policy "
            "(here: rank order, best first), or a measurement made on it cannot be repeated.")


def trace(seed: int = SEED) -> dict:
    """Run the k sweep, the layout experiment and the reorder policies; return a JSON-ready record."""
    whole_number(seed, "seed")
    ranked, golds = rankings(), gold_chunks()
    reader = Reader()
    run = Run(reader, seed)
    sweep, by_k = k_sweep(run, ranked, golds)
    return {
        "lesson": "order",
        "simulator": {"label": LABEL, "window_lab_tokens": WINDOW, "position_weights": dict(POSITION_WEIGHTS),
                      "share_floor": SHARE_FLOOR, "temperature": TEMPERATURE, "seed": seed,
                      "rule": "score = position weight * (0.3 + share of the question's lab tokens in the "
                              "chunk); draw one chunk with probability proportional to exp(score / 0.12)",
                      "prompt": "instruction line, question line, one '[id] text' line per chunk; "
                                "counted with modules.common.units.lab_tokens; over the window = refusal"},
        "fixture": {"chunks": len(CHUNKS), "concepts": len({c.concept for c in CHUNKS}),
                    "records_per_concept": min(sum(c.concept == k.concept for c in CHUNKS) for k in CHUNKS),
                    "queries": len(QUERIES), "retriever": "shared content words weighted by rarity, ties by id",
                    "note": "fictional ferry company; gold ids are evaluation labels the reader never sees"},
        "example": worked_example(ranked),
        "k_sweep": sweep,
        "layouts": layout_experiment((run, Run(reader, seed + 1)), ranked, golds),
        "policies": policy_experiment(run, ranked, golds, by_k),
        "frameworks": [dict(f, ten=_ranks(f, 10), four=_ranks(f, 4)) for f in FRAMEWORKS],
        "context_order": {"policy": "rank order", "recorded_in": "the packet", "note": DECISION},
        "copier": COPIER,
        "published": PUBLISHED,
    }


def _ranks(framework: dict, count: int) -> list[int]:
    return POLICIES[framework["same_as"]](range(1, count + 1))


AVG_PROMPT = "avg prompt (lab tokens)"  # a mean of counts: shown with one decimal, as text


def _label(record: dict) -> str:
    sim = record["simulator"]
    weights = sim["position_weights"]
    return (f"{sim['label']}. Window {sim['window_lab_tokens']} lab tokens; score = position weight "
            f"(first {weights['first']}, last {weights['last']}, other {weights['other']}) x "
            f"({sim['share_floor']} + share of the question's lab tokens in the chunk); one chunk drawn "
            f"with odds exp(score / {sim['temperature']}); seed {sim['seed']}. No number below describes "
            "a real model.")


def _temperature(example: dict) -> str:
    first, other = example["rows"][0], example["rows"][1]
    same = " (the same share, a lower weight)" if first["share"] == other["share"] else ""
    return (f"The temperature 0.12 sets how firmly the reader follows the scores: a score 0.12 higher makes a "
            f"chunk e (about 2.7) times as likely. In the reading above, place 1 scores {first['score']:.3f} and "
            f"place 2 {other['score']:.3f}{same}, so place 1 is exp({first['score'] - other['score']:.3f} / 0.12) "
            f"= {math.exp((first['score'] - other['score']) / 0.12):.1f} times as likely. A lower temperature "
            "would make the reader take the best score almost always; a higher one would bring its draws "
            "closer to a uniform pick. The reader matches the question's words exactly as written, so "
            "'summer?' at the end of a question is not 'summer' in a chunk: it sees the topic better than "
            "the detail that tells sibling records apart.")


def view(record: dict) -> list[dict]:
    """Turn the trace record into printable blocks; every block has a stable key."""
    layouts, fixture, example = record["layouts"], record["fixture"], record["example"]
    seed, second = layouts["seeds"]
    sweep = record["k_sweep"]
    by_k = {row["k"]: row for row in sweep}
    first_refusal = next((row for row in sweep if row["refused"]), None)
    return [
        {"key": "title", "heading": "Lesson 05 - order: position is a hypothesis to measure"},
        {"key": "label", "text": _label(record)},
        {"key": "copier", "text": record["copier"]},
        {"key": "fixture", "text": f"Fixture: {fixture['queries']} questions over {fixture['chunks']} chunks of a "
                                   f"{fixture['note']}. {fixture['concepts']} concepts (fare, departure, opening "
                                   f"hours, what may come on board), each with {fixture['records_per_concept']} "
                                   "records that share most of their words."},
        {"key": "example", "table": {
            "title": f"One reading of {example['query']}, its top {example['k']} chunks in rank order",
            "legend": f"Question: '{example['question']}'. "
                      "Weight: the place's position weight; share: the share of the question's lab tokens "
                      "found in the chunk; score = weight x (0.3 + share); chance: exp(score / 0.12) over "
                      f"the sum for the {example['k']} chunks. The right record is {example['gold_id']}.",
            "columns": ["place", "chunk", "weight", "share", "score", "chance"],
            "rows": [[r["place"], r["id"], r["weight"], r["share"], r["score"], r["chance"]]
                     for r in example["rows"]]}},
        {"key": "temperature", "text": _temperature(example)},
        {"key": "k-sweep", "table": {
            "title": f"k sweep: the top k in rank order (fictional reader, seed {seed})",
            "legend": "avg prompt: mean prompt size over the 40 questions, in lab tokens. refused: questions "
                      f"whose prompt exceeds the {WINDOW}-token window (they count as wrong). The other "
                      "columns are shares of the 40 questions: recall@k, the right record among the k; "
                      "generation, an answer stating the right fact; cited concept, an answer citing a "
                      "chunk of the right concept; cited record, citing the right record itself.",
            "columns": ["k", AVG_PROMPT, "refused", "recall@k", "generation", "cited concept",
                        "cited record"],
            "rows": [[r["k"], f"{r['avg_prompt']:.1f}", r["refused"], r["recall"], r["generation"],
                      r["cite_concept"], r["cite_record"]] for r in sweep]}},
        {"key": "k-sweep-chart", "chart": {
            "title": f"Recall@k against generation, by k (seed {seed}; scale 0 to 1)",
            "legend": "Two bars per k: the right record retrieved (recall@k), and the reader's answer "
                      "right (generation).",
            "width": 40,
            "rows": [row for r in sweep for row in ([f"k={r['k']:<2} recall@k", r["recall"], 1.0],
                                                      ["     generation", r["generation"], 1.0])]}},
        {"key": "k-sweep-notes", "text":
            f"Recall@k only grows with k (here {by_k[1]['recall']:.3f} -> {by_k[10]['recall']:.3f} from k = 1 "
            f"to 10); the reader's accuracy does not ({by_k[1]['generation']:.3f} -> "
            f"{by_k[10]['generation']:.3f}): every added chunk is one more candidate to answer from. "
            + (f"From k = {first_refusal['k']} the largest prompts pass the window and the reader refuses. "
               if first_refusal else "")
            + f"The right concept is cited in {by_k[10]['cite_concept']:.3f} of the answers at k = 10 and "
            f"the right record in only {by_k[10]['cite_record']:.3f}: the error is in the record, not in "
            "the concept, and only the cited id shows it, since siblings can even state the same fact. "
            + record["published"]},
        {"key": "layouts", "table": {
            "title": "Layouts: one relevant chunk plus j irrelevant ones",
            "legend": "head: the relevant chunk first; middle: at index j // 2; tail: last. Cells: "
                      "generation, the share of the 40 questions answered right, on two seeds.",
            "columns": ["j", "layout", f"seed {seed}", f"seed {second}"],
            "rows": [[r["irrelevant"], r["layout"], r["generation"], r["generation_second_seed"]]
                     for r in layouts["generation"]]}},
        {"key": "layouts-chart", "chart": {
            "title": f"Generation by layout, seed {seed} (scale 0 to 1)", "width": 30,
            "legend": "One bar per layout and j: '#' the share of the 40 questions answered right, "
                      "'.' the rest of the scale up to 1.",
            "rows": [[f"j={r['irrelevant']} {r['layout']}", r["generation"], 1.0] for r in layouts["generation"]]}},
        {"key": "orderings", "table": {
            "title": "Ordering of the layouts, by generation",
            "legend": "'>' means a higher share answered right; '=' an equal share.",
            "columns": ["j", f"seed {seed}", f"seed {second}"],
            "rows": [[r["irrelevant"], r["ordering"], r["ordering_second_seed"]] for r in layouts["orderings"]]}},
        {"key": "second-seed", "text": "Same ordering on the second seed for every j >= 2: "
            + ("yes." if layouts["same_ordering_on_second_seed"] else
               "NO - with 40 questions this seed pair cannot separate the layouts; measure more.")},
        {"key": "share-of-change", "table": {
            "title": f"Share of cited chunks that change (seed {seed})",
            "legend": f"reseed: the head layout read with seed {second} instead of {seed}, the run-to-run "
                      "baseline. to middle, to tail: the same seed with the relevant chunk moved. beyond: "
                      "whether that change of order moved more citations than reseeding did.",
            "columns": ["j", "reseed", "to middle", "beyond", "to tail", "beyond"],
            "rows": [[r["irrelevant"], r["reseed_head"], r["order_middle"], r["middle_exceeds_baseline"],
                      r["order_tail"], r["tail_exceeds_baseline"]] for r in layouts["share_of_change"]]}},
        {"key": "baseline", "text": "A change of order counts as an order effect only when it moves more answers "
                                    "than reseeding with the order fixed; with j = 0 there is nothing to move, "
                                    "and neither moves any."},
        {"key": "policies", "table": {
            "title": f"Reorder policies over the same top-k (seed {seed})",
            "legend": "order: the ranks placed first to last (1 = best); best at: the place the best "
                      "chunk gets; generation and cited record: shares of the 40 questions.",
            "columns": ["k", "policy", "order", "best at", "generation", "cited record"],
            "rows": [[r["k"], r["policy"], " ".join(map(str, r["order"])), r["best_at"], r["generation"],
                      r["cite_record"]] for r in record["policies"]]}},
        {"key": "frameworks", "table": {
            "title": "What the frameworks' reorders do to ten and to four items (ranks, 1 = best)",
            "legend": "Versions whose source was read. LangChain and LlamaIndex order like the parity "
                      "variant (best last for an even count), Haystack like the lab's lost in the middle.",
            "columns": ["framework", "version read", "ten items", "four"],
            "rows": [[f["name"], f["version"], " ".join(map(str, f["ten"])), " ".join(map(str, f["four"]))]
                     for f in record["frameworks"]]}},
        {"key": "policy-notes", "text":
            "Lost in the middle puts the best first and the second best last, alternating inward. The "
            "parity variant reverses to ascending and alternates from the front, so for an even count the "
            "best lands last, where this reader's weight is 0.8 instead of 1.0; for an odd count the two "
            "orders coincide. The table measures what that costs under this reader; another reader needs "
            "its own measurement."},
        {"key": "decision", "text": record["context_order"]["note"]},
    ]
