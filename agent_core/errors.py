"""The errors the agent and its ports raise; `handlers/errors.py` maps them to HTTP in one place.

    AgentError
    ├── NotFoundError              no such session or file for this caller      → 404
    ├── ConflictError              the session advanced concurrently            → 409
    │   ├── CopilotMismatchError   a verdict that matches no pending review     → 409
    │   └── ReviewPendingError     user input while reviews are pending         → 409
    ├── InvalidRequestError        well-formed, but breaks a rule of the API    → 422
    ├── ModelRefusedError          the provider refused the request for good    → 502
    ├── ModelUnavailableError      the model provider failed or throttled       → 503
    │   └── ModelResponseError     the provider's answer could not be read      → 503
    ├── StorageUnavailableError    the session store failed or throttled        → 503
    └── StepTimeoutError           not enough time left to finish the step      → 504
        └── ModelTimeoutError      the provider did not answer in that time     → 504

Storage backends and the model adapter translate foreign errors into these with `raise … from exc`.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base of every error the project raises on purpose; the message is safe to show a person."""


class NotFoundError(AgentError):
    """No such session, file or record for this caller."""


class ConflictError(AgentError):
    """The session changed since it was loaded; nothing of this step was committed."""


class CopilotMismatchError(ConflictError):
    """A copilot response names a call that is not pending review, or the wrong tool."""


class ReviewPendingError(ConflictError):
    """User input arrived while the human still has copilot requests to answer."""


class InvalidRequestError(AgentError):
    """The request is well-formed but breaks a rule of the API (too many files, too large)."""


class ModelUnavailableError(AgentError):
    """The model provider failed, timed out or throttled; the same call may be retried."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StorageUnavailableError(AgentError):
    """The session store failed or throttled; the same call may be retried."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StepTimeoutError(AgentError):
    """The invocation has too little time left to call the model and commit safely."""


class ModelRefusedError(AgentError):
    """The model provider refused the request for good (bad key, unknown model, invalid or too long): → 502.

    Retrying the same request cannot help; `provider_status` is the provider's HTTP status (None when
    it gave none) and `provider_message` what it said, with anything like a credential removed.
    """

    def __init__(self, message: str, *, provider_status: int | None, provider_message: str) -> None:
        super().__init__(message)
        self.provider_status = provider_status
        self.provider_message = provider_message


class ModelResponseError(ModelUnavailableError):
    """The provider answered, but with a body its adapter could not read (malformed, cut off): → 503.

    Retryable: nothing was committed, and such answers come from a provider's or gateway's passing fault.
    """


class ModelTimeoutError(StepTimeoutError):
    """The provider did not answer within the time the step could give it: → 504."""

    def __init__(self, message: str, *, timeout: float | None) -> None:
        super().__init__(message)
        self.timeout = timeout
