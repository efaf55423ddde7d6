"""The API's bodies for a file's segments (API.md "Segments", "Revisions", "Approve all shown",
"QA profiles"): the segment list, its filters and pages, a revision, a QA check, the written units."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from agent_core.copilot import EntryContext
from agent_core.mqm import MqmIssue
from agent_core.text import Filled, Text, check_text

from .schemas import AgentResponse, Body, FileSummary


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


class ReviseBody(Body):
    """`PUT …/segments/{start}`: the human's new text for a written unit."""

    translated_string: Filled = Field(min_length=1, max_length=MAX_SEGMENT_TEXT)
    reason: Annotated[str, Field(max_length=MAX_SEGMENT_TEXT), AfterValidator(check_text)] | None = None
    issue: MqmIssue | None = None
    """Optional: the MQM issue the written text had (category and severity), counted in the scorecard."""


class QaBody(Body):
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
