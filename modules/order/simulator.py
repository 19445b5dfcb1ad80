"""Lesson 05's FICTIONAL reader simulator: the published teaching simulator, rebuilt from its
specification (no model, no network; seeded arithmetic that prints the same on every run).

Everything in it is invented: 200 help documents of a fictional water utility, 40
questions about them, a fictional 32-dimensional embedding and a reader that picks one
chunk at random with odds that depend on the chunk's place in the prompt. Read it top to
bottom in the order the world is built:

1. Random numbers: Rng(t) and pick(u, weights).
2. Lab tokens: tokens(text), the pieces the window is counted in and the bags are made of.
3. The concepts, the documents, the embedding, the queries and the chunks: build_fixture().
4. Retrieval: retrieve(query, chunks, k) and is_relevant(query, chunk), the evaluation label.
5. The reader, in reader.py: build_prompt(query, chunks), then read(prompt, seed).

Its numbers describe this simulator only, never a real model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import mul

from modules.common.checks import sequence_of, short, whole_number

LABEL = "FICTIONAL reader simulator (seeded arithmetic, no model)"
SEED = 20260218                  # the fixture's seed, and the reader's unless told otherwise
MASK = 2 ** 32                   # every state and hash is a 32-bit unsigned number

# ---------------------------------------------------------------- 1. random numbers


class Rng:
    """The simulator's random numbers: rng(t) of the specification, for an int t >= 0.

    The seed is mixed twice (xor-shift, multiply), and every draw steps a linear
    congruential generator and returns state / 2**32, a float in [0, 1):

    >>> r = Rng(7)
    >>> first = r()
    >>> 0 <= first < 1 and r() != first
    True
    """

    def __init__(self, seed: int) -> None:
        whole_number(seed, "seed")
        x = ((seed ^ (seed >> 16)) * 2246822507) % MASK
        x = ((x ^ (x >> 13)) * 3266489909) % MASK
        self.state = (x ^ (x >> 16)) % MASK

    def __call__(self) -> float:
        self.state = (self.state * 1664525 + 1013904223) % MASK
        return self.state / MASK


def pick(u: float, weights) -> int:
    """The first index whose running sum of `weights` exceeds u; the last index if none does."""
    if isinstance(u, bool) or not isinstance(u, (int, float)):
        raise TypeError(f"u must be a number, got {type(u).__name__} {short(u)}")
    weights = list(weights)
    if not weights:
        raise ValueError("weights must hold at least one weight, got none")
    running = 0.0
    for index, weight in enumerate(weights):
        running += weight
        if running > u:
            return index
    return index


# ---------------------------------------------------------------- 2. lab tokens


def tokens(text: str) -> list[str]:
    """This simulator's lab tokens: lower-case, a space on each side of every comma, split on
    whitespace, and every word longer than 5 characters cut from the left into pieces of 5.

    The count is modules.common.units.lab_tokens of the same text with its commas spaced:
    "Service restoration" -> ['servi', 'ce', 'resto', 'ratio', 'n'], 5 lab tokens. A lab
    token is a teaching unit, never a model's token.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {short(text)}")
    pieces = []
    for word in text.lower().replace(",", " , ").split():
        while len(word) > 5:
            pieces.append(word[:5])
            word = word[5:]
        pieces.append(word)
    return pieces


def token_bag(text: str) -> frozenset[str]:
    """The set of a text's lab tokens (each piece once)."""
    return frozenset(tokens(text))


# ---------------------------------------------------------------- 3. the fictional world


@dataclass(frozen=True)
class Concept:
    """One topic of the help documents, with the phrase a document uses for it and the phrase
    a question uses for it."""

    key: str
    kind: str
    document_phrase: str
    query_phrase: str


@dataclass(frozen=True)
class DocumentClass:
    """A class of documents: its name, the code its documents carry and its share of them."""

    name: str
    code: str
    weight: float


CONCEPTS = tuple(Concept(key=key, kind=kind, document_phrase=document, query_phrase=query)
                 for key, kind, document, query in (
    ("tier", "tariff", "tier limit", "which band am i in"),
    ("unit", "tariff", "unit price", "what a ton of water costs"),
    ("account", "tariff", "account type", "home or business"),
    ("switch", "tariff", "plan switch", "moving to another package"),
    ("faultcode", "fault", "fault code", "error id"),
    ("leak", "fault", "line leak", "water escaping"),
    ("pressure", "fault", "pressure drop", "weak flow"),
    ("crew", "fault", "field crew", "technician when does it show up"),
    ("index", "meter", "index value", "digits on the dial"),
    ("read", "meter", "reading routine", "how it gets written down"),
    ("swap", "meter", "meter swap", "changing the hardware"),
    ("verify", "meter", "reading check", "typed in by mistake"),
    ("planned", "outage", "planned outage", "stoppage announced ahead"),
    ("notice", "outage", "notice channel", "where do i find out"),
    ("duration", "outage", "outage duration", "how long does it last"),
    ("restore", "outage", "service restoration", "when does it show up"),
    ("periodic", "maintenance", "periodic maintenance", "regular inspection"),
    ("valve", "maintenance", "valve check", "tap shutoff order"),
    ("filter", "maintenance", "filter replacement", "cleaning part"),
    ("calib", "maintenance", "calibration record", "accuracy tweak"),
))
CLASSES = tuple(DocumentClass(name=name, code=code, weight=weight) for name, code, weight in (
    ("tariff", "TR", 0.22), ("fault", "AR", 0.24), ("meter", "SY", 0.20), ("outage", "KS", 0.18),
    ("maintenance", "BK", 0.16)))
