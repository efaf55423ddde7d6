"""Locked codes: the placeholders, directives and markup a translation must keep exactly.

`PATTERNS` is the one table of what a locked code is. Each file format names the syntaxes its
strings use (`find_codes(text, ("printf", "brace"))`) and stores what is found as the entry's codes;
QA and the offline pseudo model find the codes of free text (a Markdown document) with `PROSE`, the
syntaxes that can be told from prose. `code_changes(codes, text)` says, in words for the model or
the reviewer, which codes a translation drops, adds or alters (empty when it keeps them all).
`inline` is the numbered placeholder (`{1}`, `{/1}`) an XLIFF source's inline codes become (`TOKEN`
reads its parts).

Syntaxes: `printf` (`%s`, `%1$s`, `%d`, `%.2f`, `%lld`, `%@`, `%1$@`), `strftime` (`%Y`, `%b`, `%-d`,
`%H:%M`, and Rails' number formats `%u %n`), `python` (`%(name)s`), `brace` (`{name}`, `{0}`: ICU
simple arguments, .NET, Python `str.format`), `double_brace` (`{{name}}`: i18next, Handlebars),
`nesting` (`$t(key)`: i18next), `ruby` (`%{name}` and `%<name>s`: Rails), `dollar_brace`
(`${name}`), `numbered_tags` (`<0>`, `</0>`: react-i18next's `Trans`), `html` (tags: `<b>`, `</b>`,
`<br/>`, `<a href="…">`), `apple_variable` (a `.stringsdict` or xcstrings substitution:
`%#@files@`, `%1$#@count@`, `%1#@count@`), `apple_arg` (`%arg`, the argument inside an xcstrings
substitution's forms; before `printf`, which would read `%a`).

A percent sign is a directive only where prose would not put one: `%%` is a literal percent; a
`printf` or `strftime` directive never follows a digit ("50%off", "100%d" are percentages), a
`printf` one has no space flag ("100% of" is no `% o`), and a `strftime` one is not followed by
a letter ("%PATH%" is no `%P`). Every pattern is bounded (no unbounded repeat can overlap another),
so matching is linear in the text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final

PATTERNS: Final[dict[str, str]] = {
    "double_brace": r"\{\{-?\s{0,20}[^{}\s][^{}]{0,100}\}\}",
    "dollar_brace": r"\$\{[^{}\s]{1,80}\}",
    "nesting": r"\$t\([^()]{1,200}\)",
    "ruby": r"%\{[A-Za-z_][\w.]{0,80}\}|%<[A-Za-z_]\w{0,80}>[-+# ]{0,4}\d{0,3}(?:\.\d{1,3})?[bBcdeEfgGiosxXp]",
    "python": r"%\([A-Za-z_]\w{0,80}\)[-+# ]{0,4}\d{0,3}(?:\.\d{1,3})?[sdifgeExXrc]",
    "apple_variable": r"%(?:\d{1,2}\$?)?#@[A-Za-z_][\w.]{0,80}@",
    "apple_arg": r"%arg\b",
    "printf": (
        r"%(?<![0-9]%)(?:\d{1,2}\$)?[-+#']{0,4}(?:\d{1,3}|\*)?(?:\.(?:\d{1,3}|\*))?(?:hh|h|ll|l|L|q|j|z|t)?"
        r"[sdiufFeEgGxXoOcCpaA@]"
    ),
    "strftime": r"%(?<![0-9]%)[-_0^#]?[EO]?(?::{1,2}z|[aAbBcCdDeFgGhHIjklLmMnNpPrRsStTuUvVwWxXyYzZ+])(?![A-Za-z])",
    "inline": r"\{/?\d{1,4}\}",
    "brace": r"\{[A-Za-z_0-9][\w.]{0,80}(?:\s{0,20},\s{0,20}[a-z]{1,20}(?:\s{0,20},[^{}]{0,100})?)?\}",
    "numbered_tags": r"</?\d{1,3}/?>",
    "html": r"</?[A-Za-z][\w:-]{0,40}(?:\s[^<>]{0,400})?/?>",
}
"""Each syntax's pattern; longer syntaxes come first so `{{x}}` is not read as `{x}`, and `printf`
before `strftime`, so `%d` is read as printf's where a string may hold both."""
PROSE: Final = ("double_brace", "dollar_brace", "ruby", "python", "printf", "strftime", "inline", "brace")
"""The syntaxes QA and the pseudo model lock in free text (prose has no HTML-like `<0>` or `%arg`)."""
TOKEN: Final = re.compile(r"\{(/?)(\d{1,4})\}")
"""The `inline` syntax with its parts: `{1}`, or `{/1}` closing a pair."""
_PERCENT: Final = re.compile(r"%%")
_CACHE: dict[frozenset[str], re.Pattern[str]] = {}


def pattern(syntaxes: Iterable[str]) -> re.Pattern[str]:
    """One pattern for the given syntaxes, in the table's order (compiled once per set)."""
    key = frozenset(syntaxes)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = _compile(key)
    return found


def _compile(syntaxes: Iterable[str]) -> re.Pattern[str]:
    wanted = set(syntaxes)
    unknown = wanted - PATTERNS.keys()
    if unknown:
        raise ValueError(f"unknown code syntaxes: {sorted(unknown)}")
    return re.compile("|".join(f"(?:{p})" for name, p in PATTERNS.items() if name in wanted))


def find_codes(text: str, syntaxes: Sequence[str]) -> tuple[str, ...]:
    """The codes of `text` in the given syntaxes, in order, with repeats (`%%` is never one)."""
    masked = _PERCENT.sub("\0\0", text)
    return tuple(m.group() for m in pattern(syntaxes).finditer(masked))


def syntaxes_of(codes: Iterable[str]) -> tuple[str, ...]:
    """The syntaxes, in the table's order, that read any of `codes` whole (`%Y` → `strftime`)."""
    known = set(codes)
    return tuple(name for name, p in PATTERNS.items() if any(re.fullmatch(p, c) for c in known))


def code_changes(codes: Sequence[str], text: str) -> tuple[str, ...]:
    """What `text` does to the locked `codes` of its source: each code dropped, added or altered, in
    words (empty when it keeps every code as often as the source has it; order may change)."""
    if not codes:
        return ()
    want = Counter(codes)
    syntaxes = syntaxes_of(want)
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
