"""The API's request bodies (unknown fields are rejected) and response shapes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ToolCallPart
from pydantic_core import to_jsonable_python

from agent_core.copilot import CopilotRequest, CopilotResponse
from agent_core.document import FileState

if TYPE_CHECKING:  # the agent loop and storage are imported with the services, on first use
    from agent_core.runtime import StepOutcome
    from storage.records import FileRecord, SessionRecord

MAX_USER_INPUT = 20_000


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NextRequest(_Body):
    """`POST /api/next`: advance a session by one step."""

    sessionId: str | None = Field(default=None, max_length=64)
    userInput: str | None = Field(default=None, min_length=1, max_length=MAX_USER_INPUT)
    copilotResponses: list[CopilotResponse] | None = Field(default=None, max_length=50)

    @model_validator(mode="after")
    def _one_input(self) -> NextRequest:
        if self.userInput is not None and self.copilotResponses is not None:
            raise ValueError("send either userInput or copilotResponses, not both")
        return self


class FileUpload(_Body):
    """`POST /api/sessions/{id}/files`: a document to translate."""

    name: str = Field(min_length=1, max_length=255)
    content: str


def messages_json(messages: Sequence[ModelMessage]) -> list[Any]:
    """Messages as pydantic-ai JSON (ModelMessagesTypeAdapter)."""
    result: list[Any] = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    return result


def tool_calls_json(calls: Sequence[ToolCallPart]) -> list[Any]:
    """Tool call parts as pydantic-ai JSON."""
    return [to_jsonable_python(c) for c in calls]


def copilot_requests_json(requests: Sequence[CopilotRequest]) -> list[Any]:
    """Copilot requests as API.md shows them (`callId`)."""
    return [r.model_dump(mode="json", by_alias=True) for r in requests]


def progress_json(state: FileState) -> dict[str, Any]:
    """A file's progress."""
    return {"translatedChars": state.translated_chars, "totalChars": state.chars, "complete": state.complete}


def file_json(state: FileState) -> dict[str, Any]:
    """A file with its progress, as the session view lists it."""
    return {"fileId": state.file_id, "name": state.name, "chars": state.chars, "progress": progress_json(state)}


def state_of(record: FileRecord) -> FileState:
    """A stored file as the agent's FileState."""
    return FileState(file_id=record.file_id, name=record.name, chars=record.chars, covered=record.covered)


def session_item_json(record: SessionRecord) -> dict[str, Any]:
    """A session in the list."""
    return {
        "id": record.session_id,
        "messageCount": record.message_count,
        "copilotResponseCount": record.copilot_response_count,
        "createdAt": record.created_at,
        "updatedAt": record.updated_at,
        "title": (record.user_inputs[0][:80] if record.user_inputs else None),
    }


def step_json(outcome: StepOutcome) -> dict[str, Any]:
    """The answer to `POST /api/next` (API.md), with the files' progress."""
    result = outcome.result
    return {
        "sessionId": outcome.session_id,
        "agentResponse": {
            "actor": result.actor,
            "messages": messages_json(result.messages),
            "unprocessedToolCalls": tool_calls_json(result.unprocessed_tool_calls),
            "copilotRequests": copilot_requests_json(result.copilot_requests),
            "finishReason": result.finish_reason,
        },
        "progress": [file_json(f) for f in outcome.files],
    }
