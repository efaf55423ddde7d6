"""Markdown block structure, from a CommonMark parser (markdown-it-py), for verbatim spans and QA.

`blocks(text)` lists the blocks that matter to a translator by line range (code blocks, HTML
blocks, rules, paragraphs and where link reference definitions stand); `outline(text)` counts what
a faithful translation keeps (list items, table cells per row, headings, code fences, link
targets); `prose_only(text)` blanks out what is not prose (code spans and blocks, URLs, e-mail
addresses, paths, @handles), keeping every other character where it was, so positions still hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = [
    "Block",
    "Outline",
    "blocks",
    "front_matter_lines",
    "line_starts",
    "non_prose_spans",
    "outline",
    "prose_only",
]

BlockKind = Literal["fence", "indented", "html", "hr", "paragraph", "reference", "other"]

_CELL_SEP: Final = re.compile(r"(?<!\\)\|")
_FRONT_MATTER_END: Final = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
_NON_PROSE: Final = re.compile(
    r"(?<!`)(?P<tick>`+)(?!`)(?:[^\n]|\n(?![ \t]*\n))+?(?<!`)(?P=tick)(?!`)"  # code span, within a paragraph
    r"|<(?:https?|ftp|mailto):[^>\s]*>"  # autolink
    r"|\b(?:https?|ftp)://[^\s<>()\[\]`]*[^\s<>()\[\]`.,;:!?'\"]"  # bare URL
    r"|\]\([^)\s]*(?:\s+\"[^\"]*\")?\)"  # link target
    r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail address
    r"|(?<![\w@])@[A-Za-z0-9][\w-]*(?:[./][\w-]+)*(?:\(\))?"  # @handle, @decorator
    r"|(?<![\w/])(?:\.{0,2}/)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?"  # path (a/b, ./x, docs/ssl.md)
    r"|(?<![\w.])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:com|org|net|io|dev|md|py|js|ts|json|ya?ml|toml|txt|html?)\b",
    re.A,
)


@dataclass(frozen=True, slots=True)
class Block:
    """A Markdown block by line numbers (`first` to `last`, both included), with its kind."""

    first: int
    last: int
    kind: BlockKind
    nested: bool = False
    """True when the block lies inside a list item or a block quote."""


@dataclass(frozen=True, slots=True)
class Outline:
    """What the structure of a Markdown text consists of, for comparing a source and its translation."""

    list_items: int
    table_rows: tuple[int, ...]
    """The number of cells of each table row, in order."""
    headings: tuple[int, ...]
    """The level of each heading, in order."""
    code_fences: int
    link_targets: tuple[str, ...]
    """Every link's and image's target, in order."""


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table")


def line_starts(text: str) -> list[int]:
    """The offset of the first character of each line of `text` (lines end at "\\n")."""
    starts = [0]
    pos = text.find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def front_matter_lines(text: str) -> int:
    """How many lines a YAML front matter at the very start of `text` takes (0 when there is none)."""
    lines = text.split("\n", 200)
    if not lines or lines[0].rstrip() != "---":
        return 0
    for number, line in enumerate(lines[1:200], 1):
        if _FRONT_MATTER_END.match(line):
            return number + 1
    return 0


def _tokens(text: str) -> list[Token]:
    # markdown-it turns "\r\n" and a lone "\r" into line breaks; a space keeps lines and offsets.
    return _parser().parse(text.replace("\r", " "))


def blocks(text: str, *, skip_lines: int = 0) -> list[Block]:
    """The blocks of `text` after its first `skip_lines` lines, in order (line numbers of `text`)."""
    return list(_blocks(text, skip_lines))


@lru_cache(maxsize=512)
def _blocks(text: str, skip_lines: int) -> tuple[Block, ...]:
    """`blocks`, parsed once per text: a step checks and shows the same units and windows several times."""
    starts = line_starts(text)
    body = text[starts[skip_lines] :] if skip_lines < len(starts) else ""
    found: list[Block] = []
    lines = body.split("\n")
    covered = [False] * len(lines)  # one flag a line of the body (an empty body is one empty line)
    for token in _tokens(body):
        if token.map is None:
            continue
        first, end = token.map
        if token.level == 0:
            covered[first:end] = [True] * (end - first)
        kind = _kind(token)
        if kind is not None and end > first:
            found.append(Block(first + skip_lines, end - 1 + skip_lines, kind, nested=token.level > 0))
    # A link reference definition is the only non-blank text the parser turns into no block at all.
    for number, line in enumerate(lines):
        if not covered[number] and line.strip():
            found.append(Block(number + skip_lines, number + skip_lines, "reference"))
    found.sort(key=lambda b: (b.first, b.nested))
    return tuple(found)


def _kind(token: Token) -> BlockKind | None:
    if token.type == "fence":
        return "fence"
    if token.type == "code_block":
        return "indented"
    if token.type == "html_block":
        return "html"
    if token.type == "hr":
        return "hr"
    if token.type == "paragraph_open":
        return "paragraph"
    if token.type in ("heading_open", "table_open", "bullet_list_open", "ordered_list_open", "blockquote_open"):
        return "other" if token.level == 0 else None
    return None


def outline(text: str) -> Outline:
    """The structure of `text`: list items, table cells per row, heading levels, fences, link targets."""
    items = 0
    rows: list[int] = []
    headings: list[int] = []
    fences = 0
    links: list[str] = []
    lines = text.split("\n")
    for token in _tokens(text):
        if token.type == "list_item_open":
            items += 1
        elif token.type == "tr_open" and token.map:
            # The parser pads a short row to the header's width: count the cells as written.
            rows.append(_cells(lines[token.map[0]]))
        elif token.type == "heading_open":
            headings.append(int(token.tag[1:]))
        elif token.type == "fence":
            fences += 1
        elif token.type == "inline":
            links += _link_targets(token)
    return Outline(items, tuple(rows), tuple(headings), fences, tuple(links))


def _cells(row: str) -> int:
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return len(_CELL_SEP.split(body))


def _link_targets(inline: Token) -> list[str]:
    out: list[str] = []
    for child in inline.children or ():
        if child.type in ("link_open", "image"):
            target = child.attrGet("href" if child.type == "link_open" else "src")
            out.append(str(target or ""))
    return out


def prose_only(text: str) -> str:
    """`text` with code (spans and blocks), URLs, addresses, paths and @handles blanked by spaces."""
    chars = list(text)
    starts = line_starts(text)
    for block in blocks(text):
        if block.kind in ("fence", "indented"):
            _blank(chars, starts[block.first], _line_end(text, starts, block.last))
    masked = "".join(chars)
    for match in _NON_PROSE.finditer(masked):
        _blank(chars, match.start(), match.end())
    return "".join(chars)


def non_prose_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` has code spans, URLs, link targets, addresses, paths and @handles (what
    `prose_only` blanks), as `(start, end)` in order."""
    return [m.span() for m in _NON_PROSE.finditer(text)]


def _line_end(text: str, starts: list[int], line: int) -> int:
    return starts[line + 1] - 1 if line + 1 < len(starts) else len(text)


def _blank(chars: list[str], start: int, end: int) -> None:
    for pos in range(start, end):
        if chars[pos] != "\n":
            chars[pos] = " "
