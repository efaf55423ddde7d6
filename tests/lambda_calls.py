"""Requests through the Lambda handler (Mangum over the app, DynamoDB under moto) as a JWT `sub`, for
tests that act as several identities behind the authorizer."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import boto3
from mangum import Mangum

from agent_core.models import resolve_model
from handlers.app import create_app
from storage.dynamodb import DynamoDBSessionStorage
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for

Call = Callable[..., tuple[int, Any]]
"""`call(sub, method, path, body=None, **headers)`: `(status, body)`; a `?query` in the path is sent as
the event's query string."""


def lambda_caller(table: str) -> Call:
    """Requests to a new app over the moto table `table`, through Mangum, with the pseudo model."""
    storage = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=table)
    handler = Mangum(create_app(services_for(storage, model=resolve_model("pseudo"))), lifespan="off")

    def send(sub: str | None, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        path, _, query = path.partition("?")
        asked = dict(part.split("=", 1) for part in query.split("&")) if query else None
        event = http_event(method, path, body, sub=sub, headers=headers, query=asked)
        result = handler(event, FakeLambdaContext())  # type: ignore[arg-type]
        text = result.get("body") or ""
        return result["statusCode"], json.loads(text) if text else None

    return send


def ok(call: Call, sub: str, method: str, path: str, body: Any = None) -> Any:
    """The body of a request that must succeed (any 2xx)."""
    status, answer = call(sub, method, path, body)
    assert status < 300, (sub, method, path, status, answer)
    return answer
