"""Text a request may carry: what every stored string must be, as reusable pydantic types.

`Text` is text every storage backend and every export format can hold: valid Unicode (no lone
surrogate, which UTF-8 cannot encode) and no control character but tab, line feed and carriage
return (XML 1.0, hence XLIFF, TMX and TBX, cannot carry the others at all). `Filled` is a `Text`
that is also not blank: a translation of only whitespace is no translation, and kept in the
translation memory it would be proposed again for every later occurrence of its source.
`Name` is a `Text` fit to name a file: not blank, on one line, no path separator.

A violation is a `ValueError` whose message says what is wrong and where in the text, so the API's
422 (pydantic names the field) tells the caller what to fix.
"""

from __future__ import annotations

import re
from typing import Annotated, Final

from pydantic import AfterValidator

__all__ = [
    "Filled",
    "Name",
    "Text",
    "Unicode",
    "check_filled",
    "check_name",
    "check_text",
    "check_unicode",
    "text_problem",
]

_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
"""The C0 controls but tab (09), line feed (0A) and carriage return (0D)."""
_SURROGATE: Final = re.compile(r"[\ud800-\udfff]")
_NAME_FORBIDDEN: Final = re.compile(r"[/\\\n\r\t]")


def _surrogate(value: str) -> str | None:
    if found := _SURROGATE.search(value):
        return f"contains a lone surrogate (invalid Unicode) at character {found.start()}; it cannot be stored"
    return None


def text_problem(value: str) -> str | None:
    """What makes `value` unstorable (a control character, a lone surrogate), or None when it is fine."""
    if problem := _surrogate(value):
        return problem
    if found := _CONTROL.search(value):
        code = ord(found.group())
        return (
            f"contains the control character U+{code:04X} at character {found.start()}; "
            "only tab, line feed and carriage return are allowed"
        )
    return None


def check_unicode(value: str) -> str:
    """`value` unchanged; ValueError when it holds a lone surrogate (a document's content: its control
    characters are the format's business)."""
    if problem := _surrogate(value):
        raise ValueError(f"text {problem}")
    return value


def check_text(value: str) -> str:
    """`value` unchanged; ValueError when it holds a control character or a lone surrogate."""
    if problem := text_problem(value):
        raise ValueError(f"text {problem}")
    return value


def check_filled(value: str) -> str:
    """`value` unchanged; ValueError when it is blank (empty or only whitespace) or not storable (`check_text`)."""
    if not value.strip():
        raise ValueError("the text is blank (only whitespace); give the text itself")
    return check_text(value)


def check_name(value: str) -> str:
    """`value` unchanged; ValueError unless it is a storable name: not blank, one line, no `/` or `\\`."""
    if not value.strip():
        raise ValueError("the name is blank; give the file's name, e.g. guide.md")
    if found := _NAME_FORBIDDEN.search(value):
        raise ValueError(
            f"the name contains {found.group()!r} at character {found.start()}; a file name has no path "
            "separator and no line break (give the name alone, e.g. guide.md)"
        )
    if value.strip(" .") == "":
        raise ValueError("the name is only dots; give the file's name, e.g. guide.md")
    return check_text(value)


Unicode = Annotated[str, AfterValidator(check_unicode)]
"""A document's content: valid Unicode (no lone surrogate)."""
Text = Annotated[str, AfterValidator(check_text)]
"""A string every store and export can hold (no control character but tab, LF, CR; no lone surrogate)."""
Filled = Annotated[str, AfterValidator(check_filled)]
"""A `Text` that is not blank: a translation, a user's message, a glossary term."""
Name = Annotated[str, AfterValidator(check_name)]
"""A file name: a `Text` that is not blank, on one line, with no path separator."""
