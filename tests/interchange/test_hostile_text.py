"""The package on its own against hostile text: forbidden characters out, unreadable input in, CSV cells."""

from __future__ import annotations

import pytest
from lxml import etree

from interchange import (
    BilingualExport,
    BilingualSegment,
    GlossaryTerm,
    InterchangeError,
    Note,
    NotWellFormed,
    TmPair,
    TooLarge,
    export_glossary_csv,
    export_tbx,
    export_tmx,
    export_xliff2,
    export_xliff12,
    parse_glossary_csv,
    parse_tmx,
    parse_xliff,
    placeholder_mismatches,
    read_csv,
    write_csv,
)

HOSTILE = "".join(chr(c) for c in range(32) if c not in (9, 10, 13)) + "\ud800\udfff\ufffe\uffff"


def test_every_xml_writer_writes_forbidden_characters_escaped_or_replaced() -> None:
    segment = BilingualSegment(
        id=f"s0{HOSTILE}",
        start=0,
        end=5,
        source=f"a{HOSTILE}",
        target=f"b{HOSTILE}",
        status="refined",
        notes=(Note(text=f"n{HOSTILE}", category=f"c{HOSTILE}"),),
    )
    doc = BilingualExport(
        file_name=f"f{HOSTILE}.md", source_language=f"en{HOSTILE}", target_language="fr", segments=(segment,)
    )
    x2 = export_xliff2(doc).text
    etree.fromstring(x2.encode())
    assert parse_xliff(x2).segments[0].target == f"b{HOSTILE}"[:1] + "".join(
        "\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in HOSTILE
    )  # 2.0 keeps them as <cp/>
    x12 = export_xliff12(doc).text
    assert parse_xliff(x12).segments[0].target == "b" + "\ufffd" * len(HOSTILE)
    pair = TmPair(source=f"a{HOSTILE}", target=f"b{HOSTILE}", srclang=f"en{HOSTILE}", tgtlang="fr")
    assert parse_tmx(export_tmx([pair], srclang="en").text)[0].target == "b" + "\ufffd" * len(HOSTILE)
    tbx = export_tbx(
        [GlossaryTerm(source=f"t{HOSTILE}", target=f"u{HOSTILE}", tgtlang=f"fr{HOSTILE}")],
        srclang=f"en{HOSTILE}",
        tgtlang="fr",
    )
    etree.fromstring(tbx.encode())
    assert "u" + "\ufffd" * len(HOSTILE) in tbx


DEEP = "<tmx>" + "<a>" * 400 + "</a>" * 400 + "</tmx>"


@pytest.mark.parametrize("text", ["<tmx>\ud800</tmx>", "<tmx>\x00</tmx>", DEEP])
def test_unreadable_xml_is_an_interchange_error(text: str) -> None:
    with pytest.raises(NotWellFormed):
        parse_tmx(text)


def test_the_element_and_row_caps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("interchange._xml.MAX_XML_ELEMENTS", 10)
    with pytest.raises(TooLarge, match="10 elements"):
        parse_tmx('<tmx version="1.4"><header/><body>' + "<tu/>" * 9 + "</body></tmx>")
    monkeypatch.setattr("interchange.csv_cells.MAX_CSV_ROWS", 3)
    with pytest.raises(TooLarge, match="3 rows"):
        read_csv("source,target\na,b\nc,d\ne,f\n")
    assert len(read_csv("source,target\na,b\nc,d\n")) == 3


@pytest.mark.parametrize("text", ["source,target\n" + "x" * 200_000 + ",y\n", 'source,target\n"' + "x" * 200_000])
def test_csv_the_csv_module_refuses_is_an_interchange_error(text: str) -> None:
    with pytest.raises(InterchangeError, match="line"):
        parse_glossary_csv(text)


CELLS = ["=1+1", "+1", "-1", "@a", "\tx", "\rx", "'=x", "''=x", "'", "'a", "a=b", "", "plain", "=", "''''@"]


def test_csv_cells_are_neutralised_and_come_back_exactly() -> None:
    text = write_csv([CELLS])
    assert all(not cell or cell[0] not in "=+-@\t\r" for cell in read_csv_raw(text))
    assert read_csv(text) == [CELLS]
    terms = [GlossaryTerm(source=f"s{n}", target=cell) for n, cell in enumerate(CELLS) if cell.strip()]
    back = parse_glossary_csv(export_glossary_csv(terms))
    assert [t.target for t in back] == [t.target.strip() for t in terms]


def read_csv_raw(text: str) -> list[str]:
    import csv
    import io

    return next(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize(
    "target, words",
    [
        ("{1}a{/1}{1}", "more than once"),
        ("{/1}a{1}", "comes before"),
        ("{1}a{2}b{/1}{/2}", "overlap"),
        ("{1}a{/1} {2}{9}", "{9} is not in the source"),
        ("a", "missing"),
    ],
)
def test_placeholder_mismatches_name_each_problem(target: str, words: str) -> None:
    found = placeholder_mismatches("{1}x{2}y{/2}{/1}", target)
    assert any(words.lower() in p.lower() for p in found), found
    assert placeholder_mismatches("{1}x{2}y{/2}{/1}", "{1}u{2}v{/2}{/1}") == ()
    assert placeholder_mismatches("Hello {0}", "Bonjour {0}") == ()
