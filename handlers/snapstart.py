"""Lambda SnapStart runtime hooks: warm what is safe to snapshot; reseed what must differ per restore.

With `SnapStart: ApplyOn: PublishedVersions` Lambda initialises the function once when a version is
published, runs the before-snapshot hooks, and resumes every later cold start from that memory
image. So the work done here is paid once per deployment instead of once per cold start.

Safe to snapshot: imported modules, the built FastAPI app and its OpenAPI schema, pydantic's
compiled validators and serializers, the pseudo model, the tools' JSON schemas, the storage modules
(the configured backend's too, boto3 included, but no client), one request through the ASGI stack
(the health route, which touches no storage). Never snapshotted: credentials, API
keys, boto3 clients or any open connection; those are created on first use after the restore.

`snapshot_restore_py` is provided by the Lambda Python runtime (3.12 and later); the Lambda entry calls
`register(app)` with the app it built; elsewhere (tests, local servers) the hooks are not registered.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

_PROVIDER_MODULES = {
    "openai": "pydantic_ai.models.openai",
    "openai-chat": "pydantic_ai.models.openai",
    "openai-responses": "pydantic_ai.models.openai",
    "anthropic": "pydantic_ai.models.anthropic",
    "bedrock": "pydantic_ai.models.bedrock",
}
"""`AGENT_MODEL` prefix → the pydantic-ai module (and so the SDK) that model needs."""


class _Context:
    """The Lambda context fields Mangum reads, for the warm-up request."""

    function_name = "snapstart-warm-up"
    aws_request_id = "snapstart-warm-up"

    def get_remaining_time_in_millis(self) -> int:
        """Plenty."""
        return 60_000


def _health_event() -> dict[str, Any]:
    return {
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": "/api/health",
        "rawQueryString": "",
        "headers": {"host": "localhost", "accept": "application/json"},
        "requestContext": {
            "http": {"method": "GET", "path": "/api/health", "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1"},
            "requestId": "snapstart-warm-up",
            "stage": "$default",
        },
        "isBase64Encoded": False,
    }


def _warm_app(app: FastAPI) -> None:
    from mangum import Mangum

    app.openapi()
    # A second adapter (not the entry's handler) so Powertools' cold-start flag stays for the first real call.
    Mangum(app, lifespan="off")(_health_event(), _Context())  # type: ignore[arg-type]


def _warm_messages() -> None:
    from pydantic_ai.messages import (
        ModelMessage,
        ModelMessagesTypeAdapter,
        ModelRequest,
        ModelResponse,
        TextPart,
        UserPromptPart,
    )

    from agent_core.copilot import CopilotResponseAdapter
    from service.schemas import NextRequest

    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(content="Bonjour")]),
        ModelResponse(parts=[TextPart(content="Hi")]),
    ]
    ModelMessagesTypeAdapter.validate_json(ModelMessagesTypeAdapter.dump_json(messages))
    ModelMessagesTypeAdapter.dump_python(messages, mode="json")
    verdict = {"tool": {"name": "Translate", "callId": "call_0"}, "status": "approve"}
    CopilotResponseAdapter.validate_python(verdict)
    NextRequest.model_validate({"sessionId": None, "copilotResponses": [verdict]})


def _warm_model() -> None:
    from agent_core.models import resolve_model
    from agent_core.runtime import default_tools

    for tool in default_tools().values():
        _ = tool.definition
    resolve_model("pseudo")
    # The configured provider's SDK is imported, never instantiated: a provider holds its API key.
    prefix = (os.environ.get("AGENT_MODEL") or "").partition(":")[0].strip().lower()
    module = _PROVIDER_MODULES.get(prefix)
    if module:
        # A missing SDK is reported with a clear message when the model is first resolved.
        with contextlib.suppress(ImportError):
            importlib.import_module(module)


def _warm_storage() -> None:
    # The modules only (the handlers import them on first use): a backend's client is created after
    # the restore, when the services are built, so no credential or connection is snapshotted.
    from storage import backend_class

    importlib.import_module("service.container")
    # An unknown STORAGE_BACKEND is reported when the services are built, with its message.
    with contextlib.suppress(ValueError):
        backend_class()


def before_snapshot(app: FastAPI) -> None:
    """Import and warm everything that holds no secret and no connection, `app` included."""
    _warm_app(app)
    _warm_messages()
    _warm_model()
    _warm_storage()


def after_restore() -> None:
    """Give each restored environment its own `random` state.

    Ids and secrets come from `secrets`/`os.urandom`, which the kernel reseeds on restore; the
    `random` module's state, though, is part of the snapshot and would repeat across environments
    (retry jitter, for one).
    """
    random.seed()


def register(app: FastAPI) -> bool:
    """Register the hooks (warming `app`) with the Lambda runtime; False where there is no SnapStart runtime."""
    try:
        hooks = importlib.import_module("snapshot_restore_py")
    except ImportError:
        return False
    hooks.register_before_snapshot(functools.partial(before_snapshot, app))
    hooks.register_after_restore(after_restore)
    return True
