"""The project's errors, grouped by what they mean; `handlers/errors.py` maps them to HTTP in one place.

    AgentError
    ├── NotFoundError              no such session, file or entry for this caller          → 404
    ├── ConflictError              the session advanced concurrently (another step won)    → 409
    ├── ReviewMismatchError        a verdict that answers no pending review                → 409
    ├── InvalidRequestError        well-formed, but breaks a rule of the API               → 422
    │   └── TooLargeError          its stored form would exceed a storage limit            → 422
    ├── UnavailableError           failed or throttled for now; the same call may be retried
    │   ├── ModelUnavailableError  the model provider                                     → 503
    │   │   └── ModelResponseError  its answer could not be read (malformed, cut off)       → 503
    │   └── StorageUnavailableError  the session store                                    → 503
    ├── ModelRefusedError          the provider refused for good (key, model, request)     → 502
    └── StepTimeoutError           not enough time left to finish the step                 → 504
        └── ModelTimeoutError      the provider did not answer in that time                → 504

Only ConflictError means "somebody else committed first": it alone triggers an idempotency replay
lookup and counts as a concurrency conflict. Storage backends and the model adapter translate
foreign errors into these with `raise … from exc`.
"""

from __future__ import annotations

import math
from typing import Any

MAX_RETRY_AFTER = 3600.0
"""The longest wait (seconds) the project passes on: a provider's `Retry-After` beyond it (a typo, a
far-future date) is taken as an hour; the client then asks again and hears the provider's current word."""


class AgentError(Exception):
    """Base of every error the project raises on purpose; the message is safe to show a person."""


class NotFoundError(AgentError):
    """No such session, file or record for this caller."""


class ConflictError(AgentError):
    """The session changed since it was loaded; nothing of this step was committed."""


class ReviewMismatchError(AgentError):
    """A copilot response names a call that is not pending review, or the wrong tool."""


class InvalidRequestError(AgentError):
    """The request is well-formed but breaks a rule of the API (too many files, too large)."""


class TooLargeError(InvalidRequestError):
    """What the request would store exceeds a storage limit (an item's size, a transaction's items)."""


class UnavailableError(AgentError):
    """A dependency failed or throttled for now; the same call may be retried after `retry_after`."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = sane_retry_after(retry_after)


def sane_retry_after(seconds: float | None) -> float | None:
    """`seconds` within 0..MAX_RETRY_AFTER; None for a wait that is not a number (NaN) or is negative.

    A provider's header is foreign input: a huge or far-future value must not overflow the date a
    session's `retryAt` is computed to.
    """
    if seconds is None or not isinstance(seconds, int | float) or math.isnan(seconds) or seconds < 0:
        return None
    return min(float(seconds), MAX_RETRY_AFTER)


class ModelUnavailableError(UnavailableError):
    """The model provider failed, timed out or throttled; the same call may be retried."""


class StorageUnavailableError(UnavailableError):
    """The session store failed or throttled; the same call may be retried."""


class ModelResponseError(ModelUnavailableError):
    """The provider answered, but with a body its adapter could not read (malformed, cut off).

    Retryable: nothing was committed, and such answers come from a provider's or gateway's passing fault.
    """


class ModelAnswerTooLargeError(ModelUnavailableError):
    """The model's answer is too large to store: nothing was committed.

    Retryable (503): the same step may get a shorter answer. Not the caller's input: a request's own
    texts are bounded so that each fits the store (NextRequest's limits).
    """

    def __init__(self, detail: str, *, batch_chars: int) -> None:
        super().__init__(
            f"The model's answer was too large to store ({detail.rstrip('.')}); nothing was changed. Retry the "
            "step: the model may answer shorter. If it happens again, have the model translate less text at a "
            f"time: set BATCH_CHARS lower than its {batch_chars} characters now.",
            retry_after=1,
        )


class ModelRefusedError(AgentError):
    """The model provider refused the request for good (bad key, unknown model, invalid or too long).

    Retrying the same request cannot help; `provider_status` is the provider's HTTP status (None when
    it gave none) and `provider_message` what it said, with anything like a credential removed.
    """

    def __init__(self, message: str, *, provider_status: int | None, provider_message: str = "") -> None:
        super().__init__(message)
        self.provider_status = provider_status
        self.provider_message = provider_message


class StepTimeoutError(AgentError):
    """The invocation has too little time left to call the model and commit safely."""

    def __init__(self, message: str, *, retry_after: float | None = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ModelTimeoutError(StepTimeoutError):
    """The provider did not answer within the time the step could give it."""

    def __init__(self, message: str, *, timeout: float | None) -> None:
        super().__init__(message)
        self.timeout = timeout


class BudgetExceededError(AgentError):
    """The next model request would pass the session's budget (API.md: 402, nothing changed)."""

    def __init__(self, message: str, *, spent: dict[str, Any], budget: dict[str, Any]) -> None:
        super().__init__(message)
        self.spent, self.budget = spent, budget


class ClaimedError(ConflictError):
    """Another member drives the session (409): `held_by` until `until`."""

    def __init__(self, held_by: str, until: str) -> None:
        super().__init__(
            f"{held_by} is working on this session until {until}; try again then, or ask a manager to take it over."
        )
        self.held_by = held_by
        self.until = until
