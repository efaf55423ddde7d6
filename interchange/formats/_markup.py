"""Text with locked codes for the document formats (HTML, subtitles): decode, split, escape, splice.

A document entry's source is its decoded text with each tag kept literally as a locked code. To
write a translation back, the target is cut at the entry's codes (`split_codes`): the codes go out
as they are, the text between them is escaped for the format. Edits are spliced into the original
at source positions (`splice`), so every byte no entry covers stays as it was.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from .base import FormatError

__all__ = ["Edit", "Line", "decode_utf8", "escape_text", "lines", "splice", "split_codes"]


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace `text[start:end]` with `new`."""

    start: int
    end: int
    new: str


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a text: where it starts, where its content ends, where its line ending ends."""

    number: int
    start: int
    stop: int
    end: int
    body: str

    def ending(self, text: str) -> str:
        """The characters that end this line in `text`."""
        return text[self.stop : self.end]


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


def lines(text: str) -> Iterator[Line]:
    """The lines of `text` with their offsets (CRLF, LF and CR endings; no other separators)."""
    pos, number, size = 0, 1, len(text)
    while pos < size:
        match = _LINE.match(text, pos)
        assert match is not None  # the pattern matches at every position
        end = match.end()
        stop = end
        while stop > pos and text[stop - 1] in "\r\n":
            stop -= 1
        yield Line(number, pos, stop, end, text[pos:stop])
        pos, number = end, number + 1


def decode_utf8(data: bytes, what: str) -> str:
    """`data` as UTF-8 text (a byte-order mark is kept as U+FEFF, so writing it back keeps it);
    FormatError naming the line of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError(f"{what}: line {line}: not UTF-8 text (byte {exc.start})") from exc


def split_codes(text: str, codes: Iterable[str]) -> list[tuple[bool, str]]:
    """`text` cut into pieces, each `(True, code)` for an occurrence of one of `codes` (the longest
    at a position) or `(False, text)` for what lies between."""
    unique = sorted(set(codes), key=len, reverse=True)
    if not unique:
        return [(False, text)] if text else []
    pattern = re.compile("|".join(re.escape(c) for c in unique))
    pieces: list[tuple[bool, str]] = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() > position:
            pieces.append((False, text[position : match.start()]))
        pieces.append((True, match.group()))
        position = match.end()
    if position < len(text):
        pieces.append((False, text[position:]))
    return pieces


def escape_text(text: str, codes: Sequence[str], escape: Callable[[str], str]) -> str:
    """`text` with `escape` applied to everything but the occurrences of `codes`."""
    return "".join(piece if is_code else escape(piece) for is_code, piece in split_codes(text, codes))


def splice(text: str, edits: Iterable[Edit]) -> str:
    """`text` with each edit applied (edits may come in any order; they must not overlap)."""
    out: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: e.start):
        if edit.start < position:
            raise ValueError(f"overlapping edits at offset {edit.start}")
        out.append(text[position : edit.start])
        out.append(edit.new)
        position = edit.end
    out.append(text[position:])
    return "".join(out)
