"""Bilingual exports of a file's segments: XLIFF 2.0 core and XLIFF 1.2.

One unit per segment (written unit or untranslated span), in source order, `xml:space="preserve"`
so the text comes back exactly; the segment's notes (the reviewer's reasons and corrections) as the
unit's notes; states as `states.py` says. A segment without a target is written without one (2.0
state `initial`). Unit ids are the segments' ids made into NMTOKENs (other characters become `_`,
a repeated id gets `-2`, `-3`…).

Inline codes: a segment of an XLIFF source carries its codes, written as the format's inline
elements (`inline_out.py`). A target whose placeholders do not fit them (repeated, crossed, closed
before opened, left open) is written as plain text with the state of a pending proposal and a note
of category `placeholders` saying why; `Exported.left` names those segments. Text kept verbatim
(status `verbatim`) is a `translate="no"` unit whose target is its source. Characters XML forbids
become `<cp/>` in 2.0 content and U+FFFD elsewhere (`_xml.clean`).
"""

from __future__ import annotations

import re

from lxml import etree

from . import codes as inline
from ._names import UniqueNames
from ._xml import XML_LANG, XML_SPACE, clean
from .errors import PlaceholderError
from .inline_out import Format, write_inline
from .model import BilingualExport, BilingualSegment, Exported, Note, Status
from .states import xliff2_state, xliff12_state

NS20 = "urn:oasis:names:tc:xliff:document:2.0"
NS12 = "urn:oasis:names:tc:xliff:document:1.2"
TOOL = "translation-agent"
_NOT_NMTOKEN = re.compile(r"[^\w.:-]")
_PROCESS = {
    "pending": "translation",
    "verbatim": "translation",
    "approved": "review",
    "refined": "review",
    "revised": "revision",
    "translated": "translation",
    "reviewed": "review",
}
PLACEHOLDER_NOTE = "placeholders"
"""The category (2.0) / `from` (1.2) of the note on a target written as plain text."""


def export_xliff2(doc: BilingualExport) -> Exported:
    """The segments as an XLIFF 2.0 document (core only, valid against xliff_core_2.0.xsd)."""
    attrs = {"version": "2.0", "srcLang": clean(doc.source_language), "trgLang": clean(doc.target_language or "und")}
    root = etree.Element(f"{{{NS20}}}xliff", attrib=attrs, nsmap={None: NS20})
    file = etree.SubElement(root, f"{{{NS20}}}file", attrib={"id": "f1", "original": clean(doc.file_name)})
    left: list[str] = []
    for unit_id, segment in zip(_unit_ids(doc.segments), doc.segments, strict=True):
        unit = etree.SubElement(file, f"{{{NS20}}}unit", attrib={"id": unit_id, XML_SPACE: "preserve"})
        if segment.status == "verbatim":
            unit.set("translate", "no")
        target, status, why = _target(f"{{{NS20}}}target", segment, "xliff2")
        notes = segment.notes + ((why,) if why else ())
        if notes:
            holder = etree.SubElement(unit, f"{{{NS20}}}notes")
            for note in notes:
                element = etree.SubElement(holder, f"{{{NS20}}}note")
                if note.category:
                    element.set("category", clean(note.category))
                inline._append_text(element, note.text, "2.0")
        state, sub_state = xliff2_state(status)
        seg = etree.SubElement(unit, f"{{{NS20}}}segment", attrib={"state": state, "subState": sub_state})
        _write(etree.SubElement(seg, f"{{{NS20}}}source"), segment.source, segment, "xliff2")
        if target is not None:
            seg.append(target)
        if why:
            left.append(segment.id)
    return Exported(text=_text(root), left=tuple(left))


