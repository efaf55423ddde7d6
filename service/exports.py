"""A file's downloads (API.md "Files"): the translation (optionally filled with the source) and the exports.

Exports are built from the file's segments (service.segments): `xliff2` and `xliff12` carry every
segment with its state (pending proposals included); `tmx` the written units but those kept verbatim;
`md` the translation; `xliff`, for a file uploaded as XLIFF, the original document with the targets
of the segments its units cover filled in (interchange.fill). The source language is the caller's
(`srclang`), else the session's, else the XLIFF source's, else `und`; the target is the BCP 47 tag of
the session's target language (or the XLIFF source's). Notes: the reviewer's reasons and corrections
of this file among the owner's latest CORRECTION_NOTES corrections (older ones are not read, to keep
an export bounded), and the comments on its segments (service.comments), each a note by its author.
A file uploaded as XLIFF has its inline codes written as the format's elements.

One bad target never fails an export: a target whose placeholders do not fit the source's codes is
plain text for review (XLIFF) or left out (TMX); `Download.skipped` counts them (the route sends it
as `X-Export-Skipped`). Reading is async (the workbench's view, storage off the event loop); building
the document is `render_export`, a plain function run through `blocking` (a worker thread; in place
under Lambda), so a big export never stalls the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from agent_core.document import assemble
from agent_core.effects import Correction
from agent_core.errors import InvalidRequestError
from interchange import (
    BilingualExport,
    BilingualSegment,
    InlineCode,
    InterchangeError,
    Note,
    TmPair,
    WrittenUnit,
    XliffDocument,
    export_tmx,
    export_xliff2,
    export_xliff12,
    fill_xliff,
    parse_xliff,
    segment_targets,
    span_of,
    translatable_text,
)
from interchange.formats import format_named
from storage.comments import CommentRecord

from .blocking import blocking
from .export_original import format_original, markdown_original
from .originals import Original, unpack_original
from .segment_schemas import Segment
from .segments import WRITTEN_STATUSES, fill_with_source
from .sessions import language_tag
from .workbench import FileView, Workbench, target_tag

EXPORT_FORMATS = ("xliff2", "xliff12", "tmx", "md", "original", "xliff")
CORRECTION_NOTES = 200
"""How many of the owner's latest corrections an export reads for its notes."""
XLIFF_TYPE = "application/xliff+xml; charset=utf-8"
TMX_TYPE = "application/x-tmx+xml; charset=utf-8"


@dataclass(frozen=True, slots=True, kw_only=True)
class Download:
    """A body to send as an attachment."""

    content: str | bytes
    media_type: str
    filename: str
    complete: bool
    """True when every non-whitespace character of the source is in a written unit."""
    skipped: int = 0
    """Targets not written as they are (placeholders that do not fit: plain text in XLIFF, left out of TMX)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExportInputs:
    """What an export is made of, all read before it is built."""

    view: FileView
    original: Original | None
    """The file as uploaded and the format that read it, or None (Markdown, plain text)."""
    corrections: Sequence[Correction]
    """This file's corrections among the owner's latest (for notes)."""
    comments: Sequence[CommentRecord] = ()
    """The comments on this file's segments (for notes)."""


def text_type(name: str) -> str:
    """The translation's media type, by the file's extension."""
    markdown = name.lower().endswith((".md", ".markdown"))
    return "text/markdown; charset=utf-8" if markdown else "text/plain; charset=utf-8"


def with_suffix(name: str, suffix: str) -> str:
    """`guide.md` → `guide.translated.md` for suffix `translated` (`name.suffix` without an extension)."""
    stem, dot, ext = name.rpartition(".")
    return f"{stem}.{suffix}.{ext}" if dot and stem else f"{name}.{suffix}"


