"""A JSON scanner that keeps positions, so a writer can splice new strings into the original text.

`scan(text)` parses strict JSON (RFC 8259) without recursion and returns the value and, for every
object member and array item, where it sits: a string's literal span, a member's key start and the
comma before it. `splice(text, edits)` replaces spans; `literal(value, like=…)` writes a JSON
string escaped as the original was (`\\uXXXX` for non-ASCII when the file escaped it). Duplicate
keys are refused (`json.loads` keeps the last one silently; a translation would then go nowhere).
Errors are FormatError with the line and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from ..limits import MAX_SEGMENTS
from .base import FormatError

Path = tuple[str | int, ...]
"""Where a value is: its keys and array indices from the root."""

MAX_DEPTH: Final = 64
"""The deepest nesting read (a path is copied at each level)."""
_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]+|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NON_ASCII_ESCAPE = re.compile(r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})")


@dataclass(frozen=True, slots=True)
class Slot:
    """Where one member or item is in the text."""

    path: Path
    value: Any
    start: int
    """The start of the member's key literal (of the value itself for an array item)."""
    value_start: int
    end: int
    """The end of the value."""
    comma: int | None
    """The position of the comma before the member, None for the first one."""


@dataclass(slots=True)
class Scanned:
    """A parsed document: its value and every member's and item's slot, in document order."""

    text: str
    value: Any = None
    slots: list[Slot] = field(default_factory=list)

    def strings(self) -> Iterable[Slot]:
        """The slots whose value is a string."""
        return (s for s in self.slots if isinstance(s.value, str))


@dataclass(slots=True)
class _Frame:
    container: dict[str, Any] | list[Any]
    path: Path
    key: str | int = 0
    start: int = 0
    """The start of the current member's key."""
    comma: int | None = None
    opened_at: int = 0
    """The position of the container's `{` or `[`."""


MAX_NUMBER: Final = 4_000
"""The longest number literal read (Python refuses integers of more than 4,300 digits)."""
_NESTING = re.compile(r'[\[\]{}"]')
_ANY_STRING = re.compile(r'"(?:[^"\\]|\\.)*+"', re.S)


def number(text: str, pos: int, literal: str) -> Any:
    """The value of the scalar `literal` (a number, true, false or null) at `pos`; a number too long
    to read is FormatError."""
    if len(literal) > MAX_NUMBER:
        raise _fail(text, pos, f"a number of {len(literal)} characters (at most {MAX_NUMBER} are read)")
    return json.loads(literal)


def check_depth(text: str) -> None:
    """FormatError when brackets in `text` nest deeper than MAX_DEPTH (one pass, strings skipped), so
    a recursive parser such as `json.loads` can be given the text."""
    depth, pos = 0, 0
    while (match := _NESTING.search(text, pos)) is not None:
        token, pos = match.group(), match.end()
        if token == '"':
            string = _ANY_STRING.match(text, match.start())
            if string is None:
                return  # an unterminated string: the parser says where
            pos = string.end()
        elif token in "{[":
            depth += 1
            if depth > MAX_DEPTH:
                raise _fail(text, match.start(), f"nested deeper than {MAX_DEPTH} levels")
        else:
            depth -= 1


def where(text: str, pos: int) -> str:
    """`line L, column C` of a position."""
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - text.rfind(chr(10), 0, pos)}"


def _fail(text: str, pos: int, what: str) -> FormatError:
    return FormatError(f"Not valid JSON at {where(text, pos)}: {what}.")


