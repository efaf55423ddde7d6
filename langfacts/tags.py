"""BCP 47 language tags (RFC 5646): well-formedness, conventional case, the primary subtag.

`normalize_tag("zh_hant_tw")` is `zh-Hant-TW`: `_` is read as `-`, the language is lower case, a
script title case, a region upper case; None when the text is not a well-formed tag of a 2- or
3-letter language (with optional extlang, script, region, variants, extensions and private use).
Parsing splits the text once and checks each subtag by its place: linear, no regular expression.
"""

from __future__ import annotations

MAX_TAG = 100
"""The longest tag read (RFC 5646 asks implementations to take at least 35 characters)."""


def normalize_tag(text: str) -> str | None:
    """`text` as a well-formed BCP 47 tag in conventional case, or None when it is not one."""
    if not text or len(text) > MAX_TAG:
        return None
    parts = text.replace("_", "-").split("-")
    if not _alpha(parts[0], 2, 3):
        return None
    out = [parts[0].lower()]
    i = 1
    extlangs = 0
    while i < len(parts) and extlangs < 3 and _alpha(parts[i], 3, 3):  # extlang
        out.append(parts[i].lower())
        i, extlangs = i + 1, extlangs + 1
    if i < len(parts) and _alpha(parts[i], 4, 4):  # script
        out.append(parts[i].title())
        i += 1
    if i < len(parts) and (_alpha(parts[i], 2, 2) or (len(parts[i]) == 3 and parts[i].isdigit())):  # region
        out.append(parts[i].upper())
        i += 1
    while i < len(parts) and _variant(parts[i]):
        out.append(parts[i].lower())
        i += 1
    while i < len(parts) and len(parts[i]) == 1 and parts[i].isascii() and parts[i].isalnum():  # extension, private use
        singleton = parts[i].lower()
        run = parts[i + 1 :]
        taken = 0
        low = 1 if singleton == "x" else 2
        while taken < len(run) and _alnum(run[taken], low, 8) and (singleton == "x" or len(run[taken]) > 1):
            taken += 1
        if taken == 0:
            return None
        out += [singleton, *(p.lower() for p in run[:taken])]
        i += 1 + taken
    return "-".join(out) if i == len(parts) else None


def primary(tag: str) -> str:
    """The primary language subtag of a well-formed tag (`pt-BR` → `pt`)."""
    return tag.split("-", 1)[0].lower()


def _alpha(part: str, low: int, high: int) -> bool:
    return low <= len(part) <= high and part.isascii() and part.isalpha()


def _alnum(part: str, low: int, high: int) -> bool:
    return low <= len(part) <= high and part.isascii() and part.isalnum()


def _variant(part: str) -> bool:
    return _alnum(part, 5, 8) or (len(part) == 4 and part[0].isdigit() and _alnum(part, 4, 4))
