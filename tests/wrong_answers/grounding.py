"""Plausible wrong answers to lesson 09's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    # Task 1: check_input
    {"name": "the input check reads another layer's field (the decision's state)", "task": 1,
     "replace": [('    section = record["input"]\n    steps = section["transformations"]\n',
                  '    section = record["input"]\n    steps = section["transformations"]\n'
                  '    if record["decision"]["state"] == "clarify" and section["diameter_mm"] is None:\n'
                  '        return False, "the query ended up asking for a unit"\n')]},
    {"name": "a failed transformation (two sizes) counts as a lost unit", "task": 1,
     "replace": [('words[-1] in UNIT_WORDS and step["status"] == "unresolved":',
                  'words[-1] in UNIT_WORDS and step["status"] != "applied":')]},
    {"name": "any unresolved size fails, with or without a written unit", "task": 1,
     "replace": [('if step["name"] == "unit-to-mm" and words and words[-1] in UNIT_WORDS and step["status"] == "unresolved":',
                  'if step["name"] == "unit-to-mm" and step["status"] == "unresolved":')]},
    {"name": "the unit rule is left out", "task": 1,
     "replace": [('        if step["name"] == "unit-to-mm" and words and words[-1] in UNIT_WORDS and step["status"] == "unresolved":\n'
                  '            return False, f"{step[\'input\']!r} was written with a unit, and {step[\'version\']} lost it"\n', '')]},
    {"name": "the original is compared with the first step's output", "task": 1,
     "replace": [('if not steps or steps[0]["input"] != section["original"]:',
                  'if not steps or steps[0]["output"] != section["original"]:')]},
    {"name": "versions are not checked", "task": 1,
     "replace": [('if not step["name"] or "/" not in step["version"]:', 'if not step["name"]:')]},

    # Task 2: check_permission_freshness
    {"name": "the gate check reads another layer's field (the ranker's list)", "task": 2,
     "replace": [('    passed = set()\n', '    passed = set(record["ranking"].get("received", ()))\n')]},
    {"name": "stale fields of withheld candidates count too", "task": 2,
     "replace": [('if row["candidate"] in passed and row["required"] and', 'if row["required"] and')]},
    {"name": "stale optional fields count too", "task": 2,
     "replace": [('if row["candidate"] in passed and row["required"] and', 'if row["candidate"] in passed and')]},
    {"name": "an age equal to the limit is called stale", "task": 2,
     "replace": [('age < 0 or age > row["max_days"]', 'age < 0 or age >= row["max_days"]')]},
    {"name": "a field checked after the as-of date counts as fresh", "task": 2,
     "replace": [('(age is None or age < 0 or age > row["max_days"])', '(age is None or age > row["max_days"])')]},
    {"name": "a field never checked counts as fresh", "task": 2,
     "replace": [('(age is None or age < 0 or age > row["max_days"])',
                  '(age is not None and (age < 0 or age > row["max_days"]))')]},
    {"name": "only 'denied' fails; unknown or missing permission passes", "task": 2,
     "replace": [('if row["permission"] != "allowed":', 'if row["permission"] == "denied":')]},
    {"name": "reason codes of withheld candidates are not checked", "task": 2,
     "replace": [('    for decision in section["withheld"]:\n'
                  '        if not decision["reason_codes"] or any(code not in SAFE_CODES for code in decision["reason_codes"]):\n'
                  '            return False, f"{decision[\'subject\']} was withheld without a safe reason code"\n', '')]},

    # Task 3: check_ranking
    {"name": "the ranking check reads another layer's field (the gate's passed list)", "task": 3,
     "replace": [('    received = set(section["received"])\n',
                  '    received = {p["candidate"] for p in record["permission/freshness"]["passed"]}\n')]},
    {"name": "scores are not recomputed from the channel ranks", "task": 3,
     "replace": [('        if row["ordering_score"] != want:\n', '        if row["ordering_score"] < 0:\n')]},
    {"name": "ranks counted from 0 in the recomputation", "task": 3,
     "replace": [('1 / (section["k"] + rank)', '1 / (section["k"] + rank - 1)')]},
    {"name": "k fixed at 60", "task": 3, "replace": [('1 / (section["k"] + rank)', '1 / (60 + rank)')]},
    {"name": "a cluster ranked twice goes unnoticed", "task": 3,
     "replace": [('        if row["cluster"] in seen:\n            return False, f"{row[\'cluster\']} is ranked twice"\n', '')]},
    {"name": "rising scores go unnoticed", "task": 3,
     "replace": [('if previous is not None and row["ordering_score"] > previous:',
                  'if previous is not None and row["ordering_score"] > previous + 1:')]},
    {"name": "members the gate never passed go unnoticed", "task": 3,
     "replace": [('            if member not in received:\n', '            if member in received and not member:\n')]},

    # Task 4: query_fingerprint
    {"name": "the fingerprint depends on dict order (json.dumps without sort_keys)", "task": 4,
     "replace": [('    return sha256_hex(canonical_json(nfc(contract)))',
                  '    import json\n    return sha256_hex(json.dumps(nfc(contract), separators=(",", ":")))')]},
    {"name": "the fingerprint depends on the NFC or NFD spelling", "task": 4,
     "replace": [('            return unicodedata.normalize("NFC", value)', '            return value')]},
    {"name": "NFD instead of NFC", "task": 4,
     "replace": [('            return unicodedata.normalize("NFC", value)',
                  '            return unicodedata.normalize("NFD", value)')]},
    {"name": "keys are not normalised", "task": 4,
     "replace": [('            return {nfc(key): nfc(item) for key, item in value.items()}',
                  '            return {key: nfc(item) for key, item in value.items()}')]},
    {"name": "lists are not normalised", "task": 4,
     "replace": [('            return [nfc(item) for item in value]', '            return value')]},
    {"name": "the hash of repr(), not of canonical JSON", "task": 4,
     "replace": [('    return sha256_hex(canonical_json(nfc(contract)))', '    return sha256_hex(repr(nfc(contract)))')]},
    {"name": "only the query text is fingerprinted", "task": 4,
     "replace": [('    return sha256_hex(canonical_json(nfc(contract)))',
                  '    return sha256_hex(canonical_json(nfc(contract["query"])))')]},

    # Task 5: first_failing_layer
    {"name": "the walk follows the order of the CHECKS dict", "task": 5,
     "replace": [('    for layer in LAYERS:\n        held, why = CHECKS[layer](record)\n        if not held:\n'
                  '            return layer, why\n',
                  '    for layer, check in CHECKS.items():\n        held, why = check(record)\n        if not held:\n'
                  '            return layer, why\n')]},
    {"name": "the walk uses the lab's checks, not yours", "task": 5,
     "replace": [('        held, why = CHECKS[layer](record)\n        if not held:\n            return layer, why\n'
                  '    return None\n',
                  '        held, why = LAB_CHECKS[layer](record)\n        if not held:\n            return layer, why\n'
                  '    return None\n')]},
    {"name": "the walk names the last failing layer (where the symptom shows)", "task": 5,
     "replace": [('        if not held:\n            return layer, why\n    return None\n',
                  '        if not held:\n            last = (layer, why)\n    return locals().get("last")\n')]},
    {"name": "the walk returns the layer without its reason", "task": 5,
     "replace": [('        if not held:\n            return layer, why\n    return None\n',
                  '        if not held:\n            return layer\n    return None\n')]},

    # Task 6: user_view
    {"name": "the internal state is shown to the shopper", "task": 6,
     "replace": [('            state = "no_match"\n    lines =',
                  '            state = "no_match"\n    state = record["decision"]["state"] if state != "unavailable" else state\n'
                  '    lines =')]},
    {"name": "a broken run's answer is shown anyway", "task": 6,
     "replace": [('    if found is not None and found[0] in LAYERS[:7]:', '    if False:')]},
    {"name": "any failing layer hides the view, presentation and later too", "task": 6,
     "replace": [('    if found is not None and found[0] in LAYERS[:7]:', '    if found is not None:')]},
    {"name": "tell the shopper how many listings were withheld", "task": 6,
     "replace": [('"message": USER_MESSAGES[state],',
                  '"message": USER_MESSAGES[state] + f" ({len(record[\'permission/freshness\'].get(\'withheld\', []))} '
                  'withheld)",')]},
    {"name": "show the internal empty cause", "task": 6,
     "replace": [('"message": USER_MESSAGES[state],', '"message": USER_MESSAGES[state], "cause": record["decision"]["empty_cause"],')]},
    {"name": "an answer state with no lines is still 'answer'", "task": 6,
     "replace": [('        if state in ("answer", "answer_partial") and not record["generation"]["answer"]:\n'
                  '            state = "no_match"\n', '')]},

    # Task 7: failure_counts
    {"name": "layers that never failed are left out", "task": 7,
     "replace": [('    return counts\n    # END SOLUTION\n\n\n# Task 8',
                  '    return {key: n for key, n in counts.items() if n}\n    # END SOLUTION\n\n\n# Task 8')]},
    {"name": "a record counts under every failing layer", "task": 7,
     "replace": [('        found = first_failing_layer(record)\n        counts["all_held" if found is None else found[0]] += 1\n',
                  '        failed = [layer for layer in LAYERS if not CHECKS[layer](record)[0]]\n'
                  '        for layer in failed or ["all_held"]:\n            counts[layer] += 1\n')]},
    {"name": "records that held everywhere are not counted", "task": 7,
     "replace": [('counts["all_held" if found is None else found[0]] += 1',
                  'counts[found[0] if found else "all_held"] += 0 if found is None else 1')]},

    # Quizzes
    {"name": "quiz: relax fail-closed", "task": 8, "replace": [('REBUILD_QUIZ = "b"', 'REBUILD_QUIZ = "a"')]},
    {"name": "quiz: bump the policy", "task": 8, "replace": [('REBUILD_QUIZ = "b"', 'REBUILD_QUIZ = "c"')]},
    {"name": "quiz: tune the ranker", "task": 9, "replace": [('RANKER_QUIZ = "a"', 'RANKER_QUIZ = "c"')]},
    {"name": "quiz: blame the source", "task": 9, "replace": [('RANKER_QUIZ = "a"', 'RANKER_QUIZ = "d"')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
EQUIVALENT_MUTANTS = [
    {"where": "nfc", "before": "return value", "after": "return None",
     "why": "the contract's values are str, None, lists and dicts (the docstring says so); the only value that "
            "reaches this line is None, so returning None returns the value"},
]
