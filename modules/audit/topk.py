"""One query's run lines reduced, as they go by, to what the audit reads of them (for runs.py).

A query may rank a million doc ids; the audit reads its top k in trec_eval's order (score,
highest first; equal scores by doc id, descending), the rank of each judged passage below k,
and how many doc ids it ranks. Lines keeps per query only these:

    the k best (score, doc id, line) so far, in a heap;
    the judged ids met, with their rank once it is known;
    the doc ids of the current run of equal scores (a rank needs them: ties go by doc id);
    a hash of each doc id (8 bytes a line), to prove no doc id is listed twice.

When the query's scores never rise from one line to the next (as every TREC tool writes a
run), the rank of a judged passage is counted on the spot: the lines above its run of equal
scores, plus the doc ids in that run that sort after it. Then memory follows k, the judged
ids and the longest run of equal scores, plus the hashes.

Three things make Lines give up (finish() returns None), and the query is then read again and
held whole (runs._rank_group, the reference): a doc id listed twice (or two ids of one hash,
which only the second reading can tell apart), a rank column that does not rise, and scores
that rise somewhere when a judged passage sits below k (its rank needs every line). A query
whose prompts are audited needs its whole ranking, and is always read whole.
"""

from __future__ import annotations

import heapq
from array import array

__all__ = ["Lines"]

SMALL = 1 << 16     # hashes checked in one set; beyond, a slice of the hash space at a time


class Lines:
    """One query's lines, given one at a time (add), then summed up (finish)."""

    def __init__(self, qid: str, wanted, k: int) -> None:
        self.qid, self.wanted, self.k = qid, wanted, k
        self.count = 0
        self.best: list = []            # heap of the k best (score, doc id, line)
        self.hashes = array("q")
        self.last_rank = -1
        self.ranks_rise = True
        self.descending = True          # no score higher than the line before
        self.tie_score: float | None = None
        self.tie_start = 0              # lines above the current run of equal scores
        self.tie_ids: list[str] = []
        self.waiting: list[str] = []    # judged ids in the current run, their rank still open
        self.rank: dict[str, int] = {}  # judged id -> its rank in trec_eval's order

    def add(self, docid: str, score: float, rank: int | None, line: int) -> None:
        self.hashes.append(hash(docid))
        if rank is not None:
            self.ranks_rise = self.ranks_rise and rank > self.last_rank
            self.last_rank = rank
        if score != self.tie_score:
            if self.tie_score is not None and score > self.tie_score:
                self.descending = False
            self._close_tie()
            self.tie_score, self.tie_start, self.tie_ids = score, self.count, []
        self.tie_ids.append(docid)
        self.count += 1
        if docid in self.wanted:
            self.waiting.append(docid)
        best = self.best
        if len(best) < self.k:
            heapq.heappush(best, (score, docid, line))
        elif score >= best[0][0] and (score, docid, line) > best[0]:
            heapq.heapreplace(best, (score, docid, line))

    def _close_tie(self) -> None:
        for docid in self.waiting:
            self.rank[docid] = self.tie_start + 1 + sum(1 for other in self.tie_ids if other > docid)
        self.waiting = []

    def finish(self):
        """(top ids, their lines, judged id -> rank below k, depth), or None when the query must be
        read again whole (see the module's docstring)."""
        self._close_tie()
        if not self.ranks_rise or _repeats(self.hashes):
            return None
        top = sorted(self.best, reverse=True)
        kept = {docid for _s, docid, _l in top}
        below = [docid for docid in self.rank if docid not in kept]
        if below and not self.descending:
            return None
        return (tuple(docid for _s, docid, _l in top), tuple(line for _s, _d, line in top),
                {docid: self.rank[docid] for docid in below}, self.count)


def _repeats(hashes) -> bool:
    """Whether a hash repeats. A set costs about 60 bytes an entry (the array 8), so a long array
    is checked a slice of the hash space at a time."""
    if len(hashes) <= SMALL:
        return len(set(hashes)) != len(hashes)
    slices = [array("q") for _ in range(len(hashes) // SMALL + 1)]
    for value in hashes:
        slices[value % len(slices)].append(value)
    return any(len(set(part)) != len(part) for part in slices)
