"""QA profiles in the service (API.md "QA profiles"): a profile given in a request body read (422 in
words for a bad one), and the profile findings on a person's text for a unit of a file, as the
workbench answers them beside its other checks.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.errors import InvalidRequestError
from agent_core.qa_profiles import QaProfile, parse_profile
from agent_core.qa_unit import unit_findings
from agent_core.segment import SegmentContext

from .schemas import QaWarningView


def read_profile(value: object) -> QaProfile | None:
    """The profile a request names (a built-in name or an object), None when it names none;
    InvalidRequestError (422) in words for one that is not a profile."""
    if value is None:
        return None
    try:
        return parse_profile(value)
    except ValueError as exc:
        raise InvalidRequestError(f"qaProfile: {exc}") from exc


def profile_warnings(
    file_name: str,
    contexts: Sequence[SegmentContext],
    source: str,
    text: str,
    *,
    target_language: str | None,
    source_language: str | None = None,
    chosen: QaProfile | None = None,
) -> list[QaWarningView]:
    """The QA profile's findings on `text` for a unit of the file `file_name` whose segments have
    `contexts` (none for a document without entries), each with its level; none for a plural entry,
    whose forms are checked by their own rules."""
    if any(c.plural for c in contexts):
        return []
    found = unit_findings(
        source,
        text,
        file_name=file_name,
        key=contexts[0].key if contexts else None,
        notes=[c.note for c in contexts],
        chosen=chosen,
        source_language=source_language,
        target_language=target_language,
    )
    return [QaWarningView(code=f.code, message=f.message, level=f.level) for f in found]
