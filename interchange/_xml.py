"""Safe XML in and out with lxml: no network, no DTD loading, no entity expansion.

Documents arrive as `str` (the API's JSON body); lxml refuses a `str` with an encoding declaration, so
the text is encoded as UTF-8 and its declaration is made to say so. A document that declares
entities is refused outright (billion laughs, external entities), and so is one of more than
MAX_XML_ELEMENTS elements (`limits.py`).

Writing: XML 1.0 cannot hold C0 controls other than tab, newline and CR, U+FFFE/U+FFFF or lone
surrogates. Every writer of the package passes text and attribute values through `clean` (each such
character becomes U+FFFD), except XLIFF 2.0 content, which escapes them as `<cp hex="…"/>` but for
lone surrogates (`codes.py`, splitting with `FORBIDDEN`).
"""

from __future__ import annotations

import re

from lxml import etree

from .errors import NotWellFormed, TooLarge
from .limits import MAX_XML_ELEMENTS

_DECLARATION = re.compile(r"\A\s*<\?xml\b[^>]*?\?>")
_ENCODING = re.compile(r"""\bencoding\s*=\s*(["'])[^"']*\1""")
_XML_NS = "http://www.w3.org/XML/1998/namespace"
XML_LANG = f"{{{_XML_NS}}}lang"
XML_SPACE = f"{{{_XML_NS}}}space"
FORBIDDEN = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""One character XML 1.0 does not allow in a document."""
_SURROGATE = re.compile("[\ud800-\udfff]")


def _parser() -> etree.XMLParser:
    # A new parser per call: lxml parsers are not thread-safe, and this keeps nothing at import.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False, strip_cdata=False)


def parse(text: str) -> tuple[etree._ElementTree, bool]:
    """The document tree of `text` and whether it had an XML declaration; raises NotWellFormed."""
    text = text.removeprefix("\ufeff")
    lone = _SURROGATE.search(text)
    if lone is not None:
        code = ord(lone.group())
        raise NotWellFormed(f"The document holds a lone surrogate (U+{code:04X}) at character {lone.start()}.")
    declaration = _DECLARATION.match(text)
    if declaration is not None:
        fixed = _ENCODING.sub('encoding="UTF-8"', declaration.group())
        text = fixed + text[declaration.end() :]
    try:
        root = etree.fromstring(text.encode("utf-8"), _parser())
    except etree.XMLSyntaxError as exc:
        raise NotWellFormed(f"The document is not well-formed XML: {exc}") from exc
    if sum(1 for _ in root.iter()) > MAX_XML_ELEMENTS:
        raise TooLarge(f"The document has more than {MAX_XML_ELEMENTS} elements, the most one request reads; split it.")
    tree = root.getroottree()
    dtd = tree.docinfo.internalDTD
    if dtd is not None and any(True for _ in dtd.iterentities()):
        raise NotWellFormed("The document declares XML entities, which are not accepted.")
    return tree, declaration is not None


def serialize(tree: etree._ElementTree, *, declaration: bool = True) -> str:
    """`tree` as text, with its doctype, top-level comments and processing instructions."""
    data: bytes = etree.tostring(tree, encoding="UTF-8", xml_declaration=declaration)
    return data.decode("utf-8")


def local(tag: object) -> str:
    """The local name of an element's tag (`{ns}g` → `g`); empty for comments and PIs."""
    if not isinstance(tag, str):
        return ""
    return tag.rpartition("}")[2]


def namespace(element: etree._Element) -> str:
    """The namespace URI of an element, or an empty string."""
    return etree.QName(element).namespace or ""


def sibling_tag(element: etree._Element, name: str) -> str:
    """The tag `name` in the namespace of `element`."""
    ns = namespace(element)
    return f"{{{ns}}}{name}" if ns else name


def preserves_space(element: etree._Element) -> bool:
    """True when `xml:space="preserve"` applies to `element` (on it or the nearest ancestor that says)."""
    node: etree._Element | None = element
    while node is not None:
        value = node.get(XML_SPACE)
        if value is not None:
            return value == "preserve"
        node = node.getparent()
    return False


def xml_char_ok(char: str) -> bool:
    """True when XML 1.0 allows `char` in text."""
    return FORBIDDEN.match(char) is None


def clean(text: str) -> str:
    """`text` with every character XML 1.0 forbids (C0 controls but tab/LF/CR, lone surrogates,
    U+FFFE, U+FFFF) replaced by U+FFFD, so lxml can write it; the same text when there is none."""
    return FORBIDDEN.sub("\ufffd", text)
