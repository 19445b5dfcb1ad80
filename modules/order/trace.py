"""Lesson 05's trace() and view(): the experiments of experiments.py as a record and as blocks.

Every number is a property of the FICTIONAL reader simulator and its fictional water
utility's help documents, never of a real model.
"""

from __future__ import annotations

from modules.common.checks import whole_number
from modules.order.experiments import (FRAMEWORKS, J_VALUES, K_VALUES, POLICIES, POLICY_KS, RETRIEVED, SECOND_RUN_J,
                                       budget_line, k_sweep, layout_experiment, one_question, policy_experiment,
                                       rankings)
from modules.order.reader import (POSITION_WEIGHTS, SHARE_FLOOR, TEMPERATURE, WINDOW, build_prompt, reader_chances,
                                  reader_scores)
from modules.order.simulator import DOCUMENTS, LABEL, SEED, build_fixture, is_relevant, retrieve
from modules.common.tables import table_block

EXAMPLE_QUERY, EXAMPLE_K = 0, 3  # the worked example: query 0's top 3 chunks

FICTION = ("Everything in this lesson is fictional: 200 help documents of an invented water utility, 40 "
           "questions about them and an invented embedding, read by this labelled simulator. It is the "
           "published teaching simulator, rebuilt from its specification so that its published tables "
           "(under --all) come out digit for digit; no figure here describes a real model.")
COPIER = ("Lesson 01's quote copier has no position effect: it copies every chunk in order. That proves "
          "nothing about other readers. Position effects belong to particular readers: Liu et al., "
          "\"Lost in the Middle: How Language Models Use Long Contexts\" (TACL 2024) found accuracy "
          "highest with the answer at the start or end and lowest in the middle, for the models and "
          "tasks they tested (multi-document QA over 20 documents); a later model must be measured again.")
DECISION = ("The order of the context is a design decision: the packet records its policy (here: rank "
            "order, best first), or a measurement made on it cannot be repeated.")


def trace(seed: int = SEED, full: bool = False) -> dict:
    """The budget line, one question laid out at j = 4 (read with seed `seed` and seed + 1) and
    the frameworks' reorders; the fixture always uses SEED.

    `full` (the command's --all) adds the tables over all 40 questions, read with reader seed
    `seed`: the whole k sweep, the layouts at every j (0, 2, 4, 8) with the second run (seed + 1)
    at j = 4, and the reorder policies at k = 4 and 5. Without it `k_sweep`, `layouts` and
    `policies` are empty and `second_run` is None. Every figure the default prints is the same
    either way."""
    whole_number(seed, "seed")
    if not isinstance(full, bool):
        raise TypeError(f"full must be a bool, got {type(full).__name__} {full!r}")
    fixture = build_fixture()
    query = fixture.queries[EXAMPLE_QUERY]
    ranking = retrieve(query, fixture.chunks, RETRIEVED)
    record = {
        "lesson": "order",
        "shows": "all" if full else "default",
        "simulator": {"label": LABEL, "fiction": FICTION, "fixture_seed": fixture.seed, "reader_seed": seed,
                      "window_lab_tokens": WINDOW, "position_weights": dict(POSITION_WEIGHTS),
                      "share_floor": SHARE_FLOOR, "temperature": TEMPERATURE},
        "fixture": {"documents": len(fixture.documents), "chunks": len(fixture.chunks),
                    "queries": len(fixture.queries), "retrieved_per_query": RETRIEVED},
        "example": example(query, ranking),
        "budget": budget_line(fixture),
        "one_question": {"query": query.text, "j": SECOND_RUN_J,
                         "rows": one_question(query, ranking, SECOND_RUN_J, seed)},
        "k_sweep": [],
        "layouts": [],
        "second_run": None,
        "policies": [],
        "frameworks": [dict(f, ten=POLICIES[f["same_as"]](range(1, 11)), four=POLICIES[f["same_as"]](range(1, 5)))
                       for f in FRAMEWORKS],
        "context_order": {"policy": "rank order", "recorded_in": "the packet", "note": DECISION},
        "copier": COPIER,
    }
    if full:
        # Every table over all 40 questions needs their 40 rankings: only --all retrieves them,
        # so the default starts in a fraction of the time.
        ranked = rankings(fixture)
        layouts, second = layout_experiment(fixture, ranked, seed)
        record.update(k_sweep=k_sweep(fixture, ranked, seed), layouts=layouts, second_run=second,
                      policies=policy_experiment(fixture, ranked, seed))
    return record


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


def _and(values) -> str:
    """1, 2 and 3."""
    names = [str(value) for value in values]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def _f4(value: float) -> str:
    return f"{value:.4f}"


