"""The owner's translation memory: every approved, edited or revised unit, by language pair.

Entries are keyed by the normalised source and the target language's primary subtag (`*>fr`), so a
TMX variant `fr-FR` serves a session "into French"; the source language is not compared (sessions
say only what they translate into). Each language pair of an owner is stored apart (its own numbered
write log, its own count): a pair keeps at most MAX_TM_ENTRIES entries (new ones past that are
skipped and counted), and nothing of one pair is read for another.

Lookups are served by a replica of one pair of the owner's memory in this process (one per (owner,
pair), the REPLICAS most recently used, held by the process's one TranslationMemory, built with its
services): an exact match is a lookup by hash, fuzzy candidates come through a few word keys
(agent_core.tm), never a scan. Storage numbers each pair's writes 1, 2, … (`tm_changes`); the replica
holds `seq`, the latest write it has read, and `pending`, how many of this process's own committed
writes it has applied since (`kept`, with provisional numbers after `seq`). A step's read of the
owner's memory shows the latest write number of the pair this process last used for the owner
(`observed_pair`, `observe`, from service.memory); the step's `refresh` then reads nothing if that
number is `seq + pending` (every write since is this process's own, already applied), else the
changes since `seq` in one storage read; the owner's other replicas are read again at their next use.
Of two entries for one source the later write wins, whatever their `updated_at` (a TMX date is data);
a deletion is such a write, of the entry's tombstone (`TmEntry.deleted`), which drops it from a replica.
A cold replica reads its pair's entries once; a put (`record`, an import) drops the replicas of the
pairs it wrote, each read whole at its next use.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from agent_core.tm import (
    DEFAULT_THRESHOLD,
    TmEntry,
    TmMatch,
    TmOrigin,
    candidate_keys,
    fuzzy_matches,
    normalize,
    source_hash,
)
from langfacts import bcp47, primary_subtag
from storage.interface import MAX_TM_ENTRIES, MemoryStorageInterface, TmRecord, tm_record

from .blocking import blocking

CANDIDATES_PER_KEY = 50
"""How many of the newest entries under each fuzzy candidate key a lookup ranks."""


def tm_languages(languages_or_target: str) -> str:
    """The memory's language key for a session pair (`auto>french`) or a target tag (`fr-FR`): `*>fr`."""
    target = languages_or_target.rpartition(">")[2]
    tag = primary_subtag(target) or primary_subtag(bcp47(target) or "") or target.strip().casefold()
    return f"*>{tag or 'unknown'}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def record_of(
    source: str, target: str, languages: str, origin: TmOrigin, updated_at: str = "", *, key: str | None = None
) -> TmRecord:
    """A memory entry with its storage key (`key`: the string's own key in its file, if any)."""
    pair = tm_languages(languages)
    return tm_record(
        TmEntry(source=source, target=target, languages=pair, origin=origin, updated_at=updated_at or _now(), key=key)
    )


FRESH = 60.0
"""A lookup reads the changes first if the replica's last read (or refresh) is older than this: a
step's refresh serves all its lookups, however long its model request takes; a lookup outside a step
(the workbench's checks) sees what another process wrote within a minute."""
REPLICAS = 16
"""Replicas kept per storage, the most recently used (owner, pair)s'."""


@dataclass
class _Replica:
    """One language pair of an owner's memory as this process last read it."""

    entries: dict[str, TmEntry] = field(default_factory=dict)
    """By source hash."""
    keys: dict[str, set[str]] = field(default_factory=dict)
    """Fuzzy candidate key → the hashes of the entries under it."""
    seq: int | None = None
    """The number of the latest write read (None: not read yet)."""
    pending: int = 0
    """This process's own writes committed and applied since that read (their numbers unknown)."""
    observed: int | None = None
    """The pair's latest write number the owner's memory read showed, until a refresh relies on it."""
    read_at: float = -1e9
    """When the replica was last known current (monotonic)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Guards the fields; held briefly (lookups take it on the event loop), never across a read."""
    reading: threading.Lock = field(default_factory=threading.Lock)
    """One storage read of this replica at a time (in worker threads)."""

    def current(self, observed: int | None) -> bool:
        """Whether the write number `observed` shows no write the replica lacks (then it is current)."""
        if self.seq is None or observed is None or observed != self.seq + self.pending:
            return False
        self.seq, self.pending, self.read_at = observed, 0, time.monotonic()
        return True

    def covered(self, entries: Sequence[TmEntry]) -> bool:
        """Whether a read already brought the write of `entries` (it landed between their commit and
        `kept`): the replica holds one of them as written, which no other write could have made."""
        return any(self.entries.get(source_hash(normalize(e.source), e.languages)) == e for e in entries)

    def apply(self, entries: Iterable[TmEntry]) -> None:
        """Hold the entries (the later write of a source wins); a tombstone drops its source's entry."""
        for e in entries:
            h = source_hash(normalize(e.source), e.languages)
            old = self.entries.get(h)
            if old is not None and old.written > e.written:
                continue  # the later write wins, whatever the entries' dates
            if e.deleted:
                if old is not None:
                    del self.entries[h]
                    for k in candidate_keys(e.source, e.languages):
                        self.keys.get(k, set()).discard(h)
                continue
            self.entries[h] = e
            if old is None:
                for k in candidate_keys(e.source, e.languages):
                    self.keys.setdefault(k, set()).add(h)

    def candidates(self, keys: Iterable[str], per_key: int) -> list[TmEntry]:
        """The newest `per_key` entries under each key, each once, in key order."""
        found: dict[str, TmEntry] = {}
        for k in keys:
            hashes = self.keys.get(k, ())
            newest = heapq.nlargest(per_key, hashes, key=lambda h: self.entries[h].updated_at)
            found |= {h: self.entries[h] for h in newest if h not in found}
        return list(found.values())


