"""A benchmark-only speed-up of moto's DynamoDB transactions (never used by tests).

moto makes TransactWriteItems roll back by deep-copying the whole table before every transaction,
so a mocked step costs time proportional to everything stored so far; DynamoDB itself does nothing
of the kind. To let the benchmark measure the handler rather than the mock's table size, this patch
snapshots only the items a transaction touches and restores just those when it is cancelled.
Conditions, cancellation reasons and results are moto's own. `bench/step_cost.py --exact-moto`
runs without it.
"""

from __future__ import annotations

import copy
from typing import Any

import moto.dynamodb.models as models


def install() -> None:
    """Patch moto's DynamoDBBackend.transact_write_items for this process."""
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
