"""Lesson 02, budget: keep the units explicit.

Four ideas, each with its own small mechanism:

* A budget walk copies whole chunks in rank order. Its policy is a choice with
  consequences: *skip* a misfit and go on, *stop* at the first misfit, or
  *truncate* the misfit to the room left. Truncation hands on a quote its source
  never said (the cut can drop a "not" or an exception), so the lab skips.
* The context window is shared: window = base input + history + tools + evidence +
  output reserve + margin. The evidence budget is what remains, and a negative
  remainder is an error to report, never a zero to carry on with (modules/budget/window.py,
  which lesson 10 imports without the rest of this lesson).
* A fixed top-k is sized for the average request, but the request that overflows
  is the largest one. An overflowing request gets no answer at all.
* A walk in rank order is not an objective. What the question needs is each of its
  declared sub-questions covered within the budget: budgeted maximum coverage, chosen
  greedily by new facets per unit of cost (the facet model is modules/common/facets.py;
  it reads the question, never the evaluation labels).

Every count goes through a counter, a function str -> int (see modules/common/units.py),
so the same walk runs in characters, UTF-8 bytes or lab tokens. A lab token is a
teaching unit, not a model token: a real model counts its whole input with its own
tokenizer, and the lab ships none. The trace and view are in modules/budget/trace.py.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.common.checks import sequence_of, short, text_of, whole_number
from modules.helpdesk import ENTRIES, entry
from modules.common.facets import Facet, declared_facets, facets_covered
from modules.common.units import chars, lab_tokens
from modules.budget.window import SYSTEM_PROMPT, WORKED, evidence_budget, request_fits

__all__ = [
    "RankedPassage", "BudgetWalk", "Request", "CoverageSelection", "Facet", "POLICIES",
    "fill_budget", "evidence_budget", "request_fits", "prompt_sizes", "count_overflows", "topk_sweep",
    "chunks_that_fit", "window_bar", "facets_covered", "select_for_coverage",
    "RANKED", "SYSTEM_PROMPT", "REQUESTS", "WINDOW_TOKENS", "NON_ASCII", "COVERAGE_QUESTION", "COVERAGE_SUB_QUESTIONS",
    "COVERAGE_FACETS", "COVERAGE_RANKED", "COVERAGE_BUDGET", "COVERAGE_LABELS", "assemble_request",
    "WORKED_QUESTION", "WORKED_EVIDENCE", "WORKED_REQUEST", "WORKED_FINAL_INPUT",
]

POLICIES = ("skip", "stop", "truncate")


@dataclass(frozen=True)
class RankedPassage:
    """One ranked piece of evidence: an id and the text that would be quoted."""

    id: str
    text: str

    def __post_init__(self) -> None:
        text_of(self.id, "RankedPassage.id")
        text_of(self.text, "RankedPassage.text")
        if not self.id.strip():
            raise ValueError(f"RankedPassage.id must not be empty, got {self.id!r}")


@dataclass(frozen=True)
class BudgetWalk:
    """What one walk decided. `kept` holds the chunks as handed on (a truncated one is cut).

    unit: the counter's name; skipped_ids: every chunk not kept, in rank order;
    cut_ids: chunks handed on cut; stopped_at: the id that stopped a "stop" walk.
    """

    policy: str
    unit: str
    budget: int
    kept: tuple[RankedPassage, ...]
    skipped_ids: tuple[str, ...]
    used: int
    cut_ids: tuple[str, ...] = ()
    stopped_at: str | None = None

    @property
    def kept_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.kept)


def _chunks(chunks: object) -> tuple[RankedPassage, ...]:
    return sequence_of(chunks, RankedPassage, "chunks")


def _counter(counter: object):
    if not callable(counter):
        raise TypeError(f"counter must be a function str -> int, got {type(counter).__name__} {short(counter)}")
    return counter


def _measure(counter, text: str) -> int:
    size = counter(text)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise TypeError(f"counter {getattr(counter, '__name__', 'custom')!r} must return an int >= 0, "
                        f"got {type(size).__name__} {short(size)}")
    return size


def _longest_prefix(text: str, room: int, counter) -> str:
    # Binary search over prefix lengths; counters grow with the prefix, so this finds the cut.
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _measure(counter, text[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    return text[:low]


def fill_budget(chunks, budget: int, counter=chars, policy: str = "skip") -> BudgetWalk:
    """Walk `chunks` in rank order under `budget`, counted by `counter` (str -> int).

    skip      a chunk that does not fit is left out whole; the walk goes on
    stop      the first misfit ends the walk; nothing after it is considered
    truncate  the first misfit is cut to the room left (shown to teach why not)
    A chunk whose size exactly fills the room left fits.
    """
    chunks = _chunks(chunks)
    budget = whole_number(budget, "budget")
    counter = _counter(counter)
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {short(policy)}")
    kept, skipped, cut, used, stopped_at = [], [], [], 0, None
    for chunk in chunks:
        if stopped_at is not None:
            skipped.append(chunk.id)
            continue
        size = _measure(counter, chunk.text)
        if used + size <= budget:
            kept.append(chunk)
            used += size
            continue
        if policy == "stop":
            stopped_at = chunk.id
        elif policy == "truncate" and budget > used:
            piece = _longest_prefix(chunk.text, budget - used, counter)
            if piece:
                kept.append(RankedPassage(id=chunk.id, text=piece))
                cut.append(chunk.id)
                used += _measure(counter, piece)
                continue
        skipped.append(chunk.id)
    return BudgetWalk(policy=policy, unit=getattr(counter, "__name__", "custom"), budget=budget, kept=tuple(kept),
                      skipped_ids=tuple(skipped), used=used, cut_ids=tuple(cut), stopped_at=stopped_at)


# ---------------------------------------------------------------- top-k against a window

@dataclass(frozen=True)
class Request:
    """One query of the sweep: its base input and its ranked chunks' sizes (a tuple), in lab tokens."""

    id: str
    question: str
    base_tokens: int
    chunk_tokens: tuple[int, ...]

    def __post_init__(self) -> None:
        text_of(self.id, "Request.id")
        text_of(self.question, "Request.question")
        whole_number(self.base_tokens, f"Request {self.id!r} base_tokens")
        if not isinstance(self.chunk_tokens, tuple):
            raise TypeError(f"Request.chunk_tokens must be a tuple, got {type(self.chunk_tokens).__name__}")
        for size in self.chunk_tokens:
            whole_number(size, f"Request {self.id!r} chunk size")


