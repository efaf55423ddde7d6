"""Provider faults through `call_model`, with the real `openai-chat:` and `openai:` adapters and SDK over loopback."""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Iterator

import pytest
from pydantic_ai import models
from pydantic_ai.messages import ModelRequest, SystemPromptPart, ToolCallPart, UserPromptPart
from pydantic_ai.models import Model, ModelRequestParameters, infer_model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import ToolDefinition

from agent_core.errors import (
    ModelRefusedError,
    ModelResponseError,
    ModelTimeoutError,
    ModelUnavailableError,
    StepTimeoutError,
)
from agent_core.models import call_model
from agent_core.pseudo import PseudoModel
from tests.fakes.openai_server import FakeOpenAIServer, Hang, RawBody, Reply, Spec, ToolCallSpec, UsageSpec, error

MODELS = ["openai-chat:gpt-4.1", "openai:gpt-4.1"]
KEY = "sk-proj-abcdef1234567890SECRET"
PARAMS = ModelRequestParameters(
    function_tools=[
        ToolDefinition(
            name="Read",
            description="Read a file.",
            parameters_json_schema={"type": "object", "properties": {"file_id": {"type": "string"}}},
        )
    ],
    allow_text_output=True,
)
MESSAGES = [ModelRequest(parts=[SystemPromptPart("You translate."), UserPromptPart("Translate doc.md.")])]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(lambda body: Reply(text="ok")) as fake:
        yield fake