class Exports:
    """The caller's file downloads."""

    def __init__(self, workbench: Workbench) -> None:
        self.workbench = workbench

    async def translation(
        self, owner: str, sid: str, fid: str, *, fill: bool = False, reviewed: bool = False
    ) -> Download:
        """The assembled translation; with `fill`, untranslated spans are the source text. A file read
        by another format than Markdown (PO, JSON, strings.xml…) is its own format's file, as the
        `original` export writes it: its stored text alone (the strings joined) is no file of any format.
        `reviewed`: without the units that await a second review (`only_reviewed`)."""
        view = await self.workbench.view(owner, sid, fid, with_pending=False)
        stored = await blocking(self.workbench.storage.read_original, sid, view.state.file_id)
        if stored is not None:
            return await self.export(owner, sid, fid, "original", reviewed=reviewed)
        return await blocking(render_translation, only_reviewed(view) if reviewed else view, fill=fill)

    async def export(
        self, owner: str, sid: str, fid: str, fmt: str, *, srclang: str | None = None, reviewed: bool = False
    ) -> Download:
        """The file in format `fmt` (EXPORT_FORMATS); InvalidRequestError for another format. `reviewed`:
        the units that await a second review are left out, as if untranslated (`only_reviewed`)."""
        if fmt not in EXPORT_FORMATS:
            raise InvalidRequestError(f"Unknown export format {fmt[:40]!r}; use one of {', '.join(EXPORT_FORMATS)}.")
        source_tag = language_tag(srclang)
        if fmt == "md":
            return await self.translation(owner, sid, fid, reviewed=reviewed)
        view = await self.workbench.view(owner, sid, fid, with_pending=fmt != "tmx")
        view = only_reviewed(view) if reviewed else view
        inputs = await blocking(self._inputs, owner, sid, view, notes=fmt in ("xliff2", "xliff12"))
        record = await blocking(self.workbench.storage.get_session, sid)
        language = source_tag or record.source_language or "und"
        target = record.target_language
        return await blocking(render_export, inputs, fmt, source_language=language, target_language=target)

    def _inputs(self, owner: str, sid: str, view: FileView, *, notes: bool) -> ExportInputs:
        storage = self.workbench.storage
        original = unpack_original(storage.read_original(sid, view.state.file_id))
        corrections = storage.recent_corrections(owner, limit=CORRECTION_NOTES) if notes else []
        mine = [c for c in corrections if c.session_id == sid and c.file_id == view.state.file_id]
        wanted = notes or (original is not None and original.format == "po")  # PO: translator comments
        comments = [c for c in storage.session_comments(sid) if c.file_id == view.state.file_id] if wanted else []
        return ExportInputs(view=view, original=original, corrections=mine, comments=comments)


def only_reviewed(view: FileView) -> FileView:
    """The view without what awaits a second review: `translated` units (written, or decided in the pending
    batch) and pending proposals. A session that reviews once writes no `translated` unit: its view is
    the same."""
    units = [u for u in view.units if u.stage != "translated"]
    decided = [u for u in view.decided if u.stage != "translated"]
    left = len(view.units) - len(units) + len(view.decided) - len(decided)
    return replace(view, units=units, decided=decided, pending=[], withheld=view.withheld + left)


def render_translation(view: FileView, *, fill: bool = False) -> Download:
    """The assembled translation of a file read in `view` (plain, CPU only)."""
    text = fill_with_source(view.source, view.units) if fill else assemble(view.source, view.units)
    name = view.state.name
    return Download(
        content=text, media_type=text_type(name), filename=with_suffix(name, "translated"), complete=view.complete
    )


