"""Lesson 14's view: the record of modules/operate/trace.py as printable blocks, in the order
the lesson is taught: the cases, the signals, the two rebuilds named by their layer, the
layered evaluation, the faithfulness checks, the review and its artifacts, the
counterfactuals, ownership and the failure patterns. Every table carries its legend."""

from __future__ import annotations

import textwrap

from modules.common.tables import table_block
from modules.operate.review import LESSONS

__all__ = ["view"]

COUNTS_WIDTH = 55   # the signals table's counts column (and its trailing comma): 22 + 56 + one gap = 80


def _chunks(pairs: list, width: int = COUNTS_WIDTH) -> list:
    """'label value' pairs joined with ', ' into lines of at most `width` characters."""
    lines, line = [], ""
    for label, value in pairs:
        item = f"{label} {value}"
        if line and len(line) + 2 + len(item) > width:
            lines.append(line + ",")
            line = item
        else:
            line = f"{line}, {item}" if line else item
    return lines + [line or "none"]


def _opening(r: dict) -> list:
    return [
        {"key": "heading", "heading": "Lesson 14 - operate: signals, the layered evaluation and the review"},
        {"key": "opening", "text": (
            "This lesson adds no stage: it reads the one catalogue pipeline of lessons 07-13 over its frozen "
            "cases. It shows the signals per stage, then names the layer of two rebuilds from the signals "
            "alone, then reports four evaluation sections, seven faithfulness checks, the contract review "
            "with its five artifacts, three counterfactuals, ownership and six failure patterns.")},
        table_block(
            "cases", "The frozen cases, through the one catalogue pipeline",
            "kind: what the case stands for; segment: how the contract read the size (explicit "
            "unit, bare number, or other); state: the decision, the same as lessons 07-13 show. "
            f"Lesson 13's {len(r['sessions'])} memory sessions ({', '.join(r['sessions'])}) join them for the "
            "memory signal.",
            ["case", "kind", "segment", "state"],
            [[c["query_id"], c["kind"], c["segment"], c["state"]] for c in r["cases"]]),
    ]


def _owner_rows(signals: list) -> list:
    """One row per (owner, kept, seen by), its signals wrapped under it, in the signals' order."""
    groups: dict = {}
    for s in signals:
        groups.setdefault((s["owner"], s["retention"], s["access"]), []).append(s["name"])
    rows = []
    for (owner, kept, access), names in groups.items():
        seen = [access]
        listed = textwrap.wrap(", ".join(names), 21)
        for n in range(max(len(seen), len(listed))):
            rows.append([owner if n == 0 else "", kept if n == 0 else "", seen[n] if n < len(seen) else "",
                         listed[n] if n < len(listed) else ""])
    return rows


def _signal_blocks(r: dict) -> list:
    values, previous = [], None
    for s in r["signals"]:
        lines = _chunks(s["counts"])
        if s["name"] == "versions":   # the same stage/version pairs as the context contract prints below
            lines = [f"{len(s['counts'])} stages; versions as in the contract (artifact 1)"]
        if s["stage"] != previous:   # the stage as a heading row, its signals indented under it
            values.append([s["stage"], ""])
        values += [["  " + s["name"] if n == 0 else "", line] for n, line in enumerate(lines)]
        previous = s["stage"]
    actions = []
    for s in r["signals"]:
        actions += [[s["name"], s["first_action"]], ["", "  " + s["limitation"]]]
    return [
        {"key": "signals-heading", "heading": "Signals per stage, over the frozen cases"},
        table_block(
            "signals", "What each signal counts",
            "counts: label and count, summed over the ten catalogue cases (memory withheld: over "
            "the four sessions); every label is a safe code, a channel, a segment, a state or a "
            "version: never a listing id, a title or a user. 'of N' is the denominator. Each stage "
            "heads its signals.",
            ["stage / signal", "counts"],
            values),
        table_block(
            "signals-owners", "Who owns each signal, how long it is kept, who may see it",
            "owner: the role that acts on it first; kept: how long the aggregate is kept "
            "(aggregates only, no case kept); seen by: who may read it; signals: the signals "
            "that share the three.",
            ["owner", "kept", "seen by", "signals"],
            _owner_rows(r["signals"])),
        table_block(
            "signals-actions", "What to do first when a signal moves, and what it cannot tell",
            "first line: the first diagnostic action; indented line: the signal's limitation.",
            ["signal", "first action / limitation"],
            actions),
    ]


