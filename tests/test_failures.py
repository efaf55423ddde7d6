"""Issue 13's defects, each proven through the public contract (the HTTP routes in process, and the Lambda
handler where the caller or the time budget matters): the status, the `{"error"}` body without traceback
text, and the stored session unchanged after every failure.

Provider faults go through the real `openai-chat:` and `openai:` adapters and SDK to a fake provider on
loopback (tests/fakes/openai_server.py).
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote

import pytest
from pydantic_ai import models
from pydantic_ai.messages import ModelRequest, ToolCallPart, ToolReturnPart
from pydantic_ai.models import Model, infer_model

import handlers.api as lambda_api
from agent_core.models import resolve_model
from handlers.deps import LazyServices
from handlers.logging import logger
from service.container import Services
from storage.interface import Storage
from storage.sqlite import SQLiteStorage
from tests.events import FakeLambdaContext, http_event
from tests.fakes.openai_server import FakeOpenAIServer, Hang, RawBody, Reply, Spec, ToolCallSpec, error
from tests.helpers import AsyncApi, Script, assert_error, calls, services_for, stored, translate
from tests.storage_cases import atomic_requests

MODELS = ["openai-chat:gpt-4.1", "openai:gpt-4.1"]
KEY = "sk-fake-0123456789abcdefSECRET"
TASK = "Translate doc.md into French."


# -- provider faults -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(lambda body: Reply(text="Ready.")) as fake:
        yield fake


@pytest.fixture
def provider(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """The fake provider behind OPENAI_BASE_URL, answering "Ready." until a test says otherwise."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    answer(server, Reply(text="Ready."))
    server.requests.clear()
    with models.override_allow_model_requests(True):
        yield server
    assert not server.failures


def answer(server: FakeOpenAIServer, *specs: Spec) -> None:
    """The provider answers these, in order, then the last one again and again."""
    queue = list(specs)
    server.policy = lambda body: queue.pop(0) if len(queue) > 1 else queue[0]


def provider_model(name: str) -> Model:
    return infer_model(name)  # built after the env points at the fake server (resolve_model caches)


