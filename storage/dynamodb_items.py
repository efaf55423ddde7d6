"""DynamoDB item shapes for `storage.dynamodb`: keys, encodings, sizes, cursors, values ↔ items.

Private to the DynamoDB backend (which owns the table layout described in its docstring); kept apart
so the backend module reads as its operations. Text is stored as UTF-8 strings (JSON with
`ensure_ascii=False`), so an item's size is what its characters weigh, not six bytes per escape.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import secrets
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import ModelMessage
from pydantic_core import PydanticSerializationError

from agent_core.document import FileState
from agent_core.effects import Correction, SessionSnapshot, StepToken, StoredAnswer
from agent_core.errors import InvalidRequestError, TooLargeError

from .codec import load_verdict
from .errors import ConflictError, InvalidCursorError
from .records import MemoryEntryRecord

if TYPE_CHECKING:
    from .records import SessionRecord

Item = dict[str, Any]
BUCKET = 100
"""Messages (and the verdicts on them) per partition."""
UNIT_SPAN = 32_000
"""Source characters whose units share a partition."""
MAX_ITEM_BYTES = 400_000
"""DynamoDB's item limit (400 KB, attribute names included), rounded down to stay clear of it."""
MAX_TRANSACTION_BYTES = 4_000_000
"""DynamoDB's limit on the items of one transaction together (4 MB), rounded down."""
MAX_TRANSACTION_ITEMS = 100
"""DynamoDB's limit on the actions of one transaction."""
MAX_CURSOR_NUMBER = 2**53
"""No index or bucket a cursor names can be larger (anything else was not issued here)."""


def s(value: str) -> Item:
    """A string attribute value."""
    return {"S": value}


def n(value: int) -> Item:
    """A number attribute value."""
    return {"N": str(value)}


def _opt(value: str | None) -> Item:
    return {"NULL": True} if value is None else {"S": value}


def _get_opt(item: Item, key: str) -> str | None:
    value = item.get(key)
    return None if value is None or "NULL" in value else str(value["S"])


def to_json(value: Any) -> str:
    """Compact JSON with the characters themselves, not ASCII escapes."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def now_iso() -> str:
    """The current time, ISO 8601 in UTC with microseconds (so writes in one millisecond still sort)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


# -- keys -----------------------------------------------------------------------------------


def session_pk(session_id: str) -> str:
    """The session's own partition: META, files, chunks, answer markers."""
    return f"S#{session_id}"


def bucket_pk(session_id: str, index: int) -> str:
    """The partition of the messages (and verdicts) around history index `index`."""
    return f"S#{session_id}#B#{index // BUCKET:06d}"


def unit_pk(session_id: str, file_id: str, start: int) -> str:
    """The partition of a file's units near source position `start`."""
    return f"S#{session_id}#U#{file_id}#{start // UNIT_SPAN:05d}"


def message_sk(index: int) -> str:
    """A message's sort key (zero-padded, so keys sort as indexes)."""
    return f"M#{index:010d}"


def verdict_sk(response_index: int, call_id: str) -> str:
    """A verdict's sort key: the response it answers, then the call."""
    return f"R#{response_index:010d}#{call_id}"


def verdicts_sk(response_index: int, version: int) -> str:
    """The sort key of the verdicts one commit (the one over `version`) gave on the response's calls:
    after the response's single verdicts (`~` sorts after a call id's characters), in commit order."""
    return f"R#{response_index:010d}#~{version:010d}"


def answer_digest(owner: str, key: str) -> str:
    """Keys are scoped to the caller; hashed so any string up to 255 characters fits a key."""
    return hashlib.sha256(f"{owner}\x00{key}".encode()).hexdigest()


# -- sizes ----------------------------------------------------------------------------------


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


def check_size(item: Item, what: str, *, extra: int = 0) -> int:
    """The item's size; TooLargeError naming `what` if it exceeds the item limit."""
    size = item_size(item) + extra
    if size > MAX_ITEM_BYTES:
        raise TooLargeError(
            f"{what} would take {size // 1000} KB, over the store's limit of {MAX_ITEM_BYTES // 1000} KB "
            "for one record; send shorter text."
        )
    return size


