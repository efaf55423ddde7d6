"""The agent's and storage's values as the API's bodies (service.schemas)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_core import to_jsonable_python

from agent_core.document import FileState
from agent_core.runtime import StepOutcome
from storage.records import SessionRecord

from .schemas import AgentResponse, FileSummary, Progress, SessionItem, StepResponse


def messages_json(messages: Sequence[ModelMessage]) -> list[dict[str, Any]]:
    """Messages as pydantic-ai JSON (ModelMessagesTypeAdapter)."""
    result: list[dict[str, Any]] = ModelMessagesTypeAdapter.dump_python(list(messages), mode="json")
    return result


def progress(state: FileState) -> Progress:
    """A file's progress."""
    return Progress(translatedChars=state.translated_chars, totalChars=state.chars, complete=state.complete)


def file_summary(state: FileState) -> FileSummary:
    """A file with its progress."""
    return FileSummary(fileId=state.file_id, name=state.name, chars=state.chars, progress=progress(state))


def session_item(record: SessionRecord) -> SessionItem:
    """A session in the list."""
    return SessionItem(
        id=record.session_id,
        messageCount=record.message_count,
        copilotResponseCount=record.copilot_response_count,
        createdAt=record.created_at,
        updatedAt=record.updated_at,
        title=record.user_inputs[0][:80] if record.user_inputs else None,
    )


def step_response(outcome: StepOutcome) -> StepResponse:
    """The answer to `POST /api/next` (API.md), with the files' progress."""
    result = outcome.result
    return StepResponse(
        sessionId=outcome.session_id,
        agentResponse=AgentResponse(
            actor=result.actor,
            messages=messages_json(result.messages),
            unprocessedToolCalls=[to_jsonable_python(c) for c in result.unprocessed_tool_calls],
            copilotRequests=list(result.copilot_requests),
            finishReason=result.finish_reason,
            notice=result.notice,
        ),
        progress=[file_summary(f) for f in outcome.files],
    )