def _dashboard_rows(rows: list) -> list:
    """A rebuild's rows as the dashboard shows them: 'of N' folded into the row above it, the
    'versions' row left out where 'index version' already shows the same change, rows 0 -> 0 left out."""
    out = []
    for name, label, before, after in rows:
        if label == "of" and out and before == after:
            out[-1][1] = f"{out[-1][1]} (of {before})"
        elif before == after == 0 and name != "parser failures":
            continue
        elif name == "versions" and any(x[0] == "index version" and x[2:] == [before, after] for x in out):
            continue
        else:
            out.append([name, label, before, after])
    return out


def _anomaly_blocks(r: dict) -> list:
    first, second = r["anomalies"]["rebuild"], r["anomalies"]["image"]
    out = [{"key": "anomaly-heading", "heading": "Two rebuilds, one symptom, two layers"},
           {"key": "anomaly-intro", "text": (
               "The dashboard of each rebuild: the same signals before and after it. The layer is named from "
               "these counts and versions alone, with lesson 09's ten layers.")}]
    assisted = {label: (x, y) for name, label, x, y in first["rows"] if name == "assisted results"}
    answered = {label: (x, y) for name, label, x, y in first["rows"] if name == "answered"}
    x, y = assisted["explicit unit"]
    p, q = first["permission"], second["permission"]
    r_before, r_after = second["restricted_proposed"]
    denied = {label: (b, a) for name, label, b, a in second["rows"] if name == "exclusions"}
    readings = {
        "rebuild": (
            f"Layer: {first['layer']}. {first['why'][0].upper() + first['why'][1:]}. The symptom: assisted "
            f"results for the explicit-unit segment fall {x} -> {y} while the answered count stays "
            f"{answered['explicit unit'][0]} -> {answered['explicit unit'][1]}: fewer listings reach the "
            "assistant and the states do not show it; parser failures and the lexical and vector counts are "
            "steady. Repair the rebuild and replay the frozen cases, never loosen fail-closed."),
        "image": (
            f"Layer: {second['layer']}. {second['why'][0].upper() + second['why'][1:]}. The policy and every "
            f"listing's permission metadata are unchanged: its permission exclusions go {q[0]} -> {q[1]} ("
            + ", ".join(f"{code} {b} -> {a}" for code, (b, a) in denied.items())
            + " above, the other permission codes unchanged) only because the channels proposed "
            f"{r_before} -> {r_after} listings that are not 'allowed' (once per case): a candidate lost, not a "
            "permission change. Restore the index's lists or raise nprobe, as lesson 12 finds. The ranker is "
            "named by neither rebuild: it orders what reaches it."),
    }
    for key, title in (("rebuild", "Lesson 09's index rebuild, over its nine queries"),
                       ("image", "Lesson 12's image-index rebuild, over its five photo queries")):
        a = r["anomalies"][key]
        out += [
            table_block(
                f"anomaly-{key}", title,
                "signal and label as in the signals above (rows 0 -> 0 left out, but for parser failures); before/after: on the "
                "healthy and on the rebuilt index." if key == "rebuild" else "Columns as above.",
                ["signal", "label", "before", "after"],
                _dashboard_rows(a["rows"])),
            {"key": f"anomaly-{key}-layer", "text": readings[key]},
        ]
    return out


def _pairs(d: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in d.items()) or "-"


def _behaviour_table(rows: list, states: list) -> dict:
    """Section 4 by state, in the evidence-state table's precedence (that table is artifact 4)."""
    fallbacks: dict = {}
    for b in rows:
        fallbacks.setdefault(b["state"], [])
        if (b["fallback"] or "-") not in fallbacks[b["state"]]:
            fallbacks[b["state"]].append(b["fallback"] or "-")
    kept = sum(b["without_generation"] == b["state"] and b["packet_kept"] is True for b in rows)
    return {"title": "4. End-to-end behaviour, and with generation removed",
            "legend": "#: the state's precedence (1 wins over 2 ...); cases: the frozen cases in that state; "
                      "fallback: what the product does next. With the answer stage removed, "
                      f"{kept} of {len(rows)} cases keep their state and the same packet fields.",
            "columns": ["#", "state", "cases", "fallback"],
            "rows": [[x["precedence"], x["state"], " ".join(x["cases"]) or "-",
                      ", ".join(fallbacks.get(x["state"], ["-"]))] for x in states]}


