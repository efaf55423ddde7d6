"""The Lambda entry: the ASGI `app` behind Mangum as `handler`, the cold-start collector pause, SnapStart.

Cold start: importing the app builds a large heap of long-lived objects (pydantic-ai, FastAPI,
validators). Collecting while it grows only rescans those objects again and again, so collection
pauses until the app is built; then `gc.freeze()` moves them out of the collector's sight, which
also keeps full collections during requests short. See docs/benchmarks.md (cold start).
"""

# ruff: noqa: E402  (the imports follow the collector pause below on purpose)
from __future__ import annotations

import gc

gc.disable()

from typing import Any

from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from mangum import Mangum

from . import snapstart
from .app import create_app
from .logging import logger
from .metrics import metrics
from .tracing import annotate, traced

app = create_app()
__all__ = ["app", "create_app", "handler"]
_mangum = Mangum(app, lifespan="off")


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True)
@metrics.log_metrics
@traced
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """API Gateway HTTP API events through Mangum to the app."""
    response: dict[str, Any] = _mangum(event, context)  # type: ignore[arg-type]
    annotate(status=int(response.get("statusCode", 0)))
    return response


snapstart.register(app)

gc.freeze()
gc.enable()
