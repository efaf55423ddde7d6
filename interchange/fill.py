"""Filling an XLIFF document's targets: the original document, nothing changed but targets and states.

`fill_xliff(original, targets, states)` parses the original again, finds each segment by its key
(`XliffSegment.key`), replaces its target's content with the translation (placeholders turned back
into the source's codes, see `codes.py`) and sets its state (see `states.py`). Everything else —
namespaces and prefixes, comments, processing instructions, other elements and attributes, the
doctype — is kept; the XML declaration is rewritten to say UTF-8, the text's real encoding.

Where a target is created: 1.2 right after `<source>` (or `<seg-source>`), with the file's
`target-language` as `xml:lang`; 2.0 right after the segment's `<source>`. A 1.2 unit segmented with
`<seg-source>` gets a target shaped like its seg-source: every `<mrk mtype="seg">` of it, filled with
the translation, or else the existing target's text for that segment, or else a copy of the source.

A translation whose placeholders cannot become the source's codes (one repeated, crossed, closed
before it opens, left open) does not fail the document: it goes in as plain text (placeholders
literal) with the state of a pending proposal and a comment before it, and `FilledXliff.plain`
names it. So does one with a placeholder its source does not have (`{7}`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lxml import etree

from . import codes as inline
from ._xml import XML_LANG, clean, local, parse, serialize, sibling_tag
from .errors import InterchangeError, PlaceholderError
from .model import WRITTEN, Status
from .states import xliff2_state, xliff12_state
from .xliff_source import Located, locate

COMMENT = (
    "translation-agent: the placeholders of this target do not match its source's inline codes ({}); "
    "it is written as plain text, for review"
)


@dataclass(frozen=True, slots=True, kw_only=True)
class FilledXliff:
    """The filled document, and the keys of the segments whose target went in as plain text."""

    text: str
    plain: tuple[str, ...] = ()
    """Targets whose placeholders could not become the source's codes (repeated, crossed, unclosed):
    their text is the target as is, placeholders literal, with the state of a pending proposal and
    an XML comment before the target saying why."""


def fill_xliff(original_text: str, targets: Mapping[str, str], states: Mapping[str, Status]) -> FilledXliff:
    """The original document with `targets` (by segment key) filled and their `states` set.

    A key without a state is taken as `pending`. Keys of untranslatable segments are ignored; a key
    the document does not have raises InterchangeError. One target's bad placeholders never fail
    the document (FilledXliff.plain). Linear: a unit's segments are gathered in one pass.
    """
    tree, _ = parse(original_text)
    version, located = locate(tree)
    by_key = {item.key: item for item in located}
    unknown = [key for key in targets if key not in by_key]
    if unknown:
        raise InterchangeError(f"The document has no segment {unknown[0]!r}.")
    plain: list[str] = []
    by_unit: dict[int, list[Located]] = {}
    segmented: dict[int, list[Located]] = {}
    for item in located:
        by_unit.setdefault(id(item.unit), []).append(item)
        if item.key not in targets or not item.translatable:
            continue
        if version == "1.2" and local(item.source.tag) == "mrk":
            segmented.setdefault(id(item.unit), []).append(item)
            continue
        if not _fill_plain(item, targets[item.key], states.get(item.key, "pending")):
            plain.append(item.key)
    for unit, items in segmented.items():
        plain.extend(_fill_segmented(items, by_unit[unit], targets, states))
    return FilledXliff(text=serialize(tree, declaration=True), plain=tuple(plain))


def _fill_plain(item: Located, text: str, status: Status) -> bool:
    """Fill one segment's target; False when its placeholders did not fit and it went in as plain text."""
    target = item.target if item.target is not None else _new_target(item)
    fitted = _rebuild(target, item, text)
    status = status if fitted else "pending"
    if item.version == "2.0":
        assert item.state_holder is not None
        state, sub_state = xliff2_state(status)
        item.state_holder.set("state", state)
        item.state_holder.set("subState", sub_state)
    else:
        _set_state12(item.unit, target, status)
    return fitted