def prompt_sizes(requests, k: int) -> tuple[int, ...]:
    """Each request's input with its top k chunks: base + the first k chunk sizes."""
    whole_number(k, "k", minimum=1)
    return tuple(r.base_tokens + sum(r.chunk_tokens[:k]) for r in sequence_of(requests, Request, "requests"))


def count_overflows(requests, k: int, window: int) -> int:
    """How many requests with their top k chunks exceed the window (exactly full fits)."""
    whole_number(window, "window", minimum=1)
    return sum(1 for size in prompt_sizes(requests, k) if size > window)


def topk_sweep(requests, window: int, ks) -> list[dict]:
    """Per k: the average and largest prompt, and how many requests overflow the window."""
    requests = sequence_of(requests, Request, "requests")
    if not requests:
        raise ValueError("requests must not be empty")
    rows = []
    for k in sequence_of(ks, int, "ks"):
        sizes = prompt_sizes(requests, k)
        rows.append({"k": k, "average": round(sum(sizes) / len(sizes), 1), "largest": max(sizes),
                     "overflows": count_overflows(requests, k, window), "requests": len(sizes)})
    return rows


def chunks_that_fit(request: Request, window: int) -> int:
    """The largest k whose prompt (base + the first k chunks) still fits this request into the window."""
    if not isinstance(request, Request):
        raise TypeError(f"request must be a Request, got {type(request).__name__} {short(request)}")
    total, fitted = request.base_tokens, 0
    for size in request.chunk_tokens:
        total += size
        if total > whole_number(window, "window", minimum=1):
            break
        fitted += 1
    return fitted


def window_bar(value: int, window: int, scale: int, width: int = 40) -> str:
    """A text bar of `width` cells for 0..scale: '#' inside the window, '!' beyond it, '.' unused;
    '|' is inserted at the window edge. value <= scale and window <= scale."""
    scale = whole_number(scale, "scale", minimum=1)
    width = whole_number(width, "width", minimum=1)
    value = whole_number(value, "value", maximum=scale)
    window = whole_number(window, "window", minimum=1, maximum=scale)
    filled, edge = round(value * width / scale), round(window * width / scale)
    cells = ["#" if i < min(filled, edge) else "!" if i < filled else "." for i in range(width)]
    return "".join(cells[:edge]) + "|" + "".join(cells[edge:])


