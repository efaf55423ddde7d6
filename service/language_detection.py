"""The language a document is written in, detected from its text (langdetect, offline).

`detect_language(text)` answers a BCP 47 tag (`en`, `de`, `zh-Hans`, `zh-Hant`) or None when the text is
too short or too mixed to tell. It is used once, when a session's first file is uploaded and the session
has no source language yet; the user can correct it (PATCH /api/sessions/{id}).

langdetect (Apache 2.0) ships its language profiles in the package, so nothing is fetched at run time;
its detector is randomised, so the factory is seeded once for answers that repeat. Loading the profiles
takes about half a second, paid on the first detection in a process, never at import.
"""

from __future__ import annotations

import re
import threading

SAMPLE_CHARS = 4_000
"""How much of the text is read: enough for a confident answer, bounded for long files."""
MIN_LETTERS = 20
"""Fewer letters than this (after code and markup are removed) is too little to tell."""
MIN_PROBABILITY = 0.80

_lock = threading.Lock()
_ready = False
# Code, URLs, markup and placeholders say nothing about the language of the prose around them.
_NOISE = re.compile(r"```.*?```|`[^`\n]*`|https?://\S+|<[^>\n]+>|\{[^}\n]*\}|%\d*\$?[sd]", re.DOTALL)
_TAGS = {"zh-cn": "zh-Hans", "zh-tw": "zh-Hant"}


def _prepare() -> None:
    global _ready
    with _lock:
        if not _ready:
            from langdetect import DetectorFactory

            DetectorFactory.seed = 0
            _ready = True


def detect_language(text: str) -> str | None:
    """The BCP 47 tag of the language `text` is mostly written in, or None when it cannot be told."""
    sample = _NOISE.sub(" ", text[:SAMPLE_CHARS])
    if sum(ch.isalpha() for ch in sample) < MIN_LETTERS:
        return None
    _prepare()
    from langdetect import detect_langs
    from langdetect.lang_detect_exception import LangDetectException

    try:
        guesses = detect_langs(sample)
    except LangDetectException:
        return None
    # Variants of one language (zh-cn and zh-tw) split its probability: the language is judged whole.
    totals: dict[str, float] = {}
    for guess in guesses:
        primary = guess.lang.split("-")[0]
        totals[primary] = totals.get(primary, 0.0) + guess.prob
    primary, probability = max(totals.items(), key=lambda item: item[1])
    if probability < MIN_PROBABILITY:
        return None
    best = max((g for g in guesses if g.lang.split("-")[0] == primary), key=lambda guess: guess.prob)
    tag = str(best.lang)
    return _TAGS.get(tag, tag)
