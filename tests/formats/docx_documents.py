"""Word documents built for the DOCX tests and bench/docx_limits.py: every story a document has
(body, text boxes, headers and footers, footnotes, endnotes), a long report, and decompression bombs."""

from __future__ import annotations

import io
import zipfile

import docx
from docx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
from docx.opc.packuri import PackURI
from docx.opc.part import XmlPart
from docx.oxml import OxmlElement, parse_xml
from docx.oxml.ns import nsdecls, qn

URL = "https://example.org/method"
TEAM = "https://example.org/team"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
WPS = "http://schemas.microsoft.com/office/word/2010/wordprocessingShape"
VML = "urn:schemas-microsoft-com:vml"
_NS = f'{nsdecls("w", "r", "wp", "a")} xmlns:mc="{MC}" xmlns:wps="{WPS}" xmlns:v="{VML}"'


def hyperlink(paragraph: docx.text.paragraph.Paragraph, text: str, url: str = URL) -> None:
    """A `w:hyperlink` to `url` (an external relationship of the paragraph's part) around one styled run."""
    r_id = paragraph.part.relate_to(url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    link = parse_xml(
        f'<w:hyperlink {_NS} r:id="{r_id}"><w:r><w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr>'
        f"<w:t>{text}</w:t></w:r></w:hyperlink>"
    )
    paragraph._p.append(link)


def text_box(paragraph: docx.text.paragraph.Paragraph, lines: list[str], *, fallback: bool = True) -> None:
    """A text box holding `lines` (one paragraph each) anchored in `paragraph`: a DrawingML shape with
    its VML fallback, as Word writes it (`fallback`), or a VML shape alone, as older Words did."""
    content = "".join(f"<w:p><w:r><w:t>{line}</w:t></w:r></w:p>" for line in lines)
    vml = (
        '<w:pict><v:shape id="box" style="width:200pt;height:60pt" type="#_x0000_t202">'
        f"<v:textbox><w:txbxContent>{content}</w:txbxContent></v:textbox></v:shape></w:pict>"
    )
    drawing = (
        '<w:drawing><wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="2" '
        'behindDoc="0" locked="0" layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/>'
        '<wp:positionH relativeFrom="column"><wp:posOffset>0</wp:posOffset></wp:positionH>'
        '<wp:positionV relativeFrom="paragraph"><wp:posOffset>0</wp:posOffset></wp:positionV>'
        '<wp:extent cx="2540000" cy="762000"/><wp:wrapSquare wrapText="bothSides"/>'
        '<wp:docPr id="9" name="Text Box 9"/><a:graphic><a:graphicData '
        'uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp>'
        '<wps:cNvSpPr txBox="1"/><wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="2540000" cy="762000"/>'
        '</a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></wps:spPr>'
        f"<wps:txbx><w:txbxContent>{content}</w:txbxContent></wps:txbx><wps:bodyPr/></wps:wsp>"
        "</a:graphicData></a:graphic></wp:anchor></w:drawing>"
    )
    inner = (
        f'<mc:AlternateContent><mc:Choice Requires="wps">{drawing}</mc:Choice>'
        f"<mc:Fallback>{vml}</mc:Fallback></mc:AlternateContent>"
        if fallback
        else vml
    )
    paragraph._p.append(parse_xml(f"<w:r {_NS}>{inner}</w:r>"))


def _notes_part(document: docx.document.Document, kind: str, notes: list[str]) -> XmlPart:
    """A footnotes or endnotes part (`kind`) with its separators and one note a text, related to the body."""
    tag = kind.removesuffix("s")
    separators = (
        f'<w:{tag} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{tag}>'
        f'<w:{tag} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:{tag}>'
    )
    bodies = "".join(
        f'<w:{tag} w:id="{i}"><w:p><w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:{tag}Ref/></w:r>'
        f'<w:r><w:t xml:space="preserve"> {text}</w:t></w:r></w:p></w:{tag}>'
        for i, text in enumerate(notes, start=1)
    )
    blob = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:{kind} {_NS}>{separators}{bodies}</w:{kind}>'
    content_type = CONTENT_TYPE.WML_FOOTNOTES if kind == "footnotes" else CONTENT_TYPE.WML_ENDNOTES
    reltype = RELATIONSHIP_TYPE.FOOTNOTES if kind == "footnotes" else RELATIONSHIP_TYPE.ENDNOTES
    part = XmlPart(PackURI(f"/word/{kind}.xml"), content_type, parse_xml(blob.encode()), document.part.package)
    document.part.relate_to(part, reltype)
    return part


def note_reference(paragraph: docx.text.paragraph.Paragraph, kind: str, number: int) -> None:
    """A footnote or endnote mark (`kind`: footnote, endnote) at the end of `paragraph`."""
    run = paragraph.add_run()._r
    props = OxmlElement("w:rPr")
    align = OxmlElement("w:vertAlign")
    align.set(qn("w:val"), "superscript")
    props.append(align)
    mark = OxmlElement(f"w:{kind}Reference")
    mark.set(qn("w:id"), str(number))
    run.extend([props, mark])


def every_story() -> bytes:
    """A document with text in each story Word has: body (a paragraph of two sentences with a
    hyperlink each, a footnote and an endnote mark), a text box (DrawingML with its VML fallback)
    and an old VML one, a header, a footer, two footnotes (one with a hyperlink of its own part)
    and an endnote."""
    document = docx.Document()
    document.core_properties.language = "en-US"
    document.sections[0].header.paragraphs[0].text = "Annual survey of the northern region"
    document.sections[0].footer.paragraphs[0].text = "Printed for internal use only"
    document.add_heading("Survey results", level=1)
    first = document.add_paragraph("The survey reached most households")
    note_reference(first, "footnote", 1)
    first.add_run(" in the spring.")
    link = document.add_paragraph("Read the ")
    hyperlink(link, "full methodology")
    link.add_run(" before you quote a figure. Questions go to ")
    hyperlink(link, "the survey team", TEAM)
    link.add_run(".")
    boxed = document.add_paragraph("Key figures are in the box.")
    text_box(boxed, ["Nine in ten answered", "Most answers came by post"])
    text_box(document.add_paragraph(), ["An old box with its own words"], fallback=False)
    last = document.add_paragraph("The next survey starts in autumn")
    note_reference(last, "endnote", 1)
    last.add_run(".")
    footnotes = _notes_part(document, "footnotes", ["The survey ran from March to May.", "Households of one person"])
    _notes_part(document, "endnotes", ["Dates are set by the regional office."])
    r_id = footnotes.relate_to("https://example.org/notes", RELATIONSHIP_TYPE.HYPERLINK, is_external=True)
    second = footnotes.element.findall(f"{qn('w:footnote')}/{qn('w:p')}")[-1]
    second.append(
        parse_xml(
            f'<w:hyperlink {_NS} r:id="{r_id}"><w:r><w:rPr><w:u w:val="single"/></w:rPr>'
            '<w:t xml:space="preserve"> are counted apart</w:t></w:r></w:hyperlink>'
        )
    )
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def long_report(paragraphs: int) -> bytes:
    """A long report of about `paragraphs` paragraphs: headings, runs in bold and italic, hyperlinks,
    a table every 50 paragraphs, a header and a footer (a realistic density of elements per page)."""
    document = docx.Document()
    document.sections[0].header.paragraphs[0].text = "Annual report — internal"
    document.sections[0].footer.paragraphs[0].text = "Printed for internal use only"
    for i in range(paragraphs):
        if i % 20 == 0:
            document.add_heading(f"Chapter {i // 20 + 1}: regional results", level=1)
        elif i % 50 == 25:
            table = document.add_table(rows=3, cols=3)
            for row, cells in enumerate(table.rows):
                for column, cell in enumerate(cells.cells):
                    cell.text = f"Region {row}, figure {column}"
        else:
            paragraph = document.add_paragraph(f"Paragraph {i} reports that sales in the region grew ")
            paragraph.add_run("faster than forecast").bold = True
            paragraph.add_run(" while costs stayed ")
            paragraph.add_run("within the budget").italic = True
            paragraph.add_run(" agreed in spring; ")
            hyperlink(paragraph, "the method")
            paragraph.add_run(" explains how the figures were checked.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def with_part(data: bytes, name: str, body: bytes, *, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    """The package `data` with the member `name` replaced by (or added as) `body`, compressed by
    `method`; the other members as they were compressed."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as archive:
        for info in source.infolist():
            if info.filename != name:
                archive.writestr(info.filename, source.read(info.filename), info.compress_type)
        archive.writestr(name, body, method, compresslevel=9 if method == zipfile.ZIP_DEFLATED else None)
    return out.getvalue()


_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    f'<Override PartName="/word/document.xml" ContentType="{CONTENT_TYPE.WML_DOCUMENT_MAIN}"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    f'<Relationship Id="rId1" Type="{RELATIONSHIP_TYPE.OFFICE_DOCUMENT}" Target="word/document.xml"/>'
    "</Relationships>"
)


def bomb(megabytes: float, *, method: int = zipfile.ZIP_DEFLATED, unit: bytes = b"<w:p/>") -> bytes:
    """The smallest Word package (content types, relationships, a body) whose body is a paragraph of
    text then `megabytes` MB of `unit` (empty paragraphs): about 20 KB deflated for 20 MB."""
    filler = unit * int(megabytes * 1024 * 1024 / len(unit))
    body = (
        (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {nsdecls("w")}><w:body>'
            "<w:p><w:r><w:t>A short text before the empty paragraphs.</w:t></w:r></w:p>"
        ).encode()
        + filler
        + b"</w:body></w:document>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", _TYPES)
        archive.writestr("_rels/.rels", _RELS)
        archive.writestr("word/document.xml", body, method, compresslevel=9 if method == zipfile.ZIP_DEFLATED else None)
    return out.getvalue()
