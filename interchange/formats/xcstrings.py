"""Xcode String Catalogs (`.xcstrings`): JSON with every language of a table in one file.

Read: each key of `strings` is one entry (its source: the `sourceLanguage` localization's
`stringUnit.value`, or the key itself where the source has no localization, as Xcode does at run
time), unless it says `shouldTranslate: false` or its `extractionState` is `stale` (no longer in
the code). A source with `variations.plural` is a plural entry (its forms by category). A source
whose value names substitutions (`%#@arg@`, `substitutions: {arg: {argNum, formatSpecifier,
variations: {plural}}}`) gives its value as one entry (the `%#@arg@` tokens locked) and each
plural substitution as a plural entry keyed `key/arg`, with `%arg` locked in its forms; a value
of tokens and placeholders only (`%#@count@`) is no entry of its own, nor is an empty value. A
source with `variations.device` gives one entry per device, keyed `key#device` (plain, or plural
where that device has plural variations). The note is the string's `comment`. Locked codes:
printf (`%@`, `%1$@`, `%lld`), `%#@arg@`, `%arg`.
Targets: when the file holds exactly one language besides the source, it is read as the target
(`Resource.target_language`, each entry's `target` where that language has it), for checks of
existing translations; with several, none is (no one language is "the" target).

Write: for each translated entry, the target language's localization is added or replaced with
`state: "translated"` (a plural gets `variations.plural` with exactly the given categories; a
substitution keeps the source's `argNum` and `formatSpecifier`); everything else is kept. The
file is written in Xcode's own style (2-space indent, `"key" : value`, `,` at line ends, a final
newline, objects' keys in the file's order and a new language key in code-point order among the
others, as Xcode sorts them), so reopening it in Xcode changes nothing; a file with nothing
translated is returned byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from langfacts.codes import find_codes
from langfacts.plurals import ORDER

from ..limits import MAX_SEGMENTS
from . import json_text
from ._xcstrings_write import dump, set_target
from .base import Entry, FileFormat, FormatError, Forms, Resource, Target

_SYNTAXES = ("apple_variable", "apple_arg", "printf")
_TOKEN = re.compile(r"%(?:\d{1,2}\$?)?#@([A-Za-z_][\w.]*)@")
_WORD = re.compile(r"[^\W\d_]")
_BLANK_EMPTY = re.compile(r"\{\n\n\s*\}")

JSON = dict[str, Any]


def _object(value: object, where: str) -> JSON:
    if not isinstance(value, dict):
        raise FormatError(f"{where} must be a JSON object.")
    return value


def _pairs_hook(pairs: list[tuple[str, Any]]) -> JSON:
    found: JSON = {}
    for key, value in pairs:
        if key in found:
            raise FormatError(f"The key {key!r} appears twice in one object.")
        found[key] = value
    return found


def _load(data: bytes) -> JSON:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FormatError(f"The file is not UTF-8 (byte {exc.start}).") from exc
    json_text.check_depth(text)
    try:
        root = json.loads(text, object_pairs_hook=_pairs_hook)
    except json.JSONDecodeError as exc:
        raise FormatError(f"Line {exc.lineno}, column {exc.colno}: {exc.msg}.") from exc
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise FormatError(f"The file cannot be read as JSON: {exc}.") from exc
    root = _object(root, "The file")
    if not isinstance(root.get("sourceLanguage"), str):
        raise FormatError("The file has no sourceLanguage: it is not a String Catalog.")
    _object(root.get("strings"), "'strings'")
    return root


def _unit_value(node: object, where: str) -> str | None:
    if not isinstance(node, dict) or "stringUnit" not in node:
        return None
    unit = _object(node["stringUnit"], f"{where}: 'stringUnit'")
    value = unit.get("value")
    if not isinstance(value, str):
        raise FormatError(f"{where}: a stringUnit has no text value.")
    return value


def _forms(plural: object, where: str) -> dict[str, str]:
    forms: dict[str, str] = {}
    for category, node in _object(plural, f"{where}: 'plural'").items():
        if category not in ORDER:
            raise FormatError(f"{where}: plural category {category!r} is not one of {ORDER}.")
        value = _unit_value(node, where)
        if value is not None:
            forms[category] = value
    if "other" not in forms:
        raise FormatError(f"{where}: the plural variations have no 'other'.")
    return {c: forms[c] for c in ORDER if c in forms}


def _codes(*texts: str) -> tuple[str, ...]:
    return tuple(code for text in texts for code in find_codes(text, _SYNTAXES))


def _entry(key: str, value: str | Forms, note: str | None, argument: str | None = None) -> Entry:
    if isinstance(value, str):
        return Entry(key=key, source=value, note=note, codes=_codes(value))
    forms = dict(value)
    return Entry(
        key=key, source=forms["other"], note=note, codes=_codes(*forms.values()), plural=forms, plural_argument=argument
    )


def _has_words(text: str) -> bool:
    rest = _TOKEN.sub("", text)
    for code in find_codes(rest, ("printf",)):
        rest = rest.replace(code, "")
    return _WORD.search(rest) is not None


Place = tuple[str, str, str | None]
"""Where an entry's target goes: the string's key, `plain`, `plural`, `device` or `substitution`, and
the device or substitution name."""


def _texts(key: str, node: JSON | None) -> Iterator[tuple[str, str | Forms, Place]]:
    """(entry key, text or forms, place) of one localization (`node`; None: the key is the text)."""
    where = f"String {key!r}"
    if node is None:
        yield key, key, (key, "plain", None)
        return
    variations = node.get("variations")
    if isinstance(variations, dict) and "plural" in variations:
        yield key, _forms(variations["plural"], where), (key, "plural", None)
    elif isinstance(variations, dict) and "device" in variations:
        for device, device_node in _object(variations["device"], f"{where}: 'device'").items():
            inner = device_node.get("variations") if isinstance(device_node, dict) else None
            place = (key, "device", device)
            if isinstance(inner, dict) and "plural" in inner:
                yield f"{key}#{device}", _forms(inner["plural"], f"{where} ({device})"), place
            elif value := _unit_value(device_node, f"{where} ({device})"):
                yield f"{key}#{device}", value, place
    value = _unit_value(node, where)
    if value is None:
        return
    if value.strip() and (_has_words(value) or not _TOKEN.search(value)):
        yield key, value, (key, "plain", None)
    substitutions = _object(node.get("substitutions", {}), f"{where}: 'substitutions'")
    for name in dict.fromkeys(_TOKEN.findall(value)):
        substitution = substitutions.get(name)
        if substitution is None:
            raise FormatError(f"{where}: the value names %#@{name}@, which has no substitution.")
        plural = _object(substitution, f"{where}: substitution {name!r}").get("variations", {}).get("plural")
        if plural is not None:
            yield f"{key}/{name}", _forms(plural, f"{where}, substitution {name!r}"), (key, "substitution", name)


def _localization(strings_entry: JSON, language: str, key: str) -> JSON | None:
    localizations = _object(strings_entry.get("localizations", {}), f"String {key!r}: 'localizations'")
    node = localizations.get(language)
    return None if node is None else _object(node, f"String {key!r}: localization {language!r}")


def _entries(root: JSON) -> tuple[list[Entry], dict[str, Place], str | None]:
    source_language: str = root["sourceLanguage"]
    strings: JSON = root["strings"]
    others = {
        language
        for value in strings.values()
        if isinstance(value, dict) and isinstance(value.get("localizations"), dict)
        for language in value["localizations"]
        if language != source_language
    }
    target_language = next(iter(others)) if len(others) == 1 else None
    entries: list[Entry] = []
    places: dict[str, Place] = {}
    for key, value in strings.items():
        item = _object(value, f"String {key!r}")
        if item.get("shouldTranslate") is False or item.get("extractionState") == "stale" or not key:
            continue
        comment = item.get("comment")
        note = comment if isinstance(comment, str) and comment else None
        targets: dict[str, str | Forms] = {}
        if target_language is not None and (node := _localization(item, target_language, key)) is not None:
            targets = {k: v for k, v, _ in _texts(key, node)}
        for entry_key, text, place in _texts(key, _localization(item, source_language, key)):
            if entry_key in places:
                raise FormatError(f"String {key!r}: its entry {entry_key!r} is also another string's key.")
            places[entry_key] = place
            argument = place[2] if place[1] == "substitution" else None
            entry = _entry(entry_key, text, note, argument)
            if entry_key in targets:
                entry = _with_target(entry, targets[entry_key])
            entries.append(entry)
            if len(entries) > MAX_SEGMENTS:
                raise FormatError(
                    f"The file has more than {MAX_SEGMENTS} strings, the most one file may have; split it."
                )
    return entries, places, target_language


def _with_target(entry: Entry, target: str | Forms) -> Entry:
    return Entry(
        key=entry.key,
        source=entry.source,
        note=entry.note,
        codes=entry.codes,
        plural=entry.plural,
        plural_argument=entry.plural_argument,
        target=target,
    )


class XcstringsFormat(FileFormat):
    """Xcode String Catalogs: every key's source text, plural and substitution forms."""

    name = "xcstrings"
    extensions = (".xcstrings",)
    media_type = "application/json"

    def read(self, data: bytes) -> Resource:
        """The catalog's strings to translate; FormatError for malformed JSON or a catalog with none."""
        root = _load(data)
        entries, _, target_language = _entries(root)
        if not entries:
            raise FormatError("The catalog has no strings to translate.")
        return Resource(entries=tuple(entries), source_language=root["sourceLanguage"], target_language=target_language)

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The catalog with `target_language`'s localization of each translated entry set, in Xcode's style."""
        root = _load(data)
        _, places, _ = _entries(root)
        chosen = {key: value for key, value in targets.items() if key in places}
        if not chosen:
            return data
        for key, value in chosen.items():
            set_target(root, places[key], value, language=target_language)
        blank = _BLANK_EMPTY.search(data.decode("utf-8-sig")) is not None
        return dump(root, blank_empty=blank).encode("utf-8")


FORMAT = XcstringsFormat()
