"""Plausible wrong answers to lesson 01's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "coverage as a float", "task": 1,
     "replace": [("return Fraction(len(relevant & set(packet_ids)), len(relevant))",
                  "return len(relevant & set(packet_ids)) / len(relevant)")]},
    {"name": "coverage divided by the packet size", "task": 1,
     "replace": [("return Fraction(len(relevant & set(packet_ids)), len(relevant))",
                  "return Fraction(len(relevant & set(packet_ids)), len(list(packet_ids)) or 1)")]},
    {"name": "coverage counts repeated packet ids", "task": 1,
     "replace": [("return Fraction(len(relevant & set(packet_ids)), len(relevant))",
                  "return Fraction(min(len(relevant), sum(1 for i in packet_ids if i in relevant)), len(relevant))")]},
    {"name": "coverage of nothing is 0", "task": 1,
     "replace": [('        raise ValueError("relevant_ids must not be empty")\n    return Fraction(len(relevant & set(packet_ids))',
                  '        return Fraction(0)\n    return Fraction(len(relevant & set(packet_ids))')]},
    {"name": "coverage counts every packet id, needed or not", "task": 1,
     "replace": [("return Fraction(len(relevant & set(packet_ids)), len(relevant))",
                  "return Fraction(min(len(set(packet_ids)), len(relevant)), len(relevant))")]},
    {"name": "recall ignores k", "task": 2,
     "replace": [("set(ranked_ids[:k])", "set(ranked_ids)")]},
    {"name": "recall counts a needed id listed twice twice", "task": 2,
     "replace": [("return Fraction(len(relevant & set(ranked_ids[:k])), len(relevant))",
                  "return Fraction(len(relevant & set(ranked_ids[:k])), len(list(relevant_ids)))")]},
    {"name": "recall counts an id ranked twice twice", "task": 2,
     "replace": [("return Fraction(len(relevant & set(ranked_ids[:k])), len(relevant))",
                  "return Fraction(min(len(relevant), sum(1 for i in ranked_ids[:k] if i in relevant)), "
                  "len(relevant))")]},
    {"name": "recall divided by k (precision)", "task": 2,
     "replace": [("return Fraction(len(relevant & set(ranked_ids[:k])), len(relevant))",
                  "return Fraction(len(relevant & set(ranked_ids[:k])), k)")]},
    {"name": "recall looks at one item too many", "task": 2,
     "replace": [("set(ranked_ids[:k])", "set(ranked_ids[:k + 1])")]},
    {"name": "recall looks at one item too few", "task": 2,
     "replace": [("set(ranked_ids[:k])", "set(ranked_ids[:k - 1])")]},
    {"name": "recall accepts k = 0", "task": 2,
     "replace": [("    if k < 1:\n", "    if k < 0:\n")]},
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
     "replace": [("return ContextRecord(tuple(packet), tuple(skipped), (), {}, used, max_quote_chars)",
                  "return ContextRecord(packet, skipped, [], {}, used, max_quote_chars)")]},
    {"name": "counts the skipped passage against the budget too", "task": 3,
     "replace": [("            skipped.append(passage.id)\n",
                  "            skipped.append(passage.id)\n            used += len(passage.text)\n")]},
    {"name": "strict < at an exact fit", "task": 3,
     "replace": [("if used + len(passage.text) <= max_quote_chars:", "if used + len(passage.text) < max_quote_chars:")]},
    {"name": "negative budget treated as 0", "task": 3,
     "replace": [("    if max_quote_chars < 0:\n        raise ValueError(f\"max_quote_chars must be >= 0, got {max_quote_chars}\")\n",
                  "    max_quote_chars = max(max_quote_chars, 0)\n")]},
    {"name": "label leakage: needed passages first", "task": 3,
     "replace": [("    packet, skipped, used = [], [], 0\n    for passage in candidates:",
                  "    packet, skipped, used = [], [], 0\n"
                  "    from modules import context as lesson\n"
                  "    candidates = sorted(candidates, key=lambda p: p.id not in lesson.RELEVANT_IDS)\n"
                  "    for passage in candidates:")]},
    {"name": "quiz: the same score here, so no harm", "task": 4, "replace": [('LABELS_QUIZ = "a"', 'LABELS_QUIZ = "b"')]},
    {"name": "quiz: harmless while the labels are correct", "task": 4, "replace": [('LABELS_QUIZ = "a"', 'LABELS_QUIZ = "d"')]},
    {"name": "quiz: it lowers coverage at 120", "task": 4, "replace": [('LABELS_QUIZ = "a"', 'LABELS_QUIZ = "c"')]},
]
