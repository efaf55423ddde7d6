"""A model that answers nothing (no text, no tool call): `AGENT_MODEL=python:tests.fakes.empty_model:empty_model`."""

from __future__ import annotations

from collections.abc import AsyncIterator

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


def _nothing(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("")])


async def _nothing_streamed(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield ""


def empty_model() -> FunctionModel:
    """A new model that always answers an empty text, plainly or streamed."""
    return FunctionModel(_nothing, stream_function=_nothing_streamed)