def _rebuild(target: etree._Element, item: Located, text: str) -> bool:
    """`target` filled with `text`, its placeholders as the source's codes; else as plain text (False)."""
    _clear(target)
    source, codes = inline.extract(item.source, item.version, preserve=item.preserve)
    try:
        extra = inline.invented(source, text)
        if extra:
            raise PlaceholderError(f"Placeholder {', '.join(extra)} is not in the source.")
        inline.rebuild(target, text, codes, item.version)
        return True
    except PlaceholderError as exc:
        _clear(target)
        inline._append_text(target, text, item.version)
        why = clean(str(exc)).replace("--", "- -").rstrip("-")
        target.addprevious(etree.Comment(COMMENT.format(why)))
        return False


def _fill_segmented(
    items: list[Located], unit_items: list[Located], targets: Mapping[str, str], states: Mapping[str, Status]
) -> list[str]:
    """Rebuild a seg-source unit's target: every segment mark, translated where a translation is given.

    The keys of the segments whose placeholders did not fit (written as plain text), if any."""
    first = items[0]
    seg_source = first.source.getparent()
    while seg_source is not None and local(seg_source.tag) != "seg-source":
        seg_source = seg_source.getparent()
    if seg_source is None:
        raise InterchangeError(f"Segment {first.key!r} has no <seg-source>.")
    old = {i.source.get("mid"): i.target for i in unit_items}
    target = first.state_holder if first.state_holder is not None else _new_target(first)
    _clear(target)
    target.text = seg_source.text
    by_mid = {i.source.get("mid"): i for i in unit_items}
    plain: list[str] = []
    for node in seg_source:
        if not isinstance(node.tag, str):
            continue
        mark = etree.SubElement(target, node.tag, attrib=dict(node.attrib))
        mark.tail = node.tail
        item = by_mid.get(node.get("mid")) if local(node.tag) == "mrk" else None
        if item is not None and item.key in targets:
            if not _rebuild(mark, item, targets[item.key]):
                plain.append(item.key)
        else:
            previous = old.get(node.get("mid"))
            _copy_content(mark, previous if previous is not None else node)
    statuses = [states.get(i.key, "pending") for i in unit_items if i.key in targets]
    if len(statuses) == len(unit_items):
        _set_state12(first.unit, target, "pending" if "pending" in statuses or plain else statuses[0])
    return plain


def _copy_content(destination: etree._Element, source: etree._Element) -> None:
    destination.text = source.text
    for child in source:
        if isinstance(child.tag, str):
            inline._clone(destination, child)
            destination[-1].tail = child.tail


def _set_state12(unit: etree._Element, target: etree._Element, status: Status) -> None:
    target.set("state", xliff12_state(status))
    if status == "pending":
        target.set("state-qualifier", "mt-suggestion")
    elif target.get("state-qualifier") == "mt-suggestion":
        del target.attrib["state-qualifier"]
    unit.set("approved", "yes" if status in WRITTEN and status != "translated" else "no")


def _new_target(item: Located) -> etree._Element:
    """A new empty `<target>` placed where the schema wants it."""
    parent = item.unit if item.version == "1.2" else item.state_holder
    assert parent is not None
    anchor = item.source
    while anchor.getparent() is not parent:
        parent_of = anchor.getparent()
        assert parent_of is not None
        anchor = parent_of
    if item.version == "1.2":
        following = anchor.getnext()
        if following is not None and local(following.tag) == "seg-source":
            anchor = following
    target = parent.makeelement(sibling_tag(anchor, "target"), {})
    if item.version == "1.2" and item.file.get("target-language"):
        target.set(XML_LANG, item.file.get("target-language", ""))
    target.tail = anchor.tail
    anchor.addnext(target)
    return target


def _clear(element: etree._Element) -> None:
    tail = element.tail
    for child in list(element):
        element.remove(child)
    element.text = None
    element.tail = tail
