"""DynamoDB item values for the backend: typed attributes, compressed text, sizes, keys and cursors.

Private to storage.dynamodb and storage.dynamodb_memory (which own the layout); nothing here calls
DynamoDB. Sizes are counted as DynamoDB counts them (attribute names plus UTF-8 or binary values), so
an oversized record is refused before a call is made.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from pydantic_core import PydanticSerializationError

from agent_core.effects import StoredAnswer
from agent_core.errors import InvalidRequestError, TooLargeError

from .errors import ConflictError, InvalidCursorError

Item = dict[str, Any]

MAX_ITEM_BYTES = 400_000
"""DynamoDB's item size limit."""
MAX_TRANSACTION_ITEMS = 100
"""DynamoDB's limit of actions in one TransactWriteItems."""
MAX_TRANSACTION_BYTES = 4_000_000
"""DynamoDB's limit of the bytes one TransactWriteItems writes."""


def s(value: str) -> Item:
    """A string attribute."""
    return {"S": value}


def n(value: int) -> Item:
    """A number attribute."""
    return {"N": str(value)}


def num(item: Item, name: str, default: int = 0) -> int:
    """The number attribute `name` of `item` (`default` when absent)."""
    value = item.get(name)
    return int(value["N"]) if value else default


def packed(value: Any) -> Item:
    """`value` as compressed JSON in a binary attribute (messages, verdicts, units, logs: what is big)."""
    return {"B": zlib.compress(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode(), 6)}


def unpacked(item: Item, name: str = "packed") -> Any:
    """The JSON value `packed` stored under `name`."""
    return json.loads(zlib.decompress(item[name]["B"]))


def now_iso() -> str:
    """The current UTC time as storage writes it (ISO 8601, microseconds)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def answer_digest(owner: str, key: str) -> str:
    """An answer's key: the caller's owner and Idempotency-Key, hashed (any key up to 255 characters fits)."""
    return hashlib.sha256(f"{owner}\x00{key}".encode()).hexdigest()


def answer_item(a: StoredAnswer) -> Item:
    """A kept answer, in its own partition (DynamoDB's TTL removes it after `expiresAt`)."""
    return {
        "pk": s(f"I#{answer_digest(a.owner, a.key)}"),
        "sk": s("IDEMPOTENCY"),
        "requestHash": s(a.request_hash),
        "body": s(a.body),
        "expiresAt": n(a.expires_at),
    }


# -- sizes and refusals ---------------------------------------------------------------------


def item_size(item: Item) -> int:
    """The item's size as DynamoDB counts it: attribute names plus UTF-8 values."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def _value_size(value: Item) -> int:
    if "S" in value:
        return len(value["S"].encode("utf-8"))
    if "B" in value:
        return len(value["B"])
    if "N" in value:
        return len(value["N"])  # an upper bound: DynamoDB packs two digits a byte
    if "L" in value:
        return 3 + sum(1 + _value_size(v) for v in value["L"])
    if "M" in value:
        return 3 + sum(len(k.encode()) + 1 + _value_size(v) for k, v in value["M"].items())
    return 1  # NULL, BOOL


def check_size(item: Item, what: str) -> int:
    """The item's size; TooLargeError naming `what` if it exceeds DynamoDB's item limit."""
    size = item_size(item)
    if size > MAX_ITEM_BYTES:
        raise TooLargeError(
            f"{what} would take {size // 1000} KB, over the store's limit of {MAX_ITEM_BYTES // 1000} KB "
            "for one record; send shorter text."
        )
    return size


def check_transaction(actions: Sequence[Item]) -> None:
    """TooLargeError if the actions exceed what one TransactWriteItems may hold."""
    if len(actions) > MAX_TRANSACTION_ITEMS:
        raise TooLargeError(
            f"This would store {len(actions)} records at once, over the store's limit of {MAX_TRANSACTION_ITEMS}; "
            "send fewer copilot responses at a time."
        )
    size = sum(item_size(next(iter(a.values())).get("Item", {})) for a in actions)
    if size > MAX_TRANSACTION_BYTES:
        raise TooLargeError(
            f"This would store {size // 1_000_000} MB at once, over the store's limit of "
            f"{MAX_TRANSACTION_BYTES // 1_000_000} MB; send shorter text or fewer responses at a time."
        )


@contextmanager
def storable() -> Iterator[None]:
    """Text that cannot be encoded as UTF-8 (a lone surrogate) is refused as an invalid request."""
    try:
        yield
    except (UnicodeEncodeError, PydanticSerializationError) as exc:
        raise InvalidRequestError("The text holds characters that cannot be stored (a lone surrogate).") from exc


class Refused(ConflictError):
    """A write a condition cancelled, with each action's reason code (a transaction's, in order)."""

    def __init__(self, codes: list[str]) -> None:
        super().__init__("The session changed concurrently; reload it and try again.")
        self.codes = codes

    def failed(self, position: int) -> bool:
        """True if the action at `position` was cancelled by its condition."""
        return position < len(self.codes) and self.codes[position] == "ConditionalCheckFailed"


class Contended(ConflictError):
    """A write cancelled because a transaction was writing the same item at that moment."""


def put(item: Item, condition: str | None = None) -> Item:
    """A transaction's Put (the table is added when it is sent)."""
    return {"Put": {"Item": item, **({"ConditionExpression": condition} if condition else {})}}


# -- cursors ----------------------------------------------------------------------------------


def encode_cursor(position: dict[str, Any]) -> str:
    """An opaque cursor for a listing position."""
    return base64.urlsafe_b64encode(json.dumps(position, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, shape: dict[str, type]) -> dict[str, Any]:
    """A cursor's position, whose keys and value types are `shape`'s; InvalidCursorError for anything
    not issued here (a number out of range too), never a key DynamoDB would refuse."""
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError, UnicodeError, RecursionError) as exc:
        raise InvalidCursorError("Invalid cursor.") from exc
    if not isinstance(value, dict) or set(value) != set(shape):
        raise InvalidCursorError("Invalid cursor.")
    for key, kind in shape.items():
        v = value[key]
        if type(v) is not kind:
            raise InvalidCursorError("Invalid cursor.")
        if (isinstance(v, int) and not 0 <= v < 10**10) or (isinstance(v, str) and not 0 < len(v) <= 300):
            raise InvalidCursorError("Invalid cursor.")
    return value
