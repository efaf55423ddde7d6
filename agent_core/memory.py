"""The reviewer's memory, as the model sees it.

An owner's memory holds glossary entries (a source term and the translation the reviewer wants, for
a language pair), style notes, and the latest corrections (edits and rejections). The system prompt
shows it within a fixed budget: the glossary entries whose term occurs in the text about to be
translated first, then the style notes, then the most recent corrections.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .effects import Correction
from .languages import ANY, languages_match
from .tm import diff_tokens

MEMORY_BUDGET = 2_000
"""The most characters of memory the system prompt carries."""

Origin = Literal["user", "learned"]
"""Who made an entry: the owner by hand, or distillation from the owner's corrections."""

GlossaryKind = Literal["preferred", "forbidden", "keep"]
"""What a glossary entry asks: its target is the preferred translation, a translation that must not be
used, or (`keep`) the term is not translated at all."""
GLOSSARY_KINDS: tuple[GlossaryKind, ...] = ("preferred", "forbidden", "keep")


def glossary_kind(source: str, target: str, kind: str | None = None) -> GlossaryKind:
    """The kind an entry has: `keep` when its target is its source (any case, whatever was given), else
    the kind given (default `preferred`); ValueError for a kind that is not one of GLOSSARY_KINDS."""
    if " ".join(source.split()).casefold() == " ".join(target.split()).casefold():
        return "keep"
    found = next((k for k in GLOSSARY_KINDS if k == (kind or "preferred")), None)
    if found is None:
        raise ValueError(f"kind must be one of {', '.join(GLOSSARY_KINDS)}")
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class GlossaryEntry:
    """A source term and the translation the reviewer wants for it."""

    source: str
    target: str
    """Always human-validated text: typed by the owner or taken from their edit."""
    languages: str = ANY
    """The language pair the entry belongs to (see `agent_core.languages`)."""
    origin: Origin = "user"
    kind: GlossaryKind = "preferred"
    """`preferred` (use `target`), `forbidden` (never use `target`) or `keep` (leave the term as it is)."""


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

    def __add__(self, other: Lessons) -> Lessons:
        return Lessons(glossary=(*self.glossary, *other.glossary), style_notes=(*self.style_notes, *other.style_notes))


NO_LESSONS = Lessons()
"""Nothing learned (a shared default: Lessons is immutable)."""


def term_pattern(term: str) -> re.Pattern[str]:
    """Matches `term` case-insensitively, not inside a longer word."""
    words = r"\s+".join(re.escape(word) for word in term.split())
    return re.compile(r"(?<!\w)" + words + r"(?!\w)", re.I)


def occurs(term: str, text: str) -> bool:
    """True when `term` occurs in `text` as a whole word (or words), ignoring case."""
    return bool(term.strip()) and term_pattern(term).search(text) is not None


@dataclass
class _Budget:
    """What is left of the characters the rendered memory may take; spent once a line does not fit."""

    left: int
    spent: bool = False

    def section(self, title: str, lines: Sequence[str]) -> list[str]:
        """A titled section with as many of `lines` as fit (none once the budget is spent)."""
        kept: list[str] = []
        for line in [title, *lines] if lines else []:
            if self.spent or len(line) > self.left:
                self.spent = True
                break
            kept.append(line)
            self.left -= len(line) + 1
        return kept if len(kept) > 1 else []


def render_memory(memory: Memory, *, text: str = "", budget: int = MEMORY_BUDGET) -> str:
    """The memory for the state note, within `budget` characters: style notes, the most recent
    corrections (newest first), then the glossary entries whose source term occurs in `text` (the
    next untranslated text). The budget goes to the glossary first, then the notes, then the
    corrections; the sections are written from the most lasting to the one that changes with every
    screen, so consecutive requests share more of their prefix."""
    out = _Budget(budget)
    relevant = [e for e in memory.glossary if occurs(e.source, text)]
    glossary = out.section("Glossary:", [_glossary_line(e) for e in relevant])
    notes = out.section("Style:", [f"- {_cut(n.text, 300)}" for n in memory.style_notes])
    corrections = out.section("Recent corrections:", [_correction_line(c) for c in memory.corrections])
    return "\n".join([*notes, *corrections, *glossary])


def _glossary_line(e: GlossaryEntry) -> str:
    if e.kind == "keep":
        return f"- «{_cut(e.source, 80)}»: keep as is, do not translate"
    if e.kind == "forbidden":
        return f"- «{_cut(e.source, 80)}»: never «{_cut(e.target, 80)}»"
    return f"- «{_cut(e.source, 80)}» → «{_cut(e.target, 80)}»"


def _correction_line(c: Correction) -> str:
    if c.status == "refined":
        old, new = changed_part(c.proposal, c.final or "")
        line = f"- «{_cut(old)}» → «{_cut(new)}»"
    else:
        line = f"- rejected «{_cut(c.proposal)}» for «{_cut(c.source)}»"
    if c.reason:
        line += f" (reason: {_cut(c.reason)})"
    return line


CONTEXT_WORDS = 3
"""Words of unchanged text shown on each side of a correction's change."""


def changed_part(old: str, new: str) -> tuple[str, str]:
    """What the reviewer changed: the span of `old` from its first to its last difference from `new`
    and what `new` has there, each with up to CONTEXT_WORDS unchanged words around it (`…` where
    text is left out). The whole unit twice would cost the model tokens that teach it nothing."""
    a, b = diff_tokens(old), diff_tokens(new)
    edits = [op for op in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if not edits:
        return old, new
    i1, j1, i2, j2 = edits[0][1], edits[0][3], edits[-1][2], edits[-1][4]
    before = _words_back(a, i1)
    after = _words_ahead(a, i2)
    if len("".join(a[: i1 - before])) <= 3:  # a word's worth or less left out: show it all
        before = i1
    if len("".join(a[i2 + after :])) <= 3:
        after = len(a) - i2
    lead = "…" if i1 - before > 0 else ""
    tail = "…" if i2 + after < len(a) else ""
    left, right = "".join(a[i1 - before : i1]), "".join(a[i2 : i2 + after])
    return (
        f"{lead}{left}{''.join(a[i1:i2])}{right}{tail}".strip(),
        f"{lead}{left}{''.join(b[j1:j2])}{right}{tail}".strip(),
    )


def _words_back(tokens: Sequence[str], end: int) -> int:
    """How many tokens before `end` hold CONTEXT_WORDS words."""
    count = words = 0
    while end - count > 0 and words < CONTEXT_WORDS:
        count += 1
        words += tokens[end - count][0].isalnum()
    return count


def _words_ahead(tokens: Sequence[str], start: int) -> int:
    """How many tokens from `start` hold CONTEXT_WORDS words."""
    count = words = 0
    while start + count < len(tokens) and words < CONTEXT_WORDS:
        words += tokens[start + count][0].isalnum()
        count += 1
    return count


def _cut(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
