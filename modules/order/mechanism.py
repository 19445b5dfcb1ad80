"""Lesson 05, order: position is a hypothesis to measure.

Lesson 01's quote copier has no position effect; position effects belong to particular
readers (Liu et al., "Lost in the Middle", TACL 2024, measured some models and tasks).
This lesson measures a FICTIONAL READER SIMULATOR with the published teaching rule:
over a 240 lab-token window it refuses; otherwise each chunk scores its position weight
(first 1.0, last 0.8, others 0.45) x (0.3 + the share of the question's lab tokens the
chunk contains), and the reader draws one chunk with odds exp(score / 0.12) from
random.Random(seed), answers with its fact and cites its id. Its numbers describe this
simulator, never a real model. Experiments: order_experiments.py; trace and view:
order_trace.py.
"""

from __future__ import annotations

import math
import random
import re
from bisect import bisect_right
from itertools import accumulate
from collections import namedtuple
from collections.abc import Mapping, MappingView, Set

from modules.common.checks import sequence_of, short, whole_number
from modules.common.units import lab_tokens

__all__ = ["Chunk", "Query", "Reading", "OrderEffect", "LABEL", "WINDOW", "POSITION_WEIGHTS", "SHARE_FLOOR",
           "TEMPERATURE", "SEED", "LAYOUTS", "CHUNKS", "QUERIES", "content_words", "token_share", "position_weight",
           "reader_scores", "reader_probabilities", "build_prompt", "prompt_tokens", "reading_seed",
           "simulate_reader", "rank_chunks", "reorder_lost_in_middle", "reorder_parity_variant", "build_layout",
           "share_of_change", "order_effect",]

LABEL = "FICTIONAL reader simulator (seeded arithmetic, no model)"
WINDOW = 240                 # lab tokens, counted with modules.common.units.lab_tokens
POSITION_WEIGHTS = {"first": 1.0, "last": 0.8, "other": 0.45}
SHARE_FLOOR = 0.3            # score = weight * (SHARE_FLOOR + share of the question's lab tokens)
TEMPERATURE = 0.12           # a score 0.12 higher multiplies a chunk's odds by e (about 2.72)
SEED = 507                   # the lesson's own seed; --seed N replaces it
QUERY_SLOTS = 1000           # reading_seed(seed, n) = seed * QUERY_SLOTS + n, one per question
LAYOUTS = ("head", "middle", "tail")
INSTRUCTION = "Answer from the chunks and cite the id you used."


class Chunk(namedtuple("Chunk", "id concept value text")):
    """One retrievable chunk; `value` is the fact an answer drawn from it states (a validated named tuple)."""

    __slots__ = ()

    def __new__(cls, id: str, concept: str, value: str, text: str):
        self = super().__new__(cls, id, concept, value, text)
        for name, field in zip(cls._fields, self):
            if not isinstance(field, str):
                raise TypeError(f"Chunk.{name} must be a str, got {type(field).__name__} {short(field)}")
            if not field.strip():
                raise ValueError(f"Chunk.{name} must not be empty, got {field!r}")
        return self


class Query(namedtuple("Query", "id text gold_id")):
    """One evaluation question. `gold_id` is a label: the reader never receives it."""

    __slots__ = ()


class Reading(namedtuple("Reading", "cited_id answer prompt_tokens refused")):
    """What the simulated reader did: refused (prompt over the window) or cited one chunk."""

    __slots__ = ()


class OrderEffect(namedtuple("OrderEffect", "order_share seed_share exceeds")):
    """Share of citations moved by a change of order, by a change of seed, and whether the
    first is larger: only then is the change an order effect rather than run-to-run noise."""

    __slots__ = ()


# ---------------------------------------------------------------- checks

def _check_chunks(chunks: object, name: str = "chunks") -> tuple[Chunk, ...]:
    return sequence_of(chunks, Chunk, name)


def _check_question(question: object) -> str:
    if not isinstance(question, str):
        raise TypeError(f"question must be a str, got {type(question).__name__} {short(question)}")
    if not question.strip():
        raise ValueError(f"question must not be empty, got {question!r}")
    return question


def _ordered(items: object, name: str) -> list:
    """`items` as a list if it has an order of its own (list, tuple, range, generator); a set,
    dict or dict view is refused (its order depends on the hash seed), and so is a str."""
    if (isinstance(items, (str, bytes, Set, Mapping, MappingView)) or not hasattr(items, "__iter__")):
        raise TypeError(f"{name} must be an ordered sequence (list, tuple, range or generator), "
                        f"got {type(items).__name__} {short(items)}")
    return list(items)


