"""The API's bodies (API.md): requests (unknown fields rejected) and responses, as pydantic models.

They are the one shape of each body: the routes declare them (so `/api/openapi.json` describes
every body), the step's idempotent answer is a `StepResponse` serialised once, and clients (the
terminal client) can read them back.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from agent_core.copilot import CopilotRequest, CopilotResponse, EntryContext
from agent_core.mqm import MqmIssue
from agent_core.review_modes import ReviewMode
from agent_core.text import Filled, Name, Text, Unicode, check_filled, check_text

MAX_USER_INPUT = 20_000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NextRequest(_Body):
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


class FileUpload(_Body):
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


class BandCount(BaseModel):
    """Segments and their words in one category of an analysis."""

    segments: int
    words: int


class AnalysisEstimate(BaseModel):
    """What the rest of the job is expected to cost with the configured model."""

    modelRequests: int
    inputTokens: int
    outputTokens: int
    usd: float | None
    """The cost at the model's price (`service.pricing`); null for a model without a known price."""
    model: str
    """The model priced: `provider:model`, or `pseudo`."""
    basis: Literal["loop", "metered"]
    """`loop`: from how the loop asks (a model that translates each screen at once); `metered`: at
    the rate the session's own model requests have cost so far, per character they translated."""


class AutoApproveReport(BaseModel):
    """What an auto-approval threshold does to a file: before the job for the translation memory's
    exact matches, after the fact for the model's proposals (their estimate is known once made)."""

    minEstimate: int
    memory: BandCount
    """Segments the memory holds exactly (the `101` and `100` bands): at most these are approved without
    a card (one whose remembered text QA warns on still gets one)."""
    written: BandCount
    """The file's units written from the model's proposals so far."""
    atOrAbove: BandCount
    """Of those, the ones whose proposal's estimate reached the threshold (what it would have approved,
    QA permitting)."""
    edited: int
    """Of `atOrAbove`, how many the reviewer edited or revised: what the threshold would have let through."""
    auto: int
    """Units of the file the session's routing did approve without a card."""


class Analysis(BaseModel):
    """`GET …/files/{fileId}/analysis`: counts, translation-memory leverage and the cost estimate."""

    segments: int
    words: int
    chars: int
    locked: int
    """Segments kept verbatim (code, front matter, HTML, URLs): no model request, no review."""
    repetitions: int
    """Segments whose source occurs in an earlier segment of the file (and not in the memory)."""
    bands: dict[str, BandCount]
    """Translation-memory matches of the other segments: `101` (a context match: the same source and
    string key), `100`, `95-99`, `85-94`, `75-84`, `50-74`, `none`."""
    targetLanguage: str | None
    """The language the leverage was looked up for (`?to=`, else the session's); null: none known, all `none`."""
    estimate: AnalysisEstimate
    autoApprove: AutoApproveReport | None = None
    """For `?minEstimate=`, else the session's `autoApprove` threshold; null when neither is set."""


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


class Unit(BaseModel):
    """A written unit: where it lies in the source, and its final text."""

    start: int
    end: int
    text: str
    status: str
    callId: str


class UnitList(BaseModel):
    """`GET …/files/{fileId}/units`: the written units in source order."""

    units: list[Unit]


class GlossaryEntryView(BaseModel):
    """A glossary entry of the caller's memory."""

    id: str
    source: str
    target: str
    languages: str
    createdAt: str
    updatedAt: str
    origin: str
    """`user` (added by hand) or `learned` (distilled from corrections)."""
    kind: Literal["preferred", "forbidden", "keep"] = "preferred"
    """`preferred` (use `target`), `forbidden` (never use `target`), `keep` (the term is not translated)."""


class StyleNoteView(BaseModel):
    """A style note of the caller's memory."""

    id: str
    text: str
    languages: str
    createdAt: str
    updatedAt: str
    origin: str


class CorrectionView(BaseModel):
    """A recorded edit or rejection."""

    sessionId: str
    fileId: str
    status: str
    source: str
    proposal: str
    final: str | None
    reason: str | None
    createdAt: str
    issue: MqmIssue | None = None
    """The MQM issue the reviewer named with it, if any."""


class MemoryView(BaseModel):
    """`GET /api/memory`: the caller's glossary, style notes and latest corrections."""

    glossary: list[GlossaryEntryView]
    styleNotes: list[StyleNoteView]
    corrections: list[CorrectionView]


# -- the workbench: segments, revisions, QA (API.md "Files") ---------------------------------------

SegmentStatus = Literal[
    "untranslated", "pending", "approved", "refined", "revised", "verbatim", "translated", "reviewed"
]
MAX_SEGMENT_TEXT = 5_000
"""The longest text a revision or a QA check takes (as a verdict's `translated_string`)."""


