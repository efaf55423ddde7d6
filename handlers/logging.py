"""The Powertools logger shared by the handlers (structured JSON, Lambda context injected), and the
middleware that scopes its per-request keys to one request."""

from __future__ import annotations

from aws_lambda_powertools import Logger
from starlette.types import ASGIApp, Receive, Scope, Send

logger = Logger(service="translation-agent")

REQUEST_KEYS = ("session_id",)
"""Keys a route appends for the request it serves (handlers/routes/steps.py): they must not outlive it."""


class RequestLogKeys:
    """Removes the request-scoped log keys before and after every HTTP request.

    On Lambda, `inject_lambda_context(clear_state=True)` resets the logger per invocation; under uvicorn
    nothing does, so a request's lines would carry the previous request's `session_id`. Only these keys
    are removed, not the whole state: on Lambda the invocation's own keys (request id, cold start,
    correlation id) are already set when the app runs and must stay.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        logger.remove_keys(REQUEST_KEYS)
        try:
            await self.app(scope, receive, send)
        finally:
            logger.remove_keys(REQUEST_KEYS)
