"""Plausible wrong answers to lesson 09's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    # Task 1: first_failing_layer
    {"name": "walk in the dict's order", "task": 1,
     "replace": [("    for layer in LAYERS:\n        if layer not in results:",
                  "    for layer in list(results) + [l for l in LAYERS if l not in results]:\n"
                  "        if layer not in results:")]},
    {"name": "a missing layer counts as passed (skips it)", "task": 1,
     "replace": [("        if layer not in results:\n            raise ValueError(f\"layer {layer!r} has no result: "
                  "a walk cannot skip a layer\")\n        passed = results[layer]",
                  "        passed = results.get(layer, True)")]},
    {"name": "the walk leaves out the source layer", "task": 1,
     "replace": [("    for layer in LAYERS:\n", "    for layer in [l for l in LAYERS if l != \"source\"]:\n")]},
    {"name": "return the last failing layer (where the symptom shows)", "task": 1,
     "replace": [("        if not passed:\n            return layer\n    return None",
                  "        if not passed:\n            failed = layer\n    return locals().get(\"failed\")")]},
    {"name": "truthy strings count as passed", "task": 1,
     "replace": [("        if not isinstance(passed, bool):\n            raise TypeError(f\"results[{layer!r}] must be "
                  "True or False, got {passed!r}\")\n", "")]},
    {"name": "unknown layer names ignored", "task": 1,
     "replace": [("    if unknown:\n        raise ValueError(f\"unknown layer(s) {unknown}\")\n", "")]},
    {"name": "no failure returns 'none' as text", "task": 1,
     "replace": [("            return layer\n    return None", "            return layer\n    return \"none\"")]},

    # Task 2: user_view
    {"name": "the internal state shown to the user", "task": 2,
     "replace": [("    state = USER_STATES[record[\"state\"]]\n    return {\"query\": record[\"query\"], \"state\": state,",
                  "    state = USER_STATES[record[\"state\"]]\n    return {\"query\": record[\"query\"], "
                  "\"state\": record[\"state\"],")]},
    {"name": "an honest 'not authorized' state", "task": 2,
     "replace": [("    state = USER_STATES[record[\"state\"]]\n",
                  "    if record.get(\"cause\") == \"all_unauthorized\":\n"
                  "        return {\"query\": record[\"query\"], \"state\": \"not_authorized\", "
                  "\"message\": \"Matching listings exist, but you may not see them.\", \"answer\": []}\n"
                  "    state = USER_STATES[record[\"state\"]]\n")]},
    {"name": "tell the user how many results were hidden", "task": 2,
     "replace": [("\"message\": USER_MESSAGES[state],",
                  "\"message\": USER_MESSAGES[state] + f\" ({sum(1 for e in record['exclusions'] "
                  "if e['category'] == 'permission')} hidden)\",")]},
    {"name": "list the opaque refs of withheld listings", "task": 2,
     "replace": [("\"answer\": [{\"text\": line[\"text\"], \"cites\": list(line[\"cites\"])} for line in record[\"answer\"]]}",
                  "\"answer\": [{\"text\": line[\"text\"], \"cites\": list(line[\"cites\"])} for line in record[\"answer\"]],\n"
                  "            \"withheld\": [e[\"ref\"] for e in record[\"exclusions\"] if e[\"category\"] == \"permission\"]}")]},
    {"name": "show the internal cause", "task": 2,
     "replace": [("\"message\": USER_MESSAGES[state],", "\"message\": USER_MESSAGES[state], \"cause\": record[\"cause\"],")]},
    {"name": "answer from the packet whatever the decision", "task": 2,
     "replace": [("\"answer\": [{\"text\": line[\"text\"], \"cites\": list(line[\"cites\"])} for line in record[\"answer\"]]}",
                  "\"answer\": [{\"text\": f[\"value\"], \"cites\": [f[\"field_id\"]]} for f in record[\"packet\"] "
                  "if f[\"field_id\"].endswith(\"#title\")]}")]},

    # Task 3: count_exclusions
    {"name": "count by category instead of reason", "task": 3,
     "replace": [("            code = exclusion.get(\"reason\")\n",
                  "            code = exclusion.get(\"category\", exclusion.get(\"reason\"))\n"
                  "            counts.setdefault(code, 0)\n")]},
    {"name": "drop the codes that stayed at zero", "task": 3,
     "replace": [("            counts[code] += 1\n    return counts",
                  "            counts[code] += 1\n    return {code: n for code, n in counts.items() if n}")]},
    {"name": "each listing counted once across all queries", "task": 3,
     "replace": [("    counts = dict.fromkeys(REASON_CODES, 0)\n", "    counts = dict.fromkeys(REASON_CODES, 0)\n    seen = set()\n"),
                 ("            counts[code] += 1\n",
                  "            if (exclusion.get(\"ref\"), code) not in seen:\n                counts[code] += 1\n"
                  "            seen.add((exclusion.get(\"ref\"), code))\n")]},
    {"name": "unknown reasons counted as 'other'", "task": 3,
     "replace": [("            if code not in counts:\n                raise ValueError(f\"exclusion reason {code!r} is "
                  "not a safe reason code\")\n",
                  "            if code not in counts:\n                code = \"other\"\n"
                  "                counts.setdefault(code, 0)\n")]},
    {"name": "rejected vectors counted as exclusions", "task": 3,
     "replace": [("        for exclusion in record[\"exclusions\"]:\n",
                  "        for exclusion in record[\"exclusions\"] + record.get(\"vector_rejected\", []):\n")]},
    {"name": "records walked twice", "task": 3,
     "replace": [("    counts = dict.fromkeys(REASON_CODES, 0)\n    for record in records:",
                  "    counts = dict.fromkeys(REASON_CODES, 0)\n    if not list(records):\n        return counts\n"
                  "    for record in records:")]},

    # Quizzes
    {"name": "quiz: relax fail-closed", "task": 4, "replace": [('REBUILD_QUIZ = "b"', 'REBUILD_QUIZ = "a"')]},
    {"name": "quiz: bump the policy", "task": 4, "replace": [('REBUILD_QUIZ = "b"', 'REBUILD_QUIZ = "c"')]},
    {"name": "quiz: tune the ranker", "task": 5, "replace": [('RANKER_QUIZ = "c"', 'RANKER_QUIZ = "a"')]},
    {"name": "quiz: blame the source", "task": 5, "replace": [('RANKER_QUIZ = "c"', 'RANKER_QUIZ = "d"')]},
]
