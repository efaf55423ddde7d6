"""An httpx transport into an ASGI app, in process, that streams the answer as the app sends it.

httpx's own `ASGITransport` buffers the whole body before it answers, so a streamed step would
arrive all at once at its end. This one hands each body chunk on as it is sent, and closing the
response tells the app the client went away (`http.disconnect`), as a closed connection would.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message


class StreamingASGITransport(httpx.AsyncBaseTransport):
    """Requests go straight into `app`; the body streams out chunk by chunk."""

    def __init__(self, app: ASGIApp, *, client: tuple[str, int] = ("127.0.0.1", 123)) -> None:
        self.app = app
        self.client = client

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Run the app for `request`; answer once it has started its response."""
        exchange = _Exchange(await request.aread())
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": request.method,
            "headers": [(k.lower(), v) for (k, v) in request.headers.raw],
            "scheme": request.url.scheme,
            "path": request.url.path,
            "raw_path": request.url.raw_path.split(b"?")[0],
            "query_string": request.url.query,
            "server": (request.url.host, request.url.port),
            "client": self.client,
            "root_path": "",
        }
        task = asyncio.create_task(exchange.run(self.app, scope))
        started = asyncio.create_task(exchange.started.wait())
        await asyncio.wait({task, started}, return_when=asyncio.FIRST_COMPLETED)
        started.cancel()
        if exchange.status is None:
            await task  # the app failed before it answered: its error is the caller's
            raise RuntimeError("The app finished without a response.")
        return httpx.Response(exchange.status, headers=exchange.headers, stream=_Body(exchange, task))


class _Exchange:
    """One request's side of the ASGI conversation."""

    def __init__(self, body: bytes) -> None:
        self.body: bytes | None = body
        self.status: int | None = None
        self.headers: list[tuple[bytes, bytes]] = []
        self.started = asyncio.Event()
        self.chunks: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.disconnected = asyncio.Event()

    async def run(self, app: ASGIApp, scope: dict[str, Any]) -> None:
        try:
            await app(scope, self.receive, self.send)
        finally:
            self.chunks.put_nowait(None)

    async def receive(self) -> Message:
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.disconnected.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = list(message.get("headers", []))
            self.started.set()
        elif message["type"] == "http.response.body":
            if self.disconnected.is_set():
                raise OSError("The client went away.")
            if chunk := message.get("body", b""):
                self.chunks.put_nowait(chunk)
            if not message.get("more_body", False):
                self.chunks.put_nowait(None)


class _Body(httpx.AsyncByteStream):
    def __init__(self, exchange: _Exchange, task: asyncio.Task[None]) -> None:
        self._exchange = exchange
        self._task = task

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while (chunk := await self._exchange.chunks.get()) is not None:
            yield chunk

    async def aclose(self) -> None:
        """The client is done: an app still sending hears a disconnect; its end is awaited."""
        self._exchange.disconnected.set()
        # The app's failure after its answer has begun is its own to log, not this reader's.
        with contextlib.suppress(Exception):
            await self._task
