"""Inline codes ↔ placeholders, so the model sees plain text and QA can count the codes.

The translatable text of a segment shows each inline code as a numbered placeholder: `{1}` for a
standalone code (`<x/>`, `<ph/>`, `<bx/>`, `<it>`, an isolated `<sc/>`), and `{1}` … `{/1}` around
the text a paired code encloses (`<g>`, `<pc>`, `<mrk>`) or between a start and an end code
(`<bpt>`/`<ept>`, `<sc/>`/`<ec/>`, `<sm/>`/`<em/>`). Numbers count from 1 in document order and skip
any number whose `{n}` or `{/n}` already appears literally in the segment (a Java `{0}`), so a literal
brace pattern is never taken for a code. The project's QA already checks `{…}` placeholders.

Mapping back (`rebuild`): a translated text's placeholders become copies of the original codes,
with the translated text between them; codes the translation drops are dropped (XLIFF lets a target
omit codes); a placeholder with no code stays literal text. A code used twice, a `{/n}` before its
`{n}`, a pair left open or pairs that cross (`{1}a{2}b{/1}c{/2}` for `<g>`) raise PlaceholderError.
An `<mrk>` with `translate="no"` (1.2 `mtype="protected"`) is one standalone code: its text is kept.
An XLIFF 2.0 `<cp hex="…"/>` is the character it stands for; when writing, characters XML forbids
become `<cp/>` in 2.0 and U+FFFD in 1.2 (a lone surrogate, no character at all, U+FFFD in both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from lxml import etree

from langfacts.codes import TOKEN

from ._xml import FORBIDDEN, clean, local, sibling_tag
from .errors import PlaceholderError
from .model import InlineCode

_WRAP = {"1.2": frozenset({"g", "mrk"}), "2.0": frozenset({"pc", "mrk"})}
_START = {"1.2": frozenset({"bpt"}), "2.0": frozenset({"sc", "sm"})}
_END = {"1.2": frozenset({"ept"}), "2.0": frozenset({"ec", "em"})}
_FAMILY = {"bpt": "b", "ept": "b", "sc": "c", "ec": "c", "sm": "m", "em": "m"}
_DISPLAY_ATTRS = ("equiv-text", "disp", "equiv", "dispStart", "equivStart", "ctype", "type")

Version = Literal["1.2", "2.0"]


@dataclass(frozen=True, slots=True)
class Code:
    """A code of one segment with the live elements it stands for (internal to the package)."""

    token: int
    mode: Literal["single", "wrap", "pair"]
    element: etree._Element
    end: etree._Element | None = None

    def public(self, data: Mapping[str, str]) -> InlineCode:
        """The code as the package shows it to callers."""
        names = local(self.element.tag) + ("/" + local(self.end.tag) if self.end is not None else "")
        return InlineCode(
            token=self.token,
            kind="single" if self.mode == "single" else "paired",
            element=names,
            code_id=self.element.get("id"),
            display=_display(self.element, data),
        )


def extract(
    container: etree._Element, version: Version, *, preserve: bool, like: Sequence[Code] = ()
) -> tuple[str, tuple[Code, ...]]:
    """The plain text of a source/target/mrk element with placeholders, and its codes.

    For a target, `like` are the source's codes: a target code gets the number of the source code
    with the same element name and id, so the same placeholder means the same code on both sides.
    An annotation marker (`mrk`, `sm`) that no source marker has the id of takes the next source
    marker of its name in order: a target's annotations may have ids of their own (OASIS's own
    sample marks `<mrk id="m1">` in the source and `<mrk id="m2">` in the target).
    """
    known = {_identity(c.element): c.token for c in like}
    order: dict[str, list[int]] = {}
    for c in like:
        if local(c.element.tag) in _ANNOTATIONS:
            order.setdefault(local(c.element.tag), []).append(c.token)
    literal = _literal_tokens(container) | set(known.values())
    walker = _Walker(version, literal=literal, known=known, order=order)
    walker.walk(container)
    text = "".join(walker.out)
    if not preserve:
        text = " ".join(text.split())
    return text, walker.finish()


class _Walker:
    def __init__(
        self,
        version: Version,
        *,
        literal: set[int],
        known: Mapping[tuple[str, str], int],
        order: Mapping[str, list[int]] | None = None,
    ) -> None:
        self.version = version
        self.known = known
        self.order = order or {}
        self.used: set[int] = set()
        self.literal = literal
        self.out: list[str] = []
        self.codes: list[Code] = []
        self.open: dict[tuple[str, str], int] = {}
        self.next = 1

    def _token(self, element: etree._Element) -> int:
        token = self.known.get(_identity(element))
        if token is None:  # an annotation with an id of its own: the next source annotation of its name
            token = next((t for t in self.order.get(local(element.tag), ()) if t not in self.used), None)
        if token is not None:
            self.used.add(token)
            return token
        while self.next in self.literal:
            self.next += 1
        self.next += 1
        return self.next - 1

    def walk(self, element: etree._Element) -> None:
        self.out.append(element.text or "")
        for child in element:
            if isinstance(child.tag, str):
                self._child(child)
            self.out.append(child.tail or "")

    def _child(self, child: etree._Element) -> None:
        name = local(child.tag)
        if self.version == "2.0" and name == "cp":
            self.out.append(_cp_char(child))
        elif name in _WRAP[self.version] and not _protected(child):
            token = self._token(child)
            self.codes.append(Code(token, "wrap", child))
            self.out.append(f"{{{token}}}")
            self.walk(child)
            self.out.append(f"{{/{token}}}")
        elif name in _START[self.version] and child.get("isolated") != "yes":
            token = self._token(child)
            self.open[(_FAMILY[name], _pair_key(child, start=True))] = len(self.codes)
            self.codes.append(Code(token, "single", child))
            self.out.append(f"{{{token}}}")
        elif name in _END[self.version] and (_FAMILY[name], _pair_key(child, start=False)) in self.open:
            index = self.open.pop((_FAMILY[name], _pair_key(child, start=False)))
            start = self.codes[index]
            self.codes[index] = Code(start.token, "pair", start.element, child)
            self.out.append(f"{{/{start.token}}}")
        else:
            token = self._token(child)
            self.codes.append(Code(token, "single", child))
            self.out.append(f"{{{token}}}")

    def finish(self) -> tuple[Code, ...]:
        return tuple(self.codes)


_ANNOTATIONS = frozenset({"mrk", "sm"})
"""Annotation markers: their ids in a target need not be the source's."""


