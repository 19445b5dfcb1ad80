"""Lesson 05, order: position is a hypothesis to measure.

The lab's quote copier (lesson 01) has no position effect: it copies chunks in
order and reads every one. Position effects belong to particular readers. Liu et
al. ("Lost in the Middle: How Language Models Use Long Contexts", TACL 2024)
measured them for the models and tasks they tested; a new reader needs a new
measurement.

This lesson measures them on a FICTIONAL READER SIMULATOR: no model, a few lines
of seeded arithmetic. It refuses when the prompt exceeds a 240 lab-token window.
Otherwise it attends to each chunk with a position weight (first 1.0, last 0.8,
every other 0.45), then picks one attended chunk, favouring query overlap with a
temperature, and answers from it, citing its id. Every number it produces is a
property of this simulator, never of a real model.

Nothing here imports `random`: splitmix64 steps turn (seed, query, chunk id)
into the reader's draws, which is plenty for a teaching simulation and keeps
every run byte-identical.
"""

from __future__ import annotations

import math
import re
from collections import namedtuple

from modules.common.checks import sequence_of
from modules.common.units import lab_tokens

__all__ = [
    "Chunk", "Query", "Reading", "WINDOW", "POSITION_WEIGHTS", "TEMPERATURE", "SEED", "LAYOUTS",
    "CHUNKS", "QUERIES", "position_weight", "build_prompt", "prompt_tokens", "simulate_reader",
    "rank_chunks", "reorder_lost_in_middle", "reorder_parity_variant", "build_layout",
    "share_of_change", "trace", "view",
]

LABEL = "FICTIONAL reader simulator (seeded arithmetic, no model)"
WINDOW = 240                 # lab tokens, counted with modules.common.units.lab_tokens
POSITION_WEIGHTS = {"first": 1.0, "last": 0.8, "other": 0.45}
TEMPERATURE = 1.0            # overlap difference that multiplies a chunk's odds by e
SEED = 507                   # the lesson's own seed; --seed N replaces it (see the notebook on seeds)
K_SWEEP = tuple(range(1, 14))
IRRELEVANT_COUNTS = (0, 2, 4, 8)
LAYOUTS = ("head", "middle", "tail")
POLICY_KS = (4, 5, 8, 9)
INSTRUCTION = "Answer from the chunks below and cite the id of the chunk you used."


class Chunk(namedtuple("Chunk", "id concept value text")):
    """One retrievable chunk. `value` is the fact an answer drawn from it states.

    A validated named tuple, not a frozen dataclass: just as immutable, and the
    lesson command then never imports dataclasses (about 6 ms of every run). Its
    content words and prompt-line tokens are derived on first use and cached.
    """

    __slots__ = ()

    def __new__(cls, id: str, concept: str, value: str, text: str):
        self = super().__new__(cls, id, concept, value, text)
        for name, field in zip(cls._fields, self):
            if not isinstance(field, str):
                raise TypeError(f"Chunk.{name} must be a str, got {type(field).__name__} {field!r}")
            if not field.strip():
                raise ValueError(f"Chunk.{name} must not be empty, got {field!r}")
        return self

    @property
    def words(self) -> frozenset:
        return content_words(self.text)

    @property
    def line_tokens(self) -> int:
        """Lab tokens of the chunk's prompt line '[id] text'."""
        return _facts_of(self)[2]


class Query(namedtuple("Query", "id text gold_id")):
    """One evaluation question. `gold_id` is a label: the reader never receives it."""

    __slots__ = ()


class Reading(namedtuple("Reading", "cited_id answer prompt_tokens refused")):
    """What the simulated reader did: refused (prompt over the window) or cited one chunk."""

    __slots__ = ()


# ---------------------------------------------------------------- checks

