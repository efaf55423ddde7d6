"""SessionManager: speaks the agent's language on top of a SessionStorageInterface.

It implements agent_core's `SessionStore` port (load a step's state, commit a step) and the
read-side operations the API needs (views, files, assembled translations). Messages are stored and
loaded only through pydantic-ai's ModelMessagesTypeAdapter.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from pydantic import ConfigDict, TypeAdapter
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse

from agent_core.context import Verdict
from agent_core.copilot import CopilotResponseAdapter
from agent_core.document import FileState, initial_coverage
from agent_core.errors import InvalidRequestError, NotFoundError, StorageUnavailableError
from agent_core.ids import new_id
from agent_core.ports import Remembered, SessionSnapshot, StepCommit

from .interface import SessionStorageInterface
from .owner_memory import OwnerMemory
from .records import (
    SCHEMA_VERSION,
    CopilotResponseRecord,
    CorrectionRecord,
    FileRecord,
    IdempotencyRecord,
    MessageRecord,
    Page,
    SessionRecord,
    StepWrite,
    UnitRecord,
)

_MESSAGE: TypeAdapter[ModelMessage] = TypeAdapter(ModelMessage, config=ConfigDict(defer_build=True))
MAX_FILES = 20
MAX_FILE_CHARS = 2_000_000
IDEMPOTENCY_TTL_SECONDS = 24 * 3600
"""How long the answer to a request with an Idempotency-Key is kept for its retries."""


def now_iso() -> str:
    """The current time, ISO 8601 with a zone."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def dump_message(message: ModelMessage) -> str:
    """One message as stored JSON (None fields dropped; they round-trip)."""
    return _MESSAGE.dump_json(message, exclude_none=True).decode()


def load_messages(records: Sequence[MessageRecord]) -> list[ModelMessage]:
    """Stored messages back as pydantic-ai messages."""
    if not records:
        return []
    return ModelMessagesTypeAdapter.validate_json("[" + ",".join(r.data for r in records) + "]")


class _Reader:
    """A file reader for one step: reads a window ahead once and serves the tools' small reads from it."""

    AHEAD = 4_096

    def __init__(self, storage: SessionStorageInterface, session_id: str) -> None:
        self.storage = storage
        self.session_id = session_id
        self._cache: dict[str, tuple[int, str, bool]] = {}

    async def read_text(self, file_id: str, start: int, end: int) -> str:
        cached = self._cache.get(file_id)
        if cached is not None:
            first, text, at_eof = cached
            if first <= start and (end <= first + len(text) or at_eof):
                return text[start - first : end - first]
        wanted = max(end, start + self.AHEAD)
        text = self.storage.read_file(self.session_id, file_id, start, wanted)
        self._cache[file_id] = (start, text, len(text) < wanted - start)
        return text[: max(0, end - start)]


