"""Lesson 04's trace and view: the tables `python3 -B methods.py versions` prints.

The mechanism and the fixture are in modules/versions/mechanism.py, whose trace() and view()
call these; lesson 11 imports that module and so never compiles this one.
"""

from __future__ import annotations

from dataclasses import replace

from modules.common.tables import table
from modules.context.mechanism import CANDIDATES, RELEVANT_IDS, as_passage, coverage_counts, select_context
from modules.context.trace import conflict_text, selection
from modules.versions.mechanism import (AS_OF, COLLECTION, DEPOSIT_SCORES, DEPOSITS, LATE_FEES, SUPERSEDES, check_day, current_public,
                              multi_version_sources, resolve_in_order, resolve_or_abstain, stated_amounts, valid_on,
                              version_maxima)

TRAP_CASES = (  # labels of one source, and the record the editors' register approved
    ("integers", ("9", "10"), "9", "10 is a draft number an editor reserved; it was never approved"),
    ("padded integers", ("09", "9"), "09", "one integer written twice: a maximum can only break the tie"),
    ("dates", ("2026-03-01", "2026-02-15"), "2026-02-15", "the later date is a proposal written ahead of its vote"),
    ("release names", ("oak", "birch"), "birch", "names carry no order at all"),
)

LIMIT_CASES = (  # help-desk records (modules/helpdesk) the version rule cannot flag
    ("two sources disagree", (as_passage("hours-v2"), as_passage("leaflet-v1"))),
    ("a label reused", (as_passage("hours-v2"), as_passage("hours-draft"))),
)


def _ids(items) -> list[str]:
    return [item.id for item in items]


def _run(passages, budget: int) -> dict:
    chosen = select_context(passages, budget)
    found, needed = coverage_counts(chosen.packet_ids, RELEVANT_IDS)
    return {"max_quote_chars": budget, "packet_ids": list(chosen.packet_ids), "coverage": f"{found}/{needed}",
            "conflicts": {source: list(labels) for source, labels in chosen.conflicts.items()},
            "selection": selection(passages, chosen)}


def _notice(notice_id: str, text: str):
    """The deposit pair with the notice written another way: another record, so another id."""
    return (DEPOSITS[0], replace(DEPOSITS[1], id=notice_id, text=text))


# Each case changes one thing about the deposit pair, so that another check decides.
RESOLUTION_CASES = (
    ("supersedes map declared", DEPOSITS, {"supersedes": SUPERSEDES}),
    ("nothing declared", DEPOSITS, {}),
    ("as of 2026-04-30", DEPOSITS, {"supersedes": SUPERSEDES, "as_of": "2026-04-30"}),
    ("precedence declared", DEPOSITS, {"supersedes": SUPERSEDES, "precedence": ("room-booking-rules",
                                                                                "facilities-notices")}),
    ("notice says 60 euros", _notice("notice-in-euros", "Study room keys: the deposit is now 60 euros."), {}),
    ("notice in words", _notice("notice-in-words",
                                           "Study room keys: the deposit is now six hundred crowns."), {}),
)


def _resolutions(as_of: str) -> list[dict]:
    rows = []
    for case, records, declared in RESOLUTION_CASES:
        outcome = resolve_in_order(records, **{"as_of": as_of, **declared})
        rows.append(dict(outcome, case=case, declared={k: (dict(v) if isinstance(v, dict) else v)
                                                        for k, v in declared.items()}))
    return rows


def trace(as_of: str = AS_OF) -> dict:
    """The lesson's cases as one JSON-ready record."""
    check_day(as_of, "as_of")
    kept = current_public(COLLECTION)
    passages = [r.as_passage() for r in kept]
    runs = []
    for budget in (120, 400):
        run = _run(passages, budget)
        run["lesson_01_coverage"] = _run(CANDIDATES, budget)["coverage"]
        run["blocked"] = [f"{s} ({', '.join(v)})" for s, v in run["conflicts"].items()]
        runs.append(run)
    trap = [{"case": case, "labels": " vs ".join(labels), **version_maxima(labels), "approved": approved,
             "why_not": why, "policy": "blocked: version conflict",
             "same_in_either_order": version_maxima(labels) == version_maxima(labels[::-1])}
            for case, labels, approved, why in TRAP_CASES]
    limits = [{"case": case, "ids": _ids(pair), "sources": [p.source_id for p in pair],
               "versions": [p.version for p in pair], "flagged": bool(select_context(pair, 400).conflicts),
               "packet_ids": list(select_context(pair, 400).packet_ids)} for case, pair in LIMIT_CASES]
    validity = []
    for day in ["2026-06-30", "2026-07-01"] + ([as_of] if as_of not in ("2026-06-30", "2026-07-01") else []) + [""]:
        survivors = valid_on(LATE_FEES, day) if day else LATE_FEES
        chosen = select_context([r.as_passage() for r in survivors], 400)
        validity.append({"as_of": day or "none", "kept": _ids(survivors),
                         "removed": [f"{r.id} (from {r.valid_from})" if day < r.valid_from
                                     else f"{r.id} (ended {r.valid_until})"
                                     for r in LATE_FEES if r not in survivors],
                         "packet_ids": list(chosen.packet_ids), "conflicts": sorted(chosen.conflicts)})
    records = [{"id": r.id, "source_id": r.source_id, "written": stated_amounts(r.text)[0].written,
                "scope": r.scope, "published": r.published, "valid_from": r.valid_from,
                "score": DEPOSIT_SCORES[r.id]} for r in DEPOSITS]
    outcomes = [dict(resolve_or_abstain(DEPOSITS, links), rule=rule, supersedes={k: list(v) for k, v in links.items()})
                for rule, links in (("with the declared supersedes map", SUPERSEDES), ("without a declared rule", {}))]
    return {
        "lesson": "versions",
        "as_of": as_of,
        "dates": "ISO YYYY-MM-DD; valid_until is inclusive (the last day a record applies)",
        "hours_conflict": {"kept": _ids(kept), "removed": [f"{r.id} ({r.status}/{r.audience})"
                                                           for r in COLLECTION if r not in kept],
                           "multi_version_sources": {s: list(v) for s, v in multi_version_sources(passages).items()},
                           "runs": runs},
        "largest_version_trap": trap,
        "known_limits": limits,
        "validity": validity,
        "amount_conflict": {"records": records, "outcomes": outcomes, "resolutions": _resolutions(as_of),
                            "highest_score_would_pick": max(DEPOSIT_SCORES, key=DEPOSIT_SCORES.get)},
        "selections": [run["selection"] for run in runs],
        "next_step": "a flagged conflict goes to review of the sources; never edit the data or relax a filter to pass",
    }


