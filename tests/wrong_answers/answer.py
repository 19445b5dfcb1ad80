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

    # Task 2: compose_answer
    {"name": "support compared without case", "task": 1,
     "replace": [('quote in source', 'quote.lower() in source.lower()')]},
    {"name": "support compared with spaces squeezed", "task": 1,
     "replace": [('quote in source', '" ".join(quote.split()) in " ".join(source.split())')]},
    {"name": "sentences split at every '.', 8.30 too", "task": 2,
     "replace": [('re.split(r"(?<=[.!?])\\s+", passage.text)',
                  '[s.strip() for s in re.split(r"(?<=[.!?])", passage.text) if s.strip()]')]},
    {"name": "full answer when a facet is missing", "task": 2,
     "replace": [('status = "conflict" if disputed else ("partial" if missing else "full")',
                  'status = "conflict" if disputed else "full"')]},
    {"name": "abstain as soon as anything is missing", "task": 2,
     "replace": [("    if not sentences:  # nothing answered and nothing disputed\n", "    if missing and not disputed:\n")]},
    {"name": "pick the first-ranked hours in a conflict", "task": 2,
     "replace": [("        else:\n            disputed.append(facet.name)\n",
                  "        elif True:\n            quote, p = next(iter(by_quote.items()))\n"
                  "            sentences.append(Sentence(\"claim\", quote, quote, p.id))\n"
                  "        else:\n            disputed.append(facet.name)\n")]},
    {"name": "pick the largest version label in a conflict", "task": 2,
     "replace": [("        else:\n            disputed.append(facet.name)\n",
                  "        elif True:\n            quote, p = max(by_quote.items(), key=lambda item: item[1].version)\n"
                  "            sentences.append(Sentence(\"claim\", quote, quote, p.id))\n"
                  "        else:\n            disputed.append(facet.name)\n")]},
    {"name": "fill a missing facet from outside the packet", "task": 2,
     "replace": [("        if not by_quote:\n            missing.append(facet.name)\n",
                  "        if not by_quote:\n            from modules.answer import CORPUS\n"
                  "            by_quote = {p.text: p for p in CORPUS.values() if covers(facet, p.text)}\n"
                  "            by_quote = dict(list(by_quote.items())[:1])\n"
                  "        if not by_quote:\n            missing.append(facet.name)\n")]},
    {"name": "quote rewritten instead of repeated", "task": 2,
     "replace": [('sentences.append(Sentence("claim", quote, quote, p.id))',
                  'sentences.append(Sentence("claim", p.title + ": " + quote, p.title + ": " + quote, p.id))')]},
    {"name": "the lab's answer: the whole passage quoted", "task": 2,
     "replace": [('quote = next((s for s in re.split(r"(?<=[.!?])\\s+", passage.text) if covers(facet, s)), None)',
                  'quote = passage.text if covers(facet, passage.text) else None')]},
    {"name": "the whole passage quoted when one sentence answers", "task": 2,
     "replace": [('            if quote is not None and quote not in by_quote:\n                by_quote[quote] = passage\n',
                  '            if quote is not None and passage.text not in by_quote:\n'
                  '                by_quote[passage.text] = passage\n')]},
    {"name": "the last answering sentence quoted, not the first", "task": 2,
     "replace": [('quote = next((s for s in re.split(r"(?<=[.!?])\\s+", passage.text) if covers(facet, s)), None)',
                  'quote = next((s for s in reversed(re.split(r"(?<=[.!?])\\s+", passage.text)) if covers(facet, s)), None)')]},
    {"name": "sentences split on '.' alone, so 'Welcome!' stays attached", "task": 2,
     "replace": [('re.split(r"(?<=[.!?])\\s+", passage.text)', 're.split(r"(?<=[.])\\s+", passage.text)')]},
    {"name": "gap sentences before the claims", "task": 2,
     "replace": [('        if not by_quote:\n            missing.append(facet.name)\n',
                  '        if not by_quote:\n            missing.append(facet.name)\n'
                  '            sentences.insert(0, Sentence("gap", f"The packet holds nothing on {facet.name}."))\n'),
                 ('    for name in missing:\n        sentences.append(Sentence("gap", f"The packet holds nothing on {name}."))\n',
                  '    if all(s.kind == "gap" for s in sentences):\n        sentences = []\n'
                  '    if not sentences:\n        return Answer("abstain", (Sentence("abstain", f"Nothing in the packet on '
                  '{\' or \'.join(missing)}."),), tuple(missing), ())\n')]},
    {"name": "identical quotes from two ids treated as a conflict", "task": 2,
     "replace": [("            if quote is not None and quote not in by_quote:\n                by_quote[quote] = passage\n",
                  "            if quote is not None:\n                by_quote[passage.id] = passage\n")]},
    {"name": "gap sentence does not say what is missing", "task": 2,
     "replace": [('sentences.append(Sentence("gap", f"The packet holds nothing on {name}."))',
                  'sentences.append(Sentence("gap", "Part of the question is not answered."))')]},
    {"name": "disputed versions shown without their source", "task": 2,
     "replace": [('sentences.append(Sentence("disputed", f"{p.source_id} version {p.version} says: {quote}", quote, p.id))',
                  'sentences.append(Sentence("disputed", quote, quote, p.id))')]},
    {"name": "plain text match, no Unicode normalisation", "task": 2,
     "replace": [('if covers(facet, s)), None)',
                  'if all(t in s.lower() for t in facet.terms)), None)')]},

    # Task 3: classify_outcome
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
    {"name": "the lab's outcomes: an uncited claim is a wrong source", "task": 3,
     "replace": [("    if not all(claims):\n        return \"uncited\"\n", "")]},
    {"name": "uncited only when no claim cites anything", "task": 3,
     "replace": [("    if not all(claims):\n", "    if not any(claims):\n")]},
    {"name": "an uncited claim beside the gold one still counts as right", "task": 3,
     "replace": [("    if not all(claims):\n        return \"uncited\"\n    if gold_id in claims:\n        return \"right\"\n",
                  "    if gold_id in claims:\n        return \"right\"\n    if not all(claims):\n        return \"uncited\"\n")]},
    {"name": "uncited decided before the status", "task": 3,
     "replace": [("    if answer.status in (\"abstain\", \"conflict\") or not claims:\n        return \"no_answer\"\n"
                  "    if not all(claims):\n        return \"uncited\"\n",
                  "    if claims and not all(claims):\n        return \"uncited\"\n"
                  "    if answer.status in (\"abstain\", \"conflict\") or not claims:\n        return \"no_answer\"\n")]},

    # Quizzes
    {"name": "quiz: a citation proves correctness", "task": 4,
     "replace": [('CITATION_QUIZ = "d"', 'CITATION_QUIZ = "a"')]},
    {"name": "quiz: the check measures ranking", "task": 4,
     "replace": [('CITATION_QUIZ = "d"', 'CITATION_QUIZ = "b"')]},
    {"name": "quiz: drop the citation check", "task": 4,
     "replace": [('CITATION_QUIZ = "d"', 'CITATION_QUIZ = "c"')]},
    {"name": "quiz: the larger label wins", "task": 5, "replace": [('CONFLICT_QUIZ = "a"', 'CONFLICT_QUIZ = "b"')]},
    {"name": "quiz: a conflict alone means abstain", "task": 5, "replace": [('CONFLICT_QUIZ = "a"', 'CONFLICT_QUIZ = "c"')]},
    {"name": "quiz: fill the missing part from the packet", "task": 5, "replace": [('CONFLICT_QUIZ = "a"', 'CONFLICT_QUIZ = "d"')]},

    # Task 6: cause_by_facet
    {"name": "the lab's function: one cause for the whole answer", "task": 6,
     "replace": [("    causes = {}\n    for facet in facets:\n",
                  "    if not fits_window:\n        return \"window overflow\"\n    causes = {}\n    for facet in facets:\n")]},
    {"name": "every unanswered facet after a skip is an overflow", "task": 6,
     "replace": [('causes[facet.name] = "budget skip" if skip else "missing facet"',
                  'causes[facet.name] = "window overflow" if skip else "missing facet"')]},
    {"name": "any skipped passage means a budget skip", "task": 6,
     "replace": [("            skip = any(covers(facet, p.text) for p in skipped)\n", "            skip = bool(skipped)\n")]},
    {"name": "answered facets get a cause too", "task": 6,
     "replace": [("        elif facet.name in answer.missing:\n", "        else:\n")]},
    {"name": "a conflict answer's every facet is 'conflict'", "task": 6,
     "replace": [("        elif facet.name in answer.disputed:\n", "        elif answer.status == \"conflict\":\n")]},
    {"name": "budget before conflict", "task": 6,
     "replace": [("        elif facet.name in answer.disputed:\n            causes[facet.name] = \"conflict\"\n"
                  "        elif facet.name in answer.missing:\n",
                  "        elif facet.name in answer.missing:\n")]},
    {"name": "window checked last", "task": 6,
     "replace": [("        if not fits_window:\n            causes[facet.name] = \"window overflow\"\n"
                  "        elif facet.name in answer.disputed:\n",
                  "        if facet.name in answer.disputed:\n")]},
    {"name": "no-answer named only as an abstention", "task": 6,
     "replace": [('"budget skip" if skip else "missing facet"', '"budget skip" if skip else "abstention"')]},

    # Task 7: the prediction
    {"name": "predict: the two lengths without the packing (91 + 100 - 1)", "task": 7,
     "replace": [("SMALLEST_FULL_BUDGET = 191", "SMALLEST_FULL_BUDGET = 190")]},
    {"name": "predict: the larger of the two passages", "task": 7,
     "replace": [("SMALLEST_FULL_BUDGET = 191", "SMALLEST_FULL_BUDGET = 100")]},
    {"name": "predict: the budget the lesson shows", "task": 7,
     "replace": [("SMALLEST_FULL_BUDGET = 191", "SMALLEST_FULL_BUDGET = 400")]},
]
