"""The capacity units DynamoDB bills for a request, computed from item sizes and DynamoDB's rounding
rules, for a benchmark that watches a boto3 client (bench/dynamo_meter.py).

moto answers `ReturnConsumedCapacity` with fixed figures (0.5 for any GetItem, 1 for any PutItem,
UpdateItem or Query, one per key of a BatchGetItem, nothing for TransactWriteItems), whatever the
items' sizes, so the meter computes what DynamoDB would bill instead:

- writes: 1 unit per started KB of the larger of the item before and after the write (a put's or
  update's, and a failed condition's too), at least 1; twice that in `TransactWriteItems`, where a
  `ConditionCheck` counts as a write of the item it checks; plus the table's global secondary index:
  1 unit per KB of the index entry put, and of the one deleted when the write removes the item from
  the index or changes its index key (the index's entry is the whole item: every index of the
  project's table projects ALL);
- reads: 1 unit per started 4 KB of a strongly consistent read, half of it eventually consistent
  (every index read is); per item for GetItem and BatchGetItem (at least 1 each, found or not), on
  the sum of the items a Query or Scan examines (before its filter, all their attributes, whatever
  its projection), at least 1; twice per item in `TransactGetItems`.

What a request reads and writes is sized by reading the items through a second boto3 client (the
`Sizer`), which the meter does not watch: the items before a write (before it is sent), after it,
and a read again without its projection or filter.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

Item = dict[str, Any]
"""An item as boto3's low-level client takes and gives it: `{"name": {"S": "..."}}`."""

WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
READS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"})


def item_size(item: Item | None) -> int:
    """An item's size as DynamoDB counts it: attribute names plus values (0 for no item)."""
    return sum(len(name.encode()) + _value_size(value) for name, value in (item or {}).items())


def _value_size(value: dict[str, Any]) -> int:
    (kind, x), *_ = value.items()
    if kind == "S":
        return len(x.encode())
    if kind == "B":
        return len(x)
    if kind == "N":
        digits = x.lstrip("-").replace(".", "").strip("0") or "0"
        return 1 + math.ceil(len(digits) / 2)
    if kind in ("SS", "NS", "BS"):
        return sum(_value_size({kind[0]: v}) for v in x)
    if kind == "L":
        return 3 + sum(1 + _value_size(v) for v in x)
    if kind == "M":
        return 3 + sum(len(k.encode()) + 1 + _value_size(v) for k, v in x.items())
    return 1  # NULL, BOOL


def write_units(before: Item | None, after: Item | None) -> int:
    """A plain write's units: the larger image, per started KB, at least 1."""
    return max(1, math.ceil(max(item_size(before), item_size(after)) / 1024))


def read_units(size: int, *, consistent: bool) -> float:
    """A read's units: per started 4 KB, at least 1; half for an eventually consistent read."""
    units = max(1, math.ceil(size / 4096))
    return float(units) if consistent else units / 2


@dataclass(frozen=True)
class Table:
    """What sizing needs of a table: its key and its global secondary indexes' keys."""

    key: tuple[str, ...]
    indexes: dict[str, tuple[str, ...]]

    def primary(self, item: Item) -> Item:
        return {name: item[name] for name in self.key}

    def index_writes(self, before: Item | None, after: Item | None) -> int:
        """Units the indexes cost for a write turning `before` into `after` (None: no item)."""
        total = 0
        for key in self.indexes.values():
            old = _index_key(before, key)
            new = _index_key(after, key)
            if old is not None and old != new:
                total += write_units(before, None)  # the old entry is deleted
            if new is not None and (old != new or before != after):
                total += write_units(after, None)  # the new one is put
        return total


def _index_key(item: Item | None, key: tuple[str, ...]) -> tuple[str, ...] | None:
    if item is None or any(name not in item for name in key):
        return None  # the item is not in that (sparse) index
    return tuple(repr(item[name]) for name in key)


