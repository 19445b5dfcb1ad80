"""Plausible wrong answers to lesson 06's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

# Task 4: the solution's two walks (hits first, then neighbours), and the lesson's one walk.
_TWO_WALKS = """    kept, taken, used = [], set(), 0
    for hit in hits:  # 1. the retrieved hits, before any neighbour
        if hit.id in taken or used + len(hit.text) > max_quote_chars:
            continue
        used += len(hit.text)
        taken.add(hit.id)
        kept.append(hit)
    packet = []
    for hit in kept:  # 2. their neighbours, from what the hits left
        row, at"""
_ONE_WALK = """    hit_ids = {h.id for h in hits}
    packet, taken, used = [], set(), 0
    for hit in hits:
        if hit.id in taken or used + len(hit.text) > max_quote_chars:
            continue
        used += len(hit.text)
        taken.add(hit.id)
        row, at"""


WRONG_ANSWERS = [
    {"name": "inclusive end offset", "task": 1,
     "replace": [("    return text[start:end]\n    # END SOLUTION", "    return text[start:end + 1]\n    # END SOLUTION")]},
    {"name": "span clipped instead of refused", "task": 1,
     "replace": [("    if not 0 <= start <= end <= len(text):\n        raise ValueError(f\"span [{start}, {end}) is not "
                  "within 0..{len(text)}\")\n", "")]},
    {"name": "negative start allowed", "task": 1,
     "replace": [("    if not 0 <= start <= end <= len(text):", "    if not start <= end <= len(text):")]},
    {"name": "offsets in range means ok", "task": 2,
     "replace": [("    if here is not None and hashlib.sha256(here.encode(\"utf-8\")).hexdigest() == span[\"quote_sha256\"]:",
                  "    if here is not None:")]},
    {"name": "first occurrence taken even when ambiguous", "task": 2,
     "replace": [("    if text.count(quote) == 1:", "    if quote in text:")]},
    {"name": "drift check crashes past the end", "task": 2,
     "replace": [("    here = text[start:end] if end <= len(text) else None\n",
                  "    here = extract_span(text, start, end)\n")]},
    {"name": "inclusive end in the drift check", "task": 2,
     "replace": [("        return {\"status\": \"moved\", \"start\": found, \"end\": found + len(quote)}",
                  "        return {\"status\": \"moved\", \"start\": found, \"end\": found + len(quote) - 1}")]},
    {"name": "a span ending at the end of the text counts as past it", "task": 2,
     "replace": [("    here = text[start:end] if end <= len(text) else None\n",
                  "    here = text[start:end] if end < len(text) else None\n")]},
    {"name": "ampersand not escaped", "task": 3,
     "replace": [('    named = {"&": "&amp;", "<": "&lt;",', '    named = {"<": "&lt;",')]},
    {"name": "unescape with chained replaces, &amp; first", "task": 3,
     "replace": [('    return re.sub(r"&(amp|lt|gt|quot|#39|#x[0-9a-f]+);", one, text)',
                  '    for name, char in named.items():\n        text = text.replace(f"&{name};", char)\n'
                  '    return re.sub(r"&(#x[0-9a-f]+);", one, text)')]},
    {"name": "only the closing tag is escaped", "task": 3,
     "replace": [('    named = {"&": "&amp;", "<": "&lt;", ">": "&gt;", \'"\': "&quot;", "\'": "&#39;"}\n    out = []',
                  '    return text.replace("</evidence>", "&lt;/evidence&gt;")\n    out = []')]},
    {"name": "quotes left unescaped", "task": 3,
     "replace": [(', \'"\': "&quot;", "\'": "&#39;"}\n    out = []', '}\n    out = []')]},
    {"name": "the five entities alone (look-alikes pass)", "task": 3,
     "replace": [('        elif (unicodedata.normalize("NFKC", char) != char\n'
                  '              or any(part in named for part in unicodedata.normalize("NFD", char))\n'
                  '              or (index == 0 and unicodedata.category(char).startswith("M"))):',
                  '        elif False:')]},
    {"name": "full-width look-alikes alone (no NFKC test)", "task": 3,
     "replace": [('        elif (unicodedata.normalize("NFKC", char) != char\n',
                  '        elif (char in "\\uff1c\\uff1e\\uff02\\uff07\\uff06"\n')]},
    {"name": "NFC instead of NFKC (compatibility characters pass)", "task": 3,
     "replace": [('        elif (unicodedata.normalize("NFKC", char) != char\n',
                  '        elif (unicodedata.normalize("NFC", char) != char\n')]},
    {"name": "decompositions into markup not checked", "task": 3,
     "replace": [('              or any(part in named for part in unicodedata.normalize("NFD", char))\n', '')]},
    {"name": "a combining mark first is left raw", "task": 3,
     "replace": [('\n              or (index == 0 and unicodedata.category(char).startswith("M"))):', '):')]},
    {"name": "every combining mark escaped, not only the first", "task": 3,
     "replace": [('or (index == 0 and unicodedata.category(char).startswith("M"))', 'or unicodedata.category(char).startswith("M")')]},
    {"name": "only combining class 230 treated as a mark", "task": 3,
     "replace": [('or (index == 0 and unicodedata.category(char).startswith("M"))',
                  'or (index == 0 and unicodedata.combining(char) == 230)')]},
    {"name": "every non-ASCII character escaped", "task": 3,
     "replace": [('        elif (unicodedata.normalize("NFKC", char) != char\n', '        elif (not char.isascii()\n')]},
    {"name": "numeric references in decimal", "task": 3,
     "replace": [('            out.append(f"&#x{ord(char):x};")', '            out.append(f"&#{ord(char)};")'),
                 ('return chr(int(name[2:], 16)) if name.startswith("#x") else named[name]',
                  'return chr(int(name[1:])) if name[1:].isdigit() else named[name]'),
                 ('|#x[0-9a-f]+);", one, text)', '|#[0-9]+);", one, text)')]},
    {"name": "numeric references not decoded", "task": 3,
     "replace": [('|#39|#x[0-9a-f]+);", one, text)', '|#39);", one, text)')]},
    {"name": "neighbours presented as retrieved", "task": 4,
     "replace": [('group.append(replace(item, relation=f"adjacent_to:{hit.id}"))', "group.append(item)")]},
    {"name": "neighbours not paid from the budget", "task": 4,
     "replace": [("            if item.id in taken or used + len(item.text) > max_quote_chars:",
                  "            if item.id in taken:"),
                 ("            used += len(item.text)\n", "")]},
    {"name": "the lesson's expand_adjacent retyped: neighbours paid as soon as their hit is in", "task": 4,
     "replace": [(_TWO_WALKS, _ONE_WALK),
                 ("            if item.id in taken or used", "            if item.id in hit_ids or item.id in taken or used")]},
    {"name": "a hit left out for the budget still brings its neighbours", "task": 4,
     "replace": [("    for hit in kept:  # 2.", "    for hit in hits:  # 2.")]},
    {"name": "caps ignored", "task": 4,
     "replace": [("near = row[max(at - before, 0):at][::-1] + row[at + 1:at + 1 + after]",
                  "near = (row[:at][::-1] + row[at + 1:]) if before or after else []")]},
    {"name": "hit first, then its neighbours (not span order)", "task": 4,
     "replace": [("        packet.extend(sorted(group, key=lambda c: c.start))", "        packet.extend(group)")]},
    {"name": "every item in span order, not group by group", "task": 4,
     "replace": [("    return tuple(packet)\n    # END SOLUTION\n\n\ndef packet_seal",
                  "    return tuple(sorted(packet, key=lambda c: (c.doc_id, c.start)))\n    # END SOLUTION\n\n\ndef packet_seal")]},
    {"name": "a zero budget refused", "task": 4,
     "replace": [("if before < 0 or after < 0 or max_quote_chars < 0:",
                  "if before < 0 or after < 0 or max_quote_chars <= 0:")]},
    {"name": "after not checked", "task": 4,
     "replace": [("if before < 0 or after < 0 or max_quote_chars < 0:", "if before < 0 or max_quote_chars < 0:")]},
    {"name": "a hit that does not fit ends the walk", "task": 4,
     "replace": [("        if hit.id in taken or used + len(hit.text) > max_quote_chars:\n            continue\n",
                  "        if hit.id in taken or used + len(hit.text) > max_quote_chars:\n            break\n")]},
    {"name": "a neighbour that does not fit ends the expansion", "task": 4,
     "replace": [("used + len(item.text) > max_quote_chars:\n                continue\n",
                  "used + len(item.text) > max_quote_chars:\n                break\n")]},
    {"name": "a shared neighbour added twice", "task": 4,
     "replace": [("            taken.add(item.id)\n", "")]},
    {"name": "negative slice start wraps around", "task": 4,
     "replace": [("near = row[max(at - before, 0):at][::-1]", "near = row[at - before:at][::-1]")]},
    {"name": "a hit missing from the chunks crashes", "task": 4,
     "replace": [("        near = []\n        if at is not None:\n            near = row[",
                  "        near = row[")]},
    {"name": "JSON without sort_keys", "task": 5,
     "replace": [('json.dumps(canonical(fields, "fields"), sort_keys=True,', 'json.dumps(canonical(fields, "fields"), sort_keys=False,')]},
    {"name": "sets dumped in iteration order", "task": 5,
     "replace": [("            return sorted(value)", "            return list(value)")]},
    {"name": "non-ASCII written raw (not the lab's canonical JSON)", "task": 5,
     "replace": [("ensure_ascii=True,\n", "ensure_ascii=False,\n")]},
    {"name": "hash of repr()", "task": 5,
     "replace": [("    return hashlib.sha256(text.encode(\"utf-8\")).hexdigest()",
                  "    return hashlib.sha256(repr(fields).encode(\"utf-8\")).hexdigest()")]},
    {"name": "a mixed set left to sorted() (the message names no field)", "task": 5,
     "replace": [("            if not all(isinstance(item, str) for item in value):\n"
                  "                raise TypeError(f\"{where} is a set holding something other than str: it cannot be sorted\")\n",
                  "")]},
    {"name": "a mixed set sorted by repr instead of refused", "task": 5,
     "replace": [("            if not all(isinstance(item, str) for item in value):\n"
                  "                raise TypeError(f\"{where} is a set holding something other than str: it cannot be sorted\")\n"
                  "            return sorted(value)",
                  "            return sorted(value, key=repr)")]},
    {"name": "the path loses its list index", "task": 5,
     "replace": [('return [canonical(item, f"{where}[{index}]") for index, item in enumerate(value)]',
                  'return [canonical(item, where) for index, item in enumerate(value)]')]},
    {"name": "sets sorted only at the top level", "task": 5,
     "replace": [('            return {key: canonical(item, f"{where}[{key!r}]") for key, item in value.items()}',
                  '            return {key: (sorted(item) if isinstance(item, (set, frozenset)) else item)'
                  ' for key, item in value.items()}')]},
    {"name": "substring test instead of whole tokens", "task": 6,
     "replace": [("        if token not in kept and token not in lost[kind]:",
                  "        if token not in compressed.lower() and token not in lost[kind]:")]},
    {"name": "contractions not seen as negations", "task": 6,
     "replace": [(' or token.endswith("n\'t"):', ":")]},
    {"name": "lost tokens sorted", "task": 6,
     "replace": [('    return {**lost, "ok": not any(lost.values())}',
                  '    return {**{k: sorted(v) for k, v in lost.items()}, "ok": not any(lost.values())}')]},
    {"name": "a number is any token holding a digit", "task": 6,
     "replace": [("        if token[0].isdigit():", "        if any(ch.isdigit() for ch in token):")]},
    {"name": "dates counted as numbers", "task": 6,
     "replace": [('            kind = "dates" if DATE.fullmatch(token) else "numbers"', '            kind = "numbers"')]},
    {"name": "a date found anywhere in a token", "task": 6,
     "replace": [('            kind = "dates" if DATE.fullmatch(token) else "numbers"',
                  '            kind = "dates" if DATE.search(token) or "-" in token or "/" in token else "numbers"')]},
    {"name": "conditions not compared", "task": 6,
     "replace": [('        elif token in CONDITIONS:\n            kind = "conditions"\n', "")]},
    {"name": "month and day names not compared", "task": 6,
     "replace": [('        elif token in DATE_WORDS:\n            kind = "dates"\n', "")]},
    {"name": "entities not compared", "task": 6,
     "replace": [('        elif entity:\n            kind = "entities"\n', "")]},
    {"name": "every capitalised word is an entity", "task": 6,
     "replace": [("    for token, entity in tokens(original):\n",
                  "    for token, entity in [(w.lower(), w[:1].isupper()) for w in re.findall(r\"[\\w']+\", original)]:\n")]},
    {"name": "entity checked before the date words", "task": 6,
     "replace": [('        elif token in DATE_WORDS:\n            kind = "dates"\n        elif entity:\n            kind = "entities"\n',
                  '        elif entity:\n            kind = "entities"\n        elif token in DATE_WORDS:\n            kind = "dates"\n')]},
    {"name": "quiz: the seal proves truth", "task": 7, "replace": [('SEAL_QUIZ = "a"', 'SEAL_QUIZ = "b"')]},
    {"name": "quiz: a passage can grant a tool", "task": 8, "replace": [('TOOL_QUIZ = "d"', 'TOOL_QUIZ = "a"')]},
    {"name": "quiz: escaping removes the request", "task": 8, "replace": [('TOOL_QUIZ = "d"', 'TOOL_QUIZ = "b"')]},
]


# Mutants no test can tell from the solution (reviewed; see devtools/mutate.py).
_NEAR = "near = row[max(at - before, 0):at][::-1] + row[at + 1:at + 1 + after]"
_SELF = ("the slice now also takes row[at], which is the hit itself (ids are unique, and `at` is the hit's "
         "place in its own document); the hit was taken in the first walk, so the loop skips it with `continue` "
         "before it can pay or be added, and the other neighbours keep their order and their caps")
EQUIVALENT_MUTANTS = [
    {"where": "extract_span", "before": 'if start > end: raise ValueError(f"span bounds are reversed: start {start} is after end {end}")',
     "after": "pass", "why": "the next check refuses reversed bounds with a ValueError too; the task asks for "
                            "the error, and the reversed-bounds wording is the module's, not graded"},
    {"where": "extract_span", "before": 'raise ValueError(f"span bounds are reversed: start {start} is after end {end}")',
     "after": "pass", "why": "as above: with the raise gone, the next check raises ValueError for the same bounds"},
    {"where": "expand_after_hits", "before": _NEAR,
     "after": "near = row[max(at - before, 0):at][::-1] + row[at + 0:at + 1 + after]", "why": _SELF},
    {"where": "expand_after_hits", "before": _NEAR,
     "after": "near = row[max(at - before, 0):at][::-1] + row[at + 1 - 1:at + 1 + after]", "why": _SELF},
    {"where": "expand_after_hits", "before": _NEAR,
     "after": "near = row[max(at - before, 0):at + 1][::-1] + row[at + 1:at + 1 + after]",
     "why": _SELF + " (reversed, the hit comes first, ahead of the preceding neighbours)"},
]
