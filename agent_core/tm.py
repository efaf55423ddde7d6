"""Translation memory matching, pure: normalised sources, storage keys, exact and fuzzy matches, word diffs.

Every approved, refined or revised unit is kept as a `TmEntry`, found two ways (service.tm):
- by `source_hash(normalize(source), languages)`: an exact match is one key lookup;
- by each of `candidate_keys(source, languages)`: a few hashed tokens of the source (its longest
  words; for text without spaces, character pairs), so a fuzzy lookup ranks the entries that share
  a key with the new text instead of scanning the memory.
`fuzzy_matches` ranks the candidates; `word_diff` shows the reviewer how an old source differs from
the new one. An entry keeps the key of the string it was written from, so an exact match for a unit
of the same key is a context match (`exact_score`: CONTEXT_MATCH, 101, above a plain 100).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, Literal

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

from .segment import SegmentContext

__all__ = [
    "CONTEXT_MATCH",
    "DEFAULT_THRESHOLD",
    "DiffPart",
    "TmEntry",
    "TmMatch",
    "candidate_keys",
    "diff_tokens",
    "exact_score",
    "fuzzy_matches",
    "normalize",
    "source_hash",
    "string_key",
    "word_diff",
]

DEFAULT_THRESHOLD: Final = 75.0
"""The lowest similarity (0–100) a fuzzy match needs."""
CONTEXT_MATCH: Final = 101
"""The score of an exact match whose entry was written from a string of the same key as the unit's."""
DEFAULT_KEYS: Final = 4
MAX_CANDIDATES: Final = 500
"""Fuzzy matching ranks at most this many candidates (storage reads a bounded list anyway)."""

TmOrigin = Literal["approved", "refined", "revised", "imported"]

_WORD: Final = re.compile(r"[^\W\d_]{2,}(?:['’][^\W\d_]+)*")
# Scripts written without spaces: their "words" are pairs of characters.
_CJK: Final = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_UNSPACED: Final = re.compile(f"[{_CJK}]+")
_TOKEN: Final = re.compile(f"\\s+|[{_CJK}]|(?:(?![{_CJK}])\\w)+|[^\\w\\s]")


@dataclass(frozen=True, slots=True, kw_only=True)
class TmEntry:
    """A source the owner approved, edited or revised, with the final translation, for a language pair."""

    source: str
    target: str
    languages: str
    origin: TmOrigin = "approved"
    updated_at: str = ""
    """ISO 8601 with a zone: when the translation was made (data: shown and exported, never compared)."""
    written: int = field(default=0, compare=False)
    """The number of the owner's write that stored it (0 until stored; storage's `tm_changes`): of two
    entries for one source, the later written wins, whatever their `updated_at`."""
    key: str | None = None
    """The key of the resource string it was written from (None: a document's text, or not known): a
    unit of the same source and key is a context match (`CONTEXT_MATCH`)."""

    @property
    def deleted(self) -> bool:
        """True for a tombstone: the write that deleted the source's entry (its target blank, which no
        entry has: a blank target is never stored)."""
        return not self.target.strip()


@dataclass(frozen=True, slots=True)
class DiffPart:
    """A run of the word diff: text both sources share, or text only the old or the new one has."""

    op: Literal["equal", "delete", "insert"]
    text: str


@dataclass(frozen=True, slots=True)
class TmMatch:
    """A memory entry found for a new source: its similarity (100 for an exact match) and the word diff."""

    entry: TmEntry
    score: float
    diff: tuple[DiffPart, ...] = ()
    """From the entry's source to the new one; empty for an exact match."""


@lru_cache(maxsize=8192)
def normalize(source: str) -> str:
    """`source` in NFC with every run of whitespace one space, stripped: what an exact match compares."""
    return " ".join(unicodedata.normalize("NFC", source).split())


def exact_score(entry: TmEntry, key: str | None) -> int:
    """The score of `entry` as an exact match for a unit of the string `key`: CONTEXT_MATCH when both
    have the same key, else 100 (a document's unit has none, so it never has a context match)."""
    return CONTEXT_MATCH if key is not None and entry.key == key else 100


