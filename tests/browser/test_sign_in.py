"""Signing in to the web UI in a real browser (Playwright, sync API) against the real service.

- OIDC: a fake provider runs in the test (tests/browser/fake_oidc.py: it checks the client, the redirect URI
  and the PKCE verifier, and issues unsigned but well-formed JWTs). The service runs with OIDC_* pointing at it. The
  service does not verify tokens (API Gateway does, on AWS), so here it acts as the local user: what is checked
  is what the browser sends.
- A pasted token: the service runs with REQUIRE_AUTH=true and no OIDC client, so every /api request is
  answered 401 locally (there is no authorizer to vouch for a caller): the UI must send the token, and on the
  401 drop it and ask again.
- No sign-in (local mode): nothing of it shows, and no Authorization header is sent.

Needs the `playwright` package and a Chromium at /usr/bin/chromium (or $CHROMIUM_PATH); skipped otherwise.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

try:
    from playwright.sync_api import Page, Request, sync_playwright
except ImportError:  # pragma: no cover - depends on the environment
    sync_playwright = None

from tests.browser.fake_oidc import CLIENT_ID, SCOPES, FakeProvider, claims, make_jwt, running_provider
from tests.browser.launcher import REQUIRES_BROWSER, ROOT, chromium_page, free_port, get_json, running_service

SHOTS = ROOT / "test-artifacts" / "screenshots"
DOCUMENT = "# Notes\n\nShort text.\n\nThe end.\n"

pytestmark = [*REQUIRES_BROWSER, pytest.mark.slow]


# -- the service ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oidc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeProvider]]:
    """The service with an OIDC sign-in at the fake provider; yields (base URL, provider)."""
    port = free_port()
    with running_provider(f"http://127.0.0.1:{port}") as (provider, issuer):
        env = {
            "OIDC_CLIENT_ID": CLIENT_ID,
            "OIDC_AUTHORIZE_URL": f"{issuer}/authorize",
            "OIDC_TOKEN_URL": f"{issuer}/token",
            "OIDC_SCOPES": SCOPES,
            "OIDC_LOGOUT_URL": f"{issuer}/logout",
        }
        with running_service(tmp_path_factory.mktemp("oidc"), port, env) as base:
            yield base, provider


@dataclass
class Browser:
    page: Page
    api_requests: list[tuple[str, str, str | None]]  # (method, url, Authorization header)

    def authorizations(self) -> set[str | None]:
        return {auth for _, _, auth in self.api_requests}


@pytest.fixture
def browser() -> Iterator[Browser]:
    """A fresh 1280×800 page (fresh storage) in the system Chromium; fails the test on any page error."""
    with chromium_page() as page:
        seen = Browser(page, [])

        def on_request(request: Request) -> None:
            if "/api/" in urlsplit(request.url).path:
                seen.api_requests.append((request.method, request.url, request.headers.get("authorization")))

        page.on("request", on_request)
        yield seen


def _stored_tokens(page: Page) -> Any:
    return page.evaluate("() => JSON.parse(sessionStorage.getItem('auth:tokens'))")


def _sign_in_with_the_provider(page: Page, provider: FakeProvider) -> str:
    """From the open prompt, through the provider and back; returns the access token issued."""
    page.wait_for_selector("dialog#sign-in[open] #sign-in-go:focus")
    assert page.inner_text("#sign-in-go") == "Sign in"
    assert page.is_hidden("#sign-in-token"), "no token field with OIDC"
    before = len(provider.issued)
    page.click("#sign-in-go")
    page.wait_for_selector("#account-name:visible, #sign-in-error:visible")
    assert page.is_hidden("#sign-in-error"), (page.inner_text("#sign-in-error"), provider.refused)
    assert page.inner_text("#account-user") == "alice@example.com", "the ID token's email names the user"
    assert len(provider.issued) == before + 1, provider.refused
    query = parse_qs(urlsplit(page.url).query)
    assert not {"code", "state"} & set(query), f"the code is left in the address: {page.url}"
    assert page.evaluate("() => sessionStorage.getItem('auth:pending')") is None
    return provider.issued[-1]


CARD_IDS = "() => [...document.querySelectorAll('#cards .card')].map(c => c.dataset.callId)"
NEXT_BATCH_OR_DONE = """(seen) => document.body.dataset.phase === 'done' || (document.body.dataset.phase === 'review'
  && [...document.querySelectorAll('#cards .card')].some(c => !seen.includes(c.dataset.callId)))"""


def _start_translation(page: Page, name: str, language: str) -> None:
    """From the home page: DOCUMENT as `name` into `language`, until the first proposal is shown."""
    page.fill("#doc-text", DOCUMENT)
    page.fill("#doc-name", name)
    page.fill("#target-lang", language)
    page.click("#start")
    page.wait_for_selector("body[data-phase=review] #cards .card.current")


def _review_to_the_end(page: Page) -> None:
    """Approve every batch (Shift+A, or A for a single card) until the document is done."""
    page.wait_for_selector("body[data-phase=review] #cards .card.current, body[data-phase=done]")
    while page.evaluate("() => document.body.dataset.phase") != "done":
        seen = page.evaluate(CARD_IDS)
        page.keyboard.press("Shift+A" if len(seen) > 1 else "a")
        page.wait_for_function(NEXT_BATCH_OR_DONE, arg=seen)


# -- OIDC -------------------------------------------------------------------------------------------


def test_oidc_sign_in_then_every_api_request_carries_the_access_token(
    oidc: tuple[str, FakeProvider], browser: Browser
) -> None:
    base, provider = oidc
    page = browser.page
    page.goto(base)

    # Signed out: a prompt with a Sign in button, nothing asked of the API yet.
    page.wait_for_selector("dialog#sign-in[open]")
    assert page.get_attribute("body", "data-phase") == "signed-out"
    assert page.is_visible("#account") and page.is_hidden("#account-name")
    assert browser.api_requests == [], "no API request before signing in"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "sign-in.png"))
    page.click("#sign-in-cancel")
    page.wait_for_selector("dialog#sign-in:not([open])", state="attached")
    assert "Sign in" in page.inner_text("#status")
    page.click("#sign-in-open")  # the header's button opens the prompt again

    token = _sign_in_with_the_provider(page, provider)
    asked = provider.authorizations[-1]
    assert asked["response_type"] == "code" and asked["client_id"] == CLIENT_ID
    assert asked["redirect_uri"] == base, "redirect_uri is the page's origin and path"
    assert asked["scope"] == SCOPES and asked["code_challenge_method"] == "S256"
    assert len(asked["state"]) >= 16 and len(asked["code_challenge"]) == 43
    exchange = provider.token_requests[-1]
    assert exchange["grant_type"] == "authorization_code" and exchange["redirect_uri"] == base
    assert not provider.refused
    assert "Signed in as" in page.inner_text("#account-name") and page.is_visible("#sign-out")
    assert claims(token)["sub"] == "user-7f3a"
    stored = _stored_tokens(page)
    assert stored["bearer"] == token, "the access token is sent (its client_id is the audience API Gateway checks)"
    assert token not in json.dumps(page.evaluate("() => ({...localStorage})")), "tokens stay out of localStorage"

    # A translation, step by step, with the token on every request.
    page.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
    page.screenshot(path=str(SHOTS / "signed-in.png"))
    _start_translation(page, "notes.md", "French")
    _review_to_the_end(page)
    session_id = page.evaluate("() => location.hash.slice(1)")
    assert session_id.startswith("s_")

    # The download goes through fetch with the token too, and is the server's translation.
    with page.expect_download() as info:
        page.click("#download")
    assert info.value.suggested_filename == "notes.translated.md"
    [file] = get_json(f"{base}api/sessions/{session_id}")["files"]
    served = get_json(f"{base}api/sessions/{session_id}/files/{file['fileId']}")["translation"]
    assert Path(info.value.path()).read_text(encoding="utf-8") == served

    methods = {method for method, _, _ in browser.api_requests}
    paths = {urlsplit(url).path for _, url, _ in browser.api_requests}
    assert {"GET", "POST"} <= methods and "/api/next" in paths and "/api/memory" in paths
    assert any(p.endswith("/translation") for p in paths)
    assert browser.authorizations() == {f"Bearer {token}"}, "every /api request carried the token"
    assert provider.preflights == 0, "the token request is a simple CORS request"


def test_a_token_near_expiry_is_refreshed_and_a_new_sign_in_returns_to_the_session(
    oidc: tuple[str, FakeProvider], browser: Browser
) -> None:
    base, provider = oidc
    page = browser.page
    page.goto(base)
    first = _sign_in_with_the_provider(page, provider)
    page.wait_for_selector("body[data-phase=home]")
    _start_translation(page, "kept.md", "German")
    session_id = page.evaluate("() => location.hash.slice(1)")

    # Within 60 s of its expiry the token is refreshed before the next request (here: after a reload).
    page.evaluate(
        "() => { const t = JSON.parse(sessionStorage.getItem('auth:tokens'));"
        " t.expiresAt = Date.now() + 30000; sessionStorage.setItem('auth:tokens', JSON.stringify(t)); }"
    )
    grants = len(provider.token_requests)
    browser.api_requests.clear()
    page.reload()
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    refreshed = provider.token_requests[grants:]
    assert [r["grant_type"] for r in refreshed] == ["refresh_token"], provider.refused
    second = provider.issued[-1]
    assert second != first and _stored_tokens(page)["bearer"] == second
    assert browser.authorizations() == {f"Bearer {second}"}, "no request went out with the old token"

    # Signed out of this tab (the tokens gone), a reload of the session's address asks to sign in; the provider's
    # round trip comes back to the same session, with the code gone from the address.
    page.evaluate("() => sessionStorage.removeItem('auth:tokens')")
    browser.api_requests.clear()
    page.reload()
    page.wait_for_selector("dialog#sign-in[open]")
    assert browser.api_requests == []
    third = _sign_in_with_the_provider(page, provider)
    assert urlsplit(page.url).fragment == session_id, f"the session's place is kept: {page.url}"
    assert urlsplit(page.url).query == ""
    page.wait_for_selector("body[data-phase=review] #cards .card.current")
    assert browser.authorizations() == {f"Bearer {third}"}
    _review_to_the_end(page)


def test_a_401_asks_to_sign_in_again_and_sign_out_forgets_everything(
    oidc: tuple[str, FakeProvider], browser: Browser
) -> None:
    base, provider = oidc
    page = browser.page
    page.goto(base)
    _sign_in_with_the_provider(page, provider)
    page.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")

    # API Gateway refuses the token (expired, revoked): the token is dropped and the prompt comes back.
    page.route(
        "**/api/sessions?*",
        lambda route: route.fulfill(
            status=401, content_type="application/json", body=json.dumps({"message": "Unauthorized"})
        ),
    )
    page.click("#sessions-refresh")
    page.wait_for_selector("dialog#sign-in[open]")
    assert "did not accept your sign-in" in page.inner_text("#sign-in-text")
    assert _stored_tokens(page) is None
    assert page.is_visible("#sign-in-open") and page.is_hidden("#sign-out")
    page.unroute("**/api/sessions?*")
    page.keyboard.press("Escape")
    page.wait_for_selector("#error:visible")
    assert "signed out" in page.inner_text("#error-text")

    # Signed in again: the session list loads; a started session leaves its title in localStorage.
    page.click("#sign-in-open")
    _sign_in_with_the_provider(page, provider)
    _start_translation(page, "private.md", "Italian")
    session_id = page.evaluate("() => location.hash.slice(1)")
    assert page.evaluate(f"() => localStorage.getItem('title:{session_id}')")

    # Sign out: the provider's logout with client_id and logout_uri, back to a signed-out page.
    page.click("#sign-out")
    page.wait_for_selector("dialog#sign-in[open]")
    assert provider.logouts[-1] == {"client_id": CLIENT_ID, "logout_uri": base}
    assert urlsplit(page.url).fragment == ""
    assert page.evaluate("() => sessionStorage.length") == 0
    assert page.evaluate(f"() => localStorage.getItem('title:{session_id}')") is None
    assert page.is_hidden("#account-name")


# -- a pasted token -----------------------------------------------------------------------------------


def test_a_pasted_token_is_checked_sent_and_dropped_on_401(tmp_path: Path, browser: Browser) -> None:
    page = browser.page
    with running_service(tmp_path, free_port(), {"REQUIRE_AUTH": "true"}) as base:
        page.goto(base)
        page.wait_for_selector("dialog#sign-in[open] #sign-in-token:focus")
        assert page.inner_text("#sign-in-go") == "Use this token"
        assert browser.api_requests == []

        # Only a JWT that has not expired is taken.
        page.fill("#sign-in-token", "not-a-token")
        page.click("#sign-in-go")
        assert "not a JWT" in page.inner_text("#sign-in-error")
        expired = make_jwt({"sub": "token-user-42", "exp": int(time.time()) - 60})
        page.fill("#sign-in-token", expired)
        page.press("#sign-in-token", "Enter")  # Enter submits: a token has no line breaks
        assert "expired" in page.inner_text("#sign-in-error")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "sign-in-token.png"))
        assert page.is_visible("dialog#sign-in") and browser.api_requests == []

        # A good token: the UI goes on and sends it. (A stub answers the list: locally nothing can vouch for it.)
        token = make_jwt({"sub": "token-user-42", "exp": int(time.time()) + 3600})
        page.route(
            "**/api/sessions?*",
            lambda route: route.fulfill(
                status=200, content_type="application/json", body=json.dumps({"sessions": [], "nextCursor": None})
            ),
        )
        page.route(
            "**/api/models",
            lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps({"models": []})),
        )
        page.fill("#sign-in-token", f"Bearer {token}")
        page.click("#sign-in-go")
        page.wait_for_selector("body[data-phase=home] #sessions-empty:visible")
        assert page.inner_text("#account-user") == "token-user-42"
        assert page.is_hidden("dialog#sign-in")
        page.unroute("**/api/sessions?*")

        # The real service answers 401 (REQUIRE_AUTH without an authorizer): token dropped, prompt back.
        page.click("#sessions-refresh")
        page.wait_for_selector("dialog#sign-in[open] #sign-in-token:focus")
        assert _stored_tokens(page) is None and page.is_visible("#sign-in-open")
        assert "did not accept your sign-in" in page.inner_text("#sign-in-text")
        assert [url.rsplit("/api/", 1)[1].split("?")[0] for _, url, _ in browser.api_requests] == [
            "models",
            "sessions",
            "sessions",
        ], "the models once, the sessions stubbed, then the real service's 401"
        assert browser.authorizations() == {f"Bearer {token}"}


# -- no sign-in -----------------------------------------------------------------------------------------


def test_without_a_sign_in_nothing_shows_and_no_header_is_sent(tmp_path: Path, browser: Browser) -> None:
    page = browser.page
    with running_service(tmp_path, free_port(), {}) as base:
        assert get_json(base + "auth.json") == {"signIn": "none", "local": True}
        page.goto(base)
        page.wait_for_selector("body[data-phase=home] #session-list[data-loaded=true]", state="attached")
        assert page.is_hidden("#account") and page.is_hidden("dialog#sign-in")
        assert browser.api_requests and browser.authorizations() == {None}
        assert page.evaluate("() => sessionStorage.length") == 0
