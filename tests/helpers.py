"""Test doubles: a scripted model, and the production services over a fast in-memory SQLite store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
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
        state = sessions.add_file(self.owner, self.session_id, FileUpload(name=name, content=content))
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
