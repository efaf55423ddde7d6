"""XLIFF 1.2 and 2.0 behind the format interface: a translatable segment is an entry.

An entry's key is the segment's key (`XliffSegment.key`, unit and segment ids), its source the
segment's source with inline codes as placeholders (`{1}`, `{/1}`: `interchange.inline_codes` checks
them, as an XLIFF source always was), its note the unit's notes, its target what the document holds.
`write` fills the targets (`interchange.fill.fill_xliff`) and marks them translated; the service's
`xliff`/`original` export passes each segment's own state instead (`fill_xliff` directly).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import InterchangeError
from ..fill import fill_xliff
from ..xliff_source import parse_xliff
from .base import Entry, FileFormat, FormatError, Resource, Target
from .markdown import decode_text


class Xliff(FileFormat):
    """XLIFF 1.2 or 2.0 (`.xlf`, `.xliff`)."""

    name = "xliff"
    extensions = (".xlf", ".xliff")
    media_type = "application/xliff+xml; charset=utf-8"

    def read(self, data: bytes) -> Resource:
        """The translatable, non-empty segments; FormatError for a document that is not XLIFF or has none."""
        try:
            document = parse_xliff(decode_text(data, what="The XLIFF document"))
        except InterchangeError as exc:
            raise FormatError(f"The XLIFF document cannot be read: {exc}") from exc
        segments = document.translatable_segments()
        if not segments:
            raise FormatError('The XLIFF document has no segment to translate (all are empty or translate="no").')
        entries = tuple(
            Entry(
                key=s.key,
                source=s.source,
                note=s.note_text(),
                target=s.target,
            )
            for s in segments
        )
        return Resource(
            entries=entries, source_language=document.source_language, target_language=document.target_language
        )

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The document with the given segments' targets filled (state translated)."""
        texts = {k: v for k, v in targets.items() if isinstance(v, str)}
        try:
            filled = fill_xliff(decode_text(data), texts, dict.fromkeys(texts, "approved"))
        except InterchangeError as exc:
            raise FormatError(f"The XLIFF document cannot be filled: {exc}") from exc
        return filled.text.encode("utf-8")


FORMAT = Xliff()
