"""The time a request has left, as the storage calls made within it see it.

A request that runs under a deadline (a Lambda invocation's remaining time) sets it with `within`;
the DynamoDB client checks it before it sends each attempt (`check`). An attempt that could not
finish in time is not started: `StepTimeoutError` (504) instead of an answer the invocation's end
would cut off, after the model's tokens were paid. Contextvars travel into `asyncio.to_thread`, so
the blocking calls of service.blocking see the deadline of the request that made them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agent_core.errors import StepTimeoutError

CALL_SECONDS = 1.0
"""A storage call is not started with less than this many seconds left in the request."""

_TIME_LEFT: ContextVar[Callable[[], float] | None] = ContextVar("storage_time_left", default=None)


@contextmanager
def within(time_left: Callable[[], float] | None) -> Iterator[None]:
    """Storage calls made within (and in the tasks and threads started within) honour `time_left`,
    the seconds the request has left; None: no deadline."""
    token = _TIME_LEFT.set(time_left)
    try:
        yield
    finally:
        _TIME_LEFT.reset(token)


def check(**_: Any) -> None:
    """Raise StepTimeoutError when the current request has less than CALL_SECONDS left.

    Its signature fits botocore's event hooks (which pass keyword arguments only).
    """
    time_left = _TIME_LEFT.get()
    if time_left is None:
        return
    left = time_left()
    if left < CALL_SECONDS:
        raise StepTimeoutError(
            f"Only {max(left, 0.0):.1f}s left in this invocation; not enough for a call to the session store. "
            "Nothing was changed; try again."
        )
