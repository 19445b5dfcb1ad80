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
     "replace": [('if step["status"] == "failed" and len(numbers) < 2:', 'if step["status"] == "failed":')]},
    {"name": "the lab's check: any failed step passes, even on one size", "task": 1,
     "replace": [('if step["status"] == "failed" and len(numbers) < 2:', 'if False:')]},
    {"name": "numbers counted with isdigit(), so '0.625' is no number", "task": 1,
     "replace": [('numbers = [w for w in words if w.replace(".", "", 1).isdigit()]',
                  'numbers = [w for w in words if w.isdigit()]')]},
    {"name": "any unresolved size fails, with or without a written unit", "task": 1,
     "replace": [('if words and words[-1] in UNIT_WORDS and step["status"] == "unresolved":',
                  'if step["status"] == "unresolved":')]},
    {"name": "the unit rule is left out", "task": 1,
     "replace": [('        if words and words[-1] in UNIT_WORDS and step["status"] == "unresolved":\n'
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
     "replace": [('        if not codes or any(code not in SAFE_CODES for code in codes):\n'
                  '            return False, f"{decision[\'subject\']} was withheld without a safe reason code"\n', '')]},
    {"name": "the lab's check: subjects of permission exclusions are not checked", "task": 2,
     "replace": [('        if any(code.startswith("PERMISSION_") for code in codes) and not opaque:\n', '        if False:\n')]},
    {"name": "any subject starting 'ref-' counts as an opaque ref", "task": 2,
     "replace": [('        opaque = (len(subject) == 16 and subject.startswith("ref-")\n'
                  '                  and all(c in "0123456789abcdef" for c in subject[4:]))\n',
                  '        opaque = subject.startswith("ref-")\n')]},
    {"name": "upper-case hex digits accepted in a ref", "task": 2,
     "replace": [('all(c in "0123456789abcdef" for c in subject[4:])',
                  'all(c in "0123456789abcdefABCDEF" for c in subject[4:])')]},
    {"name": "only the first reason code is read for PERMISSION_", "task": 2,
     "replace": [('if any(code.startswith("PERMISSION_") for code in codes) and not opaque:',
                  'if codes[0].startswith("PERMISSION_") and not opaque:')]},
    {"name": "every exclusion must name a ref, the prohibited family too", "task": 2,
     "replace": [('if any(code.startswith("PERMISSION_") for code in codes) and not opaque:', 'if not opaque:')]},

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

    {"name": "the lab's check: a listing in two clusters goes unnoticed", "task": 3,
     "replace": [('            if member in members:\n                return False, f"{member} is a member of two clusters"\n', '')]},
    {"name": "the lab's check: the shown listing is not checked", "task": 3,
     "replace": [('        if row["shown"] != min(row["members"]):\n', '        if row["shown"] not in row["members"]:\n')]},
    {"name": "a cluster must show the first member listed, not the lowest", "task": 3,
     "replace": [('if row["shown"] != min(row["members"]):', 'if row["shown"] != row["members"][0]:')]},
    {"name": "a cluster shows its highest member", "task": 3,
     "replace": [('        if row["shown"] != min(row["members"]):\n', '        if row["shown"] != max(row["members"]):\n')]},

    # Task 4: request_fingerprint
    {"name": "the lab's query_fingerprint: the versions are hashed too", "task": 4,
     "replace": [('    request = {key: value for key, value in contract.items() if key != "versions"}\n',
                  '    request = contract\n')]},
    {"name": "the versions are deleted from the caller's dict", "task": 4,
     "replace": [('    request = {key: value for key, value in contract.items() if key != "versions"}\n',
                  '    contract.pop("versions", None)\n    request = contract\n')]},
    {"name": "the versions are emptied instead of left out", "task": 4,
     "replace": [('    request = {key: value for key, value in contract.items() if key != "versions"}\n',
                  '    request = dict(contract, versions={})\n')]},
    {"name": "the fingerprint depends on dict order (json.dumps without sort_keys)", "task": 4,
     "replace": [('    return sha256_hex(canonical_json(nfc(request)))',
                  '    import json\n    return sha256_hex(json.dumps(nfc(request), separators=(",", ":")))')]},
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
     "replace": [('    return sha256_hex(canonical_json(nfc(request)))', '    return sha256_hex(repr(nfc(request)))')]},
    {"name": "only the query text is fingerprinted", "task": 4,
     "replace": [('    return sha256_hex(canonical_json(nfc(request)))',
                  '    return sha256_hex(canonical_json(nfc(request["query"])))')]},

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
    {"name": "the view shares the record's cites lists instead of copying them", "task": 6,
     "replace": [('"answer": [{"text": line["text"], "cites": list(line["cites"])} for line in lines]}',
                  '"answer": [{"text": line["text"], "cites": line["cites"]} for line in lines]}')]},
    {"name": "the internal state is shown to the shopper", "task": 6,
     "replace": [('            state = "no_match"\n    lines =',
                  '            state = "no_match"\n    state = record["decision"]["state"] if state != "unavailable" else state\n'
                  '    lines =')]},
    {"name": "a broken run's answer is shown anyway", "task": 6,
     "replace": [('    if (found is not None and found[0] in LAYERS[:7]) or not generated:', '    if not generated:')]},
    {"name": "the lab's view: a line that fails the generation check is shown", "task": 6,
     "replace": [('    if (found is not None and found[0] in LAYERS[:7]) or not generated:',
                  '    if found is not None and found[0] in LAYERS[:7]:')]},
    {"name": "only the failing lines are dropped, the rest of that answer shown", "task": 6,
     "replace": [('    if (found is not None and found[0] in LAYERS[:7]) or not generated:',
                  '    if found is not None and found[0] in LAYERS[:7]:'),
                 ('    lines = record["generation"]["answer"] if state.startswith("answer") else []',
                  '    fields = record["generation"]["from_fields"]\n'
                  '    lines = [line for line in record["generation"]["answer"]\n'
                  '             if line["cites"] and all(c in fields for c in line["cites"])] if state.startswith("answer") else []')]},
    {"name": "any failing layer hides the view, presentation and later too", "task": 6,
     "replace": [('    if (found is not None and found[0] in LAYERS[:7]) or not generated:',
                  '    if found is not None or not generated:')]},
    {"name": "tell the shopper how many listings were withheld", "task": 6,
     "replace": [('"message": USER_MESSAGES[state],',
                  '"message": USER_MESSAGES[state] + f" ({len(record[\'permission/freshness\'].get(\'withheld\', []))} '
                  'withheld)",')]},
    {"name": "show the internal empty cause", "task": 6,
     "replace": [('"message": USER_MESSAGES[state],', '"message": USER_MESSAGES[state], "cause": record["decision"]["empty_cause"],')]},
    {"name": "an answer state with no lines is still 'answer'", "task": 6,
     "replace": [('        if state in ("answer", "answer_partial") and not record["generation"]["answer"]:\n'
                  '            state = "no_match"\n', '')]},

    # Task 7: regression_counts
    {"name": "every failure after counts, as in one run's failure_counts", "task": 7,
     "replace": [('        if first_failing_layer(was[query_id]) is None and failed is not None:',
                  '        if failed is not None:')]},
    {"name": "records matched by position, not by query id", "task": 7,
     "replace": [('    for query_id in sorted(now):\n        failed = first_failing_layer(now[query_id])\n'
                  '        if first_failing_layer(was[query_id]) is None and failed is not None:',
                  '    for old, new in zip(was.values(), now.values()):\n        failed = first_failing_layer(new)\n'
                  '        if first_failing_layer(old) is None and failed is not None:')]},
    {"name": "layers that never regressed are left out", "task": 7,
     "replace": [('    return counts\n    # END SOLUTION\n\n\n# Task 8',
                  '    return {key: n for key, n in counts.items() if n}\n    # END SOLUTION\n\n\n# Task 8')]},
    {"name": "an 'all_held' key, as in failure_counts", "task": 7,
     "replace": [('    counts = dict.fromkeys(LAYERS, 0)\n    for query_id',
                  '    counts = dict.fromkeys(("all_held",) + LAYERS, 0)\n    for query_id')]},
    {"name": "a query on one side only is skipped", "task": 7,
     "replace": [('    if one_side:\n        raise ValueError(f"query_id {one_side[0]!r} is on one side only")\n', ''),
                 ('    for query_id in sorted(now):', '    for query_id in sorted(set(now) & set(was)):')]},
    {"name": "a query twice on one side: the later record wins", "task": 7,
     "replace": [('            if record["query_id"] in found:\n'
                  '                raise ValueError(f"query_id {record[\'query_id\']!r} occurs twice on one side")\n', '')]},
    {"name": "the one-side error names no query", "task": 7,
     "replace": [('raise ValueError(f"query_id {one_side[0]!r} is on one side only")',
                  'raise ValueError("the two sides hold different queries")')]},

    # Quizzes and the prediction
    {"name": "quiz: the family field was dropped", "task": 8, "replace": [('REBUILD_QUIZ = "b"', 'REBUILD_QUIZ = "a"')]},
    {"name": "quiz: the policy changed", "task": 8, "replace": [('REBUILD_QUIZ = "b"', 'REBUILD_QUIZ = "c"')]},
    {"name": "quiz: the listings left the index", "task": 8, "replace": [('REBUILD_QUIZ = "b"', 'REBUILD_QUIZ = "d"')]},
    {"name": "quiz: the penalty fixed it", "task": 9, "replace": [('RANKER_QUIZ = "c"', 'RANKER_QUIZ = "a"')]},
    {"name": "quiz: the walk stops at ranking", "task": 9, "replace": [('RANKER_QUIZ = "c"', 'RANKER_QUIZ = "b"')]},
    {"name": "quiz: the packet's layer fails first", "task": 9, "replace": [('RANKER_QUIZ = "c"', 'RANKER_QUIZ = "d"')]},
    {"name": "predict: the healthy packet, as if the rebuild changed nothing", "task": 10,
     "replace": [('REBUILT_PACKET = ("PW-L003", "PW-L009", "PW-L012")', 'REBUILT_PACKET = ("PW-L001", "PW-L003", "PW-L009")')]},
    {"name": "predict: the withheld listings are not replaced from further down", "task": 10,
     "replace": [('REBUILT_PACKET = ("PW-L003", "PW-L009", "PW-L012")', 'REBUILT_PACKET = ("PW-L003", "PW-L009")')]},
    {"name": "predict: the shopper's view (nothing), not the internal packet", "task": 10,
     "replace": [('REBUILT_PACKET = ("PW-L003", "PW-L009", "PW-L012")', 'REBUILT_PACKET = ()')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
EQUIVALENT_MUTANTS = [
    {"where": "check_ranking",
     "before": "return False, f\"{row['cluster']} shows {row['shown']}, not its lowest member {min(row['members'])}\"",
     "after": "return False, f\"{row['cluster']} shows {row['shown']}, not its lowest member {max(row['members'])}\"",
     "why": "the why sentence is free text for the reader; the graders check held, and a why's wording is not "
            "graded (issue 34: no test asserts prose)"},
    {"where": "nfc", "before": "return value", "after": "return None",
     "why": "the contract's values are str, None, lists and dicts (the docstring says so); the only value that "
            "reaches this line is None, so returning None returns the value"},
]
