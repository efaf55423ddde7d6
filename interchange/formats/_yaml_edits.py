"""Edits of a YAML text in place: a scalar's text replaced, a mapping's entries removed and inserted,
everything around them left byte for byte.

A new text is written as a scalar in the place of an old one, in the old one's style where the text
allows it, read back by PyYAML and Ruby's Psych as exactly that string.

A plain scalar stays plain when the text can be plain where it stands (in a flow collection `[a, b]`
or a block) and reads as a string: not `yes`, `~`, `1,000` (a number to Psych), `:name` (a Ruby
symbol) or anything YAML 1.1 resolves to another type. Otherwise, and for a single-quoted original,
the text is single-quoted where it can be on one line (`'PL: Sun'`), else double-quoted with escapes
(a line break is `\\n`). A literal (`|`) or folded (`>`) block stays a block at the original's
indentation when the text can be one (printable, not starting with a space or a line break, ending
with at most one line break; folded only for one line), with the chomping its end needs (`|-` for
none); otherwise it is double-quoted.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator, Mapping

import yaml
from yaml import MappingNode, ScalarNode

STR = "tag:yaml.org,2002:str"
Edit = tuple[int, int, str]
"""A span of the text (start, end) and what replaces it; `start == end` inserts."""
_ANALYSIS = yaml.emitter.Emitter(io.StringIO(), allow_unicode=True)
_RESOLVER = yaml.resolver.Resolver()
_PSYCH_NUMBER = re.compile(r"[-+]?[\d.,_:]*\d[\d.,_:]*(?:[eE][-+]?\d+)?")
"""What Psych reads as a number and PyYAML does not (`1,000`, `1_000.5`)."""
_WORDS = re.compile(r"[^\W\d_][\w'.]*(?: [\w'.]+)*")
_WORDS_NOT_STRINGS = frozenset(("yes", "no", "true", "false", "on", "off", "null", "y", "n"))
"""The words YAML 1.1 reads as booleans or null (`y` and `n` only some readers)."""
_ESCAPED = re.compile('[\\\\"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]')
_SHORT = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\x00": "\\0", "\x85": "\\N"}
_NOT_IN_BLOCK = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]")
_PROPERTY = re.compile(r"[&!]\S*(?:\s|#[^\n]*)*")
_BLOCK_HEADER = re.compile(r"[|>][-+0-9]{0,2}")


def value_start(source: str, start: int) -> int:
    """Where a node's own text begins: after its anchor and tag (`&x !!str "text"`), which its start
    mark includes."""
    while source.startswith(("&", "!"), start):
        match = _PROPERTY.match(source, start)
        assert match  # a property always matches at least its indicator
        start = match.end()
    return start


def double_quoted(text: str) -> str:
    """`text` as a double-quoted scalar: one line, every break and unprintable character escaped."""

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        if char in _SHORT:
            return _SHORT[char]
        code = ord(char)
        return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"

    return '"' + _ESCAPED.sub(escape, text) + '"'


def _plain(text: str, flow: bool) -> bool:
    """True where `text` can be written plain and reads back as this string (PyYAML and Psych)."""
    if _WORDS.fullmatch(text):  # most texts: letters first, words and single spaces (not `yes`, `null`)
        return text.lower() not in _WORDS_NOT_STRINGS
    analysis = _ANALYSIS.analyze_scalar(text)
    allowed = analysis.allow_flow_plain if flow else analysis.allow_block_plain
    return (
        allowed
        and not analysis.multiline
        and bool(text)
        and not _NOT_IN_BLOCK.search(text)
        and not text.startswith(":")
        and not _PSYCH_NUMBER.fullmatch(text)
        and _RESOLVER.resolve(ScalarNode, text, (True, False)) == STR
    )


def _quoted(text: str) -> str:
    analysis = _ANALYSIS.analyze_scalar(text)
    if analysis.allow_single_quoted and not analysis.multiline and not _NOT_IN_BLOCK.search(text):
        return "'" + text.replace("'", "''") + "'"
    return double_quoted(text)


def key_text(text: str, like: ScalarNode) -> str:
    """A mapping key `text` (a locale, a plural category) quoted as the key `like` is, or plain where it can be."""
    if like.style == '"':
        return double_quoted(text)
    if like.style == "'" or not _plain(text, flow=False):
        return _quoted(text)
    return text


def scalar_text(text: str, like: ScalarNode, source: str, *, flow: bool, newline: str) -> tuple[int, int, str]:
    """The span of `source` that `like`'s text takes (its anchor and tag kept) and what replaces it:
    `text` written in `like`'s style where it can be."""
    start, end = value_start(source, like.start_mark.index), like.end_mark.index
    if like.style in ("|", ">"):
        block = _block(text, like.style, source, start, end, newline)
        if block is not None:
            return block
        return start, _content_end(source, start, end), double_quoted(text)
    if like.style == '"':
        written = double_quoted(text)
    elif not like.style and _plain(text, flow):
        written = text
    else:
        written = _quoted(text)
    return start, end, written


