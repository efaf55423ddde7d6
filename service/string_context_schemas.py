"""The answer of `GET …/segments/{segmentId}/context` (service.string_context), apart so that routes load it cheaply."""

from __future__ import annotations

from pydantic import BaseModel

from .segment_schemas import SegmentStatus


class Neighbour(BaseModel):
    """A string near the one asked about, in file order: a written unit, a pending proposal or untranslated text."""

    id: str
    """The segment the piece begins in (as in the segment list)."""
    key: str | None
    """Its string's key in a resource file; null in a plain document."""
    source: str
    target: str | None
    """The written text, the pending proposal, or null (untranslated)."""
    status: SegmentStatus


class OtherLanguage(BaseModel):
    """The same string written in another language: in another session of the same owner (or project)
    that holds a file of the same name."""

    language: str
    """The other session's target language (a BCP 47 tag)."""
    sessionId: str
    fileId: str
    target: str
    """The written text (a plural entry's forms as the segment list gives them)."""
    status: SegmentStatus


class StringContext(BaseModel):
    """What a translator sees beside one string: its entry's context, its neighbours and its other languages."""

    id: str
    """The segment asked about."""
    key: str | None
    """The string's key in a resource file (null in a plain document)."""
    note: str | None
    """The developer's note for translators."""
    refs: list[str]
    """Where the program uses the string (PO `#:` references)."""
    flags: list[str]
    """The format's flags on the string (PO `#,` flags such as `c-format`, `fuzzy`)."""
    codes: list[str]
    """The source's locked codes, each distinct one once in source order."""
    plural: dict[str, str] | None
    """A plural entry's source forms by CLDR category (the singular included); null for a plain string."""
    before: list[Neighbour]
    """Up to two strings before it, in file order."""
    after: list[Neighbour]
    """Up to two strings after it, in file order."""
    otherLanguages: list[OtherLanguage]
    """The same key's written text in other languages, each language once (its latest session), at most 20."""
