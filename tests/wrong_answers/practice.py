"""Plausible wrong answers to lesson 11's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    # Task 1: validity
    {"name": "today's clock instead of the as-of date", "task": 1,
     "replace": [("    day = date.fromisoformat(as_of)\n    if candidate.valid_from",
                  "    day = date.today()\n    if candidate.valid_from")]},
    {"name": "last valid day excluded", "task": 1,
     "replace": [("        if left < 0:\n", "        if left <= 0:\n")]},
    {"name": "valid_from ignored", "task": 1,
     "replace": [("    if candidate.valid_from and day < date.fromisoformat(candidate.valid_from):\n"
                  "        return \"not_yet_valid\"\n", "")]},
    {"name": "open end treated as expired", "task": 1,
     "replace": [("    if candidate.valid_until:\n", "    if not candidate.valid_until:\n        return \"expired\"\n"
                  "    if candidate.valid_until:\n")]},
    {"name": "the lab's is_current: a yes or no", "task": 1,
     "replace": [("        if left <= warn_days:\n            return \"expiring\"\n", "")]},
    {"name": "the warning window excludes its last day", "task": 1,
     "replace": [("        if left <= warn_days:\n", "        if left < warn_days:\n")]},
    {"name": "warn_days ignored (a fixed 30 days)", "task": 1,
     "replace": [("        if left <= warn_days:\n", "        if left <= 30:\n")]},
    {"name": "a negative or boolean warning accepted", "task": 1,
     "replace": [("    if isinstance(warn_days, bool) or not isinstance(warn_days, int) or warn_days < 0:\n",
                  "    if not isinstance(warn_days, int):\n")]},
    {"name": "the warning's error names no argument", "task": 1,
     "replace": [('raise ValueError(f"warn_days must be a whole number >= 0, got {warn_days!r}")',
                  'raise ValueError(f"must be a whole number >= 0, got {warn_days!r}")')]},
    {"name": "the missing rank's error names no candidate", "task": 2,
     "replace": [('raise ValueError(f"rank has no place for candidate {c.id!r}")',
                  'raise ValueError("rank is missing a candidate")')]},
    {"name": "not yet valid called expired", "task": 1,
     "replace": [("        return \"not_yet_valid\"\n    if candidate.valid_until:",
                  "        return \"expired\"\n    if candidate.valid_until:")]},

    # Task 2: canonical_dedupe
    {"name": "the lab's canonical_dedupe: the list order read as the rank", "task": 2,
     "replace": [("    for c in sorted(candidates, key=lambda c: rank[c.id]):\n", "    for c in candidates:\n")]},
    {"name": "ranked backwards (larger rank first)", "task": 2,
     "replace": [("sorted(candidates, key=lambda c: rank[c.id])", "sorted(candidates, key=lambda c: -rank[c.id])")]},
    {"name": "ranked by similarity instead of the rank given", "task": 2,
     "replace": [("sorted(candidates, key=lambda c: rank[c.id])", "sorted(candidates, key=lambda c: -c.similarity)")]},
    {"name": "a candidate without a rank goes last instead of being refused", "task": 2,
     "replace": [("    for c in candidates:\n        if c.id not in rank:\n"
                  "            raise ValueError(f\"rank has no place for candidate {c.id!r}\")\n", ""),
                 ("key=lambda c: rank[c.id])", "key=lambda c: rank.get(c.id, 10**9))")]},
    {"name": "one chunk per canonical document (drops A2)", "task": 2,
     "replace": [('anchor=f"#{c.chunk}"', 'anchor=c.canonical')]},
    {"name": "no anchor: copies matched by text only (the mirror's header hides it)", "task": 2,
     "replace": [(', anchor=f"#{c.chunk}"', '')]},
    {"name": "every copy called primary (the mirror ranked above A1 wins)", "task": 2,
     "replace": [('        copy = "primary" if c.document == c.canonical else "mirror"\n        chunks.append(',
                  '        copy = "primary"\n        chunks.append(')]},
    {"name": "the canonical document ignored (the mirror's own document used)", "task": 2,
     "replace": [("RetrievedChunk(c.id, c.document, c.text, c.similarity, c.canonical, copy,",
                  "RetrievedChunk(c.id, c.document, c.text, c.similarity, c.document, copy,")]},
    {"name": "re-implemented: dedupe by identical text only", "task": 2,
     "replace": [("    return dict(dedupe_canonical(chunks).dropped)\n",
                  "    first = {}\n    for c in sorted(candidates, key=lambda c: rank[c.id]):\n"
                  "        first.setdefault(c.text, c.id)\n"
                  "    return {c.id: first[c.text] for c in candidates if first[c.text] != c.id}\n")]},
    {"name": "dropped mapped to the canonical document, not to the kept copy", "task": 2,
     "replace": [("    return dict(dedupe_canonical(chunks).dropped)\n",
                  "    dropped = dedupe_canonical(chunks).dropped\n"
                  "    return {i: next(c.canonical for c in candidates if c.id == i) for i in dropped}\n")]},

    # Task 3: settle_conflict
    {"name": "only the first winning member is kept, not its source's others", "task": 3,
     "replace": [("kept = tuple(c.id for c in members if c.source == winner.source)", "kept = (winner.id,)")]},
    {"name": "losing sources named in member order, not sorted", "task": 3,
     "replace": [('", ".join(sorted({c.source for c in losers}))', '", ".join(dict.fromkeys(c.source for c in losers))')]},
    {"name": "the lab's rules: each pair must be written out (no chain)", "task": 3,
     "replace": [("    changed = True\n    while changed:", "    changed = False\n    while changed:")]},
    {"name": "a chain followed one step only", "task": 3,
     "replace": [("                    changed = True\n", "")]},
    {"name": "a cycle goes unnoticed", "task": 3,
     "replace": [("    if cycles:\n        raise ValueError(f\"rules put source {cycles[0]!r} above itself\")\n", "")]},
    {"name": "a cycle's error names no source", "task": 3,
     "replace": [("raise ValueError(f\"rules put source {cycles[0]!r} above itself\")",
                  "raise ValueError(\"the rules contradict each other\")")]},
    {"name": "a cycle's error names the last source, not the first", "task": 3,
     "replace": [("raise ValueError(f\"rules put source {cycles[0]!r} above itself\")",
                  "raise ValueError(f\"rules put source {cycles[-1]!r} above itself\")")]},
    {"name": "higher authority settles the conflict", "task": 3,
     "replace": [("    for winner, mine in zip(members, said):\n",
                  "    best = max(members, key=lambda c: c.authority)\n"
                  "    return Conflict(ids, amounts, \"resolved\", (best.id,), f\"{best.source} over others\")\n"
                  "    for winner, mine in zip(members, said):\n")]},
    {"name": "rules read in both directions", "task": 3,
     "replace": [("    for winner, loser in rules:\n        above.setdefault(winner, set()).add(loser)\n",
                  "    for winner, loser in rules:\n        above.setdefault(winner, set()).add(loser)\n"
                  "        above.setdefault(loser, set()).add(winner)\n    above = {}\n"
                  "    for winner, loser in tuple(rules) + tuple((b, a) for a, b in rules):\n"
                  "        above.setdefault(winner, set()).add(loser)\n")]},
    {"name": "agreement reported as a conflict", "task": 3,
     "replace": [("    if len(set(said)) <= 1:\n", "    if len(said) <= 1:\n")]},
    {"name": "members without an amount take part", "task": 3,
     "replace": [("    members = [c for c in members if stated_amounts(c.text)]\n", "    members = list(members)\n"),
                 ("    amounts = tuple(stated_amounts(c.text)[0] for c in members)\n",
                  "    amounts = tuple((stated_amounts(c.text) or (Amount(0, 'euros', ''),))[0] for c in members)\n")]},
    {"name": "an unreadable amount ignored, so the readable one stands alone", "task": 3,
     "replace": [("    members = [c for c in members if stated_amounts(c.text)]\n",
                  "    members = [c for c in members if stated_amounts(c.text) and stated_amounts(c.text)[0].value is not None]\n")]},
    {"name": "a declared rule settles an unreadable amount", "task": 3,
     "replace": [("    if len(members) > 1 and any(a.value is None for a in amounts):\n"
                  "        return Conflict(ids, amounts, \"unreadable\", ids)\n", ""),
                 ("    return Conflict(ids, amounts, \"unresolved\", ids)\n",
                  "    if any(a.value is None for a in amounts):\n        return Conflict(ids, amounts, \"unreadable\", ids)\n"
                  "    return Conflict(ids, amounts, \"unresolved\", ids)\n")]},
    {"name": "the unit ignored (500 crowns agrees with 500 euros)", "task": 3,
     "replace": [("    said = [(a.value, a.unit) for a in amounts]\n", "    said = [a.value for a in amounts]\n")]},

    # Task 4: decision_table
    {"name": "the lab's decision_table: the wrappers are not counted", "task": 4,
     "replace": [("        size = sum(lab_tokens(c.text) + wrapper_tokens for c in unit)\n",
                  "        size = sum(lab_tokens(c.text) for c in unit)\n")]},
    {"name": "one wrapper per unit, not per passage", "task": 4,
     "replace": [("        size = sum(lab_tokens(c.text) + wrapper_tokens for c in unit)\n",
                  "        size = sum(lab_tokens(c.text) for c in unit) + wrapper_tokens\n")]},
    {"name": "the wrappers decide what fits but are left out of used_tokens", "task": 4,
     "replace": [("            used += size\n", "            used += size - wrapper_tokens * len(unit)\n")]},
    {"name": "an expiring policy discarded as if expired", "task": 4,
     "replace": [('        if state in ("expired", "not_yet_valid"):\n', '        if state != "current":\n')]},
    {"name": "expired policy kept (no freshness layer)", "task": 4,
     "replace": [('        if state in ("expired", "not_yet_valid"):\n', '        if False:\n')]},
    {"name": "scope not checked (keeps E1)", "task": 4,
     "replace": [("        elif c.scope != scope:\n", "        elif False:\n")]},
    {"name": "copy kept (no canonical dedupe)", "task": 4,
     "replace": [("    dedupe = canonical_dedupe(alive, rank)\n", "    dedupe = {}\n")]},
    {"name": "pick the higher authority without a rule", "task": 4,
     "replace": [("    conflict = settle_conflict(alive, rules)\n",
                  "    conflict = settle_conflict(alive, rules)\n"
                  "    if conflict.state == \"unresolved\":\n"
                  "        best = max((c for c in alive if c.id in conflict.ids), key=lambda c: c.authority)\n"
                  "        conflict = Conflict(conflict.ids, conflict.amounts, \"resolved\", (best.id,), \"authority\")\n")]},
    {"name": "later chunks of a document dropped as copies (drops A2)", "task": 4,
     "replace": [("    conflict = settle_conflict(alive, rules)\n",
                  "    first_chunk = {}\n"
                  "    for c in alive:\n"
                  "        if first_chunk.setdefault(c.document, c.id) != c.id:\n"
                  "            reason[c.id] = \"copy\"\n"
                  "    alive = [c for c in alive if c.id not in reason]\n"
                  "    conflict = settle_conflict(alive, rules)\n")]},
    {"name": "A2 left at its own rank (no adjacency)", "task": 4,
     "replace": [("        if unit and c.chunk == unit[-1].chunk + 1:\n", "        if False:\n")]},
    {"name": "selection order by rank alone", "task": 4,
     "replace": [("    units.sort(key=lambda unit: min(rank[c.id] for c in unit))\n",
                  "    units = [[c] for unit in units for c in unit]\n"
                  "    units.sort(key=lambda unit: rank[unit[0].id])\n")]},
    {"name": "an unreadable conflict is not kept together", "task": 4,
     "replace": [('disputed = set(conflict.ids) if conflict.state in ("unresolved", "unreadable") else set()',
                  'disputed = set(conflict.ids) if conflict.state == "unresolved" else set()')]},
    {"name": "the walk stops at the first unit that does not fit", "task": 4,
     "replace": [("        else:\n            for c in unit:\n                reason[c.id] = \"budget\"\n",
                  "        else:\n            budget = -1\n            for c in unit:\n                reason[c.id] = \"budget\"\n")]},
    {"name": "conflict members walk the budget one by one", "task": 4,
     "replace": [("    if group:\n        units.append(group)\n", "    if group:\n        units.extend([c] for c in group)\n")]},
    {"name": "part of a unit kept when the whole does not fit", "task": 4,
     "replace": [("        else:\n            for c in unit:\n                reason[c.id] = \"budget\"\n",
                  "        else:\n            for c in unit:\n"
                  "                if used + lab_tokens(c.text) <= budget:\n"
                  "                    packet.append(c.id)\n                    used += lab_tokens(c.text)\n"
                  "                else:\n                    reason[c.id] = \"budget\"\n")]},
    {"name": "every discard labelled with one generic reason", "task": 4,
     "replace": [("            reason[c.id] = state\n", "            reason[c.id] = \"expired\"\n")]},
    {"name": "scope checked before freshness", "task": 4,
     "replace": [('        if state in ("expired", "not_yet_valid"):\n            reason[c.id] = state\n'
                  "        elif c.scope != scope:\n            reason[c.id] = \"off_topic\"\n",
                  "        if c.scope != scope:\n            reason[c.id] = \"off_topic\"\n"
                  '        elif state in ("expired", "not_yet_valid"):\n            reason[c.id] = state\n')]},

    # Quizzes and the prediction
    {"name": "quiz: A2 ranked last, so it does not matter", "task": 5, "replace": [('A2_QUIZ = "b"', 'A2_QUIZ = "a"')]},
    {"name": "quiz: the mirror replaces A2", "task": 5, "replace": [('A2_QUIZ = "b"', 'A2_QUIZ = "c"')]},
    {"name": "quiz: the answer abstains", "task": 5, "replace": [('A2_QUIZ = "b"', 'A2_QUIZ = "d"')]},
    {"name": "quiz: the reranker failed first", "task": 6, "replace": [('C1_QUIZ = "a"', 'C1_QUIZ = "b"')]},
    {"name": "quiz: generation should notice", "task": 6, "replace": [('C1_QUIZ = "a"', 'C1_QUIZ = "c"')]},
    {"name": "quiz: the budget should skip it", "task": 6, "replace": [('C1_QUIZ = "a"', 'C1_QUIZ = "d"')]},
    {"name": "quiz: the raised authority wins", "task": 7, "replace": [('D_QUIZ = "c"', 'D_QUIZ = "a"')]},
    {"name": "quiz: the title is a rule", "task": 7, "replace": [('D_QUIZ = "c"', 'D_QUIZ = "b"')]},
    {"name": "quiz: an unsettled conflict is dropped", "task": 7, "replace": [('D_QUIZ = "c"', 'D_QUIZ = "d"')]},
    {"name": "predict: the rule's packet at 1,000 (F1 still fits)", "task": 8,
     "replace": [('PACKET_WITH_RULE_AT_160 = ("A1", "A2", "D1")', 'PACKET_WITH_RULE_AT_160 = ("A1", "A2", "D1", "F1")')]},
    {"name": "predict: the packet without the rule at 160", "task": 8,
     "replace": [('PACKET_WITH_RULE_AT_160 = ("A1", "A2", "D1")', 'PACKET_WITH_RULE_AT_160 = ("A1", "A2", "F1")')]},
    {"name": "predict: D1 at its rank before A2", "task": 8,
     "replace": [('PACKET_WITH_RULE_AT_160 = ("A1", "A2", "D1")', 'PACKET_WITH_RULE_AT_160 = ("A1", "D1", "A2")')]},
]

# Mutants of the reference that no test can reject (same behaviour, different code), reviewed.
EQUIVALENT_MUTANTS = []
