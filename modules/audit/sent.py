"""Audit the packets a system actually sent, beside the packet the lessons would have built.

A packet is what a system sent for a query: the ids and (optionally) the exact text of each,
from a packets file, or found in the prompts its LLM calls received (modules/audit/adapters.py
records them; locate.py finds each passage in them, whole or in verbatim pieces). An id may
come several times (a chunk-level index sends several pieces of one passage). Every needed
passage is booked under one place, the first that applies:

    not_retrieved  not among the run's top k and not sent: the packet never had the chance
    other_version  another version of its source was sent instead, or its id was sent
                   with another version's text (lesson 04: the version is evidence)
    split_unit     it and a passage of its declared unit (metadata.unit) were not sent
                   together (lesson 11: a conclusion and the exception that qualifies it
                   travel as one unit or not at all), whichever of the two was sent
    not_sent       retrieved but not sent; the lab's diagnosis says why the lessons' rules
                   would have left it out (a diagnosis: the system's own reasons are unknown)
    split_calls    it reached the model only in pieces spread over several calls (a refine
                   loop): no single call read it whole
    truncated      sent, but only its start (a prefix of the corpus text)
    piece          sent, but only pieces of it that are not its start (which characters, of
                   how many)
    cut_negation   sent, but a negation of the corpus text is missing (packet.fidelity_check)
    altered        sent, but the text differs from the corpus text in another way
    sent           sent whole in one call (or sent by id, when the packet gives no texts)

Two findings concern the packet, not one needed passage: a duplicate (the same text twice
in one call, and the room its repeats took) and a prompt over the model's window (--window,
counted in the audit's unit or tokenizer). The packet's budget is what it sent, counted in
the audit's unit, repeats included; the lessons' walk runs on that same budget over the same
run, as the counterfactual, and counts each needed passage once, as yours does.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.audit.locate import MIN_PIECE, grams, normal_form, occurrences, pieces
from modules.audit.mechanism import Corpus, select_candidates, walk, walkable
from modules.audit.packets import Packet
from modules.audit.tokenizer_process import count_all
from modules.common.checks import sha256_hex
from modules.packet.fidelity import fidelity_check

__all__ = ["SENT_CAUSES", "SENT_NOTES", "PACKET_NOTES", "Booking", "Duplicate", "PacketAudit", "audit_packet",
           "packet_from_prompts"]

SENT_CAUSES = ("not_retrieved", "other_version", "split_unit", "not_sent", "split_calls", "truncated", "piece",
               "cut_negation", "altered", "sent")
SENT_NOTES = {
    "not_retrieved": "a retrieval defect: the passage was not in the top k the packet was built from",
    "other_version": "send the version your rules select (metadata.supersedes), never a stale one",
    "split_unit": "send a declared unit (metadata.unit) together or not at all: half a rule is read as the rule",
    "not_sent": "compare your selection with the lab's diagnosis: the lab would keep it unless it says why not",
    "split_calls": "no call read the passage whole: pack whole passages into each call (a refine or compact "
                   "step re-splits them to fill its window), or give each call room for the longest passage",
    "truncated": "do not cut a passage to fit: skip it whole and let the walk go on (lesson 02); check the "
                 "template's truncate filter and the framework's context window",
    "piece": "only a piece from inside the passage reached the model: index and judge the pieces you send (chunk "
             "ids in the qrels), or send whole passages",
    "cut_negation": "the text sent lost a 'not': never compress a rule's wording (lesson 10's fidelity check)",
    "altered": "send the stored text: what the answer reads must be what the corpus says",
    "sent": "nothing: it reached the model whole",
}
PACKET_NOTES = {
    "duplicate": "drop the repeat before the prompt (lesson 03's dedupe): its room could have carried the next "
                 "passage",
    "over_window": "the prompt is longer than the model's window, so the model or its client cuts it: set the "
                   "budget to the window less the template and the answer",
}
ELLIPSIS = (" ", ".", "\u2026")


@dataclass(frozen=True, slots=True)
class Booking:
    """Where one needed passage ended in a system's packet; `diagnosis` is the lab's view.
    `pieces` are the (call, first character, last character) runs that reached the model, 1-based
    and inclusive as the detail prints them, and `length` the passage's length in characters (0
    when the packet gives no text)."""

    id: str
    cause: str
    detail: str
    diagnosis: str = ""
    pieces: tuple[tuple[int, int, int], ...] = ()
    length: int = 0

    def __post_init__(self) -> None:
        if self.cause not in SENT_CAUSES:
            raise ValueError(f"Booking.cause must be one of {', '.join(SENT_CAUSES)}, got {self.cause!r}")


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A text sent more than once in one call: the id it was found under, the call, how many
    times it came and the room its repeats took (in the audit's unit)."""

    id: str
    call: int
    copies: int
    size: int


