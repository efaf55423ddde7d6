"""Flutter Application Resource Bundles (`.arb`): a JSON object of ICU MessageFormat messages.

Each top-level key not starting with `@` is a message; its `@key` object is metadata: the
`description` is the entry's note, followed by each placeholder with its example
(`{count}: e.g. 2`). A message that is an ICU plural or select choice becomes a plural entry, or
one entry per case keyed `key[case]` (and per `=N` case of a plural), written back into the one
message (`icu`). `@@locale` is the file's language: `read` gives it as the source language and
`write` sets it to the target (adding it first when the file has none; Flutter writes `pt_BR`).
Other `@@` attributes and all metadata are written back as they were.

Writing splices new string literals into the original text (`json_text`): everything else is byte
for byte as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..limits import MAX_SEGMENTS
from . import icu, json_text
from .base import Entry, FileFormat, FormatError, Resource, Target
from .json_text import Scanned, Slot


def _root(data: bytes) -> tuple[Scanned, bool]:
    text, bom = json_text.decode(data)
    scanned = json_text.scan(text)
    if not isinstance(scanned.value, dict):
        raise FormatError("An ARB file is a JSON object; this one's root is not.")
    return scanned, bom


def _messages(scanned: Scanned) -> list[Slot]:
    """The top-level message slots, in file order; FormatError for one that is not a string."""
    found: list[Slot] = []
    for slot in scanned.slots:
        if len(slot.path) != 1 or str(slot.path[0]).startswith("@"):
            continue
        if not isinstance(slot.value, str):
            raise FormatError(
                f"The message {slot.path[0]!r} ({json_text.where(scanned.text, slot.start)}) is not a string."
            )
        found.append(slot)
    return found


def _note(metadata: Any) -> str | None:
    if not isinstance(metadata, dict):
        return None
    lines: list[str] = []
    description = metadata.get("description")
    if isinstance(description, str) and description.strip():
        lines.append(description.strip())
    placeholders = metadata.get("placeholders")
    if isinstance(placeholders, dict):
        for name, spec in placeholders.items():
            example = spec.get("example") if isinstance(spec, dict) else None
            lines.append(f"{{{name}}}: e.g. {example}" if example not in (None, "") else f"{{{name}}}")
    return "\n".join(lines) or None


def _locale_tag(language: str) -> str:
    return language.replace("-", "_")


def _locale_edit(scanned: Scanned, language: str, ascii_only: bool) -> tuple[int, int, str] | None:
    text = scanned.text
    value = json_text.literal(_locale_tag(language), ascii_only=ascii_only)
    top = [s for s in scanned.slots if len(s.path) == 1]
    for slot in top:
        if slot.path[0] == "@@locale":
            return slot.value_start, slot.end, value
    if not top:
        return None
    first = min(top, key=lambda s: s.start)
    separator = text[json_text.string_end(text, first.start) : first.value_start]
    space = first.start
    while space > 0 and text[space - 1] in " \t\r\n":
        space -= 1
    return first.start, first.start, f'"@@locale"{separator}{value},{text[space : first.start]}'


class ArbFormat(FileFormat):
    """Flutter ARB files."""

    name = "arb"
    extensions = (".arb",)
    media_type = "application/json; charset=utf-8"

    def read(self, data: bytes) -> Resource:
        """The file's messages with their descriptions, and its `@@locale`."""
        scanned, _ = _root(data)
        root: dict[str, Any] = scanned.value
        entries: list[Entry] = []
        for slot in _messages(scanned):
            if slot.value:
                key = str(slot.path[0])
                entries.extend(icu.message_entries(key, slot.value, note=_note(root.get(f"@{key}"))))
            if len(entries) > MAX_SEGMENTS:
                raise FormatError(f"The file has more than {MAX_SEGMENTS} messages, the most a file takes; split it.")
        if not entries:
            raise FormatError("The file has no string to translate.")
        locale = root.get("@@locale")
        language = locale.replace("_", "-") if isinstance(locale, str) and locale else None
        return Resource(entries=tuple(entries), source_language=language)

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The original text with the targets and `@@locale` spliced in."""
        scanned, bom = _root(data)
        ascii_only = json_text.escapes_non_ascii(scanned.text)
        edits: list[tuple[int, int, str]] = []
        for slot in _messages(scanned):
            new = icu.rewrite_message(str(slot.path[0]), slot.value, targets, target_language)
            if new is not None:
                edits.append((slot.value_start, slot.end, json_text.literal(new, ascii_only=ascii_only)))
        locale = _locale_edit(scanned, target_language, ascii_only)
        if locale is not None:
            edits.append(locale)
        out = json_text.splice(scanned.text, edits)
        return (b"\xef\xbb\xbf" if bom else b"") + out.encode("utf-8")


FORMAT = ArbFormat()
