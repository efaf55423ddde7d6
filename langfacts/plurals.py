"""CLDR plural categories of a language, and gettext's plural forms mapped onto them (babel's CLDR data).

`categories("pl")` is `("one", "few", "many", "other")`, `categories("ja")` is `("other",)`: every
category the language's CLDR rules define, in CLDR's order (zero, one, two, few, many, other).
`gettext_forms("pl")` is gettext's `nplurals`, `plural` expression and which category each
`msgstr[i]` holds (`("one", "few", "many")`: Polish's `other` is for fractions, which gettext's
integer `n` never takes), found by evaluating the expression on integers, so a PO file's forms and
a plural entry's categories map one to one.

`plural_forms(header)` reads a `Plural-Forms` header (`nplurals=2; plural=(n != 1);`) by splitting it
on `;` and `=`, in one pass: a header longer than `MAX_PLURAL_FORMS` characters or an `nplurals`
outside 1 to `MAX_NPLURALS` (CLDR has six categories; gettext's own tables stop there) is refused
before any work, so the caches below hold bounded keys and values.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.messages.plurals import get_plural

ORDER = ("zero", "one", "two", "few", "many", "other")
"""CLDR's categories in the order forms are listed."""
MAX_NPLURALS = len(ORDER)
"""The most plural forms a language has (CLDR's six categories)."""
MAX_PLURAL_FORMS = 500
"""The longest `Plural-Forms` header read (Arabic's, the longest gettext ships, has about 120 characters)."""
MAX_LANGUAGE = 100
"""The longest language tag the functions below take; a longer one is read as English."""
_SAMPLES = (*range(0, 1001), 10**6, 2 * 10**6, 10**9)


@dataclass(frozen=True, slots=True)
class GettextForms:
    """A language's gettext plural forms: the header's values and the category of each `msgstr[i]`."""

    nplurals: int
    expression: str
    categories: tuple[str, ...]
    """`categories[i]` is the CLDR category `msgstr[i]` holds."""

    @property
    def header(self) -> str:
        """The `Plural-Forms` header value."""
        return f"nplurals={self.nplurals}; plural={self.expression};"


def plural_forms(header: str) -> tuple[int, str]:
    """`nplurals` and the `plural` expression of a `Plural-Forms` header value; ValueError (in words
    that follow "Plural-Forms cannot be read:") when it is too long, lacks either, or has `nplurals`
    outside 1 to 6."""
    if len(header) > MAX_PLURAL_FORMS:
        raise ValueError(f"it is longer than {MAX_PLURAL_FORMS} characters")
    fields: dict[str, str] = {}
    for part in header.split(";"):
        name, sep, value = part.partition("=")
        if sep:
            fields.setdefault(name.strip().lower(), value.strip())
        elif part.strip():
            raise ValueError(f"it has {part.strip()[:40]!r} where `name=value` belongs")
    count, expression = fields.get("nplurals", ""), fields.get("plural", "")
    if not count or not expression:
        raise ValueError("it needs nplurals=N; plural=EXPRESSION;")
    if not (count.isascii() and count.isdigit()) or len(count) > 3 or not 1 <= int(count) <= MAX_NPLURALS:
        raise ValueError(f"nplurals={count[:20]} is not 1 to {MAX_NPLURALS} (CLDR's categories)")
    return int(count), expression


def _bounded(language: str) -> str:
    """`language`, or English for a text too long to be a tag (so the caches keep short keys)."""
    return language if len(language) <= MAX_LANGUAGE else "en"


def _locale(language: str) -> Locale:
    tag = language.replace("-", "_")
    for candidate in (tag, tag.split("_")[0]):
        try:
            return Locale.parse(candidate)
        except (UnknownLocaleError, ValueError):
            continue
    return Locale.parse("en")


def categories(language: str) -> tuple[str, ...]:
    """The CLDR plural categories of `language` (a BCP 47 tag; an unknown one has English's), in order."""
    return _categories(_bounded(language))


@lru_cache(maxsize=256)
def _categories(language: str) -> tuple[str, ...]:
    tags = set(_locale(language).plural_form.tags) | {"other"}
    return tuple(c for c in ORDER if c in tags)


def gettext_forms(language: str) -> GettextForms:
    """gettext's plural forms for `language` and the CLDR category each index holds."""
    return _gettext_forms(_bounded(language))


@lru_cache(maxsize=256)
def _gettext_forms(language: str) -> GettextForms:
    rule = get_plural(str(_locale(language)))
    names = _index_categories(rule.plural_expr, rule.num_plurals, language)
    return GettextForms(nplurals=rule.num_plurals, expression=rule.plural_expr, categories=names)


def index_categories(expression: str, nplurals: int, language: str) -> tuple[str, ...]:
    """The CLDR category of `language` that each index of a gettext plural `expression` holds (the
    category of the first integer the expression sends there; `other` for an index no integer
    reaches). ValueError for an expression gettext cannot read or that fails on an integer, or an
    `nplurals` outside 1 to 6."""
    if not 1 <= nplurals <= MAX_NPLURALS or len(expression) > MAX_PLURAL_FORMS:
        raise ValueError(f"nplurals={nplurals} is not 1 to {MAX_NPLURALS}, or the expression is too long")
    return _index_categories(expression, nplurals, _bounded(language))


@lru_cache(maxsize=256)
def _index_categories(expression: str, nplurals: int, language: str) -> tuple[str, ...]:
    locale = _locale(language)
    try:
        index_of = gettext.c2py(expression)
    except (ValueError, SyntaxError, RecursionError) as exc:
        raise ValueError(f"unreadable plural expression {expression!r}") from exc
    found: dict[int, str] = {}
    for n in _SAMPLES:
        try:
            index = index_of(n)
        except (ArithmeticError, TypeError, ValueError, RecursionError) as exc:
            raise ValueError(f"the plural expression {expression!r} fails for n={n}") from exc
        found.setdefault(index, str(locale.plural_form(n)))
        if len(found) >= nplurals:
            break
    return tuple(found.get(i, "other") for i in range(nplurals))
