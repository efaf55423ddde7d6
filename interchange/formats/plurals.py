"""CLDR plural categories of a language, and gettext's plural forms mapped onto them (babel's CLDR data).

`categories("pl")` is `("one", "few", "many", "other")`, `categories("ja")` is `("other",)`: every
category the language's CLDR rules define, in CLDR's order (zero, one, two, few, many, other).
`gettext_forms("pl")` is gettext's `nplurals`, `plural` expression and which category each
`msgstr[i]` holds (`("one", "few", "many")`: Polish's `other` is for fractions, which gettext's
integer `n` never takes), found by evaluating the expression on integers, so a PO file's forms and
a plural entry's categories map one to one.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from functools import lru_cache

from babel import Locale, UnknownLocaleError
from babel.messages.plurals import get_plural

ORDER = ("zero", "one", "two", "few", "many", "other")
"""CLDR's categories in the order forms are listed."""
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


def _locale(language: str) -> Locale:
    tag = language.replace("-", "_")
    for candidate in (tag, tag.split("_")[0]):
        try:
            return Locale.parse(candidate)
        except (UnknownLocaleError, ValueError):
            continue
    return Locale.parse("en")


@lru_cache(maxsize=256)
def categories(language: str) -> tuple[str, ...]:
    """The CLDR plural categories of `language` (a BCP 47 tag; an unknown one has English's), in order."""
    tags = set(_locale(language).plural_form.tags) | {"other"}
    return tuple(c for c in ORDER if c in tags)


@lru_cache(maxsize=256)
def gettext_forms(language: str) -> GettextForms:
    """gettext's plural forms for `language` and the CLDR category each index holds."""
    rule = get_plural(str(_locale(language)))
    names = index_categories(rule.plural_expr, rule.num_plurals, language)
    return GettextForms(nplurals=rule.num_plurals, expression=rule.plural_expr, categories=names)


@lru_cache(maxsize=256)
def index_categories(expression: str, nplurals: int, language: str) -> tuple[str, ...]:
    """The CLDR category of `language` that each index of a gettext plural `expression` holds (the
    category of the first integer the expression sends there; `other` for an index no integer
    reaches). ValueError for an expression gettext cannot read or that fails on an integer."""
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


def category_of(language: str, n: int) -> str:
    """The category the integer `n` takes in `language`."""
    return str(_locale(language).plural_form(n))
