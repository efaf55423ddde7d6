"""The second review's answers as the terminal client reads them (docs/api.md "Segments", "The second
review"); unknown fields are ignored, as in terminal.models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from .models import EntryContext, QaWarning

DECIDING = frozenset({"approved", "refined", "revised"})
"""The audit trail's actions that give a unit its text (a `reviewed` keeps it; a `rejected` writes none)."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class HistoryEvent(_Answer):
    """One event of a written unit's audit trail: who did what, with which text."""

    action: str
    by: str | None = None
    """The member who did it; null when a routing rule did (auto-approval)."""
    text: str | None = None
    at: str = ""


class Segment(_Answer):
    """A piece of a file: here, a written unit awaiting the reviewer (`translated`) or one just reviewed."""

    id: str
    start: int
    end: int
    source: str
    target: str | None = None
    status: str
    origin: str | None = None
    estimate: int | None = None
    """The quality estimate (0–100) of the proposal the unit was written from, when one was made."""
    history: tuple[HistoryEvent, ...] | None = None
    context: EntryContext | None = None
    comments: int = 0
    openComments: int = 0

    @property
    def translator(self) -> str:
        """Who gave the unit its text: the last member to approve, edit or revise it (`auto` for the
        routing's approval, `?` when the trail says nothing)."""
        for event in reversed(self.history or ()):
            if event.action in DECIDING:
                return event.by or "auto"
        return "?"

    @property
    def edited(self) -> bool:
        """True when a person's text replaced the proposal (an edit or a revision)."""
        return any(e.action in ("refined", "revised") for e in self.history or ())


class SegmentPage(_Answer):
    """A page of `GET …/segments`."""

    segments: tuple[Segment, ...] = ()
    nextCursor: str | None = None
    version: int = 0


class RevisedSegment(Segment):
    """The answer of `PUT …/segments/{start}`: the unit as it now is, QA's warnings on its text."""

    warnings: tuple[QaWarning, ...] = ()
    version: int = 0


class ReviewApproval(_Answer):
    """The answer of `POST …/approve` with `"step": "review"`."""

    approved: int = 0
    skipped: int = 0
    """Translated units the filter shows that QA warns on: left for one-by-one review."""
    remaining: int = 0
    """QA-clean ones left for another request (one request approves at most 500)."""
