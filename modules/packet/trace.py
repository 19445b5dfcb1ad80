"""Lesson 06's trace and view: the record and the tables `python3 -B methods.py packet` prints.

The mechanisms are in modules/packet/mechanism.py (records, spans, selection, seal),
modules/packet/wrapper.py (rendering, parsing, tools and trust) and
modules/packet/fidelity.py (compression and the fidelity check).
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from modules.packet.mechanism import (CAP_QUESTIONS, DOCUMENTS, EDITS, FEES, GUEST, HOURS, LAPTOP_QUESTION, LOANS, RULES,
                            SERVICES, VISITORS, Evidence, cap_per_document, chunk, chunks_of, cite, expand_adjacent,
                            keyword_reader, nfc, packet_seal, resolve_citation, revalidate)
from modules.packet.fidelity import KINDS, NAIVE_COMPRESSOR, compression_check, naive_compress
from modules.packet.wrapper import (INSTRUCTIONS, MALICIOUS_SAMPLES, SET_OPEN, TOOL_EFFECTS, TaskPolicy,
                                    assemble_packet, authorize_tool_call, parse_evidence, render_evidence,
                                    tool_call_status, wire_record)
from modules.common.tables import table_block

# Fixed by the application before anything is retrieved.
ANSWER_POLICY = TaskPolicy(task="answer-question", allowed_tools=("search_catalogue",), min_trust="reviewed")
GUEST_POLICY = TaskPolicy(task="read-guest-notes", allowed_tools=("search_catalogue",), min_trust="unreviewed")
RENEW_POLICY = TaskPolicy(task="renew-loan", allowed_tools=("renew_loan",), min_trust="official")  # the one that acts
POLICIES = (ANSWER_POLICY, GUEST_POLICY)
# (policy, tool, who asks, confirmed by a person): the calls the trace puts to tool_call_status
CALLS = ((ANSWER_POLICY, "search_catalogue", "reader", False), (ANSWER_POLICY, "renew_loan", "reader", False),
         (GUEST_POLICY, "open_door", "guest-notes#2", False), (RENEW_POLICY, "renew_loan", "reader", False),
         (RENEW_POLICY, "renew_loan", "reader", True), (RENEW_POLICY, "send_email", "guest-notes#2", True))
HUMAN_SUMMARY = ("hand-written", "2026-05-02")   # a person's summary: its author and date stand for a revision
TRUST_ITEMS = ("lending#1", "faq#1", "guest-notes#1", "guest-notes#2")
FORMS = ("NFC", "NFD", "NFKC", "NFKD")
FLAGS = ("adjacent:1", "cap:2")
WIDTH = 80


def build_fields(policy: TaskPolicy, question: str, items, flags) -> dict:
    """The packet's versioned fields: what the seal covers."""
    return {"task@1": policy.task, "allowed_tools@1": list(policy.allowed_tools), "min_trust@1": policy.min_trust,
            "question@1": question, "instructions@1": INSTRUCTIONS, "flags@1": set(flags),
            "evidence@1": [wire_record(item) for item in items]}


def _spans() -> dict:
    line = chunk("help-desk-hours#2")
    span = cite(HOURS, line.start, line.end)
    raw_start = HOURS.text.index(line.text)
    quote_start = nfc(FEES.text).index("8 euros per day")
    return {"span": span, "raw_code_point_start": raw_start,
            "utf8_byte_start": len(HOURS.text[:raw_start].encode("utf-8")),
            "revalidated": [revalidate(span, doc) for doc in (HOURS, *EDITS)],
            "located": cite(FEES, quote_start, quote_start + len("8 euros per day"))}


def _injection() -> dict:
    item = chunks_of(GUEST)[0]
    rendered = render_evidence([item])
    parsed = parse_evidence(rendered)
    naive = SET_OPEN + f'<evidence id="{item.id}">{item.text}</evidence>\n</evidence_set>'
    return {"text": item.text, "rendered": rendered, "parsed_items": len(parsed),
            "round_trip": parsed == [wire_record(item)],
            "closing_tags_in_rendered": rendered.count("</evidence>"),
            "naive_opening_tags": naive.count("<evidence ")}