@pytest.fixture(autouse=True)
def provider(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.requests.clear()
    with models.override_allow_model_requests(True):
        yield
    assert not server.failures


def answer(server: FakeOpenAIServer, spec: Spec) -> None:
    server.policy = lambda body: spec


def model(name: str) -> Model:
    return infer_model(name)  # not resolve_model's cache: each test module has its own server


@pytest.mark.parametrize("name", MODELS)
async def test_429_is_unavailable_with_the_providers_retry_after_and_no_sdk_retry(
    name: str, server: FakeOpenAIServer
) -> None:
    answer(
        server,
        error(429, "Rate limit reached.", type_="requests", code="rate_limit_exceeded", headers={"Retry-After": "15"}),
    )
    started = time.perf_counter()
    with pytest.raises(ModelUnavailableError) as caught:
        await call_model(model(name), MESSAGES, None, PARAMS, timeout=30)
    assert caught.value.retry_after == 15
    assert not isinstance(caught.value, ModelResponseError)
    assert len(server.requests) == 1  # the SDK did not retry inside the step
    assert time.perf_counter() - started < 5


@pytest.mark.parametrize("name", MODELS)
async def test_500_is_unavailable_after_one_attempt(name: str, server: FakeOpenAIServer) -> None:
    answer(server, error(500, "The server had an error.", type_="server_error"))
    with pytest.raises(ModelUnavailableError) as caught:
        await call_model(model(name), MESSAGES, None, PARAMS, timeout=30)
    assert "500" in str(caught.value)
    assert len(server.requests) == 1


@pytest.mark.parametrize("name", MODELS)
async def test_401_is_refused_with_the_providers_message_without_the_key(name: str, server: FakeOpenAIServer) -> None:
    message = f"Incorrect API key provided: {KEY}. You can find your API key at https://platform.openai.com."
    answer(server, error(401, message, code="invalid_api_key"))
    with pytest.raises(ModelRefusedError) as caught:
        await call_model(model(name), MESSAGES, None, PARAMS, timeout=30)
    refused = caught.value
    assert refused.provider_status == 401
    assert "Incorrect API key provided" in refused.provider_message
    assert "SECRET" not in refused.provider_message and "SECRET" not in str(refused)
    assert "401" in str(refused)
    assert not hasattr(refused, "retry_after")
    assert len(server.requests) == 1


@pytest.mark.parametrize("name", MODELS)
async def test_400_context_too_long_is_refused(name: str, server: FakeOpenAIServer) -> None:
    message = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens."
    answer(server, error(400, message, code="context_length_exceeded"))
    with pytest.raises(ModelRefusedError) as caught:
        await call_model(model(name), MESSAGES, None, PARAMS, timeout=30)
    assert caught.value.provider_status == 400
    assert "maximum context length" in caught.value.provider_message


@pytest.mark.parametrize(("status", "code"), [(404, "model_not_found"), (403, None), (422, None)])
async def test_other_permanent_statuses_are_refused(status: int, code: str | None, server: FakeOpenAIServer) -> None:
    answer(server, error(status, f"Refused with {status}.", code=code))
    with pytest.raises(ModelRefusedError) as caught:
        await call_model(model("openai-chat:gpt-4.1"), MESSAGES, None, PARAMS, timeout=30)
    assert caught.value.provider_status == status
    assert caught.value.provider_message == f"Refused with {status}."


@pytest.mark.parametrize("name", MODELS)
async def test_a_hung_provider_ends_at_the_callers_timeout(name: str, server: FakeOpenAIServer) -> None:
    answer(server, Hang(10, then=Reply(text="late")))
    started = time.perf_counter()
    with pytest.raises(ModelTimeoutError) as caught:
        await call_model(model(name), MESSAGES, None, PARAMS, timeout=0.5)
    assert isinstance(caught.value, StepTimeoutError)
    assert time.perf_counter() - started < 3
    assert len(server.requests) == 1


async def test_no_time_left_makes_no_request(server: FakeOpenAIServer) -> None:
    with pytest.raises(ModelTimeoutError):
        await call_model(model("openai-chat:gpt-4.1"), MESSAGES, None, PARAMS, timeout=0)
    assert server.requests == []


@pytest.mark.parametrize(
    ("name", "body"),
    [
        (
            "openai:gpt-4.1",
            {"id": "resp_1", "object": "response", "created_at": 0, "model": "gpt-4.1", "status": "completed"},
        ),
        (
            "openai-chat:gpt-4.1",
            {"id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-4.1", "choices": None},
        ),
        ("openai-chat:gpt-4.1", "this is not JSON"),
        ("openai:gpt-4.1", "this is not JSON"),
    ],
)
async def test_a_malformed_body_is_a_response_error(name: str, body: object, server: FakeOpenAIServer) -> None:
    answer(server, RawBody(body if isinstance(body, str) else json.dumps(body)))
    with pytest.raises(ModelResponseError) as caught:
        await call_model(model(name), MESSAGES, None, PARAMS, timeout=30)
    assert isinstance(caught.value, ModelUnavailableError)  # retryable: 503
    assert len(server.requests) == 1


@pytest.mark.parametrize("name", MODELS)
async def test_truncated_arguments_and_duplicate_ids_reach_the_loop_as_sent(
    name: str, server: FakeOpenAIServer
) -> None:
    calls = (
        ToolCallSpec("Read", '{"file_id": "f_1"}', "call_same"),
        ToolCallSpec("Read", '{"file_id": "f_', "call_same"),
    )
    answer(server, Reply(tool_calls=calls, finish_reason="length", usage=UsageSpec(100, 4000, 64)))
    response = await call_model(model(name), MESSAGES, None, PARAMS, timeout=30)
    parts = [p for p in response.parts if isinstance(p, ToolCallPart)]
    assert [p.tool_call_id for p in parts] == ["call_same", "call_same"]
    assert response.finish_reason == "length"
    # pydantic-ai does not raise on cut-off JSON: it hands the raw text back under INVALID_JSON, which
    # the loop must report to the model as truncated JSON (not as missing fields).
    assert parts[1].args_as_dict() == {"INVALID_JSON": '{"file_id": "f_'}
    assert response.usage.cache_read_tokens == 64


async def test_the_request_carries_the_callers_settings_and_no_retries(server: FakeOpenAIServer) -> None:
    settings = {"openai_prompt_cache_key": "s_123", "max_tokens": 500}
    await call_model(model("openai-chat:gpt-4.1"), MESSAGES, settings, PARAMS, timeout=30)  # type: ignore[arg-type]
    body = server.requests[0].body
    assert body["prompt_cache_key"] == "s_123"
    assert body["max_completion_tokens"] == 500
    assert [t["function"]["name"] for t in body["tools"]] == ["Read"]


async def test_offline_models_take_the_settings_without_warnings() -> None:
    def text(messages: list[object], info: AgentInfo) -> object:
        from pydantic_ai.messages import ModelResponse, TextPart

        return ModelResponse(parts=[TextPart("done")])

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        await call_model(FunctionModel(text), MESSAGES, None, PARAMS, timeout=5)  # type: ignore[arg-type]
        await call_model(PseudoModel(), MESSAGES, None, PARAMS, timeout=5)
