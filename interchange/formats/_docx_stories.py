"""The stories of a Word document in reading order: each paragraph, where it is and its key.

The order is a translator's: the body, each text box's paragraphs right after the paragraph that
anchors it; then the headers and footers the sections reference (the first section's first, each
part once); then the footnotes, then the endnotes (as Word prints them: after the text that calls
them). Comments, the glossary document and text in charts or SmartArt are not read.

Keys: `body/p[12]` is the body's 12th paragraph (text boxes' paragraphs not counted),
`body/textbox[2]/p[1]` the first paragraph of the body's second text box, `header1/p[1]`,
`footnotes/p[3]`, `endnotes/p[2]` (a part's name; notes' separators count as paragraphs).

Word writes a text box twice: a DrawingML shape (`mc:Choice`) and its VML fallback (`mc:Fallback`)
for older readers. It is read once, from the shape; `twins` pairs each of the shape's paragraphs with
the fallback's, so that writing can fill both.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from docx.document import Document
from docx.opc.constants import RELATIONSHIP_TYPE
from docx.opc.part import XmlPart
from docx.oxml.ns import qn
from docx.parts.hdrftr import FooterPart, HeaderPart
from lxml import etree

_MC: Final = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_P: Final = qn("w:p")
_BOX: Final = qn("w:txbxContent")
_NOTES: Final = ((RELATIONSHIP_TYPE.FOOTNOTES, "footnote"), (RELATIONSHIP_TYPE.ENDNOTES, "endnote"))


@dataclass(frozen=True, slots=True)
class Place:
    """A paragraph of a story: its key, the story it is in, whether a text box holds it, its element."""

    key: str
    where: str
    """`body`, `header`, `footer`, `footnote` or `endnote`."""
    boxed: bool
    p: etree._Element


def stories(document: Document) -> list[tuple[str, str, etree._Element]]:
    """Each story read: its label, where it is (`Place.where`) and its root element, in order."""
    found = [("body", "body", document.element.body)]
    seen = {str(document.part.partname)}
    related = document.part.related_parts
    for section in document.sections:
        for reference in section._sectPr.iterchildren(qn("w:headerReference"), qn("w:footerReference")):
            part = related.get(reference.get(qn("r:id")) or "")
            if isinstance(part, HeaderPart | FooterPart) and str(part.partname) not in seen:
                seen.add(str(part.partname))
                where = "header" if reference.tag == qn("w:headerReference") else "footer"
                found.append((_label(part), where, part.element))
    for reltype, where in _NOTES:
        for rel in document.part.rels.values():
            part = None if rel.is_external or rel.reltype != reltype else rel.target_part
            if isinstance(part, XmlPart) and str(part.partname) not in seen:
                seen.add(str(part.partname))
                found.append((_label(part), where, part.element))
    return found


def paragraphs(document: Document) -> Iterator[Place]:
    """Every paragraph of every story, in the order of the module's note."""
    for label, where, root in stories(document):
        yield from _story(label, where, root)


def twins(root: etree._Element) -> dict[etree._Element, etree._Element]:
    """Each text box paragraph of a DrawingML shape in `root`, to its twin in the shape's VML fallback
    (where the two hold as many text boxes, and each pair as many paragraphs)."""
    found: dict[etree._Element, etree._Element] = {}
    for alternate in root.iter(f"{_MC}AlternateContent"):
        choice, fallback = alternate.find(f"{_MC}Choice"), alternate.find(f"{_MC}Fallback")
        if choice is None or fallback is None:
            continue
        shapes, olds = list(choice.iter(_BOX)), list(fallback.iter(_BOX))
        if len(shapes) != len(olds):
            continue
        for shape, old in zip(shapes, olds, strict=True):
            mine, theirs = _own(shape), _own(old)
            if len(mine) == len(theirs):
                found.update(zip(mine, theirs, strict=True))
    return found


def _story(label: str, where: str, root: etree._Element) -> Iterator[Place]:
    index = 0
    boxes: dict[etree._Element, tuple[int, int]] = {}
    for p in root.iter(_P):
        box, fallback = _box_of(p)
        if fallback:
            continue  # the VML copy of a text box read from its shape
        if box is None:
            index += 1
            yield Place(f"{label}/p[{index}]", where, False, p)
            continue
        number, count = boxes.get(box, (len(boxes) + 1, 0))
        boxes[box] = (number, count + 1)
        yield Place(f"{label}/textbox[{number}]/p[{count + 1}]", where, True, p)


def _box_of(p: etree._Element) -> tuple[etree._Element | None, bool]:
    """The text box that holds `p` (its nearest), and whether `p` is in an `mc:Fallback`."""
    box = None
    for ancestor in p.iterancestors():
        if ancestor.tag == _BOX and box is None:
            box = ancestor
        elif ancestor.tag == f"{_MC}Fallback":
            return box, True
    return box, False


def _own(box: etree._Element) -> list[etree._Element]:
    """The paragraphs of a text box, not of a text box inside it."""
    return [p for p in box.iter(_P) if _box_of(p)[0] is box]


def _label(part: XmlPart) -> str:
    return str(part.partname).rsplit("/", 1)[-1].removesuffix(".xml")