def _naive_escape(text: str) -> str:
    """The five named entities alone, as the lab's wrapper escaped before it met normalisation
    (then in a one-line layout, the text right after the tag's >)."""
    return text.translate(str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}))


def _markup(text: str) -> int:
    return sum(text.count(c) for c in '<>"&')


def _parses_as(text: str, rendered: str, want: list, same: bool) -> bool:
    # A packet the normalisation left byte-identical parses as the original did (`same`).
    return same if text == rendered else parse_evidence(text) == want


def _normalisation() -> list:
    """Each malicious sample, rendered with the five entities alone and with the lab's escaping,
    then normalised four ways: does the wrapper's structure survive, and the evidence?"""
    rows = []
    for name, text in MALICIOUS_SAMPLES:
        item = Evidence(id="sample#1", doc_id="sample", title="Sample", revision="r1", effective="2026-06-01",
                        start=0, end=len(text), text=text)
        naive = f'{SET_OPEN}<evidence id="sample#1">{_naive_escape(text)}</evidence>\n</evidence_set>'
        rendered = render_evidence([item])
        want = [wire_record(item)]
        same = parse_evidence(rendered) == want
        markup = _markup(naive)
        rows.append({
            "sample": name, "text": text,
            "naive": {form: "intact" if _markup(unicodedata.normalize(form, naive)) == markup else "broken"
                      for form in FORMS},
            "lab": {form: "same" if _parses_as(unicodedata.normalize(form, rendered), rendered, want, same) else "changed"
                    for form in FORMS},
            "allowed_tools_after": assemble_packet(ANSWER_POLICY, LAPTOP_QUESTION, [item])["allowed_tools"]})
    return rows


def _forgeries() -> list:
    """A rendered item edited the ways the renderer never writes; what the parser says of each."""
    rendered = render_evidence([chunk("lending#2")])
    trust = ' trust="official"'
    edits = (("a repeated attribute", rendered.replace(trust, trust + trust, 1)),
             ("an unknown attribute", rendered.replace(trust, trust + ' admin="yes"', 1)),
             ("a missing attribute", rendered.replace(trust, "", 1)),
             ("a quote changed", rendered.replace("noon", "n00n", 1)))
    rows = []
    for name, text in edits:
        try:
            parse_evidence(text)
            verdict = "accepted"
        except ValueError as error:
            # every message names the item first; the table has one item, so the rest is what matters
            verdict = "refused: " + str(error).removeprefix("evidence item 1").lstrip(": ")
        rows.append({"forgery": name, "parser": verdict})
    return rows


def _trust_and_tools() -> dict:
    items = [chunk(i) for i in TRUST_ITEMS]
    packets = {policy.task: assemble_packet(policy, LAPTOP_QUESTION, items) for policy in POLICIES}
    return {"items": [{"id": i.id, "trust": i.trust} for i in items],
            "policies": [{"task": p.task, "allowed_tools": list(p.allowed_tools), "min_trust": p.min_trust,
                          "kept": [r["id"] for r in parse_evidence(packets[p.task]["evidence"])],
                          "excluded_by_trust": packets[p.task]["excluded_by_trust"],
                          "tool_requests_in_evidence": packets[p.task]["tool_requests_in_evidence"],
                          "allowed_tools_after": packets[p.task]["allowed_tools"],
                          "open_door_allowed": authorize_tool_call(p, "open_door"),
                          "search_catalogue_allowed": authorize_tool_call(p, "search_catalogue")}
                         for p in POLICIES]}


def _privilege() -> dict:
    return {"policies": [{"task": p.task, "allowed_tools": list(p.allowed_tools), "min_trust": p.min_trust}
                         for p in (ANSWER_POLICY, GUEST_POLICY, RENEW_POLICY)],
            "effects": dict(TOOL_EFFECTS),
            "calls": [{"task": p.task, "tool": tool, "asked_by": who, "effect": TOOL_EFFECTS[tool],
                       "confirmed": confirmed, "status": tool_call_status(p, tool, confirmed)}
                      for p, tool, who, confirmed in CALLS]}