# ---------------------------------------------------------------- words and prompt

_STOPWORDS = frozenset(
    "a an and any are at be by can do does for from how i in is it its may me must my of on or "
    "the to what when where which who will with".split())
_SPLIT = re.compile(r"[^a-z0-9]+")


def content_words(text: str) -> frozenset:
    """The retriever's words: lower-cased, no stopwords, a trailing 's' dropped ('crowns' meets 'crown')."""
    words = {w[:-1] if len(w) > 3 and w[-1] == "s" else w for w in _SPLIT.split(text.lower())}
    return frozenset(words - _STOPWORDS - {""})


def token_share(question: str, chunk: Chunk) -> float:
    """Share of the question's lab tokens that the chunk contains.

    The question's whitespace pieces are looked up among the chunk's pieces exactly
    as written: this reader does no lower-casing and no stemming, so "summer?" at the
    end of a question does not match "summer" in a chunk. Each piece found counts its
    own lab tokens; the sum is divided by lab_tokens(question), so a long word counts
    for more than a short one, as it does in the window.
    """
    if not isinstance(chunk, Chunk):
        raise TypeError(f"chunk must be a Chunk, got {type(chunk).__name__} {short(chunk)}")
    total = lab_tokens(_check_question(question))
    found = set(chunk.text.split())
    return sum(lab_tokens(piece) for piece in question.split() if piece in found) / total


def build_prompt(question: str, chunks) -> str:
    """The exact text the reader receives; the window is counted on this string."""
    lines = [INSTRUCTION, "Question: " + _check_question(question)]
    lines += [f"[{c.id}] {c.text}" for c in _check_chunks(chunks)]
    return "\n".join(lines)


def head_tokens(question: str) -> int:
    """Lab tokens of the prompt's instruction and question lines."""
    return lab_tokens(f"{INSTRUCTION}\nQuestion: {question}")


def line_tokens(chunk: Chunk) -> int:
    """Lab tokens of one chunk's prompt line '[id] text'."""
    return lab_tokens(f"[{chunk.id}] {chunk.text}")


def prompt_tokens(question: str, chunks) -> int:
    """lab_tokens(build_prompt(question, chunks)), line by line: lab tokens split on
    whitespace, so the prompt's count is the sum of its lines' counts."""
    return head_tokens(_check_question(question)) + sum(line_tokens(c) for c in _check_chunks(chunks))


# ---------------------------------------------------------------- the simulator

def position_weight(index: int, count: int) -> float:
    """The weight of place `index` (from 0) among `count` chunks: first 1.0, last 0.8, others 0.45."""
    whole_number(count, "count", 1)
    if whole_number(index, "index") >= count:
        raise ValueError(f"index must be < count ({count}), got {index}")
    if index == 0:
        return POSITION_WEIGHTS["first"]
    if index == count - 1:
        return POSITION_WEIGHTS["last"]
    return POSITION_WEIGHTS["other"]


def reader_scores(question: str, chunks) -> list[float]:
    """score = position weight * (SHARE_FLOOR + token_share), one per chunk, in context order."""
    chunks, question = _check_chunks(chunks), _check_question(question)
    return [position_weight(i, len(chunks)) * (SHARE_FLOOR + token_share(question, c))
            for i, c in enumerate(chunks)]


def reader_probabilities(question: str, chunks) -> list[float]:
    """The chance that the reader draws each chunk: exp(score / TEMPERATURE), normalised."""
    weights = [math.exp(score / TEMPERATURE) for score in reader_scores(question, chunks)]
    total = sum(weights)
    return [weight / total for weight in weights]


def choose(weights, draw: float) -> int:
    """The index random.choices(range(n), weights) picks when its random() returns `draw`:
    running totals of the weights, and the first one above draw * total (bisect_right)."""
    running = list(accumulate(weights))
    return bisect_right(running, draw * running[-1], 0, len(running) - 1)


def reading_seed(seed: int, query_number: int) -> int:
    """The seed of question `query_number`'s reading in a run: seed * QUERY_SLOTS + query_number.
    Every context of that question in the run (each k, each layout) shares it."""
    whole_number(seed, "seed")
    return seed * QUERY_SLOTS + whole_number(query_number, "query_number", 0, QUERY_SLOTS - 1)


