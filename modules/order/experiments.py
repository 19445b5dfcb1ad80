"""Lesson 05's experiments on the reader simulator of modules/order/mechanism.py (trace and view: order_trace.py).

Every number below is a property of the FICTIONAL reader and the ferry fixture. The
experiments read each question many times (13 values of k, three layouts at four j on
two seeds, three reorder policies), so a run first gathers what does not change between
readings of one question (its ranking, its prompt's head, each chunk's line and share,
and the run's one random number per question) and keeps it for that run only: nothing
is cached between runs, whatever the number of seeds.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right

from modules.common.units import lab_tokens
from modules.order.mechanism import (CHUNKS, LAYOUTS, POSITION_WEIGHTS, QUERIES, SHARE_FLOOR, TEMPERATURE, WINDOW,
                           Index, choose, place, content_words, head_tokens, line_tokens,
                           order_effect_counts, position_weight, reader_probabilities, reader_scores, reading_seed,
                           reorder_lost_in_middle, reorder_parity_variant, token_share)

K_SWEEP = tuple(range(1, 14))
IRRELEVANT_COUNTS = (0, 2, 4, 8)
POLICY_KS = (4, 5, 8, 9)
POLICIES = {"rank order": list, "lost in the middle": reorder_lost_in_middle,
            "parity variant": reorder_parity_variant}
EXAMPLE_QUERY = "q13"  # the worked example of one reading
EXAMPLE_K = 4

# The frameworks' reorders, as read in their source (the notebook shows the loops side by side).
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


# ---------------------------------------------------------------- one run's readings

class Reader:
    """What stays the same between readings of the fixture in one trace: each question's
    prompt head and lab-token pieces, each chunk's line and pieces, and, on first use, the
    reader's odds exp(weight * (0.3 + share) / 0.12) of each question-chunk pair at the
    first, the last and any other place. It lives as long as the trace that built it."""

    def __init__(self) -> None:
        self.heads = [head_tokens(q.text) for q in QUERIES]
        self.lines = {c.id: line_tokens(c) for c in CHUNKS}
        self.pieces = {c.id: set(c.text.split()) for c in CHUNKS}
        self.asked = [[(piece, lab_tokens(piece)) for piece in q.text.split()] for q in QUERIES]
        self.totals = [lab_tokens(q.text) for q in QUERIES]
        self.odds: list[dict] = [{} for _ in QUERIES]

    def odds_of(self, number: int, chunk_id: str) -> tuple:
        """(first, last, other) odds; the share is token_share(question, chunk), computed the same way."""
        asked, found = self.asked[number], self.pieces[chunk_id]
        share = sum(t for piece, t in asked if piece in found) / self.totals[number]
        odds = self.odds[number][chunk_id] = tuple(
            math.exp(weight * (SHARE_FLOOR + share) / TEMPERATURE) for weight in (_FIRST, _LAST, _OTHER))
        return odds


class Run:
    """Readings of the fixture's questions with one seed."""

    def __init__(self, reader: Reader, seed: int) -> None:
        self.reader, self.seed = reader, seed
        # One random number per question: every context of that question in this run uses it,
        # exactly as simulate_reader(question, context, reading_seed(seed, n)) would draw it.
        self.draws = [random.Random(reading_seed(seed, n)).random() for n in range(len(QUERIES))]

    def read(self, number: int, context: tuple) -> tuple:
        """(chosen chunk, or None for a refusal; prompt tokens) for question `number`."""
        reader = self.reader
        lines = reader.lines
        tokens = reader.heads[number] + sum(lines[c.id] for c in context)
        if tokens > WINDOW:
            return None, tokens
        known, last = reader.odds[number], len(context) - 1
        odds = [known.get(c.id) or reader.odds_of(number, c.id) for c in context]
        weights = [odds[0][0]] + [o[2] for o in odds[1:last]] + [odds[last][1]] * (last > 0)
        return context[choose(weights, self.draws[number])], tokens

    def read_all(self, contexts) -> list[tuple]:
        return [self.read(n, context) for n, context in enumerate(contexts)]

    def read_prefixes(self, number: int, context: tuple) -> list[tuple]:
        """read(number, context[:k]) for every k from 1 to len(context), in one pass.

        A longer prefix only adds a last place, and turns the old last place into a
        middle one: keep the running totals of the first and middle places' odds, add
        the new last chunk's odds, and bisect, as choose() does on the whole list."""
        reader, draw = self.reader, self.draws[number]
        known, tokens, out, running = reader.odds[number], reader.heads[number], [], []
        for index, chunk in enumerate(context):
            odds = known.get(chunk.id) or reader.odds_of(number, chunk.id)
            tokens += reader.lines[chunk.id]
            if tokens > WINDOW:
                out.append((None, tokens))
            elif index == 0:
                out.append((chunk, tokens))
            else:
                total = running[-1] + odds[1]
                out.append((context[bisect_right(running, draw * total, 0, index)], tokens))
            running.append(odds[0] if index == 0 else running[-1] + odds[2])
        return out