def _adjacent() -> list:
    hits = (chunk("lending#2"), chunk("visitor-guide#1"))
    pool = chunks_of(LOANS) + chunks_of(VISITORS)
    runs = []
    for before, after, budget in ((0, 0, 200), (1, 0, 200), (1, 1, 200), (1, 0, 120)):
        items = expand_adjacent(hits, pool, before, after, budget)
        runs.append({"before": before, "after": after, "max_quote_chars": budget,
                     "items": [{"id": i.id, "relation": i.relation, "chars": len(i.text)} for i in items],
                     "skipped_hits": [h.id for h in hits if h not in items],
                     "used_quote_chars": sum(len(i.text) for i in items), "answer": keyword_reader(items)})
    return runs


def _caps() -> list:
    rows = []
    for number, (question, ranked, needed) in enumerate(CAP_QUESTIONS, start=1):
        hits = [chunk(i) for i in ranked]
        for cap in (None, 1, 2):
            found = cap_per_document(hits, cap, 3)
            rows.append({"question": f"Q{number}", "cap": "none" if cap is None else cap, **found,
                         "coverage": f"{len(set(found['kept']) & set(needed))}/{len(needed)}"})
    return rows


def _seal() -> dict:
    items = (chunk("lending#1"), chunk("lending#2"))
    fields = build_fields(ANSWER_POLICY, LAPTOP_QUESTION, items, FLAGS)
    shuffled = {key: fields[key] for key in reversed(list(fields))}
    shuffled["flags@1"] = set(reversed(FLAGS))
    shuffled["evidence@1"] = [{key: e[key] for key in reversed(list(e))} for e in fields["evidence@1"]]
    edited = build_fields(ANSWER_POLICY, LAPTOP_QUESTION,
                          (items[0], replace(items[1], text=items[1].text.replace("noon", "no0n"))), FLAGS)
    return {"seal": packet_seal(fields), "same_fields_other_order": packet_seal(shuffled),
            "one_byte_changed": packet_seal(edited), "field_ids": sorted(fields), "flags": list(FLAGS)}


def _compression() -> list:
    # (risk, document, line, the question kind_reader is asked, a careful summary or None for the naive one)
    cases = (("negation", RULES, 1, "negations", "Laptop out overnight?", None),
             ("number", RULES, 2, "numbers", "Daily overdue fee?", None),
             ("date", SERVICES, 2, "dates", "Early closing date?", None),
             ("condition", SERVICES, 1, "conditions", "Extended without asking?", None),
             ("entity", SERVICES, 3, "entities", "Which branch is named?", None),
             ("exception", HOURS, 2, "exceptions", "Open 8:30 on a holiday?", None),
             ("exception", HOURS, 2, "exceptions", "Open 8:30 on a holiday?",
              "Opens 8:30 weekdays, except public holidays."))
    rows = []
    for risk, doc, line, kind, question, careful in cases:
        original = chunk(f"{doc.doc_id}#{line}")
        summary = careful or naive_compress(original.text)
        citation = cite(doc, original.start, original.end)
        check = compression_check(original.text, summary, HUMAN_SUMMARY if careful else NAIVE_COMPRESSOR, kind)
        rows.append({"risk": risk, "compressor": "human" if careful else "naive",
                     "compressor_id": check["compressor"], "compressor_revision": check["revision"],
                     "original": original.text, "compressed": summary,
                     "lost": [t for k in KINDS for t in check["lost"].get(k, [])], "lost_by_kind": check["lost"],
                     "fidelity_ok": check["fidelity_ok"], "question": question,
                     "answer_before": check["answer_before"], "answer_after": check["answer_after"],
                     "answer_same": check["answer_same"],
                     "citation": f"{citation['doc_id']}@{citation['revision']} [{citation['start']}, {citation['end']})",
                     "citation_resolves_to_original": resolve_citation(citation, DOCUMENTS) == original.text})
    return rows


