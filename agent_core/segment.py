"""A segment of a file: the unit CAT tools count, match and export, found once at upload
(`agent_core.segmentation`) and stored with the file's text.

A segment is a span `[start, end)` of the file's text with no whitespace at its ends, and a stable id
(`s1`, `s2`, … in document order). A locked one is text kept verbatim (code, front matter, URLs): it is
written at upload, never proposed.

A segment of a resource file (PO, JSON, Android, …) carries its entry's context (`SegmentContext`: the
key, the developer's note, the locked codes, a plural entry's source forms, the format's flags). It is stored with the
segment, in the chunk the segment begins in, so the step that shows or checks a segment has it from the
read it makes anyway: no round trip of its own, and only the shown chunks' bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

_ID: Final = re.compile(r"\s*s?(\d{1,9})\s*", re.IGNORECASE)
_SEPARATOR: Final = re.compile(r"[\s,;]+")
BLANK_LINE: Final = re.compile(r"\n[ \t\r]*\n")
"""What ends a paragraph: a line of only whitespace (CRLF files too)."""


MAX_KEY_CHARS = 200
"""A key longer than this is stored cut (it is shown, never matched: the format writes by its own reading)."""
MAX_NOTE_CHARS = 500
"""A developer's note longer than this is stored cut, so a chunk's segments stay within an item's size."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SegmentContext:
    """What a resource file says about a segment's entry: its key, the developer's note, the locked
    codes its text holds (in order, with repeats), for a plural entry the source's forms, and where
    the program uses it and the format's flags on it."""

    key: str
    note: str | None = None
    codes: tuple[str, ...] = ()
    """The locked codes (placeholders, markup) of this segment's source: a translation keeps each exactly."""
    plural: tuple[tuple[str, str], ...] = ()
    """A plural entry's source forms by CLDR category, in CLDR order; empty for a plain string."""
    argument: str | None = None
    """The variable a plural depends on, where the format names it."""
    refs: tuple[str, ...] = ()
    """Where the program uses the string (PO `#:` references), each cut to MAX_KEY_CHARS."""
    flags: tuple[str, ...] = ()
    """The format's flags on the entry (PO `#,` flags such as `c-format`, `fuzzy`), for the reviewer."""
    document: bool = False
    """True for a document's block (an HTML or DOCX paragraph, a subtitle cue): its key is its place in
    the document, not a string's name, so it makes no translation-memory context match."""

    def dump(self) -> dict[str, object]:
        """The context as stored (short names; empty fields left out)."""
        out: dict[str, object] = {"k": self.key[:MAX_KEY_CHARS]}
        if self.note:
            out["n"] = self.note[:MAX_NOTE_CHARS]
        if self.codes:
            out["c"] = list(self.codes)
        if self.plural:
            out["p"] = [list(form) for form in self.plural]
        if self.argument:
            out["a"] = self.argument[:MAX_KEY_CHARS]
        if self.refs:
            out["r"] = [ref[:MAX_KEY_CHARS] for ref in self.refs]
        if self.flags:
            out["f"] = list(self.flags)
        if self.document:
            out["d"] = 1
        return out

    @classmethod
    def load(cls, raw: dict[str, object]) -> SegmentContext:
        """A stored context read back."""
        forms = raw.get("p")
        codes = raw.get("c")
        note, argument, refs, flags = raw.get("n"), raw.get("a"), raw.get("r"), raw.get("f")
        return cls(
            key=str(raw["k"]),
            note=str(note) if note is not None else None,
            codes=tuple(str(c) for c in codes) if isinstance(codes, list) else (),
            plural=tuple((str(f[0]), str(f[1])) for f in forms) if isinstance(forms, list) else (),
            argument=str(argument) if argument is not None else None,
            refs=tuple(str(r) for r in refs) if isinstance(refs, list) else (),
            flags=tuple(str(f) for f in flags) if isinstance(flags, list) else (),
            document=bool(raw.get("d")),
        )


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment of a file: `text[start:end]`, its position in order, whether it is locked, and its
    entry's context in a resource file."""

    index: int
    start: int
    end: int
    locked: bool = False
    context: SegmentContext | None = None

    @property
    def id(self) -> str:
        """The segment's stable id: `s` and its 1-based position in the file."""
        return segment_id(self.index)


def segment_id(index: int) -> str:
    """The id of the segment at 0-based position `index`."""
    return f"s{index + 1}"


def segment_index(name: str) -> int | None:
    """The 0-based position a segment id names (`s12`, `S12` or `12`), or None for anything else."""
    m = _ID.fullmatch(name)
    return int(m[1]) - 1 if m and int(m[1]) > 0 else None


def segment_names(value: str) -> list[str]:
    """Segment ids given as one string ("s3, s4", "s3 s4", "s3;s4"), in order."""
    return [v for v in _SEPARATOR.split(value) if v]


def dump_segments(segments: Sequence[Segment]) -> str:
    """Segments as stored: the first one's index and each one's start, length, then 1 when locked (0
    when not but a context follows) and its context."""
    first = segments[0].index if segments else 0
    rows: list[list[object]] = []
    for s in segments:
        row: list[object] = [s.start, s.end - s.start]
        if s.context is not None:
            row += [1 if s.locked else 0, s.context.dump()]
        elif s.locked:
            row.append(1)
        rows.append(row)
    return json.dumps([first, rows], separators=(",", ":"), ensure_ascii=False)


def load_segments(raw: str) -> tuple[Segment, ...]:
    """Stored segments (`dump_segments`) read back."""
    first, rows = json.loads(raw)
    return tuple(
        Segment(
            first + k,
            r[0],
            r[0] + r[1],
            len(r) > 2 and r[2] == 1,
            SegmentContext.load(r[3]) if len(r) > 3 else None,
        )
        for k, r in enumerate(rows)
    )
