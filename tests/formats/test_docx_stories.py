"""Every story of a Word document is read and written: the body, text boxes (DrawingML with their VML
fallback, and VML alone), headers and footers of every section, footnotes and endnotes, in a
translator's order, each paragraph under a stable key with a note that says where it is."""

from __future__ import annotations

import io
import re
import zipfile

import docx
import pytest
from docx.enum.section import WD_SECTION
from docx.oxml.ns import qn
from lxml import etree

from interchange.formats import FormatError, format_named
from interchange.formats.base import Entry
from tests.formats.docx_documents import every_story, text_box, with_part

DOCX = format_named("docx")
TOKEN = re.compile(r"\{/?\d+\}")
MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"


def upper(entry: Entry) -> str:
    return "".join(p if TOKEN.fullmatch(p) else p.upper() for p in re.split(r"(\{/?\d+\})", entry.source))


def part(data: bytes, name: str) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return etree.fromstring(archive.read(name))


def paragraph_texts(root: etree._Element) -> list[str]:
    """Each paragraph's own text (a text box's paragraphs apart from their anchor's), empty ones left out."""
    found = []
    for p in root.iter(qn("w:p")):
        own = "".join(t.text or "" for t in p.iter(qn("w:t")) if next(t.iterancestors(qn("w:p"))) is p)
        if own.strip():
            found.append(own)
    return found


def test_every_story_is_read_in_a_translators_order_with_keys_and_notes() -> None:
    entries = DOCX.read(every_story()).entries
    assert [(e.key, e.source, e.note) for e in entries] == [
        ("body/p[1]", "Survey results", "Heading 1"),
        ("body/p[2]", "The survey reached most households{1} in the spring.", None),
        (
            "body/p[3]",
            "Read the {1}full methodology{/1} before you quote a figure. Questions go to {2}the survey team{/2}.",
            None,
        ),
        ("body/p[4]", "Key figures are in the box.{1}", None),
        ("body/textbox[1]/p[1]", "Nine in ten answered", "text box"),  # after its anchor, read once
        ("body/textbox[1]/p[2]", "Most answers came by post", "text box"),
        ("body/textbox[2]/p[1]", "An old box with its own words", "text box"),  # VML alone
        ("body/p[6]", "The next survey starts in autumn{1}.", None),  # p[5] anchors the old box, no text
        ("header1/p[1]", "Annual survey of the northern region", "Header"),
        ("footer1/p[1]", "Printed for internal use only", "Footer"),
        ("footnotes/p[3]", " The survey ran from March to May.", "footnote"),  # its mark kept out
        ("footnotes/p[4]", " Households of one person{1} are counted apart{/1}", "footnote"),
        ("endnotes/p[3]", " Dates are set by the regional office.", "endnote"),
    ]
    assert entries[1].codes == ("{1}",)  # the footnote's mark in the body is a code


def test_every_story_is_written_and_reads_back_as_the_translation() -> None:
    data = every_story()
    entries = DOCX.read(data).entries
    written = DOCX.write(data, {e.key: upper(e) for e in entries}, target_language="de")
    assert [(e.key, e.source) for e in DOCX.read(written).entries] == [(e.key, upper(e)) for e in entries]
    body = part(written, "word/document.xml")
    shape, fallback, old = body.iter(qn("w:txbxContent"))
    assert paragraph_texts(shape) == paragraph_texts(fallback) == ["NINE IN TEN ANSWERED", "MOST ANSWERS CAME BY POST"]
    assert paragraph_texts(old) == ["AN OLD BOX WITH ITS OWN WORDS"]
    assert next(fallback.iterancestors(f"{MC}Fallback")) is not None
    for name, mark in (("word/footnotes.xml", "footnoteRef"), ("word/endnotes.xml", "endnoteRef")):
        root = part(written, name)
        notes = [n for n in root if n.get(qn("w:type")) is None]
        assert all(n.find(f"{qn('w:p')}/{qn('w:r')}/{qn(f'w:{mark}')}") is not None for n in notes)  # mark first
        assert paragraph_texts(root)[0] in (
            " THE SURVEY RAN FROM MARCH TO MAY.",
            " DATES ARE SET BY THE REGIONAL OFFICE.",
        )
    rels = part(written, "word/_rels/footnotes.xml.rels")
    link = part(written, "word/footnotes.xml").find(f".//{qn('w:hyperlink')}")
    assert "".join(t.text for t in link.iter(qn("w:t"))) == " ARE COUNTED APART"
    assert {r.get("Id"): r.get("Target") for r in rels}[link.get(qn("r:id"))] == "https://example.org/notes"


