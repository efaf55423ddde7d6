"""Which language a short text is written in, for QA: langdetect (offline, its profiles ship in the
package; the detector the service tells an upload's language with), seeded for answers that repeat.

`identify(text)` answers a primary language subtag (`en`, `de`, `zh`) or None when the text has too
few letters or no language is likely enough. Code, URLs, markup and placeholders are left out first:
they say nothing about the prose around them. The profiles load on the first call in a process
(about half a second), never at import.
"""

from __future__ import annotations

import re
import threading
from typing import Final

SAMPLE_CHARS: Final = 2_000
"""How much of a text is read (a unit is at most a few hundred characters)."""
MIN_LETTERS: Final = 20
"""Fewer letters than this is too little to tell a language by."""
MIN_PROBABILITY: Final = 0.90
"""How sure the detector must be: a finding asks a person to look, so it must rarely be wrong."""

_lock = threading.Lock()
_ready = False
_NOISE: Final = re.compile(
    r"`[^`\n]{0,400}`|https?://\S{1,2000}|<[^<>\n]{0,400}>|\{[^{}\n]{0,200}\}|%\d{0,2}\$?[sdif@]"
)


def _prepare() -> None:
    global _ready
    with _lock:
        if not _ready:
            from langdetect import DetectorFactory

            DetectorFactory.seed = 0
            _ready = True


def best_guess(sample: str) -> tuple[str, float, str] | None:
    """langdetect's answer on `sample` (code and markup already left out): the primary subtag whose
    variants together are likeliest (zh-cn and zh-tw are judged as one language), that probability, and
    the likeliest variant's own tag; None with fewer than MIN_LETTERS letters or when it cannot tell."""
    if sum(ch.isalpha() for ch in sample) < MIN_LETTERS:
        return None
    _prepare()
    from langdetect import detect_langs
    from langdetect.lang_detect_exception import LangDetectException

    try:
        guesses = detect_langs(sample)
    except LangDetectException:
        return None
    totals: dict[str, float] = {}
    for guess in guesses:
        primary = guess.lang.split("-")[0]
        totals[primary] = totals.get(primary, 0.0) + guess.prob
    primary, probability = max(totals.items(), key=lambda item: item[1])
    best = max((g for g in guesses if g.lang.split("-")[0] == primary), key=lambda guess: guess.prob)
    return primary, probability, str(best.lang)


def identify(text: str) -> str | None:
    """The primary subtag of the language `text` is written in, or None when it cannot be told."""
    found = best_guess(_NOISE.sub(" ", text[:SAMPLE_CHARS]))
    return found[0] if found is not None and found[1] >= MIN_PROBABILITY else None
