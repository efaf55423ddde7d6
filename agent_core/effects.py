"""Side effects a tool asks for; the step commits them with its messages, atomically."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True, kw_only=True)
class UnitWrite:
    """A reviewed unit to write into the translated document."""

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
    status: Literal["approve", "refined"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Correction:
    """A reviewer's edit or rejection, recorded for the owner's memory."""

    file_id: str
    status: Literal["refined", "reject"]
    source: str
    proposal: str
    final: str | None
    """The edited text (refined), or None (reject)."""
    reason: str | None