def evaluation_blocks(r: dict) -> list:
    e = r["evaluation"]
    k, c = e["ranking"], e["context"]
    top = "; ".join(f"{q} " + " ".join(f"{ch}#{n}" for ch, n in ranks.items()) for q, ranks in k["breakdown"].items())
    return [
        {"key": "evaluation-heading", "heading": "The layered evaluation report: four sections, no single number"},
        table_block(
            "evaluation-retrieval", "1. Retrieval: candidates by channel and segment",
            "cases: frozen cases in the segment; candidates: proposals per channel, summed over the "
            "cases (before the gate); ranked: clusters reaching ranking; empty: cases with an empty "
            "cause.",
            ["segment", "cases", "candidates", "ranked", "empty"],
            [[x["segment"], x["cases"], _pairs(x["candidates"]), x["ranked"], x["empty"]]
             for x in e["retrieval"]]),
        {"key": "evaluation-ranking", "text": (
            f"2. Ranking: of {k['judged']} cases with lesson 12's labels and a ranking, {k['top_relevant']} rank a "
            f"relevant listing first."
            + f" A channel's own first candidate was withheld in {k['channel_top_withheld']} cases, and no "
            f"restricted listing reached ranking ({k['restricted_ranked']}); tied neighbours: {k['ties']}. First "
            f"place by channel rank: {top}.")},
        {"key": "evaluation-context", "text": (
            f"3. Context: {c['fields_from_permitted']} of {c['fields']} packet fields come from permitted listings; "
            f"{c['lines_citing_packet']} of {c['answer_lines']} answer lines cite the packet only; stale fields "
            f"packed {c['stale_packed']}, named as left out {c['stale_named']}; conflicting listings packed "
            f"{c['conflicts_packed']}; of {c['empty']} cases without a packet, {c['empty_named']} name an empty "
            f"cause, the others are in state {', '.join(c['empty_unnamed_states']) or '-'}; largest "
            f"packet {c['largest_packet']} listings (limit {c['limit']}); {c['complete_traces']} of {e['cases']} "
            f"traces hold at every layer; restricted fields packed: {c['restricted_in_packets']}.")},
        {"key": "evaluation-behaviour", "table": _behaviour_table(e["behaviour"], r["artifacts"]["evidence_states"])},
        {"key": "evaluation-limits", "text": f"Limits: {e['limits']}."},
    ]


def _passes(checks: list) -> str:
    held = [name for name, ok, _ in checks if ok]
    if len(held) == len(checks):
        return f"Passes all {len(checks)} checks."
    return "Passes: " + ", ".join(held) + "; fails: " + ", ".join(name for name, ok, _ in checks if not ok) + "."


def faithfulness_blocks(r: dict) -> list:
    f = r["faithfulness"]
    out = [{"key": "faithfulness-heading", "heading": "Faithful downstream use: seven checks on an explanation"}]
    for qid, case in f["cases"].items():
        out.append({"key": f"faithfulness-{qid}", "text": f"The template explanation of {qid}:\n" + "\n".join(
            f"  {text} [{', '.join(cites)}]" if cites else f"  {text}" for text, cites in case["template"])
            + "\n" + _passes(case["checks"])})
    q = f["cases"]["PW-Q004"]
    out.append({"key": "faithfulness-reworded", "text": (
        "A second allowed wording of PW-Q004 (variation: other words, the same criteria):\n" + "\n".join(
            f"  {text} [{', '.join(cites)}]" if cites else f"  {text}" for text, cites in q["reworded"])
        + "\n" + "; ".join(f"{qid}'s second wording passes {sum(held for _n, held, _ in c['reworded_checks'])} "
                            f"of 7" for qid, c in f["cases"].items()) + ".")})
    out.append(table_block(
        "faithfulness-mistakes", "Each unfaithful explanation fails exactly its check",
        "explanation: one edit of the template (or of the second wording); case: the query it "
        "explains; fails: the checks it fails (only the one it must).",
        ["explanation", "case", "fails"],
        [[x["name"], x["query_id"], ", ".join(x["failed"])] for x in f["mistakes"]]))
    return out


def _review_line(n: int, x: dict) -> str:
    """One question: answered by a stage (its version is in the context contract), a lesson and a
    test, or a gap with what is missing."""
    test = x["test"].split("::")[1]
    if x["status"] == "answered":
        return f"{n}. {x['question']} ANSWERED by {x['stage']}, lesson {x['lesson']} {LESSONS[x['lesson']]}: {test}"
    return f"{n}. {x['question']} GAP: {x['note']} (test {test})"


def _review_blocks(r: dict) -> list:
    return [
        {"key": "review-heading", "heading": "The context contract review"},
        {"key": "review", "text": "Each question, answered by a stage, a lesson and a test, or marked a gap:\n"
         + "\n".join(_review_line(n, x) for n, x in enumerate(r["review"], 1))},
    ]


