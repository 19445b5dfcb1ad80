"""Lesson 07, query design: aliases, rewrites, identifiers and declared conditions.

The query contract of mechanism.py keeps the original and records every transformation.
Query design decides which transformations the contract may make, and this module shows
four, each as a variant of the one pipeline (RETRIEVAL, or lesson 08's CATALOGUE up to the
evidence checks), run side by side with the contract as it is:

  aliases      authorised catalogue aliases map a shopper's word to a catalogue term
               ("nbr" -> nitrile), versioned, the original kept: a listing the raw
               words miss is recovered
  rewrite      a rewrite that adds a category ("shaft seal" -> mechanical seal) narrows
               the intent without saying so: a listing the shopper wanted is lost
  identifier   an exact part number goes through the lexical channel as an identifier
               field; when similarity disagrees, the declared rule decides (the
               identifier first), never the larger score
  conditions   each structured condition is declared a mandatory gate, an optional facet
               or a rank feature; a tolerance comes from a declared domain rule

The record of a candidate keeps five judgements apart: channel similarity, candidate
relevance, evidence sufficiency, compatibility control and behaviour eligibility.
The queries are new ids (DESIGN_QUERIES), so every existing query keeps its decision.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from modules.catalogue import CATALOGUE_AS_OF, LISTINGS, Query
from modules.catalogue.fixture import DESIGN_QUERIES, PART_NUMBERS, design_query_by_id
from modules.common.checks import short
from modules.common.pipeline import Stage
from modules.hybrid.mechanism import (RETRIEVAL, RRF_K, ChannelResult, Fusion, Hit, QueryContract, Transformation,
                                      fuse, lexical_channel, structured_channel, vector_channel,
                                      parse_query)

__all__ = ["ALIASES", "ALIAS_VERSION", "REWRITES", "IDENTIFIER_VERSION", "DomainRule", "DOMAIN_RULES",
           "Condition", "CONDITIONS", "with_aliases", "with_rewrite", "with_identifier", "identifier_channel",
           "apply_identifier_rule", "identified", "condition_verdicts", "judgements", "gained_and_lost", "design_pipelines", "ranked", "run",
           "DESIGN_QUERIES", "PART_NUMBERS", "design_query_by_id", "RELEVANCE"]

ALIAS_VERSION = "aliases/1"
# Authorised by the catalogue team: a shopper's word -> the catalogue's own term.
ALIASES = {"nbr": "nitrile", "oring": "ring", "orings": "ring"}
REWRITE_VERSION = "category-rewrite/1"
REWRITES = {"shaft seal": "mechanical-seal"}   # the phrase -> the family the rewrite adds
IDENTIFIER_VERSION = "identifier/1"
# Hand-judged fit to the request, as lesson 12 grades (2 fits, 1 right family, size unstated).
RELEVANCE = {"PW-Q010": {"PW-L011": 2}, "PW-Q011": {"PW-L001": 2, "PW-L002": 2, "PW-L003": 2, "PW-L009": 2},
             "PW-Q012": {"PW-L009": 2}, "PW-Q013": {"PW-L001": 2, "PW-L002": 2, "PW-L003": 2}}


def _exact(text: str) -> int:
    """Exact decimal text in 1/100000 units ('15.875' -> 1587500), so a tolerance is compared
    exactly, with no float (the catalogue's sizes have at most five decimals)."""
    whole, _dot, frac = text.partition(".")
    if not (whole.isdigit() and (frac == "" or frac.isdigit()) and len(frac) <= 5):
        raise ValueError(f"a size must be decimal text with at most 5 decimals, got {short(text)}")
    return int(whole) * 100000 + int((frac + "00000")[:5])


def _contract(c: QueryContract, terms=None, family=None, steps=(), diameter=None, state=None,
              reason=None) -> QueryContract:
    """A new contract from `c` with some fields replaced and steps appended (a new record)."""
    return replace(c, terms=c.terms if terms is None else terms, family=c.family if family is None else family,
                   diameter=c.diameter if diameter is None else diameter, state=c.state if state is None else state,
                   reason=c.reason if reason is None else reason, transformations=c.transformations + tuple(steps))


def with_aliases(query: Query) -> QueryContract:
    """The contract, then the aliases: each aliased term replaced, the original kept in the step."""
    c = parse_query(query)
    found = [t for t in c.terms if t in ALIASES]
    terms = tuple(sorted({ALIASES.get(t, t) for t in c.terms}))
    step = Transformation("aliases", ALIAS_VERSION, " ".join(c.terms),
                          ", ".join(f"{t} -> {ALIASES[t]}" for t in found) or "(no alias)", "applied")
    return _contract(c, terms=terms, steps=(step,))


def with_rewrite(query: Query) -> QueryContract:
    """The contract, then the category rewrite: a phrase becomes a family the contract requires."""
    c = parse_query(query)
    text = c.transformations[0].output
    phrase = next((p for p in REWRITES if p in text), None)
    if phrase is None:
        return _contract(c, steps=(Transformation("rewrite", REWRITE_VERSION, text, "(no rewrite)", "applied"),))
    family = REWRITES[phrase]
    terms = tuple(sorted(set(c.terms) | set(family.split("-"))))
    return _contract(c, terms=terms, family=family,
                     steps=(Transformation("rewrite", REWRITE_VERSION, phrase, f"family {family}", "applied"),))


_PART = {number.lower(): number for _listing, number in PART_NUMBERS}
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]")


