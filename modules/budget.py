"""Lesson 02, budget: keep the units explicit.

Three ideas, each with its own small mechanism:

* A budget walk copies whole chunks in rank order. Its policy is a choice with
  consequences: *skip* a misfit and go on, *stop* at the first misfit, or
  *truncate* the misfit to the room left. Truncation hands on a quote its source
  never said (the cut can drop a "not" or an exception), so the lab skips.
* The context window is shared: window = system + history + tools + evidence +
  output reserve + margin. The evidence budget is what remains, and a negative
  remainder is an error to report, never a zero to carry on with.
* A fixed top-k is sized for the average request, but the request that overflows
  is the largest one. An overflowing request gets no answer at all.

Every count goes through a counter, a function str -> int (see modules/common/units.py),
so the same walk runs in characters, UTF-8 bytes or lab tokens. A lab token is a
teaching unit, not a model token: a real model counts its whole input with its own
tokenizer, and the lab ships none.
"""

from __future__ import annotations

from collections import namedtuple

from modules.common.checks import sequence_of
from modules.common.units import chars, lab_tokens, utf8_bytes

__all__ = [
    "Chunk", "BudgetWalk", "Request", "POLICIES", "fill_budget", "evidence_budget",
    "request_fits", "prompt_sizes", "count_overflows", "topk_sweep", "RANKED", "SYSTEM_PROMPT",
    "REQUESTS", "WINDOW_TOKENS", "NON_ASCII", "trace",
]

POLICIES = ("skip", "stop", "truncate")


def _whole(name: str, value: object, minimum: int = 0) -> int:
    # bool is an int subclass; True as a budget is a bug, not a 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


# Immutable records as validated named tuples, not frozen dataclasses: just as immutable,
# and the lesson command then never imports dataclasses (about 6 ms of every run).

class Chunk(namedtuple("Chunk", "id text")):
    """One ranked piece of evidence: an id and the text that would be quoted."""

    __slots__ = ()

    def __new__(cls, id: str, text: str):
        self = super().__new__(cls, id, text)
        for name, value in zip(cls._fields, self):
            if not isinstance(value, str):
                raise TypeError(f"Chunk.{name} must be a str, got {type(value).__name__} {value!r}")
        if not id.strip():
            raise ValueError(f"Chunk.id must not be empty, got {id!r}")
        return self


class BudgetWalk(namedtuple("BudgetWalk", "policy unit budget kept skipped_ids used cut_ids stopped_at",
                            defaults=((), None))):
    """What one walk decided. `kept` holds the chunks as handed on (a truncated one is cut).

    policy, unit: str; budget, used: int; kept: tuple of Chunk; skipped_ids,
    cut_ids: tuples of ids; stopped_at: the id that stopped the walk, or None.
    """

    __slots__ = ()

    @property
    def kept_ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.kept)


def _chunks(chunks: object) -> tuple[Chunk, ...]:
    return sequence_of(chunks, Chunk, "chunks")


def _measure(counter, text: str) -> int:
    size = counter(text)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise TypeError(f"counter {getattr(counter, '__name__', counter)!r} must return an int >= 0, "
                        f"got {type(size).__name__} {size!r}")
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
    budget = _whole("budget", budget)
    if not callable(counter):
        raise TypeError(f"counter must be a function str -> int, got {type(counter).__name__} {counter!r}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, got {policy!r}")
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
                kept.append(Chunk(chunk.id, piece))
                cut.append(chunk.id)
                used += _measure(counter, piece)
                continue
        skipped.append(chunk.id)
    return BudgetWalk(policy, getattr(counter, "__name__", "custom"), budget, tuple(kept), tuple(skipped),
                      used, tuple(cut), stopped_at)


# ---------------------------------------------------------------- the window

def evidence_budget(window: int, system: int, history: int, tools: int, output_reserve: int, margin: int) -> int:
    """Solve window = system + history + tools + evidence + output_reserve + margin for evidence.

    All terms share one declared unit. system: system prompt, question and message
    wrapping; history: earlier turns; tools: tool schemas; output_reserve: room kept
    for the answer; margin: slack for counting error. History and tools are terms
    even when they are 0. A negative remainder is an error, never a 0.
    """
    terms = dict(system=system, history=history, tools=tools, output_reserve=output_reserve, margin=margin)
    remainder = _whole("window", window, 1)
    for name, value in terms.items():
        remainder -= _whole(name, value)
    if remainder < 0:
        shown = " - ".join(f"{name} {value}" for name, value in terms.items())
        raise ValueError(f"evidence budget is negative: window {window} - {shown} = {remainder}; "
                         f"the fixed terms already exceed the window, so shrink one or use a larger window")
    return remainder


