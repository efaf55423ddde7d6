"""Android string values: the text a translator sees, its locked codes, and the value written back.

Reading follows aapt2: outside double quotes a run of whitespace is one space and the ends are
trimmed; inside them whitespace is kept and the quotes are not text; `\\'`, `\\"`, `\\\\`, `\\@`, `\\?`
are the characters, `\\n` and `\\t` a line break and a tab, `\\uXXXX` the character. XML markup
in a value (`<b>`, `<i>`, `<u>`, `<a href>`…) is a locked code per tag, and an `<xliff:g>` element
with its content is one locked code (its content is never translated); a CDATA section is text (its
HTML tags are locked too). printf specifiers of the text (`%1$s`, `%d`) are locked codes unless the
string says `formatted="false"`.

Writing escapes what Android requires: `\\` `'` `"` with a backslash (an unescaped apostrophe
breaks the build), line breaks and tabs as `\\n` and `\\t`, a leading `@` or `?` (else the value is
a resource reference), `&` and `<` as XML entities; a value whose whitespace would collapse (leading,
trailing or doubled spaces) is wrapped in double quotes. Locked markup codes are written as they were.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from langfacts.codes import find_codes

from .. import _xml
from ._xmlscan import Document, Element
from .base import FormatError

_SIMPLE = {"n": "\n", "t": "\t"}
_HEX = re.compile(r"[0-9A-Fa-f]{4}")
_SPACE = " \t\n\r"


def _markup_end(doc: Document, index: int, stop: int) -> int:
    """The index just after the end token matching the start token at `index` (an `<xliff:g>` element)."""
    depth = 0
    for i in range(index, stop):
        token = doc.tokens[i]
        if token.kind == "start" and not doc.text[token.start : token.end].endswith("/>"):
            depth += 1
        elif token.kind == "end":
            depth -= 1
            if depth == 0:
                return i + 1
    return stop


def pieces(doc: Document, element: Element) -> list[tuple[str, str]]:
    """The content of `element` as (kind, text): `markup` (raw, a locked code), `text` (XML entities
    decoded, Android escapes still in) or `cdata` (raw text of a CDATA section)."""
    found: list[tuple[str, str]] = []
    index, stop = element.first_token, element.last_token
    text = doc.text
    while index < stop:
        token = doc.tokens[index]
        raw = text[token.start : token.end]
        if token.kind == "text":
            found.append(("text", html.unescape(raw)))
        elif token.kind == "cdata":
            found.append(("cdata", raw[9:-3]))
        elif token.kind == "start" and raw[1:].split(None, 1)[0].rstrip("/>").rpartition(":")[2] == "g":
            after = index + 1 if raw.endswith("/>") else _markup_end(doc, index, stop)
            found.append(("markup", text[token.start : doc.tokens[after - 1].end]))
            index = after
            continue
        elif token.kind in ("start", "end"):
            found.append(("markup", raw))
        index += 1  # comments and processing instructions inside a value are not text
    return found


class _Reader:
    """The aapt2 reading of a value's pieces: quotes, whitespace, escapes."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.out: list[str] = []
        self.pending = False
        self.quoted = False

    def emit(self, chunk: str) -> None:
        if self.pending and self.out:
            self.out.append(" ")
        self.pending = False
        self.out.append(chunk)

    def feed(self, text: str) -> None:
        i, size = 0, len(text)
        while i < size:
            char = text[i]
            if char == "\\":
                i = self._escape(text, i + 1)
                continue
            if char == '"':
                self.quoted = not self.quoted
            elif char in _SPACE and not self.quoted:
                self.pending = True
            else:
                self.emit(char)
            i += 1

    def _escape(self, text: str, i: int) -> int:
        if i >= len(text):
            return i
        char = text[i]
        if char == "u":
            digits = text[i + 1 : i + 5]
            if not _HEX.fullmatch(digits):
                raise FormatError(f"String {self.key!r}: \\u must be followed by four hex digits, not {digits!r}.")
            self.emit(chr(int(digits, 16)))
            return i + 5
        self.emit(_SIMPLE.get(char, char))
        return i + 1


def read(doc: Document, element: Element, *, key: str, printf: bool) -> tuple[str, tuple[str, ...]]:
    """The text a translator sees for the value of `element`, and its locked codes in order."""
    reader = _Reader(key)
    codes: list[str] = []
    for kind, text in pieces(doc, element):
        if kind == "markup":
            reader.emit(text)
            codes.append(text)
            continue
        start = len(reader.out)
        reader.feed(text)
        shown = "".join(reader.out[start:])
        syntaxes = (["printf"] if printf else []) + (["html"] if kind == "cdata" else [])
        if syntaxes:
            codes.extend(find_codes(shown, syntaxes))
    return "".join(reader.out), tuple(codes)


def markup_of(doc: Document, element: Element) -> tuple[str, ...]:
    """The raw markup codes of `element`'s value (written back as they are)."""
    return tuple(text for kind, text in pieces(doc, element) if kind == "markup")


def _escape_text(text: str) -> str:
    out = text.replace("\\", "\\\\").replace("'", "\\'").replace('"', '\\"')
    out = out.replace("\n", "\\n").replace("\t", "\\t")
    out = out.replace("&", "&amp;").replace("<", "&lt;").replace("]]>", "]]&gt;")
    return _xml.clean(out)


def write(text: str, markup: Sequence[str]) -> str:
    """The XML content of a value that Android reads as `text`, with `markup` codes written raw."""
    parts: list[str] = []
    if markup:
        pattern = re.compile("|".join(re.escape(m) for m in sorted(set(markup), key=len, reverse=True)))
        last = 0
        for match in pattern.finditer(text):
            parts.append(_escape_text(text[last : match.start()]))
            parts.append(match.group())
            last = match.end()
        parts.append(_escape_text(text[last:]))
    else:
        parts.append(_escape_text(text))
    value = "".join(parts)
    if value[:1] in ("@", "?"):
        value = "\\" + value
    if text != text.strip(" ") or "  " in text:
        value = f'"{value}"'
    return value
