"""Language names as users write them → BCP 47 tags, through babel's CLDR data; matching by language.

`bcp47("French")`, `bcp47("français")`, `bcp47("fr_fr")` give `fr`, `fr`, `fr-FR`. A name is looked
up among CLDR's English display names ("Brazilian Portuguese" → `pt-BR`, "Simplified Chinese" →
`zh-Hans`, "Swiss German" → `gsw`, CLDR's name for Alemannic) and every language's name for itself
("简体中文" → `zh-Hans`, "português do Brasil" → `pt-BR`), case and accents ignored ("francais");
"Language (Region)" and "Language (Script)" combine a name with one of CLDR's territory or script
names, in English or in that language ("Portuguese (Brazil)", "Chinese (Traditional)"). A
well-formed tag of a language CLDR knows is read as a tag first; unknown names give None.

A name longer than `MAX_NAME` characters is no language and is refused before any work. babel's
English names are read on the first name that is not a tag (a fifth of a second); the languages'
names for themselves come from `autonyms.json`, babel's data gathered from its ~1,100 locale files
(reading those takes seconds) and kept equal to them by a test.
`same_language` compares primary subtags with CLDR's aliases folded (`iw` is `he`, `nb` is `no`),
so a TMX variant `fr-CA` serves a session "into French".
"""

from __future__ import annotations

import json
import unicodedata
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from .tags import MAX_TAG, normalize_tag, primary

if TYPE_CHECKING:
    from babel import Locale

_AUTONYMS = Path(__file__).with_name("autonyms.json")

MAX_NAME = 100
"""The longest language name or tag read; a longer text is not a language."""
_NONE = frozenset({"auto", "unknown", "*"})
_MACRO = {"nb": "no", "nn": "no"}
"""Norwegian's written standards, folded into the macrolanguage (CLDR has no alias for them)."""


def bcp47(name: str) -> str | None:
    """The BCP 47 tag for a language name or tag as users write it, or None when it is not recognised."""
    if len(name) > MAX_NAME:
        return None
    return _bcp47(" ".join(name.split()).casefold().removesuffix(" language"))


@lru_cache(maxsize=1024)
def _bcp47(text: str) -> str | None:
    if not text or text in _NONE:
        return None
    tag = normalize_tag(text) if len(text) <= MAX_TAG and " " not in text else None
    if tag is not None and primary(tag) in _english().languages:
        return tag
    found = _name(text)
    if found is None and text.endswith((")", "）")):
        cut = max(text.rfind("("), text.rfind("（"))
        if cut > 0:
            found = _qualified(text[:cut].strip(), text[cut + 1 : -1].strip())
    return found or tag


def primary_subtag(tag_or_name: str) -> str | None:
    """The primary language subtag of a tag or name (`pt-BR` → `pt`), aliases folded (`nb` → `no`, `iw` → `he`)."""
    tag = bcp47(tag_or_name)
    if tag is None:
        return None
    first = primary(tag)
    alias = _aliases().get(first)
    first = primary(alias.replace("_", "-")) if alias else first
    return _MACRO.get(first, first)


def same_language(a: str, b: str) -> bool:
    """True when two names or tags are the same language by primary subtag (`fr-FR` and "French")."""
    first = primary_subtag(a)
    return first is not None and first == primary_subtag(b)


def _fold(text: str) -> str:
    """`text` compared without case or accents ("Français" and "francais")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _name(text: str) -> str | None:
    key = _fold(text)
    return _english().names.get(key) or _native().get(key)


def _qualified(language: str, qualifier: str) -> str | None:
    """`language` (a plain language's name) with a territory or script named in English or in that language."""
    tag = _name(language)
    if tag is None or "-" in tag:
        return None
    key = _fold(qualifier)
    code = _english().qualifiers.get(key) or _own_qualifiers(tag).get(key)
    return normalize_tag(f"{tag}-{code}") if code else None


class _Names:
    """CLDR's English display names: name → tag, territory or script name → subtag, and the language codes."""

    def __init__(self, locale: Locale) -> None:
        self.languages = frozenset(str(code).split("_")[0] for code in locale.languages)
        self.names: dict[str, str] = {}
        for code, name in locale.languages.items():
            tag = normalize_tag(code)
            if tag is not None:
                self.names.setdefault(_fold(name), tag)
        self.qualifiers = _qualifier_names(locale)


@cache
def _english() -> _Names:
    from babel import Locale  # babel's data on first use, not at import (the Lambda's cold start)

    return _Names(Locale("en"))


@cache
def _native() -> dict[str, str]:
    """Every language's names for itself, read from `autonyms.json` (a millisecond, where reading
    babel's locale files takes seconds)."""
    found: dict[str, str] = json.loads(_AUTONYMS.read_text(encoding="utf-8"))
    return found


def build_autonyms() -> dict[str, str]:
    """Every language's names for itself and its variants in each of its locales (`français canadien`
    → `fr-CA`, "português do Brasil" in `pt_PT` → `pt-BR`), folded, from babel's locale files: what
    `autonyms.json` holds (`write_autonyms` rewrites it; a test keeps the two equal)."""
    from babel import localedata

    found: dict[str, str] = {}
    for identifier in sorted(localedata.locale_identifiers(), key=lambda i: (len(i), i)):  # own file first
        language = identifier.split("_")[0]
        names = localedata.load(identifier, merge_inherited=False).get("languages", {})
        for code, name in names.items():
            tag = normalize_tag(code)
            if tag is not None and primary(tag) == language:
                found.setdefault(_fold(name), tag)
    return found


@lru_cache(maxsize=64)
def _own_qualifiers(tag: str) -> dict[str, str]:
    """The territory and script names of the language `tag` (a CLDR language code), in that language."""
    from babel import Locale

    try:
        return _qualifier_names(Locale.parse(tag.replace("-", "_")))
    except (ValueError, LookupError):
        return {}


def _qualifier_names(locale: Locale) -> dict[str, str]:
    names = {_fold(name): code for code, name in locale.scripts.items()}
    names.update({_fold(name): code for code, name in locale.territories.items()})
    return names


@cache
def _aliases() -> dict[str, str]:
    from babel.core import get_global

    return dict(get_global("language_aliases"))


def write_autonyms() -> None:
    """Rewrite `autonyms.json` from the installed babel (after an upgrade of babel changes its data):
    `python -c "from langfacts.names import write_autonyms; write_autonyms()"`."""
    _AUTONYMS.write_text(json.dumps(build_autonyms(), ensure_ascii=False, indent=0, sort_keys=True) + "\n", "utf-8")
