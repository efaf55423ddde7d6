"""An XLIFF document as the project's translatable text, and translation units back into segment targets.

The text is the sources of the translatable segments (`XliffDocument.translatable_segments()`),
placeholders included, joined by one blank line (`"\\n\\n"`); each segment has its span `[start, end)`
in it. The position-based translation units then map onto segments by this rule:

- a unit lies inside exactly one segment's span: a unit that crosses a span's end or starts in the
  blank line between two segments breaks the rule (`span_of` returns None; reject it like an overlap);
- one segment is one or more units, in order; the segment's target is its source with each unit's
  range replaced by the unit's translation, so the whitespace between units is copied from the source;
- a segment gets a target once every non-whitespace character of its span is in a written or pending
  unit; its status is then the least settled of its units' (pending, else revised, else refined, else
  approved, else verbatim).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .model import Status, XliffDocument

SEPARATOR = "\n\n"
_PRIORITY: tuple[Status, ...] = ("pending", "translated", "revised", "refined", "approved", "reviewed", "verbatim")


@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentSpan:
    """Where a segment's source lies in the translatable text."""

    key: str
    start: int
    end: int


@dataclass(frozen=True, slots=True, kw_only=True)
class XliffText:
    """The translatable text of an XLIFF document and each segment's span in it."""

    text: str
    spans: tuple[SegmentSpan, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class WrittenUnit:
    """A translation unit of the file: its span in the translatable text, its translation, its status."""

    start: int
    end: int
    translation: str
    status: Status


@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentTargets:
    """The targets and states to give `fill_xliff`."""

    targets: dict[str, str]
    states: dict[str, Status]


def translatable_text(document: XliffDocument) -> XliffText:
    """The text to store as the file's content, and the span of each translatable segment."""
    return joined_text((s.key, s.source) for s in document.translatable_segments())


def joined_text(sources: Iterable[tuple[str, str]]) -> XliffText:
    """Sources by key (an XLIFF segment's, a resource file's entries') joined by one blank line, and
    each one's span in the text (any file format's stored text, `interchange.formats`)."""
    spans: list[SegmentSpan] = []
    parts: list[str] = []
    position = 0
    for key, source in sources:
        if parts:
            parts.append(SEPARATOR)
            position += len(SEPARATOR)
        parts.append(source)
        spans.append(SegmentSpan(key=key, start=position, end=position + len(source)))
        position += len(source)
    return XliffText(text="".join(parts), spans=tuple(spans))


def span_of(layout: XliffText, start: int, end: int) -> SegmentSpan | None:
    """The segment span that holds `[start, end)`, or None when the range crosses or leaves every span.

    A binary search: the spans are in order and do not overlap."""
    at = bisect.bisect_right(layout.spans, start, key=lambda s: s.start) - 1
    if at >= 0 and layout.spans[at].start <= start and end <= layout.spans[at].end:
        return layout.spans[at]
    return None


def segment_targets(layout: XliffText, units: Sequence[WrittenUnit]) -> SegmentTargets:
    """The target and status of every segment its units cover completely (written or pending units)."""
    targets: dict[str, str] = {}
    states: dict[str, Status] = {}
    ordered = sorted((u for u in units if u.status != "untranslated"), key=lambda u: u.start)
    at = 0
    for span in layout.spans:  # one sweep over the spans and the units, both in order
        while at < len(ordered) and ordered[at].start < span.start:
            at += 1
        inside: list[WrittenUnit] = []
        while at < len(ordered) and ordered[at].start <= span.end:
            if ordered[at].end <= span.end:
                inside.append(ordered[at])
            at += 1
        pieces: list[str] = []
        position = span.start
        for unit in inside:
            if layout.text[position : unit.start].strip():
                break
            pieces.append(layout.text[position : unit.start])
            pieces.append(unit.translation)
            position = unit.end
        else:
            if inside and not layout.text[position : span.end].strip():
                pieces.append(layout.text[position : span.end])
                targets[span.key] = "".join(pieces)
                states[span.key] = next(s for s in _PRIORITY if any(u.status == s for u in inside))
    return SegmentTargets(targets=targets, states=states)
