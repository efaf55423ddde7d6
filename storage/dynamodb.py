"""DynamoDBSessionStorage: one table, one item per message, verdict, unit and file chunk.

Layout (pk / sk; template.yaml declares the table and its `by-owner` index):

    S#<session>                  META                      the session: owner, times, counters, version
    S#<session>                  F#<file>                  a file: name, size, coverage
    S#<session>                  C#<file>#<n:05>           a chunk of the file's text (CHUNK_CHARS characters)
    S#<session>#B#<bucket:06>    M#<index:010>             one pydantic-ai message (JSON)
    S#<session>#B#<bucket:06>    R#<response:010>#<call>   a verdict on a call of the response at <response>
    S#<session>#U#<file>#<n:05>  <start:010>               a written unit (n = start // UNIT_SPAN)
    O#<owner>                    K#<time>#<id>             a correction for the owner's memory
    O#<owner>                    P#<entry>                 a glossary entry or style note of the owner's memory

No item grows with the session, and no partition either: messages and verdicts live in buckets of
BUCKET messages (bucket = index // BUCKET), units in spans of the source, so every query a step
makes reads a bounded partition however long the session (and DynamoDB spreads a long session's
items across partitions). A step commits in one TransactWriteItems whose conditions are
named below; the `by-owner` index (gsi1pk = O#<owner>, gsi1sk = <updatedAt>#<session>) lists an
owner's sessions newest first.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from .dynamodb_items import (
    BUCKET,
    UNIT_SPAN,
    Item,
    _bucket_pk,
    _correction,
    _correction_item,
    _decode_cursor,
    _decode_index,
    _encode_cursor,
    _file,
    _idem_pk,
    _memory_entry,
    _memory_item,
    _message,
    _n,
    _pk,
    _response,
    _s,
    _session,
    _session_item,
    _unit,
    _unit_item,
    _unit_pk,
)
from .errors import ConflictError, InvalidCursorError, NotFoundError, StorageUnavailableError
from .interface import CHUNK_CHARS, SessionStorageInterface, chunks
from .records import (
    CopilotResponseRecord,
    CorrectionRecord,
    FileRecord,
    IdempotencyRecord,
    MemoryEntryRecord,
    MessageRecord,
    Page,
    SessionRecord,
    StepWrite,
    UnitRecord,
)

INDEX = "by-owner"
MAX_TRANSACTION_ITEMS = 100

# Conditions, each named for why it is there:
# A new session must not overwrite an existing one (two "create" steps racing on one id).
IS_NEW = "attribute_not_exists(pk)"
# Optimistic concurrency: a step commits only over the version it loaded.
SAME_VERSION = "version = :expected"
# History is append-only: a message or unit is never overwritten (a replayed step fails whole).
NOT_WRITTEN = "attribute_not_exists(sk)"
# A file's coverage is updated only while the file (and so its session) still exists.
FILE_EXISTS = "attribute_exists(sk)"
# A file is added only to a session that exists.
SESSION_EXISTS = "attribute_exists(pk)"
# An Idempotency-Key's answer is written once; an expired one (TTL not yet swept) may be replaced.
KEY_FREE = "attribute_not_exists(pk) OR expiresAt < :now"


@lru_cache(maxsize=4)
def dynamodb_client(endpoint_url: str | None = None) -> Any:
    """A boto3 DynamoDB client, reused across warm invocations."""
    import boto3

    return boto3.client("dynamodb", endpoint_url=endpoint_url)


class DynamoDBSessionStorage(SessionStorageInterface):
    """Sessions in one DynamoDB table, through an injected boto3 client."""

    def __init__(self, boto3_client: Any, *, table_name: str) -> None:
        self.client = boto3_client
        self.table = table_name

    @classmethod
    def from_env(cls) -> DynamoDBSessionStorage:
        """The table `SESSIONS_TABLE`, through a cached client (`AWS_ENDPOINT_URL_DYNAMODB` works)."""
        table = os.environ.get("SESSIONS_TABLE")
        if not table:
            raise ValueError("STORAGE_BACKEND=dynamodb needs SESSIONS_TABLE, the table's name.")
        return cls(dynamodb_client(), table_name=table)

    # -- sessions --------------------------------------------------------------------------

    def get_session(self, session_id: str) -> SessionRecord:
        """The session's record."""
        with _errors():
            item = self.client.get_item(
                TableName=self.table, Key={"pk": _s(_pk(session_id)), "sk": _s("META")}, ConsistentRead=True
            ).get("Item")
        if item is None:
            raise NotFoundError(f"No session {session_id}.")
        return _session(item)

    def list_sessions(self, owner: str, *, cursor: str | None, limit: int) -> Page[SessionRecord]:
        """The owner's sessions, newest first (the by-owner index)."""
        args: dict[str, Any] = {
            "TableName": self.table,
            "IndexName": INDEX,
            "KeyConditionExpression": "gsi1pk = :o",
            "ExpressionAttributeValues": {":o": _s(f"O#{owner}")},
            "ScanIndexForward": False,
            "Limit": limit,
        }
        return self._page(args, cursor, "gsi1pk", f"O#{owner}", _session)

    def delete_session(self, session_id: str) -> None:
        """Delete every item of the session: buckets and units first, the record last."""
        try:
            record = self.get_session(session_id)
        except NotFoundError:
            return
        partitions = [_bucket_pk(session_id, i * BUCKET) for i in range(record.message_count // BUCKET + 1)]
        for f in self.list_files(session_id):
            partitions += [_unit_pk(session_id, f.file_id, n * UNIT_SPAN) for n in range(f.chars // UNIT_SPAN + 1)]
        partitions.append(_pk(session_id))
        for pk in partitions:
            args: dict[str, Any] = {
                "TableName": self.table,
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": _s(pk)},
                "ProjectionExpression": "pk, sk",
            }
            keys = [{"pk": item["pk"], "sk": item["sk"]} for item in self._query_all(args)]
            keys.sort(key=lambda k: k["sk"]["S"] == "META")  # the record goes last
            self._batch_write([{"DeleteRequest": {"Key": key}} for key in keys])

    def commit(self, write: StepWrite) -> None:
        """One TransactWriteItems, conditional on the session's version."""
        sid = write.session.session_id
        pk = _s(_pk(sid))
        record = _session_item(write.session)
        if write.expected_version == 0:
            meta: Item = {"Put": {"TableName": self.table, "Item": record, "ConditionExpression": IS_NEW}}
        else:
            meta = {
                "Put": {
                    "TableName": self.table,
                    "Item": record,
                    "ConditionExpression": SAME_VERSION,
                    "ExpressionAttributeValues": {":expected": _n(write.expected_version)},
                }
            }
        items: list[Item] = [meta]
        for m in write.messages:
            item = {"pk": _s(_bucket_pk(sid, m.index)), "sk": _s(f"M#{m.index:010d}"), "data": _s(m.data)}
            items.append(self._put(item, NOT_WRITTEN))
        for r in write.copilot_responses:
            items.append(
                self._put(
                    {
                        "pk": _s(_bucket_pk(sid, r.response_index)),
                        "sk": _s(f"R#{r.response_index:010d}#{r.call_id}"),
                        "data": _s(r.data),
                        "createdAt": _s(r.created_at),
                    }
                )
            )
        for u in write.units:
            items.append(self._put(_unit_item(sid, u), NOT_WRITTEN))
        for file_id, covered in write.coverage.items():
            items.append(
                {
                    "Update": {
                        "TableName": self.table,
                        "Key": {"pk": pk, "sk": _s(f"F#{file_id}")},
                        "UpdateExpression": "SET covered = :c",
                        "ConditionExpression": FILE_EXISTS,
                        "ExpressionAttributeValues": {":c": _s(json.dumps(covered))},
                    }
                }
            )
        for c in write.corrections:
            items.append(self._put(_correction_item(c)))
        if write.idempotency is not None:
            items.append(self._idempotency_put(write.idempotency, int(time.time())))
        if len(items) > MAX_TRANSACTION_ITEMS:
            raise StorageUnavailableError(f"A step may write at most {MAX_TRANSACTION_ITEMS} items.")
        with _errors():
            self.client.transact_write_items(TransactItems=items)

    def get_idempotency(self, owner: str, key: str, *, now: int) -> IdempotencyRecord | None:
        """The unexpired answer for the owner's key, if any."""
        with _errors():
            item = self.client.get_item(
                TableName=self.table, ConsistentRead=True, Key={"pk": _s(_idem_pk(owner, key)), "sk": _s("IDEMPOTENCY")}
            ).get("Item")
        if item is None or int(item["expiresAt"]["N"]) <= now:
            return None
        return IdempotencyRecord(
            owner=owner,
            key=key,
            request_hash=item["requestHash"]["S"],
            status=int(item["status"]["N"]),
            body=item["body"]["S"],
            created_at=item["createdAt"]["S"],
            expires_at=int(item["expiresAt"]["N"]),
        )

    def put_idempotency(self, record: IdempotencyRecord, *, now: int) -> None:
        """Remember an answer unless an unexpired one exists (ConflictError)."""
        with _errors():
            self.client.put_item(**self._idempotency_put(record, now)["Put"])

    def _idempotency_put(self, r: IdempotencyRecord, now: int) -> Item:
        item = {
            "pk": _s(_idem_pk(r.owner, r.key)),
            "sk": _s("IDEMPOTENCY"),
            "requestHash": _s(r.request_hash),
            "status": _n(r.status),
            "body": _s(r.body),
            "createdAt": _s(r.created_at),
            "expiresAt": _n(r.expires_at),
        }
        put = self._put(item, KEY_FREE)
        put["Put"]["ExpressionAttributeValues"] = {":now": _n(now)}
        return put

    def _put(self, item: Item, condition: str | None = None) -> Item:
        put: Item = {"TableName": self.table, "Item": item}
        if condition:
            put["ConditionExpression"] = condition
        return {"Put": put}

    # -- messages and verdicts ---------------------------------------------------------------

    def latest_messages(self, session_id: str, *, limit: int, count: int | None = None) -> list[MessageRecord]:
        """The last messages, oldest first: the record's count says which buckets hold them."""
        if count is None:
            count = self.get_session(session_id).message_count
        return self._messages(session_id, max(0, count - max(limit, 0)), count)

    def list_messages(self, session_id: str, *, cursor: str | None, limit: int) -> Page[MessageRecord]:
        """The messages, oldest first; the cursor is the index of the next one."""
        start = _decode_index(cursor)
        count = self.get_session(session_id).message_count
        end = min(count, start + max(limit, 0))
        return Page(self._messages(session_id, start, end), _encode_cursor({"i": end}) if end < count else None)

    def _messages(self, session_id: str, start: int, end: int) -> list[MessageRecord]:
        """Messages `[start, end)`, one query per bucket they span."""
        found: list[MessageRecord] = []
        for bucket in range(start // BUCKET, (end - 1) // BUCKET + 1 if end > start else start // BUCKET):
            first, last = max(start, bucket * BUCKET), min(end, (bucket + 1) * BUCKET) - 1
            args = {
                "TableName": self.table,
                "ConsistentRead": True,
                "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
                "ExpressionAttributeValues": {
                    ":p": _s(_bucket_pk(session_id, first)),
                    ":a": _s(f"M#{first:010d}"),
                    ":b": _s(f"M#{last:010d}"),
                },
            }
            found += [_message(i) for i in self._query_all(args)]
        return found

    def copilot_responses(self, session_id: str, *, response_index: int) -> list[CopilotResponseRecord]:
        """The verdicts on one response's calls (one bucket)."""
        args = {
            "TableName": self.table,
            "ConsistentRead": True,
            "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
            "ExpressionAttributeValues": {
                ":p": _s(_bucket_pk(session_id, response_index)),
                ":s": _s(f"R#{response_index:010d}#"),
            },
        }
        return [_response(i) for i in self._query_all(args)]

    def list_copilot_responses(self, session_id: str, *, cursor: str | None, limit: int) -> Page[CopilotResponseRecord]:
        """All verdicts, oldest first, bucket by bucket; the cursor names the bucket and the last key."""
        position = _decode_cursor(cursor) if cursor else {"b": 0}
        bucket, after = position.get("b"), position.get("k")
        if not isinstance(bucket, int) or not (after is None or isinstance(after, str)):
            raise InvalidCursorError("Invalid cursor.")
        last_bucket = self.get_session(session_id).message_count // BUCKET
        found: list[CopilotResponseRecord] = []
        while bucket <= last_bucket and len(found) < limit:
            args: dict[str, Any] = {
                "TableName": self.table,
                "ConsistentRead": True,
                "Limit": limit - len(found),
                "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
                "ExpressionAttributeValues": {":p": _s(_bucket_pk(session_id, bucket * BUCKET)), ":s": _s("R#")},
            }
            if after:
                args["ExclusiveStartKey"] = {"pk": _s(_bucket_pk(session_id, bucket * BUCKET)), "sk": _s(after)}
            with _errors():
                page = self.client.query(**args)
            found += [_response(i) for i in page["Items"]]
            if page.get("LastEvaluatedKey") and len(found) >= limit:
                after = page["LastEvaluatedKey"]["sk"]["S"]
                break
            bucket, after = bucket + 1, None
        more = bucket <= last_bucket and (after is not None or self._responses_from(session_id, bucket, last_bucket))
        return Page(found, _encode_cursor({"b": bucket, "k": after}) if more else None)

    def _responses_from(self, session_id: str, bucket: int, last_bucket: int) -> bool:
        """Whether any verdict is stored in buckets `bucket..last_bucket`."""
        for b in range(bucket, last_bucket + 1):
            args = {
                "TableName": self.table,
                "Limit": 1,
                "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
                "ExpressionAttributeValues": {":p": _s(_bucket_pk(session_id, b * BUCKET)), ":s": _s("R#")},
            }
            with _errors():
                if self.client.query(**args)["Items"]:
                    return True
        return False

    # -- files and units ---------------------------------------------------------------------

    def add_file(self, session_id: str, record: FileRecord, content: str) -> None:
        """Chunks first, then the file item (conditional on the session): a crash leaves no half file."""
        self.get_session(session_id)
        pk = _s(_pk(session_id))
        parts = chunks(content)
        self._batch_write(
            [
                {"PutRequest": {"Item": {"pk": pk, "sk": _s(f"C#{record.file_id}#{n:05d}"), "text": _s(text)}}}
                for n, text in enumerate(parts)
            ]
        )
        item = {
            "pk": pk,
            "sk": _s(f"F#{record.file_id}"),
            "name": _s(record.name),
            "chars": _n(record.chars),
            "covered": _s(json.dumps(record.covered)),
            "createdAt": _s(record.created_at),
            "chunks": _n(len(parts)),
        }
        with _errors():
            self.client.transact_write_items(
                TransactItems=[
                    {
                        "ConditionCheck": {
                            "TableName": self.table,
                            "Key": {"pk": pk, "sk": _s("META")},
                            "ConditionExpression": SESSION_EXISTS,
                        }
                    },
                    self._put(item),
                ]
            )

    def list_files(self, session_id: str) -> list[FileRecord]:
        """The files in upload order."""
        args = {**self._prefix(session_id, "F#"), "ConsistentRead": True}
        files = [_file(i) for i in self._query_all(args)]
        return sorted(files, key=lambda f: (f.created_at, f.file_id))

    def get_file(self, session_id: str, file_id: str) -> FileRecord:
        """One file."""
        with _errors():
            item = self.client.get_item(
                TableName=self.table, ConsistentRead=True, Key={"pk": _s(_pk(session_id)), "sk": _s(f"F#{file_id}")}
            ).get("Item")
        if item is None:
            raise NotFoundError(f"No file {file_id} in this session.")
        return _file(item)

    def read_file(self, session_id: str, file_id: str, start: int, end: int) -> str:
        """Only the chunks that hold `[start, end)`."""
        start, end = max(0, start), max(0, end)
        if end <= start:
            self.get_file(session_id, file_id)
            return ""
        first, last = start // CHUNK_CHARS, (end - 1) // CHUNK_CHARS
        texts: list[str] = []
        for n in range(first, last + 1):
            with _errors():
                item = self.client.get_item(
                    TableName=self.table,
                    ConsistentRead=True,
                    Key={"pk": _s(_pk(session_id)), "sk": _s(f"C#{file_id}#{n:05d}")},
                ).get("Item")
            if item is None:
                if n == first:
                    self.get_file(session_id, file_id)  # NotFound for an unknown file
                break
            texts.append(item["text"]["S"])
        offset = first * CHUNK_CHARS
        return "".join(texts)[start - offset : end - offset]

    def list_units(self, session_id: str, file_id: str) -> list[UnitRecord]:
        """The file's units by position, span by span."""
        chars = self.get_file(session_id, file_id).chars
        units: list[UnitRecord] = []
        for n in range(chars // UNIT_SPAN + 1):
            args = {
                "TableName": self.table,
                "ConsistentRead": True,
                "KeyConditionExpression": "pk = :p",
                "ExpressionAttributeValues": {":p": _s(_unit_pk(session_id, file_id, n * UNIT_SPAN))},
            }
            units += [_unit(i) for i in self._query_all(args)]
        return units

    def recent_corrections(self, owner: str, *, limit: int) -> list[CorrectionRecord]:
        """Newest first."""
        with _errors():
            items = self.client.query(
                TableName=self.table,
                KeyConditionExpression="pk = :p AND begins_with(sk, :k)",
                ExpressionAttributeValues={":p": _s(f"O#{owner}"), ":k": _s("K#")},
                ScanIndexForward=False,
                Limit=limit,
            )["Items"]
        return [_correction(i) for i in items]

    # -- the owner's memory --------------------------------------------------------------------

    def list_memory(self, owner: str) -> list[MemoryEntryRecord]:
        """The owner's glossary entries and style notes (one partition, bounded), oldest first."""
        args = {
            "TableName": self.table,
            "ConsistentRead": True,
            "KeyConditionExpression": "pk = :p AND begins_with(sk, :m)",
            "ExpressionAttributeValues": {":p": _s(f"O#{owner}"), ":m": _s("P#")},
        }
        entries = [_memory_entry(i) for i in self._query_all(args)]
        return sorted(entries, key=lambda e: (e.created_at, e.entry_id))

    def put_memory_entry(self, record: MemoryEntryRecord) -> None:
        """Add the entry, or replace the one with the same key (owner and id)."""
        with _errors():
            self.client.put_item(TableName=self.table, Item=_memory_item(record))

    def delete_memory_entry(self, owner: str, entry_id: str) -> None:
        """Delete the owner's entry; NotFoundError when there is none.

        A read, then a batch delete: the function's role (template.yaml) deletes items only through
        BatchWriteItem. Two deletes racing both succeed, which is what either caller asked for.
        """
        key = {"pk": _s(f"O#{owner}"), "sk": _s(f"P#{entry_id}")}
        with _errors():
            found = self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True).get("Item")
        if found is None:
            raise NotFoundError(f"No memory entry {entry_id}.")
        self._batch_write([{"DeleteRequest": {"Key": key}}])

    # -- helpers -----------------------------------------------------------------------------

    def _prefix(self, session_id: str, prefix: str) -> dict[str, Any]:
        return {
            "TableName": self.table,
            "KeyConditionExpression": "pk = :p AND begins_with(sk, :s)",
            "ExpressionAttributeValues": {":p": _s(_pk(session_id)), ":s": _s(prefix)},
        }

    def _query_all(self, args: dict[str, Any]) -> Iterator[Item]:
        key = None
        while True:
            with _errors():
                page = self.client.query(**args, **({"ExclusiveStartKey": key} if key else {}))
            yield from page["Items"]
            key = page.get("LastEvaluatedKey")
            if not key:
                return

    def _page(self, args: dict[str, Any], cursor: str | None, key_name: str, key_value: str, convert: Any) -> Page[Any]:
        if cursor:
            start = _decode_cursor(cursor)
            if start.get(key_name) != {"S": key_value}:
                raise InvalidCursorError("This cursor belongs to another listing.")
            args = {**args, "ExclusiveStartKey": start}
        with _errors():
            page = self.client.query(**args)
        last = page.get("LastEvaluatedKey")
        items = [convert(i) for i in page["Items"]]
        if last and len(items) == args["Limit"]:
            # DynamoDB may report a next key on an exactly full last page; look ahead once.
            with _errors():
                more = self.client.query(**{**args, "ExclusiveStartKey": last, "Limit": 1})["Items"]
            last = last if more else None
        return Page(items, _encode_cursor(last) if last else None)

    def _batch_write(self, requests: list[Item]) -> None:
        for i in range(0, len(requests), 25):
            pending: Mapping[str, Any] = {self.table: requests[i : i + 25]}
            for _ in range(8):
                with _errors():
                    pending = self.client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                if not pending:
                    break
            else:
                raise StorageUnavailableError("DynamoDB kept throttling a batch write; try again.", retry_after=2)


@contextmanager
def _errors() -> Iterator[None]:
    """botocore's errors become the project's own; nothing of botocore leaves this module."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code == "ConditionalCheckFailedException":
            raise ConflictError("The session changed concurrently; reload it and try again.") from exc
        if code == "TransactionCanceledException":
            reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", [])]
            if "ConditionalCheckFailed" in reasons or "TransactionConflict" in reasons:
                raise ConflictError("The session changed concurrently; reload it and try again.") from exc
        if code in ("ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"):
            raise StorageUnavailableError("The session store is busy; try again shortly.", retry_after=1) from exc
        raise StorageUnavailableError(f"The session store failed ({code or 'error'}); try again.") from exc
    except BotoCoreError as exc:
        raise StorageUnavailableError(f"The session store is unreachable ({type(exc).__name__}).") from exc
