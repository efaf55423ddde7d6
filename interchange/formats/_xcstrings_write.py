"""Writing String Catalogs: a target language's localizations set, and JSON in Xcode's own layout.

Xcode (`xcstringstool`) writes 2-space indents, `"key" : value` with a space on each side of the
colon, one member a line, no trailing spaces, `/` unescaped and non-ASCII as it is, and a final
newline; it sorts the keys of `strings` in Finder's order and every other object's keys by code
point. `dump` keeps each object's keys in the order the file had them (Xcode's own), and
`set_target` puts what it adds in code-point order, so a translated catalog differs from the
original only in the localizations written. Empty objects are written as the file wrote them
(`{}`, or `{` blank line `}` as older Xcode versions did).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .base import FormatError, Forms, Target

JSON = dict[str, Any]


def _unit(text: str) -> JSON:
    return {"stringUnit": {"state": "translated", "value": text}}


def _plural(forms: Forms) -> JSON:
    return {"plural": {category: _unit(forms[category]) for category in sorted(forms)}}


def _put(node: Mapping[str, Any], key: str, value: object) -> JSON:
    """`node` with `key` set to `value`: in its place if it was there, else before the first key that
    sorts after it (Xcode's code-point order), the others left in their order."""
    if key in node:
        return {k: (value if k == key else v) for k, v in node.items()}
    out: JSON = {}
    for k, v in node.items():
        if key not in out and k > key:
            out[key] = value
        out[k] = v
    out.setdefault(key, value)
    return out


def _forms(key: str, value: Target) -> Forms:
    return {"other": value} if isinstance(value, str) else value


def _text(key: str, value: Target) -> str:
    if not isinstance(value, str):
        raise FormatError(f"{key!r} is not a plural; its target must be a text.")
    return value


def set_target(root: JSON, place: tuple[str, str, str | None], value: Target, *, language: str) -> None:
    """Set `language`'s localization of the entry at `place` (string key, kind, name) to `value`."""
    key, kind, name = place
    item: JSON = root["strings"][key]
    node: JSON = dict(item.get("localizations", {}).get(language, {}))
    if kind == "plain":
        node.pop("variations", None)
        node = _put(node, "stringUnit", _unit(_text(key, value))["stringUnit"])
    elif kind == "plural":
        node.pop("stringUnit", None)
        node.pop("substitutions", None)
        node = _put(node, "variations", _plural(_forms(key, value)))
    elif kind == "device":
        assert name is not None
        variations: JSON = node.get("variations", {})
        device = _unit(value) if isinstance(value, str) else {"variations": _plural(value)}
        node.pop("stringUnit", None)
        node = _put(node, "variations", _put(variations, "device", _put(variations.get("device", {}), name, device)))
    else:
        assert name is not None
        source = item["localizations"][root["sourceLanguage"]]
        if "stringUnit" not in node:  # a value of tokens only is no entry of its own: the source's is kept
            node = _put(node, "stringUnit", _unit(source["stringUnit"]["value"])["stringUnit"])
        substitution = {k: v for k, v in source["substitutions"][name].items() if k != "variations"}
        substitution = _put(substitution, "variations", _plural(_forms(key, value)))
        node.pop("variations", None)
        node = _put(node, "substitutions", _put(node.get("substitutions", {}), name, substitution))
    root["strings"][key] = _put(item, "localizations", _put(item.get("localizations", {}), language, node))


def _scalar(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return json.dumps(value, ensure_ascii=False)


def dump(value: object, *, blank_empty: bool, indent: int = 0) -> str:
    """`value` as Xcode writes JSON (with a final newline at the top level)."""
    text = _dump(value, blank_empty, indent)
    return text + "\n" if indent == 0 else text


def _dump(value: object, blank_empty: bool, indent: int) -> str:
    pad, inner = " " * indent, " " * (indent + 2)
    if isinstance(value, dict):
        if not value:
            return "{\n\n" + pad + "}" if blank_empty else "{}"
        members = [f"{inner}{_scalar(k)} : {_dump(v, blank_empty, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        items = [f"{inner}{_dump(v, blank_empty, indent + 2)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return _scalar(value)