MALFORMED = [
    (
        "openai:gpt-4.1",
        {"id": "resp_1", "object": "response", "created_at": 0, "model": "gpt-4.1", "status": "completed"},
    ),
    (
        "openai-chat:gpt-4.1",
        {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-4.1", "choices": None},
    ),
    ("openai:gpt-4.1", "this is not JSON"),
    ("openai-chat:gpt-4.1", "this is not JSON"),
]
FAULTS: list[tuple[str, Spec, int, str]] = [
    ("429", error(429, "Rate limit reached.", type_="requests", headers={"Retry-After": "15"}), 503, "try again"),
    ("500", error(500, "The server had an error.", type_="server_error"), 503, "500"),
    ("401", error(401, f"Incorrect API key provided: {KEY}.", code="invalid_api_key"), 502, "Incorrect API key"),
    ("400", error(400, "This model's maximum context length is 128000 tokens.", code="context_length_exceeded"), 502,
     "maximum context length"),
]  # fmt: skip


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize(("label", "fault", "status", "words"), FAULTS, ids=[f[0] for f in FAULTS])
async def test_a_provider_fault_is_answered_rightly_and_changes_nothing(
    name: str, label: str, fault: Spec, status: int, words: str, provider: FakeOpenAIServer, log_lines: Lines
) -> None:
    api = AsyncApi(services_for(model=provider_model(name)))
    sid, _ = await api.start("Hello.\n")
    await api.until_user(sid, userInput=TASK)
    before = stored(api.services.storage, sid)
    answer(provider, fault)
    provider.requests.clear()
    request = {"sessionId": sid, "userInput": "Go on, please."}
    response = await api.client.post("/api/next", json=request)
    body = assert_error(response, status, words)
    assert len(provider.requests) == 1, "one attempt: the SDK does not retry inside a step"
    assert KEY not in response.text and "SECRET" not in response.text
    if status == 502:
        assert "retry-after" not in response.headers, "retrying a refusal cannot help"
        [logged] = [line for line in log_lines.lines if line["message"] == "request failed"]
        assert logged["provider_status"] == int(label) and words in logged["provider_message"]
        assert KEY not in json.dumps(log_lines.lines), "no secret in the log either"
    else:
        assert int(response.headers["retry-after"]) >= 1
        if label == "429":
            assert response.headers["retry-after"] == "15", "the provider's own Retry-After"
    assert "Traceback" not in body["error"]
    assert stored(api.services.storage, sid) == before
    answer(provider, Reply(text="Done."))
    assert (await api.client.post("/api/next", json=request)).status_code == 200, "the same request, recovered"


@pytest.mark.parametrize(
    ("name", "raw"), MALFORMED, ids=["responses-no-output", "chat-no-choices", "resp-text", "chat-text"]
)
async def test_a_malformed_provider_body_is_503_never_500(name: str, raw: Any, provider: FakeOpenAIServer) -> None:
    api = AsyncApi(services_for(model=provider_model(name)))
    sid, _ = await api.start("Hello.\n")
    before = stored(api.services.storage, sid)
    answer(provider, RawBody(raw if isinstance(raw, str) else json.dumps(raw)))
    response = await api.client.post("/api/next", json={"sessionId": sid, "userInput": TASK})
    assert_error(response, 503)
    assert int(response.headers["retry-after"]) >= 1
    assert stored(api.services.storage, sid) == before
    answer(provider, Reply(text="Ready."))
    assert (await api.client.post("/api/next", json={"sessionId": sid, "userInput": TASK})).status_code == 200


@contextmanager
def lambda_app(services: Services) -> Iterator[Callable[..., dict[str, Any]]]:
    """The Lambda handler over `services`: `call(method, path, body, sub=…, remaining_ms=…)`."""
    previous = lambda_api.app.state.services
    lambda_api.app.state.services = LazyServices(services)

    def call(method: str, path: str, body: Any = None, *, sub: str | None = "user-alice", remaining_ms: int = 60_000,
             **event: Any) -> dict[str, Any]:  # fmt: skip
        result: dict[str, Any] = lambda_api.handler(
            http_event(method, path, body, sub=sub, **event), FakeLambdaContext(remaining_ms=remaining_ms)
        )
        return result

    try:
        yield call
    finally:
        lambda_api.app.state.services = previous


def ok(result: dict[str, Any]) -> Any:
    assert result["statusCode"] < 300, result
    return json.loads(result["body"]) if result.get("body") else None


@pytest.mark.parametrize("name", MODELS)
def test_a_hung_provider_is_504_with_retry_after_within_the_invocations_time(
    name: str, provider: FakeOpenAIServer
) -> None:
    services = services_for(model=provider_model(name), min_model_seconds=1.0)
    with lambda_app(services) as call:
        sid = ok(call("POST", "/api/sessions"))["id"]
        ok(call("POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": "Hello.\n"}))
        ok(call("POST", "/api/next", {"sessionId": sid, "userInput": TASK}))
        before = stored(services.storage, sid)
        answer(provider, Hang(4, then=Reply(text="late")))
        request = {"sessionId": sid, "userInput": "Go on, please."}
        result = call("POST", "/api/next", request, remaining_ms=4_500)  # 1.5 s for the model, 3 s for the commit
        assert result["statusCode"] == 504, result
        assert set(json.loads(result["body"])) == {"error"} and "Traceback" not in result["body"]
        assert int(result["headers"]["retry-after"]) >= 1
        assert stored(services.storage, sid) == before
        answer(provider, Reply(text="Done."))
        assert call("POST", "/api/next", request)["statusCode"] == 200


# -- tool calls --------------------------------------------------------------------------------------------


def returns_seen(script: Script) -> list[ToolReturnPart]:
    """The tool returns in the last request the scripted model was sent."""
    last = script.seen[-1][-1]
    assert isinstance(last, ModelRequest)
    return [p for p in last.parts if isinstance(p, ToolReturnPart)]