def request_fits(final_input: int, output_reserve: int, window: int) -> bool:
    """A request fits when its whole input plus the reserved output is at most the window."""
    return _whole("final_input", final_input) + _whole("output_reserve", output_reserve) <= _whole("window", window, 1)


# ---------------------------------------------------------------- top-k against a window

class Request(namedtuple("Request", "id question base_tokens chunk_tokens")):
    """One query of the sweep: its base input and its ranked chunks' sizes (a tuple), in lab tokens."""

    __slots__ = ()

    def __new__(cls, id: str, question: str, base_tokens: int, chunk_tokens: tuple):
        self = super().__new__(cls, id, question, base_tokens, chunk_tokens)
        for name in ("id", "question"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"Request.{name} must be a str, got {type(getattr(self, name)).__name__} "
                                f"{getattr(self, name)!r}")
        _whole(f"Request {id!r} base_tokens", base_tokens)
        if not isinstance(chunk_tokens, tuple):
            raise TypeError(f"Request.chunk_tokens must be a tuple, got {type(chunk_tokens).__name__}")
        for size in chunk_tokens:
            _whole(f"Request {id!r} chunk size", size)
        return self


def prompt_sizes(requests, k: int) -> tuple[int, ...]:
    """Each request's input with its top k chunks: base + the first k chunk sizes."""
    _whole("k", k, 1)
    if isinstance(requests, (str, bytes, Request)) or not hasattr(requests, "__iter__"):
        raise TypeError(f"requests must be a sequence of Request, got {type(requests).__name__}")
    sizes = []
    for index, request in enumerate(requests):
        if not isinstance(request, Request):
            raise TypeError(f"requests[{index}] must be a Request, got {type(request).__name__} {request!r}")
        sizes.append(request.base_tokens + sum(request.chunk_tokens[:k]))
    return tuple(sizes)


def count_overflows(requests, k: int, window: int) -> int:
    """How many requests with their top k chunks exceed the window (exactly full fits)."""
    _whole("window", window, 1)
    return sum(1 for size in prompt_sizes(requests, k) if size > window)


def topk_sweep(requests, window: int, ks) -> list[dict]:
    requests = tuple(requests)
    if not requests:
        raise ValueError("requests must not be empty")
    rows = []
    for k in ks:
        sizes = prompt_sizes(requests, k)
        rows.append({"k": k, "average": round(sum(sizes) / len(sizes), 1), "largest": max(sizes),
                     "overflows": count_overflows(requests, k, window), "requests": len(sizes)})
    return rows


def chunks_that_fit(request: Request, window: int) -> int:
    """The largest k whose prompt still fits this request into the window."""
    total, fitted = request.base_tokens, 0
    for size in request.chunk_tokens:
        total += size
        if total > window:
            break
        fitted += 1
    return fitted


def window_bar(value: int, window: int, scale: int, width: int = 40) -> str:
    """'#' inside the window, '!' beyond it, '.' empty; '|' marks the window edge."""
    filled = min(width, round(value * width / scale))
    edge = round(window * width / scale)
    cells = ["#" if i < min(filled, edge) else "!" if i < filled else "." for i in range(width)]
    return "".join(cells[:edge]) + "|" + "".join(cells[edge:])


# ---------------------------------------------------------------- the fixture

# Ranked evidence for the skip example: 150, 30 and 40 characters, budget 80.
RANKED = (
    Chunk("laptop-loans", "Loan laptops may be taken home overnight and must be back at the desk by noon. "
                          "This does not apply to reference-room laptops, which must stay indoors."),
    Chunk("copier-pin", "Copier PIN for guests is 4417."),
    Chunk("guest-wifi", "The guest Wi-Fi network is LIB-GUEST-5G."),
)
SKIP_BUDGET = 80
SKIP_BUDGET_LAB_TOKENS = 20

