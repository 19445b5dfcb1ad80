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
    {"name": "quiz: denominator", "task": 4, "replace": [('LABELS_QUIZ = "b"', 'LABELS_QUIZ = "a"')]},
]
