"""The readers and writers of po, i18next, arb and rails_yaml are linear in their input: counted, not timed.

Each case runs at n and 4n and counts the lines of the interchange package it runs (the counter of
`tests/interchange/test_linear.py`); linear work grows about 4 times, quadratic 16 times. The
libraries' own lines (polib, PyYAML) are not counted: `test_po` times polib's worst case instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from interchange.formats import arb, i18next, po, rails_yaml
from tests.interchange.test_linear import RATIO, lines_run

N = 150


def _json_messages(n: int) -> bytes:
    members = ",\n".join(
        f'  "k{i}": {{"title": "Title {{{{name}}}} {i}", '
        f'"count": "{{n, plural, =0 {{none}} one {{# file <b>{i}</b>}} other {{# files}}}}", '
        f'"who": "{{g, select, male {{he}} female {{she}} other {{they}}}}", '
        f'"n_one": "one", "n_other": "{{{{count}}}}"}}'
        for i in range(n)
    )
    return f"{{\n{members}\n}}\n".encode()


def _one_choice(n: int) -> bytes:
    cases = " ".join(f"c{i} {{case {i} {{x}} #}}" for i in range(n))
    return f'{{"m": "{{g, select, {cases} other {{rest}}}}"}}'.encode()


def _braces(n: int) -> bytes:
    return ('{"a": "' + "{" * n + "'{'" * n + '", "b": "' + "{{x}} " * n + '"}').encode()


def _arb(n: int) -> bytes:
    members = ",\n".join(
        f'  "m{i}": "{{count, plural, =1{{one {i}}} other{{{{count}} items}}}}",\n'
        f'  "@m{i}": {{"description": "d{i}", "placeholders": {{"count": {{"example": "2"}}}}}}'
        for i in range(n)
    )
    return f'{{\n  "@@locale": "en",\n{members}\n}}\n'.encode()


def _yaml(n: int) -> bytes:
    body = "".join(
        f"  k{i}:\n    title: Title %{{name}} {i}\n    items:\n      one: one\n      other: '%{{count}}'\n"
        for i in range(n)
    )
    return f"en:\n{body}".encode()


def _po(n: int) -> bytes:
    entries = "".join(
        f'#. note {i}\n#: file.c:{i}\n#, c-format\nmsgid "file %s {i}"\nmsgid_plural "files %s {i}"\n'
        f'msgstr[0] ""\nmsgstr[1] ""\n\nmsgid ""\n"long {i} "\n"string"\nmsgstr ""\n\n'
        for i in range(n)
    )
    return f'msgid ""\nmsgstr ""\n"Language: en\\n"\n\n{entries}'.encode()


def _read(fmt: Any, make: Callable[[int], bytes]) -> Callable[[int], Callable[[], Any]]:
    def build(n: int) -> Callable[[], Any]:
        data = make(n)
        return lambda: fmt.read(data)

    return build


def _write(fmt: Any, make: Callable[[int], bytes], language: str = "pl") -> Callable[[int], Callable[[], Any]]:
    def build(n: int) -> Callable[[], Any]:
        data = make(n)
        targets = {
            e.key: ({"one": "a", "few": "b", "many": "c", "other": "d"} if e.plural else "t")
            for e in fmt.read(data).entries
        }
        return lambda: fmt.write(data, targets, target_language=language)

    return build


CASES: dict[str, Callable[[int], Callable[[], Any]]] = {
    "i18next read": _read(i18next.FORMAT, _json_messages),
    "i18next write": _write(i18next.FORMAT, _json_messages),
    "i18next one choice of many cases": _write(i18next.FORMAT, _one_choice),
    "i18next unbalanced braces and quotes": _read(i18next.FORMAT, _braces),
    "arb read": _read(arb.FORMAT, _arb),
    "arb write": _write(arb.FORMAT, _arb),
    "rails read": _read(rails_yaml.FORMAT, _yaml),
    "rails write": _write(rails_yaml.FORMAT, _yaml),
    "po read": _read(po.FORMAT, _po),
    "po write": _write(po.FORMAT, _po),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", list(CASES))
def test_linear(case: str) -> None:
    small = lines_run(CASES[case](N))
    large = lines_run(CASES[case](4 * N))
    assert large / small < RATIO, f"{case}: {small} lines at n={N}, {large} at n={4 * N}"
