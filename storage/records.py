"""What storage keeps beside the agent's own values: the session row, memory entries, pages.

Steps are written as agent_core's `StepEffects` and read back as its `SessionSnapshot`,
`UnitWrite`, `Correction` and verdicts; only what the agent has no shape for is declared here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar

from agent_core.effects import Budget, Correction, Telemetry, UnitWrite
from agent_core.errors import ConflictError, InvalidRequestError
from agent_core.review_modes import ReviewMode
from agent_core.tm import TmEntry

SCHEMA_VERSION = 2
"""The layout version written with every session record (2 added the telemetry counters)."""

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
    hidden_messages: int = 0
    """How many of the messages the model is never shown (agent_core's `StepToken.hidden_messages`)."""
    copilot_response_count: int = 0
    user_inputs: tuple[str, ...] = ()
    """The user's framing inputs (the first and the latest few)."""
    queued_inputs: tuple[str, ...] = ()
    """User inputs waiting for the next model request."""
    schema_version: int = SCHEMA_VERSION
    telemetry: Telemetry = field(default_factory=Telemetry)
    """What the session's steps cost so far."""
    source_language: str | None = None
    """The language of the session's source text (a BCP 47 tag), when known."""
    target_language: str | None = None
    """The language the session translates into, when known."""
    budget: Budget | None = None
    """The cap on the session's model use, if any."""
    model: str | None = None
    """The configured model the session translates with (None: the default)."""
    auto_approve: int | None = None
    """The estimate at or above which a QA-clean proposal is approved without a review (None: off)."""
    review: ReviewMode = "single"
    """How the session reviews (`agent_core.effects.ReviewMode`)."""
    auto_sample: float = 0.0
    """The share of the proposals `auto_approve` would approve that go to a person anyway (0 to 1)."""
    qa_profile: str | None = None
    """The QA profile the session chose (JSON, `agent_core.qa_profiles.profile_json`); None: its files' kinds'."""
    hold: SessionHold | None = None
    """Why the session's latest step could not go on, until a step commits (`hold_session`)."""
    claim: SessionClaim | None = None
    """Who drives the session (a project's member) and until when (`claim_session`); unlike `hold`,
    a commit leaves it as it is."""

    @property
    def second_review(self) -> bool:
        """True when a unit the session's steps write awaits a reviewer (`double` or `pretranslate`)."""
        return self.review != "single"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionHold:
    """Why a session's latest step failed with the session unchanged: the provider throttled or ran
    out of quota (`waiting`, with the provider's time to retry), or refused for good, or the budget
    is reached (`failed`: a person must act: another model, another key, a higher budget)."""

    state: Literal["waiting", "failed"]
    error: str
    """What the provider (or the budget) said, for a person."""
    at: str
    """When the step failed (ISO 8601)."""
    retry_at: str | None = None
    """When the provider said to try again (ISO 8601), for `waiting`."""

    def dumps(self) -> str:
        """As stored: compact JSON."""
        return json.dumps({"s": self.state, "e": self.error, "at": self.at, "r": self.retry_at}, separators=(",", ":"))

    @staticmethod
    def loads(raw: str) -> SessionHold:
        """A stored hold (`dumps`) read back."""
        d = json.loads(raw)
        return SessionHold(state=d["s"], error=d["e"], at=d["at"], retry_at=d.get("r"))


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionClaim:
    """One member's claim to drive a project's session: the caller's `sub` and the time it lasts to
    (ISO 8601, UTC, to the second, so that stored times compare as strings)."""

    by: str
    until: str

    def dumps(self) -> str:
        """As stored: compact JSON."""
        return json.dumps({"by": self.by, "until": self.until}, separators=(",", ":"))

    @staticmethod
    def loads(raw: str) -> SessionClaim:
        """A stored claim (`dumps`) read back."""
        d = json.loads(raw)
        return SessionClaim(by=d["by"], until=d["until"])


@dataclass(frozen=True, slots=True, kw_only=True)
class JobRecord:
    """A job: one upload translated into several languages, each language its own session. Written
    once, when the job is created; its progress is its sessions' (read at each view)."""

    job_id: str
    owner: str
    created_at: str
    sessions: Mapping[str, str]
    """Each target language (BCP 47) and its session's id, in the order the job named them."""
    estimates: Mapping[str, Mapping[str, float]]
    """Each language's estimate when the job was created (API.md analysis `estimate`)."""

    def dumps(self) -> str:
        """The job's languages and estimates as stored: compact JSON."""
        return json.dumps(
            {"s": dict(self.sessions), "e": {k: dict(v) for k, v in self.estimates.items()}}, separators=(",", ":")
        )

    @staticmethod
    def loads(job_id: str, owner: str, created_at: str, raw: str) -> JobRecord:
        """A stored job read back."""
        d = json.loads(raw)
        return JobRecord(job_id=job_id, owner=owner, created_at=created_at, sessions=d["s"], estimates=d["e"])


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
    term_kind: str = "preferred"
    """A glossary entry's kind: `preferred`, `forbidden` or `keep` (agent_core.memory.GlossaryKind)."""


def merge_entries(
    held: Mapping[str, MemoryEntryRecord],
    owner: str,
    records: Sequence[MemoryEntryRecord],
    max_entries: Mapping[str, int],
) -> dict[str, MemoryEntryRecord]:
    """The owner's entries (by id) after adding `records`, or replacing those with the same ids: the rule
    every backend applies inside its one atomic write of them.

    Refused whole (InvalidRequestError) if a record is another owner's or has a blank text, or if a kind
    would grow past its `max_entries` cap; a replacement of another kind is a ConflictError (an entry
    keeps its kind, so the counts stay right).
    """
    merged = dict(held)
    for r in records:
        if r.owner != owner:
            raise InvalidRequestError("A memory entry belongs to the owner it is written for.")
        if not r.text.strip() or (r.kind == "glossary" and not r.source.strip()):
            raise InvalidRequestError("A memory entry needs a text that is not blank.")
        old = merged.get(r.entry_id)
        if old is not None and old.kind != r.kind:
            raise ConflictError(f"The memory entry {r.entry_id} is of another kind.")
        merged[r.entry_id] = r
    for kind in {r.kind for r in records}:
        count = sum(e.kind == kind for e in merged.values())
        cap = max_entries.get(kind)
        if cap is not None and count > cap and count > sum(e.kind == kind for e in held.values()):
            raise InvalidRequestError(f"The memory holds at most {cap} {kind} entries; delete some first.")
    return merged


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a listing and the cursor of the next (None on the last page)."""

    items: list[T]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class OwnerSnapshot:
    """What a step reads of an owner's memory in one go."""

    entries: list[MemoryEntryRecord]
    """The glossary entries and style notes, oldest first."""
    corrections: list[Correction]
    """The latest corrections, newest first."""
    tm_seq: int = 0
    """The number of the latest write of the translation memory's pair the read was asked for (0: none
    yet, or no pair asked; `tm_changes`): a replica of that pair that holds every write up to it need
    not read the pair's changes (service.tm)."""


@dataclass(frozen=True, slots=True)
class TmChanges:
    """What a read of one language pair of an owner's translation memory found (`tm_changes`)."""

    entries: list[TmEntry]
    """The entries written after the read's `since`, each with its write's number in `written`."""
    seq: int
    """The number of the latest write the read covers (0: none)."""


@dataclass(frozen=True, slots=True)
class ReviewLog:
    """Everything stored of a file's reviews (`review_log`): every write of its units and its corrections."""

    writes: list[UnitWrite]
    """Each unit as first written, then each revision, in commit order (`updated_at` the commit's time)."""
    corrections: list[Correction]
    """The session's corrections of the file (edits, rejections, revisions), in commit order."""
