"""The storage errors every backend raises; they are the agent's own errors (see agent_core.errors).

Backends translate their driver's errors (botocore ClientError, sqlite3.Error) into these, with
`raise … from exc`, so nothing of a driver reaches handlers.
"""

from agent_core.errors import ConflictError, InvalidRequestError, NotFoundError, StorageUnavailableError, TooLargeError


class InvalidCursorError(InvalidRequestError):
    """A paging cursor that this backend did not issue."""


__all__ = [
    "ConflictError",
    "InvalidCursorError",
    "InvalidRequestError",
    "NotFoundError",
    "StorageUnavailableError",
    "TooLargeError",
]
