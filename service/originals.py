"""A file's original as stored: the format's name and the file's bytes, in one string.

Storage keeps an original as text (`SessionStorageInterface.add_file(original=…)`, chunked like the
file's text on both backends: SQLite rows, DynamoDB `D#` items of at most 32,000 characters each, so
far within the 400 KB item limit). The first line names the format and how the bytes are written:
`tagent-original po utf-8` (the bytes are UTF-8 text, kept as they are) or `tagent-original docx
base64` (anything else: DOCX, a UTF-16 `.strings`, text with a NUL), then the bytes. So an export
knows the format without guessing, and gets back exactly the bytes uploaded.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

MAGIC = "tagent-original"


@dataclass(frozen=True, slots=True)
class Original:
    """A stored original: the format that read it and its bytes."""

    format: str
    data: bytes


def pack_original(format_name: str, data: bytes) -> str:
    """The original as stored: a header line, then the bytes as UTF-8 text or base64."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\x00" in text:
        return f"{MAGIC} {format_name} base64\n{base64.b64encode(data).decode('ascii')}"
    return f"{MAGIC} {format_name} utf-8\n{text}"


def unpack_original(stored: str | None) -> Original | None:
    """A stored original read back; None for a file that has none (Markdown, plain text)."""
    if stored is None:
        return None
    header, _, body = stored.partition("\n")
    magic, name, encoding = [*header.split(" "), "", ""][:3]
    if magic != MAGIC:
        raise ValueError("a stored original without its header")
    data = base64.b64decode(body) if encoding == "base64" else body.encode("utf-8")
    return Original(format=name, data=data)
