"""One query's run lines reduced, as they go by, to what the audit reads of them (for runs.py).

A query may rank a million doc ids; the audit reads its top k in trec_eval's order (score,
highest first; equal scores by doc id, descending), the rank of each judged passage below k,
and how many doc ids it ranks. Lines keeps per query only these:

    the k best (score, doc id, line) so far;
    the judged ids met, with their rank once it is known;
    the doc ids of the current run of equal scores (a rank needs them: ties go by doc id);
    a hash of each doc id, to prove no doc id is listed twice (in a set while the query is
    short, then in an array of 8 bytes a line).

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
from itertools import chain, islice
from operator import ge, lt

__all__ = ["Lines"]

SMALL = 1 << 16     # hashes checked in one set; beyond, a slice of the hash space at a time


class Lines:
    """One query's lines, given a batch of consecutive lines at a time (add), then summed up
    (finish). Each batch is worked on by C loops (map, the set and heap functions);
    Python visits only the judged ids and the ties around them."""

    def __init__(self, qid: str, wanted, k: int) -> None:
        self.qid, self.wanted, self.k = qid, wanted, k
        self.count = 0
        self.best: list = []            # the k best (score, doc id, line) so far, best first
        self.hashes: set | array = set()    # a set while the query is short, then an array
        self.repeats = False            # a hash met twice while they were a set
        self.last_rank = -1
        self.ranks_rise = True
        self.descending = True          # no score higher than the line before
        self.tie_score: float | None = None
        self.tie_start = 0              # lines above the current run of equal scores
        self.tie_ids: list[str] = []    # its doc ids
        self.waiting: list[str] = []    # judged ids in it, their rank still open
        self.rank: dict[str, int] = {}  # judged id -> its rank in trec_eval's order

    def add(self, docids: list, scores: list, ranks: list | None, lines: list) -> None:
        start, n = self.count, len(docids)
        self.count += n
        self._hash(docids)
        if ranks is not None:
            self.ranks_rise = (self.ranks_rise and ranks[0] > self.last_rank
                               and all(map(lt, ranks, islice(ranks, 1, None))))
            self.last_rank = ranks[-1]
        falling = all(map(ge, scores, islice(scores, 1, None)))
        self.descending = (self.descending and falling
                           and (self.tie_score is None or scores[0] <= self.tie_score))
        self._keep_best(docids, scores, lines, falling)
        # The batch's runs of equal scores: the first may go on from the last batch, the last may
        # go on into the next; a judged id in a run between them is ranked at once.
        hits = sorted(docids.index(docid) for docid in self.wanted.intersection(docids))
        first_end, last = _run_end(scores, 0), _run_start(scores, n - 1)
        if scores[0] != self.tie_score:
            self._close_tie()
            self.tie_score, self.tie_start, self.tie_ids = scores[0], start, []
        self.tie_ids += docids[:first_end]
        self.waiting += [docids[i] for i in hits if i < first_end]
        if first_end == n:
            return
        self._close_tie()
        for i in hits:
            if first_end <= i < last:
                low, high = _run_start(scores, i), _run_end(scores, i)
                self.rank[docids[i]] = start + low + 1 + sum(map(docids[i].__lt__, docids[low:high]))
        self.tie_score, self.tie_start, self.tie_ids = scores[last], start + last, docids[last:]
        self.waiting = [docids[i] for i in hits if i >= last]

    def _hash(self, docids: list) -> None:
        """Keep each doc id's hash: in a set while there are at most SMALL (a repeat shows as a set
        that grows by less than the batch), then in an array of 8 bytes each."""
        if isinstance(self.hashes, set):
            before = len(self.hashes)
            self.hashes.update(map(hash, docids))
            self.repeats = self.repeats or len(self.hashes) - before != len(docids)
            if len(self.hashes) > SMALL:
                self.hashes = array("q", self.hashes)
        else:
            self.hashes.extend(map(hash, docids))

    def _keep_best(self, docids: list, scores: list, lines: list, falling: bool) -> None:
        best, k = self.best, self.k
        if len(best) == k and max(scores) < best[-1][0]:
            return
        end = len(scores)
        if falling:     # only the first k lines and the ties of the k-th can be among the k best
            end = min(k, end)
            while end < len(scores) and scores[end] == scores[end - 1]:
                end += 1
        self.best = heapq.nlargest(k, chain(best, zip(scores[:end], docids[:end], lines[:end])))

    def _close_tie(self) -> None:
        for docid in self.waiting:
            self.rank[docid] = self.tie_start + 1 + sum(map(docid.__lt__, self.tie_ids))
        self.waiting = []

    def finish(self):
        """(top ids, their lines, judged id -> rank below k, depth), or None when the query must be
        read again whole (see the module's docstring)."""
        self._close_tie()
        if not self.ranks_rise or self.repeats or (isinstance(self.hashes, array) and _repeats(self.hashes)):
            return None
        kept = {docid for _s, docid, _l in self.best}
        below = [docid for docid in self.rank if docid not in kept]
        if below and not self.descending:
            return None
        return (tuple(docid for _s, docid, _l in self.best), tuple(line for _s, _d, line in self.best),
                {docid: self.rank[docid] for docid in below}, self.count)


def _run_start(scores: list, i: int) -> int:
    """Where the run of scores equal to scores[i] starts."""
    while i > 0 and scores[i - 1] == scores[i]:
        i -= 1
    return i


def _run_end(scores: list, i: int) -> int:
    """Where the run of scores equal to scores[i] ends (the index after it)."""
    end = i + 1
    while end < len(scores) and scores[end] == scores[i]:
        end += 1
    return end


def _repeats(hashes: array) -> bool:
    """Whether a hash in a long array (over SMALL: a shorter query's are a set) repeats. A set
    costs about 60 bytes an entry (the array 8), so the array is checked a slice of the hash space
    at a time; it is emptied as it is sorted into the slices, so the two are never held whole."""
    slices = [array("q") for _ in range(1 << (len(hashes) // SMALL).bit_length())]
    into, mask = [part.append for part in slices], len(slices) - 1
    while hashes:
        for value in hashes[-SMALL:]:
            into[value & mask](value)
        del hashes[-SMALL:]
    return any(len(set(part)) != len(part) for part in slices)
