"""Plausible wrong answers to lesson 04's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once. The
entries named "the lesson's own ..." paste in the function of modules/versions that the
task starts from: the task must ask for more than it does.
"""

_REUSED_BODY = "    texts = {}  # (source, label) -> the distinct texts seen under it\n"
_DURING = ("    return [r for r in records if r.valid_from <= end and (r.valid_until is None or "
           "start <= r.valid_until)]\n")

WRONG_ANSWERS = [
    {"name": "the lesson's own multi_version_sources: two labels, not one label twice", "task": 1,
     "replace": [(_REUSED_BODY, "    from modules.versions import multi_version_sources\n"
                                "    return multi_version_sources(passages)\n" + _REUSED_BODY)]},
    {"name": "a copy with the same text counted as reuse", "task": 1,
     "replace": [("        if item.text not in seen:\n            seen.append(item.text)\n",
                  "        seen.append(item.text)\n")]},
    {"name": "labels sorted", "task": 1,
     "replace": [("            found[source] = reused\n", "            found[source] = tuple(sorted(reused))\n")]},
    {"name": "every label of a conflicting source listed", "task": 1,
     "replace": [("        reused = tuple(label for label in labels if len(texts[source, label]) > 1)\n"
                  "        if reused:\n            found[source] = reused\n",
                  "        if any(len(texts[source, label]) > 1 for label in labels):\n"
                  "            found[source] = tuple(labels)\n")]},
    {"name": "labels compared across sources", "task": 1,
     "replace": [("        seen = texts.setdefault((item.source_id, item.version), [])\n",
                  "        seen = texts.setdefault(item.version, [])\n"),
                 ("len(texts[source, label]) > 1", "len(texts[label]) > 1")]},
    {"name": "labels in the order their second text turns up", "task": 1,
     "replace": [("        labels = order.setdefault(item.source_id, [])\n        if item.version not in labels:\n"
                  "            labels.append(item.version)\n",
                  "        labels = order.setdefault(item.source_id, [])\n        if len(seen) == 2:\n"
                  "            labels.append(item.version)\n")]},
    {"name": "texts compared after lower-casing and stripping", "task": 1,
     "replace": [("        if item.text not in seen:\n            seen.append(item.text)\n",
                  "        if item.text.lower().strip() not in seen:\n            seen.append(item.text.lower().strip())\n")]},
    {"name": "the lesson's own valid_on: the first day of the period only", "task": 2,
     "replace": [(_DURING, "    from modules.versions import valid_on\n    return valid_on(records, start)\n")]},
    {"name": "valid over the whole period, not on some day of it", "task": 2,
     "replace": [(_DURING, "    return [r for r in records if r.valid_from <= start and (r.valid_until is None or "
                           "end <= r.valid_until)]\n")]},
    {"name": "a record ending on the first day dropped", "task": 2,
     "replace": [("start <= r.valid_until)]", "start < r.valid_until)]")]},
    {"name": "a record starting on the last day dropped", "task": 2,
     "replace": [("r.valid_from <= end and", "r.valid_from < end and")]},
    {"name": "open-ended records dropped", "task": 2,
     "replace": [("(r.valid_until is None or start <= r.valid_until)",
                  "(r.valid_until is not None and start <= r.valid_until)")]},
    {"name": "a reversed period gives no records instead of an error", "task": 2,
     "replace": [("        raise ValueError(f\"end {end!r} is before start {start!r}\")\n", "        return []\n")]},
    {"name": "days compared without checking them", "task": 2,
     "replace": [("    check_day(start, \"start\")\n    check_day(end, \"end\")\n", "")]},
    {"name": "the lesson's own resolve_or_abstain: links only from present records", "task": 3,
     "replace": [("    replaced = set()\n    for start in present:\n",
                  "    from modules.versions import resolve_or_abstain\n"
                  "    return resolve_or_abstain(records, supersedes)\n"
                  "    replaced = set()\n    for start in present:\n")]},
    {"name": "a cycle reported without naming the record", "task": 3,
     "replace": [("raise ValueError(f\"supersedes has a cycle: {start!r} replaces itself through the chain\")",
                  "raise ValueError(\"supersedes has a cycle\")")]},
    {"name": "an id reached along two paths taken for a cycle", "task": 3,
     "replace": [("            if old not in reached:\n",
                  "            if old in reached:\n"
                  "                raise ValueError(f\"supersedes has a cycle through {old!r}\")\n"
                  "            if old not in reached:\n")]},
    {"name": "one step of the chain only", "task": 3,
     "replace": [("                todo.extend(supersedes.get(old, ()))\n", "")]},
    {"name": "links from absent records count too", "task": 3,
     "replace": [("    for start in present:\n        reached", "    for start in list(supersedes) + present:\n"
                                                                 "        reached")]},
    {"name": "a cycle followed until it stops, no error", "task": 3,
     "replace": [("            if old == start:\n                raise ValueError(f\"supersedes has a cycle: {start!r} "
                  "replaces itself through the chain\")\n", "")]},
    {"name": "the largest label selected when nothing is declared", "task": 3,
     "replace": [("    return {\"decision\": \"abstain-and-review\", \"selected_id\": None, \"presented_ids\": "
                  "standing or present,",
                  "    best = max(records, key=lambda r: r.version).id\n"
                  "    return {\"decision\": \"selected\", \"selected_id\": best, \"presented_ids\": [best],"
                  " \"reason\": \"largest\"}\n"
                  "    return {\"decision\": \"abstain-and-review\", \"selected_id\": None, \"presented_ids\": "
                  "standing or present,")]},
    {"name": "presents every record when some are replaced", "task": 3,
     "replace": [("\"presented_ids\": standing or present,", "\"presented_ids\": present,")]},
    {"name": "predict: validity decides (the notice is the valid one)", "task": 4,
     "replace": [('PUBLICATION_RULE_OUTCOME = ("publication time", "deposit-notice")',
                  'PUBLICATION_RULE_OUTCOME = ("validity", "deposit-notice")')]},
    {"name": "predict: the supersedes map still decides", "task": 4,
     "replace": [('PUBLICATION_RULE_OUTCOME = ("publication time", "deposit-notice")',
                  'PUBLICATION_RULE_OUTCOME = ("supersedes", "deposit-notice")')]},
    {"name": "predict: the earlier publication wins", "task": 4,
     "replace": [('PUBLICATION_RULE_OUTCOME = ("publication time", "deposit-notice")',
                  'PUBLICATION_RULE_OUTCOME = ("publication time", "deposit-rules")')]},
    {"name": "quiz: a larger gap would settle it", "task": 5, "replace": [('SCORE_QUIZ = "d"', 'SCORE_QUIZ = "a"')]},
    {"name": "quiz: normalise the scores first", "task": 5, "replace": [('SCORE_QUIZ = "d"', 'SCORE_QUIZ = "b"')]},
    {"name": "quiz: the better match is more trustworthy", "task": 5,
     "replace": [('SCORE_QUIZ = "d"', 'SCORE_QUIZ = "c"')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
EQUIVALENT_MUTANTS = [
    {"where": "resolve_with_chains",
     "before": 'return {"decision": "selected", "selected_id": standing[0], "presented_ids": standing,',
     "after": 'return {"decision": "selected", "selected_id": standing[-1], "presented_ids": standing,',
     "why": "this branch runs only when exactly one record stands, so standing[0] is standing[-1]"},
]
