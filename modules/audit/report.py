"""The whole audit: read the folder, stream the corpus, audit every judged query, add it up.

run_audit reads in this order, so that memory follows what the run touches, not the corpus:
the qrels, the packets (if any), the queries (and their declared sub-questions), a first
pass over the run (its format, the doc ids it names, whether its queries are grouped), then
the corpus, keeping only the passages the run, the qrels or the packets name (and, with
--policy, the texts of the passages the run ranks for a query that declares sub-questions),
and then the run again, one query at a time.

It refuses to report (CannotJudge) when the ids of the files do not meet: when over half
the run's entries name passages the corpus lacks, or when no judged query appears in the
run; a smaller share of unknown entries is a warning at the top of the report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from modules.audit.mechanism import (CAUSES, DEFAULT_BUDGETS, DEFAULT_K, DEMO, DEMO_AS_OF, POLICIES, UNITS, Corpus,
                                     audit_query)
from modules.audit.sent import SENT_CAUSES, audit_packet, packet_from_prompts
from modules.audit.tokenizer_process import Tokenizer
from modules.common.checks import whole_number

__all__ = ["CannotJudge", "Ledger", "PacketLedger", "Report", "run_audit", "corpus_budgets",
           "UNKNOWN_LIMIT"]

UNKNOWN_LIMIT = 0.5     # over this share of run entries naming unknown passages, the audit refuses
CORPUS_BUDGET_MULTIPLES = (1, 2, 5, 10)   # default budgets: these multiples of the median passage


class CannotJudge(ValueError):
    """The files' ids do not meet: an audit would be an all-clear about nothing."""


class Ledger:
    """Totals over the audited queries, per budget: needed, retrieved, in the packet, each cause."""

    def __init__(self, budgets, policies=()) -> None:
        self.budgets = tuple(budgets)
        self.queries = self.needed = self.retrieved = 0
        self.recall_sum = 0.0
        self.coverage_sum = [0.0] * len(self.budgets)
        self.in_packet = [0] * len(self.budgets)
        self.causes = [dict.fromkeys(CAUSES, 0) for _ in self.budgets]
        self.copy_in_packet = [0] * len(self.budgets)   # lost as a copy or duplicate whose twin got in
        # The walks run on every query; the coverage-aware choice only on those declaring sub-questions.
        self.policy_sum = {policy: [0.0] * len(self.budgets) for policy in policies if policy != "coverage"}

    def add(self, result) -> None:
        self.queries += 1
        self.needed += result.needed
        self.retrieved += result.retrieved
        self.recall_sum += result.retrieved / result.needed
        for index, (found, losses) in enumerate(zip(result.coverage, result.lost)):
            self.coverage_sum[index] += found / result.needed
            self.in_packet[index] += found
            for loss in losses:
                self.causes[index][loss.cause] += 1
                if loss.kept_in_packet and loss.cause in ("canonical_copy", "duplicate_text"):
                    self.copy_in_packet[index] += 1
        for policy, found in result.policies.items():
            if policy not in self.policy_sum:   # coverage: compared per query, on the queries that declare it
                continue
            for index, count in enumerate(found):
                self.policy_sum[policy][index] += count / result.needed


class PacketLedger:
    """Totals over the queries with a sent packet: each place a needed passage ended, the mean
    coverage of the sent packets and of the lessons' walk on the same budgets, the duplicates
    (texts, and the room their repeats took) and the calls over the window."""

    def __init__(self) -> None:
        self.queries = self.needed = self.covered = self.lab_covered = 0
        self.causes = dict.fromkeys(SENT_CAUSES, 0)
        self.coverage_sum = self.lab_sum = 0.0
        self.splits = self.duplicates = self.duplicate_size = self.size = 0
        self.calls = self.over_window = 0

    def add(self, result) -> None:
        self.queries += 1
        self.needed += result.needed
        self.covered += result.covered
        self.lab_covered += result.lab_covered
        for booking in result.bookings:
            self.causes[booking.cause] += 1
        self.coverage_sum += result.covered / result.needed
        self.lab_sum += result.lab_covered / result.needed
        self.splits += len(result.splits)
        self.duplicates += len(result.duplicates)
        self.duplicate_size += sum(d.size for d in result.duplicates)
        self.size += result.budget
        self.calls += len(result.call_sizes)
        if result.window:
            self.over_window += sum(1 for size in result.call_sizes if size > result.window)


@dataclass(frozen=True)
class Report:
    """A whole audit: the files and settings, the counts read and held, the ledger and every query's
    result."""
    files: dict
    settings: dict
    passages: int           # corpus lines read
    held: int               # passages held (the run, the qrels and the packets name them)
    windows: int
    queries: int
    judged: int
    ledger: Ledger
    results: list
    findings: object
    texts: dict
    packets: PacketLedger | None
    packet_results: list
    run_format: str
    entries: int
    warnings: list


