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

from langfacts.identify import best_guess

SAMPLE_CHARS = 4_000
"""How much of the text is read: enough for a confident answer, bounded for long files."""
MIN_PROBABILITY = 0.80

# Code, URLs, markup and placeholders say nothing about the language of the prose around them.
_NOISE = re.compile(r"```.*?```|`[^`\n]*`|https?://\S+|<[^>\n]+>|\{[^}\n]*\}|%\d*\$?[sd]", re.DOTALL)
_TAGS = {"zh-cn": "zh-Hans", "zh-tw": "zh-Hant"}


def detect_language(text: str) -> str | None:
    """The BCP 47 tag of the language `text` is mostly written in, or None when it cannot be told."""
    found = best_guess(_NOISE.sub(" ", text[:SAMPLE_CHARS]))
    if found is None or found[1] < MIN_PROBABILITY:
        return None
    return _TAGS.get(found[2], found[2])
