"""An upload read by its format: one path for every file (API.md "Files").

upload → bytes (`content` as UTF-8, or `contentBase64`) → the format the name picks
(`interchange.formats.format_for`) → its entries → the stored text: the entries' sources joined by a
blank line (`interchange.layout.joined_text`, as an XLIFF document's segments always were) → the
segments, stored once with the text:

- Markdown and plain text are one document entry, segmented as Markdown (blocks, items, sentences;
  code, front matter and URLs locked, written verbatim at upload unless `keepVerbatim` is false);
- another document entry (`Entry.document`: an HTML or DOCX paragraph, a subtitle cue) is cut into
  sentences (`agent_core.segmentation.segment_prose`), nothing locked;
- a resource string is one segment, cut at the unit cap only if longer; a plural entry is always one.

Each segment of a file that is not Markdown carries its entry's context (`agent_core.segment.
SegmentContext`: key, note, the locked codes that lie in it, a plural entry's source forms), stored
with the segment. The original bytes are kept beside the text with the format's name
(`service.originals`), so an export needs no guessing. A malformed file is `InvalidRequestError`
with the format's own message (it says where); nothing is stored then.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from agent_core.errors import InvalidRequestError
from agent_core.plural import ORDER
from agent_core.segment import Segment, SegmentContext, dump_segments
from agent_core.segmentation import segment_prose, segment_spans, segment_text
from interchange.formats import TEXT, Entry, FileFormat, FormatError, format_for, format_named
from interchange.layout import XliffText, joined_text
from storage.interface import CHUNK_CHARS

from .originals import pack_original
from .schemas import FileUpload


@dataclass(frozen=True, slots=True, kw_only=True)
class ReadFile:
    """An upload as it is stored: its format, its text, its segments and its original."""

    format: FileFormat
    content: str
    segments: tuple[Segment, ...]
    original: str | None
    """The original as stored (`service.originals`); None for Markdown, whose text is the file."""


def upload_bytes(upload: FileUpload) -> bytes:
    """The file's bytes: `content` as UTF-8, or `contentBase64` decoded; 422 for both, neither or bad base64."""
    if (upload.content is None) == (upload.contentBase64 is None):
        raise InvalidRequestError("Give the file as content (text) or contentBase64 (binary), exactly one of them.")
    if upload.content is not None:
        return upload.content.encode("utf-8", "surrogatepass")
    try:
        return base64.b64decode(upload.contentBase64 or "", validate=True)
    except (binascii.Error, ValueError) as exc:
        raise InvalidRequestError(f"contentBase64 is not valid base64: {exc}.") from exc


MAX_FILE_CHARS = 2_000_000
"""The longest text a file may store, in characters (Markdown: the file; another format: its strings)."""
MAX_FILE_BYTES = 5_000_000
"""The largest file read, in bytes (the upload route's body limit, 5.5 MB, holds it as JSON)."""


def _too_large(upload: FileUpload, size: int, limit: int, unit: str) -> InvalidRequestError:
    return InvalidRequestError(f"{upload.name} has {size} {unit}; the limit is {limit}. Split the file.")


def read_upload(upload: FileUpload, language_of: Callable[[str], str | None]) -> tuple[ReadFile, str | None]:
    """The upload read and segmented, and the language `language_of` told from its text (pure CPU).
    Its size is checked before each step that costs more than a pass over it: its bytes before its
    format reads it (each format's reader is linear), the text to store before the language is told
    and the text is segmented (422 past MAX_FILE_BYTES or MAX_FILE_CHARS)."""
    data = upload_bytes(upload)
    if len(data) > MAX_FILE_BYTES:
        raise _too_large(upload, len(data), MAX_FILE_BYTES, "bytes")
    fmt = format_for(upload.name, data) or format_named(TEXT)
    if fmt.binary and upload.content is not None:
        raise InvalidRequestError(f"A {fmt.name} file is binary: send it as contentBase64, not content.")
    try:
        entries = fmt.read(data).entries
    except FormatError as exc:
        raise InvalidRequestError(f"{exc} ({upload.name}, read as {fmt.name})") from exc
    if not entries:
        raise InvalidRequestError(f"{upload.name} has no text to translate.")
    layout = joined_text((e.key, e.source) for e in entries)
    if len(layout.text) > MAX_FILE_CHARS:
        raise _too_large(upload, len(layout.text), MAX_FILE_CHARS, "characters of text to translate")
    language = language_of(layout.text)
    if fmt.name == TEXT:
        return ReadFile(format=fmt, content=layout.text, segments=segment_text(layout.text, language), original=None), (
            language
        )
    segments = fit_chunks(entry_segments(entries, layout, language))
    return ReadFile(
        format=fmt, content=layout.text, segments=segments, original=pack_original(fmt.name, data)
    ), language


