"""Audit the packets a system actually sent, beside the packet the lessons would have built.

A packet is the ids a system sent for a query, in order, and optionally the exact text of
each. Every needed passage is booked under one place, the first that applies:

    not_retrieved  not among the run's top k: the packet never had the chance
    other_version  another version of its source was sent instead, or its id was sent
                   with another version's text (lesson 04: the version is evidence)
    split_unit     it and its declared neighbour were not sent together (lesson 11: a
                   conclusion and the exception that qualifies it travel as one unit or not
                   at all), whichever of the two was sent
    not_sent       retrieved but not sent; the lab's diagnosis says why the lessons' rules
                   would have left it out (a diagnosis: the system's own reasons are unknown)
    truncated      sent, but cut short (the text sent is a prefix of the corpus text)
    cut_negation   sent, but a negation of the corpus text is missing (packet.fidelity_check)
    altered        sent, but the text differs from the corpus text in another way
    sent           sent whole (or sent by id, when the packet gives no texts)

The packet's budget is what it sent, counted in the audit's unit; the lessons' walk runs
on that same budget over the same run, as the counterfactual.
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.audit.mechanism import Corpus, select_candidates, walk, walkable

__all__ = ["SENT_CAUSES", "SENT_NOTES", "Booking", "PacketAudit", "audit_packet"]

SENT_CAUSES = ("not_retrieved", "other_version", "split_unit", "not_sent", "truncated", "cut_negation", "altered",
               "sent")
SENT_NOTES = {
    "not_retrieved": "a retrieval defect: the passage was not in the top k the packet was built from",
    "other_version": "send the version your rules select (metadata.supersedes), never a stale one",
    "split_unit": "send declared neighbours together or not at all: half a rule is read as the rule",
    "not_sent": "compare your selection with the lab's diagnosis: the lab would keep it unless it says why not",
    "truncated": "do not cut a passage to fit: skip it whole and let the walk go on (lesson 02)",
    "cut_negation": "the text sent lost a 'not': never compress a rule's wording (lesson 10's fidelity check)",
    "altered": "send the stored text: what the answer reads must be what the corpus says",
    "sent": "nothing: it reached the model whole",
}
ELLIPSIS = (" ", ".", "\u2026")


@dataclass(frozen=True)
class Booking:
    """Where one needed passage ended in a system's packet; `diagnosis` is the lab's view."""

    id: str
    cause: str
    detail: str
    diagnosis: str = ""

    def __post_init__(self) -> None:
        if self.cause not in SENT_CAUSES:
            raise ValueError(f"Booking.cause must be one of {', '.join(SENT_CAUSES)}, got {self.cause!r}")


@dataclass(frozen=True)
class PacketAudit:
    """One query's sent packet: its budget (its size in the unit), the bookings, how many needed
    passages it carried whole, and what the lessons' walk would have sent on the same budget."""

    qid: str
    needed: int
    budget: int
    sent: tuple
    bookings: tuple
    covered: int
    lab_packet: tuple
    lab_covered: int
    splits: tuple        # (sent id, neighbour left out) pairs


def _neighbours(pid: str, corpus: Corpus) -> list[str]:
    held = corpus.held.get(pid)
    if held is None or held.position < 0:
        return []
    found = [corpus.at.get((held.source_id, held.position + step)) for step in (-1, 1)]
    return [other for other in found if other is not None]


def _text_booking(pid: str, text: str, corpus: Corpus, unit: str) -> tuple[str, str]:
    from modules.common.checks import sha256_hex
    from modules.packet.fidelity import fidelity_check
    held = corpus.held[pid]
    original = held.text
    if text == original:
        return "sent", "the text sent is the corpus text"
    others = [other for other in corpus.ids_of.get(sha256_hex(text), []) if other != pid]
    if others:
        other = corpus.held[others[0]]
        if other.source_id and other.source_id == held.source_id:
            return "other_version", (f"the text sent is {others[0]}'s (version {other.version or '?'} of "
                                     f"{held.source_id}), not version {held.version or '?'}")
        return "altered", f"the text sent is {others[0]}'s"
    stem = text.rstrip("".join(ELLIPSIS))
    if stem and len(stem) < len(original) and original.startswith(stem):
        return "truncated", f"{corpus.counter(stem)} of {corpus.counter(original)} {unit} sent"
    missing = fidelity_check(original, text)
    if missing["negations"]:
        return "cut_negation", f"{', '.join(repr(w) for w in missing['negations'])} missing from the text sent"
    lost = [f"{kind} {', '.join(words)}" for kind, words in missing.items() if kind != "ok" and words]
    return "altered", "the text sent differs from the corpus" + (f" ({'; '.join(lost)} missing)" if lost else "")