# The worked example: a 1,024 window, 124 of base input, 128 reserved for output.
WORKED = dict(window=1024, system=124, history=0, tools=0, output_reserve=128, margin=0)
WORKED_FINAL_INPUT = 723          # the request's whole input once its packet is added
PLANS = (
    ("worked example (history, tools 0)", WORKED),
    ("follow-up turn with history, tools",
     dict(WORKED, history=150, tools=90)),
    ("the same plus a counting margin",
     dict(WORKED, history=150, tools=90, margin=32)),
)
OVERFULL = dict(WORKED, history=700, tools=90, margin=32)

SYSTEM_PROMPT = ("Answer from the evidence below only. Quote the passage ids you use. "
                 "If the evidence does not answer the question, say so.")
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
REQUESTS = tuple(Request(qid, question, lab_tokens(SYSTEM_PROMPT) + lab_tokens(question), sizes)
                 for qid, question, sizes in _QUERIES)

NON_ASCII = Chunk("returns-de", "Rückgabe über die Außenbox: täglich 7–22 Uhr, außer an Feiertagen.")

LAB_TOKEN_NOTE = ("A lab token is a teaching unit (whitespace pieces, each ceil(len/5)), not a model token. "
                  "A real model adapter counts the whole input with the model's own tokenizer and reserves "
                  "room for the output; the lab ships no tokenizer and never converts units with a ratio.")


# ---------------------------------------------------------------- the trace

def _walk_record(walk: BudgetWalk, originals: dict[str, Chunk], counter) -> dict:
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


def trace() -> dict:
    """Every figure of the lesson as one JSON-ready record."""
    originals = {c.id: c for c in RANKED}
    walks = [_walk_record(fill_budget(RANKED, SKIP_BUDGET, chars, policy), originals, chars) for policy in POLICIES]
    in_tokens = _walk_record(fill_budget(RANKED, SKIP_BUDGET_LAB_TOKENS, lab_tokens), originals, lab_tokens)
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
    sweep = topk_sweep(REQUESTS, WINDOW_TOKENS, SWEEP_KS)
    fits = [chunks_that_fit(r, WINDOW_TOKENS) for r in REQUESTS]
    return {
        "lesson": "budget",
        "ranked": [{"rank": rank, "id": c.id, "chars": len(c.text), "lab_tokens": lab_tokens(c.text)}
                   for rank, c in enumerate(RANKED, start=1)],
        "walks": walks,
        "walk_in_lab_tokens": in_tokens,
        "window": {
            "equation": "window = system + history + tools + evidence + output_reserve + margin",
            "plans": plans,
            "negative_remainder": overfull,
            "final_input": WORKED_FINAL_INPUT,
            "evidence_used": WORKED_FINAL_INPUT - WORKED["system"] - WORKED["history"] - WORKED["tools"],
            "final_input_plus_reserve": WORKED_FINAL_INPUT + WORKED["output_reserve"],
            "fits": request_fits(WORKED_FINAL_INPUT, WORKED["output_reserve"], WORKED["window"]),
        },
        "sweep": {
            "unit": "lab_tokens",
            "window": WINDOW_TOKENS,
            "requests": [{"id": r.id, "base": r.base_tokens, "chunk_tokens": list(r.chunk_tokens),
                          "chunks_that_fit": fit} for r, fit in zip(REQUESTS, fits)],
            "average_chunks_that_fit": round(sum(fits) / len(fits), 1),
            "rows": sweep,
        },
        "units": {"id": NON_ASCII.id, "text": NON_ASCII.text, "chars": chars(NON_ASCII.text),
                  "utf8_bytes": utf8_bytes(NON_ASCII.text), "lab_tokens": lab_tokens(NON_ASCII.text),
                  "note": LAB_TOKEN_NOTE},
    }


