"""The API's bodies (API.md) for steps, sessions and files: requests (unknown fields rejected) and
responses, as pydantic models; a file's segments, its reports and the memory have theirs beside it
(`segment_schemas`, `report_schemas`, `memory_schemas`).

They are the one shape of each body: the routes declare them (so `/api/openapi.json` describes
every body), the step's idempotent answer is a `StepResponse` serialised once, and clients (the
terminal client) can read them back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from agent_core.copilot import CopilotRequest, CopilotResponse
from agent_core.review_modes import ReviewMode
from agent_core.text import Name, Unicode, check_filled

MAX_USER_INPUT = 20_000


class Body(BaseModel):
    """A request's body: a field the API does not name is refused (422), never ignored."""

    model_config = ConfigDict(extra="forbid")


class NextRequest(Body):
    """`POST /api/next`: advance a session by one step."""

    sessionId: str | None = Field(default=None, max_length=64)
    """The session to advance; absent: a new session is created for the caller."""
    userInput: Annotated[str, Field(max_length=MAX_USER_INPUT), AfterValidator(check_filled)] | None = None
    """A new user message, appended before the step (not blank)."""
    copilotResponses: list[CopilotResponse] | None = Field(default=None, max_length=50)
    """The human's verdicts on pending copilot requests."""
    takeOver: bool = False
    """A project's manager takes the session over from the member who holds it (service.claims)."""

    @model_validator(mode="after")
    def _one_input(self) -> NextRequest:
        if self.userInput is not None and self.copilotResponses is not None:
            raise ValueError("send either userInput or copilotResponses, not both")
        return self


class FileUpload(Body):
    """`POST /api/sessions/{id}/files`: a document to translate."""

    name: Name = Field(min_length=1, max_length=255)
    """The file's name (its extension decides the download's media type): one line, no path separator."""
    content: Unicode | None = None
    """The whole text (a text format); or give `contentBase64`."""
    contentBase64: str | None = Field(default=None, max_length=7_500_000)
    """The file's bytes in base64 (a binary format such as `.docx`, or text in another encoding)."""
    keepVerbatim: bool = True
    """Write code blocks, front matter, HTML, rules, link references and bare URLs as they are, at once
    (no model request, no review); false: the model translates them too (comments in code, say)."""


class Progress(BaseModel):
    """How far a file's translation has got."""

    translatedChars: int
    totalChars: int
    complete: bool
    """True when every non-whitespace character of the source lies in a written unit."""


class FileSummary(BaseModel):
    """A file with its progress, as the session view and the step list it."""

    fileId: str
    name: str
    chars: int
    progress: Progress


class FileDetail(FileSummary):
    """`GET …/files/{fileId}`: a file, its progress and its translation so far."""

    translation: str


class UploadedFile(BaseModel):
    """`POST …/files`: the new file."""

    fileId: str
    name: str
    chars: int
    segments: int
    """How many segments the file was cut into at upload (they never change)."""


class AgentResponse(BaseModel):
    """What one step added and what the client must do next."""

    actor: Literal["agent", "user"]
    """`agent`: call again with no input; `user`: the loop waits for input or for verdicts."""
    messages: list[dict[str, Any]]
    """Only the messages this step committed, as pydantic-ai `ModelMessage` JSON."""
    unprocessedToolCalls: list[dict[str, Any]]
    """Tool calls of the latest model response without a return yet (pydantic-ai `ToolCallPart` JSON)."""
    copilotRequests: list[CopilotRequest]
    """What the human must review before the loop can go on."""
    finishReason: str | None
    """The model's finish reason for a step that called the model, else null."""
    notice: str | None = None
    """Why the turn is the user's when the step has nothing to show (the model answered with nothing)."""


class StepResponse(BaseModel):
    """`POST /api/next`: the answer to one step."""

    sessionId: str
    agentResponse: AgentResponse
    progress: list[FileSummary]
    """Every file of the session with its progress after the step."""
    queued: bool = False
    """True when the step queued the user's input: reviews are pending; it reaches the model after them."""


class BudgetBody(BaseModel):
    """A cap on a session's model use: `{"tokens": n}` or `{"usd": x}`."""

    model_config = ConfigDict(extra="forbid")

    tokens: int | None = Field(default=None, ge=1, le=10**12)
    usd: float | None = Field(default=None, gt=0, le=10**6)

    @model_validator(mode="after")
    def _one(self) -> BudgetBody:
        if (self.tokens is None) == (self.usd is None):
            raise ValueError('give either {"tokens": n} or {"usd": x}')
        return self


class AutoApproveBody(BaseModel):
    """A session's routing: proposals whose quality estimate is at least `minEstimate`, with QA clean,
    are approved without a card."""

    model_config = ConfigDict(extra="forbid")

    minEstimate: int = Field(ge=0, le=100, strict=True)
    sample: float = Field(default=0.0, ge=0.0, le=1.0)
    """The share (0 to 1) of the proposals the rule would approve that go to a person instead, chosen by
    the unit: the evidence of the project's quality report (`GET /api/projects/{id}/quality`)."""