# ---------------------------------------------------------------- the coverage objective

@dataclass(frozen=True)
class CoverageSelection:
    """A coverage-aware choice. kept: the chosen chunks in rank order; pick_order: their ids in
    the order the greedy rule chose them; covered, missing: facet names in declared order."""

    budget: int
    unit: str
    kept: tuple[RankedPassage, ...]
    pick_order: tuple[str, ...]
    covered: tuple[str, ...]
    missing: tuple[str, ...]
    used: int

    @property
    def kept_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.kept)


def select_for_coverage(chunks, facets, budget: int, counter=chars) -> CoverageSelection:
    """Budgeted maximum coverage, greedily: cover the question's facets within `budget`.

    Repeat: among the chunks not yet chosen that still fit the room left, take the one with
    the most *new* facets per unit of cost (a chunk adding none is never taken); on a tie,
    the better-ranked chunk. Stop when no chunk adds a facet. Ratios are compared as
    integer cross-products, so the choice is exact and the same on every run. Chunks are
    never cut; the kept chunks keep their rank order. Work: facets x chunks.
    """
    chunks = _chunks(chunks)
    facets = sequence_of(facets, Facet, "facets")
    budget = whole_number(budget, "budget")
    counter = _counter(counter)
    costs = [_measure(counter, c.text) for c in chunks]
    answers = [set(facets_covered(facets, c.text)) for c in chunks]
    chosen, order, covered, used = set(), [], set(), 0
    while True:
        best, best_gain, best_cost = None, 0, 1
        for index, (cost, names) in enumerate(zip(costs, answers)):
            gain = len(names - covered)
            if index in chosen or gain == 0 or used + cost > budget:
                continue
            if best is None or gain * best_cost > best_gain * cost:
                best, best_gain, best_cost = index, gain, cost
        if best is None:
            break
        chosen.add(best)
        order.append(chunks[best].id)
        covered |= answers[best]
        used += costs[best]
    return CoverageSelection(budget=budget, unit=getattr(counter, "__name__", "custom"),
                             kept=tuple(c for i, c in enumerate(chunks) if i in chosen), pick_order=tuple(order),
                             covered=tuple(f.name for f in facets if f.name in covered),
                             missing=tuple(f.name for f in facets if f.name not in covered), used=used)


def assemble_request(system: str, question: str, evidence) -> str:
    """The whole request as it is sent: a chat template around the system text and the
    question, each evidence chunk inside a source header and wrapper. Count this text,
    after assembly, not an estimate made before it."""
    chunks = sequence_of(evidence, RankedPassage, "evidence")
    sources = [f'<source id="{c.id}">{c.text}</source>' for c in chunks]
    return "\n".join(["<|system|>", text_of(system, "system"), "<|end|>", "<|user|>",
                      f"Question: {text_of(question, 'question')}", *sources, "<|end|>", "<|assistant|>"])


# ---------------------------------------------------------------- the fixture

# Ranked evidence for the skip example: 150, 30 and 40 characters, budget 80.
RANKED = (
    RankedPassage(id="laptop-loans", text=entry("laptop-loans").text),   # the help-desk world's (modules/helpdesk)
    RankedPassage(id="copier-pin", text="Copier PIN for guests is 4417."),
    RankedPassage(id="guest-wifi", text="The guest Wi-Fi network is LIB-GUEST-5G."),
)
SKIP_BUDGET = 80
SKIP_BUDGET_LAB_TOKENS = 20

# The worked example (WORKED, in modules/budget/window.py): a 1,024 window, 124 of base input,
# 128 reserved for the answer, in lab tokens; 1,024 and 128 are test settings.
# After assembly the whole final input is counted again as one text: system text, question,
# chat template, source headers, wrappers and evidence together. It is not evidence alone.
PLANS = (
    ("worked example", WORKED),
    ("follow-up turn", dict(WORKED, history=150, tools=90)),
    ("plus a margin", dict(WORKED, history=150, tools=90, margin=32)),
)
OVERFULL = dict(WORKED, history=700, tools=90, margin=32)

