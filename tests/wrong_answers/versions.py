"""Plausible wrong answers to lesson 04's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "counts passages instead of labels", "task": 1,
     "replace": [("        if item.version not in seen:\n            seen.append(item.version)\n",
                  "        seen.append(item.version)\n")]},
    {"name": "labels sorted as strings", "task": 1,
     "replace": [("return {source: tuple(found) for", "return {source: tuple(sorted(found)) for")]},
    {"name": "labels sorted as numbers", "task": 1,
     "replace": [("return {source: tuple(found) for",
                  "return {source: tuple(sorted(found, key=lambda v: int(v) if v.isdigit() else 0)) for")]},
    {"name": "labels converted to integers", "task": 1,
     "replace": [("        if item.version not in seen:\n            seen.append(item.version)\n",
                  "        label = str(int(item.version)) if item.version.isdigit() else item.version\n"
                  "        if label not in seen:\n            seen.append(label)\n")]},
    {"name": "expires on its last day (off by one)", "task": 2,
     "replace": [("as_of <= r.valid_until", "as_of < r.valid_until")]},
    {"name": "not valid on its first day", "task": 2,
     "replace": [("r.valid_from <= as_of", "r.valid_from < as_of")]},
    {"name": "valid one day too long", "task": 2,
     "replace": [("as_of <= r.valid_until", "as_of[:8] + f'{int(as_of[8:]) - 1:02d}' <= r.valid_until")]},
    {"name": "today's date instead of as_of", "task": 2,
     "replace": [("    return tuple(r for r in records\n",
                  "    import datetime\n    as_of = datetime.date.today().isoformat()\n"
                  "    return tuple(r for r in records\n")]},
    {"name": "open-ended records dropped", "task": 2,
     "replace": [("(r.valid_until is None or as_of <= r.valid_until)",
                  "(r.valid_until is not None and as_of <= r.valid_until)")]},
    {"name": "malformed as_of accepted", "task": 2,
     "replace": [("        raise ValueError(f\"as_of must be 'YYYY-MM-DD', got {as_of!r}\")\n", "        pass\n")]},
    {"name": "largest version label wins without a rule", "task": 3,
     "replace": [("    if len(standing) == 1:\n",
                  "    if len(standing) > 1:\n"
                  "        top = max(records, key=lambda r: int(r.version) if r.version.isdigit() else -1)\n"
                  "        if top.version.isdigit():\n"
                  "            standing = [top.id]\n"
                  "    if len(standing) == 1:\n")]},
    {"name": "lexically largest version label wins", "task": 3,
     "replace": [("    if len(standing) == 1:\n",
                  "    if len(standing) > 1:\n"
                  "        standing = [max(records, key=lambda r: r.version).id]\n"
                  "    if len(standing) == 1:\n")]},
    {"name": "first-ranked record wins without a rule", "task": 3,
     "replace": [("    if len(standing) == 1:\n", "    if len(standing) > 1:\n        standing = standing[:1]\n"
                                                "    if len(standing) == 1:\n")]},
    {"name": "links from absent records count", "task": 3,
     "replace": [("for new, olds in supersedes.items() if new in present for old in olds}",
                  "for new, olds in supersedes.items() for old in olds}")]},
    {"name": "abstain presents every record, replaced ones too", "task": 3,
     "replace": [('"presented_ids": standing or present,', '"presented_ids": present,')]},
    {"name": "quiz: a bigger gap would settle it", "task": 4, "replace": [('SCORE_QUIZ = "c"', 'SCORE_QUIZ = "a"')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
EQUIVALENT_MUTANTS = [
    {"where": "resolve_or_abstain",
     "before": 'return {"decision": "selected", "selected_id": standing[0], "presented_ids": standing,',
     "after": 'return {"decision": "selected", "selected_id": standing[-1], "presented_ids": standing,',
     "why": "this branch runs only when exactly one record stands, so standing[0] is standing[-1]"},
]
