"""Model selection (`AGENT_MODEL`) and the one place a model is called.

`AGENT_MODEL` is a pydantic-ai model name (`openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`,
`bedrock:…`), `pseudo` (the offline model, the default), or `python:package.module:attr` naming a
pydantic-ai `Model` instance or a zero-argument factory of one. Provider SDKs are imported only
for the model that is configured.
"""

from __future__ import annotations

import asyncio
import importlib
import re
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from functools import lru_cache

from pydantic_ai import exceptions as ai_errors
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, infer_model
from pydantic_ai.settings import ModelSettings

from .deltas import Delta, DeltaSink, DeltaTracker
from .errors import AgentError, ModelRefusedError, ModelResponseError, ModelTimeoutError, ModelUnavailableError

DEFAULT_MODEL = "pseudo"
DEFAULT_TIMEOUT = 180.0
"""The provider deadline when the caller gives none (locally): one slow answer, not three of 600 s."""


class ModelConfigError(ValueError):
    """`AGENT_MODEL` names no usable model; the message says how to fix it."""


@lru_cache(maxsize=8)
def resolve_model(name: str | None) -> Model:
    """The pydantic-ai Model for an `AGENT_MODEL` value (cached per process)."""
    name = (name or DEFAULT_MODEL).strip()
    if name == "pseudo":
        from .pseudo import PseudoModel

        return PseudoModel()
    if name.startswith("python:"):
        return _import_model(name.removeprefix("python:"))
    try:
        return infer_model(name)
    except ai_errors.UserError as exc:
        raise ModelConfigError(f"AGENT_MODEL={name!r}: {exc}") from exc


def _import_model(target: str) -> Model:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ModelConfigError(f"AGENT_MODEL python:{target!r} must look like python:package.module:attr")
    try:
        value = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ModelConfigError(f"AGENT_MODEL python:{target}: {exc}") from exc
    model = value if isinstance(value, Model) else value() if callable(value) else None
    if not isinstance(model, Model):
        raise ModelConfigError(f"AGENT_MODEL python:{target} is not a pydantic-ai Model or a factory of one")
    return model


async def call_model(
    model: Model,
    messages: Sequence[ModelMessage],
    settings: ModelSettings | None,
    params: ModelRequestParameters,
    *,
    timeout: float | None = None,
) -> ModelResponse:
    """One model request, one attempt, within `timeout` seconds; every provider failure becomes an AgentError.

    Permanent refusals are ModelRefusedError (502), throttling and outages ModelUnavailableError with
    the provider's Retry-After (503), an unreadable answer ModelResponseError (503), no answer in time
    ModelTimeoutError (504). Nothing a provider library raises escapes as itself; an error raised by
    the caller's own code (a bug, `is_provider_failure`) escapes as itself, to answer 500.
    """
    if timeout is not None and timeout <= 0:
        raise ModelTimeoutError("No time is left to call the model; send the same request again.", timeout=timeout)
    prepared = model.prepare_messages(list(messages), params)
    try:
        # `async with` refreshes the provider's HTTP client for this event loop (see the notes).
        async with model:
            return await model.request(prepared, request_settings(model, settings, timeout), params)
    except PROVIDER_FAILURES as exc:
        if not is_provider_failure(exc):
            raise
        raise provider_error(exc, timeout) from exc


async def stream_model(
    model: Model,
    messages: Sequence[ModelMessage],
    settings: ModelSettings | None,
    params: ModelRequestParameters,
    *,
    on_delta: DeltaSink,
    timeout: float | None = None,
) -> ModelResponse:
    """`call_model`, streamed: the response's text and Translate proposals go to `on_delta` as they form.

    The answer is the stream's complete response (nothing of the deltas). A model that cannot
    stream (`request_stream` raises NotImplementedError, like the pseudo model's) is asked with
    `request`, and nothing is sent to `on_delta`. Failures are mapped as `call_model` maps them.
    """
    if timeout is not None and timeout <= 0:
        raise ModelTimeoutError("No time is left to call the model; send the same request again.", timeout=timeout)
    prepared = model.prepare_messages(list(messages), params)
    merged = request_settings(model, settings, timeout)
    # A stream has no single read to time out: the whole of it must arrive in time.
    deadline = asyncio.timeout(DEFAULT_TIMEOUT if timeout is None else timeout)
    try:
        async with deadline, model, AsyncExitStack() as stack:
            try:
                stream = await stack.enter_async_context(model.request_stream(prepared, merged, params))
            except NotImplementedError:
                return await model.request(prepared, merged, params)
            tracker = DeltaTracker()
            async for _ in stream:
                if tracker.due():
                    await _send(on_delta, tracker.changes(stream.get().parts))
            response = stream.get()
            await _send(on_delta, tracker.changes(response.parts))
            return response
    except _SinkFailed as failed:
        raise failed.error from None
    except PROVIDER_FAILURES as exc:
        if not is_provider_failure(exc):
            raise
        raise provider_error(exc, timeout) from exc