class Sizer:
    """Reads, through a client nobody meters, what a request reads and writes, to size it."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self._tables: dict[str, Table] = {}

    def table(self, name: str) -> Table:
        if name not in self._tables:
            described = self.client.describe_table(TableName=name)["Table"]
            indexes = {
                index["IndexName"]: tuple(k["AttributeName"] for k in index["KeySchema"])
                for index in described.get("GlobalSecondaryIndexes", [])
            }
            self._tables[name] = Table(tuple(k["AttributeName"] for k in described["KeySchema"]), indexes)
        return self._tables[name]

    def get(self, table: str, key: Item) -> Item | None:
        found: Item | None = self.client.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return found

    def targets(self, operation: str, params: dict[str, Any]) -> list[tuple[str, Item, Item | None, int]]:
        """The items a write touches: (table, key, the item as the request puts it or None, multiplier)."""
        if operation == "PutItem":
            return [(params["TableName"], self.table(params["TableName"]).primary(params["Item"]), params["Item"], 1)]
        if operation in ("UpdateItem", "DeleteItem"):
            return [(params["TableName"], params["Key"], None, 1)]
        found: list[tuple[str, Item, Item | None, int]] = []
        if operation == "TransactWriteItems":
            for action in params["TransactItems"]:
                (_, op), *_ = action.items()
                key = self.table(op["TableName"]).primary(op["Item"]) if "Item" in op else op["Key"]
                found.append((op["TableName"], key, op.get("Item"), 2))
        elif operation == "BatchWriteItem":
            for name, requests in params["RequestItems"].items():
                for request in requests:
                    if "PutRequest" in request:
                        put = request["PutRequest"]["Item"]
                        found.append((name, self.table(name).primary(put), put, 1))
                    else:
                        found.append((name, request["DeleteRequest"]["Key"], None, 1))
        return found

    def before_write(self, operation: str, params: dict[str, Any]) -> list[Item | None]:
        """The items a write is about to change, as they stand."""
        return [self.get(table, key) for table, key, _, _ in self.targets(operation, params)]

    def written(self, operation: str, params: dict[str, Any], before: list[Item | None]) -> int:
        """The write units of a write whose items stood as `before` (read again now for what it left)."""
        total = 0
        for (table, key, _, times), old in zip(self.targets(operation, params), before, strict=True):
            new = self.get(table, key)
            total += times * write_units(old, new) + self.table(table).index_writes(old, new)
        return total

    def read(self, operation: str, params: dict[str, Any], parsed: dict[str, Any]) -> float:
        """The read units of a read that answered `parsed`."""
        if operation == "GetItem":
            item = self.get(params["TableName"], params["Key"])
            return read_units(item_size(item), consistent=bool(params.get("ConsistentRead")))
        if operation == "BatchGetItem":
            total = 0.0
            for name, request in params["RequestItems"].items():
                consistent = bool(request.get("ConsistentRead"))
                total += sum(read_units(item_size(self.get(name, k)), consistent=consistent) for k in request["Keys"])
            return total
        if operation == "TransactGetItems":
            gets = [action["Get"] for action in params["TransactItems"]]
            return sum(2 * read_units(item_size(self.get(g["TableName"], g["Key"])), consistent=True) for g in gets)
        if operation in ("Query", "Scan"):
            read = self.client.query if operation == "Query" else self.client.scan
            examined = read(**_unprojected(params))["Items"]
            consistent = bool(params.get("ConsistentRead")) and "IndexName" not in params
            return read_units(sum(item_size(i) for i in examined), consistent=consistent)
        return 0.0


_KEPT = ("TableName", "IndexName", "KeyConditionExpression", "ExclusiveStartKey", "Limit", "ScanIndexForward")
_KEPT_SCAN = ("Segment", "TotalSegments")


def _unprojected(params: dict[str, Any]) -> dict[str, Any]:
    """A Query's or Scan's parameters without its projection and filter: the items it examines, whole.

    Its `Limit` counts examined items (before the filter), so the same page is read."""
    kept = {k: params[k] for k in _KEPT + _KEPT_SCAN if k in params}
    condition = params.get("KeyConditionExpression", "")
    names = {k: v for k, v in params.get("ExpressionAttributeNames", {}).items() if _used(k, condition)}
    values = {k: v for k, v in params.get("ExpressionAttributeValues", {}).items() if _used(k, condition)}
    if names:
        kept["ExpressionAttributeNames"] = names
    if values:
        kept["ExpressionAttributeValues"] = values
    return kept


def _used(placeholder: str, expression: str) -> bool:
    """Whether `#name` or `:value` stands in the expression (`:v1` is not in `:v10`)."""
    return re.search(re.escape(placeholder) + r"(?!\w)", expression) is not None
