"""A step as Server-Sent Events (API.md "The step", `Accept: text/event-stream`): deltas, then the step or an error."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable

from fastapi import Request
from fastapi.responses import StreamingResponse

from agent_core.deltas import Delta, DeltaSink

from .errors import error_answer, error_fields

EVENT_STREAM = "text/event-stream"

StepRun = Callable[[DeltaSink], Awaitable[str]]
"""Runs the step with a delta sink; its answer is the step's JSON body (a fresh one or a replay)."""


def wants_stream(request: Request) -> bool:
    """The client asked for events, and the platform can stream them.

    Behind API Gateway (the scope has Mangum's `aws.event`) the whole answer is buffered: a stream
    would only arrive at the end, so the plain JSON body is the better answer there.
    """
    accepted = request.headers.get("accept", "")
    return EVENT_STREAM in accepted.lower() and "aws.event" not in request.scope


def event(name: str, data: str) -> str:
    """One SSE event (`data` is one line of JSON)."""
    return f"event: {name}\ndata: {data}\n\n"


def step_stream(run: StepRun) -> StreamingResponse:
    """The streamed answer: `delta` events while the model answers, then `step` (or `error`)."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}  # no proxy may hold the events back
    return StreamingResponse(_events(run), media_type=EVENT_STREAM, headers=headers)


async def _events(run: StepRun) -> AsyncIterator[str]:
    queue: asyncio.Queue[str | None] = asyncio.Queue()

    async def sink(delta: Delta) -> None:
        queue.put_nowait(event("delta", delta.to_json()))

    async def work() -> None:
        try:
            body = await run(sink)
            queue.put_nowait(event("step", body))
        except Exception as exc:  # every failure is answered, as the plain route's handlers would
            status, message, _ = error_answer(exc)
            fields = {"error": message, "status": status, **error_fields(exc)}
            queue.put_nowait(event("error", json.dumps(fields)))
        finally:
            queue.put_nowait(None)

    task = asyncio.create_task(work())
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)
    try:
        while (item := await queue.get()) is not None:
            yield item
    finally:
        # The client went away (Starlette cancels this generator): the step goes too, unless it
        # is committing (StepService shields the commit).
        if not task.done():
            task.cancel()


_RUNNING: set[asyncio.Task[None]] = set()
"""The steps being streamed (a task only weakly referenced by the loop could vanish while cancelled)."""
