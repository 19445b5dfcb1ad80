"""Plausible wrong answers to lesson 03's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "ids: the last duplicate wins", "task": 1,
     "replace": [("    first = {}\n    kept = []\n    for chunk in chunks:\n        earlier = first.get(chunk.id)\n",
                  "    first = {}\n    kept = []\n    for chunk in chunks:\n        earlier = first.get(chunk.id)\n"
                  "        if earlier is not None and all(getattr(earlier, n) == getattr(chunk, n) for n in IDENTITY_FIELDS):\n"
                  "            kept.remove(earlier)\n            first[chunk.id] = chunk\n            kept.append(chunk)\n"
                  "            continue\n")]},
    {"name": "ids: a conflicting copy is silently dropped", "task": 1,
     "replace": [("                raise ValueError(f\"id {chunk.id!r} appears twice with a different {name}\")",
                  "                break")]},
    {"name": "ids: only the text is compared, not the provenance", "task": 1,
     "replace": [("        for name in IDENTITY_FIELDS:\n            if getattr(earlier, name)",
                  "        for name in (\"text\",):\n            if getattr(earlier, name)")]},
    {"name": "ids: the error does not name the field", "task": 1,
     "replace": [("raise ValueError(f\"id {chunk.id!r} appears twice with a different {name}\")",
                  "raise ValueError(f\"duplicate id {chunk.id!r}\")")]},
    {"name": "ids: the score must match too", "task": 1,
     "replace": [("        for name in IDENTITY_FIELDS:\n            if getattr(earlier, name)",
                  "        for name in IDENTITY_FIELDS + (\"score\",):\n            if getattr(earlier, name)")]},
    {"name": "text: the last duplicate wins", "task": 2,
     "replace": [("        if chunk.text in first:\n            duplicate_of[chunk.id] = first[chunk.text]\n"
                  "        else:\n            first[chunk.text] = chunk.id\n            kept.append(chunk)\n"
                  "    return TextDedupe(tuple(kept), tuple(duplicate_of), duplicate_of)",
                  "        first[chunk.text] = chunk\n    kept = [c for c in chunks if first[c.text] is c]\n"
                  "    duplicate_of = {c.id: first[c.text].id for c in chunks if first[c.text] is not c}\n"
                  "    return TextDedupe(tuple(kept), tuple(duplicate_of), duplicate_of)")]},
    {"name": "text: case and spaces ignored", "task": 2,
     "replace": [("        if chunk.text in first:\n            duplicate_of[chunk.id] = first[chunk.text]\n"
                  "        else:\n            first[chunk.text] = chunk.id\n",
                  "        key = chunk.text.strip().lower()\n        if key in first:\n"
                  "            duplicate_of[chunk.id] = first[key]\n        else:\n            first[key] = chunk.id\n")]},
    {"name": "text: a text inside another counts as a duplicate", "task": 2,
     "replace": [("        if chunk.text in first:\n            duplicate_of[chunk.id] = first[chunk.text]\n",
                  "        earlier = next((t for t in first if t.startswith(chunk.text) or chunk.text.startswith(t)), None)\n"
                  "        if earlier is not None:\n            duplicate_of[chunk.id] = first[earlier]\n")]},
    {"name": "canonical: the first-ranked copy always wins", "task": 3,
     "replace": [("if key not in chosen or (chunk.copy == \"primary\" and chosen[key].copy != \"primary\"):",
                  "if key not in chosen:")]},
    {"name": "canonical: the last copy wins when there is no primary", "task": 3,
     "replace": [("if key not in chosen or (chunk.copy == \"primary\" and chosen[key].copy != \"primary\"):",
                  "if key not in chosen or chunk.copy == \"primary\" or chosen[key].copy != \"primary\":")]},
    {"name": "canonical: the last of two primaries wins", "task": 3,
     "replace": [("if key not in chosen or (chunk.copy == \"primary\" and chosen[key].copy != \"primary\"):",
                  "if key not in chosen or chunk.copy == \"primary\":")]},
    {"name": "canonical: deduplicated by source instead of canonical id", "task": 3,
     "replace": [("        key = chunk.canonical_id or chunk.id\n", "        key = chunk.source\n"),
                 ("winner = chosen[chunk.canonical_id or chunk.id]", "winner = chosen[chunk.source]")]},
    {"name": "canonical: chunks without a canonical id collapse by source", "task": 3,
     "replace": [("        key = chunk.canonical_id or chunk.id\n", "        key = chunk.canonical_id or chunk.source\n"),
                 ("winner = chosen[chunk.canonical_id or chunk.id]", "winner = chosen[chunk.canonical_id or chunk.source]")]},
    {"name": "overlap: adjacent ranges treated as overlapping", "task": 4,
     "replace": [("a.start_line <= b.end_line and b.start_line <= a.end_line",
                  "a.start_line <= b.end_line + 1 and b.start_line <= a.end_line + 1")]},
    {"name": "overlap: end lines treated as exclusive", "task": 4,
     "replace": [("a.start_line <= b.end_line and b.start_line <= a.end_line",
                  "a.start_line < b.end_line and b.start_line < a.end_line")]},
    {"name": "overlap: only one direction checked", "task": 4,
     "replace": [("a.start_line <= b.end_line and b.start_line <= a.end_line",
                  "a.start_line <= b.start_line <= a.end_line")]},
    {"name": "overlap: the file is ignored", "task": 4,
     "replace": [("return a.source == b.source and a.start_line", "return a.start_line")]},
    {"name": "select: input order instead of score order", "task": 5,
     "replace": [("for chunk in sorted(chunks, key=lambda c: (-c.score, c.id)):", "for chunk in chunks:")]},
    {"name": "select: ties keep their input order (no tie-break)", "task": 5,
     "replace": [("sorted(chunks, key=lambda c: (-c.score, c.id))", "sorted(chunks, key=lambda c: -c.score)")]},
    {"name": "select: lowest score first", "task": 5,
     "replace": [("sorted(chunks, key=lambda c: (-c.score, c.id))", "sorted(chunks, key=lambda c: (c.score, c.id))")]},
    {"name": "select: the reason names the last overlapping chunk", "task": 5,
     "replace": [("clash = next((kept for kept in selected if lines_overlap(kept, chunk)), None)",
                  "clash = next((kept for kept in reversed(selected) if lines_overlap(kept, chunk)), None)")]},
    {"name": "select: the reason names the rejected chunk itself", "task": 5,
     "replace": [("rejected[chunk.id] = f\"overlapping_lines_with:{clash.id}\"",
                  "rejected[chunk.id] = f\"overlapping_lines_with:{chunk.id}\"")]},
    {"name": "quiz: three chunks are stronger evidence", "task": 6,
     "replace": [('CANONICAL_QUIZ = "c"', 'CANONICAL_QUIZ = "a"')]},
]