def render_export(
    inputs: ExportInputs, fmt: str, *, source_language: str, target_language: str | None = None
) -> Download:
    """The export in `fmt` (`xliff2`, `xliff12`, `tmx`, `xliff`) of what was read (plain, CPU only).

    `source_language` is a BCP 47 tag or `und` (an XLIFF source's own language replaces `und`);
    `target_language` the session's, else the one its task names, else the XLIFF source's."""
    view, original = inputs.view, inputs.original
    is_xliff = original is not None and original.format == "xliff"
    document = _document(original.data.decode("utf-8-sig")) if original is not None and is_xliff else None
    if fmt == "xliff" and document is None:
        raise InvalidRequestError("Format xliff is only for files uploaded as XLIFF; use original, xliff2 or xliff12.")
    if fmt in ("xliff", "original") and original is not None and document is not None:
        return _filled(view, original.data.decode("utf-8-sig"), document)
    if fmt == "original":
        language = target_language or target_tag(view.snapshot)
        return _original(view, original, language, source_language, inputs.comments)
    if source_language == "und" and document is not None and document.source_language:
        source_language = document.source_language
    own_target = document.target_language if document is not None else None
    target = target_language or target_tag(view.snapshot) or own_target
    segments = view.segments()
    codes = _codes_by_segment(document, segments)
    name, complete = view.state.name, view.complete
    if fmt == "tmx":
        pairs = [
            _pair(s, source_language, target or "und", codes.get(s.start, ()))
            for s in segments
            if s.status in WRITTEN_STATUSES and s.status != "verbatim"
        ]
        tmx = export_tmx(pairs, srclang=source_language)
        return Download(
            content=tmx.text, media_type=TMX_TYPE, filename=f"{name}.tmx", complete=complete, skipped=len(tmx.left)
        )
    notes = _notes(inputs.corrections)
    threads = _comment_notes(inputs.comments, by_author=fmt == "xliff12")
    doc = BilingualExport(
        file_name=name,
        source_language=source_language,
        target_language=target,
        segments=tuple(
            _bilingual(s, unit_id, notes, codes.get(s.start, ()), threads.get(s.id, ()) if unit_id == s.id else ())
            for s, unit_id in zip(segments, _unit_ids(segments), strict=True)
        ),
    )
    written = export_xliff2(doc) if fmt == "xliff2" else export_xliff12(doc)
    filename = f"{name}.xlf" if fmt == "xliff2" else f"{name}.xliff12.xlf"
    return Download(
        content=written.text, media_type=XLIFF_TYPE, filename=filename, complete=complete, skipped=len(written.left)
    )


def _original(
    view: FileView,
    original: Original | None,
    language: str | None,
    source: str,
    comments: Sequence[CommentRecord] = (),
) -> Download:
    """The file in its own format (`service.export_original`); `source` the session's source language;
    `comments` the file's, a PO file's translator comments."""
    complete = view.complete
    if original is None:
        content, name = markdown_original(view, language)
        return Download(content=content, media_type=text_type(view.state.name), filename=name, complete=complete)
    lines = [(c.segment_id, _comment_line(c)) for c in sorted(comments, key=lambda c: c.comment_id)]
    data, name, skipped = format_original(
        view, original, language, source=None if source == "und" else source, comments=lines
    )
    media_type = format_named(original.format).media_type
    return Download(content=data, media_type=media_type, filename=name, complete=complete, skipped=skipped)


def _document(original: str | None) -> XliffDocument | None:
    """The XLIFF source, parsed; None for a plain file."""
    if original is None:
        return None
    try:
        return parse_xliff(original)
    except InterchangeError as exc:  # it parsed when uploaded
        raise InvalidRequestError(f"The file's XLIFF document cannot be read: {exc}") from exc


def _codes_by_segment(document: XliffDocument | None, segments: Sequence[Segment]) -> dict[int, tuple[InlineCode, ...]]:
    """The inline codes of the XLIFF segment each export segment lies in, by its start (an XLIFF source)."""
    if document is None:
        return {}
    layout = translatable_text(document)
    by_key = {s.key: s.codes for s in document.segments}
    found: dict[int, tuple[InlineCode, ...]] = {}
    for segment in segments:
        span = span_of(layout, segment.start, segment.end)
        if span is not None and by_key.get(span.key):
            found[segment.start] = by_key[span.key]
    return found


