"""A session's budget over HTTP: set at creation or by PATCH, shown with what was spent; a step whose
model request would pass it answers 402 with what was spent of what budget, changes nothing, and
goes on once the budget is raised. On SQLite and on DynamoDB (moto)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from fastapi.testclient import TestClient
from pydantic_ai import models
from pydantic_ai.models import infer_model

from agent_core.models import resolve_model
from handlers.api import create_app
from storage.dynamodb import DynamoDBSessionStorage
from storage.interface import Storage
from storage.sqlite import SQLiteStorage
from tests.fakes.openai_server import FakeOpenAIServer, Policy, Reply, UsageSpec
from tests.helpers import AsyncApi, services_for

DOC = "# Guide\n\nRun the installer first. Then restart the machine.\n\nOpen the settings page.\n"
TASK = "Translate guide.md into French."


@pytest.fixture(params=["sqlite", "dynamodb"])
def client(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    storage: Storage
    if request.param == "dynamodb":
        table = request.getfixturevalue("moto_table")
        storage = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=table)
    else:
        storage = SQLiteStorage(":memory:")
    with TestClient(create_app(services_for(storage, model=resolve_model("pseudo")))) as c:
        yield c


def session(client: TestClient, **body: Any) -> str:
    created = client.post("/api/sessions", json=body)
    assert created.status_code == 201, created.text
    sid: str = created.json()["id"]
    assert client.post(f"/api/sessions/{sid}/files", json={"name": "guide.md", "content": DOC}).status_code == 201
    return sid


def view(client: TestClient, sid: str) -> dict[str, Any]:
    found: dict[str, Any] = client.get(f"/api/sessions/{sid}").json()
    return found


def test_a_step_that_would_pass_the_budget_is_402_changes_nothing_and_goes_on_when_raised(
    client: TestClient,
) -> None:
    sid = session(client, budget={"tokens": 100})
    before = client.get(f"/api/sessions/{sid}")
    assert '"budget":{"tokens":100}' in before.text and '"spent":{"tokens":0}' in before.text
    refused = client.post("/api/next", json={"sessionId": sid, "userInput": TASK})
    assert refused.status_code == 402, refused.text
    body = refused.json()
    assert body["spent"] == {"tokens": 0} and body["budget"] == {"tokens": 100}
    assert "budget would be exceeded" in body["error"] and "Raise the budget" in body["error"]
    after = view(client, sid)
    assert (after["messageCount"], after["telemetry"]["modelRequests"]) == (0, 0)  # nothing changed

    raised = client.patch(f"/api/sessions/{sid}", json={"budget": {"tokens": 1_000_000}})
    assert raised.status_code == 200 and raised.json()["budget"] == {"tokens": 1_000_000}
    step = client.post("/api/next", json={"sessionId": sid, "userInput": TASK})
    assert step.status_code == 200, step.text
    pending = step.json()["agentResponse"]["copilotRequests"]
    spent = view(client, sid)["spent"]["tokens"]
    assert pending and spent > 0

    # Now only what was spent is left: the reviews' step would need a model request, so it is refused
    # whole, and the reviews are still pending for the same answer once the budget allows it.
    assert client.patch(f"/api/sessions/{sid}", json={"budget": {"tokens": spent + 1}}).status_code == 200
    verdicts = [{"tool": r["tool"], "status": "approve"} for r in pending]
    refused = client.post("/api/next", json={"sessionId": sid, "copilotResponses": verdicts})
    assert refused.status_code == 402 and refused.json()["spent"] == {"tokens": spent}
    assert [r["tool"] for r in view(client, sid)["pendingCopilotRequests"]] == [r["tool"] for r in pending]
    assert client.patch(f"/api/sessions/{sid}", json={"budget": None}).json()["budget"] is None
    assert client.post("/api/next", json={"sessionId": sid, "copilotResponses": verdicts}).status_code == 200


def test_a_budget_in_dollars_is_priced_and_a_bad_budget_is_422(
    monkeypatch: pytest.MonkeyPatch, client: TestClient
) -> None:
    sid = session(client, budget={"usd": 0.5})
    assert view(client, sid)["spent"] == {"usd": 0.0}  # the pseudo model costs nothing
    assert client.post("/api/next", json={"sessionId": sid, "userInput": TASK}).status_code == 200
    for bad in ({"tokens": 0}, {"usd": -1}, {"tokens": 5, "usd": 1}, {}, {"coins": 3}):
        answer = client.patch(f"/api/sessions/{sid}", json={"budget": bad})
        assert answer.status_code == 422, (bad, answer.text)
        assert set(answer.json()) == {"error"}
    assert view(client, sid)["budget"] == {"usd": 0.5}  # unchanged by the refusals


def test_a_dollar_budget_needs_a_priced_model() -> None:
    from pydantic_ai.models.function import FunctionModel

    from tests.test_api_errors import scripted

    with TestClient(create_app(services_for(SQLiteStorage(":memory:"), model=FunctionModel(scripted)))) as c:
        answer = c.post("/api/sessions", json={"budget": {"usd": 1}})
        assert answer.status_code == 422 and "no price" in answer.json()["error"]
        assert c.post("/api/sessions", json={"budget": {"tokens": 1000}}).status_code == 201


USAGE = UsageSpec(prompt_tokens=2_000, completion_tokens=500)
RACERS = 4


def _at_once(barrier: threading.Barrier) -> Policy:
    """A provider that answers each request only once RACERS requests are in flight (they overlap)."""

    def policy(body: dict[str, Any]) -> Reply:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=10)
        return Reply(text="Ready.", usage=USAGE)

    return policy


@pytest.mark.parametrize("backend", ["sqlite", "dynamodb"])
async def test_parallel_steps_count_every_request_the_provider_served_and_the_budget_then_stops(
    backend: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    storage: Storage
    if backend == "dynamodb":
        from moto.dynamodb.models import DynamoDBBackend

        from tests.test_races import WRITES, serialized

        lock = threading.RLock()  # DynamoDB's writes are serializable; moto's are made so (tests/test_races.py)
        for name in WRITES:
            monkeypatch.setattr(DynamoDBBackend, name, serialized(getattr(DynamoDBBackend, name), lock))
        table = request.getfixturevalue("moto_table")
        storage = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=table)
    else:
        storage = SQLiteStorage(":memory:")
    with FakeOpenAIServer(_at_once(threading.Barrier(RACERS))) as fake, models.override_allow_model_requests(True):
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        api = AsyncApi(services_for(storage, model=infer_model("openai-chat:gpt-4.1")))
        budget = RACERS * (USAGE.prompt_tokens + USAGE.completion_tokens)
        sid = (await api.ok("POST", "/api/sessions", {"budget": {"tokens": budget}}))["id"]
        await api.ok("POST", f"/api/sessions/{sid}/files", {"name": "guide.md", "content": DOC})
        answers = await asyncio.gather(
            *(api.client.post("/api/next", json={"sessionId": sid, "userInput": TASK}) for _ in range(RACERS))
        )
        statuses = sorted(a.status_code for a in answers)
        assert statuses.count(200) >= 1 and set(statuses) <= {200, 409}, [a.text for a in answers]
        served = sum(
            USAGE.prompt_tokens + USAGE.completion_tokens for r in fake.requests if r.path.endswith("/completions")
        )
        assert len(fake.requests) == RACERS and not fake.failures
        shown = await api.ok("GET", f"/api/sessions/{sid}")
        assert shown["spent"] == {"tokens": served}, "what the provider billed, the losers' requests too"
        assert shown["telemetry"]["modelRequests"] == RACERS
        assert shown["telemetry"]["steps"] == statuses.count(200), "a lost step is not a step"
        refused = await api.client.post("/api/next", json={"sessionId": sid, "userInput": TASK})
        assert refused.status_code == 402, refused.text
        assert len(fake.requests) == RACERS, "the budget stopped the next request before the provider"
