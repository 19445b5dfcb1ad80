"""Plausible wrong answers to lesson 01's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "coverage as a float", "task": 1,
     "replace": [("return Fraction(len(relevant & evidence), len(relevant))",
                  "return len(relevant & evidence) / len(relevant)")]},
    {"name": "coverage divided by the packet size", "task": 1,
     "replace": [("return Fraction(len(relevant & evidence), len(relevant))",
                  "return Fraction(len(relevant & evidence), len(record.packet) or 1)")]},
    {"name": "coverage counts a needed id listed twice twice (2/3 for ['a'] against ['a', 'a', 'b'])", "task": 1,
     "replace": [("return Fraction(len(relevant & evidence), len(relevant))",
                  "return Fraction(sum(1 for i in relevant_ids if i in evidence), len(list(relevant_ids)))")]},
    {"name": "coverage of nothing is 0", "task": 1,
     "replace": [('        raise ValueError("relevant_ids must not be empty")\n    evidence',
                  '        return Fraction(0)\n    evidence')]},
    {"name": "coverage counts every packet id, needed or not", "task": 1,
     "replace": [("return Fraction(len(relevant & evidence), len(relevant))",
                  "return Fraction(min(len(evidence), len(relevant)), len(relevant))")]},
    {"name": "coverage counts a blocked conflict's ids as evidence (handed_ids)", "task": 1,
     "replace": [("evidence = {passage.id for passage in record.packet}", "evidence = set(record.handed_ids)")]},
    {"name": "coverage counts duplicate-text ids as found", "task": 1,
     "replace": [("evidence = {passage.id for passage in record.packet}",
                  "evidence = {passage.id for passage in record.packet} | set(record.duplicate_text_ids)")]},
    {"name": "coverage counts every candidate the record names", "task": 1,
     "replace": [("evidence = {passage.id for passage in record.packet}",
                  "evidence = {passage.id for passage in record.packet} | set(record.budget_skipped_ids)")]},
    {"name": "recall ignores k", "task": 2,
     "replace": [("            if len(first_k) == k:\n                break\n", "")]},
    {"name": "recall over the first k positions (the lesson's module), not k distinct ids", "task": 2,
     "replace": [("    first_k = []\n    for ranked in ranked_ids:\n        if ranked not in first_k:\n"
                  "            first_k.append(ranked)\n            if len(first_k) == k:\n                break\n",
                  "    first_k = list(ranked_ids[:k])\n")]},
    {"name": "recall counts a needed id listed twice twice", "task": 2,
     "replace": [("return Fraction(len(relevant & set(first_k)), len(relevant))",
                  "return Fraction(len(relevant & set(first_k)), len(list(relevant_ids)))")]},
    {"name": "recall divided by k (precision)", "task": 2,
     "replace": [("return Fraction(len(relevant & set(first_k)), len(relevant))",
                  "return Fraction(len(relevant & set(first_k)), k)")]},
    {"name": "recall looks at one item too many", "task": 2,
     "replace": [("            if len(first_k) == k:", "            if len(first_k) == k + 1:")]},
    {"name": "recall looks at one item too few", "task": 2,
     "replace": [("            if len(first_k) == k:", "            if len(first_k) == k - 1:")]},
    {"name": "recall accepts k = 0", "task": 2,
     "replace": [("    if k < 1:\n", "    if k < 0:\n")]},
    {"name": "fill copies a passage returned twice twice (the lesson's module)", "task": 3,
     "replace": [("        if passage.id in decided:\n            continue\n", "")]},
    {"name": "fill passes over a repeat only once it was selected, listing a skipped one twice", "task": 3,
     "replace": [("        decided.add(passage.id)\n        if used + len(passage.text) <= max_quote_chars:\n"
                  "            packet.append(passage)\n",
                  "        if used + len(passage.text) <= max_quote_chars:\n            decided.add(passage.id)\n"
                  "            packet.append(passage)\n")]},
    {"name": "truncate instead of skip", "task": 3,
     "replace": [("        else:\n            skipped.append(passage.id)\n",
                  "        else:\n            room = max_quote_chars - used\n"
                  "            if room > 0:\n"
                  "                packet.append(Passage(passage.id, passage.source_id, passage.version, "
                  "passage.title, passage.text[:room]))\n"
                  "                used += room\n"
                  "            skipped.append(passage.id)\n")]},
    {"name": "stop at the first misfit", "task": 3,
     "replace": [("            skipped.append(passage.id)\n",
                  "            skipped.extend(p.id for p in candidates[candidates.index(passage):])\n            break\n")]},
    {"name": "stop at the first misfit, recording only it", "task": 3,
     "replace": [("            skipped.append(passage.id)\n",
                  "            skipped.append(passage.id)\n            break\n")]},
    {"name": "counts UTF-8 bytes, not characters", "task": 3,
     "replace": [("        if used + len(passage.text) <= max_quote_chars:\n            packet.append(passage)\n"
                  "            used += len(passage.text)\n",
                  "        size = len(passage.text.encode('utf-8'))\n"
                  "        if used + size <= max_quote_chars:\n            packet.append(passage)\n"
                  "            used += size\n")]},
    {"name": "counts the title as quote text", "task": 3,
     "replace": [("        if used + len(passage.text) <= max_quote_chars:\n            packet.append(passage)\n"
                  "            used += len(passage.text)\n",
                  "        size = len(passage.title) + len(passage.text)\n"
                  "        if used + size <= max_quote_chars:\n            packet.append(passage)\n"
                  "            used += size\n")]},
    {"name": "shortest passages first, to fit more", "task": 3,
     "replace": [("    for passage in candidates:", "    for passage in sorted(candidates, key=lambda p: len(p.text)):")]},
    {"name": "drops a passage whose text is already in the packet", "task": 3,
     "replace": [("        if used + len(passage.text) <= max_quote_chars:",
                  "        if any(p.text == passage.text for p in packet):\n            continue\n"
                  "        if used + len(passage.text) <= max_quote_chars:")]},
    {"name": "lists instead of tuples in the record", "task": 3,
     "replace": [("record = ContextRecord(packet=tuple(packet), budget_skipped_ids=tuple(skipped), duplicate_text_ids=(),",
                  "record = ContextRecord(packet=packet, budget_skipped_ids=skipped, duplicate_text_ids=[],")]},
    {"name": "counts the skipped passage against the budget too", "task": 3,
     "replace": [("            skipped.append(passage.id)\n",
                  "            skipped.append(passage.id)\n            used += len(passage.text)\n")]},
    {"name": "strict < at an exact fit", "task": 3,
     "replace": [("if used + len(passage.text) <= max_quote_chars:", "if used + len(passage.text) < max_quote_chars:")]},
    {"name": "negative budget treated as 0", "task": 3,
     "replace": [("    if max_quote_chars < 0:\n        raise ValueError(f\"max_quote_chars must be >= 0, got {max_quote_chars}\")\n",
                  "    max_quote_chars = max(max_quote_chars, 0)\n")]},
    {"name": "label leakage: needed passages first", "task": 3,
     "replace": [("    decided = set()   # the ids already selected or skipped\n    for passage in candidates:",
                  "    decided = set()   # the ids already selected or skipped\n"
                  "    from modules import context as lesson\n"
                  "    candidates = sorted(candidates, key=lambda p: p.id not in lesson.RELEVANT_IDS)\n"
                  "    for passage in candidates:")]},
    {"name": "quiz: the same score here, so no harm", "task": 4, "replace": [('LABELS_QUIZ = "c"', 'LABELS_QUIZ = "a"')]},
    {"name": "quiz: harmless while the labels are correct", "task": 4, "replace": [('LABELS_QUIZ = "c"', 'LABELS_QUIZ = "d"')]},
    {"name": "quiz: it lowers coverage at 120", "task": 4, "replace": [('LABELS_QUIZ = "c"', 'LABELS_QUIZ = "b"')]},
    {"name": "predict: both needed passages, as at 191", "task": 5,
     "replace": [('PACKET_AT_190 = ("returns-v1", "wifi-v1", "card-v1")', 'PACKET_AT_190 = ("returns-v1", "hours-v2")')]},
    {"name": "predict: the walk stops at the first misfit", "task": 5,
     "replace": [('PACKET_AT_190 = ("returns-v1", "wifi-v1", "card-v1")', 'PACKET_AT_190 = ("returns-v1",)')]},
    {"name": "predict: the duplicate and the blocked prices count too", "task": 5,
     "replace": [('PACKET_AT_190 = ("returns-v1", "wifi-v1", "card-v1")',
                  'PACKET_AT_190 = ("returns-v1", "wifi-v1", "printing-v1")')]},
    {"name": "predict: the ids as one string", "task": 5,
     "replace": [('PACKET_AT_190 = ("returns-v1", "wifi-v1", "card-v1")', 'PACKET_AT_190 = "returns-v1, wifi-v1, card-v1"')]},
]