@dataclass(frozen=True, slots=True)
class PacketAudit:
    """One query's sent packet: its budget (its size in the unit, repeats included), the bookings,
    how many needed passages it carried whole, what the lessons' walk would have sent on the same
    budget, the split declared units, the duplicates, and each call's prompt size against the
    window (`window` 0: not checked)."""

    qid: str
    needed: int
    budget: int
    sent: tuple[str, ...]
    bookings: tuple[Booking, ...]
    covered: int
    lab_packet: tuple[str, ...]
    lab_covered: int
    splits: tuple[tuple[str, str], ...]     # (sent id, unit member left out)
    duplicates: tuple[Duplicate, ...]
    calls: int
    call_sizes: tuple[int, ...]             # each call's prompt (or the packet's texts) in the unit
    window: int


def _unit_members(pid: str, corpus: Corpus) -> list[str]:
    held = corpus.held.get(pid)
    if held is None or not held.unit:
        return []
    return [other for other in corpus.members[held.unit] if other != pid]


def _free(start: int, end: int, claimed: list) -> bool:
    return all(end <= first or start >= last for first, last in claimed)


def packet_from_prompts(qid: str, prompts, candidates, corpus: Corpus) -> Packet:
    """The packet that reached the model for one query, found in its calls' prompts.

    `prompts` are (call, prompt text) pairs; `candidates` the ids to look for (the run's ranking
    for the query and its judged passages, in rank order), each with its text held. In each call
    every candidate is looked for whole first (every place it occurs); the places found are
    claimed. Then the verbatim pieces of the others: a piece counts only where the prompt's
    characters are not claimed yet, the longest pieces first (so a phrase two passages share is
    booked to the passage whose long run holds it, not to every passage that repeats it). The
    packet lists what each call holds in prompt order, call by call. Ids with one text
    share its places: the first in rank order takes the first place, and so on."""
    docids, texts, calls = [], [], []
    by_text: dict[str, list[str]] = {}
    for pid in candidates:
        held = corpus.held.get(pid)
        if held is not None and held.text:
            by_text.setdefault(held.walk.text, []).append(pid)
    forms = {digest: normal_form(corpus.held[ids[0]].text) for digest, ids in by_text.items()}
    for call, raw in prompts:
        prompt, _where = normal_form(raw)
        starts = grams(prompt, MIN_PIECE)
        found, claimed, partial = [], [], []    # found: (place in the prompt, id, text sent)
        for digest, ids in by_text.items():
            text = corpus.held[ids[0]].text
            form, where = forms[digest]
            places = occurrences(form, prompt)
            for index, place in enumerate(places):
                found.append((place, ids[min(index, len(ids) - 1)], text))
                claimed.append((place, place + len(form)))
            if not places:
                for first, last in pieces(form, prompt, starts):
                    partial.append((first - last, len(partial), ids[0], text, form, where, first, last))
        # The longest runs claim their places first, whichever passage they belong to: a phrase two
        # passages share goes to the passage whose long run holds it.
        for _size, _order, pid, text, form, where, first, last in sorted(partial):
            piece = form[first:last]
            place = next((p for p in occurrences(piece, prompt) if _free(p, p + len(piece), claimed)), None)
            if place is not None and (last - first >= MIN_PIECE or last - first == len(form)):
                found.append((place, pid, text[where[first]:where[last]].strip()))
                claimed.append((place, place + len(piece)))
        for _place, pid, text in sorted(found):
            docids.append(pid)
            texts.append(text)
            calls.append(call)
    return Packet(qid=qid, docids=tuple(docids), texts=tuple(texts), line=0, calls=tuple(calls),
                  prompts=tuple(prompt for _call, prompt in prompts),
                  call_ids=tuple(call for call, _prompt in prompts))


def _span(text: str, original: str) -> tuple[int, int] | None:
    """Where the text sent sits in the corpus text, when it is a verbatim run of it (an ellipsis
    that marks a cut is not part of it); None when it is not."""
    if text == original:
        return 0, len(original)
    stem = text.rstrip("".join(ELLIPSIS)) if text not in original else text
    if not stem or len(stem) >= len(original):
        return None
    start = original.find(stem)
    return None if start < 0 else (start, start + len(stem))


