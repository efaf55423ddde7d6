"""i18next JSON resources, nested or flat, with v4 plural suffixes and ICU MessageFormat values.

Every string value is an entry keyed by its path joined with `.` (`menu.file.open`; a flat file's
key `menu.file.open` gives the same key, and the real path is found again when written, so a key
holding dots round-trips; two paths that join to the same key are refused). Sibling keys
`base_one`, `base_other`, `base_few`… (i18next v4 plural suffixes, `_other` present) make one
plural entry keyed `base` (`prefix.base`), whose written form has exactly the target language's
categories: forms the target lacks are removed, forms it adds are written after the first, in the
layout of the file. A value that is an ICU plural or select choice (i18next-icu) is a plural entry,
or one entry per case keyed `key[case]` (and per `=N` case of a plural), written back into the one
message (`icu`). Codes: `{{name}}`, `$t(key)`, ICU arguments and `#`, HTML tags. Empty strings and
values that are not strings are not entries.

Writing splices new string literals into the original text (`json_text`): everything else (order,
indentation, other values, escapes of untouched strings) is byte for byte as it was.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from langfacts import plurals

from ..limits import MAX_SEGMENTS
from . import icu, json_text
from .base import Entry, FileFormat, FormatError, Resource, Target
from .json_text import Scanned, Slot

_SUFFIX = re.compile(r"^(.+)_(zero|one|two|few|many|other)$")


@dataclass(frozen=True, slots=True)
class _Unit:
    """One string value, or one group of plural siblings, and its key."""

    key: str
    slots: tuple[Slot, ...]
    categories: tuple[str, ...] = ()
    """For a plural group, each slot's category; empty for one value."""


def _key(path: json_text.Path) -> str:
    return ".".join(str(p) for p in path)


def _plural_groups(scanned: Scanned) -> dict[int, tuple[str, list[tuple[str, Slot]]]]:
    """The plural sibling groups by the start of each member: their base key and (category, slot)."""
    groups: dict[tuple[json_text.Path, str], list[tuple[str, Slot]]] = {}
    for slot in scanned.strings():
        last = slot.path[-1] if slot.path else None
        match = _SUFFIX.match(last) if isinstance(last, str) else None
        if match:
            groups.setdefault((slot.path[:-1], match.group(1)), []).append((match.group(2), slot))
    found: dict[int, tuple[str, list[tuple[str, Slot]]]] = {}
    for (parent, base), members in groups.items():
        if "other" in {c for c, _ in members}:
            for _, slot in members:
                found[slot.start] = (_key((*parent, base)), members)
    return found


def units(scanned: Scanned) -> Iterator[_Unit]:
    """The file's strings and plural groups, in file order, each once."""
    groups = _plural_groups(scanned)
    seen: set[int] = set()
    for slot in scanned.strings():
        if slot.start in seen or not slot.value:
            continue
        group = groups.get(slot.start)
        if group is None:
            yield _Unit(_key(slot.path), (slot,))
            continue
        key, members = group
        seen.update(s.start for _, s in members)
        yield _Unit(key, tuple(s for _, s in members), tuple(c for c, _ in members))


def _entries(unit: _Unit) -> list[Entry]:
    if not unit.categories:
        return icu.message_entries(unit.key, unit.slots[0].value)
    values = dict(zip(unit.categories, (s.value for s in unit.slots), strict=True))
    forms = {c: values[c] for c in plurals.ORDER if c in values}
    codes = tuple(code for text in forms.values() for code in icu.codes_of(text))
    return [Entry(key=unit.key, source=forms["other"], codes=codes, plural=forms, plural_argument="count")]


def read_entries(scanned: Scanned) -> list[Entry]:
    """The entries of a scanned i18next document; FormatError for a repeated key or too many."""
    entries: list[Entry] = []
    keys: set[str] = set()
    for unit in units(scanned):
        for entry in _entries(unit):
            if entry.key in keys:
                raise FormatError(f"Two strings have the key {entry.key!r} (a flat key with dots and a nested one).")
            keys.add(entry.key)
            entries.append(entry)
        if len(entries) > MAX_SEGMENTS:
            raise FormatError(f"The file has more than {MAX_SEGMENTS} strings, the most a file takes; split it.")
    if not entries:
        raise FormatError("The file has no string to translate.")
    return entries


