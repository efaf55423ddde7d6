"""bench/dynamo_meter.py counts what DynamoDB would bill and how long a step waits, from a boto3
client's hooks: capacity units by DynamoDB's rounding rules, and calls that overlap as one round trip."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from bench.dynamo_meter import DynamoMeter, StepFigures
from tests.aws import create_sessions_table


@pytest.fixture
def metered() -> Iterator[tuple[Any, DynamoMeter]]:
    """A client on a table of template.yaml, watched by a meter that sleeps 20 ms a call."""
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_sessions_table(client, "t")
        meter = DynamoMeter(delay=0.02)
        meter.attach(client)
        yield client, meter


def item(sk: str, size: int, **extra: str) -> dict[str, Any]:
    """An item of about `size` bytes as DynamoDB counts them (names and values)."""
    base = {"pk": {"S": "p"}, "sk": {"S": sk}, **{k: {"S": v} for k, v in extra.items()}}
    used = sum(len(k) + len(v["S"]) for k, v in base.items()) + len("body")
    return {**base, "body": {"S": "x" * (size - used)}}


def step(meter: DynamoMeter, call: Any) -> StepFigures:
    call()
    meter.mark()
    return meter.steps[-1]


def test_writes_cost_a_unit_a_kilobyte_of_the_larger_image_and_double_in_a_transaction(metered: Any) -> None:
    client, meter = metered
    put = step(meter, lambda: client.put_item(TableName="t", Item=item("a", 1500)))
    assert (put.write_units, put.requests, put.round_trips) == (2, 1, 1)
    smaller = step(meter, lambda: client.put_item(TableName="t", Item=item("a", 300)))
    assert smaller.write_units == 2, "an overwrite is billed by the larger of the old and new item"
    transaction = step(
        meter,
        lambda: client.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "t", "Item": item("b", 2100)}},
                {"Put": {"TableName": "t", "Item": item("c", 10)}},
            ]
        ),
    )
    assert transaction.write_units == 2 * 3 + 2 * 1
    indexed = step(meter, lambda: client.put_item(TableName="t", Item=item("d", 1500, gsi1pk="o", gsi1sk="1")))
    assert indexed.write_units == 2 + 2, "the index's copy of the item is written too"


def test_an_update_or_a_failed_condition_is_billed_by_the_item_it_touches(metered: Any) -> None:
    client, meter = metered
    client.put_item(TableName="t", Item=item("a", 3000))
    meter.reset()
    key = {"pk": {"S": "p"}, "sk": {"S": "a"}}
    update = step(
        meter,
        lambda: client.update_item(
            TableName="t", Key=key, UpdateExpression="SET n = :n", ExpressionAttributeValues={":n": {"N": "1"}}
        ),
    )
    assert update.write_units == 3, "a small update of a 3 KB item is billed on the whole item"

    def refused() -> None:
        with pytest.raises(client.exceptions.ConditionalCheckFailedException):
            client.put_item(TableName="t", Item=item("a", 10), ConditionExpression="attribute_not_exists(pk)")

    failed = step(meter, refused)
    assert (failed.write_units, failed.requests) == (3, 1)
    assert client.get_item(TableName="t", Key=key)["Item"]["n"] == {"N": "1"}


def test_reads_cost_a_unit_per_4_kb_half_when_eventually_consistent(metered: Any) -> None:
    client, meter = metered
    for sk in ("a", "b", "c"):
        client.put_item(TableName="t", Item=item(sk, 2000))
    meter.reset()
    get = step(meter, lambda: client.get_item(TableName="t", Key={"pk": {"S": "p"}, "sk": {"S": "a"}}))
    assert (get.read_units, get.requests) == (0.5, 1)
    key = {"pk": {"S": "p"}}
    query = step(
        meter,
        lambda: client.query(
            TableName="t",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": key["pk"]},
            ProjectionExpression="sk",
            ConsistentRead=True,
        ),
    )
    assert query.read_units == 2, "a Query is billed on the whole items it reads (6 KB), whatever it projects"
    assert query.reported_read == 1, "moto's own figure, fixed per call"
    scan = step(
        meter,
        lambda: client.scan(TableName="t", FilterExpression="sk = :a", ExpressionAttributeValues={":a": {"S": "a"}}),
    )
    assert scan.read_units == 1.0, "a Scan is billed on every item it examines (6 KB), half: eventually consistent"


def test_calls_that_overlap_are_one_round_trip(metered: Any) -> None:
    client, meter = metered
    key = {"pk": {"S": "p"}, "sk": {"S": "a"}}
    get = lambda: client.get_item(TableName="t", Key=key)  # noqa: E731

    def parallel() -> None:
        threads = [threading.Thread(target=get) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    together = step(meter, parallel)
    assert (together.requests, together.round_trips) == (2, 1)
    assert 20 <= together.delay_ms < 40
    apart = step(meter, lambda: (get(), get()))
    assert (apart.requests, apart.round_trips) == (2, 2)
    assert apart.delay_ms >= 40 and apart.latency_ms >= apart.delay_ms
