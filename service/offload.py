"""Whole requests off the event loop: work that mixes awaiting with CPU-heavy steps (parsing,
building an export) runs in a worker thread on an event loop of its own.

`service.blocking` moves one blocking call off the loop; an export is a chain of them with parsing
and XML writing between, all of which would otherwise run on the server's loop and stall every
other request meanwhile (a health check waited for a whole export). `off_loop` runs such a chain
in a worker thread, on a private event loop, so the server's loop only awaits it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from .blocking import blocking

T = TypeVar("T")


async def off_loop(work: Callable[[], Awaitable[T]]) -> T:
    """`await work()`, run in a worker thread on its own event loop.

    `work` must not share loop-bound objects (futures, asyncio locks) with the caller's loop; the
    services hold none (their caches use thread locks). Context variables carry over.
    """
    return await blocking(asyncio.run, _awaited(work))


async def _awaited(work: Callable[[], Awaitable[T]]) -> T:
    return await work()
