"""`…/export?format=original`: the file in its own format, the written targets filled (API.md "Files").

The stored original (`service.originals`) is read again by the format that read it at upload (its name
is stored with it; the original never changes, so its entries and their spans in the stored text are
those of the upload). Each entry whose span written units cover completely gets the target
`interchange.layout.segment_targets` assembles (the units' texts, the source's whitespace between);
a plural entry's target is its forms by category (`agent_core.plural`), written only when they are
exactly the target language's categories (else it counts as skipped, like an XLIFF target whose
placeholders do not fit). Pending proposals are not written. Markdown and plain text are the
translation with the source in its untranslated spans; XLIFF is the document with its targets and
states (`service.exports`).
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.errors import InvalidRequestError
from agent_core.plural import parse_forms
from interchange import WrittenUnit, segment_targets
from interchange.formats import FormatError, Resource, Target, format_named
from interchange.layout import joined_text, span_of

from .originals import Original
from .segments import WRITTEN_STATUSES, fill_with_source
from .workbench import FileView

KEEP_NAME = frozenset({"android", "strings", "stringsdict", "xcstrings"})
"""Formats whose file name is the same in every language (a folder tells the language: `values-pl/`,
`pl.lproj/`; an `.xcstrings` holds them all): the export keeps the name."""


def original_name(name: str, format_name: str, language: str, source: str | None = None) -> str:
    """The exported file's name: `messages.po` → `messages.pl.po`; a name that ends with the source
    language the file declares takes the target's (`app_en.arb` → `app_pl.arb`, `en.yml` → `pl.yml`);
    `strings.xml` as it is; a translated PO template is a PO file (`messages.pot` → `messages.pl.po`)."""
    if format_name in KEEP_NAME:
        return name
    stem, dot, ext = name.rpartition(".")
    if format_name == "po" and ext.lower() == "pot":
        ext = "po"
    if not (dot and stem):
        return f"{name}.{language}"
    if source:
        for tag in dict.fromkeys((source, source.replace("-", "_"), source.split("-")[0])):
            if stem.lower() == tag.lower():
                return f"{language}.{ext}"
            for sep in ("_", "-", "."):
                if stem.lower().endswith(f"{sep}{tag.lower()}"):
                    return f"{stem[: -len(tag) - 1]}{sep}{language}.{ext}"
    return f"{stem}.{language}.{ext}"


def markdown_original(view: FileView, language: str | None) -> tuple[bytes, str]:
    """A Markdown or text file's translation, the source in its untranslated spans, and its name."""
    text = fill_with_source(view.source, view.units)
    return text.encode("utf-8"), original_name(view.state.name, "markdown", language or "translated")


def format_original(
    view: FileView,
    original: Original,
    language: str | None,
    *,
    source: str | None = None,
    comments: Sequence[tuple[str, str]] = (),
) -> tuple[bytes, str, int]:
    """The file written by its format with the targets its written units make, its name, and how many
    targets were left out (plural forms that are not the target's categories). `source`: the
    session's source language, for the name when the file declares none. `comments`: lines to add by
    segment id, in order, to the translator comments of the entry the segment lies in (PO)."""
    fmt = format_named(original.format)
    skipped = 0

    def fill(resource: Resource) -> tuple[dict[str, Target], str]:
        nonlocal skipped
        chosen = language or resource.target_language
        if chosen is None:
            raise InvalidRequestError(
                "The session has no target language: set targetLanguage (PATCH the session), then export again."
            )
        layout = joined_text((e.key, e.source) for e in resource.entries)
        units = [
            WrittenUnit(start=s.start, end=s.end, translation=s.target, status=s.status)
            for s in view.segments()
            if s.target is not None and s.status in WRITTEN_STATUSES
        ]
        texts = segment_targets(layout, units).targets
        from langfacts.plurals import categories  # babel's data, only for this export

        wanted = categories(chosen)
        targets: dict[str, Target] = {}
        for entry in resource.entries:
            text = texts.get(entry.key)
            if text is None:
                continue
            if entry.plural is None:
                targets[entry.key] = text
                continue
            forms = parse_forms(text)
            if forms is None or set(forms) != set(wanted):
                skipped += 1
                continue
            targets[entry.key] = {c: forms[c] for c in wanted}
        return targets, chosen

    from interchange.formats.po import PoFormat  # the PO writer's translator comments

    try:
        if comments and isinstance(fmt, PoFormat):
            resource = fmt.read(original.data)
            targets, chosen = fill(resource)
            lines = _entry_comments(view, resource, comments)
            written = fmt.write_with_comments(original.data, targets, target_language=chosen, comments=lines)
        else:
            resource, written = fmt.export(original.data, fill)
    except FormatError as exc:  # it was read at upload
        raise InvalidRequestError(f"The stored {fmt.name} file cannot be read or written again: {exc}") from exc
    language = language or resource.target_language
    assert language is not None  # fill refused the export otherwise
    return written, original_name(view.state.name, fmt.name, language, resource.source_language or source), skipped


def _entry_comments(view: FileView, resource: Resource, comments: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    """The comment lines by the key of the entry each one's segment begins in (the segment's first
    piece in the file's stored text, which is the entries' sources joined: `joined_text`)."""
    layout = joined_text((e.key, e.source) for e in resource.entries)
    starts: dict[str, int] = {}
    for s in view.segments():
        starts.setdefault(s.id, s.start)
    out: dict[str, list[str]] = {}
    for segment_id, line in comments:
        start = starts.get(segment_id)
        span = span_of(layout, start, start + 1) if start is not None else None
        if span is not None:
            out.setdefault(span.key, []).append(line)
    return out
