"""A check of translations that already exist, for CI: no model, no session, no storage.

Each file's source and target pairs are read (XLIFF 1.2 and 2.0 segments, TMX entries, and the
entries of every format the project reads that holds translations: PO, xcstrings, … through
`interchange.formats`, `Entry.target`) and every translatable one is checked as a proposal is: a
missing translation, broken inline codes, a dropped placeholder (`%s`, `{name}`, `{{name}}`), a
locked code of a resource string dropped, added or altered (`locked_code`) or a plural entry's
forms not the file's target language's categories (`plural_forms`) is an **error**, since it breaks
the product that ships the file; a glossary term not translated as its entry says, or a dropped URL, inline code or
number, is a **warning** for a reviewer. With a previous version of the file (`previous`: the text
at a git revision), only the pairs that differ from it are checked (a segment is matched by its
key: its file, unit and segment number; a TMX entry by its source).

A monolingual file (an Android `strings.xml`, an i18next `translation.json`, a Rails `fr.yml`, an
Apple `.strings`: what the project exports) holds no source: with `source` (its source file's name
and bytes, in the same format) its strings are paired by key with the source's. A key of the source
the target lacks is untranslated (an error); a key only the target has is a warning. Files are
decoded as uploads are: each format reads its own encoding (a UTF-16 `.strings`, a Latin-1 PO), XML
by its byte-order mark or declaration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from agent_core.memory import GlossaryEntry
from agent_core.plural import ORDER, forms_problems, forms_text, parse_forms
from agent_core.qa import proposal_checks
from agent_core.qa_checks import QaHints, cue_seconds, profile_checks, stated_limit
from agent_core.qa_profiles import QaProfile, profile_for
from agent_core.segment import SegmentContext
from agent_core.tools.entries import edit_warnings, target_categories
from interchange.errors import InterchangeError
from interchange.formats import Entry, FileFormat, FormatError, format_for
from interchange.formats._xmlscan import decode as decode_xml
from interchange.formats.base import Resource
from interchange.tmx import parse_tmx
from interchange.xliff_source import parse_xliff
from langfacts.identify import identify

Severity = Literal["error", "warning"]
ERRORS = frozenset({"untranslated", "inline_codes", "missing_placeholder", "unreadable", "locked_code", "plural_forms"})
"""The findings that fail a check; the others (`not_in_source` among them) are warnings."""
XLIFF_SUFFIXES = (".xlf", ".xliff")
TMX_SUFFIXES = (".tmx",)
BILINGUAL = frozenset({"po", "xcstrings"})
"""The resource formats that hold each string's source beside its translation (as XLIFF and TMX do)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Pair:
    """A source text and its translation (None: none), named by a key stable across versions."""

    key: str
    source: str
    target: str | None
    codes: tuple[str, ...] | None = None
    """A resource string's locked codes (None: XLIFF and TMX, checked by the placeholder rules)."""
    plural: tuple[tuple[str, str], ...] = ()
    """A plural entry's source forms; `target` is then its forms' JSON text."""
    categories: tuple[str, ...] = ()
    """The target language's plural categories, when the file names its language."""
    note: str | None = None
    """What the file says about the string (its source's, for a monolingual file): a stated length limit
    (`[CHAR LIMIT=n]`), a subtitle cue's timing (which the reading speed is measured over)."""


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
    return name.lower().endswith(XLIFF_SUFFIXES + TMX_SUFFIXES) or _format(name, b"") is not None


def holds_source(name: str, data: bytes) -> bool:
    """Whether the file holds its own source texts (XLIFF, TMX, PO, xcstrings): no source file pairs with it."""
    if name.lower().endswith(XLIFF_SUFFIXES + TMX_SUFFIXES):
        return True
    fmt = _format(name, data)
    return fmt is not None and fmt.name in BILINGUAL


def _format(name: str, data: bytes) -> FileFormat | None:
    """The resource format that reads `name` (not Markdown, XLIFF: read apart), or None."""
    found = format_for(name, data)
    return None if found is None or found.name == "xliff" else found


def pairs_of(name: str, content: str | bytes) -> list[Pair]:
    """The translatable pairs of a file; InterchangeError when it cannot be read."""
    return _read_pairs(name, content.encode("utf-8") if isinstance(content, str) else content)[0]


Languages = tuple[str | None, str | None]
"""A file's source and target languages, where it declares them."""


