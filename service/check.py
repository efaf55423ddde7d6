"""A check of translations that already exist, for CI: no model, no session, no storage.

Each file's source and target pairs are read (XLIFF 1.2 and 2.0 segments, TMX entries) and every
translatable one is checked as a proposal is: a missing translation, broken inline codes or a
dropped placeholder (`%s`, `{name}`, `{{name}}`) is an **error**, since it breaks the product that
ships the file; a glossary term not translated as its entry says, or a dropped URL, inline code or
number, is a **warning** for a reviewer. With a previous version of the file (`previous`: the text
at a git revision), only the pairs that differ from it are checked (a segment is matched by its
key: its file, unit and segment number; a TMX entry by its source).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agent_core.memory import GlossaryEntry
from agent_core.qa import proposal_checks
from interchange.errors import InterchangeError
from interchange.tmx import parse_tmx
from interchange.xliff_source import parse_xliff

Severity = Literal["error", "warning"]
ERRORS = frozenset({"untranslated", "inline_codes", "missing_placeholder", "unreadable"})
"""The findings that fail a check; the others are warnings."""
XLIFF_SUFFIXES = (".xlf", ".xliff")
TMX_SUFFIXES = (".tmx",)


@dataclass(frozen=True, slots=True, kw_only=True)
class Pair:
    """A source text and its translation (None: none), named by a key stable across versions."""

    key: str
    source: str
    target: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Finding:
    """One problem of one pair (or of the whole file: `key` None)."""

    key: str | None
    severity: Severity
    code: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class FileReport:
    """What the check found in one file."""

    file: str
    checked: int
    """How many pairs were checked (those that changed, with a previous version)."""
    findings: tuple[Finding, ...]
    pairs: tuple[Pair, ...] = ()
    """The pairs checked, for a review by the model (`agent_core.review`)."""
    reviewed: int | None = None
    """How many pairs the model gave a verdict on (`check --review`); None: no review was asked for."""

    @property
    def errors(self) -> int:
        return sum(f.severity == "error" for f in self.findings)

    @property
    def warnings(self) -> int:
        return sum(f.severity == "warning" for f in self.findings)


def readable(name: str) -> bool:
    """Whether `check_file` reads a file of this name."""
    return name.lower().endswith(XLIFF_SUFFIXES + TMX_SUFFIXES)


def pairs_of(name: str, text: str) -> list[Pair]:
    """The translatable pairs of a file; InterchangeError when it cannot be read."""
    if name.lower().endswith(TMX_SUFFIXES):
        return [Pair(key=p.source, source=p.source, target=p.target) for p in parse_tmx(text)]
    if name.lower().endswith(XLIFF_SUFFIXES):
        return [Pair(key=s.key, source=s.source, target=s.target) for s in parse_xliff(text).translatable_segments()]
    raise InterchangeError(f"{name}: not a format the check reads (XLIFF .xlf/.xliff, TMX .tmx).")


def check_file(
    name: str, text: str, *, glossary: Sequence[GlossaryEntry] = (), previous: str | None = None
) -> FileReport:
    """The findings of one file, against `glossary`; only the pairs changed since `previous` if given."""
    try:
        pairs = pairs_of(name, text)
        before = {(p.key, p.source, p.target) for p in pairs_of(name, previous)} if previous is not None else set()
    except InterchangeError as exc:
        return FileReport(
            file=name, checked=0, findings=(Finding(key=None, severity="error", code="unreadable", message=str(exc)),)
        )
    changed = [p for p in pairs if (p.key, p.source, p.target) not in before]
    findings = [finding for pair in changed for finding in check_pair(pair, glossary)]
    return FileReport(file=name, checked=len(changed), findings=tuple(findings), pairs=tuple(changed))


def check_pair(pair: Pair, glossary: Sequence[GlossaryEntry] = ()) -> list[Finding]:
    """What is wrong with one pair's translation (empty when nothing)."""
    if pair.target is None or not pair.target.strip():
        return [Finding(key=pair.key, severity="error", code="untranslated", message="Not translated.")]
    return [
        Finding(key=pair.key, severity="error" if w.code in ERRORS else "warning", code=w.code, message=w.message)
        for w in proposal_checks(pair.source, pair.target, glossary=glossary)
    ]
