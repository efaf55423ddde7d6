"""Reading XLIFF 1.2 and 2.0 as real tools write them, down to each segment's live elements.

Segments: a 1.2 `<trans-unit>` is one segment, or one per `<mrk mtype="seg">` of its `<seg-source>`
(Okapi, Trados); a 2.0 `<unit>` has one per `<segment>` (`<ignorable>` is kept, not translated).
Units inside `<group>`s and several `<file>`s are read in document order. `translate="no"` on a
unit, or inherited from a group or (2.0) a file, makes its segments untranslatable. XLIFF 1.0/1.1
documents and 1.2 documents without a namespace are read as 1.2; 2.1 and 2.2 as 2.0.

Refused (UnsupportedFormat): a `<seg-source>` whose segment marks repeat a `mid` (the target's
segments are found by mid, so one of them would lose its translation). TooLarge: more than
MAX_SEGMENTS segments. Reading is linear in the document: keys are made unique with a counter per
key, and a unit's notes and original data are read once for all its segments.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from lxml import etree

from . import codes as inline
from ._names import UniqueNames
from ._xml import local, namespace, parse, preserves_space
from .errors import TooLarge, UnsupportedFormat
from .limits import MAX_SEGMENTS
from .model import Note, XliffDocument, XliffSegment
from .states import status_from_xliff2, status_from_xliff12

NS12 = "urn:oasis:names:tc:xliff:document:1.2"
NS20 = "urn:oasis:names:tc:xliff:document:2.0"


@dataclass(frozen=True, slots=True)
class Located:
    """A segment with the elements that hold it (internal: `fill.py` writes through these)."""

    key: str
    version: inline.Version
    unit: etree._Element
    source: etree._Element
    target: etree._Element | None
    state_holder: etree._Element | None
    translatable: bool
    preserve: bool
    file: etree._Element


def parse_xliff(text: str) -> XliffDocument:
    """The segments of an XLIFF 1.2 or 2.0 document; raises NotWellFormed or UnsupportedFormat."""
    tree, _ = parse(text)
    version, located = locate(tree)
    root = tree.getroot()
    per_unit = _PerUnit()
    segments = tuple(_segment(item, per_unit) for item in located)
    if version == "2.0":
        return XliffDocument(
            version=version, source_language=root.get("srcLang"), target_language=root.get("trgLang"), segments=segments
        )
    first = next(iter(_children(root, "file")), None)
    source = first.get("source-language") if first is not None else None
    target = first.get("target-language") if first is not None else None
    return XliffDocument(version=version, source_language=source, target_language=target, segments=segments)


def version_of(root: etree._Element) -> inline.Version:
    """`1.2` or `2.0` for an `<xliff>` root; raises UnsupportedFormat for anything else."""
    if local(root.tag) != "xliff":
        raise UnsupportedFormat("This is not an XLIFF document (its root element is not <xliff>).")
    ns, version = namespace(root), root.get("version", "")
    if ns.startswith("urn:oasis:names:tc:xliff:document:2") or version.startswith("2."):
        return "2.0"
    if ns.startswith("urn:oasis:names:tc:xliff:document:1") or version.startswith("1.") or not ns:
        return "1.2"
    raise UnsupportedFormat(f"Unsupported XLIFF version {version!r} (namespace {ns!r}).")


def locate(tree: etree._ElementTree) -> tuple[inline.Version, list[Located]]:
    """The version and the located segments of a parsed document, in document order."""
    root = tree.getroot()
    version = version_of(root)
    found: list[Located] = []
    unique = UniqueNames("#")
    for number, file in enumerate(_children(root, "file"), start=1):
        units = _units12(file) if version == "1.2" else _units20(file)
        for unit, segments in units:
            translatable = _translatable(unit)
            for index, (source, target, holder) in enumerate(segments, start=1):
                key = unique(f"{number}/{unit.get('id', '')}/{index}")
                found.append(
                    Located(key, version, unit, source, target, holder, translatable, preserves_space(source), file)
                )
            if len(found) > MAX_SEGMENTS:
                raise TooLarge(f"The document has more than {MAX_SEGMENTS} segments, the most a file takes; split it.")
    return version, found


Triple = tuple[etree._Element, etree._Element | None, etree._Element | None]


def _units12(file: etree._Element) -> Iterator[tuple[etree._Element, list[Triple]]]:
    for unit in file.iter():
        if local(unit.tag) != "trans-unit":
            continue
        first: dict[str, etree._Element] = {}
        for child in unit:  # one pass over the unit's children for all three
            first.setdefault(local(child.tag), child)
        source, seg_source, target = first.get("source"), first.get("seg-source"), first.get("target")
        if source is None:
            continue
        marks = _seg_marks(seg_source) if seg_source is not None else []
        if not marks:
            yield unit, [(source, target, target)]
            continue
        _distinct_mids(unit, marks)
        by_mid = {m.get("mid"): m for m in _seg_marks(target)} if target is not None else {}
        yield unit, [(m, by_mid.get(m.get("mid")), target) for m in marks]


def _distinct_mids(unit: etree._Element, marks: list[etree._Element]) -> None:
    seen: set[str | None] = set()
    for mark in marks:
        mid = mark.get("mid")
        if mid in seen:
            raise UnsupportedFormat(
                f"The <seg-source> of trans-unit {unit.get('id', '')[:80]!r} has two segments with mid {mid!r}; "
                'give each <mrk mtype="seg"> its own mid.'
            )
        seen.add(mid)


def _units20(file: etree._Element) -> Iterator[tuple[etree._Element, list[Triple]]]:
    for unit in file.iter():
        if local(unit.tag) != "unit":
            continue
        triples: list[Triple] = []
        for segment in _children(unit, "segment"):
            source = _child(segment, "source")
            if source is not None:
                triples.append((source, _child(segment, "target"), segment))
        yield unit, triples


class _PerUnit:
    """What is read once per unit, whatever its number of segments: its original data and notes."""

    def __init__(self) -> None:
        self.data: dict[int, dict[str, str]] = {}
        self.notes: dict[int, tuple[Note, ...]] = {}

    def of(self, item: Located) -> tuple[dict[str, str], tuple[Note, ...]]:
        key = id(item.unit)
        if key not in self.notes:
            self.data[key] = _original_data(item.unit) if item.version == "2.0" else {}
            self.notes[key] = _notes(item.unit, item.version)
        return self.data[key], self.notes[key]


def _segment(item: Located, per_unit: _PerUnit) -> XliffSegment:
    data, notes = per_unit.of(item)
    source, codes = inline.extract(item.source, item.version, preserve=item.preserve)
    target = None
    if item.target is not None:
        target, _ = inline.extract(item.target, item.version, preserve=item.preserve, like=codes)
    holder = item.state_holder
    if item.version == "2.0":
        state = holder.get("state") if holder is not None else None
        sub = holder.get("subState") if holder is not None else None
        status = status_from_xliff2(state, sub, has_target=bool(target))
    else:
        state = holder.get("state") if holder is not None else None
        phase = holder.get("phase-name") if holder is not None else None
        status = status_from_xliff12(state, phase, has_target=bool(target))
    return XliffSegment(
        key=item.key,
        unit_id=item.unit.get("id", ""),
        source=source,
        target=target,
        state=state,
        status=status,
        translatable=item.translatable,
        codes=tuple(c.public(data) for c in codes),
        notes=notes,
        max_length=_max_length(item),
    )


_SLR = "{urn:oasis:names:tc:xliff:sizerestriction:2.0}"


def _max_length(item: Located) -> int | None:
    """The target's length limit in characters, where the document states one (else None): 1.2's
    `maxwidth` when `size-unit` is `char` (its default, `pixel`, is no count of characters); 2.0's
    `slr:sizeRestriction` on the segment or its unit when the file's `slr:profiles` names the
    `xliff:codepoints` profile, the one standard profile that counts characters."""
    if item.version == "1.2":
        if item.unit.get("size-unit") != "char":
            return None
        return _positive(item.unit.get("maxwidth"))
    profiles = next((p for p in item.file if isinstance(p.tag, str) and p.tag == f"{_SLR}profiles"), None)
    if profiles is None or profiles.get("generalProfile") != "xliff:codepoints":
        return None
    segment = item.source.getparent()
    for holder in (segment, item.unit):
        if holder is not None and (found := _positive(holder.get(f"{_SLR}sizeRestriction"))) is not None:
            return found
    return None


def _positive(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() and 0 < int(value) <= 1_000_000 else None


def _notes(unit: etree._Element, version: inline.Version) -> tuple[Note, ...]:
    if version == "1.2":
        return tuple(Note(text="".join(n.itertext()), category=n.get("from")) for n in _children(unit, "note"))
    holder = _child(unit, "notes")
    if holder is None:
        return ()
    return tuple(Note(text="".join(n.itertext()), category=n.get("category")) for n in _children(holder, "note"))


def _original_data(unit: etree._Element) -> dict[str, str]:
    holder = _child(unit, "originalData")
    if holder is None:
        return {}
    return {d.get("id", ""): "".join(d.itertext()) for d in _children(holder, "data")}


def _translatable(unit: etree._Element) -> bool:
    node: etree._Element | None = unit
    while node is not None:
        value = node.get("translate")
        if value is not None:
            return value != "no"
        node = node.getparent()
    return True


def _seg_marks(container: etree._Element) -> list[etree._Element]:
    return [m for m in container.iter() if local(m.tag) == "mrk" and m.get("mtype") == "seg"]


def _children(element: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in element if local(c.tag) == name]


def _child(element: etree._Element, name: str) -> etree._Element | None:
    found = _children(element, name)
    return found[0] if found else None
