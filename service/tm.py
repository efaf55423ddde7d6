"""The owner's translation memory: every approved, edited or revised unit, by language pair.

Entries are keyed by the normalised source and the target language's primary subtag (`*>fr`), so a
TMX variant `fr-FR` serves a session "into French"; the source language is not compared (sessions
say only what they translate into). What a lookup reads is bounded: an exact match is a lookup by
hash, fuzzy candidates come through a few word keys (agent_core.tm), never a scan; and an owner
keeps at most MAX_TM_ENTRIES entries (new ones past that are skipped and counted).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

from agent_core.tm import TmEntry, TmMatch, TmOrigin, candidate_keys, exact_match, fuzzy_matches, normalize, source_hash
from interchange.languages import bcp47, primary_subtag
from storage.interface import MemoryStorageInterface, TmRecord

MAX_TM_ENTRIES = 20_000
"""The most translation-memory entries an owner keeps."""
CANDIDATES_PER_KEY = 50
"""How many of the newest entries under each fuzzy candidate key a lookup reads."""
MAX_BATCH_KEYS = 8
"""The most candidate keys one batch's lookup queries (the rarest word of each unit first)."""
CANDIDATES_PER_BATCH_KEY = 20
"""How many of the newest entries under each key a batch's lookup reads."""


def tm_languages(languages_or_target: str) -> str:
    """The memory's language key for a session pair (`auto>french`) or a target tag (`fr-FR`): `*>fr`."""
    target = languages_or_target.rpartition(">")[2]
    tag = primary_subtag(target) or primary_subtag(bcp47(target) or "") or target.strip().casefold()
    return f"*>{tag or 'unknown'}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def record_of(source: str, target: str, languages: str, origin: TmOrigin, updated_at: str = "") -> TmRecord:
    """A memory entry with its index keys."""
    key = tm_languages(languages)
    entry = TmEntry(source=source, target=target, languages=key, origin=origin, updated_at=updated_at or _now())
    return TmRecord(
        entry=entry, source_hash=source_hash(normalize(source), key), candidate_keys=candidate_keys(source, key)
    )


class TranslationMemory:
    """Records reviewed units and finds exact and fuzzy matches; agent_core's TranslationMemory port."""

    def __init__(self, storage: MemoryStorageInterface) -> None:
        self.storage = storage

    def record(self, owner: str, records: Sequence[TmRecord]) -> tuple[int, int, int]:
        """Keep entries: `(added, updated, skipped)`."""
        if not records:
            return 0, 0, 0
        return self.storage.put_tm(owner, records, max_entries=MAX_TM_ENTRIES)

    async def remember(self, owner: str, languages: str, pairs: Sequence[tuple[str, str, TmOrigin]]) -> None:
        """Keep reviewed units (source, final text, origin) for the session's language pair."""
        records = [record_of(source, target, languages, origin) for source, target, origin in pairs]
        await asyncio.to_thread(self.record, owner, records)

    async def exact(self, owner: str, languages: str, sources: Sequence[str]) -> dict[str, TmEntry]:
        """For each candidate source that the memory holds (whitespace-normalised), its entry."""
        key = tm_languages(languages)
        hashes = {source_hash(normalize(s), key): s for s in sources}
        found = await asyncio.to_thread(
            self.storage.find_tm, owner, source_hashes=list(hashes), candidate_keys=(), limit=0
        )
        matched: dict[str, TmEntry] = {}
        for source in sources:
            match = exact_match(source, key, found)
            if match is not None:
                matched[source] = match.entry
        return matched

    async def similar(self, owner: str, languages: str, source: str, *, limit: int = 3) -> list[TmMatch]:
        """Entries whose sources are similar to `source` (75% or more), best first; exact ones excluded."""
        key = tm_languages(languages)
        found = await asyncio.to_thread(
            self.storage.find_tm,
            owner,
            source_hashes=(),
            candidate_keys=candidate_keys(source, key),
            limit=CANDIDATES_PER_KEY,
        )
        return fuzzy_matches(source, key, found, limit=limit)

    async def similar_many(
        self, owner: str, languages: str, sources: Sequence[str], *, limit: int = 3
    ) -> dict[str, list[TmMatch]]:
        """`similar` for a whole batch in one lookup: the sources' first keys, then their second, …
        (at most MAX_BATCH_KEYS keys), and the candidates ranked for each source here."""
        key = tm_languages(languages)
        per_source = [candidate_keys(s, key) for s in sources]
        keys: list[str] = []
        for rank in range(max((len(k) for k in per_source), default=0)):
            keys += [k[rank] for k in per_source if rank < len(k) and k[rank] not in keys]
        found = await asyncio.to_thread(
            self.storage.find_tm,
            owner,
            source_hashes=(),
            candidate_keys=keys[:MAX_BATCH_KEYS],
            limit=CANDIDATES_PER_BATCH_KEY,
        )
        return {s: fuzzy_matches(s, key, found, limit=limit) for s in sources}

    def entries(self, owner: str) -> Iterator[TmEntry]:
        """All the owner's entries (for export), page by page."""
        cursor: str | None = None
        while True:
            page = self.storage.list_tm(owner, cursor=cursor, limit=500)
            yield from page.items
            if page.next_cursor is None:
                return
            cursor = page.next_cursor