def export_xliff12(doc: BilingualExport) -> Exported:
    """The segments as an XLIFF 1.2 document; the exact status is each target's `phase-name`."""
    root = etree.Element(f"{{{NS12}}}xliff", attrib={"version": "1.2"}, nsmap={None: NS12})
    attrs = {"original": clean(doc.file_name), "source-language": clean(doc.source_language), "datatype": "plaintext"}
    if doc.target_language:
        attrs["target-language"] = clean(doc.target_language)
    file = etree.SubElement(root, f"{{{NS12}}}file", attrib=attrs)
    header = etree.SubElement(file, f"{{{NS12}}}header")
    phases = etree.SubElement(header, f"{{{NS12}}}phase-group")
    etree.SubElement(header, f"{{{NS12}}}tool", attrib={"tool-id": TOOL, "tool-name": TOOL})
    body = etree.SubElement(file, f"{{{NS12}}}body")
    used: set[Status] = set()
    left: list[str] = []
    for unit_id, segment in zip(_unit_ids(doc.segments), doc.segments, strict=True):
        status, plain = _trans_unit(body, unit_id, segment, doc)
        if status is not None:
            used.add(status)
        if plain:
            left.append(segment.id)
    for status in (s for s in _PROCESS if s in used):
        etree.SubElement(
            phases, f"{{{NS12}}}phase", attrib={"phase-name": status, "process-name": _PROCESS[status], "tool-id": TOOL}
        )
    if not used:
        header.remove(phases)
    return Exported(text=_text(root), left=tuple(left))


def _trans_unit(
    body: etree._Element, unit_id: str, segment: BilingualSegment, doc: BilingualExport
) -> tuple[Status | None, bool]:
    """Write one trans-unit; the status its target has (None without one), and whether it is plain text."""
    unit = etree.SubElement(body, f"{{{NS12}}}trans-unit", attrib={"id": unit_id, XML_SPACE: "preserve"})
    if segment.status == "verbatim":
        unit.set("translate", "no")
    source = etree.SubElement(unit, f"{{{NS12}}}source", attrib={XML_LANG: clean(doc.source_language)})
    _write(source, segment.source, segment, "xliff12")
    target, status, why = _target(f"{{{NS12}}}target", segment, "xliff12")
    if target is not None:
        unit.append(target)
        if doc.target_language:
            target.set(XML_LANG, clean(doc.target_language))
        target.set("state", xliff12_state(status))
        if status == "pending":
            target.set("state-qualifier", "mt-suggestion")
        if status in _PROCESS:
            target.set("phase-name", status)
        unit.set("approved", "no" if status in ("pending", "translated") else "yes")
    for note in segment.notes + ((why,) if why else ()):
        element = etree.SubElement(unit, f"{{{NS12}}}note")
        if note.category:
            element.set("from", clean(note.category))
        inline._append_text(element, note.text, "1.2")
    return (status if target is not None else None), why is not None


def _target(tag: str, segment: BilingualSegment, fmt: Format) -> tuple[etree._Element | None, Status, Note | None]:
    """The target element (None without a target), the status to write, and a note when it is plain text."""
    if segment.target is None:
        return None, "untranslated", None
    target = etree.Element(tag)
    text = segment.source if segment.status == "verbatim" else segment.target
    why = _write(target, text, segment, fmt)
    if why is None:
        return target, segment.status, None
    note = Note(
        text=f"The placeholders of this target do not match the source's inline codes: {why} "
        "It is written as plain text, for review.",
        category=PLACEHOLDER_NOTE,
    )
    return target, "pending", note


def _write(element: etree._Element, text: str, segment: BilingualSegment, fmt: Format) -> str | None:
    """Write `text` with the segment's inline codes; on a placeholder error, as plain text (the error)."""
    version: inline.Version = "2.0" if fmt == "xliff2" else "1.2"
    if not segment.codes:
        inline._append_text(element, text, version)
        return None
    try:
        write_inline(element, text, segment.source, segment.codes, fmt)
        return None
    except PlaceholderError as exc:
        for child in list(element):
            element.remove(child)
        element.text = None
        inline._append_text(element, text, version)
        return str(exc)


def _unit_ids(segments: tuple[BilingualSegment, ...]) -> list[str]:
    unique = UniqueNames("-")
    return [unique(_NOT_NMTOKEN.sub("_", segment.id) or "u") for segment in segments]


def _text(root: etree._Element) -> str:
    data: bytes = etree.tostring(root, encoding="UTF-8", xml_declaration=True, pretty_print=True)
    return data.decode("utf-8")
