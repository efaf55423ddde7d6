"""The ports agent_core needs from the outside world; `storage` implements them.

agent_core imports neither storage nor handlers: it states here what it needs (a session's state
for one step, a way to commit that step, a file's text, the owner's memory and a place for what
it learns), and handlers wire a backend to it when the app is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic_ai.messages import ModelMessage

from .copilot import Approve, Refined, Reject
from .document import FileState, Spans
from .effects import Correction, UnitWrite
from .memory import Lessons, Memory


class FileReader(Protocol):
    """Read access to one session's files, bounded to the characters asked for."""

    async def read_text(self, file_id: str, start: int, end: int) -> str:
        """The file's characters `[start, end)` (fewer at the end of the file)."""
        ...


@dataclass(frozen=True, kw_only=True)
class SessionSnapshot:
    """What one step needs of a session: its record, a window of messages, files, verdicts."""

    session_id: str
    owner: str
    version: int
    """0 for a session that does not exist yet; the commit is conditional on it."""
    created_at: str
    message_count: int
    window: Sequence[ModelMessage]
    """The latest messages (all of them while the session is short), oldest first."""
    window_complete: bool
    """True when `window` starts with the session's first message."""
    user_inputs: Sequence[str]
    """The user's inputs that frame the task (the first and the latest few)."""
    copilot_responses: Sequence[Approve | Refined | Reject]
    """Stored verdicts on the calls of the latest model response."""
    files: Sequence[FileState]
    reader: FileReader
    memory: Memory = field(default_factory=Memory)
    """The owner's memory (glossary, style notes, latest corrections), every language pair."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Telemetry:
    """What a step cost: counted into the session's totals at commit."""

    steps: int = 1
    model_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_ms: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Remembered:
    """The answer to a request that carried an idempotency key, kept to answer its retries."""

    key: str
    request_hash: str
    body: str
    """The serialised answer (opaque to the agent)."""


@dataclass(frozen=True, kw_only=True)
class StepCommit:
    """Everything one step adds to a session, committed at once or not at all."""

    session_id: str
    owner: str
    expected_version: int
    """The version the step loaded; 0 creates the session."""
    created_at: str
    messages: Sequence[ModelMessage]
    """New messages, appended after the `message_count` the step loaded."""
    message_count: int
    """How many messages the session had when the step loaded it."""
    copilot_responses: Sequence[Approve | Refined | Reject]
    """New or replaced verdicts on the latest model response's calls."""
    response_index: int
    """The history index of the model response those verdicts belong to (-1 if none)."""
    units: Sequence[UnitWrite] = ()
    corrections: Sequence[Correction] = ()
    coverage: dict[str, Spans] = field(default_factory=dict)
    """The new coverage of each file a unit was written to."""
    user_inputs: Sequence[str] = ()
    """The session's framing user inputs after this step."""
    telemetry: Telemetry = field(default_factory=Telemetry)
    remembered: Remembered | None = None
    """The answer to remember with the step, in the same transaction."""


class SessionStore(Protocol):
    """Loads and commits sessions for one step; implemented by `storage.SessionManager`."""

    async def load_step(self, owner: str, session_id: str) -> SessionSnapshot:
        """The session's state for a step; raises NotFoundError for an unknown or foreign id."""
        ...

    async def new_step(self, owner: str, session_id: str) -> SessionSnapshot:
        """The state of a session that does not exist yet (version 0)."""
        ...

    async def commit_step(self, commit: StepCommit) -> None:
        """Commit atomically if the version is unchanged, else raise ConflictError."""
        ...

    async def remember(self, owner: str, remembered: Remembered) -> None:
        """Keep the answer to a request that committed nothing (ConflictError if one is kept)."""
        ...


class MemoryStore(Protocol):
    """Where distilled lessons go: the owner's memory; implemented by `storage.OwnerMemory`."""

    async def learn(self, owner: str, lessons: Lessons) -> None:
        """Add the lessons to the owner's memory (deduplicated; entries the owner wrote win)."""
        ...
