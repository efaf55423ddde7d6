"""A bug in our code is a 500 with its traceback in the log, never a provider's 503 "try again".

`call_model` turns what a provider adapter or SDK raises into the API's 502/503/504 (tests/test_failures.py,
tests/test_provider_faults.py: malformed bodies included); the same exception types raised by the
project's own code, or by a model it was given, are bugs and stay themselves.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, FunctionModel

import handlers.api as lambda_api
from agent_core.models import call_model, is_provider_failure
from handlers.deps import LazyServices
from handlers.logging import logger
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for, stored

BUGS = [TypeError("unsupported operand"), KeyError("missing"), AttributeError("no such field"), ValueError("bad")]


def buggy(error: Exception) -> FunctionModel:
    """A model whose own code raises `error` (as a bug in a model the service was given would)."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise error

    return FunctionModel(answer, model_name="buggy")


@pytest.mark.parametrize("error", BUGS, ids=lambda e: type(e).__name__)
async def test_call_model_lets_a_bug_through_as_itself(error: Exception) -> None:
    messages = [ModelRequest(parts=[UserPromptPart("Hello")])]
    with pytest.raises(type(error)) as caught:
        await call_model(buggy(error), messages, None, ModelRequestParameters(), timeout=30)
    assert caught.value is error
    assert not is_provider_failure(error)



@pytest.fixture
def log_text() -> Iterator[list[str]]:
    """The app logger's lines (JSON, as Powertools writes them in Lambda) while the test runs."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(logger.registered_formatter.format(record))

    keep = Keep()
    target = logging.getLogger(logger.name)
    level = target.level
    target.addHandler(keep)
    try:
        yield lines
    finally:
        target.removeHandler(keep)
        target.setLevel(level)


def test_a_bug_in_a_step_answers_500_and_logs_its_traceback(log_text: list[str]) -> None:
    services = services_for(model=buggy(TypeError("can only concatenate str (not 'int') to str")))
    previous = lambda_api.app.state.services
    lambda_api.app.state.services = LazyServices(services)

    def call(method: str, path: str, body: Any = None) -> dict[str, Any]:
        result: dict[str, Any] = lambda_api.handler(http_event(method, path, body), FakeLambdaContext())
        return result

    try:
        sid = json.loads(call("POST", "/api/sessions")["body"])["id"]
        uploaded = call("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": "Hello.\n"})
        assert uploaded["statusCode"] == 201
        before = stored(services.storage, sid)
        result = call("POST", "/api/next", {"sessionId": sid, "userInput": "Translate doc.md into French."})
    finally:
        lambda_api.app.state.services = previous
    assert result["statusCode"] == 500, result
    assert "retry-after" not in {name.lower() for name in result["headers"]}, "retrying a bug cannot help"
    assert set(json.loads(result["body"])) == {"error"} and "Traceback" not in result["body"]
    assert stored(services.storage, sid) == before
    [logged] = [json.loads(line) for line in log_text if json.loads(line)["message"] == "unexpected error"]
    assert "Traceback" in logged["exception"] and "TypeError: can only concatenate" in logged["exception"]
