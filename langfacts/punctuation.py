"""Punctuation across scripts: which marks end a sentence alike, which are brackets, which are quotes.

A translation may write a mark its language's way (a Chinese `。` for `.`, an Arabic `؟` for `?`, a
Greek `;` for `?`, French `« »` for `"…"`, a full-width `（` for `(`): QA compares marks by their
class, never by the character, so a language's own spelling is never a finding.
"""

from __future__ import annotations

from typing import Final

END_CLASSES: Final[dict[str, str]] = {
    **dict.fromkeys(".。｡।॥።۔", "full stop"),
    **dict.fromkeys("?？؟\u037e՞፧", "question mark"),
    **dict.fromkeys("!！՜", "exclamation mark"),
    **dict.fromkeys(":：", "colon"),
    **dict.fromkeys("…⋯", "ellipsis"),
    **dict.fromkeys(",，、،", "comma"),
    **dict.fromkeys(";；؛", "semicolon"),
}
"""A sentence-ending mark and its class. The ASCII `;` is a Greek question mark: a source's `;` read as
a semicolon would flag every Greek question, so a target's `;` matches a source's `?` and `;` alike."""
_SEMICOLON_LIKE: Final = frozenset({"question mark", "semicolon"})

BRACKETS: Final[dict[str, tuple[str, bool]]] = {
    **{c: ("round", True) for c in "(（❨"},
    **{c: ("round", False) for c in ")）❩"},
    **{c: ("square", True) for c in "[［【〔"},
    **{c: ("square", False) for c in "]］】〕"},
    **{c: ("curly", True) for c in "{｛"},
    **{c: ("curly", False) for c in "}｝"},
}
"""A bracket's kind and whether it opens."""

QUOTES: Final = frozenset('"“”„‟«»‹›「」『』〝〞＂')
"""Quotation marks of every language's style. Single marks (`'`, `‘`, `’`) are left out: they are
apostrophes as often (`l'app`, `students'`), and no rule linear in the text tells which."""


def quote_marks(text: str) -> int:
    """How many quotation marks (`QUOTES`) `text` has."""
    return sum(ch in QUOTES for ch in text)


def end_mark(text: str) -> str | None:
    """The class of the mark `text` ends with (closing quotes and brackets, and spaces, looked through;
    `...` is an ellipsis), or None when it ends otherwise."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in QUOTES or _closes(text[end - 1])):
        end -= 1
    if text.endswith("...", 0, end):
        return "ellipsis"
    return END_CLASSES.get(text[end - 1]) if end else None


def _closes(ch: str) -> bool:
    found = BRACKETS.get(ch)
    return found is not None and not found[1]


def same_end(source: str | None, target: str | None) -> bool:
    """Whether two end classes (`end_mark`) end alike; a target's semicolon may be a Greek question mark."""
    return source == target or (source == "question mark" and target == "semicolon")
