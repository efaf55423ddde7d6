"""Apple `.stringsdict` (an XML property list): plural rules of localized format strings.

Each top-level key holds a dict with `NSStringLocalizedFormatKey` (`%#@files@`, or a sentence
around such tokens) and one dict per variable it names. A variable whose `NSStringFormatSpecTypeKey`
is `NSStringPluralRuleType` is one plural entry, key `top/variable`, `plural_argument` the variable,
its forms the category keys the dict has (`zero`, `one`, `two`, `few`, `many`, `other`; a source
file's `zero` is Apple's "exactly 0" and is read as it is). The format key itself is an entry (key
`top`) only when it has words besides its `%#@var@` tokens, which are its locked codes. Locked codes
of the forms: printf (`%d`, `%@`, `%1$@`, `%lld`) and nested `%#@var@` tokens. The note is the XML
comment right before the top-level `<key>`. Other rule types (device-specific, variable width)
are not translated and are written as they are.

Write: splices in place. A translated format key's `<string>` gets the new text; a translated
variable's dict keeps its other keys where they are and gets exactly the target's category keys
(the ones it had are removed, the new ones written where the first one was, indented as it was).
Everything else (the plist header, order, other dicts, whitespace) is byte for byte as it was.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from langfacts.codes import find_codes
from langfacts.plurals import ORDER

from .. import _xml
from ..limits import MAX_SEGMENTS
from ._xmlscan import Document, Element, scan
from .base import Entry, FileFormat, FormatError, Resource, Target

_SYNTAXES = ("apple_variable", "printf")
_FORMAT_KEY = "NSStringLocalizedFormatKey"
_VARIABLE = re.compile(r"%(?:\d{1,2}\$?)?#@([A-Za-z_][\w.]*)@")
_WORD = re.compile(r"[^\W\d_]")


def _text(doc: Document, element: Element) -> str:
    parts: list[str] = []
    for token in doc.tokens[element.first_token : element.last_token]:
        raw = doc.text[token.start : token.end]
        if token.kind == "text":
            parts.append(html.unescape(raw))
        elif token.kind == "cdata":
            parts.append(raw[9:-3])
    return "".join(parts)


def _escape(text: str) -> str:
    return _xml.clean(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))


def _pairs(doc: Document, dict_element: Element) -> list[tuple[str, Element, Element]]:
    """The (key text, key element, value element) of a `<dict>`, in order."""
    children = dict_element.children
    for child in children[::2]:
        if child.name != "key":
            raise FormatError(f"Line {doc.line(child.start)}: a <dict> holds <{child.name}> where a <key> belongs.")
    if len(children) % 2:
        last = children[-1]
        raise FormatError(f"Line {doc.line(last.start)}: the key {_text(doc, last)!r} has no value.")
    return [(_text(doc, k), k, v) for k, v in zip(children[::2], children[1::2], strict=True)]


@dataclass(frozen=True, slots=True)
class _Unit:
    entry: Entry
    value: Element
    """The format key's `<string>`, or the variable's `<dict>`."""
    pairs: tuple[tuple[str, Element, Element], ...] = ()
    """The variable dict's pairs (empty for a format key)."""


def _document(data: bytes) -> Document:
    doc = scan(data)
    root = doc.root
    if root.name != "plist" or len(root.children) != 1 or root.children[0].name != "dict":
        raise FormatError(f"Line {doc.line(root.start)}: the file is not a property list with one <dict>.")
    return doc


def _variable(doc: Document, top: str, name: str, value: Element, note: str | None) -> _Unit | None:
    pairs = _pairs(doc, value)
    spec = {key: _text(doc, v) for key, _, v in pairs if v.name == "string"}
    if spec.get("NSStringFormatSpecTypeKey") != "NSStringPluralRuleType":
        return None
    forms = {key: _text(doc, v) for key, _, v in pairs if key in ORDER}
    if "other" not in forms:
        raise FormatError(f"Line {doc.line(value.start)}: {top!r}: the plural variable {name!r} has no 'other'.")
    ordered = {c: forms[c] for c in ORDER if c in forms}
    codes = tuple(code for form in ordered.values() for code in find_codes(form, _SYNTAXES))
    entry = Entry(
        key=f"{top}/{name}",
        source=ordered["other"],
        note=note,
        codes=codes,
        plural=ordered,
        plural_argument=name,
    )
    return _Unit(entry, value, tuple(pairs))


