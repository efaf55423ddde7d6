"""The answer of `GET /api/memory/concordance` (service.concordance), apart so that routes load it cheaply."""

from __future__ import annotations

from pydantic import BaseModel

Span = tuple[int, int]


class ConcordanceHit(BaseModel):
    """A translation-memory entry that holds the query, and where."""

    source: str
    target: str
    origin: str
    """How it came into the memory: `approved`, `refined`, `revised` or `imported`."""
    updatedAt: str | None
    sourceSpans: list[Span]
    """Where the query is in `source` (character offsets, end exclusive), at most 20 places."""
    targetSpans: list[Span]


class ConcordanceGlossaryHit(BaseModel):
    """A glossary entry that holds the query, and where."""

    id: str
    source: str
    target: str
    kind: str
    languages: str
    sourceSpans: list[Span]
    targetSpans: list[Span]


class SimilarHit(BaseModel):
    """A translation-memory entry whose source is like the query taken as a sentence."""

    score: float
    """The similarity of the sources, 50 to 100 (100: the same text, whitespace aside), as the analysis'
    bands and the cards' memory matches score it."""
    source: str
    target: str
    origin: str


class ConcordanceResult(BaseModel):
    """`GET /api/memory/concordance`: the memory and glossary entries for the language that hold `query`."""

    query: str
    language: str
    memory: list[ConcordanceHit]
    """The newest first, at most `limit`."""
    memoryTotal: int
    """How many translation-memory entries hold it in all."""
    glossary: list[ConcordanceGlossaryHit]
    similar: list[SimilarHit]
    """The query taken as a sentence: the memory's best matches for it (an exact one first), at most 5."""
