"""`POST /api/next` with `Accept: text/event-stream`, through the ASGI app, with a model that streams its answer."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from mangum import Mangum
from pydantic_ai import exceptions as ai_errors
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, UserPromptPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from agent_core.deltas import Delta
from agent_core.effects import StepEffects, StepToken, StoredAnswer
from agent_core.errors import ModelTimeoutError
from agent_core.models import stream_model
from handlers.app import create_app
from service.container import Services
from service.schemas import FileUpload
from storage.sqlite import SQLiteStorage
from terminal.asgi import StreamingASGITransport
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for

DOC = "Good morning.\n\nThe weather is fine.\n"
TASK = "Translate doc.md into French."
PROPOSALS = [("Good morning.", "Bonjour à tous."), ("The weather is fine.", "Il fait très beau aujourd'hui.")]
SSE = {"Accept": "text/event-stream"}


@dataclass
class Streamer:
    """A scripted model: Translate calls for the file, streamed a few characters at a time (or told to fail)."""

    file_id: str = ""
    pause: float = 0.055
    """Longer than the deltas' throttle (50 ms), so every piece shows."""
    chunk: int = 16
    fail: Exception | None = None
    fail_late: bool = False
    """Fail after the text has streamed (mid-answer), not before the first piece."""
    gate: asyncio.Event | None = None
    """When set, the stream waits for it once a proposal's text has begun (a test then cuts the connection)."""
    text: str = "Two units."
    asked: int = 0
    cancelled: int = 0
    seen: list[list[ModelMessage]] = field(default_factory=list)

    def args(self, index: int) -> str:
        src, target = PROPOSALS[index]
        return json.dumps({"file_id": self.file_id, "src_string": src, "translate_string": target})

    def whole(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """The same answer, not streamed."""
        self.asked += 1
        calls = [ToolCallPart("Translate", self.args(i), tool_call_id=f"call_{i}") for i in range(len(PROPOSALS))]
        return ModelResponse(parts=[TextPart(self.text), *calls])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        """Text first, then each call's JSON arguments piece by piece."""
        self.asked += 1
        self.seen.append(list(messages))
        if self.fail is not None and not self.fail_late:
            raise self.fail
        try:
            async for piece in self._pieces():
                yield piece
        except asyncio.CancelledError:
            self.cancelled += 1
            raise

    async def _pieces(self) -> AsyncIterator[str | DeltaToolCalls]:
        for word in self.text.split(" "):
            yield word if word == self.text.split(" ")[0] else " " + word
            await asyncio.sleep(self.pause)
        if self.fail is not None:
            raise self.fail
        for index in range(len(PROPOSALS)):
            args = self.args(index)
            for n, start in enumerate(range(0, len(args), self.chunk)):
                name = "Translate" if n == 0 else None
                call_id = f"call_{index}" if n == 0 else None
                yield {
                    index + 1: DeltaToolCall(
                        name=name, json_args=args[start : start + self.chunk], tool_call_id=call_id
                    )
                }
                if self.gate is not None and '"translate_string": "' in args[: start + self.chunk]:
                    await self.gate.wait()  # a proposal is forming: hold the rest back
                await asyncio.sleep(self.pause)

    @property
    def model(self) -> FunctionModel:
        return FunctionModel(self.whole, stream_function=self.stream, model_name="streamer")


def parse_events(text: str) -> list[tuple[str, Any]]:
    """SSE text as (event, JSON data) pairs."""
    events = []
    for block in text.split("\n\n"):
        if not block.strip():
            continue
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


class Api:
    """The ASGI app in process, over a transport that streams (and can be cut)."""

    def __init__(self, services: Services, *, streaming: bool = True) -> None:
        app = create_app(services)
        transport = StreamingASGITransport(app) if streaming else httpx.ASGITransport(app=app)
        self.client = httpx.AsyncClient(transport=transport, base_url="http://t")
        self.services = services

    async def start(self, model: Streamer) -> str:
        sid: str = (await self.client.post("/api/sessions")).json()["id"]
        upload = await self.client.post(f"/api/sessions/{sid}/files", json={"name": "doc.md", "content": DOC})
        model.file_id = upload.json()["fileId"]
        return sid

    async def stream(self, body: dict[str, Any], **headers: str) -> tuple[httpx.Response, list[tuple[str, Any]]]:
        async with self.client.stream("POST", "/api/next", json=body, headers={**SSE, **headers}) as response:
            text = (await response.aread()).decode()
        return response, parse_events(text)

    def version(self, sid: str) -> int:
        return self.services.storage.load_step(sid, window=1).token.version


def api_with(model: Streamer, *, streaming: bool = True) -> Api:
    return Api(services_for(model=model.model), streaming=streaming)


VARYING = {"timestamp", "usage", "model_name", "provider_response_id", "run_id"}
"""What differs between two runs of the same step (and the streamed usage is counted differently)."""


def normalized(body: dict[str, Any], file_id: str) -> Any:
    """The step body without what differs between two runs of the same step; the file's id made fixed."""

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items() if k not in VARYING}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value.replace(file_id, "f_file") if isinstance(value, str) else value

    return walk({k: v for k, v in body.items() if k != "sessionId"})