def _filled(view: FileView, original: str, document: XliffDocument) -> Download:
    layout = translatable_text(document)
    units = [
        WrittenUnit(start=s.start, end=s.end, translation=s.target, status=s.status)
        for s in view.segments()
        if s.target is not None
    ]
    targets = segment_targets(layout, units)
    try:
        filled = fill_xliff(original, targets.targets, targets.states)
    except InterchangeError as exc:
        raise InvalidRequestError(f"The XLIFF document cannot be filled: {exc}") from exc
    return Download(
        content=filled.text,
        media_type=XLIFF_TYPE,
        filename=with_suffix(view.state.name, "translated"),
        complete=view.complete,
        skipped=len(filled.plain),
    )


def _pair(segment: Segment, src: str, trg: str, codes: tuple[InlineCode, ...]) -> TmPair:
    changed = _moment(segment.updatedAt)
    return TmPair(
        source=segment.source, target=segment.target or "", srclang=src, tgtlang=trg, changed=changed, codes=codes
    )


def _moment(value: str | None) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:
        return None


def _notes(corrections: Sequence[Correction]) -> dict[str, list[Note]]:
    """Notes by source text, oldest first: each correction's reason and what it replaced."""
    notes: dict[str, list[Note]] = {}
    for c in sorted(corrections, key=lambda c: c.created_at):
        found = notes.setdefault(c.source, [])
        if c.reason:
            found.append(Note(text=c.reason, category="reason"))
        label = {"refined": "Proposed", "revised": "Before revision", "reject": "Rejected"}[c.status]
        found.append(Note(text=f"{label}: {c.proposal}", category="correction"))
    return notes


def _comment_text(c: CommentRecord) -> str:
    return f"Resolved: {c.text}" if c.resolved else c.text


def _comment_line(c: CommentRecord) -> str:
    """A comment as one note of a format without authors: its author, then its text."""
    return f"{c.by}: {_comment_text(c)}"


def _comment_notes(comments: Sequence[CommentRecord], *, by_author: bool) -> dict[str, tuple[Note, ...]]:
    """Each segment's comments as notes, by segment id, oldest first: XLIFF 1.2's `from` is the author
    (`by_author`), 2.0's category `comment` with the author before the text; a resolved one says so."""
    out: dict[str, list[Note]] = {}
    for c in sorted(comments, key=lambda c: c.comment_id):
        note = Note(text=_comment_text(c), category=c.by) if by_author else None
        note = note or Note(text=_comment_line(c), category="comment")
        out.setdefault(c.segment_id, []).append(note)
    return {segment: tuple(found) for segment, found in out.items()}


def _context_notes(segment: Segment) -> tuple[Note, ...]:
    """A resource string's key and developer's note, as XLIFF notes (categories `key` and `developer`)."""
    if segment.context is None:
        return ()
    key = Note(text=segment.context.key, category="key")
    return (key, Note(text=segment.context.note, category="developer")) if segment.context.note else (key,)


def _unit_ids(segments: Sequence[Segment]) -> list[str]:
    """Each piece's segment id, made unique: the pieces of one segment cut by a unit written from its
    middle are `s3`, `s3.2`, … (an XLIFF file's unit ids are unique)."""
    seen: dict[str, int] = {}
    ids: list[str] = []
    for segment in segments:
        seen[segment.id] = seen.get(segment.id, 0) + 1
        ids.append(segment.id if seen[segment.id] == 1 else f"{segment.id}.{seen[segment.id]}")
    return ids


def _bilingual(
    segment: Segment,
    unit_id: str,
    notes: dict[str, list[Note]],
    codes: tuple[InlineCode, ...],
    comments: tuple[Note, ...] = (),
) -> BilingualSegment:
    return BilingualSegment(
        id=unit_id,
        start=segment.start,
        end=segment.end,
        source=segment.source,
        target=segment.target,
        status=segment.status,
        notes=_context_notes(segment)
        + (tuple(notes.get(segment.source, ())) if segment.status != "untranslated" else ())
        + comments,
        codes=codes,
    )