def _text_booking(pid: str, text: str, corpus: Corpus) -> tuple[str, str]:
    """A text sent under an id that is no verbatim run of the corpus text: whose text it is, or
    what it lost."""
    held = corpus.held[pid]
    others = [other for other in corpus.ids_of.get(sha256_hex(text), []) if other != pid]
    if others:
        other = corpus.held[others[0]]
        if other.source_id and other.source_id == held.source_id:
            return "other_version", (f"the text sent is {others[0]}'s (version {other.version or '?'} of "
                                     f"{held.source_id}), not version {held.version or '?'}")
        return "altered", f"the text sent is {others[0]}'s"
    missing = fidelity_check(held.text, text)
    if missing["negations"]:
        return "cut_negation", f"{', '.join(repr(w) for w in missing['negations'])} missing from the text sent"
    lost = [f"{kind} {', '.join(words)}" for kind, words in missing.items() if kind != "ok" and words]
    return "altered", "the text sent differs from the corpus" + (f" ({'; '.join(lost)} missing)" if lost else "")


def _merged(spans) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def _characters(spans) -> str:
    return " and ".join(f"{start + 1}-{end}" for start, end in spans)


def _where(spans, length: int) -> str:
    starts, ends = spans[0][0] == 0, spans[-1][1] == length
    if starts and ends:
        return "its start and end"
    return "its start" if starts else "its end" if ends else "its middle"


def _piece_booking(pid: str, spans_by_call: dict, length: int, several_calls: bool) -> Booking:
    """A passage that reached the model as verbatim runs: whole in one call, or which characters
    of how many, from where, in which calls."""
    runs = tuple((call, start + 1, end) for call, spans in sorted(spans_by_call.items())
                 for start, end in _merged(spans))
    for call, spans in sorted(spans_by_call.items()):
        if _merged(spans) == [(0, length)]:
            detail = f"whole in call {call}" if several_calls else "the text sent is the corpus text"
            return Booking(id=pid, cause="sent", detail=detail, pieces=runs, length=length)
    if len(spans_by_call) > 1:
        held = _merged(span for spans in spans_by_call.values() for span in spans)
        together = sum(end - start for start, end in held)
        calls = "; ".join(f"call {call}: characters {_characters(_merged(spans))}"
                          for call, spans in sorted(spans_by_call.items()))
        return Booking(id=pid, cause="split_calls", pieces=runs, length=length,
                       detail=f"{calls} of {length} (together {together} of {length}; no call held it whole)")
    (call, spans), = spans_by_call.items()
    spans = _merged(spans)
    sent = sum(end - start for start, end in spans)
    where = f" in call {call}" if several_calls else ""
    if len(spans) == 1 and spans[0][0] == 0:
        return Booking(id=pid, cause="truncated", pieces=runs, length=length,
                       detail=f"characters 1-{spans[0][1]} of {length} sent{where} (its start; {length - sent} "
                              f"characters cut)")
    return Booking(id=pid, cause="piece", pieces=runs, length=length,
                   detail=f"characters {_characters(spans)} of {length} sent{where} ({_where(spans, length)}; "
                          f"{sent} of {length} characters)")