def _budgets(budgets, unit: str) -> tuple[int, ...]:
    budgets = DEFAULT_BUDGETS.get(unit, DEFAULT_BUDGETS["lab-tokens"]) if budgets is None else tuple(budgets)
    if not budgets:
        raise ValueError("budgets must name at least one budget")
    for budget in budgets:
        whole_number(budget, "budget")
    return tuple(sorted(set(budgets)))


def _shown(file: str, folder: str) -> str:
    """A file as messages name it: relative to the data folder when inside it."""
    inside = os.path.relpath(os.path.abspath(file), os.path.abspath(folder))
    return file if inside.startswith(os.pardir) else inside.replace(os.sep, "/")


def _few(ids) -> str:
    return ", ".join(sorted(ids)[:4]) or "none"


def _mismatch(sent: dict, relevant: dict, queries: dict, what: str) -> None:
    """Packets or prompts none of whose query ids is a judged query: an audit of them would be
    an all-clear about nothing."""
    if sent and not any(relevant.get(qid) for qid in sent):
        judged = [qid for qid, docs in relevant.items() if docs]
        raise CannotJudge(f"cannot judge the {what}: none of their {len(sent):,} query ids is a judged query "
                          f"({what} query ids: {_few(sent)}; judged query ids: {_few(judged or queries)}); do the "
                          f"{what} and the qrels use the same ids?")


