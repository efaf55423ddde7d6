"""Placeholders written as the inline elements of an export format: XLIFF 2.0, XLIFF 1.2 or TMX 1.4b.

A text of an XLIFF source shows its inline codes as `{n}` / `{/n}` (`codes.py`); an export of that
text writes each as the element its format has for that kind of code, numbered by the placeholder:

    code in the text           XLIFF 2.0                 XLIFF 1.2           TMX 1.4b
    single `{n}`               <ph id="n"/>              <x/> (<ph> if it was) <ph x="n">
    paired, nesting (g, pc)    <pc id="n">…</pc>         <g id="n">…</g>     <bpt i="n">…<ept i="n">
    paired, start/end          <sc id="n"/>…<ec/>        <bpt/>…<ept/>       <bpt i="n">…<ept i="n">
    a start alone in the text  <sc isolated="yes"/>      <bx/>               <it pos="begin">
    an end alone in the text   <ec isolated="yes"/>      <ex/>               <it pos="end">

Which one is decided from the source text (a unit may hold only part of a segment,
so one half of a pair); the target uses the source's modes. A placeholder with no code is literal
text. PlaceholderError when the target repeats one, closes one before it opens, crosses nesting
pairs, leaves one open or invents one the source lacks: the caller then writes the text as plain
text (`codes._append_text`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from lxml import etree

from langfacts.codes import TOKEN

from . import codes as inline
from ._xml import clean, sibling_tag
from .errors import PlaceholderError
from .model import InlineCode

Format = Literal["xliff2", "xliff12", "tmx"]
Mode = Literal["single", "wrap", "pair", "open", "close"]
_NESTING = frozenset({"g", "pc", "mrk"})
# The element each mode is written as, per format: (start element, end element).
_ELEMENTS: dict[Format, dict[Mode, tuple[str, str]]] = {
    "xliff2": {"single": ("ph", ""), "wrap": ("pc", ""), "pair": ("sc", "ec"), "open": ("sc", ""), "close": ("ec", "")},
    "xliff12": {
        "single": ("x", ""),
        "wrap": ("g", ""),
        "pair": ("bpt", "ept"),
        "open": ("bx", ""),
        "close": ("ex", ""),
    },
    "tmx": {
        "single": ("ph", ""),
        "wrap": ("bpt", "ept"),
        "pair": ("bpt", "ept"),
        "open": ("it", ""),
        "close": ("it", ""),
    },
}


def modes_of(source: str, codes: Sequence[InlineCode]) -> dict[int, Mode]:
    """How each code whose placeholder is in `source` is written (codes absent from it are left out)."""
    present = {m.group() for m in TOKEN.finditer(source)}
    modes: dict[int, Mode] = {}
    for code in codes:
        opens, closes = f"{{{code.token}}}" in present, f"{{/{code.token}}}" in present
        if code.kind == "single":
            if opens:
                modes[code.token] = "single"
        elif opens and closes:
            modes[code.token] = "wrap" if code.element in _NESTING else "pair"
        elif opens or closes:
            modes[code.token] = "open" if opens else "close"
    return modes


def write_inline(parent: etree._Element, text: str, source: str, codes: Sequence[InlineCode], fmt: Format) -> None:
    """Append `text` (the source or a target of `source`) to the empty `parent`, its placeholders as
    `fmt`'s inline elements; PlaceholderError when they do not fit, or one is not in `source`."""
    invented = inline.invented(source, text)
    if invented:
        raise PlaceholderError(f"Placeholder {', '.join(invented)} is not in the source.")
    modes = modes_of(source, codes)
    writer = _Writer(parent, {c.token: c for c in codes if c.token in modes}, modes, fmt)
    position = 0
    for match in TOKEN.finditer(text):
        if writer.placeholder(match, text[position : match.start()]):
            position = match.end()
    writer.text(text[position:])
    writer.finish()


