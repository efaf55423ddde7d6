"""Where a proposed unit lies in its file: Translate's position rules.

The unit begins at the file's next untranslated text (in one response, right after the previous
unit); it names consecutive segments by id, or gives its source when the text has no ids (a Read
result); joined, at most MAX_UNIT_CHARS characters; it does not run into text already translated;
in an XLIFF file it lies inside one segment and keeps its inline codes. A unit that breaks a rule is
refused with a reason that says where the next untranslated text begins.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from pydantic import BaseModel

from ..document import FileState, Spans, add_span, first_gap
from ..ports import untranslated_segments
from ..segment import SegmentContext, segment_id, segment_index
from .base import (
    LINE_BREAK_NOTE,
    MAX_UNIT_CHARS,
    BatchState,
    ToolResult,
    codes_refusal,
    file_named,
    refuse,
    snippet,
)


class UnitArgs(Protocol):
    """What a Translate call says about the unit's place (TranslateArgs)."""

    @property
    def file_id(self) -> str: ...
    @property
    def segments(self) -> list[str] | None: ...
    @property
    def src_string(self) -> str | None: ...
    @property
    def translate_string(self) -> str | dict[str, str]: ...


class Located(BaseModel):
    """Where a valid unit lies: its file, source span, segments and the coverage it adds."""

    file_id: str
    start: int
    end: int
    cover_end: int
    source: str
    segments: tuple[str, ...]
    contexts: tuple[SegmentContext, ...] = ()
    """The context of each segment the unit covers, in a resource file (else none)."""


@dataclass(frozen=True, slots=True)
class Position:
    """Where the file's next untranslated text is: the unit must begin there (`start`) and end by `gap_end`."""

    batch: BatchState
    state: FileState
    covered: Spans
    start: int
    gap_end: int

    async def where(self) -> str:
        """Where the text goes on, for a rejection (a unit that fits never needs it)."""
        reader, file_id = self.batch.io, self.state.file_id
        at = await reader.segments(file_id, self.start, self.start + 1)
        ahead = snippet(await reader.read_text(file_id, self.start, min(self.gap_end, self.start + 120)))
        named = f"segment {at[0].id}, " if at else ""
        return f"The next untranslated text of {self.state.name} is {named}at character {self.start}: «{ahead}»."


async def locate(batch: BatchState, args: UnitArgs) -> Located | ToolResult:
    """The unit's place in its file, or the rejection the model is told: where the next untranslated
    text is, the span the unit's segments (or its source) name there, and the rules that span keeps."""
    at = await _position(batch, args)
    if isinstance(at, ToolResult):
        return at
    if args.segments:
        span = await _span_of_segments(at, args.segments, args.src_string)
    elif args.src_string is not None and args.src_string.strip():
        span = await _span_of_source(at, args.src_string.strip())
    else:
        return refuse(f"Name the unit's segments: give segments, their ids. {await at.where()}")
    if isinstance(span, ToolResult):
        return span
    source, end, lead = span
    if refusal := await _span_refusal(at, source, end, args.translate_string):
        return refuse(refusal)
    cover_end = await _whitespace_end(batch, at.state.file_id, end, at.gap_end)
    batch.coverage[at.state.file_id] = add_span(at.covered, at.start, cover_end)
    covered_segments = await batch.io.segments(at.state.file_id, at.start + lead, end)
    return Located(
        file_id=at.state.file_id,
        start=at.start + lead,
        end=end,
        cover_end=cover_end,
        source=source,
        segments=tuple(s.id for s in covered_segments),
        contexts=tuple(s.context for s in covered_segments if s.context is not None),
    )


async def _position(batch: BatchState, args: UnitArgs) -> Position | ToolResult:
    """The next untranslated text of the file the call names (the batch's earlier units counted), or the
    refusal: an unknown file, an empty translation, a file already complete."""
    state = file_named(batch, args.file_id)
    if isinstance(state, ToolResult):
        return state
    if isinstance(args.translate_string, str) and not args.translate_string.strip():
        return refuse("translate_string is empty: give your translation of the segments.")
    covered = batch.covered(state.file_id)
    gap = first_gap(covered, state.chars)
    if gap is None:
        return refuse(f"{state.name} is already completely translated; there is nothing left.")
    return Position(batch, state, covered, *gap)


async def _span_of_segments(
    at: Position, names: list[str], src_string: str | None
) -> tuple[str, int, int] | ToolResult:
    """The source, end and leading whitespace of the unit the segment ids name (`src_string`, if given,
    must be that source)."""
    end = await _segments_end(at, names)
    if isinstance(end, ToolResult):
        return end
    # The untranslated text may begin with whitespace, and a segment cut by a unit written from its
    # middle may end in it: the unit holds neither.
    raw = await at.batch.io.read_text(at.state.file_id, at.start, end)
    source = raw.strip()
    if src_string is not None and src_string.strip() != source:
        given = src_string.strip()
        hint = _mismatch_hint(source, given, _common_prefix(source, given))
        return refuse(f"src_string is not the source of segments {', '.join(names)}. {hint}{await at.where()}")
    return source, at.start + len(raw.rstrip()), len(raw) - len(raw.lstrip())


