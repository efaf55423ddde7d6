"""The API's answers as the terminal client reads them (API.md); unknown fields are ignored."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator


class _Answer(BaseModel):
    # The server may add fields at any time (API.md allows it): read what we know, keep values frozen.
    model_config = ConfigDict(extra="ignore", frozen=True)


class ToolRef(_Answer):
    """The tool call a copilot request or response belongs to."""

    name: str
    callId: str


class QaWarning(_Answer):
    """A QA finding on a proposal."""

    code: str = ""
    message: str = ""
    level: str = "warning"
    """`error`: a QA profile's check at that level (the unit stays out of approving all)."""


class EntryContext(_Answer):
    """A resource string's (or a marked-up unit's) key, the developer's note, where the program uses it,
    its flags and its locked codes (docs/api.md "context")."""

    key: str
    note: str | None = None
    refs: tuple[str, ...] = ()
    """The source references (a PO entry's `#:`, `src/main.c:42`)."""
    flags: tuple[str, ...] = ()
    """A PO entry's `#,` flags (`c-format`), where the server keeps them."""
    codes: tuple[str, ...] = ()
    """The source's locked codes, each distinct one once in source order."""

    @field_validator("refs", "flags", "codes", mode="before")
    @classmethod
    def _none_as_empty(cls, value: Any) -> Any:
        return () if value is None else value


class PluralInfo(_Answer):
    """A plural entry's target categories and the source's forms."""

    categories: tuple[str, ...] = ()
    source: dict[str, str] = Field(default_factory=dict)


class CopilotRequest(_Answer):
    """One proposal the human must review (a plural entry's forms as their JSON text)."""

    tool: ToolRef
    file_id: str = ""
    src_string: str = ""
    translate_string: str = ""
    start: int = 0
    end: int | None = None
    origin: str = "model"
    warnings: tuple[QaWarning, ...] = ()
    current_string: str | None = None
    match: int | None = None
    context: EntryContext | None = None
    plural: PluralInfo | None = None
    segments: tuple[str, ...] = ()
    """The ids of the segments the unit covers, in order (the first names it for its string's context)."""

    @field_validator("translate_string", mode="before")
    @classmethod
    def _forms_as_text(cls, value: Any) -> Any:
        # A plural entry's proposal is an object of forms: kept as its JSON text, as the verdict sends it.
        return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value

    @field_validator("warnings", mode="before")
    @classmethod
    def _plain_warnings(cls, value: Any) -> Any:
        # Older servers send each warning as a plain string; API.md's form is {"code", "message"}.
        if isinstance(value, list | tuple):
            return [{"message": w} if isinstance(w, str) else w for w in value]
        return value


class Verdict(_Answer):
    """The human's decision on one copilot request (API.md CopilotResponse)."""

    tool: ToolRef
    status: Literal["approve", "refined", "reject"]
    translated_string: str | None = None
    reason: str | None = None

    def body(self) -> dict[str, Any]:
        """The JSON the API expects, without the fields that do not apply."""
        return self.model_dump(mode="json", exclude_none=True)


class Progress(_Answer):
    """How much of a file is written."""

    translatedChars: int = 0
    totalChars: int = 0
    complete: bool = False


class FileInfo(_Answer):
    """A session's file with its progress."""

    fileId: str
    name: str
    chars: int = 0
    progress: Progress = Field(default_factory=Progress)


class Part(_Answer):
    """A message part; only what the client shows is read."""

    part_kind: str = ""
    content: Any = None
    tool_name: str = ""
    tool_call_id: str = ""
    args: Any = None


class Message(_Answer):
    """A pydantic-ai message as JSON (request or response)."""

    kind: str = ""
    parts: tuple[Part, ...] = ()

    def texts(self) -> list[str]:
        """The model's text answers in this message."""
        if self.kind != "response":
            return []
        return [p.content for p in self.parts if p.part_kind == "text" and isinstance(p.content, str) and p.content]

    def tool_calls(self) -> list[Part]:
        """The tool calls of a model response, in the model's order."""
        return [p for p in self.parts if p.part_kind == "tool-call"] if self.kind == "response" else []


class AgentResponse(_Answer):
    """What one step returned."""

    actor: Literal["agent", "user"] = "user"
    messages: tuple[Message, ...] = ()
    copilotRequests: tuple[CopilotRequest, ...] = ()
    finishReason: str | None = None
    notice: str | None = None
    """A note from the service about the step (the model answered nothing, say)."""


