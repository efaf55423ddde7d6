"""QA profiles in the service (API.md "QA profiles"): the profile findings on a person's text for a
unit of a file, as the workbench answers them beside its other checks, and the written units an
approval of many leaves for a person.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.effects import UnitWrite
from agent_core.qa_profiles import QaProfile, profile_for
from agent_core.qa_unit import unit_findings
from agent_core.segment import Segment, SegmentContext

from .segment_schemas import QaWarningView


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


def blocked_units(
    file_name: str,
    segments: Sequence[Segment],
    units: Sequence[UnitWrite],
    source: str,
    *,
    target_language: str | None,
    chosen: QaProfile | None = None,
) -> set[int]:
    """The starts of the written `units` (of one file, disjoint) that a check of the file's QA profile at
    `error` level finds fault with: what an approval of many units leaves for a person. Only the
    profile's error checks run; the units and the file's segments are walked once, in order."""
    strict = profile_for(file_name, chosen).errors_only()
    ordered = sorted(segments, key=lambda s: s.start)
    blocked: set[int] = set()
    k = 0
    for unit in sorted(units, key=lambda u: u.start):
        while k < len(ordered) and ordered[k].end <= unit.start:
            k += 1
        contexts: list[SegmentContext] = []
        j = k
        while j < len(ordered) and ordered[j].start < unit.end:
            if (context := ordered[j].context) is not None:
                contexts.append(context)
            j += 1
        found = profile_warnings(
            file_name,
            contexts,
            source[unit.start : unit.end],
            unit.text,
            target_language=target_language,
            chosen=strict,
        )
        if found:
            blocked.add(unit.start)
    return blocked