def _read_pairs(name: str, data: bytes) -> tuple[list[Pair], Languages]:
    """The translatable pairs of a file and the languages it declares (an XLIFF's `srcLang` and
    `trgLang`, a PO header's, …), read once; InterchangeError when it cannot be read."""
    if name.lower().endswith(TMX_SUFFIXES + XLIFF_SUFFIXES):
        try:
            text, _, _ = decode_xml(data)
        except FormatError as exc:
            raise InterchangeError(f"{name}: {exc}") from exc
        if name.lower().endswith(TMX_SUFFIXES):
            return [Pair(key=p.source, source=p.source, target=p.target) for p in parse_tmx(text)], (None, None)
        document = parse_xliff(text)
        segments = document.translatable_segments()
        pairs = [Pair(key=s.key, source=s.source, target=s.target, note=s.note_text()) for s in segments]
        return pairs, (document.source_language, document.target_language)
    fmt, resource = _resource(name, data)
    categories = _categories(fmt.name, resource.target_language, data) if resource.target_language else ()
    pairs = [_entry_pair(e, categories) for e in resource.entries]
    return pairs, (resource.source_language, resource.target_language)


def paired(name: str, content: bytes, source_name: str, source: bytes, *, language: str | None = None) -> list[Pair]:
    """A monolingual file's strings paired by key with those of its source file (same format), in the
    source's order; a key the target lacks has no target, a key only the target has is left out
    (`keys_not_in_source`). `language`: the target's, when the file does not say it (a Rails root does)."""
    fmt, target = _resource(name, content)
    source_format, original = _resource(source_name, source)
    if source_format.name != fmt.name:
        raise InterchangeError(f"{name} is read as {fmt.name} but its source {source_name} as {source_format.name}.")
    language = language or target.target_language or target.source_language
    categories = _categories(fmt.name, language, content) if language else ()
    found = {entry.key: entry for entry in target.entries}
    pairs = []
    for entry in original.entries:
        translated = found.get(entry.key)
        text = None if translated is None else _written(translated)
        forms = tuple((c, entry.plural[c]) for c in ORDER if entry.plural and c in entry.plural)
        pair = Pair(key=entry.key, source=entry.source, target=text, codes=entry.codes, plural=forms, note=entry.note)
        pairs.append(replace(pair, categories=categories))
    return pairs


def keys_not_in_source(content: bytes, name: str, source: bytes, source_name: str) -> list[str]:
    """The keys of a monolingual file its source file does not have (obsolete strings, or a typo)."""
    known = {entry.key for entry in _resource(source_name, source)[1].entries}
    return [entry.key for entry in _resource(name, content)[1].entries if entry.key not in known]


def _written(entry: Entry) -> str:
    """What a file holds for an entry as a target: its translation if it has one (a PO `msgstr`), else its
    own text (a monolingual file), a plural entry's as its forms' JSON text."""
    if entry.target is not None:
        return entry.target if isinstance(entry.target, str) else forms_text(entry.target)
    return forms_text(entry.plural) if entry.plural else entry.source


def _resource(name: str, data: bytes) -> tuple[FileFormat, Resource]:
    """The resource format of `name` and what it reads of `data`; InterchangeError when it cannot."""
    fmt = _format(name, data)
    if fmt is None:
        raise InterchangeError(f"{name}: not a format the check reads (XLIFF, TMX, PO, JSON, Android, Apple, …).")
    try:
        return fmt, fmt.read(data)
    except FormatError as exc:
        raise InterchangeError(f"{name}: {exc}") from exc


def _categories(format_name: str, language: str, data: bytes) -> tuple[str, ...]:
    """The plural forms a file of `language` holds: for PO those of its own `Plural-Forms` header, else
    gettext's for the language (Polish one, few, many: its integer `n` never takes CLDR's `other`);
    for the other formats CLDR's categories."""
    if format_name == "po":
        from interchange.formats.po import header_categories
        from langfacts.plurals import gettext_forms

        return header_categories(data, language) or gettext_forms(language).categories
    return target_categories(language)


def _entry_pair(entry: Entry, categories: tuple[str, ...]) -> Pair:
    target = entry.target
    forms = tuple((c, entry.plural[c]) for c in ORDER if entry.plural and c in entry.plural)
    text = forms_text(target) if target is not None and not isinstance(target, str) else target
    return Pair(
        key=entry.key,
        source=entry.source,
        target=text,
        codes=entry.codes,
        plural=forms,
        categories=categories,
        note=entry.note,
    )


