"""API Gateway events for tests: the files in events/, loaded through one helper, and variants."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

EVENTS = Path(__file__).resolve().parents[1] / "events"


def load_event(name: str) -> dict[str, Any]:
    """An event file from events/ (name with or without `.json`)."""
    path = EVENTS / (name if name.endswith(".json") else f"{name}.json")
    event: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return event


def http_event(
    method: str,
    path: str,
    body: Any = None,
    *,
    sub: str | None = "user-alice",
    query: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    raw_body: str | None = None,
) -> dict[str, Any]:
    """A payload-2.0 event shaped like events/next-continue.json, for any route and caller."""
    event = copy.deepcopy(load_event("next-continue"))
    event["rawPath"] = path
    event["rawQueryString"] = urlencode(query or {})
    if query:
        event["queryStringParameters"] = dict(query)
    event["requestContext"]["http"]["method"] = method
    event["requestContext"]["http"]["path"] = path
    if sub is None:
        event["requestContext"].pop("authorizer", None)
    else:
        event["requestContext"]["authorizer"]["jwt"]["claims"]["sub"] = sub
    event["headers"].pop("content-length", None)
    event["headers"].update(headers or {})
    if raw_body is not None:
        event["body"] = raw_body
    elif body is None:
        event["body"] = None
    else:
        event["body"] = json.dumps(body)
    return event


class FakeLambdaContext:
    """The parts of a Lambda context that Powertools and the app read."""

    function_name = "AgentFunction"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:AgentFunction"
    aws_request_id = "test-request"
    log_group_name = "/aws/lambda/AgentFunction"
    log_stream_name = "test"

    def __init__(self, remaining_ms: int = 60_000) -> None:
        self.remaining_ms = remaining_ms

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds left in the invocation."""
        return self.remaining_ms
