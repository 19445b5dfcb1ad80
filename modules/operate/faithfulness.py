"""Faithful downstream use: seven checks over an explanation of the packet.

An explanation is a tuple of Line(text, cites): each cite a field id of the brief
("PW-L001#title") or one of the decision's evidence refs ("PW-L006:diameter_mm"). The brief
(`brief_of(run)`) is what the pipeline decided and what an explanation may rest on: the
state, the packet's fields, the fields of a conflicting listing, the stale fields left
out, and the instruction-like sentences found in the packed listings' seller text.

Each check is a deterministic function (brief, lines) -> (held, reason):

  support              every cite exists, and every number written is in a cited value
  completeness         every conflict, every reason the decision gives, every omission is named
  attribution          a value a seller wrote is said as the seller's, never as a catalogue field
  non-amplification    no word stronger than the evidence ("fits" where it says "listed for")
  instruction isolation  nothing of an instruction found in seller text is repeated or obeyed
  state consistency    an abstaining state is never explained as a recommendation
  variation            another wording keeps the criteria: every packed field the template
                       cites and every number it writes about them (seed 004: different
                       allowed wordings preserve the criteria)

`explain(brief)` is the lab's template explanation; `reworded(brief)` is a second allowed
wording (both pass all seven); MISTAKES are the plausible unfaithful ones, each made by one
edit of the template or of the second wording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from modules.common.checks import short

__all__ = ["Line", "Brief", "brief_of", "explain", "reworded", "CHECKS", "check_support", "check_completeness",
           "check_attribution", "check_non_amplification", "check_instruction_isolation",
           "check_state_consistency", "check_variation", "run_checks", "Mistake", "MISTAKES", "SELLER_FIELDS",
           "AMPLIFYING", "RECOMMENDING", "ANSWER_STATES"]

SELLER_FIELDS = ("title",)                  # what the seller typed; family, diameter_mm, price_eur are catalogue fields
AMPLIFYING = ("fits", "compatible", "guaranteed", "suitable", "certified")
RECOMMENDING = ("recommend", "buy", "best choice", "go with")
ANSWER_STATES = ("respond", "degraded")      # the states whose explanation may offer listings
IMPERATIVES = ("ignore", "disregard", "mark", "treat", "always", "override", "rank")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ID = re.compile(r"[A-Za-z]+-[A-Za-z]+\d+(?:#\w+|:\S+)?|ref-[0-9a-f]+")   # ids carry digits that are no claim
_WORD = re.compile(r"[a-z]+")
_STOP = frozenset("a an and the of for to in on is it its as be or by".split())


@dataclass(frozen=True)
class Line:
    """One sentence of an explanation and the field ids it cites."""
    text: str
    cites: tuple[str, ...] = ()

    def __post_init__(self):
        if not isinstance(self.text, str) or not self.text.strip():
            raise TypeError(f"Line.text must be a non-empty str, got {short(self.text)}")
        if not isinstance(self.cites, tuple) or not all(isinstance(c, str) for c in self.cites):
            raise TypeError(f"Line.cites must be a tuple of str, got {short(self.cites)}")


@dataclass(frozen=True)
class Brief:
    """What one run decided, as an explanation may use it."""
    query_id: str
    state: str
    listings: tuple[str, ...]                      # packed listing ids, in packet order
    fields: tuple[tuple[str, object], ...]         # (field id, value): the packet's, then a conflicting listing's
    refs: tuple[str, ...]                          # the decision's evidence refs
    conflicts: tuple[tuple[str, tuple[str, str]], ...]   # (listing id, (title field id, diameter field id))
    reasons: tuple[str, ...]                       # subjects the decision gives as its reasons
    omitted: tuple[str, ...]                       # field ids left out of the packet
    instructions: tuple[tuple[str, str], ...]      # (listing id, sentence): instruction-like seller text

    def value(self, cite: str):
        return dict(self.fields).get(cite)


def _instructions(text: str) -> list:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip().lower().startswith(IMPERATIVES)]


def brief_of(run) -> Brief:
    """The brief of one run of the catalogue pipeline (read from its stages' outputs)."""
    decision, packet = run.output("decision"), run.output("packet", None)
    evidence, by_id = run.output("evidence", None), run.output("source").by_id
    listings = packet.listings if packet else ()
    fields = list(packet.fields) if packet else []
    conflicts = []
    for d in evidence.decisions if evidence else ():
        if "TITLE_FIELD_CONFLICT" in d.reason_codes:
            pair = (f"{d.subject}#title", f"{d.subject}#diameter_mm")
            conflicts.append((d.subject, pair))
            fields += [(pair[0], by_id[d.subject].title), (pair[1], by_id[d.subject].diameter_mm)]
    instructions = tuple((i, s) for i in listings for s in _instructions(by_id[i].description))
    return Brief(query_id=decision.decision.subject, state=decision.decision.state, listings=tuple(listings),
                 fields=tuple(fields), refs=tuple(decision.decision.evidence_refs), conflicts=tuple(conflicts),
                 reasons=tuple(dict.fromkeys(s for s, _state, _codes in decision.because
                                             if s != decision.decision.subject)),
                 omitted=tuple(packet.omitted) if packet else (), instructions=instructions)


# ---------------------------------------------------------------- the template and a rewording

def _listing_line(b: Brief, i: str, seller: str, catalogue: str) -> Line:
    f = dict(b.fields)
    cites = tuple(c for c in (f"{i}#title", f"{i}#diameter_mm", f"{i}#family", f"{i}#price_eur") if c in f)
    price = f"price {f[i + '#price_eur']} EUR" if f"{i}#price_eur" in f else "no current price"
    return Line(f"{i}: {seller} \"{f[i + '#title']}\"; {catalogue.format(d=f[i + '#diameter_mm'], fam=f[i + '#family'])}"
                f"; {price}.", cites)


def _lines(b: Brief, words: dict) -> tuple:
    lines = [Line(words["offer"] if b.state in ANSWER_STATES else words["abstain"].format(state=b.state))]
    for i in b.listings:
        lines.append(_listing_line(b, i, words["seller"], words["catalogue"]))
    for i, pair in b.conflicts:
        lines.append(Line(words["conflict"].format(i=i), pair))
    for subject in b.reasons:
        if subject not in dict(b.conflicts):
            refs = tuple(r for r in b.refs if r.startswith(subject + ":"))
            lines.append(Line(words["reason"].format(i=subject), refs))
    for field_id in b.omitted:
        lines.append(Line(words["omitted"].format(f=field_id), (field_id,)))
    return tuple(lines)


_TEMPLATE = {
    "offer": "These listings are offered from the packet.",
    "abstain": "No listing is offered: the decision is {state}, so the assistant abstains.",
    "seller": "the seller's title reads",
    "catalogue": "the catalogue lists it for {d} mm shafts, family {fam}",
    "conflict": "{i} is left out: the title its seller wrote and the catalogue's diameter field disagree.",
    "reason": "{i} is left out as well; its evidence is not current.",
    "omitted": "{f} is left out because it is not current.",
}
_REWORDED = {
    "offer": "From the packet, the assistant can offer the listings below.",
    "abstain": "The assistant abstains and offers nothing (state {state}).",
    "seller": "as titled by its seller,",
    "catalogue": "in the catalogue's fields: listed for {d} mm shafts, a {fam}",
    "conflict": "{i} stays out: what its seller wrote in the title disagrees with the catalogue's diameter field.",
    "reason": "{i} stays out too: its evidence is out of date.",
    "omitted": "{f} is not shown: it is out of date.",
}


def explain(brief: Brief) -> tuple:
    """The lab's template explanation of a brief."""
    return _lines(brief, _TEMPLATE)


def reworded(brief: Brief) -> tuple:
    """The same explanation in other words: it must pass every check the template passes."""
    return _lines(brief, _REWORDED)


# ---------------------------------------------------------------- the seven checks

def _numbers(text: str) -> list:
    return _NUMBER.findall(_ID.sub(" ", text))


def _words(text: str) -> set:
    return set(_WORD.findall(text.lower()))


def _check(brief, lines) -> tuple:
    if not isinstance(brief, Brief):
        raise TypeError(f"brief must be a Brief, got {type(brief).__name__} {short(brief)}")
    if not isinstance(lines, tuple) or not all(isinstance(x, Line) for x in lines):
        raise TypeError(f"lines must be a tuple of Line, got {short(lines)}")
    return lines


def check_support(brief: Brief, lines: tuple) -> tuple:
    """Every cite names a field or an evidence ref of the brief; every number is in a cited value."""
    known = {f for f, _ in brief.fields} | set(brief.refs) | set(brief.omitted)
    for n, line in enumerate(_check(brief, lines), 1):
        unknown = [c for c in line.cites if c not in known]
        if unknown:
            return False, f"line {n} cites {unknown[0]!r}, which the brief does not hold"
        values = " ".join(str(brief.value(c) or "") for c in line.cites)
        cited = set(_numbers(values))
        loose = [x for x in _numbers(line.text) if x not in cited]
        if loose:
            return False, f"line {n} writes {loose[0]}, which no value it cites holds"
    return True, "every cite exists and every number is in a cited value"


def check_completeness(brief: Brief, lines: tuple) -> tuple:
    """Every conflict, every subject the decision names as a reason and every omission is named."""
    text = " ".join(x.text + " " + " ".join(x.cites) for x in _check(brief, lines))
    for subject in [i for i, _ in brief.conflicts] + list(brief.reasons) + list(brief.omitted):
        if subject not in text:
            return False, f"{subject} is missing: the decision rests on it"
    return True, "every conflict, reason and omission is named"


def check_attribution(brief: Brief, lines: tuple) -> tuple:
    """In each clause (split at ';'), a number only a seller-written cited value holds is said
    as the seller's, and a number only a catalogue field holds is never said as the seller's."""
    for n, line in enumerate(_check(brief, lines), 1):
        seller = set(_NUMBER.findall(" ".join(str(brief.value(c) or "") for c in line.cites
                                              if c.split("#")[-1] in SELLER_FIELDS)))
        catalogue = set(_NUMBER.findall(" ".join(str(brief.value(c) or "") for c in line.cites
                                                 if c.split("#")[-1] not in SELLER_FIELDS)))
        for clause in line.text.split(";"):
            words = _words(clause)
            for number in _numbers(clause):
                if number in seller and number not in catalogue and ("seller" not in words or "catalogue" in words):
                    return False, f"line {n} says {number}, a value the seller wrote, without the seller"
                if number in catalogue and number not in seller and "seller" in words and "catalogue" not in words:
                    return False, f"line {n} gives {number}, a catalogue field, as the seller's"
    return True, "every value is said as its source's"


def check_non_amplification(brief: Brief, lines: tuple) -> tuple:
    """No line claims more than 'listed for': no word of AMPLIFYING."""
    for n, line in enumerate(_check(brief, lines), 1):
        found = [w for w in AMPLIFYING if w in _words(line.text)]
        if found:
            return False, f"line {n} says {found[0]!r}: the evidence says 'listed for', not that"
    return True, "no claim stronger than the evidence"


def check_instruction_isolation(brief: Brief, lines: tuple) -> tuple:
    """No line repeats a word of an instruction found in seller text that no field of the brief holds."""
    _check(brief, lines)
    allowed = set().union(*(_words(str(v)) for _, v in brief.fields)) if brief.fields else set()
    for listing, sentence in brief.instructions:
        banned = _words(sentence) - allowed - _STOP
        for n, line in enumerate(lines, 1):
            found = sorted(banned & _words(line.text))
            if found:
                return False, f"line {n} repeats {found[0]!r} from an instruction in {listing}'s seller text"
    return True, "no instruction from seller text is repeated or obeyed"


def check_state_consistency(brief: Brief, lines: tuple) -> tuple:
    """An abstaining state is never explained as a recommendation; an answer never as an abstention."""
    for n, line in enumerate(_check(brief, lines), 1):
        text = line.text.lower()
        if brief.state not in ANSWER_STATES and any(w in text for w in RECOMMENDING):
            return False, f"line {n} recommends, but the decision is {brief.state}"
        if brief.state in ANSWER_STATES and "abstain" in text:
            return False, f"line {n} abstains, but the decision is {brief.state}"
    return True, f"the explanation keeps the state {brief.state}"


def _criteria(brief: Brief, lines: tuple) -> tuple:
    """What a wording may not drop: the packed fields it cites, and the numbers its lines citing
    them write (a packed listing's size, price ...)."""
    packed = {f for f, _ in brief.fields if f.split("#")[0] in brief.listings}
    cites = {c for x in lines for c in x.cites if c in packed}
    numbers = {n for x in lines if set(x.cites) & packed for n in _numbers(x.text)}
    return cites, numbers


def check_variation(brief: Brief, lines: tuple) -> tuple:
    """Wording may vary, the criteria may not: every packed field the template explanation
    (`explain(brief)`) cites is cited, and every number its lines about packed listings write
    is written, whatever the words and the order."""
    cites, numbers = _criteria(brief, _check(brief, lines))
    template_cites, template_numbers = _criteria(brief, explain(brief))
    if template_cites - cites:
        return False, f"{sorted(template_cites - cites)[0]} is stated by the template, not by this wording"
    if template_numbers - numbers:
        return False, f"the template states {sorted(template_numbers - numbers)[0]}, this wording does not"
    return True, "every packed field and number the template states is stated"


CHECKS = (("support", check_support), ("completeness", check_completeness), ("attribution", check_attribution),
          ("non-amplification", check_non_amplification), ("instruction isolation", check_instruction_isolation),
          ("state consistency", check_state_consistency), ("variation", check_variation))


def run_checks(brief: Brief, lines: tuple) -> list:
    """[(check, held, reason), ...] for all seven checks."""
    return [(name, *check(brief, lines)) for name, check in CHECKS]


# ---------------------------------------------------------------- plausible unfaithful explanations

@dataclass(frozen=True)
class Mistake:
    """A plausible unfaithful explanation: how it edits the template, and the one check it must
    fail."""
    name: str
    query_id: str
    fails: str            # the one check it must fail
    edit: Callable[[Brief, tuple[Line, ...]], tuple[Line, ...]]   # (brief, template lines) -> lines


def _swap(lines, old: str, new: str) -> tuple:
    return tuple(Line(x.text.replace(old, new), x.cites) for x in lines)


def _without(lines, word: str) -> tuple:
    return tuple(x for x in lines if word not in x.text)


def _misattributed(b, lines):
    i, (title, field) = b.conflicts[0]
    size = _NUMBER.findall(b.value(title))[0]
    return tuple(Line(f"{i}: the catalogue's diameter field says {size} mm.", (title, field))
                 if set(x.cites) == {title, field} else x for x in lines)


def _obeying(b, lines):
    i, _sentence = b.instructions[0]
    return lines + (Line(f"{i} is marked universal by its seller, so the size filters do not apply to it.",
                         (f"{i}#title",)),)


def _recommending(b, lines):
    i, (title, _field) = b.conflicts[0]
    return (Line(f"We recommend {i}, the closest listing to your request.", (title,)),) + lines[1:]


def _reworded_without_price(b, _lines):
    """The second allowed wording, with the first listing's price left out: still true, but it no
    longer holds the criteria the template holds."""
    lines = reworded(b)
    first = lines[1]
    cites = tuple(c for c in first.cites if not c.endswith("#price_eur"))
    text = first.text[:first.text.rindex(";")] + "."
    return (lines[0], Line(text, cites)) + lines[2:]


def _wrong_number(b, lines):
    first = lines[1]
    return (lines[0], Line(first.text.replace(" 16 mm shafts", " 18 mm shafts"), first.cites)) + lines[2:]


MISTAKES = (
    Mistake("writes a size no cited field holds", "PW-Q002", "support", _wrong_number),
    Mistake("omits the conflict", "PW-Q004", "completeness", lambda b, lines: _without(lines, "disagree")),
    Mistake("calls the seller's title a catalogue field", "PW-Q004", "attribution", _misattributed),
    Mistake("says 'fits' where the evidence says 'listed for'", "PW-Q002", "non-amplification",
            lambda b, lines: _swap(lines, "the catalogue lists it for", "it fits")),
    Mistake("obeys the instruction in seller text", "PW-Q002", "instruction isolation", _obeying),
    Mistake("explains the abstention as a recommendation", "PW-Q004", "state consistency", _recommending),
    Mistake("rewords it and drops a listing's price", "PW-Q002", "variation", _reworded_without_price),
)