_FIRST, _LAST, _OTHER = POSITION_WEIGHTS["first"], POSITION_WEIGHTS["last"], POSITION_WEIGHTS["other"]


def rankings() -> list[tuple]:
    index = Index(CHUNKS)
    return [index.rank(content_words(q.text)) for q in QUERIES]


def gold_chunks() -> list:
    by_id = {c.id: c for c in CHUNKS}
    return [by_id[q.gold_id] for q in QUERIES]


def _share(count: int) -> float:
    # 40 questions: every share is a multiple of 0.025, so three decimals are exact.
    return round(count / len(QUERIES), 3)


def scores(readings: list[tuple], golds: list) -> dict:
    """Generation (the right fact), citation of the right concept and of the right record;
    a refusal counts as wrong in all three."""
    right = concept = record = 0
    for gold, (chosen, _tokens) in zip(golds, readings):
        if chosen is not None:
            right += chosen.value == gold.value
            concept += chosen.concept == gold.concept
            record += chosen is gold
    return {"generation": _share(right), "cite_concept": _share(concept), "cite_record": _share(record)}


def cited(readings: list[tuple]) -> list:
    return [None if chosen is None else chosen.id for chosen, _tokens in readings]


# ---------------------------------------------------------------- the experiments

def k_sweep(run: Run, ranked: list, golds: list) -> tuple[list[dict], dict]:
    """Top-k in rank order for k = 1..13: prompt size, refusals, recall@k and the reader's scores."""
    rows, by_k = [], {}
    prefixes = [run.read_prefixes(n, ranking[:max(K_SWEEP)]) for n, ranking in enumerate(ranked)]
    for k in K_SWEEP:
        readings = by_k[k] = [found[k - 1] for found in prefixes]
        tokens = [t for _chosen, t in readings]
        found = sum(gold in ranking[:k] for gold, ranking in zip(golds, ranked))
        rows.append({"k": k, "avg_prompt": round(sum(tokens) / len(tokens), 1), "max_prompt": max(tokens),
                     "refused": sum(chosen is None for chosen, _t in readings), "recall": _share(found),
                     **scores(readings, golds)})
    return rows, by_k


def distractors(ranked: list, golds: list) -> list[tuple]:
    """Per question, the retriever's best chunks of other concepts: the irrelevant chunks a run would see."""
    return [tuple(c for c in ranking if c.concept != gold.concept)[:max(IRRELEVANT_COUNTS)]
            for gold, ranking in zip(golds, ranked)]


def ordering(values: dict) -> str:
    """'head > tail > middle' from generation by layout; equal values are joined with '='."""
    ranked = sorted(LAYOUTS, key=lambda layout: (-values[layout], LAYOUTS.index(layout)))
    text = ranked[0]
    for before, after in zip(ranked, ranked[1:]):
        text += (" = " if values[before] == values[after] else " > ") + after
    return text


