"""Lesson 05's experiments on the FICTIONAL reader simulator (simulator.py and reader.py): the budget line,
one question laid out three ways, the k sweep, the layout experiment with its run-to-run baseline, and
the reorder policies.

Every number is a property of the simulator and its fictional water utility, never of a
real model. A run builds the fixture and each query's ranking once, as ordinary values it
passes on; nothing is kept between runs.
"""

from __future__ import annotations

from modules.order.mechanism import (LAYOUTS, build_layout, count_changes, good_and_bad, reorder_lost_in_middle,
                                     reorder_parity_variant)
from modules.order.reader import INSTRUCTION, WINDOW, build_prompt, read, reader_chances
from modules.order.simulator import is_relevant, retrieve, tokens

K_VALUES = (1, 3, 5, 8, 10, 11, 12, 13)
J_VALUES = (0, 2, 4, 8)
RETRIEVED = 40                   # chunks retrieved per query for the layout experiment
SECOND_RUN_J = 4                 # the second run, with the next reader seed, repeats this j
POLICY_KS = (4, 5)               # an even and an odd count for the reorder policies
POLICIES = {"rank order": list, "lost in the middle": reorder_lost_in_middle,
            "parity variant": reorder_parity_variant}

# The frameworks' reorders, as read in their source (the notebook shows them side by side).
FRAMEWORKS = (
    {"name": "LangChain LongContextReorder", "version": "langchain-community 0.4.2",
     "source": "langchain_community/document_transformers/long_context_reorder.py",
     "does": "reverses the given list (best first in, so ascending), then inserts at the front and "
             "appends in turn", "same_as": "parity variant"},
    {"name": "LlamaIndex LongContextReorder", "version": "llama-index-core 0.14.25",
     "source": "llama_index/core/postprocessor/node.py",
     "does": "sorts by score ascending, then inserts at the front and appends in turn",
     "same_as": "parity variant"},
    {"name": "Haystack LostInTheMiddleRanker", "version": "haystack-ai 3.4.1",
     "source": "haystack/components/rankers/lost_in_the_middle.py",
     "does": "keeps the given order as the ranking and inserts each next item into the middle "
             "(after deduplicating by id; optional top_k and word-count cut-off)",
     "same_as": "lost in the middle"},
)


def rankings(fixture) -> list[tuple]:
    """Each query's best RETRIEVED chunks, best first; the k sweep uses their first k."""
    return [retrieve(query, fixture.chunks, RETRIEVED) for query in fixture.queries]


def share(count: int, total: int) -> float:
    return count / total


def budget_line(fixture) -> dict:
    """How many chunks fit the window on average: (window - instruction - query) / per chunk,
    each part the mean of its lab tokens."""
    instruction = len(tokens(INSTRUCTION))
    query = sum(q.tokens for q in fixture.queries) / len(fixture.queries)
    per_chunk = sum(chunk.tokens for chunk in fixture.chunks) / len(fixture.chunks)
    return {"window": WINDOW, "instruction": instruction, "query": query, "per_chunk": per_chunk,
            "fit": (WINDOW - instruction - query) / per_chunk}


def one_question(query, ranking, j: int, seed: int) -> list[dict]:
    """One question's relevant chunk and its first j irrelevant ones in each layout: where the
    relevant chunk stands, its chance, and the chunk the reader picks with `seed` and with
    seed + 1 (the same prompt, only the seed changed; changed compares chunks, not codes)."""
    good, bad = good_and_bad(query, ranking, j)
    rows = []
    for layout in LAYOUTS:
        prompt = build_prompt(query, build_layout(good, bad, layout))
        place = prompt.chunks.index(good)
        picked = [read(prompt, reader_seed).chunk for reader_seed in (seed, seed + 1)]
        rows.append({"layout": layout, "place": place + 1, "chance": reader_chances(prompt)[place],
                     "reads": [{"seed": reader_seed, "code": chunk.code, "relevant": is_relevant(query, chunk)}
                               for reader_seed, chunk in zip((seed, seed + 1), picked)],
                     "changed": picked[0] != picked[1]})
    return rows


