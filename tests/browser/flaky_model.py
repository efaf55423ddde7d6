"""A provider that fails by target language, for the browser test of a job's waiting and failed languages.

`AGENT_MODELS=python:tests.browser.flaky_model:flaky_model,pseudo` offers it first (the default) and the
offline model second. It decides as the pseudo model does, except that a session translating into Polish
is refused for good (401, as a rejected key is), one into French is throttled once (429 with a
Retry-After of `FLAKY_RETRY_SECONDS`), then served, one into Spanish says it is done without
translating anything (the silent finish a reviewer must be told of), and one into Italian keeps proposing
a segment that does not exist (every Translate call refused: steps without a proposal or progress). The
server process holds the count.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import AsyncIterator

from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel

from agent_core.pseudo import PseudoModel

RETRY_SECONDS = float(os.environ.get("FLAKY_RETRY_SECONDS", "8"))
_throttled: set[str] = set()
"""The languages already throttled once in this process."""
_calls = itertools.count(1)
"""The refused calls' ids, unique in this process."""


def _language(messages: list[ModelMessage]) -> str:
    """The language the session's task names ("Translate guide.md into French.")."""
    for message in messages:
        for part in getattr(message, "parts", []):
            content = getattr(part, "content", None)
            if isinstance(content, str) and " into " in content:
                return content.rsplit(" into ", 1)[1].split(".")[0].strip()
    return ""


def _fail_for(language: str) -> None:
    if language == "Polish":
        raise ModelHTTPError(401, "flaky", {"error": {"message": "Incorrect API key provided."}})
    if language == "French" and language not in _throttled:
        _throttled.add(language)
        raise ModelHTTPError(429, "flaky", {"error": {"message": "Rate limit reached."}}, retry_after=RETRY_SECONDS)


async def _whole(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    language = _language(messages)
    _fail_for(language)
    if language == "Spanish":
        return ModelResponse(parts=[TextPart("The translation is complete.")], model_name="flaky")
    if language == "Italian":
        args = {"file_id": "f1", "segments": ["s9999"], "translate_string": "Ciao."}
        call = ToolCallPart("Translate", args, tool_call_id=f"refused_{next(_calls)}")
        return ModelResponse(parts=[call], model_name="flaky")
    return await PseudoModel().request(messages, None, ModelRequestParameters())


async def _stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    response = await _whole(messages, info)
    calls = [p for p in response.parts if isinstance(p, ToolCallPart)]
    for part in response.parts:
        if isinstance(part, TextPart):
            yield part.content
    for index, call in enumerate(calls):
        args = call.args if isinstance(call.args, str) else call.args_as_json_str()
        yield {index + 1: DeltaToolCall(name=call.tool_name, json_args=args, tool_call_id=call.tool_call_id)}


def flaky_model() -> FunctionModel:
    """The factory `python:tests.browser.flaky_model:flaky_model` names."""
    return FunctionModel(_whole, stream_function=_stream, model_name="flaky")
