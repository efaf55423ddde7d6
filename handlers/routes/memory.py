"""The owner's memory over HTTP: see it, add glossary entries and style notes, delete entries.

    GET    /api/memory                 glossary entries, style notes, the latest corrections (?language=)
    GET    /api/memory/tm?language=    a page of the translation memory's entries for one target language
    PUT    /api/memory/tm/{id}         {target} → 200 the entry (now `revised`)
    DELETE /api/memory/tm/{id}         204; 404 when the caller has no such entry
    POST   /api/memory/glossary        {source, target, kind?, languages?}  → 201 the entry
    POST   /api/memory/style-notes     {text, languages?}            → 201 the note
    PUT    /api/memory/{entryId}       {source?, target?, kind?, text?, languages?} → 200 the entry (now `user`)
    DELETE /api/memory/{entryId}       204; 404 when the caller has no such entry
    GET    /api/memory/export?format=  tmx (translation memory), csv or tbx (glossary): a download
    POST   /api/memory/import          {format, content, languages?} → {added, updated, skipped}

Everything is the caller's own: another caller's entry is 404, like a missing one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from fastapi import APIRouter, Query, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, field_validator

from agent_core.errors import NotFoundError
from agent_core.ids import is_id
from agent_core.languages import ANY, languages_match, normalize_languages
from agent_core.text import check_filled, check_text
from service.concordance_schemas import ConcordanceResult
from service.memory_schemas import (
    CorrectionView,
    GlossaryEntryView,
    ImportResult,
    MemoryImportBody,
    MemoryView,
    StyleNoteView,
)
from service.tm_schemas import TmEditBody, TmEntryView, TmPage

from ..deps import OwnerDep, ServicesDep

if TYPE_CHECKING:
    from agent_core.effects import Correction
    from storage.records import MemoryEntryRecord

MEMORY_VIEW_CORRECTIONS = 20
"""How many of the latest corrections `GET /api/memory` lists."""

Term = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200), AfterValidator(check_filled)]
"""A glossary term or its translation: storable text, never blank (surrounding whitespace dropped)."""
Note = Annotated[str, StringConstraints(strip_whitespace=True, max_length=500), AfterValidator(check_filled)]
"""A style note: storable text, never blank."""

router = APIRouter()


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    languages: Annotated[str, Field(max_length=100), AfterValidator(check_text)] | None = None
    """`"source>target"` (`"auto>french"`), or a target alone; absent: every language pair."""

    @field_validator("languages")
    @classmethod
    def _pair(cls, value: str | None) -> str | None:
        return None if value is None else normalize_languages(value)


Kind = Literal["preferred", "forbidden", "keep"]
"""A glossary entry's kind (agent_core.memory.GlossaryKind)."""


class GlossaryBody(_Body):
    """`POST /api/memory/glossary`: a term and the translation the caller wants for it (or must not
    see used: `forbidden`; or none: `keep`, the term is not translated)."""

    source: Term
    target: Term
    kind: Kind = "preferred"


class StyleNoteBody(_Body):
    """`POST /api/memory/style-notes`: a rule the caller wants followed."""

    text: Note


@router.get("/api/memory")
def get_memory(
    owner: OwnerDep,
    services: ServicesDep,
    language: Annotated[str | None, Query(max_length=64, description="only this target language's")] = None,
) -> MemoryView:
    """The caller's glossary and style notes (most recently changed first; with `language`, those for
    that target language: their pair's target is it, or any) and latest corrections."""
    from service.sessions import language_tag

    tag = language_tag(language)
    memory = services.memory
    entries = sorted(memory.entries(owner), key=lambda e: (e.updated_at, e.entry_id), reverse=True)
    if tag is not None:
        entries = [e for e in entries if languages_match(e.languages, f"auto>{tag}")]
    return MemoryView(
        glossary=[glossary_view(e) for e in entries if e.kind == "glossary"],
        styleNotes=[style_note_view(e) for e in entries if e.kind == "style"],
        corrections=[correction_view(c) for c in memory.corrections(owner, limit=MEMORY_VIEW_CORRECTIONS)],
    )


@router.get("/api/memory/concordance")
async def concordance(
    owner: OwnerDep,
    services: ServicesDep,
    q: Annotated[str, Query(max_length=1000)],
    language: Annotated[str, Query(max_length=64)],
    limit: Annotated[int, Query()] = 20,
) -> ConcordanceResult:
    """The translation-memory and glossary entries for the target `language` that hold `q`, with where."""
    from service.concordance import Concordance

    return await Concordance(services.tm, services.memory).search(owner, q, language, limit=limit)


@router.get("/api/memory/tm")
async def list_tm(
    owner: OwnerDep,
    services: ServicesDep,
    language: Annotated[str, Query(max_length=64)],
    q: Annotated[str, Query(max_length=200)] = "",
    cursor: Annotated[str | None, Query(max_length=64)] = None,
    limit: Annotated[int, Query()] = 50,
) -> TmPage:
    """A page of the caller's translation memory for the target `language`, most recently changed first."""
    from service.tm_entries import TmEntries

    return await TmEntries(services.tm).page(owner, language, q=q, cursor=cursor, limit=limit)


