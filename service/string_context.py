"""A string's context (API.md "Context for strings"): its entry, its neighbours and its other languages.

What a translator sees beside one string of a file: the entry's key, developer's note, `#:`
references, flags, locked codes and plural source forms (stored with the segment at upload), the two
strings before and after it as the segment list shows them (`service.segments.build_segments`), and the
same key's written text in the owner's other sessions (a project's: the project's, less the languages
the caller may not read) that hold a file of the same name, each language once, from its most
recently updated session that has the string written.

The work is bounded before it starts: the file is read as the segment list reads it; beside it, one
page of the owner's sessions (MAX_LISTED, most recently updated first); then at most MAX_READ of them
are read, in at most PER_LANGUAGE rounds (the latest untried session of each language still without
an answer, side by side): each one's record and files (one load), then, for a file of the same name
with something written, the chunk that holds the string at the same place and the file's units (side
by side), and the chunks either side of it only when the string is not there (the file changed
between uploads). A client asks for it when a translator opens a string's context, not for every card.
"""

from __future__ import annotations

import asyncio
import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_core.errors import NotFoundError
from agent_core.segment import Segment as StoredSegment
from agent_core.segment import segment_index
from storage.interface import CHUNK_CHARS, Storage
from storage.records import SessionRecord

from .access import may
from .blocking import blocking
from .owners import Acting
from .segment_schemas import Segment
from .segments import entry_context, segment_status
from .sessions import SessionService, file_id, pick_file, session_id
from .string_context_schemas import Neighbour, OtherLanguage, StringContext
from .workbench import FileView, target_tag

if TYPE_CHECKING:
    from agent_core.runtime import AgentRuntime

NEIGHBOURS = 2
"""How many strings before and after the one asked about are shown."""
MAX_LANGUAGES = 20
"""The most other languages an answer lists."""
MAX_LISTED = 100
"""How many of the owner's sessions are listed (one page, most recently updated first)."""
MAX_READ = 30
"""The most other sessions one answer reads (20 latest ones of as many languages, then 10 older ones)."""
PER_LANGUAGE = 2
"""The most sessions of one language tried (the next only when the latest has not written the string)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Wanted:
    """The string looked for in other sessions: its file's name, its key, and where it begins."""

    name: str
    key: str
    start: int