def _content_end(source: str, start: int, end: int) -> int:
    """The end of a block scalar's last line that holds text (its span also takes the blank lines after)."""
    last = start + len(source[start:end].rstrip(" \t\r\n"))
    while last < end and source[last] not in "\r\n":
        last += 1
    return last


def _block(text: str, style: str, source: str, start: int, end: int, newline: str) -> tuple[int, int, str] | None:
    """The block scalar at `start` rewritten with `text` at its indentation, or None where `text`
    cannot be a block (see the module's note)."""
    body = text[:-1] if text.endswith("\n") else text
    if not body or body[0] in " \n" or body.endswith("\n") or _NOT_IN_BLOCK.search(body):
        return None
    if style == ">" and "\n" in body:
        style = "|"
    header = _BLOCK_HEADER.match(source, start)
    assert header  # a block scalar's text starts with its indicator
    line_end = source.find("\n", header.end(), end)
    first = line_end + 1 if line_end >= 0 else end
    written = next((line for line in source[first:end].split("\n") if line.strip()), "")
    if not written:
        return None
    indent = " " * (len(written) - len(written.lstrip(" ")))
    chomp = "" if text.endswith("\n") else "-"
    new = newline.join(indent + line if line else "" for line in body.split("\n"))
    return start, _content_end(source, first, end), style + chomp + source[header.end() : first] + new


def edited(source: str, edits: Iterable[Edit]) -> str:
    """`source` with `edits` made (their spans do not overlap; insertions at one place keep their order)."""
    pieces: list[str] = []
    done = 0
    for start, end, new in sorted(edits, key=lambda edit: edit[:2]):
        pieces += (source[done:start], new)
        done = end
    pieces.append(source[done:])
    return "".join(pieces)


def mapping_edits(
    node: MappingNode, values: Mapping[str, str], like: str, source: str, *, newline: str
) -> Iterator[Edit]:
    """The edits that give a mapping of scalars exactly the keys of `values`, in their order, with
    their texts: each kept value replaced in its own style, a key not in `values` removed with its
    lines (and the comments up to the next key), a missing one inserted before the next key kept, in
    the key quoting and value style of the key `like`. A flow mapping (`{a: b}`) is written again
    whole. The mapping holds `like` and the last key of `values`."""
    pairs = node.value
    given = {key.value: (key, value) for key, value in pairs}
    like_key, like_value = given[like]
    if node.flow_style:
        written = []
        for name, text in values.items():
            key, value = given.get(name, (like_key, like_value))
            written.append(f"{key_text(name, key)}: {scalar_text(text, value, source, flow=True, newline=newline)[2]}")
        yield value_start(source, node.start_mark.index), node.end_mark.index, "{" + ", ".join(written) + "}"
        return
    for position, (key, value) in enumerate(pairs):
        if key.value in values:
            yield scalar_text(values[key.value], value, source, flow=False, newline=newline)
        elif position + 1 < len(pairs):
            yield key.start_mark.index, pairs[position + 1][0].start_mark.index, ""
        else:
            line_start = source.rfind("\n", 0, key.start_mark.index) + 1
            start = line_start if not source[line_start : key.start_mark.index].strip() else key.start_mark.index
            line_end = source.find("\n", value.end_mark.index - 1)
            yield start, len(source) if line_end < 0 else line_end + 1, ""
    separator = source[like_key.end_mark.index : value_start(source, like_value.start_mark.index)]
    if not re.fullmatch(r"[ \t]*:[ \t]+", separator):
        separator = ": "
    names = list(values)
    for position, name in enumerate(names):
        if name in given:
            continue
        before = next(given[later][0] for later in names[position:] if later in given)
        value = scalar_text(values[name], like_value, source, flow=False, newline=newline)[2]
        at, indent = before.start_mark.index, " " * before.start_mark.column
        yield at, at, f"{key_text(name, like_key)}{separator}{value}{newline}{indent}"
