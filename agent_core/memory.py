"""The reviewer's memory, as the model sees it.

For now the memory is the owner's most recent corrections (edits and rejections), recorded when a
unit is reviewed and shown in the system prompt within a fixed budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MEMORY_BUDGET = 2_000
"""The most characters of memory the system prompt carries."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RememberedCorrection:
    """One recorded correction, as the memory shows it."""

    status: str
    source: str
    proposal: str
    final: str | None
    reason: str | None


def render_memory(corrections: Sequence[RememberedCorrection], *, budget: int = MEMORY_BUDGET) -> str:
    """The most recent corrections, newest first, within `budget` characters."""
    lines: list[str] = []
    used = 0
    for c in corrections:
        if c.status == "refined":
            line = f"- You proposed «{_cut(c.proposal)}»; the reviewer changed it to «{_cut(c.final or '')}»"
        else:
            line = f"- The reviewer rejected «{_cut(c.proposal)}» for «{_cut(c.source)}»"
        if c.reason:
            line += f" (reason: {_cut(c.reason)})"
        if used + len(line) > budget:
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _cut(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
