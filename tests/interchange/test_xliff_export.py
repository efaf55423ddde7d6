"""XLIFF 2.0 and 1.2 exports: schema-valid, readable by translate-toolkit, and read back without loss."""

from __future__ import annotations

import pytest
from lxml import etree

from interchange import BilingualExport, BilingualSegment, Note, export_xliff2, export_xliff12, parse_xliff
from tests.interchange.xliff_schema import assert_valid_xliff2

translate_xliff = pytest.importorskip("translate.storage.xliff")

SEGMENTS = (
    BilingualSegment(id="u0", start=0, end=9, source="# Welcome", target="# Bienvenue", status="approved"),
    BilingualSegment(
        id="u11",
        start=11,
        end=60,
        source="Use `pip install` & <b>tags</b> {name}.",
        target="Utilisez `pip install` & <b>balises</b> {name}.",
        status="refined",
        notes=(Note(text="Keep the code as is.", category="reason"), Note(text="balises", category="correction")),
    ),
    BilingualSegment(
        id="u62", start=62, end=80, source="Line one\n  line two ", target="Ligne un\n  ligne deux ", status="revised"
    ),
    BilingualSegment(id="u82", start=82, end=90, source="Proposed", target="Proposé", status="pending"),
    BilingualSegment(id="u92", start=92, end=100, source="```sh\nls\n```", target="```sh\nls\n```", status="verbatim"),
    BilingualSegment(id="gap 102", start=102, end=120, source="Not yet\x0c done", target=None, status="untranslated"),
)
DOC = BilingualExport(file_name="guide.md", source_language="en", target_language="fr-FR", segments=SEGMENTS)


def test_xliff2_export_is_valid_against_the_oasis_core_schema() -> None:
    assert_valid_xliff2(export_xliff2(DOC).text)


def test_xliff2_states_follow_the_documented_mapping() -> None:
    root = etree.fromstring(export_xliff2(DOC).text.encode())
    ns = {"x": "urn:oasis:names:tc:xliff:document:2.0"}
    states = [(s.get("state"), s.get("subState")) for s in root.iterfind(".//x:segment", ns)]
    assert states == [
        ("final", "tagent:approved"),
        ("final", "tagent:refined"),
        ("final", "tagent:revised"),
        ("translated", "tagent:pending"),
        ("final", "tagent:verbatim"),
        ("initial", "tagent:untranslated"),
    ]
    assert root.find(".//x:unit[@id='gap_102']/x:segment/x:source/x:cp", ns).get("hex") == "000C"


@pytest.mark.parametrize("export", [export_xliff2, export_xliff12])
def test_export_then_parse_loses_nothing(export) -> None:  # type: ignore[no-untyped-def]
    document = parse_xliff(export(DOC).text)
    assert document.source_language == "en" and document.target_language == "fr-FR"
    got = [(s.unit_id, s.source, s.target, s.status, s.notes) for s in document.segments]
    expected_sources = [s.source if export is export_xliff2 else s.source.replace("\x0c", "\ufffd") for s in SEGMENTS]
    assert [g[1] for g in got] == expected_sources
    assert [g[0] for g in got] == ["u0", "u11", "u62", "u82", "u92", "gap_102"]
    untranslated = "untranslated" if export is export_xliff2 else None  # 1.2 has no state without a target
    assert [(g[2], g[3]) for g in got] == [(s.target, s.status if s.target else untranslated) for s in SEGMENTS]
    assert got[1][4] == SEGMENTS[1].notes
    assert all(not s.codes for s in document.segments)


def test_xliff12_export_reads_with_translate_toolkit() -> None:
    store = translate_xliff.xlifffile.parsestring(export_xliff12(DOC).text.encode())
    units = [u for u in store.units if not u.isheader()]
    assert [u.getid().split("\x04")[-1] for u in units] == ["u0", "u11", "u62", "u82", "u92", "gap_102"]
    assert units[1].source == SEGMENTS[1].source and units[1].target == SEGMENTS[1].target
    assert units[0].isapproved() and not units[3].isapproved()
    assert "Keep the code as is." in units[1].getnotes()
    assert store.getsourcelanguage() == "en" and store.gettargetlanguage() == "fr-FR"


def test_xliff2_export_reads_with_translate_toolkit() -> None:
    xliff2 = pytest.importorskip("translate.storage.xliff2")
    store = xliff2.Xliff2File.parsestring(export_xliff2(DOC).text.encode())
    # translate-toolkit drops the <cp/> of the form feed; the rest reads the same.
    assert [u.source for u in store.units][:5] == [s.source for s in SEGMENTS][:5]


def test_unknown_target_language_is_und_and_ids_stay_unique() -> None:
    doc = BilingualExport(
        file_name="a.md",
        source_language="en",
        target_language=None,
        segments=(
            BilingualSegment(id="a b", start=0, end=1, source="x", target="y", status="approved"),
            BilingualSegment(id="a_b", start=2, end=3, source="z", target=None, status="untranslated"),
        ),
    )
    text = export_xliff2(doc).text
    assert_valid_xliff2(text)
    assert [s.unit_id for s in parse_xliff(text).segments] == ["a_b", "a_b-2"]
