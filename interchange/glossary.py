"""Glossary interchange: CSV (`source,target` header, more columns allowed) and TBX (v3 and 2008 `martif`).

CSV: the header row names the columns (any case, any order, extra columns ignored; `term`/`translation`
are accepted too); quoted fields and a byte-order mark are fine; a row without a source or a
target is left out. Written as RFC 4180 CSV (`\\r\\n` line ends, quotes where needed), formula-like
cells neutralised and read back exactly (`csv_cells.py`).

TBX: written as TBX-Basic v3 (ISO 30042:2019, `<tbx type="TBX-Basic">`, one `<conceptEntry>` per
term); read from v3 (`conceptEntry/langSec/termSec/term`) and TBX 2008 / TBX-Basic (`martif`,
`termEntry/langSet/tig|ntig/term`). Within an entry, the terms in the source language pair with the
first source term of every other language.
"""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from ._xml import XML_LANG, clean, local, parse
from .csv_cells import read_csv, write_csv
from .errors import UnsupportedFormat
from .languages import same_language
from .model import GlossaryTerm

NS_TBX = "urn:iso:std:iso:30042:ed-2"
_SOURCE_NAMES = ("source", "term", "source term", "source_term")
_TARGET_NAMES = ("target", "translation", "target term", "target_term")


def export_glossary_csv(terms: Sequence[GlossaryTerm]) -> str:
    """The terms as CSV with a `source,target` header."""
    return write_csv([["source", "target"], *([t.source, t.target] for t in terms)])


def parse_glossary_csv(text: str) -> list[GlossaryTerm]:
    """The terms of a CSV glossary (a `languages` column becomes each term's `tgtlang`, as written).

    UnsupportedFormat when the header has no source and target or the CSV cannot be read."""
    rows = iter(read_csv(text))
    header = next(rows, None)
    names = [" ".join(h.split()).casefold() for h in header or []]
    source = next((names.index(n) for n in _SOURCE_NAMES if n in names), None)
    target = next((names.index(n) for n in _TARGET_NAMES if n in names), None)
    if source is None or target is None:
        raise UnsupportedFormat("The CSV glossary needs a header row naming a 'source' and a 'target' column.")
    at = names.index("languages") if "languages" in names else None
    terms: list[GlossaryTerm] = []
    for row in rows:
        if len(row) <= max(source, target):
            continue
        pair = row[source].strip(), row[target].strip()
        languages = row[at].strip() if at is not None and at < len(row) else ""
        if all(pair):
            terms.append(GlossaryTerm(source=pair[0], target=pair[1], tgtlang=languages or None))
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
        for lang, text in ((term.srclang or srclang, term.source), (term.tgtlang or tgtlang, term.target)):
            lang_sec = etree.SubElement(entry, f"{{{NS_TBX}}}langSec", attrib={XML_LANG: clean(lang)})
            term_sec = etree.SubElement(lang_sec, f"{{{NS_TBX}}}termSec")
            etree.SubElement(term_sec, f"{{{NS_TBX}}}term").text = clean(text)
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
        GlossaryTerm(source=source[1][0], target=term, srclang=source[0], tgtlang=other_lang)
        for other_lang, found in sections
        if found is not source[1]
        for term in found
    ]


def _terms(section: etree._Element) -> list[str]:
    return [" ".join("".join(t.itertext()).split()) for t in section.iter() if local(t.tag) == "term"]
