"""`GET /auth.json`: how the web UI signs in, from the OIDC_* and REQUIRE_AUTH variables (handlers/web.py).

Each mode through a fresh app (the config is read when the app is built), over ASGI and through the
Lambda handler; bad config stops the app from being built, with a message naming the variable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mangum import Mangum

from agent_core.models import resolve_model
from handlers.api import create_app
from handlers.web import SignInConfigError, sign_in_config
from tests.events import FakeLambdaContext, http_event
from tests.helpers import services_for

OIDC_ENV = {
    "OIDC_CLIENT_ID": "1example23456789abcdefghij",
    "OIDC_AUTHORIZE_URL": "https://login.example.auth.eu-west-1.amazoncognito.com/oauth2/authorize",
    "OIDC_TOKEN_URL": "https://login.example.auth.eu-west-1.amazoncognito.com/oauth2/token",
}
ALL_VARIABLES = (
    "REQUIRE_AUTH",
    "OIDC_CLIENT_ID",
    "OIDC_AUTHORIZE_URL",
    "OIDC_TOKEN_URL",
    "OIDC_SCOPES",
    "OIDC_LOGOUT_URL",
)


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """A clean slate: none of the sign-in variables set."""
    for name in ALL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch


def set_env(monkeypatch: pytest.MonkeyPatch, values: dict[str, str]) -> None:
    for name, value in values.items():
        monkeypatch.setenv(name, value)


def app() -> FastAPI:
    return create_app(services_for(model=resolve_model("pseudo")))


def get_auth_json() -> tuple[Any, dict[str, str]]:
    with TestClient(app()) as client:
        response = client.get("/auth.json")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    return response.json(), dict(response.headers)


def connect_src(headers: dict[str, str]) -> list[str]:
    csp = dict(d.strip().split(" ", 1) for d in headers["content-security-policy"].split(";"))
    return csp["connect-src"].split()


# -- the three modes --------------------------------------------------------------------------------


def test_local_mode_signs_in_nowhere(env: pytest.MonkeyPatch) -> None:
    body, headers = get_auth_json()
    assert body == {"signIn": "none", "local": True}, "local: the UI may act as another identity"
    assert headers["cache-control"] == "no-cache", "a redeployed config is read again"
    assert connect_src(headers) == ["'self'"]


def test_a_function_without_sign_in_is_not_local(env: pytest.MonkeyPatch) -> None:
    env.setenv("AWS_LAMBDA_FUNCTION_NAME", "agent")
    body, _ = get_auth_json()
    assert body == {"signIn": "none"}, "X-Act-As is ignored in Lambda: the UI offers no act-as field"


@pytest.mark.parametrize("value", ["true", "1", "yes", "TRUE"])
def test_required_auth_without_a_client_asks_for_a_pasted_token(env: pytest.MonkeyPatch, value: str) -> None:
    env.setenv("REQUIRE_AUTH", value)
    body, headers = get_auth_json()
    assert body == {"signIn": "token"}
    assert connect_src(headers) == ["'self'"], "a pasted token is fetched from nowhere"


def test_an_oidc_client_signs_in_with_its_endpoints_and_default_scope(env: pytest.MonkeyPatch) -> None:
    set_env(env, OIDC_ENV)
    body, headers = get_auth_json()
    assert body == {
        "signIn": "oidc",
        "clientId": OIDC_ENV["OIDC_CLIENT_ID"],
        "authorizeUrl": OIDC_ENV["OIDC_AUTHORIZE_URL"],
        "tokenUrl": OIDC_ENV["OIDC_TOKEN_URL"],
        "scopes": "openid",
    }, "no logoutUrl unless configured"
    assert connect_src(headers) == ["'self'", "https://login.example.auth.eu-west-1.amazoncognito.com"]


def test_oidc_wins_over_required_auth_and_carries_scopes_and_logout(env: pytest.MonkeyPatch) -> None:
    set_env(
        env,
        {
            **OIDC_ENV,
            "REQUIRE_AUTH": "true",
            "OIDC_SCOPES": "  openid   email profile ",
            "OIDC_LOGOUT_URL": "https://login.example.auth.eu-west-1.amazoncognito.com/logout",
        },
    )
    body, _ = get_auth_json()
    assert body["signIn"] == "oidc"
    assert body["scopes"] == "openid email profile"
    assert body["logoutUrl"] == "https://login.example.auth.eu-west-1.amazoncognito.com/logout"


def test_the_csp_allows_the_token_endpoint_origin_only(env: pytest.MonkeyPatch) -> None:
    set_env(
        env,
        {
            "OIDC_CLIENT_ID": "spa",
            "OIDC_AUTHORIZE_URL": "https://login.example.com/authorize?prompt=login",
            "OIDC_TOKEN_URL": "https://TOKENS.example.net:8443/oauth2/token",
            "OIDC_LOGOUT_URL": "https://logout.example.org/logout",
        },
    )
    with TestClient(app()) as client:
        page = client.get("/")
        api_answer = client.get("/api/health")
    # Navigations (authorize, logout) need no source; the token endpoint is fetched.
    assert connect_src(dict(page.headers)) == ["'self'", "https://tokens.example.net:8443"]
    policy = page.headers["content-security-policy"]
    assert "login.example.com" not in policy and "logout.example.org" not in policy
    assert policy.count("http") == 1, "no other third-party origin"
    assert "default-src 'none'" in api_answer.headers["content-security-policy"], "the API's policy is unchanged"


def test_http_is_accepted_for_localhost_only(env: pytest.MonkeyPatch) -> None:
    set_env(
        env,
        {
            "OIDC_CLIENT_ID": "local-client",
            "OIDC_AUTHORIZE_URL": "http://localhost:9000/authorize",
            "OIDC_TOKEN_URL": "http://127.0.0.1:9000/token",
        },
    )
    config = sign_in_config()
    assert config.sign_in == "oidc"
    assert config.connect_sources == ("http://127.0.0.1:9000",)


def test_auth_json_is_public_while_the_api_needs_a_caller(env: pytest.MonkeyPatch) -> None:
    """Through the Lambda handler, as API Gateway calls it: no authorizer context on the UI's routes."""
    env.setenv("REQUIRE_AUTH", "true")
    handler = Mangum(app(), lifespan="off")
    config = handler(http_event("GET", "/auth.json", sub=None), FakeLambdaContext())
    assert config["statusCode"] == 200
    assert json.loads(config["body"]) == {"signIn": "token"}
    assert handler(http_event("GET", "/api/sessions", sub=None), FakeLambdaContext())["statusCode"] == 401


