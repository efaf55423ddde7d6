"""The ports agent_core needs from the outside world; the service layer implements them over storage.

agent_core imports neither storage nor handlers: it states here what it needs (a session's state
for one step, a way to commit that step, a file's text, the owner's memory and a place for what
it learns). Every port is async: implementations run blocking I/O off the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from pydantic_ai.messages import ModelResponse

from .document import FileState
from .effects import Correction, SessionSnapshot, StepEffects, StepToken, StoredAnswer, Telemetry, UnitWrite
from .memory import Lessons, Memory
from .segment import Segment
from .tm import TmEntry, TmMatch, TmOrigin


class FileReader(Protocol):
    """Read access to one session's files, bounded to the characters asked for."""

    async def read_text(self, file_id: str, start: int, end: int) -> str:
        """The file's characters `[start, end)` (fewer at the end of the file)."""
        ...

    async def segments(self, file_id: str, start: int, end: int) -> Sequence[Segment]:
        """The file's segments that overlap `[start, end)`, in order (those found at upload)."""
        ...


async def untranslated_segments(reader: FileReader, file_id: str, start: int, end: int, gap_end: int) -> list[Segment]:
    """The segments of the untranslated span that begins at `start` and ends at `gap_end`, from
    `start` up to `end`, cut to the span (a unit written from the middle of a segment leaves the rest
    of it untranslated under the same id)."""
    found = await reader.segments(file_id, start, min(end, gap_end))
    return [Segment(s.index, max(s.start, start), min(s.end, gap_end), s.locked, s.context) for s in found]


class StepIO(FileReader, Protocol):
    """Everything one step reads and writes besides its session's snapshot, in one value: the session's
    file text and segments (as a FileReader), its written units, the owner's translation memory
    (proposals, similar sources, what the step's reviewed units add) and the distiller of its
    corrections. The loop and the tools reach the outside world only through it (a test fakes it as
    one object); what it read is kept for the step, so a second read of the same thing costs nothing."""

    async def units(self, file_id: str) -> Sequence[UnitWrite]:
        """A file's written units, in source order (read once per step)."""
        ...

    async def recall(self, files: Sequence[FileState]) -> ModelResponse | None:
        """Translate calls for the next units the translation memory holds exactly (None: ask the model)."""
        ...

    async def similar(self, source: str) -> Sequence[TmMatch]:
        """The translation memory's entries with sources similar to `source`, best first (none without one)."""
        ...

    async def prefetch(self, sources: Sequence[str]) -> None:
        """Look up the similar entries of a batch's sources at once (`similar` then reads nothing)."""
        ...

    async def admit(self, units: Sequence[UnitWrite]) -> tuple[Sequence[TmEntry], int]:
        """The reviewed units as translation-memory entries for the step to commit, and how many are new."""
        ...

    @property
    def distils(self) -> bool:
        """True when a distiller learns from the step's corrections (the rules, for the `pseudo` model)."""
        ...

    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        """What the distiller learns from `corrections`, distilled once per step (the same lessons, or the
        same error, when asked again: before the model request and after the commit)."""
        ...


class SessionStore(Protocol):
    """Loads and commits sessions, one step at a time."""

    async def load(self, session_id: str, *, window: int) -> SessionSnapshot:
        """The session's state for a step; NotFoundError for an unknown id."""
        ...

    async def commit(self, token: StepToken, effects: StepEffects, *, answer: StoredAnswer | None) -> None:
        """Commit atomically if the session is still at the token's version, else ConflictError."""
        ...

    async def keep_answer(self, session_id: str, answer: StoredAnswer) -> None:
        """Keep the answer to a request that committed nothing (ConflictError if one is kept)."""
        ...

    async def add_spent(self, session_id: str, spent: Telemetry) -> None:
        """Add what a step that did not commit spent (a model request the provider billed) to the session's
        counters, whatever its version: what a budget counts is what was billed."""
        ...

    def reader(self, session_id: str) -> FileReader:
        """A reader of the session's files for one step."""
        ...

    async def units(self, session_id: str, file_id: str) -> Sequence[UnitWrite]:
        """A file's written units, in source order."""
        ...


class MemoryStore(Protocol):
    """The owner's memory: what a step shows the model, and where distilled lessons go."""

    async def recall(self, owner: str) -> Memory:
        """The owner's glossary, style notes and latest corrections, every language pair (one read that
        stands alone: it may run beside the read of the session)."""
        ...

    async def learn(self, owner: str, lessons: Lessons) -> None:
        """Add the lessons to the owner's memory (deduplicated; entries the owner wrote win)."""
        ...


class TranslationMemoryPort(Protocol):
    """The owner's translation memory: reviewed units by language pair."""

    async def refresh(self, owner: str) -> None:
        """Read what changed in the owner's memory, once per step, after the step's `MemoryStore.recall`
        (whose read may show that nothing did) and before its lookups (which then read nothing more)."""
        ...

    async def exact(self, owner: str, languages: str, sources: Sequence[str]) -> dict[str, TmEntry]:
        """For each of `sources` the memory holds (whitespace-normalised), its entry."""
        ...

    async def similar(self, owner: str, languages: str, source: str, *, limit: int = 3) -> list[TmMatch]:
        """Entries with similar sources (75% or more), best first."""
        ...

    async def similar_many(
        self, owner: str, languages: str, sources: Sequence[str], *, limit: int = 3
    ) -> dict[str, list[TmMatch]]:
        """`similar` for each of a batch's sources, in one lookup."""
        ...

    async def admit(
        self,
        owner: str,
        languages: str,
        pairs: Sequence[tuple[str, str, TmOrigin]],
        *,
        keys: Sequence[str | None] = (),
    ) -> tuple[list[TmEntry], int]:
        """Reviewed units as entries for a step to commit (`keys[k]`: the key of the k-th unit's string,
        None for a document's text): those the owner's memory has room for, and how many of them it does
        not hold yet."""
        ...

    def kept(self, owner: str, entries: Sequence[TmEntry]) -> None:
        """The step that carried `entries` has committed: this process's lookups have them at once."""
        ...
