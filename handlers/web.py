"""The reviewer's web UI: its files served by the same app at `/`, and its sign-in config.

Locally the app serves the UI's bundle, `web/dist/` (built by scripts/build_web.py; `WEB_UI` may ask for the
sources, handlers/webbundle.py), with cache headers and gzip (handlers/webstatic.py). The Lambda package
holds no UI: the deployed one is served from S3 by CloudFront (template.yaml), which sends `/api/*` and
`/auth.json` to the function.

`GET /auth.json` tells the UI how to sign in, from the environment (read once, when the app is built):

- `"oidc"`: `OIDC_CLIENT_ID`, `OIDC_AUTHORIZE_URL` and `OIDC_TOKEN_URL` are set. The UI signs in with the
  Authorization Code flow and PKCE at that provider (`OIDC_SCOPES`, default `openid`; `OIDC_LOGOUT_URL`
  optional) and sends the token as `Authorization: Bearer …` on every `/api` request.
- `"token"`: no OIDC client, but `REQUIRE_AUTH` is true: the UI asks the user to paste a bearer token.
- `"none"`: neither (local mode): the UI sends no token.

Bad config is refused when the app is built (`SignInConfigError`, so the server or the Lambda function does
not start): an OIDC setting without the others, a URL that is not https (http only for localhost), a
client id or scope with characters an OAuth request cannot carry. A half-configured sign-in that silently
fell back to "none" would only show up as a UI whose every request is answered 401.

Nothing here verifies a token: on AWS, API Gateway's JWT authorizer does (template.yaml).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

from fastapi import FastAPI, Response

from .identity import require_auth
from .logging import logger
from .webbundle import served_ui
from .webstatic import WebFiles

SignIn = Literal["oidc", "token", "none"]

_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
_CLIENT_ID = re.compile(r"[\x21-\x7e]{1,256}")
# RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), separated by single spaces.
_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]+")


class SignInConfigError(ValueError):
    """The OIDC_* environment variables do not describe a usable sign-in."""


@dataclass(frozen=True)
class SignInConfig:
    """How the UI signs in; `as_json()` is what `GET /auth.json` answers."""

    sign_in: SignIn = "none"
    client_id: str = ""
    authorize_url: str = ""
    token_url: str = ""
    scopes: str = "openid"
    logout_url: str = ""

    def as_json(self) -> dict[str, str]:
        """The UI's view: the mode, and the OIDC endpoints with the "oidc" mode only."""
        if self.sign_in != "oidc":
            return {"signIn": self.sign_in}
        body = {
            "signIn": self.sign_in,
            "clientId": self.client_id,
            "authorizeUrl": self.authorize_url,
            "tokenUrl": self.token_url,
            "scopes": self.scopes,
        }
        if self.logout_url:
            body["logoutUrl"] = self.logout_url
        return body

    @property
    def connect_sources(self) -> tuple[str, ...]:
        """Origins the page must be allowed to fetch (CSP `connect-src`): the token endpoint's, with OIDC."""
        if self.sign_in != "oidc":
            return ()
        parts = urlsplit(self.token_url)
        return (f"{parts.scheme}://{parts.netloc}".lower(),)


def _url(name: str, value: str) -> str:
    """`value` when it is an absolute https URL (http for localhost only), without credentials or fragment."""
    try:
        parts = urlsplit(value)
        host = parts.hostname or ""
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError as exc:
        raise SignInConfigError(f"{name} is not a valid URL: {value!r}.") from exc
    local = host in _LOCAL_HOSTS
    if not host or parts.scheme not in ("https", "http") or (parts.scheme == "http" and not local):
        raise SignInConfigError(f"{name} must be an https:// URL (http:// only for localhost): {value!r}.")
    if parts.username is not None or parts.fragment or re.search(r"\s", value):
        raise SignInConfigError(f"{name} must not contain credentials, a fragment or spaces: {value!r}.")
    return value


def sign_in_config() -> SignInConfig:
    """The sign-in the environment describes; raises `SignInConfigError` on a partial or unsafe one."""
    env = os.environ
    values = {
        name: env.get(name, "").strip()
        for name in ("OIDC_CLIENT_ID", "OIDC_AUTHORIZE_URL", "OIDC_TOKEN_URL", "OIDC_LOGOUT_URL")
    }
    if not any(values.values()):
        return SignInConfig(sign_in="token" if require_auth() else "none")
    missing = [name for name in ("OIDC_CLIENT_ID", "OIDC_AUTHORIZE_URL", "OIDC_TOKEN_URL") if not values[name]]
    if missing:
        raise SignInConfigError(
            f"OIDC sign-in needs OIDC_CLIENT_ID, OIDC_AUTHORIZE_URL and OIDC_TOKEN_URL; missing: {', '.join(missing)}."
        )
    client_id = values["OIDC_CLIENT_ID"]
    if not _CLIENT_ID.fullmatch(client_id):
        raise SignInConfigError("OIDC_CLIENT_ID must be 1 to 256 printable ASCII characters without spaces.")
    scopes = " ".join(env.get("OIDC_SCOPES", "").split()) or "openid"
    if not all(_SCOPE_TOKEN.fullmatch(s) for s in scopes.split(" ")):
        raise SignInConfigError(f"OIDC_SCOPES must be space-separated OAuth scopes: {scopes!r}.")
    return SignInConfig(
        sign_in="oidc",
        client_id=client_id,
        authorize_url=_url("OIDC_AUTHORIZE_URL", values["OIDC_AUTHORIZE_URL"]),
        token_url=_url("OIDC_TOKEN_URL", values["OIDC_TOKEN_URL"]),
        scopes=scopes,
        logout_url=_url("OIDC_LOGOUT_URL", values["OIDC_LOGOUT_URL"]) if values["OIDC_LOGOUT_URL"] else "",
    )


def mount_web(app: FastAPI, sign_in: SignInConfig) -> None:
    """Serve `GET /auth.json`, and the UI at `/` when there is one (after the API routes, which take precedence).

    Raises `WebConfigError` when `WEB_UI` is not a mode, or is `bundle` without a current bundle.
    """
    from service.access import local_mode  # the environment, read as the identity module reads it

    local = sign_in.sign_in == "none" and local_mode()  # where a request may act as another (X-Act-As)
    body = json.dumps(sign_in.as_json() | ({"local": True} if local else {})).encode("utf-8")

    @app.get("/auth.json", include_in_schema=False)
    async def auth_json() -> Response:
        """How the UI signs in (public: the UI reads it before it has a token)."""
        return Response(body, media_type="application/json", headers={"Cache-Control": "no-cache"})

    ui = served_ui()
    if not ui.root.is_dir():
        return
    if ui.note:
        logger.info(f"Web UI: {ui.note}; run `python scripts/build_web.py` to bundle it.")
    app.mount("/", WebFiles(directory=ui.root, bundled=ui.bundled), name="web")