def test_auth_json_is_not_part_of_the_api_schema(env: pytest.MonkeyPatch) -> None:
    with TestClient(app()) as client:
        paths = client.get("/api/openapi.json").json()["paths"]
    assert "/auth.json" not in paths


# -- bad config is refused at startup ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"OIDC_CLIENT_ID": "abc"}, "missing: OIDC_AUTHORIZE_URL, OIDC_TOKEN_URL"),
        ({k: v for k, v in OIDC_ENV.items() if k != "OIDC_CLIENT_ID"}, "missing: OIDC_CLIENT_ID"),
        ({"OIDC_LOGOUT_URL": "https://login.example.com/logout"}, "missing: OIDC_CLIENT_ID"),
        ({**OIDC_ENV, "OIDC_TOKEN_URL": "http://login.example.com/token"}, "OIDC_TOKEN_URL must be an https://"),
        ({**OIDC_ENV, "OIDC_AUTHORIZE_URL": "login.example.com/authorize"}, "OIDC_AUTHORIZE_URL must be an https://"),
        ({**OIDC_ENV, "OIDC_AUTHORIZE_URL": "javascript:alert(1)"}, "OIDC_AUTHORIZE_URL must be an https://"),
        ({**OIDC_ENV, "OIDC_TOKEN_URL": "https://user:pw@login.example.com/t"}, "OIDC_TOKEN_URL must not contain"),
        ({**OIDC_ENV, "OIDC_TOKEN_URL": "https://login.example.com/t#x"}, "OIDC_TOKEN_URL must not contain"),
        ({**OIDC_ENV, "OIDC_TOKEN_URL": "https://login.example.com:99999/t"}, "OIDC_TOKEN_URL is not a valid URL"),
        ({**OIDC_ENV, "OIDC_LOGOUT_URL": "http://evil.example.com/"}, "OIDC_LOGOUT_URL must be an https://"),
        ({**OIDC_ENV, "OIDC_CLIENT_ID": "a b"}, "OIDC_CLIENT_ID must be"),
        ({**OIDC_ENV, "OIDC_SCOPES": 'openid "email"'}, "OIDC_SCOPES must be"),
    ],
)
def test_bad_config_stops_the_app_with_the_variable_named(
    env: pytest.MonkeyPatch, values: dict[str, str], words: str
) -> None:
    set_env(env, values)
    with pytest.raises(SignInConfigError, match=re.escape(words)) as refused:
        sign_in_config()
    with pytest.raises(SignInConfigError) as building:
        app()
    assert str(building.value) == str(refused.value)
