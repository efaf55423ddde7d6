"""Every parser and writer is linear in its input: counted, not timed.

`lines_run` counts the Python lines the package runs (sys.settrace, deterministic on any machine).
Each case runs at n and at 4n: linear work grows about 4 times, quadratic work 16 times; the bound
RATIO sits between. The inputs are the shapes that were quadratic: many units sharing one id, a
unit of many segments with much original data, many segmented units, many placeholders in one text.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import interchange
from interchange import (
    BilingualExport,
    BilingualSegment,
    GlossaryTerm,
    InlineCode,
    TmPair,
    WrittenUnit,
    export_glossary_csv,
    export_tbx,
    export_tmx,
    export_xliff2,
    export_xliff12,
    fill_xliff,
    parse_glossary_csv,
    parse_tbx,
    parse_tmx,
    parse_xliff,
    placeholder_mismatches,
    segment_targets,
    translatable_text,
)

PACKAGE = str(Path(interchange.__file__).parent)
RATIO = 6.0
N = 150


def lines_run(func: Callable[[], Any]) -> int:
    """How many lines of the interchange package `func()` runs."""
    count = 0

    def local(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        return local if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(trace)
    try:
        func()
    finally:
        sys.settrace(None)
    return count


def xliff12_same_ids(n: int) -> str:
    units = "".join(f'<trans-unit id="same"><source>Text <x id="1"/>{i}.</source></trans-unit>' for i in range(n))
    return (
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a" '
        f'source-language="en" datatype="plaintext"><body>{units}</body></file></xliff>'
    )


def xliff20_one_unit(n: int) -> str:
    data = "".join(f'<data id="d{i}">&lt;b{i}&gt;</data>' for i in range(n))
    notes = "".join(f"<note>n{i}</note>" for i in range(n))
    segments = "".join(f'<segment><source>S {i} <ph id="p{i}" dataRef="d{i}"/>.</source></segment>' for i in range(n))
    return (
        '<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" srcLang="en"><file id="f">'
        f'<unit id="u"><notes>{notes}</notes><originalData>{data}</originalData>{segments}</unit>'
        "</file></xliff>"
    )


def xliff12_segmented(n: int) -> str:
    units = "".join(
        f'<trans-unit id="t{i}"><source>A{i}. B{i}.</source><seg-source><mrk mtype="seg" mid="1">A{i}.</mrk> '
        f'<mrk mtype="seg" mid="2">B{i}.</mrk></seg-source></trans-unit>'
        for i in range(n)
    )
    return (
        '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2"><file original="a" '
        f'source-language="en" datatype="plaintext"><body>{units}</body></file></xliff>'
    )


def filled(document: str) -> Callable[[], Any]:
    parsed = parse_xliff(document)
    targets = {s.key: f"[fr] {s.source}" for s in parsed.translatable_segments()}
    return lambda: fill_xliff(document, targets, dict.fromkeys(targets, "approved"))


def targets_of(n: int) -> Callable[[], Any]:
    layout = translatable_text(parse_xliff(xliff12_same_ids(n)))
    units = [WrittenUnit(start=s.start, end=s.end, translation="t", status="approved") for s in layout.spans]
    return lambda: segment_targets(layout, units)


def bilingual(n: int) -> BilingualExport:
    codes = (InlineCode(token=1, kind="paired", element="g", code_id="1"),)
    segments = tuple(
        BilingualSegment(
            id="same", start=i, end=i + 1, source="a {1}b{/1}", target="x {1}y{/1}", status="approved", codes=codes
        )
        for i in range(n)
    )
    return BilingualExport(file_name="f", source_language="en", target_language="fr", segments=segments)


def tmx_of(n: int) -> str:
    pairs = [TmPair(source=f"s{i}", target=f"t{i}", srclang="en", tgtlang="fr") for i in range(n)]
    return export_tmx(pairs, srclang="en").text


def terms(n: int) -> list[GlossaryTerm]:
    return [GlossaryTerm(source=f"=s{i}", target=f"t{i}") for i in range(n)]


def placeholders(n: int) -> tuple[str, str]:
    source = " ".join(f"{{{i}}}w{{/{i}}}" for i in range(1, n + 1))
    return source, source + " {1}"


CASES: dict[str, Callable[[int], Callable[[], Any]]] = {
    "parse 1.2, one id": lambda n: lambda: parse_xliff(xliff12_same_ids(n)),
    "parse 2.0, one unit": lambda n: lambda: parse_xliff(xliff20_one_unit(n)),
    "fill 1.2, one id": lambda n: filled(xliff12_same_ids(n)),
    "fill 1.2, segmented": lambda n: filled(xliff12_segmented(n)),
    "fill 2.0, one unit": lambda n: filled(xliff20_one_unit(n)),
    "segment targets": targets_of,
    "export xliff2": lambda n: lambda: export_xliff2(bilingual(n)),
    "export xliff12": lambda n: lambda: export_xliff12(bilingual(n)),
    "tmx out and in": lambda n: lambda: parse_tmx(tmx_of(n)),
    "tbx out and in": lambda n: lambda: parse_tbx(export_tbx(terms(n), srclang="en", tgtlang="fr")),
    "csv out and in": lambda n: lambda: parse_glossary_csv(export_glossary_csv(terms(n))),
    "placeholders": lambda n: lambda: placeholder_mismatches(*placeholders(n)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_work_grows_linearly(name: str) -> None:
    small, large = lines_run(CASES[name](N)), lines_run(CASES[name](4 * N))
    assert small > 0
    assert large / small < RATIO, f"{name}: {small} lines at n={N}, {large} at n={4 * N}"
