"""A file as segments (API.md "Files"), pure: written units, pending proposals and the untranslated text between.

The whole file in source order, each piece with the id of the stored segment (found at upload,
`agent_core.segmentation`) it begins in. Untranslated text is listed as its stored segments (cut
where a written unit or a pending proposal begins or ends inside one: the rest keeps the id).
Whitespace between pieces belongs to no segment. A pending proposal lies in untranslated text (it
splits it); a proposal that overlaps a written unit (a `Revise` request) is not a segment of its
own: the written unit is shown as written.
"""

from __future__ import annotations

import base64
import binascii
import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_core.copilot import CopilotRequest, EntryContext
from agent_core.effects import UnitWrite
from agent_core.errors import InvalidRequestError
from agent_core.segment import Segment as StoredSegment
from agent_core.segment import SegmentContext
from storage.comments import ThreadCount

from .segment_schemas import Segment, SegmentStatus

STATUS_NAMES: tuple[SegmentStatus, ...] = (
    *("untranslated", "pending", "approved", "refined", "revised", "verbatim", "translated", "reviewed"),
)
WRITTEN_STATUSES: frozenset[SegmentStatus] = frozenset(STATUS_NAMES[2:])
_CURSOR_PREFIX = "seg:"
_SORTED_PREFIX = "est:"


def segment_status(unit: UnitWrite) -> SegmentStatus:
    """A written unit's segment status: its review stage in a session with a second review (`translated`,
    `reviewed`), else what its last write did (`approve` → `approved`)."""
    if unit.stage is not None:
        return unit.stage
    return "approved" if unit.status == "approve" else unit.status


def entry_context(segment: StoredSegment) -> EntryContext | None:
    """A stored segment's key, developer's note, refs, locked codes and flags, as the API shows them (a
    resource file's or a marked-up document's; else None)."""
    found = segment.context
    if found is None:
        return None
    return EntryContext(
        key=found.key, note=found.note, refs=found.refs, codes=tuple(dict.fromkeys(found.codes)), flags=found.flags
    )


def written_segment(unit: UnitWrite, source: str, segment_id: str) -> Segment:
    """The segment of a written unit whose source text is `source`, which begins in stored segment `segment_id`."""
    return Segment(
        id=segment_id,
        start=unit.start,
        end=unit.end,
        source=source,
        target=unit.text,
        status=segment_status(unit),
        origin=unit.origin,
        updatedAt=unit.updated_at or None,
        estimate=unit.estimate,
        auto=unit.auto,
    )


def build_segments(
    source: str,
    stored: Sequence[StoredSegment],
    units: Sequence[UnitWrite],
    pending: Sequence[CopilotRequest] = (),
) -> list[Segment]:
    """The file's segments in order: `units` (written), `pending` proposals of this file, and the
    `stored` segments (the file's, in order) of the untranslated text between."""
    starts = [s.start for s in stored]

    def id_at(position: int) -> str:
        k = bisect.bisect_right(starts, position) - 1
        return stored[max(k, 0)].id if stored else "s1"

    def context_at(position: int) -> EntryContext | None:
        k = bisect.bisect_right(starts, position) - 1
        return entry_context(stored[max(k, 0)]) if stored else None

    items: list[Segment] = [
        written_segment(u, source[u.start : u.end], id_at(u.start)).model_copy(update={"context": context_at(u.start)})
        for u in units
    ]
    taken = [(u.start, u.end) for u in units]
    for request in pending:
        if request.tool.name != "Translate" or request.end <= request.start:
            continue
        if any(request.start < end and start < request.end for start, end in taken):
            continue  # overlaps a written unit (or another proposal): not a segment of its own
        taken.append((request.start, request.end))
        items.append(
            Segment(
                id=id_at(request.start),
                start=request.start,
                end=request.end,
                source=source[request.start : request.end],
                target=request.proposal_text,
                status="pending",
                origin=request.origin,
                updatedAt=None,
                estimate=request.estimate,
                context=context_at(request.start),
            )
        )
    items.sort(key=lambda s: s.start)
    out: list[Segment] = []
    position = 0
    for item in items:
        out.extend(_untranslated(source, stored, starts, position, item.start))
        out.append(item)
        position = max(position, item.end)
    out.extend(_untranslated(source, stored, starts, position, len(source)))
    return out


def _untranslated(
    source: str, stored: Sequence[StoredSegment], starts: Sequence[int], start: int, end: int
) -> list[Segment]:
    """The stored segments of untranslated `source[start:end]`, cut to it, whitespace trimmed."""
    out: list[Segment] = []
    if end <= start:
        return out
    for k in range(max(bisect.bisect_right(starts, start) - 1, 0), len(stored)):
        segment = stored[k]
        if segment.start >= end:
            break
        a, b = max(segment.start, start), min(segment.end, end)
        text = source[a:b]
        a, b = a + len(text) - len(text.lstrip()), a + len(text.rstrip())
        if b > a:
            out.append(
                Segment(
                    id=segment.id,
                    start=a,
                    end=b,
                    source=source[a:b],
                    target=None,
                    status="untranslated",
                    origin=None,
                    updatedAt=None,
                    context=entry_context(segment),
                )
            )
    return out


