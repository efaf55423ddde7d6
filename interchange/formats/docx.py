"""Word documents (`.docx`, uploaded as bytes): each paragraph with text is an entry; runs and styles kept.

The package is opened within limits (`_docx_package`: members, unpacked bytes, compression ratio,
XML elements, all checked before python-docx parses anything). Read with python-docx (and lxml on
the parts python-docx has no objects for): the paragraphs of every story (`_docx_stories`), in a
translator's order: the body (tables' cells, content controls and nested tables included), each text
box's paragraphs after the paragraph that anchors it, then the headers and footers the sections
reference, then the footnotes, then the endnotes. Empty paragraphs are no entries but keep their
place in the keys; comments are not read. A paragraph's key is its story and position (`body/p[12]`,
`body/textbox[1]/p[2]`, `header1/p[1]`, `footnotes/p[3]`); its note, its style's name when it is not
the default (`Heading 1`) and where it sits (`table cell`, `text box`, `header`, `footer`, `footnote`,
`endnote`). Run boundaries are placeholders (`_docx_runs`): text formatted differently from the
paragraph's own (bold, italic, a hyperlink, a character style) is `{n}…{/n}`, a drawing, field, page
break or note reference is `{n}`; `Entry.codes` lists these tokens, and any brace placeholder the text
already has (`{0}`, `{name}`: locked too, and never taken for a run's placeholder). A tab is `\\t`
and a line break `\\n` in the text, and `\\t`/`\\n` in a translation become a tab and a line break in
the run they fall in.

Writing fills each translated paragraph in place (its properties, bookmarks, fields, drawings and
hyperlinks with their relationships kept; see `_docx_runs`; a text box's VML fallback gets the same
text as its shape), sets `w:lang` to the target language in the document defaults, the core
properties' language and the rewritten runs where they name one, and saves through python-docx:
parts it parses are re-serialised by lxml (their XML is the same, not their bytes); the rest of
the package (media, custom XML, other parts) is copied as it was.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from copy import deepcopy
from typing import Final

from docx.document import Document
from docx.oxml.ns import qn
from lxml import etree

from ..limits import MAX_SEGMENTS
from ._docx_package import open_document, release
from ._docx_runs import Paragraph, has_words
from ._docx_stories import Place, paragraphs, stories, twins
from .base import Entry, FileFormat, FormatError, Resource, Target

_MEDIA_TYPE: Final = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


class DocxFormat(FileFormat):
    """Word documents: paragraphs in, the same document with paragraphs translated out."""

    name = "docx"
    extensions = (".docx",)
    binary = True
    media_type = _MEDIA_TYPE

    def read(self, data: bytes) -> Resource:
        """The paragraphs with text of every story, in the order of the module's note."""
        document = open_document(data)
        entries = _entries(document)
        language = document.core_properties.language
        release(document)
        return Resource(entries=entries, source_language=language or None)

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The document with each translated paragraph filled and its language set."""
        document = open_document(data)
        _fill(document, targets, target_language)
        _set_language(document, target_language)
        out = io.BytesIO()
        document.save(out)
        release(document)
        return out.getvalue()


def _entries(document: Document) -> tuple[Entry, ...]:
    """The document's entries (every element it looked at is let go on return: see `release`)."""
    styles = _style_names(document)
    entries: list[Entry] = []
    for place in paragraphs(document):
        if not has_words(place.p):
            continue
        paragraph = Paragraph(place.p)
        if not paragraph.has_text:
            continue
        entries.append(
            Entry(
                key=place.key,
                source=paragraph.text(),
                note=_note(place, styles),
                codes=paragraph.codes(),
                document=True,
            )
        )
        if len(entries) > MAX_SEGMENTS:
            raise FormatError(f"docx: more than {MAX_SEGMENTS} paragraphs with text")
    if not entries:
        raise FormatError("docx: no paragraph has text to translate")
    return tuple(entries)


def _fill(document: Document, targets: Mapping[str, Target], language: str) -> None:
    """Each paragraph named in `targets` filled, and its text box's VML twin with it (every element
    it looked at is let go on return: see `release`)."""
    chosen: list[tuple[etree._Element, str]] = []
    for place in paragraphs(document):  # found first, filled after: filling changes the tree
        target = targets.get(place.key)
        if target is None:
            continue
        if not isinstance(target, str):
            raise ValueError(f"{place.key}: a paragraph takes a text, not plural forms")
        chosen.append((place.p, target))
    copies = _fallbacks(document) if chosen else {}
    for p, target in chosen:
        paragraph = Paragraph(p)
        if not paragraph.has_text:
            continue
        source = paragraph.text()
        paragraph.fill(target, language=language)
        twin = copies.get(p)
        if twin is not None:
            _fill_twin(twin, p, source, target, language)


def _fallbacks(document: Document) -> dict[etree._Element, etree._Element]:
    """Every text box paragraph's VML twin, in every part the stories are read from."""
    found: dict[etree._Element, etree._Element] = {}
    for _, _, root in stories(document):
        found.update(twins(root))
    return found


def _fill_twin(twin: etree._Element, p: etree._Element, source: str, target: str, language: str) -> None:
    """The VML fallback's paragraph filled as its shape's was: with the same text where it reads the
    same, else replaced by a copy of the shape's paragraph."""
    paragraph = Paragraph(twin)
    if paragraph.text() == source:
        paragraph.fill(target, language=language)
        return
    parent = twin.getparent()
    if parent is not None:
        parent.replace(twin, deepcopy(p))


def _style_names(document: Document) -> dict[str, str]:
    return {style.style_id: style.name or style.style_id for style in document.styles}


def _note(place: Place, styles: Mapping[str, str]) -> str | None:
    parts: list[str] = []
    style = place.p.find(f"{qn('w:pPr')}/{qn('w:pStyle')}")
    if style is not None:
        name = styles.get(style.get(qn("w:val")) or "", style.get(qn("w:val")) or "")
        if name and name != "Normal":
            parts.append(name)
    if any(a.tag == qn("w:tc") for a in place.p.iterancestors()):
        parts.append("table cell")
    if place.boxed:
        parts.append("text box")
    if place.where != "body" and not any(place.where in part.lower() for part in parts):  # not "Header, header"
        parts.append(place.where)
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
