"""DynamoDB item values for the backend: typed attributes, compressed text, sizes, keys and cursors.

Private to the DynamoDB backend's modules (storage.dynamodb and its siblings, which own the layout); nothing here calls
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

from agent_core.document import FileState
from agent_core.effects import StoredAnswer
from agent_core.errors import InvalidRequestError, TooLargeError
from agent_core.segment import load_segments

from .errors import ConflictError, InvalidCursorError
from .interface import FileChunk
from .records import JobRecord

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


# -- typed items: each item kind's one encoding and its one decoding ---------------------------------


def answer_key(owner: str, key: str) -> Item:
    """A kept answer's key: its own partition, by the owner's Idempotency-Key hashed."""
    return {"pk": s(f"I#{answer_digest(owner, key)}"), "sk": s("IDEMPOTENCY")}


def answer_item(a: StoredAnswer) -> Item:
    """A kept answer, in its own partition (DynamoDB's TTL removes it after `expiresAt`)."""
    body = {"requestHash": s(a.request_hash), "body": s(a.body), "expiresAt": n(a.expires_at)}
    return answer_key(a.owner, a.key) | body


def answer_of(owner: str, key: str, item: Item) -> StoredAnswer:
    """A kept answer's item (`answer_item`) read back."""
    digest, body, expires = item["requestHash"]["S"], item["body"]["S"], num(item, "expiresAt")
    return StoredAnswer(owner=owner, key=key, request_hash=digest, body=body, expires_at=expires)


def job_key(job_id: str) -> Item:
    """A job's key: its own partition."""
    return {"pk": s(f"J#{job_id}"), "sk": s("JOB")}


def job_item(job: JobRecord) -> Item:
    """A job, written once: its owner, its time, and each language's session and estimate (`languages`)."""
    return job_key(job.job_id) | {"owner": s(job.owner), "createdAt": s(job.created_at), "languages": s(job.dumps())}


def job_of(item: Item) -> JobRecord:
    """A job's item (`job_item`) read back."""
    job_id = item["pk"]["S"][2:]
    return JobRecord.loads(job_id, item["owner"]["S"], item["createdAt"]["S"], item["languages"]["S"])


def chunk_key(session_id: str, file_id: str, number: int, *, original: bool = False) -> Item:
    """The key of a chunk of a file's text (`C#`), or of the document it was taken from (`D#`)."""
    return {"pk": s(f"S#{session_id}"), "sk": s(f"{'D' if original else 'C'}#{file_id}#{number:05d}")}


def chunk_item(session_id: str, file_id: str, number: int, text: str, segments: str | None) -> Item:
    """A chunk with the segments that begin in it (`agent_core.segment.dump_segments`), or, with
    `segments` None, a chunk of the document the file was taken from."""
    item = chunk_key(session_id, file_id, number, original=segments is None) | {"text": s(text)}
    return item if segments is None else item | {"segments": s(segments)}


def chunk_of(item: Item | None) -> FileChunk:
    """A chunk's item (`chunk_item`) read back (None: a chunk past the file's end, empty)."""
    if item is None:
        return FileChunk("", ())
    return FileChunk(item["text"]["S"], load_segments(item["segments"]["S"]) if "segments" in item else ())


def file_entry(file: FileState, order: int, *, original: bool) -> Item:
    """A file's entry in META's `files` map (by file id): `order` its place among the session's files."""
    fields = {
        "name": s(file.name),
        "chars": n(file.chars),
        "covered": s(meta_json(file.covered)),
        "createdAt": s(file.created_at or now_iso()),
        "order": n(order),
        "original": {"BOOL": original},
    }
    return {"M": fields}


def files_of(meta: Item) -> list[FileState]:
    """META's file entries (`file_entry`) read back, in upload order."""
    entries = sorted(meta.get("files", {}).get("M", {}).items(), key=lambda kv: int(kv[1]["M"]["order"]["N"]))
    return [
        FileState(
            file_id=file_id,
            name=e["M"]["name"]["S"],
            chars=int(e["M"]["chars"]["N"]),
            covered=tuple((int(a), int(b)) for a, b in json.loads(e["M"]["covered"]["S"])),
            created_at=e["M"]["createdAt"]["S"],
        )
        for file_id, e in entries
    ]


def meta_json(value: Any) -> str:
    """`value` as META's JSON text (UTF-8 as it is: an escape would weigh six bytes a character)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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
