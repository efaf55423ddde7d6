"""Locked codes: the placeholders and markup a translation must keep exactly, found in a source text.

Each format names the syntaxes its strings use (`find_codes(text, ("printf", "brace"))`) and stores
what is found as `Entry.codes`. `code_changes(codes, text)` says, in words for the model or the
reviewer, which codes a translation drops, adds or alters (empty when it keeps them all).

Syntaxes: `printf` (`%s`, `%1$s`, `%d`, `%.2f`, `%lld`, `%@`; `%%` is a literal percent, not a code),
`python` (`%(name)s`), `brace` (`{name}`, `{0}`: ICU simple arguments, .NET, Python `str.format`),
`double_brace` (`{{name}}`: i18next, Handlebars), `nesting` (`$t(key)`: i18next), `ruby` (`%{name}`
and `%<name>s`: Rails), `dollar_brace` (`${name}`), `numbered_tags` (`<0>`, `</0>`: react-i18next's
`Trans`), `html` (tags: `<b>`, `</b>`, `<br/>`, `<a href="…">`), `apple_variable` (a `.stringsdict`
or xcstrings substitution: `%#@files@`, `%1$#@count@`, `%1#@count@`), `apple_arg` (`%arg`, the
argument inside an xcstrings substitution's forms; before `printf`, which would read `%a`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

PATTERNS: Final[dict[str, str]] = {
    "double_brace": r"\{\{-?\s*[^{}\s][^{}]{0,80}?\s*\}\}",
    "dollar_brace": r"\$\{[^{}\s]{1,80}\}",
    "nesting": r"\$t\([^()]{1,200}\)",
    "ruby": r"%\{[A-Za-z_][\w.]{0,80}\}|%<[A-Za-z_]\w{0,80}>[-+#0 ]*\d*(?:\.\d+)?[bBcdeEfgGiosxXp]",
    "python": r"%\([A-Za-z_]\w{0,80}\)[-+#0 ]*\d*(?:\.\d+)?[sdifgeExXrc]",
    "apple_variable": r"%(?:\d{1,2}\$?)?#@[A-Za-z_][\w.]{0,80}@",
    "apple_arg": r"%arg\b",
    "printf": r"%(?:\d{1,2}\$)?[-+#0 ']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[sdiufFeEgGxXoOcCpaA@]",
    "brace": r"\{[A-Za-z_0-9][\w.]{0,80}(?:\s*,\s*[a-z]+(?:\s*,\s*[^{}]{0,80})?)?\}",
    "numbered_tags": r"</?\d{1,3}/?>",
    "html": r"</?[A-Za-z][\w:-]{0,40}(?:\s+[^<>]{0,400})?/?>",
}
"""Each syntax's pattern; longer syntaxes come first so `{{x}}` is not read as `{x}`."""
_PERCENT: Final = re.compile(r"%%")


def _pattern(syntaxes: Iterable[str]) -> re.Pattern[str]:
    wanted = set(syntaxes)
    unknown = wanted - PATTERNS.keys()
    if unknown:
        raise ValueError(f"unknown code syntaxes: {sorted(unknown)}")
    return re.compile("|".join(f"(?:{p})" for name, p in PATTERNS.items() if name in wanted))


_CACHE: dict[frozenset[str], re.Pattern[str]] = {}


def find_codes(text: str, syntaxes: Sequence[str]) -> tuple[str, ...]:
    """The codes of `text` in the given syntaxes, in order, with repeats (`%%` is never one)."""
    key = frozenset(syntaxes)
    pattern = _CACHE.get(key)
    if pattern is None:
        pattern = _CACHE[key] = _pattern(key)
    masked = _PERCENT.sub("\0\0", text)
    return tuple(m.group() for m in pattern.finditer(masked))


def code_changes(codes: Sequence[str], text: str) -> tuple[str, ...]:
    """What `text` does to the locked `codes` of its source: each code dropped, added or altered, in
    words (empty when it keeps every code as often as the source has it; order may change)."""
    if not codes:
        return ()
    want = Counter(codes)
    syntaxes = [name for name, p in PATTERNS.items() if any(re.fullmatch(p, c) for c in want)]
    have = Counter(find_codes(text, syntaxes)) if syntaxes else Counter()
    for code in want:  # a code no syntax names (a format's own) is counted literally
        if code not in have:
            count = text.count(code)
            if count:
                have[code] = count
    problems: list[str] = []
    for code, n in want.items():
        if have[code] < n:
            problems.append(f"{code} is missing" + (f" ({have[code]} of {n})" if have[code] else ""))
        elif have[code] > n:
            problems.append(f"{code} appears {have[code]} times; the source has it {n}")
    for code in have:
        if code not in want:
            problems.append(f"{code} is not in the source")
    return tuple(problems)