def trace() -> dict:
    items = (chunk("lending#1"), chunk("lending#2"))
    return {
        "lesson": "packet",
        "span_contract": "half-open [start, end) in Unicode code points of NFC text, at a named revision, "
                         "layer and locator",
        "spans": _spans(),
        "packet": assemble_packet(ANSWER_POLICY, LAPTOP_QUESTION, items),
        "injection": _injection(),
        "normalisation": _normalisation(),
        "forgeries": _forgeries(),
        "trust_and_tools": _trust_and_tools(),
        "adjacent": _adjacent(),
        "per_document_cap": _caps(),
        "seal": _seal(),
        "compression": _compression(),
        "privilege": _privilege(),
    }


# ---------------------------------------------------------------- the view

def _numbered(title: str, text: str, key: str) -> dict:
    """Markup shown as it is, one packet line per row; a longer line continues on unnumbered rows."""
    rows, room = [], WIDTH - 6
    for number, line in enumerate(text.split("\n"), start=1):
        pieces = [line[i:i + room] for i in range(0, len(line), room)] or [""]
        rows += [[str(number) if i == 0 else "", piece] for i, piece in enumerate(pieces)]
    return table_block(key, title,
                       "line: the line of the rendered packet; a line longer than "
                       f"{room} characters continues on the rows below it, with no break in the packet itself.",
                       ["line", "text"], rows)


