"""An XML document as element spans over its own text, so a writer can splice new content in place.

lxml (through `interchange._xml`, entities, DTDs and network off) checks that the document is
well-formed and says where it is not; `scan` then tokenises the same text once, with one regular
expression, and returns its elements with the offsets of their tags and content, their attributes
and the comment right before each. A writer replaces the content of a few elements and keeps every
other byte (comments, order, attributes, whitespace between elements) as it was.
"""

from __future__ import annotations

import codecs
import html
import re
from dataclasses import dataclass, field

from .. import _xml
from ..errors import InterchangeError
from ._encoding import text_codec
from .base import FormatError

_TOKEN = re.compile(
    r"""(?P<comment><!--.*?-->)
    |(?P<cdata><!\[CDATA\[.*?\]\]>)
    |(?P<pi><\?.*?\?>)
    |(?P<doctype><!DOCTYPE(?:[^\[>"']|"[^"]*"|'[^']*')*+
        (?:\[(?:<!--.*?-->|<\?.*?\?>|"[^"]*"|'[^']*'|[^\]"'<]|<(?!!--|\?))*+\]\s*)?>)
    |(?P<end></[^\s>]+\s*>)
    |(?P<start><[^\s/>!?]+(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>)
    |(?P<text>[^<]+)""",
    re.S | re.X,
)
_NAME = re.compile(r"<([^\s/>]+)")
_ATTR = re.compile(r"""([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_DECLARED = re.compile(rb"""\A<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_LXML_SUFFIX = re.compile(r" \(<string>, line \d+\)")
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass(slots=True)
class Token:
    """One piece of the document: `kind` is comment, cdata, pi, doctype, end, start or text."""

    kind: str
    start: int
    end: int


@dataclass(slots=True)
class Element:
    """An element of the document: its tag's name as written, attributes, spans and children."""

    name: str
    attrs: dict[str, str]
    start: int
    """Offset of the `<` of its start tag."""
    content_start: int
    """Offset just after its start tag."""
    content_end: int
    """Offset of its end tag's `<` (equal to `content_start` for an empty element)."""
    end: int
    """Offset just after its end tag."""
    first_token: int
    """Index of its first content token in `Document.tokens`."""
    last_token: int
    """Index just after its last content token."""
    comment: str | None = None
    """The text of the comment right before it (only whitespace, at most one line break, between)."""
    children: list[Element] = field(default_factory=list)

    @property
    def local(self) -> str:
        """The name without its prefix."""
        return self.name.rpartition(":")[2]


@dataclass(slots=True)
class Document:
    """A decoded XML document, its tokens and its root element."""

    text: str
    encoding: str
    bom: bytes
    tokens: list[Token]
    root: Element

    def line(self, offset: int) -> int:
        """The 1-based line of `offset`."""
        return self.text.count("\n", 0, offset) + 1

    def encode(self, text: str) -> bytes:
        """`text` in the document's own encoding, with its byte-order mark if it had one."""
        return self.bom + text.encode(self.encoding, errors="xmlcharrefreplace")


def decode(data: bytes) -> tuple[str, str, bytes]:
    """The text of an XML document, its encoding and its byte-order mark (BOM first, then the declaration)."""
    bom, encoding = b"", "utf-8"
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, encoding = mark, name
            break
    else:
        declared = _DECLARED.match(data)
        if declared is not None:
            encoding = declared.group(1).decode("ascii").lower()
    text_codec(encoding, "Line 1: the XML declaration")
    try:
        return data[len(bom) :].decode(encoding), encoding, bom
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(f"Line {line}: the file is not valid {encoding} (byte {exc.start}).") from exc
    except UnicodeError as exc:  # a codec that fails without a position (punycode)
        raise FormatError(f"The file is not valid {encoding}: {exc}.") from exc


def check(text: str) -> None:
    """FormatError unless `text` is well-formed XML without entity declarations (the message says where)."""
    try:
        _xml.parse(text)
    except InterchangeError as exc:
        message = _LXML_SUFFIX.sub("", str(exc)).replace("The document", "The file")
        raise FormatError(message) from exc


def scan(data: bytes) -> Document:
    """The document of `data`: checked well-formed, decoded, tokenised and its elements spanned."""
    text, encoding, bom = decode(data)
    check(text)
    tokens: list[Token] = []
    pos, size = 0, len(text)
    while pos < size:
        match = _TOKEN.match(text, pos)
        if match is None or match.lastgroup is None:
            line = text.count("\n", 0, pos) + 1
            raise FormatError(f"Line {line}: markup that cannot be read here: {text[pos : pos + 30]!r}.")
        tokens.append(Token(match.lastgroup, pos, match.end()))
        pos = match.end()
    root = _tree(text, tokens)
    return Document(text=text, encoding=encoding, bom=bom, tokens=tokens, root=root)


def attributes(tag: str) -> dict[str, str]:
    """The attributes of a start tag, their values unescaped."""
    return {
        m.group(1): html.unescape(m.group(2) if m.group(2) is not None else m.group(3)) for m in _ATTR.finditer(tag)
    }


def _tree(text: str, tokens: list[Token]) -> Element:
    top = Element("", {}, 0, 0, len(text), len(text), 0, len(tokens))
    stack = [top]
    comment: str | None = None
    for index, token in enumerate(tokens):
        kind = token.kind
        if kind == "comment":
            comment = text[token.start + 4 : token.end - 3].strip()
        elif kind == "start":
            raw = text[token.start : token.end]
            name_match = _NAME.match(raw)
            assert name_match is not None  # the token pattern starts with a name
            empty = raw.endswith("/>")
            element = Element(
                name=name_match.group(1),
                attrs=attributes(raw),
                start=token.start,
                content_start=token.end,
                content_end=token.end,
                end=token.end,
                first_token=index + 1,
                last_token=index + 1,
                comment=comment,
            )
            stack[-1].children.append(element)
            if not empty:
                stack.append(element)
            comment = None
        elif kind == "end":
            if len(stack) == 1:  # lxml checked the document: only a token misread could get here
                raise FormatError(f"Line {text.count(chr(10), 0, token.start) + 1}: an end tag without its start.")
            element = stack.pop()
            element.content_end, element.end, element.last_token = token.start, token.end, index
            comment = None
        elif kind == "text":
            if comment is not None and (
                text[token.start : token.end].strip() or text.count("\n", token.start, token.end) > 1
            ):
                comment = None
        else:
            comment = None
    roots = top.children
    if len(roots) != 1:
        raise FormatError("The file does not have exactly one root element.")
    return roots[0]
