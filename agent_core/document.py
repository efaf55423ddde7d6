"""Where a file's translation has got: the covered spans of the source, and what comes next.

A file's progress is a sorted tuple of disjoint half-open spans `(start, end)` of source characters
that are translated. A written unit covers its source text and the whitespace after it, and the
file's leading whitespace is covered from the start, so the first uncovered character is always
the first untranslated non-whitespace character, and a file is complete when one span covers it all.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from .segment import Segment

Spans = tuple[tuple[int, int], ...]


def initial_coverage(content: str) -> Spans:
    """The coverage of a new file: its leading whitespace (all of it, for a blank file)."""
    lead = len(content) - len(content.lstrip())
    return ((0, lead),) if lead else ()


def add_span(spans: Spans, start: int, end: int) -> Spans:
    """`spans` with `[start, end)` added, merging spans that touch or overlap."""
    return add_spans(spans, ((start, end),))


def add_spans(spans: Spans, added: Iterable[tuple[int, int]]) -> Spans:
    """`spans` with every span of `added` added in one merge (a span at a time would sort them all
    again for each), merging spans that touch or overlap."""
    merged: list[tuple[int, int]] = []
    for s, e in sorted((*spans, *added)):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return tuple(merged)


def first_gap(spans: Spans, total: int) -> tuple[int, int] | None:
    """The first uncovered span `(start, end)`, or None when everything is covered."""
    position = 0
    for s, e in spans:
        if s > position:
            return (position, s)
        position = max(position, e)
    return (position, total) if position < total else None


def written(segment: Segment, spans: Spans) -> bool:
    """True when one written span covers `segment` whole (spans sorted and disjoint, as a file keeps them)."""
    at = bisect.bisect_right(spans, segment.start, key=lambda span: span[0]) - 1
    return at >= 0 and spans[at][1] >= segment.end


def unwritten(segments: Iterable[Segment], spans: Spans) -> int:
    """How many of `segments` are not written (`written`)."""
    return sum(not written(segment, spans) for segment in segments)


def covered_chars(spans: Spans) -> int:
    """How many source characters the spans cover."""
    return sum(e - s for s, e in spans)


@dataclass(frozen=True, slots=True)
class FileState:
    """A session's file as the agent sees it: identity, size and progress."""

    file_id: str
    name: str
    chars: int
    covered: Spans
    created_at: str = ""
    """When the file was added (storage sets it)."""

    @property
    def translated_chars(self) -> int:
        """Source characters translated so far (whitespace around written units included)."""
        return covered_chars(self.covered)

    @property
    def complete(self) -> bool:
        """True when every non-whitespace character lies in a written unit."""
        return first_gap(self.covered, self.chars) is None

    def next_gap(self) -> tuple[int, int] | None:
        """The first untranslated span, or None when the file is complete."""
        return first_gap(self.covered, self.chars)


def handle(position: int) -> str:
    """The short name the model knows the file at `position` (0-based, upload order) by: `f1`, `f2`, …
    Files are never removed, so a handle stays the file's for the whole session. Ids cost the model
    ~20 tokens a call; handles, 2."""
    return f"f{position + 1}"


def file_handle(files: Sequence[FileState], file_id: str) -> str:
    """The handle of the file `file_id` among the session's `files` (its id if it is not there)."""
    for k, f in enumerate(files):
        if f.file_id == file_id:
            return handle(k)
    return file_id


def find_file(files: Sequence[FileState], name: str) -> FileState | None:
    """The file a model's `file_id` names: its handle (`f2`) or its id."""
    for k, f in enumerate(files):
        if name in (f.file_id, handle(k)):
            return f
    return None


class _Unit(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def cover_end(self) -> int: ...
    @property
    def text(self) -> str: ...


def assemble(content: str, units: Sequence[_Unit]) -> str:
    """Units in source order; the source's leading whitespace and each unit's trailing whitespace copied."""
    lead = len(content) - len(content.lstrip())
    out = [content[:lead]]  # the leading whitespace is the document's, translated or not
    for unit in units:
        out.append(unit.text)
        out.append(content[unit.end : unit.cover_end])
    return "".join(out)
