"""Each Lambda invocation flushes its CloudWatch metrics (EMF on stdout); the session keeps telemetry."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pydantic_ai.messages import ModelRequest, UserPromptPart

import handlers.api as api
from agent_core.effects import SessionSnapshot, StepEffects
from agent_core.models import resolve_model
from handlers.deps import LazyServices
from handlers.metrics import metrics
from storage.sqlite import SQLiteStorage
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for


def emf(output: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{") and '"_aws"' in line]
    return [line for line in lines if "CloudWatchMetrics" in line["_aws"]]


class _Racing(SQLiteStorage):
    """A store where, once armed, another writer commits to the session between a step's load and its commit."""

    armed = False

    def load_step(self, session_id: str, *, window: int) -> SessionSnapshot:
        snapshot = super().load_step(session_id, window=window)
        if self.armed:
            self.armed = False
            other = ModelRequest(parts=[UserPromptPart("from another tab")])
            self.commit(snapshot.token, StepEffects(messages=[other], user_inputs=["from another tab"]))
        return snapshot


def test_steps_tokens_and_conflicts_are_published(capsys: pytest.CaptureFixture[str]) -> None:
    metrics.clear_metrics()  # what ASGI-only tests recorded before (only the Lambda handler flushes)
    storage = _Racing(":memory:")
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(storage, model=resolve_model("pseudo")))
    try:
        result = api.handler(http_event("POST", "/api/next", {"userInput": "hello"}), FakeLambdaContext())
        sid = json.loads(result["body"])["sessionId"]
        published = emf(capsys.readouterr().out)
        assert published and published[-1]["Steps"] == [1.0] and "InputTokens" in published[-1]
        assert published[-1]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "TranslationAgent"
        # A verdict on no pending review is refused (409) but is not a concurrency conflict.
        verdict = {"tool": {"name": "Translate", "callId": "nope"}, "status": "approve"}
        refused = api.handler(
            http_event("POST", "/api/next", {"sessionId": sid, "copilotResponses": [verdict]}), FakeLambdaContext()
        )
        assert refused["statusCode"] == 409
        assert all("Conflicts" not in line for line in emf(capsys.readouterr().out))
        view = json.loads(api.handler(http_event("GET", f"/api/sessions/{sid}"), FakeLambdaContext())["body"])
        assert view["telemetry"]["steps"] == 1 and view["telemetry"]["modelRequests"] == 1
        assert view["telemetry"]["inputTokens"] > 0
        # Another writer commits between this step's load and its commit: a real conflict, counted.
        storage.armed = True
        again = http_event("POST", "/api/next", {"sessionId": sid, "userInput": "again"})
        raced = api.handler(again, FakeLambdaContext())
        assert raced["statusCode"] == 409, raced["body"]
        assert emf(capsys.readouterr().out)[-1]["Conflicts"] == [1.0]
    finally:
        api.app.state.services = previous


@contextlib.contextmanager
def polish_step(capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[[], str]]:
    """One step of a new Polish session through the Lambda handler (the pseudo model, SQLite); yields
    what reads the step's stdout."""
    metrics.clear_metrics()
    previous = api.app.state.services
    api.app.state.services = LazyServices(services_for(SQLiteStorage(":memory:"), model=resolve_model("pseudo")))
    try:
        created = api.handler(http_event("POST", "/api/sessions", {"targetLanguage": "pl"}), FakeLambdaContext())
        sid = json.loads(created["body"])["id"]
        body = {"name": "a.md", "content": "Hello there.\n"}
        api.handler(http_event("POST", f"/api/sessions/{sid}/files", body), FakeLambdaContext())
        capsys.readouterr()
        step = {"sessionId": sid, "userInput": "Translate a.md into Polish."}
        assert api.handler(http_event("POST", "/api/next", step), FakeLambdaContext())["statusCode"] == 200
        yield lambda: capsys.readouterr().out
    finally:
        api.app.state.services = previous


def test_a_steps_model_use_is_published_per_target_language(capsys: pytest.CaptureFixture[str]) -> None:
    """A job's languages side by side: each model request's tokens, cost and count by `TargetLanguage`."""
    with polish_step(capsys) as out:
        lines = [line for line in emf(out()) if "TargetLanguage" in line]
        by_name = {d["Name"]: line for line in lines for d in line["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
        assert set(by_name) == {
            "LanguageModelRequests",
            "LanguageCostUSD",
            "LanguageInputTokens",
            "LanguageOutputTokens",
        }
        assert all(line["TargetLanguage"] == "pl" for line in lines)
        assert all(line["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["TargetLanguage"]] for line in lines)
        assert by_name["LanguageModelRequests"]["LanguageModelRequests"] == [1.0]
        assert by_name["LanguageInputTokens"]["LanguageInputTokens"][0] > 0


def test_disabled_metrics_print_nothing_per_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The terminal's in-process service disables metrics: no EMF line reaches its stdout."""
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    with polish_step(capsys) as out:
        assert "TargetLanguage" not in out()
