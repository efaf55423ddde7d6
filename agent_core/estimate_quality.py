"""A proposal's quality estimate, 0–100: a pure function of what the project can know about it.

Not the cost estimate (`agent_core.estimate`). The score starts at 100 and each finding takes its
share off, so what lowered it can be said in a few words (`reasons`, the largest first):

- a QA warning other than the glossary's (a number, placeholder, inline code, URL or Markdown
  structure the text drops): 15 each;
- the glossary: a preferred translation missing or a term to keep changed, 15 each; a forbidden
  translation used, 40 each;
- the translation memory: a proposal the memory made from an identical source the owner approved
  (`origin` memory, `match` 100 or 101) loses nothing, but a resource string's 100 (the entry was
  written from a string of another key, or of none: the same words may mean something else there)
  loses 5, so a routing threshold of 100 approves only the context matches (101) of strings; any other
  proposal (a model's) loses 10, as nobody has confirmed that text yet;
- the length: the target's length over the source's, against the language pair's usual ratio
  (`length_norm`); outside half to twice the norm (a wide tolerance: the ratio varies a lot from one
  sentence to the next), 20. Sources under 20 characters are not judged by length;
- the model's own rating (`rating`, 0–100, which Translate reads but no longer asks for), when it
  gave one: half of what it is below 100.

The result is clamped to 0–100. Weights are deliberate round numbers, not fitted: the estimate sorts
units by risk and gates auto-approval (`autoApprove`), it does not claim a probability.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .qa import GlossaryHit

QA_PENALTY = 15
GLOSSARY_PENALTY = 15
FORBIDDEN_PENALTY = 40
UNCONFIRMED_PENALTY = 10
OTHER_KEY_PENALTY = 5
"""A resource string's exact match that is not a context match: below a clean 100, above a clean model's 90."""
LENGTH_PENALTY = 20
LENGTH_TOLERANCE = 2.0
"""A target from 1/2 to 2 times the usual length for its source is not judged."""
MIN_LENGTH_SOURCE = 20
_GLOSSARY_CODES = frozenset({"glossary", "glossary_keep", "glossary_forbidden"})

# Typical length of a translation into each language, relative to an English source (characters).
_EXPANSION: dict[str, float] = {
    "en": 1.0,
    "fr": 1.15,
    "es": 1.15,
    "it": 1.1,
    "pt": 1.1,
    "de": 1.15,
    "nl": 1.1,
    "ru": 1.05,
    "pl": 1.05,
    "uk": 1.05,
    "el": 1.1,
    "ja": 0.5,
    "zh": 0.35,
    "ko": 0.55,
    "ar": 0.9,
    "he": 0.85,
    "fa": 0.95,
    "hi": 1.05,
    "vi": 1.1,
    "th": 0.95,
}
_CJK_SOURCE = 0.4
"""The expansion a source mostly in Chinese, Japanese or Korean characters is given when its language is not known."""


@dataclass(frozen=True, slots=True)
class QualityEstimate:
    """The score (0–100) and what lowered it, the largest first."""

    score: int
    reasons: tuple[str, ...]


def estimate_quality(
    source: str,
    target: str,
    *,
    warnings: Sequence[str] = (),
    glossary: Sequence[GlossaryHit] = (),
    origin: str = "model",
    match: int | None = None,
    key: str | None = None,
    rating: int | None = None,
    languages: str = "auto>unknown",
) -> QualityEstimate:
    """The estimate of `target` as the translation of `source`, from its QA warning codes, its glossary
    hits, where it came from (`origin`, `match`), the key of its string (`key`; None: a document's
    text), the model's `rating` and the pair `languages`."""
    lowered: list[tuple[int, str]] = []
    for code in warnings:
        if code not in _GLOSSARY_CODES:
            lowered.append((QA_PENALTY, f"QA: {code.replace('_', ' ')}"))
    for hit in glossary:
        if hit.kind == "forbidden" and hit.found:
            lowered.append((FORBIDDEN_PENALTY, f"forbidden «{_short(hit.expected)}» used"))
        elif hit.kind == "keep" and not hit.found:
            lowered.append((GLOSSARY_PENALTY, f"«{_short(hit.term)}» not kept"))
        elif hit.kind == "preferred" and not hit.found:
            lowered.append((GLOSSARY_PENALTY, f"«{_short(hit.expected)}» missing"))
    from_memory = origin == "memory" and match in (100, 101)
    if from_memory and match == 100 and key is not None:
        lowered.append((OTHER_KEY_PENALTY, "100% match from another key"))
    if not from_memory:
        lowered.append((UNCONFIRMED_PENALTY, "no translation-memory match"))
        if (length := _length_finding(source, target, languages)) is not None:
            lowered.append((LENGTH_PENALTY, length))
        if rating is not None and rating < 100:
            lowered.append(((100 - max(rating, 0) + 1) // 2, f"model's own rating {max(rating, 0)}"))
    lowered.sort(key=lambda item: -item[0])
    score = max(0, min(100, 100 - sum(p for p, _ in lowered)))
    return QualityEstimate(score=score, reasons=tuple(reason for _, reason in lowered))


def length_norm(source: str, languages: str) -> float:
    """The usual ratio of a translation's length to its source's for the pair `languages` (`auto>french`):
    the target's expansion over the source's (a source language named, else guessed from its script)."""
    source_language, _, target_language = languages.partition(">")
    target = _expansion(target_language) or 1.0
    named = _expansion(source_language)
    return target / (named or (_CJK_SOURCE if _mostly_cjk(source) else 1.0))


def _length_finding(source: str, target: str, languages: str) -> str | None:
    """What is wrong with the target's length, or None (within the tolerance, or a source too short)."""
    a, b = len(source.strip()), len(target.strip())
    if a < MIN_LENGTH_SOURCE:
        return None
    norm = length_norm(source, languages)
    ratio = b / a
    if 1 / LENGTH_TOLERANCE <= ratio / norm <= LENGTH_TOLERANCE:
        return None
    return f"length {ratio:.1f}× the source (usual {norm:.1f}×)"


def _expansion(language: str) -> float | None:
    if language in ("", "auto", "*", "unknown"):
        return None
    from langfacts import primary_subtag  # on first use: the package loads lxml

    subtag = primary_subtag(language)
    return _EXPANSION.get(subtag) if subtag else None


def _mostly_cjk(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    cjk = sum(unicodedata.name(ch, "").startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL")) for ch in letters)
    return bool(letters) and cjk * 2 > len(letters)


def _short(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