class RoutingRule(BaseModel):
    """The session's routing rule that acted instead of a person: `autoApprove` (API.md "Auto-approval"),
    or `pretranslate` (the model's pre-translation, written for a reviewer: "Pre-translate, then review")."""

    rule: Literal["autoApprove", "pretranslate"] = "autoApprove"


class HistoryEvent(BaseModel):
    """One event of a written unit's audit trail: who did what when, with which text and why."""

    action: Literal["approved", "refined", "rejected", "revised", "verbatim", "reviewed"]
    """`approved` or `refined` (the unit's first write, from a proposal), `verbatim` (written as it is at
    upload), `rejected` (a proposal for this text was rejected), `revised` (changed after it was written),
    `reviewed` (a reviewer approved it as it was, in a session with a second review)."""
    by: str | None
    """The person (`sub`) who did it: the session's owner, the one caller who may review its units; null
    when a routing rule did (`rule`)."""
    rule: RoutingRule | None = None
    """The routing rule that approved the proposal without a review, else null."""
    text: str | None = None
    """The text the event wrote (approved, refined, verbatim, revised) or refused (rejected)."""
    proposal: str | None = None
    """The text the reviewer changed: the proposal of a `refined`, the text before a `revised`; else null."""
    reason: str | None = None
    """The reviewer's reason given with it (a rejection's, an edit's), else null."""
    at: str
    """When it was committed (ISO 8601, UTC)."""
    origin: str | None
    """Who proposed the text the action was on: `model`, `memory`, `human` (a revision typed by the
    reviewer), `verbatim`; null for a rejection (the proposal is not kept)."""
    estimate: int | None = None
    """The quality estimate of the proposal (0-100) when one was made, else null."""
    issue: MqmIssue | None = None
    """The MQM issue the reviewer named with it, if any."""


class Segment(BaseModel):
    """A piece of a file in source order: a written unit, a pending proposal or an untranslated span."""

    id: str
    """The id of the segment (found at upload, stable) the piece begins in: `s1`, `s2`, …"""
    start: int
    end: int
    source: str
    target: str | None
    """The unit's text, the proposal (pending), or null (untranslated)."""
    status: SegmentStatus
    origin: str | None
    """Who wrote the text: `model`, `memory`, `verbatim`, `human` (a revision); null when untranslated."""
    updatedAt: str | None
    context: EntryContext | None = None
    """The key and the developer's note of the segment's string, in a resource file (else null)."""
    history: list[HistoryEvent] | None = None
    """A written unit's audit trail, oldest first (`service.audit`); null for a piece that is not written."""
    estimate: int | None = None
    """The quality estimate (0–100) of the proposal (pending) or of the proposal the unit was written from."""
    auto: bool = False
    """True for a unit the session's routing approved without a review (`autoApprove`)."""
    comments: int = 0
    """How many comments the thread of the segment `id` holds (docs/api.md "Comments on segments")."""
    openComments: int = 0
    """How many of them are not resolved."""


class ApproveFilter(BaseModel):
    """What "approve all shown" approves: the pending proposals the segment list's filter shows."""

    model_config = ConfigDict(extra="forbid")

    status: str | None = Field(default=None, max_length=200)
    q: str | None = Field(default=None, max_length=500)
    minEstimate: int | None = Field(default=None, ge=0, le=100, strict=True)
    key: str | None = Field(default=None, max_length=200)
    """Only strings whose key starts with this, as the segment list's `key`."""


class ApproveBody(BaseModel):
    """`POST …/files/{fileId}/approve`."""

    model_config = ConfigDict(extra="forbid")

    filter: ApproveFilter = Field(default_factory=ApproveFilter)
    step: Literal["translate", "review"] = "translate"
    """`review`: a reviewer approves the `translated` units the filter shows (a session with a second
    review); else the pending proposals."""


class ApproveResult(BaseModel):
    """What a bulk approval did, and the step it made (absent when nothing was approved)."""

    approved: int
    skipped: int
    """Proposals (or, for the review step, translated units) the filter shows that were left as they
    were: QA warned on them."""
    remaining: int = 0
    """The review step: translated units the filter shows, QA-clean, left for another request (at most
    MAX_REVIEWED are approved at once)."""
    sessionId: str | None = None
    agentResponse: AgentResponse | None = None
    progress: list[FileSummary] | None = None


class SegmentPage(BaseModel):
    """`GET …/segments`: a page of the file's segments in source order."""

    segments: list[Segment]
    nextCursor: str | None
    version: int
    """The session's version: send it as `If-Match` with a revision to make it conditional."""