def _leading_space(text: str, pos: int) -> str:
    start = pos
    while start > 0 and text[start - 1] in " \t\r\n":
        start -= 1
    return text[start:pos]


def _group_edits(text: str, unit: _Unit, target: Target, language: str, ascii_only: bool) -> list[tuple[int, int, str]]:
    """The edits that write a plural group with exactly the language's categories."""
    first = min(unit.slots, key=lambda s: s.start)
    key_end = json_text.string_end(text, first.start)
    separator = text[key_end : first.value_start]
    base = str(first.path[-1]).rsplit("_", 1)[0]
    wanted = plurals.categories(language)
    forms = dict.fromkeys(wanted, target) if isinstance(target, str) else target
    fallback = icu.text_of(forms)
    members = [
        json_text.literal(f"{base}_{c}", ascii_only=ascii_only)
        + separator
        + json_text.literal(forms.get(c, fallback), ascii_only=ascii_only)
        for c in wanted
    ]
    between = "," + _leading_space(text, first.start)
    edits = [(first.start, first.end, between.join(members))]
    edits += [(s.comma, s.end, "") for s in unit.slots if s is not first and s.comma is not None]
    return edits


def write_edits(
    scanned: Scanned, targets: Mapping[str, Target], language: str, *, ascii_only: bool
) -> list[tuple[int, int, str]]:
    """The splices that write the targets into a scanned i18next document."""
    edits: list[tuple[int, int, str]] = []
    for unit in units(scanned):
        if unit.categories:
            if unit.key in targets:
                edits += _group_edits(scanned.text, unit, targets[unit.key], language, ascii_only)
            continue
        slot = unit.slots[0]
        new = icu.rewrite_message(unit.key, slot.value, targets, language)
        if new is not None:
            edits.append((slot.value_start, slot.end, json_text.literal(new, ascii_only=ascii_only)))
    return edits


def _foreign(root: dict[str, object]) -> bool:
    """True for the JSON of another format: ARB (`@@locale`, `@key` metadata) or a String Catalog."""
    if "@@locale" in root or any(k.startswith("@") and isinstance(v, dict) for k, v in root.items()):
        return True
    return {"sourceLanguage", "strings"} <= root.keys()


def _leaves_are_strings(value: object) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif not (isinstance(item, str) or item is None):
            return False
    return True


class I18nextFormat(FileFormat):
    """i18next JSON (and other JSON objects whose leaves are strings)."""

    name = "json"
    extensions = (".json",)
    media_type = "application/json; charset=utf-8"

    def accepts(self, name: str, data: bytes) -> bool:
        """A `.json` whose root is an object of strings (nested objects and arrays of them) and not
        ARB's or a String Catalog's, or that is malformed but opens with `{`, so its reader says
        where it is broken."""
        if not name.lower().endswith(self.extensions):
            return False
        try:
            text, _ = json_text.decode(data)
            scanned = json_text.scan(text)
        except FormatError:
            return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
        root = scanned.value
        if not isinstance(root, dict) or not _leaves_are_strings(root):
            return False
        return not _foreign(root)

    def read(self, data: bytes) -> Resource:
        """The file's strings and plural groups."""
        text, _ = json_text.decode(data)
        scanned = json_text.scan(text)
        if not isinstance(scanned.value, dict):
            raise FormatError("An i18next file is a JSON object; this one's root is not.")
        return Resource(entries=tuple(read_entries(scanned)))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The original text with the targets spliced in."""
        text, bom = json_text.decode(data)
        scanned = json_text.scan(text)
        ascii_only = json_text.escapes_non_ascii(text)
        out = json_text.splice(text, write_edits(scanned, targets, target_language, ascii_only=ascii_only))
        return (b"\xef\xbb\xbf" if bom else b"") + out.encode("utf-8")


FORMAT = I18nextFormat()
