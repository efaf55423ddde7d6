"""Language names as users write them → BCP 47 (babel's CLDR names), and matching by primary subtag."""

from __future__ import annotations

import pytest

from langfacts import bcp47, names, same_language


@pytest.mark.parametrize(
    ("name", "tag"),
    [
        ("French", "fr"),
        ("français", "fr"),
        ("FRENCH", "fr"),
        ("fr", "fr"),
        ("fr-FR", "fr-FR"),
        ("fr_fr", "fr-FR"),
        ("Brazilian Portuguese", "pt-BR"),
        ("Portuguese (Brazil)", "pt-BR"),
        ("português do Brasil", "pt-BR"),
        ("pt-br", "pt-BR"),
        ("European Portuguese", "pt-PT"),
        ("Chinese", "zh"),
        ("简体中文", "zh-Hans"),
        ("繁體中文", "zh-Hant"),
        ("Simplified Chinese", "zh-Hans"),
        ("Chinese (Traditional)", "zh-Hant"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("German", "de"),
        ("Deutsch", "de"),
        ("Swiss German", "gsw"),  # CLDR: Alemannic; Switzerland's standard German is "Swiss High German"
        ("Swiss High German", "de-CH"),
        ("Japanese", "ja"),
        ("日本語", "ja"),
        ("Korean", "ko"),
        ("Spanish", "es"),
        ("español", "es"),
        ("Latin American Spanish", "es-419"),
        ("es-419", "es-419"),
        ("Mexican Spanish", "es-MX"),
        ("Canadian French", "fr-CA"),
        ("French (Canada)", "fr-CA"),
        ("British English", "en-GB"),
        ("American English", "en-US"),
        ("en_US", "en-US"),
        ("Norwegian", "no"),
        ("Norwegian Bokmål", "nb"),
        ("Russian", "ru"),
        ("русский", "ru"),
        ("Arabic", "ar"),
        ("Hebrew", "he"),
        ("Persian", "fa"),
        ("Hindi", "hi"),
        ("Turkish", "tr"),
        ("Ukrainian", "uk"),
        ("Polish", "pl"),
        ("Dutch", "nl"),
        ("Italian", "it"),
        ("Vietnamese", "vi"),
        ("Thai", "th"),
        ("Indonesian", "id"),
        ("Tagalog", "tl"),
        ("Cantonese", "yue"),
        ("french language", "fr"),
        ("  french  ", "fr"),
        ("Klingon", "tlh"),  # CLDR has it
        ("Dothraki", None),
        ("francais", "fr"),  # accents ignored
        ("Português (Brasil)", "pt-BR"),
        ("中文（简体）", "zh-Hans"),
        ("français canadien", "fr-CA"),
        ("Chinese (Taiwan)", "zh-TW"),
        ("sr_Latn", "sr-Latn"),
        ("qq-x-private", "qq-x-private"),  # a well-formed tag of a language CLDR does not name
        ("fr-", None),
        ("French" * 20, None),  # longer than any name
        ("", None),
        ("unknown", None),
        ("auto", None),
        ("*", None),
        ("the French one", None),
    ],
)
def test_bcp47(name: str, tag: str | None) -> None:
    assert bcp47(name) == tag


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("fr-FR", "french", True),
        ("fr-CA", "fr", True),
        ("pt-BR", "Portuguese", True),
        ("zh-Hans", "Chinese", True),
        ("nb", "Norwegian", True),
        ("iw", "he", True),
        ("en", "fr", False),
        ("pt", "es", False),
        ("unknown", "unknown", False),
        ("Dothraki", "Dothraki", False),
        ("Tagalog", "fil", True),  # CLDR's alias
    ],
)
def test_same_language(a: str, b: str, same: bool) -> None:
    assert same_language(a, b) is same


@pytest.mark.slow
def test_the_shipped_autonyms_are_babels() -> None:
    """`autonyms.json` is babel's data (reading babel's ~1,100 locale files takes seconds; after an
    upgrade of babel, `write_autonyms()` rewrites it)."""
    assert names._native() == names.build_autonyms()