COMMON_WORDS = ("entry", "area", "term", "task", "form", "okay", "note")
DOCUMENTS, QUERIES = 200, 40
DIMENSIONS, ROW_LENGTH = 32, 64  # the embedding has 32 values; each projection row has 64


@dataclass(frozen=True)
class Document:
    """A help document: its code (class code and number, TR001...), its main concept and its
    paragraphs, each of which becomes one chunk."""

    code: str
    main: Concept
    paragraphs: tuple[str, ...]


def build_documents(seed: int = SEED, count: int = DOCUMENTS) -> tuple[Document, ...]:
    """The documents, each drawn from its own generator Rng(seed + 7919 i), in this order:
    class, main concept, number of paragraphs, then each paragraph's concept and common word."""
    documents = []
    for i in range(count):
        r = Rng(seed + 7919 * i)
        kind = CLASSES[pick(r(), [c.weight for c in CLASSES])]
        pool = [c for c in CONCEPTS if c.kind == kind.name]
        main = pool[int(r() * len(pool))]
        paragraphs = []
        for _ in range(2 + int(r() * 4)):
            topic = pool[int(r() * len(pool))]
            word = COMMON_WORDS[int(r() * len(COMMON_WORDS))]
            paragraphs.append(f"{topic.document_phrase} for {word} goes with {main.document_phrase} and is filed")
        documents.append(Document(code=f"{kind.code}{i + 1:03d}", main=main, paragraphs=tuple(paragraphs)))
    return tuple(documents)


def projection_rows(seed: int = SEED) -> tuple[tuple[float, ...], ...]:
    """One row of 64 values in [-1, 1) per concept, row i from Rng(seed XOR ((i + 1) * 2654435761))."""
    rows = []
    for i in range(len(CONCEPTS)):
        r = Rng(seed ^ ((i + 1) * 2654435761))
        rows.append(tuple(r() * 2 - 1 for _ in range(ROW_LENGTH)))
    return tuple(rows)


def embed(text: str, rows) -> tuple[float, ...]:
    """The fictional embedding: count each concept's phrases in the text (+1 for its document
    phrase, +1 for its query phrase), add count x the concept's row for each of the 32 values
    (value j uses row[j % 64]), and scale to length 1 (all zeros stay zeros)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__} {short(text)}")
    padded = " " + text.lower() + " "
    vector = [0.0] * DIMENSIONS
    for concept, row in zip(CONCEPTS, rows):
        count = int(concept.document_phrase in padded) + int(concept.query_phrase in padded)
        if count:   # value j adds count x row[j % 64], which is row[j]: j < 32, so zip stops there
            vector = [value + count * weight for value, weight in zip(vector, row)]
    norm = math.sqrt(sum(map(mul, vector, vector)))
    return tuple(value / norm for value in vector) if norm else tuple(vector)


def _check_text(value: object, name: str) -> None:
    if not isinstance(value, str) or not value.strip():
        raise (TypeError if not isinstance(value, str) else ValueError)(
            f"{name} must be a non-empty str, got {type(value).__name__} {short(value)}")


def _check_vector(value: object, name: str) -> None:
    if not isinstance(value, tuple) or len(value) != DIMENSIONS or not all(isinstance(x, float) for x in value):
        raise TypeError(f"{name} must be a tuple of {DIMENSIONS} floats, got {type(value).__name__} {short(value)}")


def _check_bag(value: object, name: str) -> None:
    if not isinstance(value, frozenset) or not value or not all(isinstance(x, str) for x in value):
        raise TypeError(f"{name} must be a non-empty frozenset of str, got {type(value).__name__} {short(value)}")


@dataclass(frozen=True)
class Paragraph:
    """One paragraph as the retriever and the reader see it. `number` is its place in chunk
    order (document, then paragraph); `code` is its document's, shared by the document's
    chunks; `tokens` is the lab-token count of its prompt entry "[CODE] text ."."""

    number: int
    code: str
    text: str
    bag: frozenset[str]
    vector: tuple[float, ...]
    tokens: int

    def __post_init__(self) -> None:
        whole_number(self.number, "Paragraph.number")
        _check_text(self.code, "Paragraph.code")
        _check_text(self.text, "Paragraph.text")
        _check_bag(self.bag, "Paragraph.bag")
        _check_vector(self.vector, "Paragraph.vector")
        whole_number(self.tokens, "Paragraph.tokens", 1)

    @property
    def entry(self) -> str:
        """How the chunk appears in a prompt."""
        return f"[{self.code}] {self.text} ."


@dataclass(frozen=True)
class Query:
    """One question: "<query phrase of a document's main concept> <common word>". Its concept
    and its record (the last word) are what a relevant chunk must hold: evaluation labels,
    which the reader never uses. `tokens` is the question's size in lab tokens."""

    number: int
    text: str
    concept: Concept
    record: str
    bag: frozenset[str]
    vector: tuple[float, ...]
    tokens: int

    def __post_init__(self) -> None:
        whole_number(self.number, "Query.number")
        _check_text(self.text, "Query.text")
        if not isinstance(self.concept, Concept):
            raise TypeError(f"Query.concept must be a Concept, got {type(self.concept).__name__} "
                            f"{short(self.concept)}")
        _check_text(self.record, "Query.record")
        _check_bag(self.bag, "Query.bag")
        _check_vector(self.vector, "Query.vector")
        whole_number(self.tokens, "Query.tokens", 1)


