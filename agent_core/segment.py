"""A segment of a file: the unit CAT tools count, match and export, found once at upload
(`agent_core.segmentation`) and stored with the file's text.

A segment is a span `[start, end)` of the file's text with no whitespace at its ends, and a stable id
(`s1`, `s2`, … in document order). A locked one is text kept verbatim (code, front matter, URLs): it is
written at upload, never proposed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

_ID: Final = re.compile(r"\s*s?(\d{1,9})\s*", re.IGNORECASE)
_SEPARATOR: Final = re.compile(r"[\s,;]+")


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment of a file: `text[start:end]`, its position in order, and whether it is locked."""

    index: int
    start: int
    end: int
    locked: bool = False

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
    """Segments as stored: the first one's index and each one's start, length and a 1 when locked."""
    first = segments[0].index if segments else 0
    rows = [[s.start, s.end - s.start, *([1] if s.locked else [])] for s in segments]
    return json.dumps([first, rows], separators=(",", ":"))


def load_segments(raw: str) -> tuple[Segment, ...]:
    """Stored segments (`dump_segments`) read back."""
    first, rows = json.loads(raw)
    return tuple(Segment(first + k, r[0], r[0] + r[1], len(r) > 2) for k, r in enumerate(rows))