def _check_int(value: object, name: str, low: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    return value


def _check_chunks(chunks: object, name: str = "chunks") -> tuple[Chunk, ...]:
    return sequence_of(chunks, Chunk, name)


def _check_question(question: object) -> str:
    if not isinstance(question, str):
        raise TypeError(f"question must be a str, got {type(question).__name__} {question!r}")
    if not question.strip():
        raise ValueError(f"question must not be empty, got {question!r}")
    return question


# ---------------------------------------------------------------- words and prompt

_STOPWORDS = frozenset(
    "a an and any are at be by can do does for from how i in is it its may me must my of on or "
    "the to what when where which who will with".split())
_SPLIT = re.compile(r"[^a-z0-9]+")
_words_cache: dict[str, frozenset] = {}


def content_words(text: str) -> frozenset:
    """Lower-cased words without stopwords; a trailing 's' is dropped so 'crowns' meets 'crown'."""
    found = _words_cache.get(text)
    if found is None:
        words = {w[:-1] if len(w) > 3 and w[-1] == "s" else w for w in _SPLIT.split(text.lower())}
        found = _words_cache[text] = frozenset(words - _STOPWORDS - {""})
    return found


def build_prompt(question: str, chunks) -> str:
    """The exact text the reader receives; the window is counted on this string."""
    lines = [INSTRUCTION, "Question: " + _check_question(question)]
    lines += [f"[{c.id}] {c.text}" for c in _check_chunks(chunks)]
    return "\n".join(lines)


_heads: dict[str, int] = {}     # question -> lab tokens of the instruction and question lines
_facts: dict[Chunk, tuple] = {}  # chunk -> (hash of its id, content words, lab tokens of its '[id] text' line)


def _head_tokens(question: str) -> int:
    found = _heads.get(question)
    if found is None:
        found = _heads[question] = lab_tokens(f"{INSTRUCTION}\nQuestion: {question}")
    return found


def _facts_of(chunk: Chunk) -> tuple:
    found = _facts.get(chunk)
    if found is None:
        found = _facts[chunk] = (_label_hash(chunk.id), content_words(chunk.text),
                                 lab_tokens(f"[{chunk.id}] {chunk.text}"))
    return found


def prompt_tokens(question: str, chunks) -> int:
    """lab_tokens(build_prompt(question, chunks)), counted piece by piece.

    Lab tokens split on whitespace, so the prompt's count is the sum of its
    lines' counts; each chunk counts its own line once, when it is built.
    """
    return _head_tokens(_check_question(question)) + sum(_facts_of(c)[2] for c in _check_chunks(chunks))


# ---------------------------------------------------------------- the simulator

_MASK = (1 << 64) - 1
_UNIT = 2.0 ** -53


def _splitmix(value: int) -> int:
    value = (value + 0x9E3779B97F4A7C15) & _MASK
    value = ((value ^ (value >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    value = ((value ^ (value >> 27)) * 0x94D049BB133111EB) & _MASK
    return value ^ (value >> 31)


def reading_seed(seed: int, query_number: int) -> int:
    """The seed of one query's reading in a run: every layout of that query shares it."""
    return _splitmix(_splitmix(_check_int(seed, "seed")) ^ _check_int(query_number, "query_number"))


def position_weight(index: int, count: int) -> float:
    """How likely the reader is to attend to the chunk at `index` of `count`."""
    _check_int(count, "count", 1)
    if _check_int(index, "index") >= count:
        raise ValueError(f"index must be < count ({count}), got {index}")
    if index == 0:
        return POSITION_WEIGHTS["first"]
    if index == count - 1:
        return POSITION_WEIGHTS["last"]
    return POSITION_WEIGHTS["other"]


_label_hashes: dict[str, int] = {}


def _label_hash(label: str) -> int:
    found = _label_hashes.get(label)
    if found is None:
        found = 0xCBF29CE484222325  # FNV-1a: a fixed hash, unlike hash() under PYTHONHASHSEED
        for byte in label.encode("utf-8"):
            found = ((found ^ byte) * 0x100000001B3) & _MASK
        _label_hashes[label] = found
    return found


def uniform(state: int, label: str) -> float:
    """The reading's draw in [0, 1) named `label`: same state and label, same number."""
    return ((_splitmix(state ^ _label_hash(label)) >> 11) + 0.5) * _UNIT


_seen: dict[tuple, dict[str, tuple]] = {}    # (state, question) -> chunk id -> what the reader drew
_noise: dict[int, list[float]] = {}           # state -> Gumbel noise by slot
_SLOTS = [_label_hash(f"slot {index}") for index in range(16)]


def _slot_noise(state: int, count: int) -> list[float]:
    found = _noise.get(state)
    if found is None:
        found = _noise[state] = []
    while len(_SLOTS) < count:
        _SLOTS.append(_label_hash(f"slot {len(_SLOTS)}"))
    log = math.log
    for slot in _SLOTS[len(found):count]:  # uniform(state, f"slot {index}"), with the label hashed once
        found.append(-log(-log(((_splitmix(state ^ slot) >> 11) + 0.5) * _UNIT)))
    return found


def simulate_reader(question: str, chunks, seed: int, window: int = WINDOW) -> Reading:
    """FICTIONAL reader: refuse over the window, else attend by position, pick by overlap.

    Attention: a chunk is read when its salience draw is below its position
    weight (the first weight is 1.0, so one chunk always is). The salience draw
    is named after the chunk id, so it follows the chunk when the order changes
    and only the weight it is compared with moves: position alone decides.

    Choice: among the read chunks, the highest overlap / TEMPERATURE plus
    Gumbel noise wins, which draws each with odds exp(overlap / TEMPERATURE).
    The noise is named after the slot, like a sampler's noise, which does not
    follow a chunk around either: a new order is also a new sample.
    """
    chunks = _check_chunks(chunks)
    if not chunks:
        raise ValueError("chunks must hold at least one Chunk, got an empty context")
    state = _splitmix(_check_int(seed, "seed"))
    chosen, tokens = _read(_check_question(question), chunks, state, _check_int(window, "window", 1))
    if chosen is None:
        return Reading(None, None, tokens, True)
    return Reading(chosen.id, chosen.value, tokens, False)


def _read(question: str, chunks: tuple, state: int, window: int) -> tuple:
    """The unchecked core: (chosen chunk or None for a refusal, prompt tokens).

    The experiments call it thousands of times with inputs they built, so it
    keeps to dictionary look-ups and one pass over the chunks.
    """
    seen = _seen.get((state, question))
    if seen is None:
        seen = _seen[state, question] = {}
    noise = _noise.get(state)
    if noise is None or len(noise) < len(chunks):
        noise = _slot_noise(state, len(chunks))
    weights = _weights.get(len(chunks)) or _weights_of(len(chunks))
    tokens, best, best_score = _heads.get(question) or _head_tokens(question), None, 0.0
    for chunk, weight, slot_noise in zip(chunks, weights, noise):
        known = seen.get(chunk.id)  # (salience draw, overlap / TEMPERATURE, line tokens, the chunk)
        if known is None or known[3] is not chunk:
            known = seen[chunk.id] = _draw(question, chunk, state)
        tokens += known[2]
        if known[0] < weight:
            score = known[1] + slot_noise
            if best is None or score > best_score:
                best, best_score = chunk, score
    return (None if tokens > window else best), tokens


def _draw(question: str, chunk: Chunk, state: int) -> tuple:
    label, words, tokens = _facts.get(chunk) or _facts_of(chunk)  # uniform(state, chunk.id), label hashed once
    return (((_splitmix(state ^ label) >> 11) + 0.5) * _UNIT, len(content_words(question) & words) / TEMPERATURE,
            tokens, chunk)


_FIRST, _LAST, _OTHER = POSITION_WEIGHTS["first"], POSITION_WEIGHTS["last"], POSITION_WEIGHTS["other"]
_weights: dict[int, list[float]] = {}  # count -> position_weight(index, count) for every index


def _weights_of(count: int) -> list[float]:
    _weights[count] = [_FIRST] + [_OTHER] * (count - 2) + [_LAST] * (count > 1)
    return _weights[count]


def _read_prefixes(question: str, chunks: tuple, state: int, window: int) -> list[tuple]:
    """_read(question, chunks[:k], state, window) for every k from 1 to len(chunks), in one pass.

    A prefix only adds a last chunk, so the draws of the chunks before it stay
    what they were: keep the best chunk among the first place and the middle
    places, and compare it with the new last chunk (read at 0.8). The tests
    check that every prefix agrees with _read.
    """
    seen = _seen.get((state, question))
    if seen is None:
        seen = _seen[state, question] = {}
    noise = _slot_noise(state, len(chunks))
    tokens, out, best, best_score = _head_tokens(question), [], None, 0.0
    for index, chunk in enumerate(chunks):
        known = seen.get(chunk.id)
        if known is None or known[3] is not chunk:
            known = seen[chunk.id] = _draw(question, chunk, state)
        tokens += known[2]
        if tokens > window:  # every longer prefix is over the window too
            out.append((None, tokens))
            continue
        score = known[1] + noise[index]
        if index == 0:
            best, best_score = chunk, score  # the first place is always read
            out.append((chunk, tokens))
            continue
        last_wins = known[0] < _LAST and score > best_score
        out.append((chunk if last_wins else best, tokens))
        if known[0] < _OTHER and score > best_score:  # from the next prefix on, a middle place
            best, best_score = chunk, score
    return out


# ---------------------------------------------------------------- retrieval, reorder, layouts

def rank_chunks(question: str, chunks) -> tuple[Chunk, ...]:
    """The lesson's lexical retriever: shared words weighted by rarity, ties by id."""
    chunks = _check_chunks(chunks)
    return _Index(chunks).rank(content_words(_check_question(question)))


class _Index:
    """Word -> chunks holding it, and each word's rarity log(1 + N / chunks holding it)."""

    def __init__(self, chunks: tuple) -> None:
        self.by_id = sorted(chunks, key=lambda c: c.id)
        self.holding: dict[str, list[int]] = {}
        for place, chunk in enumerate(self.by_id):
            for word in chunk.words:
                self.holding.setdefault(word, []).append(place)
        self.rarity = {w: math.log(1 + len(chunks) / len(held)) for w, held in self.holding.items()}

    def rank(self, asked: frozenset) -> tuple[Chunk, ...]:
        scores: dict[int, float] = {}  # position in by_id -> score; ints hash fast and sort by id
        for word in sorted(asked & self.rarity.keys()):  # a fixed order, so float sums never vary
            weight = self.rarity[word]
            for place in self.holding[word]:
                scores[place] = scores.get(place, 0.0) + weight
        scored = sorted(scores, key=lambda place: (-round(scores[place], 9), place))
        return tuple(self.by_id[p] for p in scored) + tuple(c for p, c in enumerate(self.by_id) if p not in scores)


def _sequence(items: object) -> list:
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"items must be a sequence, got {type(items).__name__} {items!r}")
    return list(items)


def reorder_lost_in_middle(items) -> list:
    """Items given best first -> best first, second best last, alternating inward.

    Ten items come out as ranks 1 3 5 7 9 10 8 6 4 2: the odd ranks walk in from
    the front, the even ranks walk in from the back. Two slices, linear time.
    """
    items = _sequence(items)
    return items[0::2] + items[1::2][::-1]


def reorder_parity_variant(items) -> list:
    """The widely copied variant: sort ascending, then alternate from the front.

    Written here as slices with the same result as the insert-at-front loop it
    copies. Four items give ranks 2 4 3 1 (best last); five give 1 3 5 4 2 (best
    first): where the best item lands depends on whether the count is even.
    """
    ascending = _sequence(items)[::-1]
    return ascending[0::2][::-1] + ascending[1::2]


def build_layout(relevant: Chunk, irrelevant, layout: str) -> tuple[Chunk, ...]:
    """One relevant chunk among the irrelevant ones (kept in their given order).

    head: relevant first; tail: relevant last; middle: relevant at index
    len(irrelevant) // 2 (for an odd count, the earlier of the two middle places).
    """
    if not isinstance(relevant, Chunk):
        raise TypeError(f"relevant must be a Chunk, got {type(relevant).__name__} {relevant!r}")
    return _place(relevant, _check_chunks(irrelevant, "irrelevant"), layout)


def _place(relevant: Chunk, others: tuple, layout: str) -> tuple[Chunk, ...]:
    if layout == "head":
        place = 0
    elif layout == "tail":
        place = len(others)
    elif layout == "middle":
        place = len(others) // 2
    else:
        raise ValueError(f"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}")
    return others[:place] + (relevant,) + others[place:]


def share_of_change(before, after) -> Fraction:
    """Share of paired readings whose cited id differs (a refusal is the id None), as a Fraction."""
    from fractions import Fraction  # here, not at the top: the lesson command never needs it

    first, second = _sequence(before), _sequence(after)
    if len(first) != len(second):
        raise ValueError(f"before and after must pair up, got {len(first)} and {len(second)} items")
    if not first:
        raise ValueError("before must not be empty: the share of nothing is undefined")
    return Fraction(_changed(first, second), len(first))


def _changed(first: list, second: list) -> int:
    return sum(1 for a, b in zip(first, second) if a != b)


# ---------------------------------------------------------------- the fictional fixture

# A fictional ferry company on a fictional sound. Each concept has two records that
# share most words; some pairs even state the same value, so an answer can be right
# while its citation names the wrong record.
_RECORDS = """\
fare-weekday|fare|4 crowns|On weekdays an adult ticket for any crossing costs 4 crowns at the harbour kiosk.
fare-holiday|fare|6 crowns|On public holidays an adult ticket for any crossing costs 6 crowns at the harbour kiosk.
first-summer|first-boat|06:10|In summer the first boat leaves Tarnby harbour at 06:10 every morning.
first-winter|first-boat|07:40|In winter the first boat leaves Tarnby harbour at 07:40 every morning.
last-summer|last-boat|23:15|The last summer crossing back from Skerra island departs at 23:15.
last-winter|last-boat|21:30|The last winter crossing back from Skerra island departs at 21:30.
bikes-gull|bicycles|free|Bicycles travel free on the Gull route when stowed on the rear deck.
bikes-reef|bicycles|free|Bicycles travel free on the Reef route; the racks sit beside the ramp.
dogs-cabin|dogs|on a short lead|Dogs may enter the passenger cabin only on a short lead.
dogs-deck|dogs|on a short lead|Dogs on the open deck must stay on a short lead near the rail.
lost-north|lost-property|Shed 4|Lost property found on the north pier is kept in Shed 4 for thirty days.
lost-south|lost-property|Shed 9|Lost property found on the south pier is kept in Shed 9 for thirty days.
parking-short|parking|2 crowns per hour|Short stay parking at the ferry terminal costs 2 crowns per hour.
parking-long|parking|9 crowns per day|Long stay parking behind the ferry terminal costs 9 crowns per day.
cars-gull|cars|book the day before|Cars on the Gull route need a booking made the day before sailing.
cars-reef|cars|no cars|The Reef route boat is too small to carry cars of any size.
child-under5|child-fare|free|Children under five ride free when they sit with a paying adult.
child-school|child-fare|2 crowns|Children of school age pay a child fare of 2 crowns per crossing.
access-gull|wheelchair|ramp at gate B|Wheelchair users board the Gull route boat by the ramp at gate B.
access-reef|wheelchair|ramp at gate B|Wheelchair users board the Reef route boat by the ramp at gate B as well.
storm-wind|cancellation|wind above force 7|Crossings are cancelled when the forecast wind is above force 7.
storm-fog|cancellation|visibility under 200 metres|Crossings pause while fog keeps visibility under 200 metres.
pass-month|pass|55 crowns|A monthly pass for unlimited crossings costs 55 crowns.
pass-year|pass|480 crowns|A yearly pass for unlimited crossings costs 480 crowns.
cafe-summer|cafe|until 20:00|The onboard cafe serves hot food until 20:00 during summer.
cafe-winter|cafe|until 17:00|The onboard cafe serves hot food until 17:00 during winter.
bags-cabin|luggage|two bags|Each passenger may bring two bags into the cabin.
bags-hold|luggage|25 kg|Bags stowed in the hold may weigh up to 25 kg each.
refund-cancelled|refund|full refund|When the company cancels a crossing, tickets are refunded in full.
refund-missed|refund|no refund|A passenger who misses a sailing gets no refund but may rebook once.
office-weekday|ticket-office|07:00 to 19:00|The ticket office in the terminal opens 07:00 to 19:00 on weekdays.
office-sunday|ticket-office|10:00 to 16:00|The ticket office in the terminal opens 10:00 to 16:00 on Sundays.
time-gull|crossing-time|35 minutes|A crossing on the Gull route to Skerra island takes 35 minutes.
time-reef|crossing-time|50 minutes|A crossing on the Reef route to Holm island takes 50 minutes.
discount-student|discount|half fare|Students with a valid card travel at half fare on weekdays.
discount-senior|discount|half fare|Seniors over seventy travel at half fare on weekdays.
gate-foot|check-in|10 minutes|Foot passengers should reach the gate 10 minutes before departure.
gate-car|check-in|30 minutes|Drivers should reach the car lane 30 minutes before departure.
aid-boat|first-aid|crew cabin|A first aid kit is kept in the crew cabin on every boat.
aid-terminal|first-aid|info desk|A first aid kit and a defibrillator hang by the info desk in the terminal.
"""

_QUESTIONS = """\
q01|fare-weekday|How much is an adult ticket on a weekday?
q02|fare-holiday|What does an adult pay for a crossing on a public holiday?
q03|first-summer|When does the first boat leave in summer?
q04|first-winter|It is January: when does the first boat leave Tarnby harbour?
q05|last-summer|When is the last summer crossing back from Skerra?
q06|last-winter|What time does the last crossing leave Skerra island in December?
q07|bikes-gull|Can I take a bicycle on the Gull route?
q08|bikes-reef|Do bicycles cost extra on the Reef route?
q09|dogs-cabin|Can my dog come into the passenger cabin?
q10|dogs-deck|What are the rules for dogs on the open deck?
q11|lost-north|Where is lost property from the north pier kept?
q12|lost-south|I lost my scarf on the south pier; where do I look?
q13|parking-short|What does short stay parking cost at the terminal?
q14|parking-long|How much is long stay parking per day?
q15|cars-gull|Can I bring my car on the Gull route?
q16|cars-reef|Does the Reef route boat carry cars?
q17|child-under5|Does a toddler need a ticket?
q18|child-school|What fare does a pupil pay?
q19|access-gull|How does a wheelchair user board the Gull route boat?
q20|access-reef|Where do wheelchair users board on the Reef route?
q21|storm-wind|How strong must the wind be before crossings are cancelled?
q22|storm-fog|Do crossings stop in thick fog?
q23|pass-month|How much is a monthly pass?
q24|pass-year|What does a pass for the whole year cost?
q25|cafe-summer|Until when does the cafe serve hot food in summer?
q26|cafe-winter|How late can I get hot food on board in winter?
q27|bags-cabin|How many bags can I bring into the cabin?
q28|bags-hold|What is the weight limit for checked luggage?
q29|refund-cancelled|Do I get my money back if the company cancels the crossing?
q30|refund-missed|I missed my sailing; can I get a refund?
q31|office-weekday|When is the ticket office open on weekdays?
q32|office-sunday|Is the ticket office open on Sunday?
q33|time-gull|How long is the crossing to Skerra?
q34|time-reef|How long does the trip to Holm take?
q35|discount-student|Do students get a discount?
q36|discount-senior|Is there a cheaper fare for pensioners?
q37|gate-foot|How early should a foot passenger be at the gate?
q38|gate-car|How early must drivers arrive before departure?
q39|aid-boat|Where is the first aid kit on the boat?
q40|aid-terminal|Is there a defibrillator in the terminal?
"""

CHUNKS = tuple(Chunk(*line.split("|")) for line in _RECORDS.splitlines())
QUERIES = tuple(Query(qid, text, gold) for qid, gold, text in (l.split("|") for l in _QUESTIONS.splitlines()))


# ---------------------------------------------------------------- the experiments

def _share(count, total: int) -> float:
    # 40 queries: every share is a multiple of 0.025, so 3 decimals are exact.
    return round(float(count) / total, 3)


def _rankings() -> tuple[tuple[Chunk, ...], ...]:
    index = _Index(CHUNKS)
    return tuple(index.rank(content_words(q.text)) for q in QUERIES)


_states: dict[int, list[int]] = {}


def _states_of(seed: int) -> list[int]:
    """The mixed reading seed of each query in a run: query i draws from reading_seed(seed, i)."""
    states = _states.get(seed)
    if states is None:
        states = _states[seed] = [_splitmix(reading_seed(seed, n)) for n in range(len(QUERIES))]
    return states


def _read_all(contexts, seed: int) -> list[tuple]:
    """One (chosen chunk or None, prompt tokens) per query."""
    return [_read(q.text, context, state, WINDOW) for q, context, state in zip(QUERIES, contexts, _states_of(seed))]


def _read_all_prefixes(contexts, seed: int) -> list[list[tuple]]:
    """Per query, the readings of every prefix of its context (see _read_prefixes)."""
    return [_read_prefixes(q.text, context, state, WINDOW)
            for q, context, state in zip(QUERIES, contexts, _states_of(seed))]


_GOLD: list[Chunk] = []  # the gold chunk of each query, filled on first use


def _scores(readings: list[tuple]) -> dict:
    """Generation (right value) and citation (right concept, right record); refusals count as wrong."""
    if not _GOLD:
        by_id = {c.id: c for c in CHUNKS}
        _GOLD.extend(by_id[q.gold_id] for q in QUERIES)
    right = concept = record = 0
    for gold, (chosen, _tokens) in zip(_GOLD, readings):
        if chosen is not None:
            right += chosen.value == gold.value
            concept += chosen.concept == gold.concept
            record += chosen is gold
    total = len(QUERIES)
    return {"generation": _share(right, total), "cite_concept": _share(concept, total),
            "cite_record": _share(record, total)}


def _cited(readings: list[tuple]) -> list:
    return [None if chosen is None else chosen.id for chosen, _tokens in readings]


def k_sweep(rankings, seed: int) -> tuple[list[dict], dict]:
    """Top-k in rank order for k = 1..13: prompt size, overflow, recall@k and the reader's scores."""
    rows, readings_by_k = [], {}
    gold_ranks = [[c.id for c in ranking].index(q.gold_id) + 1 for q, ranking in zip(QUERIES, rankings)]
    prefixes = _read_all_prefixes([ranking[:max(K_SWEEP)] for ranking in rankings], seed)
    for k in K_SWEEP:
        readings = readings_by_k[k] = [found[k - 1] for found in prefixes]
        tokens = [t for _chosen, t in readings]
        found = sum(rank <= k for rank in gold_ranks)
        rows.append({"k": k, "avg_prompt": round(sum(tokens) / len(tokens), 3), "max_prompt": max(tokens),
                     "overflow": sum(chosen is None for chosen, _t in readings),
                     "recall": _share(found, len(QUERIES)), **_scores(readings)})
    return rows, readings_by_k


def _distractors(rankings) -> list[tuple[Chunk, list[Chunk]]]:
    # Irrelevant = the retriever's best chunks from other concepts: distractors a real run would see.
    by_id = {c.id: c for c in CHUNKS}
    found = []
    for query, ranking in zip(QUERIES, rankings):
        gold = by_id[query.gold_id]
        others = [c for c in ranking if c.concept != gold.concept][:max(IRRELEVANT_COUNTS)]
        found.append((gold, tuple(others)))
    return found


def _ordering(values: dict) -> str:
    """'head > tail > middle' from generation by layout; equal values are joined with '='."""
    ranked = sorted(LAYOUTS, key=lambda layout: (-values[layout], LAYOUTS.index(layout)))
    text = ranked[0]
    for before, after in zip(ranked, ranked[1:]):
        text += (" = " if values[before] == values[after] else " > ") + after
    return text


def layout_experiment(rankings, seed: int) -> dict:
    """One relevant chunk plus j irrelevant ones, three layouts, this seed and the next."""
    second, pairs = seed + 1, _distractors(rankings)
    # Every head layout is a prefix of the longest one: one pass per seed reads them all.
    longest = [_place(gold, others, "head") for gold, others in pairs]
    heads = {run: _read_all_prefixes(longest, run) for run in (seed, second)}
    rows, change, orderings = [], [], []
    for count in IRRELEVANT_COUNTS:
        cited, generation = {}, {}
        for layout in LAYOUTS:
            # With j = 0 every layout is the head layout: the relevant chunk alone.
            contexts = None if layout == "head" or not count else [
                _place(gold, others[:count], layout) for gold, others in pairs]
            for run in (seed, second):
                readings = [found[count] for found in heads[run]] if contexts is None else _read_all(contexts, run)
                cited[layout, run] = _cited(readings)
                generation[layout, run] = _scores(readings)["generation"]
            rows.append({"irrelevant": count, "layout": layout, "generation": generation[layout, seed],
                         "generation_second_seed": generation[layout, second]})
        total = len(QUERIES)
        change.append({"irrelevant": count,
                       "reseed_head": _share(_changed(cited["head", seed], cited["head", second]), total),
                       **{f"order_{layout}": _share(_changed(cited["head", seed], cited[layout, seed]), total)
                          for layout in LAYOUTS[1:]}})
        first, other = ({layout: generation[layout, run] for layout in LAYOUTS} for run in (seed, second))
        orderings.append({"irrelevant": count, "ordering": _ordering(first),
                          "ordering_second_seed": _ordering(other)})
    same = all(row["ordering"] == row["ordering_second_seed"] for row in orderings if row["irrelevant"] >= 2)
    return {"seeds": [seed, second], "generation": rows, "orderings": orderings,
            "same_ordering_on_second_seed": same, "share_of_change": change}


POLICIES = {"rank order": list, "lost in the middle": reorder_lost_in_middle,
            "parity variant": reorder_parity_variant}


def policy_experiment(rankings, seed: int, sweep_readings: dict) -> list[dict]:
    """Each policy reorders the same top-k; the reader's scores show what the order costs.

    Rank order at k is the k sweep's context, and an odd count gives the parity
    variant the same order as lost in the middle: those readings are reused.
    """
    rows = []
    for k in POLICY_KS:
        done = {tuple(range(1, k + 1)): sweep_readings[k]}
        for name, policy in POLICIES.items():
            order = tuple(policy(range(1, k + 1)))
            readings = done.get(order)
            if readings is None:
                readings = done[order] = _read_all([tuple(policy(ranking[:k])) for ranking in rankings], seed)
            scores = _scores(readings)
            rows.append({"k": k, "policy": name, "order": list(order),
                         "generation": scores["generation"], "cite_record": scores["cite_record"]})
    return rows


# ---------------------------------------------------------------- the trace

PUBLISHED = ("A published teaching simulator with the same position weights reported recall@k "
             "0.775 -> 0.975 while generation fell 0.775 -> 0.575 as k went 1 -> 10, and at j = 2 "
             "head 0.825, middle 0.225, tail 0.500. Our fixture and seed differ, so our numbers do too; "
             "the shapes are what carry over.")
COPIER = ("Lesson 01's quote copier has no position effect: it copies every chunk in order. That proves "
          "nothing about other readers. Position effects belong to particular readers: Liu et al., "
          "\"Lost in the Middle: How Language Models Use Long Contexts\" (TACL 2024) found accuracy "
          "highest with the answer at the start or end and lowest in the middle for the models and "
          "tasks they tested; a new reader must be measured again.")
DECISION = ("The order of the context is a design decision: the packet records its policy "
            "(here: rank order, best first), or a measurement made on it cannot be repeated.")


def trace(seed: int = SEED) -> dict:
    """Run the k sweep, the layout experiment and the reorder policies; return a JSON-ready record."""
    _check_int(seed, "seed")
    rankings = _rankings()
    sweep, sweep_readings = k_sweep(rankings, seed)
    return {
        "lesson": "order",
        "simulator": {"label": LABEL, "window_lab_tokens": WINDOW, "position_weights": dict(POSITION_WEIGHTS),
                      "temperature": TEMPERATURE, "seed": seed,
                      "prompt": "instruction line, question line, one '[id] text' line per chunk; "
                                "counted with modules.common.units.lab_tokens; over the window = refusal"},
        "fixture": {"chunks": len(CHUNKS), "concepts": len({c.concept for c in CHUNKS}),
                    "queries": len(QUERIES), "retriever": "shared content words weighted by rarity, ties by id",
                    "note": "fictional ferry company; gold ids are evaluation labels the reader never sees"},
        "k_sweep": sweep,
        "layouts": layout_experiment(rankings, seed),
        "policies": policy_experiment(rankings, seed, sweep_readings),
        "context_order": {"policy": "rank order", "recorded_in": "the packet", "note": DECISION},
        "copier": COPIER,
        "published": PUBLISHED,
    }


def _label(record: dict) -> str:
    sim = record["simulator"]
    weights = sim["position_weights"]
    return (f"{sim['label']}. Window {sim['window_lab_tokens']} lab tokens; position weights first "
            f"{weights['first']}, last {weights['last']}, other {weights['other']}; temperature "
            f"{sim['temperature']}; seed {sim['seed']}. No number below describes a real model.")


def view(record: dict) -> list[dict]:
    """Turn the trace record into printable blocks (headings, text, tables, charts)."""
    layouts = record["layouts"]
    seed, second = layouts["seeds"]
    fixture = record["fixture"]
    blocks = [
        {"heading": "Lesson 05 - order: position is a hypothesis to measure"},
        {"text": _label(record)},
        {"text": record["copier"]},
        {"text": f"Fixture: {fixture['queries']} questions over {fixture['chunks']} chunks "
                 f"({fixture['concepts']} concepts, two records each) of a {fixture['note']}."},
        {"table": {"title": f"k sweep, rank order (fictional reader, seed {seed}); refusals count as wrong",
                   "columns": ["k", "avg prompt", "max prompt", "overflow", "recall@k", "generation",
                               "cites concept", "cites record"],
                   "rows": [[r["k"], r["avg_prompt"], r["max_prompt"], r["overflow"], r["recall"],
                             r["generation"], r["cite_concept"], r["cite_record"]]
                            for r in record["k_sweep"]]}},
        {"text": "Recall@k only grows with k; the reader's accuracy does not: each added chunk is one more "
                 "candidate to answer from, and past the window the reader refuses. 'Cites concept' counts "
                 "answers drawn from the right topic, 'cites record' from the right record: the gap is the "
                 "sibling record, which a citation exposes even when the answer's value happens to match. "
                 + record["published"]},
        {"table": {"title": "Layouts: one relevant chunk plus j irrelevant ones (generation, fictional reader)",
                   "columns": ["j", "layout", f"seed {seed}", f"seed {second}"],
                   "rows": [[r["irrelevant"], r["layout"], r["generation"], r["generation_second_seed"]]
                            for r in layouts["generation"]]}},
        {"chart": {"title": f"Generation by layout, seed {seed} (scale 0 to 1)", "width": 30,
                   "rows": [[f"j={r['irrelevant']} {r['layout']}", r["generation"], 1.0]
                            for r in layouts["generation"]]}},
        {"table": {"title": "Ordering of the layouts, by generation",
                   "columns": ["j", f"seed {seed}", f"seed {second}"],
                   "rows": [[r["irrelevant"], r["ordering"], r["ordering_second_seed"]]
                            for r in layouts["orderings"]]}},
        {"text": "Same ordering on the second seed for every j >= 2: "
                 + ("yes." if layouts["same_ordering_on_second_seed"] else
                    "NO - with 40 questions this seed pair cannot separate the layouts; measure more.")},
        {"table": {"title": f"Share of cited chunks that change (seed {seed})",
                   "columns": ["j", "run to run: head, next seed", "order: head -> middle",
                               "order: head -> tail"],
                   "rows": [[r["irrelevant"], r["reseed_head"], r["order_middle"], r["order_tail"]]
                            for r in layouts["share_of_change"]]}},
        {"text": "Run to run is the baseline: the same head order read with the next seed. A change of "
                 "order that moves more answers than reseeding does is an order effect, not noise."},
        {"table": {"title": f"Reorder policies over the same top-k (seed {seed}); 'order' lists ranks, best = 1",
                   "columns": ["k", "policy", "order", "generation", "cites record"],
                   "rows": [[r["k"], r["policy"], " ".join(map(str, r["order"])), r["generation"],
                             r["cite_record"]] for r in record["policies"]]}},
        {"text": "Lost in the middle puts the best first and the second best last, alternating inward "
                 "(ten items: 1 3 5 7 9 10 8 6 4 2). The parity variant sorts ascending and alternates "
                 "from the front, so for an even count the best lands last, where this reader's weight is "
                 "0.8 instead of 1.0; for an odd count the two orders coincide. The table measures what "
                 "that costs under this reader; another reader needs its own measurement."},
        {"text": record["context_order"]["note"]},
    ]
    return blocks
