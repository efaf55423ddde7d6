"""Whole requests off the event loop: work that mixes awaiting with CPU-heavy steps (parsing,
building an export) runs in a worker thread on an event loop of its own.

`service.blocking` moves one blocking call off the loop; an export is a chain of them with parsing
and XML writing between, all of which would otherwise run on the server's loop and stall every
other request meanwhile (a health check waited for a whole export). `off_loop` runs such a chain
in a worker thread, on a private event loop, so the server's loop only awaits it. Where the process
serves one request alone (an AWS Lambda invocation, `blocking.alone`), `blocking` runs in place and
so does the work: on the invocation's own loop, with no thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .blocking import blocking

T = TypeVar("T")


async def off_loop(work: Callable[[], Awaitable[T]]) -> T:
    """`await work()`, run in a worker thread on its own event loop (in place when served alone).

    `work` must not share loop-bound objects (futures, asyncio locks) with the caller's loop; the
    services hold none (their caches use thread locks). Context variables carry over.
    """

    def run() -> list[T]:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a worker thread: no loop runs here
            return [asyncio.run(_awaited(work))]
        return []  # `blocking` ran this in place, on the request's loop: the work is awaited there

    found = await blocking(run)
    return found[0] if found else await work()


async def _awaited(work: Callable[[], Awaitable[T]]) -> T:
    return await work()