class Step(_Answer):
    """The answer to `POST /api/next`."""

    sessionId: str
    agentResponse: AgentResponse
    progress: tuple[FileInfo, ...] = ()
    queued: bool = False


class SessionView(_Answer):
    """`GET /api/sessions/{id}`: enough to restore the view."""

    id: str
    actor: Literal["agent", "user"] = "user"
    messages: tuple[Message, ...] = ()
    messageCount: int | None = None
    pendingCopilotRequests: tuple[CopilotRequest, ...] = ()
    copilotResponses: tuple[Verdict, ...] = ()
    """The verdicts the server holds, oldest first (those of the batch under review included)."""
    files: tuple[FileInfo, ...] = ()
    queuedInputs: tuple[Any, ...] = ()
    createdAt: str = ""
    updatedAt: str = ""
    state: str = "running"
    """`running`, `waiting` (the provider said to retry at `retryAt`), `failed` (`error`) or `complete`."""
    retryAt: str | None = None
    error: str | None = None
    segmentsLeft: int = 0
    project: str | None = None
    """The project the session belongs to; null for one's own."""
    review: str = "single"
    """`double`: what its translators decide waits for a reviewer; `pretranslate`: what the model proposed
    does (docs/api.md "The second review", "Pre-translate, then review")."""
    targetLanguage: str | None = None
    heldBy: str | None = None
    """The member who drives it now (a project's session), if anyone."""


class SessionItem(_Answer):
    """A session in the list."""

    id: str
    messageCount: int = 0
    copilotResponseCount: int = 0
    createdAt: str = ""
    updatedAt: str = ""
    title: str | None = None


class SessionPage(_Answer):
    """A page of the caller's sessions."""

    sessions: tuple[SessionItem, ...] = ()
    nextCursor: str | None = None


class Unit(_Answer):
    """A written unit (`/units`, where the server has it)."""

    start: int
    end: int
    text: str
    status: str = ""
    callId: str | None = None


class ImportResult(_Answer):
    """What `POST /api/memory/import` did."""

    added: int = 0
    updated: int = 0
    skipped: int = 0


class Band(_Answer):
    """Segments and words in one category of an analysis."""

    segments: int = 0
    words: int = 0


class Estimate(_Answer):
    """What the rest of a job is expected to cost."""

    modelRequests: int = 0
    inputTokens: int = 0
    outputTokens: int = 0
    usd: float | None = None
    model: str = ""


class Analysis(_Answer):
    """`GET …/analysis`: a file's counts, its translation-memory leverage and the cost estimate."""

    segments: int = 0
    words: int = 0
    chars: int = 0
    locked: int = 0
    repetitions: int = 0
    bands: dict[str, Band] = Field(default_factory=dict)
    targetLanguage: str | None = None
    estimate: Estimate = Field(default_factory=Estimate)


class Download(_Answer):
    """A downloaded file: its suggested name and its text."""

    filename: str
    content: str
    data: bytes = b""
    """The body as sent (a binary export such as `.docx` is only this)."""


class JobSpent(_Answer):
    """What a job's language has spent, or the job in all."""

    modelRequests: int = 0
    inputTokens: int = 0
    outputTokens: int = 0
    usd: float | None = None


class JobProgress(_Answer):
    """A job language's progress over all its files."""

    translatedChars: int = 0
    totalChars: int = 0
    complete: bool = False
    segments: int = 0
    segmentsLeft: int = 0


class JobLanguage(_Answer):
    """One language of a job: its session and where it stands."""

    sessionId: str
    progress: JobProgress = Field(default_factory=JobProgress)
    state: str = "running"
    retryAt: str | None = None
    error: str | None = None
    spent: JobSpent = Field(default_factory=JobSpent)
    estimate: JobSpent = Field(default_factory=JobSpent)


class JobView(_Answer):
    """`GET /api/jobs/{id}`: each language's session and where it stands, and the totals."""

    id: str
    languages: dict[str, JobLanguage] = Field(default_factory=dict)
    spent: JobSpent = Field(default_factory=JobSpent)
    estimate: JobSpent = Field(default_factory=JobSpent)


class ProjectItem(_Answer):
    """A project of the caller's, with the caller's role and languages in it."""

    id: str
    name: str
    role: str
    languages: tuple[str, ...] = ()


class ProjectSession(_Answer):
    """A session of a project: its target language, where it stands, its progress."""

    id: str
    targetLanguage: str | None = None
    state: str = "running"
    progress: Progress = Progress()
    updatedAt: str = ""
    review: str = "single"
    heldBy: str | None = None
