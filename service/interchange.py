"""The owner's memory in and out (API.md "Memory interchange"): TMX (translation memory), CSV and TBX (glossary).

Export: TMX of every translation-memory entry (target language from the entry's `*>fr` key, the
source language `und` unless the caller names it); CSV `source,target,languages` and TBX-Basic of
the glossary. A CSV cell that begins like a spreadsheet formula (`=`, `+`, `-`, `@`, tab, CR) is
written with a `'` in front, which the CSV import takes off again (interchange.csv_cells). All of
it is plain synchronous code (the routes run it in a worker thread).

Import: the whole document is read and checked before anything is written, so bad
input (422, saying what to fix) changes nothing. TMX pairs become translation-memory entries of
origin `imported` (newest wins per source and target language; past the owner's cap they are
skipped). Glossary terms are added as the owner's own entries (`user`), for the pair the file names
(a TBX term's target language, a CSV `languages` column) or else the body's `languages` (else any).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from agent_core.errors import InvalidRequestError
from agent_core.languages import ANY, normalize_languages
from agent_core.memory import GlossaryKind, glossary_kind
from agent_core.segment import MAX_KEY_CHARS
from interchange import (
    GlossaryTerm,
    InterchangeError,
    TmPair,
    export_tbx,
    export_tmx,
    parse_glossary_csv,
    parse_tbx,
    parse_tmx,
    write_csv,
)
from langfacts import bcp47
from storage.interface import TmRecord

from .memory import OwnerMemory, kind_of
from .memory_schemas import ImportResult, MemoryImportBody
from .tm import TranslationMemory, record_of

MEMORY_FORMATS = ("tmx", "csv", "tbx")
MAX_TERM = 200
"""The longest glossary term or translation (as `POST /api/memory/glossary` takes)."""
MAX_TM_TEXT = 5_000
"""The longest source or target a translation-memory entry takes; longer pairs are skipped."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MemoryDownload:
    """A memory export to send as an attachment."""

    content: str
    media_type: str
    filename: str