def entry_segments(entries: Sequence[Entry], layout: XliffText, language: str | None) -> tuple[Segment, ...]:
    """The segments of a file read by a format: each entry's, with its context (see the module's note)."""
    found: list[Segment] = []
    for entry, span in zip(entries, layout.spans, strict=True):
        if entry.plural:
            pieces = [(span.start, span.end)]
        elif entry.document:
            pieces = segment_prose(layout.text, span.start, span.end, language)
        else:
            pieces = [(s.start, s.end) for s in segment_spans(layout.text, [(span.start, span.end)])]
        codes = _codes_in(entry, span.start, pieces)
        for (start, end), held in zip(pieces, codes, strict=True):
            found.append(Segment(len(found), start, end, False, _context(entry, held)))
    return tuple(found)


CHUNK_CONTEXT_BYTES = 250_000
"""The most bytes a chunk's stored segments take (a DynamoDB item holds 400 KB: the chunk's text,
32,000 characters, takes at most 128 KB of it)."""
SHORT_NOTE = 120
"""A note's length when a chunk's notes would not fit whole."""


def fit_chunks(segments: Sequence[Segment]) -> tuple[Segment, ...]:
    """The segments with their notes shortened (to SHORT_NOTE characters, then left out with the refs) in a chunk
    whose stored segments would pass CHUNK_CONTEXT_BYTES (thousands of tiny strings with long notes);
    422 when even keys and codes alone would (the file cannot be stored: split it)."""
    by_chunk: dict[int, list[Segment]] = {}
    for segment in segments:
        by_chunk.setdefault(segment.start // CHUNK_CHARS, []).append(segment)
    out: list[Segment] = []
    for group in by_chunk.values():
        for note_chars in (None, SHORT_NOTE, 0):
            fitted = [_with_note(s, note_chars) for s in group]
            if len(dump_segments(fitted).encode("utf-8")) <= CHUNK_CONTEXT_BYTES:
                break
        else:
            raise InvalidRequestError(
                f"The file's strings near character {group[0].start} have too many keys and codes to store "
                f"({len(group)} strings in {CHUNK_CHARS} characters); split the file."
            )
        out += fitted
    return tuple(out)


def _with_note(segment: Segment, chars: int | None) -> Segment:
    context = segment.context
    if chars is None or context is None:
        return segment
    if chars == 0:
        return replace(segment, context=replace(context, note=None, refs=()))
    if context.note is None or len(context.note) <= chars:
        return segment
    return replace(segment, context=replace(context, note=context.note[:chars] + "…"))


def _context(entry: Entry, codes: tuple[str, ...]) -> SegmentContext:
    forms = tuple((c, entry.plural[c]) for c in ORDER if entry.plural and c in entry.plural)
    return SegmentContext(
        key=entry.key,
        note=entry.note,
        codes=codes,
        plural=forms,
        argument=entry.plural_argument,
        refs=entry.refs,
        flags=entry.flags,
        document=entry.document,
    )


def _codes_in(entry: Entry, offset: int, pieces: Sequence[tuple[int, int]]) -> list[tuple[str, ...]]:
    """The entry's locked codes that lie in each piece, in order (a plural entry's one piece has all of
    its forms' codes); a code is found in the source after the previous one."""
    if entry.plural or len(pieces) == 1:
        return [entry.codes] * len(pieces)
    held: list[list[str]] = [[] for _ in pieces]
    at = 0
    for code in entry.codes:
        found = entry.source.find(code, at)
        if found < 0:
            continue
        at = found + len(code)
        position = offset + found
        for k, (start, end) in enumerate(pieces):
            if start <= position < end:
                held[k].append(code)
                break
    return [tuple(h) for h in held]