def simulate_reader(question: str, chunks, seed: int, window: int = WINDOW) -> Reading:
    """FICTIONAL reader: refuse over the window, else draw one chunk and cite it.

    The draw is one random.Random(seed).random() number walked along the chunks'
    weights exp(score / TEMPERATURE), which is what random.choices does. The same
    seed with another order therefore walks the same number along other weights:
    only the order differs between the two readings.
    """
    chunks = _check_chunks(chunks)
    if not chunks:
        raise ValueError("chunks must hold at least one Chunk, got an empty context")
    question = _check_question(question)
    whole_number(seed, "seed")
    tokens = prompt_tokens(question, chunks)
    if tokens > whole_number(window, "window", 1):
        return Reading(None, None, tokens, True)
    weights = [math.exp(score / TEMPERATURE) for score in reader_scores(question, chunks)]
    chosen = chunks[choose(weights, random.Random(seed).random())]
    return Reading(chosen.id, chosen.value, tokens, False)


# ---------------------------------------------------------------- retrieval, reorder, layouts

def rank_chunks(question: str, chunks) -> tuple[Chunk, ...]:
    """The lesson's lexical retriever: shared words weighted by rarity, ties by id."""
    chunks = _check_chunks(chunks)
    return Index(chunks).rank(content_words(_check_question(question)))


class Index:
    """Word -> chunks holding it, and each word's rarity log(1 + N / chunks holding it)."""

    def __init__(self, chunks: tuple) -> None:
        self.by_id = sorted(chunks, key=lambda c: c.id)
        self.holding: dict[str, list[int]] = {}
        for place, chunk in enumerate(self.by_id):
            for word in content_words(chunk.text):
                self.holding.setdefault(word, []).append(place)
        self.rarity = {w: math.log(1 + len(chunks) / len(held)) for w, held in self.holding.items()}

    def rank(self, asked: frozenset) -> tuple[Chunk, ...]:
        scores: dict[int, float] = {}  # position in by_id -> score; ints sort by id
        for word in sorted(asked & self.rarity.keys()):  # a fixed order, so float sums never vary
            for place in self.holding[word]:
                scores[place] = scores.get(place, 0.0) + self.rarity[word]
        scored = sorted(scores, key=lambda place: (-round(scores[place], 9), place))
        return tuple(self.by_id[p] for p in scored) + tuple(c for p, c in enumerate(self.by_id) if p not in scores)


def reorder_lost_in_middle(items) -> list:
    """Items given best first -> best first, second best last, alternating inward: ten items
    as ranks 1 3 5 7 9 10 8 6 4 2, four as 1 3 4 2 (Haystack's order). Two slices, linear
    time. `items` needs an order of its own: a set or a dict view raises TypeError."""
    items = _ordered(items, "items")
    return items[0::2] + items[1::2][::-1]


def reorder_parity_variant(items) -> list:
    """LangChain's and LlamaIndex's order: reverse to ascending, alternate from the front.
    Slices with the same result as their insert-at-front loop. Four items give ranks
    2 4 3 1 (best last); five give 1 3 5 4 2 (best first): it depends on the parity."""
    ascending = _ordered(items, "items")[::-1]
    return ascending[0::2][::-1] + ascending[1::2]


def build_layout(relevant: Chunk, irrelevant, layout: str) -> tuple[Chunk, ...]:
    """One relevant chunk among the irrelevant ones (kept in their given order).

    head: relevant first; tail: relevant last; middle: relevant at index
    len(irrelevant) // 2 (for an odd count, the earlier of the two middle places).
    """
    if not isinstance(relevant, Chunk):
        raise TypeError(f"relevant must be a Chunk, got {type(relevant).__name__} {short(relevant)}")
    return place(relevant, _check_chunks(irrelevant, "irrelevant"), layout)


def place(relevant: Chunk, others: tuple, layout: str) -> tuple[Chunk, ...]:
    """build_layout without the checks, for the experiments' inputs."""
    if layout == "head":
        index = 0
    elif layout == "tail":
        index = len(others)
    elif layout == "middle":
        index = len(others) // 2
    else:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {short(layout)}")
    return others[:index] + (relevant,) + others[index:]


def share_of_change(before, after) -> Fraction:
    """Share of paired readings whose cited id differs (a refusal is the id None), as a Fraction.

    `before` and `after` are the cited ids of the same questions in the same order: lists,
    tuples or generators (each read once). Sets and dict views are refused (TypeError):
    their order depends on the hash seed, so the pairs would not line up.
    """
    from fractions import Fraction  # here, not at the top: the lesson command never needs it

    first = _ordered(before, "before")
    return Fraction(changes(first, _ordered(after, "after")), len(first))


def changes(first: list, second: list, names: tuple = ("before", "after")) -> int:
    """How many pairs differ, after checking that the two runs pair up and are not empty."""
    if len(first) != len(second):
        raise ValueError(f"{names[0]} and {names[1]} must pair up, got {len(first)} and {len(second)} items")
    if not first:
        raise ValueError(f"{names[0]} must not be empty: the share of nothing is undefined")
    return sum(1 for a, b in zip(first, second) if a != b)


