"""The reviewer's memory, as the model sees it.

An owner's memory holds glossary entries (a source term and the translation the reviewer wants, for
a language pair), style notes, and the latest corrections (edits and rejections). The system prompt
shows it within a fixed budget: the glossary entries whose term occurs in the text about to be
translated first, then the style notes, then the most recent corrections.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .effects import Correction
from .languages import ANY, languages_match

MEMORY_BUDGET = 2_000
"""The most characters of memory the system prompt carries."""

Origin = Literal["user", "learned"]
"""Who made an entry: the owner by hand, or distillation from the owner's corrections."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GlossaryEntry:
    """A source term and the translation the reviewer wants for it."""

    source: str
    target: str
    """Always human-validated text: typed by the owner or taken from their edit."""
    languages: str = ANY
    """The language pair the entry belongs to (see `agent_core.languages`)."""
    origin: Origin = "user"


@dataclass(frozen=True, slots=True, kw_only=True)
class StyleNote:
    """A short rule the reviewer follows ("Use vous, not tu")."""

    text: str
    languages: str = ANY
    origin: Origin = "user"


@dataclass(frozen=True, slots=True, kw_only=True)
class Memory:
    """An owner's memory as one step needs it."""

    glossary: tuple[GlossaryEntry, ...] = ()
    style_notes: tuple[StyleNote, ...] = ()
    corrections: tuple[Correction, ...] = ()
    """The latest corrections, newest first."""

    def for_languages(self, languages: str) -> Memory:
        """The entries that apply to a session translating the pair `languages`."""
        return Memory(
            glossary=tuple(e for e in self.glossary if languages_match(e.languages, languages)),
            style_notes=tuple(n for n in self.style_notes if languages_match(n.languages, languages)),
            corrections=self.corrections,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class Lessons:
    """Preferences distilled from corrections, to add to the owner's memory (origin `learned`)."""

    glossary: tuple[GlossaryEntry, ...] = ()
    style_notes: tuple[StyleNote, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.glossary or self.style_notes)


def term_pattern(term: str) -> re.Pattern[str]:
    """Matches `term` case-insensitively, not inside a longer word."""
    words = r"\s+".join(re.escape(word) for word in term.split())
    return re.compile(r"(?<!\w)" + words + r"(?!\w)", re.I)


def occurs(term: str, text: str) -> bool:
    """True when `term` occurs in `text` as a whole word (or words), ignoring case."""
    return bool(term.strip()) and term_pattern(term).search(text) is not None


@dataclass
class _Lines:
    budget: int
    lines: list[str] = field(default_factory=list)
    used: int = 0

    def add(self, line: str) -> bool:
        if self.used + len(line) > self.budget:
            return False
        self.lines.append(line)
        self.used += len(line) + 1
        return True

    def section(self, title: str, lines: Sequence[str]) -> bool:
        """Add a titled section with as many of `lines` as fit; False once the budget is spent."""
        if not lines:
            return True
        if not self.add(title):
            return False
        return all(self.add(line) for line in lines)


def render_memory(memory: Memory, *, text: str = "", budget: int = MEMORY_BUDGET) -> str:
    """The memory for the system prompt, within `budget` characters.

    Glossary entries whose source term occurs in `text` (the next untranslated text) come first,
    then style notes, then the most recent corrections, newest first.
    """
    out = _Lines(budget)
    relevant = [e for e in memory.glossary if occurs(e.source, text)]
    glossary = [f"- «{_cut(e.source, 80)}» → «{_cut(e.target, 80)}»" for e in relevant]
    notes = [f"- {_cut(n.text, 300)}" for n in memory.style_notes]
    corrections = [_correction_line(c) for c in memory.corrections]
    _ = (
        out.section("Glossary (translate these terms this way):", glossary)
        and out.section("Style:", notes)
        and out.section("Recent corrections:", corrections)
    )
    return "\n".join(out.lines)


def _correction_line(c: Correction) -> str:
    if c.status == "refined":
        line = f"- You proposed «{_cut(c.proposal)}»; the reviewer changed it to «{_cut(c.final or '')}»"
    else:
        line = f"- The reviewer rejected «{_cut(c.proposal)}» for «{_cut(c.source)}»"
    if c.reason:
        line += f" (reason: {_cut(c.reason)})"
    return line


def _cut(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
