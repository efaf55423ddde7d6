"""An HTML tokenizer that keeps every token's source offsets, so a writer can splice instead of re-serialise.

Tokens: `text` (raw, entities not decoded), `start` (name lower-cased, attributes with the offsets of
their raw values), `end`, `comment`, and `other` (doctype, processing instruction, CDATA). The
content of `script`, `style`, `textarea`, `title` and the other raw-text elements is one `text`
token up to the element's end tag, as browsers read it. A `<` that opens no tag is text. A comment,
tag or raw-text element that is never closed is a FormatError naming its line. Linear: every scan
starts where the previous one ended.
"""

from __future__ import annotations

import html
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Final, Literal

from .base import FormatError

RAW_TEXT: Final = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})
_END: Final = re.compile(r"</([A-Za-z][^\s/>]*)[^>]*>")

Kind = Literal["text", "start", "end", "comment", "other"]


@dataclass(frozen=True, slots=True)
class Attr:
    """An attribute of a start tag: its value decoded, and where its raw value (quotes included) lies."""

    name: str
    value: str | None
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Token:
    """One token of the document and the source offsets it spans."""

    kind: Kind
    start: int
    end: int
    name: str = ""
    attrs: tuple[Attr, ...] = ()
    self_closing: bool = False

    def attr(self, name: str) -> Attr | None:
        """The attribute `name` (lower case), if the tag has it."""
        return next((a for a in self.attrs if a.name == name), None)


def line_of(text: str, offset: int) -> int:
    """The line number (from 1) of `offset` in `text`."""
    return text.count("\n", 0, offset) + 1


def tokens(text: str) -> Iterator[Token]:
    """The tokens of `text` in order; they cover it from end to end."""
    pos, size = 0, len(text)
    while pos < size:
        lt = text.find("<", pos)
        if lt < 0:
            yield Token("text", pos, size)
            return
        if lt > pos:
            yield Token("text", pos, lt)
        token = _markup(text, lt)
        if token is None:  # a `<` that opens nothing: text
            nxt = text.find("<", lt + 1)
            end = size if nxt < 0 else nxt
            yield Token("text", lt, end)
            pos = end
            continue
        yield token
        pos = token.end
        if token.kind == "start" and token.name in RAW_TEXT and not token.self_closing:
            pos = yield from _raw_text(text, token)


def _markup(text: str, lt: int) -> Token | None:
    if text.startswith("<!--", lt):
        close = text.find("-->", lt + 4)
        if close < 0:
            raise FormatError(f"html: line {line_of(text, lt)}: a comment that is never closed with -->")
        return Token("comment", lt, close + 3)
    if text.startswith("<![CDATA[", lt):
        close = text.find("]]>", lt)
        if close < 0:
            raise FormatError(f"html: line {line_of(text, lt)}: a CDATA section that is never closed with ]]>")
        return Token("other", lt, close + 3)
    if text.startswith(("<!", "<?"), lt) or (text.startswith("</", lt) and not text[lt + 2 : lt + 3].isalpha()):
        close = text.find(">", lt)
        if close < 0:
            raise FormatError(f"html: line {line_of(text, lt)}: a declaration that is never closed with >")
        return Token("other", lt, close + 1)
    if text.startswith("</", lt):
        match = _END.match(text, lt)
        if match is None:
            raise FormatError(f"html: line {line_of(text, lt)}: an end tag that is never closed with >")
        return Token("end", lt, match.end(), match.group(1).lower())
    if not text[lt + 1 : lt + 2].isalpha():
        return None
    return _start_tag(text, lt)


_NAME_END: Final = re.compile(r"[\s/>]")
_ATTR_NAME: Final = re.compile(r"[^\s/>][^\s/>=]*")
_UNQUOTED: Final = re.compile(r"[^\s>]*")
_SPACES: Final = re.compile(r"[\s/]*")


def _start_tag(text: str, lt: int) -> Token:
    """A start tag read as browsers read it: quotes open a value only right after `=`."""
    name_end = _NAME_END.search(text, lt + 1)
    pos = len(text) if name_end is None else name_end.start()
    name = text[lt + 1 : pos].lower()
    attrs: list[Attr] = []
    while True:
        gap = _SPACES.match(text, pos)
        assert gap is not None  # matches the empty string too
        pos = gap.end()
        if pos >= len(text):
            raise FormatError(f"html: line {line_of(text, lt)}: a tag that is never closed with >")
        if text[pos] == ">":
            closing = text[lt:pos].rstrip()
            return Token("start", lt, pos + 1, name, tuple(attrs), self_closing=closing.endswith("/"))
        match = _ATTR_NAME.match(text, pos)
        assert match is not None  # the character at pos is none of whitespace, / and >
        pos = match.end()
        attrs.append(_value(text, lt, match.group().lower(), pos))
        pos = attrs[-1].end if attrs[-1].value is not None else pos


def _value(text: str, lt: int, name: str, pos: int) -> Attr:
    """The attribute `name` whose name ends at `pos`: its value if `=` follows, else none."""
    equals = pos
    while equals < len(text) and text[equals] in " \t\n\r\f":
        equals += 1
    if equals >= len(text) or text[equals] != "=":
        return Attr(name, None, pos, pos)
    start = equals + 1
    while start < len(text) and text[start] in " \t\n\r\f":
        start += 1
    if start < len(text) and text[start] in "\"'":
        close = text.find(text[start], start + 1)
        if close < 0:
            raise FormatError(f"html: line {line_of(text, start)}: a quoted attribute value that is never closed")
        return Attr(name, html.unescape(text[start + 1 : close]), start, close + 1)
    match = _UNQUOTED.match(text, start)
    assert match is not None
    return Attr(name, html.unescape(match.group()), start, match.end())


def _raw_text(text: str, token: Token) -> Generator[Token, None, int]:
    """The content of a raw-text element and its end tag; returns the offset after them."""
    pattern = re.compile(rf"</{token.name}(?=[\s/>])", re.IGNORECASE)
    match = pattern.search(text, token.end)
    if match is None:
        raise FormatError(f"html: line {line_of(text, token.start)}: <{token.name}> is never closed")
    if match.start() > token.end:
        yield Token("text", token.end, match.start())
    close = text.find(">", match.end())
    if close < 0:
        raise FormatError(f"html: line {line_of(text, match.start())}: an end tag that is never closed with >")
    yield Token("end", match.start(), close + 1, token.name)
    return close + 1
