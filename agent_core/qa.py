"""Quality checks on a proposed or human-written unit: pure functions of the source, the text and the glossary.

A text gets a warning when it contradicts a glossary entry whose term the source's prose has (terms
inside code, URLs, paths and @handles do not count): a `preferred` entry's translation is missing, a
`keep` entry's term is not kept as it is, a `forbidden` entry's translation is used. `glossary_hits`
lists every entry the source has, with what the text does with it (the card shows them). A text
also gets a warning when it drops a URL, inline code, a placeholder or directive (`{x}`, `{{x}}`,
`${x}`, `%s`, `%Y`: `langfacts.codes.PROSE`) or a number that the source has. The human's own
text (an edit, a revision) is checked the same way and also for Markdown structure: as many list
items, the same cells per table row, the same heading levels, code fences and link targets as the
source. Warnings go to the reviewer; the reviewer decides.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from langfacts import codes

from .inline_codes import code_problems
from .markdown_structure import outline, prose_only
from .memory import GlossaryEntry, GlossaryKind, occurs

__all__ = [
    "GlossaryHit",
    "QaWarning",
    "glossary_hits",
    "number_key",
    "proposal_checks",
    "proposal_warnings",
    "prose_numbers",
    "structure_warnings",
    "text_warnings",
    "without_codes",
]

WarningCode = Literal[
    "glossary",
    "glossary_keep",
    "glossary_forbidden",
    "missing_url",
    "missing_code",
    "missing_placeholder",
    "missing_number",
    "list_items",
    "table_cells",
    "heading_level",
    "code_fences",
    "links",
    "inline_codes",
]

_URL = re.compile(r"(?:https?|ftp)://[^\s<>()\[\]`]+[^\s<>()\[\]`.,;:!?'\"]")
# Inline code on one line (a fenced block's ``` lines are not inline code).
_CODE = re.compile(r"(?<!`)(`+)(?!`)([^`\n]+?)(?<!`)\1(?!`)")
_PLACEHOLDER = codes.pattern(codes.PROSE)
# A number with its decimal or group separators ("1,000.5", "3,5", "1 000"); not the digits of a
# word ("v2", "utf8").
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+|[\u202f\u00a0 ]\d{3}(?!\d))*")
_MAX_LISTED = 3
_MISSING: tuple[tuple[WarningCode, str, re.Pattern[str]], ...] = (
    ("missing_url", "URL", _URL),
    ("missing_code", "inline code", _CODE),
    ("missing_placeholder", "placeholder", _PLACEHOLDER),
)


@dataclass(frozen=True, slots=True)
class QaWarning:
    """A finding on a unit's text: a stable `code` for clients and a `message` for the reviewer."""

    code: WarningCode
    message: str


@dataclass(frozen=True, slots=True)
class GlossaryHit:
    """A glossary entry whose term the source has, and what the text does with it."""

    term: str
    kind: GlossaryKind
    expected: str
    """The text the entry is about: the preferred translation, the term to keep, the forbidden translation."""
    found: bool
    """Whether the text has `expected` (right for `preferred` and `keep`, wrong for `forbidden`)."""

    @property
    def ok(self) -> bool:
        """True when the text follows the entry."""
        return self.found != (self.kind == "forbidden")


def is_keep_term(entry: GlossaryEntry) -> bool:
    """True for a do-not-translate entry: its kind is `keep`, or its translation is its term (`Clippy → Clippy`)."""
    return entry.kind == "keep" or entry.source.strip().casefold() == entry.target.strip().casefold()


def glossary_hits(source: str, text: str, glossary: Sequence[GlossaryEntry]) -> tuple[GlossaryHit, ...]:
    """Each entry of `glossary` whose term occurs in `source`'s prose (once per term, and once per forbidden
    translation), with whether `text` has what it is about."""
    if not glossary:
        return ()
    prose = prose_only(source)
    hits: list[GlossaryHit] = []
    seen: set[str] = set()
    for entry in glossary:
        key = " ".join(entry.source.split()).casefold()
        if entry.kind == "forbidden":  # beside the term's preferred translation
            key += "\x00" + " ".join(entry.target.split()).casefold()
        if key in seen or not occurs(entry.source, prose):
            continue
        seen.add(key)
        if is_keep_term(entry):
            hits.append(GlossaryHit(entry.source, "keep", entry.source, _kept(entry.source, text)))
        else:
            hits.append(GlossaryHit(entry.source, entry.kind, entry.target, occurs(entry.target, text)))
    return tuple(hits)


def _kept(term: str, text: str) -> bool:
    """True when `text` keeps `term` as it is, an inflection's ending allowed (`Clippys`, `Clippy's`)."""
    words = r"\s+".join(re.escape(word) for word in term.split())
    return re.search(r"(?<!\w)" + words, text, re.I) is not None


def proposal_warnings(source: str, proposal: str, *, glossary: Sequence[GlossaryEntry] = ()) -> tuple[str, ...]:
    """The checks `proposal` fails against `source`, in words for the reviewer (empty when none)."""
    return tuple(w.message for w in proposal_checks(source, proposal, glossary=glossary))


