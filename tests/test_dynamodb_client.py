"""The DynamoDB client's settings and the request's deadline, as storage calls honour it."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

import handlers.api as lambda_api
from agent_core.errors import StepTimeoutError
from handlers.deps import LazyServices
from storage import deadline
from storage.dynamodb import DynamoDBSessionStorage
from storage.dynamodb_table import dynamodb_client
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for, stored
from tests.storage_cases import SID, create, step, user


def test_the_cached_client_gives_up_within_seconds_and_retries_at_most_four_times(moto_table: str) -> None:
    dynamodb_client.cache_clear()
    client = dynamodb_client()
    assert dynamodb_client() is client, "one client per process, created on first use"
    config = client.meta.config
    assert config.connect_timeout <= 5 and config.read_timeout <= 10
    assert config.retries["mode"] in ("standard", "adaptive") and config.retries["total_max_attempts"] <= 4
    dynamodb_client.cache_clear()


def test_a_call_is_not_started_when_the_request_has_too_little_time_left(moto_table: str) -> None:
    storage = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)
    create(storage)
    with deadline.within(lambda: deadline.CALL_SECONDS - 0.1), pytest.raises(StepTimeoutError, match="session store"):
        step(storage, messages=[user("late")])
    with deadline.within(lambda: deadline.CALL_SECONDS + 5):
        assert storage.get_session(SID).message_count == 0
    assert storage.get_session(SID).owner == "alice", "no deadline outside a request"


def _lambda(services: Any, method: str, path: str, body: Any, remaining_ms: int) -> dict[str, Any]:
    previous = lambda_api.app.state.services
    lambda_api.app.state.services = LazyServices(services)
    try:
        result: dict[str, Any] = lambda_api.handler(
            http_event(method, path, body, sub="user-alice"), FakeLambdaContext(remaining_ms=remaining_ms)
        )
    finally:
        lambda_api.app.state.services = previous
    return result


def test_a_step_without_time_for_its_storage_calls_is_504_and_changes_nothing(moto_table: str) -> None:
    storage = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)
    services = services_for(storage)
    created = _lambda(services, "POST", "/api/sessions", None, 60_000)
    sid = json.loads(created["body"])["id"]
    before = stored(storage, sid)
    result = _lambda(services, "POST", "/api/next", {"sessionId": sid, "userInput": "go"}, 500)
    assert result["statusCode"] == 504, result
    assert "session store" in json.loads(result["body"])["error"]
    assert "retry-after" in {k.lower() for k in result.get("headers", {})}
    assert stored(storage, sid) == before
