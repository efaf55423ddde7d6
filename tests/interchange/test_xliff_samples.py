"""Real XLIFF files written by other tools: read, translated to the end, filled, and nothing else changed."""

from __future__ import annotations

import pytest
from lxml import etree

from interchange import fill_xliff, parse_xliff, segment_targets, translatable_text
from interchange.layout import WrittenUnit
from tests.interchange.xliff_schema import assert_valid_xliff2, sample

SAMPLES_12 = [
    "okapi-htmltest.html.xlf",
    "okapi-docxsegtest.docx.xlf",
    "okapi-RB-12-Test02.xlf",
    "okapi-SF-12-Test03-excerpt.xlf",
]
SAMPLES_20 = ["oasis-sample1.xlf", "oasis-testTranslateWithTarget.xlf", "symfony-resources-2.0-segment-attributes.xlf"]
STATE_ATTRS = ("state", "subState", "state-qualifier", "approved")


def _skeleton(text: str) -> bytes:
    """The document without its unit targets and states, canonical: what filling must not change."""
    root = etree.fromstring(text.split("?>", 1)[1].encode() if text.startswith("<?xml") else text.encode())
    for element in list(root.iter()):
        if not isinstance(element.tag, str):
            continue
        parent = element.getparent()
        if (
            etree.QName(element).localname == "target"
            and parent is not None
            and etree.QName(parent).localname in ("trans-unit", "segment")
        ):
            parent.remove(element)
        for attr in STATE_ATTRS:
            element.attrib.pop(attr, None)
    return etree.tostring(root, method="c14n")


def _translate_all(text: str) -> tuple[str, dict[str, str]]:
    document = parse_xliff(text)
    targets = {s.key: f"[fr] {s.source}" for s in document.translatable_segments()}
    return fill_xliff(text, targets, dict.fromkeys(targets, "approved")).text, targets


@pytest.mark.parametrize("name", SAMPLES_12 + SAMPLES_20)
def test_sample_translated_to_the_end_keeps_everything_else(name: str) -> None:
    original = sample(name)
    before = parse_xliff(original)
    filled, targets = _translate_all(original)
    after = parse_xliff(filled)
    assert targets, "the sample has something to translate"
    assert [(s.key, s.unit_id, s.source, s.codes, s.notes, s.translatable) for s in after.segments] == [
        (s.key, s.unit_id, s.source, s.codes, s.notes, s.translatable) for s in before.segments
    ]
    for segment in after.segments:
        if segment.key in targets:
            assert segment.target == targets[segment.key]  # same placeholders: the codes are the source's
            assert segment.status == "approved"
        else:
            assert segment.target == next(s.target for s in before.segments if s.key == segment.key)
    assert _skeleton(filled) == _skeleton(original)


@pytest.mark.parametrize("name", SAMPLES_20)
def test_filled_xliff2_samples_stay_schema_valid(name: str) -> None:
    assert_valid_xliff2(sample(name))
    assert_valid_xliff2(_translate_all(sample(name))[0])


@pytest.mark.parametrize("name", SAMPLES_12)
def test_filled_xliff12_samples_read_with_translate_toolkit(name: str) -> None:
    xliff = pytest.importorskip("translate.storage.xliff")
    filled, targets = _translate_all(sample(name))
    store = xliff.xlifffile.parsestring(filled.encode())
    assert sum(1 for u in store.units if u.target) >= len({k.rsplit("/", 1)[0] for k in targets})


