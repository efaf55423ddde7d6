"""Cursors of the SQLite backend: opaque tokens naming the last row a page returned."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from .errors import InvalidCursorError
from .records import Page, T

_MAX_INT = 2**63 - 1
"""SQLite's largest integer: a cursor naming a larger one was not issued here."""


def page(items: list[T], limit: int, kind: str, key: Callable[[T], list[Any]]) -> Page[T]:
    """The first `limit` of up to `limit + 1` items and, if more follow, a cursor naming the last one."""
    if limit <= 0 or len(items) <= limit:
        return Page(items[: max(limit, 0)], None)
    token = json.dumps([kind, *key(items[limit - 1])]).encode()
    return Page(items[:limit], base64.urlsafe_b64encode(token).decode("ascii"))


def decode_cursor(cursor: str | None, kind: str, shape: tuple[type, ...]) -> list[Any]:
    """The key a cursor of this kind names (empty for the first page); InvalidCursorError otherwise."""
    if not cursor:
        return []
    try:
        value = json.loads(base64.b64decode(cursor.encode("ascii"), altchars=b"-_", validate=True))
    except (ValueError, UnicodeError) as exc:
        raise InvalidCursorError("Invalid cursor.") from exc
    if not isinstance(value, list) or value[:1] + [type(v) for v in value[1:]] != [kind, *shape]:
        raise InvalidCursorError("Invalid cursor.")
    if any(isinstance(v, int) and not -_MAX_INT <= v <= _MAX_INT for v in value[1:]):
        raise InvalidCursorError("Invalid cursor.")
    return value[1:]
