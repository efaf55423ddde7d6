"""Infrastructure facts for tests, read from template.yaml (the single source of truth)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]


class _CfnLoader(yaml.SafeLoader):
    """A YAML loader that reads CloudFormation's short tags (!Ref, !Sub, …) as plain values."""


def _tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return {suffix: loader.construct_scalar(node)}
    if isinstance(node, yaml.SequenceNode):
        return {suffix: loader.construct_sequence(node, deep=True)}
    return {suffix: loader.construct_mapping(node, deep=True)}  # type: ignore[arg-type]


_CfnLoader.add_multi_constructor("!", _tag)


def template() -> dict[str, Any]:
    """template.yaml, parsed (a copy of its own: read once a process, a test may change what it gets)."""
    return copy.deepcopy(_template())


@functools.cache
def _template() -> dict[str, Any]:
    with open(ROOT / "template.yaml", encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.load(fh, Loader=_CfnLoader)
    return data


def create_sessions_table(client: Any, name: str) -> None:
    """Create the sessions table exactly as template.yaml declares it (keys, indexes, TTL)."""
    props = template()["Resources"]["SessionsTable"]["Properties"]
    kwargs: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": props["AttributeDefinitions"],
        "KeySchema": props["KeySchema"],
        "BillingMode": props["BillingMode"],
    }
    if "GlobalSecondaryIndexes" in props:
        kwargs["GlobalSecondaryIndexes"] = props["GlobalSecondaryIndexes"]
    client.create_table(**kwargs)
    ttl = props.get("TimeToLiveSpecification")
    if ttl:
        client.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)


class DynamoRequests:
    """DynamoDB requests by operation, counted at a boto3 client (`take` returns and resets them)."""

    def __init__(self, client: Any) -> None:
        from collections import Counter

        self.seen: Counter[str] = Counter()
        client.meta.events.register("before-call.dynamodb.*", self._count)

    def _count(self, event_name: str = "", **_: Any) -> None:
        self.seen[event_name.rsplit(".", 1)[-1]] += 1

    def take(self) -> dict[str, int]:
        seen = dict(self.seen)
        self.seen.clear()
        return seen


def another_process(storage: Any) -> Any:
    """Another process's DynamoDB storage on the same table (it holds nothing of this one's)."""
    from storage.dynamodb import DynamoDBSessionStorage

    return DynamoDBSessionStorage(storage.client, table_name=storage.table)