def k_sweep(fixture, ranked: list, seed: int) -> list[dict]:
    """Per k: the top k in rank order, read once per query. An overflowing request counts 0 in
    generation and in both cited columns; the prompt sizes are over all the queries."""
    rows = []
    total = len(fixture.queries)
    for k in K_VALUES:
        sizes, overflow, found, right, concept, record = [], 0, 0, 0, 0, 0
        for query, ranking in zip(fixture.queries, ranked):
            context = ranking[:k]
            reading = read(build_prompt(query, context), seed)
            sizes.append(reading.tokens)
            found += any(is_relevant(query, chunk) for chunk in context)
            if reading.overflow:
                overflow += 1
                continue
            right += is_relevant(query, reading.chunk)
            concept += query.concept.document_phrase in reading.chunk.text
            record += query.record in reading.chunk.bag
        rows.append({"k": k, "context_avg": sum(sizes) / total, "largest": max(sizes), "overflow": overflow,
                     "recall": share(found, total), "generation": share(right, total),
                     "cite_concept": share(concept, total), "cite_record": share(record, total)})
    return rows


def layout_rows(fixture, ranked: list, j: int, seeds: tuple) -> list[dict]:
    """One relevant chunk and the first j irrelevant ones, in the three layouts, read with
    each seed of `seeds` (one row per seed). The share of change compares the picked chunk
    with head's under the same seed; the run-to-run baseline reads head again with seed + 1.
    The prompts do not depend on the seed, so each is built once and read with every seed."""
    picks = {seed: {name: [] for name in LAYOUTS + ("again",)} for seed in seeds}
    for query, ranking in zip(fixture.queries, ranked):
        good, bad = good_and_bad(query, ranking, j)
        prompts = {layout: build_prompt(query, build_layout(good, bad, layout)) for layout in LAYOUTS}
        for seed in seeds:
            for layout in LAYOUTS:
                picks[seed][layout].append(read(prompts[layout], seed).chunk)
            picks[seed]["again"].append(read(prompts["head"], seed + 1).chunk)
    rows = []
    total = len(fixture.queries)
    for seed in seeds:
        run = picks[seed]
        row = {"j": j, "seed": seed, "baseline_seed": seed + 1}
        for layout in LAYOUTS:
            row[layout] = share(sum(1 for query, chunk in zip(fixture.queries, run[layout])
                                    if chunk is not None and is_relevant(query, chunk)), total)
        moved = {layout: count_changes(run["head"], run[layout], ("head", layout)) for layout in ("middle", "tail")}
        baseline = count_changes(run["head"], run["again"], ("head", "head reseeded"))
        row.update({"change_middle": share(moved["middle"], total), "change_tail": share(moved["tail"], total),
                    "run_to_run": share(baseline, total), "middle_exceeds": moved["middle"] > baseline,
                    "tail_exceeds": moved["tail"] > baseline})
        rows.append(row)
    return rows


def layout_experiment(fixture, ranked: list, seed: int, js: tuple = J_VALUES) -> tuple[list[dict], dict]:
    """Each j of `js` with the reader seed, and the second run (seed + 1, its baseline seed + 2)
    at SECOND_RUN_J, which `js` must hold: (the rows of the first run, the second run's row)."""
    if SECOND_RUN_J not in js:
        raise ValueError(f"js must hold the second run's j ({SECOND_RUN_J}), got {js}")
    first, second = [], None
    for j in js:
        seeds = (seed, seed + 1) if j == SECOND_RUN_J else (seed,)
        rows = layout_rows(fixture, ranked, j, seeds)
        first.append(rows[0])
        if j == SECOND_RUN_J:
            second = rows[1]
    return first, second


def policy_experiment(fixture, ranked: list, seed: int) -> list[dict]:
    """Each reorder policy applied to the same top k, read with the reader seed: generation,
    and where the best-ranked chunk lands."""
    rows = []
    total = len(fixture.queries)
    for k in POLICY_KS:
        for name, policy in POLICIES.items():
            right = 0
            for query, ranking in zip(fixture.queries, ranked):
                reading = read(build_prompt(query, policy(ranking[:k])), seed)
                right += reading.chunk is not None and is_relevant(query, reading.chunk)
            order = policy(range(1, k + 1))
            rows.append({"k": k, "policy": name, "order": order, "best_at": order.index(1) + 1,
                         "generation": share(right, total)})
    return rows
