"""Each Lambda invocation flushes its CloudWatch metrics (EMF on stdout); the session keeps telemetry."""

from __future__ import annotations

import json
from typing import Any

import pytest

import handlers.api as api
from agent_core.models import resolve_model
from agent_core.runtime import AgentRuntime
from handlers.services import LazyServices, Services
from storage import SessionManager
from storage.memory import MemorySessionStorage
from tests.events import FakeLambdaContext, http_event


def emf(output: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{") and '"_aws"' in line]
    return [line for line in lines if "CloudWatchMetrics" in line["_aws"]]


def test_steps_tokens_and_conflicts_are_published(capsys: pytest.CaptureFixture[str]) -> None:
    manager = SessionManager(MemorySessionStorage())
    previous = api.app.state.services
    api.app.state.services = LazyServices(
        Services(manager=manager, runtime=AgentRuntime(manager, model=resolve_model("pseudo")))
    )
    try:
        result = api.handler(http_event("POST", "/api/next", {"userInput": "hello"}), FakeLambdaContext())
        sid = json.loads(result["body"])["sessionId"]
        published = emf(capsys.readouterr().out)
        assert published and published[-1]["Steps"] == [1.0] and "InputTokens" in published[-1]
        assert published[-1]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "TranslationAgent"
        verdict = {"tool": {"name": "Translate", "callId": "nope"}, "status": "approve"}
        api.handler(
            http_event("POST", "/api/next", {"sessionId": sid, "copilotResponses": [verdict]}), FakeLambdaContext()
        )
        assert emf(capsys.readouterr().out)[-1]["Conflicts"] == [1.0]
        view = json.loads(api.handler(http_event("GET", f"/api/sessions/{sid}"), FakeLambdaContext())["body"])
        assert view["telemetry"]["steps"] == 1 and view["telemetry"]["modelRequests"] == 1
        assert view["telemetry"]["inputTokens"] > 0
    finally:
        api.app.state.services = previous
