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
    _swap("degraded", "respond"),
    {"name": "precedence: stale evidence treated as worse than a conflict", "task": 1,
     "replace": [(_ORDER, '("prohibited_scope", "unauthorized", "incompatible", "degraded", "conflict", "clarify", '
                          '"respond")')]},
    {"name": "the last state given wins", "task": 1,
     "replace": [("    for state in order:\n        if state in given:\n            return state\n    return \"respond\"\n",
                  "    states = list(states)\n    return states[-1] if states else \"respond\"\n")]},
    {"name": "the first state given wins", "task": 1,
     "replace": [("    given = set(states)\n", "    states = list(states)\n    given = set(states)\n"),
                 ("    for state in order:\n        if state in given:\n            return state\n    return \"respond\"\n",
                  "    return states[0] if states else \"respond\"\n")]},
    {"name": "unknown state names are ignored", "task": 1,
     "replace": [("            raise ValueError(f\"unknown state {state!r}\")\n", "            continue\n")]},
    {"name": "unknown permission passes (only denied is withheld)", "task": 2,
     "replace": [('        elif permissions[0] == "allowed":', '        elif permissions[0] != "denied":')]},
    {"name": "a missing permission passes", "task": 2,
     "replace": [('        elif permissions[0] == "allowed":', '        elif permissions[0] in ("allowed", None, ""):')]},
    {"name": "permission compared without case", "task": 2,
     "replace": [('        elif permissions[0] == "allowed":', '        elif str(permissions[0]).strip().lower() == "allowed":')]},
    {"name": "withheld listings recorded by id", "task": 2,
     "replace": [('            withheld.append((opaque_ref(listing_id), "PERMISSION_DENIED"))',
                  '            withheld.append((listing_id, "PERMISSION_DENIED"))')]},
    {"name": "unknown recorded as denied", "task": 2,
     "replace": [('            withheld.append((opaque_ref(listing_id), "PERMISSION_UNKNOWN"))',
                  '            withheld.append((opaque_ref(listing_id), "PERMISSION_DENIED"))')]},
    {"name": "of two copies that disagree, the later one wins", "task": 2,
     "replace": [('        given.setdefault(listing_id, []).append(permission)',
                  '        given[listing_id] = [permission]')]},
    {"name": "of two copies that disagree, the first one wins", "task": 2,
     "replace": [('        given.setdefault(listing_id, []).append(permission)',
                  '        given.setdefault(listing_id, [permission])')]},
    {"name": "copies that disagree are withheld as plain denied", "task": 2,
     "replace": [('            withheld.append((opaque_ref(listing_id), "DUPLICATE_ID_CONFLICT"))',
                  '            withheld.append((opaque_ref(listing_id), "PERMISSION_DENIED"))')]},
    {"name": "each copy judged on its own (an id listed twice)", "task": 2,
     "replace": [("    given = {}\n    for listing_id, permission in pairs:\n        given.setdefault(listing_id, []).append(permission)\n"
                  "    permitted, withheld = [], []\n    for listing_id, permissions in given.items():\n",
                  "    permitted, withheld = [], []\n    for listing_id, permission in pairs:\n        permissions = [permission]\n")]},
    {"name": "ranked first, filtered after", "task": 3,
     "replace": [("    filtered = [[listing_id for listing_id in ranking if permission_of.get(listing_id) == \"allowed\"]\n"
                  "                for ranking in rankings]\n    return reciprocal_rank_fusion(filtered, k)\n",
                  "    fused = reciprocal_rank_fusion(rankings, k)\n"
                  "    return [(i, s) for i, s in fused if permission_of.get(i) == \"allowed\"]\n")]},
    {"name": "only denied listings are filtered", "task": 3,
     "replace": [('permission_of.get(listing_id) == "allowed"]', 'permission_of.get(listing_id) != "denied"]')]},
    {"name": "a listing missing from the permissions is assumed allowed", "task": 3,
     "replace": [('permission_of.get(listing_id) == "allowed"]', 'permission_of.get(listing_id, "allowed") == "allowed"]')]},
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
    {"name": "quiz: blame the ranker", "task": 5,
     "replace": [('EXPIRED_FIRST_QUIZ = "d"', 'EXPIRED_FIRST_QUIZ = "a"')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
_SAME = ("these lines run only after `any(p != permissions[0] ...)` found every copy equal, so the first and "
         "the last copy are the same value")
EQUIVALENT_MUTANTS = [
    {"where": "permission_gate", "before": "if any(p != permissions[0] for p in permissions):",
     "after": "if any(p != permissions[-1] for p in permissions):",
     "why": "all copies equal the first exactly when they all equal the last: either test finds a disagreement"},
    {"where": "permission_gate", "before": 'elif permissions[0] == "allowed":',
     "after": 'elif permissions[-1] == "allowed":', "why": _SAME},
    {"where": "permission_gate", "before": 'elif permissions[0] == "denied":',
     "after": 'elif permissions[-1] == "denied":', "why": _SAME},
]
