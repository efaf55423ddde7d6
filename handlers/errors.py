"""Errors become HTTP answers here, and only here, following API.md's table."""

from __future__ import annotations

import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from agent_core.errors import (
    AgentError,
    BudgetExceededError,
    ClaimedError,
    ConflictError,
    InvalidRequestError,
    ModelRefusedError,
    NotFoundError,
    ReviewMismatchError,
    StepTimeoutError,
    UnavailableError,
)
from agent_core.models import ModelConfigError
from service.access import ForbiddenError

from .identity import UnauthenticatedError
from .logging import logger
from .metrics import record_failure

_STATUS: list[tuple[type[Exception], int]] = [
    (UnauthenticatedError, 401),
    (BudgetExceededError, 402),
    (ForbiddenError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (ReviewMismatchError, 409),
    (InvalidRequestError, 422),
    (ModelRefusedError, 502),
    (UnavailableError, 503),
    (StepTimeoutError, 504),
    (AgentError, 500),
]
"""Each error kind's status (API.md "Errors"); the first kind that matches decides."""


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """The API's one error body: `{"error": "…"}`."""
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def error_answer(exc: Exception) -> tuple[int, str, dict[str, str]]:
    """The status, message and headers the API answers `exc` with (logged and counted as the handlers do).

    For an answer that is not a plain response: a streamed step's `event: error`.
    """
    if isinstance(exc, AgentError | UnauthenticatedError):
        return _known_answer(exc)
    return _unexpected_answer(exc)


def _known(request: Request, exc: Exception) -> JSONResponse:
    status, message, headers = _known_answer(exc)
    if isinstance(exc, BudgetExceededError):  # API.md: 402 says what was spent of what budget
        body = {"error": message, "spent": exc.spent, "budget": exc.budget}
        return JSONResponse(body, status_code=status, headers=headers)
    if isinstance(exc, ClaimedError):
        return JSONResponse({"error": message, **error_fields(exc)}, status_code=status, headers=headers)
    return error(status, message, headers)


def error_fields(exc: Exception) -> dict[str, str]:
    """What an error's body says beside `error` (a plain answer's and a streamed step's alike): for a
    session another member drives (API.md "Projects and teams"), who and until when."""
    if isinstance(exc, ClaimedError):
        return {"heldBy": exc.held_by, "until": exc.until}
    return {}


def _known_answer(exc: Exception) -> tuple[int, str, dict[str, str]]:
    status = next(code for kind, code in _STATUS if isinstance(exc, kind))
    headers: dict[str, str] = {}
    retry_after = getattr(exc, "retry_after", None)
    if status in (503, 504):
        headers["Retry-After"] = str(max(1, math.ceil(retry_after))) if retry_after else "2"
    extra: dict[str, Any] = {"status": status, "error_type": type(exc).__name__}
    if isinstance(exc, ModelRefusedError):
        extra.update(provider_status=exc.provider_status, provider_message=str(exc))
    logger.info("request failed", extra=extra)
    record_failure(exc)
    return status, str(exc), headers


def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" for e in errors):
        return error(400, "The body is not valid JSON.")
    return error(422, describe_errors(errors))


def describe_errors(errors: Any) -> str:
    """Pydantic errors in plain words: `field: problem; …`."""
    parts = []
    for e in errors:
        loc = [str(p) for p in e.get("loc", ()) if p not in ("body",)]
        where = ".".join(loc) or "body"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    return "Invalid request: " + "; ".join(parts[:10])


def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    messages = {404: "No such route.", 405: "Method not allowed on this route."}
    return error(exc.status_code, messages.get(exc.status_code, str(exc.detail)), dict(exc.headers or {}))


def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    status, message, headers = _unexpected_answer(exc)
    return error(status, message, headers or None)


def _unexpected_answer(exc: Exception) -> tuple[int, str, dict[str, str]]:
    if isinstance(exc, ModelConfigError):
        logger.error("model configuration", extra={"error": str(exc)})
        return 503, f"The model is not configured correctly: {exc}", {}
    # Starlette runs this handler outside the failing frame: pass the exception explicitly.
    logger.error("unexpected error", exc_info=exc)
    return 500, "Internal error; nothing was changed. Try again, or report it with the time of the request.", {}


def install(app: FastAPI) -> None:
    """Register the handlers on the app."""
    app.add_exception_handler(RequestValidationError, _validation)  # type: ignore[arg-type]
    app.add_exception_handler(StarletteHTTPException, _http)  # type: ignore[arg-type]
    for kind in (AgentError, UnauthenticatedError):
        app.add_exception_handler(kind, _known)
    app.add_exception_handler(Exception, _unexpected)
