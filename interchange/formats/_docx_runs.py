"""A Word paragraph as text with placeholders, and translated text put back into its runs (see `docx`).

`Paragraph(p)` reads a `w:p`: its text pieces (a run's `w:t`, with `w:tab` as `\\t`, a line break
as `\\n`) grouped by formatting (the run properties, less the language and proofing marks Word
scatters over runs, and the hyperlink, smart tag, content control or insertion the run sits in);
the formatting with the most characters is the paragraph's own, every
other group is a paired placeholder `{n}…{/n}`; objects (a drawing, a field from its begin to its
end, a page or column break, a footnote reference, a symbol, an equation…) are standalone `{n}`.
Bookmarks, comment ranges and other markers are kept at the paragraph's start (the starts) or end
(the ends), and so is the run of a footnote's or endnote's own number at its start; deleted text of
tracked changes at its end. `fill(text)` rebuilds the paragraph from a translation: text outside
placeholders in the paragraph's own formatting, text inside `{n}…{/n}` in a copy of group n's run
properties and containers (a hyperlink's `r:id` with them), each object where its `{n}` is (an object
the translation leaves out goes at the end: nothing but text is ever lost).
"""

from __future__ import annotations

import re
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Final

from docx.oxml.ns import qn
from lxml import etree

from langfacts.codes import PATTERNS

_CONTAINERS: Final = frozenset(
    qn(f"w:{name}") for name in ("hyperlink", "smartTag", "ins", "customXml", "sdt", "dir", "bdo", "moveTo")
)
_START_MARKERS: Final = frozenset(
    qn(f"w:{name}")
    for name in (
        "bookmarkStart",
        "commentRangeStart",
        "permStart",
        "proofErr",
        "moveFromRangeStart",
        "moveToRangeStart",
    )
)
_END_MARKERS: Final = frozenset(
    qn(f"w:{name}")
    for name in ("bookmarkEnd", "commentRangeEnd", "permEnd", "del", "moveFrom", "moveFromRangeEnd", "moveToRangeEnd")
)
_CHARS: Final = {qn("w:tab"): "\t", qn("w:cr"): "\n", qn("w:noBreakHyphen"): "\u2011", qn("w:softHyphen"): "\u00ad"}
_DROPPED: Final = frozenset({qn("w:rPr"), qn("w:lastRenderedPageBreak")})
_NOTE_MARKS: Final = frozenset({qn("w:footnoteRef"), qn("w:endnoteRef")})
_UNSEEN: Final = frozenset({qn("w:lang"), qn("w:noProof")})
_R, _T, _BR, _TAB, _PPR, _RPR = qn("w:r"), qn("w:t"), qn("w:br"), qn("w:tab"), qn("w:pPr"), qn("w:rPr")
_LANG = qn("w:lang")
_SDT, _SDT_CONTENT, _FLD_CHAR, _FONTS = qn("w:sdt"), qn("w:sdtContent"), qn("w:fldChar"), qn("w:rFonts")
_TYPE, _FLD_CHAR_TYPE, _VAL, _HINT = qn("w:type"), qn("w:fldCharType"), qn("w:val"), qn("w:hint")
TOKEN: Final = re.compile(r"\{(/?)(\d{1,4})\}")
_SPACE: Final = "{http://www.w3.org/XML/1998/namespace}space"
_LOCKED: Final = re.compile(rf"\{{/\d{{1,4}}\}}|{PATTERNS['brace']}")

Chain = tuple[etree._Element, ...]


Key = tuple[bytes, tuple[int, ...]]
"""A text's formatting: what its run shows (`_look`) and the containers it sits in."""


@dataclass(slots=True)
class _Text:
    text: str
    rpr: etree._Element | None
    chain: Chain
    key: Key


@dataclass(slots=True)
class _Object:
    parts: list[tuple[etree._Element, Chain, etree._Element | None]] = field(default_factory=list)
    """Each element with its containers and, for a run's child, the run whose properties wrap it
    when it is placed (reading never moves an element: the tree is changed only by `fill`)."""
    token: int = 0


@dataclass(slots=True)
class _Group:
    texts: list[_Text]
    token: int = 0

    @property
    def text(self) -> str:
        return "".join(t.text for t in self.texts)