class QaWarningView(BaseModel):
    """A QA finding on a text: a stable code, words for the reviewer and its level (API.md "QA profiles")."""

    code: str
    message: str
    level: Literal["warning", "error"] = "warning"
    """`error`: a QA profile check at that level (it keeps the unit out of a bulk approval)."""


class RevisedSegment(Segment):
    """`PUT …/segments/{start}`: the revised segment and the QA findings on the new text."""

    warnings: list[QaWarningView]
    version: int
    """The session's version after the revision."""


class ReviseBody(_Body):
    """`PUT …/segments/{start}`: the human's new text for a written unit."""

    translated_string: Filled = Field(min_length=1, max_length=MAX_SEGMENT_TEXT)
    reason: Annotated[str, Field(max_length=MAX_SEGMENT_TEXT), AfterValidator(check_text)] | None = None
    issue: MqmIssue | None = None
    """Optional: the MQM issue the written text had (category and severity), counted in the scorecard."""


class QaBody(_Body):
    """`POST …/qa`: a source and a text to check before sending it."""

    source: Text = Field(min_length=1, max_length=MAX_SEGMENT_TEXT)
    translated_string: Text = Field(max_length=MAX_SEGMENT_TEXT)
    start: int | None = Field(default=None, ge=0)
    """Where the unit begins in the file (a copilot request's `start`): a resource string's locked
    codes and plural forms are checked too."""


class QaResult(BaseModel):
    """`POST …/qa`: what the checks found (empty when nothing)."""

    warnings: list[QaWarningView]


# -- memory interchange (API.md "Memory interchange") ----------------------------------------------

MAX_IMPORT_CHARS = 5_000_000


class MemoryImportBody(_Body):
    """`POST /api/memory/import`: a TMX translation memory or a CSV/TBX glossary."""

    format: Literal["tmx", "csv", "tbx"]
    content: Unicode = Field(min_length=1, max_length=MAX_IMPORT_CHARS)
    languages: Annotated[str, Field(max_length=100), AfterValidator(check_text)] | None = None
    """For glossary terms whose file names no target language: `auto>french` or `french`; absent: any pair."""


class ImportResult(BaseModel):
    """`POST /api/memory/import`: how many entries were added, updated, or left out."""

    added: int
    updated: int
    skipped: int


# -- review quality: post-edit distance, scorecards, the audit trail (API.md "Jobs, scorecards") ----


class PostEdit(BaseModel):
    """How far the reviewer's final texts are from the proposals (sacrebleu, offline)."""

    units: int
    """Written units that came from a proposal (the model's or the memory's; not text kept verbatim)."""
    unchanged: int
    """Of those, the ones whose final text is the proposal (approved as proposed, never revised)."""
    edited: int
    """Of those, the ones whose final text differs from the proposal (refined or revised)."""
    chrF: float | None
    """chrF of the proposals against the final texts, 0-100 (100: nothing edited); null without units."""
    ter: float | None
    """TER (the human-targeted edit rate, HTER) of the proposals against the final texts, in percent of the
    final texts' words (0: nothing edited); null without units."""


class PostEditReport(BaseModel):
    """The post-edit distance of one file and of its whole session."""

    file: PostEdit
    session: PostEdit


class AnalysisWithPostEdit(Analysis):
    """`GET …/analysis` with the post-edit distance so far."""

    postEdit: PostEditReport


class ScorecardRow(BaseModel):
    """The issues of one MQM error type, by severity."""

    category: str
    dimension: str
    """The MQM Core dimension of the category."""
    minor: int
    major: int
    critical: int
    penalty: int
    """Penalty points: minor x 1 + major x 5 + critical x 25."""


class Scorecard(BaseModel):
    """`GET …/scorecard`: the file's MQM issues by category and severity, its MQM score and the verdict."""

    fileId: str
    name: str
    words: int
    """The evaluation word count: the source words of the written units that came from a proposal."""
    issues: list[ScorecardRow]
    """One row per MQM Core error type, in MQM's order (zeros included)."""
    totals: dict[str, int]
    """Issues by severity, `minor`, `major`, `critical`."""
    penalty: int
    """The absolute penalty total (APT): the sum of the issues' severity multipliers."""
    penaltyPer1000Words: float | None
    """The overall normed penalty total: APT / words x 1,000 (null when no words were evaluated)."""
    score: float | None
    """The MQM overall quality score (raw scoring model): 100 x (1 - APT / words); null without words."""
    threshold: float
    """The score a file must reach to pass."""
    passed: bool
    """`score >= threshold` (with no words evaluated: no issue recorded)."""
    result: Literal["pass", "fail"]
    """`passed` in words."""
    postEdit: PostEdit
