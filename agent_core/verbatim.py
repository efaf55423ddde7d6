"""The parts of a document written as they are, without a model request.

Fenced and indented code blocks, a YAML front matter, HTML blocks without prose, horizontal rules,
link reference definitions and paragraphs that are only bare URLs are copied to the translation
unchanged. Each `VerbatimSpan` covers whole Markdown blocks (whole lines), stripped like a unit:
it starts at the first non-blank character of its first line and ends at the end of its last line,
trailing blanks left out; the whitespace between spans and units is copied from the source anyway.

Blocks are found by a CommonMark parser, so an indented line continuing a list item or a paragraph
is not code, and a fence left open runs to the end of the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from .effects import UnitWrite
from .markdown_structure import Block, blocks, front_matter_lines, line_starts

__all__ = [
    "CODE_KINDS",
    "VerbatimSpan",
    "breaks_block",
    "code_block_spans",
    "span_at",
    "verbatim_spans",
    "yaml_value_start",
]

VerbatimKind = Literal["fence", "indented", "front_matter", "html", "hr", "reference", "url"]
CODE_KINDS: Final = frozenset({"fence", "indented"})

_TAG_OR_COMMENT: Final = re.compile(r"<!--.*?(?:-->|$)|<[^<>]*>|&#?\w+;", re.S)
_URL_LINE: Final = re.compile(r"<?(?:https?|ftp)://\S+?>?")
_YAML_ITEM: Final = re.compile(r"(?:\s*-\s+)?(?:[^\s:#\"'][^:#]*:(?:\s+|$))?(?P<value>.*)")
_YAML_LITERAL: Final = re.compile(
    r"(?:true|false|yes|no|on|off|null|~|[-+]?[\d_.:eE+-]+|\d{4}-\d\d-\d\d[\dT:.+\-Z ]*|[|>][-+]?\d*|[&*!]\S*"
    r"|(?:https?|ftp)://\S+|\[\s*\]|\{\s*\})",
    re.I,
)


@dataclass(frozen=True, slots=True)
class VerbatimSpan:
    """Text kept as it is: `text[start:end]`, of one kind."""

    start: int
    end: int
    kind: VerbatimKind


def verbatim_spans(text: str, *, translate_front_matter: bool = False) -> list[VerbatimSpan]:
    """The spans of `text` written without a model request, in order and non-overlapping."""
    starts = line_starts(text)
    head = front_matter_lines(text)
    found: list[VerbatimSpan] = []
    if head:
        found += _front_matter(text, starts, head, translate_front_matter)
    for block in blocks(text, skip_lines=head):
        kind = _verbatim_kind(text, starts, block)
        if kind is not None:
            span = _span(text, starts, block.first, block.last, kind)
            if span is not None and (not found or span.start >= found[-1].end):
                found.append(span)
    return found


def code_block_spans(text: str) -> list[VerbatimSpan]:
    """The fenced and indented code blocks of `text`, in order."""
    return [s for s in verbatim_spans(text) if s.kind in CODE_KINDS]


def span_at(spans: Sequence[VerbatimSpan], pos: int) -> VerbatimSpan | None:
    """The span of `spans` (in order) that contains the offset `pos`, if any."""
    index = bisect.bisect_right([s.start for s in spans], pos) - 1
    return spans[index] if index >= 0 and pos < spans[index].end else None


def breaks_block(spans: Sequence[VerbatimSpan], start: int, end: int) -> bool:
    """True when the unit `[start, end)` overlaps a span without lying wholly inside it.

    With `code_block_spans`, a unit that starts inside a code block and ends outside it (or the
    other way round) is refused by this check.
    """
    return any(s.start < end and start < s.end and not (s.start <= start and end <= s.end) for s in spans)


def _verbatim_kind(text: str, starts: list[int], block: Block) -> VerbatimKind | None:
    if block.kind in ("fence", "indented", "hr", "reference"):
        return block.kind
    lines = _lines(text, starts, block.first, block.last)
    if block.kind == "html":
        prose = _TAG_OR_COMMENT.sub(" ", "\n".join(lines))
        return None if any(ch.isalnum() for ch in prose) else "html"
    if block.kind == "paragraph" and all(_URL_LINE.fullmatch(line.strip()) for line in lines):
        return "url"
    return None


def _front_matter(text: str, starts: list[int], count: int, translate: bool) -> list[VerbatimSpan]:
    """The whole front matter; or, when its values are translated, the runs of lines without prose."""
    if not translate:
        span = _span(text, starts, 0, count - 1, "front_matter")
        return [span] if span else []
    out: list[VerbatimSpan] = []
    run_start: int | None = None
    for number, line in enumerate(_lines(text, starts, 0, count - 1)):
        keep = number in (0, count - 1) or yaml_value_start(line) is None
        if keep and run_start is None:
            run_start = number
        if not keep and run_start is not None:
            out += [s for s in [_span(text, starts, run_start, number - 1, "front_matter")] if s]
            run_start = None
    if run_start is not None:
        out += [s for s in [_span(text, starts, run_start, count - 1, "front_matter")] if s]
    return out


def yaml_value_start(line: str) -> int | None:
    """Where the string value worth translating of a front-matter line begins (None: nothing to translate).

    A key, a number, a date, a boolean, a URL or an anchor is not translated; `title: Hello` and
    `- Hello` are, from "Hello" on.
    """
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    match = _YAML_ITEM.fullmatch(line)
    start = match.start("value") if match else 0
    value = line[start:].strip().strip("\"'")
    return start if any(ch.isalpha() for ch in value) and not _YAML_LITERAL.fullmatch(value) else None


def _lines(text: str, starts: list[int], first: int, last: int) -> list[str]:
    return [text[starts[n] : _line_end(text, starts, n)] for n in range(first, last + 1)]


def _line_end(text: str, starts: list[int], line: int) -> int:
    return starts[line + 1] - 1 if line + 1 < len(starts) else len(text)


def _span(text: str, starts: list[int], first: int, last: int, kind: VerbatimKind) -> VerbatimSpan | None:
    """Lines `first` to `last` as a stripped span (None when they are blank)."""
    start, end = starts[first], _line_end(text, starts, last)
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return VerbatimSpan(start, end, kind) if end > start else None


def verbatim_units(file_id: str, content: str, *, translate_front_matter: bool = False) -> list[UnitWrite]:
    """The units a file's verbatim spans are written as at once: its own text, no model request, no review.

    Each covers its span and the whitespace after it, like a reviewed unit, so the next unit to
    translate begins at the next prose.
    """
    units: list[UnitWrite] = []
    for n, span in enumerate(verbatim_spans(content, translate_front_matter=translate_front_matter)):
        cover_end = span.end + len(content[span.end :]) - len(content[span.end :].lstrip())
        units.append(
            UnitWrite(
                file_id=file_id,
                start=span.start,
                end=span.end,
                cover_end=cover_end,
                text=content[span.start : span.end],
                call_id=f"verbatim_{n}",
                status="verbatim",
                origin="verbatim",
            )
        )
    return units
