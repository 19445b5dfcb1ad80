"""Plausible wrong answers to lesson 10's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "support means presence", "task": 1,
     "replace": [("    supported = bool(quote) and isinstance(source, str) and quote in source\n    return present",
                  "    supported = present\n    return present")]},
    {"name": "quote checked against any source", "task": 1,
     "replace": [("    supported = bool(quote) and isinstance(source, str) and quote in source\n    return present",
                  "    supported = bool(quote) and any(quote in text for text in source_texts.values())\n"
                  "    return present")]},
    {"name": "unknown id raises KeyError", "task": 1,
     "replace": [("    source = source_texts.get(cite)\n", "    source = source_texts[cite]\n")]},
    {"name": "empty quote counts as support", "task": 1,
     "replace": [("supported = bool(quote) and isinstance(source, str) and quote in source",
                  "supported = isinstance(source, str) and quote in source")]},
    {"name": "presence by substring of the ids", "task": 1,
     "replace": [("    present = cite in set(packet_ids)\n", "    present = cite in ' '.join(packet_ids)\n")]},
    {"name": "cites an id outside the packet", "task": 1,
     "replace": [("    present = cite in set(packet_ids)\n", "    present = cite in source_texts\n")]},
    {"name": "full answer when a facet is missing", "task": 2,
     "replace": [('status = "conflict" if disputed else ("partial" if missing else "full")',
                  'status = "conflict" if disputed else "full"')]},
    {"name": "abstain as soon as anything is missing", "task": 2,
     "replace": [("    if not sentences:  # nothing answered and nothing disputed\n", "    if missing and not disputed:\n")]},
    {"name": "pick the first-ranked hours in a conflict", "task": 2,
     "replace": [("        else:\n            disputed.append(facet.name)\n",
                  "        elif True:\n"
                  "            sentences.append(Sentence(\"claim\", found[0].text, found[0].text, found[0].id))\n"
                  "        else:\n            disputed.append(facet.name)\n")]},
    {"name": "pick the largest version label in a conflict", "task": 2,
     "replace": [("        else:\n            disputed.append(facet.name)\n",
                  "        elif True:\n            p = max(found, key=lambda q: q.version)\n"
                  "            sentences.append(Sentence(\"claim\", p.text, p.text, p.id))\n"
                  "        else:\n            disputed.append(facet.name)\n")]},
    {"name": "fill a missing facet from outside the packet", "task": 2,
     "replace": [("        if not found:\n            missing.append(facet.name)\n",
                  "        if not found:\n            from modules.answer import CORPUS\n"
                  "            found = [p for p in CORPUS.values() if covers(facet, p.text)][:1]\n"
                  "        if not found:\n            missing.append(facet.name)\n")]},
    {"name": "quote rewritten instead of repeated", "task": 2,
     "replace": [('sentences.append(Sentence("claim", p.text, p.text, p.id))',
                  'sentences.append(Sentence("claim", p.title + ": " + p.text, p.title + ": " + p.text, p.id))')]},
    {"name": "identical copies treated as a conflict", "task": 2,
     "replace": [("            if covers(facet, passage.text) and passage.text not in by_text:\n"
                  "                by_text[passage.text] = passage\n",
                  "            if covers(facet, passage.text):\n                by_text[passage.id] = passage\n")]},
    {"name": "gap sentence does not say what is missing", "task": 2,
     "replace": [('sentences.append(Sentence("gap", f"The packet holds nothing on {name}."))',
                  'sentences.append(Sentence("gap", "Part of the question is not answered."))')]},
    {"name": "disputed versions shown without their source", "task": 2,
     "replace": [('sentences.append(Sentence("disputed", f"{p.source_id} version {p.version} says: {p.text}", p.text, p.id))',
                  'sentences.append(Sentence("disputed", p.text, p.text, p.id))')]},
    {"name": "a conflict answer counts when it cites the gold record", "task": 3,
     "replace": [('claims = [s.cite for s in answer.sentences if s.kind == "claim"]\n'
                  '    if answer.status in ("abstain", "conflict") or not claims:',
                  'claims = [s.cite for s in answer.sentences if s.cite]\n'
                  '    if answer.status == "abstain" or not claims:')]},
    {"name": "same source counts as right", "task": 3,
     "replace": [("        return \"wrong_record\"\n", "        return \"right\"\n")]},
    {"name": "no wrong-record case", "task": 3,
     "replace": [("        return \"wrong_record\"\n", "        return \"wrong_source\"\n")]},
    {"name": "abstention counted as a wrong source", "task": 3,
     "replace": [("    if answer.status in (\"abstain\", \"conflict\") or not claims:\n        return \"no_answer\"\n",
                  "    if answer.status == \"conflict\":\n        return \"no_answer\"\n")]},
    {"name": "quiz: a citation proves correctness", "task": 4,
     "replace": [('CITATION_QUIZ = "c"', 'CITATION_QUIZ = "a"')]},
    {"name": "quiz: the larger label wins", "task": 5, "replace": [('CONFLICT_QUIZ = "b"', 'CONFLICT_QUIZ = "a"')]},
    {"name": "plain text match, no Unicode normalisation", "task": 2,
     "replace": [("            if covers(facet, passage.text) and passage.text not in by_text:\n",
                  "            if all(t in passage.text.lower() for t in facet.terms) and passage.text not in by_text:\n")]},
    {"name": "every abstention after a skip is an overflow", "task": 6,
     "replace": [("            return \"budget skip\"\n", "            return \"window overflow\"\n")]},
    {"name": "any skipped passage means a budget skip", "task": 6,
     "replace": [("        if facet.name in answer.missing and any(covers(facet, p.text) for p in skipped):",
                  "        if skipped:")]},
    {"name": "skipped passage counted for a facet that is not missing", "task": 6,
     "replace": [("        if facet.name in answer.missing and any(covers(facet, p.text) for p in skipped):",
                  "        if any(covers(facet, p.text) for p in skipped):")]},
    {"name": "budget before conflict", "task": 6,
     "replace": [("    if answer.status == \"conflict\":\n        return \"conflict\"\n"
                  "    for facet in facets:\n"
                  "        if facet.name in answer.missing and any(covers(facet, p.text) for p in skipped):\n"
                  "            return \"budget skip\"\n",
                  "    for facet in facets:\n"
                  "        if facet.name in answer.missing and any(covers(facet, p.text) for p in skipped):\n"
                  "            return \"budget skip\"\n"
                  "    if answer.status == \"conflict\":\n        return \"conflict\"\n")]},
    {"name": "window checked last", "task": 6,
     "replace": [("    if not fits_window:\n        return \"window overflow\"\n    if answer.status == \"conflict\":\n"
                  "        return \"conflict\"\n",
                  "    if answer.status == \"conflict\":\n        return \"conflict\"\n")
                 , ("    return \"missing facet\"\n",
                    "    if not fits_window:\n        return \"window overflow\"\n    return \"missing facet\"\n")]},
    {"name": "no-answer named only as an abstention", "task": 6,
     "replace": [("    return \"missing facet\"\n", "    return \"abstention\"\n")]},
]