def view(record: dict) -> list[dict]:
    spans, inj, seal, tt = record["spans"], record["injection"], record["seal"], record["trust_and_tools"]
    span, located, packet = spans["span"], spans["located"], record["packet"]
    answer, guest = tt["policies"]
    naive_rows = [r for r in record["compression"] if r["compressor"] == "naive"]
    naive, human = naive_rows[0], next(r for r in record["compression"] if r["compressor"] == "human")
    privilege = record["privilege"]
    return [
        {"key": "heading", "heading": "Lesson 06 - packet: a sealed, sourced, safely wrapped evidence packet"},
        {"key": "intro", "text": (
            "What this shows: a citation that survives edits (the span contract); a wrapper that evidence "
            "cannot escape, with trust tiers, least privilege and a person confirming every action; "
            "adjacent chunks and a per-document cap; a seal; and what compression loses, answer included.")},
        {"key": "span", "text":
            f"Span contract: {record['span_contract']}. The quote {span['quote']!r} is "
            f"{span['doc_id']}@{span['revision']} [{span['start']}, {span['end']}) in layer {span['layer']}, "
            f"space {span['space']}, with sha256 {span['quote_sha256'][:16]}... The raw text spells Café with "
            f"a combining accent, so the same start is {spans['raw_code_point_start']} in raw code points and "
            f"{spans['utf8_byte_start']} in UTF-8 bytes: never mix the spaces."},
        table_block(
            "revalidation", "Revalidating the stored span after each edit",
            "ok: the offsets still hold the quote (compared with its hash); moved: the quote occurs "
            "exactly once elsewhere, at start..end (code points); drifted: it is gone or ambiguous.",
            ["revision", "status", "start", "end"],
            [[r["revision_now"], r["status"], r["start"], r["end"]] for r in spans["revalidated"]]),
        table_block(
            "contract", "The span contract each item carries, for a whole text and for a long document",
            "A page of a 40-page PDF is cited by its locator (page, table, row) inside an explicit "
            "revision, with offsets inside that element: no global offset is invented. "
            "start, end: NFC code points, half-open.",
            ["field", "whole text", "long document"],
            [[name, span[name], located[name]] for name in ("doc_id", "revision", "layer", "space", "locator")]
            + [[name, str(span[name]), str(located[name])] for name in ("start", "end")]
            + [["quote_sha256", span["quote_sha256"][:16] + "...", located["quote_sha256"][:16] + "..."],
               ["quote", "(see above)", located["quote"]]]),
        {"key": "packet", "text":
            "The packet keeps its fields apart; evidence never reaches the instructions or the tools.\n"
            f"task: {packet['task']} (min trust {packet['min_trust']})\n"
            f"allowed tools (fixed before retrieval): {', '.join(packet['allowed_tools'])}\n"
            f"instructions: {packet['instructions']}\nquestion: {packet['question']}"},
        _numbered("evidence field, as rendered", packet["evidence"], "evidence"),
        {"key": "injection", "text":
            f"Injection: the guest notes say {inj['text']!r}. Escaped, the passage stays one item whose text "
            f"parses back exactly (items: {inj['parsed_items']}, exact: {'yes' if inj['round_trip'] else 'no'}). "
            f"Pasted unescaped, the same text would open {inj['naive_opening_tags']} evidence elements, one of "
            "them a forged 'admin' item. Escaping lowers the risk; it does not make a reader obey."},
        _numbered("the injected passage, rendered", inj["rendered"], "injected"),
        table_block(
            "normalisation", "Malicious samples: does the wrapper survive NFC of the whole packet?",
            "NFC..NFKD: the sample escaped with the five entities alone (& < > \" '), in a one-line "
            "layout, then the packet normalised: intact = as many < > \" & as before; broken = markup appeared or merged away. "
            "lab: the lab's escaping, parsed after each of the four forms (same = the same evidence). "
            "tools: the allowed tools after the packet was built.",
            ["sample", *FORMS, "lab", "tools"],
            [[r["sample"], *(r["naive"][f] for f in FORMS),
              "same" if set(r["lab"].values()) == {"same"} else "changed",
              ", ".join(r["allowed_tools_after"])] for r in record["normalisation"]]),
        table_block(
            "forgeries", "The parser accepts only what the renderer writes",
            "edit: how a rendered item (lending#2) was changed, in a way the renderer never writes; "
            "parser: what parse_evidence says of it.",
            ["edit", "parser"],
            [[r["forgery"], r["parser"]] for r in record["forgeries"]]),
        table_block(
            "trust", "Trust tiers per item, and a task's floor",
            "trust: the source's tier (official > reviewed > unreviewed; undeclared counts as "
            "unreviewed). Each task column says whether the task's floor admits the item: "
            + "; ".join(f"{p['task']} admits {p['min_trust']} and above" for p in tt["policies"]) + ".",
            ["item", "trust", *(p["task"] for p in tt["policies"])],
            [[i["id"], i["trust"], *("kept" if i["id"] in p["kept"] else "excluded" for p in tt["policies"])]
             for i in tt["items"]]),
        {"key": "tools", "text": (
            "A passage asking for a tool call changes nothing: "
            + "; ".join(f"{r['id']} names {', '.join(r['tools'])}" for p in tt["policies"]
                        for r in p["tool_requests_in_evidence"])
            + ". Once each task's packet is built, its allowed tools are "
            + "; ".join(f"{p['task']} {', '.join(p['allowed_tools_after'])} "
                        f"({'unchanged' if p['allowed_tools_after'] == p['allowed_tools'] else 'CHANGED'})"
                        for p in tt["policies"])
            + "; a call to open_door is "
            + ("refused for both" if not any(p["open_door_allowed"] for p in tt["policies"]) else "ALLOWED") + ".")},
        table_block(
            "privilege", "Least privilege, and a person confirms every action",
            "Each task holds only the tools it needs, fixed before retrieval: "
            + "; ".join(f"{p['task']}: {', '.join(p['allowed_tools'])} (min trust {p['min_trust']})"
                        for p in privilege["policies"])
            + ". tool: " + "; ".join(f"{t} {e}s" for t, e in sorted(privilege["effects"].items()))
            + " (a tool that acts changes something); asked by: the reader, or a passage (quoted data); "
              "confirmed: a person approved this one call; status: refused (not the task's tool), "
              "needs_confirmation (a tool that acts, not yet confirmed), or allowed.",
            ["task", "tool", "asked by", "confirmed", "status"],
            [[c["task"], c["tool"], c["asked_by"], c["confirmed"], c["status"]] for c in privilege["calls"]]),
        {"key": "defence", "text": (
            "Each defence alone is partial: escaping keeps the structure, not the reader's obedience; a trust "
            "tier is only as good as whoever assigned it; fixed tools and a person's confirmation limit what a "
            "persuaded reader can do; and the answer is checked against a declared output schema by code before "
            f"display (lesson 10 builds that check). The {len(record['normalisation'])} malicious samples above "
            "run as tests. Together they lower the risk.")},
        table_block(
            "adjacent", f"Adjacent expansion for: {LAPTOP_QUESTION}",
            "before, after: neighbouring chunks allowed per hit; budget, used: quote characters; "
            "keyword reader says: a fixed keyword rule standing in for a reader (no model): 'no' when the "
            "packet holds 'only to registered students', else 'yes' when it holds 'go home'.",
            ["run", "before", "after", "budget", "used", "hits left out", "keyword reader says"],
            [[n, r["before"], r["after"], r["max_quote_chars"], r["used_quote_chars"],
              ", ".join(r["skipped_hits"]) or "-", r["answer"]]
             for n, r in enumerate(record["adjacent"], start=1)]),
        table_block(
            "adjacent_items", "What each run put in the packet, in packet order",
            "relation: retrieved, or adjacent_to:<hit> for a neighbour (never shown as retrieved); "
            "chars: quote characters paid from the budget.",
            ["run", "item", "relation", "chars"],
            [[n if i == 0 else "", item["id"], item["relation"], item["chars"]]
             for n, r in enumerate(record["adjacent"], start=1) for i, item in enumerate(r["items"])]),
        table_block(
            "cap", "Per-document cap (top 3), shown both ways",
            f"Q1: {CAP_QUESTIONS[0][0]} Q2: {CAP_QUESTIONS[1][0]} cap: chunks kept per document; "
            "coverage: needed passages kept, from evaluation labels the selection never sees.",
            ["q", "cap", "kept", "capped", "coverage"],
            [[r["question"], r["cap"], ", ".join(r["kept"]), ", ".join(r["capped"]) or "-", r["coverage"]]
             for r in record["per_document_cap"]]),
        table_block(
            "seal", "The seal: identity, not truth",
            f"SHA-256 (hex) over the canonical JSON of the fields {', '.join(seal['field_ids'])}. "
            "The @1 is the field's version. flags@1 is the set of options the packet was built with: "
            "adjacent:1 = one chunk before each hit, cap:2 = at most two chunks per document. packet: as "
            "built; with every dict and set in another order; with one byte of one quote changed.",
            ["packet", "sha256"],
            [["as built", seal["seal"]], ["other order", seal["same_fields_other_order"]],
             ["byte changed", seal["one_byte_changed"]]]),
        table_block(
            "compression", "Compression risk: what the fidelity check finds",
            f"by: naive = the compressor {naive['compressor_id']} at revision {naive['compressor_revision']} "
            "(first clause, no stop words, six words), recorded with each summary it makes; human = a careful "
            f"hand-written summary ({human['compressor_id']}, {human['compressor_revision']}); lost: the "
            "original's negations, numbers, dates, conditions, named entities and exceptions missing from the "
            "compressed text ('-': nothing lost, the check passes).",
            ["risk", "by", "compressed", "lost"],
            [[r["risk"], r["compressor"], r["compressed"], " ".join(r["lost"]) or "-"]
             for r in record["compression"]]),
        table_block(
            "compression-answers", "The same question, asked of the original and of the compressed text",
            "question: what a reader is asked, one per risk; before, after: the answer from the original and "
            "from the compressed text, by a fixed rule standing in for a reader (no model): yes or no for a "
            "negation, condition or exception, else the value asked for.",
            ["risk", "by", "question", "before", "after"],
            [[r["risk"], r["compressor"], r["question"], r["answer_before"], r["answer_after"]]
             for r in record["compression"]]),
        {"key": "citations", "text":
            f"The naive compressor ({naive['compressor_id']} {naive['compressor_revision']}) changed the answer "
            f"in {sum(not r['answer_same'] for r in naive_rows)} of {len(naive_rows)} cases, and the fidelity check "
            f"flagged {sum(not r['fidelity_ok'] for r in naive_rows)} of them; the careful summary kept "
            f"{'the answer' if human['answer_same'] else 'not even the answer'} and passed "
            f"{'the check' if human['fidelity_ok'] else 'nothing'}. "
            f"Citations point at the original span, never at the summary: "
            f"{sum(r['citation_resolves_to_original'] for r in record['compression'])} of "
            f"{len(record['compression'])} resolve to their original text, checked against the quote hash."},
    ]
