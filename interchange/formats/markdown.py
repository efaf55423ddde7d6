"""Markdown and plain text: the whole file is one document entry, cut into segments by the service.

Any file no other format reads is text: UTF-8, kept exactly (a leading byte-order mark stays a character of
the text, as a `content` upload gives it), one `Entry` with the key
`document` holding the whole text (`document=True`: the service segments it as Markdown, blocks then
sentences, and keeps code and front matter verbatim). `write` is the target of that entry, the file's
translation, assembled by the service from the written units with the source between them.
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import Entry, FileFormat, FormatError, Resource, Target

KEY = "document"
"""The one entry's key."""


def decode_text(data: bytes, *, what: str = "The file", bom: bool = False) -> str:
    """UTF-8 text (without a byte-order mark unless `bom`); FormatError naming the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8" if bom else "utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"{what} is not UTF-8 text: byte {exc.start} is {data[exc.start]:#04x}.") from exc


class Markdown(FileFormat):
    """Markdown or plain text, the format of any file no other format reads."""

    name = "markdown"
    extensions = ("",)
    media_type = "text/markdown; charset=utf-8"

    def accepts(self, name: str, data: bytes) -> bool:
        """Every file: Markdown is the fallback."""
        return True

    def read(self, data: bytes) -> Resource:
        """One document entry, the whole text."""
        return Resource(entries=(Entry(key=KEY, source=decode_text(data, bom=True), document=True),))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The translation given for the document, else the original."""
        target = targets.get(KEY)
        return target.encode("utf-8") if isinstance(target, str) else data


FORMAT = Markdown()
