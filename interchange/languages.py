"""User language names to BCP 47 tags, and comparison by primary subtag.

`bcp47("French")`, `bcp47("français")`, `bcp47("fr_fr")` give `fr`, `fr`, `fr-FR`; names with a region
("Brazilian Portuguese", "Portuguese (Brazil)", "pt-br") give `pt-BR`; script names for Chinese
("简体中文", "Simplified Chinese") give `zh-Hans`. Unknown names give None. `same_language` compares
primary subtags, so a TMX variant `fr-CA` serves a session "into French".
"""

from __future__ import annotations

import re

# English and native names → primary subtag (ISO 639-1 where there is one).
_NAMES: dict[str, str] = {
    "english": "en",
    "french": "fr",
    "français": "fr",
    "francais": "fr",
    "german": "de",
    "deutsch": "de",
    "spanish": "es",
    "español": "es",
    "espanol": "es",
    "castellano": "es",
    "castilian": "es",
    "italian": "it",
    "italiano": "it",
    "portuguese": "pt",
    "português": "pt",
    "portugues": "pt",
    "dutch": "nl",
    "nederlands": "nl",
    "flemish": "nl",
    "chinese": "zh",
    "中文": "zh",
    "汉语": "zh",
    "漢語": "zh",
    "mandarin": "zh",
    "japanese": "ja",
    "日本語": "ja",
    "korean": "ko",
    "한국어": "ko",
    "russian": "ru",
    "русский": "ru",
    "ukrainian": "uk",
    "українська": "uk",
    "polish": "pl",
    "polski": "pl",
    "czech": "cs",
    "čeština": "cs",
    "slovak": "sk",
    "slovenčina": "sk",
    "swedish": "sv",
    "svenska": "sv",
    "danish": "da",
    "dansk": "da",
    "norwegian": "no",
    "norsk": "no",
    "bokmål": "nb",
    "bokmal": "nb",
    "norwegian bokmål": "nb",
    "norwegian bokmal": "nb",
    "nynorsk": "nn",
    "norwegian nynorsk": "nn",
    "finnish": "fi",
    "suomi": "fi",
    "icelandic": "is",
    "greek": "el",
    "ελληνικά": "el",
    "turkish": "tr",
    "türkçe": "tr",
    "arabic": "ar",
    "العربية": "ar",
    "hebrew": "he",
    "עברית": "he",
    "persian": "fa",
    "farsi": "fa",
    "فارسی": "fa",
    "hindi": "hi",
    "हिन्दी": "hi",
    "हिंदी": "hi",
    "bengali": "bn",
    "bangla": "bn",
    "urdu": "ur",
    "tamil": "ta",
    "telugu": "te",
    "marathi": "mr",
    "gujarati": "gu",
    "punjabi": "pa",
    "thai": "th",
    "ไทย": "th",
    "vietnamese": "vi",
    "tiếng việt": "vi",
    "indonesian": "id",
    "bahasa indonesia": "id",
    "malay": "ms",
    "bahasa melayu": "ms",
    "filipino": "fil",
    "tagalog": "tl",
    "hungarian": "hu",
    "magyar": "hu",
    "romanian": "ro",
    "română": "ro",
    "bulgarian": "bg",
    "български": "bg",
    "serbian": "sr",
    "српски": "sr",
    "croatian": "hr",
    "hrvatski": "hr",
    "slovenian": "sl",
    "slovene": "sl",
    "slovenščina": "sl",
    "lithuanian": "lt",
    "latvian": "lv",
    "estonian": "et",
    "eesti": "et",
    "catalan": "ca",
    "català": "ca",
    "basque": "eu",
    "euskara": "eu",
    "galician": "gl",
    "galego": "gl",
    "welsh": "cy",
    "irish": "ga",
    "gaeilge": "ga",
    "albanian": "sq",
    "macedonian": "mk",
    "armenian": "hy",
    "georgian": "ka",
    "azerbaijani": "az",
    "kazakh": "kk",
    "uzbek": "uz",
    "swahili": "sw",
    "kiswahili": "sw",
    "afrikaans": "af",
    "zulu": "zu",
    "xhosa": "xh",
    "amharic": "am",
    "yoruba": "yo",
    "hausa": "ha",
    "igbo": "ig",
    "somali": "so",
    "nepali": "ne",
    "sinhala": "si",
    "khmer": "km",
    "lao": "lo",
    "burmese": "my",
    "mongolian": "mn",
    "latin": "la",
    "esperanto": "eo",
    "luxembourgish": "lb",
    "maltese": "mt",
    "belarusian": "be",
    "bosnian": "bs",
    "cantonese": "yue",
    "粵語": "yue",
    "广东话": "yue",
}
# Whole names that carry a script or region.
_FULL: dict[str, str] = {
    "简体中文": "zh-Hans",
    "简体": "zh-Hans",
    "中文（简体）": "zh-Hans",
    "simplified chinese": "zh-Hans",
    "chinese simplified": "zh-Hans",
    "chinese (simplified)": "zh-Hans",
    "繁體中文": "zh-Hant",
    "繁体中文": "zh-Hant",
    "繁體": "zh-Hant",
    "中文（繁體）": "zh-Hant",
    "traditional chinese": "zh-Hant",
    "chinese traditional": "zh-Hant",
    "chinese (traditional)": "zh-Hant",
    "português do brasil": "pt-BR",
    "português brasileiro": "pt-BR",
    "français canadien": "fr-CA",
    "latin american spanish": "es-419",
    "spanish (latin america)": "es-419",
    "español latinoamericano": "es-419",
    "european portuguese": "pt-PT",
    "european spanish": "es-ES",
    "serbian latin": "sr-Latn",
    "serbian cyrillic": "sr-Cyrl",
}
_REGIONS: dict[str, str] = {
    "brazil": "BR",
    "brazilian": "BR",
    "brasil": "BR",
    "portugal": "PT",
    "france": "FR",
    "canada": "CA",
    "canadian": "CA",
    "belgium": "BE",
    "belgian": "BE",
    "switzerland": "CH",
    "swiss": "CH",
    "austria": "AT",
    "austrian": "AT",
    "germany": "DE",
    "us": "US",
    "usa": "US",
    "united states": "US",
    "american": "US",
    "uk": "GB",
    "united kingdom": "GB",
    "british": "GB",
    "great britain": "GB",
    "australia": "AU",
    "australian": "AU",
    "mexico": "MX",
    "mexican": "MX",
    "spain": "ES",
    "argentina": "AR",
    "argentinian": "AR",
    "latin america": "419",
    "taiwan": "TW",
    "taiwanese": "TW",
    "hong kong": "HK",
    "china": "CN",
    "mainland": "CN",
    "india": "IN",
    "indian": "IN",
    "ireland": "IE",
    "irish": "IE",
    "new zealand": "NZ",
    "quebec": "CA",
    "québec": "CA",
    "colombia": "CO",
    "chile": "CL",
}
_ALIASES = {"nb": "no", "nn": "no", "iw": "he", "in": "id", "ji": "yi", "tl": "fil", "jw": "jv"}
_TAG = re.compile(r"^[a-z]{2,3}(?:[-_](?:[a-z]{4}|[a-z]{2}|\d{3}|[a-z\d]{5,8}))*$", re.I)
_PAREN = re.compile(r"^(.+?)\s*[(（](.+?)[)）]$")


