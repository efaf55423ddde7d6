"""Security headers on every response: the API's, the web UI's, and the errors' (413 and 500 included).

The UI gets a Content-Security-Policy that allows no third-party origin, with one exception: when the UI
signs in with OIDC (`OIDC_*` variables, handlers/web.py), `connect-src` also allows the token endpoint's
origin, where the page exchanges the authorization code and refreshes the token. The authorize and logout
endpoints need nothing: the page navigates to them, it never fetches them. Its one inline script (the
trailing-slash fix in web/index.html, copied unchanged into the bundle's index.html) is allowed by its
SHA-256, computed when the middleware is installed from the page the app serves (the bundle's or the
source's, handlers/webbundle.py), so editing the script never silently breaks the page or weakens the
policy. CloudFront sends the same policy with the deployed UI (template.yaml; tests/test_web_bundle.py
checks they agree).
The OpenAPI page (`/api/docs`, FastAPI's Swagger UI, loaded from jsDelivr) gets a relaxed policy on
that path only.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .webbundle import served_ui

Headers = list[tuple[bytes, bytes]]

COMMON: dict[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # Only meaningful over https (API Gateway serves nothing else); harmless on http://localhost.
    "Strict-Transport-Security": "max-age=31536000; includeSubDomains",
}

API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
"""JSON and downloads are never rendered as pages: nothing may load, nothing may frame them."""

_SWAGGER = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/"
DOCS_CSP = (
    f"default-src 'none'; script-src 'unsafe-inline' {_SWAGGER}; style-src 'unsafe-inline' {_SWAGGER}; "
    "img-src 'self' data: https://fastapi.tiangolo.com; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
"""Swagger UI: its bundle from jsDelivr, its inline bootstrap script and styles; on `/api/docs` only."""

_INLINE_SCRIPT = re.compile(r"<script\b(?![^>]*\bsrc\s*=)[^>]*>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)


def inline_script_hashes(html: str) -> list[str]:
    """CSP source expressions (`'sha256-…'`) for each inline `<script>` of a page, as browsers hash them."""
    return [
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") + "'"
        for body in _INLINE_SCRIPT.findall(html)
    ]


def ui_csp(script_hashes: Sequence[str] = (), connect_sources: Sequence[str] = ()) -> str:
    """The web UI's policy: same origin only, plus the page's own inline scripts by hash, and the
    origins it may fetch besides its own (the sign-in's token endpoint)."""
    scripts = " ".join(["'self'", *script_hashes])
    connect = " ".join(["'self'", *connect_sources])
    return (
        f"default-src 'self'; script-src {scripts}; style-src 'self'; img-src 'self' data:; "
        f"connect-src {connect}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


def ui_csp_from(index: Path, connect_sources: Sequence[str] = ()) -> str:
    """The UI policy for the page at `index` (no hashes when there is no page)."""
    html = index.read_text(encoding="utf-8") if index.is_file() else ""
    return ui_csp(inline_script_hashes(html), connect_sources)


def _is_api(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def _is_docs(path: str) -> bool:
    return path in ("/api/docs", "/api/docs/oauth2-redirect")


class SecurityHeadersMiddleware:
    """Adds the security headers to every HTTP response, replacing any the app set under those names."""

    def __init__(self, app: ASGIApp, *, ui_policy: str) -> None:
        self.app = app
        self.ui_policy = ui_policy

    def headers_for(self, path: str) -> dict[str, str]:
        """The headers a response to `path` carries."""
        headers = dict(COMMON)
        if _is_api(path):
            # Session data must not linger in browser or proxy caches.
            headers["Cache-Control"] = "no-store"
            headers["Content-Security-Policy"] = DOCS_CSP if _is_docs(path) else API_CSP
        else:
            headers["Content-Security-Policy"] = self.ui_policy
        return headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in self.headers_for(scope["path"]).items()]
        names = {k for k, _ in extra}

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept: Headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": kept + extra}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install_security(app: FastAPI, *, index: Path | None = None, connect_sources: Sequence[str] = ()) -> None:
    """Wrap the whole app, outside Starlette's ServerErrorMiddleware, so even 500s and 413s carry the headers.

    `add_middleware` would sit inside ServerErrorMiddleware (which answers unhandled exceptions) and,
    depending on call order, inside the body-limit middleware; wrapping the built stack does not.
    `connect_sources`: origins the UI may fetch besides its own (the sign-in's token endpoint).
    """
    policy = ui_csp_from(index or served_ui().index, connect_sources)
    build: Callable[[], ASGIApp] = app.build_middleware_stack

    def build_with_security() -> ASGIApp:
        return SecurityHeadersMiddleware(build(), ui_policy=policy)

    app.build_middleware_stack = build_with_security  # type: ignore[method-assign]
    app.middleware_stack = None
