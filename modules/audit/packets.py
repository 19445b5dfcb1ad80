"""What a system sent, for `methods.py audit --packets` and `--prompts`: one packet or one
LLM call's prompt a line, read as Packet records and prompts by query (located in
modules/audit/sent.py).

    packets.jsonl   {"qid", "docids": [...], "texts": [...]}   an id may repeat (chunk-level)
    prompts.jsonl   {"qid", "call", "prompt"}                    one line per LLM call
"""

from __future__ import annotations

from dataclasses import dataclass

from modules.audit.readers import InputError, open_lines, read_id, read_object
from modules.common.checks import short

__all__ = ["Packet", "read_packets", "read_prompts"]


@dataclass(frozen=True, slots=True)
class Packet:
    """What a system sent for one query: the ids in the order sent (an id may repeat), their
    texts (None when the packet gives none) and the line's number; found in prompts, also the
    call each id was sent in, and each call's prompt and call number."""

    qid: str
    docids: tuple[str, ...]
    texts: tuple[str, ...] | None
    line: int
    calls: tuple[int, ...] = ()
    prompts: tuple[str, ...] = ()
    call_ids: tuple[int, ...] = ()


PACKETS = "a packet line {\"qid\", \"docids\": [...], \"texts\": [...]}"


def read_packets(path: str, shown: str, findings=None) -> dict[str, Packet]:
    """Query id -> the Packet a system sent for it."""
    packets: dict[str, Packet] = {}
    for number, line in open_lines(path, shown):
        record = read_object(line, shown, number, PACKETS)
        qid = read_id(record, "qid", shown, number, findings)
        if qid in packets:
            raise InputError(shown, number, "qid", f"{qid!r} already has a packet on line {packets[qid].line}")
        docids = record.get("docids")
        if not isinstance(docids, list):
            raise InputError(shown, number, "docids", f"expected a list of passage ids in {PACKETS}, found "
                                                      f"{short(docids)}")
        ids = tuple(read_id({"docids": d}, "docids", shown, number, findings) for d in docids)
        texts = record.get("texts")
        if texts is not None:
            if not isinstance(texts, list) or len(texts) != len(ids) or not all(isinstance(t, str) for t in texts):
                raise InputError(shown, number, "texts", f"expected a list of {len(ids)} strings (one per docid), "
                                                         f"found {short(texts)}")
            texts = tuple(texts)
        packets[qid] = Packet(qid=qid, docids=ids, texts=texts, line=number)
    return packets


PROMPTS = "a prompt line {\"qid\", \"call\", \"prompt\"}"


def read_prompts(path: str, shown: str, findings=None) -> dict[str, list[tuple[int, str]]]:
    """Query id -> its (call, prompt) pairs, in call order: what each LLM call received."""
    prompts: dict[str, dict[int, tuple[str, int]]] = {}
    for number, line in open_lines(path, shown):
        record = read_object(line, shown, number, PROMPTS)
        qid = read_id(record, "qid", shown, number, findings)
        call = record.get("call")
        if isinstance(call, bool) or not isinstance(call, int) or call < 0:
            raise InputError(shown, number, "call", f"expected a whole number >= 0 in {PROMPTS}, found {short(call)}")
        prompt = record.get("prompt")
        if not isinstance(prompt, str):
            raise InputError(shown, number, "prompt", f"expected a string in {PROMPTS}, found {short(prompt)}")
        calls = prompts.setdefault(qid, {})
        if call in calls:
            raise InputError(shown, number, "call", f"call {call} of {qid!r} already appears on line {calls[call][1]}")
        calls[call] = (prompt, number)
    return {qid: [(call, calls[call][0]) for call in sorted(calls)] for qid, calls in prompts.items()}