async def test_calls_sharing_an_id_are_each_reviewed() -> None:
    script = Script()
    api = AsyncApi(services_for(model=script.model))
    sid, fid = await api.start("One.\n\nTwo.\n")
    script.replies += [
        calls(translate(fid, "One.", "Un.", call_id="same"), translate(fid, "Two.", "Deux.", call_id="same"))
    ]
    agent = await api.until_user(sid, userInput=TASK)
    first, second = agent["copilotRequests"]
    assert first["tool"]["callId"] != second["tool"]["callId"]
    assert (first["src_string"], second["src_string"]) == ("One.", "Two.")
    agent = await api.until_user(sid, copilotResponses=[{"tool": first["tool"], "status": "approve"}])
    assert [r["tool"] for r in agent["copilotRequests"]] == [second["tool"]], "the second still waits for its review"
    assert [u["text"] for u in (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/units"))["units"]] == []
    verdict = {"tool": second["tool"], "status": "refined", "translated_string": "Deux !"}
    await api.until_user(sid, copilotResponses=[verdict])
    units = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/units"))["units"]
    assert [(u["text"], u["status"]) for u in units] == [("Un.", "approve"), ("Deux !", "refined")]
    assert len({u["callId"] for u in units}) == 2
    answered = {
        p.tool_call_id
        for m in api.services.storage.list_messages(sid, cursor=None, limit=100).items
        if isinstance(m, ModelRequest)
        for p in m.parts
        if isinstance(p, ToolReturnPart)
    }
    assert len(answered) == 2, "each call gets its own return"


async def test_truncated_arguments_are_reported_as_invalid_json() -> None:
    script = Script()
    api = AsyncApi(services_for(model=script.model))
    sid, _ = await api.start("One.\n")
    script.replies += [calls(ToolCallPart("Translate", '{"file_id": "f_', tool_call_id="cut"))]
    await api.until_user(sid, userInput=TASK)
    [returned] = [r for r in returns_seen(script) if r.tool_call_id == "cut"]
    assert isinstance(returned.content, str) and "not valid JSON" in returned.content
    assert "missing" not in returned.content.lower() and "field required" not in returned.content.lower()


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize(
    ("tool", "arguments", "words"),
    [("Frobnicate", "{}", "Unknown tool 'Frobnicate'"), ("Translate", '{"file_id": "f_', "not valid JSON")],
    ids=["unknown-tool", "truncated"],
)
async def test_a_failed_call_reaches_the_provider_as_plain_text(
    name: str, tool: str, arguments: str, words: str, provider: FakeOpenAIServer
) -> None:
    api = AsyncApi(services_for(model=provider_model(name)))
    sid, _ = await api.start("One.\n")
    answer(provider, Reply(tool_calls=(ToolCallSpec(tool, arguments, "call_1"),)), Reply(text="Sorry."))
    await api.until_user(sid, userInput=TASK)
    last = provider.requests[-1].body
    if name.startswith("openai-chat"):
        [content] = [m["content"] for m in last["messages"] if m["role"] == "tool"]
    else:
        [content] = [i["output"] for i in last["input"] if i.get("type") == "function_call_output"]
    # pydantic-ai wraps a failed return in `{"error": …}` where the provider has no error flag: once.
    message = json.loads(content)["error"] if content.startswith("{") else content
    assert isinstance(message, str) and words in message, content
    assert not message.startswith(("{", '"')) and '\\"' not in content, "the message is plain text, encoded once"


# -- text and storage --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["документ.md", "日本語.txt", "we\"ird; name%20'*.md"])
async def test_a_download_of_any_name_has_an_ascii_name_and_the_exact_one(name: str) -> None:
    script = Script()
    api = AsyncApi(services_for(model=script.model))
    sid, fid = await api.start("Привет.\n", name=name)
    script.replies += [calls(translate(fid, "Привет.", "Bonjour.", call_id="a"))]
    agent = await api.until_user(sid, userInput=TASK)
    await api.until_user(sid, copilotResponses=[{"tool": agent["copilotRequests"][0]["tool"], "status": "approve"}])
    stem, _, extension = name.rpartition(".")
    for path in ("translation", "export?format=xliff2", "export?format=tmx"):
        response = await api.client.get(f"/api/sessions/{sid}/files/{fid}/{path}")
        assert response.status_code == 200, (path, response.text)
        disposition = response.headers["content-disposition"]
        disposition.encode("ascii")
        plain = disposition.split('filename="', 1)[1].split('"', 1)[0]
        assert plain and plain.isascii() and "\\" not in plain
        exact = unquote(disposition.split("filename*=UTF-8''", 1)[1].split(";", 1)[0], errors="strict")
        assert exact.startswith(stem), (exact, name)
        if path == "translation":
            assert exact.endswith("." + extension) and response.text == "Bonjour.\n"


def raw(body: str) -> bytes:
    return body.encode("ascii")  # a JSON text whose \\ud800 escape is a lone surrogate once parsed


async def test_a_lone_surrogate_anywhere_is_422_and_changes_nothing() -> None:
    script = Script()
    api = AsyncApi(services_for(model=script.model))
    sid, fid = await api.start("One.\n")
    script.replies += [calls(translate(fid, "One.", "Un.", call_id="a"))]
    await api.until_user(sid, userInput=TASK)
    before = stored(api.services.storage, sid)
    headers = {"content-type": "application/json"}
    bodies = [
        (f"/api/sessions/{sid}/files", '{"name": "a.md", "content": "x\\ud800y"}'),
        (f"/api/sessions/{sid}/files", '{"name": "\\udfff.md", "content": "x"}'),
        ("/api/next", f'{{"sessionId": "{sid}", "userInput": "hi \\ud800"}}'),
        ("/api/next", f'{{"sessionId": "{sid}", "copilotResponses": [{{"tool": {{"name": "Translate", "callId": "a"}}, '
         '"status": "refined", "translated_string": "Un\\ud800."}]}'),
        ("/api/next", f'{{"sessionId": "{sid}", "copilotResponses": [{{"tool": {{"name": "Translate", "callId": "a"}}, '
         '"status": "reject", "reason": "\\ud800"}]}'),
    ]  # fmt: skip
    for path, body in bodies:
        response = await api.client.post(path, content=raw(body), headers=headers)
        assert_error(response, 422)
        assert stored(api.services.storage, sid) == before, body


def cursor_of(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode()


HUGE = 10**30
CURSORS = [
    ["m", HUGE],
    ["s", HUGE, HUGE],
    ["s", "x", HUGE],
    {"i": HUGE},
    {"i": -HUGE},
    {"b": HUGE, "k": "x"},
    {"pk": HUGE},
]


@pytest.mark.parametrize("backend", ["sqlite", "dynamodb"])
async def test_a_huge_integer_in_a_cursor_is_422(backend: str, request: pytest.FixtureRequest, tmp_path: Any) -> None:
    storage = backend_of(backend, request, tmp_path)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid, _ = await api.start("One.\n")
    before = stored(storage, sid)
    for value in CURSORS:
        for path in (f"/api/sessions/{sid}/messages", "/api/sessions"):
            response = await api.client.get(path, params={"cursor": cursor_of(value)})
            assert_error(response, 422, "cursor")
    assert stored(storage, sid) == before


def backend_of(name: str, request: pytest.FixtureRequest, tmp_path: Any) -> Storage:
    """A fresh SQLite file, or a DynamoDB table under moto."""
    if name == "sqlite":
        return SQLiteStorage(str(tmp_path / "sessions.sqlite3"))
    from tests.conftest import make_backend

    request.getfixturevalue("moto_table")
    backend = make_backend("dynamodb", tmp_path)
    assert isinstance(backend, Storage)
    return backend


@pytest.mark.parametrize("backend", ["sqlite", "dynamodb"])
async def test_deleting_a_session_deletes_its_idempotent_answers(
    backend: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    storage = backend_of(backend, request, tmp_path)
    script = Script()
    api = AsyncApi(services_for(storage, model=script.model))
    sid, fid = await api.start("A secret sentence.\n")
    script.replies += [calls(translate(fid, "A secret sentence.", "Une phrase secrète.", call_id="a"))]
    body, key = {"sessionId": sid, "userInput": TASK}, {"Idempotency-Key": "k-1"}
    first = await api.client.post("/api/next", json=body, headers=key)
    assert first.status_code == 200
    replay = await api.client.post("/api/next", json=body, headers=key)
    assert replay.headers.get("idempotent-replayed") == "true" and replay.text == first.text
    assert (await api.client.delete(f"/api/sessions/{sid}")).status_code == 204
    after = await api.client.post("/api/next", json=body, headers=key)
    assert_error(after, 404)
    assert "idempotent-replayed" not in after.headers and "secret" not in after.text
    assert storage.get_answer("local", "k-1", now=0) is None


async def test_a_replaced_verdict_is_counted_once() -> None:
    script = Script()
    api = AsyncApi(services_for(model=script.model))
    sid, fid = await api.start("One.\n\nTwo.\n")
    script.replies += [calls(translate(fid, "One.", "Un.", call_id="a"), translate(fid, "Two.", "Deux.", call_id="b"))]
    first, second = (await api.until_user(sid, userInput=TASK))["copilotRequests"]

    async def count() -> int:
        [item] = (await api.ok("GET", "/api/sessions"))["sessions"]
        return int(item["copilotResponseCount"])

    await api.next(sid, copilotResponses=[{"tool": first["tool"], "status": "approve"}])
    assert await count() == 1
    await api.next(sid, copilotResponses=[{"tool": first["tool"], "status": "refined", "translated_string": "Une."}])
    assert await count() == 1, "the replaced verdict is the same response"
    await api.until_user(sid, copilotResponses=[{"tool": second["tool"], "status": "approve"}])
    assert await count() == 2
    units = (await api.ok("GET", f"/api/sessions/{sid}/files/{fid}/units"))["units"]
    assert [u["text"] for u in units] == ["Une.", "Deux."]


@pytest.mark.parametrize("backend", ["sqlite", "dynamodb"])
async def test_parallel_uploads_store_exactly_the_cap(
    backend: str, request: pytest.FixtureRequest, tmp_path: Any
) -> None:
    storage = backend_of(backend, request, tmp_path)
    atomic_requests(storage)
    api = AsyncApi(services_for(storage, model=resolve_model("pseudo")))
    sid = (await api.ok("POST", "/api/sessions"))["id"]
    uploads = [
        api.client.post(f"/api/sessions/{sid}/files", json={"name": f"f{i}.md", "content": f"Text {i}.\n"})
        for i in range(60)
    ]
    responses = await asyncio.gather(*uploads)
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [201] * 20 + [422] * 40, statuses
    for refused in (r for r in responses if r.status_code == 422):
        assert_error(refused, 422)
    view = await api.ok("GET", f"/api/sessions/{sid}")
    assert len(view["files"]) == 20
    assert {f["fileId"] for f in view["files"]} == {r.json()["fileId"] for r in responses if r.status_code == 201}


# -- identity and logs -------------------------------------------------------------------------------------


def test_the_sub_is_compared_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    services = services_for(model=resolve_model("pseudo"))
    with lambda_app(services) as call:
        sid = ok(call("POST", "/api/sessions", sub="user-alice"))["id"]
        for other in (" user-alice\t", "user-alice ", "User-Alice", "user-alice\n"):
            assert ok(call("GET", "/api/sessions", sub=other))["sessions"] == [], repr(other)
            result = call("GET", f"/api/sessions/{sid}", sub=other)
            assert result["statusCode"] == 404 and set(json.loads(result["body"])) == {"error"}, repr(other)
            assert call("DELETE", f"/api/sessions/{sid}", sub=other)["statusCode"] == 404
        padded = ok(call("POST", "/api/sessions", sub=" user-alice\t"))["id"]
        assert services.storage.get_session(padded).owner == " user-alice\t", "stored exactly as given"
        assert [s["id"] for s in ok(call("GET", "/api/sessions", sub="user-alice"))["sessions"]] == [sid]
        monkeypatch.setenv("REQUIRE_AUTH", "true")
        for nobody in ("", "   ", "\t"):
            result = call("GET", "/api/sessions", sub=nobody)
            assert result["statusCode"] == 401 and set(json.loads(result["body"])) == {"error"}, repr(nobody)


class Lines(logging.Handler):
    """The logger's lines, as the JSON objects Powertools writes."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(json.loads(logger.registered_formatter.format(record)))


@pytest.fixture
def log_lines() -> Iterator[Lines]:
    handler = Lines()
    target = logging.getLogger(logger.name)
    level = target.level
    target.addHandler(handler)
    logger.setLevel("INFO")
    try:
        yield handler
    finally:
        target.removeHandler(handler)
        target.setLevel(level)


async def test_a_requests_log_lines_carry_no_earlier_requests_session_id(log_lines: Lines) -> None:
    api = AsyncApi(services_for(model=resolve_model("pseudo")))
    sid, _ = await api.start("One.\n")
    await api.next(sid, userInput=TASK)
    assert [line.get("session_id") for line in log_lines.lines if line["message"] == "step"] == [sid]
    del log_lines.lines[:]
    missing = "s_" + "0" * 32
    assert_error(await api.client.post("/api/next", json={"sessionId": missing, "userInput": TASK}), 404)
    assert_error(await api.client.get(f"/api/sessions/{missing}"), 404)
    assert len(log_lines.lines) >= 2 and all("session_id" not in line for line in log_lines.lines), log_lines.lines
    other, _ = await api.start("Two.\n")
    await api.next(other, userInput=TASK)
    assert {line.get("session_id") for line in log_lines.lines if line["message"] == "step"} == {other}