class MemoryInterchange:
    """Imports into and exports of one owner's memory."""

    def __init__(self, tm: TranslationMemory, memory: OwnerMemory) -> None:
        self.tm = tm
        """The process's translation memory: what an import adds, its replicas hold at once."""
        self.memory = memory

    def export(self, owner: str, fmt: str, *, srclang: str | None = None) -> MemoryDownload:
        """The owner's translation memory (`tmx`) or glossary (`csv`, `tbx`)."""
        if fmt not in MEMORY_FORMATS:
            raise InvalidRequestError(f"Unknown memory format {fmt[:40]!r}; use one of {', '.join(MEMORY_FORMATS)}.")
        source = _tag(srclang) if srclang is not None else "und"
        if fmt == "tmx":
            pairs = [
                TmPair(
                    source=e.source,
                    target=e.target,
                    srclang=source,
                    tgtlang=_tm_target(e.languages),
                    changed=_moment(e.updated_at),
                    key=e.key,
                )
                for e in self.tm.entries(owner)
            ]
            return MemoryDownload(
                content=export_tmx(pairs, srclang=source).text,
                media_type="application/x-tmx+xml; charset=utf-8",
                filename="translation-memory.tmx",
            )
        entries = [e for e in self.memory.entries(owner) if e.kind == "glossary"]
        if fmt == "csv":
            rows = [
                ["source", "target", "languages", "kind"],
                *([e.source, e.text, e.languages, kind_of(e)] for e in entries),
            ]
            return MemoryDownload(
                content=write_csv(rows), media_type="text/csv; charset=utf-8; header=present", filename="glossary.csv"
            )
        terms = [
            GlossaryTerm(source=e.source, target=e.text, tgtlang=_glossary_target(e.languages), kind=kind_of(e))
            for e in entries
        ]
        return MemoryDownload(
            content=export_tbx(terms, srclang=source, tgtlang="und"),
            media_type="application/x-tbx+xml; charset=utf-8",
            filename="glossary.tbx",
        )

    def import_(self, owner: str, body: MemoryImportBody) -> ImportResult:
        """Import a TMX memory or a CSV/TBX glossary; nothing is written when the document is bad."""
        try:
            default = normalize_languages(body.languages) if body.languages else ANY
        except ValueError as exc:
            raise InvalidRequestError(f"languages: {exc}") from exc
        try:
            if body.format == "tmx":
                return self._import_tmx(owner, parse_tmx(body.content))
            terms = parse_tbx(body.content) if body.format == "tbx" else parse_glossary_csv(body.content)
        except InterchangeError as exc:
            raise InvalidRequestError(f"The {body.format.upper()} document cannot be read: {exc}") from exc
        return self._import_glossary(owner, terms, default)

    def _import_tmx(self, owner: str, pairs: Sequence[TmPair]) -> ImportResult:
        records: dict[str, TmRecord] = {}
        skipped = 0
        for pair in pairs:
            source, target = pair.source.strip(), pair.target.strip()
            if not source or not target or max(len(pair.source), len(pair.target)) > MAX_TM_TEXT:
                skipped += 1
                continue
            languages = "unknown" if pair.tgtlang.casefold() in ("und", "*all*") else pair.tgtlang
            moment = pair.changed or pair.created
            stamp = moment.isoformat() if moment else ""
            key = pair.key[:MAX_KEY_CHARS] if pair.key else None  # as a segment's key is kept
            record = record_of(pair.source, pair.target, languages, "imported", stamp, key=key)
            skipped += record.source_hash in records  # the same source twice: the later one wins
            records[record.source_hash] = record
        # One put (the backend writes it in rounds): it reads what the memory holds once, not per batch.
        added, updated, unplaced = self.tm.record(owner, list(records.values()))
        return ImportResult(added=added, updated=updated, skipped=skipped + unplaced)

    def _import_glossary(self, owner: str, terms: Sequence[GlossaryTerm], default: str) -> ImportResult:
        wanted: dict[tuple[str, str], tuple[str, str, str, GlossaryKind]] = {}
        for number, term in enumerate(terms, start=1):
            if not term.source.strip() or not term.target.strip():
                continue  # a blank term or translation is never stored: skipped
            if max(len(term.source), len(term.target)) > MAX_TERM:
                raise InvalidRequestError(
                    f"Term {number} ({term.source[:40]!r}) is longer than {MAX_TERM} characters; shorten it."
                )
            languages = _term_languages(term, default)
            kind = glossary_kind(term.source, term.target, term.kind)  # the parsers give only known kinds
            key = " ".join(term.source.split()).casefold(), languages
            if kind == "forbidden":  # beside the term's preferred translation, one entry a forbidden one
                key = key[0], f"{languages}\x00{' '.join(term.target.split()).casefold()}"
            wanted[key] = (term.source, term.target, languages, kind)
        added, updated, unchanged = self.memory.import_glossary(owner, list(wanted.values()))
        return ImportResult(added=added, updated=updated, skipped=len(terms) - len(wanted) + unchanged)


def _term_languages(term: GlossaryTerm, default: str) -> str:
    """The pair an imported term is stored for: the file's (a tag or a stored pair), else `default`."""
    given = (term.tgtlang or "").strip()
    if not given or given.casefold() in ("und", "*all*"):
        return default
    try:
        return normalize_languages(given)
    except ValueError as exc:
        raise InvalidRequestError(f"Term {term.source[:40]!r} names the languages {given[:40]!r}: {exc}") from exc


def _tag(value: str) -> str:
    tag = bcp47(value)
    if tag is None:
        raise InvalidRequestError(f"srclang {value[:40]!r} is not a language this server knows; use a BCP 47 tag.")
    return tag


def _tm_target(key: str) -> str:
    """The TMX language of a memory key (`*>fr` → `fr`; `*>unknown` → `und`)."""
    target = key.rpartition(">")[2]
    return target if target and target != "unknown" and bcp47(target) else "und"


def _glossary_target(languages: str) -> str | None:
    """A glossary pair's target as a BCP 47 tag (`auto>french` → `fr`), None for any or unknown."""
    target = languages.rpartition(">")[2]
    return bcp47(target) if target not in ("*", "unknown") else None


def _moment(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value) if value else None
    except ValueError:
        return None
