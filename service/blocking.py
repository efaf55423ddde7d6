"""Where a storage backend's blocking calls (sqlite3, boto3) run.

In a worker thread (`asyncio.to_thread`), so that a slow store never stalls the other requests on the
same event loop (the local server serves many at once); or in place, where the process serves this
one request and nothing else (an AWS Lambda invocation: `alone`), which spares each call its two
thread switches.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_ALONE: ContextVar[bool] = ContextVar("alone", default=False)
"""True within a request its process serves alone (`alone`)."""


async def blocking(func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`func(*args, **kwargs)`, off the event loop unless the request is served `alone`."""
    if _ALONE.get():
        return func(*args, **kwargs)
    return await asyncio.to_thread(func, *args, **kwargs)


@contextmanager
def alone() -> Iterator[None]:
    """Within it (and the tasks started within), the process serves this one request: blocking calls
    run in place (an AWS Lambda invocation: one request at a time per execution environment)."""
    token = _ALONE.set(True)
    try:
        yield
    finally:
        _ALONE.reset(token)