@router.put("/api/memory/tm/{entry_id}")
async def edit_tm(entry_id: str, body: TmEditBody, owner: OwnerDep, services: ServicesDep) -> TmEntryView:
    """Give one of the caller's translation-memory entries a new target."""
    from service.tm_entries import TmEntries

    return await TmEntries(services.tm).edit(owner, entry_id, body.target)


@router.delete("/api/memory/tm/{entry_id}", status_code=204, response_class=Response)
async def delete_tm(entry_id: str, owner: OwnerDep, services: ServicesDep) -> Response:
    """Delete one of the caller's translation-memory entries."""
    from service.tm_entries import TmEntries

    await TmEntries(services.tm).delete(owner, entry_id)
    return Response(status_code=204)


@router.post("/api/memory/glossary", status_code=201)
def add_glossary_entry(body: GlossaryBody, owner: OwnerDep, services: ServicesDep) -> GlossaryEntryView:
    """Add a glossary entry (an entry for the same term and pair is updated instead)."""
    record = services.memory.add_glossary(
        owner, source=body.source, target=body.target, languages=body.languages or ANY, kind=body.kind
    )
    return glossary_view(record)


@router.post("/api/memory/style-notes", status_code=201)
def add_style_note(body: StyleNoteBody, owner: OwnerDep, services: ServicesDep) -> StyleNoteView:
    """Add a style note."""
    record = services.memory.add_style_note(owner, text=body.text, languages=body.languages or ANY)
    return style_note_view(record)


@router.get(
    "/api/memory/export",
    response_class=Response,
    responses={200: {"content": {"application/x-tmx+xml": {}, "text/csv": {}, "application/x-tbx+xml": {}}}},
)
def export_memory(
    owner: OwnerDep,
    services: ServicesDep,
    format: Annotated[str, Query(max_length=20, description="tmx (translation memory), csv or tbx (glossary)")],
    srclang: Annotated[str | None, Query(max_length=40, description="the source language (default und)")] = None,
) -> Response:
    """The caller's translation memory (TMX) or glossary (CSV, TBX) as a download."""
    from service.interchange import MemoryInterchange

    from .files import content_disposition

    found = MemoryInterchange(services.tm, services.memory).export(owner, format, srclang=srclang)
    return Response(
        found.content, media_type=found.media_type, headers={"Content-Disposition": content_disposition(found.filename)}
    )


@router.post("/api/memory/import")
def import_memory(body: MemoryImportBody, owner: OwnerDep, services: ServicesDep) -> ImportResult:
    """Import a TMX translation memory or a CSV/TBX glossary (bad input: 422, nothing changed)."""
    from service.interchange import MemoryInterchange

    return MemoryInterchange(services.tm, services.memory).import_(owner, body)


class EntryEditBody(_Body):
    """`PUT /api/memory/{entryId}`: the fields to change (a glossary entry's source/target, a note's text)."""

    source: Term | None = None
    target: Term | None = None
    kind: Kind | None = None
    text: Note | None = None


@router.put("/api/memory/{entry_id}")
def update_memory_entry(
    entry_id: str, body: EntryEditBody, owner: OwnerDep, services: ServicesDep
) -> GlossaryEntryView | StyleNoteView:
    """Edit one of the caller's glossary entries or style notes by hand (its origin becomes `user`)."""
    if not is_id(entry_id, "m"):
        raise NotFoundError(f"No memory entry {entry_id[:80]}.")
    record = services.memory.update(
        owner,
        entry_id,
        source=body.source,
        target=body.target,
        text=body.text,
        languages=body.languages,
        kind=body.kind,
    )
    return glossary_view(record) if record.kind == "glossary" else style_note_view(record)


@router.delete("/api/memory/{entry_id}", status_code=204, response_class=Response)
def delete_memory_entry(entry_id: str, owner: OwnerDep, services: ServicesDep) -> Response:
    """Delete one of the caller's glossary entries or style notes."""
    if not is_id(entry_id, "m"):
        raise NotFoundError(f"No memory entry {entry_id[:80]}.")
    services.memory.delete(owner, entry_id)
    return Response(status_code=204)


def glossary_view(r: MemoryEntryRecord) -> GlossaryEntryView:
    """A glossary entry as the API shows it."""
    from service.memory import kind_of  # on first use: the memory's module loads the matcher and lxml

    return GlossaryEntryView(
        id=r.entry_id,
        source=r.source,
        target=r.text,
        languages=r.languages,
        createdAt=r.created_at,
        updatedAt=r.updated_at,
        origin=r.origin,
        kind=kind_of(r),
    )


def style_note_view(r: MemoryEntryRecord) -> StyleNoteView:
    """A style note as the API shows it."""
    return StyleNoteView(
        id=r.entry_id,
        text=r.text,
        languages=r.languages,
        createdAt=r.created_at,
        updatedAt=r.updated_at,
        origin=r.origin,
    )


def correction_view(c: Correction) -> CorrectionView:
    """A recorded edit or rejection."""
    return CorrectionView(
        sessionId=c.session_id,
        fileId=c.file_id,
        status=c.status,
        source=c.source,
        proposal=c.proposal,
        final=c.final,
        reason=c.reason,
        createdAt=c.created_at,
        issue=c.issue,
    )
