"""Test doubles: a scripted model, and a runtime over the in-memory backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from agent_core.runtime import AgentRuntime
from storage import SessionManager
from storage.memory import MemorySessionStorage


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
    """A runtime over an in-memory store, with a session holding one file."""

    script: Script
    storage: MemorySessionStorage
    manager: SessionManager
    runtime: AgentRuntime
    owner: str = "alice"
    session_id: str = ""
    file_id: str = ""

    def add_file(self, content: str, name: str = "doc.md") -> str:
        if not self.session_id:
            self.session_id = self.manager.create_session(self.owner).session_id
        record = self.manager.add_file(self.owner, self.session_id, name=name, content=content)
        self.file_id = self.file_id or record.file_id
        return record.file_id

    def translation(self, file_id: str | None = None) -> str:
        record = self.manager.file(self.owner, self.session_id, file_id or self.file_id)
        return self.manager.translation(self.session_id, record)

    def history(self) -> list[Any]:
        from storage.manager import load_messages

        return load_messages(self.manager.messages(self.owner, self.session_id, cursor=None, limit=1000).items)


def harness(
    replies: Sequence[Any] = (), *, storage: MemorySessionStorage | None = None, owner: str = "alice"
) -> Harness:
    """A scripted runtime that learns from corrections with the deterministic rules (no model call)."""
    script = Script(list(replies))
    storage = storage or MemorySessionStorage()
    manager = SessionManager(storage)
    runtime = AgentRuntime(manager, model=script.model, memory=manager.memory)
    return Harness(script, storage, manager, runtime, owner=owner)