def order_effect(first, reordered, reseeded) -> OrderEffect:
    """Is the change of order bigger than the run-to-run baseline?

    `first`: the cited ids of one run; `reordered`: same seed, only the order changed;
    `reseeded`: same order, only the seed changed. order_share and seed_share are their
    shares of change against `first`; `exceeds` is order_share > seed_share (equal is not
    more). Each argument as for share_of_change.
    """
    from fractions import Fraction

    runs = [_ordered(run, name) for run, name in ((first, "first"), (reordered, "reordered"),
                                                  (reseeded, "reseeded"))]
    moved, reseeded_count, exceeds = order_effect_counts(*runs)
    return OrderEffect(Fraction(moved, len(runs[0])), Fraction(reseeded_count, len(runs[0])), exceeds)


def order_effect_counts(first: list, reordered: list, reseeded: list) -> tuple[int, int, bool]:
    """order_effect in counts over the same questions, (order, seed, order > seed): what the
    trace uses, so that a lesson run never imports fractions."""
    order_count = changes(first, reordered, ("first", "reordered"))
    seed_count = changes(first, reseeded, ("first", "reseeded"))
    return order_count, seed_count, order_count > seed_count


# ---------------------------------------------------------------- the fictional fixture

# A fictional ferry company on a fictional sound. Each concept has two records that
# share most words; some pairs even state the same value, so an answer can be right
# while its citation names the wrong record.
_RECORDS = """\
fare-weekday|fare|4 crowns|One crossing of the sound costs 4 crowns for an adult on a weekday.
fare-weekend|fare|5 crowns|One crossing of the sound costs 5 crowns for an adult at the weekend.
fare-holiday|fare|6 crowns|One crossing of the sound costs 6 crowns for an adult on a public holiday.
fare-return|fare|7 crowns|A return crossing of the sound costs 7 crowns for an adult.
fare-child|fare|2 crowns|One crossing of the sound costs 2 crowns for a child aged five to fifteen.
fare-infant|fare|free|One crossing of the sound costs nothing for a child under five with an adult.
fare-student|fare|3 crowns|One crossing of the sound costs 3 crowns for a student with a valid card.
fare-senior|fare|3 crowns|One crossing of the sound costs 3 crowns for a senior over seventy.
fare-bicycle|fare|1 crown|One crossing of the sound costs 1 crown for a bicycle, paid at the ramp.
fare-car|fare|30 crowns|One crossing of the sound costs 30 crowns for a car and its driver.
first-gull-summer|departure|06:10|In summer the first boat of the Gull route leaves Tarnby at 06:10.
first-gull-winter|departure|07:40|In winter the first boat of the Gull route leaves Tarnby at 07:40.
last-gull-summer|departure|23:15|In summer the last boat of the Gull route leaves Skerra at 23:15.
last-gull-winter|departure|21:30|In winter the last boat of the Gull route leaves Skerra at 21:30.
first-reef-summer|departure|06:50|In summer the first boat of the Reef route leaves Tarnby at 06:50.
first-reef-winter|departure|08:20|In winter the first boat of the Reef route leaves Tarnby at 08:20.
last-reef-summer|departure|22:40|In summer the last boat of the Reef route leaves Holm at 22:40.
last-reef-winter|departure|20:10|In winter the last boat of the Reef route leaves Holm at 20:10.
first-sunday|departure|08:30|On Sundays the first boat of either route leaves Tarnby at 08:30.
last-sunday|departure|20:00|On Sundays the last boat of either route leaves its island at 20:00.
office-weekday|opening|07:00 to 19:00|The ticket office in the terminal is open 07:00 to 19:00 on weekdays.
office-saturday|opening|08:00 to 14:00|The ticket office in the terminal is open 08:00 to 14:00 on Saturdays.
office-sunday|opening|closed|The ticket office in the terminal is closed on Sundays; use the kiosk.
cafe-summer|opening|07:00 to 20:00|The cafe on the boat is open 07:00 to 20:00 in summer.
cafe-winter|opening|08:00 to 17:00|The cafe on the boat is open 08:00 to 17:00 in winter.
kiosk-hours|opening|06:00 to 23:30|The ticket kiosk on the pier is open 06:00 to 23:30 every day.
lost-desk|opening|09:00 to 12:00|The lost property desk in the terminal is open 09:00 to 12:00 on weekdays.
info-desk|opening|06:00 to 22:00|The info desk in the terminal is open 06:00 to 22:00 every day.
shop-summer|opening|10:00 to 18:00|The harbour shop is open 10:00 to 18:00 in summer only.
lounge-hours|opening|05:30 to 23:30|The waiting lounge in the terminal is open 05:30 to 23:30 every day.
bags-cabin|allowed|two bags|Each passenger may bring two bags into the cabin of the boat.
bags-hold|allowed|25 kg per bag|Each passenger may put bags of up to 25 kg in the hold of the boat.
dogs-cabin|allowed|on a short lead|Each passenger may bring a dog into the cabin of the boat on a short lead.
dogs-deck|allowed|on a short lead|Each passenger may keep a dog on the open deck of the boat on a short lead.
bikes-gull|allowed|on the deck|Each passenger may bring a bicycle onto the Gull boat and stow it on the deck.
bikes-reef|allowed|in the racks|Each passenger may bring a bicycle onto the Reef boat and leave it in the racks.
cars-gull|allowed|book the day before|Each driver may bring a car onto the Gull boat if booked the day before.
cars-reef|allowed|no cars|No passenger may bring a car onto the Reef boat: it is too small for cars.
scooters|allowed|folded only|Each passenger may bring an electric scooter onto the boat only when folded.
surfboards|allowed|in the hold|Each passenger may bring a surfboard or kayak onto the boat only in the hold.
"""

