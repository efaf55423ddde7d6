"""What DynamoDB requests a benchmark's steps make, counted at a boto3 client: requests, bytes and
write units (as DynamoDB bills writes), per step. Used by bench/step_cost.py for both designs.

A request's body is kept as it is sent and sized into write units at `mark` (after the step), so
that the metering is not timed as either design's work."""

from __future__ import annotations

import base64
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from storage.dynamodb_items import item_size


@dataclass
class DynamoCounter:
    """Counts DynamoDB requests, bytes (request and response bodies) and write units per step."""

    requests: int = 0
    bytes: int = 0
    write_units: int = 0
    per_step: list[tuple[int, int]] = field(default_factory=list)
    units_per_step: list[int] = field(default_factory=list)
    """Write units per step, as DynamoDB bills them by item size (see `write_units`)."""
    operations: Counter[str] = field(default_factory=Counter)
    """Requests by operation over the whole run (steps and setup)."""
    _bodies: list[tuple[str, bytes]] = field(default_factory=list)
    """The write requests sent since the last mark, to size at the next (operation, body)."""

    def attach(self, client: Any) -> None:
        client.meta.events.register("before-send.dynamodb.*", self._sent)
        client.meta.events.register("after-call.dynamodb.*", self._received)

    def _sent(self, request: Any, event_name: str = "", **_: Any) -> None:
        operation = event_name.rsplit(".", 1)[-1]
        self.operations[operation] += 1
        self.requests += 1
        self.bytes += len(request.body or b"")
        if operation in WRITES:
            self._bodies.append((operation, request.body or b"{}"))

    def _received(self, http_response: Any, **_: Any) -> None:
        self.bytes += len(http_response.content or b"")

    def mark(self) -> None:
        """One step's figures end here."""
        self.write_units += sum(write_units(operation, json.loads(body)) for operation, body in self._bodies)
        self._bodies.clear()
        self.per_step.append((self.requests, self.bytes))
        self.units_per_step.append(self.write_units)
        self.reset()

    def reset(self) -> None:
        """What was counted since the last mark is not a step's (setup: the table, the upload)."""
        self.requests = self.bytes = self.write_units = 0
        self._bodies.clear()


WRITES = frozenset({"TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"})
"""The operations that cost write units (`write_units` counts nothing for the others)."""


def write_units(operation: str, body: dict[str, Any]) -> int:
    """The write units a request costs on DynamoDB, by the size of what it writes: 1 per KB of each
    item, 2 in a transaction, and 1 per KB of a put item's copy in the table's index (one that carries
    the index's keys); an update or delete counted by what the request carries (a lower bound:
    DynamoDB bills it by the item's size, and an update's or delete's index copy is not counted)."""

    def units(written: dict[str, Any]) -> int:
        return max(1, -(-_wire_size(written) // 1024))

    def indexed(item: dict[str, Any] | None) -> int:
        return units(item) if item and "gsi1pk" in item else 0

    if operation == "TransactWriteItems":
        total = 0
        for action in body.get("TransactItems", []):
            (kind, op), *_ = action.items()
            written = op.get("Item") or {**op.get("Key", {}), **op.get("ExpressionAttributeValues", {})}
            total += 2 * units(written) + indexed(op.get("Item")) if kind != "ConditionCheck" else 0
        return total
    if operation == "PutItem":
        return units(body["Item"]) + indexed(body["Item"])
    if operation in ("UpdateItem", "DeleteItem"):
        return units({**body["Key"], **body.get("ExpressionAttributeValues", {})})
    if operation == "BatchWriteItem":
        requests = [r for rs in body.get("RequestItems", {}).values() for r in rs]
        return sum(units(r["PutRequest"]["Item"]) if "PutRequest" in r else 1 for r in requests)
    return 0


def _wire_size(item: dict[str, Any]) -> int:
    """An item's size as DynamoDB counts it (storage.dynamodb_items.item_size), from its JSON on the
    wire, where binary values are base64."""

    def typed(v: dict[str, Any]) -> dict[str, Any]:
        (kind, x), *_ = v.items()
        if kind == "B":
            return {"B": base64.b64decode(x)}
        if kind == "M":
            return {"M": {k: typed(e) for k, e in x.items()}}
        if kind == "L":
            return {"L": [typed(e) for e in x]}
        return v

    return item_size({name: typed(v) for name, v in item.items()})
