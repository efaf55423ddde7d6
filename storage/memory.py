"""MemorySessionStorage: an in-process backend, real in every rule (tests, benchmarks, demos)."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from .errors import ConflictError, InvalidCursorError, NotFoundError
from .interface import SessionStorageInterface, chunks
from .records import (
    CopilotResponseRecord,
    CorrectionRecord,
    FileRecord,
    IdempotencyRecord,
    MemoryEntryRecord,
    MessageRecord,
    Page,
    SessionRecord,
    StepWrite,
    T,
    UnitRecord,
)


class _Session:
    def __init__(self, record: SessionRecord) -> None:
        self.record = record
        self.messages: list[MessageRecord] = []
        self.responses: dict[tuple[int, str], CopilotResponseRecord] = {}
        self.files: dict[str, FileRecord] = {}
        self.content: dict[str, list[str]] = {}
        self.units: dict[str, dict[int, UnitRecord]] = {}


class MemorySessionStorage(SessionStorageInterface):
    """Keeps everything in dictionaries behind one lock; gone when the process ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: dict[str, _Session] = {}
        self._corrections: dict[str, list[CorrectionRecord]] = {}
        self._idempotency: dict[tuple[str, str], IdempotencyRecord] = {}
        self._memory: dict[str, dict[str, MemoryEntryRecord]] = {}

    @classmethod
    def from_env(cls) -> MemorySessionStorage:
        """A new, empty store (it has no settings)."""
        return cls()

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise NotFoundError(f"No session {session_id}.")
        return session

    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record."""
        with self._lock:
            return self._session(session_id).record

    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, most recently updated first."""
        with self._lock:
            records = [s.record for s in self._sessions.values() if s.record.owner == owner]
        records.sort(key=lambda r: (r.updated_at, r.session_id), reverse=True)
        return _page(records, cursor, limit)

    def delete_session(self, session_id: str) -> None:
        """Forget the session."""
        with self._lock:
            self._sessions.pop(session_id, None)

    def commit(self, write: StepWrite) -> None:
        """Apply the step if the version matches."""
        sid = write.session.session_id
        with self._lock:
            current = self._sessions.get(sid)
            version = current.record.version if current else 0
            if version != write.expected_version:
                raise ConflictError("The session advanced concurrently; reload it and try again.")
            session = current or _Session(write.session)
            _check(session, write)
            if write.idempotency is not None:
                self._check_idempotency(write.idempotency)
            session.record = write.session
            session.messages.extend(write.messages)
            for response in write.copilot_responses:
                session.responses[(response.response_index, response.call_id)] = response
            for unit in write.units:
                session.units.setdefault(unit.file_id, {})[unit.start] = unit
            for file_id, covered in write.coverage.items():
                session.files[file_id] = replace(session.files[file_id], covered=covered)
            for correction in write.corrections:
                self._corrections.setdefault(correction.owner, []).append(correction)
            self._sessions[sid] = session
            if write.idempotency is not None:
                record = write.idempotency
                self._idempotency[(record.owner, record.key)] = record

    def latest_messages(self, session_id: str, *, limit: int, count: int | None = None) -> list[MessageRecord]:
        """The last messages, oldest first."""
        with self._lock:
            return self._session(session_id).messages[-limit:] if limit > 0 else []

    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[MessageRecord]:
        """The messages, oldest first."""
        with self._lock:
            messages = list(self._session(session_id).messages)
        return _page(messages, cursor, limit)

    def copilot_responses(self, session_id: str, *, response_index: int) -> list[CopilotResponseRecord]:
        """The verdicts on one response's calls."""
        with self._lock:
            responses = self._session(session_id).responses
            return [r for (index, _), r in sorted(responses.items()) if index == response_index]

    def list_copilot_responses(self, session_id: str, *, cursor: str | None, limit: int) -> Page[CopilotResponseRecord]:
        """All verdicts, oldest first."""
        with self._lock:
            responses = [r for _, r in sorted(self._session(session_id).responses.items())]
        return _page(responses, cursor, limit)

    def add_file(self, session_id: str, record: FileRecord, content: str) -> None:
        """Store a file."""
        with self._lock:
            session = self._session(session_id)
            session.content[record.file_id] = chunks(content)
            session.files[record.file_id] = record

    def list_files(self, session_id: str) -> list[FileRecord]:
        """The files in upload order."""
        with self._lock:
            return list(self._session(session_id).files.values())

    def get_file(self, session_id: str, file_id: str) -> FileRecord:
        """One file."""
        with self._lock:
            record = self._session(session_id).files.get(file_id)
        if record is None:
            raise NotFoundError(f"No file {file_id} in this session.")
        return record

    def read_file(self, session_id: str, file_id: str, start: int, end: int) -> str:
        """A slice of the file's text."""
        with self._lock:
            parts = self._session(session_id).content.get(file_id)
        if parts is None:
            raise NotFoundError(f"No file {file_id} in this session.")
        return "".join(parts)[max(0, start) : max(0, end)]

    def list_units(self, session_id: str, file_id: str) -> list[UnitRecord]:
        """The file's units by position."""
        with self._lock:
            units = self._session(session_id).units.get(file_id, {})
            return [units[k] for k in sorted(units)]

    def get_idempotency(self, owner: str, key: str, *, now: int) -> IdempotencyRecord | None:
        """The unexpired answer, if any."""
        with self._lock:
            record = self._idempotency.get((owner, key))
        return record if record is not None and record.expires_at > now else None

    def put_idempotency(self, record: IdempotencyRecord, *, now: int) -> None:
        """Remember an answer unless an unexpired one exists."""
        with self._lock:
            existing = self._idempotency.get((record.owner, record.key))
            if existing is not None and existing.expires_at > now:
                raise ConflictError("A request with this Idempotency-Key is already recorded.")
            self._idempotency[(record.owner, record.key)] = record

    def _check_idempotency(self, record: IdempotencyRecord) -> None:
        existing = self._idempotency.get((record.owner, record.key))
        if existing is not None and existing.expires_at > int(time.time()):
            raise ConflictError("A request with this Idempotency-Key is already recorded.")

    def recent_corrections(self, owner: str, *, limit: int) -> list[CorrectionRecord]:
        """Newest first."""
        with self._lock:
            return list(reversed(self._corrections.get(owner, [])))[:limit]

    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """Oldest first."""
        with self._lock:
            entries = list(self._memory.get(owner, {}).values())
        return sorted(entries, key=lambda e: (e.created_at, e.entry_id))

    def put_memory_entry(self, record: MemoryEntryRecord) -> None:
        """Add or replace by id."""
        with self._lock:
            self._memory.setdefault(record.owner, {})[record.entry_id] = record

    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Forget the entry; NotFoundError if the owner has none with that id."""
        with self._lock:
            if self._memory.get(owner, {}).pop(entry_id, None) is None:
                raise NotFoundError(f"No memory entry {entry_id}.")


def _check(session: _Session, write: StepWrite) -> None:
    """Refuse the whole write before changing anything, as a transaction would."""
    indexes = [m.index for m in write.messages]
    if len(set(indexes)) != len(indexes) or any(m.index < len(session.messages) for m in write.messages):
        raise ConflictError("A message at that index is already written.")
    starts = [(u.file_id, u.start) for u in write.units]
    if len(set(starts)) != len(starts):
        raise ConflictError("Two units at the same position in one step.")
    for unit in write.units:
        if unit.start in session.units.get(unit.file_id, {}):
            raise ConflictError(f"A unit at {unit.start} of {unit.file_id} is already written.")
    for file_id in write.coverage:
        if file_id not in session.files:
            raise NotFoundError(f"No file {file_id} in this session.")


def _page(items: list[T], cursor: str | None, limit: int) -> Page[T]:
    try:
        offset = int(cursor) if cursor else 0
    except ValueError as exc:
        raise InvalidCursorError("Invalid cursor.") from exc
    if offset < 0:
        raise InvalidCursorError("Invalid cursor.")
    if limit <= 0:
        return Page([], None)
    chunk = items[offset : offset + limit]
    following = offset + limit
    return Page(chunk, str(following) if following < len(items) else None)
