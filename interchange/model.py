"""The values the interchange functions take and give: frozen dataclasses, no XML.

A `Status` is a segment's state in this project (API.md "Segment"); `states.py` maps it to XLIFF.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Status = Literal["untranslated", "pending", "approved", "refined", "revised", "verbatim", "translated", "reviewed"]
"""A segment's status: written units are approved, refined, revised or verbatim (text kept as is), or,
with a second review, translated (awaiting the reviewer) or reviewed."""
STATUSES: tuple[Status, ...] = (
    *("untranslated", "pending", "approved", "refined", "revised", "verbatim", "translated", "reviewed"),
)
_PLACEHOLDER = re.compile(r"\{/?\d{1,4}\}")
WRITTEN: frozenset[Status] = frozenset(STATUSES[2:])
"""The statuses whose target is in the assembled translation."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Note:
    """A remark attached to a segment: the reviewer's reason, a correction, a tool's comment."""

    text: str
    category: str | None = None
    """What the note is (`reason`, `correction`, `description`, …); XLIFF 2.0 `category`, 1.2 `from`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BilingualSegment:
    """One segment of a file as the export sees it: a written unit or an untranslated span."""

    id: str
    start: int
    end: int
    source: str
    target: str | None
    status: Status
    notes: tuple[Note, ...] = ()
    codes: tuple[InlineCode, ...] = ()
    """The inline codes of the XLIFF segment it lies in (an XLIFF source): its placeholders are
    written as the format's inline elements. Empty for plain text (placeholders are literal)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class BilingualExport:
    """A file's segments in source order, with its name and languages (BCP 47)."""

    file_name: str
    source_language: str
    target_language: str | None
    segments: tuple[BilingualSegment, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TmPair:
    """One translation memory entry: a source text, its translation and their languages."""

    source: str
    target: str
    srclang: str
    tgtlang: str
    created: datetime | None = None
    changed: datetime | None = None
    codes: tuple[InlineCode, ...] = ()
    """As BilingualSegment.codes: written as TMX inline elements when given."""
    key: str | None = None
    """The key of the resource string it was written from (TMX: the `<tu>`'s `<prop type="x-context">`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Exported:
    """An export's text, and what of it is not as it was asked."""

    text: str
    left: tuple[str, ...] = ()
    """The ids of the segments (TMX: sources) whose target is not written as given: a target whose
    placeholders do not fit the source's inline codes is plain text for review in XLIFF, and left
    out of TMX."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GlossaryTerm:
    """A source term and its translation; languages are BCP 47 tags when known (a CSV's `languages`
    cell, a stored pair such as `auto>french`, is given as `tgtlang` as written)."""

    source: str
    target: str
    srclang: str | None = None
    tgtlang: str | None = None
    kind: str | None = None
    """`preferred`, `forbidden` or `keep` when the file says (a CSV `kind` cell, a TBX status); else None."""


@dataclass(frozen=True, slots=True, kw_only=True)
class InlineCode:
    """An inline code of an XLIFF segment, as the placeholder the translatable text shows for it."""

    token: int
    """The number in the placeholder: `{3}` (and `{/3}` for the end of a pair)."""
    kind: Literal["single", "paired"]
    """`single`: one placeholder `{n}`; `paired`: `{n}` … `{/n}` around text (or a start and an end code)."""
    element: str
    """The XML element(s) it stands for, e.g. `g`, `pc`, `x`, `bpt/ept`, `sc/ec`."""
    code_id: str | None
    """The code's own `id` attribute in the document."""
    display: str = ""
    """The original data when the document has it (`&lt;b&gt;`, `equiv-text`, `disp`), for reviewers."""


@dataclass(frozen=True, slots=True, kw_only=True)
class XliffSegment:
    """A segment of an XLIFF document: its key, its source as translatable text, its existing target."""

    key: str
    """Stable within the document: `"<file number>/<unit id>/<segment number>"`, numbers from 1."""
    unit_id: str
    source: str
    """The source as plain text; inline codes are placeholders `{n}` / `{/n}` (see `codes.py`)."""
    target: str | None
    """The existing target in the same form, or None."""
    state: str | None
    """The state as the document writes it (2.0 `state`, 1.2 target `state`), or None."""
    status: Status | None
    """The project status the state means (exact for documents this package wrote), or None."""
    translatable: bool
    """False under `translate="no"` (such segments are kept as they are)."""
    codes: tuple[InlineCode, ...] = ()
    notes: tuple[Note, ...] = ()
    max_length: int | None = None
    """The most characters its target may have, where the document states it in characters (1.2's
    `maxwidth` with `size-unit="char"`, 2.0's `slr:sizeRestriction` under the `xliff:codepoints` profile)."""

    def note_text(self) -> str | None:
        """The unit's notes, and the length limit the document states in Android's words (`[CHAR LIMIT=n]`),
        which QA profiles read as the string's own limit and the model and the reviewer read in the note."""
        notes = [n.text for n in self.notes]
        if self.max_length is not None:
            notes.append(f"[CHAR LIMIT={self.max_length}]")
        return "\n".join(notes) or None


@dataclass(frozen=True, slots=True, kw_only=True)
class XliffDocument:
    """An XLIFF 1.2 or 2.0 document read for translation."""

    version: Literal["1.2", "2.0"]
    source_language: str | None
    target_language: str | None
    segments: tuple[XliffSegment, ...] = field(default=())

    def translatable_segments(self) -> tuple[XliffSegment, ...]:
        """The segments to translate: translatable, with some text besides whitespace and placeholders."""
        return tuple(s for s in self.segments if s.translatable and _PLACEHOLDER.sub("", s.source).strip())