def _changes(held: TmEntry, new: TmEntry) -> bool:
    """Whether writing `new` over `held` (the same source) changes what a lookup finds."""
    return held.target != new.target or (held.key is None and new.key is not None)


class TranslationMemory:
    """Records reviewed units and finds exact and fuzzy matches; agent_core's TranslationMemory port."""

    def __init__(self, storage: MemoryStorageInterface) -> None:
        self.storage = storage
        self._replicas: OrderedDict[tuple[str, str], _Replica] = OrderedDict()
        """The (owner, pair)s' replicas, least recently used first (at most REPLICAS)."""
        self._replicas_lock = threading.Lock()

    def record(self, owner: str, records: Sequence[TmRecord]) -> tuple[int, int, int]:
        """Keep entries: `(added, updated, skipped)`; this process's replicas of the pairs they name are
        read whole at their next use."""
        if not records:
            return 0, 0, 0
        counts = self.storage.put_tm(owner, records, max_entries=MAX_TM_ENTRIES)
        with self._replicas_lock:  # read whole next time, with the put's write numbers
            for pair in {r.entry.languages for r in records}:
                self._replicas.pop((owner, pair), None)
        return counts

    async def admit(
        self,
        owner: str,
        languages: str,
        pairs: Sequence[tuple[str, str, TmOrigin]],
        *,
        keys: Sequence[str | None] = (),
    ) -> tuple[list[TmEntry], int]:
        """The units as entries (the last of equal sources wins) that the owner's pair has room for and
        that change the memory, by the pair's replica (read first only if cold), and how many of them
        are new to it; `keys[k]`, the key of the string the k-th unit was written from (none: a
        document's). A unit whose remembered translation was kept as it is (a memory proposal approved)
        is not written again, unless it brings a key the entry lacks. The cap is the replica's view:
        what other processes added since its last read is not counted yet."""
        pair = tm_languages(languages)
        named = [*keys, *([None] * (len(pairs) - len(keys)))]
        records = (  # a blank target: never kept
            record_of(s, t, pair, o, key=k) for (s, t, o), k in zip(pairs, named, strict=False) if t.strip()
        )
        latest = {r.source_hash: r.entry for r in records}
        replica = await self._current(owner, pair, float("inf"))
        with replica.lock:
            held, room = replica.entries, MAX_TM_ENTRIES - len(replica.entries)
            new = set([h for h in latest if h not in held][: max(room, 0)])
            kept = [e for h, e in latest.items() if h in new or (h in held and _changes(held[h], e))]
        return kept, len(new)

    def kept(self, owner: str, entries: Sequence[TmEntry]) -> None:
        """Entries a step committed (one write of their one pair), into this process's replica of the
        pair with the next provisional number (unless it is cold: it reads them then)."""
        if not entries:
            return
        replica = self._replica(owner, entries[0].languages)
        with replica.lock:
            if replica.seq is None or replica.covered(entries):
                return
            replica.apply(replace(e, written=replica.seq + replica.pending + 1) for e in entries)
            replica.pending += 1

    def observed_pair(self, owner: str) -> str | None:
        """The pair whose head a step's read of the owner's memory shows: the one of the owner's pairs
        this process used last (None: it holds none warm, and a cold replica reads whole anyway)."""
        with self._replicas_lock:
            held = [(o, p) for (o, p), r in self._replicas.items() if o == owner and r.seq is not None]
        return held[-1][1] if held else None

    def observe(self, owner: str, pair: str, tm_seq: int) -> None:
        """The number of the pair's latest write, as the read of the owner's memory just showed it."""
        replica = self._replica(owner, pair)
        with replica.lock:
            replica.observed = tm_seq

    async def refresh(self, owner: str) -> None:
        """Bring the owner's replicas up to date (a step's, after its read of the owner's memory and
        before its lookups): the observed pair's in one storage read, none if that read showed no write
        the replica lacks; the owner's other replicas are read again at their next use."""
        with self._replicas_lock:
            mine = [(p, r) for (o, p), r in self._replicas.items() if o == owner]
        stale: list[str] = []
        for pair, replica in mine:
            with replica.lock:
                observed, replica.observed = replica.observed, None  # relied on once: the next step observes anew
                if observed is None:
                    replica.read_at = -1e9  # unobserved: read the changes at its next use
                elif not replica.current(observed):
                    stale.append(pair)
        for pair in stale:
            await blocking(self._read, owner, pair, 0.0)

    async def exact(self, owner: str, languages: str, sources: Sequence[str]) -> dict[str, TmEntry]:
        """For each candidate source that the memory holds (whitespace-normalised), its entry."""
        key = tm_languages(languages)
        replica = await self._current(owner, key)
        with replica.lock:
            found = {s: replica.entries.get(source_hash(normalize(s), key)) for s in sources}
        return {s: e for s, e in found.items() if e is not None}

    async def similar(self, owner: str, languages: str, source: str, *, limit: int = 3) -> list[TmMatch]:
        """Entries whose sources are similar to `source` (75% or more), best first; exact ones excluded."""
        return (await self.similar_many(owner, languages, [source], limit=limit))[source]

    async def similar_many(
        self,
        owner: str,
        languages: str,
        sources: Sequence[str],
        *,
        limit: int = 3,
        threshold: float = DEFAULT_THRESHOLD,
    ) -> dict[str, list[TmMatch]]:
        """`similar` for each of a batch's sources, from the pair's replica (`threshold`: the lowest score)."""
        key = tm_languages(languages)
        replica = await self._current(owner, key)
        with replica.lock:
            found = {s: replica.candidates(candidate_keys(s, key), CANDIDATES_PER_KEY) for s in sources}
        return {s: fuzzy_matches(s, key, found[s], limit=limit, threshold=threshold) for s in sources}

    async def pair_entries(self, owner: str, key: str) -> list[TmEntry]:
        """The owner's entries for the language key `key` (`*>fr`), from the pair's replica."""
        return [e for _, e in await self.pair_items(owner, key)]

    async def pair_items(self, owner: str, key: str) -> list[tuple[str, TmEntry]]:
        """`pair_entries`, each with its source hash."""
        replica = await self._current(owner, key)
        with replica.lock:
            return list(replica.entries.items())

    def rewrite(self, owner: str, pair: str, hashed: str, target: str) -> TmEntry:
        """Give the pair's entry of the source hash `hashed` a new target, or delete it (a blank target:
        its tombstone), as the pair's next write, which this process's replica of the pair applies at
        once (storage's `rewrite_tm`); the entry written. NotFoundError when the pair has no such entry."""
        entry = self.storage.rewrite_tm(owner, pair, hashed, target=target, updated_at=_now())
        self.kept(owner, [entry])
        return entry

    async def _current(self, owner: str, pair: str, fresh: float = FRESH) -> _Replica:
        """The pair's replica, read again first (in a worker thread) if it is older than `fresh`
        seconds: a lookup in a step finds it just refreshed and goes on at once, with no thread hop."""
        replica = self._replica(owner, pair)
        if replica.seq is not None and time.monotonic() - replica.read_at < fresh:
            return replica
        return await blocking(self._read, owner, pair, fresh)

    def _read(self, owner: str, pair: str, fresh: float) -> _Replica:
        """Read the pair's changes since the replica's `seq` unless it is warm and younger than `fresh`
        seconds; the storage read happens outside the replica's lock, so lookups on the event loop
        never wait for it. The read numbers every write it covers: the replica's own provisional
        ones are dropped (pending 0), and one the read missed is read again next time."""
        replica = self._replica(owner, pair)
        with replica.reading:
            with replica.lock:
                since = replica.seq
                if since is not None and time.monotonic() - replica.read_at < fresh:
                    return replica
            found = self.storage.tm_changes(owner, pair, since=since)
            with replica.lock:
                replica.apply(found.entries)
                replica.seq, replica.pending, replica.read_at = found.seq, 0, time.monotonic()
        return replica

    def _replica(self, owner: str, pair: str) -> _Replica:
        with self._replicas_lock:
            held = self._replicas
            replica = held.get((owner, pair))
            if replica is None:
                replica = held[owner, pair] = _Replica()
                while len(held) > REPLICAS:
                    held.popitem(last=False)
            held.move_to_end((owner, pair))
            return replica

    def owners(self) -> list[str]:
        """The owners whose replicas this process holds, least recently used first."""
        with self._replicas_lock:
            return list(dict.fromkeys(o for o, _ in self._replicas))

    def entries(self, owner: str) -> list[TmEntry]:
        """All the owner's entries (for export), every pair's, by language pair and source."""
        found = self.storage.tm_entries(owner)
        return sorted(found, key=lambda e: (e.languages, e.source.casefold(), e.source))