async def test_deltas_come_in_order_and_the_step_event_is_the_plain_body() -> None:
    model = Streamer()
    api = api_with(model)
    sid = await api.start(model)
    response, events = await api.stream({"sessionId": sid, "userInput": TASK})

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    # The API's security headers make it `no-store` (stricter than the stream's own `no-cache`).
    assert response.headers["cache-control"] in ("no-cache", "no-store")
    names = [name for name, _ in events]
    assert names[-1] == "step" and set(names[:-1]) == {"delta"}
    texts = [data["text"] for name, data in events if name == "delta" and "text" in data]
    assert texts[-1] == model.text and all(model.text.startswith(t) for t in texts)
    for index, (src, target) in enumerate(PROPOSALS):
        shown = [
            d["proposal"] for n, d in events if n == "delta" and d.get("proposal", {}).get("callId") == f"call_{index}"
        ]
        targets = [p["translate_string"] for p in shown]
        assert len(shown) >= 3, shown  # it grew in several steps
        assert targets == sorted(targets, key=len) and all(target.startswith(t) for t in targets)
        assert shown[-1] == {"callId": f"call_{index}", "src_string": src, "translate_string": target}
    step = events[-1][1]["agentResponse"]
    assert step["actor"] == "user"  # the proposals' reviews come with the step that made them
    assert [(r["tool"]["callId"], r["src_string"], r["translate_string"]) for r in step["copilotRequests"]] == [
        (f"call_{i}", src, target) for i, (src, target) in enumerate(PROPOSALS)
    ]
    step = events[-1][1]

    # The same step without streaming answers the same body (and the stored session is the same).
    plain_model = Streamer()
    plain = api_with(plain_model, streaming=False)
    plain_sid = await plain.start(plain_model)
    answer = await plain.client.post("/api/next", json={"sessionId": plain_sid, "userInput": TASK})
    assert answer.status_code == 200
    assert normalized(step, model.file_id) == normalized(answer.json(), plain_model.file_id)


@pytest.mark.parametrize("late", [False, True], ids=["before-the-first-delta", "mid-answer"])
async def test_a_failing_model_ends_the_stream_with_an_error_event(late: bool) -> None:
    failure = ai_errors.ModelHTTPError(429, "streamer", {"error": {"message": "slow down"}})
    model = Streamer(fail=failure, fail_late=late)
    api = api_with(model)
    sid = await api.start(model)
    before = api.version(sid)
    response, events = await api.stream({"sessionId": sid, "userInput": TASK})
    assert response.status_code == 200
    assert [name for name, _ in events] == ["delta"] * (2 if late else 0) + ["error"]
    error = events[-1][1]
    assert error["status"] == 503 and "try again" in error["error"]
    assert set(error) == {"error", "status"}
    assert api.version(sid) == before


async def test_a_failing_delta_sink_is_not_taken_for_a_provider_failure() -> None:
    model = Streamer(pause=0.0)
    messages = [ModelRequest(parts=[UserPromptPart("Hi")])]
    params = ModelRequestParameters(function_tools=[], allow_text_output=True)

    async def sink(delta: Delta) -> None:
        raise LookupError("the screen is gone")

    with pytest.raises(LookupError, match="the screen is gone"):
        await stream_model(model.model, messages, None, params, on_delta=sink)


async def test_an_unknown_session_is_an_error_event_with_its_status() -> None:
    model = Streamer()
    api = api_with(model)
    _response, events = await api.stream({"sessionId": "s_00000000000000000000000000000000", "userInput": TASK})
    assert [(name, data["status"]) for name, data in events] == [("error", 404)]


async def test_a_stream_that_outlasts_its_deadline_is_a_model_timeout() -> None:
    model = Streamer(pause=0.5)
    messages = [ModelRequest(parts=[UserPromptPart("Hi")])]
    params = ModelRequestParameters(function_tools=[], allow_text_output=True)
    heard: list[Delta] = []

    async def sink(delta: Delta) -> None:
        heard.append(delta)

    with pytest.raises(ModelTimeoutError):
        await stream_model(model.model, messages, None, params, on_delta=sink, timeout=0.2)
    assert heard == [Delta(text="Two")], "what came in time was shown; the rest never came"


