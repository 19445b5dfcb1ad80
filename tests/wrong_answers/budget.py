"""Plausible wrong answers to lesson 02's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once. An entry
whose behaviour follows set order lists "hash_seeds": `dev check` grades it under each of
those PYTHONHASHSEED values too (the seeds that once let it through a weaker grader).
"""

WRONG_ANSWERS = [
    {"name": "negative remainder clamped to zero", "task": 1,
     "replace": [("    if remainder < 0:\n        raise ValueError(f\"evidence budget is negative",
                  "    if remainder < 0:\n        return 0\n        raise ValueError(f\"evidence budget is negative")]},
    {"name": "output reserve left out", "task": 1,
     "replace": [("remainder = window - base_input - history - tools - output_reserve - margin",
                  "remainder = window - base_input - history - tools - margin")]},
    {"name": "margin left out", "task": 1,
     "replace": [("remainder = window - base_input - history - tools - output_reserve - margin",
                  "remainder = window - base_input - history - tools - output_reserve")]},
    {"name": "history and tools left out", "task": 1,
     "replace": [("remainder = window - base_input - history - tools - output_reserve - margin",
                  "remainder = window - base_input - output_reserve - margin")]},
    {"name": "a remainder of exactly zero is an error", "task": 1,
     "replace": [("    if remainder < 0:\n        raise ValueError(f\"evidence budget is negative",
                  "    if remainder <= 0:\n        raise ValueError(f\"evidence budget is negative")]},
    {"name": "truncate instead of skip", "task": 2,
     "replace": [("        else:\n            skipped.append(chunk.id)\n",
                  "        else:\n            room = budget - used\n"
                  "            if room > 0:\n"
                  "                kept.append(RankedPassage(chunk.id, chunk.text[:room]))\n"
                  "                used += room\n"
                  "            skipped.append(chunk.id)\n")]},
    {"name": "stop at the first misfit", "task": 2,
     "replace": [("        else:\n            skipped.append(chunk.id)\n",
                  "        else:\n            skipped.extend(c.id for c in list(chunks)[list(chunks).index(chunk):])\n"
                  "            break\n")]},
    {"name": "strict < drops the exact fit", "task": 2,
     "replace": [("if used + size <= budget:", "if used + size < budget:")]},
    {"name": "len() instead of the counter", "task": 2,
     "replace": [("size = counter(chunk.text)", "size = len(chunk.text)")]},
    {"name": "negative budget treated as 0", "task": 2,
     "replace": [("    if budget < 0:\n        raise ValueError(f\"budget must be >= 0, got {budget}\")\n"
                  "    kept, skipped, used = [], [], 0\n",
                  "    budget = max(budget, 0)\n    kept, skipped, used = [], [], 0\n")]},
    {"name": "unit always named chars", "task": 2,
     "replace": [('getattr(counter, "__name__", "custom")', '"chars"')]},
    {"name": "policy left empty", "task": 2,
     "replace": [('return BudgetWalk("skip",', 'return BudgetWalk("",')]},
    {"name": "overflow judged on the average request", "task": 3,
     "replace": [("    return sum(1 for request in requests if request.base_tokens + sum(request.chunk_tokens[:k]) > window)",
                  "    sizes = [r.base_tokens + sum(r.chunk_tokens[:k]) for r in requests]\n"
                  "    return len(sizes) if sum(sizes) / len(sizes) > window else 0")]},
    {"name": "a prompt exactly filling the window counted as overflow", "task": 3,
     "replace": [("sum(request.chunk_tokens[:k]) > window)", "sum(request.chunk_tokens[:k]) >= window)")]},
    {"name": "top k + 1 chunks", "task": 3,
     "replace": [("sum(request.chunk_tokens[:k]) > window)", "sum(request.chunk_tokens[:k + 1]) > window)")]},
    {"name": "base input forgotten", "task": 3,
     "replace": [("if request.base_tokens + sum(request.chunk_tokens[:k]) > window", "if sum(request.chunk_tokens[:k]) > window")]},
    {"name": "quiz: small enough to ignore", "task": 4, "replace": [('RESERVE_QUIZ = "d"', 'RESERVE_QUIZ = "a"')]},
    {"name": "walks in rank order (the skip walk)", "task": 5,
     "replace": [("    chosen, covered, used = set(), set(), 0\n    while True:",
                  "    chosen, covered, used = set(), set(), 0\n"
                  "    for i in range(len(chunks)):\n"
                  "        if used + sizes[i] <= budget:\n"
                  "            chosen.add(i)\n"
                  "            used += sizes[i]\n"
                  "    while False:")]},
    {"name": "rank walk that skips chunks adding nothing", "task": 5,
     "replace": [("    chosen, covered, used = set(), set(), 0\n    while True:",
                  "    chosen, covered, used = set(), set(), 0\n"
                  "    for i in range(len(chunks)):\n"
                  "        if answers[i] - covered and used + sizes[i] <= budget:\n"
                  "            chosen.add(i)\n"
                  "            covered |= answers[i]\n"
                  "            used += sizes[i]\n"
                  "    while False:")]},
    {"name": "ignores cost: most new facets first", "task": 5,
     "replace": [("if best is None or new * sizes[best] > len(answers[best] - covered) * sizes[i]:",
                  "if best is None or new > len(answers[best] - covered):")]},
    {"name": "cheapest chunk first, whatever it adds", "task": 5,
     "replace": [("if best is None or new * sizes[best] > len(answers[best] - covered) * sizes[i]:",
                  "if best is None or sizes[i] < sizes[best]:")]},
    {"name": "counts facets already covered again", "task": 5,
     "replace": [("            new = len(answers[i] - covered)\n",
                  "            new = len(answers[i])\n"),
                 ("new * sizes[best] > len(answers[best] - covered) * sizes[i]",
                  "new * sizes[best] > len(answers[best]) * sizes[i]")]},
    {"name": "reads the labels", "task": 5,
     "replace": [("    chosen, covered, used = set(), set(), 0\n",
                  "    from modules import budget as lesson\n"
                  "    answers = [a if c.id in lesson.COVERAGE_LABELS else set() for a, c in zip(answers, chunks)]\n"
                  "    chosen, covered, used = set(), set(), 0\n")]},
    {"name": "labelled chunks first", "task": 5,
     "replace": [("    sizes = [counter(c.text) for c in chunks]\n",
                  "    from modules import budget as lesson\n"
                  "    chunks = sorted(chunks, key=lambda c: c.id not in lesson.COVERAGE_LABELS)\n"
                  "    sizes = [counter(c.text) for c in chunks]\n")]},
    # The seeds, of 300 tried, under which it passed the old one-family tie case (CPython 3.11,
    # 64-bit); the six-family case rejects it under each.
    {"name": "ties broken by set order", "task": 5, "hash_seeds": [0, 89, 124, 137, 147, 151, 155, 187, 229, 244],
     "replace": [("        for i in range(len(chunks)):\n            new = len(answers[i] - covered)",
                  "        for i in [chunks.index(c) for c in set(chunks)]:\n"
                  "            new = len(answers[i] - covered)")]},
    {"name": "ties go to the later chunk", "task": 5,
     "replace": [("new * sizes[best] > len(answers[best] - covered) * sizes[i]",
                  "new * sizes[best] >= len(answers[best] - covered) * sizes[i]")]},
    {"name": "returns the chunks in pick order", "task": 5,
     "replace": [("    chosen, covered, used = set(), set(), 0\n",
                  "    chosen, covered, used, picked = set(), set(), 0, []\n"),
                 ("        chosen.add(best)\n", "        chosen.add(best)\n        picked.append(chunks[best])\n"),
                 ("    return tuple(c for i, c in enumerate(chunks) if i in chosen)\n",
                  "    return tuple(picked)\n")]},
    {"name": "len() instead of the counter", "task": 5,
     "replace": [("    sizes = [counter(c.text) for c in chunks]\n    answers", "    sizes = [len(c.text) for c in chunks]\n    answers")]},
    {"name": "strict < drops the exact fit", "task": 5,
     "replace": [("or used + sizes[i] > budget:", "or used + sizes[i] >= budget:")]},
    {"name": "fills the rest of the budget in rank order", "task": 5,
     "replace": [("    return tuple(c for i, c in enumerate(chunks) if i in chosen)\n",
                  "    for i in range(len(chunks)):\n"
                  "        if i not in chosen and used + sizes[i] <= budget:\n"
                  "            chosen.add(i)\n"
                  "            used += sizes[i]\n"
                  "    return tuple(c for i, c in enumerate(chunks) if i in chosen)\n")]},
    {"name": "negative budget treated as 0 (cover_facets)", "task": 5,
     "replace": [("    if budget < 0:\n        raise ValueError(f\"budget must be >= 0, got {budget}\")\n    sizes",
                  "    budget = max(budget, 0)\n    sizes")]},
]
