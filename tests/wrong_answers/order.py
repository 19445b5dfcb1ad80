"""Plausible wrong answers to lesson 05's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once. The
entries named "the lesson's own ..." paste in the function of modules/order that the task
starts from: the task must ask for more than it does.
"""

_REORDER = ("    items = list(items)\n    first_strong = items[0::2] + items[1::2][::-1]\n"
            "    return first_strong if first_weight >= last_weight else first_strong[::-1]\n")
_PLACE = ("    return others[:position - 1] + [good] + others[position - 1:]\n")
_CLASSIFY_LOOP = ("        if first == right:\n            counts[\"lost\"] += 1\n"
                  "        elif second == right:\n            counts[\"gained\"] += 1\n"
                  "        else:\n            counts[\"other\"] += 1\n")

WRONG_ANSWERS = [
    {"name": "the lesson's own reorder_lost_in_middle: ignores the weights", "task": 1,
     "replace": [(_REORDER, "    from modules.order import reorder_lost_in_middle\n"
                            "    return reorder_lost_in_middle(items)\n")]},
    {"name": "the parity variant for a stronger end (right for even counts only)", "task": 1,
     "replace": [(_REORDER, "    from modules.order import reorder_lost_in_middle, reorder_parity_variant\n"
                            "    if first_weight >= last_weight:\n"
                            "        return reorder_lost_in_middle(items)\n"
                            "    return reorder_parity_variant(items)\n")]},
    {"name": "equal weights send the best last", "task": 1,
     "replace": [("first_weight >= last_weight else", "first_weight > last_weight else")]},
    {"name": "weights compared the wrong way", "task": 1,
     "replace": [("first_weight >= last_weight else", "first_weight <= last_weight else")]},
    {"name": "the input reversed instead of the placed order", "task": 1,
     "replace": [(_REORDER, "    items = list(items)\n    if first_weight < last_weight:\n"
                            "        items = items[::-1]\n    return items[0::2] + items[1::2][::-1]\n")]},
    {"name": "back half not reversed", "task": 1,
     "replace": [("first_strong = items[0::2] + items[1::2][::-1]", "first_strong = items[0::2] + items[1::2]")]},
    {"name": "a weight given as text picks an edge", "task": 1,
     "replace": [("        if isinstance(weight, bool) or not isinstance(weight, (int, float)):\n"
                  "            raise TypeError(f\"{name} must be a number, got {type(weight).__name__} {weight!r}\")\n",
                  "        pass\n")]},
    {"name": "correct order, quadratic insert loop", "task": 1,
     "replace": [(_REORDER, "    front, back = [], []\n"
                            "    for rank, item in enumerate(items):\n"
                            "        if rank % 2 == 0:\n"
                            "            front.append(item)\n"
                            "        else:\n"
                            "            back.insert(0, item)\n"
                            "    first_strong = front + back\n"
                            "    return first_strong if first_weight >= last_weight else first_strong[::-1]\n")]},
    {"name": "reorders the caller's list in place", "task": 1,
     "replace": [(_REORDER, "    placed = items[0::2] + items[1::2][::-1]\n"
                            "    items[:] = placed if first_weight >= last_weight else placed[::-1]\n"
                            "    return items\n")]},
    {"name": "the lesson's own build_layout: only head, middle and tail", "task": 2,
     "replace": [(_PLACE, "    from modules.order import build_layout\n"
                          "    layout = \"head\" if position == 1 else \"tail\" if position == len(others) + 1 else \"middle\"\n"
                          "    return build_layout(good, others, layout)\n")]},
    {"name": "position counted from 0", "task": 2,
     "replace": [(_PLACE, "    return others[:position] + [good] + others[position:]\n")]},
    {"name": "out-of-range positions clamped to an edge", "task": 2,
     "replace": [("        raise ValueError(f\"position must be from 1 to {len(others) + 1}, got {position}\")\n",
                  "        position = min(max(position, 1), len(others) + 1)\n")]},
    {"name": "True accepted as position 1", "task": 2,
     "replace": [("    if isinstance(position, bool) or not isinstance(position, int):",
                  "    if not isinstance(position, int):")]},
    {"name": "inserts into the caller's list", "task": 2,
     "replace": [("    others = list(bad)\n", "    others = bad if isinstance(bad, list) else list(bad)\n"),
                 (_PLACE, "    others.insert(position - 1, good)\n    return others\n")]},
    {"name": "the lesson's own count_changes: every change as other", "task": 3,
     "replace": [("    counts = {\"lost\": 0, \"gained\": 0, \"other\": 0}\n",
                  "    from modules.order.mechanism import count_changes\n"
                  "    return {\"lost\": 0, \"gained\": 0, \"other\": count_changes(before, after)}\n"
                  "    counts = {\"lost\": 0, \"gained\": 0, \"other\": 0}\n")]},
    {"name": "lost and gained swapped", "task": 3,
     "replace": [("        if first == right:\n            counts[\"lost\"] += 1\n",
                  "        if first == right:\n            counts[\"gained\"] += 1\n"),
                 ("        elif second == right:\n            counts[\"gained\"] += 1\n",
                  "        elif second == right:\n            counts[\"lost\"] += 1\n")]},
    {"name": "compares codes, not chunks", "task": 3,
     "replace": [("    for first, second, right in zip(before, after, good):\n",
                  "    code = lambda c: getattr(c, \"code\", c)\n"
                  "    for first, second, right in zip(map(code, before), map(code, after), map(code, good)):\n")]},
    {"name": "overflows skipped", "task": 3,
     "replace": [("        if first == second:\n            continue\n",
                  "        if first == second or first is None or second is None:\n            continue\n")]},
    {"name": "unchanged good picks counted as kept-lost", "task": 3,
     "replace": [("        if first == second:\n            continue\n", "")]},
    {"name": "zip truncates unequal runs", "task": 3,
     "replace": [("    if not len(before) == len(after) == len(good):\n", "    if False:\n")]},
    {"name": "no pairs gives zeros", "task": 3,
     "replace": [("        raise ValueError(\"before must not be empty\")\n    counts",
                  "        pass\n    counts")]},
    {"name": "len() on runs given as generators", "task": 3,
     "replace": [("    before, after, good = list(before), list(after), list(good)\n", "")]},
    {"name": "the lesson's own order_effect: the first reseed only", "task": 4,
     "replace": [("    first = list(first)\n    runs = [list(reordered)]",
                  "    from modules.order import order_effect\n"
                  "    first = list(first)\n    if reseeded_runs:\n"
                  "        return order_effect(first, reordered, reseeded_runs[0])\n"
                  "    runs = [list(reordered)]")]},
    {"name": "the mean of the reseeds as the baseline", "task": 4,
     "replace": [("order_share, seed_share = shares[0], max(shares[1:])",
                  "order_share, seed_share = shares[0], sum(shares[1:]) / len(shares[1:])")]},
    {"name": "the smallest reseed as the baseline", "task": 4,
     "replace": [("order_share, seed_share = shares[0], max(shares[1:])",
                  "order_share, seed_share = shares[0], min(shares[1:])")]},
    {"name": "the last reseed as the baseline", "task": 4,
     "replace": [("order_share, seed_share = shares[0], max(shares[1:])",
                  "order_share, seed_share = shares[0], shares[-1]")]},
    {"name": ">= counts a tie with the baseline as an effect", "task": 4,
     "replace": [("exceeds=order_share > seed_share)", "exceeds=order_share >= seed_share)")]},
    {"name": "reseeds measured against the reordered run", "task": 4,
     "replace": [("    shares = [Fraction(sum(1 for a, b in zip(first, run) if a != b), len(first)) for run in runs]\n",
                  "    shares = [Fraction(sum(1 for a, b in zip(first, runs[0]) if a != b), len(first))] + [\n"
                  "        Fraction(sum(1 for a, b in zip(runs[0], run) if a != b), len(first)) for run in runs[1:]]\n")]},
    {"name": "no reseeded run gives no effect instead of an error", "task": 4,
     "replace": [("        raise ValueError(\"reseeded_runs must hold at least one run, got none\")\n",
                  "        return OrderEffect(order_share=Fraction(0), seed_share=Fraction(0), exceeds=False)\n")]},
    {"name": "first read twice as a generator", "task": 4,
     "replace": [("    first = list(first)\n    runs = [list(reordered)]", "    runs = [list(reordered)]"),
                 ("    if not first:\n        raise ValueError(\"first must not be empty\")\n"
                  "    if any(len(run) != len(first) for run in runs):\n",
                  "    if any(False for run in runs):\n")]},
    {"name": "the reordered run paired up with zip, its length never checked", "task": 4,
     "replace": [("    runs = [list(reordered)] + [list(run) for run in reseeded_runs]\n",
                  "    runs = [list(reordered)] + [list(run) for run in reseeded_runs]\n"
                  "    runs[0] = (runs[0] + first[len(runs[0]):])[:len(first)]\n")]},
    {"name": "shares as floats", "task": 4,
     "replace": [("    shares = [Fraction(sum(1 for a, b in zip(first, run) if a != b), len(first)) for run in runs]\n",
                  "    shares = [sum(1 for a, b in zip(first, run) if a != b) / len(first) for run in runs]\n")]},
    {"name": "predict: moving to the middle always changes some picks", "task": 5,
     "replace": [("J1_MIDDLE_CHANGE = 0.0", "J1_MIDDLE_CHANGE = 0.5")]},
    {"name": "predict: the run-to-run baseline at j = 2 taken for j = 1", "task": 5,
     "replace": [("J1_MIDDLE_CHANGE = 0.0", "J1_MIDDLE_CHANGE = 0.375")]},
    {"name": "predict: a boolean instead of a share", "task": 5,
     "replace": [("J1_MIDDLE_CHANGE = 0.0", "J1_MIDDLE_CHANGE = False")]},
    {"name": "quiz: position effects are an artefact of simulators", "task": 6,
     "replace": [('COPIER_QUIZ = "b"', 'COPIER_QUIZ = "a"')]},
    {"name": "quiz: the packet need not record its order", "task": 6,
     "replace": [('COPIER_QUIZ = "b"', 'COPIER_QUIZ = "c"')]},
    {"name": "quiz: a reorder is wasted work for every reader", "task": 6,
     "replace": [('COPIER_QUIZ = "b"', 'COPIER_QUIZ = "d"')]},
]
