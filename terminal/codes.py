"""A string's locked codes in the terminal: where they stand in a text, their look, and what a
translation lacks or adds.

The codes are the card's `context.codes` (docs/api.md "context": each distinct code once, in source
order). A code's occurrences in a text are found literally, the longest code first, so a whole
`<xliff:g …>%1$s</xliff:g>` is one code and not its inner `%1$s`. Each code has a colour by its place in
that list, and a closing tag (`</b>`, `{/1}`, `</0>`) takes the colour of the opening tag it closes,
so a pair reads as a pair. A code of the same syntaxes that the source lacks is marked as extra
(langfacts/codes.py reads the syntaxes; what it says a translation drops or adds is the QA's wording).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rich.style import Style
from rich.text import Text

from langfacts.codes import code_changes, pattern, syntaxes_of

PALETTE: Final = (
    Style(color="black", bgcolor="bright_cyan", bold=True),
    Style(color="black", bgcolor="bright_magenta", bold=True),
    Style(color="black", bgcolor="bright_yellow", bold=True),
    Style(color="black", bgcolor="bright_green", bold=True),
    Style(color="white", bgcolor="blue", bold=True),
    Style(color="black", bgcolor="bright_white", bold=True),
)
"""The codes' looks, one per code in source order (repeating after six); a pair shares its opener's."""
EXTRA: Final = Style(color="bright_white", bgcolor="red", bold=True, underline=True)
"""A code the source has not."""
_OPEN: Final = re.compile(r"<([A-Za-z0-9][\w:.-]*)(?:\s[^<>]*)?>|\{(\d{1,4})\}")
_CLOSE: Final = re.compile(r"</([A-Za-z0-9][\w:.-]*)\s*>|\{/(\d{1,4})\}")


@dataclass(frozen=True, slots=True)
class CodeSpan:
    """One occurrence of a code in a text: `text[start:end] == code`."""

    start: int
    end: int
    code: str
    colour: int
    """Its look's index in PALETTE, or -1 for a code the source has not."""


def _pair_name(code: str, pattern: re.Pattern[str]) -> str | None:
    match = pattern.fullmatch(code)
    if match is None or code.endswith("/>"):
        return None
    return match.group(1) or f"{{{match.group(2)}}}"


def code_spans(text: str, codes: Sequence[str]) -> tuple[CodeSpan, ...]:
    """Every occurrence of `codes` in `text`, in text order, and the codes of their syntaxes that are
    not among them (colour -1)."""
    taken: list[tuple[int, int, str]] = []
    busy = [False] * (len(text) + 1)
    for code in sorted({c for c in codes if c}, key=len, reverse=True):
        at = text.find(code)
        while at >= 0:
            if not any(busy[at : at + len(code)]):
                taken.append((at, at + len(code), code))
                busy[at : at + len(code)] = [True] * len(code)
            at = text.find(code, at + 1)
    syntaxes = syntaxes_of(codes)
    if syntaxes:
        # As find_codes reads them: `%%` is a literal percent sign, never part of a code.
        for match in pattern(syntaxes).finditer(text.replace("%%", "\0\0")):
            found, at = match.group(), match.start()
            if found not in codes and not any(busy[at : match.end()]):
                taken.append((at, match.end(), found))
    return tuple(_coloured(sorted(taken), list(codes)))


def _coloured(spans: list[tuple[int, int, str]], codes: list[str]) -> list[CodeSpan]:
    """Each span with its colour: its code's place, or the place of the opening tag it closes."""
    open_tags: dict[str, list[int]] = {}
    out: list[CodeSpan] = []
    for start, end, code in spans:
        colour = codes.index(code) % len(PALETTE) if code in codes else -1
        if (name := _pair_name(code, _CLOSE)) is not None and open_tags.get(name):
            colour = open_tags[name].pop()
        elif (name := _pair_name(code, _OPEN)) is not None and colour >= 0:
            open_tags.setdefault(name, []).append(colour)
        out.append(CodeSpan(start, end, code, colour))
    return out


def style_of(span: CodeSpan) -> Style:
    """How a code is shown."""
    return EXTRA if span.colour < 0 else PALETTE[span.colour]


def styled(text: str, codes: Sequence[str] | None, *, style: str = "") -> Text:
    """`text` with its codes in their looks (no markup read)."""
    shown = Text(text, style=style)
    for span in code_spans(text, codes or ()):
        shown.stylize(style_of(span), span.start, span.end)
    return shown


def chips(codes: Sequence[str]) -> Text:
    """The codes one after another, each in its look (a card's list of what the string must keep)."""
    line = Text()
    for n, span in enumerate(code_spans(" ".join(codes), codes)):
        line.append(" " if n else "")
        line.append(span.code, style=style_of(span))
    return line


def expected_codes(source: str, codes: Sequence[str]) -> tuple[str, ...]:
    """The codes a translation of `source` keeps: each occurrence in the source, in order."""
    return tuple(s.code for s in code_spans(source, codes) if s.colour >= 0)


def next_missing(expected: Sequence[str], text: str, codes: Sequence[str]) -> str | None:
    """The first code of the source, in source order, that `text` holds fewer times than the source."""
    have = Counter(s.code for s in code_spans(text, codes) if s.colour >= 0)
    for code in expected:
        if have[code]:
            have[code] -= 1
        else:
            return code
    return None


def check_line(expected: Sequence[str], text: str) -> Text:
    """What `text` does to the source's codes, as the QA says it: a line for the editor."""
    if not expected:
        return Text("No codes in this string.", style="dim")
    problems = code_changes(expected, text)
    if not problems:
        return Text(f"✓ Every code kept ({len(expected)}).", style="green")
    return Text("⚠ Codes: " + " · ".join(problems), style="bold yellow")
