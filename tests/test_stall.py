"""A model whose proposals the rules keep refusing is not asked forever: after MAX_REFUSED_RESPONSES
answers in a row with every proposal refused the session stops (`failed`, with the reason), a further
step makes no model request, and a person's act (new input, a settings change) lets it go on. Over
HTTP, on SQLite and on DynamoDB (moto)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from fastapi.testclient import TestClient
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_core.stall import MAX_REFUSED_RESPONSES, STALLED, refused_in_a_row
from handlers.api import create_app
from storage.dynamodb import DynamoDBSessionStorage
from storage.interface import Storage
from storage.sqlite import SQLiteStorage
from tests.helpers import services_for

DOC = "# Guide\n\nRun the installer first.\n\nOpen the settings page.\n"


class Stubborn:
    """A model that always proposes a unit skipping the first segment (the tools refuse it)."""

    def __init__(self) -> None:
        self.requests = 0

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.requests += 1
        args = {"file_id": "f1", "segments": ["s2"], "translate_string": "Lancez d'abord l'installateur."}
        return ModelResponse(parts=[ToolCallPart("Translate", args, tool_call_id=f"c{self.requests}")])


@pytest.fixture(params=["sqlite", "dynamodb"])
def storage(request: pytest.FixtureRequest) -> Storage:
    if request.param == "dynamodb":
        table = request.getfixturevalue("moto_table")
        return DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=table)
    return SQLiteStorage(":memory:")


@pytest.fixture
def model() -> Stubborn:
    return Stubborn()


@pytest.fixture
def client(storage: Storage, model: Stubborn) -> Iterator[TestClient]:
    with TestClient(create_app(services_for(storage, model=FunctionModel(model, model_name="stubborn")))) as c:
        yield c


def step(client: TestClient, sid: str, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/next", json={"sessionId": sid, **body})
    assert answer.status_code == 200, answer.text
    agent: dict[str, Any] = answer.json()["agentResponse"]
    return agent


def test_a_model_whose_proposals_are_always_refused_stops_until_a_person_acts(
    client: TestClient, model: Stubborn
) -> None:
    sid = client.post("/api/sessions").json()["id"]
    assert client.post(f"/api/sessions/{sid}/files", json={"name": "guide.md", "content": DOC}).status_code == 201
    agent = step(client, sid, userInput="Translate guide.md into French.")
    answers = 1
    while agent["actor"] == "agent":
        assert answers < MAX_REFUSED_RESPONSES, "the loop went on past the cap"
        agent = step(client, sid)
        answers += 1
    assert answers == model.requests == MAX_REFUSED_RESPONSES
    assert agent["notice"] == STALLED and not agent["copilotRequests"]
    view = client.get(f"/api/sessions/{sid}").json()
    assert (view["state"], view["error"], view["actor"]) == ("failed", STALLED, "user")
    assert view["telemetry"]["modelRequests"] == MAX_REFUSED_RESPONSES

    for _ in range(3):  # a client that keeps going spends nothing more
        again = step(client, sid)
        assert (again["actor"], again["notice"], again["messages"]) == ("user", STALLED, [])
    assert model.requests == MAX_REFUSED_RESPONSES

    # A settings change lets one more request through; refused again, it stops again.
    assert client.patch(f"/api/sessions/{sid}", json={"model": None}).status_code == 200
    assert client.get(f"/api/sessions/{sid}").json()["state"] == "running"
    assert step(client, sid)["notice"] == STALLED
    assert model.requests == MAX_REFUSED_RESPONSES + 1
    assert client.get(f"/api/sessions/{sid}").json()["state"] == "failed"
    step(client, sid)
    assert model.requests == MAX_REFUSED_RESPONSES + 1

    # New input from the person starts a new run of tries.
    agent = step(client, sid, userInput="Start with the first segment, s1.")
    assert agent["actor"] == "agent" and agent["notice"] is None
    assert model.requests == MAX_REFUSED_RESPONSES + 2
    assert client.get(f"/api/sessions/{sid}").json()["state"] == "running"


def test_a_reviewed_or_pending_proposal_ends_the_run_of_refusals() -> None:
    refused = {"status": "reject", "reason": "Not reviewed: skips s1."}
    reviewed = {"status": "reject", "reason": "Too literal."}

    def exchange(n: int, content: object) -> list[ModelMessage]:
        call = ToolCallPart("Translate", {"file_id": "f1"}, tool_call_id=f"c{n}")
        return [
            ModelResponse(parts=[call]),
            ModelRequest(parts=[ToolReturnPart("Translate", content, tool_call_id=f"c{n}")]),
        ]

    runs = [*exchange(1, refused), *exchange(2, reviewed), *exchange(3, refused), *exchange(4, refused)]
    assert refused_in_a_row(runs) == 2, "the reviewer's rejection is progress: the run starts after it"
    pending = [*runs, ModelResponse(parts=[ToolCallPart("Translate", {}, tool_call_id="c5")])]
    assert refused_in_a_row(pending) == 0
    unknown = [
        ModelResponse(parts=[ToolCallPart("translate", {}, tool_call_id="c6")]),
        ModelRequest(
            parts=[ToolReturnPart("translate", "Unknown tool 'translate'.", tool_call_id="c6", outcome="failed")]
        ),
    ]
    assert refused_in_a_row([*runs, *unknown]) == 3, "a call that fails counts as a refused proposal"
    read = [
        ModelResponse(parts=[ToolCallPart("Read", {}, tool_call_id="c7")]),
        ModelRequest(parts=[ToolReturnPart("Read", {"text": "…"}, tool_call_id="c7")]),
    ]
    assert refused_in_a_row([*runs, *read]) == 2, "a Read neither counts nor ends the run"
