"""Apple `.strings` files: `"key" = "value";` pairs with `/* */` and `//` comments (old-style plist).

Read: the file's encoding is found from its byte-order mark (UTF-8, UTF-16 LE or BE), else from its
NUL bytes (UTF-16 without a mark), else UTF-8. Keys and values are quoted strings or, as the plist
grammar allows, unquoted words (`key = value;`); `"key";` alone means the value is the key.
Escapes: `\\"`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\U` and `\\u` with four hex digits (a surrogate pair
in two), octal `\\ooo`. The note is the comment right before the pair, with no blank line between
(Xcode's placeholder "No comment provided by engineer." is no note). Locked codes: printf,
including `%@`, `%1$@`, `%lld`.
Kept out: an empty (or blank) value, and a value that only repeats its identifier-like key (`"a.b" = "a.b";`,
the stub genstrings writes for a key whose text lives in a `.stringsdict`). A key defined twice
is refused: the file must name each string once.

Write: each translated value replaces the original value in place (quoted, escaped: `\\"`, `\\\\`,
`\\n`, `\\t`, `\\r`), in the file's own encoding and byte-order mark; every other byte is kept.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from langfacts.codes import find_codes

from ..limits import MAX_SEGMENTS
from .base import Entry, FileFormat, FormatError, Resource, Target

_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<block>/\*.*?\*/)
    |(?P<unclosed>/\*)
    |(?P<line>//[^\n]*)
    |(?P<quoted>"(?:[^"\\]|\\.)*")
    |(?P<word>[A-Za-z0-9_$+/:.\-]+)
    |(?P<punct>[=;])""",
    re.S | re.X,
)
_ESCAPE = re.compile(r"\\(?:[Uu]([0-9A-Fa-f]{4})|([0-7]{1,3})|(.))", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_STUB = re.compile(r"[\w.\-]*[._][\w.\-]*")
_NO_NOTE = "No comment provided by engineer."
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass(frozen=True, slots=True)
class _Pair:
    key: str
    value: str
    note: str | None
    line: int
    value_start: int
    """Offset of the value's token (its opening quote); for `"key";`, of the `;`."""
    value_end: int
    has_value: bool


def _decode(data: bytes) -> tuple[str, str, bytes]:
    for mark, name in _BOMS:
        if data.startswith(mark):
            bom, encoding = mark, name
            break
    else:
        bom = b""
        head = data[:200]
        if len(head) >= 2 and head[1::2].count(0) > len(head) // 4:
            encoding = "utf-16-le"
        elif len(head) >= 2 and head[0::2].count(0) > len(head) // 4:
            encoding = "utf-16-be"
        else:
            encoding = "utf-8"
    try:
        return data[len(bom) :].decode(encoding), encoding, bom
    except UnicodeDecodeError as exc:
        raise FormatError(f"The file is not valid {encoding} (byte {exc.start + len(bom)}).") from exc


def _unescape(raw: str, where: str) -> str:
    def one(match: re.Match[str]) -> str:
        hexa, octal, char = match.groups()
        if hexa is not None:
            return chr(int(hexa, 16))
        if octal is not None:
            return chr(int(octal, 8))
        if char in "Uu":
            raise FormatError(f"{where}: \\{char} must be followed by four hex digits.")
        return _SIMPLE.get(char, char)

    text = _ESCAPE.sub(one, raw)
    # \\U escapes of a surrogate pair make one character.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace") if _has_surrogate(text) else text


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


class _Parser:
    """The pairs of a `.strings` text, in order, with their spans."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line = 1
        self.line_start = 0

    def where(self, pos: int) -> str:
        return f"Line {self.line}, column {pos - self.line_start + 1}"

    def _advance(self, start: int, end: int) -> None:
        count = self.text.count("\n", start, end)
        if count:
            self.line += count
            self.line_start = self.text.rindex("\n", start, end) + 1

    def tokens(self) -> Iterator[tuple[str, int, int]]:
        pos, size, text = 0, len(self.text), self.text
        while pos < size:
            match = _TOKEN.match(text, pos)
            if match is None or match.lastgroup in (None, "unclosed"):
                what = "an unterminated string" if text[pos] == '"' else f"unexpected {text[pos]!r}"
                if text.startswith("/*", pos):
                    what = "a comment that is never closed"
                raise FormatError(f"{self.where(pos)}: {what}.")
            yield match.lastgroup, pos, match.end()
            self._advance(pos, match.end())
            pos = match.end()

    def _string(self, kind: str, start: int, end: int) -> str:
        if kind == "quoted":
            return _unescape(self.text[start + 1 : end - 1], self.where(start))
        return self.text[start:end]

    def pairs(self) -> Iterator[_Pair]:
        state, note = "key", None
        key, key_line, value_token = "", 0, (0, 0)
        for kind, start, end in self.tokens():
            raw = self.text[start:end]
            if kind == "space":
                if raw.count("\n") > 1 and state == "key":
                    note = None  # a comment parted from the pair by a blank line is a heading, not its note
                continue
            if kind in ("block", "line"):
                if state == "key":
                    body = raw[2:-2] if kind == "block" else raw[2:]
                    note = body.strip() or None
                continue
            if state == "key":
                if kind == "punct":
                    raise FormatError(f"{self.where(start)}: expected a key, found {raw!r}.")
                key, key_line, state = self._string(kind, start, end), self.line, "equals"
            elif state == "equals":
                if raw == ";":
                    yield _Pair(key, key, _clean_note(note), key_line, start, start, False)
                    state, note = "key", None
                elif raw != "=":
                    raise FormatError(f"{self.where(start)}: expected '=' after the key {key!r}.")
                else:
                    state = "value"
            elif state == "value":
                if kind == "punct":
                    raise FormatError(f"{self.where(start)}: expected the value of {key!r}, found {raw!r}.")
                value_token, value, state = (start, end), self._string(kind, start, end), "semicolon"
            elif raw != ";":
                raise FormatError(f"{self.where(start)}: expected ';' after the value of {key!r}.")
            else:
                yield _Pair(key, value, _clean_note(note), key_line, *value_token, True)
                state, note = "key", None
        if state != "key":
            raise FormatError(f"{self.where(len(self.text))}: the file ends inside the pair {key!r}.")


def _clean_note(note: str | None) -> str | None:
    return None if note == _NO_NOTE else note


def _is_stub(pair: _Pair) -> bool:
    return pair.value == pair.key and _STUB.fullmatch(pair.key) is not None


def _pairs(text: str) -> list[_Pair]:
    found: list[_Pair] = []
    seen: dict[str, int] = {}
    for pair in _Parser(text).pairs():
        if pair.key in seen:
            raise FormatError(
                f"Line {pair.line}: the key {pair.key!r} is defined twice (first on line {seen[pair.key]})."
            )
        seen[pair.key] = pair.line
        found.append(pair)
        if len(found) > MAX_SEGMENTS:
            raise FormatError(f"The file has more than {MAX_SEGMENTS} strings, the most one file may have; split it.")
    return found


def _translatable(pairs: list[_Pair]) -> list[_Pair]:
    return [p for p in pairs if p.value.strip() and not _is_stub(p)]


class AppleStringsFormat(FileFormat):
    """Apple `.strings`: quoted key-value pairs, UTF-8 or UTF-16, spliced back in place."""

    name = "strings"
    extensions = (".strings",)

    def read(self, data: bytes) -> Resource:
        """The file's strings; FormatError for a malformed file or one with nothing to translate."""
        text, _, _ = _decode(data)
        pairs = _translatable(_pairs(text))
        if not pairs:
            raise FormatError("The file has no strings to translate.")
        entries = tuple(
            Entry(key=p.key, source=p.value, note=p.note, codes=find_codes(p.value, ("printf",))) for p in pairs
        )
        return Resource(entries=entries)

    def write(self, data: bytes, targets: Mapping[str, Target], *, target_language: str) -> bytes:
        """The original with each translated value replaced in place; keys not in the file are ignored."""
        text, encoding, bom = _decode(data)
        out: list[str] = []
        last = 0
        for pair in _translatable(_pairs(text)):
            target = targets.get(pair.key)
            if target is None:
                continue
            if not isinstance(target, str):
                raise FormatError(f"{pair.key!r}: a .strings value is a text, not plural forms.")
            written = f'"{_escape(target)}"'
            out.append(text[last : pair.value_start])
            out.append(written if pair.has_value else f" = {written}")
            last = pair.value_end
        out.append(text[last:])
        return bom + "".join(out).encode(encoding)


FORMAT = AppleStringsFormat()
