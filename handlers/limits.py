"""Body size limits on every route: 413 before the body is parsed."""

from __future__ import annotations

import json
import os
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_UPLOAD_ROUTES = (re.compile(r"^/api/sessions/[^/]+/files/?$"), re.compile(r"^/api/memory/import/?$"))
"""Routes that take documents: file uploads and memory imports."""


def limit_for(path: str) -> int:
    """The largest body a route accepts: uploads `MAX_UPLOAD_BYTES` (5.5 MB), others `MAX_BODY_BYTES` (256 KB)."""
    if any(route.match(path) for route in _UPLOAD_ROUTES):
        return int(os.environ.get("MAX_UPLOAD_BYTES", 5_500_000))
    return int(os.environ.get("MAX_BODY_BYTES", 262_144))


class BodyLimitMiddleware:
    """Answers 413 when a request body exceeds its route's limit (declared or streamed)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = limit_for(scope["path"])
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _too_large(send, limit)
            return
        body = bytearray()
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body.extend(message.get("body", b""))
            if len(body) > limit:
                await _too_large(send, limit)
                return
            more = message.get("more_body", False)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _too_large(send: Send, limit: int) -> None:
    payload: dict[str, Any] = {"error": f"The body is larger than this route accepts ({limit} bytes)."}
    data = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": data})
