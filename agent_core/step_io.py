"""The step's I/O over the ports: one `StepIO` value per step, built by the runtime.

It holds the session's reader, its written units, the owner's translation memory and the distiller,
bound to the step's session, owner and language pair, and keeps what it read for the rest of the
step: a file's units are read once, a source's similar entries are looked up once (a batch's at
once), and the corrections are distilled once (before the model request, and the same lessons again
after the commit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic_ai.messages import ModelResponse

from .ahead import BATCH_CHARS, memory_proposals
from .distill import Distiller
from .document import FileState
from .effects import Correction, UnitWrite
from .memory import Lessons
from .ports import FileReader, SessionStore, TranslationMemoryPort
from .segment import Segment
from .tm import TmEntry, TmMatch, TmOrigin, string_key


@dataclass(kw_only=True)
class PortsStepIO:
    """`agent_core.ports.StepIO` over the session store, the translation memory and a distiller."""

    store: SessionStore
    reader: FileReader
    session_id: str
    owner: str
    languages: str
    tm: TranslationMemoryPort | None = None
    """Where reviewed units are remembered (None: nowhere)."""
    lookups: TranslationMemoryPort | None = None
    """Where remembered units are proposed from and similar ones shown (None: no lookups)."""
    distiller: Distiller | None = None
    batch_chars: int = BATCH_CHARS
    _units: dict[str, Sequence[UnitWrite]] = field(default_factory=dict)
    _similar: dict[str, Sequence[TmMatch]] = field(default_factory=dict)
    _distilled: tuple[tuple[Correction, ...], Lessons | BaseException] | None = None

    async def read_text(self, file_id: str, start: int, end: int) -> str:
        """The file's characters `[start, end)`."""
        return await self.reader.read_text(file_id, start, end)

    async def segments(self, file_id: str, start: int, end: int) -> Sequence[Segment]:
        """The file's segments that overlap `[start, end)`."""
        return await self.reader.segments(file_id, start, end)

    async def units(self, file_id: str) -> Sequence[UnitWrite]:
        """A file's written units, read once per step."""
        if file_id not in self._units:
            self._units[file_id] = await self.store.units(self.session_id, file_id)
        return self._units[file_id]

    async def recall(self, files: Sequence[FileState]) -> ModelResponse | None:
        """The translation memory's proposals for the next units (None without lookups)."""
        if self.lookups is None:
            return None
        return await memory_proposals(
            self.lookups, self.owner, self.languages, self.reader, files, batch_chars=self.batch_chars
        )

    async def similar(self, source: str) -> Sequence[TmMatch]:
        """Similar sources of the translation memory, looked up once per source."""
        if self.lookups is None:
            return []
        if source not in self._similar:
            self._similar[source] = await self.lookups.similar(self.owner, self.languages, source)
        return self._similar[source]

    async def prefetch(self, sources: Sequence[str]) -> None:
        """One lookup for the sources not looked up yet."""
        wanted = [s for s in dict.fromkeys(sources) if s not in self._similar]
        if self.lookups is not None and wanted:
            self._similar.update(await self.lookups.similar_many(self.owner, self.languages, wanted))

    async def admit(self, units: Sequence[UnitWrite]) -> tuple[Sequence[TmEntry], int]:
        """The units, with their sources read from the file and the keys of their strings (a resource
        file's), as entries the owner's memory has room for."""
        if self.tm is None or not units:
            return [], 0
        pairs = [(await self.reader.read_text(u.file_id, u.start, u.end), u.text, _origin(u.status)) for u in units]
        keys = [string_key(s.context for s in await self.reader.segments(u.file_id, u.start, u.end)) for u in units]
        return await self.tm.admit(self.owner, self.languages, pairs, keys=keys)

    @property
    def distils(self) -> bool:
        """True when a distiller learns from the step's corrections."""
        return self.distiller is not None

    async def distill(self, corrections: Sequence[Correction], *, languages: str) -> Lessons:
        """The distiller's lessons of `corrections`, distilled at most once for the same corrections."""
        if self.distiller is None or not corrections:
            return Lessons()
        given = tuple(corrections)
        if self._distilled is None or self._distilled[0] != given:
            try:
                found: Lessons | BaseException = await self.distiller.distill(given, languages=languages)
            except Exception as exc:  # kept: asked again, the step gets the same failure, not a second try
                found = exc
            self._distilled = (given, found)
        result = self._distilled[1]
        if isinstance(result, BaseException):
            raise result
        return result


def _origin(status: str) -> TmOrigin:
    return "refined" if status == "refined" else "revised" if status == "revised" else "approved"
