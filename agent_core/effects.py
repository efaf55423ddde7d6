"""What one step writes, in one shape: storage persists these values as they are.

A step loads a `SessionSnapshot` whose `StepToken` names the state it saw (version, message count,
the response its verdicts belong to); it ends with `StepEffects`, committed against that token in
one conditional transaction, or not at all. Indexes, the version and the counters are the
backend's arithmetic, not the agent's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from pydantic_ai.messages import ModelMessage

from .copilot import Verdict
from .document import FileState, Spans, add_spans
from .errors import InvalidRequestError
from .mqm import MqmIssue
from .review_modes import ReviewMode, ReviewStage
from .tm import TmEntry

UnitStatus = Literal["approve", "refined", "revised", "verbatim"]
UnitOrigin = Literal["model", "memory", "verbatim", "human"]


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitWrite:
    """A reviewed unit of the translated document, as written and as read back."""

    file_id: str
    start: int
    """Where the unit's source text begins."""
    end: int
    """Where the unit's source text ends."""
    cover_end: int
    """`end` plus the whitespace after the unit, which the assembled document copies."""
    text: str
    """The final, human-validated translation."""
    call_id: str
    status: UnitStatus
    origin: UnitOrigin = "model"
    """Who proposed the text: the model, the translation memory, or nobody (kept verbatim)."""
    estimate: int | None = None
    """The quality estimate (0–100) of the proposal the unit was written from (agent_core.estimate_quality)."""
    auto: bool = False
    """True when the session's routing approved the proposal without a review (`autoApprove`)."""
    sampled: bool = False
    """True when the routing would have approved it and its sample sent it to a person instead."""
    by: str | None = None
    """The person (`sub`) who approved, edited or revised it when not the session's owner (a project's
    member); None: the session's owner, or nobody for a unit the routing approved."""
    stage: ReviewStage | None = None
    """In a session with a second review (`SessionSnapshot.second_review`), where the unit stands; None:
    the session reviews once, or text kept verbatim (nobody reviews it)."""
    updated_at: str = ""
    """Set by storage when the unit is written or revised."""


def awaiting_review(units: Sequence[UnitWrite]) -> list[UnitWrite]:
    """The units as a session with a second review writes them: `translated`, for a reviewer to approve
    or edit, except text kept verbatim (nobody reviews it)."""
    return [u if u.status == "verbatim" else replace(u, stage="translated") for u in units]


@dataclass(frozen=True, slots=True, kw_only=True)
class Correction:
    """A reviewer's edit or rejection, recorded for the owner's memory."""

    file_id: str
    status: Literal["refined", "reject", "revised"]
    source: str
    proposal: str
    final: str | None
    """The edited text (refined, revised), or None (reject)."""
    reason: str | None
    session_id: str = ""
    """Set by storage when the correction is read back: the session it came from."""
    created_at: str = ""
    """Set by storage when the correction is recorded."""
    start: int = -1
    """Where the unit's source begins in its file (-1: not recorded, a correction from before it was)."""
    issue: MqmIssue | None = None
    """The MQM issue the reviewer named with the verdict or revision, if any."""
    by: str | None = None
    """The person (`sub`) who made it when not the session's owner (a project's member); None: the owner."""


