"""A PO file's lines around polib: joined before polib reads them, laid out as gettext's when it writes.

`join_lines(text)` joins each string's continuation lines onto its first line (polib concatenates
them one by one, at a cost that grows with the square of their number), checks that every line is
a keyword with a string, a string or a comment, and bounds runs of comment lines.

polib wraps strings with `textwrap` (a space that falls at a line end starts the next line, a
string with newlines is not wrapped further) and wraps `#.` and `# ` comments, which gettext never
does. `GettextEntry` writes as msgmerge does: a string that fits stays on its keyword's line;
otherwise it starts with `""` and is cut after each newline and, within the width, after a space
(which stays at the line's end) or inside a hyphenated word; comments are written as they were
read. Entries become `GettextEntry` by assignment of their class (`adopt`).
"""

from __future__ import annotations

import re
from typing import Any

import polib  # type: ignore[import-untyped]

from .base import FormatError

_MAX_COMMENT_RUN = 500
"""The most comment lines in a row (polib joins them at a cost that grows with the square)."""
_KEYWORD = re.compile(r"msgctxt|msgid|msgid_plural|msgstr|msgstr\[\d+\]")
_BREAK = re.compile(r"(?<= )|(?<=[A-Za-z]-)(?=[A-Za-z])")
_PIECE = re.compile(r"[^\n]*\n|[^\n]+")


def wrap(escaped: str, limit: int) -> list[str]:
    """`escaped` in pieces of at most `limit` characters, cut only where a line may break; a piece
    with no break within the limit runs to the next break."""
    if limit <= 0 or len(escaped) <= limit:
        return [escaped]
    pieces: list[str] = []
    start = 0
    fits: int | None = None
    for cut in [m.start() for m in _BREAK.finditer(escaped)] + [len(escaped)]:
        if cut <= start:
            continue
        if cut - start <= limit:
            fits = cut
            continue
        if fits is not None:
            pieces.append(escaped[start:fits])
            start = fits
        if cut - start <= limit:
            fits = cut
        else:
            pieces.append(escaped[start:cut])
            start, fits = cut, None
    if start < len(escaped):
        pieces.append(escaped[start:])
    return pieces


_PREFIXES = ("#~| ", "#~ ", "#| ", "")


def _split(line: str) -> tuple[str, str]:
    """An obsolete or previous-string line's prefix, and the rest."""
    prefix = next(p for p in _PREFIXES if line.startswith(p))
    return prefix, line[len(prefix) :]


def _is_string(body: str) -> bool:
    body = body.strip()
    if len(body) < 2 or body[0] != '"' or body[-1] != '"':
        return False
    backslashes = len(body[:-1]) - len(body[:-1].rstrip("\\"))
    return backslashes % 2 == 0


def _ends_in_string(body: str) -> bool:
    keyword, _, rest = body.strip().partition(" ")
    if _KEYWORD.fullmatch(keyword):
        return _is_string(rest)
    return _is_string(body)


def join_lines(text: str) -> tuple[str, list[int]]:
    """The text with each string's continuation lines joined onto its first line (polib joins
    them at a cost that grows with the square), and the original line number of each line."""
    out: list[list[str]] = []  # each line as its pieces: a line and the strings joined onto it
    origin: list[int] = []
    open_prefix: str | None = None  # the prefix of the last line, when it ends in a string
    run = 0
    for number, line in enumerate(text.splitlines(), 1):
        prefix, body = _split(line)
        if open_prefix == prefix and _is_string(body):
            pieces = out[-1]
            pieces[-1] = pieces[-1].rstrip()[:-1]
            pieces.append(body.strip()[1:])
            continue
        run = run + 1 if line.startswith("#") and not prefix else 0
        if run > _MAX_COMMENT_RUN:
            raise FormatError(f"Line {number}: more than {_MAX_COMMENT_RUN} comment lines in a row.")
        if not prefix and not line.startswith("#") and line.strip() and not _ends_in_string(body):
            raise FormatError(f"Line {number}: expected a keyword (msgid, msgstr…) and a quoted string, or a comment.")
        out.append([line])
        origin.append(number)
        open_prefix = prefix if _ends_in_string(body) else None
    return "\n".join("".join(pieces) for pieces in out) + "\n", origin


class GettextEntry(polib.POEntry):  # type: ignore[misc]  # polib is untyped
    """A PO entry written in gettext's layout."""

    tcomment: str
    comment: str
    obsolete: bool

    def _str_field(self, fieldname: str, delflag: str, plural_index: str, field: str, wrapwidth: int = 78) -> list[str]:
        name = fieldname.removeprefix("previous_")
        head = f"{delflag}{name}{plural_index} "
        pieces = _PIECE.findall(field) or [""]
        whole = f'{head}"{polib.escape(field)}"'
        if len(pieces) == 1 and (wrapwidth <= 0 or len(whole) <= wrapwidth):
            return [whole]
        limit = wrapwidth - len(delflag) - 2 if wrapwidth > 0 else 0
        lines = [f'{head}""']
        for piece in pieces:
            lines += [f'{delflag}"{chunk}"' for chunk in wrap(polib.escape(piece), limit)]
        return lines

    def __unicode__(self, wrapwidth: int = 78) -> str:
        comments: list[str] = []
        for text, mark in ((self.tcomment, "#"), ("" if self.obsolete else self.comment, "#.")):
            if text:
                comments += [f"{mark} {line}" if line else mark for line in text.split("\n")]
        kept = self.tcomment, self.comment
        self.tcomment = self.comment = ""
        try:
            body: str = super().__unicode__(wrapwidth)
        finally:
            self.tcomment, self.comment = kept
        return "\n".join([*comments, body])


def adopt(entry: Any) -> Any:
    """The polib entry, now written in gettext's layout."""
    entry.__class__ = GettextEntry
    return entry
