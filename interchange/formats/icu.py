"""ICU MessageFormat messages (i18next-icu, Flutter ARB): a message that is one plural or select choice.

`choice_of(message)` reads `{count, plural, =0 {none} one {# file} other {# files}}` as a `Choice`:
its argument, kind (`plural`, `select`, `selectordinal`), `offset:`, and cases in order. Text before
and after the choice (`You have {n, plural, …}.`) is folded into every case, which ICU reads the same.
A message with no choice, with two, or whose outside text holds a `#`, is no `Choice` (None): it is
translated as plain text. Choices nested inside a case stay text of that case. `format_choice`
writes a choice back. `codes_of(text)` finds a case's or plain message's locked codes: ICU
arguments `{name}`, `#` in a plural case, i18next's `{{name}}` and `$t(key)`, and HTML tags (and
react-i18next's numbered `<0>`).

Apostrophes quote as ICU says: `''` is one apostrophe, and `'` before `{`, `}`, `#` or `|` starts a
literal that the next `'` ends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from langfacts import plurals
from langfacts.codes import find_codes

from .base import Entry, Target

KINDS = ("plural", "select", "selectordinal")
_SELECTOR = re.compile(r"\s*(=\d+|[A-Za-z_][\w-]*)\s*\{")
_SPACE = re.compile(r"\s*")
_OFFSET = re.compile(r"\s*offset:\s*(\d+)")
_HEAD = re.compile(r"\{\s*([A-Za-z_]\w*)\s*,\s*(plural|selectordinal|select)\s*,")
_SYNTAXES = ("double_brace", "nesting", "brace", "numbered_tags", "html")


@dataclass(frozen=True, slots=True)
class Choice:
    """A message that is one plural or select choice."""

    argument: str
    kind: str
    offset: int | None
    cases: tuple[tuple[str, str], ...]
    """Each case's selector (`one`, `=0`, `male`) and message, in the order written."""


def _skip_quoted(text: str, i: int) -> int:
    """The index after an apostrophe at i and the literal it may open."""
    nxt = text[i + 1 : i + 2]
    if nxt == "'":
        return i + 2
    if nxt and nxt in "{}#|":
        close = text.find("'", i + 1)
        return len(text) if close < 0 else close + 1
    return i + 1