def view(record: dict) -> list[dict]:
    hours, conflict = record["hours_conflict"], record["amount_conflict"]
    labels = "; ".join(f"{s}: {', '.join(v)}" for s, v in hours["multi_version_sources"].items())
    detailed = conflict["resolutions"][0]
    trap = record["largest_version_trap"]
    return [
        {"key": "heading", "heading": "Lesson 04 - versions: surface ambiguity instead of guessing freshness"},
        {"key": "opening", "text": "What this shows: two current versions of the hours blocked, not guessed; "
                                   "why the largest version is no rule; what the rule misses; an expired rule "
                                   "filtered by an as-of day; 500 vs 600 crowns settled only by a declared rule."},
        {"key": "hours-filter",
         "text": f"Two records of help-desk-hours are both marked current. The current/public filter keeps "
                 f"{', '.join(hours['kept'])} and removes {', '.join(hours['removed'])}.\n"
                 f"Sources with more than one version label: {labels}."},
        table("hours-runs", "Lesson 01's question, with the stale record left current",
               "budget: max_quote_chars (characters of quote text); coverage: needed passages in the packet; "
               "lesson 01: the coverage of the same question in lesson 01, whose ranking never retrieves "
               "hours-v1 (it exists, superseded by hours-v2).",
               hours["runs"], "max_quote_chars=budget packet_ids=packet coverage lesson_01_coverage=lesson_01"),
        {"key": "hours-blocked",
         "text": f"Blocked at both budgets, with their labels: {', '.join(hours['runs'][0]['blocked'])}. "
                 "Blocking both versions costs the hours passage even at 400 characters. That is the price of "
                 "not guessing; the remedy is to review the sources, not to relax the rule. The packet "
                 "carries each conflict instead, as a conflict and not as evidence: "
                 + conflict_text(hours["runs"][-1]["selection"]["unresolved"])
                 + " Lesson 10's answer stage shows both quotes and gives neither value."},
        table("trap", "The largest-version trap: what a maximum would pick, and what was approved",
               "lexical max: the largest label as a string; numeric max: as an integer, when every label is "
               "one ('-' otherwise); approved: what the editors' register says.",
               trap, "case labels lexical=lexical_max numeric=numeric_max approved"),
        {"key": "trap-why",
         "text": "Why a maximum proves nothing:\n" + "\n".join(f"- {t['case']}: {t['why_not']}." for t in trap)
                 + "\nversion_maxima gives the same answer in either input order ("
                 + ("yes" if all(t["same_in_either_order"] for t in trap) else "NO") + " for every row; '9' and "
                 "'09' tie as integers and the tie goes to the larger string). Order-independent is not "
                 "approved: the selector never compares labels, it only notices that there is more than one."},
        table("limits", "Known limit: contradictions the rule cannot see",
               "labels: the version label of each passage; flag: whether the rule blocked the source; "
               "packet: what lesson 01's selector handed on.",
               record["known_limits"], "case ids versions=labels flagged=flag packet_ids=packet"),
        table("validity", "Validity before ranking",
               f"Dates are {record['dates']}; as of: the day the filter checks ('none': no filter); removed: "
               f"what the filter takes out before ranking, with the first day of a record not yet valid "
               f"(from) or the last day of an expired one (ended); blocked: sources lesson 01's selector blocks for a "
               f"version conflict.",
               record["validity"], "as_of=as_of removed=removed_before_ranking packet_ids=packet conflicts=blocked"),
        table("deposit-records", "Two current sources, two amounts",
               "amount: as the text writes it; published and valid from: ISO days; score: the reranker's "
               f"relevance (not authority). Both are about: {conflict['records'][0]['scope']}.",
               conflict["records"], "id source_id=source written=amount published valid_from score"),
        table("deposit-checks", "Resolution checks in order, with the declared supersedes map",
               "#: the step; each check is a function; the first that decides ends the run. Later "
               "checks are not run.",
               [dict(c, step=i, result=("DECIDES: " if c["decision"] else "") + c["result"])
                for i, c in enumerate(detailed["checks"], start=1)], "step=# check result"),
        table("deposit-cases", "Which check decided, case by case",
               "Each case changes one thing about the pair; decided by: the first check that decided "
               "('-': none did, so the answer abstains).",
               conflict["resolutions"], "case decided_by decision selected_id=selected"),
        {"key": "deposit-score",
         "text": f"The highest score would pick {conflict['highest_score_would_pick']}: the record the "
                 "declared rule says was replaced. A score measures relevance to the question, not which "
                 f"record is in force. Next step: {record['next_step']}."},
    ]