@dataclass(frozen=True, slots=True)
class Budget:
    """A cap on a session's model use: `tokens` or `usd` (exactly one is set)."""

    tokens: int | None = None
    usd: float | None = None

    def __post_init__(self) -> None:
        if (self.tokens is None) == (self.usd is None):
            raise ValueError("a budget is either tokens or usd")

    def as_dict(self) -> dict[str, Any]:
        """`{"tokens": n}` or `{"usd": x}`, as the API shows it."""
        return {"tokens": self.tokens} if self.tokens is not None else {"usd": self.usd}

    def dumps(self) -> str:
        """The budget as stored (JSON)."""
        return json.dumps(self.as_dict())

    @classmethod
    def loads(cls, text: str) -> Budget:
        """A stored budget."""
        data = json.loads(text)
        return cls(tokens=data.get("tokens"), usd=data.get("usd"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Telemetry:
    """What steps cost: one step's share at commit, a session's totals when read."""

    steps: int = 0
    model_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_ms: int = 0
    cached_tokens: int = 0
    """Input tokens the provider served from its prompt cache."""
    cost_micro_usd: int = 0
    """What the model requests cost at the price of the model each used, in millionths of a dollar
    (0 for a model without a price): a session that changes its model keeps what it spent before."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StoredAnswer:
    """The answer to a request sent with an idempotency key, kept to answer its retries."""

    owner: str
    key: str
    request_hash: str
    """A digest of the request body: the same key with another body is refused."""
    body: str
    """The serialised answer (opaque to the agent and to storage)."""
    expires_at: int
    """Epoch seconds after which the answer is ignored (and DynamoDB's TTL removes it)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StepToken:
    """The state a step loaded; its commit is conditional on it (optimistic concurrency)."""

    session_id: str
    owner: str
    version: int
    """0 for a session that does not exist yet."""
    created_at: str
    message_count: int
    response_index: int = -1
    """The history index of the latest model response (its calls' verdicts), -1 if none."""
    verdict_ids: frozenset[str] = frozenset()
    """The call ids that already have a stored verdict (a replaced one is not counted again)."""
    previous_response_index: int = -1
    """The history index of the model response before the latest, -1 if none."""
    hidden_messages: int = 0
    """How many of the history's messages the model is never shown (the translation memory's
    proposals and their returns): the window's boundary counts the others."""
    covered: Mapping[str, Spans] = field(default_factory=dict)
    """Each file's coverage as loaded: a new unit must lie outside it (storage refuses the commit)."""


@dataclass(frozen=True, kw_only=True)
class SessionSnapshot:
    """What one step needs of a session: the token, a window of messages, verdicts and files."""

    token: StepToken
    window: Sequence[ModelMessage]
    """The latest messages (all of them while the session is short), oldest first."""
    window_complete: bool
    """True when `window` starts with the session's first message."""
    user_inputs: Sequence[str]
    """The user's inputs that frame the task (the first and the latest few)."""
    copilot_responses: Sequence[Verdict]
    """Stored verdicts on the calls of the latest model response."""
    files: Sequence[FileState]
    queued_inputs: Sequence[str] = ()
    """User inputs sent while reviews were pending, waiting for the next model request."""
    previous_verdicts: Sequence[Verdict] = ()
    """Stored verdicts on the calls of the model response before it (a retry may send them again)."""
    budget: Budget | None = None
    """The cap on the session's model use, if any."""
    model: str | None = None
    """The configured model the session translates with (None: the default)."""
    telemetry: Telemetry = field(default_factory=Telemetry)
    """What the session's steps have cost so far (what a budget counts as spent)."""
    target_language: str | None = None
    """The BCP 47 tag of the language the session translates into, when it was given."""
    auto_approve: int | None = None
    """The estimate at or above which a QA-clean proposal is approved without a review (None: off)."""
    review: ReviewMode = "single"
    """How the session reviews: with `double` or `pretranslate`, a unit its steps write awaits a reviewer
    (`UnitWrite.stage` `translated`)."""
    auto_sample: float = 0.0
    """The share of the proposals `auto_approve` would approve that go to a person anyway (0 to 1)."""
    qa_profile: str | None = None
    """The QA profile the session chose, as stored (JSON: `agent_core.qa_profiles.stored_profile`); None:
    each file gets its kind's built-in one."""
    held_by: str | None = None
    """Who held the session's claim when it was read (a project's member driving it), if anyone."""
    held_until: str | None = None
    """Until when (ISO 8601, UTC), with `held_by`."""

    @property
    def second_review(self) -> bool:
        """True when a unit the session's steps write awaits a reviewer (`double` or `pretranslate`)."""
        return self.review != "single"


@dataclass(frozen=True, kw_only=True)
class StepEffects:
    """Everything one step adds to a session, committed at once or not at all."""

    messages: Sequence[ModelMessage] = ()
    """New messages, appended after the token's `message_count`."""
    hidden_messages: int = 0
    """How many of `messages` the model is never shown (added to the token's `hidden_messages`)."""
    verdicts: Sequence[Verdict] = ()
    """New or replaced verdicts on the calls of the token's latest response."""
    units: Sequence[UnitWrite] = ()
    """New units: each outside its file's coverage as the token loaded it (else the commit fails:
    a unit is never written twice) and inside the step's new `coverage` of its file."""
    revisions: Sequence[UnitWrite] = ()
    """New texts of written units (each replaces the unit written at the same file and start)."""
    corrections: Sequence[Correction] = ()
    coverage: Mapping[str, Spans] = field(default_factory=dict)
    """The new coverage of each file a unit was written to."""
    user_inputs: Sequence[str] | None = None
    """The session's framing user inputs after this step (None: unchanged)."""
    queued_inputs: Sequence[str] | None = None
    """The inputs waiting for the next model request after this step (None: unchanged)."""
    telemetry: Telemetry = field(default_factory=Telemetry)
    memory: Sequence[TmEntry] = ()
    """Reviewed units for the owner's translation memory, kept with the step (by source: the last wins)."""
    memory_added: int = 0
    """How many of `memory` the owner's memory did not hold when the step looked (counted against its cap)."""
    source_language: str | None = None
    """The session's source language, kept by the commit that creates the session (later commits leave
    the languages as they are: `update_session` changes them)."""
    target_language: str | None = None
    """The session's target language, as `source_language`."""
    budget: Budget | None = None
    """The session's budget, as `source_language`."""
    model: str | None = None
    """The session's model, as `source_language`."""
    auto_approve: int | None = None
    """The session's auto-approval threshold, as `source_language`."""
    review: ReviewMode = "single"
    """How the session reviews, as `source_language`."""
    auto_sample: float = 0.0
    """The session's auto-approval sample, as `source_language`."""
    qa_profile: str | None = None
    """The session's QA profile (JSON), as `source_language`."""

    @property
    def empty(self) -> bool:
        """True when the step adds nothing to the session."""
        return (
            not (self.messages or self.verdicts or self.units or self.revisions or self.corrections or self.memory)
            and self.queued_inputs is None
        )


def files_after(files: Sequence[FileState], units: Sequence[UnitWrite]) -> list[FileState]:
    """The files with the units' coverage added, in the same order."""
    added: dict[str, list[tuple[int, int]]] = {f.file_id: [] for f in files}
    for unit in units:
        added[unit.file_id].append((unit.start, unit.cover_end))  # a KeyError for a file not among them
    return [replace(f, covered=add_spans(f.covered, added[f.file_id])) if added[f.file_id] else f for f in files]


__all__ = [
    "Budget",
    "Correction",
    "SessionSnapshot",
    "StepEffects",
    "StepToken",
    "StoredAnswer",
    "Telemetry",
    "UnitOrigin",
    "UnitStatus",
    "UnitWrite",
    "Verdict",
    "files_after",
]


MAX_QUEUED_INPUTS = 10
"""How many user inputs a session queues at most while reviews are pending."""
MAX_QUEUED_CHARS = 40_000
"""How many characters a session's queued inputs hold at most, together."""


def check_queue(queued: Sequence[str], text: str) -> None:
    """InvalidRequestError when queueing `text` after `queued` would pass the queue's cap.

    The queue reaches the model with the verdicts that end the pending reviews, in the message that
    carries their returns; the cap keeps that message (and the session's state) storable on every
    backend, so a session always accepts its verdicts whatever was queued.
    """
    if len(queued) + 1 > MAX_QUEUED_INPUTS or sum(map(len, queued)) + len(text) > MAX_QUEUED_CHARS:
        raise InvalidRequestError(
            f"At most {MAX_QUEUED_INPUTS} inputs of {MAX_QUEUED_CHARS:,} characters in all wait while reviews "
            f"are pending ({len(queued)} of {sum(map(len, queued)):,} characters are queued); answer the "
            "pending reviews first."
        )
