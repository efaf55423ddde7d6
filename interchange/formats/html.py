"""HTML pages (`.html`, `.htm`): the text of each block with its inline markup, and translatable attributes.

A block entry is a run of text and inline markup (`a`, `b`, `strong`, `em`, `span`, `br`, `img`,
`sup`, `abbr`, `kbd`…) inside any other element (`p`, `h1`, `li`, `td`, `title`, `button`,
`option`, a `div`'s own text…); every other tag ends the run. Its source is the run's decoded text
(whitespace collapsed to one space, entities decoded) with each inline tag kept literally as a
locked code (`Click <a href="/x">here</a> now`; `<code>` and `<samp>` too, their text translated
unless marked). In an inline element marked `translate="no"` (or class `notranslate`) every tag
and every text between them is a locked code of its own (so `codes.code_changes`, which finds a
translation's tags one by one, sees each as the source's). Comments inside a run are codes,
around it they stay outside. Runs with no letter are no entries. Its key
is the path of the enclosing block (`body/main[1]/p[3]`, `#2` after it for the block's second
run); its note, the block's name. `script`, `style`, `pre`, `textarea`, `template`, `svg`, `math`,
`iframe`, `object`, `canvas` and any block marked `translate="no"` or `notranslate` are skipped
whole. Attribute entries (`alt`, `title`, `placeholder`, `aria-label`, a submit button's `value`,
`<meta name="description">`'s `content`, Open Graph and Twitter titles and descriptions) have the
key `path@attribute` and the note `element attribute`.

Writing splices at source offsets (`_html_lexer` keeps them): a translated block's run is replaced
by the translation, its text escaped (`&`, `<`, `>`) and its codes as written (with any translated
attribute inside them); a translated attribute's value is written in the quotes it had (double
quotes when it had none); `<html lang>` becomes the target language when the page has one, and
a declared encoding other than UTF-8 (a page read as UTF-8 text that says `iso-8859-1`) says
`utf-8`, since the page is written in UTF-8.
Everything else is byte for byte the original (doctype, comments, whitespace, entity spelling).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from typing import Final

from ..limits import MAX_SEGMENTS
from ._html_blocks import Block, FoundAttr, Walk, walk
from ._html_lexer import Attr, line_of, tokens
from ._markup import Edit, decode_utf8, splice, split_codes
from .base import Entry, FileFormat, FormatError, Resource, Target

_WHITESPACE: Final = re.compile(r"[ \t\n\r\f]+")
_UTF8: Final = re.compile(r"utf-?8", re.IGNORECASE)
_CHARSET: Final = re.compile(r"(charset\s*=\s*)[^;\s]+", re.IGNORECASE)


class HtmlFormat(FileFormat):
    """HTML documents: blocks and attributes in, the same page with them translated out."""

    name = "html"
    extensions = (".html", ".htm")
    media_type = "text/html; charset=utf-8"

    def read(self, data: bytes) -> Resource:
        """The blocks and translatable attributes, in document order."""
        found = _walk(data)
        if len(found.blocks) + len(found.attrs) > MAX_SEGMENTS:
            raise FormatError(f"html: more than {MAX_SEGMENTS} blocks and attributes to translate")
        entries = sorted([*map(_block_entry, found.blocks), *map(_attr_entry, found.attrs)], key=lambda p: p[0])
        if not entries:
            raise FormatError('html: no text to translate (every block is empty, code or marked translate="no")')
        lang = found.lang.value if found.lang is not None else None
        return Resource(entries=tuple(e for _, e in entries), source_language=lang or None)

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The page with each translated block and attribute spliced in, and `<html lang>` set."""
        found = _walk(data)
        text = found.text
        attr_edits = {a.key: _attr_edit(text, a.attr, _text(targets, a.key)) for a in found.attrs if a.key in targets}
        by_tag: dict[int, list[FoundAttr]] = {}
        for attr in found.attrs:
            by_tag.setdefault(attr.tag_start, []).append(attr)
        edits: list[Edit] = []
        covered: set[str] = set()
        for block in found.blocks:
            if block.key not in targets:
                continue
            edits.append(
                Edit(block.start, block.end, _render(text, block, _text(targets, block.key), by_tag, attr_edits))
            )
            covered.update(a.key for tag in block.tags for a in by_tag.get(tag.start, ()))
        edits += [edit for key, edit in attr_edits.items() if key not in covered]
        if found.lang is not None and found.lang.value is not None:
            edits.append(_attr_edit(text, found.lang, target_language))
        charset = found.charset
        if charset is not None and charset.value and not _UTF8.search(charset.value):
            value = "utf-8" if charset.name == "charset" else _CHARSET.sub(r"\g<1>utf-8", charset.value)
            edits.append(_attr_edit(text, charset, value))
        return splice(text, edits).encode("utf-8")


def _walk(data: bytes) -> Walk:
    text = decode_utf8(data, "html")
    nul = text.find("\0")
    if nul >= 0:
        raise FormatError(f"html: line {line_of(text, nul)}: a NUL character: this is not a text file")
    return walk(text, tokens(text))


def _text(targets: Mapping[str, Target], key: str) -> str:
    target = targets[key]
    if not isinstance(target, str):
        raise ValueError(f"{key}: an HTML text takes a text, not plural forms")
    return target


def _block_entry(block: Block) -> tuple[int, Entry]:
    source = "".join(raw if is_code else html.unescape(_WHITESPACE.sub(" ", raw)) for is_code, raw in block.pieces)
    codes = tuple(raw for is_code, raw in block.pieces if is_code)
    return block.start, Entry(key=block.key, source=source, note=block.note, codes=codes, document=True)


def _attr_entry(found: FoundAttr) -> tuple[int, Entry]:
    return found.attr.start, Entry(key=found.key, source=found.attr.value or "", note=found.note)


def _render(
    text: str, block: Block, target: str, by_tag: Mapping[int, list[FoundAttr]], attr_edits: Mapping[str, Edit]
) -> str:
    """The translation as HTML: text escaped, each code as the source wrote it (attributes translated)."""
    versions: dict[str, list[str]] = {}
    for tag in block.tags:
        inner = [
            Edit(edit.start - tag.start, edit.end - tag.start, edit.new)
            for attr in by_tag.get(tag.start, ())
            if (edit := attr_edits.get(attr.key)) is not None
        ]
        versions.setdefault(text[tag.start : tag.end], []).append(splice(text[tag.start : tag.end], inner))
    used: dict[str, int] = {}
    out: list[str] = []
    for is_code, piece in split_codes(target, [raw for is_code, raw in block.pieces if is_code]):
        if not is_code:
            out.append(piece.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;"))
            continue
        options = versions.get(piece, [piece])
        used[piece] = used.get(piece, 0) + 1
        out.append(options[min(used[piece], len(options)) - 1])
    return "".join(out)


def _attr_edit(text: str, attr: Attr, value: str) -> Edit:
    """The attribute's new value in the quotes it had (double quotes for an unquoted or empty one)."""
    quote = "'" if text[attr.start : attr.start + 1] == "'" else '"'
    escaped = value.replace("&", "&amp;").replace(quote, "&quot;" if quote == '"' else "&#39;")
    return Edit(attr.start, attr.end, f"{quote}{escaped}{quote}")


FORMAT = HtmlFormat()