def _units(doc: Document) -> Iterator[_Unit]:
    for top, key_element, value in _pairs(doc, doc.root.children[0]):
        if value.name != "dict":
            continue
        pairs = _pairs(doc, value)
        found = {key: v for key, _, v in pairs}
        format_element = found.get(_FORMAT_KEY)
        if format_element is None:
            continue
        note = key_element.comment
        text = _text(doc, format_element)
        names = _VARIABLE.findall(text)
        rest = _VARIABLE.sub("", text)
        for code in find_codes(rest, ("printf",)):
            rest = rest.replace(code, "")
        if _WORD.search(rest):
            yield _Unit(Entry(key=top, source=text, note=note, codes=find_codes(text, _SYNTAXES)), format_element)
        for name in dict.fromkeys(names):
            variable = found.get(name)
            if variable is None or variable.name != "dict":
                line = doc.line(format_element.start)
                raise FormatError(f"Line {line}: {top!r}: the format names the variable {name!r}, which has no dict.")
            unit = _variable(doc, top, name, variable, note)
            if unit is not None:
                yield unit


def _read_units(doc: Document) -> list[_Unit]:
    units: list[_Unit] = []
    for unit in _units(doc):
        units.append(unit)
        if len(units) > MAX_SEGMENTS:
            raise FormatError(f"The file has more than {MAX_SEGMENTS} strings, the most one file may have; split it.")
    return units


def _forms_edit(doc: Document, unit: _Unit, forms: Mapping[str, str]) -> tuple[int, int, str]:
    """The new content of a variable's dict: its other keys kept in place, exactly `forms` as categories."""
    text, value = doc.text, unit.value
    first_key = unit.pairs[0][1]
    indent = text[value.content_start : first_key.start]
    indent = indent[len(indent.rstrip()) :] or "\n"
    written = "".join(
        f"{indent}<key>{c}</key>{indent}<string>{_escape(forms[c])}</string>" for c in ORDER if c in forms
    )
    out: list[str] = []
    last = value.content_start
    placed = False
    for key, _, value_element in unit.pairs:
        segment_start = last
        last = value_element.end
        if key in ORDER:
            if not placed:
                out.append(written)
                placed = True
            continue
        out.append(text[segment_start:last])
    if not placed:
        out.append(written)
    out.append(text[last : value.content_end])
    return value.content_start, value.content_end, "".join(out)


class StringsdictFormat(FileFormat):
    """Apple `.stringsdict`: plural variables as plural entries, written with the target's categories."""

    name = "stringsdict"
    extensions = (".stringsdict",)
    media_type = "application/xml"

    def read(self, data: bytes) -> Resource:
        """The file's plural variables and wordy format keys; FormatError for a malformed file or none."""
        units = _read_units(_document(data))
        if not units:
            raise FormatError("The file has no plural rules or format strings to translate.")
        return Resource(entries=tuple(unit.entry for unit in units))

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The original with each translated format key and plural variable replaced in place."""
        doc = _document(data)
        edits: list[tuple[int, int, str]] = []
        for unit in _read_units(doc):
            target = targets.get(unit.entry.key)
            if target is None:
                continue
            if unit.entry.plural is None:
                if not isinstance(target, str):
                    raise FormatError(f"{unit.entry.key!r} is a format string; its target must be a text.")
                edits.append((unit.value.content_start, unit.value.content_end, _escape(target)))
            else:
                edits.append(_forms_edit(doc, unit, {"other": target} if isinstance(target, str) else target))
        out: list[str] = []
        last = 0
        for start, end, value in sorted(edits):
            out.append(doc.text[last:start])
            out.append(value)
            last = end
        out.append(doc.text[last:])
        return doc.encode("".join(out))


FORMAT = StringsdictFormat()