def _rule(record: dict) -> str:
    sim = record["simulator"]
    weights = sim["position_weights"]
    return (f"The reader: the prompt is an instruction, the chunks as '[CODE] text .' and the question. "
            f"Over {sim['window_lab_tokens']} lab tokens it overflows: no answer, counted wrong. Otherwise "
            f"each chunk scores its place's weight (first {weights['first']}, last {weights['last']}, others "
            f"{weights['other']}) x ({sim['share_floor']} + the share of the question's lab tokens in the "
            f"chunk), and one draw from a generator seeded with the reader seed ({sim['reader_seed']}) XOR "
            f"the prompt's FNV-1a hash picks a chunk with odds exp(score / {sim['temperature']}). It cites "
            "that chunk's code. Another order is another prompt, so another draw.")


def view(record: dict) -> list[dict]:
    """Turn the trace record into printable blocks; every block has a stable key."""
    sim, budget, ex = record["simulator"], record["budget"], record["example"]
    blocks = [
        {"key": "title", "heading": "Lesson 05 - order: position is a hypothesis to measure"},
        {"key": "label", "text": f"{sim['label']}. {sim['fiction']}"},
        {"key": "copier", "text": record["copier"]},
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
        *_one_question(record),
    ]
    if record["shows"] == "all":
        blocks += _all_blocks(record)
    blocks += [
        table_block(
            "frameworks", "What the frameworks' reorders do to ten and four items (ranks, 1 = best)",
            "The component, in the version whose source was read: LangChain's and LlamaIndex's "
            "LongContextReorder order like the parity variant (best last for an even count), "
            "Haystack's LostInTheMiddleRanker like the lab's lost in the middle.",
            ["framework", "version read", "ten items", "four"],
            [[f["name"].split()[0], f["version"], " ".join(map(str, f["ten"])), " ".join(map(str, f["four"]))]
             for f in record["frameworks"]]),
        {"key": "policy-notes", "text":
            "Lost in the middle puts the best first and the second best last, alternating inward. The parity "
            "variant sorts ascending and alternates from the front, so for an even count the best lands last, "
            "where this reader's weight is 0.8 instead of 1.0; for an odd count the two orders coincide. "
            + ("The reorder policies table measures" if record["policies"] else "--all measures")
            + " what that costs under this reader; another reader needs its own measurement."},
        {"key": "decision", "text": record["context_order"]["note"]},
    ]
    if record["shows"] != "all":
        blocks.append({"key": "more", "text":
            f"This is the default trace. --all adds the tables over all {record['fixture']['queries']} "
            f"questions: the k sweep at k = {_and(K_VALUES)}; the layouts at j = {_and(J_VALUES)} against the "
            f"run-to-run baseline, with a second run (seed {sim['reader_seed'] + 1}) at j = {SECOND_RUN_J}; and "
            f"the reorder policies at k = {_and(POLICY_KS)}."})
    return blocks


def _one_question(record: dict) -> list[dict]:
    """The example question laid out at head, middle and tail: chance and picks with two seeds."""
    one = record["one_question"]
    seed = record["simulator"]["reader_seed"]
    rows = {row["layout"]: row for row in one["rows"]}
    count = one["j"] + 1

    def picked(read):
        return f"{read['code']} " + ("relevant" if read["relevant"] else "other")

    def hits(index):
        return sum(row["reads"][index]["relevant"] for row in one["rows"])

    return [
        table_block(
            "one-question", f"One question laid out: its relevant chunk and {one['j']} irrelevant ones",
            f"The question above, '{one['query']}': its first relevant chunk and its first "
            f"{one['j']} irrelevant ones in rank order, the relevant one at the head, in the middle "
            f"or at the tail. at: its place among the {count}; chance: its chance of being picked; "
            f"seed {seed} and seed {seed + 1}: the code of the chunk the reader picks in that "
            "layout, and whether it is the relevant chunk (relevant) or an irrelevant one (other).",
            ["layout", "at", "chance", f"seed {seed}", f"seed {seed + 1}"],
            [[r["layout"], r["place"], _f4(r["chance"]), picked(r["reads"][0]), picked(r["reads"][1])]
             for r in one["rows"]]),
        {"key": "one-question-notes", "text":
            f"The place alone moves the relevant chunk's chance: {rows['head']['chance']:.4f} at the head, "
            f"{rows['middle']['chance']:.4f} in the middle, {rows['tail']['chance']:.4f} at the tail. Yet each "
            f"layout is one draw: seed {seed} picks the relevant chunk in {hits(0)} of 3 layouts, seed "
            f"{seed + 1} in {hits(1)}, and the next seed changes the pick in "
            f"{sum(r['changed'] for r in one['rows'])} of 3. One question cannot tell an order effect from "
            "the reader's run-to-run variation; that takes many questions and a baseline."},
    ]


