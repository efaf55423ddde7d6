"""Word (`.docx`): paragraphs are entries with run boundaries as placeholders; the written document opens in
python-docx with its paragraphs, styles, tables, runs, drawings, fields and bookmarks kept."""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from collections.abc import Callable

import docx
import pytest
from docx.enum.text import WD_BREAK
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from interchange.formats import FormatError, format_for, format_named
from interchange.formats import docx as docx_format
from interchange.formats.base import Entry
from langfacts.codes import code_changes

DOCX = format_named("docx")
TOKEN = re.compile(r"\{/?\d+\}")


def _png() -> bytes:
    """A 1×1 PNG, so the document holds a real picture."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x80\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _hyperlink(paragraph: docx.text.paragraph.Paragraph, text: str, url: str) -> None:
    r_id = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = OxmlElement("w:hyperlink")
    link.set(qn("r:id"), r_id)
    run = OxmlElement("w:r")
    props = OxmlElement("w:rPr")
    color = OxmlElement("w:color")
    color.set(qn("w:val"), "0563C1")
    underline = OxmlElement("w:u")
    underline.set(qn("w:val"), "single")
    props.extend([color, underline])
    node = OxmlElement("w:t")
    node.text = text
    run.extend([props, node])
    link.append(run)
    paragraph._p.append(link)


def _field(paragraph: docx.text.paragraph.Paragraph, instruction: str, shown: str) -> None:
    for kind, text in (("begin", None), ("instr", instruction), ("separate", None), ("shown", shown), ("end", None)):
        run = paragraph.add_run()._r
        if kind == "instr":
            node = OxmlElement("w:instrText")
            node.set(qn("xml:space"), "preserve")
            node.text = text
        elif kind == "shown":
            node = OxmlElement("w:t")
            node.text = text
        else:
            node = OxmlElement("w:fldChar")
            node.set(qn("w:fldCharType"), kind)
        run.append(node)


def _bookmark(paragraph: docx.text.paragraph.Paragraph, name: str) -> None:
    start, end = OxmlElement("w:bookmarkStart"), OxmlElement("w:bookmarkEnd")
    start.set(qn("w:id"), "7")
    start.set(qn("w:name"), name)
    end.set(qn("w:id"), "7")
    paragraph._p.insert(1, start)
    paragraph._p.append(end)


def build() -> bytes:
    """A realistic report: headings, bold and italic runs, a hyperlink, a picture, a table, header and footer."""
    document = docx.Document()
    document.core_properties.language = "en-US"
    document.sections[0].header.paragraphs[0].text = "ACME Corporation — Confidential"
    footer = document.sections[0].footer.paragraphs[0]
    footer.add_run("Page ")
    _field(footer, " PAGE ", "1")
    document.add_heading("Quarterly report", level=1)
    intro = document.add_paragraph("This report covers ")
    intro.add_run("three regions").bold = True
    intro.add_run(" and ")
    intro.add_run("two products").italic = True
    intro.add_run(" of the company.")
    _bookmark(intro, "intro")
    link = document.add_paragraph("Read the ")
    _hyperlink(link, "full methodology", "https://example.org/method")
    link.add_run(" online before you comment.")
    document.add_paragraph("")
    document.add_paragraph("Name:\tRegional sales\nSecond line of the address")
    picture = document.add_paragraph("Our logo ")
    picture.add_run().add_picture(io.BytesIO(_png()))
    picture.add_run(" appears on every page.")
    split = document.add_paragraph("Spell")
    split.add_run("checked text that Word split into runs.")
    literal = document.add_paragraph("Pass {1} as the ")
    literal.add_run("first").bold = True
    literal.add_run(" argument.")
    document.add_heading("Results", level=2)
    table = document.add_table(rows=2, cols=2)
    table.style = "Table Grid"
    table.cell(0, 0).paragraphs[0].add_run("Region").bold = True
    table.cell(0, 1).paragraphs[0].add_run("Revenue").bold = True
    table.cell(1, 0).text = "North"
    table.cell(1, 1).text = "Grew by ten percent"
    ending = document.add_paragraph("The end of the report.")
    ending.add_run().add_break(WD_BREAK.PAGE)
    document.add_paragraph("Appendix follows.", style="Quote")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.fixture(scope="module")
def report() -> bytes:
    return build()


def entries_of(data: bytes) -> dict[str, Entry]:
    return {e.key: e for e in DOCX.read(data).entries}


def pseudo(entry: Entry) -> str:
    """A deterministic translation that keeps every placeholder where it was."""
    return "".join(p if TOKEN.fullmatch(p) else p.upper() for p in re.split(r"(\{/?\d+\})", entry.source))


def test_registry_and_binary() -> None:
    assert format_for("Report.DOCX", b"PK") is DOCX
    assert DOCX.binary and DOCX.media_type.endswith("wordprocessingml.document")


def test_paragraphs_with_run_boundaries_as_placeholders(report: bytes) -> None:
    entries = entries_of(report)
    body = [e for e in entries.values() if e.key.startswith("body/")]
    assert body[0].source == "Quarterly report" and body[0].note == "Heading 1"
    assert body[1].source == "This report covers {1}three regions{/1} and {2}two products{/2} of the company."
    assert body[1].codes == ("{1}", "{/1}", "{2}", "{/2}")
    assert body[2].source == "Read the {1}full methodology{/1} online before you comment."
    assert body[3].source == "Name:\tRegional sales\nSecond line of the address"  # tab and break as characters
    assert body[4].source == "Our logo {1} appears on every page." and body[4].codes == ("{1}",)
    assert body[5].source == "Spellchecked text that Word split into runs." and body[5].codes == ()
    assert body[6].source == "Pass {1} as the {2}first{/2} argument."  # a literal {1} is no code
    assert body[6].codes == ("{1}", "{2}", "{/2}")  # locked all the same
    assert [e.note for e in body[8:12]] == ["table cell"] * 4
    assert body[9].source == "Revenue"  # a cell's one run is the paragraph's own formatting
    assert body[12].source == "The end of the report.{1}"  # the page break
    assert body[13].note == "Quote"
    assert "body/p[4]" not in entries  # the empty paragraph keeps its number but is no entry
    assert entries["header1/p[1]"].source == "ACME Corporation — Confidential"
    assert entries["header1/p[1]"].note == "Header"  # its style says where it is
    assert entries["footer1/p[1]"].source == "Page {1}"  # the PAGE field is one code
    assert all(e.document for e in entries.values())
    assert all(code_changes(e.codes, pseudo(e)) == () for e in entries.values())
    assert code_changes(body[1].codes, "This report covers three regions and two products.") != ()
    assert DOCX.read(report).source_language == "en-US"


def test_whole_translation_opens_with_runs_styles_tables_and_objects_kept(report: bytes) -> None:
    entries = DOCX.read(report).entries
    written = DOCX.write(report, {e.key: pseudo(e) for e in entries}, target_language="de-DE")
    before, after = docx.Document(io.BytesIO(report)), docx.Document(io.BytesIO(written))
    assert len(after.paragraphs) == len(before.paragraphs)
    assert [p.style.name for p in after.paragraphs] == [p.style.name for p in before.paragraphs]
    assert len(after.tables) == 1 and after.tables[0].style.name == "Table Grid"
    assert [c.text for c in after.tables[0]._cells] == ["REGION", "REVENUE", "NORTH", "GREW BY TEN PERCENT"]
    intro = after.paragraphs[1]
    assert intro.text == "THIS REPORT COVERS THREE REGIONS AND TWO PRODUCTS OF THE COMPANY."
    assert [r.text for r in intro.runs if r.bold] == ["THREE REGIONS"]
    assert [r.text for r in intro.runs if r.italic] == ["TWO PRODUCTS"]
    assert intro._p.find(qn("w:bookmarkStart")).get(qn("w:name")) == "intro"
    assert intro._p.find(qn("w:bookmarkEnd")) is not None
    link = after.paragraphs[2]._p.find(qn("w:hyperlink"))
    assert link is not None and "".join(t.text for t in link.iter(qn("w:t"))) == "FULL METHODOLOGY"
    assert after.part.rels[link.get(qn("r:id"))].target_ref == "https://example.org/method"
    address = after.paragraphs[4]._p
    assert len(address.findall(f".//{qn('w:tab')}")) == 1 and len(address.findall(f".//{qn('w:br')}")) == 1
    assert after.paragraphs[4].text == "NAME:\tREGIONAL SALES\nSECOND LINE OF THE ADDRESS"
    assert len(after.inline_shapes) == 1 and after.paragraphs[5].text == "OUR LOGO  APPEARS ON EVERY PAGE."
    assert after.paragraphs[9]._p.find(f".//{qn('w:br')}").get(qn("w:type")) == "page"
    footer = after.sections[0].footer.paragraphs[0]
    assert [c.get(qn("w:fldCharType")) for c in footer._p.iter(qn("w:fldChar"))] == ["begin", "separate", "end"]
    assert "PAGE" in "".join(t.text for t in footer._p.iter(qn("w:instrText")))
    assert after.sections[0].header.paragraphs[0].text == "ACME CORPORATION — CONFIDENTIAL"
    assert after.core_properties.language == "de-DE"
    defaults = after.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}/{qn('w:lang')}")
    assert defaults is not None and defaults.get(qn("w:val")) == "de-DE"
    # what the writer wrote reads back as the translation, codes included
    again = {e.key: e for e in DOCX.read(written).entries}
    for entry in entries:
        assert again[entry.key].source == pseudo(entry)
        assert again[entry.key].codes == entry.codes


def test_untranslated_paragraphs_and_parts_stay_as_they_were(report: bytes) -> None:
    written = DOCX.write(
        report, {"body/p[2]": "Ce rapport couvre {1}trois régions{/1} et {2}deux produits{/2}."}, target_language="fr"
    )
    before, after = docx.Document(io.BytesIO(report)), docx.Document(io.BytesIO(written))
    changed = [
        i for i, (a, b) in enumerate(zip(before.paragraphs, after.paragraphs, strict=True)) if a._p.xml != b._p.xml
    ]
    assert changed == [1]
    with zipfile.ZipFile(io.BytesIO(report)) as old, zipfile.ZipFile(io.BytesIO(written)) as new:
        media = [n for n in old.namelist() if n.startswith("word/media/")]
        assert media and all(old.read(n) == new.read(n) for n in media)
    assert after.sections[0].header.paragraphs[0]._p.xml == before.sections[0].header.paragraphs[0]._p.xml


def test_moved_and_dropped_codes(report: bytes) -> None:
    targets = {
        "body/p[2]": "{2}Zwei Produkte{/2} und {1}drei Regionen{/1}:\tder Bericht.",
        "body/p[6]": "Unser Logo steht auf jeder Seite.",  # {1}, the picture, left out
    }
    after = docx.Document(io.BytesIO(DOCX.write(report, targets, target_language="de")))
    intro = after.paragraphs[1]
    assert [(r.text, bool(r.bold), bool(r.italic)) for r in intro.runs][:3] == [
        ("Zwei Produkte", False, True),
        (" und ", False, False),
        ("drei Regionen", True, False),
    ]
    assert intro.text == "Zwei Produkte und drei Regionen:\tder Bericht."
    assert len(after.inline_shapes) == 1  # the picture is kept, at the paragraph's end
    assert after.paragraphs[5].text == "Unser Logo steht auf jeder Seite."
    assert after.paragraphs[5]._p[-1].find(f".//{qn('w:drawing')}") is not None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not a zip at all", "not a Word document"),
        (b"", "not a Word document"),
    ],
)
def test_non_zip_bodies_are_refused(data: bytes, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        DOCX.read(data)


def _zip(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, body in files.items():
            archive.writestr(name, body)
    return out.getvalue()


def test_other_archives_and_broken_documents_are_refused(report: bytes) -> None:
    with pytest.raises(FormatError, match="not a Word document"):
        DOCX.read(_zip({"mimetype": b"application/epub+zip", "content.opf": b"<package/>"}))
    with zipfile.ZipFile(io.BytesIO(report)) as archive:
        parts = {n: archive.read(n) for n in archive.namelist()}
    parts["word/document.xml"] = parts["word/document.xml"][:-40]
    with pytest.raises(FormatError, match="not well-formed XML"):
        DOCX.read(_zip(parts))
    empty = io.BytesIO()
    docx.Document().save(empty)
    with pytest.raises(FormatError, match="no paragraph has text"):
        DOCX.read(empty.getvalue())


def test_more_paragraphs_than_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch, report: bytes) -> None:
    monkeypatch.setattr(docx_format, "MAX_SEGMENTS", 3)
    with pytest.raises(FormatError, match="more than 3 paragraphs"):
        DOCX.read(report)


def test_a_long_paragraph_of_many_runs_reads_and_writes() -> None:
    document = docx.Document()
    paragraph = document.add_paragraph("Start ")
    for i in range(400):
        paragraph.add_run(f"word{i} ").bold = i % 2 == 0
        paragraph.add_run("plain ")
    out = io.BytesIO()
    document.save(out)
    entry = DOCX.read(out.getvalue()).entries[0]
    assert len(entry.codes) == 800 and entry.codes[:2] == ("{1}", "{/1}")
    written = DOCX.write(out.getvalue(), {entry.key: entry.source}, target_language="en")
    runs = docx.Document(io.BytesIO(written)).paragraphs[0].runs
    assert [(r.text, bool(r.bold)) for r in runs[:3]] == [("Start ", False), ("word0 ", True), ("plain ", False)]


@pytest.mark.parametrize(
    ("part", "damage"),
    [
        ("[Content_Types].xml", lambda x: x.replace(b'PartName="/word/document.xml"', b'PartName="/word/x.xml"')),
        ("word/document.xml", lambda x: x[: len(x) // 2]),
        ("word/_rels/document.xml.rels", lambda x: x.replace(b"Target=", b"Tar=")),
    ],
)
def test_damaged_packages_are_refused_with_format_errors(
    report: bytes, part: str, damage: Callable[[bytes], bytes]
) -> None:
    with zipfile.ZipFile(io.BytesIO(report)) as archive:
        parts = {n: archive.read(n) for n in archive.namelist()}
    parts[part] = damage(parts[part])
    with pytest.raises(FormatError):
        DOCX.read(_zip(parts))
    truncated = report[: len(report) // 2]
    with pytest.raises(FormatError):
        DOCX.read(truncated)


def test_runs_that_differ_only_in_language_or_proofing_are_one_text() -> None:
    document = docx.Document()
    paragraph = document.add_paragraph()
    for text, mark in (("Colour ", "w:lang"), ("and ", None), ("grey ", "w:noProof"), ("look the same.", None)):
        run = paragraph.add_run(text)
        if mark is not None:
            props = run._r.get_or_add_rPr()
            node = OxmlElement(mark)
            if mark == "w:lang":
                node.set(qn("w:val"), "en-GB")
            props.append(node)
    out = io.BytesIO()
    document.save(out)
    entry = DOCX.read(out.getvalue()).entries[0]
    assert (entry.source, entry.codes) == ("Colour and grey look the same.", ())