class _Writer:
    def __init__(
        self, parent: etree._Element, codes: Mapping[int, InlineCode], modes: Mapping[int, Mode], fmt: Format
    ) -> None:
        self.fmt, self.codes, self.modes = fmt, codes, modes
        self.version: inline.Version = "2.0" if fmt == "xliff2" else "1.2"
        self.stack: list[tuple[etree._Element, int]] = [(parent, 0)]
        self.used: set[str] = set()
        self.open: set[int] = set()
        self.wraps: list[int] = []  # open nesting codes, innermost last (TMX writes them flat, but they still nest)

    def text(self, text: str) -> None:
        inline._append_text(self.stack[-1][0], text, self.version)

    def placeholder(self, match: re.Match[str], before: str) -> bool:
        """Write one placeholder (with the text before it); False when it is literal text."""
        token, closing, whole = int(match.group(2)), bool(match.group(1)), match.group()
        mode = self.modes.get(token)
        if mode is None or (mode in ("single", "open", "close") and closing != (mode == "close")):
            return False
        if whole in self.used:
            raise PlaceholderError(f"Placeholder {whole} appears more than once.")
        self.used.add(whole)
        self.text(before)
        if mode in ("wrap", "pair") and closing:
            self._close(token, mode, whole)
        else:
            self._start(token, mode)
        return True

    def _start(self, token: int, mode: Mode) -> None:
        parent = self.stack[-1][0]
        element = self._element(parent, _ELEMENTS[self.fmt][mode][0], token, mode)
        if mode == "wrap":
            self.wraps.append(token)
        if mode == "wrap" and self.fmt != "tmx":
            self.stack.append((element, token))
        elif mode in ("wrap", "pair"):
            self.open.add(token)

    def _close(self, token: int, mode: Mode, whole: str) -> None:
        if mode == "wrap":
            if not self.wraps or self.wraps[-1] != token:
                raise PlaceholderError(
                    f"{whole} closes a code that is not the innermost open one."
                    if token in self.wraps
                    else f"{whole} comes before {{{token}}}."
                )
            self.wraps.pop()
        if mode == "wrap" and self.fmt != "tmx":
            self.stack.pop()
            return
        if token not in self.open:
            raise PlaceholderError(f"{whole} comes before {{{token}}}.")
        self.open.discard(token)
        self._element(self.stack[-1][0], _ELEMENTS[self.fmt][mode][1], token, mode, end=True)

    def _element(
        self, parent: etree._Element, name: str, token: int, mode: Mode, *, end: bool = False
    ) -> etree._Element:
        code = self.codes[token]
        if self.fmt == "xliff12" and mode == "single" and code.element == "ph":
            name = "ph"
        tag = sibling_tag(parent, name) if self.fmt != "tmx" else name
        element = etree.SubElement(parent, tag, attrib=_attributes(self.fmt, name, token, mode, end=end))
        if self.fmt == "xliff2":
            if name == "ph" and code.display:
                element.set("disp", clean(code.display))
        elif name in ("ph", "bpt", "it") and code.display:  # these hold the native code (for reviewers)
            element.text = clean(code.display)
        return element

    def finish(self) -> None:
        if len(self.stack) > 1:
            token = self.stack[-1][1]
            raise PlaceholderError(f"{{{token}}} is never closed with {{/{token}}}.")
        if self.open:
            token = min(self.open)
            raise PlaceholderError(f"{{{token}}} is never closed with {{/{token}}}.")


def _attributes(fmt: Format, name: str, token: int, mode: Mode, *, end: bool) -> dict[str, str]:
    number = str(token)
    if fmt == "tmx":
        if name == "it":
            return {"pos": "begin" if mode == "open" else "end", "x": number}
        return {"i": number} if end else ({"x": number} if name == "ph" else {"i": number, "x": number})
    if fmt == "xliff2":
        if name == "ec" and mode == "pair":
            return {"startRef": number}
        return {"id": number, "isolated": "yes"} if mode in ("open", "close") else {"id": number}
    return {"id": number, "rid": number} if name in ("bx", "ex") else {"id": number}