def audit_packet(packet, ranking, relevant, corpus: Corpus, k: int, unit: str, findings) -> PacketAudit:
    """Book every needed passage of one query against the packet a system sent for it."""
    relevant = sorted(relevant)
    top = ranking[:k]
    in_top = set(top)
    sent = list(packet.docids)
    index = {pid: i for i, pid in enumerate(sent)}
    budget = 0
    for i, pid in enumerate(sent):
        if packet.texts is not None:
            budget += corpus.counter(packet.texts[i])
        elif pid in corpus:
            budget += corpus.size(pid)
        if pid not in corpus:
            findings.add("packet_unknown_doc", f"{packet.qid} {pid} (line {packet.line})")
    selection = select_candidates(top, corpus)
    lab_packet, _used = walk(walkable(selection, corpus), budget)
    lab_sent = set(lab_packet)
    splits = tuple((pid, other) for pid in sent for other in _neighbours(pid, corpus)
                   if other not in index and other in in_top)
    bookings = []
    for pid in relevant:
        held = corpus.held.get(pid)
        if pid in index:
            text = packet.texts[index[pid]] if packet.texts is not None else None
            if text is None or held is None:
                bookings.append(Booking(pid, "sent", "sent by id (the packet gives no text to compare)"
                                        if text is None else "sent; the corpus has no text to compare with"))
            else:
                bookings.append(Booking(pid, *_text_booking(pid, text, corpus, unit)))
            left = [other for sent_id, other in splits if sent_id == pid]
            if left and bookings[-1].cause == "sent":
                bookings[-1] = Booking(pid, "split_unit", f"sent without {left[0]}, its neighbour in "
                                                          f"{held.source_id} (one unit)")
            continue
        if pid not in in_top:
            bookings.append(Booking(pid, "not_retrieved", "not among the run's top k for this query"))
            continue
        versions = [other for other in sent if held is not None and held.source_id and other in corpus
                    and corpus.held[other].source_id == held.source_id and corpus.held[other].version != held.version
                    and held.version]
        partners = [other for other in _neighbours(pid, corpus) if other in index]
        if versions:
            other = corpus.held[versions[0]]
            bookings.append(Booking(pid, "other_version", f"{versions[0]} (version {other.version}) of "
                                                          f"{held.source_id} was sent instead of version "
                                                          f"{held.version}"))
        elif partners:
            bookings.append(Booking(pid, "split_unit", f"{partners[0]} was sent without it; they are neighbours "
                                                       f"in {held.source_id} (one unit)"))
        else:
            bookings.append(Booking(pid, "not_sent", "retrieved, not sent", _diagnosis(pid, selection, lab_sent,
                                                                                       budget, unit)))
    covered = sum(1 for b in bookings if b.cause == "sent")
    return PacketAudit(packet.qid, len(relevant), budget, tuple(sent), tuple(bookings), covered, tuple(lab_packet),
                       len(lab_sent & set(relevant)), splits)


def _diagnosis(pid: str, selection, lab_sent: set, budget: int, unit: str) -> str:
    if pid in lab_sent:
        return f"diagnosis: the lessons' walk sends it on the same budget ({budget} {unit})"
    if pid in selection.causes:
        cause, detail, _kept = selection.causes[pid]
        return f"diagnosis: the lessons' rules drop it too ({cause.replace('_', ' ')}: {detail})"
    return f"diagnosis: the lessons' walk leaves it out too (its unit does not fit in {budget} {unit})"