def audit_packet(packet: Packet, ranking, relevant, corpus: Corpus, k: int, unit: str, findings,
                 window: int = 0) -> PacketAudit:
    """Book every needed passage of one query against the packet a system sent for it."""
    relevant = sorted(relevant)
    top = ranking[:k]
    in_top = set(top)
    calls = packet.calls or (0,) * len(packet.docids)
    several_calls = len(set(packet.call_ids or calls)) > 1
    budget = 0
    spans: dict[str, dict[int, list]] = {}     # id -> call -> (start, end) runs of its text sent
    problems: dict[str, tuple[str, str]] = {}  # id -> (cause, detail) of a text that is no run of it
    by_id: set = set()                         # ids sent with no text to compare
    repeats: dict[tuple[int, str], list] = {}  # (call, text) -> ids sent with it
    sizes = count_all(corpus.counter, packet.texts) if packet.texts is not None else None
    for i, pid in enumerate(packet.docids):
        text = packet.texts[i] if packet.texts is not None else None
        held = corpus.held.get(pid)
        if pid not in corpus:
            findings.add("packet_unknown_doc", f"{packet.qid} {pid} (line {packet.line})")
        if text is not None:
            size = sizes[i]
            repeats.setdefault((calls[i], text), []).append((pid, size))
        else:
            size = corpus.size(pid) if pid in corpus else 0
            repeats.setdefault((calls[i], pid), []).append((pid, size))
        budget += size
        if text is None or held is None or held.text is None:
            by_id.add(pid)
            continue
        # Another passage's exact text under this id is that passage, even when it is a run of this one.
        span = None if text != held.text and sha256_hex(text) in corpus.ids_of else _span(text, held.text)
        if span is None:
            problems.setdefault(pid, _text_booking(pid, text, corpus))
        else:
            spans.setdefault(pid, {}).setdefault(calls[i], []).append(span)
    duplicates = tuple(Duplicate(id=sent[0][0], call=call, copies=len(sent), size=sum(size for _p, size in sent[1:]))
                       for (call, _text), sent in repeats.items() if len(sent) > 1)
    sent = list(dict.fromkeys(packet.docids))
    index = set(sent)
    selection = select_candidates(top, corpus)
    lab_packet, _used = walk(walkable(selection, corpus), budget)
    lab_sent = set(lab_packet)
    splits = tuple((pid, other) for pid in sent for other in _unit_members(pid, corpus)
                   if other not in index and other in in_top)
    bookings = []
    for pid in relevant:
        held = corpus.held.get(pid)
        if pid in index:
            if pid in spans:
                bookings.append(_piece_booking(pid, spans[pid], len(held.text), several_calls))
            elif pid in problems:
                bookings.append(Booking(id=pid, cause=problems[pid][0], detail=problems[pid][1]))
            else:
                bookings.append(Booking(id=pid, cause="sent", detail="sent by id (the packet gives no text to compare)"
                                        if held is not None else "sent; the corpus has no text to compare with"))
            if pid in problems and problems[pid][0] == "other_version":   # its id, another version's text
                bookings[-1] = Booking(id=pid, cause=problems[pid][0], detail=problems[pid][1])
            left = [other for sent_id, other in splits if sent_id == pid]
            if left and bookings[-1].cause == "sent":
                bookings[-1] = Booking(id=pid, cause="split_unit",
                                       detail=f"sent without {left[0]}, of its declared unit {held.unit}")
            continue
        versions = [other for other in sent if held is not None and held.source_id and other in corpus
                    and corpus.held[other].source_id == held.source_id and corpus.held[other].version != held.version
                    and held.version]
        partners = [other for other in _unit_members(pid, corpus) if other in index]
        if pid not in in_top:
            bookings.append(Booking(id=pid, cause="not_retrieved", detail="not among the run's top k for this query"))
        elif versions:
            other = corpus.held[versions[0]]
            bookings.append(Booking(id=pid, cause="other_version",
                                    detail=f"{versions[0]} (version {other.version}) of {held.source_id} was sent "
                                           f"instead of version {held.version}"))
        elif partners:
            bookings.append(Booking(id=pid, cause="split_unit",
                                    detail=f"{partners[0]} was sent without it; they declare one unit, {held.unit}"))
        else:
            bookings.append(Booking(id=pid, cause="not_sent", detail="retrieved, not sent",
                                    diagnosis=_diagnosis(pid, selection, lab_sent, budget, unit)))
    covered = sum(1 for b in bookings if b.cause == "sent")
    if packet.prompts:
        call_sizes = tuple(count_all(corpus.counter, packet.prompts))
    else:
        call_sizes = (budget,)
    return PacketAudit(qid=packet.qid, needed=len(relevant), budget=budget, sent=tuple(sent),
                       bookings=tuple(bookings), covered=covered, lab_packet=tuple(lab_packet),
                       lab_covered=len(lab_sent & set(relevant)), splits=splits, duplicates=duplicates,
                       calls=len(packet.prompts) or 1, call_sizes=call_sizes, window=window)


def _diagnosis(pid: str, selection, lab_sent: set, budget: int, unit: str) -> str:
    if pid in lab_sent:
        return f"diagnosis: the lessons' walk sends it on the same budget ({budget} {unit})"
    if pid in selection.causes:
        cause, detail, _kept = selection.causes[pid]
        return f"diagnosis: the lessons' rules drop it too ({cause.replace('_', ' ')}: {detail})"
    return f"diagnosis: the lessons' walk leaves it out too (its unit does not fit in {budget} {unit})"
