"""Plausible wrong answers to lesson 14's tasks; `dev check` proves the graders reject each.

Each entry edits the reference solution: every `old` text must occur exactly once.
"""

WRONG_ANSWERS = [
    {"name": "restricted ids compared as written", "task": 1,
     "replace": [("        if any(secret in fold(label) for secret in secrets):",
                  "        if label in restricted:")]},
    {"name": "restricted ids compared lower-cased only", "task": 1,
     "replace": [("        if any(secret in fold(label) for secret in secrets):",
                  "        if any(r.lower() in label.lower() for r in restricted):")]},
    {"name": "fold keeps the hyphen, so look-alike hyphens pass", "task": 1,
     "replace": [("if c.isalnum())", "if c.isalnum() or c in '-\u2010 _')")]},
    {"name": "fold without NFKC, so full-width letters pass", "task": 1,
     "replace": [('unicodedata.normalize("NFKC", text).casefold()', "text.casefold()")]},
    {"name": "withheld counts dropped instead of counted", "task": 1,
     "replace": [("    return out + ((\"withheld\", withheld),) if withheld else out", "    return out")]},
    {"name": "the anomaly blamed on the ranker first", "task": 2,
     "replace": [("    if before[\"parser_failures\"] != after[\"parser_failures\"]:\n",
                  "    if before[\"ranker_version\"] != after[\"ranker_version\"]:\n        return \"ranking\"\n"
                  "    if before[\"parser_failures\"] != after[\"parser_failures\"]:\n")]},
    {"name": "a drop in results blamed on the ranker", "task": 2,
     "replace": [("    return None\n    # END SOLUTION\n\n\n_ID",
                  "    return \"ranking\"\n    # END SOLUTION\n\n\n_ID")]},
    {"name": "rising exclusions read as a policy change", "task": 2,
     "replace": [("            and before[\"index_version\"] != after[\"index_version\"]):\n        return \"source\"",
                  "            and before[\"index_version\"] != after[\"index_version\"]):\n        return \"permission/freshness\"")]},
    {"name": "index construction without checking the policy", "task": 2,
     "replace": [("            and before[\"policy_version\"] == after[\"policy_version\"]\n", "")]},
    {"name": "index construction without checking that the index changed", "task": 2,
     "replace": [("            and before[\"policy_version\"] == after[\"policy_version\"]\n"
                  "            and before[\"index_version\"] != after[\"index_version\"]):",
                  "            and before[\"policy_version\"] == after[\"policy_version\"]):")]},
    {"name": "the old layer name 'index construction', not lesson 09's", "task": 2,
     "replace": [("        return \"source\"\n", "        return \"index construction\"\n")]},
    {"name": "the policy checked before retrieval", "task": 2,
     "replace": [("    if before[\"lexical\"] != after[\"lexical\"] or before[\"vector\"] != after[\"vector\"]:\n"
                  "        return \"retrieval\"\n"
                  "    if before[\"policy_version\"] != after[\"policy_version\"]:\n"
                  "        return \"permission/freshness\"\n",
                  "    if before[\"policy_version\"] != after[\"policy_version\"]:\n"
                  "        return \"permission/freshness\"\n"
                  "    if before[\"lexical\"] != after[\"lexical\"] or before[\"vector\"] != after[\"vector\"]:\n"
                  "        return \"retrieval\"\n")]},
    {"name": "support only looks for the citation", "task": 3,
     "replace": [("        if any(number not in cited for number in _NUMBER.findall(_ID.sub(\" \", text))):\n"
                  "            return False\n", "")]},
    {"name": "support reads the digits of ids as claims", "task": 3,
     "replace": [("_NUMBER.findall(_ID.sub(\" \", text))", "_NUMBER.findall(text)")]},
    {"name": "support accepts a number from any packet field", "task": 3,
     "replace": [("cited = set(_NUMBER.findall(\" \".join(str(fields[c]) for c in cites)))",
                  "cited = set(_NUMBER.findall(\" \".join(str(v) for v in fields.values())))")]},
    {"name": "support checks the first line only", "task": 3,
     "replace": [("            return False\n    return True\n    # END SOLUTION\n\n\nAMPLIFYING",
                  "            return False\n        return True\n    return True\n    # END SOLUTION\n\n\nAMPLIFYING")]},
    {"name": "amplification by substring", "task": 4,
     "replace": [("        if set(re.findall(r\"[a-z]+\", text.lower())) & set(AMPLIFYING):",
                  "        if any(word in text.lower() for word in AMPLIFYING):")]},
    {"name": "amplification split on whitespace only", "task": 4,
     "replace": [("        if set(re.findall(r\"[a-z]+\", text.lower())) & set(AMPLIFYING):",
                  "        if set(text.lower().split()) & set(AMPLIFYING):")]},
    {"name": "amplification is case-sensitive", "task": 4,
     "replace": [("re.findall(r\"[a-z]+\", text.lower())", "re.findall(r\"[a-z]+\", text)")]},
    {"name": "a review answer pointing at a stage that does not exist", "task": 5,
     "replace": [("    return \"answered\" if stage in pipeline.names() and test in set(tests) else \"gap\"",
                  "    return \"answered\" if test in set(tests) else \"gap\"")]},
    {"name": "a review answer without its test", "task": 5,
     "replace": [("    return \"answered\" if stage in pipeline.names() and test in set(tests) else \"gap\"",
                  "    return \"answered\" if stage in pipeline.names() else \"gap\"")]},
    {"name": "quiz: more queries would locate the stage", "task": 6,
     "replace": [('ONE_NUMBER_QUIZ = "c"', 'ONE_NUMBER_QUIZ = "a"')]},
    {"name": "quiz: the end-to-end number must have been wrong", "task": 6,
     "replace": [('ONE_NUMBER_QUIZ = "c"', 'ONE_NUMBER_QUIZ = "b"')]},
    {"name": "quiz: tune the ranker first", "task": 6,
     "replace": [('ONE_NUMBER_QUIZ = "c"', 'ONE_NUMBER_QUIZ = "d"')]},
    {"name": "predict: the answered count holds, as in the trace", "task": 7,
     "replace": [("TOTAL_LOSS_PREDICTION = (0, 0, 6)", "TOTAL_LOSS_PREDICTION = (0, 4, 6)")]},
    {"name": "predict: every query ends unauthorized", "task": 7,
     "replace": [("TOTAL_LOSS_PREDICTION = (0, 0, 6)", "TOTAL_LOSS_PREDICTION = (0, 0, 9)")]},
    {"name": "predict: half the pool again", "task": 7,
     "replace": [("TOTAL_LOSS_PREDICTION = (0, 0, 6)", "TOTAL_LOSS_PREDICTION = (12, 4, 1)")]},
]

# Mutants no test can reject, each with its reason (dev mutants leaves them out of the share).
EQUIVALENT_MUTANTS = [
    {"where": "fold",
     "before": 'return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())',
     "after": "return 'XXXX'.join(c for c in unicodedata.normalize(\"NFKC\", text).casefold() if c.isalnum())",
     "why": "every folded text gets the same separator between its characters, and casefolded alphanumerics "
            "never contain 'XXXX', so a restricted id is found in a label exactly when it was before"},
]