def check_file(
    name: str,
    text: str | bytes,
    *,
    glossary: Sequence[GlossaryEntry] = (),
    previous: str | bytes | None = None,
    source: tuple[str, bytes] | None = None,
    language: str | None = None,
    profile: QaProfile | None = None,
    source_language: str | None = None,
) -> FileReport:
    """The findings of one file, against `glossary`; only the pairs changed since `previous` if given.

    With `source` (its source file's name and bytes) the file is monolingual and paired with it by key
    (`language`: the target's, when known from its path). Each translated pair also gets the checks of
    the QA profile (`profile`, else the file kind's built-in one: `agent_core.qa_profiles`), at their
    levels; `source_language` is the source's when the file does not say it. A file that cannot be
    read, whatever the reason, is one `unreadable` error of its report."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    old = previous.encode("utf-8") if isinstance(previous, str) else previous
    declared: Languages = (None, None)
    try:
        if source is None:
            pairs, declared = _read_pairs(name, data)
            before = pairs_of(name, old) if old is not None else []
            extra: list[str] = []
        else:
            pairs = paired(name, data, *source, language=language)
            before = paired(name, old, *source, language=language) if old is not None else []
            extra = keys_not_in_source(data, name, source[1], source[0])
    except (InterchangeError, ValueError, LookupError, RecursionError) as exc:
        return unreadable(name, str(exc) if isinstance(exc, InterchangeError) else f"{name}: {exc}")
    seen = {(p.key, p.source, p.target) for p in before}
    changed = [p for p in pairs if (p.key, p.source, p.target) not in seen]
    languages = (declared[0] or source_language, language or declared[1])
    chosen = profile_for(name, profile)
    findings = [finding for pair in changed for finding in check_pair(pair, glossary, chosen, languages)]
    findings += [
        Finding(key=key, severity="warning", code="not_in_source", message="Not in the source file (an obsolete key?).")
        for key in extra
    ]
    return FileReport(file=name, checked=len(changed), findings=tuple(findings), pairs=tuple(changed))


def unreadable(name: str, message: str) -> FileReport:
    """The report of a file that could not be read: one error, nothing checked."""
    return FileReport(
        file=name, checked=0, findings=(Finding(key=None, severity="error", code="unreadable", message=message),)
    )


def check_pair(
    pair: Pair,
    glossary: Sequence[GlossaryEntry] = (),
    profile: QaProfile | None = None,
    languages: tuple[str | None, str | None] = (None, None),
) -> list[Finding]:
    """What is wrong with one pair's translation (empty when nothing): the format's checks, then those of
    `profile` (none without one; a plural entry's forms are checked by their own rules) at their levels;
    `languages`: the source's and the target's, when known."""
    if pair.target is None or not pair.target.strip():
        return [Finding(key=pair.key, severity="error", code="untranslated", message="Not translated.")]
    if pair.codes is not None:
        found = _entry_findings(pair, glossary)
    else:
        found = [
            Finding(key=pair.key, severity="error" if w.code in ERRORS else "warning", code=w.code, message=w.message)
            for w in proposal_checks(pair.source, pair.target, glossary=glossary)
        ]
    if profile is None or pair.plural:
        return found
    hints = QaHints(
        key=pair.key,
        max_length=stated_limit(pair.note),
        seconds=cue_seconds(pair.note),
        source_language=languages[0],
        target_language=languages[1],
        identify=identify,
    )
    return found + [
        Finding(key=pair.key, severity=f.level, code=f.code, message=f.message)
        for f in profile_checks(pair.source, pair.target, profile, hints)
    ]


def _entry_findings(pair: Pair, glossary: Sequence[GlossaryEntry]) -> list[Finding]:
    """A resource string's findings: its locked codes and plural forms (errors), the text checks but
    placeholders (the locked codes cover them) for a plain string."""
    assert pair.target is not None and pair.codes is not None

    def error(code: str, message: str) -> Finding:
        return Finding(key=pair.key, severity="error", code=code, message=message)

    if pair.plural:
        forms = parse_forms(pair.target)
        if forms is None:
            return [error("plural_forms", "The plural entry's translation is not a set of forms.")]
        other = dict(pair.plural).get("other", pair.source)
        wanted = pair.categories or tuple(forms)
        problems = forms_problems(forms, wanted, codes=pair.codes, source_other=other)
        return [error("plural_forms", f"Plural forms: {p}.") for p in problems]
    context = SegmentContext(key=pair.key, codes=pair.codes)
    found = [error(code, message) for code, message in edit_warnings([context], pair.source, pair.target, None)]
    found += [
        Finding(key=pair.key, severity="error" if w.code in ERRORS else "warning", code=w.code, message=w.message)
        for w in proposal_checks(pair.source, pair.target, glossary=glossary)
        if w.code != "missing_placeholder"
    ]
    return found