_QUESTIONS = """\
q01|fare-weekday|What does one crossing of the sound cost for an adult on a weekday?
q02|fare-weekend|What does one crossing of the sound cost for an adult on a Saturday?
q03|fare-holiday|What does one crossing of the sound cost for an adult on a public holiday?
q04|fare-return|What does a return crossing of the sound cost for an adult?
q05|fare-child|What does one crossing of the sound cost for a child of ten?
q06|fare-infant|What does one crossing of the sound cost for my toddler?
q07|fare-student|What does one crossing of the sound cost for a student?
q08|fare-senior|What does one crossing of the sound cost for a pensioner?
q09|fare-bicycle|What does one crossing of the sound cost for a bicycle?
q10|fare-car|What does one crossing of the sound cost for a car?
q11|first-gull-summer|When does the first boat of the Gull route leave in summer?
q12|first-gull-winter|When does the first boat of the Gull route leave in January?
q13|last-gull-summer|When does the last boat of the Gull route leave Skerra in summer?
q14|last-gull-winter|When does the last boat of the Gull route leave Skerra in December?
q15|first-reef-summer|When does the first boat of the Reef route leave in summer?
q16|first-reef-winter|When does the first boat of the Reef route leave in winter?
q17|last-reef-summer|When does the last boat of the Reef route leave Holm in summer?
q18|last-reef-winter|When does the last boat of the Reef route leave Holm in winter?
q19|first-sunday|When does the first boat of the day leave Tarnby on Sundays?
q20|last-sunday|When does the last boat of the day leave on Sundays?
q21|office-weekday|When is the ticket office in the terminal open on weekdays?
q22|office-saturday|When is the ticket office in the terminal open on Saturdays?
q23|office-sunday|Is the ticket office in the terminal open on Sundays?
q24|cafe-summer|When is the cafe on the boat open in summer?
q25|cafe-winter|When is the cafe on the boat open in winter?
q26|kiosk-hours|When is the ticket kiosk on the pier open?
q27|lost-desk|When is the lost property desk in the terminal open?
q28|info-desk|When is the info desk in the terminal open?
q29|shop-summer|Is the harbour shop open in winter?
q30|lounge-hours|When is the waiting lounge in the terminal open?
q31|bags-cabin|How many bags may a passenger bring into the cabin of the boat?
q32|bags-hold|How heavy may a bag in the hold of the boat be?
q33|dogs-cabin|May a passenger bring a dog into the cabin of the boat?
q34|dogs-deck|May a passenger keep a dog on the open deck of the boat?
q35|bikes-gull|Where may a passenger stow a bicycle on the Gull boat?
q36|bikes-reef|Where may a passenger leave a bicycle on the Reef boat?
q37|cars-gull|May a driver bring a car onto the Gull boat?
q38|cars-reef|May a driver bring a car onto the Reef boat?
q39|scooters|May a passenger bring an electric scooter onto the boat?
q40|surfboards|May a passenger bring a kayak onto the boat?
"""

CHUNKS = tuple(Chunk(*line.split("|")) for line in _RECORDS.splitlines())
QUERIES = tuple(Query(qid, text, gold) for qid, gold, text in (line.split("|") for line in _QUESTIONS.splitlines()))
