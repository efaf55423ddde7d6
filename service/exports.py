"""A file's downloads (API.md "Files"): the translation (optionally filled with the source) and the exports.

Exports are built from the file's segments (service.segments): `xliff2` and `xliff12` carry every
segment with its state (pending proposals included); `tmx` the written units; `md` the translation;
`xliff`, for a file uploaded as XLIFF, the original document with the targets of the segments its
units cover filled in (interchange.fill). The source language is `und` unless the caller names it
(`srclang`) or the XLIFF source says it; the target is the BCP 47 tag of the session's target
language (or the XLIFF source's). Notes: the reviewer's reasons and corrections of this file among
the owner's latest CORRECTION_NOTES corrections (older ones are not read, to keep an export bounded).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from agent_core.document import assemble
from agent_core.effects import Correction
from agent_core.errors import InvalidRequestError
from interchange import (
    BilingualExport,
    BilingualSegment,
    InterchangeError,
    Note,
    TmPair,
    WrittenUnit,
    bcp47,
    export_tmx,
    export_xliff2,
    export_xliff12,
    fill_xliff,
    parse_xliff,
    segment_targets,
    translatable_text,
)

from .blocking import blocking
from .schemas import Segment
from .segments import WRITTEN_STATUSES, fill_with_source
from .workbench import FileView, Workbench, target_tag

EXPORT_FORMATS = ("xliff2", "xliff12", "tmx", "md", "xliff")
CORRECTION_NOTES = 200
"""How many of the owner's latest corrections an export reads for its notes."""
XLIFF_TYPE = "application/xliff+xml; charset=utf-8"
TMX_TYPE = "application/x-tmx+xml; charset=utf-8"


@dataclass(frozen=True, slots=True, kw_only=True)
class Download:
    """A body to send as an attachment."""

    content: str
    media_type: str
    filename: str
    complete: bool
    """True when every non-whitespace character of the source is in a written unit."""


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

    async def translation(self, owner: str, sid: str, fid: str, *, fill: bool = False) -> Download:
        """The assembled translation; with `fill`, untranslated spans are the source text."""
        view = await self.workbench.view(owner, sid, fid, with_pending=False)
        text = fill_with_source(view.source, view.units) if fill else assemble(view.source, view.units)
        name = view.state.name
        return Download(
            content=text,
            media_type=text_type(name),
            filename=with_suffix(name, "translated"),
            complete=view.state.complete,
        )

    async def export(self, owner: str, sid: str, fid: str, fmt: str, *, srclang: str | None = None) -> Download:
        """The file in format `fmt` (EXPORT_FORMATS); InvalidRequestError for another format."""
        if fmt not in EXPORT_FORMATS:
            raise InvalidRequestError(f"Unknown export format {fmt[:40]!r}; use one of {', '.join(EXPORT_FORMATS)}.")
        source_tag = _source_tag(srclang)
        if fmt == "md":
            return await self.translation(owner, sid, fid)
        view = await self.workbench.view(owner, sid, fid, with_pending=fmt != "tmx")
        storage = self.workbench.storage
        original = await blocking(storage.read_original, sid, view.state.file_id)
        if fmt == "xliff":
            if original is None:
                raise InvalidRequestError("Format xliff is only for files uploaded as XLIFF; use xliff2 or xliff12.")
            return _filled(view, original)
        src, trg = _languages(view, original, source_tag)
        segments = view.segments()
        name, complete = view.state.name, view.state.complete
        if fmt == "tmx":
            pairs = [_pair(s, src, trg or "und") for s in segments if s.status in WRITTEN_STATUSES]
            return Download(
                content=export_tmx(pairs, srclang=src), media_type=TMX_TYPE, filename=f"{name}.tmx", complete=complete
            )
        corrections = await blocking(storage.recent_corrections, owner, limit=CORRECTION_NOTES)
        notes = _notes([c for c in corrections if c.session_id == sid and c.file_id == view.state.file_id])
        doc = BilingualExport(
            file_name=name,
            source_language=src,
            target_language=trg,
            segments=tuple(_bilingual(s, notes) for s in segments),
        )
        if fmt == "xliff2":
            return Download(
                content=export_xliff2(doc), media_type=XLIFF_TYPE, filename=f"{name}.xlf", complete=complete
            )
        return Download(
            content=export_xliff12(doc), media_type=XLIFF_TYPE, filename=f"{name}.xliff12.xlf", complete=complete
        )


def _source_tag(srclang: str | None) -> str | None:
    if srclang is None:
        return None
    tag = bcp47(srclang)
    if tag is None:
        raise InvalidRequestError(f"srclang {srclang[:40]!r} is not a language this server knows; use a BCP 47 tag.")
    return tag


def _languages(view: FileView, original: str | None, source_tag: str | None) -> tuple[str, str | None]:
    """The export's source and target tags: the caller's, the session's, the XLIFF source's, else `und`."""
    doc_source = doc_target = None
    if original is not None:
        try:
            doc = parse_xliff(original)
            doc_source, doc_target = doc.source_language, doc.target_language
        except InterchangeError:
            pass  # it parsed when uploaded; a failure here only loses the languages
    return source_tag or doc_source or "und", target_tag(view.snapshot) or doc_target


def _filled(view: FileView, original: str) -> Download:
    layout = translatable_text(parse_xliff(original))
    units = [
        WrittenUnit(start=s.start, end=s.end, translation=s.target, status=s.status)
        for s in view.segments()
        if s.target is not None
    ]
    targets = segment_targets(layout, units)
    try:
        content = fill_xliff(original, targets.targets, targets.states).text
    except InterchangeError as exc:
        raise InvalidRequestError(f"The XLIFF document cannot be filled: {exc}") from exc
    return Download(
        content=content,
        media_type=XLIFF_TYPE,
        filename=with_suffix(view.state.name, "translated"),
        complete=view.state.complete,
    )


def _pair(segment: Segment, src: str, trg: str) -> TmPair:
    changed = _moment(segment.updatedAt)
    return TmPair(source=segment.source, target=segment.target or "", srclang=src, tgtlang=trg, changed=changed)


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


def _bilingual(segment: Segment, notes: dict[str, list[Note]]) -> BilingualSegment:
    return BilingualSegment(
        id=f"s{segment.start}",
        start=segment.start,
        end=segment.end,
        source=segment.source,
        target=segment.target,
        status=segment.status,
        notes=tuple(notes.get(segment.source, ())) if segment.status != "untranslated" else (),
    )
