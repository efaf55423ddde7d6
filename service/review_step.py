"""The second review (API.md "Projects and teams"): who may change a unit of a session that reviews
twice, and the reviewer's approval of `translated` units by filter.

In such a session what a translator approves or edits is `translated`; a reviewer's approval (a
bulk approval with `"step": "review"`, or a `PUT …/segments/{start}` that keeps the text) or edit
makes it `reviewed`. A translator may still revise a `translated` unit of their own (or one the
routing approved), which stays `translated`; a `reviewed` unit, or another translator's, is a
reviewer's to change (403). A reviewer's approval is a write of the unit with its text as it is,
by the reviewer: the audit trail shows it as `reviewed`, and the memory, which learns from edits,
has nothing new to learn from it.
"""

from __future__ import annotations

from agent_core.effects import UnitWrite
from agent_core.review_modes import ReviewStage

from .access import ForbiddenError


def revision_stage(unit: UnitWrite, person: str | None, *, reviewer: bool, second_review: bool) -> ReviewStage | None:
    """The stage a revision of `unit` by `person` (None: the session's owner) leaves it at, or
    ForbiddenError when a translator may not change it (`reviewer`: the caller may review). In a session
    that reviews once now, a unit still `translated` (written while it pre-translated or reviewed twice)
    is its owner's to review."""
    if not second_review:
        return "reviewed" if unit.stage == "translated" else None
    if reviewer:
        return "reviewed"
    if unit.stage == "reviewed":
        raise ForbiddenError("This unit is reviewed: a reviewer changes it now. Leave a comment on the segment.")
    if unit.by is not None and unit.by != person:
        raise ForbiddenError(
            f"This unit was approved by {unit.by}: they or a reviewer may change it. Leave a comment on the segment."
        )
    return "translated"
