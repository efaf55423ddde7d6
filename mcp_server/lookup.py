"""Looking a term or a sentence up in a memory the API gave: glossary entries and translation-memory matches.

The glossary comes from `GET …/memory`; a sentence's translation-memory matches for one language from
the service's concordance route (`…/memory/concordance`), for every language (or more matches than that
route answers) from the memory's TMX export, matched here. A match found here is scored as the service
scores its fuzzy matches (RapidFuzz's normalised Indel similarity of the whitespace-normalised sources,
`agent_core.tm`), so a score is the band the analysis would count the sentence in, either way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from rapidfuzz import fuzz, process

from agent_core.tm import normalize
from interchange.model import TmPair
from langfacts import same_language

from .api import GlossaryEntry

MIN_SCORE = 50.0
"""The lowest similarity reported: the analysis' lowest band (50–74)."""
_ANY_TARGET = ("*", "unknown", "")


class GlossaryHit(BaseModel):
    """A glossary entry that names the term, or whose term occurs in the sentence."""

    # Field docstrings become descriptions in the tools' output schemas, which agents read.
    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    term: str
    translation: str
    kind: str
    """`preferred` (use the translation), `forbidden` (never use it), `keep` (leave the term as it is)."""
    languages: str
    """The pair it applies to, `auto>fr`; `auto>*` for every pair."""
    origin: str
    """`user` (a person added it) or `learned` (kept from a person's edits)."""


class MemoryMatch(BaseModel):
    """A translation a person approved or edited (or imported) for a similar source."""

    # Field docstrings become descriptions in the tools' output schemas, which agents read.
    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)

    score: float
    """Similarity of the sources, 0–100 (100: the same text, whitespace aside)."""
    source: str
    target: str
    language: str


def glossary_hits(text: str, entries: Sequence[GlossaryEntry], target_language: str | None) -> list[GlossaryHit]:
    """The entries for `target_language` (all, when None) whose term occurs in `text` as a whole word, or
    that hold `text` in their term or translation (a term looked up by itself)."""
    wanted = text.casefold().strip()
    hits: list[GlossaryHit] = []
    for entry in entries:
        if target_language and not _applies(entry.languages, target_language):
            continue
        in_text = re.search(rf"(?<!\w){re.escape(entry.source)}(?!\w)", text, re.IGNORECASE) is not None
        named = bool(wanted) and (wanted in entry.source.casefold() or wanted in entry.target.casefold())
        if in_text or named:
            hits.append(
                GlossaryHit(
                    term=entry.source,
                    translation=entry.target,
                    kind=entry.kind,
                    languages=entry.languages,
                    origin=entry.origin,
                )
            )
    return hits


def _applies(languages: str, target_language: str) -> bool:
    target = languages.partition(">")[2].strip()
    return target in _ANY_TARGET or same_language(target, target_language)


def memory_matches(
    text: str,
    pairs: Sequence[TmPair],
    target_language: str | None,
    *,
    min_score: float = MIN_SCORE,
    limit: int = 5,
) -> list[MemoryMatch]:
    """The `limit` pairs whose source is most like `text` (score ≥ `min_score`), best first, for
    `target_language` (every language when None)."""
    kept = [p for p in pairs if not target_language or same_language(p.tgtlang, target_language)]
    by_source: dict[str, list[TmPair]] = {}
    for pair in kept:
        by_source.setdefault(normalize(pair.source), []).append(pair)
    found = process.extract(normalize(text), list(by_source), scorer=fuzz.ratio, score_cutoff=min_score, limit=limit)
    return [
        MemoryMatch(score=round(score, 1), source=pair.source, target=pair.target, language=pair.tgtlang)
        for source, score, _ in found
        for pair in by_source[source]
    ][:limit]