def test_okapi_codes_become_placeholders_and_come_back_as_xml() -> None:
    document = parse_xliff(sample("okapi-htmltest.html.xlf"))
    by_unit = {s.unit_id: s for s in document.segments}
    assert by_unit["tu1"].source == "This is a test. {1} Next sentence. Third sentence."
    assert by_unit["tu2"].source == "Text in {1}bold{/1}."
    assert by_unit["tu3"].source == "<=lt, &=amp, >=gt, \"=quot, '=apos. ©=copyright, €=euro"
    assert by_unit["tu5"].source == "This is line 1\nand now line 2\nand line 3 with [   ]=3spaces"
    assert by_unit["tu4"].source.startswith("Paragraph that is originally split into several lines")
    key = by_unit["tu2"].key
    filled = fill_xliff(sample("okapi-htmltest.html.xlf"), {key: "Texte en {1}gras{/1}."}, {key: "refined"}).text
    assert '<target xml:lang="fr" state="signed-off">Texte en <g id="1">gras</g>.</target>' in filled
    assert 'xmlns:x="http://net.sf.okapi/ns/xliff-extensions"' in filled and 'x:inputEncoding="windows-1252"' in filled


def test_segmented_units_are_one_segment_per_mark_and_partial_fill_keeps_the_rest() -> None:
    original = sample("okapi-docxsegtest.docx.xlf")
    document = parse_xliff(original)
    tu9 = [s for s in document.segments if s.unit_id == "tu9"]
    assert [s.key for s in tu9] == ["2/tu9/1", "2/tu9/2", "2/tu9/3"]
    assert [s.source for s in tu9] == [
        "This is a test in DOCX format.",
        "This is the second sentence in this paragraph.",
        "This one is the third.",
    ]
    filled = fill_xliff(original, {"2/tu9/2": "Voici la deuxième phrase."}, {"2/tu9/2": "approved"}).text
    again = {s.key: s for s in parse_xliff(filled).segments}
    assert again["2/tu9/2"].target == "Voici la deuxième phrase."
    assert again["2/tu9/1"].target == "This is a test in DOCX format."
    assert again["2/tu9/2"].status == "pending"  # the unit is only partly done: its state is left as it was


def test_comments_pis_and_declared_encoding_survive() -> None:
    original = sample("okapi-RB-12-Test02.xlf")
    document = parse_xliff(original)
    eleven = [s for s in document.segments if s.unit_id == "11"]
    assert [s.source for s in eleven] == ["Sentence 1.", "Sentence 2."]
    filled, _ = _translate_all(original)
    assert "<!-- Segmented data --> <?abc def ?>" in filled
    assert filled.startswith("<?xml version='1.0' encoding='UTF-8'?>")
    assert '<target xml:lang="fr" state="signed-off"><mrk mid="0" mtype="seg">[fr] Sentence 1.</mrk>\n' in filled


def test_translate_no_and_ignorables_are_kept_out() -> None:
    document = parse_xliff(sample("oasis-testTranslateWithTarget.xlf"))
    assert [(s.key, s.translatable) for s in document.segments] == [
        ("1/1/1", False),
        ("1/1/2", False),
        ("1/1/3", False),
        ("1/2/1", True),
        ("1/2/2", True),
        ("1/2/3", True),
    ]
    assert [s.source for s in document.translatable_segments()] == ["t1 {1}t2 {2}", "t3 {1}t4", "{1}t5"]
    # An <sm/> whose <em/> is in another segment is a single code of its segment (numbers count per segment).
    assert [(c.element, c.kind) for c in document.segments[3].codes] == [("sm", "single"), ("sm", "single")]


def test_layout_maps_position_units_onto_segments() -> None:
    original = sample("okapi-docxsegtest.docx.xlf")
    layout = translatable_text(parse_xliff(original))
    span = next(s for s in layout.spans if s.key == "2/tu9/1")
    assert layout.text[span.start : span.end] == "This is a test in DOCX format."
    units = [
        WrittenUnit(start=span.start, end=span.start + 14, translation="Ceci est un test", status="approved"),
        WrittenUnit(start=span.start + 15, end=span.end, translation="au format DOCX.", status="revised"),
    ]
    result = segment_targets(layout, units)
    assert result.targets == {"2/tu9/1": "Ceci est un test au format DOCX."}
    assert result.states == {"2/tu9/1": "revised"}
    filled = fill_xliff(original, result.targets, result.states).text
    segment = next(s for s in parse_xliff(filled).segments if s.key == "2/tu9/1")
    assert segment.target == "Ceci est un test au format DOCX."
