"""Plausible wrong answers to lesson 11's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "today's clock instead of the as-of date", "task": 1,
     "replace": [("    day = date.fromisoformat(as_of)\n    if candidate.valid_from",
                  "    day = date.today()\n    if candidate.valid_from")]},
    {"name": "last valid day excluded", "task": 1,
     "replace": [("date.fromisoformat(candidate.valid_until) < day", "date.fromisoformat(candidate.valid_until) <= day")]},
    {"name": "valid_from ignored", "task": 1,
     "replace": [("    if candidate.valid_from and date.fromisoformat(candidate.valid_from) > day:\n        return False\n", "")]},
    {"name": "open end treated as expired", "task": 1,
     "replace": [("    if candidate.valid_until and date.fromisoformat(candidate.valid_until) < day:\n",
                  "    if not candidate.valid_until or date.fromisoformat(candidate.valid_until) < day:\n")]},
    {"name": "one chunk per canonical document (drops A2)", "task": 2,
     "replace": [('anchor=f"#{c.chunk}"', 'anchor=c.canonical')]},
    {"name": "no anchor: copies matched by text only (the mirror's header hides it)", "task": 2,
     "replace": [(', anchor=f"#{c.chunk}"', '')]},
    {"name": "every copy called primary (the mirror ranked above A1 wins)", "task": 2,
     "replace": [('        copy = "primary" if c.document == c.canonical else "mirror"\n',
                  '        copy = "primary"\n')]},
    {"name": "the canonical document ignored (the mirror's own document used)", "task": 2,
     "replace": [("RetrievedChunk(c.id, c.document, c.text, c.similarity, c.canonical, copy,",
                  "RetrievedChunk(c.id, c.document, c.text, c.similarity, c.document, copy,")]},
    {"name": "re-implemented: dedupe by identical text only", "task": 2,
     "replace": [("    return dict(dedupe_canonical(chunks).dropped)\n",
                  "    first = {}\n    for c in candidates:\n        first.setdefault(c.text, c.id)\n"
                  "    return {c.id: first[c.text] for c in candidates if first[c.text] != c.id}\n")]},
    {"name": "re-implemented: one chunk per canonical document", "task": 2,
     "replace": [("    return dict(dedupe_canonical(chunks).dropped)\n",
                  "    first = {}\n    for c in candidates:\n        first.setdefault(c.canonical, c.id)\n"
                  "    return {c.id: first[c.canonical] for c in candidates if first[c.canonical] != c.id}\n")]},
    {"name": "dropped mapped to the canonical document, not to the kept copy", "task": 2,
     "replace": [("    return dict(dedupe_canonical(chunks).dropped)\n",
                  "    dropped = dedupe_canonical(chunks).dropped\n"
                  "    return {i: next(c.canonical for c in candidates if c.id == i) for i in dropped}\n")]},
    {"name": "higher authority settles the conflict", "task": 3,
     "replace": [("    declared = set(rules)\n",
                  "    best = max(members, key=lambda c: c.authority)\n"
                  "    return Conflict(ids, amounts, \"resolved\", (best.id,), f\"{best.source} over others\")\n"
                  "    declared = set(rules)\n")]},
    {"name": "first-ranked source wins", "task": 3,
     "replace": [("    declared = set(rules)\n",
                  "    return Conflict(ids, amounts, \"resolved\", ids[:1], f\"{members[0].source} over others\")\n"
                  "    declared = set(rules)\n")]},
    {"name": "rules read in both directions", "task": 3,
     "replace": [("    declared = set(rules)\n", "    declared = set(rules) | {(b, a) for a, b in rules}\n")]},
    {"name": "agreement reported as a conflict", "task": 3,
     "replace": [("    if len(set(said)) <= 1:\n", "    if len(said) <= 1:\n")]},
    {"name": "members without an amount take part", "task": 3,
     "replace": [("    members = [c for c in members if stated_amounts(c.text)]\n", "    members = list(members)\n"),
                 ("    amounts = tuple(stated_amounts(c.text)[0] for c in members)\n",
                  "    amounts = tuple((stated_amounts(c.text) or (Amount(0, 'euros', ''),))[0] for c in members)\n")]},
    {"name": "an unreadable amount ignored, so the readable one stands alone", "task": 3,
     "replace": [("    members = [c for c in members if stated_amounts(c.text)]\n",
                  "    members = [c for c in members if stated_amounts(c.text) and stated_amounts(c.text)[0].value is not None]\n")]},
    {"name": "unreadable amounts compared as equal (None == None)", "task": 3,
     "replace": [("    if len(members) > 1 and any(a.value is None for a in amounts):\n",
                  "    if len(members) > 1 and all(a.value is None for a in amounts) and False:\n")]},
    {"name": "a declared rule settles an unreadable amount", "task": 3,
     "replace": [("    if len(members) > 1 and any(a.value is None for a in amounts):\n"
                  "        return Conflict(ids, amounts, \"unreadable\", ids)\n", ""),
                 ("    return Conflict(ids, amounts, \"unresolved\", ids)\n",
                  "    if any(a.value is None for a in amounts):\n        return Conflict(ids, amounts, \"unreadable\", ids)\n"
                  "    return Conflict(ids, amounts, \"unresolved\", ids)\n")]},
    {"name": "the unit ignored (500 crowns agrees with 500 euros)", "task": 3,
     "replace": [("    said = [(a.value, a.unit) for a in amounts]\n", "    said = [a.value for a in amounts]\n")]},
    {"name": "own digits reader: the first number in the text", "task": 3,
     "replace": [("    amounts = tuple(stated_amounts(c.text)[0] for c in members)\n",
                  "    amounts = tuple(Amount(int(next(w for w in c.text.replace(',', '').split() if w.isdigit())), "
                  "'euros', '') if any(w.isdigit() for w in c.text.replace(',', '').split()) else "
                  "Amount(None, 'euros', '') for c in members)\n")]},
    {"name": "expired policy kept (no freshness layer)", "task": 4,
     "replace": [("        if not is_current(c, as_of):\n", "        if False:\n")]},
    {"name": "scope not checked (keeps E1)", "task": 4,
     "replace": [("        elif c.scope != scope:\n", "        elif False:\n")]},
    {"name": "copy kept (no canonical dedupe)", "task": 4,
     "replace": [("    dedupe = canonical_dedupe(alive)\n", "    dedupe = {}\n")]},
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
    {"name": "top-7 by similarity before any rule (drops A2)", "task": 4,
     "replace": [("    reason = {}\n    day = date.fromisoformat(as_of)\n",
                  "    reason = {c.id: \"budget\" for c in candidates[7:]}\n    day = date.fromisoformat(as_of)\n"),
                 ("    for c in candidates:\n        if not is_current(c, as_of):",
                  "    for c in candidates[:7]:\n        if not is_current(c, as_of):")]},
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
     "replace": [("            reason[c.id] = \"expired\" if expired else \"not_yet_valid\"\n",
                  "            reason[c.id] = \"expired\"\n")]},
    {"name": "scope checked before freshness", "task": 4,
     "replace": [("        if not is_current(c, as_of):\n            expired = c.valid_until and date.fromisoformat(c.valid_until) < day\n"
                  "            reason[c.id] = \"expired\" if expired else \"not_yet_valid\"\n"
                  "        elif c.scope != scope:\n            reason[c.id] = \"off_topic\"\n",
                  "        if c.scope != scope:\n            reason[c.id] = \"off_topic\"\n"
                  "        elif not is_current(c, as_of):\n            expired = c.valid_until and date.fromisoformat(c.valid_until) < day\n"
                  "            reason[c.id] = \"expired\" if expired else \"not_yet_valid\"\n")]},
    {"name": "quiz: A2 ranked last, so it does not matter", "task": 5, "replace": [('A2_QUIZ = "a"', 'A2_QUIZ = "b"')]},
    {"name": "quiz: the reranker failed first", "task": 6, "replace": [('C1_QUIZ = "d"', 'C1_QUIZ = "a"')]},
    {"name": "quiz: higher authority wins", "task": 7, "replace": [('D_QUIZ = "c"', 'D_QUIZ = "a"')]},
]

# Mutants of the reference that no test can reject (same behaviour, different code), reviewed.
EQUIVALENT_MUTANTS = [
    {"where": "decision_table",
     "before": "expired = c.valid_until and date.fromisoformat(c.valid_until) < day",
     "after": "expired = c.valid_until and date.fromisoformat(c.valid_until) <= day",
     "why": "the line runs only for candidates that are not current, and a window ending on the as-of day is current"},
]