def _identity(element: etree._Element) -> tuple[str, str]:
    return local(element.tag), element.get("id") or element.get("rid") or ""


def _protected(element: etree._Element) -> bool:
    return element.get("translate") == "no" or element.get("mtype") == "protected"


def _pair_key(element: etree._Element, *, start: bool) -> str:
    if local(element.tag) in ("bpt", "ept"):
        return element.get("rid") or element.get("id") or ""
    return (element.get("id") if start else element.get("startRef")) or ""


def _cp_char(element: etree._Element) -> str:
    try:
        return chr(int(element.get("hex", ""), 16))
    except (ValueError, OverflowError):
        return "\ufffd"


def _literal_tokens(container: etree._Element) -> set[int]:
    return {int(m.group(2)) for m in TOKEN.finditer("".join(container.itertext()))}


def _display(element: etree._Element, data: Mapping[str, str]) -> str:
    for attr in ("dataRef", "dataRefStart"):
        ref = element.get(attr)
        if ref is not None and ref in data:
            return _short(data[ref])
    for attr in _DISPLAY_ATTRS:
        value = element.get(attr)
        if value:
            return _short(value)
    if local(element.tag) in ("ph", "bpt", "ept", "it", "bx", "ex"):
        return _short("".join(element.itertext()))
    return ""


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def problems(text: str, codes: Sequence[InlineCode]) -> tuple[str, ...]:
    """What is wrong with the placeholders of a translated `text` for these codes (empty when nothing)."""
    by_token = {c.token: c for c in codes}
    seen: set[str] = set()
    issues: list[str] = []
    for match in TOKEN.finditer(text):
        code = by_token.get(int(match.group(2)))
        if code is None or (match.group(1) and code.kind != "paired"):
            continue
        if match.group() in seen:
            issues.append(f"Placeholder {match.group()} appears more than once.")
        seen.add(match.group())
    expected = [f"{{{c.token}}}" for c in codes] + [f"{{/{c.token}}}" for c in codes if c.kind == "paired"]
    missing = [t for t in expected if t not in seen]
    if missing:
        issues.append(f"Missing placeholder: {', '.join(missing)}.")
    try:
        _check_order(text, by_token)
    except PlaceholderError as exc:
        issues.append(str(exc))
    return tuple(dict.fromkeys(issues))


def placeholder_mismatches(source: str, target: str) -> tuple[str, ...]:
    """What is wrong with the placeholders of `target` against those of `source` (empty when nothing).

    Every `{n}` of the source is a code, paired with `{/n}` when the source has that too (`g`-like:
    pairs must nest). A target that repeats, drops, reorders across a pair, crosses pairs or invents
    a placeholder (`{7}` the source lacks) gets one message per problem. For plain text and for an
    XLIFF source's units alike (the text shows its codes as these placeholders).
    """
    tokens = {m.group() for m in TOKEN.finditer(source)}
    codes = [
        InlineCode(
            token=int(m.group(2)),
            kind="paired" if f"{{/{m.group(2)}}}" in tokens else "single",
            element="g",
            code_id=None,
        )
        for m in TOKEN.finditer(source)
        if not m.group(1)
    ]
    unique = list({c.token: c for c in codes}.values())
    found = list(problems(target, unique))
    extra = invented(source, target)
    if extra:
        found.append(f"Placeholder {', '.join(extra)} is not in the source.")
    return tuple(found)