def _artifact_blocks(r: dict) -> list:
    a = r["artifacts"]
    cc, dr = a["context_contract"], a["decision_record"]
    return [
        {"key": "artifacts-heading", "heading": "The five completion artifacts, generated from the pipeline"},
        table_block(
            "artifact-contract", f"1. Context contract of '{cc['pipeline']}'",
            "every stage with its version, the layer lesson 09 walks and the role that owns it.",
            ["stage", "version", "layer", "owner"],
            [[s["stage"], s["version"], s["layer"], s["owner"]] for s in cc["stages"]]),
        {"key": "artifact-contract-fields", "text": (
            f"Packet fields required: {', '.join(cc['required'])}; optional: {', '.join(cc['optional'])}; "
            f"prohibited: {', '.join(cc['prohibited'])}; at most {cc['packet_limit']} listings; freshness: "
            + ", ".join(f"{x['field']} {x['max_days']} days" for x in cc["freshness"]) + ".")},
        {"key": "artifact-decision", "text": (
            "2. Retrieval and ranking decision record: channels "
            + ", ".join(f"{c['channel']} ({c['version']})" for c in dr["channels"])
            + f"; fusion {dr['fusion']['rule']}, k = {dr['fusion']['k']} ({dr['fusion']['version']}); field "
              f"weights {_pairs(dr['field_weights'])}; vector top {dr['vector_top_k']}; gate before ranking: "
              f"{dr['gate_before_ranking']}; never: {'; '.join(dr['never'])}.")},
        {"key": "artifact-schema", "text": "3. Grounding trace schema (section: keys): " + "; ".join(
            f"{s}: {' '.join(keys)}" for s, keys in a["trace_schema"])},
        {"key": "artifact-states", "text": "4. Evidence-state table: the table of section 4 (precedence, state, "
         "cases), with each state's first next action: " + "; ".join(
            f"{x['state']}: {x['next_action']}" for x in a["evidence_states"]) + "."},
        {"key": "artifact-report", "text": "5. Layered evaluation report: the four sections above."},
    ]


def _counterfactual_blocks(r: dict) -> list:
    c = r["counterfactuals"]
    v, g, w = c["vector"], c["generation"], c["withdraw"]
    return [
        {"key": "counterfactuals-heading", "heading": "Three forced counterfactuals"},
        table_block(
            "counterfactual-vector", "Remove the vector channel",
            "segment: lesson 12's declared segments (a case may be in two); losing: cases that lose "
            "ranked candidates; lost: candidates lost; states: states that change.",
            ["segment", "cases", "losing", "lost", "states"],
            [[s, x["cases"], x["losing"], x["lost"], x["states_changed"]] for s, x in v["segments"].items()]),
        {"key": "counterfactual-vector-fallback", "text": f"What remains: {v['fallback']} (lesson 12)."},
        {"key": "counterfactual-generation", "text": (
            f"Remove generation: {g['unchanged']} of {g['cases']} cases keep their state and packet (the table "
            f"of section 4); the {g['answer_lines_before']} answer lines go, the structured evidence stays.")},
        {"key": "counterfactual-withdraw", "text": (
            f"Withdraw {w['listing']}'s permission: packed before in {', '.join(w['packed_before'])}, after in "
            f"{', '.join(w['packed_after']) or 'none'}; rerun, the {len(w['cases'])} cases that retrieved it "
            f"name its id {w['id_in_records_after']} times, its opaque ref {w['ref_in_records_after']} times. "
            "States after: " + _pairs(w["states_after"]) + ". Memory (lesson 13): "
            + "; ".join(f"{name}: {'held' if held else 'FAILED'}" for name, held, _d in w["memory"]) + ".")},
    ]


def _ownership_text(r: dict) -> str:
    """Ownership against the stages: the context contract's owner column, plus the stages it does not list."""
    listed = {s["stage"] for s in r["artifacts"]["context_contract"]["stages"]}
    extra = [f"{stage} {o['role']}" for o in r["ownership"] for stage in o["stages"] if stage not in listed]
    unowned = [o["role"] for o in r["ownership"] if not o["stages"]]
    return ("Ownership against the stages: the owner column of the context contract (artifact 1), and lesson "
            f"13's memory stages: {', '.join(extra)}; " + ", ".join(unowned)
            + " owns no stage and every stage's version.")


def _tail_blocks(r: dict) -> list:
    return [
        {"key": "ownership", "text": _ownership_text(r)},
        {"key": "patterns-heading", "heading": "Six failure patterns, each refuted by a measured figure"},
        {"key": "patterns", "text": "\n".join(f"- {p} (lesson {lesson}): {figure}." for p, lesson, figure
                                              in r["patterns"])},
        {"key": "closing", "text": (
            "No single number located either rebuild: the answered count held while a layer broke. The "
            "signals, read in lesson 09's layer order, did.")},
    ]


def view(record: dict) -> list:
    """Printable blocks, in the order the lesson is taught."""
    return (_opening(record) + _signal_blocks(record) + _anomaly_blocks(record) + evaluation_blocks(record)
            + faithfulness_blocks(record) + _review_blocks(record) + _artifact_blocks(record)
            + _counterfactual_blocks(record) + _tail_blocks(record))