def proposal_checks(source: str, proposal: str, *, glossary: Sequence[GlossaryEntry] = ()) -> tuple[QaWarning, ...]:
    """The glossary and format checks `proposal` fails against `source` (empty when none)."""
    warnings = [_glossary_warning(hit) for hit in glossary_hits(source, proposal, glossary) if not hit.ok]
    source_rest, proposal_rest = source, proposal
    for code, label, pattern in _MISSING:
        missing = _missing(_find(pattern, source_rest), _find(pattern, proposal_rest))
        if missing:
            warnings.append(QaWarning(code, f"Missing {label}: {_listed(missing)}."))
        source_rest, proposal_rest = pattern.sub(" ", source_rest), pattern.sub(" ", proposal_rest)
    numbers = _missing(_find(_NUMBER, source_rest), _find(_NUMBER, proposal_rest), key=_digits)
    if numbers:
        warnings.append(QaWarning("missing_number", f"Missing number: {_listed(numbers)}."))
    warnings += [QaWarning("inline_codes", f"Inline code: {problem}") for problem in code_problems(source, proposal)]
    return tuple(warnings)


def without_codes(text: str) -> str:
    """`text` with its URLs, inline code and placeholders (`%1$s`, `{name}`, an XLIFF code's `{1}`) made
    spaces: what is left is prose, whose numbers, brackets and quotes a translation answers for."""
    for _, _, pattern in _MISSING:
        text = pattern.sub(" ", text)
    return text


def prose_numbers(text: str) -> list[str]:
    """The numbers of `text` outside URLs, inline code and placeholders (`%1$s` holds no number), in order."""
    return _find(_NUMBER, without_codes(text))


def number_key(number: str) -> str:
    """A number by its digits, whatever their script: "1,000" and "1 000" are one number, "٣" is "3"."""
    return "".join(str(unicodedata.digit(ch)) for ch in number if ch.isdigit())


def _glossary_warning(hit: GlossaryHit) -> QaWarning:
    if hit.kind == "keep":
        return QaWarning("glossary_keep", f"Glossary: keep «{hit.term}» as it is.")
    if hit.kind == "forbidden":
        return QaWarning("glossary_forbidden", f"Glossary: «{hit.expected}» must not be used for «{hit.term}».")
    return QaWarning("glossary", f"Glossary: «{hit.term}» should be translated as «{hit.expected}».")


def text_warnings(source: str, final: str, glossary: Sequence[GlossaryEntry] = ()) -> tuple[QaWarning, ...]:
    """The checks the human's text (an edit or a revision) fails: the proposal checks, then structure."""
    checks = proposal_checks(source, final, glossary=glossary)
    reported = _missing(_find(_URL, source), _find(_URL, final))
    return checks + structure_warnings(source, final, reported_urls=reported)


def structure_warnings(source: str, final: str, *, reported_urls: Iterable[str] = ()) -> tuple[QaWarning, ...]:
    """Where `final`'s Markdown structure differs from `source`'s (link targets in `reported_urls` left out)."""
    a, b = outline(source), outline(final)
    warnings: list[QaWarning] = []
    if a.list_items != b.list_items:
        warnings.append(QaWarning("list_items", f"List items: {a.list_items} in the source, {b.list_items} here."))
    if a.table_rows != b.table_rows:
        warnings.append(QaWarning("table_cells", _table_message(a.table_rows, b.table_rows)))
    if a.headings != b.headings:
        warnings.append(
            QaWarning("heading_level", f"Headings: {_levels(a.headings)} in the source, {_levels(b.headings)} here.")
        )
    if a.code_fences != b.code_fences:
        warnings.append(QaWarning("code_fences", f"Code blocks: {a.code_fences} in the source, {b.code_fences} here."))
    skip = set(reported_urls)
    missing = [t for t in _missing(a.link_targets, b.link_targets) if t not in skip]
    if missing:
        warnings.append(QaWarning("links", f"Missing link target: {_listed(missing)}."))
    elif len(a.link_targets) != len(b.link_targets) and not skip:
        warnings.append(QaWarning("links", f"Links: {len(a.link_targets)} in the source, {len(b.link_targets)} here."))
    return tuple(warnings)


def _table_message(source: tuple[int, ...], final: tuple[int, ...]) -> str:
    if len(source) != len(final):
        return f"Table rows: {len(source)} in the source, {len(final)} here."
    row = next(n for n, (x, y) in enumerate(zip(source, final, strict=True)) if x != y)
    return f"Table row {row + 1}: {source[row]} cells in the source, {final[row]} here."


def _levels(levels: tuple[int, ...]) -> str:
    return ", ".join(f"level {n}" for n in levels) if levels else "none"


def _find(pattern: re.Pattern[str], text: str) -> list[str]:
    return [m.group() for m in pattern.finditer(text)]


def _digits(number: str) -> str:
    """A number by its digits: "1,000" and "1 000" are the same number; "3.5" and "3,5" too."""
    return re.sub(r"\D", "", number)


def _missing(expected: Iterable[str], found: Iterable[str], *, key: Callable[[str], str] = str) -> list[str]:
    """What `expected` has more often than `found` (compared by `key`), in order of first appearance."""
    have = Counter(key(f) for f in found)
    out: list[str] = []
    for item in expected:
        if have[key(item)] > 0:
            have[key(item)] -= 1
        elif item not in out:
            out.append(item)
    return out


def _listed(items: list[str]) -> str:
    shown = ", ".join(f"«{_short(i)}»" for i in items[:_MAX_LISTED])
    return shown + (f" and {len(items) - _MAX_LISTED} more" if len(items) > _MAX_LISTED else "")


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
