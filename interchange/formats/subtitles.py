"""Subtitles, SubRip `.srt` and WebVTT `.vtt`: each cue's text is an entry; timings are locked.

Read with an own line scanner rather than `srt` or `webvtt-py`: both re-serialise on writing (the
numbering, the header, NOTE and STYLE blocks, cue settings and line endings would not come back
byte for byte) and neither gives the offsets a splice needs; the tests check every written file
with both libraries. A cue is a block of non-blank lines: in SRT its number, its timing line and
its text; in WebVTT an optional identifier, the timing line (with any cue settings) and the text.
A WebVTT file starts with `WEBVTT`; its header, `NOTE`, `STYLE` and `REGION` blocks are kept as
they are and never read as entries. Any other block is refused, as is a timing line inside a
cue's text (a blank line is missing before the next cue).

Entries: the key is the cue's identifier (WebVTT) or number (SRT), else its position from 1; a
key met twice gets `#2`, `#3`… after it. The note is the cue's timing (`00:00:01,000 --> …`), so
reviewers see it; it is never in the text. The text is the cue's lines joined by `\\n`, its tags
(`<i>`, `</i>`, `<c.yellow>`, `<v Roger>`, `<font color="…">`, `<00:01.000>`) and ASS overrides
(`{\\an8}`) locked codes. WebVTT character references (`&lt;`, `&amp;`, `&nbsp;`…) are decoded in
the entry and `&`, `<`, `>` escaped again when written; SRT has no escaping. A cue without text
is no entry.

Writing replaces the text lines of each translated cue and nothing else: the translation's lines
are joined by the cue's own line ending, and blank lines in it are dropped (a blank line would end
the cue). A translation's line that would read as a timing line (`00:01:02,000 --> 00:01:03,000`,
which lenient players such as ffmpeg take for the start of a new cue even without a blank line) is
joined to the line before it, or, as the cue's first line, written after an invisible U+2060 WORD
JOINER: every character the reviewer approved is kept and no reader can see a cue in it (SRT has no
escaping; in WebVTT the `>` is escaped anyway). UTF-8 only (a byte-order mark is kept).

`.srt` files are `FORMAT` (`subtitles`; one that starts with `WEBVTT` is read as WebVTT), `.vtt`
files `WEBVTT` (`webvtt`, module `webvtt`): a `.vtt` without its `WEBVTT` line is refused, as
players refuse it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

from ..limits import MAX_SEGMENTS
from ._markup import Edit, Line, decode_utf8, escape_text, lines, splice, split_codes
from .base import Entry, FileFormat, FormatError, Resource, Target

_SRT_TIME: Final = r"\d{1,3}:\d{1,2}:\d{1,2}[,.]\d{1,3}"
_SRT_TIMING: Final = re.compile(rf"[ \t]*({_SRT_TIME})[ \t]*-->[ \t]*({_SRT_TIME})(?:[ \t].*)?")
_VTT_TIME: Final = r"(?:\d{2,}:)?[0-5]\d:[0-5]\d\.\d{3}"
_VTT_TIMING: Final = re.compile(rf"({_VTT_TIME})[ \t]+-->[ \t]+({_VTT_TIME})(?:[ \t].*)?")
_NUMBER: Final = re.compile(r"[ \t]*\d+[ \t]*")
_TAG: Final = re.compile(r"</?[A-Za-z0-9][^<>\r\n]{0,400}>|\{\\[^{}\r\n]{1,80}\}")
_VTT_BLOCKS: Final = ("NOTE", "STYLE", "REGION")


@dataclass(frozen=True, slots=True)
class _Cue:
    label: str
    timing: str
    text: tuple[Line, ...]
    after: Line
    """The line the text follows (the timing line)."""


class SubtitlesFormat(FileFormat):
    """SubRip and WebVTT subtitles: cue texts in, the same file with cue texts translated out."""

    name = "subtitles"
    extensions: tuple[str, ...] = (".srt",)

    def _text(self, data: bytes) -> tuple[str, bool]:
        """The decoded file and whether it is WebVTT."""
        text = decode_utf8(data, "subtitles")
        return text, _is_vtt(text)

    def read(self, data: bytes) -> Resource:
        """The cues with text, in file order."""
        text, vtt = self._text(data)
        cues = _cues(text, vtt=vtt)
        entries = [_entry(key, cue, vtt=vtt) for key, cue in _keyed(cues) if cue.text]
        if not entries:
            raise FormatError("subtitles: no cue has text to translate")
        return Resource(entries=tuple(entries))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The original with each translated cue's text lines replaced; everything else unchanged."""
        text, vtt = self._text(data)
        edits: list[Edit] = []
        for key, cue in _keyed(_cues(text, vtt=vtt)):
            target = targets.get(key)
            if target is None or not cue.text:
                continue
            if not isinstance(target, str):
                raise ValueError(f"cue {key}: a subtitle takes a text, not plural forms")
            codes = _codes(_raw(cue))
            new = escape_text(target, codes, _escape) if vtt else target
            newline = cue.text[0].ending(text) or cue.after.ending(text) or "\n"
            body = newline.join(_no_timing([line for line in new.splitlines() if line.strip()]))
            edits.append(Edit(cue.text[0].start, cue.text[-1].stop, body))
        return splice(text, edits).encode("utf-8")