def _string(text: str, pos: int) -> tuple[str, int]:
    match = _STRING.match(text, pos)
    if not match:
        raise _fail(text, pos, "an unterminated string or a bad escape")
    value: str = json.loads(match.group())
    if _SURROGATE.search(value):
        raise _fail(text, pos, "a lone surrogate escape (half a character)")
    return value, match.end()


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.out = Scanned(text)
        self.stack: list[_Frame] = []

    def ws(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        return match.end() if match else pos

    def key(self, pos: int) -> int:
        """Reads `"key":` at pos into the top frame; the position of the value."""
        frame = self.stack[-1]
        if self.text.startswith('"', pos):
            key, after = _string(self.text, pos)
        else:
            raise _fail(self.text, pos, "a key in double quotes was expected")
        assert isinstance(frame.container, dict)
        if key in frame.container:
            raise FormatError(f"The key {key!r} appears twice in the same object ({where(self.text, pos)}).")
        after = self.ws(after)
        if not self.text.startswith(":", after):
            raise _fail(self.text, after, "':' was expected after the key")
        frame.key, frame.start = key, pos
        return self.ws(after + 1)

    def value(self, pos: int) -> tuple[Any, int, bool]:
        """The value at pos and where it ends, or a new container (pushed) and True."""
        text = self.text
        char = text[pos : pos + 1]
        if char in ("{", "["):
            if len(self.stack) >= MAX_DEPTH:
                raise _fail(text, pos, f"nested deeper than {MAX_DEPTH} levels")
            path = self.path()
            container: dict[str, Any] | list[Any] = {} if char == "{" else []
            self.stack.append(_Frame(container, path, opened_at=pos))
            return container, pos + 1, True
        if char == '"':
            value, end = _string(text, pos)
            return value, end, False
        match = _SCALAR.match(text, pos)
        if not match:
            raise _fail(text, pos, "a value was expected" if pos < len(text) else "the text ends early")
        return number(text, pos, match.group()), match.end(), False

    def path(self) -> Path:
        if not self.stack:
            return ()
        frame = self.stack[-1]
        return (*frame.path, frame.key)

    def run(self) -> Scanned:
        text = self.text
        pos = self.ws(0)
        while True:
            value_start = pos
            value, pos, opened = self.value(pos)
            if opened:
                pos = self.ws(pos)
                closer = "}" if isinstance(value, dict) else "]"
                if text.startswith(closer, pos):
                    self.stack.pop()
                    pos += 1
                else:
                    if isinstance(value, dict):
                        pos = self.key(pos)
                    continue
            done, pos = self.attach(value, value_start, pos)
            if done:
                break
        pos = self.ws(pos)
        if pos != len(text):
            raise _fail(text, pos, "text after the end of the document")
        return self.out

    def attach(self, value: Any, value_start: int, pos: int) -> tuple[bool, int]:
        """Puts a finished value into its container and closes the containers that end here;
        True when the document's root is done, and the position of the next value."""
        text = self.text
        while True:
            if not self.stack:
                self.out.value = value
                return True, pos
            frame = self.stack[-1]
            start = value_start if isinstance(frame.container, list) else frame.start
            self.out.slots.append(Slot(self.path(), value, start, value_start, pos, frame.comma))
            if len(self.out.slots) > 4 * MAX_SEGMENTS:
                raise FormatError(f"The file has more than {4 * MAX_SEGMENTS} values, the most a file takes; split it.")
            if isinstance(frame.container, dict):
                frame.container[str(frame.key)] = value
            else:
                frame.container.append(value)
            pos = self.ws(pos)
            closer = "}" if isinstance(frame.container, dict) else "]"
            if text.startswith(",", pos):
                frame.comma = pos
                pos = self.ws(pos + 1)
                if isinstance(frame.container, dict):
                    return False, self.key(pos)
                frame.key = len(frame.container)
                return False, pos
            if not text.startswith(closer, pos):
                raise _fail(text, pos, f"',' or '{closer}' was expected")
            value, value_start = frame.container, frame.opened_at
            self.stack.pop()
            pos += 1


def scan(text: str) -> Scanned:
    """The JSON document `text` with every member's and item's position; FormatError if malformed."""
    return _Scanner(text).run()


def decode(data: bytes) -> tuple[str, bool]:
    """The UTF-8 text of a JSON file, and whether it began with a byte-order mark."""
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        return data[3 if bom else 0 :].decode("utf-8"), bom
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise FormatError(f"Line {line}: the file is not UTF-8 text.") from exc


def escapes_non_ascii(text: str) -> bool:
    """True when the file writes non-ASCII letters as `\\uXXXX` and has none raw."""
    return not any(ord(c) > 127 for c in text) and bool(_NON_ASCII_ESCAPE.search(text))


def literal(value: str, *, ascii_only: bool) -> str:
    """`value` as a JSON string literal."""
    return json.dumps(value, ensure_ascii=ascii_only)


def splice(text: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """`text` with each span `(start, end)` replaced; the spans must not overlap."""
    out: list[str] = []
    last = 0
    for start, end, new in sorted(edits):
        if start < last:
            raise ValueError("overlapping edits")
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


def string_end(text: str, pos: int) -> int:
    """The end of the string literal that starts at pos (a member's key)."""
    match = _STRING.match(text, pos)
    if not match:
        raise ValueError(f"no string literal at {pos}")
    return match.end()
