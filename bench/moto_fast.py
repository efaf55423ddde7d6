"""A speed-up of moto's DynamoDB for benchmarks and for the one long end-to-end run that needs it.

Two things in moto cost time proportional to everything stored so far, where DynamoDB itself does
nothing of the kind:

- TransactWriteItems rolls back by deep-copying the whole table before every transaction. The patch
  snapshots only the items a transaction touches and restores just those when it is cancelled.
- Query sorts every item of the table and then keeps one partition, and sizes every item of it
  before it looks at the sort key. The patch hands moto's query only the queried partition's items
  whose sort key meets the condition (for an index, the items whose index key is the one queried,
  found in one plain pass); moto still checks, filters, sorts, pages and projects them itself.

Patched queries take one lock (the partition is handed over on the shared table object), so a
step's two reads, which run at the same time against DynamoDB, run one after the other here: moto
is in-process Python under one interpreter lock anyway, and the ms per step show no gain from it.

Conditions, cancellation reasons, results and pagination are moto's own, so the benchmark measures
the handler rather than the mock's table size. `bench/step_cost.py --exact-moto` runs without it.
Tests use exact moto, except tests/test_end_to_end.py's long DynamoDB run, inside `patched()`
(undone after it), where only the mock's own cost would grow with the table.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import threading
from collections.abc import Iterator
from typing import Any

import moto.dynamodb.models as models


def install() -> None:
    """Patch moto's transactions and table queries for this process."""
    _install_transactions()
    _install_partition_query()


@contextlib.contextmanager
def patched() -> Iterator[None]:
    """The same patches, undone on exit (for one test among exact-moto ones)."""
    saved = (models.Table.query, models.DynamoDBBackend.transact_write_items)
    install()
    try:
        yield
    finally:
        models.Table.query, models.DynamoDBBackend.transact_write_items = saved  # type: ignore[method-assign]


_QUERYING = threading.RLock()


def _install_partition_query() -> None:
    original = models.Table.query
    signature = inspect.signature(original)

    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        with _QUERYING:  # a step's reads run in threads at once; the override below is the table's
            return _partition_query(self, hash_key, *args, **kwargs)

    def _partition_query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        arguments = signature.bind(self, hash_key, *args, **kwargs).arguments
        index_name = arguments.get("index_name")
        if hash_key is None or not self.range_key_attr:
            return original(self, hash_key, *args, **kwargs)
        if index_name:  # the index's partition: the items whose index hash key is the one queried
            conditions = arguments.get("hash_key_conditions") or []
            if len(conditions) != 1:
                return original(self, hash_key, *args, **kwargs)
            attr, value = conditions[0]
            items = [i for p in self.items.values() for i in p.values() if attr in i.attrs and i.attrs[attr] == value]
            self.all_items = lambda: items
        else:  # the partition's items, and of those only the ones the sort key condition keeps
            items = list(self.items.get(hash_key, {}).values())
            comparison, operands = arguments.get("range_comparison"), arguments.get("range_objs")
            if comparison:
                items = [i for i in items if i.range_key is not None and i.range_key.compare(comparison, operands)]
            self.all_items = lambda: items
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            del self.all_items

    models.Table.query = query  # type: ignore[method-assign]


def _install_transactions() -> None:
    original = models.DynamoDBBackend.transact_write_items

    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> None:
        saved: list[tuple[str, dict[str, Any], Any]] = []
        for entry in transact_items:
            _, op = next(iter(entry.items()))
            table = self.get_table(op["TableName"])
            if "Item" in op:
                key = {table.hash_key_attr: op["Item"][table.hash_key_attr]}
                if table.range_key_attr is not None:
                    key[table.range_key_attr] = op["Item"][table.range_key_attr]
            else:
                key = op["Key"]
            current = self.get_item(op["TableName"], key)
            saved.append((op["TableName"], key, current.to_json()["Attributes"] if current else None))
        real_deepcopy = models.copy.deepcopy
        models.copy.deepcopy = lambda value, *a, **k: value  # type: ignore[assignment]
        try:
            original(self, transact_items)
        except Exception:
            for table_name, key, attrs in saved:
                if attrs is None:
                    if self.get_item(table_name, key) is not None:
                        self.delete_item(table_name, key)
                else:
                    self.put_item(table_name, copy.deepcopy(attrs))
            raise
        finally:
            models.copy.deepcopy = real_deepcopy  # type: ignore[assignment]

    models.DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
