"""The DynamoDB table as the backend's modules use it: the client, the calls with their retries and
paging, and botocore's errors turned into the project's own (nothing of botocore leaves here)."""

from __future__ import annotations

import contextvars
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

from agent_core.errors import TooLargeError

from . import deadline
from . import dynamodb_items as di
from .dynamodb_items import Item
from .errors import StorageUnavailableError

INDEX = "by-owner"
"""The table's one index (template.yaml): an owner's sessions, newest first."""

CLIENT_CONFIG: dict[str, Any] = {
    "connect_timeout": 2,
    "read_timeout": 5,
    "retries": {"mode": "standard", "total_max_attempts": 3},
}
"""botocore's settings for every DynamoDB client: a call DynamoDB does not answer is given up in
seconds (botocore's defaults, a 60 s read timeout and legacy retries, outlast the 29 s an invocation
has); three attempts of at most 7 s fit an invocation with the model's answer before them, and each
attempt first checks the time the request has left (storage.deadline)."""


@lru_cache(maxsize=4)
def dynamodb_client(endpoint_url: str | None = None) -> Any:
    """A boto3 DynamoDB client with CLIENT_CONFIG, created on first use and reused across warm invocations."""
    import boto3
    from botocore.config import Config

    return boto3.client("dynamodb", endpoint_url=endpoint_url, config=Config(**CLIENT_CONFIG))


_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="dynamodb")
"""Runs the reads a step makes side by side (boto3's clients are safe to share between threads)."""


def parallel(*calls: Callable[[], Any]) -> list[Any]:
    """The calls' results, made at the same time (the first in this thread), each in a copy of this
    context (so each honours the request's deadline, storage.deadline); the first error is raised."""
    futures = [_POOL.submit(contextvars.copy_context().run, call) for call in calls[1:]]
    first = calls[0]()
    return [first, *(f.result() for f in futures)]


class DynamoDBTable:
    """One table through an injected boto3 client: the primitives the backend's operations share."""

    def __init__(self, boto3_client: Any, *, table_name: str) -> None:
        self.client = boto3_client
        self.table = table_name
        # Every attempt of every call (a retry too) first checks the request's deadline (storage.deadline).
        boto3_client.meta.events.register_first("before-send.dynamodb", deadline.check, unique_id="storage-deadline")

    def _transact(self, actions: list[Item], *, retries: int = 0) -> None:
        """TransactWriteItems; one cancelled only by contention is retried `retries` times."""
        for attempt in range(retries + 1):
            try:
                with errors():
                    self.client.transact_write_items(TransactItems=[_to(self.table, action) for action in actions])
                return
            except di.Contended:
                if attempt == retries:
                    raise
                time.sleep(random.uniform(0.005, 0.02) * (attempt + 1))

    def _get(self, key: Item) -> Item | None:
        with errors():
            item: Item | None = self.client.get_item(TableName=self.table, Key=key, ConsistentRead=True).get("Item")
        return item

    def _query_page(self, pk: str, sk_condition: str, values: Item, **extra: Any) -> tuple[list[Item], Item | None]:
        """One page of a consistent Query of partition `pk` narrowed by `sk_condition`, and the key to
        go on from (None on the last page)."""
        args = {
            "ConsistentRead": True,
            "KeyConditionExpression": f"pk = :p AND {sk_condition}",
            "ExpressionAttributeValues": {":p": {"S": pk}, **values},
        }
        with errors():
            page = self.client.query(TableName=self.table, **args, **extra)
        return page["Items"], page.get("LastEvaluatedKey")

    def _query(self, pk: str, sk_condition: str, values: Item, **extra: Any) -> Iterator[Item]:
        """Every item of the partition `pk` matching `sk_condition`, page after page."""
        items, after = self._query_page(pk, sk_condition, values, **extra)
        return self._read_on(items, after, pk, sk_condition, values, **extra)

    def _read_on(
        self, items: list[Item], after: Item | None, pk: str, sk_condition: str, values: Item, **extra: Any
    ) -> Iterator[Item]:
        """A page's items, then the pages after it, each read only when the iteration reaches it."""
        yield from items
        while after is not None:
            items, after = self._query_page(pk, sk_condition, values, **extra, ExclusiveStartKey=after)
            yield from items

    def _batch_get(self, keys: Sequence[Item], *, attributes: Sequence[str] = ()) -> list[Item]:
        """The items that exist of these (distinct) keys, consistently read, 100 keys a request; only
        their `attributes` if some are named."""
        found: list[Item] = []
        projected: dict[str, Any] = {}
        if attributes:
            names = {f"#a{k}": name for k, name in enumerate(attributes)}
            projected = {"ProjectionExpression": ", ".join(names), "ExpressionAttributeNames": names}
        for i in range(0, len(keys), 100):
            request = {"Keys": list(keys[i : i + 100]), "ConsistentRead": True, **projected}
            pending: Mapping[str, Any] = {self.table: request}
            for attempt in range(8):
                with errors():
                    reply = self.client.batch_get_item(RequestItems=pending)
                found += reply.get("Responses", {}).get(self.table, [])
                if not (pending := reply.get("UnprocessedKeys") or {}):
                    break
                time.sleep(0.05 * 2**attempt)
            else:
                raise StorageUnavailableError("DynamoDB kept throttling a batch read; try again.", retry_after=2)
        return found

    def _batch_write(self, requests: list[Item]) -> None:
        for i in range(0, len(requests), 25):
            pending: Mapping[str, Any] = {self.table: requests[i : i + 25]}
            for attempt in range(8):
                with errors():
                    pending = self.client.batch_write_item(RequestItems=pending).get("UnprocessedItems") or {}
                if not pending:
                    break
                time.sleep(0.05 * 2**attempt)
            else:
                raise StorageUnavailableError("DynamoDB kept throttling a batch write; try again.", retry_after=2)


def _to(table: str, action: Item) -> Item:
    """A transaction's action (a Put or an Update: template.yaml grants each) addressed to `table`."""
    ((kind, body),) = action.items()
    return {kind: {"TableName": table, **body}}


@contextmanager
def errors() -> Iterator[None]:
    """botocore's errors become the project's own; nothing of botocore leaves this module."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        yield
    except ClientError as exc:
        error = exc.response.get("Error", {})
        code, message = error.get("Code", ""), str(error.get("Message", ""))
        if code == "ConditionalCheckFailedException":
            raise di.Refused(["ConditionalCheckFailed"]) from exc
        if code == "TransactionCanceledException":
            reasons = exc.response.get("CancellationReasons", [])
            codes = [str(r.get("Code", "None")) for r in reasons]
            if "ConditionalCheckFailed" in codes:
                raise di.Refused(codes) from exc
            if "TransactionConflict" in codes:
                raise di.Contended("The session changed concurrently; reload it and try again.") from exc
            message = " ".join(str(r.get("Message", "")) for r in reasons)
        if code == "TransactionConflictException":
            raise di.Contended("The session changed concurrently; reload it and try again.") from exc
        if code in ("ValidationException", "TransactionCanceledException") and "size" in message.lower():
            raise TooLargeError(
                "What this request would store exceeds the store's size limits; send shorter text."
            ) from exc
        if code in ("ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"):
            raise StorageUnavailableError("The session store is busy; try again shortly.", retry_after=1) from exc
        raise StorageUnavailableError(f"The session store failed ({code or 'error'}); try again.") from exc
    except BotoCoreError as exc:
        raise StorageUnavailableError(f"The session store is unreachable ({type(exc).__name__}).") from exc