def check_transaction(sizes: Sequence[int]) -> None:
    """TooLargeError if a transaction of items of these sizes exceeds DynamoDB's limits."""
    if len(sizes) > MAX_TRANSACTION_ITEMS:
        raise TooLargeError(
            f"This would store {len(sizes)} records at once, over the store's limit of {MAX_TRANSACTION_ITEMS}; "
            "send fewer copilot responses at a time."
        )
    if sum(sizes) > MAX_TRANSACTION_BYTES:
        raise TooLargeError(
            f"This would store {sum(sizes) // 1_000_000} MB at once, over the store's limit of "
            f"{MAX_TRANSACTION_BYTES // 1_000_000} MB; send shorter text or fewer responses at a time."
        )


@contextmanager
def storable() -> Iterator[None]:
    """Text that cannot be encoded as UTF-8 (a lone surrogate) is refused as an invalid request."""
    try:
        yield
    except (UnicodeEncodeError, PydanticSerializationError) as exc:
        raise InvalidRequestError("The text holds characters that cannot be stored (a lone surrogate).") from exc


# -- transactions ---------------------------------------------------------------------------


class Refused(ConflictError):
    """A write a condition cancelled: each action's reason code and, if asked for, its old item."""

    def __init__(self, codes: list[str], items: list[Item | None]) -> None:
        super().__init__("The session changed concurrently; reload it and try again.")
        self.codes, self.items = codes, items

    def failed(self, position: int) -> bool:
        """True if the action at `position` was cancelled by its condition."""
        return position < len(self.codes) and self.codes[position] == "ConditionalCheckFailed"


class Contended(ConflictError):
    """A transaction cancelled because another one was writing the same items."""


def put(item: Item, what: str, condition: str | None = None) -> tuple[Item, int]:
    """A transaction's Put (the table is added when sent) and the item's size, checked against the limit."""
    action: Item = {"Item": item}
    if condition:
        action["ConditionExpression"] = condition
    return {"Put": action}, check_size(item, what or "A record")


def update(key: Item, expression: str, values: Item, condition: str | None, what: str) -> tuple[Item, int]:
    """A transaction's Update and an upper bound of the size it writes (the key, the values, 1 KB more)."""
    action: Item = {"Key": key, "UpdateExpression": expression, "ExpressionAttributeValues": values}
    if condition:
        action["ConditionExpression"] = condition
    return {"Update": action}, check_size(key | values, what or "A record", extra=1_000)


def query_args(pk: str, sk_condition: str | None, values: Item) -> dict[str, Any]:
    """A consistent Query of partition `pk`, narrowed by `sk_condition` (the table is added when sent)."""
    condition = "pk = :p" + (f" AND {sk_condition}" if sk_condition else "")
    return {
        "ConsistentRead": True,
        "KeyConditionExpression": condition,
        "ExpressionAttributeValues": {":p": s(pk), **values},
    }


# -- cursors --------------------------------------------------------------------------------


def encode_cursor(position: dict[str, Any]) -> str:
    """An opaque cursor for a listing position."""
    return base64.urlsafe_b64encode(to_json(position).encode()).decode()


def decode_cursor(cursor: str) -> dict[str, Any]:
    """A cursor's position; InvalidCursorError for anything not issued here."""
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError, UnicodeError, RecursionError) as exc:
        raise InvalidCursorError("Invalid cursor.") from exc
    if not isinstance(value, dict):
        raise InvalidCursorError("Invalid cursor.")
    return value


def cursor_number(position: dict[str, Any], key: str, *, at_most: int) -> int:
    """A non-negative integer of a cursor, no larger than `at_most`."""
    value = position.get(key)
    if type(value) is not int or not 0 <= value <= min(at_most, MAX_CURSOR_NUMBER):
        raise InvalidCursorError("Invalid cursor.")
    return value


def session_listing_key(owner: str, position: dict[str, Any]) -> Item:
    """The by-owner index key a session listing's cursor names: its `k` is the last session's index
    sort key (<updatedAt>#<session id>); anything else was not issued here (InvalidCursorError, never
    a key DynamoDB would refuse)."""
    key = position.get("k")
    if set(position) != {"k"} or not isinstance(key, str) or len(key) > 200:
        raise InvalidCursorError("Invalid cursor.")
    updated_at, _, session_id = key.rpartition("#")
    if not updated_at or not session_id:
        raise InvalidCursorError("Invalid cursor.")
    return {"pk": s(session_pk(session_id)), "sk": s("META"), "gsi1pk": s(f"O#{owner}"), "gsi1sk": s(key)}


# -- history ----------------------------------------------------------------------------------