def layout_experiment(runs: tuple, ranked: list, golds: list) -> dict:
    """One relevant chunk plus j irrelevant ones in three layouts, on the run's seed and the next."""
    first, second = runs
    others = distractors(ranked, golds)
    # Every head layout is a prefix of the longest one: one pass per seed reads them all.
    heads = {run.seed: [run.read_prefixes(n, (gold,) + other) for n, (gold, other) in enumerate(zip(golds, others))]
             for run in runs}
    rows, change, orderings = [], [], []
    for count in IRRELEVANT_COUNTS:
        ids, generation = {}, {}
        for layout in LAYOUTS:
            # With j = 0 every layout is the head layout: the relevant chunk alone.
            contexts = None if layout == "head" or not count else [
                place(gold, other[:count], layout) for gold, other in zip(golds, others)]
            for run in runs:
                readings = ([found[count] for found in heads[run.seed]] if contexts is None
                            else run.read_all(contexts))
                ids[layout, run.seed] = cited(readings)
                generation[layout, run.seed] = scores(readings, golds)["generation"]
            rows.append({"irrelevant": count, "layout": layout, "generation": generation[layout, first.seed],
                         "generation_second_seed": generation[layout, second.seed]})
        row = {"irrelevant": count}
        for layout in LAYOUTS[1:]:
            moved, reseeded, exceeds = order_effect_counts(ids["head", first.seed], ids[layout, first.seed],
                                                           ids["head", second.seed])
            row.update({"reseed_head": _share(reseeded), f"order_{layout}": _share(moved),
                        f"{layout}_exceeds_baseline": exceeds})
        change.append(row)
        by_seed = [{layout: generation[layout, run.seed] for layout in LAYOUTS} for run in runs]
        orderings.append({"irrelevant": count, "ordering": ordering(by_seed[0]),
                          "ordering_second_seed": ordering(by_seed[1])})
    same = all(r["ordering"] == r["ordering_second_seed"] for r in orderings if r["irrelevant"] >= 2)
    return {"seeds": [first.seed, second.seed], "generation": rows, "orderings": orderings,
            "same_ordering_on_second_seed": same, "share_of_change": change}


def policy_experiment(run: Run, ranked: list, golds: list, by_k: dict) -> list[dict]:
    """Each policy reorders the same top-k. Rank order at k is the k sweep's own reading, and
    an odd count gives the parity variant the order of lost in the middle: read once each."""
    rows = []
    for k in POLICY_KS:
        done = {tuple(range(1, k + 1)): by_k[k]}
        for name, policy in POLICIES.items():
            order = policy(range(1, k + 1))
            readings = done.get(tuple(order))
            if readings is None:
                readings = done[tuple(order)] = run.read_all([tuple(policy(r[:k])) for r in ranked])
            found = scores(readings, golds)
            rows.append({"k": k, "policy": name, "order": order, "best_at": order.index(1) + 1,
                         "generation": found["generation"], "cite_record": found["cite_record"]})
    return rows


def worked_example(ranked: list) -> dict:
    """One question's top-k, with each chunk's weight, share, score and chance of being drawn."""
    number = next(n for n, q in enumerate(QUERIES) if q.id == EXAMPLE_QUERY)
    query, context = QUERIES[number], ranked[number][:EXAMPLE_K]
    scored = zip(context, reader_scores(query.text, context), reader_probabilities(query.text, context))
    rows = [{"place": place, "id": chunk.id, "weight": position_weight(place - 1, len(context)),
             "share": round(token_share(query.text, chunk), 3), "score": round(score, 3), "chance": round(chance, 3)}
            for place, (chunk, score, chance) in enumerate(scored, 1)]
    return {"query": query.id, "question": query.text, "gold_id": query.gold_id, "k": EXAMPLE_K, "rows": rows}