def view(record: dict) -> list[dict]:
    """The trace as printable blocks."""
    blocks = [
        {"heading": "Lesson 02 - budget: keep the units explicit"},
        {"table": {"title": "Ranked evidence",
                   "columns": ["rank", "id", "chars", "lab tokens"],
                   "rows": [[c["rank"], c["id"], c["chars"], c["lab_tokens"]] for c in record["ranked"]]}},
    ]
    walks = record["walks"]
    blocks.append({"table": {
        "title": f"One input, three policies, budget {walks[0]['budget']} chars",
        "columns": ["policy", "kept", "skipped or not reached", "used"],
        "rows": [[w["policy"], ", ".join(w["kept_ids"]) or "(none)", ", ".join(w["skipped_ids"]) or "(none)",
                  w["used"]] for w in walks]}})
    for walk in walks:
        blocks.append({"table": {
            "title": f"policy {walk['policy']}: {walk['used']} of {walk['budget']} {walk['unit']} used",
            "columns": ["rank", "id", walk["unit"], "decision", "running total"],
            "rows": [[s["rank"], s["id"], s["size"], s["decision"], s["running_total"]] for s in walk["steps"]]}})
    cut = next(w["cut"] for w in walks if "cut" in w)
    blocks.append({"text": f"What truncation handed on as {cut['id']}:\n  \"{cut['handed_on']}\"\n"
                           f"What it dropped:\n  \"{cut['lost']}\"\nThe cut quote says every loan laptop may "
                           f"go home; the source says the reference-room ones may not. Skipping keeps the "
                           f"evidence true; that a lower-ranked chunk survives is the declared policy, not "
                           f"proof that it is better evidence."})
    tokens = record["walk_in_lab_tokens"]
    blocks.append({"text": f"The counter is a parameter: the same skip walk in lab tokens with a budget of "
                           f"{tokens['budget']} keeps {', '.join(tokens['kept_ids'])} and skips "
                           f"{', '.join(tokens['skipped_ids'])} ({tokens['used']} lab tokens used)."})
    window = record["window"]
    blocks.append({"text": f"The window equation: {window['equation']}. Every term is declared, even when "
                           f"it is 0; evidence is what remains."})
    blocks.append({"table": {
        "title": "Evidence budget from its parts",
        "columns": ["plan", "window", "system", "history", "tools", "output reserve", "margin", "evidence"],
        "rows": [[p["label"], p["window"], p["system"], p["history"], p["tools"], p["output_reserve"],
                  p["margin"], p["evidence"]] for p in window["plans"]]}})
    worked, other = window["plans"][0], window["plans"][1]
    blocks.append({"text": f"Worked example: {worked['window']:,} - {worked['system']} - {worked['output_reserve']} "
                           f"= {worked['evidence']} for evidence. History and tool schemas take "
                           f"{other['evidence_taken_by_history_and_tools']} of that room on a follow-up turn "
                           f"({other['evidence']} left); leaving them out of the sum would promise evidence "
                           f"room that is not there.\nThe finished request: final input "
                           f"{window['final_input']} ({worked['system']} base + {window['evidence_used']} of "
                           f"evidence, within its {worked['evidence']}) + reserve {worked['output_reserve']} = "
                           f"{window['final_input_plus_reserve']}, within {worked['window']:,}: "
                           f"{'fits' if window['fits'] else 'overflows'}."})
    blocks.append({"text": f"With history {window['negative_remainder']['history']} the remainder is negative. "
                           f"The lab raises instead of calling it 0 (caught here to show the message):"})
    blocks.append({"text": window["negative_remainder"]["error"]})
    sweep = record["sweep"]
    scale = max(row["largest"] for row in sweep["rows"])
    blocks.append({"table": {
        "title": f"Top-k over {len(sweep['requests'])} requests, window {sweep['window']} lab tokens "
                 f"(bar: largest request; '|' window edge, '!' overflow)",
        "columns": ["k", "average", "largest", "overflows", "largest vs window"],
        "rows": [[row["k"], f"{row['average']:.1f}", row["largest"], f"{row['overflows']}/{row['requests']}",
                  window_bar(row["largest"], sweep["window"], scale)] for row in sweep["rows"]]}})
    first = next(row for row in sweep["rows"] if row["overflows"])
    blocks.append({"text": f"On average {sweep['average_chunks_that_fit']} chunks fit, and at k={first['k']} the "
                           f"average request ({first['average']}) is well inside {sweep['window']}, yet the "
                           f"largest ({first['largest']}) overflows. An overflowing request returns no answer "
                           f"and counts as wrong: size k for the largest request, not the average."})
    units = record["units"]
    blocks.append({"table": {"title": "One passage, three units",
                             "columns": ["id", "chars", "UTF-8 bytes", "lab tokens"],
                             "rows": [[units["id"], units["chars"], units["utf8_bytes"], units["lab_tokens"]]]}})
    blocks.append({"text": f"\"{units['text']}\"\n{units['note']}"})
    return blocks
