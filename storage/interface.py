"""SessionStorageInterface: the small, storage-speaking contract every backend implements.

It knows records, versions and pages, never copilot or translation rules (those live in
`storage.manager.SessionManager` and `agent_core`). Every backend passes one conformance suite
(`tests/storage_conformance.py`) and raises only the errors of `storage.errors`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

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
    UnitRecord,
)

CHUNK_CHARS = 32_000
"""File content is stored in chunks of this many characters (under DynamoDB's 400 KB item limit)."""


class SessionStorageInterface(ABC):
    """Sessions, their messages, verdicts, files and units, and owners' corrections and memory."""

    @abstractmethod
    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record; NotFoundError if there is none."""

    @abstractmethod
    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, most recently updated first."""

    @abstractmethod
    def delete_session(self, session_id: str) -> None:
        """Delete the session and everything stored with it (no error if absent)."""

    @abstractmethod
    def commit(self, write: StepWrite) -> None:
        """Write a step atomically if the session's version is `write.expected_version`, else ConflictError."""

    @abstractmethod
    def latest_messages(self, session_id: str, *, limit: int, count: int | None = None) -> list[MessageRecord]:
        """The session's last `limit` messages, oldest first (`count`: the message count, if known)."""

    @abstractmethod
    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[MessageRecord]:
        """The session's messages, oldest first, a page at a time."""

    @abstractmethod
    def copilot_responses(self, session_id: str, *, response_index: int) -> list[CopilotResponseRecord]:
        """The verdicts on the calls of the model response at `response_index`."""

    @abstractmethod
    def list_copilot_responses(self, session_id: str, *, cursor: str | None, limit: int) -> Page[CopilotResponseRecord]:
        """All the session's verdicts, oldest first, a page at a time."""

    @abstractmethod
    def add_file(self, session_id: str, record: FileRecord, content: str) -> None:
        """Store a new file of an existing session (NotFoundError if the session is gone)."""

    @abstractmethod
    def list_files(self, session_id: str) -> list[FileRecord]:
        """The session's files, in the order they were added."""

    @abstractmethod
    def get_file(self, session_id: str, file_id: str) -> FileRecord:
        """One file's record; NotFoundError if there is none."""

    @abstractmethod
    def read_file(self, session_id: str, file_id: str, start: int, end: int) -> str:
        """The file's characters `[start, end)`, reading only the chunks that hold them."""

    @abstractmethod
    def list_units(self, session_id: str, file_id: str) -> list[UnitRecord]:
        """The file's written units, in source order."""

    @abstractmethod
    def get_idempotency(self, owner: str, key: str, *, now: int) -> IdempotencyRecord | None:
        """The remembered answer for the owner's key, unless it expired before `now` (epoch seconds)."""

    @abstractmethod
    def put_idempotency(self, record: IdempotencyRecord, *, now: int) -> None:
        """Remember an answer; ConflictError if an unexpired one exists for that owner and key."""

    @abstractmethod
    def recent_corrections(self, owner: str, *, limit: int) -> list[CorrectionRecord]:
        """The owner's latest corrections, newest first."""

    @abstractmethod
    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's glossary entries and style notes, oldest first (by `created_at`, then id).

        All of them: `storage.owner_memory.OwnerMemory` keeps their number bounded.
        """

    @abstractmethod
    def put_memory_entry(self, record: MemoryEntryRecord) -> None:
        """Add the entry, or replace the owner's entry that has the same id."""

    @abstractmethod
    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Delete the owner's entry; NotFoundError if the owner has no entry with that id."""


def chunks(content: str) -> list[str]:
    """`content` cut into storage chunks (at least one, possibly empty)."""
    return [content[i : i + CHUNK_CHARS] for i in range(0, len(content), CHUNK_CHARS)] or [""]
