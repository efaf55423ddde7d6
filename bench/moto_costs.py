"""What moto charges in milliseconds for the shapes of request a step makes, beside the naive design's.

moto is Python: it parses, validates and serialises every attribute value through botocore's
models, parses every condition and update expression, and copies what it updates, so its time
follows items, attributes and expressions where DynamoDB's follows bytes. This prints the median
milliseconds of each request shape (with `bench/moto_fast.py`, as `bench/step_cost.py` runs), so
the step's figures there can be read against them. A benchmark, not a test: it asserts nothing.

    .venv/bin/python bench/moto_costs.py            # 25 rounds of each shape
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")

import boto3  # noqa: E402
from moto import mock_aws  # noqa: E402

from bench import moto_fast  # noqa: E402
from tests.aws import create_sessions_table  # noqa: E402

TABLE = "costs"
TEXT = "Le client ferme la connexion après la réponse. " * 4
"""About a unit's text (190 characters)."""


def _unit(pk: str, start: int, *, packed: bool) -> dict[str, Any]:
    """An item the size of a stored unit: its fields as attributes of their own, or packed in one."""
    fields = {"fileId": "f_" + "0" * 32, "end": start + 190, "coverEnd": start + 191, "text": TEXT}
    fields |= {"callId": "call_000123", "status": "approve", "origin": "model", "updatedAt": "2026-12-01T00:00:00Z"}
    key = {"pk": {"S": pk}, "sk": {"S": f"{start:010d}"}}
    if packed:
        return key | {"u": {"S": json.dumps(fields)}}
    return key | {k: {"N": str(v)} if isinstance(v, int) else {"S": v} for k, v in fields.items()}


def _meta(pk: str, *, packed: bool = False) -> dict[str, Any]:
    """An item with META's count of attributes as releases before this one kept them (22), or packed
    as now (the fields in one attribute beside the version and the index keys: 6)."""
    counters = {f"counter{k}": {"N": str(k)} for k in range(14)}
    texts = {f"text{k}": {"S": "x" * 40} for k in range(5)}
    key = {"pk": {"S": pk}, "sk": {"S": "META"}, "version": {"N": "1"}}
    if packed:
        fields = {k: v.get("N") or v.get("S") for k, v in (counters | texts).items()}
        return key | {"gsi1pk": {"S": "O#x"}, "gsi1sk": {"S": "t#s"}, "state": {"S": json.dumps(fields)}}
    return key | counters | texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=25)
    args = parser.parse_args()
    moto_fast.install()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, TABLE)
        counter = iter(range(10**9))
        history = zlib.compress(json.dumps([{"parts": [{"content": TEXT}]}] * 60).encode())  # ~the naive item
        client.put_item(TableName=TABLE, Item={"pk": {"S": "N#naive"}, "sk": {"S": "S"}, "h": {"B": history}})
        client.put_item(TableName=TABLE, Item=_meta("S#read"))
        client.put_item(TableName=TABLE, Item=_meta("S#packed", packed=True))
        for k in range(16):
            slot = {"pk": {"S": "S#read"}, "sk": {"S": f"W#{k:02d}"}, "i": {"N": str(k)}, "d": {"B": b"x" * 2_000}}
            client.put_item(TableName=TABLE, Item=slot)

        def puts(count: int, *, packed: bool, condition: bool) -> Callable[[], Any]:
            def send() -> Any:
                actions = []
                for _ in range(count):
                    put: dict[str, Any] = {"TableName": TABLE, "Item": _unit("U#w", next(counter), packed=packed)}
                    if condition:
                        put["ConditionExpression"] = "attribute_not_exists(sk)"
                    actions.append({"Put": put})
                return client.transact_write_items(TransactItems=actions)

            return send

        def query(condition: str, sort_key: str, pk: str = "S#read") -> Callable[[], Any]:
            values = {":p": {"S": pk}, ":k": {"S": sort_key}}
            return lambda: client.query(
                TableName=TABLE, ConsistentRead=True, KeyConditionExpression=condition, ExpressionAttributeValues=values
            )

        meta_update = {
            "TableName": TABLE,
            "Key": {"pk": {"S": "S#read"}, "sk": {"S": "META"}},
            "UpdateExpression": "SET version = :v ADD " + ", ".join(f"counter{k} :one" for k in range(8)),
            "ExpressionAttributeValues": {":v": {"N": "2"}, ":one": {"N": "1"}},
        }
        versions = iter(range(2, 10**9))

        def meta_put() -> Any:
            version = next(versions)
            put = {
                "TableName": TABLE,
                "Item": _meta("S#put", packed=True) | {"version": {"N": str(version)}},
                "ConditionExpression": "attribute_not_exists(pk) OR version = :expected",
                "ExpressionAttributeValues": {":expected": {"N": str(version - 1)}},
            }
            return client.transact_write_items(TransactItems=[{"Put": put}])

        shapes: list[tuple[str, Callable[[], Any]]] = [
            (
                "naive: GetItem of the history item",
                lambda: client.get_item(
                    TableName=TABLE, Key={"pk": {"S": "N#naive"}, "sk": {"S": "S"}}, ConsistentRead=True
                ),
            ),
            (
                "naive: PutItem of the history item",
                lambda: client.put_item(
                    TableName=TABLE, Item={"pk": {"S": "N#naive"}, "sk": {"S": "S"}, "h": {"B": history}}
                ),
            ),
            ("Query returning META as releases before kept it (22 attributes)", query("pk = :p AND sk = :k", "META")),
            ("Query returning META packed, as now (6 attributes)", query("pk = :p AND sk = :k", "META", "S#packed")),
            ("Query returning META and 16 slots", query("pk = :p AND sk >= :k", "F#")),
            (
                "transaction: META's update (SET and 8 ADDs)",
                lambda: client.transact_write_items(TransactItems=[{"Update": meta_update}]),
            ),
            ("transaction: META put whole over its version (packed)", meta_put),
            ("transaction: 36 unit puts, 12 attributes, conditions", puts(36, packed=False, condition=True)),
            ("transaction: 36 unit puts, 3 attributes, conditions", puts(36, packed=True, condition=True)),
            ("transaction: 36 unit puts, 3 attributes, no conditions", puts(36, packed=True, condition=False)),
            (
                "transaction: 2 puts, each packing 18 units",
                lambda: client.transact_write_items(
                    TransactItems=[
                        {
                            "Put": {
                                "TableName": TABLE,
                                "Item": {
                                    "pk": {"S": "U#w"},
                                    "sk": {"S": f"B{next(counter):010d}"},
                                    "u": {"S": json.dumps([_unit("U#w", 0, packed=True)["u"]["S"]] * 18)},
                                },
                                "ConditionExpression": "attribute_not_exists(sk)",
                            }
                        }
                        for _ in range(2)
                    ]
                ),
            ),
        ]
        print(f"{'request shape (moto, bench/moto_fast.py patched in)':<68} {'ms, median':>10}")
        for name, send in shapes:
            send()  # the first call of a shape builds botocore's and moto's caches
            times = []
            for _ in range(args.rounds):
                started = time.perf_counter()
                send()
                times.append((time.perf_counter() - started) * 1000)
            print(f"{name:<68} {statistics.median(times):>10.2f}")


if __name__ == "__main__":
    main()
