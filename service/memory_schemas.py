"""The API's bodies for the caller's memory (API.md "Memory"): the glossary, style notes and
corrections as shown, and a memory file's import."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field

from agent_core.mqm import MqmIssue
from agent_core.text import Unicode, check_text

from .schemas import Body


class GlossaryEntryView(BaseModel):
    """A glossary entry of the caller's memory."""

    id: str
    source: str
    target: str
    languages: str
    createdAt: str
    updatedAt: str
    origin: str
    """`user` (added by hand) or `learned` (distilled from corrections)."""
    kind: Literal["preferred", "forbidden", "keep"] = "preferred"
    """`preferred` (use `target`), `forbidden` (never use `target`), `keep` (the term is not translated)."""


class StyleNoteView(BaseModel):
    """A style note of the caller's memory."""

    id: str
    text: str
    languages: str
    createdAt: str
    updatedAt: str
    origin: str


class CorrectionView(BaseModel):
    """A recorded edit or rejection."""

    sessionId: str
    fileId: str
    status: str
    source: str
    proposal: str
    final: str | None
    reason: str | None
    createdAt: str
    issue: MqmIssue | None = None
    """The MQM issue the reviewer named with it, if any."""


class MemoryView(BaseModel):
    """`GET /api/memory`: the caller's glossary, style notes and latest corrections."""

    glossary: list[GlossaryEntryView]
    styleNotes: list[StyleNoteView]
    corrections: list[CorrectionView]


# -- the workbench: segments, revisions, QA (API.md "Files") ---------------------------------------


MAX_IMPORT_CHARS = 5_000_000


class MemoryImportBody(Body):
    """`POST /api/memory/import`: a TMX translation memory or a CSV/TBX glossary."""

    format: Literal["tmx", "csv", "tbx"]
    content: Unicode = Field(min_length=1, max_length=MAX_IMPORT_CHARS)
    languages: Annotated[str, Field(max_length=100), AfterValidator(check_text)] | None = None
    """For glossary terms whose file names no target language: `auto>french` or `french`; absent: any pair."""


class ImportResult(BaseModel):
    """`POST /api/memory/import`: how many entries were added, updated, or left out."""

    added: int
    updated: int
    skipped: int


# -- review quality: post-edit distance, scorecards, the audit trail (API.md "Jobs, scorecards") ----
