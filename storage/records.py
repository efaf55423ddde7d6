"""What the storage backends store: plain, frozen records that speak storage, not the agent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

SCHEMA_VERSION = 2
"""The layout version written with every session record (2 added the telemetry counters)."""

Spans = tuple[tuple[int, int], ...]
T = TypeVar("T")


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionRecord:
    """A session's state record: owner, timestamps, counters and the concurrency version."""

    session_id: str
    owner: str
    created_at: str
    updated_at: str
    version: int
    """Incremented by every commit; a commit is conditional on the version it loaded."""
    message_count: int = 0
    copilot_response_count: int = 0
    user_inputs: tuple[str, ...] = ()
    """The user's framing inputs (the first and the latest few)."""
    schema_version: int = SCHEMA_VERSION
    steps: int = 0
    """Telemetry: steps committed, model requests, tokens and milliseconds spent in the model."""
    model_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_ms: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageRecord:
    """One pydantic-ai message, as JSON, at its index in the session's history."""

    index: int
    data: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CopilotResponseRecord:
    """A human verdict (JSON) on one call of the model response at `response_index`."""

    response_index: int
    call_id: str
    data: str
    created_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FileRecord:
    """A file of a session: its identity, size and translation coverage (content is chunked)."""

    file_id: str
    name: str
    chars: int
    covered: Spans
    created_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitRecord:
    """A written unit: the reviewed translation of the source span `[start, end)`."""

    file_id: str
    start: int
    end: int
    cover_end: int
    text: str
    call_id: str
    status: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CorrectionRecord:
    """A reviewer's edit or rejection, kept for the owner's memory."""

    correction_id: str
    owner: str
    session_id: str
    file_id: str
    status: str
    source: str
    proposal: str
    final: str | None
    reason: str | None
    created_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryEntryRecord:
    """A glossary entry or a style note in an owner's memory (it outlives every session)."""

    entry_id: str
    owner: str
    kind: str
    """`glossary` or `style`."""
    source: str
    """The source term (glossary); empty for a style note."""
    text: str
    """The preferred translation (glossary) or the note (style)."""
    languages: str
    """The language pair, `"<source>><target>"` (see agent_core.languages)."""
    origin: str
    """`user` (added by hand) or `learned` (distilled from corrections)."""
    created_at: str
    updated_at: str


@dataclass(frozen=True, slots=True, kw_only=True)
class IdempotencyRecord:
    """The first answer to a request sent with an `Idempotency-Key`, kept to answer its retries."""

    owner: str
    key: str
    request_hash: str
    """A digest of the request body: the same key with another body is refused."""
    status: int
    body: str
    created_at: str
    expires_at: int
    """Epoch seconds after which the record is ignored (and DynamoDB's TTL removes it)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StepWrite:
    """All a step writes, committed in one conditional transaction."""

    session: SessionRecord
    """The session record after the step (its version is `expected_version + 1`)."""
    expected_version: int
    """The version the step loaded; 0 means the session must not exist yet."""
    messages: Sequence[MessageRecord] = ()
    copilot_responses: Sequence[CopilotResponseRecord] = ()
    units: Sequence[UnitRecord] = ()
    coverage: Mapping[str, Spans] = field(default_factory=dict)
    corrections: Sequence[CorrectionRecord] = ()
    idempotency: IdempotencyRecord | None = None
    """The answer to remember for the request's Idempotency-Key, written in the same transaction."""


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a listing and the cursor of the next (None on the last page)."""

    items: list[T]
    next_cursor: str | None
