"""Test doubles: a scripted model, and the production services over a fast in-memory SQLite store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_core.distill import RuleDistiller
from agent_core.runtime import AgentRuntime
from service.container import Services, build_services
from service.schemas import FileUpload
from storage.interface import Storage
from storage.sqlite import SQLiteStorage


def services_for(storage: Storage | None = None, *, model: Model | None = None, **options: Any) -> Services:
    """`build_services` as production wires it, over `storage` (SQLite in memory by default); the
    deterministic rules distil unless a distiller is given, so a scripted model is never asked to."""
    options.setdefault("distiller", RuleDistiller())
    return build_services(storage=storage or SQLiteStorage(":memory:"), model=model, **options)


@dataclass
class Script:
    """A model that answers from a list of scripted responses (or callables of the messages)."""

    replies: list[ModelResponse | Callable[[list[ModelMessage]], ModelResponse]] = field(default_factory=list)
    seen: list[list[ModelMessage]] = field(default_factory=list)
    infos: list[AgentInfo] = field(default_factory=list)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        self.infos.append(info)
        reply = self.replies.pop(0) if self.replies else ModelResponse(parts=[TextPart("done")])
        return reply(messages) if callable(reply) else reply

    @property
    def model(self) -> FunctionModel:
        return FunctionModel(self, model_name="scripted")


def translate(file_id: str, src: str, text: str | None = None, *, call_id: str) -> ToolCallPart:
    return ToolCallPart(
        "Translate",
        {"file_id": file_id, "src_string": src, "translate_string": text or f"<{src}>"},
        tool_call_id=call_id,
    )


def translate_ids(file_id: str, segments: list[str], text: str, *, call_id: str, **more: str) -> ToolCallPart:
    """A Translate call that names its segments by id, as the model is asked to."""
    args = {"file_id": file_id, "segments": segments, "translate_string": text, **more}
    return ToolCallPart("Translate", args, tool_call_id=call_id)


def calls(*parts: ToolCallPart) -> ModelResponse:
    return ModelResponse(parts=list(parts))


@dataclass
class Harness:
    """The services with a scripted model, and a session holding one file."""

    script: Script
    services: Services
    owner: str = "alice"
    session_id: str = ""
    file_id: str = ""

    @property
    def storage(self) -> Storage:
        return self.services.storage

    @property
    def runtime(self) -> AgentRuntime:
        return self.services.runtime

    def add_file(self, content: str, name: str = "doc.md") -> str:
        sessions = self.services.sessions
        if not self.session_id:
            self.session_id = sessions.create(self.owner).session_id
        state, _ = sessions.add_file(self.owner, self.session_id, FileUpload(name=name, content=content))
        self.file_id = self.file_id or state.file_id
        return state.file_id

    def translation(self, file_id: str | None = None) -> str:
        sessions = self.services.sessions
        state = sessions.file(self.owner, self.session_id, file_id or self.file_id)
        return sessions.translation(self.session_id, state)

    def history(self) -> list[Any]:
        return self.storage.list_messages(self.session_id, cursor=None, limit=1000).items


def harness(replies: Sequence[Any] = (), *, storage: Storage | None = None, owner: str = "alice") -> Harness:
    """A scripted runtime that learns from corrections with the deterministic rules (no model call)."""
    script = Script(list(replies))
    return Harness(script, services_for(storage, model=script.model), owner=owner)


# HTTP helpers (tests/test_failures.py, tests/test_properties.py): the ASGI app in process, what a
# session has stored (to prove a failed request changed nothing), and the API's error body.


@dataclass(frozen=True)
class Stored:
    """Everything stored of a session: equal before and after a request that failed. The record's
    `hold` is left out: a step the provider or the budget stopped records why on purpose (the Session
    view's `state`), without changing anything else; tests of that look at the hold itself."""

    record: Any
    version: int
    message_count: int
    messages: bytes
    verdicts: tuple[Any, ...]
    files: tuple[Any, ...]
    queued: tuple[str, ...]
    units: tuple[Any, ...]


def stored(storage: Storage, session_id: str) -> Stored:
    """The session as storage holds it (its latest 100 messages, every file's units)."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    snapshot = storage.load_step(session_id, window=100)
    return Stored(
        record=replace(storage.get_session(session_id), hold=None),
        version=snapshot.token.version,
        message_count=snapshot.token.message_count,
        messages=ModelMessagesTypeAdapter.dump_json(list(snapshot.window)),
        verdicts=tuple(snapshot.copilot_responses),
        files=tuple(snapshot.files),
        queued=tuple(snapshot.queued_inputs),
        units=tuple(u for f in snapshot.files for u in storage.list_units(session_id, f.file_id)),
    )


def assert_error(response: Any, status: int, words: str = "") -> dict[str, str]:
    """`response` is the API's error: the status, a `{"error"}` body holding `words`, no traceback."""
    assert response.status_code == status, (response.status_code, response.text)
    body: dict[str, str] = response.json()
    assert set(body) == {"error"} and words.lower() in body["error"].lower(), body
    assert "Traceback" not in response.text and 'File "' not in response.text and "/work/" not in response.text
    return body


class AsyncApi:
    """The ASGI app called in process over httpx, as the local user."""

    def __init__(self, services: Services) -> None:
        import httpx

        from handlers.app import create_app

        self.services = services
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(services)), base_url="http://t")

    async def ok(self, method: str, path: str, body: Any = None, **headers: str) -> Any:
        """A request that must succeed; its JSON body (None when empty)."""
        response = await self.client.request(method, path, json=body, headers=headers)
        assert response.status_code < 300, (response.status_code, response.text)
        return response.json() if response.content else None

    async def start(self, content: str, name: str = "doc.md") -> tuple[str, str]:
        """A new session holding one file: `(session_id, file_id)`."""
        sid = (await self.ok("POST", "/api/sessions"))["id"]
        fid = (await self.ok("POST", f"/api/sessions/{sid}/files", {"name": name, "content": content}))["fileId"]
        return sid, fid

    async def next(self, sid: str, **body: Any) -> Any:
        """One step that must succeed: its `agentResponse`."""
        return (await self.ok("POST", "/api/next", {"sessionId": sid, **body}))["agentResponse"]

    async def until_user(self, sid: str, **body: Any) -> Any:
        """Steps (the first with `body`) until the loop waits for the human: the last `agentResponse`."""
        agent = await self.next(sid, **body)
        while agent["actor"] == "agent":
            agent = await self.next(sid)
        return agent