def _identifier(text: str):
    return next((_PART[t.lower()] for t in _TOKEN.findall(text) if t.lower() in _PART), None)


def with_identifier(query: Query) -> QueryContract:
    """The identifier first: a declared part number is taken out of the text (and kept as a step)
    before the size parser reads it, so "CS-16S" is never read as a bare 16."""
    number = _identifier(query.text)
    if number is None:
        return _contract(parse_query(query), steps=(Transformation("identifier", IDENTIFIER_VERSION, query.text,
                                                                    "(no identifier)", "applied"),))
    rest = re.sub(re.escape(number), " ", query.text, flags=re.IGNORECASE)
    c = parse_query(Query(query.id, " ".join(rest.split()) or "-", query.vector, query.vector_version))
    c = replace(c, original=query.text)
    return _contract(c, steps=(Transformation("identifier", IDENTIFIER_VERSION, number, f"part_number {number}",
                                              "applied"),))


def identifier_channel(contract: QueryContract, listings) -> ChannelResult:
    """The lexical channel with its identifier field: an exact part-number match first (its
    evidence says so), then the term matches as lexical_channel ranks them."""
    words = lexical_channel(contract, listings)
    step = next((t for t in contract.transformations if t.name == "identifier"), None)
    if step is None or not step.output.startswith("part_number "):
        return words
    numbers = dict(PART_NUMBERS)
    exact = [x.id for x in listings if numbers.get(x.id) == step.input]
    hits = [Hit(i, 1.0, f"identifier: {step.input} (exact)") for i in exact]
    hits += [h for h in words.hits if h.listing_id not in exact]
    return ChannelResult("lexical", tuple(hits), words.rejected,
                         f"identifier field part_number == {step.input}; then {words.note}", "ran")


def identified(so_far) -> set:
    """The listings the lexical channel matched by identifier, exactly."""
    lexical = next(c for c in so_far.of_kind("channel") if c.channel == "lexical")
    return {h.listing_id for h in lexical.hits if h.evidence.startswith("identifier: ")}


def apply_identifier_rule(so_far):
    """Stage `fusion` with the declared identifier rule: rank fusion as lesson 07 fuses, then an
    exact identifier match goes first, whatever the fused scores; the rest keep their order."""
    fusion = fuse(so_far)
    exact = identified(so_far)
    first = [f for f in fusion.candidates if set(f.members) & exact]
    rest = [f for f in fusion.candidates if f not in first]
    return Fusion(fusion.k, tuple(first + rest), fusion.eligible)


# ---------------------------------------------------------------- declared conditions

@dataclass(frozen=True)
class DomainRule:
    """A declared tolerance: a family's field may differ from the request by at most `plus_minus`."""
    name: str
    families: tuple
    field: str
    plus_minus: str

    def __post_init__(self):
        _exact(self.plus_minus)   # exact decimal text, or an error naming it
        if not self.families or not all(isinstance(f, str) for f in self.families):
            raise TypeError(f"DomainRule.families must be a tuple of family names, got {short(self.families)}")


@dataclass(frozen=True)
class Condition:
    """One structured condition of the contract, declared as a gate, a facet or a rank feature."""
    field: str
    kind: str
    rule: str | None = None

    def __post_init__(self):
        if self.kind not in ("gate", "facet", "rank feature"):
            raise ValueError(f"Condition.kind must be 'gate', 'facet' or 'rank feature', got {short(self.kind)}")


DOMAIN_RULES = {"seal-shaft/1": DomainRule("seal-shaft/1", ("mechanical-seal", "lip-seal"), "diameter_mm", "0.1")}
CONDITIONS = (Condition("diameter_mm", "gate", "seal-shaft/1"), Condition("family", "facet"),
              Condition("price_eur", "rank feature"))