class Paragraph:
    """One `w:p` read as text with placeholders; `fill` writes a translation back into it."""

    def __init__(self, p: etree._Element) -> None:
        self.p = p
        self.starts: list[etree._Element] = []
        self.ends: list[etree._Element] = []
        self.items: list[_Text | _Object] = []
        self._field: _Object | None = None
        self._depth = 0
        self._walk(p, ())
        self.pieces: list[_Group | _Object] = _grouped(self.items)
        self.main = _main_key(self.items)
        self._number()

    def _walk(self, parent: etree._Element, chain: Chain) -> None:
        for child in parent:
            tag = child.tag
            if tag == _PPR or not isinstance(tag, str):
                continue
            if self._field is not None and tag != _R:
                self._field.parts.append((child, chain, None))
            elif tag == _R:
                self._run(child, chain)
            elif tag in _CONTAINERS:
                inner = child.find(_SDT_CONTENT) if tag == _SDT else child
                self._walk(inner if inner is not None else child, (*chain, child))
            elif tag in _START_MARKERS:
                self.starts.append(child)
            elif tag in _END_MARKERS:
                self.ends.append(child)
            else:  # a simple field, an equation, anything unknown: kept whole where it is
                self.items.append(_Object([(child, chain, None)]))

    def _run(self, run: etree._Element, chain: Chain) -> None:
        chars = run.findall(_FLD_CHAR)
        if self._field is not None or chars:
            self._field_run(run, chain, chars)
            return
        if not self.items and not chain and _is_note_mark(run):
            self.starts.append(run)  # a footnote's or endnote's own number: it stays first, unseen
            return
        rpr = run.find(_RPR)
        key = (_look(rpr), tuple(id(c) for c in chain))
        for child in run:
            tag = child.tag
            if tag in _DROPPED or not isinstance(tag, str):
                continue
            if tag == _T:
                self.items.append(_Text(child.text or "", rpr, chain, key))
            elif tag in _CHARS:
                self.items.append(_Text(_CHARS[tag], rpr, chain, key))
            elif tag == _BR and child.get(_TYPE, "textWrapping") == "textWrapping":
                self.items.append(_Text("\n", rpr, chain, key))
            else:  # a drawing, a page break, a note reference…: its own run, with the run's properties
                self.items.append(_Object([(child, chain, run)]))

    def _field_run(self, run: etree._Element, chain: Chain, chars: list[etree._Element]) -> None:
        """A run of a complex field: the field from its begin to its end is one object."""
        if self._field is None:
            self._field = _Object()
            self.items.append(self._field)
        self._field.parts.append((run, chain, None))
        for char in chars:
            kind = char.get(_FLD_CHAR_TYPE)
            self._depth += 1 if kind == "begin" else -1 if kind == "end" else 0
        if self._depth <= 0:
            self._field, self._depth = None, 0

    def _number(self) -> None:
        taken = {int(m.group(2)) for t in self.items if isinstance(t, _Text) for m in TOKEN.finditer(t.text)}
        number = 0
        for piece in self.pieces:
            if isinstance(piece, _Group) and self._plain(piece):
                continue
            number += 1
            while number in taken:
                number += 1
            piece.token = number

    def _plain(self, group: _Group) -> bool:
        return group.texts[0].key == self.main or not group.text.strip()

    @property
    def has_text(self) -> bool:
        """True when the paragraph has a character to translate."""
        return any(isinstance(i, _Text) and i.text.strip() for i in self.items)

    def text(self) -> str:
        """The paragraph's text with its placeholders."""
        out: list[str] = []
        for piece in self.pieces:
            if isinstance(piece, _Object):
                out.append(f"{{{piece.token}}}")
            elif piece.token:
                out.append(f"{{{piece.token}}}{piece.text}{{/{piece.token}}}")
            else:
                out.append(piece.text)
        return "".join(out)

    def codes(self) -> tuple[str, ...]:
        """The placeholders of `text()` and the brace placeholders its text already has (a literal
        `{0}` or `{name}` is locked too: `codes.code_changes` counts every brace code), in order."""
        return tuple(m.group() for m in _LOCKED.finditer(self.text()))

    def fill(self, text: str, *, language: str | None = None) -> None:
        """Replace the paragraph's content with `text` (placeholders as `text()` gives them)."""
        groups = {p.token: p for p in self.pieces if isinstance(p, _Group) and p.token}
        objects = {p.token: p for p in self.pieces if isinstance(p, _Object)}
        plain = next((t for t in self.items if isinstance(t, _Text) and t.key == self.main), None)
        for child in list(self.p):
            if child.tag != _PPR:
                self.p.remove(child)
        for marker in self.starts:
            self.p.append(marker)
        opened: list[int] = []
        position = 0
        for match in TOKEN.finditer(text):
            token, closing = int(match.group(2)), bool(match.group(1))
            if token not in groups and token not in objects:
                continue
            self._text(text[position : match.start()], groups, opened, plain, language)
            position = match.end()
            if token in objects and not closing:
                for element, chain, run in objects.pop(token).parts:
                    _place(self.p, _held(element, run), chain)
            elif token in groups and closing and token in opened:
                opened.remove(token)
            elif token in groups and not closing:
                opened.append(token)
        self._text(text[position:], groups, opened, plain, language)
        for left in objects.values():
            for element, chain, run in left.parts:
                _place(self.p, _held(element, run), chain)
        for marker in self.ends:
            self.p.append(marker)

    def _text(
        self, text: str, groups: dict[int, _Group], opened: list[int], plain: _Text | None, language: str | None
    ) -> None:
        if not text:
            return
        like = groups[opened[-1]].texts[0] if opened else plain
        run = etree.Element(_R)
        if like is not None and like.rpr is not None:
            rpr = deepcopy(like.rpr)
            lang = rpr.find(_LANG)
            if language and lang is not None and lang.get(_VAL):
                lang.set(_VAL, language)
            run.append(rpr)
        for part in re.split(r"([\t\n])", text):
            if part == "\t":
                etree.SubElement(run, _TAB)
            elif part == "\n":
                etree.SubElement(run, _BR)
            elif part:
                node = etree.SubElement(run, _T)
                node.text = part
                if part != part.strip():
                    node.set(_SPACE, "preserve")
        _place(self.p, run, like.chain if like is not None else ())