def pack(data: str) -> bytes:
    """Text compressed as the table stores it (a message's bucket item and slot, a commit's verdicts)."""
    return zlib.compress(data.encode("utf-8"), 6)


def unpack(packed: bytes) -> str:
    """Text `pack` compressed."""
    return zlib.decompress(packed).decode("utf-8")


def message_item(session_id: str, index: int, data: str, packed: bytes) -> Item:
    """One stored message, its JSON compressed (`z`, `pack(data)`: DynamoDB bills a write by the
    item's size). The limit every backend keeps is the record's own size, so it is checked on the JSON."""
    check_size({"pk": s(bucket_pk(session_id, index)), "data": s(data)}, f"Message {index}")
    return {"pk": s(bucket_pk(session_id, index)), "sk": s(message_sk(index)), "z": {"B": packed}}


def message_data(i: Item) -> str:
    """A message item's JSON: compressed (`z`), or as releases before this one stored it (`data`)."""
    if "z" in i:
        return unpack(i["z"]["B"])
    return str(i["data"]["S"])


def verdict_item(session_id: str, response_index: int, call_id: str, data: str, now: str) -> Item:
    """One stored verdict on a call of the response at `response_index`."""
    return {
        "pk": s(bucket_pk(session_id, response_index)),
        "sk": s(verdict_sk(response_index, call_id)),
        "data": s(data),
        "createdAt": s(now),
    }


def verdicts_item(session_id: str, response_index: int, version: int, dumped: Mapping[str, str], now: str) -> Item:
    """The verdicts (call id → dumped verdict) one commit gave on calls of the response at
    `response_index`, packed in one attribute (`v`: a JSON object), as a commit's units are: DynamoDB
    bills by size either way, and one value is what a client and the store parse, not one a verdict."""
    return {
        "pk": s(bucket_pk(session_id, response_index)),
        "sk": s(verdicts_sk(response_index, version)),
        "v": s(to_json(dict(dumped))),
        "createdAt": s(now),
    }


def stored_verdicts(item: Item) -> dict[str, str]:
    """The dumped verdicts a verdict item holds, by call id in call-id order: a commit's (`verdicts_item`;
    a map of them, `verdicts`, before this release) or a single one (`verdict_item`)."""
    if "v" in item:
        return dict(sorted(json.loads(item["v"]["S"]).items()))
    if "verdicts" in item:
        return {c: v["S"] for c, v in sorted(item["verdicts"]["M"].items())}
    return {item["sk"]["S"][len(verdict_sk(0, "")) :]: item["data"]["S"]}