class _SlowCommit(SQLiteStorage):
    """Holds the step's commit until the test lets it go."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.entered = threading.Event()
        self.release = threading.Event()
        self.armed = False

    def commit(self, token: StepToken, effects: StepEffects, *, answer: StoredAnswer | None = None) -> None:
        if self.armed:  # the step's commit, not the session's creation
            self.entered.set()
            assert self.release.wait(5), "the test did not release the commit"
        super().commit(token, effects, answer=answer)


async def test_a_stream_cut_while_the_step_commits_completes_the_commit() -> None:
    model = Streamer(pause=0.0)
    storage = _SlowCommit()
    api = Api(services_for(storage, model=model.model))
    sid = await api.start(model)
    before = api.version(sid)
    storage.armed = True
    body = {"sessionId": sid, "userInput": TASK}
    async with api.client.stream("POST", "/api/next", json=body, headers={**SSE, "Idempotency-Key": "k-cut"}):
        assert await asyncio.to_thread(storage.entered.wait, 5)
    storage.release.set()  # the client is gone; the commit it started goes on
    for _ in range(200):
        if api.version(sid) == before + 1:
            break
        await asyncio.sleep(0.01)
    assert api.version(sid) == before + 1
    _, events = await api.stream(body, **{"Idempotency-Key": "k-cut"})
    assert [name for name, _ in events] == ["step"], "the retry finds the answer kept with the commit"
    assert len(events[0][1]["agentResponse"]["copilotRequests"]) == 2
    assert model.asked == 1


@pytest.mark.slow
async def test_a_stream_cut_by_the_client_commits_nothing() -> None:
    gate = asyncio.Event()
    model = Streamer(gate=gate)
    api = api_with(model)
    sid = await api.start(model)
    before = api.version(sid)
    async with api.client.stream("POST", "/api/next", json={"sessionId": sid, "userInput": TASK}, headers=SSE) as r:
        async for line in r.aiter_lines():
            if line.startswith("data:") and "proposal" in line:
                break  # the first proposal is forming: hang up
    for _ in range(50):  # the step's cancellation unwinds on the loop
        await asyncio.sleep(0.01)
    assert model.cancelled == 1  # the hang-up cancelled the model request itself
    assert api.version(sid) == before
    assert api.services.storage.list_messages(sid, cursor=None, limit=10).items == []

    gate.set()
    _response, events = await api.stream({"sessionId": sid, "userInput": TASK})
    assert events[-1][0] == "step"
    assert api.version(sid) == before + 1
    assert model.asked == 2


async def test_a_replayed_key_streams_only_the_kept_body() -> None:
    model = Streamer()
    api = api_with(model)
    sid = await api.start(model)
    body = {"sessionId": sid, "userInput": TASK}
    _, first = await api.stream(body, **{"Idempotency-Key": "k-1"})
    _, again = await api.stream(body, **{"Idempotency-Key": "k-1"})
    assert [name for name, _ in again] == ["step"]
    assert again[0][1] == first[-1][1]
    assert model.asked == 1
    plain = await api.client.post("/api/next", json=body, headers={"Idempotency-Key": "k-1"})
    assert plain.json() == first[-1][1]


async def test_a_model_that_cannot_stream_answers_with_the_step_alone() -> None:
    api = Api(services_for())  # the pseudo model: no streamed requests
    sid: str = (await api.client.post("/api/sessions")).json()["id"]
    await api.client.post(f"/api/sessions/{sid}/files", json={"name": "doc.md", "content": DOC})
    _response, events = await api.stream({"sessionId": sid, "userInput": TASK})
    assert [name for name, _ in events] == ["step"]
    assert events[0][1]["agentResponse"]["finishReason"] == "tool_call"


async def test_without_the_accept_header_the_answer_is_plain_json() -> None:
    model = Streamer()
    api = api_with(model)
    sid = await api.start(model)
    response = await api.client.post("/api/next", json={"sessionId": sid, "userInput": TASK})
    assert response.headers["content-type"] == "application/json"
    assert len(response.json()["agentResponse"]["copilotRequests"]) == 2


async def test_deltas_are_throttled_for_a_fast_model() -> None:
    model = Streamer(chunk=1, pause=0.0)  # one character per event, as fast as the loop goes
    api = api_with(model)
    sid = await api.start(model)
    started = asyncio.get_running_loop().time()
    _, events = await api.stream({"sessionId": sid, "userInput": TASK})
    elapsed = asyncio.get_running_loop().time() - started
    deltas = [d for n, d in events if n == "delta"]
    pieces = sum(len(model.args(i)) for i in range(len(PROPOSALS)))
    # At most 20 rounds a second, plus the first and the last; a round carries at most 3 deltas here.
    assert len(deltas) <= 3 * (2 + 20 * elapsed)
    assert len(deltas) < pieces
    assert events[-1][0] == "step"


def test_behind_api_gateway_the_answer_is_the_plain_body() -> None:
    """API Gateway's HTTP API buffers a Lambda's answer: a stream would only arrive at its end."""
    model = Streamer()
    services = services_for(model=model.model)
    handler = Mangum(create_app(services), lifespan="off")
    session = services.sessions.create("user-alice").session_id
    model.file_id = services.sessions.add_file("user-alice", session, FileUpload(name="doc.md", content=DOC))[0].file_id
    event = http_event("POST", "/api/next", {"sessionId": session, "userInput": TASK}, headers=SSE)
    result = handler(event, FakeLambdaContext())  # type: ignore[arg-type]
    assert result["statusCode"] == 200, result["body"]
    assert result["headers"]["content-type"] == "application/json"
    assert len(json.loads(result["body"])["agentResponse"]["copilotRequests"]) == 2