class _SinkFailed(Exception):
    """The delta sink raised: its error is not a provider failure and is not mapped as one."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


async def _send(on_delta: DeltaSink, deltas: Sequence[Delta]) -> None:
    for delta in deltas:
        try:
            await on_delta(delta)
        except Exception as exc:
            raise _SinkFailed(exc) from exc


def request_settings(model: Model, settings: ModelSettings | None, timeout: float | None) -> ModelSettings:
    """The caller's settings with no SDK retries and a deadline (the SDK's own timeout too, where it has one)."""
    merged: ModelSettings = {**(settings or {})}
    limit = DEFAULT_TIMEOUT if timeout is None else timeout
    # Retries belong to the client (it sees Retry-After); inside a step they outlive the invocation.
    unsupported = model.unsupported_settings
    if "max_retries" not in unsupported:
        merged["max_retries"] = 0
    if "timeout" not in unsupported:
        merged["timeout"] = limit
    merged["request_timeout"] = limit
    return merged


PROVIDER_FAILURES: tuple[type[Exception], ...] = (
    ai_errors.ModelAPIError,
    ai_errors.UnexpectedModelBehavior,
    TimeoutError,
    OSError,
    # What an adapter raises on a body it did not expect (e.g. a Responses answer without `output`):
    # the provider's only when raised inside its adapter or SDK (`_raised_by_provider`).
    TypeError,
    KeyError,
    AttributeError,
    IndexError,
    ValueError,
)
"""What `call_model` may turn into an AgentError; see `is_provider_failure` for which of them it does."""

_SURPRISES = (TypeError, KeyError, AttributeError, IndexError, ValueError)
_PROVIDER_CODE = ("pydantic_ai", "openai", "anthropic", "botocore", "boto3", "httpx", "httpcore", "aiohttp", "google")
"""Top-level packages of the model adapters, the provider SDKs and their transports."""
_PASSED_OVER = frozenset({"pydantic", "pydantic_core", "typing_extensions", "annotated_types", "anyio", "jiter"})
"""Generic libraries an adapter and the project's code both call: their frames decide nothing."""


def is_provider_failure(exc: BaseException) -> bool:
    """Whether `exc` is the provider's failure (503/502/504) rather than a bug of the caller's code (500).

    pydantic-ai's model errors, timeouts and network errors always are. A TypeError, KeyError,
    AttributeError, IndexError or ValueError is the provider's only when an adapter or SDK raised it
    while reading the provider's answer: the frame nearest the raise, passing over the standard
    library's and pydantic's, is pydantic-ai's, an SDK's or its transport's.
    Raised in the project's own code (or a model it was given), it is a bug: it stays itself, so the
    request answers 500 and the traceback is logged.
    """
    if not isinstance(exc, PROVIDER_FAILURES):
        return False
    return not isinstance(exc, _SURPRISES) or isinstance(exc, ai_errors.ModelAPIError) or _raised_by_provider(exc)


def _raised_by_provider(exc: BaseException) -> bool:
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(str(tb.tb_frame.f_globals.get("__name__", "")))
        tb = tb.tb_next
    for module in reversed(frames):
        top = module.partition(".")[0]
        if top in sys.stdlib_module_names or top in _PASSED_OVER:
            continue
        return top in _PROVIDER_CODE
    return False


_RETRYABLE_4XX = frozenset({408, 409, 425, 429})


def provider_error(exc: Exception, timeout: float | None) -> AgentError:
    """The AgentError a provider failure is, by what the provider said (see call_model)."""
    if isinstance(exc, ai_errors.ModelRequestTimeout | ai_errors.ModelTimeoutError | TimeoutError):
        limit = DEFAULT_TIMEOUT if timeout is None else timeout
        return ModelTimeoutError(
            f"The model did not answer within {limit:.0f}s. Nothing changed; send the same request again.",
            timeout=limit,
        )
    status = exc.status_code if isinstance(exc, ai_errors.ModelHTTPError) else None
    refused = isinstance(exc, ai_errors.ModelRequestRejectedError | ai_errors.ModelQuotaExceededError)
    if refused or (status is not None and 400 <= status < 500 and status not in _RETRYABLE_4XX):
        said = provider_message(exc)
        where = f" ({status})" if status is not None else ""
        return ModelRefusedError(
            f"The model provider refused the request{where}: {said}", provider_status=status, provider_message=said
        )
    if isinstance(exc, ai_errors.ModelAPIError) and (status is not None or type(exc) is not ai_errors.ModelAPIError):
        answered = f"answered {status}" if status is not None else f"failed ({type(exc).__name__})"
        return ModelUnavailableError(f"The model provider {answered}; try again shortly.", retry_after=exc.retry_after)
    if isinstance(exc, OSError):
        return ModelUnavailableError(f"The model provider could not be reached ({type(exc).__name__}); try again.")
    # A bare ModelAPIError is pydantic-ai's "could not decode the body"; the rest are an adapter's
    # surprise at the body's shape.
    return ModelResponseError(
        f"The model provider's answer could not be read ({type(exc).__name__}); try again shortly."
    )


_SECRETS = re.compile(
    r"(?i)\b(?:sk|rk|pk)-[\w*.-]{2,}[\w*]"  # OpenAI/Anthropic-style keys, masked or not
    r"|\bAKIA[0-9A-Z]{12,}|\bbearer\s+\S+"  # AWS access key ids, bearer tokens
    r"|\b(?=[\w-]*\d)[\w-]{32,}\b"  # any other long token with a digit in it
)
MAX_MESSAGE = 300


def provider_message(exc: Exception) -> str:
    """What the provider said, from its error body, without anything like a credential, at most 300 characters."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    message = body.get("message") if isinstance(body, dict) else body
    text = " ".join(str(message if message is not None else exc).split())
    text = _SECRETS.sub("[redacted]", text)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"