WINDOW_TOKENS = 160
SWEEP_KS = (1, 2, 3, 4, 5, 6, 7, 8)
_QUERIES = (
    ("q01", "When does the help desk open on Saturdays?", (18, 22, 15, 20, 17, 24, 16, 19)),
    ("q02", "Where do I return books after hours?", (21, 17, 19, 23, 18, 16, 22, 20)),
    ("q03", "How much does printing cost per page?", (12, 14, 11, 16, 13, 15, 12, 14)),
    ("q04", "Can guests borrow laptops overnight?", (26, 31, 24, 28, 22, 27, 25, 30)),
    ("q05", "What is the guest Wi-Fi network?", (10, 12, 9, 11, 13, 10, 12, 11)),
    ("q06", "How do I replace a lost library card?", (19, 16, 21, 18, 20, 17, 23, 15)),
    ("q07", "Which rooms can be booked for group study, and for how long?", (34, 29, 38, 33, 31, 36, 30, 35)),
    ("q08", "Is visitor parking free?", (15, 18, 14, 17, 16, 19, 13, 18)),
    ("q09", "How long can I renew a loan online?", (20, 23, 18, 21, 24, 19, 22, 17)),
    ("q10", "Are food and drinks allowed in the reading room?", (14, 16, 13, 18, 15, 12, 17, 14)),
)
# Base input = the system prompt and the question, counted in lab tokens.
REQUESTS = tuple(Request(id=qid, question=question, base_tokens=lab_tokens(SYSTEM_PROMPT) + lab_tokens(question),
                         chunk_tokens=sizes) for qid, question, sizes in _QUERIES)

NON_ASCII = RankedPassage(id="returns-de",
                          text="Rückgabe über die Außenbox: täglich 7–22 Uhr, außer an Feiertagen.")

# The coverage case: a two-part question, ranked by a retriever that favours the laptops. The
# first two chunks both answer the laptop part; the Wi-Fi chunk ranks third.
COVERAGE_QUESTION = "When must loan laptops be back, and what is the guest Wi-Fi network?"
COVERAGE_SUB_QUESTIONS = (("laptop return", "When must loan laptops be back?"),
                          ("guest network", "What is the guest Wi-Fi network?"))
COVERAGE_FACETS = declared_facets(COVERAGE_SUB_QUESTIONS)
LAPTOP_FAQ = RankedPassage(id="laptop-faq",
                           text="FAQ: may I keep a loan laptop over the weekend? No: loan laptops go home for "
                                "one night only and must be back at the desk by noon the next day, or the next "
                                "loan is blocked.")
COVERAGE_RANKED = (RANKED[0], LAPTOP_FAQ, RANKED[2], RANKED[1])
COVERAGE_BUDGET = 330
# Evaluation label: the chunks an answer needs. Kept apart; neither selection receives it.
COVERAGE_LABELS = ("guest-wifi", "laptop-loans")

# The worked example's assembled request (see WORKED above), recounted as one text.
WORKED_QUESTION = "When does the help desk open, and where can books be returned when it is closed?"
WORKED_EVIDENCE = (   # the help-desk collection (modules/helpdesk), this lesson's chunks, four more notes
    *(RankedPassage(id=e.id, text=e.text) for e in ENTRIES), *RANKED[1:], LAPTOP_FAQ, NON_ASCII,
    RankedPassage(id="reading-room",
                  text="Quiet reading rooms are on the second and third floors. Food is not allowed there; "
                       "water in a closed bottle is. Bags larger than a small backpack go in the lockers by "
                       "the stairs, which take a one-euro coin that is returned when the locker is opened again."),
    RankedPassage(id="group-rooms",
                  text="Group study rooms seat four to eight readers and can be booked online for up to three "
                       "hours a day. A booking is released if nobody arrives within fifteen minutes of its "
                       "start, and the room then goes to the next reader on the waiting list."),
    RankedPassage(id="renewals",
                  text="Most loans can be renewed online or at the help desk before they are due. Each loan can be "
                       "renewed twice, unless another reader has reserved the item, in which case it must be "
                       "returned on time."),
    RankedPassage(id="lost-card",
                  text="Report a lost library card at once, online or at the help desk; a new one is made there."),
)
WORKED_REQUEST = assemble_request(SYSTEM_PROMPT, WORKED_QUESTION, WORKED_EVIDENCE)
WORKED_FINAL_INPUT = lab_tokens(WORKED_REQUEST)   # counted, not typed: 723