def corpus_budgets(sizes) -> tuple[int, ...]:
    """Budgets drawn from the passages' sizes when none is given: 1, 2, 5 and 10 times the median
    size (two significant digits), so the first screen is not all zeros on long passages."""
    ordered = sorted(sizes)
    if not ordered:
        return ()
    median = max(ordered[len(ordered) // 2], 1)
    found = []
    for times in CORPUS_BUDGET_MULTIPLES:
        value = median * times
        digits = max(len(str(value)) - 2, 0)
        found.append(max(round(value, -digits), 1))
    return tuple(sorted(set(found)))


def run_audit(path=None, *, run=None, qrels=None, packets=None, prompts=None, budgets=None, unit="chars",
              tokenizer=None, k=DEFAULT_K, as_of=None, policy=False, window=0, progress=None) -> Report:
    """Read a BEIR folder and a run, audit every judged query; `path` None audits the demo.

    `packets` (ids and texts a system sent) or `prompts` (what each LLM call received, as the
    adapters write it) audit what reached the model beside the lessons' walk; `window`, if not
    0, is the model's window in the audit's unit (or tokenizer), checked against each prompt."""
    settings = dict(path=path, run=run, qrels=qrels, packets=packets, prompts=prompts, budgets=budgets,
                    tokenizer=tokenizer, k=k, as_of=as_of, policy=policy, window=window, progress=progress)
    if tokenizer is None:
        if unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
        return _audit(unit=unit, counter=UNITS[unit], **settings)
    # The user's tokenizer runs in a child process (tokenizer_process.py), stopped when the audit ends.
    with Tokenizer(tokenizer) as counter:
        return _audit(unit=tokenizer, counter=counter, **settings)


def _audit(path, *, run, qrels, packets, prompts, budgets, unit, counter, tokenizer, k, as_of, policy, window,
           progress) -> Report:
    import modules.audit.readers as audit_io
    import modules.audit.runs as run_io
    import modules.audit.packets as sent_io
    whole_number(k, "k", minimum=1)
    whole_number(window, "window")
    if packets is not None and prompts is not None:
        raise ValueError("give --packets or --prompts, not both: each is what reached the model")
    drawn = budgets is None and path is not None
    budgets = () if drawn else _budgets(budgets, "lab-tokens" if tokenizer else unit)
    if path is None:
        path, as_of = DEMO, DEMO_AS_OF if as_of is None else as_of
    files = audit_io.find_files(path, run, qrels, packets if packets is not None else prompts)
    if prompts is not None:
        files["prompts"] = files.pop("packets")
    shown = {name: _shown(file, path) for name, file in files.items()}
    findings = audit_io.Findings()
    judged = run_io.read_qrels(files["qrels"], shown["qrels"], findings)
    relevant = {qid: [d for d, score in docs.items() if score >= 1] for qid, docs in judged.items()}
    sent = sent_io.read_packets(files["packets"], shown["packets"], findings) if packets is not None else {}
    calls = sent_io.read_prompts(files["prompts"], shown["prompts"], findings) if prompts is not None else {}
    facets: dict = {}
    queries = audit_io.read_queries(files["queries"], shown["queries"], findings, facets)
    if not policy:
        facets = {}
    # The run, read once: each query's top k and its judged passages' ranks below k.
    wanted = {qid: set(docs) for qid, docs in relevant.items()}
    summary = run_io.rank_run(files["run"], shown["run"], wanted, k, findings, frozenset(calls))
    ranked = summary.queries
    # The texts the audit reads: a sent packet's passages, for a query with declared sub-questions
    # its top k, and for a query with prompts every passage the run ranks for it and its judged ones.
    named = {pid for p in sent.values() for pid in p.docids}
    named |= {pid for qid in calls for pid in relevant.get(qid, ())}
    watched = {pid for qid in facets if qid in ranked for pid in ranked[qid].top}
    watched |= {pid for qid in calls if qid in ranked for pid in ranked[qid].ranking}
    tops = {pid for r in ranked.values() for pid in r.top}
    keep = tops | {d for docs in relevant.values() for d in docs} | named | watched
    seen_corpus: dict = {}
    corpus = Corpus(audit_io.read_corpus(files["corpus"], counter, shown["corpus"], keep, named | watched,
                                         findings, seen_corpus), as_of, counter)
    if drawn:
        budgets = corpus_budgets(corpus.size(pid) for pid in corpus.held) or _budgets(None, unit)
    _mismatch(sent or calls, relevant, queries, "packets" if packets is not None else "prompts")
    lines, corpus_ids = seen_corpus["lines"], seen_corpus["ids"]
    unknown = tops - corpus.held.keys()
    read_entries = sum(len(r.top) for r in ranked.values())
    judged_ids = {qid for qid, docs in relevant.items() if docs}
    policies = POLICIES if policy else ()
    ledger, results, seen = Ledger(budgets, policies), [], set()

    def audit_sent(qid: str, ranking) -> None:
        packet = sent.get(qid)
        if qid in calls:
            whole = ranked[qid].ranking if qid in ranked else ()
            candidates = list(dict.fromkeys([*whole, *sorted(relevant[qid])]))
            packet = packet_from_prompts(qid, calls[qid], candidates, corpus)
        if packet is not None:
            packet_results.append(audit_packet(packet, ranking, relevant[qid], corpus, k, unit, findings, window))
            packet_ledger.add(packet_results[-1])
        elif packet_ledger is not None:
            findings.add("judged_query_without_packet", qid)

    packet_ledger = PacketLedger() if packets is not None or prompts is not None else None
    packet_results = []
    done = 0
    for qid, query in ranked.items():
        seen.add(qid)
        if qid not in queries:
            findings.add("run_unknown_query", qid)
        for pid, line in zip(query.top, query.lines):
            if pid not in corpus.held:
                findings.add("unknown_doc", f"{qid} {pid} (line {line})")
        done += query.entries
        if relevant.get(qid):
            ranking = list(query.top)
            results.append(audit_query(qid, ranking, relevant[qid], corpus, k, budgets, unit, policies,
                                       facets.get(qid, ()), below=query.below, depth=query.depth))
            ledger.add(results[-1])
            audit_sent(qid, ranking)
        else:
            findings.add("run_query_without_qrels", qid)
        if progress is not None:
            progress(done, summary.entries)
    unknown_entries = findings.counts.get("unknown_doc", 0)
    if read_entries and unknown_entries > UNKNOWN_LIMIT * read_entries:
        raise CannotJudge(f"cannot judge: {unknown_entries:,} of the {read_entries:,} run entries the audit reads "
                          f"(each query's top {k}) name passages the corpus lacks (run ids: {_few(unknown)}; corpus "
                          f"ids: {_few(corpus_ids)}); do the run and the corpus use the same ids?")
    if judged_ids and not judged_ids & seen:
        raise CannotJudge(f"cannot judge: no judged query appears in the run (qrels query ids: {_few(judged_ids)};"
                          f" run query ids: {_few(seen)}); do the run and the qrels use the same ids?")
    if not judged_ids:
        raise CannotJudge(f"cannot judge: the qrels judge no passage relevant (score >= 1) in "
                          f"{shown['qrels']}")
    warnings = []
    if unknown_entries:
        warnings.append(f"{unknown_entries:,} of the {read_entries:,} run entries the audit reads (each query's top "
                        f"{k}; {unknown_entries / read_entries:.1%}) name passages the corpus lacks, e.g. "
                        f"{_few(unknown)}")
    for qid, docs in relevant.items():
        if qid not in queries:
            findings.add("qrels_unknown_query", qid)
        for docid in docs:
            if docid not in corpus:
                findings.add("qrels_unknown_doc", f"{qid} {docid}")
        if docs and qid not in seen:
            findings.add("judged_query_not_in_run", qid)
            results.append(audit_query(qid, [], docs, corpus, k, budgets, unit, policies, facets.get(qid, ())))
            ledger.add(results[-1])
            audit_sent(qid, [])
    for qid in sorted(sent.keys() | calls.keys()):
        if not relevant.get(qid):
            findings.add("packet_query_not_judged", qid)
    settings = {"k": k, "unit": unit, "budgets": list(budgets), "as_of": as_of, "tokenizer": tokenizer,
                "budgets_drawn": drawn, "window": window}
    return Report(shown, settings, lines, len(corpus), corpus.windows, len(queries), len(judged_ids), ledger,
                  results, findings, queries, packet_ledger, packet_results, summary.format, summary.entries, warnings)
