"""A model that streams slowly, for the browser test of streamed proposals (`AGENT_MODEL=python:…:slow_model`).

It decides as the offline pseudo model does, then streams that answer: a sentence of text, then
each Translate call's JSON arguments a few characters at a time, over about `STREAM_SECONDS`.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from agent_core.pseudo import PseudoModel

STREAM_SECONDS = float(os.environ.get("SLOW_MODEL_SECONDS", "2.5"))
PIECE = 6
"""Characters of arguments per streamed piece."""
INTRO = "Here are the next units."


async def _decide(messages: list[ModelMessage]) -> ModelResponse:
    return await PseudoModel().request(messages, None, ModelRequestParameters())


async def _whole(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return await _decide(messages)


async def _stream(
    messages: list[ModelMessage], info: AgentInfo, seconds: float = STREAM_SECONDS
) -> AsyncIterator[str | DeltaToolCalls]:
    response = await _decide(messages)
    calls = [p for p in response.parts if isinstance(p, ToolCallPart)]
    texts = [p.content for p in response.parts if isinstance(p, TextPart)]
    if not calls:
        for text in texts:
            yield text
        return
    pieces: list[str | DeltaToolCalls] = [INTRO]
    for index, call in enumerate(calls):
        args = call.args if isinstance(call.args, str) else json.dumps(call.args, ensure_ascii=False)
        for n, start in enumerate(range(0, len(args), PIECE)):
            first = n == 0
            delta = DeltaToolCall(
                name=call.tool_name if first else None,
                json_args=args[start : start + PIECE],
                tool_call_id=call.tool_call_id if first else None,
            )
            pieces.append({index + 1: delta})
    pause = seconds / len(pieces)
    for piece in pieces:
        yield piece
        await asyncio.sleep(pause)


def slow_model(seconds: float = STREAM_SECONDS) -> FunctionModel:
    """The factory `AGENT_MODEL=python:tests.browser.slow_model:slow_model` names (streaming over `seconds`)."""

    def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        return _stream(messages, info, seconds)

    return FunctionModel(_whole, stream_function=stream, model_name="slow-stream")
