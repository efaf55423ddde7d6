"""The translatable runs and attributes of an HTML token stream, with their source offsets (see `html`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from ._html_lexer import Attr, Token


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


INLINE: Final = _names(
    "a abbr acronym b bdi bdo big br cite code data del dfn em font i img input ins kbd mark nobr q s "
    "samp small span strike strong sub sup time tt u var wbr"
)
"""Elements that stay inside a run as locked codes; any other tag ends it."""
SKIP: Final = _names("script style pre textarea template svg math iframe object canvas xmp noembed noframes")
"""Elements whose whole content is never translated."""
VOID: Final = _names("area base br col embed hr img input keygen link meta param source track wbr")
_ATTRS: Final = frozenset({"alt", "title", "placeholder", "aria-label"})
_META: Final = frozenset(
    {"description", "og:title", "og:description", "og:site_name", "twitter:title", "twitter:description"}
)
_BUTTONS: Final = frozenset({"submit", "button", "reset"})
_CLOSES_P: Final = _names(
    "address article aside blockquote details dialog div dl fieldset figcaption figure footer form h1 h2 "
    "h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section summary table ul"
)
_IMPLIED: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "li": (frozenset({"li"}), frozenset({"ul", "ol", "menu"})),
    "dt": (frozenset({"dt", "dd"}), frozenset({"dl"})),
    "dd": (frozenset({"dt", "dd"}), frozenset({"dl"})),
    "td": (frozenset({"td", "th"}), frozenset({"tr", "table"})),
    "th": (frozenset({"td", "th"}), frozenset({"tr", "table"})),
    "tr": (frozenset({"tr", "td", "th"}), frozenset({"table", "tbody", "thead", "tfoot"})),
    "tbody": (frozenset({"tbody", "thead", "tfoot", "tr", "td", "th"}), frozenset({"table"})),
    "thead": (frozenset({"tbody", "thead", "tfoot", "tr", "td", "th"}), frozenset({"table"})),
    "tfoot": (frozenset({"tbody", "thead", "tfoot", "tr", "td", "th"}), frozenset({"table"})),
    "option": (frozenset({"option"}), frozenset({"select", "datalist", "optgroup"})),
    "optgroup": (frozenset({"option", "optgroup"}), frozenset({"select"})),
    "body": (frozenset({"head"}), frozenset({"html"})),
}
"""For a start tag, the open elements it closes (searching down to one of the stop elements)."""
_SPACE: Final = " \t\n\r\f"
MAX_DEPTH: Final = 256
"""Elements opened deeper than this are not tracked (so every search of the open elements is bounded)."""


@dataclass(frozen=True, slots=True)
class Block:
    """A run to translate: its key and note, its span, its pieces (`(is_code, raw)`), its tags."""

    key: str
    note: str
    start: int
    end: int
    pieces: tuple[tuple[bool, str], ...]
    tags: tuple[Token, ...]


@dataclass(frozen=True, slots=True)
class FoundAttr:
    """A translatable attribute: its key and note, the attribute, and the start of its tag."""

    key: str
    note: str
    attr: Attr
    tag_start: int


@dataclass(slots=True)
class Walk:
    """What `walk` found in a page."""

    text: str
    blocks: list[Block] = field(default_factory=list)
    attrs: list[FoundAttr] = field(default_factory=list)
    lang: Attr | None = None
    charset: Attr | None = None
    """The page's declared encoding: `<meta charset>`, or the `content` of its Content-Type `<meta>`."""


@dataclass(slots=True)
class _Open:
    name: str
    path: str
    inline: bool
    counts: dict[str, int] = field(default_factory=dict)
    runs: int = 0

    def child(self, name: str) -> str:
        self.counts[name] = self.counts.get(name, 0) + 1
        step = name if name in ("html", "head", "body") else f"{name}[{self.counts[name]}]"
        return f"{self.path}/{step}" if self.path else step


def _no_translate(tag: Token) -> bool:
    flag = tag.attr("translate")
    classes = tag.attr("class")
    return (flag is not None and (flag.value or "").strip().lower() == "no") or (
        classes is not None and "notranslate" in (classes.value or "").split()
    )


