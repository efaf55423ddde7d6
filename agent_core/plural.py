"""A plural entry's unit: its forms by CLDR category, written as one JSON object text.

A plural entry (PO `msgid_plural`, ICU `plural`, Android `<plurals>`, …) is one segment whose unit
holds a form for each CLDR category of the target language (`langfacts.plurals.categories`).
The unit's text, as stored, shown in lists and exported to XLIFF and TMX, is the forms as a JSON object
in CLDR order (`{"one": "1 plik", "few": "%d pliki", …}`); the file's own export writes them back by
category. Locked codes: the `other` form keeps every code of the source's `other` form; no form may
hold a code the source does not.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from langfacts.codes import code_changes, find_codes, syntaxes_of
from langfacts.plurals import ORDER

__all__ = ["ORDER", "forms_problems", "forms_text", "parse_forms"]


def forms_text(forms: Mapping[str, str]) -> str:
    """The forms as the unit's text: a JSON object in CLDR order."""
    ordered = {c: forms[c] for c in ORDER if c in forms} | {c: v for c, v in forms.items() if c not in ORDER}
    return json.dumps(ordered, ensure_ascii=False)


def parse_forms(value: str | Mapping[str, object]) -> dict[str, str] | None:
    """Forms given as an object or its JSON text; None when it is neither an object of texts."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        return None
    return {str(k): str(v) for k, v in value.items()}


def forms_problems(
    forms: Mapping[str, str], categories: Sequence[str], *, codes: Sequence[str], source_other: str
) -> list[str]:
    """What is wrong with `forms` for a target with `categories`: a category missing or added, a
    blank form, a locked code dropped from `other` or one the source lacks (empty when right)."""
    problems: list[str] = []
    missing = [c for c in categories if c not in forms]
    extra = [c for c in forms if c not in categories]
    if missing:
        problems.append(f"the forms {', '.join(missing)} are missing")
    if extra:
        problems.append(f"{', '.join(extra)} is not a plural category of the target language")
    problems += [f"the form {c} is empty" for c, text in forms.items() if c in categories and not text.strip()]
    if not codes:
        return problems
    other_codes = [c for c in dict.fromkeys(codes) for _ in range(source_other.count(c))]
    if "other" in forms:
        problems += [f"other: {p}" for p in code_changes(other_codes, forms["other"]) if "not in the source" not in p]
    known = set(codes)
    syntaxes = syntaxes_of(known)
    for category, text in forms.items():
        added = [c for c in find_codes(text, syntaxes) if c not in known] if syntaxes else []
        problems += [f"{category}: {c} is not in the source" for c in dict.fromkeys(added)]
    return problems