class WebVttFormat(SubtitlesFormat):
    """WebVTT subtitles: a file must start with its `WEBVTT` line."""

    name = "webvtt"
    extensions = (".vtt",)
    media_type = "text/vtt; charset=utf-8"

    def _text(self, data: bytes) -> tuple[str, bool]:
        text = decode_utf8(data, "subtitles")
        if not _is_vtt(text):
            raise FormatError(
                "subtitles: line 1: a WebVTT file starts with the line WEBVTT, which players need; this one "
                "does not (add it, or name an SRT file .srt)"
            )
        return text, True


WORD_JOINER: Final = "\u2060"


def _no_timing(lines: list[str]) -> list[str]:
    """The translation's lines with none that reads as a timing line (see the module's note)."""
    out: list[str] = []
    for line in lines:
        if "-->" in line and _SRT_TIMING.fullmatch(line.strip()):
            if out:
                out[-1] = f"{out[-1]} {line.strip()}"
                continue
            line = WORD_JOINER + line.strip()
        out.append(line)
    return out


def _is_vtt(text: str) -> bool:
    first = text.lstrip("\ufeff")
    return first.startswith("WEBVTT") and (len(first) == 6 or first[6] in " \t\r\n")


def _blocks(text: str) -> list[list[Line]]:
    """The runs of non-blank lines (a line of spaces only counts as blank)."""
    blocks: list[list[Line]] = []
    current: list[Line] = []
    for line in lines(text):
        if line.number == 1 and line.body.startswith("\ufeff"):  # a byte-order mark is no content
            line = replace(line, start=line.start + 1, body=line.body[1:])
        if line.body.strip():
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _cues(text: str, *, vtt: bool) -> list[_Cue]:
    blocks = _blocks(text)
    if vtt:
        blocks = blocks[1:]  # the WEBVTT line and its header lines
    cues: list[_Cue] = []
    for block in blocks:
        cue = _vtt_cue(block) if vtt else _srt_cue(block)
        if cue is None:
            continue
        for line in cue.text:
            if "-->" in line.body and (_VTT_TIMING if vtt else _SRT_TIMING).fullmatch(line.body.strip()):
                raise FormatError(
                    f"subtitles: line {line.number}: a timing line inside the text of cue {cue.label}: "
                    "a blank line is missing before it"
                )
        cues.append(cue)
        if len(cues) > MAX_SEGMENTS:
            raise FormatError(f"subtitles: more than {MAX_SEGMENTS} cues")
    return cues


def _srt_cue(block: list[Line]) -> _Cue:
    first = block[0]
    if _NUMBER.fullmatch(first.body) and len(block) > 1:
        label, timing = first.body.strip(), block[1]
    else:
        label, timing = "", first
    match = _SRT_TIMING.fullmatch(timing.body)
    if match is None:
        what = "a timing line (00:00:01,000 --> 00:00:04,000)" if label else "a cue number or a timing line"
        raise FormatError(f"subtitles: line {timing.number}: expected {what}, found {timing.body[:60]!r}")
    _check_clock(match.group(1), timing.number)
    _check_clock(match.group(2), timing.number)
    rest = tuple(block[block.index(timing) + 1 :])
    return _Cue(label, f"{match.group(1)} --> {match.group(2)}", rest, timing)


def _check_clock(value: str, number: int) -> None:
    parts = re.split(r"[:,.]", value)
    if int(parts[1]) > 59 or int(parts[2]) > 59:
        raise FormatError(f"subtitles: line {number}: {value} is not a time (minutes and seconds run to 59)")


def _vtt_cue(block: list[Line]) -> _Cue | None:
    first = block[0]
    head = first.body.split(maxsplit=1)[0] if first.body.strip() else ""
    if "-->" in first.body:
        label, timing = "", first
    elif len(block) > 1 and "-->" in block[1].body:
        label, timing = first.body.strip(), block[1]
    elif head in _VTT_BLOCKS and first.body.startswith(head):
        return None  # a comment, a style sheet or a region definition: kept as it is
    else:
        raise FormatError(
            f"subtitles: line {first.number}: neither a cue (a timing line 00:01.000 --> 00:04.000) "
            f"nor a NOTE, STYLE or REGION block: {first.body[:60]!r}"
        )
    match = _VTT_TIMING.fullmatch(timing.body.strip())
    if match is None:
        raise FormatError(
            f"subtitles: line {timing.number}: expected a WebVTT timing (00:00:01.000 --> 00:00:04.000), "
            f"found {timing.body[:60]!r}"
        )
    rest = tuple(block[block.index(timing) + 1 :])
    return _Cue(label, f"{match.group(1)} --> {match.group(2)}", rest, timing)


def _keyed(cues: Sequence[_Cue]) -> list[tuple[str, _Cue]]:
    """Each cue with its key: its label (or position), `#n` added to a repeat."""
    seen: dict[str, int] = {}
    keyed: list[tuple[str, _Cue]] = []
    for position, cue in enumerate(cues, start=1):
        base = cue.label or str(position)
        seen[base] = seen.get(base, 0) + 1
        keyed.append((base if seen[base] == 1 else f"{base}#{seen[base]}", cue))
    return keyed


def _raw(cue: _Cue) -> str:
    return "\n".join(line.body for line in cue.text)


def _codes(raw: str) -> tuple[str, ...]:
    return tuple(m.group() for m in _TAG.finditer(raw))


def _entry(key: str, cue: _Cue, *, vtt: bool) -> Entry:
    raw = _raw(cue)
    codes = _codes(raw)
    source = "".join(p if is_code or not vtt else html.unescape(p) for is_code, p in split_codes(raw, codes))
    return Entry(key=key, source=source, note=cue.timing, codes=codes, document=True)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


FORMAT = SubtitlesFormat()
WEBVTT = WebVttFormat()