class StringContexts:
    """The context of one string of the caller's (or their project's) file."""

    def __init__(self, storage: Storage, runtime: AgentRuntime, sessions: SessionService) -> None:
        self.storage = storage
        self.runtime = runtime
        self.sessions = sessions

    async def context(self, acting: Acting, caller: str, sid: str, fid: str, segment: str) -> StringContext:
        """The context of segment `segment` of the file; NotFoundError for a segment the file does not have."""
        index = segment_index(segment)
        if index is None:
            raise NotFoundError(f"No segment {segment[:40]!r} in this file.")
        listed = blocking(self.storage.list_sessions, acting.owner, cursor=None, limit=MAX_LISTED)
        view, page = await asyncio.gather(self._view(acting.owner, sid, fid), listed)
        if index >= len(view.stored):
            raise NotFoundError(f"No segment {segment[:40]!r} in this file.")
        stored = view.stored[index]
        context, found = entry_context(stored), stored.context
        before, after = neighbours(view.segments(), stored.start)
        others: list[OtherLanguage] = []
        if found is not None:
            wanted = Wanted(name=view.state.name, key=found.key, start=stored.start)
            own = view.snapshot.target_language or target_tag(view.snapshot)
            candidates = [r for r in page.items if r.session_id != view.snapshot.token.session_id]
            if acting.access is not None:  # a project's: only the languages the caller may read
                project = acting.access.project
                candidates = [r for r in candidates if may(project, caller, "read", r.target_language)]
            others = await self._other_languages(candidates, own, wanted)
        return StringContext(
            id=stored.id,
            key=context.key if context else None,
            note=context.note if context else None,
            refs=list(context.refs) if context else [],
            flags=list(context.flags) if context else [],
            codes=list(context.codes) if context else [],
            plural=dict(found.plural) if found is not None and found.plural else None,
            before=before,
            after=after,
            otherLanguages=others,
        )

    async def _view(self, owner: str, sid: str, fid: str) -> FileView:
        """The file as the segment list reads it (`Workbench.view`), its reads side by side: the session's
        files beside its pending proposals, then the file's text and segments beside its units."""
        sid, fid = session_id(sid), file_id(fid)
        snapshot, (_, requests, done) = await asyncio.gather(
            blocking(self.storage.load_step, sid, window=0), self.runtime.pending_and_decided(owner, sid)
        )
        if snapshot.token.owner != owner:  # another caller's session is not found, like a missing one
            raise NotFoundError(f"No session {sid}.")
        state = pick_file(snapshot.files, fid)
        (source, stored), units = await asyncio.gather(
            blocking(self.sessions.document, sid, state), blocking(self.sessions.units, sid, state)
        )
        return FileView(
            snapshot=snapshot,
            state=state,
            source=source,
            stored=stored,
            units=units,
            pending=[r for r in requests if r.file_id == fid],
            decided=[u for u in done if u.file_id == fid],
        )

    async def _other_languages(
        self, records: Sequence[SessionRecord], own: str | None, wanted: Wanted
    ) -> list[OtherLanguage]:
        """The string written in each other language, from the latest of `records` (newest first) that has it."""
        queues: dict[str, list[SessionRecord]] = {}
        for record in records:
            language = record.target_language
            if language is None or language == own:
                continue
            if language in queues or len(queues) < MAX_LANGUAGES:
                queues.setdefault(language, []).append(record)
        answers: dict[str, OtherLanguage] = {}
        budget = MAX_READ
        for attempt in range(PER_LANGUAGE):
            tried = [q[attempt] for lang, q in queues.items() if lang not in answers and len(q) > attempt][:budget]
            if not tried:
                break
            budget -= len(tried)
            found = await asyncio.gather(*(self._written(r, wanted) for r in tried))
            answers |= {a.language: a for a in found if a is not None}
        return [answers[lang] for lang in queues if lang in answers]

    async def _written(self, record: SessionRecord, wanted: Wanted) -> OtherLanguage | None:
        """The string as the session wrote it in a file of the same name (None: no such file, string or unit)."""
        sid = record.session_id
        try:
            snapshot = await blocking(self.storage.load_step, sid, window=0)
            state = next((f for f in snapshot.files if f.name == wanted.name), None)
            if state is None or not state.covered or record.target_language is None:
                return None  # no such file, or nothing of it written: no unit to read
            chunk = min(wanted.start // CHUNK_CHARS, max(state.chars - 1, 0) // CHUNK_CHARS)
            near, units = await asyncio.gather(
                blocking(self.storage.read_chunks, sid, state.file_id, chunk, chunk),
                blocking(self.storage.list_units, sid, state.file_id),
            )
            segment = _keyed([s for c in near for s in c.segments], wanted)
            if segment is None:  # the file changed between uploads: the key's nearest, a chunk either side too
                last = max(state.chars - 1, 0) // CHUNK_CHARS
                sides = [k for k in (chunk - 1, chunk + 1) if 0 <= k <= last]
                more = await asyncio.gather(
                    *(blocking(self.storage.read_chunks, sid, state.file_id, k, k) for k in sides)
                )
                held = [s for c in [*near, *(c for found in more for c in found)] for s in c.segments]
                segment = _keyed(held, wanted, nearest=True)
        except NotFoundError:  # deleted since it was listed
            return None
        unit = next((u for u in units if segment is not None and u.start <= segment.start < u.end), None)
        if unit is None:
            return None
        return OtherLanguage(
            language=record.target_language,
            sessionId=sid,
            fileId=state.file_id,
            target=unit.text,
            status=segment_status(unit),
        )


def _keyed(segments: Sequence[StoredSegment], wanted: Wanted, *, nearest: bool = False) -> StoredSegment | None:
    """The segment of `segments` that is the wanted string: the key's segment at the same place (the same
    file uploaded again); with `nearest`, the key's segment nearest that place (a resource file's key is
    its one segment; a document's block holds several)."""
    keyed = [s for s in segments if s.context is not None and s.context.key == wanted.key]
    if nearest:
        return min(keyed, key=lambda s: abs(s.start - wanted.start), default=None)
    return next((s for s in keyed if s.start == wanted.start), None)


def neighbours(pieces: Sequence[Segment], start: int) -> tuple[list[Neighbour], list[Neighbour]]:
    """The NEIGHBOURS pieces of the segment list before and after the one holding position `start`."""
    k = max(bisect.bisect_right([p.start for p in pieces], start) - 1, 0)

    def shown(piece: Segment) -> Neighbour:
        key = piece.context.key if piece.context is not None else None
        return Neighbour(id=piece.id, key=key, source=piece.source, target=piece.target, status=piece.status)

    before = pieces[max(k - NEIGHBOURS, 0) : k]
    return [shown(p) for p in before], [shown(p) for p in pieces[k + 1 : k + 1 + NEIGHBOURS]]
