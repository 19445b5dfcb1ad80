"""Lesson 10's output schema: what the answer stage hands over, checked by code before
anything is displayed (modules/answer/mechanism.py re-exports all of it, and turns an Answer into this object with
answer_output).

The answer travels as a JSON object with declared fields and types. A sentence that
states something (a claim, or one side of a disagreement) must quote and cite; any other
sentence does neither; and the status must agree with what the sentences do.
"""

from __future__ import annotations

from modules.common.checks import short

__all__ = ["STATUSES", "KINDS", "STATING", "ANSWER_SCHEMA", "SENTENCE_SCHEMA", "check_output", "shown_answer"]

STATUSES = ("full", "partial", "conflict", "abstain")
KINDS = ("claim", "disputed", "conflict", "gap", "abstain")
STATING = ("claim", "disputed")   # the kinds that state something, and so must quote and cite

# What the answer stage must hand over, as JSON: field -> (type, allowed values or None).
ANSWER_SCHEMA = {
    "status": (str, STATUSES),
    "sentences": (list, None),   # each a dict with exactly the SENTENCE_SCHEMA fields
    "missing": (list, None),     # of str: facet names
    "disputed": (list, None),    # of str: facet names
}
SENTENCE_SCHEMA = {"kind": (str, KINDS), "text": (str, None), "quote": (str, None), "cite": (str, None)}


def _fields(value: object, schema: dict, where: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{where} must be an object, got {type(value).__name__}"]
    problems = [f"{where} lacks the field {name!r}" for name in schema if name not in value]
    problems += [f"{where} has an undeclared field {name!r}" for name in value if name not in schema]
    for name, (kind, allowed) in schema.items():
        if name not in value:
            continue
        if not isinstance(value[name], kind) or isinstance(value[name], bool):
            problems.append(f"{where}.{name} must be a {kind.__name__}, got {type(value[name]).__name__}")
        elif allowed is not None and value[name] not in allowed:
            problems.append(f"{where}.{name} must be one of {', '.join(allowed)}, got {short(value[name])}")
    return problems


def check_output(output: object) -> list[str]:
    """Every way `output` breaks the declared schema (an empty list: it may be shown).

    Fields and types as declared; at least one sentence; a claim or disputed sentence
    quotes and cites, any other kind does neither; the status agrees with the parts:
    full misses and disputes nothing, partial has a claim and a missing facet, conflict
    a disputed facet, abstain states nothing.
    """
    problems = _fields(output, ANSWER_SCHEMA, "answer")
    if problems:
        return problems
    for name in ("missing", "disputed"):
        problems += [f"answer.{name}[{i}] must be a str" for i, v in enumerate(output[name]) if not isinstance(v, str)]
    if not output["sentences"]:
        problems.append("answer.sentences must hold at least one sentence")
    kinds = []
    for index, sentence in enumerate(output["sentences"]):
        where = f"answer.sentences[{index}]"
        found = _fields(sentence, SENTENCE_SCHEMA, where)
        problems += found
        if found:
            continue
        kinds.append(sentence["kind"])
        stating = sentence["kind"] in STATING
        if not sentence["text"].strip():
            problems.append(f"{where}.text is empty")
        if stating and not (sentence["cite"] and sentence["quote"]):
            problems.append(f"{where} is a {sentence['kind']} without a citation (cite and quote)")
        if not stating and (sentence["cite"] or sentence["quote"]):
            problems.append(f"{where} is a {sentence['kind']} sentence and may not cite or quote")
    if problems:   # the status is judged against well-formed sentences only
        return problems
    status, claims = output["status"], kinds.count("claim")
    if status == "full" and (output["missing"] or output["disputed"] or not claims):
        problems.append("answer.status is full, but a facet is missing or disputed, or nothing is claimed")
    if status == "partial" and not (claims and output["missing"]):
        problems.append("answer.status is partial, but it claims nothing or misses nothing")
    if status == "conflict" and not output["disputed"]:
        problems.append("answer.status is conflict, but no facet is disputed")
    if status == "abstain" and any(kind in STATING for kind in kinds):
        problems.append("answer.status is abstain, but a sentence states something")
    return problems


def shown_answer(output: object) -> str:
    """The answer's text for display, only after the schema check passes."""
    problems = check_output(output)
    if problems:
        raise ValueError("the answer breaks the output schema and is not shown: " + "; ".join(problems))
    return " ".join(s["text"] + (f" [{s['cite']}]" if s["cite"] else "") for s in output["sentences"])
