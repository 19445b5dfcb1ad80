"""Ordered structures over whole numbers whose cost follows the number of items, never
their values: lesson 03 selects chunks spanning lines 1 to 10**9 as fast as short ones.

SortedStarts  a sorted set of ints kept as short sorted blocks: the largest item at or
              below a value in two binary searches, an insert as one short list insert
RangeMin      the minimum of values[i..j] of a fixed list, reading at most 64 values
"""

from __future__ import annotations

from bisect import bisect_right, insort

BLOCK = 512


class SortedStarts:
    """A set of ints as sorted blocks of at most 2 * BLOCK items: finding the largest item at
    or below a value is two binary searches, adding one is a short list insert."""

    def __init__(self) -> None:
        self.blocks: list[list[int]] = []
        self.heads: list[int] = []

    def floor(self, value: int):
        """The largest item <= value, or None."""
        b = bisect_right(self.heads, value) - 1
        if b < 0:
            return None
        block = self.blocks[b]
        return block[bisect_right(block, value) - 1]

    def add(self, value: int) -> None:
        if not self.blocks:
            self.blocks.append([value])
            self.heads.append(value)
            return
        b = max(bisect_right(self.heads, value) - 1, 0)
        block = self.blocks[b]
        insort(block, value)
        self.heads[b] = block[0]
        if len(block) > 2 * BLOCK:
            self.blocks[b:b + 1] = [block[:BLOCK], block[BLOCK:]]
            self.heads[b:b + 1] = [block[0], block[BLOCK]]


class RangeMin:
    """The minimum of values[i..j] of a fixed list: blocks of 64 with running minima from each
    end, and a sparse table over the block minima, so one query reads at most 64 values."""

    def __init__(self, values: list[int]) -> None:
        from itertools import accumulate
        self.values = values
        blocks = [values[k:k + 64] for k in range(0, len(values), 64)]
        self.prefix = [m for block in blocks for m in accumulate(block, min)]
        self.suffix = [m for block in blocks for m in reversed(list(accumulate(reversed(block), min)))]
        self.table = [[min(block) for block in blocks]]
        width = 1
        while 2 * width <= len(self.table[0]):
            row = self.table[-1]
            self.table.append(list(map(min, row, row[width:])))
            width *= 2

    def query(self, i: int, j: int) -> int:
        first, last = i // 64, j // 64
        if first == last:
            return min(self.values[i:j + 1])
        best = min(self.suffix[i], self.prefix[j])
        if last - first > 1:
            level = (last - first - 1).bit_length() - 1
            row = self.table[level]
            best = min(best, row[first + 1], row[last - (1 << level)])
        return best
