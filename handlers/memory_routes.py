"""The owner's memory over HTTP: see it, add glossary entries and style notes, delete entries.

    GET    /api/memory                 glossary entries, style notes, the latest corrections
    POST   /api/memory/glossary        {source, target, languages?}  → 201 the entry
    POST   /api/memory/style-notes     {text, languages?}            → 201 the note
    DELETE /api/memory/{entryId}       204; 404 when the caller has no such entry

Everything is the caller's own: another caller's entry is 404, like a missing one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from agent_core.errors import NotFoundError
from agent_core.ids import is_id
from agent_core.languages import ANY, normalize_languages

if TYPE_CHECKING:  # storage is imported with the services, on first use
    from storage.owner_memory import OwnerMemory
    from storage.records import CorrectionRecord, MemoryEntryRecord

from .identity import caller
from .services import LazyServices

MEMORY_VIEW_CORRECTIONS = 20
"""How many of the latest corrections `GET /api/memory` lists."""

Term = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Note = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]

router = APIRouter()


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    languages: str | None = Field(default=None, max_length=100)
    """`"source>target"` (`"auto>french"`), or a target alone; absent: every language pair."""

    @field_validator("languages")
    @classmethod
    def _pair(cls, value: str | None) -> str | None:
        return None if value is None else normalize_languages(value)


class GlossaryBody(_Body):
    """`POST /api/memory/glossary`: a term and the translation the caller wants for it."""

    source: Term
    target: Term


class StyleNoteBody(_Body):
    """`POST /api/memory/style-notes`: a rule the caller wants followed."""

    text: Note


def _memory(request: Request) -> OwnerMemory:
    lazy: LazyServices = request.app.state.services
    return lazy.get().manager.memory


@router.get("/api/memory")
async def get_memory(request: Request) -> dict[str, Any]:
    """The caller's glossary and style notes (most recently changed first) and latest corrections."""
    memory = _memory(request)
    owner = caller(request)
    entries = sorted(memory.entries(owner), key=lambda e: (e.updated_at, e.entry_id), reverse=True)
    return {
        "glossary": [glossary_json(e) for e in entries if e.kind == "glossary"],
        "styleNotes": [style_note_json(e) for e in entries if e.kind == "style"],
        "corrections": [correction_json(c) for c in memory.corrections(owner, limit=MEMORY_VIEW_CORRECTIONS)],
    }


@router.post("/api/memory/glossary", status_code=201)
async def add_glossary_entry(body: GlossaryBody, request: Request) -> dict[str, Any]:
    """Add a glossary entry (an entry for the same term and pair is updated instead)."""
    record = _memory(request).add_glossary(
        caller(request), source=body.source, target=body.target, languages=body.languages or ANY
    )
    return glossary_json(record)


@router.post("/api/memory/style-notes", status_code=201)
async def add_style_note(body: StyleNoteBody, request: Request) -> dict[str, Any]:
    """Add a style note."""
    record = _memory(request).add_style_note(caller(request), text=body.text, languages=body.languages or ANY)
    return style_note_json(record)


@router.delete("/api/memory/{entry_id}", status_code=204)
async def delete_memory_entry(entry_id: str, request: Request) -> Response:
    """Delete one of the caller's glossary entries or style notes."""
    owner = caller(request)
    if not is_id(entry_id, "m"):
        raise NotFoundError(f"No memory entry {entry_id[:80]}.")
    _memory(request).delete(owner, entry_id)
    return Response(status_code=204)


def glossary_json(r: MemoryEntryRecord) -> dict[str, Any]:
    """A glossary entry as the API shows it."""
    return {
        "id": r.entry_id,
        "source": r.source,
        "target": r.text,
        "languages": r.languages,
        "createdAt": r.created_at,
        "updatedAt": r.updated_at,
        "origin": r.origin,
    }


def style_note_json(r: MemoryEntryRecord) -> dict[str, Any]:
    """A style note as the API shows it."""
    return {
        "id": r.entry_id,
        "text": r.text,
        "languages": r.languages,
        "createdAt": r.created_at,
        "updatedAt": r.updated_at,
        "origin": r.origin,
    }


def correction_json(c: CorrectionRecord) -> dict[str, Any]:
    """A recorded edit or rejection."""
    return {
        "id": c.correction_id,
        "sessionId": c.session_id,
        "fileId": c.file_id,
        "status": c.status,
        "source": c.source,
        "proposal": c.proposal,
        "final": c.final,
        "reason": c.reason,
        "createdAt": c.created_at,
    }
