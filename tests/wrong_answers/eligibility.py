"""Plausible wrong answers to lesson 08's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

_ORDER = '("prohibited_scope", "unauthorized", "incompatible", "conflict", "clarify", "degraded", "respond")'


def _swap(first: str, second: str) -> dict:
    """The precedence with two neighbouring states swapped."""
    swapped = _ORDER.replace(f'"{first}", "{second}"', f'"{second}", "{first}"')
    return {"name": f"precedence: {second} above {first}", "task": 1, "replace": [(_ORDER, swapped)]}


WRONG_ANSWERS = [
    _swap("prohibited_scope", "unauthorized"),
    _swap("unauthorized", "incompatible"),
    _swap("incompatible", "conflict"),
    _swap("conflict", "clarify"),
    _swap("clarify", "degraded"),
    {"name": "precedence: stale evidence treated as worse than a conflict", "task": 1,
     "replace": [(_ORDER, '("prohibited_scope", "unauthorized", "incompatible", "degraded", "conflict", "clarify", '
                          '"respond")')]},
    {"name": "the lesson's decide_state pasted in: the strongest matched state, usable evidence or not", "task": 1,
     "replace": [('    if usable:\n        return "degraded" if stale_left_out else "respond"\n', ""),
                 ('    return "incompatible"\n    # END', '    return "respond"\n    # END')]},
    {"name": "an unauthorized match blocks the answer (a denied neighbour refuses permitted evidence)", "task": 1,
     "replace": [("    if usable:\n", '    if usable and "unauthorized" not in given:\n')]},
    {"name": "nothing usable and nothing matched is answered", "task": 1,
     "replace": [('    return "incompatible"\n    # END', '    return "respond"\n    # END')]},
    {"name": "a stale price left out is ignored", "task": 1,
     "replace": [('        return "degraded" if stale_left_out else "respond"', '        return "respond"')]},
    {"name": "the last state given wins", "task": 1,
     "replace": [("    for state in order:\n        if state in given:\n            return state\n    return \"incompatible\"\n",
                  "    states = list(matched_states)\n    return states[-1] if states else \"incompatible\"\n")]},
    {"name": "unknown state names are ignored", "task": 1,
     "replace": [("            raise ValueError(f\"unknown state {state!r}\")\n", "            continue\n")]},
    {"name": "names checked only when nothing is usable", "task": 1,
     "replace": [("    given = set(matched_states)\n    for state in given:\n        if state not in order:\n"
                  "            raise ValueError(f\"unknown state {state!r}\")\n    if usable:\n"
                  "        return \"degraded\" if stale_left_out else \"respond\"\n",
                  "    if usable:\n        return \"degraded\" if stale_left_out else \"respond\"\n"
                  "    given = set(matched_states)\n    for state in given:\n        if state not in order:\n"
                  "            raise ValueError(f\"unknown state {state!r}\")\n")]},
    {"name": "the lesson's permission_gate pasted in: the seller is never asked", "task": 2,
     "replace": [('        elif seller == "denied":\n            reason = "SELLER_DENIED"\n'
                  '        elif seller != "allowed":\n            reason = "SELLER_UNKNOWN"\n', '')]},
    {"name": "a seller nobody listed passes", "task": 2,
     "replace": [('        elif seller != "allowed":', '        elif seller not in ("allowed", None):')]},
    {"name": "only a denied seller withholds", "task": 2,
     "replace": [('        elif seller != "allowed":', '        elif False:')]},
    {"name": "a suspended seller recorded as unknown", "task": 2,
     "replace": [('            reason = "SELLER_DENIED"', '            reason = "SELLER_UNKNOWN"')]},
    {"name": "the seller is checked before the listing", "task": 2,
     "replace": [('        if any(p != permissions[0] for p in permissions):',
                  '        if seller != "allowed":\n            reason = "SELLER_DENIED" if seller == "denied" else "SELLER_UNKNOWN"\n'
                  '        elif any(p != permissions[0] for p in permissions):')]},
    {"name": "seller permission compared without case", "task": 2,
     "replace": [("        seller = seller_permission.get(seller_of[listing_id]) if listing_id in seller_of else None\n",
                  "        seller = seller_permission.get(seller_of[listing_id]) if listing_id in seller_of else None\n"
                  "        seller = str(seller).strip().lower() if seller is not None else None\n")]},
    {"name": "unknown listing permission passes (only denied is withheld)", "task": 2,
     "replace": [('        elif permissions[0] != "allowed":\n            reason = "PERMISSION_UNKNOWN"\n', '')]},
    {"name": "withheld listings recorded by id", "task": 2,
     "replace": [("        withheld.append((opaque_ref(listing_id), reason))", "        withheld.append((listing_id, reason))")]},
    {"name": "of two copies that disagree, the later one wins", "task": 2,
     "replace": [('        given.setdefault(listing_id, []).append(permission)',
                  '        given[listing_id] = [permission]')]},
    {"name": "seller-withheld listings listed after the others", "task": 2,
     "replace": [("        withheld.append((opaque_ref(listing_id), reason))\n    return permitted, withheld\n",
                  "        withheld.append((opaque_ref(listing_id), reason))\n"
                  "    withheld.sort(key=lambda pair: pair[1].startswith(\"SELLER\"))\n    return permitted, withheld\n")]},
    {"name": "ranked first, filtered after", "task": 3,
     "replace": [("    return reciprocal_rank_fusion(filtered, k)\n    # END SOLUTION\n\n\ndef empty_cause_from_codes",
                  "    kept = {i for ranking in filtered for i in ranking}\n"
                  "    return [(i, s) for i, s in reciprocal_rank_fusion(rankings, k) if i in kept]\n"
                  "    # END SOLUTION\n\n\ndef empty_cause_from_codes")]},
    {"name": "only denied listings are filtered", "task": 3,
     "replace": [('if permission == "allowed"}', 'if permission != "denied"}')]},
    {"name": "a listing missing from the permissions is assumed allowed", "task": 3,
     "replace": [("                 if listing_id in allowed and (", "                 if (listing_id in allowed or listing_id not in permission_of) and (")]},
    {"name": "the lesson's gate pasted in: each id judged on its own, clusters ignored", "task": 3,
     "replace": [("(listing_id not in cluster_of or cluster_of[listing_id] not in blocked)", "True")]},
    {"name": "a cluster blocked only by a denied copy (an unknown copy passes)", "task": 3,
     "replace": [("    blocked = {cluster for listing_id, cluster in cluster_of.items() if listing_id not in allowed}",
                  '    blocked = {cluster for listing_id, cluster in cluster_of.items() if permission_of.get(listing_id) == "denied"}')]},
    {"name": "a cluster blocked only by the copies the channels ranked", "task": 3,
     "replace": [("    blocked = {cluster for listing_id, cluster in cluster_of.items() if listing_id not in allowed}",
                  "    ranked = {i for ranking in rankings for i in ranking}\n"
                  "    blocked = {cluster for listing_id, cluster in cluster_of.items() if listing_id in ranked and listing_id not in allowed}")]},
    {"name": "a listing without a cluster is dropped", "task": 3,
     "replace": [("(listing_id not in cluster_of or cluster_of[listing_id] not in blocked)",
                  "(listing_id in cluster_of and cluster_of[listing_id] not in blocked)")]},
    {"name": "every empty result is one bucket", "task": 4,
     "replace": [('    if counted == {"unauthorized"}:\n        return "all_unauthorized"\n'
                  '    if counted == {"degraded"}:\n        return "all_stale"\n',
                  "")]},
    {"name": "one unauthorized candidate makes it all unauthorized", "task": 4,
     "replace": [('if counted == {"unauthorized"}:', 'if "unauthorized" in counted:')]},
    {"name": "one stale candidate makes it all stale", "task": 4,
     "replace": [('if counted == {"degraded"}:', 'if "degraded" in counted:')]},
    {"name": "the transformation is checked before the scope", "task": 4,
     "replace": [('    if scope_prohibited:\n        return "out_of_scope"\n    if transformation_failed:\n'
                  '        return "transformation_failed"\n',
                  '    if transformation_failed:\n        return "transformation_failed"\n    if scope_prohibited:\n'
                  '        return "out_of_scope"\n')]},
    {"name": "nothing matched counts as all excluded", "task": 4,
     "replace": [('    if not counted:\n        return "no_permitted_match"\n', '')]},
    {"name": "a candidate with a stale code counts as stale, whatever else it has", "task": 4,
     "replace": [("        counted.add(decide_state([state_of[code] for code in codes]))",
                  '        counted.add("degraded" if "STALE_FIELD" in codes else decide_state([state_of[code] for code in codes]))')]},
    {"name": "a candidate counts as its first code", "task": 4,
     "replace": [("        counted.add(decide_state([state_of[code] for code in codes]))",
                  "        counted.add(state_of[codes[0]])")]},
    {"name": "a candidate counts as its last code", "task": 4,
     "replace": [("        counted.add(decide_state([state_of[code] for code in codes]))",
                  "        counted.add(state_of[codes[-1]])")]},
    {"name": "a duplicate-id conflict read as an evidence conflict", "task": 4,
     "replace": [('"DUPLICATE_ID_CONFLICT": "unauthorized"', '"DUPLICATE_ID_CONFLICT": "conflict"')]},
    {"name": "unknown permission read as a question to ask, not a refusal", "task": 4,
     "replace": [('"PERMISSION_UNKNOWN": "unauthorized"', '"PERMISSION_UNKNOWN": "clarify"')]},
    {"name": "unknown reason codes are ignored", "task": 4,
     "replace": [('            if code not in state_of:\n                raise ValueError(f"unknown reason code {code!r}")\n', ''),
                 ("decide_state([state_of[code] for code in codes])",
                  'decide_state([state_of.get(code, "respond") for code in codes])')]},
    {"name": "codes compared without case", "task": 4,
     "replace": [("        for code in codes:\n            if code not in state_of:",
                  "        codes = [code.upper() for code in codes]\n        for code in codes:\n            if code not in state_of:")]},
    {"name": "a candidate with no code is skipped", "task": 4,
     "replace": [('            raise ValueError("a withheld candidate must carry at least one reason code")', '            continue')]},
    {"name": "the codes checked only once the flags are read (a typo passes when out of scope)", "task": 4,
     "replace": [("    counted = set()  # the state each candidate counts as\n",
                  "    if scope_prohibited:\n        return \"out_of_scope\"\n"
                  "    counted = set()  # the state each candidate counts as\n")]},
    {"name": "quiz: blame the ranker", "task": 5,
     "replace": [('EXPIRED_FIRST_QUIZ = "d"', 'EXPIRED_FIRST_QUIZ = "a"')]},
    {"name": "quiz: blame the channels", "task": 5,
     "replace": [('EXPIRED_FIRST_QUIZ = "d"', 'EXPIRED_FIRST_QUIZ = "b"')]},
    {"name": "predict: the packet as today (PW-L003's diameter still counted fresh)", "task": 6,
     "replace": [('("degraded", ("PW-L001", "PW-L009", "PW-L012"))', '("degraded", ("PW-L001", "PW-L003", "PW-L009"))')]},
    {"name": "predict: PW-L003 drops and nothing moves up into the cap", "task": 6,
     "replace": [('("degraded", ("PW-L001", "PW-L009", "PW-L012"))', '("degraded", ("PW-L001", "PW-L009"))')]},
    {"name": "predict: stale prices left out, yet the state still respond", "task": 6,
     "replace": [('("degraded", ("PW-L001", "PW-L009", "PW-L012"))', '("respond", ("PW-L001", "PW-L009", "PW-L012"))')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
_SAME = ("these lines run only after `any(p != permissions[0] ...)` found every copy equal, so the first and "
         "the last copy are the same value")
EQUIVALENT_MUTANTS = [
    {"where": "listing_and_seller_gate", "before": "if any(p != permissions[0] for p in permissions):",
     "after": "if any(p != permissions[-1] for p in permissions):",
     "why": "all copies equal the first exactly when they all equal the last: either test finds a disagreement"},
    {"where": "listing_and_seller_gate", "before": 'elif permissions[0] != "allowed":',
     "after": 'elif permissions[-1] != "allowed":', "why": _SAME},
    {"where": "listing_and_seller_gate", "before": 'elif permissions[0] == "denied":',
     "after": 'elif permissions[-1] == "denied":', "why": _SAME},
]