def _all_blocks(record: dict) -> list[dict]:
    """--all's tables over all the questions: the k sweep, the layouts and the reorder policies."""
    seed = record["simulator"]["reader_seed"]
    by_k = {row["k"]: row for row in record["k_sweep"]}
    by_j = {row["j"]: row for row in record["layouts"]}
    second = record["second_run"]
    first_overflow = next(row for row in record["k_sweep"] if row["overflow"])
    return [
        table_block(
            "k-sweep", f"k sweep: the top k in rank order (reader seed {seed})",
            "avg and max: the prompt's size in lab tokens, mean and largest over the 40 questions. "
            f"over: prompts above the {WINDOW}-token window (no answer, counted wrong). The rest are "
            "shares of the 40 questions: recall, a relevant chunk among the k; gen, the picked chunk "
            "is relevant; concept, it holds the question's concept; record, it holds the "
            "question's record word.",
            ["k", "avg", "max", "over", "recall", "gen", "concept", "record"],
            [[r["k"], f"{r['context_avg']:.1f}", r["largest"], r["overflow"], _f4(r["recall"]),
              _f4(r["generation"]), _f4(r["cite_concept"]), _f4(r["cite_record"])]
             for r in record["k_sweep"]]),
        {"key": "k-sweep-notes", "text":
            f"Recall rises {by_k[1]['recall']:.3f} -> {by_k[10]['recall']:.3f} from k = 1 to 10 while "
            f"generation falls {by_k[1]['generation']:.3f} -> {by_k[10]['generation']:.3f}: every added chunk "
            f"is one more candidate to pick. The window collides with the largest request, not the average: "
            f"at k = {first_overflow['k']} the average prompt is {first_overflow['context_avg']:.1f} lab tokens, "
            f"yet {first_overflow['overflow']} of 40 overflow. The cited concept stays "
            f"{by_k[10]['cite_concept']:.1f} up to k = 10 while the cited record falls with generation: the "
            "error is in the record, and only the citation shows it."},
        table_block(
            "layouts", f"Layouts: one relevant chunk and j irrelevant ones (reader seed {seed})",
            "head: the relevant chunk first; middle: after the first j // 2 irrelevant ones; tail: "
            "last. head, middle, tail: generation, the share of the 40 questions whose picked chunk "
            "is relevant. moved mid, moved tail: the share whose picked chunk (the same chunk, not "
            f"the same code) differs from head's, same seed. reseed: head read with seed {seed + 1} "
            "against seed {0}, the run-to-run baseline. > base: the move exceeds it.".format(seed),
            ["j", "head", "middle", "tail", "moved mid", "moved tail", "reseed", "> base"],
            [[r["j"], _f4(r["head"]), _f4(r["middle"]), _f4(r["tail"]), _f4(r["change_middle"]),
              _f4(r["change_tail"]), _f4(r["run_to_run"]),
              "/".join("yes" if r[f] else "no" for f in ("middle_exceeds", "tail_exceeds"))]
             for r in record["layouts"]]),
        {"key": "second-run", "text":
            f"Second run, seed {second['seed']}, j = {second['j']}: head {second['head']:.4f}, middle "
            f"{second['middle']:.4f}, tail {second['tail']:.4f}; moved to the middle {second['change_middle']:.4f} "
            f"against a run-to-run baseline of {second['run_to_run']:.4f} (seed {second['baseline_seed']})."},
        {"key": "baseline", "text":
            "The run-to-run column is large in this simulator: reading the same prompt with the next seed "
            f"moves {by_j[4]['run_to_run']:.3f} of the picks at j = 4. An order effect is judged against that, "
            f"never against zero: at j = 4 the middle moves {by_j[4]['change_middle']:.3f} with seed {seed} "
            f"and {second['change_middle']:.3f} with seed {second['seed']}, against "
            f"{by_j[4]['run_to_run']:.3f} and {second['run_to_run']:.3f}."
            + (" With j = 0 every layout is the same prompt, so nothing moves." if 0 in by_j else "")},
        table_block(
            "policies", f"Reorder policies over the same top k (reader seed {seed})",
            "order: the ranks placed first to last (1 = best); best at: the place the best chunk "
            "gets; gen: the share of the 40 questions whose picked chunk is relevant.",
            ["k", "policy", "order", "best at", "gen"],
            [[r["k"], r["policy"], " ".join(map(str, r["order"])), r["best_at"], _f4(r["generation"])]
             for r in record["policies"]]),
    ]


__all__ = ["trace", "view", "J_VALUES", "K_VALUES"]
