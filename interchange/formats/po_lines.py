"""gettext's line layout for polib's entries, so a re-serialised PO file keeps the original's lines.

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
