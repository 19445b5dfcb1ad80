"""Plausible wrong answers to lesson 02's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "negative remainder clamped to zero", "task": 1,
     "replace": [("    if remainder < 0:\n        raise ValueError(f\"evidence budget is negative",
                  "    if remainder < 0:\n        return 0\n        raise ValueError(f\"evidence budget is negative")]},
    {"name": "output reserve left out", "task": 1,
     "replace": [("remainder = window - system - history - tools - output_reserve - margin",
                  "remainder = window - system - history - tools - margin")]},
    {"name": "margin left out", "task": 1,
     "replace": [("remainder = window - system - history - tools - output_reserve - margin",
                  "remainder = window - system - history - tools - output_reserve")]},
    {"name": "history and tools left out", "task": 1,
     "replace": [("remainder = window - system - history - tools - output_reserve - margin",
                  "remainder = window - system - output_reserve - margin")]},
    {"name": "a remainder of exactly zero is an error", "task": 1,
     "replace": [("    if remainder < 0:\n        raise ValueError(f\"evidence budget is negative",
                  "    if remainder <= 0:\n        raise ValueError(f\"evidence budget is negative")]},
    {"name": "truncate instead of skip", "task": 2,
     "replace": [("        else:\n            skipped.append(chunk.id)\n",
                  "        else:\n            room = budget - used\n"
                  "            if room > 0:\n"
                  "                kept.append(Chunk(chunk.id, chunk.text[:room]))\n"
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
     "replace": [("    if budget < 0:\n        raise ValueError(f\"budget must be >= 0, got {budget}\")\n",
                  "    budget = max(budget, 0)\n")]},
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
    {"name": "quiz: small enough to ignore", "task": 4, "replace": [('RESERVE_QUIZ = "b"', 'RESERVE_QUIZ = "a"')]},
]
