"""Model selection (`AGENT_MODEL`) and the one place a model is called.

`AGENT_MODEL` is a pydantic-ai model name (`openai:gpt-4.1`, `anthropic:claude-sonnet-4-5`,
`bedrock:…`), `pseudo` (the offline model, the default), or `python:package.module:attr` naming a
pydantic-ai `Model` instance or a zero-argument factory of one. Provider SDKs are imported only
for the model that is configured.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import lru_cache

from pydantic_ai import exceptions as ai_errors
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model, ModelRequestParameters, infer_model
from pydantic_ai.settings import ModelSettings

from .errors import ModelUnavailableError

DEFAULT_MODEL = "pseudo"


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
) -> ModelResponse:
    """One model request; provider failures become ModelUnavailableError (the step commits nothing)."""
    prepared = model.prepare_messages(list(messages), params)
    try:
        # `async with` refreshes the provider's HTTP client for this event loop (see the notes).
        async with model:
            return await model.request(prepared, settings, params)
    except ai_errors.ModelHTTPError as exc:
        retry_after = getattr(exc, "retry_after", None)
        raise ModelUnavailableError(
            f"The model provider answered {exc.status_code}; try again shortly.", retry_after=retry_after
        ) from exc
    except (ai_errors.ModelAPIError, ai_errors.UnexpectedModelBehavior, TimeoutError) as exc:
        raise ModelUnavailableError(f"The model provider failed ({type(exc).__name__}); try again.") from exc
