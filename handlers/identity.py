"""The caller, from the JWT claims API Gateway's authorizer verified."""

from __future__ import annotations

import os
from typing import Any

from fastapi import Request

LOCAL_USER = "local"
"""Who every request acts as when there is no authorizer and auth is not required."""


class UnauthenticatedError(Exception):
    """Authentication is required and the request carries no verified caller."""


def require_auth() -> bool:
    """`REQUIRE_AUTH=true`: a request without an authenticated caller is answered 401."""
    return os.environ.get("REQUIRE_AUTH", "false").strip().lower() in ("1", "true", "yes")


def caller(request: Request) -> str:
    """`requestContext.authorizer.jwt.claims.sub` exactly as given, or the local user when auth is not required.

    The sub is an identity, so it is never trimmed or case-folded (`" user-alice"` is not `user-alice`);
    a sub that is empty or only whitespace names nobody.
    """
    event: Any = request.scope.get("aws.event") or {}
    claims = (((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}).get("claims") or {}
    sub = claims.get("sub") if isinstance(claims, dict) else None
    if isinstance(sub, str) and sub.strip():
        return sub
    if require_auth():
        raise UnauthenticatedError("Sign in first: this API needs an authenticated caller (a JWT).")
    return LOCAL_USER