def bcp47(name: str) -> str | None:
    """The BCP 47 tag for a language name or tag as users write it, or None when it is not recognised."""
    text = " ".join(name.replace("_", "-").split()).casefold().removesuffix(" language")
    if not text or text in ("auto", "unknown", "*"):
        return None
    if text in _FULL:
        return _FULL[text]
    if text in _NAMES:
        return _NAMES[text]
    paren = _PAREN.match(text)
    if paren is not None:
        return _with_region(paren.group(1), paren.group(2))
    words = text.split(" ")
    for cut in range(1, len(words)):
        found = _with_region(" ".join(words[cut:]), " ".join(words[:cut]))
        if found is not None:
            return found
    if _TAG.match(text):
        return _normalize_tag(text)
    return None


def _with_region(language: str, region: str) -> str | None:
    primary = _FULL.get(language) or _NAMES.get(language)
    if primary is None:
        return None
    if region in ("simplified", "简体"):
        return "zh-Hans" if primary == "zh" else None
    if region in ("traditional", "繁體", "繁体"):
        return "zh-Hant" if primary == "zh" else None
    code = _REGIONS.get(region)
    return f"{primary}-{code}" if code is not None else None


def _normalize_tag(tag: str) -> str:
    """Conventional case: language lower, script title (`Hans`), region upper (`BR`, `419`)."""
    parts = tag.replace("_", "-").split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        if len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif len(part) == 2 or (len(part) == 3 and part.isdigit()):
            out.append(part.upper())
        else:
            out.append(part.lower())
    return "-".join(out)


def primary_subtag(tag_or_name: str) -> str | None:
    """The primary language subtag of a tag or name (`pt-BR` → `pt`), aliases folded (`nb` → `no`)."""
    tag = bcp47(tag_or_name)
    if tag is None:
        return None
    primary = tag.split("-")[0].lower()
    return _ALIASES.get(primary, primary)


def same_language(a: str, b: str) -> bool:
    """True when two names or tags are the same language by primary subtag (`fr-FR` and "French")."""
    first, second = primary_subtag(a), primary_subtag(b)
    return first is not None and first == second
