"""Invariants of `methods.py audit` on generated folders (hypothesis): every needed passage is
booked exactly once, the ledger adds up, coverage never exceeds recall, the packet fits its
budget, declared neighbours travel together, the audit refuses only when the ids do not meet,
and the order of the run's lines changes nothing."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "context-lab-hypothesis")

from modules.audit import mechanism as audit  # noqa: E402
from modules.audit import CAUSES, CannotJudge, run_audit  # noqa: E402
from modules.audit.readers import read_corpus  # noqa: E402

FAST = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
TEXTS = ["alpha", "beta gamma", "delta " * 5, "epsilon zeta eta", "theta", "iota kappa lambda mu " * 3]


@st.composite
def datasets(draw):
    """A corpus of up to 12 passages with random metadata, and a run and qrels over it."""
    count = draw(st.integers(1, 12))
    passages = []
    for i in range(count):
        meta = {}
        if draw(st.booleans()):
            meta["source"] = draw(st.sampled_from(["s1", "s2", "s3"]))
            if draw(st.booleans()):
                meta["version"] = draw(st.sampled_from(["1", "2"]))
                if draw(st.booleans()):
                    meta["supersedes"] = ["1" if meta["version"] == "2" else "2"]
            if draw(st.booleans()):
                meta["position"] = draw(st.integers(0, 4))
            if draw(st.booleans()):
                start = draw(st.integers(1, 8))
                meta.update(start_line=start, end_line=start + draw(st.integers(0, 4)))
        if draw(st.booleans()):
            meta.update(canonical_id=draw(st.sampled_from(["c1", "c2"])),
                        copy=draw(st.sampled_from(["primary", "mirror", "export"])))
        if draw(st.booleans()):
            meta["valid_until"] = draw(st.sampled_from(["2026-06-30", "2026-07-01", "2027-01-01"]))
        passages.append({"_id": f"d{i}", "title": "", "text": draw(st.sampled_from(TEXTS)), "metadata": meta})
    ids = [f"d{i}" for i in range(count)] + ["ghost"]
    run, qrels = {}, {}
    for q in range(draw(st.integers(1, 4))):
        ranked = draw(st.lists(st.sampled_from(ids), max_size=8, unique=True))
        scores = draw(st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=len(ranked), max_size=len(ranked)))
        run[f"q{q}"] = list(zip(ranked, scores))
        qrels[f"q{q}"] = draw(st.lists(st.sampled_from(ids), min_size=1, max_size=4, unique=True))
    return passages, run, qrels


def audit_or_refusal(path: str, data, **settings):
    """The report, or None when the audit refuses; a refusal must be justified by the data."""
    try:
        return run_audit(path, **settings)
    except CannotJudge:
        passages, run, qrels = data
        known = {p["_id"] for p in passages}
        entries = []    # the entries the audit reads: each query's top k distinct ids, trec_eval's order
        for ranked in run.values():
            best: dict = {}
            for d, score in ranked:
                best[d] = max(best.get(d, score), score)
            entries += [d for _s, d in sorted(((s, d) for d, s in best.items()), reverse=True)[:settings.get("k", 10)]]
        unknown = sum(1 for d in entries if d not in known)
        assert unknown * 2 > len(entries) or not any(run.get(q) for q in qrels)
        return None


def write(root: Path, data, reverse: bool = False, interleave: bool = False) -> str:
    passages, run, qrels = data
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text("".join(json.dumps(p) + "\n" for p in passages))
    (root / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": q}) + "\n" for q in qrels))
    (root / "qrels" / "test.tsv").write_text("".join(f"{q}\t{d}\t1\n" for q, ids in qrels.items() for d in ids))
    lines = []
    for q, entries in run.items():
        rows = [f"{q} Q0 {d} {rank} {score} t\n" for rank, (d, score) in enumerate(entries, start=1)]
        lines += rows[::-1] if reverse else rows
    if interleave:   # every query's lines apart: trec_eval reads the run in any order
        lines = lines[::2] + lines[1::2]
    (root / "run.trec").write_text("".join(lines))
    return str(root)


@FAST
@given(datasets(), st.lists(st.integers(0, 120), min_size=1, max_size=3), st.integers(1, 6),
       st.sampled_from([None, "2026-07-01"]))
def test_every_needed_passage_is_booked_once_and_the_ledger_adds_up(data, budgets, k, as_of):
    with tempfile.TemporaryDirectory() as folder:
        report = audit_or_refusal(write(Path(folder), data), data, budgets=budgets, k=k, as_of=as_of)
    if report is None:
        return
    for result in report.results:
        for found, losses in zip(result.coverage, result.lost):
            booked = [loss.id for loss in losses]
            assert len(booked) == len(set(booked)) == result.needed - found
            assert found <= result.retrieved <= result.needed
            not_retrieved = sum(1 for loss in losses if loss.cause == "not_retrieved")
            assert result.retrieved == result.needed - not_retrieved
    for index, budget in enumerate(report.settings["budgets"]):
        causes = report.ledger.causes[index]
        assert set(causes) == set(CAUSES)
        assert sum(causes.values()) + report.ledger.in_packet[index] == report.ledger.needed
        assert report.ledger.coverage_sum[index] <= report.ledger.recall_sum + 1e-9


@FAST
@given(datasets(), st.integers(0, 120), st.integers(1, 8))
def test_the_packet_fits_its_budget_only_the_top_k_enter_it_and_neighbours_travel_together(data, budget, k):
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), data)
        report = audit_or_refusal(path, data, budgets=[budget], k=k)
        ids = {p["_id"] for p in data[0]}
        corpus = audit.Corpus(read_corpus(str(Path(path) / "corpus.jsonl"), audit.UNITS["chars"], "corpus.jsonl", ids))
    if report is None:
        return
    passages, run, _ = data
    meta = {p["_id"]: p["metadata"] for p in passages}
    for result in report.results:
        ranking = [d for d, _ in sorted(run.get(result.qid, []), key=lambda e: (e[1], e[0]), reverse=True)]
        selection = audit.select_candidates(ranking[:k], corpus)
        packet = result.packets[0]
        assert sum(corpus.size(pid) for pid in packet) <= budget and set(packet) <= set(ranking[:k])
        assert not set(packet) & set(selection.causes)
        alive = [pid for pid in ranking[:k] if pid in corpus and pid not in selection.causes]
        for pid in packet:
            m = meta[pid]
            if "position" not in m:
                continue
            for other in alive:   # a neighbour left standing by the rules is in the packet too
                o = meta[other]
                if o.get("source") == m["source"] and abs(o.get("position", -9) - m["position"]) == 1:
                    assert other in packet, (pid, other, packet)


@FAST
@given(datasets(), st.lists(st.integers(0, 120), min_size=1, max_size=3), st.integers(1, 6))
def test_the_order_of_a_querys_run_lines_does_not_matter(data, budgets, k):
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two, \
            tempfile.TemporaryDirectory() as three:
        forward = audit_or_refusal(write(Path(one), data), data, budgets=budgets, k=k)
        backward = audit_or_refusal(write(Path(two), data, reverse=True), data, budgets=budgets, k=k)
        apart = audit_or_refusal(write(Path(three), data, interleave=True), data, budgets=budgets, k=k)
    if forward is None:
        assert backward is None and apart is None
        return
    assert forward.results == backward.results
    assert sorted(apart.results, key=lambda r: r.qid) == sorted(forward.results, key=lambda r: r.qid)
    assert forward.ledger.causes == backward.ledger.causes == apart.ledger.causes
