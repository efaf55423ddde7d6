"""One driver at a time (API.md "Projects and teams"): through HTTP on both backends, and through the
Lambda handler with JWT subs. A project's session is claimed by each step of the member who drives it;
another member's step is 409 `{"error", "heldBy", "until"}` and asks no model, stores nothing; the claim
ends after CLAIM_SECONDS (a clock the tests move), a manager may take it over (nobody else: 403), the
holder's steps renew it, and a personal session has no claim."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import httpx
import pytest
from mangum import Mangum

from handlers.app import create_app
from service.claims import CLAIM_SECONDS, stamp
from service.container import Services
from storage.dynamodb import DynamoDBSessionStorage
from storage.interface import Storage
from tests.conftest import make_backend
from tests.events import FakeLambdaContext, http_event
from tests.helpers import Script, services_for

DOC = "Hello world.\n\nA second sentence.\n"
START = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)


class Clock:
    """The time the claims are measured by, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def wired(storage: Storage) -> tuple[Services, Script, Clock]:
    """The services over `storage` with a scripted model (its calls counted) and a clock of the test's."""
    script, clock = Script(), Clock()
    services = services_for(storage, model=script.model)
    assert services.steps.claims is not None
    services.steps.claims.clock = clock
    return services, script, clock


class Http:
    """The in-process app, each request as one identity (local mode, `X-Act-As`)."""

    def __init__(self, services: Services) -> None:
        self.client = httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(services)), base_url="http://t")

    async def __call__(self, sub: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        response = await self.client.request(method, path, json=body, headers={"X-Act-As": sub})
        return response.status_code, response.json() if response.content else None

    async def ok(self, sub: str, method: str, path: str, body: Any = None) -> Any:
        status, answer = await self(sub, method, path, body)
        assert status < 300, (sub, method, path, status, answer)
        return answer


async def team(http: Http) -> str:
    """alice's project (she manages it) with bob and dan, French translators; a French session of it."""
    pid = (await http.ok("alice", "POST", "/api/projects", {"name": "Site"}))["id"]
    for sub in ("bob", "dan"):
        await http.ok("alice", "PUT", f"/api/projects/{pid}/members/{sub}", {"role": "translator", "languages": ["fr"]})
    sid: str = (await http.ok("alice", "POST", "/api/sessions", {"project": pid, "targetLanguage": "fr"}))["id"]
    await http.ok("alice", "POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC})
    return sid


@pytest.fixture(params=["sqlite", "dynamodb"])
def storage(request: pytest.FixtureRequest, tmp_path: Any) -> Storage:
    if request.param == "dynamodb":
        request.getfixturevalue("moto_table")
    made = make_backend(request.param, tmp_path)
    assert isinstance(made, Storage)
    return made


async def test_one_member_drives_until_the_claim_ends_or_a_manager_takes_it_over(storage: Storage) -> None:
    services, script, clock = wired(storage)
    http = Http(services)
    sid = await team(http)
    view = await http.ok("bob", "GET", f"/api/sessions/{sid}")
    assert (view["heldBy"], view["until"]) == (None, None), "nobody has stepped it yet"

    await http.ok("bob", "POST", "/api/next", {"sessionId": sid, "userInput": "Translate."})
    until = stamp(START + timedelta(seconds=CLAIM_SECONDS))
    view = await http.ok("dan", "GET", f"/api/sessions/{sid}")
    assert (view["heldBy"], view["until"]) == ("bob", until)
    pid = view["project"]
    listed = (await http.ok("dan", "GET", f"/api/projects/{pid}/sessions"))["sessions"]
    assert [(s["id"], s["heldBy"], s["until"]) for s in listed] == [(sid, "bob", until)], "the project's list says so"

    calls, before = len(script.seen), storage.get_session(sid)
    status, answer = await http("dan", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine now."})
    assert status == 409, answer
    assert set(answer) == {"error", "heldBy", "until"} and (answer["heldBy"], answer["until"]) == ("bob", until)
    assert "bob" in answer["error"]
    assert len(script.seen) == calls, "a refused step asks no model"
    assert storage.get_session(sid) == before, "a refused step changes nothing stored"

    status, answer = await http("dan", "POST", "/api/next", {"sessionId": sid, "takeOver": True})
    assert status == 403 and "manager" in answer["error"], answer
    assert storage.get_session(sid) == before and len(script.seen) == calls, "a translator cannot take it over"

    clock.now = START + timedelta(seconds=60)  # a fresh claim is kept as it is: no write
    await http.ok("bob", "POST", "/api/next", {"sessionId": sid, "userInput": "Still me."})
    assert (await http.ok("dan", "GET", f"/api/sessions/{sid}"))["until"] == until

    clock.now = START + timedelta(seconds=CLAIM_SECONDS - 60)  # the holder's step renews the claim
    await http.ok("bob", "POST", "/api/next", {"sessionId": sid, "userInput": "More."})
    clock.now = START + timedelta(seconds=CLAIM_SECONDS + 60)
    status, answer = await http("dan", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine now."})
    assert status == 409 and answer["until"] == stamp(START + timedelta(seconds=2 * CLAIM_SECONDS - 60)), answer

    clock.now = START + timedelta(seconds=2 * CLAIM_SECONDS)  # bob stopped: the claim ended
    view = await http.ok("dan", "GET", f"/api/sessions/{sid}")
    assert (view["heldBy"], view["until"]) == (None, None), "an ended claim is shown as none"
    calls = len(script.seen)
    await http.ok("dan", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine now."})
    assert len(script.seen) == calls + 1
    assert (await http.ok("bob", "GET", f"/api/sessions/{sid}"))["heldBy"] == "dan"

    await http.ok("alice", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine.", "takeOver": True})
    view = await http.ok("dan", "GET", f"/api/sessions/{sid}")
    assert (view["heldBy"], view["until"]) == ("alice", stamp(clock.now + timedelta(seconds=CLAIM_SECONDS)))
    status, answer = await http("dan", "POST", "/api/next", {"sessionId": sid})
    assert status == 409 and answer["heldBy"] == "alice", answer


async def test_a_personal_session_has_no_claim(storage: Storage) -> None:
    services, _, _ = wired(storage)
    http = Http(services)
    sid = (await http.ok("bob", "POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    await http.ok("bob", "POST", "/api/next", {"sessionId": sid, "userInput": "Go."})
    assert storage.get_session(sid).claim is None
    view = await http.ok("bob", "GET", f"/api/sessions/{sid}")
    assert (view["heldBy"], view["until"]) == (None, None)


def test_claims_through_the_lambda_handler_with_jwt_subs(moto_table: str) -> None:
    storage = DynamoDBSessionStorage(boto3.client("dynamodb", region_name="us-east-1"), table_name=moto_table)
    services, script, clock = wired(storage)
    handler = Mangum(create_app(services), lifespan="off")

    def call(sub: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        result = handler(http_event(method, path, body, sub=sub), FakeLambdaContext())  # type: ignore[arg-type]
        text = result.get("body") or ""
        return result["statusCode"], json.loads(text) if text else None

    def ok(sub: str, method: str, path: str, body: Any = None) -> Any:
        status, answer = call(sub, method, path, body)
        assert status < 300, (sub, method, path, status, answer)
        return answer

    pid = ok("user-alice", "POST", "/api/projects", {"name": "Site"})["id"]
    for sub in ("user-bob", "user-dan"):
        ok("user-alice", "PUT", f"/api/projects/{pid}/members/{sub}", {"role": "translator", "languages": ["fr"]})
    sid = ok("user-alice", "POST", "/api/sessions", {"project": pid, "targetLanguage": "fr"})["id"]
    ok("user-alice", "POST", f"/api/sessions/{sid}/files", {"name": "doc.md", "content": DOC})

    ok("user-bob", "POST", "/api/next", {"sessionId": sid, "userInput": "Translate."})
    calls, before = len(script.seen), storage.get_session(sid)
    status, answer = call("user-dan", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine."})
    until = stamp(START + timedelta(seconds=CLAIM_SECONDS))
    assert status == 409 and (answer["heldBy"], answer["until"]) == ("user-bob", until), answer
    assert len(script.seen) == calls and storage.get_session(sid) == before
    status, answer = call("user-dan", "POST", "/api/next", {"sessionId": sid, "takeOver": True})
    assert status == 403, answer
    assert ok("user-dan", "GET", f"/api/sessions/{sid}")["heldBy"] == "user-bob"

    ok("user-alice", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine.", "takeOver": True})
    assert ok("user-bob", "GET", f"/api/sessions/{sid}")["heldBy"] == "user-alice"
    clock.now = START + timedelta(seconds=CLAIM_SECONDS + 1)
    ok("user-dan", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine."})
    assert ok("user-bob", "GET", f"/api/sessions/{sid}")["heldBy"] == "user-dan"


async def test_the_holder_or_a_manager_releases_the_claim(storage: Storage) -> None:
    services, _, _ = wired(storage)
    http = Http(services)
    sid = await team(http)
    claim = f"/api/sessions/{sid}/claim"
    assert (await http("bob", "DELETE", claim))[0] == 204, "none lasts: nothing to do"
    await http.ok("bob", "POST", "/api/next", {"sessionId": sid, "userInput": "Translate."})
    status, answer = await http("dan", "DELETE", claim)
    assert status == 403 and "manager" in answer["error"], answer
    assert storage.get_session(sid).claim is not None, "a refused release changes nothing"
    assert (await http("carol", "DELETE", claim))[0] == 404, "not a member"
    assert (await http("bob", "DELETE", claim))[0] == 204
    assert (await http.ok("dan", "GET", f"/api/sessions/{sid}"))["heldBy"] is None
    await http.ok("dan", "POST", "/api/next", {"sessionId": sid, "userInput": "Mine now."})
    assert (await http("alice", "DELETE", claim))[0] == 204, "a manager ends anyone's"
    assert storage.get_session(sid).claim is None
    own = (await http.ok("bob", "POST", "/api/sessions", {"targetLanguage": "fr"}))["id"]
    assert (await http("bob", "DELETE", f"/api/sessions/{own}/claim"))[0] == 204
    assert (await http("dan", "DELETE", f"/api/sessions/{own}/claim"))[0] == 404, "another's own session"
    assert (await http("bob", "DELETE", "/api/sessions/nope/claim"))[0] == 404


async def test_a_streamed_step_is_refused_with_who_holds_the_session(storage: Storage) -> None:
    services, script, _ = wired(storage)
    http = Http(services)
    sid = await team(http)
    await http.ok("bob", "POST", "/api/next", {"sessionId": sid, "userInput": "Translate."})
    calls = len(script.seen)
    response = await http.client.post(
        "/api/next",
        json={"sessionId": sid, "userInput": "Mine."},
        headers={"X-Act-As": "dan", "Accept": "text/event-stream"},
    )
    events = [line.removeprefix("data: ") for line in response.text.splitlines() if line.startswith("data: ")]
    answer = json.loads(events[-1])
    assert answer["status"] == 409 and answer["heldBy"] == "bob" and answer["until"], answer
    assert len(script.seen) == calls
