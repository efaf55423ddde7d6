"""A string's context in the terminal: the card's lines (key, note, `#:` refs, flags, codes, every plural
form of the source) and the fuller view `GET …/segments/{segmentId}/context` gives (the neighbouring
strings, the same key in other languages; docs/api.md "Context for strings").

A server without that route (404) is not an error here: the view then shows what the card has.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator
from rich.text import Text

from .api import ApiClient
from .codes import chips, styled
from .entries import forms_of
from .models import CopilotRequest

MAX_REFS = 5
"""The `#:` references a card shows (the view shows them all)."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Neighbour(_Answer):
    """A string before or after the one in view, in file order."""

    id: str
    key: str | None = None
    source: str = ""
    target: str | None = None
    status: str = ""


class OtherLanguage(_Answer):
    """The same key's written text in another session (another target language)."""

    language: str
    sessionId: str = ""
    fileId: str = ""
    target: str | None = None
    status: str = ""


class StringContext(_Answer):
    """`GET /api/sessions/{sid}/files/{fid}/segments/{segmentId}/context`."""

    id: str
    key: str | None = None
    note: str | None = None
    refs: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    plural: dict[str, str] | None = None
    before: tuple[Neighbour, ...] = ()
    after: tuple[Neighbour, ...] = ()
    otherLanguages: tuple[OtherLanguage, ...] = Field(default=())

    @field_validator("refs", "flags", "codes", "before", "after", "otherLanguages", mode="before")
    @classmethod
    def _none_as_empty(cls, value: object) -> object:
        return () if value is None else value


async def string_context(client: ApiClient, session_id: str, file_id: str, segment_id: str) -> StringContext | None:
    """The segment's context, or None where the server has no such route or segment (404)."""
    found = await client.string_context(session_id, file_id, segment_id)
    return StringContext.model_validate(found) if found is not None else None


def card_context(request: CopilotRequest) -> Text | None:
    """A card's context lines: `key · note`, then `#: refs` and flags, then the codes to keep; None for
    a unit without context."""
    context = request.context
    if context is None:
        return None
    lines = Text()
    lines.append(context.key, style="bold")
    if context.note:
        lines.append("  ·  " + context.note, style="italic")
    if context.refs:
        more = len(context.refs) - MAX_REFS
        refs = " ".join(context.refs[:MAX_REFS]) + (f" (+{more})" if more > 0 else "")
        lines.append(f"\n#: {refs}", style="dim")
    if context.flags:
        lines.append(f"\n#, {', '.join(context.flags)}", style="dim")
    if context.codes:
        lines.append("\ncodes: ", style="dim")
        lines.append_text(chips(context.codes))
    return lines


def source_text(request: CopilotRequest) -> Text:
    """The source as the card shows it: its codes in their looks; a plural entry's every form."""
    codes = request.context.codes if request.context else ()
    forms = request.plural.source if request.plural else {}
    if not forms:
        return styled(request.src_string, codes) if request.src_string else Text("(empty)", style="dim italic")
    shown = Text()
    for n, (category, text) in enumerate(forms.items()):
        shown.append(("\n" if n else "") + f"{category}: ", style="dim")
        shown.append_text(styled(text, codes))
    return shown


def proposal_text(request: CopilotRequest, text: str | None = None) -> Text:
    """A proposal (or the edited `text`) with its codes in their looks; a plural one a line per category."""
    codes = request.context.codes if request.context else ()
    text = request.translate_string if text is None else text
    if request.plural is None:
        return styled(text, codes) if text else Text("(empty)", style="dim italic")
    forms = forms_of(text)
    shown = Text()
    for n, category in enumerate(request.plural.categories or tuple(forms)):
        shown.append(("\n" if n else "") + f"{category}: ", style="dim")
        shown.append_text(styled(forms.get(category, ""), codes))
    return shown


def context_view(request: CopilotRequest, found: StringContext | None) -> Text:
    """The string's whole context: the card's, then the server's neighbours and other languages."""
    shown = card_context(request) or Text("(no key: a document's text)", style="dim")
    codes = request.context.codes if request.context else ()
    if found is not None and found.refs and request.context and len(found.refs) > MAX_REFS:
        shown.append("\n#: " + " ".join(found.refs), style="dim")
    shown.append("\n\nSource\n", style="bold underline")
    shown.append_text(source_text(request))
    if found is None:
        shown.append("\n\nThis server gives no more context for the string.", style="dim italic")
        return shown
    shown.append("\n\nAround it\n", style="bold underline")
    for neighbour in found.before:
        shown.append_text(_neighbour(neighbour))
    shown.append("▶ ", style="bold")
    shown.append_text(styled(request.src_string, codes, style="bold"))
    shown.append("\n")
    for neighbour in found.after:
        shown.append_text(_neighbour(neighbour))
    if found.otherLanguages:
        shown.append("\nOther languages\n", style="bold underline")
        for other in found.otherLanguages:
            shown.append(f"{other.language} ({other.status or '?'}): ", style="dim")
            shown.append_text(styled(_flat(other.target or "(not written)"), codes))
            shown.append("\n")
    return shown


def _neighbour(neighbour: Neighbour) -> Text:
    line = Text("  ")
    if neighbour.key:
        line.append(neighbour.key + ": ", style="dim")
    line.append(neighbour.source)
    if neighbour.target:
        line.append("  →  ", style="dim")
        line.append(_flat(neighbour.target))
    line.append(f"  [{neighbour.status}]\n" if neighbour.status else "\n", style="dim")
    return line


def _flat(text: str) -> str:
    """A written text on one line: a plural entry's forms (its JSON text) as `one: … · other: …`."""
    forms = forms_of(text) if text.startswith("{") else {}
    return " · ".join(f"{c}: {t}" for c, t in forms.items()) if forms else text