@dataclass(frozen=True)
class Fixture:
    """The whole fictional world of one seed: documents, their chunks, the questions and the
    projection rows the embedding used."""

    seed: int
    documents: tuple[Document, ...]
    chunks: tuple[Paragraph, ...]
    queries: tuple[Query, ...]
    rows: tuple[tuple[float, ...], ...]   # one projection row of 64 values per concept

    def __post_init__(self) -> None:
        whole_number(self.seed, "Fixture.seed")
        sequence_of(self.documents, Document, "Fixture.documents")
        sequence_of(self.chunks, Paragraph, "Fixture.chunks")
        sequence_of(self.queries, Query, "Fixture.queries")


def build_queries(documents, rows, seed: int = SEED, count: int = QUERIES) -> tuple[Query, ...]:
    """Question i from Rng(seed + 104729 i): a document, then a common word."""
    queries = []
    for i in range(count):
        r = Rng(seed + 104729 * i)
        document = documents[int(r() * len(documents))]
        text = f"{document.main.query_phrase} {COMMON_WORDS[int(r() * len(COMMON_WORDS))]}"
        queries.append(Query(number=i, text=text, concept=document.main, record=text.split()[-1],
                             bag=token_bag(text), vector=embed(text, rows), tokens=len(tokens(text))))
    return tuple(queries)


def build_chunks(documents, rows) -> tuple[Paragraph, ...]:
    """Every paragraph of every document, in document then paragraph order."""
    chunks = []
    for document in documents:
        for text in document.paragraphs:
            chunks.append(Paragraph(number=len(chunks), code=document.code, text=text, bag=token_bag(text),
                                    vector=embed(text, rows), tokens=len(tokens(f"[{document.code}] {text} ."))))
    return tuple(chunks)


def build_fixture(seed: int = SEED) -> Fixture:
    """The fictional world: 200 documents, their chunks and 40 questions, all from `seed`."""
    whole_number(seed, "seed")
    documents, rows = build_documents(seed), projection_rows(seed)
    return Fixture(seed=seed, documents=documents, chunks=build_chunks(documents, rows),
                   queries=build_queries(documents, rows, seed), rows=rows)


# ---------------------------------------------------------------- 4. retrieval and relevance


def _check_pair(query: object, chunk: object) -> None:
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    if not isinstance(chunk, Paragraph):
        raise TypeError(f"chunk must be a Paragraph, got {type(chunk).__name__} {short(chunk)}")


def retrieval_score(query: Query, chunk: Paragraph) -> float:
    """cosine(query, chunk) + 0.5 x the share of lab tokens the two bags share (|A & B| / |A | B|).
    Both vectors have length 1 (or are zero), so the cosine is their dot product."""
    _check_pair(query, chunk)
    return _score(query, chunk)


def _score(query: Query, chunk: Paragraph) -> float:
    """retrieval_score without the checks, for retrieve's already checked chunks."""
    cosine = sum(map(mul, query.vector, chunk.vector))
    shared = len(query.bag & chunk.bag)
    return cosine + 0.5 * shared / (len(query.bag) + len(chunk.bag) - shared)   # |A | B| = |A| + |B| - |A & B|


def retrieve(query: Query, chunks, k: int) -> tuple[Paragraph, ...]:
    """The k best-scoring chunks, best first; equal scores keep chunk order."""
    if not isinstance(query, Query):
        raise TypeError(f"query must be a Query, got {type(query).__name__} {short(query)}")
    chunks = sequence_of(chunks, Paragraph, "chunks")
    whole_number(k, "k", 1)
    ranked = sorted(chunks, key=lambda chunk: (-_score(query, chunk), chunk.number))
    return tuple(ranked[:k])


def is_relevant(query: Query, chunk: Paragraph) -> bool:
    """The evaluation label: the chunk holds the query concept's document phrase and the
    query's record word among its lab tokens."""
    _check_pair(query, chunk)
    return query.concept.document_phrase in chunk.text and query.record in chunk.bag
