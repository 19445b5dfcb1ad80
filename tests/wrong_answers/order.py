"""Plausible wrong answers to lesson 05's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "parity quirk: sort ascending, alternate from the front", "task": 1,
     "replace": [("    items = list(items)\n    return items[0::2] + items[1::2][::-1]\n",
                  "    ascending, out = list(items)[::-1], []\n"
                  "    for i, item in enumerate(ascending):\n"
                  "        if i % 2 == 1:\n"
                  "            out.append(item)\n"
                  "        else:\n"
                  "            out.insert(0, item)\n"
                  "    return out\n")]},
    {"name": "off-by-one alternation: second best second, third best last", "task": 1,
     "replace": [("return items[0::2] + items[1::2][::-1]", "return items[:1] + items[1::2] + items[2::2][::-1]")]},
    {"name": "back half not reversed", "task": 1,
     "replace": [("return items[0::2] + items[1::2][::-1]", "return items[0::2] + items[1::2]")]},
    {"name": "best item last (mirror)", "task": 1,
     "replace": [("return items[0::2] + items[1::2][::-1]", "return items[1::2] + items[0::2][::-1]")]},
    {"name": "rank order left as it is", "task": 1,
     "replace": [("return items[0::2] + items[1::2][::-1]", "return items")]},
    {"name": "sorted in place (changes the caller's list)", "task": 1,
     "replace": [("    items = list(items)\n    return items[0::2] + items[1::2][::-1]\n",
                  "    front, back = items[0::2], items[1::2][::-1]\n"
                  "    items[:] = front + back\n"
                  "    return items\n")]},
    {"name": "correct order, quadratic insert loop", "task": 1,
     "replace": [("    items = list(items)\n    return items[0::2] + items[1::2][::-1]\n",
                  "    front, back = [], []\n"
                  "    for rank, item in enumerate(items):\n"
                  "        if rank % 2 == 0:\n"
                  "            front.append(item)\n"
                  "        else:\n"
                  "            back.insert(0, item)\n"
                  "    return front + back\n")]},
    {"name": "middle rounds up for odd counts", "task": 2,
     "replace": [("        place = len(others) // 2\n", "        place = (len(others) + 1) // 2\n")]},
    {"name": "middle is always the second place", "task": 2,
     "replace": [("        place = len(others) // 2\n", "        place = min(1, len(others))\n")]},
    {"name": "tail reverses the irrelevant chunks", "task": 2,
     "replace": [('    elif layout == "tail":\n        place = len(others)\n',
                  '    elif layout == "tail":\n        return tuple(reversed(others)) + (relevant,)\n')]},
    {"name": "head builds on the caller's list", "task": 2,
     "replace": [("    others = list(bad)\n    if layout == \"head\":\n        place = 0\n",
                  "    others = bad\n    if layout == \"head\":\n        others.insert(0, good)\n"
                  "        return tuple(others)\n")]},
    {"name": "unknown layout falls back to head", "task": 2,
     "replace": [("        raise ValueError(f\"layout must be one of {', '.join(LAYOUTS)}, got {layout!r}\")\n",
                  "        place = 0\n")]},
    {"name": "compares codes, not chunks (two chunks of one document look the same)", "task": 3,
     "replace": [("    before, after = list(before), list(after)\n",
                  "    before = [None if c is None else c.code for c in before]\n"
                  "    after = [None if c is None else c.code for c in after]\n")]},
    {"name": "share as a float", "task": 3,
     "replace": [("return Fraction(sum(1 for a, b in zip(before, after) if a != b), len(before))",
                  "return sum(1 for a, b in zip(before, after) if a != b) / len(before)")]},
    {"name": "refusals left out of the denominator", "task": 3,
     "replace": [("return Fraction(sum(1 for a, b in zip(before, after) if a != b), len(before))",
                  "pairs = [(a, b) for a, b in zip(before, after) if a is not None and b is not None]\n"
                  "    return Fraction(sum(1 for a, b in pairs if a != b), len(pairs) or 1)")]},
    {"name": "counts the unchanged answers", "task": 3,
     "replace": [("if a != b), len(before))", "if a == b), len(before))")]},
    {"name": "zip truncates unequal runs", "task": 3,
     "replace": [("    if len(before) != len(after):\n        raise ValueError(f\"before and after must pair up, "
                  "got {len(before)} and {len(after)} items\")\n", "")]},
    {"name": "len() on runs given as generators", "task": 3,
     "replace": [("    before, after = list(before), list(after)\n", "")]},
    {"name": "no pairs means no change", "task": 3,
     "replace": [("        raise ValueError(\"before must not be empty\")\n", "        return Fraction(0)\n")]},
    {"name": "ignores the baseline: any change of order counts", "task": 4,
     "replace": [("order_share > seed_share)", "order_share > 0)")]},
    {"name": "compares the wrong way: the seed against the order", "task": 4,
     "replace": [("order_share > seed_share)", "seed_share > order_share)")]},
    {"name": ">= counts a tie with the baseline as an effect", "task": 4,
     "replace": [("order_share > seed_share)", "order_share >= seed_share)")]},
    {"name": "baseline measured against the reordered run", "task": 4,
     "replace": [("seed_share = share_of_change(first, reseeded)", "seed_share = share_of_change(reordered, reseeded)")]},
    {"name": "first read twice as a generator", "task": 4,
     "replace": [("    first = list(first)\n    order_share", "    order_share")]},
    {"name": "a difference instead of a decision", "task": 4,
     "replace": [("order_share > seed_share)", "order_share - seed_share)")]},
    {"name": "shares as floats", "task": 4,
     "replace": [("return OrderEffect(order_share, seed_share, order_share > seed_share)",
                  "return OrderEffect(float(order_share), float(seed_share), order_share > seed_share)")]},
    {"name": "quiz: position effects are an artefact of the simulator", "task": 5,
     "replace": [('COPIER_QUIZ = "d"', 'COPIER_QUIZ = "a"')]},
    {"name": "quiz: the packet need not record its order", "task": 5,
     "replace": [('COPIER_QUIZ = "d"', 'COPIER_QUIZ = "b"')]},
    {"name": "quiz: the reorder harms every reader", "task": 5, "replace": [('COPIER_QUIZ = "d"', 'COPIER_QUIZ = "c"')]},
]
