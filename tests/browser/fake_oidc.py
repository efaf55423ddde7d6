"""A fake OpenID provider for the browser tests: one public client, PKCE checked, unsigned JWTs.

`/authorize` records the request and redirects back with a code; `/token` checks the code, the client,
the redirect URI and the PKCE verifier against the challenge, and answers (with CORS headers for the
app's origin) a well-formed but unsigned JWT access token, an ID token and a refresh token;
`/logout` redirects back. stdlib `http.server` on 127.0.0.1, in a thread.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

CLIENT_ID = "ui-client-7c1f"
SCOPES = "openid email"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def make_jwt(claims: dict[str, Any]) -> str:
    """A well-formed JWT with a dummy signature (nothing in this test verifies signatures)."""
    header = _b64url(json.dumps({"alg": "RS256", "typ": "JWT", "kid": "test"}).encode())
    return f"{header}.{_b64url(json.dumps(claims).encode())}.{_b64url(b'not-a-real-signature')}"


def claims(token: str) -> dict[str, Any]:
    """The payload of a JWT."""
    payload = token.split(".")[1]
    result: dict[str, Any] = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return result


# -- the fake OpenID provider -----------------------------------------------------------------------


@dataclass
class FakeProvider:
    """An authorization server for one public client; records every request it gets."""

    app_origin: str
    authorizations: list[dict[str, str]] = field(default_factory=list)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    logouts: list[dict[str, str]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)  # access tokens, in order
    preflights: int = 0
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    refresh_tokens: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def issue(self) -> dict[str, Any]:
        """A token answer as Cognito gives it: a JWT access token (with client_id, no aud), an ID token."""
        now = int(time.time())
        access = make_jwt(
            {
                "sub": "user-7f3a",
                "username": "alice",
                "client_id": CLIENT_ID,
                "token_use": "access",
                "scope": SCOPES,
                "iat": now,
                "exp": now + 3600,
                "jti": secrets.token_hex(8),
            }
        )
        id_token = make_jwt({"sub": "user-7f3a", "email": "alice@example.com", "aud": CLIENT_ID, "exp": now + 3600})
        refresh = secrets.token_urlsafe(24)
        self.issued.append(access)
        self.refresh_tokens.add(refresh)
        return {
            "access_token": access,
            "id_token": id_token,
            "refresh_token": refresh,
            "token_type": "Bearer",
            "expires_in": 3600,
        }

    def authorize(self, query: dict[str, str]) -> str:
        """Records the request; the redirect back with a code (the user is signed in at once)."""
        self.authorizations.append(query)
        code = secrets.token_urlsafe(16)
        self.codes[code] = query
        return f"{query['redirect_uri']}?{urlencode({'code': code, 'state': query['state']})}"

    def token(self, form: dict[str, str], origin: str) -> tuple[int, dict[str, Any]]:
        self.token_requests.append(form)

        def refuse(why: str) -> tuple[int, dict[str, Any]]:
            self.refused.append(why)
            return 400, {"error": "invalid_grant", "error_description": why}

        if origin != self.app_origin:
            return refuse(f"unexpected Origin {origin!r}")
        if form.get("client_id") != CLIENT_ID:
            return refuse("wrong client_id")
        if form.get("grant_type") == "refresh_token":
            if form.get("refresh_token") not in self.refresh_tokens:
                return refuse("unknown refresh token")
            return 200, self.issue()
        if form.get("grant_type") != "authorization_code":
            return refuse("unsupported grant_type")
        asked = self.codes.pop(form.get("code", ""), None)  # a code is good once
        if asked is None:
            return refuse("unknown or used code")
        if form.get("redirect_uri") != asked["redirect_uri"]:
            return refuse("redirect_uri differs from the authorization request's")
        if asked.get("code_challenge_method") != "S256":
            return refuse("PKCE method is not S256")
        verifier = form.get("code_verifier", "")
        if not 43 <= len(verifier) <= 128:
            return refuse("code_verifier length")
        if _b64url(hashlib.sha256(verifier.encode("ascii")).digest()) != asked.get("code_challenge"):
            return refuse("code_verifier does not match code_challenge")
        return 200, self.issue()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def _cors(self) -> None:
                self.send_header("Access-Control-Allow-Origin", provider.app_origin)
                self.send_header("Vary", "Origin")

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = {k: v[0] for k, v in parse_qs(url.query).items()}
                with provider.lock:
                    if url.path == "/authorize":
                        location = provider.authorize(query)
                    elif url.path == "/logout":
                        provider.logouts.append(query)
                        location = query.get("logout_uri", provider.app_origin)
                    else:
                        self.send_error(404)
                        return
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_OPTIONS(self) -> None:
                with provider.lock:
                    provider.preflights += 1
                self.send_response(204)
                self._cors()
                self.send_header("Access-Control-Allow-Methods", "POST")
                self.send_header("Access-Control-Allow-Headers", "content-type, accept")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self) -> None:
                if urlsplit(self.path).path != "/token":
                    self.send_error(404)
                    return
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode("utf-8")).items()}
                with provider.lock:
                    status, answer = provider.token(form, self.headers.get("Origin", ""))
                body = json.dumps(answer).encode()
                self.send_response(status)
                self._cors()
                self.send_header("Content-Type", "application/json")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler


@contextlib.contextmanager
def running_provider(app_origin: str) -> Iterator[tuple[FakeProvider, str]]:
    provider = FakeProvider(app_origin)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), provider.handler())
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield provider, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
