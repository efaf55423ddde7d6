"""Word documents (`.docx`, uploaded as bytes): each paragraph with text is an entry; runs and styles kept.

Read with python-docx: the paragraphs of the body (tables' cells and content controls included,
nested tables too) and of every header and footer the sections reference, in that order; empty
paragraphs are no entries but keep their place in the keys. Text boxes, footnotes, endnotes and
comments are not read (their text stays as it is). A paragraph's key is its part and position
among the part's paragraphs (`body/p[12]`, `header1/p[1]`); its note, its style's name when it is
not the default (`Heading 1`) and where it sits (`table cell`, `header`, `footer`). Run boundaries
are placeholders (`_docx_runs`): text formatted differently from the paragraph's own (bold, italic,
a hyperlink, a character style) is `{n}…{/n}`, a drawing, field, page break or note reference is
`{n}`; `Entry.codes` lists these tokens, and any brace placeholder the text already has (`{0}`,
`{name}`: locked too, and never taken for a run's placeholder). A tab is `\\t` and a line break `\\n` in the text, and
`\\t`/`\\n` in a translation become a tab and a line break in the run they fall in.

Writing fills each translated paragraph in place (its properties, bookmarks, fields and drawings
kept; see `_docx_runs`), sets `w:lang` to the target language in the document defaults, the core
properties' language and the rewritten runs where they name one, and saves through python-docx:
parts it parses are re-serialised by lxml (their XML is the same, not their bytes); the rest of
the package (media, custom XML, other parts) is copied as it was.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from typing import Final

import docx
from docx.document import Document
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from lxml import etree

from ..limits import MAX_SEGMENTS
from ._docx_runs import Paragraph
from .base import Entry, FileFormat, FormatError, Resource, Target

MAX_UNPACKED: Final = 200 * 1024 * 1024
"""The most bytes a document's parts may hold once unpacked (a zip bomb is refused before parsing)."""
_MEDIA_TYPE: Final = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


class DocxFormat(FileFormat):
    """Word documents: paragraphs in, the same document with paragraphs translated out."""

    name = "docx"
    extensions = (".docx",)
    binary = True
    media_type = _MEDIA_TYPE

    def read(self, data: bytes) -> Resource:
        """The paragraphs with text, body first, then headers and footers."""
        document = _open(data)
        styles = _style_names(document)
        entries: list[Entry] = []
        for key, where, p in _paragraphs(document):
            paragraph = Paragraph(p)
            if not paragraph.has_text:
                continue
            entries.append(
                Entry(
                    key=key,
                    source=paragraph.text(),
                    note=_note(p, where, styles),
                    codes=paragraph.codes(),
                    document=True,
                )
            )
            if len(entries) > MAX_SEGMENTS:
                raise FormatError(f"docx: more than {MAX_SEGMENTS} paragraphs with text")
        if not entries:
            raise FormatError("docx: no paragraph has text to translate")
        language = document.core_properties.language
        return Resource(entries=tuple(entries), source_language=language or None)

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The document with each translated paragraph filled and its language set."""
        document = _open(data)
        for key, _, p in _paragraphs(document):
            target = targets.get(key)
            if target is None:
                continue
            if not isinstance(target, str):
                raise ValueError(f"{key}: a paragraph takes a text, not plural forms")
            paragraph = Paragraph(p)
            if paragraph.has_text:
                paragraph.fill(target, language=target_language)
        _set_language(document, target_language)
        out = io.BytesIO()
        document.save(out)
        return out.getvalue()


def _open(data: bytes) -> Document:
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise FormatError("docx: not a Word document (.docx files are ZIP archives; this is not one)")
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise FormatError(f"docx: a damaged ZIP archive ({exc})") from exc
    if unpacked > MAX_UNPACKED:
        raise FormatError(f"docx: {unpacked} bytes once unpacked; the most is {MAX_UNPACKED}")
    if "[Content_Types].xml" not in names or not any(n.startswith("word/") for n in names):
        raise FormatError("docx: a ZIP archive but not a Word document (no [Content_Types].xml or word/ part)")
    try:
        return docx.Document(io.BytesIO(data))
    except etree.XMLSyntaxError as exc:
        raise FormatError(f"docx: a part is not well-formed XML: {exc}") from exc
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise FormatError(f"docx: not a readable Word document ({exc})") from exc
    except (AttributeError, TypeError) as exc:  # python-docx meeting a part it expects and does not find
        raise FormatError(f"docx: a damaged Word package ({exc})") from exc


def _paragraphs(document: Document) -> Iterator[tuple[str, str, etree._Element]]:
    """Each paragraph of the body, then of each header and footer: its key, where it is, its element."""
    yield from _part_paragraphs("body", "body", document.element.body)
    seen: set[str] = set()
    related = document.part.related_parts
    for section in document.sections:
        for reference in section._sectPr.iterchildren(qn("w:headerReference"), qn("w:footerReference")):
            part = related.get(reference.get(qn("r:id")) or "")
            if part is None or str(part.partname) in seen:
                continue
            seen.add(str(part.partname))
            label = str(part.partname).rsplit("/", 1)[-1].removesuffix(".xml")
            where = "header" if reference.tag == qn("w:headerReference") else "footer"
            yield from _part_paragraphs(label, where, part.element)


def _part_paragraphs(label: str, where: str, root: etree._Element) -> Iterator[tuple[str, str, etree._Element]]:
    index = 0
    for p in root.iter(qn("w:p")):
        if any(a.tag == qn("w:txbxContent") for a in p.iterancestors()):
            continue  # a text box's paragraph: part of the drawing that holds it
        index += 1
        yield f"{label}/p[{index}]", where, p


def _style_names(document: Document) -> dict[str, str]:
    return {style.style_id: style.name or style.style_id for style in document.styles}


def _note(p: etree._Element, where: str, styles: Mapping[str, str]) -> str | None:
    parts: list[str] = []
    style = p.find(f"{qn('w:pPr')}/{qn('w:pStyle')}")
    if style is not None:
        name = styles.get(style.get(qn("w:val")) or "", style.get(qn("w:val")) or "")
        if name and name != "Normal":
            parts.append(name)
    if any(a.tag == qn("w:tc") for a in p.iterancestors()):
        parts.append("table cell")
    if where != "body" and where not in (part.lower() for part in parts):  # not "Header, header"
        parts.append(where)
    return ", ".join(parts) or None


def _set_language(document: Document, language: str) -> None:
    """The target language where the document names one: its defaults and its core properties."""
    styles = document.styles.element
    lang = styles.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}/{qn('w:lang')}")
    if lang is not None and lang.get(qn("w:val")):
        lang.set(qn("w:val"), language)
    if document.core_properties.language:
        document.core_properties.language = language


FORMAT = DocxFormat()
