"""The caller, from the JWT claims API Gateway's authorizer verified, or the local user.

Locally (no authorizer, auth not required, not in Lambda), every request acts as the local user, the
manager of every project (service.access), unless it names another identity in the `X-Act-As` header:
a way to try teams with several people on one machine, in tests and demos. The header is honoured only
there: never in Lambda (an API Gateway event), never when REQUIRE_AUTH is set, never beside a JWT.
"""

from __future__ import annotations

import os
from typing import Any

from fastapi import Request

from service.access import LOCAL_USER, PROJECT_PREFIX, local_mode
from storage.projects import MAX_SUB_CHARS

ACT_AS = "X-Act-As"
"""The local-only header naming the identity a request acts as."""

__all__ = ["ACT_AS", "LOCAL_USER", "UnauthenticatedError", "caller", "is_local", "require_auth"]


class UnauthenticatedError(Exception):
    """Authentication is required and the request carries no verified caller (or names none we can use)."""


def require_auth() -> bool:
    """`REQUIRE_AUTH=true`: a request without an authenticated caller is answered 401."""
    return os.environ.get("REQUIRE_AUTH", "false").strip().lower() in ("1", "true", "yes")


def _claims_sub(request: Request) -> str | None:
    event: Any = request.scope.get("aws.event") or {}
    claims = (((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}).get("claims") or {}
    sub = claims.get("sub") if isinstance(claims, dict) else None
    return sub if isinstance(sub, str) and sub.strip() else None


def is_local(request: Request) -> bool:
    """True when the request acts in local mode: no JWT, auth not required, not a Lambda invocation."""
    return _claims_sub(request) is None and "aws.event" not in request.scope and local_mode()


def caller(request: Request) -> str:
    """`requestContext.authorizer.jwt.claims.sub` exactly as given, or the local user when auth is not
    required (or, in local mode only, the identity `X-Act-As` names).

    The sub is an identity, so it is never trimmed or case-folded (`" user-alice"` is not `user-alice`);
    a sub that is empty or only whitespace names nobody. The local user's name and any name beginning
    `project:` (a project's owner key) are no signed-in identity's: such a sub is refused (401).
    """
    sub = _claims_sub(request)
    if sub is not None:
        if sub == LOCAL_USER or sub.startswith(PROJECT_PREFIX):
            raise UnauthenticatedError(f"The identity {sub[:80]!r} is reserved by this API; sign in as another.")
        return sub
    if require_auth():
        raise UnauthenticatedError("Sign in first: this API needs an authenticated caller (a JWT).")
    acting = request.headers.get(ACT_AS)
    if acting is None or not is_local(request):
        return LOCAL_USER
    if not acting.strip() or len(acting) > MAX_SUB_CHARS or acting.startswith(PROJECT_PREFIX):
        raise UnauthenticatedError(
            f"{ACT_AS} names an identity of 1 to {MAX_SUB_CHARS} characters, not blank, not beginning {PROJECT_PREFIX}."
        )
    return acting