def buckets(start: int, end: int) -> range:
    """The buckets that hold history indexes `[start, end)`."""
    return range(start // BUCKET, (end - 1) // BUCKET + 1) if end > start else range(0)


def snapshot(
    session_id: str,
    meta: SessionRecord,
    files: Sequence[FileState],
    messages: Sequence[ModelMessage],
    first: int,
    latest: tuple[int, Sequence[str]],
    previous: tuple[int, Sequence[str]],
) -> SessionSnapshot:
    """A step's snapshot from META, the files (in upload order), the window from index `first`, and the stored
    verdicts (dumped) on the latest response and the one before it, each with its index."""
    verdicts = [load_verdict(v) for v in latest[1]]
    before = [load_verdict(v) for v in previous[1]]
    token = StepToken(
        session_id=session_id,
        owner=meta.owner,
        version=meta.version,
        created_at=meta.created_at,
        message_count=meta.message_count,
        hidden_messages=meta.hidden_messages,
        response_index=latest[0],
        verdict_ids=frozenset(v.tool.call_id for v in verdicts),
        previous_response_index=previous[0],
        covered={f.file_id: f.covered for f in files},
    )
    return SessionSnapshot(
        token=token,
        window=list(messages),
        window_complete=first == 0,
        user_inputs=meta.user_inputs,
        queued_inputs=meta.queued_inputs,
        copilot_responses=verdicts,
        previous_verdicts=before,
        files=files,
    )


def verdict_position(cursor: str | None, message_count: int) -> tuple[int, str]:
    """A verdict listing's cursor: the (response index, call id) listed last; (0, "") for none."""
    if not cursor:
        return 0, ""
    position = decode_cursor(cursor)
    call_id = position.get("c")
    if set(position) != {"r", "c"} or not isinstance(call_id, str) or not 0 < len(call_id) <= 1000:
        raise InvalidCursorError("Invalid cursor.")
    return cursor_number(position, "r", at_most=message_count), call_id


def verdict_response(item: Item) -> int:
    """The response index of a verdict item (its sort key's R#<response:010>#…)."""
    return int(item["sk"]["S"][2:12])


# -- answers ----------------------------------------------------------------------------------


def answer_item(a: StoredAnswer) -> Item:
    """A kept answer, in its own partition (DynamoDB's TTL removes it after `expiresAt`)."""
    return {
        "pk": s(f"I#{answer_digest(a.owner, a.key)}"),
        "sk": s("IDEMPOTENCY"),
        "requestHash": s(a.request_hash),
        "body": s(a.body),
        "expiresAt": n(a.expires_at),
    }


def answer_marker(session_id: str, a: StoredAnswer) -> Item:
    """An item in the session's partition naming its answer, so deleting the session deletes it."""
    return {
        "pk": s(session_pk(session_id)),
        "sk": s(f"A#{answer_digest(a.owner, a.key)}"),
        "expiresAt": n(a.expires_at),
    }


def stored_answer(owner: str, key: str, i: Item) -> StoredAnswer:
    """An answer item back."""
    return StoredAnswer(
        owner=owner,
        key=key,
        request_hash=i["requestHash"]["S"],
        body=i["body"]["S"],
        expires_at=int(i["expiresAt"]["N"]),
    )


# -- the owner's memory -----------------------------------------------------------------------


def correction_item(session_id: str, owner: str, c: Correction, now: str, order: int) -> Item:
    """A correction in the owner's partition; `order` keeps one step's corrections in sequence."""
    return {
        "pk": s(f"O#{owner}"),
        "sk": s(f"K#{now}#{order:04d}{secrets.token_hex(4)}"),
        "sessionId": s(session_id),
        "fileId": s(c.file_id),
        "status": s(c.status),
        "source": s(c.source),
        "proposal": s(c.proposal),
        "final": _opt(c.final),
        "reason": _opt(c.reason),
        "createdAt": s(now),
    }


def correction(i: Item) -> Correction:
    """A correction item back (items written before `createdAt` existed carry it in their key)."""
    created_at = i["createdAt"]["S"] if "createdAt" in i else i["sk"]["S"].split("#", 2)[1]
    return Correction(
        file_id=i["fileId"]["S"],
        status=i["status"]["S"],
        source=i["source"]["S"],
        proposal=i["proposal"]["S"],
        final=_get_opt(i, "final"),
        reason=_get_opt(i, "reason"),
        session_id=i["sessionId"]["S"],
        created_at=created_at,
    )


def memory_item(r: MemoryEntryRecord) -> Item:
    """A memory entry (no gsi1pk: the by-owner index lists sessions only)."""
    return {
        "pk": s(f"O#{r.owner}"),
        "sk": s(f"P#{r.entry_id}"),
        "kind": s(r.kind),
        "source": s(r.source),
        "text": s(r.text),
        "languages": s(r.languages),
        "origin": s(r.origin),
        "createdAt": s(r.created_at),
        "updatedAt": s(r.updated_at),
    }


def memory_entry(i: Item) -> MemoryEntryRecord:
    """A memory item back."""
    return MemoryEntryRecord(
        entry_id=i["sk"]["S"][2:],
        owner=i["pk"]["S"][2:],
        kind=i["kind"]["S"],
        source=i["source"]["S"],
        text=i["text"]["S"],
        languages=i["languages"]["S"],
        origin=i["origin"]["S"],
        created_at=i["createdAt"]["S"],
        updated_at=i["updatedAt"]["S"],
    )


def memory_counter_key(owner: str, kind: str) -> Item:
    """The key of the item counting the owner's entries of one kind."""
    return {"pk": s(f"O#{owner}"), "sk": s(f"N#{kind}")}


def memory_version_key(owner: str) -> Item:
    """The key of the item whose `changes` count every write that changes what a step reads of the
    owner's memory (its entries and corrections): the translation memory's counter (N#tm)."""
    return memory_counter_key(owner, "tm")


def memory_changed(owner: str) -> Item:
    """The Update that counts one change of the owner's memory (`memory_version_key`)."""
    return update(memory_version_key(owner), "ADD changes :one", {":one": n(1)}, None, "")[0]


def memory_changes(item: Item | None) -> int:
    """The count of the owner's memory changes on its version item (0: none, or not read)."""
    return int((item or {}).get("changes", {"N": "0"})["N"])
