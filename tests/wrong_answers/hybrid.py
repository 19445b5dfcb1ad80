"""Plausible wrong answers to lesson 07's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "a bare number is assumed to be millimetres", "task": 1,
     "replace": [('    if unit is None:\n        return "clarify", None\n', '    unit = unit or "mm"\n')]},
    {"name": "inches are not converted", "task": 1,
     "replace": [('return "ready", to_mm(number, unit)', 'return "ready", to_mm(number, "mm")')]},
    {"name": "float arithmetic instead of exact decimals", "task": 1,
     "replace": [('return "ready", to_mm(number, unit)',
                  'return "ready", str(float(number) * (25.4 if unit == "inch" else 1))')]},
    {"name": "the first of two sizes wins", "task": 1,
     "replace": [('    if len(sizes) > 1:\n        return "failed", None\n', '')]},
    {"name": "a unit glued to the number is missed", "task": 1,
     "replace": [("unit = UNIT_WORDS.get(glued) if glued else UNIT_WORDS.get(after)",
                  "unit = UNIT_WORDS.get(after)")]},
    {"name": "any word after a number counts as a unit (mm assumed)", "task": 1,
     "replace": [("unit = UNIT_WORDS.get(glued) if glued else UNIT_WORDS.get(after)",
                  'unit = UNIT_WORDS.get(glued or after, "mm")')]},
    {"name": "a point at the start of a number accepted ('.5')", "task": 1,
     "replace": [(' or number[0] == ".":', ":")]},
    {"name": "a point glued between number and unit ignored ('16.mm' read as 16 mm)", "task": 1,
     "replace": [("glued = word[len(number):]", 'glued = word[len(number):].lstrip(".")')]},
    {"name": "a full stop kept on the word (a size at the end of a sentence is lost)", "task": 1,
     "replace": [('words = [word.rstrip(".;:!?") for word in text.lower().replace(",", " ").split()]',
                  'words = text.lower().replace(",", " ").split()')]},
    {"name": "a number with several points accepted", "task": 1,
     "replace": [('not number.replace(".", "", 1).isdigit()', 'not number.replace(".", "").isdigit()')]},
    {"name": "the lesson's parse_diameter pasted in: fractions not read", "task": 1,
     "replace": [('        if slash:   # an imperial fraction', '        if False:   # an imperial fraction')]},
    {"name": "any denominator accepted", "task": 1,
     "replace": [('below in ("2", "4", "8", "16", "32", "64")', 'below.isdigit() and below != "0"')]},
    {"name": "a fraction read as its numerator", "task": 1,
     "replace": [("            value = str(Decimal(int(above)) / Decimal(int(below)))", "            value = above")]},
    {"name": "a fraction read as two numbers", "task": 1,
     "replace": [("            value = str(Decimal(int(above)) / Decimal(int(below)))",
                  "            sizes.append((above, None))\n            value = below")]},
    {"name": "ranks counted from 0", "task": 2,
     "replace": [("for rank, item in enumerate(ranking, start=1):", "for rank, item in enumerate(ranking):")]},
    {"name": "items missing from one ranking are dropped", "task": 2,
     "replace": [("    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))\n    # END SOLUTION\n\n\n"
                  "def fuse_by_cluster",
                  "    everywhere = {i for i in scores if all(i in r for r in rankings)}\n"
                  "    return sorted(((i, s) for i, s in scores.items() if i in everywhere), "
                  "key=lambda pair: (-pair[1], pair[0]))\n    # END SOLUTION\n\n\ndef fuse_by_cluster")]},
    {"name": "k is fixed at 60", "task": 2,
     "replace": [("scores.get(item, 0.0) + weight / (k + rank)", "scores.get(item, 0.0) + weight / (60 + rank)")]},
    {"name": "the lesson's reciprocal_rank_fusion pasted in: weights ignored", "task": 2,
     "replace": [("scores.get(item, 0.0) + weight / (k + rank)", "scores.get(item, 0.0) + 1.0 / (k + rank)")]},
    {"name": "the weight added to the rank term instead of multiplying it", "task": 2,
     "replace": [("scores.get(item, 0.0) + weight / (k + rank)", "scores.get(item, 0.0) + weight + 1.0 / (k + rank)")]},
    {"name": "the weight divides the rank instead (a heavier channel counts less)", "task": 2,
     "replace": [("scores.get(item, 0.0) + weight / (k + rank)", "scores.get(item, 0.0) + 1.0 / (k + rank * weight)")]},
    {"name": "fewer weights than rankings silently drop a ranking", "task": 2,
     "replace": [("    if len(weights) != len(rankings):\n", "    if len(weights) > len(rankings):\n")]},
    {"name": "a weight of 0 accepted", "task": 2,
     "replace": [("        if not weight > 0:\n", "        if weight < 0:\n")]},
    {"name": "an id twice in one ranking counted twice", "task": 2,
     "replace": [("        if len(set(ranking)) != len(ranking):\n", "        if False:\n")]},
    {"name": "lowest total first", "task": 2,
     "replace": [("key=lambda pair: (-pair[1], pair[0]))\n    # END SOLUTION\n\n\ndef fuse_by_cluster",
                  "key=lambda pair: (pair[1], pair[0]))\n    # END SOLUTION\n\n\ndef fuse_by_cluster")]},
    {"name": "ties keep the order they were met in", "task": 2,
     "replace": [("key=lambda pair: (-pair[1], pair[0]))\n    # END SOLUTION\n\n\ndef fuse_by_cluster",
                  "key=lambda pair: -pair[1])\n    # END SOLUTION\n\n\ndef fuse_by_cluster")]},
    {"name": "a set accepted as a ranking (its order depends on the hash seed)", "task": 2,
     "replace": [("        if isinstance(ranking, (set, frozenset)):\n"
                  "            raise TypeError(f\"a ranking must be a list or tuple, got {type(ranking).__name__}\")\n", "")]},
    {"name": "a set turned into a sorted list instead of refused", "task": 2,
     "replace": [("            raise TypeError(f\"a ranking must be a list or tuple, got {type(ranking).__name__}\")\n",
                  "            ranking = sorted(ranking)\n")]},
    {"name": "k = 0 accepted", "task": 2,
     "replace": [("    if k < 1:\n", "    if k < 0:\n")]},
    {"name": "the raw scores are added instead of ranks", "task": 3,
     "replace": [("    return reciprocal_rank_fusion(rankings, k)\n",
                  "    totals = {}\n"
                  "    for hits in channel_hits.values():\n"
                  "        best = {}\n"
                  "        for listing_id, raw in hits:\n"
                  "            best.setdefault(cluster_of[listing_id], raw)\n"
                  "        for cluster, raw in best.items():\n"
                  "            totals[cluster] = totals.get(cluster, 0.0) + raw\n"
                  "    return sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))\n")]},
    {"name": "the lesson's fusion pasted in: every cluster votes, no window", "task": 3,
     "replace": [("        rankings.append(ranking[:depth])", "        rankings.append(ranking)")]},
    {"name": "the window counts listings, so a copy takes a place in it", "task": 3,
     "replace": [("        for listing_id, _raw_score in hits:\n            cluster = cluster_of[listing_id]",
                  "        for listing_id, _raw_score in hits[:depth]:\n            cluster = cluster_of[listing_id]")]},
    {"name": "the window one cluster short", "task": 3,
     "replace": [("        rankings.append(ranking[:depth])", "        rankings.append(ranking[:depth - 1])")]},
    {"name": "a window of 0 accepted", "task": 3,
     "replace": [("    if depth < 1:\n", "    if depth < 0:\n")]},
    {"name": "deduplicated by display id, not by cluster", "task": 3,
     "replace": [("            cluster = cluster_of[listing_id]\n", "            cluster = listing_id\n")]},
    {"name": "a copy keeps its own rank slot", "task": 3,
     "replace": [("            if cluster not in seen:\n                seen.add(cluster)\n                ranking.append(cluster)\n",
                  "            ranking.append(cluster)\n")]},
    {"name": "a copy is dropped but still takes up a rank", "task": 3,
     "replace": [("            if cluster not in seen:\n                seen.add(cluster)\n                ranking.append(cluster)\n",
                  "            if cluster not in seen:\n                seen.add(cluster)\n                ranking.append(cluster)\n"
                  "            else:\n                ranking.append(cluster + ' (copy)')\n")]},
    {"name": "quiz: the sum is not a probability", "task": 4,
     "replace": [('RAW_SCORES_QUIZ = "c"', 'RAW_SCORES_QUIZ = "b"')]},
    {"name": "quiz: higher-is-better is enough", "task": 4,
     "replace": [('RAW_SCORES_QUIZ = "c"', 'RAW_SCORES_QUIZ = "a"')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
EQUIVALENT_MUTANTS = [
    {"where": "parse_size", "before": 'number = word.rstrip("abcdefghijklmnopqrstuvwxyz").rstrip(".-")',
     "after": "number = word.rstrip('XXabcdefghijklmnopqrstuvwxyzXX').rstrip(\".-\")",
     "why": "the words come from text.lower(), which leaves no upper-case 'X' in them, so also stripping 'X' "
            "strips nothing more"},
    {"where": "parse_size", "before": 'number = word.rstrip("abcdefghijklmnopqrstuvwxyz").rstrip(".-")',
     "after": "number = word.rstrip(\"abcdefghijklmnopqrstuvwxyz\").rstrip('XX.-XX')",
     "why": "the words come from text.lower(), which leaves no upper-case 'X' in them, so also stripping 'X' "
            "strips nothing more"},
    {"where": "parse_size",
     "before": 'words = [word.rstrip(".;:!?") for word in text.lower().replace(",", " ").split()]',
     "after": "words = [word.rstrip('XX.;:!?XX') for word in text.lower().replace(\",\", \" \").split()]",
     "why": "the words come from text.lower(), which leaves no upper-case 'X' in them, so also stripping 'X' "
            "strips nothing more"},
    {"where": "parse_size", "before": 'after = words[index + 1] if index + 1 < len(words) else ""',
     "after": "after = words[index + 1] if index + 1 < len(words) else 'XXXX'",
     "why": "`after` is only looked up in UNIT_WORDS, which has neither '' nor 'XXXX' as a key: the last word "
            "gets unit None either way"},
    {"where": "parse_size", "before": "number, unit = sizes[0]", "after": "number, unit = sizes[-1]",
     "why": "this line runs only after an empty list and a list of more than one have returned, so sizes holds "
            "exactly one pair and sizes[0] is sizes[-1]"},
]

# Task 5 (appended: query design)
WRONG_ANSWERS += [
    {"name": "a hyphen between number and unit drops the size", "task": 1,
     "replace": [('.rstrip(".-")', '.rstrip(".")')]},
    {"name": "the step's pairs in the alias table's order", "task": 5,
     "replace": [('", ".join(f"{word} -> {aliases[word]}" for word in found)',
                  '", ".join(f"{word} -> {term}" for word, term in aliases.items() if word in original)')]},
    {"name": "aliases overwrite the original", "task": 5,
     "replace": [('    return {"original": original, "terms": new,', '    return {"original": new, "terms": new,')]},
    {"name": "aliased terms kept unsorted with repeats", "task": 5,
     "replace": [("    new = tuple(sorted({aliases.get(word, word) for word in original}))",
                  "    new = tuple(aliases.get(word, word) for word in original)")]},
    {"name": "aliases by substring", "task": 5,
     "replace": [("    found = [word for word in original if word in aliases]\n"
                  "    new = tuple(sorted({aliases.get(word, word) for word in original}))",
                  "    found = [word for word in original if any(key in word for key in aliases)]\n"
                  "    new = tuple(sorted({next((v for k, v in aliases.items() if k in word), word) "
                  "for word in original}))")]},
    {"name": "the step without its version", "task": 5,
     "replace": [('    step = ("aliases", version, " ".join(original),', '    step = ("aliases", "aliases", " ".join(original),')]},
    {"name": "gained and lost swapped", "task": 5,
     "replace": [('"gained": sorted(after - before),\n            "lost": sorted(before - after)}',
                  '"gained": sorted(before - after),\n            "lost": sorted(after - before)}')]},
    {"name": "gained counts every candidate after", "task": 5,
     "replace": [('"gained": sorted(after - before)', '"gained": sorted(after)')]},
    {"name": "a set returned for gained (its order follows the hash seed)", "task": 5,
     "replace": [('"gained": sorted(after - before)', '"gained": after - before')]},
    {"name": "predict: the withheld neighbour still takes vector rank 1", "task": 6,
     "replace": [('PW_Q002_FIRST_CLUSTER = ("C-01", (1, 1, 2))', 'PW_Q002_FIRST_CLUSTER = ("C-01", (1, 1, 3))')]},
    {"name": "predict: the display id instead of the cluster", "task": 6,
     "replace": [('PW_Q002_FIRST_CLUSTER = ("C-01", (1, 1, 2))', 'PW_Q002_FIRST_CLUSTER = ("PW-L001", (1, 1, 2))')]},
    {"name": "predict: the copy PW-L002 counted at its own rank", "task": 6,
     "replace": [('PW_Q002_FIRST_CLUSTER = ("C-01", (1, 1, 2))', 'PW_Q002_FIRST_CLUSTER = ("C-01", (1, 1, 4))')]},
    {"name": "the original terms and the new ones both searched as one", "task": 5,
     "replace": [("    before, after = set(search(original)), set(search(new))",
                  "    before, after = set(search(original)), set(search(original + new))")]},
]