def with_comment_counts(segments: Sequence[Segment], counts: Mapping[str, ThreadCount]) -> list[Segment]:
    """The segments, each with the counts of its id's comment thread (`storage.comments.comment_counts`)."""
    return [
        s.model_copy(update={"comments": found.comments, "openComments": found.open})
        if (found := counts.get(s.id)) is not None
        else s
        for s in segments
    ]


def fill_with_source(source: str, units: Sequence[UnitWrite]) -> str:
    """The translation with every untranslated span given as its source text (the layout kept)."""
    out: list[str] = []
    position = 0
    for unit in sorted(units, key=lambda u: u.start):
        out.append(source[position : unit.start])
        out.append(unit.text)
        position = unit.end
    out.append(source[position:])
    return "".join(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentQuery:
    """What `GET …/segments` asks for: statuses (empty: all), a search text, a page."""

    statuses: frozenset[SegmentStatus] = frozenset()
    q: str = ""
    cursor: str | None = None
    limit: int = 200
    min_estimate: int | None = None
    """Only segments with an estimate at least this (untranslated and verbatim ones have none)."""
    max_estimate: int | None = None
    sort: Literal["position", "estimate"] = "position"
    """`estimate`: the lowest estimate first (ties in source order), segments without one last."""
    key: str = ""
    """Only segments of strings whose key starts with this (a resource file's; a document's have none)."""

    def shows(
        self, source: str, target: str | None, status: SegmentStatus, estimate: int | None, key: str | None = None
    ) -> bool:
        """True when a segment with these values passes the filters (the cursor aside)."""
        needle = self.q.casefold()
        return (
            (not self.key or (key is not None and key.startswith(self.key)))
            and (not self.statuses or status in self.statuses)
            and (not needle or needle in source.casefold() or needle in (target or "").casefold())
            and (self.min_estimate is None or (estimate is not None and estimate >= self.min_estimate))
            and (self.max_estimate is None or (estimate is not None and estimate <= self.max_estimate))
        )


def parse_statuses(value: str | None) -> frozenset[SegmentStatus]:
    """`?status=` as a set: a comma list of statuses, `written` for all written ones; InvalidRequestError otherwise."""
    found: set[SegmentStatus] = set()
    for name in (part.strip() for part in (value or "").split(",")):
        if not name:
            continue
        if name == "written":
            found |= WRITTEN_STATUSES
            continue
        status = next((s for s in STATUS_NAMES if s == name), None)
        if status is None:
            raise InvalidRequestError(f"Unknown status {name[:40]!r}; use {', '.join(STATUS_NAMES)} or written.")
        found.add(status)
    return frozenset(found)


def select(segments: Sequence[Segment], query: SegmentQuery) -> tuple[list[Segment], str | None]:
    """The page of `segments` the query asks for, and the cursor of the next page (None at the end)."""
    shown = [s for s in segments if query.shows(s.source, s.target, s.status, s.estimate, _key(s))]
    if query.sort == "estimate":  # a page is an offset into the sorted list
        shown.sort(key=lambda s: (s.estimate is None, s.estimate or 0, s.start))
        offset = decode_cursor(query.cursor, prefix=_SORTED_PREFIX)
        page = shown[offset : offset + query.limit]
        more = offset + query.limit < len(shown)
        return page, encode_cursor(offset + query.limit, prefix=_SORTED_PREFIX) if more else None
    after = decode_cursor(query.cursor)
    chosen = [s for s in shown if s.start >= after]
    if len(chosen) <= query.limit:
        return chosen, None
    return chosen[: query.limit], encode_cursor(chosen[query.limit].start)


def _key(segment: Segment) -> str | None:
    return segment.context.key if segment.context is not None else None


def contexts_finder(stored: Sequence[StoredSegment]) -> Callable[[int, int], list[SegmentContext | None]]:
    """The contexts of the stored segments a span of the file `[start, end)` lies in, in order."""
    starts = [s.start for s in stored]

    def contexts(start: int, end: int) -> list[SegmentContext | None]:
        k = max(bisect.bisect_right(starts, start) - 1, 0)
        found: list[SegmentContext | None] = []
        while k < len(stored) and (stored[k].start < end or not found):
            found.append(stored[k].context)
            k += 1
        return found

    return contexts


def key_finder(stored: Sequence[StoredSegment]) -> Callable[[int], str | None]:
    """The key of the string a position of the file lies in (its stored segment's context), or None."""
    contexts = contexts_finder(stored)

    def key(position: int) -> str | None:
        found = next(iter(contexts(position, position + 1)), None)
        return found.key if found is not None else None

    return key


def encode_cursor(start: int, *, prefix: str = _CURSOR_PREFIX) -> str:
    """An opaque cursor naming the first segment of the next page (its start, or its offset when sorted)."""
    return base64.urlsafe_b64encode(f"{prefix}{start}".encode()).decode("ascii").rstrip("=")


def decode_cursor(cursor: str | None, *, prefix: str = _CURSOR_PREFIX) -> int:
    """Where the page a cursor names begins (0 for none); InvalidRequestError for a cursor not issued here."""
    if not cursor:
        return 0
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        text = ""
    number = text.removeprefix(prefix)
    if not text.startswith(prefix) or not number.isdigit() or len(number) > 12:
        raise InvalidRequestError("The cursor is not one this route issued; start again without it.")
    return int(number)
