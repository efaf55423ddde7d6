"""Every row of API.md's error table, through the HTTP API: status, `{"error"}` body, nothing changed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import handlers.api as api_module
from agent_core.errors import StepTimeoutError
from agent_core.runtime import StepInput
from handlers.api import create_app
from service.container import Services
from service.schemas import FileUpload
from storage.sqlite import SQLiteStorage
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for

replies: list[Any] = []


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    reply = replies.pop(0) if replies else ModelResponse(parts=[TextPart("ok")])
    if isinstance(reply, Exception):
        raise reply
    return reply  # type: ignore[no-any-return]


@pytest.fixture
def api() -> Iterator[tuple[TestClient, SQLiteStorage]]:
    replies.clear()
    storage = SQLiteStorage(":memory:")
    with TestClient(create_app(services_for(storage, model=FunctionModel(scripted)))) as client:
        yield client, storage


def services_of(client: TestClient) -> Services:
    """The services the client's app runs on."""
    services: Services = client.app.state.services.get()  # type: ignore[attr-defined]
    return services


def session_with_file(client: TestClient) -> tuple[str, str]:
    sid = client.post("/api/sessions").json()["id"]
    fid = client.post(f"/api/sessions/{sid}/files", json={"name": "a.md", "content": "Hello."}).json()["fileId"]
    return sid, fid


def assert_error(response: Any, status: int, words: str = "") -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and words.lower() in body["error"].lower(), body
    assert "Traceback" not in response.text and "/work/" not in response.text


def test_400_body_not_json(api: Any) -> None:
    client, _ = api
    assert_error(
        client.post("/api/next", content=b"{nope", headers={"content-type": "application/json"}), 400, "not valid JSON"
    )


def test_401_when_auth_is_required(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client, _ = api
    monkeypatch.setenv("REQUIRE_AUTH", "true")
    assert_error(client.get("/api/sessions"), 401, "sign in")
    assert_error(client.post("/api/next", json={"userInput": "hi"}), 401)


def test_404_unknown_session_file_and_route(api: Any) -> None:
    client, _ = api
    sid, _ = session_with_file(client)
    assert_error(client.get("/api/sessions/s_" + "f" * 32), 404, "no session")
    assert_error(client.get("/api/sessions/not-an-id"), 404)
    assert_error(client.post("/api/next", json={"sessionId": "s_" + "f" * 32}), 404)
    assert_error(client.get(f"/api/sessions/{sid}/files/f_" + "0" * 32), 404, "no file")
    assert_error(client.get("/api/nothing-here"), 404)


def test_404_for_another_callers_session(api: Any) -> None:
    client, storage = api
    sessions = services_of(client).sessions
    sid = sessions.create("someone-else").session_id
    sessions.add_file("someone-else", sid, FileUpload(name="a.md", content="Hello."))
    for response in (
        client.get(f"/api/sessions/{sid}"),
        client.delete(f"/api/sessions/{sid}"),
        client.post("/api/next", json={"sessionId": sid}),
        client.get(f"/api/sessions/{sid}/messages"),
    ):
        assert_error(response, 404)
    assert storage.get_session(sid).owner == "someone-else"


def test_409_unknown_call_and_input_while_reviewing_is_queued(api: Any) -> None:
    client, storage = api
    sid, fid = session_with_file(client)
    replies.append(
        ModelResponse(
            parts=[
                ToolCallPart(
                    "Translate",
                    {"file_id": fid, "src_string": "Hello.", "translate_string": "Bonjour."},
                    tool_call_id="c1",
                )
            ]
        )
    )
    client.post("/api/next", json={"sessionId": sid, "userInput": "go"})
    pending = client.post("/api/next", json={"sessionId": sid}).json()["agentResponse"]["copilotRequests"]
    assert [r["tool"]["callId"] for r in pending] == ["c1"]
    version = storage.get_session(sid).version
    verdict = {"tool": {"name": "Translate", "callId": "nope"}, "status": "approve"}
    assert_error(client.post("/api/next", json={"sessionId": sid, "copilotResponses": [verdict]}), 409, "callId")
    assert storage.get_session(sid).version == version
    # Input while reviews are pending is not refused: it is queued for the model's next request (API.md).
    queued = client.post("/api/next", json={"sessionId": sid, "userInput": "more"})
    assert queued.status_code == 200, queued.text
    agent = queued.json()["agentResponse"]
    assert queued.json()["queued"] is True and agent["actor"] == "user"
    assert [r["tool"]["callId"] for r in agent["copilotRequests"]] == ["c1"], "the pending review is unchanged"
    assert client.get(f"/api/sessions/{sid}").json()["queuedInputs"] == ["more"]


def test_413_body_too_large(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client, storage = api
    sid = client.post("/api/sessions").json()["id"]
    assert_error(client.post("/api/next", json={"sessionId": sid, "userInput": "x" * 300_000}), 413, "larger")
    monkeypatch.setenv("MAX_UPLOAD_BYTES", "1000")
    assert_error(client.post(f"/api/sessions/{sid}/files", json={"name": "a", "content": "y" * 2000}), 413)
    assert storage.load_step(sid, window=0).files == [] and storage.get_session(sid).message_count == 0


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"userInput": "a", "copilotResponses": []}, "not both"),
        ({"userInput": "a", "extra": 1}, "extra"),
        ({"copilotResponses": [{"tool": {"name": "Translate", "callId": "c"}, "status": "maybe"}]}, "status"),
        (
            {"copilotResponses": [{"tool": {"name": "Translate", "callId": "c"}, "status": "refined"}]},
            "translated_string",
        ),
        ({"userInput": ""}, "userInput"),
        ({"userInput": 5}, "userInput"),
        ([1, 2], "body"),
    ],
)
def test_422_invalid_requests(api: Any, body: Any, words: str) -> None:
    client, storage = api
    assert_error(client.post("/api/next", json=body), 422, words)
    assert storage.list_sessions("local", cursor=None, limit=10).items == [], "nothing was created"


