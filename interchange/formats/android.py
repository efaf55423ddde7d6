"""Android string resources (`res/values/strings.xml`): `<string>`, `<plurals>` and `<string-array>`.

Entries: each `<string name>` (key `name`), each `<plurals name>` as one plural entry (its `<item
quantity>`s by CLDR category), each text `<item>` of a `<string-array name>` (key `name[i]`, `i`
counting every item). Kept out, and written as they are: anything marked `translatable="false"` (on
the element or its array), a value that is a resource reference (`@string/x`, `?attr/x`), an
empty value. `tools:ignore="MissingTranslation"` only silences lint about missing translations, so
such a string is still translated. A `product` other than `default` makes the key `name@product`.
The note is the XML comment right before the element (only whitespace and at most one line break
between, so a section heading followed by a blank line is nobody's note) and its `description`,
`translation_description` (Google's samples) or `comment` attribute. The text and its locked codes
are read as aapt2 reads them (`_android_text`).

Writing splices each translated value into the original text: every other byte stays as it was. A
plural entry's `<plurals>` gets exactly the target's `<item quantity>`s, indented as its first item
was (a comment between its items is not kept).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from langfacts.plurals import ORDER

from ..limits import MAX_SEGMENTS
from . import _android_text as text_of
from ._xmlscan import Document, Element, scan
from .base import Entry, FileFormat, FormatError, Resource, Target

_ROOT = b"<resources"


def _false(element: Element) -> bool:
    return element.attrs.get("translatable", "").strip().lower() == "false"


def _note(element: Element) -> str | None:
    attrs = element.attrs
    found = (element.comment, *(attrs.get(name) for name in ("description", "translation_description", "comment")))
    notes = [n for n in dict.fromkeys(found) if n]
    return "\n".join(notes) if notes else None


def _key(doc: Document, element: Element) -> str:
    name = element.attrs.get("name")
    if not name:
        raise FormatError(f"Line {doc.line(element.start)}: <{element.name}> has no name attribute.")
    product = element.attrs.get("product")
    return f"{name}@{product}" if product and product != "default" else name


def _is_reference(doc: Document, element: Element) -> bool:
    """True when the value is a resource or attribute reference (`@string/x`, `?attr/x`): an unescaped
    leading `@` or `?`, which aapt2 never reads as text."""
    return doc.text[element.content_start : element.content_end].strip()[:1] in ("@", "?")


class _Unit:
    """One entry and where its value (or values) sits in the file."""

    def __init__(self, entry: Entry, element: Element, items: dict[str, Element] | None = None) -> None:
        self.entry = entry
        self.element = element
        self.items = items


def _units(doc: Document) -> Iterator[_Unit]:
    for element in doc.root.children:
        kind = element.local
        if kind not in ("string", "plurals", "string-array") or _false(element):
            continue
        key = _key(doc, element)
        printf = element.attrs.get("formatted", "").lower() != "false"
        if kind == "string":
            source, codes = text_of.read(doc, element, key=key, printf=printf)
            if source.strip() and not _is_reference(doc, element):
                yield _Unit(Entry(key=key, source=source, note=_note(element), codes=codes), element)
        elif kind == "plurals":
            yield from _plural(doc, element, key, printf)
        else:
            items = [child for child in element.children if child.local == "item"]
            for index, item in enumerate(items):
                item_key = f"{key}[{index}]"
                source, codes = text_of.read(doc, item, key=item_key, printf=printf)
                if source.strip() and not _false(item) and not _is_reference(doc, item):
                    yield _Unit(Entry(key=item_key, source=source, note=_note(element), codes=codes), item)


def _plural(doc: Document, element: Element, key: str, printf: bool) -> Iterator[_Unit]:
    forms: dict[str, str] = {}
    items: dict[str, Element] = {}
    found: dict[str, tuple[str, ...]] = {}
    codes: list[str] = []
    for item in element.children:
        if item.local != "item":
            continue
        category = item.attrs.get("quantity", "")
        if category not in ORDER:
            where = f"Line {doc.line(item.start)}"
            raise FormatError(f"{where}: plurals {key!r} has an item with quantity {category!r}; CLDR has {ORDER}.")
        if category in forms:
            raise FormatError(f"Line {doc.line(item.start)}: plurals {key!r} has quantity {category!r} twice.")
        forms[category], found[category] = text_of.read(doc, item, key=f"{key}:{category}", printf=printf)
        items[category] = item
    if not any(forms.values()):
        return
    ordered = {c: forms[c] for c in ORDER if c in forms}
    for category in ordered:
        codes.extend(found[category])
    source = ordered.get("other") or next(v for v in ordered.values() if v)
    entry = Entry(key=key, source=source, note=_note(element), codes=tuple(codes), plural=ordered)
    yield _Unit(entry, element, items)


def _document(data: bytes) -> Document:
    doc = scan(data)
    if doc.root.name != "resources":
        raise FormatError(f"Line {doc.line(doc.root.start)}: the root element is <{doc.root.name}>, not <resources>.")
    return doc


def _read_units(doc: Document) -> list[_Unit]:
    units: list[_Unit] = []
    seen: dict[str, int] = {}
    for unit in _units(doc):
        first = seen.setdefault(unit.entry.key, unit.element.start)
        if first != unit.element.start:
            line, before = doc.line(unit.element.start), doc.line(first)
            raise FormatError(f"Line {line}: {unit.entry.key!r} is defined twice (first on line {before}).")
        units.append(unit)
        if len(units) > MAX_SEGMENTS:
            raise FormatError(f"The file has more than {MAX_SEGMENTS} strings, the most one file may have; split it.")
    return units


class AndroidFormat(FileFormat):
    """Android `strings.xml`: strings, plurals and string arrays, escaped as aapt2 reads them."""

    name = "android"
    extensions = (".xml",)
    media_type = "application/xml"

    def accepts(self, name: str, data: bytes) -> bool:
        """True for an `.xml` file whose root element is `<resources>`."""
        if not name.lower().endswith(self.extensions):
            return False
        head = data[:4096]
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            head = head.decode("utf-16", errors="ignore").encode("utf-8")
        return _ROOT in head

    def read(self, data: bytes) -> Resource:
        """The file's translatable strings; FormatError for a malformed file or one with none."""
        units = _read_units(_document(data))
        if not units:
            raise FormatError(
                'The file has no strings to translate (all are empty, references or translatable="false").'
            )
        return Resource(entries=tuple(unit.entry for unit in units))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The original with each translated value replaced in place; keys not in the file are ignored."""
        doc = _document(data)
        edits: list[tuple[int, int, str]] = []
        for unit in _read_units(doc):
            target = targets.get(unit.entry.key)
            if target is None:
                continue
            if unit.items is None:
                if not isinstance(target, str):
                    raise FormatError(f"String {unit.entry.key!r} is not a plural; its target must be a text.")
                element = unit.element
                value = text_of.write(target, text_of.markup_of(doc, element))
                edits.append((element.content_start, element.content_end, value))
            else:
                forms = {"other": target} if isinstance(target, str) else target
                edits.append(_plural_edit(doc, unit, forms))
        out: list[str] = []
        last = 0
        for start, end, value in sorted(edits):
            out.append(doc.text[last:start])
            out.append(value)
            last = end
        out.append(doc.text[last:])
        return doc.encode("".join(out))


def _plural_edit(doc: Document, unit: _Unit, forms: Mapping[str, str]) -> tuple[int, int, str]:
    assert unit.items is not None
    element = unit.element
    items = sorted(unit.items.values(), key=lambda item: item.start)
    before = doc.text[element.content_start : items[0].start]
    indent = before[len(before.rstrip()) :]
    closing = doc.text[items[-1].end : element.content_end]
    markup: list[str] = []
    for item in items:
        markup.extend(text_of.markup_of(doc, item))
    prefix = items[0].name  # `item`, with the prefix the file uses, if any
    written = [
        f'<{prefix} quantity="{category}">{text_of.write(forms[category], markup)}</{prefix}>'
        for category in ORDER
        if category in forms
    ]
    return element.content_start, element.content_end, before + indent.join(written) + closing


FORMAT = AndroidFormat()