def test_parts_without_targets_stay_as_they_were() -> None:
    data = every_story()
    written = DOCX.write(data, {"footnotes/p[3]": " Die Umfrage lief von März bis Mai."}, target_language="de")
    for name in ("word/document.xml", "word/endnotes.xml", "word/header1.xml", "word/footer1.xml"):
        assert etree.tostring(part(written, name)) == etree.tostring(part(data, name)), name
    assert paragraph_texts(part(written, "word/footnotes.xml"))[0] == " Die Umfrage lief von März bis Mai."


def test_a_fallback_that_differs_from_its_shape_becomes_a_copy_of_the_translated_shape() -> None:
    data = every_story()
    body = part(data, "word/document.xml")
    fallback = next(body.iter(f"{MC}Fallback"))
    first = next(fallback.iter(qn("w:t")))
    first.text = "Nine in ten answered (an older wording)"
    changed = with_part(data, "word/document.xml", etree.tostring(body, xml_declaration=True, standalone=True))
    written = DOCX.write(changed, {"body/textbox[1]/p[1]": "Neun von zehn antworteten"}, target_language="de")
    shape, copy, _ = part(written, "word/document.xml").iter(qn("w:txbxContent"))
    assert paragraph_texts(shape)[0] == paragraph_texts(copy)[0] == "Neun von zehn antworteten"


def test_a_document_of_text_boxes_only_is_read() -> None:
    document = docx.Document()
    text_box(document.add_paragraph(), ["Only a box holds words"])
    text_box(document.add_paragraph(), ["And an old one"], fallback=False)
    out = io.BytesIO()
    document.save(out)
    entries = DOCX.read(out.getvalue()).entries
    assert [(e.key, e.source) for e in entries] == [
        ("body/textbox[1]/p[1]", "Only a box holds words"),
        ("body/textbox[2]/p[1]", "And an old one"),
    ]


def test_the_headers_and_footers_of_every_section_are_read_once_each() -> None:
    document = docx.Document()
    first = document.sections[0]
    first.header.paragraphs[0].text = "Part one header"
    first.different_first_page_header_footer = True
    first.first_page_footer.paragraphs[0].text = "Cover page footer"
    document.add_paragraph("Body of part one.")
    second = document.add_section(WD_SECTION.NEW_PAGE)
    second.header.is_linked_to_previous = False
    second.header.paragraphs[0].text = "Part two header"
    document.add_paragraph("Body of part two.")
    third = document.add_section(WD_SECTION.NEW_PAGE)  # linked to the previous: no part of its own
    assert third.header.is_linked_to_previous
    out = io.BytesIO()
    document.save(out)
    entries = DOCX.read(out.getvalue()).entries
    assert [(e.source, e.note) for e in entries if not e.key.startswith("body/")] == [
        ("Part one header", "Header"),
        ("Cover page footer", "Footer"),
        ("Part two header", "Header"),
    ]
    written = DOCX.write(out.getvalue(), {e.key: upper(e) for e in entries}, target_language="fr")
    after = docx.Document(io.BytesIO(written))
    assert after.sections[1].header.paragraphs[0].text == "PART TWO HEADER"
    assert after.sections[0].first_page_footer.paragraphs[0].text == "COVER PAGE FOOTER"


def test_a_notes_part_of_another_kind_is_left_out_not_a_crash() -> None:
    data = every_story()
    types = zipfile.ZipFile(io.BytesIO(data)).read("[Content_Types].xml")
    plain = types.replace(b"wordprocessingml.footnotes+xml", b"wordprocessingml.unknown+xml")
    entries = DOCX.read(with_part(data, "[Content_Types].xml", plain)).entries
    assert not any(e.key.startswith("footnotes/") for e in entries)
    assert any(e.key.startswith("endnotes/") for e in entries)
    with pytest.raises(FormatError, match="not well-formed"):
        DOCX.read(with_part(data, "word/footnotes.xml", b"<w:footnotes xmlns:w='x'><w:p></w:footnotes>"))
