"""Inline-code placeholders in a translation, checked against its source: pure.

An XLIFF source's inline codes reach the text as numbered placeholders (interchange.codes): `{1}`
for a standalone code, `{1}` … `{/1}` around the text a paired code encloses. A translation may
move them (word order changes) and may drop them (QA warns of a missing one), but the export can
only map it back when it keeps each one at most as often as the source has it, invents none, opens
a pair before closing it, and nests pairs that the source nests (`{1}a{2}b{/1}c{/2}` crosses).
These are the rules `interchange.codes` applies when it rebuilds a target; the codes are read
from the unit's own source (a unit lies within one segment), so the check needs no XLIFF.
"""

from __future__ import annotations

from collections import Counter

from langfacts.codes import TOKEN

__all__ = ["code_problems"]


def code_problems(source: str, text: str) -> tuple[str, ...]:
    """What is wrong with `text`'s placeholders for `source`'s (empty when nothing), each naming the code."""
    have = Counter(m.group() for m in TOKEN.finditer(source))
    found = [m.group() for m in TOKEN.finditer(text)]
    problems: list[str] = []
    for token in dict.fromkeys(found):
        if token not in have:
            problems.append(f"{token} is not in the source: keep only the source's codes ({_known(have)}).")
        elif found.count(token) > have[token]:
            problems.append(f"{token} appears {found.count(token)} times; the source has it {_times(have[token])}.")
    paired = {int(t[2:-1]) for t in have if t.startswith("{/")}
    problems += _pair_problems(text, paired, nested=not _pair_problems(source, paired, nested=True))
    return tuple(dict.fromkeys(problems))


def _pair_problems(text: str, paired: set[int], *, nested: bool) -> list[str]:
    """Pairs closed before they open, never closed, or (when `nested`) crossing another pair."""
    problems: list[str] = []
    open_: list[int] = []
    for match in TOKEN.finditer(text):
        number = int(match.group(2))
        if number not in paired:
            continue
        if not match.group(1):
            open_.append(number)
        elif number not in open_:
            problems.append(f"{{/{number}}} comes before {{{number}}}: open the pair before closing it.")
        else:
            if nested and open_[-1] != number:
                inner = open_[-1]
                problems.append(f"{{{inner}}} and {{{number}}} cross: close {{/{inner}}} before {{/{number}}}.")
            open_.remove(number)
    problems += [f"{{{n}}} is never closed: add {{/{n}}} after the text it encloses." for n in open_]
    return problems


def _known(have: Counter[str]) -> str:
    return ", ".join(have) if have else "it has none"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
