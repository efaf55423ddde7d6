"""agent_core's ports over a storage backend, with the backend's blocking calls run off the event loop.

Every backend is synchronous (sqlite3, boto3); the agent's ports are async. Each call here runs the
backend in a worker thread (service.blocking), so a slow store never stalls other requests on
the same event loop, and a step's reads of its session and of its owner's memory run side by side.
File text and segments never change once uploaded, so the reader keeps what it read in a small
per-process cache: a warm process reads a file's chunk once.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

from agent_core.effects import SessionSnapshot, StepEffects, StepToken, StoredAnswer, Telemetry, UnitWrite
from agent_core.ports import FileReader
from agent_core.segment import Segment
from storage.interface import CHUNK_CHARS, FileChunk, SessionStorageInterface

from .blocking import blocking

TEXT_CACHE_CHUNKS = 256
"""How many file chunks a process keeps (at most 256 × CHUNK_CHARS characters)."""


class TextCache:
    """File chunks by (session, file, chunk number), least recently used out first; thread-safe."""

    def __init__(self, capacity: int = TEXT_CACHE_CHUNKS) -> None:
        self._chunks: OrderedDict[tuple[str, str, int], FileChunk] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, int]) -> FileChunk | None:
        """The chunk, if cached."""
        with self._lock:
            chunk = self._chunks.get(key)
            if chunk is not None:
                self._chunks.move_to_end(key)
            return chunk

    def put(self, key: tuple[str, str, int], chunk: FileChunk) -> None:
        """Keep a chunk."""
        with self._lock:
            self._chunks[key] = chunk
            self._chunks.move_to_end(key)
            while len(self._chunks) > self._capacity:
                self._chunks.popitem(last=False)

    def forget(self, session_id: str) -> None:
        """Drop a deleted session's chunks."""
        with self._lock:
            for key in [k for k in self._chunks if k[0] == session_id]:
                del self._chunks[key]


class _Reader:
    """A session's files, chunk by chunk through the process cache."""

    def __init__(self, storage: SessionStorageInterface, cache: TextCache, session_id: str) -> None:
        self._storage = storage
        self._cache = cache
        self._session_id = session_id

    async def read_text(self, file_id: str, start: int, end: int) -> str:
        start, end = max(0, start), max(0, end)
        if end <= start:
            return ""
        parts = [
            (await self._chunk(file_id, n)).text for n in range(start // CHUNK_CHARS, (end - 1) // CHUNK_CHARS + 1)
        ]
        offset = (start // CHUNK_CHARS) * CHUNK_CHARS
        return "".join(parts)[start - offset : end - offset]

    async def segments(self, file_id: str, start: int, end: int) -> list[Segment]:
        """The segments overlapping `[start, end)`: those of the chunks that hold the range, and the
        one before that reaches into it (found in the chunks before, back to the one that has any)."""
        start, end = max(0, start), max(0, end)
        first = start // CHUNK_CHARS
        found = [
            s
            for n in range(first, (max(end, start + 1) - 1) // CHUNK_CHARS + 1)
            for s in (await self._chunk(file_id, n)).segments
        ]
        if not found or found[0].start > start:
            n = first - 1
            while n >= 0 and not (earlier := (await self._chunk(file_id, n)).segments):
                n -= 1
            if n >= 0:
                found.insert(0, earlier[-1])
        return [s for s in found if s.start < end and start < s.end]

    async def _chunk(self, file_id: str, n: int) -> FileChunk:
        key = (self._session_id, file_id, n)
        chunk = self._cache.get(key)
        if chunk is None:
            [chunk] = await blocking(self._storage.read_chunks, self._session_id, file_id, n, n)
            self._cache.put(key, chunk)  # a file's text and segments never change once uploaded
        return chunk


class StorageSessionStore:
    """agent_core's SessionStore over a storage backend."""

    def __init__(self, storage: SessionStorageInterface, *, cache: TextCache | None = None) -> None:
        self.storage = storage
        self.cache = cache or TextCache()

    async def load(self, session_id: str, *, window: int) -> SessionSnapshot:
        """The session's state for a step."""
        return await blocking(self.storage.load_step, session_id, window=window)

    async def commit(self, token: StepToken, effects: StepEffects, *, answer: StoredAnswer | None) -> None:
        """The step's effects, in one conditional transaction."""
        await blocking(self.storage.commit, token, effects, answer=answer)

    async def keep_answer(self, session_id: str, answer: StoredAnswer) -> None:
        """The answer to a request that committed nothing."""
        await blocking(self.storage.keep_answer, session_id, answer, now=int(time.time()))

    async def add_spent(self, session_id: str, spent: Telemetry) -> None:
        """What a step that did not commit spent, added to the session's counters."""
        await blocking(self.storage.add_spent, session_id, spent)

    def reader(self, session_id: str) -> FileReader:
        """A reader of the session's files."""
        return _Reader(self.storage, self.cache, session_id)

    async def units(self, session_id: str, file_id: str) -> list[UnitWrite]:
        """A file's written units."""
        return await blocking(self.storage.list_units, session_id, file_id)
