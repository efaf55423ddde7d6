"""Which declared encodings a file may name: character sets, not Python's other codecs."""

from __future__ import annotations

import codecs

from .base import FormatError

NOT_TEXT_ENCODINGS = frozenset({"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape"})
"""Codecs Python lists as text encodings that are no character set a file is written in."""


def text_codec(encoding: str, where: str) -> None:
    """FormatError unless `encoding` is a character set Python can decode a file with: an unknown
    name, a bytes-to-bytes codec (`rot13`, `base64`, `zlib`, `hex`, `uu`…) or one of
    `NOT_TEXT_ENCODINGS` is refused; `where` starts the message (what named it)."""
    try:
        info = codecs.lookup(encoding)
    except LookupError as exc:
        raise FormatError(f"{where} names an unknown encoding, {encoding!r}.") from exc
    if not getattr(info, "_is_text_encoding", True) or info.name.replace("_", "-") in NOT_TEXT_ENCODINGS:
        raise FormatError(f"{where} names {encoding!r}, which is not a character encoding; use UTF-8.")
