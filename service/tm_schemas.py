"""The translation-memory management routes' bodies and answers (service.tm_entries), apart so that
routes load them cheaply."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from agent_core.text import check_filled


class TmEntryView(BaseModel):
    """A translation-memory entry."""

    id: str
    """Its pair's target language and its source hash (`fr.3f…`): stable while the entry exists."""
    source: str
    target: str
    language: str
    """The target language of its pair (the primary subtag: `fr` for `fr-CA` too)."""
    key: str | None
    """The key of the resource string it was written from; `null` for a document's text or an import
    that named none."""
    origin: str
    """How it came into the memory: `approved`, `refined`, `revised` (also an edit here) or `imported`."""
    updatedAt: str | None


class TmPage(BaseModel):
    """`GET /api/memory/tm`: a page of one pair's entries, most recently changed first."""

    entries: list[TmEntryView]
    nextCursor: str | None
    """Pass it as `cursor` for the next page; `null` on the last."""


class TmEditBody(BaseModel):
    """`PUT /api/memory/tm/{id}`: the entry's new translation."""

    model_config = ConfigDict(extra="forbid")

    target: Annotated[str, Field(max_length=5000), AfterValidator(check_filled)]
