"""Text helpers for offline translation: Markdown-aware unit splitting and pseudo-localisation.

`split_units` cuts a document into paragraph-sized translation units located by position: every
unit is a stripped substring of the text, units follow each other in order, and only whitespace
lies between them, so they reassemble the text exactly. `first_unit` is its cheap head.
`pseudo_translate` is the deterministic "translation" the offline fake model returns.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Callable, Iterator, Sequence
from typing import Final

from langfacts.codes import PROSE, pattern

from .markdown_structure import front_matter_lines
from .verbatim import code_block_spans, yaml_value_start

__all__ = ["code_ranges", "first_unit", "pseudo_translate", "split_units", "unit_spans", "unpseudo"]

_FENCE_RE: Final = re.compile(r"[ \t]*(`{3,}|~{3,})")
_FENCE_LINE_RE: Final = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*", re.MULTILINE)
_HEADING_RE: Final = re.compile(r" {0,3}#{1,6}(?:[ \t]|$)")
_ITEM_RE: Final = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_ITEM_LINE_RE: Final = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)", re.MULTILINE)
_TABLE_SEP_RE: Final = re.compile(r"\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?")
# `.!?` end a sentence only before whitespace; CJK full stops end one wherever they stand.
_SENTENCE_RE: Final = re.compile(r"[。！？][”’」』）)\"']*|[.!?][”’」』）)\"'\]]*(?=\s)")
_CLAUSE_RE: Final = re.compile(r"[，、；：]|[,;:](?=\s)")
# "1." at the start of a line is a list marker, not the end of a sentence.
_MARKER_DOT_RE: Final = re.compile(r"[\s>]*\d{1,9}[.)]")
_CLOSING: Final = frozenset("。，、；：！？）」』”’.,;:!?)]}")


def split_units(text: str, *, max_chars: int = 300) -> list[str]:
    """Split `text` into consecutive stripped units of at most `max_chars`, one block or less each."""
    return [text[a:b] for a, b in unit_spans(text, max_chars=max_chars)]


def unit_spans(
    text: str, *, max_chars: int = 300, code: Sequence[tuple[int, int]] | None = None
) -> list[tuple[int, int]]:
    """The `(start, end)` offsets of `split_units(text)`: no unit crosses a code block's edge.

    `code` gives the code blocks' offsets when the caller knows them from a wider context.
    """
    return list(_iter_units(text, max_chars, code_ranges(text) if code is None else sorted(code)))


def first_unit(text: str, *, max_chars: int = 300) -> str | None:
    """Return `split_units(text)[0]` (None for blank text), parsing only the first block."""
    block = next(_iter_blocks(text), None)
    if block is None:
        return None
    # Code blocks before a position depend only on the text before it.
    head = text[: text.find("\n", block[1]) % (len(text) + 1)]
    span = next(_iter_units(text, max_chars, code_ranges(head, _leading_fence(text))), None)
    return None if span is None else text[span[0] : span[1]]


def code_ranges(text: str, opening: str | None = None) -> list[tuple[int, int]]:
    """The `(start, end)` of the code blocks of `text`, also when it starts inside one (`opening`: its fence)."""
    opening = _leading_fence(text) if opening is None else opening
    shift = len(opening) + 1 if opening else 0
    spans = code_block_spans(f"{opening}\n{text}" if opening else text)
    return [(max(s.start - shift, 0), s.end - shift) for s in spans if s.end > shift]


def _iter_units(text: str, max_chars: int, code: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    for start, end in _iter_blocks(text):
        for piece_start, piece_end, is_code in _cut_at_code(text, start, end, code):
            yield from _split_block(text, piece_start, piece_end, max_chars, kind="code" if is_code else None)


def _cut_at_code(text: str, start: int, end: int, code: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int, bool]]:
    """`[start, end)` in stripped pieces that each lie wholly inside or wholly outside a code block."""
    edges = sorted({start, end, *(e for a, b in code for e in (a, b) if start < e < end)})
    for a, b in itertools.pairwise(edges):
        a, b = _strip_span(text, a, b)
        if b > a:
            yield a, b, any(c <= a and b <= d for c, d in code)


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _closes(line: str, fence: str) -> bool:
    body = line.strip()
    return len(body) >= len(fence) and body == fence[0] * len(body)


def _leading_fence(text: str) -> str:
    """The fence `text` starts inside of (it is the tail of a split code block), or ""."""
    fences = list(_FENCE_LINE_RE.finditer(text))
    if not fences or not _closes(fences[0].group(), fences[0].group(1)):
        return ""
    # A closing fence never carries an info string (```js): count the fences that each reading,
    # starting outside or inside a block, would have to take for labelled closing fences.
    labelled = [not _closes(fence.group(), fence.group(1)) for fence in fences]
    if sum(labelled[1::2]) != sum(labelled[0::2]):
        return fences[0].group(1) if sum(labelled[1::2]) > sum(labelled[0::2]) else ""
    # Undecided: the fences do not pair up and the first sits right under a non-blank line.
    previous_line = text[: fences[0].start()][:-1].rpartition("\n")[2]
    return fences[0].group(1) if len(fences) % 2 and previous_line.strip() else ""


def _iter_blocks(text: str) -> Iterator[tuple[int, int]]:
    """Stripped spans of the Markdown blocks of `text`, lazily, line by line."""
    fence = _leading_fence(text)
    open_at: int | None = 0 if fence else None  # offset of the first line of the open block
    pos = 0
    while pos < len(text):
        newline = text.find("\n", pos)
        eol = len(text) if newline < 0 else newline
        line = text[pos:eol]
        if fence:
            if _closes(line, fence) and open_at is not None:
                yield _strip_span(text, open_at, eol)
                open_at, fence = None, ""
        elif not line.strip():
            if open_at is not None:
                yield _strip_span(text, open_at, pos)
                open_at = None
        elif (match := _FENCE_RE.match(line)) or _HEADING_RE.match(line):
            # A fence or a heading interrupts the block before it.
            if open_at is not None:
                yield _strip_span(text, open_at, pos)
                open_at = None
            if match:
                open_at, fence = pos, match.group(1)
            else:
                yield _strip_span(text, pos, eol)
        elif open_at is None:
            open_at = pos
        pos = eol + 1
    if open_at is not None:
        yield _strip_span(text, open_at, len(text))


def _block_kind(text: str, start: int, end: int) -> str:
    line_end = text.find("\n", start, end)
    first = text[start : end if line_end < 0 else line_end]
    last = text[text.rfind("\n", start, end) + 1 : end]
    if _FENCE_RE.match(first) or _FENCE_RE.match(last):  # a code block, or the tail of one
        return "code"
    if _ITEM_RE.match(first) or _ITEM_LINE_RE.search(text, start, end):
        return "list"
    if first.startswith("|"):
        return "table"
    if line_end >= 0 and "|" in first:
        second_end = text.find("\n", line_end + 1, end)
        second = text[line_end + 1 : end if second_end < 0 else second_end].strip()
        if _TABLE_SEP_RE.fullmatch(second):
            return "table"
    return "para"


def _split_block(
    text: str, start: int, end: int, max_chars: int, *, kind: str | None = None
) -> Iterator[tuple[int, int]]:
    """Cut the block `[start, end)` into pieces of at most `max_chars`, best break first."""
    kind = kind or _block_kind(text, start, end)
    indent = _top_item_indent(text, start, end) if kind == "list" else 0
    while end - start > max_chars:
        cut = _cut(text, start, start + max_chars, kind, indent)
        yield _strip_span(text, start, cut)
        start, _ = _strip_span(text, cut, end)
    yield start, end


def _top_item_indent(text: str, start: int, end: int) -> int:
    """The smallest indentation of a list item in the block `[start, end)`."""
    indents = [len(item.group(1)) for item in _ITEM_LINE_RE.finditer(text, start, end)]
    if _ITEM_RE.match(text, start):
        indents.append(start - (text.rfind("\n", 0, start) + 1))
    return min(indents, default=0)


def _cut(text: str, start: int, limit: int, kind: str, indent: int) -> int:
    """The best offset in `(start, limit]` to end a piece at; `limit` if nothing better."""
    finders: list[Callable[[], int | None]] = []
    if kind == "list":
        finders.append(lambda: _last_newline(text, start, limit, item_indent=indent))
        finders.append(lambda: _last_newline(text, start, limit, item_indent=-1))
    prose = kind not in ("code", "table")
    if prose:
        finders.append(lambda: _last_match(_SENTENCE_RE, text, start, limit))
    finders.append(lambda: _last_newline(text, start, limit))
    if prose:
        finders.append(lambda: _last_match(_CLAUSE_RE, text, start, limit))
    finders.append(lambda: _last_space(text, start, limit))
    for finder in finders:
        cut = finder()
        if cut is not None:
            return cut
    # A hard cut should not leave closing punctuation to open the next piece.
    cut = limit
    while cut - 1 > start and text[cut] in _CLOSING:
        cut -= 1
    return cut


def _last_match(pattern: re.Pattern[str], text: str, start: int, limit: int) -> int | None:
    cut: int | None = None
    # endpos = limit + 1 lets a lookahead see the character just after the window.
    for match in pattern.finditer(text, start, limit + 1):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if match.end() <= limit and not _MARKER_DOT_RE.fullmatch(text, line_start, match.end()):
            cut = match.end()
    return cut


def _last_newline(text: str, start: int, limit: int, *, item_indent: int | None = None) -> int | None:
    """Last line break in the window; with `item_indent`, only before a list item indented at
    most that much (-1: any list item)."""
    pos = text.rfind("\n", start + 1, limit + 1)
    while pos > start:
        if item_indent is None:
            return pos
        item = _ITEM_RE.match(text, pos + 1)
        if item and (item_indent < 0 or _indent_at(text, pos + 1) <= item_indent):
            return pos
        pos = text.rfind("\n", start + 1, pos)
    return None


def _indent_at(text: str, pos: int) -> int:
    end = pos
    while end < len(text) and text[end] in " \t":
        end += 1
    return end - pos


def _last_space(text: str, start: int, limit: int) -> int | None:
    for pos in range(limit, start, -1):
        if text[pos].isspace():
            return pos
    return None


# --- pseudo-localisation -------------------------------------------------------------------------

_MAPS: Final = (
    str.maketrans(string.ascii_letters, "áƀçďéƒĝĥíĵķĺḿñóṕʠŕšţúṽŵẋýžÁƁÇĎÉƑĜĤÍĴĶĹḾÑÓṔꝖŔŠŢÚṼŴẊÝŽ"),
    str.maketrans(string.ascii_letters, "àḃĉḋèḟğḣìǰḱļṁńöṗɋřśťüṿẁẍÿźÀḂĈḊÈḞĞḢÌɈḰĻṀŃÖṖɊŘŚŤÜṾẀẌŸŹ"),
)
_UNMAP: Final = {pseudo: plain for table in _MAPS for plain, pseudo in table.items()}
_FILLERS: Final = ("~", "·")
_PROTECTED_RE: Final = re.compile(
    r"(?P<tick>`+).*?(?P=tick)"  # inline code span
    r"|<!--.*?-->|</?[A-Za-z][^<>]*>"  # HTML comment or tag
    r"|(?:https?|ftp)://[^\s)]+"  # URL
    r"|\]\([^)]*\)|\]\[[^\]]*\]|\[\^[^\]]+\]"  # link target, reference, footnote
    r"|(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"  # e-mail address (from a word start: linear)
    r"|(?<![\w@])@[A-Za-z0-9][\w-]*(?:[./][\w-]+)*(?:\(\))?"  # @handle, @decorator
    r"|(?<![\w/])(?:\.{0,2}/)?[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+/?"  # path
    r"|(?<![\w.])[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:com|org|net|io|dev|md|py|js|ts|json|ya?ml|toml|txt|html?)\b"
    rf"|{pattern(PROSE).pattern}"  # placeholders and directives: {{x}}, {name}, ${var}, %s, %Y
    r"|&#?\w+;"  # HTML entity
    r"|\b0[xX][0-9A-Fa-f]+\b|\b[vV]?\d+(?:[.,]\d+)*(?:[eE][+-]?\d+)?"  # number
)
_PREFIX_RE: Final = re.compile(r"[ \t]*(?:>[ \t]*)*(?:(?:#{1,6}|[-*+]|\d{1,9}[.)])(?:[ \t]+|$))?(?:\[[ xX]\][ \t]+)?")
_REF_DEF_RE: Final = re.compile(r"\[[^\]]+\]:\s")
_CELL_SEP_RE: Final = re.compile(r"(?<!\\)\|")


def pseudo_translate(text: str, *, variant: int = 0, code: Sequence[tuple[int, int]] | None = None) -> str:
    """Pseudo-localise `text` line by line, keeping Markdown structure, code and placeholders.

    Every line that overlaps a code block stays as it is: `code` gives the blocks' `(start, end)`
    offsets in `text` when the caller knows the context (the text around a piece of a long block);
    without it they are found in `text` itself. A front matter keeps its keys.
    """
    table = _MAPS[variant % len(_MAPS)]
    fill = _FILLERS[(variant // len(_MAPS)) % len(_FILLERS)]
    ranges = code_ranges(text) if code is None else sorted(code)
    head = front_matter_lines(text)
    out: list[str] = []
    pos = 0
    for number, line in enumerate(text.split("\n")):
        end = pos + len(line)
        if any(a < end and pos < b for a, b in ranges) or _FENCE_RE.match(line):
            out.append(line)
        elif number < head:
            value = yaml_value_start(line) if 0 < number < head - 1 else None
            out.append(line if value is None else line[:value] + _wrap(line[value:], table, fill))
        else:
            out.append(_translate_line(line, table, fill))
        pos = end + 1
    return "\n".join(out)


def unpseudo(text: str) -> str:
    """`text` with pseudo-localised letters mapped back to ASCII ("ţóóĺ" → "tool"); others unchanged."""
    return text.translate(_UNMAP)


def _translate_line(line: str, table: dict[int, int], fill: str) -> str:
    prefix_match = _PREFIX_RE.match(line)
    prefix = prefix_match.group() if prefix_match else ""
    body = line[len(prefix) :]
    if _REF_DEF_RE.match(body):
        return line
    if body.lstrip().startswith("|"):
        cells = _CELL_SEP_RE.split(body)
        return prefix + "|".join(_wrap(cell, table, fill) for cell in cells)
    return prefix + _wrap(body, table, fill)


def _wrap(chunk: str, table: dict[int, int], fill: str) -> str:
    """`chunk` with its letters mapped, bracketed and padded about a third, if it has letters."""
    core = chunk.strip()
    parts: list[str] = []
    has_letters = False
    pos = 0
    for match in _PROTECTED_RE.finditer(core):
        free = core[pos : match.start()]
        has_letters = has_letters or any(ch.isalpha() for ch in free)
        parts += [free.translate(table), match.group()]
        pos = match.end()
    has_letters = has_letters or any(ch.isalpha() for ch in core[pos:])
    if not has_letters:
        return chunk
    parts.append(core[pos:].translate(table))
    lead = chunk[: len(chunk) - len(chunk.lstrip())]
    trail = chunk[len(chunk.rstrip()) :]
    # The brackets and a space make up the rest of the added third.
    pad = round(len(core) / 3) - 3
    filler = " " + fill * pad if pad > 0 else ""
    return f"{lead}[{''.join(parts)}{filler}]{trail}"
