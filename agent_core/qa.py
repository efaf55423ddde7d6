"""Quality checks on a proposed unit: pure functions of the source, the proposal and the glossary.

A proposal gets a warning when it contradicts a glossary entry (the source has the entry's term,
the proposal lacks the entry's translation), or drops a URL, inline code, a placeholder (`{x}`,
`{{x}}`, `${x}`, `%s`) or a number that the source has. Warnings go to the reviewer with the
copilot request; the reviewer still decides.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from .memory import GlossaryEntry, occurs

_URL = re.compile(r"(?:https?|ftp)://[^\s<>()\[\]`]+[^\s<>()\[\]`.,;:!?'\"]")
# Inline code on one line (a fenced block's ``` lines are not inline code).
_CODE = re.compile(r"(?<!`)(`+)(?!`)([^`\n]+?)(?<!`)\1(?!`)")
_PLACEHOLDER = re.compile(
    r"\{\{[^{}\n]{1,60}\}\}|\$\{[^{}\s]{1,60}\}|\{[^{}\s]{0,60}\}|%(?:\(\w+\))?[-+#0]*\d*(?:\.\d+)?[sdifgeExXocr]"
)
# A number with its decimal or group separators ("1,000.5", "3,5", "1 000"); not the digits of a
# word ("v2", "utf8").
_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+|[\u202f\u00a0 ]\d{3}(?!\d))*")
_MAX_LISTED = 3


def proposal_warnings(source: str, proposal: str, *, glossary: Sequence[GlossaryEntry] = ()) -> tuple[str, ...]:
    """The checks `proposal` fails against `source`, in words for the reviewer (empty when none)."""
    warnings: list[str] = []
    for entry in glossary:
        if occurs(entry.source, source) and not occurs(entry.target, proposal):
            warnings.append(f"Glossary: «{entry.source}» should be translated as «{entry.target}».")
    source_rest, proposal_rest = source, proposal
    for label, pattern in (("URL", _URL), ("inline code", _CODE), ("placeholder", _PLACEHOLDER)):
        missing = _missing(_find(pattern, source_rest), _find(pattern, proposal_rest))
        if missing:
            warnings.append(f"Missing {label}: {_listed(missing)}.")
        source_rest, proposal_rest = pattern.sub(" ", source_rest), pattern.sub(" ", proposal_rest)
    numbers = _missing(_find(_NUMBER, source_rest), _find(_NUMBER, proposal_rest), key=_digits)
    if numbers:
        warnings.append(f"Missing number: {_listed(numbers)}.")
    return tuple(warnings)


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
