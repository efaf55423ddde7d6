"""Bilingual exports of a file's segments: XLIFF 2.0 core and XLIFF 1.2.

One unit per segment (written unit or untranslated span), in source order, `xml:space="preserve"`
so the text comes back exactly; the segment's notes (the reviewer's reasons and corrections) as the
unit's notes; states as `states.py` says. A segment without a target is written without one (2.0
state `initial`). Unit ids are the segments' ids made into NMTOKENs (other characters become `_`,
a repeated id gets `-2`, `-3`…).
"""

from __future__ import annotations

import re

from lxml import etree

from . import codes as inline
from ._xml import XML_LANG, XML_SPACE
from .model import BilingualExport, BilingualSegment
from .states import xliff2_state, xliff12_state

NS20 = "urn:oasis:names:tc:xliff:document:2.0"
NS12 = "urn:oasis:names:tc:xliff:document:1.2"
TOOL = "translation-agent"
_NOT_NMTOKEN = re.compile(r"[^\w.:-]")
_PROCESS = {"pending": "translation", "verbatim": "translation", "approved": "review", "refined": "review",
            "revised": "revision"}


def export_xliff2(doc: BilingualExport) -> str:
    """The segments as an XLIFF 2.0 document (core only, valid against xliff_core_2.0.xsd)."""
    attrs = {"version": "2.0", "srcLang": doc.source_language, "trgLang": doc.target_language or "und"}
    root = etree.Element(f"{{{NS20}}}xliff", attrib=attrs, nsmap={None: NS20})
    file = etree.SubElement(root, f"{{{NS20}}}file", attrib={"id": "f1", "original": doc.file_name})
    for unit_id, segment in zip(_unit_ids(doc.segments), doc.segments, strict=True):
        unit = etree.SubElement(file, f"{{{NS20}}}unit", attrib={"id": unit_id, XML_SPACE: "preserve"})
        if segment.notes:
            notes = etree.SubElement(unit, f"{{{NS20}}}notes")
            for note in segment.notes:
                element = etree.SubElement(notes, f"{{{NS20}}}note")
                if note.category:
                    element.set("category", note.category)
                inline._append_text(element, note.text, "2.0")
        has_target = segment.target is not None
        state, sub_state = xliff2_state(segment.status if has_target else "untranslated")
        seg = etree.SubElement(unit, f"{{{NS20}}}segment", attrib={"state": state, "subState": sub_state})
        inline._append_text(etree.SubElement(seg, f"{{{NS20}}}source"), segment.source, "2.0")
        if segment.target is not None:
            inline._append_text(etree.SubElement(seg, f"{{{NS20}}}target"), segment.target, "2.0")
    return _text(root)


def export_xliff12(doc: BilingualExport) -> str:
    """The segments as an XLIFF 1.2 document; the exact status is each target's `phase-name`."""
    root = etree.Element(f"{{{NS12}}}xliff", attrib={"version": "1.2"}, nsmap={None: NS12})
    attrs = {"original": doc.file_name, "source-language": doc.source_language, "datatype": "plaintext"}
    if doc.target_language:
        attrs["target-language"] = doc.target_language
    file = etree.SubElement(root, f"{{{NS12}}}file", attrib=attrs)
    header = etree.SubElement(file, f"{{{NS12}}}header")
    used = [s for s in _PROCESS if any(g.status == s and g.target is not None for g in doc.segments)]
    if used:
        phases = etree.SubElement(header, f"{{{NS12}}}phase-group")
        for status in used:
            etree.SubElement(phases, f"{{{NS12}}}phase", attrib={
                "phase-name": status, "process-name": _PROCESS[status], "tool-id": TOOL})
    etree.SubElement(header, f"{{{NS12}}}tool", attrib={"tool-id": TOOL, "tool-name": TOOL})
    body = etree.SubElement(file, f"{{{NS12}}}body")
    for unit_id, segment in zip(_unit_ids(doc.segments), doc.segments, strict=True):
        _trans_unit(body, unit_id, segment, doc)
    return _text(root)


def _trans_unit(body: etree._Element, unit_id: str, segment: BilingualSegment, doc: BilingualExport) -> None:
    unit = etree.SubElement(body, f"{{{NS12}}}trans-unit", attrib={"id": unit_id, XML_SPACE: "preserve"})
    source = etree.SubElement(unit, f"{{{NS12}}}source", attrib={XML_LANG: doc.source_language})
    inline._append_text(source, segment.source, "1.2")
    if segment.target is not None:
        target = etree.SubElement(unit, f"{{{NS12}}}target")
        if doc.target_language:
            target.set(XML_LANG, doc.target_language)
        target.set("state", xliff12_state(segment.status))
        if segment.status == "pending":
            target.set("state-qualifier", "mt-suggestion")
        if segment.status in _PROCESS:
            target.set("phase-name", segment.status)
        inline._append_text(target, segment.target, "1.2")
        unit.set("approved", "no" if segment.status == "pending" else "yes")
    for note in segment.notes:
        element = etree.SubElement(unit, f"{{{NS12}}}note")
        if note.category:
            element.set("from", note.category)
        inline._append_text(element, note.text, "1.2")


def _unit_ids(segments: tuple[BilingualSegment, ...]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for segment in segments:
        base = _NOT_NMTOKEN.sub("_", segment.id) or "u"
        candidate, n = base, 1
        while candidate in seen:
            n += 1
            candidate = f"{base}-{n}"
        seen.add(candidate)
        out.append(candidate)
    return out


def _text(root: etree._Element) -> str:
    data: bytes = etree.tostring(root, encoding="UTF-8", xml_declaration=True, pretty_print=True)
    return data.decode("utf-8")