def condition_verdicts(contract: QueryContract, listings, conditions=CONDITIONS) -> list:
    """Per listing: (listing id, passes every gate, [(field, kind, what it found)]). A gate with a
    rule compares within the rule's tolerance for the rule's families, exactly otherwise."""
    out = []
    for x in listings:
        found, passed = [], True
        for c in conditions:
            if c.kind == "gate" and c.field == "diameter_mm":
                if contract.diameter is None or x.diameter_mm is None:
                    ok, what = False, "no stable value"
                else:
                    rule = DOMAIN_RULES.get(c.rule)
                    room = rule.plus_minus if rule and x.family in rule.families else "0"
                    gap = abs(_exact(x.diameter_mm)
                              - _exact(contract.diameter.value_mm))
                    ok = gap <= _exact(room)
                    what = f"{x.diameter_mm} vs {contract.diameter.value_mm} +-{room}: {'in' if ok else 'out'}"
                passed = passed and ok
                found.append((c.field, c.kind, what))
            elif c.kind == "facet":
                found.append((c.field, c.kind, getattr(x, c.field)))
            else:
                found.append((c.field, c.kind, getattr(x, c.field)))
        out.append((x.id, passed, found))
    return out


# ---------------------------------------------------------------- the pipelines, and what they change

def _stage_contract(make, version):
    return Stage("contract", version, "input", lambda so_far: make(so_far.inputs["query"]))


def _in_category(name: str, function):
    """A channel that searches only the contract's family when the contract names one (the
    category a rewrite added becomes a filter of every channel)."""
    def run(so_far):
        contract, records = so_far.output("contract"), so_far.output("source").records
        return function(contract, [x for x in records if contract.family is None or x.family == contract.family])
    return Stage(name, f"{name}/1+{REWRITE_VERSION}", "retrieval", run, kind="channel")


def design_pipelines() -> dict:
    """{name: (as is, designed)}: lesson 07's RETRIEVAL, and the same with one design applied."""
    base = RETRIEVAL
    rewrite = base.replace("contract", _stage_contract(with_rewrite, f"contract/2+{REWRITE_VERSION}"))
    for name, function in (("lexical", lexical_channel), ("structured", structured_channel),
                           ("vector", vector_channel)):
        rewrite = rewrite.replace(name, _in_category(name, function))
    lexical = Stage("lexical", f"lexical/1+{IDENTIFIER_VERSION}", "retrieval",
                    lambda so_far: identifier_channel(so_far.output("contract"), so_far.output("source").records),
                    kind="channel")
    read_id = (base.replace("contract", _stage_contract(with_identifier, f"contract/2+{IDENTIFIER_VERSION}"))
               .replace("lexical", lexical))
    designed_id = read_id.replace("fusion", Stage("fusion", f"rrf-{RRF_K}/1+{IDENTIFIER_VERSION}", "ranking",
                                                  apply_identifier_rule))
    return {"aliases": (base, base.replace("contract", _stage_contract(with_aliases, f"contract/2+{ALIAS_VERSION}"))),
            "rewrite": (base, rewrite), "identifier": (base, designed_id), "identifier, no rule": (base, read_id)}


def run(pipeline, query: Query):
    return pipeline.run({"query": query, "listings": LISTINGS, "as_of": CATALOGUE_AS_OF})


def ranked(r) -> list:
    """The listings a run ranked: every member of every fused cluster, in fused order."""
    fused = r.output("fusion", None)
    return [m for f in fused.candidates for m in f.members] if fused else []


def gained_and_lost(before, after) -> dict:
    """Candidates gained and lost between two runs, at ranking (members of the fused clusters)."""
    a, b = ranked(before), ranked(after)
    return {"gained": sorted(set(b) - set(a)), "lost": sorted(set(a) - set(b))}


LATER = "lesson 08"   # evidence sufficiency and compatibility control are lesson 08's checks


def judgements(run_, listing_id: str, relevance: dict, evidence=None, compatible=None) -> dict:
    """The five judgements of one candidate, each from its own place, never merged into one score.
    Lesson 07 judges similarity (its channels), relevance (hand grades) and eligibility (the gate);
    `evidence(listing, contract)` and `compatible(listing, contract)` are lesson 08's checks when
    a later lesson passes them, else the record says where they are judged."""
    by_id = run_.output("source").by_id
    contract = run_.output("contract")
    similarity = {c.channel: next((n for n, h in enumerate(c.hits, 1) if h.listing_id == listing_id), None)
                  for c in run_.of_kind("channel") if c.status == "ran"}
    gate = run_.output("gate")
    withheld = dict(zip(gate.withheld, gate.decisions))
    eligibility = withheld[listing_id].reason_codes[0] if listing_id in withheld else "eligible"
    if evidence is None:
        sufficiency = LATER
    else:
        decision = evidence(by_id[listing_id], contract)
        sufficiency = "sufficient" if decision is None else decision.reason_codes[-1]
    control = LATER if compatible is None else ("compatible" if compatible(by_id[listing_id], contract)
                                                else "incompatible")
    return {"listing_id": listing_id,
            "channel_similarity": {k: v for k, v in similarity.items() if v is not None},
            "candidate_relevance": relevance.get(listing_id, 0), "evidence_sufficiency": sufficiency,
            "compatibility_control": control, "behaviour_eligibility": eligibility}