def string_key(contexts: Iterable[SegmentContext | None]) -> str | None:
    """The key of the one resource string that segments of these contexts are of (None: a document's
    text, a document's block, whose key is a place, or several strings): what a context match compares."""
    keys = {None if c is None or c.document else c.key for c in contexts}
    return keys.pop() if len(keys) == 1 else None


def source_hash(normalized: str, languages: str) -> str:
    """A stable key for a normalised source in a language pair (32 hex digits)."""
    return hashlib.sha256(f"{languages}\x1f{normalized}".encode()).hexdigest()[:32]


@lru_cache(maxsize=4096)
def candidate_keys(source: str, languages: str, *, count: int = DEFAULT_KEYS) -> tuple[str, ...]:
    """Keys that a similar source most likely shares with `source`: hashes of its `count` rarest tokens.

    Rarity is estimated without statistics: longer words are rarer (Zipf), equal lengths are
    ordered by hash, so the choice is stable and the same for any two texts that share the tokens.
    Index an entry under each of its keys; look up a new text's keys to find its fuzzy candidates.
    """
    tokens = _tokens(normalize(source).casefold())
    ranked = sorted(tokens, key=lambda t: (-len(t), _digest(t)))
    return tuple(_digest(f"{languages}\x1f{t}")[:16] for t in ranked[:count])


def _tokens(text: str) -> set[str]:
    tokens: set[str] = set()
    for run in _UNSPACED.findall(text):
        tokens.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
    tokens.update(_WORD.findall(_UNSPACED.sub(" ", text)))
    return tokens


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def fuzzy_matches(
    source: str,
    languages: str,
    candidates: Sequence[TmEntry],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    limit: int = 3,
) -> list[TmMatch]:
    """The `limit` candidates most similar to `source` (score ≥ `threshold`), best first, exact ones left out.

    The score is RapidFuzz's normalised Indel similarity of the normalised sources (0–100); among
    equal sources only the newest entry counts.
    """
    wanted = normalize(source)
    newest: dict[str, TmEntry] = {}
    for entry in candidates[:MAX_CANDIDATES]:
        key = normalize(entry.source)
        if (
            entry.languages == languages
            and key != wanted
            and (key not in newest or entry.updated_at > newest[key].updated_at)
        ):
            newest[key] = entry
    choices = list(newest)
    found = process.extract(wanted, choices, scorer=fuzz.ratio, score_cutoff=threshold, limit=limit)
    return [
        TmMatch(newest[choice], round(score, 1), word_diff(newest[choice].source, source)) for choice, score, _ in found
    ]


def diff_tokens(text: str) -> list[str]:
    """`text` as the tokens a diff compares: words, runs of whitespace, punctuation marks, and each
    character of scripts written without spaces (joined, the tokens are the text)."""
    return _TOKEN.findall(text)


def word_diff(old: str, new: str) -> tuple[DiffPart, ...]:
    """How `new` differs from `old`, word by word (`diff_tokens`): the tokens both keep (a longest
    common subsequence: RapidFuzz's Indel opcodes), and between two runs of them what `old` loses,
    then what `new` gains."""
    a, b = diff_tokens(old), diff_tokens(new)
    parts: list[DiffPart] = []
    lost: list[str] = []
    gained: list[str] = []
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            _add(parts, "delete", "".join(lost))
            _add(parts, "insert", "".join(gained))
            lost, gained = [], []
            _add(parts, "equal", "".join(a[op.src_start : op.src_end]))
        else:
            lost += a[op.src_start : op.src_end]
            gained += b[op.dest_start : op.dest_end]
    _add(parts, "delete", "".join(lost))
    _add(parts, "insert", "".join(gained))
    return tuple(parts)


def _add(parts: list[DiffPart], op: Literal["equal", "delete", "insert"], text: str) -> None:
    if not text:
        return
    if parts and parts[-1].op == op:
        parts[-1] = DiffPart(op, parts[-1].text + text)
    else:
        parts.append(DiffPart(op, text))
