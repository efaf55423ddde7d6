"""TMX 1.4b out and in: one `<tu>` per pair, dates as TMX writes them (`20240131T120000Z`).

Reading takes every `<tu>`: its source variant is the one in the header's (or the tu's) `srclang`
(compared by primary subtag when no variant matches exactly; `*all*` means the first variant), and
each other variant makes one pair. Inline markup in `<seg>` is reduced to text: `<hi>` and `<sub>`
keep their text, the native codes of `<bpt>`, `<ept>`, `<ph>`, `<it>`, `<ut>` are dropped. TMX 1.1's
`lang` attribute is read like `xml:lang`. A `<tu>`'s `<prop type="x-context">` is the key of the
string the pair was written from (the string-id convention of loctool and others; Trados's `x-Context`,
a pair of segment hashes, is another property and not read).

Writing: a pair of an XLIFF source carries its inline codes, written as `<bpt>`/`<ept>`/`<ph>`/`<it>`
(`inline_out.py`); a pair whose target's placeholders do not fit them is left out (a memory should
hold no broken pair) and named in `Exported.left` by its source. Characters XML forbids become
U+FFFD (`_xml.clean`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from lxml import etree

from langfacts import same_language

from . import codes as inline
from ._xml import XML_LANG, clean, local, parse
from .errors import PlaceholderError, UnsupportedFormat
from .inline_out import write_inline
from .model import Exported, TmPair

TOOL = "translation-agent"
_DATE = "%Y%m%dT%H%M%SZ"
_CODES = frozenset({"bpt", "ept", "ph", "it", "ut"})
CONTEXT_PROP = "x-context"
"""The `<prop>` type of a pair's string key."""


def export_tmx(units: Sequence[TmPair], *, srclang: str) -> Exported:
    """The pairs as a TMX 1.4b document whose header says `srclang`."""
    root = etree.Element("tmx", attrib={"version": "1.4"})
    etree.SubElement(
        root,
        "header",
        attrib={
            "creationtool": TOOL,
            "creationtoolversion": "1",
            "segtype": "block",
            "o-tmf": TOOL,
            "adminlang": "en",
            "srclang": clean(srclang),
            "datatype": "plaintext",
        },
    )
    body = etree.SubElement(root, "body")
    left: list[str] = []
    for pair in units:
        tu = _tu(pair, srclang)
        if tu is None:
            left.append(pair.source)
        else:
            body.append(tu)
    data: bytes = etree.tostring(root, encoding="UTF-8", xml_declaration=True, pretty_print=True)
    return Exported(text=data.decode("utf-8"), left=tuple(left))


def _tu(pair: TmPair, srclang: str) -> etree._Element | None:
    """The `<tu>` of a pair; None when its target's placeholders do not fit its codes."""
    tu = etree.Element("tu")
    if pair.srclang != srclang:
        tu.set("srclang", clean(pair.srclang))
    if pair.created is not None:
        tu.set("creationdate", _format(pair.created))
    if pair.changed is not None:
        tu.set("changedate", _format(pair.changed))
    if pair.key is not None:
        etree.SubElement(tu, "prop", attrib={"type": CONTEXT_PROP}).text = clean(pair.key)
    for lang, text in ((pair.srclang, pair.source), (pair.tgtlang, pair.target)):
        seg = etree.SubElement(etree.SubElement(tu, "tuv", attrib={XML_LANG: clean(lang)}), "seg")
        if not pair.codes:
            inline._append_text(seg, text, "1.2")
            continue
        try:
            write_inline(seg, text, pair.source, pair.codes, "tmx")
        except PlaceholderError:
            return None
    return tu


def parse_tmx(text: str) -> list[TmPair]:
    """The pairs of a TMX document (1.1 to 1.4b); raises NotWellFormed or UnsupportedFormat."""
    tree, _ = parse(text)
    root = tree.getroot()
    if local(root.tag) != "tmx":
        raise UnsupportedFormat("This is not a TMX document (its root element is not <tmx>).")
    header = next((c for c in root if local(c.tag) == "header"), None)
    default = header.get("srclang", "*all*") if header is not None else "*all*"
    pairs: list[TmPair] = []
    for tu in root.iter():
        if local(tu.tag) == "tu":
            pairs.extend(_pairs(tu, tu.get("srclang", default)))
    return pairs


def _pairs(tu: etree._Element, srclang: str) -> list[TmPair]:
    variants: list[tuple[str, str]] = []
    for tuv in (v for v in tu if local(v.tag) == "tuv"):
        lang, seg = tuv.get(XML_LANG) or tuv.get("lang") or "", _seg_text(tuv)
        if lang and seg is not None:
            variants.append((lang, seg))
    if len(variants) < 2:
        return []
    source = _source_index(variants, srclang)
    created, changed = _parse_date(tu.get("creationdate")), _parse_date(tu.get("changedate"))
    props = (p for p in tu if local(p.tag) == "prop" and p.get("type") == CONTEXT_PROP)
    key = next((text for p in props if (text := (p.text or "").strip())), None)
    src_lang, src_text = variants[source]
    return [
        TmPair(source=src_text, target=seg, srclang=src_lang, tgtlang=lang, created=created, changed=changed, key=key)
        for index, (lang, seg) in enumerate(variants)
        if index != source and seg
    ]


def _source_index(variants: list[tuple[str, str]], srclang: str) -> int:
    for index, (lang, _) in enumerate(variants):
        if lang.casefold() == srclang.casefold():
            return index
    for index, (lang, _) in enumerate(variants):
        if srclang != "*all*" and same_language(lang, srclang):
            return index
    return 0


def _seg_text(tuv: etree._Element) -> str | None:
    seg = next((c for c in tuv if local(c.tag) == "seg"), None)
    if seg is None:
        return None
    return "".join(_text(seg))


def _text(element: etree._Element) -> list[str]:
    out = [element.text or ""]
    for child in element:
        if isinstance(child.tag, str) and local(child.tag) not in _CODES:
            out.extend(_text(child))
        out.append(child.tail or "")
    return out


def _format(moment: datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime(_DATE)


def _parse_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.strptime(value.strip(), _DATE).replace(tzinfo=UTC)
    except ValueError:
        return None