async def _span_of_source(at: Position, source: str) -> tuple[str, int, int] | ToolResult:
    """The end of a unit given by its source alone (text read with Read): it must begin at the next
    untranslated character and be at most a unit long."""
    if len(source) > MAX_UNIT_CHARS:
        return refuse(
            f"src_string has {len(source)} characters; a unit has at most {MAX_UNIT_CHARS}. "
            f"Split it at a sentence or line end. {await at.where()} {LINE_BREAK_NOTE}"
        )
    actual = await at.batch.io.read_text(at.state.file_id, at.start, at.start + len(source))
    if actual != source:
        hint = _mismatch_hint(actual, source, _common_prefix(actual, source))
        return refuse(
            f"src_string does not begin at the next untranslated text. {hint}{await at.where()} {LINE_BREAK_NOTE}"
        )
    return source, at.start + len(source), 0


async def _span_refusal(at: Position, source: str, end: int, translation: str | dict[str, str]) -> str | None:
    """Why the span cannot be one unit with this translation, or None: an XLIFF unit lies in one segment
    and keeps its inline codes; no unit runs into text already translated."""
    state = at.state
    if state.name.lower().endswith((".xlf", ".xliff")) and "\n\n" in source:
        # An XLIFF file's segments are joined by a blank line: a unit lies inside one segment.
        return (
            "In an XLIFF file a unit is one segment (segments are separated by a blank line); "
            f"end the unit before character {at.start + source.index(chr(10) * 2)}. {await at.where()}"
        )
    if isinstance(translation, str) and (refusal := codes_refusal(state, source, translation)):
        return refusal
    if end > at.gap_end:
        tail = await at.batch.io.read_text(state.file_id, at.gap_end, at.gap_end + 60)
        return (
            f"The unit runs into text that is already translated, from character {at.gap_end} "
            f"(«{snippet(tail, 40)}»). End the unit before it. {await at.where()}"
        )
    return None


async def _segments_end(at: Position, names: list[str]) -> int | ToolResult:
    """Where the unit the segment ids name ends, or the rejection: the first must be the segment the
    untranslated text begins in, the others the ones after it, within the unit cap."""
    indexes = [segment_index(name) for name in names]
    if None in indexes:
        unknown = names[indexes.index(None)]
        return refuse(
            f"{unknown!r} is not a segment id: ids are s1, s2, … as the next text marks them (【s12】). "
            f"{await at.where()}"
        )
    wanted = [i for i in indexes if i is not None]
    for a, b in pairwise(wanted):
        if b != a + 1:
            return refuse(
                f"The segments of a unit are consecutive: {segment_id(a)} is followed by {segment_id(a + 1)}, "
                f"not {segment_id(b)}. {await at.where()}"
            )
    start, state = at.start, at.state
    found = {
        s.index: s
        for s in await untranslated_segments(at.batch.io, state.file_id, start, start + MAX_UNIT_CHARS + 1, at.gap_end)
    }
    first = min(found) if found else None
    if first is None:
        return refuse(f"{state.name} has no segment there; give src_string. {await at.where()}")
    if wanted[0] != first:
        done = "is translated already" if wanted[0] < first else f"would skip {segment_id(first)}"
        return refuse(
            f"A unit begins at the next untranslated segment; {segment_id(wanted[0])} {done}. {await at.where()}"
        )
    # A locked segment is written at upload; one still untranslated (the upload kept nothing verbatim)
    # is translated as any other.
    if len(wanted) == 1 and found[first].end - start > MAX_UNIT_CHARS:
        return refuse(
            f"Segment {segment_id(first)} has {found[first].end - start} characters, more than a unit holds: give "
            f"its first part as src_string (at most {MAX_UNIT_CHARS} characters, ending at a line end). "
            f"{await at.where()}"
        )
    end = found[wanted[-1]].end if wanted[-1] in found else start + MAX_UNIT_CHARS + 1
    if end - start > MAX_UNIT_CHARS:
        return refuse(
            f"Joined, segments {segment_id(wanted[0])} to {segment_id(wanted[-1])} have more than {MAX_UNIT_CHARS} "
            f"characters; a unit has at most {MAX_UNIT_CHARS}: name fewer. {await at.where()}"
        )
    return end


async def _whitespace_end(batch: BatchState, file_id: str, end: int, limit: int) -> int:
    """`end` moved past the whitespace that follows it, but not beyond `limit`."""
    position = end
    while position < limit:
        text = await batch.io.read_text(file_id, position, min(limit, position + 256))
        stripped = len(text) - len(text.lstrip())
        position += stripped
        if stripped < len(text) or not text:
            break
    return min(position, limit)


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _mismatch_hint(actual: str, src: str, common: int) -> str:
    if common == 0:
        return "Its first characters differ from the source there. "
    return (
        f"The first {common} characters match, then the source has «{snippet(actual[common : common + 20], 30)}» "
        f"where src_string has «{snippet(src[common : common + 20], 30)}» (check spaces and line breaks). "
    )