class _Walker:
    def __init__(self, text: str) -> None:
        self.found = Walk(text)
        self.stack: list[_Open] = [_Open("", "", inline=False)]
        self.run: list[Token] = []
        self.skip: tuple[str, int] | None = None
        self.opaque: tuple[str, int] | None = None
        """The inline element marked translate="no" being read, and how deep: its tags and words are codes."""

    def feed(self, token: Token) -> None:
        if self.skip is not None:
            self.skip = self._nest(self.skip, token)
            if self.skip is None:
                self._pop(token.name)
        elif self.opaque is not None:
            self.opaque = self._nest(self.opaque, token)
            self._lock(token)
        elif token.kind in ("text", "comment"):
            self.run.append(token)
        elif token.kind == "start":
            self._start(token)
        elif token.kind == "end":
            self._end(token)
        else:
            self.flush()

    def _lock(self, token: Token) -> None:
        """A token of an untranslatable inline element: a locked code each (its whitespace stays text).

        Its tags and its words are codes one by one rather than the element as one code, so that a
        translation's tags are each found among the entry's codes."""
        if token.kind == "text" and not self.found.text[token.start : token.end].strip(_SPACE):
            self.run.append(token)
        else:
            self.run.append(Token("other", token.start, token.end, token.name))

    @staticmethod
    def _nest(state: tuple[str, int], token: Token) -> tuple[str, int] | None:
        name, depth = state
        if token.name == name and token.kind == "start" and not token.self_closing:
            depth += 1
        elif token.name == name and token.kind == "end":
            depth -= 1
        return None if depth == 0 else (name, depth)

    def _start(self, tag: Token) -> None:
        name, closed = tag.name, tag.self_closing or tag.name in VOID
        if name in INLINE:
            path = self.stack[-1].child(name)
            if _no_translate(tag):
                self._lock(tag)
                self.opaque = None if closed else (name, 1)
                return
            self._attrs(tag, path)
            self.run.append(tag)
            if not closed:
                self._push(_Open(name, path, inline=True))
            return
        self.flush()
        self._close_implied(name)
        path = self.stack[-1].child(name)
        if name in SKIP or _no_translate(tag):
            if not closed:
                self._push(_Open(name, path, inline=False))
                self.skip = (name, 1)
            return
        if name == "html":
            self.found.lang = tag.attr("lang")
        elif name == "meta":
            equiv, content = tag.attr("http-equiv"), tag.attr("content")
            if tag.attr("charset") is not None:
                self.found.charset = tag.attr("charset")
            elif equiv is not None and (equiv.value or "").lower() == "content-type" and content is not None:
                self.found.charset = content
        self._attrs(tag, path)
        if not closed:
            self._push(_Open(name, path, inline=False))

    def _end(self, tag: Token) -> None:
        if tag.name in INLINE:
            self.run.append(tag)
        else:
            self.flush()
        self._pop(tag.name)

    def _push(self, open_: _Open) -> None:
        if len(self.stack) < MAX_DEPTH:
            self.stack.append(open_)

    def _pop(self, name: str) -> None:
        for index in range(len(self.stack) - 1, 0, -1):
            if self.stack[index].name == name:
                del self.stack[index:]
                return

    def _close_implied(self, name: str) -> None:
        closes, stops = _IMPLIED.get(name, (frozenset(), frozenset()))
        if name in _CLOSES_P:
            closes, stops = frozenset({"p"}), frozenset({"div", "td", "th", "li", "body", "section", "article"})
        for index in range(len(self.stack) - 1, 0, -1):
            open_ = self.stack[index]
            if open_.name in closes:
                del self.stack[index:]
                return
            if open_.name in stops or (not open_.inline and name in _CLOSES_P):
                return

    def _attrs(self, tag: Token, path: str) -> None:
        kind = tag.attr("type")
        meta = tag.attr("name") or tag.attr("property")
        seen: set[str] = set()
        for attr in tag.attrs:
            if attr.name in seen:  # a repeated attribute: browsers keep the first
                continue
            seen.add(attr.name)
            wanted = (
                attr.name in _ATTRS
                or (attr.name == "value" and tag.name == "input" and kind is not None and kind.value in _BUTTONS)
                or (attr.name == "content" and tag.name == "meta" and meta is not None and meta.value in _META)
            )
            if wanted and attr.value and any(ch.isalpha() for ch in attr.value):
                self.found.attrs.append(FoundAttr(f"{path}@{attr.name}", f"{tag.name} {attr.name}", attr, tag.start))

    def flush(self) -> None:
        run, self.run = self.run, []
        text = self.found.text
        significant = [
            t for t in run if t.kind != "comment" and (t.kind != "text" or text[t.start : t.end].strip(_SPACE))
        ]
        if not significant:
            return
        first, last = significant[0], significant[-1]
        start = first.start + (
            len(_raw(text, first)) - len(_raw(text, first).lstrip(_SPACE)) if first.kind == "text" else 0
        )
        end = last.end - (len(_raw(text, last)) - len(_raw(text, last).rstrip(_SPACE)) if last.kind == "text" else 0)
        pieces = tuple(
            (t.kind != "text", text[max(t.start, start) : min(t.end, end)])
            for t in run
            if t.end > start and t.start < end
        )
        if not any(not code and any(ch.isalpha() for ch in raw) for code, raw in pieces):
            return
        owner = next(o for o in reversed(self.stack) if not o.inline)
        owner.runs += 1
        key = (owner.path or "text") + (f"#{owner.runs}" if owner.runs > 1 else "")
        tags = tuple(t for t in run if t.kind == "start" and start <= t.start < end)
        self.found.blocks.append(Block(key, owner.name, start, end, pieces, tags))


def _raw(text: str, token: Token) -> str:
    return text[token.start : token.end]


def walk(text: str, stream: Iterable[Token]) -> Walk:
    """The blocks and attributes of the page `text`, whose tokens are `stream`."""
    walker = _Walker(text)
    for token in stream:
        walker.feed(token)
    walker.flush()
    return walker.found
