"""Where a storage backend's blocking calls (sqlite3, boto3) run: in a worker thread
(`asyncio.to_thread`), so that a slow store never stalls the other requests on the event loop, and
so that a step's independent reads (its session's and its owner's memory's) run side by side, in an
AWS Lambda invocation too, where a thread's switches cost microseconds and a round trip milliseconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def blocking(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`func(*args, **kwargs)`, in a worker thread (context variables carry over)."""
    return await asyncio.to_thread(func, *args, **kwargs)
