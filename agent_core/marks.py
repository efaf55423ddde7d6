"""What the screen adds to a file's text for the model: a segment's id mark where it begins (`【s12】`)
and, before it, a resource string's context line (`⟪key: … | note: …⟫`). Neither is part of the text,
so a translation that holds one its source does not is refused (`screen_markup`)."""

from __future__ import annotations

import re

SCREEN_MARKUP = re.compile(r"【s\d+】|⟪[^⟫\n]*⟫")
"""An id mark or a context line, as `mark` and `label_line` write them."""


def mark(segment_id: str) -> str:
    """The id mark shown where segment `segment_id` begins."""
    return f"【{segment_id}】"


def label_line(label: str) -> str:
    """A string's context line, shown on the line before its first segment's mark."""
    return f"⟪{label}⟫\n"


def screen_markup(text: str, source: str) -> str | None:
    """The first piece of the screen's markup that `text` holds and `source` does not, or None."""
    return next((m.group() for m in SCREEN_MARKUP.finditer(text) if m.group() not in source), None)