def _closing(text: str, start: int) -> int:
    """The index of the `}` that closes the `{` at start; -1 if it is never closed."""
    depth = 0
    i = start
    while i < len(text):
        char = text[i]
        if char == "'":
            i = _skip_quoted(text, i)
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _top_level(text: str) -> list[tuple[int, int]]:
    """The spans of the message's top-level `{…}` arguments; [] when a brace is unbalanced."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "'":
            i = _skip_quoted(text, i)
        elif char == "{":
            end = _closing(text, i)
            if end < 0:
                return []
            spans.append((i, end + 1))
            i = end + 1
        elif char == "}":
            return []
        else:
            i += 1
    return spans


def _cases(style: str) -> tuple[int | None, list[tuple[str, str]]] | None:
    offset: int | None = None
    pos = 0
    match = _OFFSET.match(style)
    if match:
        offset, pos = int(match.group(1)), match.end()
    cases: list[tuple[str, str]] = []
    while True:
        pos = _SPACE.match(style, pos).end()  # type: ignore[union-attr]  # \s* always matches
        if pos == len(style):
            break
        found = _SELECTOR.match(style, pos)
        if not found:
            return None
        open_at = found.end() - 1
        close = _closing(style, open_at)
        if close < 0:
            return None
        cases.append((found.group(1), style[open_at + 1 : close]))
        pos = close + 1
    return offset, cases


def choice_of(message: str) -> Choice | None:
    """The message as one choice, its outside text folded into each case; None if it is not one."""
    spans = _top_level(message)
    heads = [(s, e, m) for s, e in spans if (m := _HEAD.match(message, s))]
    if len(heads) != 1:
        return None
    start, end, head = heads[0]
    before, after = message[:start], message[end:]
    if "#" in before or "#" in after:
        return None
    parsed = _cases(message[head.end() : end - 1])
    if not parsed or not parsed[1] or "other" not in {s for s, _ in parsed[1]}:
        return None
    offset, cases = parsed
    folded = tuple((selector, before + text + after) for selector, text in cases)
    return Choice(argument=head.group(1), kind=head.group(2), offset=offset, cases=folded)


def format_choice(choice: Choice) -> str:
    """The choice as an ICU message."""
    offset = f" offset:{choice.offset}" if choice.offset is not None else ""
    cases = " ".join(f"{selector} {{{text}}}" for selector, text in choice.cases)
    return f"{{{choice.argument}, {choice.kind},{offset} {cases}}}"


def _hashes(text: str) -> int:
    """How many `#` the text has outside nested arguments and quotes."""
    count = depth = i = 0
    while i < len(text):
        char = text[i]
        if char == "'":
            i = _skip_quoted(text, i)
            continue
        depth += (char == "{") - (char == "}")
        count += char == "#" and depth == 0
        i += 1
    return count


def codes_of(text: str, *, plural_case: bool = False) -> tuple[str, ...]:
    """The locked codes of a message or a case: arguments, i18next interpolations, HTML tags, and
    `#` (as often as it is there) in a plural case."""
    codes = find_codes(text, _SYNTAXES)
    return codes + ("#",) * _hashes(text) if plural_case else codes


def case_key(key: str, selector: str) -> str:
    """The key of one case of a select (or an exact `=N` case of a plural): `key[case]`."""
    return f"{key}[{selector}]"


def message_entries(key: str, message: str, *, note: str | None = None) -> list[Entry]:
    """The entries of one message: a plural entry (and one entry per `=N` case) for a plural
    choice, one entry per case for a select, else one plain entry."""
    choice = choice_of(message)
    if choice is None:
        return [Entry(key=key, source=message, note=note, codes=codes_of(message))]
    entries: list[Entry] = []
    if choice.kind == "plural":
        forms = {s: t for s, t in choice.cases if s in plurals.ORDER}
        codes = tuple(c for t in forms.values() for c in codes_of(t, plural_case=True))
        entries.append(
            Entry(key=key, source=forms["other"], note=note, codes=codes, plural=forms, plural_argument=choice.argument)
        )
    for selector, text in choice.cases:
        if choice.kind != "plural" or selector not in plurals.ORDER:
            condition = (
                f"{choice.argument} {selector}" if selector.startswith("=") else f"{choice.argument} = {selector}"
            )
            case_note = condition + (f"\n{note}" if note else "")
            codes = codes_of(text, plural_case=choice.kind != "select")
            entries.append(Entry(key=case_key(key, selector), source=text, note=case_note, codes=codes))
    return entries


def text_of(target: Target) -> str:
    """A target written where one text goes (a plural target gives its `other` form)."""
    if isinstance(target, str):
        return target
    return target.get("other") or next(iter(target.values()), "")


def rewrite_message(key: str, message: str, targets: Mapping[str, Target], language: str) -> str | None:
    """The message with the targets of its entries, None when none of them has a target."""
    choice = choice_of(message)
    if choice is None:
        return text_of(targets[key]) if key in targets else None
    cases = [(s, t) for s, t in choice.cases if choice.kind != "plural" or s not in plurals.ORDER]
    touched = any(case_key(key, s) in targets for s, _ in cases)
    new = [(s, text_of(targets.get(case_key(key, s), t))) for s, t in cases]
    if choice.kind == "plural":
        if key in targets:
            forms = targets[key]
            touched = True
            by_category = forms if not isinstance(forms, str) else dict.fromkeys(plurals.categories(language), forms)
            fallback = text_of(by_category)
            new += [(c, by_category.get(c, fallback)) for c in plurals.categories(language)]
        else:
            new += [(s, t) for s, t in choice.cases if s in plurals.ORDER]
    if not touched:
        return None
    return format_choice(Choice(argument=choice.argument, kind=choice.kind, offset=choice.offset, cases=tuple(new)))