class SessionManager:
    """Sessions for the agent and the API, over any SessionStorageInterface."""

    def __init__(self, storage: SessionStorageInterface, *, window: int = 16) -> None:
        self.storage = storage
        self.window = window
        self.memory = OwnerMemory(storage)
        """Owners' glossary entries and style notes; agent_core's MemoryStore port."""
        self._loaded: dict[tuple[str, int], SessionRecord] = {}

    # -- the SessionStore port -------------------------------------------------------------

    async def new_step(self, owner: str, session_id: str) -> SessionSnapshot:
        """The state of a session that does not exist yet."""
        return SessionSnapshot(
            session_id=session_id,
            owner=owner,
            version=0,
            created_at=now_iso(),
            message_count=0,
            window=[],
            window_complete=True,
            user_inputs=[],
            copilot_responses=[],
            files=[],
            reader=_Reader(self.storage, session_id),
            memory=self.memory.snapshot(owner),
        )

    async def load_step(self, owner: str, session_id: str) -> SessionSnapshot:
        """The session's record, latest messages, pending verdicts, files and the owner's memory."""
        record = self.session(owner, session_id)
        self._loaded[(session_id, record.version)] = record
        while len(self._loaded) > 256:  # forget records of steps that never committed
            self._loaded.pop(next(iter(self._loaded)))
        records = self.storage.latest_messages(session_id, limit=self.window, count=record.message_count)
        window = load_messages(records)
        verdicts: list[Verdict] = []
        for offset in range(len(window) - 1, -1, -1):
            if isinstance(window[offset], ModelResponse):
                index = records[offset].index
                stored = self.storage.copilot_responses(session_id, response_index=index)
                verdicts = [CopilotResponseAdapter.validate_json(r.data) for r in stored]
                break
        return SessionSnapshot(
            session_id=session_id,
            owner=owner,
            version=record.version,
            created_at=record.created_at,
            message_count=record.message_count,
            window=window,
            window_complete=record.message_count <= len(window),
            user_inputs=record.user_inputs,
            copilot_responses=verdicts,
            files=self.file_states(session_id),
            reader=_Reader(self.storage, session_id),
            memory=self.memory.snapshot(owner),
        )

    async def commit_step(self, commit: StepCommit) -> None:
        """Write the step in one conditional transaction."""
        stamp = now_iso()
        messages = [
            MessageRecord(index=commit.message_count + i, data=dump_message(m)) for i, m in enumerate(commit.messages)
        ]
        responses = [
            CopilotResponseRecord(
                response_index=commit.response_index,
                call_id=r.tool.call_id,
                data=CopilotResponseAdapter.dump_json(r, by_alias=True, exclude_none=True).decode(),
                created_at=stamp,
            )
            for r in commit.copilot_responses
        ]
        previous = self._previous(commit)
        spent = commit.telemetry
        record = replace(
            previous,
            created_at=commit.created_at,
            updated_at=stamp,
            version=commit.expected_version + 1,
            message_count=commit.message_count + len(messages),
            copilot_response_count=previous.copilot_response_count + len(responses),
            user_inputs=tuple(commit.user_inputs),
            schema_version=SCHEMA_VERSION,
            steps=previous.steps + spent.steps,
            model_requests=previous.model_requests + spent.model_requests,
            input_tokens=previous.input_tokens + spent.input_tokens,
            output_tokens=previous.output_tokens + spent.output_tokens,
            model_ms=previous.model_ms + spent.model_ms,
        )
        units = [
            UnitRecord(
                file_id=u.file_id,
                start=u.start,
                end=u.end,
                cover_end=u.cover_end,
                text=u.text,
                call_id=u.call_id,
                status=u.status,
            )
            for u in commit.units
        ]
        corrections = [
            CorrectionRecord(
                correction_id=uuid.uuid4().hex,
                owner=commit.owner,
                session_id=commit.session_id,
                file_id=c.file_id,
                status=c.status,
                source=c.source,
                proposal=c.proposal,
                final=c.final,
                reason=c.reason,
                created_at=stamp,
            )
            for c in commit.corrections
        ]
        kept = self._idempotency(commit.owner, commit.remembered, stamp) if commit.remembered else None
        self.storage.commit(
            StepWrite(
                session=record,
                expected_version=commit.expected_version,
                messages=messages,
                copilot_responses=responses,
                units=units,
                coverage=dict(commit.coverage),
                corrections=corrections,
                idempotency=kept,
            )
        )

    async def remember(self, owner: str, remembered: Remembered) -> None:
        """Keep the answer to a request that committed nothing."""
        record = self._idempotency(owner, remembered, now_iso())
        self.storage.put_idempotency(record, now=int(time.time()))

    def recall(self, owner: str, key: str) -> IdempotencyRecord | None:
        """The kept answer for the caller's idempotency key, unless it expired."""
        return self.storage.get_idempotency(owner, key, now=int(time.time()))

    def _idempotency(self, owner: str, remembered: Remembered, stamp: str) -> IdempotencyRecord:
        return IdempotencyRecord(
            owner=owner,
            key=remembered.key,
            request_hash=remembered.request_hash,
            status=200,
            body=remembered.body,
            created_at=stamp,
            expires_at=int(time.time()) + IDEMPOTENCY_TTL_SECONDS,
        )

    def _previous(self, commit: StepCommit) -> SessionRecord:
        """The record the step loaded (cached by load_step, so a commit costs no extra read)."""
        if commit.expected_version == 0:
            return SessionRecord(
                session_id=commit.session_id,
                owner=commit.owner,
                created_at=commit.created_at,
                updated_at=commit.created_at,
                version=0,
            )
        loaded = self._loaded.pop((commit.session_id, commit.expected_version), None)
        return loaded or self.storage.get_session(commit.session_id)

    # -- API operations --------------------------------------------------------------------

    def session(self, owner: str, session_id: str) -> SessionRecord:
        """The caller's session; another caller's session is NotFound, like a missing one."""
        record = self.storage.get_session(session_id)
        if record.owner != owner:
            raise NotFoundError(f"No session {session_id}.")
        if record.schema_version > SCHEMA_VERSION:
            raise StorageUnavailableError(
                f"Session {session_id} was written by a newer version of this app (schema "
                f"{record.schema_version} > {SCHEMA_VERSION}); upgrade the app to open it."
            )
        return record

    def create_session(self, owner: str) -> SessionRecord:
        """A new, empty session."""
        stamp = now_iso()
        record = SessionRecord(session_id=new_id("s"), owner=owner, created_at=stamp, updated_at=stamp, version=1)
        self.storage.commit(StepWrite(session=record, expected_version=0))
        return record

    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The caller's sessions, newest first."""
        return self.storage.list_sessions(owner, cursor=cursor, limit=limit)

    def delete_session(self, owner: str, session_id: str) -> None:
        """Delete the caller's session and all stored with it."""
        self.session(owner, session_id)
        self.storage.delete_session(session_id)

    def messages(self, owner: str, session_id: str, *, cursor: str | None, limit: int) -> Page[MessageRecord]:
        """A page of the whole history, oldest first."""
        self.session(owner, session_id)
        return self.storage.list_messages(session_id, cursor=cursor, limit=limit)

    def latest_messages(self, session_id: str, *, limit: int) -> list[MessageRecord]:
        """The latest messages, oldest first."""
        return self.storage.latest_messages(session_id, limit=limit)

    def copilot_responses(self, session_id: str, *, limit: int) -> Page[CopilotResponseRecord]:
        """The session's verdicts, oldest first (the first page)."""
        return self.storage.list_copilot_responses(session_id, cursor=None, limit=limit)

    def add_file(self, owner: str, session_id: str, *, name: str, content: str) -> FileRecord:
        """Add a document to the caller's session."""
        self.session(owner, session_id)
        if len(content) > MAX_FILE_CHARS:
            raise InvalidRequestError(f"The file has {len(content)} characters; the limit is {MAX_FILE_CHARS}.")
        if len(self.storage.list_files(session_id)) >= MAX_FILES:
            raise InvalidRequestError(f"A session holds at most {MAX_FILES} files.")
        record = FileRecord(
            file_id=new_id("f"), name=name, chars=len(content), covered=initial_coverage(content), created_at=now_iso()
        )
        self.storage.add_file(session_id, record, content)
        return record

    def file_states(self, session_id: str) -> list[FileState]:
        """The session's files as the agent sees them."""
        return [
            FileState(file_id=f.file_id, name=f.name, chars=f.chars, covered=f.covered)
            for f in self.storage.list_files(session_id)
        ]

    def file(self, owner: str, session_id: str, file_id: str) -> FileRecord:
        """One of the caller's files."""
        self.session(owner, session_id)
        return self.storage.get_file(session_id, file_id)

    def translation(self, session_id: str, record: FileRecord) -> str:
        """The assembled translation: written units in source order, the source's whitespace between."""
        return assemble(self.source(session_id, record), self.units(session_id, record))

    def source(self, session_id: str, record: FileRecord) -> str:
        """The file's whole source text."""
        return self.storage.read_file(session_id, record.file_id, 0, record.chars)

    def units(self, session_id: str, record: FileRecord) -> list[UnitRecord]:
        """The file's written units in source order."""
        return self.storage.list_units(session_id, record.file_id)


def assemble(content: str, units: Sequence[UnitRecord]) -> str:
    """Units in order; the source's leading whitespace and each unit's trailing whitespace copied."""
    lead = len(content) - len(content.lstrip())
    out = [content[:lead]] if units and units[0].start == lead else []
    for unit in units:
        out.append(unit.text)
        out.append(content[unit.end : unit.cover_end])
    return "".join(out)