class SessionSettings(BaseModel):
    """`POST /api/sessions` and `PATCH /api/sessions/{id}`: the session's languages (BCP 47 tags or names,
    normalised by the service), budget and model; on PATCH an absent field is left as it is, null clears it."""

    model_config = ConfigDict(extra="forbid")

    sourceLanguage: str | None = Field(default=None, max_length=64)
    targetLanguage: str | None = Field(default=None, max_length=64)
    budget: BudgetBody | None = None
    model: str | None = Field(default=None, min_length=1, max_length=200)
    """One of the configured models (`GET /api/models`); null on PATCH: back to the default."""
    autoApprove: AutoApproveBody | None = None
    """Approve QA-clean proposals at or above an estimate without a review; null (or absent on POST): off."""
    project: str | None = Field(default=None, max_length=64)
    """POST only: the project the session belongs to (its managers create it); absent: the caller's own."""
    review: ReviewMode | None = None
    """`double` (a project's session only) sends what its translators decide to a reviewer;
    `pretranslate` has the model propose the whole file first, each proposal written `translated`
    without a card, for a person to review from the segment list (absent on POST: the project's
    setting, else `single`)."""
    qaProfile: str | dict[str, Any] | None = None
    """The QA profile its files are checked with (API.md "QA profiles": a built-in's name or an object);
    null (or absent on POST): each file its kind's, or the project's."""


class ModelPrice(BaseModel):
    """US dollars per million tokens."""

    input: float
    output: float


class ConfiguredModel(BaseModel):
    """One of the models a session may use."""

    name: str
    default: bool
    """The model of a session that names none."""
    price: ModelPrice | None
    """Null: unknown (a budget in dollars cannot be kept with it)."""


class ModelList(BaseModel):
    """`GET /api/models`: the configured models, the default first."""

    models: list[ConfiguredModel]


class CreatedSession(BaseModel):
    """`POST /api/sessions`: the new, empty session."""

    id: str
    createdAt: str
    updatedAt: str


class SessionItem(BaseModel):
    """A session in the list."""

    id: str
    messageCount: int
    copilotResponseCount: int
    createdAt: str
    updatedAt: str
    title: str | None
    """The first 80 characters of the session's first user input."""


class SessionList(BaseModel):
    """`GET /api/sessions`: a page of the caller's sessions, newest first."""

    sessions: list[SessionItem]
    nextCursor: str | None


class Telemetry(BaseModel):
    """What the session's steps cost so far."""

    steps: int
    modelRequests: int
    inputTokens: int
    outputTokens: int
    modelMs: int
    cachedInputTokens: int
    """Input tokens the provider served from its prompt cache."""
    usd: float = 0.0
    """What the model requests cost at the price of the model each used (0 for a model without one)."""


SessionState = Literal["running", "waiting", "failed", "complete"]
"""Where a session's translation stands (the Session view's and a job language's `state`)."""


class SessionView(BaseModel):
    """`GET /api/sessions/{id}`: everything a client needs to restore its view."""

    id: str
    messages: list[dict[str, Any]]
    """The history as pydantic-ai JSON: all of it while short, else its latest part."""
    messagesComplete: bool
    messageCount: int
    copilotResponses: list[dict[str, Any]]
    copilotResponsesComplete: bool
    createdAt: str
    updatedAt: str
    pendingCopilotRequests: list[CopilotRequest]
    """What the UI must show for review right now."""
    actor: Literal["agent", "user"]
    files: list[FileSummary]
    queuedInputs: list[str]
    """User inputs sent while reviews were pending, waiting for the next model request, in order."""
    telemetry: Telemetry
    sourceLanguage: str | None = None
    """The BCP 47 tag of the language the files are written in: given, or detected from the first file."""
    targetLanguage: str | None = None
    """The BCP 47 tag given when the session was created or changed, else the one the user's task names."""
    state: SessionState = "running"
    """`complete`: every segment of every file is written; `waiting`: the provider throttled the latest
    step or its quota ran out, and said to try again at `retryAt`; `failed`: the provider refused for
    good, or the budget is reached (`error` says which: another model, key or budget lets it go on);
    `running` otherwise. A step that commits ends `waiting` and `failed`."""
    retryAt: str | None = None
    """When the provider said the latest step may be tried again (ISO 8601), for `waiting`."""
    error: str | None = None
    """What stopped the latest step, for `waiting` and `failed`."""
    segmentsLeft: int = 0
    """How many segments of the session's files are not written yet (approved, edited or kept verbatim)."""
    budget: dict[str, int | float] | None = None
    """The session's cap, `{"tokens": n}` or `{"usd": x}`; null: none."""
    spent: dict[str, int | float] | None = None
    """What the session spent, in the budget's unit (null without a budget)."""
    model: str = ""
    """The configured model the session's next step uses (its own, else the default)."""
    autoApprove: AutoApproveBody | None = None
    """The session's routing (`{"minEstimate"}`), null when off."""
    project: str | None = None
    """The project the session belongs to (API.md "Projects and teams"), null for the creator's own."""
    review: ReviewMode = "single"
    """`double`: what its translators decide is `translated` until a reviewer approves or edits it."""
    qaProfile: str | dict[str, Any] | None = None
    """The QA profile the session chose (a name or an object), null when its files get their kinds'."""
    heldBy: str | None = None
    """The member who drives the project's session (their `sub`), while their claim lasts; null: nobody."""
    until: str | None = None
    """When that claim ends (ISO 8601) unless they step again; null with `heldBy`."""


class MessagesPage(BaseModel):
    """`GET /api/sessions/{id}/messages`: a page of the whole history, oldest first."""

    messages: list[dict[str, Any]]
    nextCursor: str | None
