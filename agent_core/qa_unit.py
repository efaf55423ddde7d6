"""A unit's QA profile findings from what a step or a service call knows of it: its file's name (which
picks the built-in profile unless one is chosen), its entry's key and note (a stated length limit, a
subtitle cue's timing) and the session's languages; and which findings keep a unit from being
approved without a person (`blocks`).
"""

from __future__ import annotations

from collections.abc import Iterable

from langfacts.identify import identify

from .qa_checks import ProfileFinding, QaHints, cue_seconds, profile_checks, stated_limit
from .qa_profiles import CHECKS, QaProfile, profile_for

__all__ = ["blocks", "unit_findings"]


def unit_findings(
    source: str,
    text: str,
    *,
    file_name: str,
    key: str | None = None,
    notes: Iterable[str | None] = (),
    chosen: QaProfile | None = None,
    source_language: str | None = None,
    target_language: str | None = None,
) -> tuple[ProfileFinding, ...]:
    """The findings of the profile `chosen` (else the file kind's built-in one) on `text`; `notes`: the
    developer notes of the unit's segments (the first that states a limit or a cue's timing counts)."""
    shown = [n for n in notes if n]
    hints = QaHints(
        key=key,
        max_length=next((limit for n in shown if (limit := stated_limit(n)) is not None), None),
        seconds=next((seconds for n in shown if (seconds := cue_seconds(n)) is not None), None),
        source_language=source_language,
        target_language=target_language,
        identify=identify,
    )
    return profile_checks(source, text, profile_for(file_name, chosen), hints)


def blocks(code: str, level: str) -> bool:
    """Whether a finding keeps its unit out of a bulk or an automatic approval: a profile check at
    `error`, or any finding of the checks no profile levels (broken codes, glossary, structure), which
    always have. A profile check at `warning` is shown and leaves the decision to the approval."""
    return level == "error" or code not in CHECKS
