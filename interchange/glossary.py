"""Glossary interchange: CSV (`source,target` header, more columns allowed) and TBX (v3 and 2008 `martif`).

CSV: the header row names the columns (any case, any order, extra columns ignored; `term`/`translation`
are accepted too; a `kind` column says `preferred`, `forbidden` or `keep`); quoted fields and a
byte-order mark are fine; a row without a source or a target is left out. Written as RFC 4180 CSV
(`\\r\\n` line ends, quotes where needed), formula-like cells neutralised and read back exactly
(`csv_cells.py`).

TBX: written as TBX-Basic v3 (ISO 30042:2019, `<tbx type="TBX-Basic">`, one `<conceptEntry>` per
term); read from v3 (`conceptEntry/langSec/termSec/term`) and TBX 2008 / TBX-Basic (`martif`,
`termEntry/langSet/tig|ntig/term`). Within an entry, the terms in the source language pair with the
first source term of every other language. A target term's status is its kind: `administrativeStatus`
(TBX-Basic: `deprecatedTerm-admn-sts` or `supersededTerm-admn-sts` is forbidden, any other allowed)
or `normativeAuthorization` (TBX 2008: `deprecatedTerm`, `supersededTerm`); written as
`administrativeStatus` (`preferredTerm-admn-sts`, `deprecatedTerm-admn-sts`). A term to keep is
written as itself in the target language (an identity, which reads back as `keep`).
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from langfacts import same_language

from ._xml import XML_LANG, clean, local, parse
from .csv_cells import read_csv, write_csv
from .errors import UnsupportedFormat
from .model import GlossaryTerm

NS_TBX = "urn:iso:std:iso:30042:ed-2"
_SOURCE_NAMES = ("source", "term", "source term", "source_term")
_TARGET_NAMES = ("target", "translation", "target term", "target_term")
KINDS = ("preferred", "forbidden", "keep")
_KIND_NAMES = {
    "preferred": "preferred",
    "forbidden": "forbidden",
    "deprecated": "forbidden",
    "do not use": "forbidden",
    "keep": "keep",
    "do not translate": "keep",
    "dnt": "keep",
}
_STATUS_TYPES = ("administrativestatus", "normativeauthorization")
_FORBIDDEN_STATUSES = ("deprecatedterm", "supersededterm")


def export_glossary_csv(terms: Sequence[GlossaryTerm]) -> str:
    """The terms as CSV with a `source,target,kind` header."""
    return write_csv([["source", "target", "kind"], *([t.source, t.target, t.kind or "preferred"] for t in terms)])


def csv_kind(cell: str, row: int) -> str | None:
    """A CSV `kind` cell as one of KINDS (None when blank); UnsupportedFormat for anything else."""
    name = " ".join(cell.split()).casefold()
    if not name:
        return None
    if name not in _KIND_NAMES:
        raise UnsupportedFormat(f"Row {row}: kind {cell[:40]!r} is not one of {', '.join(KINDS)}.")
    return _KIND_NAMES[name]


def parse_glossary_csv(text: str) -> list[GlossaryTerm]:
    """The terms of a CSV glossary (a `languages` column becomes each term's `tgtlang`, as written; a
    `kind` column each term's kind).

    UnsupportedFormat when the header has no source and target, a kind is unknown, or the CSV cannot be read."""
    rows = iter(read_csv(text))
    header = next(rows, None)
    names = [" ".join(h.split()).casefold() for h in header or []]
    source = next((names.index(n) for n in _SOURCE_NAMES if n in names), None)
    target = next((names.index(n) for n in _TARGET_NAMES if n in names), None)
    if source is None or target is None:
        raise UnsupportedFormat("The CSV glossary needs a header row naming a 'source' and a 'target' column.")
    at = names.index("languages") if "languages" in names else None
    kind_at = names.index("kind") if "kind" in names else None
    terms: list[GlossaryTerm] = []
    for number, row in enumerate(rows, start=2):
        if len(row) <= max(source, target):
            continue
        pair = row[source].strip(), row[target].strip()
        languages = row[at].strip() if at is not None and at < len(row) else ""
        kind = csv_kind(row[kind_at], number) if kind_at is not None and kind_at < len(row) else None
        if all(pair):
            terms.append(GlossaryTerm(source=pair[0], target=pair[1], tgtlang=languages or None, kind=kind))
    return terms


def export_tbx(terms: Sequence[GlossaryTerm], *, srclang: str, tgtlang: str) -> str:
    """The terms as a TBX-Basic v3 document; a term's own languages win over `srclang`/`tgtlang`."""
    root = etree.Element(
        f"{{{NS_TBX}}}tbx", attrib={"style": "dca", "type": "TBX-Basic", XML_LANG: clean(srclang)}, nsmap={None: NS_TBX}
    )
    header = etree.SubElement(root, f"{{{NS_TBX}}}tbxHeader")
    desc = etree.SubElement(etree.SubElement(header, f"{{{NS_TBX}}}fileDesc"), f"{{{NS_TBX}}}sourceDesc")
    etree.SubElement(desc, f"{{{NS_TBX}}}p").text = "Glossary exported by translation-agent"
    body = etree.SubElement(etree.SubElement(root, f"{{{NS_TBX}}}text"), f"{{{NS_TBX}}}body")
    for number, term in enumerate(terms, start=1):
        entry = etree.SubElement(body, f"{{{NS_TBX}}}conceptEntry", attrib={"id": f"c{number}"})
        target = term.source if term.kind == "keep" else term.target
        status = "deprecatedTerm-admn-sts" if term.kind == "forbidden" else "preferredTerm-admn-sts"
        sides = ((term.srclang or srclang, term.source, None), (term.tgtlang or tgtlang, target, status))
        for lang, text, note in sides:
            lang_sec = etree.SubElement(entry, f"{{{NS_TBX}}}langSec", attrib={XML_LANG: clean(lang)})
            term_sec = etree.SubElement(lang_sec, f"{{{NS_TBX}}}termSec")
            etree.SubElement(term_sec, f"{{{NS_TBX}}}term").text = clean(text)
            if note is not None:
                etree.SubElement(term_sec, f"{{{NS_TBX}}}termNote", attrib={"type": "administrativeStatus"}).text = note
    data: bytes = etree.tostring(root, encoding="UTF-8", xml_declaration=True, pretty_print=True)
    return data.decode("utf-8")


def parse_tbx(text: str, *, srclang: str | None = None) -> list[GlossaryTerm]:
    """The term pairs of a TBX v3 or TBX 2008 document; the source language defaults to the document's."""
    tree, _ = parse(text)
    root = tree.getroot()
    if local(root.tag) not in ("tbx", "martif"):
        raise UnsupportedFormat("This is not a TBX document (its root element is neither <tbx> nor <martif>).")
    source_lang = srclang or root.get(XML_LANG)
    terms: list[GlossaryTerm] = []
    for entry in root.iter():
        if local(entry.tag) in ("conceptEntry", "termEntry"):
            terms.extend(_entry_terms(entry, source_lang))
    return terms


def _entry_terms(entry: etree._Element, source_lang: str | None) -> list[GlossaryTerm]:
    sections = [
        (s.get(XML_LANG) or s.get("lang") or "", _terms(s)) for s in entry if local(s.tag) in ("langSec", "langSet")
    ]
    sections = [(lang, found) for lang, found in sections if lang and found]
    if len(sections) < 2:
        return []
    lang = source_lang or sections[0][0]
    source = next((s for s in sections if s[0].casefold() == lang.casefold()), None)
    source = source or next((s for s in sections if same_language(s[0], lang)), sections[0])
    return [
        GlossaryTerm(source=source[1][0][0], target=term, srclang=source[0], tgtlang=other_lang, kind=kind)
        for other_lang, found in sections
        if found is not source[1]
        for term, kind in found
    ]


def _terms(section: etree._Element) -> list[tuple[str, str | None]]:
    """A language section's terms, each with its kind when its status says (`forbidden`, `preferred`)."""
    return [
        (" ".join("".join(t.itertext()).split()), _status(t.getparent()))
        for t in section.iter()
        if local(t.tag) == "term"
    ]


def _status(holder: etree._Element | None) -> str | None:
    """The kind a term's `administrativeStatus` or `normativeAuthorization` note gives, if any."""
    for note in holder if holder is not None else ():
        if local(note.tag) == "termNote" and (note.get("type") or "").casefold() in _STATUS_TYPES:
            value = " ".join("".join(note.itertext()).split()).casefold()
            return "forbidden" if value.startswith(_FORBIDDEN_STATUSES) else "preferred"
    return None