def invented(source: str, target: str) -> tuple[str, ...]:
    """The placeholders (`{7}`, `{/7}`) of `target` that `source` does not have, each once, in order."""
    tokens = {m.group() for m in TOKEN.finditer(source)}
    return tuple(dict.fromkeys(m.group() for m in TOKEN.finditer(target) if m.group() not in tokens))


def _check_order(text: str, by_token: Mapping[int, InlineCode]) -> None:
    stack: list[int] = []
    opened: dict[int, int] = {}  # how many copies of each start are open (a repeat is reported apart)
    for match in TOKEN.finditer(text):
        token = int(match.group(2))
        code = by_token.get(token)
        if code is None or code.kind != "paired":
            continue
        if not match.group(1):
            stack.append(token)
            opened[token] = opened.get(token, 0) + 1
        elif not opened.get(token):
            raise PlaceholderError(f"{match.group()} comes before {{{token}}}.")
        elif stack[-1] != token and code.element in ("g", "pc", "mrk"):
            raise PlaceholderError(f"{{{stack[-1]}}} and {{{token}}} overlap: close {{/{stack[-1]}}} first.")
        else:
            opened[token] -= 1
            if stack[-1] == token:
                stack.pop()
            else:  # a start/end pair (bpt/ept, sc/ec) may cross others
                stack.remove(token)
    if stack:
        raise PlaceholderError(f"{{{stack[-1]}}} is never closed with {{/{stack[-1]}}}.")


def rebuild(target: etree._Element, text: str, codes: Sequence[Code], version: Version) -> None:
    """Fill the empty element `target` with `text`, its placeholders turned back into copies of `codes`."""
    by_token = {c.token: c for c in codes}
    stack: list[tuple[etree._Element, int]] = [(target, 0)]
    used: set[str] = set()
    opened: set[int] = set()
    position = 0
    for match in TOKEN.finditer(text):
        code = by_token.get(int(match.group(2)))
        closing = bool(match.group(1))
        if code is None or (closing and code.mode == "single"):
            continue
        if match.group() in used:
            raise PlaceholderError(f"Placeholder {match.group()} appears more than once.")
        used.add(match.group())
        _append_text(stack[-1][0], text[position : match.start()], version)
        position = match.end()
        parent = stack[-1][0]
        if code.mode == "wrap" and not closing:
            stack.append((etree.SubElement(parent, code.element.tag, attrib=dict(code.element.attrib)), code.token))
        elif code.mode == "wrap":
            if stack[-1][1] != code.token:
                raise PlaceholderError(f"{match.group()} closes a code that is not the innermost open one.")
            stack.pop()
        elif code.mode == "pair" and closing:
            if code.token not in opened:
                raise PlaceholderError(f"{match.group()} comes before {{{code.token}}}.")
            assert code.end is not None
            _clone(parent, code.end)
        else:
            opened.add(code.token)
            _clone(parent, code.element)
    _append_text(stack[-1][0], text[position:], version)
    if len(stack) > 1:
        raise PlaceholderError(f"{{{stack[-1][1]}}} is never closed with {{/{stack[-1][1]}}}.")


def _clone(parent: etree._Element, element: etree._Element) -> None:
    """Append a copy of `element` (without its tail) to `parent`, declaring no namespace twice."""
    copy = etree.SubElement(parent, element.tag, attrib=dict(element.attrib))
    copy.text = element.text
    for child in element:
        if isinstance(child.tag, str):
            _clone(copy, child)
            copy[-1].tail = child.tail


def _append_text(parent: etree._Element, text: str, version: Version) -> None:
    """Append `text` at the end of `parent`'s content; characters XML forbids become `<cp/>` (2.0) or U+FFFD."""
    if not text:
        return
    if version == "1.2":
        _add(parent, clean(text))
        return
    position = 0
    for match in FORBIDDEN.finditer(text):
        code = ord(match.group())
        if 0xD800 <= code <= 0xDFFF:  # a lone surrogate is no character: <cp/> would only hand it on
            _add(parent, text[position : match.start()] + "\ufffd")
        else:
            _add(parent, text[position : match.start()])
            etree.SubElement(parent, sibling_tag(parent, "cp"), attrib={"hex": f"{code:04X}"}).tail = None
        position = match.end()
    _add(parent, text[position:])


def _add(parent: etree._Element, text: str) -> None:
    if not text:
        return
    if len(parent):
        last = parent[-1]
        last.tail = (last.tail or "") + text
    else:
        parent.text = (parent.text or "") + text
