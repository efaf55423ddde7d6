"""Concordance (issue 44, API.md-silent: docs/api.md "Concordance"): the owner's translation memory and
glossary searched for a word or phrase, in one target language, with where it was found.

The search is a case-insensitive literal match of the query in the source or the target of each entry
of the language's translation memory (the process's replica, service.tm: no storage read when it is
warm) and of each glossary entry that applies to the language. It reads at most the owner's memory
(MAX_TM_ENTRIES entries), each once, and answers at most `limit` of each, the newest translation-memory
entries first; the spans say where the query is in each text, so a client highlights it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent_core.errors import InvalidRequestError
from agent_core.languages import languages_match
from agent_core.tm import TmEntry
from storage.records import MemoryEntryRecord

from .blocking import blocking
from .concordance_schemas import ConcordanceGlossaryHit, ConcordanceHit, ConcordanceResult, SimilarHit, Span
from .memory import OwnerMemory, kind_of
from .sessions import language_tag
from .tm import TranslationMemory, tm_languages

MAX_QUERY = 200
"""The longest query, in characters."""
MAX_LIMIT = 100
"""The most entries of each kind one answer holds."""
SIMILAR = 5
"""The most similar sentences one answer holds."""
SIMILAR_SCORE = 50.0
"""The lowest similarity shown: the analysis' lowest band (50–74)."""


def spans(pattern: re.Pattern[str], text: str) -> list[Span]:
    """Where the pattern is found in `text` (character offsets, end exclusive), at most 20 places."""
    found = []
    for match in pattern.finditer(text):
        found.append((match.start(), match.end()))
        if len(found) == 20:
            break
    return found


def search_entries(
    pattern: re.Pattern[str], entries: Iterable[TmEntry], limit: int
) -> tuple[list[ConcordanceHit], int]:
    """The entries whose source or target holds the pattern, newest first, at most `limit`, and how many
    there were in all."""
    hits = [e for e in entries if pattern.search(e.source) or pattern.search(e.target)]
    hits.sort(key=lambda e: (e.updated_at, e.written), reverse=True)
    shown = [
        ConcordanceHit(
            source=e.source,
            target=e.target,
            origin=e.origin,
            updatedAt=e.updated_at or None,
            sourceSpans=spans(pattern, e.source),
            targetSpans=spans(pattern, e.target),
        )
        for e in hits[:limit]
    ]
    return shown, len(hits)


class Concordance:
    """Searches an owner's translation memory and glossary."""

    def __init__(self, tm: TranslationMemory, memory: OwnerMemory) -> None:
        self.tm = tm
        self.memory = memory

    async def search(self, owner: str, query: str, language: str, *, limit: int = 20) -> ConcordanceResult:
        """The entries for `language` (a BCP 47 tag or name) that hold `query`; 422 for a blank or too
        long query, an unknown language or a limit out of 1 to MAX_LIMIT."""
        text = query.strip()
        if not text or len(text) > MAX_QUERY:
            raise InvalidRequestError(f"q is 1 to {MAX_QUERY} characters of text to search for.")
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequestError(f"limit is 1 to {MAX_LIMIT}.")
        tag = language_tag(language)
        if tag is None:
            raise InvalidRequestError("language names the target language (a BCP 47 tag or a name).")
        pattern = re.compile(re.escape(text), re.IGNORECASE)
        key = tm_languages(tag)
        entries = await self.tm.pair_entries(owner, key)
        memory, total = await blocking(search_entries, pattern, entries, limit)
        records = await blocking(self.memory.entries, owner)
        glossary = glossary_hits(pattern, records, f"auto>{tag}", limit)
        exact = (await self.tm.exact(owner, key, [text])).get(text)
        like = await self.tm.similar_many(owner, key, [text], limit=SIMILAR, threshold=SIMILAR_SCORE)
        similar = (
            [SimilarHit(score=100.0, source=exact.source, target=exact.target, origin=exact.origin)] if exact else []
        )
        similar += [
            SimilarHit(score=round(m.score, 1), source=m.entry.source, target=m.entry.target, origin=m.entry.origin)
            for m in like[text]
        ]
        return ConcordanceResult(
            query=text, language=tag, memory=memory, memoryTotal=total, glossary=glossary, similar=similar[:SIMILAR]
        )


def glossary_hits(
    pattern: re.Pattern[str], records: Iterable[MemoryEntryRecord], pair: str, limit: int
) -> list[ConcordanceGlossaryHit]:
    """The glossary entries that apply to the pair and hold the pattern, at most `limit`."""
    found = []
    for r in records:
        if r.kind != "glossary" or not languages_match(r.languages, pair):
            continue
        if not (pattern.search(r.source) or pattern.search(r.text)):
            continue
        found.append(
            ConcordanceGlossaryHit(
                id=r.entry_id,
                source=r.source,
                target=r.text,
                kind=kind_of(r),
                languages=r.languages,
                sourceSpans=spans(pattern, r.source),
                targetSpans=spans(pattern, r.text),
            )
        )
        if len(found) == limit:
            break
    return found
