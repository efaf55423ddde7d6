"""AWS X-Ray tracing with the Powertools Tracer, only where the stack turns it on.

`template.yaml`'s `Tracing` parameter (`Active`) enables X-Ray on the function and sets
`POWERTOOLS_TRACE_DISABLED=false`. Then every invocation is a `## handler` subsegment annotated with
the session id, the actor and the status, and the calls it makes to DynamoDB (botocore) and to the
model's provider (httpx; botocore for Bedrock) appear beneath it with their latency. Responses are
never captured: they hold the user's documents.

Off (the default, and always outside Lambda) nothing of the X-Ray SDK is imported, so tracing costs
no cold-start time unless it is wanted.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

Handler = TypeVar("Handler", bound=Callable[..., Any])

PATCHED = ("botocore", "httpx")
"""Libraries whose calls become subsegments: DynamoDB and Bedrock (botocore), OpenAI and Anthropic (httpx)."""

_tracer: Any = None


def enabled() -> bool:
    """Tracing is on: in Lambda (not `sam local`), with `POWERTOOLS_TRACE_DISABLED` false."""
    disabled = os.environ.get("POWERTOOLS_TRACE_DISABLED", "true").strip().lower() in ("1", "true", "yes")
    in_lambda = bool(os.environ.get("LAMBDA_TASK_ROOT")) and not os.environ.get("AWS_SAM_LOCAL")
    return in_lambda and not disabled


def traced(handler: Handler) -> Handler:
    """The Lambda handler, as an X-Ray subsegment when tracing is on; itself otherwise."""
    global _tracer
    if not enabled():
        return handler
    from aws_lambda_powertools import Tracer

    _tracer = Tracer(service=os.environ.get("POWERTOOLS_SERVICE_NAME"), patch_modules=list(PATCHED))
    wrapped: Handler = _tracer.capture_lambda_handler(handler, capture_response=False)
    return wrapped


def annotate(**values: str | int | bool) -> None:
    """Searchable annotations on the current invocation's trace (nothing when tracing is off)."""
    if _tracer is None:
        return
    for key, value in values.items():
        _tracer.put_annotation(key=key, value=value)
