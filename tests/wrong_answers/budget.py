"""Plausible wrong answers to lesson 02's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once. An entry
whose behaviour follows set order lists "hash_seeds": `dev check` grades it under each of
those PYTHONHASHSEED values too (the seeds that once let it through a weaker grader).
"""

WRONG_ANSWERS = [
    {"name": "negative remainder clamped to zero", "task": 1,
     "replace": [("    if remainder < 0:\n        raise ValueError(f\"evidence budget is negative",
                  "    if remainder < 0:\n        return (0, unit)\n        raise ValueError(f\"evidence budget is negative")]},
    {"name": "the lesson's evidence_budget: a missing term read as 0", "task": 1,
     "replace": [("        if name not in plan:\n            raise ValueError(", "        if False:\n            raise ValueError("),
                 ("        value, its_unit = plan[name]\n", "        value, its_unit = plan.get(name, (0, unit))\n")]},
    {"name": "units never compared", "task": 1,
     "replace": [("        if its_unit != unit:\n", "        if False:\n")]},
    {"name": "an unknown term ignored", "task": 1,
     "replace": [("        if name not in TERMS:\n", "        if False:\n")]},
    {"name": "an unknown term subtracted like the others", "task": 1,
     "replace": [("        if name not in TERMS:\n            raise ValueError(f\"plan term {name!r} is not one of {', '.join(TERMS)}\")\n",
                  "        if name not in TERMS:\n            remainder_extra = plan[name][0]\n"),
                 ("    remainder = size\n", "    remainder = size - sum(plan[n][0] for n in plan if n not in TERMS)\n")]},
    {"name": "output reserve left out", "task": 1,
     "replace": [("        remainder -= value\n", "        remainder -= value if name != \"output_reserve\" else 0\n")]},
    {"name": "margin left out", "task": 1,
     "replace": [("        remainder -= value\n", "        remainder -= value if name != \"margin\" else 0\n")]},
    {"name": "a negative term accepted", "task": 1,
     "replace": [("        if value < 0:\n", "        if False:\n")]},
    {"name": "a remainder of exactly zero is an error", "task": 1,
     "replace": [("    if remainder < 0:\n        raise ValueError(f\"evidence budget is negative",
                  "    if remainder <= 0:\n        raise ValueError(f\"evidence budget is negative")]},
    {"name": "the evidence alone, without its unit", "task": 1,
     "replace": [("    return (remainder, unit)\n", "    return remainder\n")]},
    {"name": "an error that does not name the term", "task": 1,
     "replace": [("            raise ValueError(f\"{name} is in {its_unit!r}, the window in {unit!r}: declare one unit\")",
                  "            raise ValueError(\"mixed units: declare one unit\")")]},
    {"name": "truncate instead of skip", "task": 2,
     "replace": [("        else:\n            skipped.append(chunk.id)\n",
                  "        else:\n            room = budget - used\n"
                  "            if room > 0:\n"
                  "                kept.append(RankedPassage(id=chunk.id, text=chunk.text[:room]))\n"
                  "                used += room\n"
                  "            skipped.append(chunk.id)\n")]},
    {"name": "stop at the first misfit", "task": 2,
     "replace": [("        else:\n            skipped.append(chunk.id)\n",
                  "        else:\n            skipped.extend(c.id for c in list(chunks)[list(chunks).index(chunk):])\n"
                  "            break\n")]},
    {"name": "strict < drops the exact fit", "task": 2,
     "replace": [("if used + size <= budget:", "if used + size < budget:")]},
    {"name": "len() instead of the counter", "task": 2,
     "replace": [("size = counter(f'<source id=\"{chunk.id}\">{chunk.text}</source>')",
                  "size = len(f'<source id=\"{chunk.id}\">{chunk.text}</source>')")]},
    {"name": "the bare text, as the lesson's fill_budget counts it", "task": 2,
     "replace": [("size = counter(f'<source id=\"{chunk.id}\">{chunk.text}</source>')", "size = counter(chunk.text)")]},
    {"name": "the wrapper counted once for the whole walk", "task": 2,
     "replace": [("    kept, skipped, used = [], [], 0\n    for chunk in chunks:\n"
                  "        size = counter(f'<source id=\"{chunk.id}\">{chunk.text}</source>')",
                  "    kept, skipped, used = [], [], counter('<source id=\"\"></source>')\n    for chunk in chunks:\n"
                  "        size = counter(chunk.text)")]},
    {"name": "the wrapper without the id", "task": 2,
     "replace": [("size = counter(f'<source id=\"{chunk.id}\">{chunk.text}</source>')",
                  "size = counter(f'<source>{chunk.text}</source>')")]},
    {"name": "the tags and the text counted apart (lab tokens split the pieces differently)", "task": 2,
     "replace": [("size = counter(f'<source id=\"{chunk.id}\">{chunk.text}</source>')",
                  "size = counter(f'<source id=\"{chunk.id}\">') + counter(chunk.text) + counter('</source>')")]},
    {"name": "keeps the wrapped text instead of the chunk", "task": 2,
     "replace": [("            kept.append(chunk)\n            used += size\n        else:\n            skipped.append(chunk.id)\n"
                  "    walk = BudgetWalk(policy=\"skip\"",
                  "            kept.append(RankedPassage(id=chunk.id, text=f'<source id=\"{chunk.id}\">{chunk.text}</source>'))\n"
                  "            used += size\n        else:\n            skipped.append(chunk.id)\n"
                  "    walk = BudgetWalk(policy=\"skip\"")]},
    {"name": "negative budget treated as 0", "task": 2,
     "replace": [("    if budget < 0:\n        raise ValueError(f\"budget must be >= 0, got {budget}\")\n"
                  "    kept, skipped, used = [], [], 0\n",
                  "    budget = max(budget, 0)\n    kept, skipped, used = [], [], 0\n")]},
    {"name": "unit always named chars", "task": 2,
     "replace": [('getattr(counter, "__name__", "custom")', '"chars"')]},
    {"name": "policy left empty", "task": 2,
     "replace": [('walk = BudgetWalk(policy="skip",', 'walk = BudgetWalk(policy="",')]},
    {"name": "k sized for the average request", "task": 3,
     "replace": [("        return all(r.base_tokens + sum(r.chunk_tokens[:k]) + output_reserve <= window for r in requests)",
                  "        sizes = [r.base_tokens + sum(r.chunk_tokens[:k]) + output_reserve for r in requests]\n"
                  "        return sum(sizes) / len(sizes) <= window")]},
    {"name": "the output reserve left out (chunks_that_fit of the lesson)", "task": 3,
     "replace": [("sum(r.chunk_tokens[:k]) + output_reserve <= window", "sum(r.chunk_tokens[:k]) <= window")]},
    {"name": "a prompt exactly filling the window counted as overflow", "task": 3,
     "replace": [("+ output_reserve <= window for r", "+ output_reserve < window for r")]},
    {"name": "the first k that overflows, not the last that fits", "task": 3,
     "replace": [("    while safe < longest and every_request_fits(safe + 1):\n        safe += 1\n    return safe",
                  "    while safe < longest and every_request_fits(safe + 1):\n        safe += 1\n"
                  "    return safe + 1 if safe < longest else safe")]},
    {"name": "base input forgotten", "task": 3,
     "replace": [("return all(r.base_tokens + sum(r.chunk_tokens[:k])", "return all(sum(r.chunk_tokens[:k])")]},
    {"name": "k bounded by the shortest request's chunks", "task": 3,
     "replace": [("longest = max((len(r.chunk_tokens) for r in requests), default=0)",
                  "longest = min((len(r.chunk_tokens) for r in requests), default=0)")]},
    {"name": "no safe k reported as 1", "task": 3,
     "replace": [("    return safe\n    # END SOLUTION", "    return max(safe, 1)\n    # END SOLUTION")]},
    {"name": "one request is enough to fit (any instead of all)", "task": 3,
     "replace": [("        return all(r.base_tokens", "        return any(r.base_tokens")]},
    {"name": "quiz: small enough to ignore", "task": 4, "replace": [('RESERVE_QUIZ = "b"', 'RESERVE_QUIZ = "a"')]},
    {"name": "quiz: the model trims the input", "task": 4, "replace": [('RESERVE_QUIZ = "b"', 'RESERVE_QUIZ = "c"')]},
    {"name": "quiz: only when streaming", "task": 4, "replace": [('RESERVE_QUIZ = "b"', 'RESERVE_QUIZ = "d"')]},
    {"name": "cover_facets dividing as floats (a size-0 chunk raises ZeroDivisionError)", "task": 5,
     "replace": [("if best is None or new * sizes[best] > len(answers[best] - covered) * sizes[i]:",
                  "if best is None or new / sizes[i] > len(answers[best] - covered) / sizes[best]:")]},
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
    {"name": "ratios fixed at the start: all the facets a chunk holds, not the new ones (a static greedy)", "task": 5,
     "replace": [("if best is None or new * sizes[best] > len(answers[best] - covered) * sizes[i]:",
                  "if best is None or len(answers[i]) * sizes[best] > len(answers[best]) * sizes[i]:")]},
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

WRONG_ANSWERS += [
    {"name": "predict: the walk at 330 (laptop-faq kept)", "task": 6,
     "replace": [('WALK_AT_200 = ("laptop-loans", "guest-wifi")', 'WALK_AT_200 = ("laptop-loans", "laptop-faq")')]},
    {"name": "predict: the walk stops at the first misfit", "task": 6,
     "replace": [('WALK_AT_200 = ("laptop-loans", "guest-wifi")', 'WALK_AT_200 = ("laptop-loans",)')]},
    {"name": "predict: every chunk that fits alone", "task": 6,
     "replace": [('WALK_AT_200 = ("laptop-loans", "guest-wifi")',
                  'WALK_AT_200 = ("laptop-loans", "laptop-faq", "guest-wifi", "copier-pin")')]},
]

EQUIVALENT_MUTANTS = [
    {"where": "safe_top_k", "before": "longest = max((len(r.chunk_tokens) for r in requests), default=0)",
     "after": "longest = max((len(r.chunk_tokens) for r in requests), default=-1)",
     "why": "the default is read only when there are no requests, which the line before refuses with ValueError"},
    {"where": "safe_top_k", "before": "longest = max((len(r.chunk_tokens) for r in requests), default=0)",
     "after": "longest = max((len(r.chunk_tokens) for r in requests), default=1)",
     "why": "the default is read only when there are no requests, which the line before refuses with ValueError"},
]