def has_words(p: etree._Element) -> bool:
    """True when a text of the paragraph (or of a text box in it) has a character that is not white
    space: a cheap test that `Paragraph(p).has_text` may be true, for the many paragraphs without."""
    return any(t.text and not t.text.isspace() for t in p.iter(_T))


def _is_note_mark(run: etree._Element) -> bool:
    """True for a run that holds only a footnote's or endnote's own mark (`w:footnoteRef`)."""
    marks = [c for c in run if isinstance(c.tag, str) and c.tag not in _DROPPED]
    return bool(marks) and all(c.tag in _NOTE_MARKS for c in marks)


def _held(element: etree._Element, run: etree._Element | None) -> etree._Element:
    """`element` as it is placed: in a run like `run` (its attributes and properties) when it was a run's child."""
    if run is None:
        return element
    holder = etree.Element(_R, attrib=dict(run.attrib))
    rpr = run.find(_RPR)
    if rpr is not None:
        holder.append(deepcopy(rpr))
    holder.append(element)
    return holder


def _look(rpr: etree._Element | None) -> bytes:
    """What run properties show: without the language and proofing marks Word scatters over runs,
    so runs that look alike are one group."""
    if rpr is None:
        return b""
    if not any(c.tag in _UNSEEN or (c.tag == _FONTS and _HINT in c.attrib) for c in rpr):
        return etree.tostring(rpr) if len(rpr) else b""
    shown = deepcopy(rpr)
    for child in list(shown):
        if child.tag in _UNSEEN:
            shown.remove(child)
        elif child.tag == _FONTS:
            child.attrib.pop(_HINT, None)
    return etree.tostring(shown) if len(shown) else b""


def _grouped(items: list[_Text | _Object]) -> list[_Group | _Object]:
    """Consecutive text pieces of one formatting as one group; objects as they are."""
    pieces: list[_Group | _Object] = []
    for item in items:
        if isinstance(item, _Object):
            pieces.append(item)
        elif pieces and isinstance(pieces[-1], _Group) and pieces[-1].texts[0].key == item.key:
            pieces[-1].texts.append(item)
        else:
            pieces.append(_Group([item]))
    return pieces


def _main_key(items: list[_Text | _Object]) -> Key | None:
    """The formatting that holds the most characters (the first of equals)."""
    sizes: dict[Key, int] = {}
    for item in items:
        if isinstance(item, _Text):
            sizes[item.key] = sizes.get(item.key, 0) + len(item.text.strip())
    return max(sizes, key=lambda k: sizes[k]) if sizes else None


def _place(p: etree._Element, element: etree._Element, chain: Chain) -> None:
    """Append `element` to `p` inside copies of its containers (their properties kept, no content)."""
    parent = p
    for container in chain:
        copy = etree.SubElement(parent, container.tag, attrib=dict(container.attrib))
        for child in container:
            if isinstance(child.tag, str) and child.tag.endswith("Pr"):
                copy.append(deepcopy(child))
        parent = etree.SubElement(copy, _SDT_CONTENT) if container.tag == _SDT else copy
    parent.append(element)