def test_422_bad_file_and_cursor(api: Any) -> None:
    client, _ = api
    sid = client.post("/api/sessions").json()["id"]
    assert_error(client.post(f"/api/sessions/{sid}/files", json={"name": "a.md"}), 422, "content")
    assert_error(client.get("/api/sessions?cursor=zzz"), 422, "cursor")
    assert_error(client.get("/api/sessions?limit=0"), 422, "limit")


def test_503_provider_failure_changes_nothing(api: Any) -> None:
    client, storage = api
    sid, _ = session_with_file(client)
    replies.append(ModelHTTPError(429, "scripted", {"error": "slow down"}, retry_after=7))
    response = client.post("/api/next", json={"sessionId": sid, "userInput": "Translate"})
    assert_error(response, 503, "try again")
    assert response.headers["retry-after"] == "7"
    assert storage.get_session(sid).message_count == 0, "the user input was not committed either"
    assert client.post("/api/next", json={"sessionId": sid, "userInput": "Translate"}).status_code == 200


def test_504_not_enough_time_left(api: Any) -> None:
    client, storage = api
    sid, _ = session_with_file(client)
    previous = api_module.app.state.services
    api_module.app.state.services = client.app.state.services
    try:
        event = http_event("POST", "/api/next", {"sessionId": sid, "userInput": "go"}, sub=None)
        result = api_module.handler(event, FakeLambdaContext(remaining_ms=3_000))
    finally:
        api_module.app.state.services = previous
    assert result["statusCode"] == 504 and "left in this invocation" in result["body"]
    assert storage.get_session(sid).message_count == 0


def test_504_model_slower_than_the_time_left(api: Any) -> None:
    """A model still answering when only the commit's time is left is abandoned: 504, nothing stored."""
    client, storage = api
    sid, _ = session_with_file(client)
    stalled = asyncio.Event()

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        stalled.set()
        await asyncio.sleep(30)
        return ModelResponse(parts=[TextPart("too late")])

    runtime = services_for(storage, model=FunctionModel(slow), min_model_seconds=0.0).runtime
    with pytest.raises(StepTimeoutError, match="did not answer within"):
        asyncio.run(runtime.step("local", sid, StepInput(user_input="go", time_left=lambda: 3.5)))
    assert stalled.is_set(), "the model was called, then abandoned (it would have answered after 30 s)"
    assert storage.get_session(sid).message_count == 0
    assert client.post("/api/next", json={"sessionId": sid, "userInput": "go"}).status_code == 200
